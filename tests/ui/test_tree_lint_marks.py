"""The tree marks skills that lint warns about in their format (issue 17): an Agent Skills name
unlike its folder gets the "lint" badge with the finding as tooltip; a clean skill gets none."""

from __future__ import annotations

import shutil
from pathlib import Path

from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.ui.library.tree_model import Badge
from tests.conftest import SHARED
from tests.ui.conftest import make_writable, open_window

CORPUS = SHARED / "corpora" / "anthropics-skills" / "skills"
CLEAN = "brand-guidelines"


def skill_md(name: str) -> str:
    return (f"---\nname: {name}\ndescription: Formats quarterly reports as tables when the user "
            "asks for a report.\n---\n\n# Reports\n\nSteps: gather the numbers, then fill the "
            "table, then check the totals against the source sheet before sending it on.\n")


def test_a_name_unlike_its_folder_is_marked_and_a_clean_skill_is_not(qtbot, tmp_path: Path) -> None:
    root = tmp_path / "collection"
    root.mkdir()
    shutil.copytree(CORPUS / CLEAN, root / CLEAN)
    (root / "report-tables").mkdir()
    (root / "report-tables" / "SKILL.md").write_text(skill_md("quarterly-tables"), encoding="utf-8")
    make_writable(root)

    window = open_window(qtbot, root)
    try:
        assert isinstance(window.ctx.library, SkillMdLibrary)
        pane = window.library_pane
        model = pane.model
        with qtbot.waitSignal(model.dataChanged, timeout=10_000):
            pane.wait_for_usage()
        odd = model.tree.skill_node("quarterly-tables")
        clean = model.tree.skill_node(CLEAN)
        assert odd is not None and clean is not None
        qtbot.waitUntil(lambda: Badge.LINT in model.badges(odd), timeout=10_000)  # (lint runs after)
        assert "report-tables" in model.tooltip(odd)  # the finding names the folder
        assert Badge.LINT not in model.badges(clean)
    finally:
        window._close_confirmed = True
        window.loader.cancel()
        window.loader.wait()
