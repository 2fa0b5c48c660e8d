"""A coding agent's library (plugins, categories) is not dreamed over yet: the CLI says why and
what works instead, and that way works (one folder of skill folders opened as Agent Skills)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.cli import main
from rockskills_gui.core.library.open import OpenOptions, open_library
from tests.skill_layouts import claude_marketplace, codex_marketplace


@pytest.mark.parametrize("make", [claude_marketplace, codex_marketplace])
def test_a_plugin_marketplace_is_refused_with_the_way_that_works(
        make, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make(tmp_path / "market")
    library = open_library(root, OpenOptions())
    assert not library.profile.curation.passes
    before = sorted((p.relative_to(root).as_posix(), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    plan = tmp_path / "plan.json"
    assert main(["dream", str(root), "--offline", "--plan-out", str(plan)]) != 0
    err = capsys.readouterr().err
    assert library.profile.title in err and "plugin or category" in err and "Agent Skills" in err
    assert not plan.exists()
    after = sorted((p.relative_to(root).as_posix(), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    assert after == before  # nothing written

    skills = next(p.parent.parent for p in sorted(root.rglob("SKILL.md")) if p.parent.parent.name == "skills")
    assert main(["dream", str(skills), "--format", "agentskills", "--offline",
                 "--plan-out", str(plan)]) == 0
    assert json.loads(plan.read_text(encoding="utf-8"))["proposals"] is not None
