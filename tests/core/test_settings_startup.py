"""The settings the first paint reads without the schema equal what the schema makes of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from rockskills_gui.core.app.settings_fields import STARTUP_FIELDS, UNSURE, startup_value
from rockskills_gui.core.app.settings_store import SettingsStore
from tests.property_budget import budgeted

VALUES = st.one_of(
    st.sampled_from(["system", "light", "dark", "split", "editor", "preview", "", " Mono ",
                     "DejaVu Sans Mono", "x" * 200, "x" * 201, "Dark", "12"]),
    st.integers(-3, 60), st.floats(allow_nan=False), st.booleans(), st.none(),
    st.text(max_size=8), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _store(tmp: Path, text: str) -> SettingsStore:
    file = tmp / "settings.json"
    file.write_text(text, encoding="utf-8")
    return SettingsStore(file)


@budgeted(60, 300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.dictionaries(st.sampled_from([*STARTUP_FIELDS, "timeout", "model"]), VALUES))
def test_startup_values_equal_the_schemas(tmp_path: Path, raw: dict[str, Any]) -> None:
    text = json.dumps(raw)
    quick = _store(tmp_path, text).startup()  # a fresh store: nothing validated yet
    full = _store(tmp_path, text).settings
    for name in STARTUP_FIELDS:
        assert getattr(quick, name) == getattr(full, name), (name, raw.get(name))


def test_unusual_values_are_left_to_the_schema() -> None:
    assert startup_value("editor_font_size", 12.0) is UNSURE  # the schema may accept it
    assert startup_value("editor_font_size", True) is UNSURE
    assert startup_value("editor_font_size", 3) is UNSURE  # refused: the schema says why
    assert startup_value("theme", "Dark") is UNSURE
    assert startup_value("editor_font", " Mono ") == "Mono"
    assert startup_value("theme", "dark") == "dark"


def test_damaged_files_give_the_defaults(tmp_path: Path) -> None:
    for text in ("{not json", "[1, 2]", "", '"dark"'):
        store = _store(tmp_path, text)
        quick = store.startup()
        assert quick == _store(tmp_path, text).startup()
        for name in STARTUP_FIELDS:
            assert getattr(quick, name) == getattr(store.settings, name)
        assert store.load_problems  # said, as before


def test_a_missing_file_gives_the_defaults(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "absent.json")
    for name in STARTUP_FIELDS:
        assert getattr(store.startup(), name) == getattr(store.settings, name)


def test_startup_reads_do_not_load_pydantic(tmp_path: Path) -> None:
    file = tmp_path / "settings.json"
    file.write_text(json.dumps({"theme": "dark", "editor_font_size": 14, "model": "m"}), "utf-8")
    code = ("import sys\nfrom pathlib import Path\n"
            "from rockskills_gui.core.app.settings_store import SettingsStore\n"
            f"prefs = SettingsStore(Path({str(file)!r})).startup()\n"
            "assert prefs.theme == 'dark' and prefs.editor_font_size == 14, prefs\n"
            "print('pydantic' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
