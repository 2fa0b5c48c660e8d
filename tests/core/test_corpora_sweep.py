"""Every collection in ../shared/corpora (new ones included, with no change here): detected without
--format, every SKILL.md loaded or named in a problem, and the trip to RockBot and back exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.model.problems import ProblemKind
from tests.conftest import SHARED
from tests.corpus_sweep import collections, sweep

CORPORA = SHARED / "corpora"


@pytest.mark.parametrize("folder", collections(CORPORA), ids=lambda p: p.name)
def test_every_skill_md_is_accounted_for_and_round_trips(folder: Path) -> None:
    row = sweep(folder)
    assert row.format != "rockbot", f"{row.name} detected as {row.format}: {row.reason}"
    assert row.unaccounted == (), row.unaccounted
    assert row.loaded + row.problems == row.found
    assert row.round_trip


def test_a_skill_md_inside_a_skill_folder_is_a_note_naming_its_parent(tmp_path: Path) -> None:
    (tmp_path / "outer" / "inner").mkdir(parents=True)
    (tmp_path / "outer" / "SKILL.md").write_text("---\nname: outer\ndescription: Outer skill\n---\n# Outer\n")
    (tmp_path / "outer" / "inner" / "SKILL.md").write_text("---\nname: inner\ndescription: In\n---\n# In\n")
    lib = open_library(tmp_path)
    assert [s.name for s in lib.skills()] == ["outer"]
    nested = [p for p in lib.problems if p.kind is ProblemKind.NESTED_SKILL]
    assert [(p.path, p.name, p.severity) for p in nested] == [("outer/inner/SKILL.md", "outer", "info")]
    assert "outer" in nested[0].message
