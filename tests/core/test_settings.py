"""User settings: schema (titles, ranges), JSON round trip, validation, change notifications."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from rockskills_gui.core.app.settings import GROUPS, PRESETS, Settings, field_info
from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.core.storage.appdirs import config_dir


def test_defaults_and_file_location() -> None:
    store = SettingsStore()
    assert store.file == config_dir() / "settings.json"
    assert store.settings == Settings()
    assert store.settings.protected_prefixes == ("patrol/",)
    assert store.settings.theme == "system"
    assert not store.file.exists()  # nothing is written until something changes


def test_every_field_has_a_title_description_and_group() -> None:
    for name in Settings.model_fields:
        info = field_info(name)
        assert info["title"] and info["title"] != name, name
        assert info["description"], name
        assert info["group"] in GROUPS, name


def test_no_field_can_hold_a_secret() -> None:
    names = " ".join(Settings.model_fields).lower()
    assert "key" not in names and "token" not in names and "secret" not in names
    assert "api_key" not in Settings.model_json_schema()["properties"]


def test_round_trip_through_the_file(tmp_path: Path) -> None:
    file = tmp_path / "settings.json"
    store = SettingsStore(file)
    changed = store.update(endpoint="custom", base_url="http://10.0.0.5:8000/v1/", model=" qwen ",
                           timeout=30, theme="dark", editor_font="DejaVu Sans Mono",
                           editor_font_size=14, preview_layout="preview",
                           protected_prefixes=["patrol/", " ops/ ", "", "PATROL/"])
    assert changed == {"endpoint", "base_url", "model", "timeout", "theme", "editor_font",
                       "editor_font_size", "preview_layout", "protected_prefixes"}
    data = json.loads(file.read_text())
    assert data["base_url"] == "http://10.0.0.5:8000/v1"  # trailing slash dropped
    assert data["model"] == "qwen"
    assert data["protected_prefixes"] == ["patrol/", "ops/"]  # cleaned, de-duplicated
    again = SettingsStore(file).settings
    assert again == store.settings
    assert again.effective_base_url == "http://10.0.0.5:8000/v1"
    assert not list(tmp_path.glob(".*rsg-tmp"))  # the atomic write left no temp file


def test_presets_give_the_base_url_unless_custom() -> None:
    ids = [p.id for p in PRESETS]
    assert ids == ["openai", "ollama", "lmstudio", "vllm", "llamacpp", "openrouter", "custom"]
    assert Settings(endpoint="ollama", base_url="http://x:1/v1").effective_base_url \
        == "http://127.0.0.1:11434/v1"
    assert Settings(endpoint="openai").effective_base_url == "https://api.openai.com/v1"
    assert Settings(endpoint="custom", base_url="http://x:1/v1").effective_base_url == "http://x:1/v1"
    assert Settings().preset.needs_key is False and Settings(endpoint="openrouter").preset.needs_key


@pytest.mark.parametrize(("field", "value"), [
    ("timeout", 4.9), ("timeout", 901), ("editor_font_size", 5), ("editor_font_size", 49),
    ("editor_font_size", -1), ("theme", "blue"), ("endpoint", "gemini"),
    ("preview_layout", "stacked"), ("base_url", "ftp://host/v1"), ("base_url", "localhost:8000"),
    ("model", "m" * 201), ("protected_prefixes", [f"p{i}/" for i in range(101)]),
])
def test_out_of_range_values_are_refused_and_nothing_is_saved(tmp_path: Path, field: str,
                                                              value: object) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    with pytest.raises(ValidationError):
        store.update(**{field: value})
    assert store.settings == Settings()
    assert not store.file.exists()


@pytest.mark.parametrize(("field", "value"), [
    ("timeout", 5), ("timeout", 900), ("editor_font_size", 0), ("editor_font_size", 6),
    ("editor_font_size", 48), ("base_url", ""), ("base_url", "https://openrouter.ai/api/v1"),
])
def test_boundary_values_are_accepted(tmp_path: Path, field: str, value: object) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.update(**{field: value})
    assert getattr(store.settings, field) == value


def test_ranges_are_in_the_schema_for_the_dialog() -> None:
    assert field_info("timeout")["ge"] == 5 and field_info("timeout")["le"] == 900
    assert field_info("editor_font_size")["le"] == 48
    assert field_info("theme")["labels"] == {"system": "Follow system", "light": "Light",
                                             "dark": "Dark"}


def test_unknown_settings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="api_key"):
        SettingsStore(tmp_path / "s.json").update(api_key="sk-nope")


def test_listeners_hear_what_changed_and_can_unsubscribe(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    heard: list[tuple[str, frozenset[str]]] = []
    stop = store.subscribe(lambda s, changed: heard.append((s.theme, changed)))
    store.update(theme="dark")
    store.update(theme="dark")  # no change: no notification, no write
    store.update(theme="light", timeout=60)
    stop()
    store.update(theme="system")
    assert heard == [("dark", frozenset({"theme"})), ("light", frozenset({"theme", "timeout"}))]


def test_a_damaged_file_reads_as_defaults_and_is_kept_until_a_change(tmp_path: Path) -> None:
    file = tmp_path / "settings.json"
    file.write_text("{not json")
    store = SettingsStore(file)
    assert store.settings == Settings()
    assert store.load_problems and "could not be read" in store.load_problems[0]
    assert file.read_text() == "{not json"
    store.update(theme="dark")
    assert json.loads(file.read_text())["theme"] == "dark"


def test_one_bad_field_falls_back_alone(tmp_path: Path) -> None:
    file = tmp_path / "settings.json"
    file.write_text(json.dumps({"theme": "dark", "timeout": 99999, "model": "llama3",
                                "something_new": 1}))
    store = SettingsStore(file)
    assert store.settings.theme == "dark" and store.settings.model == "llama3"
    assert store.settings.timeout == Settings().timeout
    assert store.load_problems == ["setting 'timeout' was invalid; using its default"]


def test_reset_restores_defaults(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.update(theme="dark", model="x")
    assert store.reset(["theme"]) == {"theme"}
    assert store.settings.model == "x"
    store.reset()
    assert store.settings == Settings()
