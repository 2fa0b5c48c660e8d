"""The scan's Path objects made from their folder's (issue 19) are exactly ``Path(where)``."""

from __future__ import annotations

import os
import pathlib
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.scan import _walk
from rockskills_gui.core.library.rockbot.skill_file import PathMaker


def make_tree(root: Path) -> Path:
    skills = root / "agent" / "skills"
    for rel in ("a.json", "mcp/gmail/send-email.json", "mcp/gmail/x y.json", "ünï/cöde.json",
                "deep/er/and/deeper/still.json", ".hidden/dot.json", "a..b/c.d.json"):
        path = skills / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    return skills


@pytest.mark.parametrize("fast", [True, False])
def test_paths_equal_parsed_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 fast: bool) -> None:
    if not fast:
        monkeypatch.delattr(pathlib.Path, "_make_child_relpath", raising=False)
    skills = make_tree(tmp_path)
    files = _walk(skills)
    assert len(files) == 7
    make = PathMaker()
    for where, _rel in files:
        made = make(where)
        parsed = Path(where)
        assert made == parsed and str(made) == where == os.fspath(parsed)
        assert hash(made) == hash(parsed) and made.parts == parsed.parts
        assert made.parent == parsed.parent and made.name == parsed.name
    assert {make(w) for w, _ in files} == {Path(w) for w, _ in files}
