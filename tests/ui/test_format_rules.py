"""Each format's own rules in the editor header (issue 17): RockBot's 15-word summary counter only
for RockBot; Agent Skills counts the description's characters against its 1024 limit; a long
description shows from its start."""

from __future__ import annotations

import shutil
from pathlib import Path

from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY, SummaryRule
from tests.conftest import SHARED
from tests.ui.conftest import open_window
from tests.ui.test_editor_pane import open_skill

CORPUS = SHARED / "corpora" / "anthropics-skills"


def test_the_rules_count_what_each_format_limits() -> None:
    assert ROCKBOT_SUMMARY.counter("one two  three") == "3/15 words"
    assert ROCKBOT_SUMMARY.over(" ".join(["w"] * 16)) and not ROCKBOT_SUMMARY.over(" ".join(["w"] * 15))
    chars = SummaryRule("description", "characters", 10, "Agent Skills")
    assert chars.counter("abc def") == "7/10 characters" and chars.over("x" * 11)
    assert "this one has 11" in chars.hint("x" * 11)
    free = SummaryRule("description", "characters", None, "PicoBot (assumed)")
    assert free.counter("abc") == "3 characters" and not free.over("x" * 100_000)


def test_agent_skills_header_counts_characters_not_rockbot_words(qtbot, tmp_path: Path) -> None:
    library = tmp_path / "skills-repo"
    shutil.copytree(CORPUS, library)
    window = open_window(qtbot, library)
    fitting = [s for s in window.ctx.library.skills() if len(s.summary or "") <= 1024]
    name = max(fitting, key=lambda s: len(s.summary or "")).name  # far over 15 words, under 1024
    pane = open_skill(window, name)
    header = pane.header
    description = window.ctx.library.get(name).summary
    assert header.summary_label.text() == "Description"
    assert header.word_count.text() == f"{len(description)}/1024 characters"
    assert "words" not in header.word_count.text()
    assert len(description.split()) > 15 and not header.word_limit_exceeded
    assert header.summary.cursorPosition() == 0  # shown from its start
    header.summary.setText("x" * 1025)
    assert header.word_limit_exceeded and "Agent Skills asks for a description of 1024" in \
        header.word_count.toolTip()


def test_rockbot_header_keeps_the_15_word_counter(qtbot, agent: Path) -> None:
    window = open_window(qtbot, agent)
    pane = open_skill(window, "mcp/email")
    assert pane.header.summary_label.text() == "Summary"
    assert pane.header.word_count.text().endswith("/15 words")


def test_long_agent_skills_description_wraps_from_its_start_and_round_trips(
        qtbot, tmp_path: Path) -> None:
    """Issue 17: a long description is shown from its start, wraps over several lines (a
    multi-line field), Enter adds no line break, and an edit saves through the core writer."""
    from PySide6.QtCore import Qt

    from rockskills_gui.core.library.open import open_library

    library = tmp_path / "skills-repo"
    shutil.copytree(CORPUS, library)
    window = open_window(qtbot, library)
    name = max(window.ctx.library.skills(), key=lambda s: len(s.summary or "")).name
    description = window.ctx.library.get(name).summary or ""
    assert len(description) > 300
    pane = open_skill(window, name)
    field = pane.header.summary
    assert field.multi_line and field.text() == description
    qtbot.waitUntil(lambda: field.visual_lines() > 1)  # wrapped at the field's width
    assert field.height() > 2 * field.fontMetrics().lineSpacing()  # grew past one line
    first = field.cursorForPosition(field.viewport().rect().topLeft() + field.rect().topLeft())
    first.movePosition(first.MoveOperation.EndOfLine, first.MoveMode.KeepAnchor)
    shown = first.selectedText()
    assert shown and description.startswith(shown.rstrip())  # the first visible line is its start
    assert field.verticalScrollBar().value() == 0
    # the header re-lays out for the taller field (waited for, not slept: a busy machine is slower)
    qtbot.waitUntil(lambda: not field.geometry().intersects(pane.header.see_also.geometry()))
    window.grab().save(str(tmp_path / "header.png"))
    pane.header.grab().save(str(tmp_path / "header-only.png"))

    field.setFocus()
    field.end(False)
    qtbot.keyClick(field, Qt.Key.Key_Return)  # no line break in a description
    qtbot.keyClicks(field, " Edited.")
    assert field.text() == description + " Edited." and pane.current.dirty
    assert pane.save() and not pane.current.dirty
    reopened = open_library(library)
    assert reopened.get(name).summary == description + " Edited."
    assert window.ctx.library.get(name).summary == description + " Edited."
    window._close_confirmed = True
