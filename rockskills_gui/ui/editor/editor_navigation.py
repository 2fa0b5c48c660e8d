"""Moving around the Skill tab: the layout mode (editor / split / preview), the scroll sync
between the source and the preview, focus, find, and go to skill. A part of ``EditorPane``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.editor_buffers import OpenBuffers
from rockskills_gui.ui.editor.editor_layout import EditorWidgets

if TYPE_CHECKING:  # (loaded when first used)
    from rockskills_gui.ui.common.goto_skill import GoToSkillDialog

MODES = ("editor", "split", "preview")


class EditorNavigation(QObject):
    """Layout modes, scroll sync, focus, find and go-to of ``host`` (``EditorPane``), over its
    ``widgets`` and ``buffers``; ``actions`` are the commands whose states it keeps (the layout
    in force; ``view.skill`` brings the tab forward). ``remember`` keeps the mode in the
    settings.

    Signals:
        modeChanged(str): the layout mode changed ("editor", "split" or "preview").
    """

    modeChanged = Signal(str)

    def __init__(self, ctx: AppContext, host: QWidget, widgets: EditorWidgets,
                 buffers: OpenBuffers, actions: dict[str, QAction], remember: bool) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.editor = widgets.editor
        self.preview = widgets.preview
        self.find_bar = widgets.find_bar
        self.buffers = buffers
        self._actions = actions
        self.remember = remember
        self.mode = "split"
        self.goto_dialog: GoToSkillDialog | None = None
        self._syncing = False
        self.editor.verticalScrollBar().valueChanged.connect(self._sync_from_editor)
        self.preview.verticalScrollBar().valueChanged.connect(self._sync_from_preview)
        self.find_bar.closed.connect(self._after_find_closed)

    def without_sync(self, change: Callable[[], None]) -> None:
        """Run ``change`` (re-rendering the preview) without scrolling the editor along."""
        syncing, self._syncing = self._syncing, True
        try:
            change()
        finally:
            self._syncing = syncing

    def sync(self) -> None:
        """Scroll the preview to the editor's place (in the split layout)."""
        if self.mode == "split":
            self._sync_from_editor()

    # ---------------------------------------------------------------- layout, scroll sync, focus

    def set_mode(self, mode: str) -> None:
        """Show the editor, the preview, or both side by side ("editor", "preview", "split")."""
        if mode not in MODES:
            raise ValueError(f"unknown layout {mode!r} (expected one of {', '.join(MODES)})")
        self.mode = mode
        self.editor.setVisible(mode != "preview")
        self.preview.setVisible(mode != "editor")
        if self.remember:
            self.ctx.settings.setValue("editor/mode", mode)
        for key in MODES:
            action = self._actions.get(f"view.layout_{key}")
            if action is not None:
                action.setChecked(key == mode)
        if mode == "split":
            self._sync_from_editor()
        self.modeChanged.emit(mode)

    def _sync_from_editor(self) -> None:
        if self._syncing or self.mode != "split" or self.buffers.current is None:
            return
        self._syncing = True
        try:
            bar = self.editor.verticalScrollBar()
            target = self.preview.verticalScrollBar()
            if bar.value() >= bar.maximum() > 0:
                target.setValue(target.maximum())
            else:
                self.preview.scroll_to_line(self.editor.top_line())
        finally:
            self._syncing = False

    def _sync_from_preview(self) -> None:
        if self._syncing or self.mode != "split" or self.buffers.current is None:
            return
        self._syncing = True
        try:
            bar = self.preview.verticalScrollBar()
            if bar.value() >= bar.maximum() > 0:
                editor_bar = self.editor.verticalScrollBar()
                editor_bar.setValue(editor_bar.maximum())
            else:
                self.editor.scroll_to_line(self.preview.top_line())
        finally:
            self._syncing = False

    def _bring_forward(self) -> None:
        action = self._actions.get("view.skill")
        if action is not None:
            action.trigger()

    def focus_editor(self) -> None:
        if self.buffers.current is None:
            return
        self._bring_forward()
        if self.mode == "preview":
            self.set_mode("split")
        self.editor.setFocus()

    def focus_preview(self) -> None:
        if self.buffers.current is None:
            return
        self._bring_forward()
        if self.mode == "editor":
            self.set_mode("split")
        self.preview.setFocus()

    def open_find(self) -> None:
        """Open the find bar on the editor (or the preview when it has focus or is alone)."""
        if self.buffers.current is None:
            return
        self._bring_forward()
        use_preview = self.mode == "preview" or (self.preview.hasFocus() and self.mode == "split")
        self.find_bar.open_on(self.preview if use_preview else self.editor)

    def find_next(self) -> None:
        if self.find_bar.isVisible():
            self.find_bar.find_next()
        else:
            self.open_find()

    def find_previous(self) -> None:
        if self.find_bar.isVisible():
            self.find_bar.find_previous()
        else:
            self.open_find()

    def _after_find_closed(self) -> None:
        target = self.find_bar.target
        if target is not None and target.isVisible():
            target.setFocus()

    def go_to_skill(self) -> None:
        """Open the fuzzy "go to skill" finder."""
        lib = self.ctx.library
        if lib is None:
            return
        names = [s.name for s in lib.listed()]
        names += [b.name for b in self.buffers.buffers.values() if b.deleted and b.dirty]  # open

        def summary_of(name: str) -> str:
            skill = lib.get(name)
            return (skill.summary or "(summary pending)") if skill is not None else ""

        from rockskills_gui.ui.common.goto_skill import GoToSkillDialog

        dialog = GoToSkillDialog(names, summary_of, self.host.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(self._go_to)
        dialog.destroyed.connect(self._forget_goto)
        self.goto_dialog = dialog
        dialog.open()

    def _forget_goto(self) -> None:
        self.goto_dialog = None

    def _go_to(self, name: str) -> None:
        if self.ctx.select_skill(name):
            self.focus_editor()
