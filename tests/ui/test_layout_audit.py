"""Issue #18: every pane and dialog, at 1280×720, 1400×900 and 1920×1080, light and dark, passes
the generic layout audit (rockskills_gui/ui/common/layout_audit.py): no clipped or ambiguous text,
no text below the application font size, WCAG AA contrast, no overlapping siblings.

The scenes are the screenshot gallery's (rockskills_gui/ui/shell/gallery.py), so what people look at in
the gallery is exactly what is checked here. The audit walks whatever widgets are shown: a new
pane or dialog is covered once the gallery poses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from rockskills_gui.core.app.demo import install_demo
from rockskills_gui.ui.common.layout_audit import Finding, audit
from rockskills_gui.ui.common.theme import apply_theme
from rockskills_gui.ui.shell.gallery import SIZES, THEMES, Studio

# Findings that are not problems, each with its reason: (rule, part of the widget's description).
ALLOWED: tuple[tuple[str, str, str], ...] = ()


def allowed(finding: Finding) -> bool:
    return any(finding.rule == rule and part in finding.where for rule, part, _why in ALLOWED)


@pytest.fixture
def studio(qapp, tmp_path: Path, no_quit_on_close) -> Iterator[Studio]:
    library = install_demo(tmp_path / "demo")
    studio = Studio(library, tmp_path / "studio")
    yield studio
    studio.close()
    apply_theme(qapp, "light")


def test_every_pane_and_dialog_passes_the_audit(studio: Studio) -> None:
    findings: list[str] = []
    seen: set[tuple[str, str, tuple[int, int] | None]] = set()
    for shot in studio.shots(THEMES, SIZES):
        seen.add((shot.scene, shot.theme, shot.size))
        widget = shot.widget
        if shot.size is not None:  # the window (or wizard) really is that size: nothing forced
            assert (widget.width(), widget.height()) == shot.size, (  # type: ignore[attr-defined]
                f"{shot.filename}: minimum size too large for the screen")
        for finding in audit([widget]):  # type: ignore[list-item]
            if not allowed(finding):
                findings.append(f"{shot.filename}: {finding}")
    scenes = {scene for scene, _theme, _size in seen}
    assert {"no-library", "editor", "editor-problems", "recall-compare", "recall-query-sets",
            "usage-table", "usage-problems", "usage-signals", "dream-4-review",
            "dialog-preferences", "dialog-new-skill", "dialog-move"} <= scenes
    assert len(seen) > 100  # every scene, size and theme
    assert not findings, "\n".join(findings[:40])


# ---------------------------------------------------------------- the audit catches what it should


@pytest.fixture
def box(qtbot) -> QWidget:
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.resize(400, 200)
    return widget


def rules(widget: QWidget) -> set[str]:
    widget.show()
    QApplication.processEvents()
    return {finding.rule for finding in audit([widget])}


def test_audit_finds_clipped_text(box: QWidget) -> None:
    label = QLabel("a label with far more text than forty pixels hold", box)
    label.setGeometry(10, 10, 40, 20)
    assert "clipped" in rules(box)
    label.setToolTip(label.text())  # elided on purpose, whole text on hover: fine
    button = QPushButton("A long button caption", box)
    button.setGeometry(10, 40, 50, 30)
    button.show()
    assert "clipped" in rules(box)


def test_audit_finds_small_fonts_and_poor_contrast(box: QWidget) -> None:
    small = QLabel("tiny", box)
    font = QFont(small.font())
    font.setPixelSize(7)
    small.setFont(font)
    small.setGeometry(10, 10, 100, 30)
    assert "small-font" in rules(box)
    small.setFont(QApplication.font())
    palette = small.palette()
    palette.setColor(QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.Window)
                     .darker(115))
    small.setPalette(palette)
    assert "contrast" in rules(box)


def test_audit_finds_overlaps_narrow_fields_and_ambiguous_rows(box: QWidget) -> None:
    layout = QHBoxLayout(box)
    field = QLineEdit(box)
    layout.addWidget(field)
    field.setFixedWidth(30)
    assert "narrow" in rules(box)
    field.setFixedWidth(200)
    table = QTableWidget(2, 1, box)
    layout.addWidget(table)
    for row, text in enumerate(("research/summarize-article", "research/summarize-paper")):
        table.setItem(row, 0, QTableWidgetItem(text))
    table.setColumnWidth(0, 90)
    assert "ambiguous" in rules(box)  # a wrapped table shows "research/…" twice
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    assert "ambiguous" not in rules(box)
    other = QLabel("on top", box)
    layout.addWidget(other)
    other.show()
    box.show()
    QApplication.processEvents()
    other.setGeometry(field.geometry())  # as if a squeezed layout stacked them
    assert "overlap" in {f.rule for f in audit([box])}
