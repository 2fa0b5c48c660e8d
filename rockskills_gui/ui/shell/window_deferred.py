"""The parts of the main window built after its first paint (issue 19): the Skill tab's editor,
the Skill health table and the accessible names of the window's controls. A mixin of
``MainWindow``.

The window watches the library for changes made outside the app itself (the editor shares that
watcher once it is built), so that nothing changed on disk is missed while the editor is not.

The window paints with an :class:`~rockskills_gui.ui.editor.editor_face.EmptySkillPage` in the
Skill tab (what the editor shows while no skill is open) and an empty Skill health dock (hidden).
Each part is built the first time it is needed (a skill is opened, an editor command runs, a menu
opens, the dock is shown), and otherwise shortly after the tree has painted the first library,
one part per turn of the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from rockskills_gui.ui.common.after_paint import AfterPaint
from rockskills_gui.ui.common.library_watcher import DEFER_FROM, LibraryWatcher
from rockskills_gui.ui.editor.editor_face import EDITOR_COMMANDS, NEED_A_SKILL, EmptySkillPage
from rockskills_gui.ui.shell.window_state import WindowState

if TYPE_CHECKING:
    from rockskills_gui.core.library.library import Library
    from rockskills_gui.core.storage.changes import ChangeSet
    from rockskills_gui.ui.common.buffers import Buffer
    from rockskills_gui.ui.editor.editor_pane import EditorPane
    from rockskills_gui.ui.health.health_table import HealthPane

FINISH_DELAY_MS = 50  # after the tree's first paint of a library: its own frames go first
EDITOR_PREFS = frozenset({"editor_font", "editor_font_size", "preview_layout"})


class WindowDeferred(WindowState):
    """The editor, the health table and the accessible names of ``MainWindow``, built late."""

    _skill_pane: EditorPane | None
    _skill_placeholder: EmptySkillPage
    _health_pane: HealthPane | None
    _deferred: list[Callable[[], None]]
    _finishing: AfterPaint | None
    watcher: LibraryWatcher

    def _place_deferred_parts(self) -> None:
        """The Skill tab's placeholder (the first tab) and the steps left for after the paint."""
        self._skill_pane = None
        self._skill_placeholder = EmptySkillPage(self.tabs)
        self._skill_placeholder.setObjectName("skillPlaceholder")
        self.tabs.addTab(self._skill_placeholder, "Skill")
        self._health_pane = None
        self._finishing = None
        self.watcher = LibraryWatcher(self)
        # (the editor's modules load a turn before it is built: two short stalls, not one)
        self._deferred = [self._name_window_controls, self._load_editor_code,
                          self._build_skill_pane, self._build_health_pane]

    def _wire_deferred_parts(self) -> None:
        """Editor commands run the editor (built then if need be); until it exists no skill is
        open, so the commands that need one are off."""
        for action_id, (method, args) in EDITOR_COMMANDS.items():
            self.commands.on(action_id,
                             lambda m=method, a=args: getattr(self.skill_pane, m)(*a))
        for action_id in NEED_A_SKILL:
            self.commands[action_id].setEnabled(False)
        self.ctx.currentSkillChanged.connect(self._on_current_skill)
        self.ctx.changeApplied.connect(self._on_change_before_editor)
        self.ctx.libraryChanged.connect(self._watch_library)
        self.watcher.changed.connect(self._on_disk_changed)
        self.library_pane.resourceSelected.connect(
            lambda name, filename: self.skill_pane.show_resource(name, filename))
        self.health_dock.visibilityChanged.connect(
            lambda visible: self._build_health_pane() if visible else None)
        for menu in self.menus.values():  # the editor's commands show their real states
            menu.aboutToShow.connect(self._build_skill_pane)
        self.loadFinished.connect(self._finish_after_paint)

    # ---------------------------------------------------------------- the parts

    @property
    def skill_pane(self) -> EditorPane:
        """The Skill tab's editor, built (in its tab) the first time it is asked for."""
        if self._skill_pane is None:
            from rockskills_gui.ui.editor.editor_pane import EditorPane

            pane = EditorPane(self.ctx, remember=self.interactive, parent=self.tabs,
                              watcher=self.watcher)
            self._skill_pane = pane
            pane.adopt_actions(self.commands)
            pane.modeChanged.connect(self._remember_preview_layout)
            self._apply_editor_prefs(pane, EDITOR_PREFS)
            self._install_pane(self._skill_placeholder, pane, "Skill")
        return self._skill_pane

    @property
    def health_pane(self) -> HealthPane:
        """The Skill health dock's table, built the first time it is asked for or shown."""
        if self._health_pane is None:
            from rockskills_gui.ui.health.health_table import HealthPane

            pane = HealthPane(self.ctx, self.health_dock)
            self._health_pane = pane
            pane.openSkillRequested.connect(self._open_from_health)
            pane.availabilityChanged.connect(self._on_health_available)
            self.health_dock.setWidget(pane)
            self._name_controls_of(pane)
            if pane.available:  # the open library has CortexPrism stats: show them
                self._on_health_available(True)
        return self._health_pane

    def _load_editor_code(self) -> None:
        import rockskills_gui.ui.editor.editor_pane  # noqa: F401

    def _build_skill_pane(self) -> None:
        _ = self.skill_pane

    def _build_health_pane(self) -> None:
        _ = self.health_pane

    def _name_window_controls(self) -> None:
        self._name_controls_of(self)

    def _name_controls_of(self, root: QObject) -> None:
        """Accessible names for ``root``'s controls, once the window's own are named (a part
        built before that is named with the window)."""
        if self._name_window_controls in self._deferred and root is not self:
            return
        from rockskills_gui.ui.common.accessibility import name_controls

        name_controls(root)  # type: ignore[arg-type]

    def unsaved_edits(self) -> list[Buffer]:
        """The editor's buffers with unsaved edits (none before the editor is built)."""
        return self._skill_pane.unsaved_buffers() if self._skill_pane is not None else []

    def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None:
        """Run ``then`` once no edits would be lost (the editor asks, if it has any)."""
        if self._skill_pane is None:
            then()
        else:
            self._skill_pane.resolve_unsaved(then, doing)

    def _on_current_skill(self, name: str) -> None:
        if name and self._skill_pane is None:
            self._build_skill_pane()  # the pane shows the current skill as it is built

    def _on_change_before_editor(self, change: ChangeSet) -> None:
        """A skill created before the editor is built: its text takes the focus when shown."""
        if self._skill_pane is None and len(change.created) == 1 \
                and change.label.startswith("Create "):
            self.skill_pane.focus_when_shown(change.created[0])

    # ---------------------------------------------------------------- changes on disk

    def _watch_library(self, library: Library | None) -> None:
        """Watch the new library's skill roots (a big one's on the next event: 50 ms)."""
        folders = self.ctx.prepared.get("watch_folders")  # listed while the library loaded

        def watch() -> None:
            if self.ctx.library is library:  # (else another library arrived meanwhile)
                self.watcher.watch(library.skill_roots() if library is not None else None,
                                   folders if isinstance(folders, list) else None)

        if library is not None and len(library) >= DEFER_FROM:
            QTimer.singleShot(0, self, watch)
        else:
            watch()

    def _on_disk_changed(self, paths: list[Path]) -> None:
        if self.ctx.library is not None:
            self.ctx.refresh_from_disk(paths)  # the editor follows (and asks) as for any change

    # ---------------------------------------------------------------- after the first paint

    def _finish_after_paint(self, _error: str = "") -> None:
        if self._deferred and self._finishing is None:
            self._finishing = AfterPaint(self.library_pane.view.painted, self._next_deferred,
                                         self, FINISH_DELAY_MS)

    def _next_deferred(self) -> None:
        """Build the next part left, and the one after it on the next turn of the event loop."""
        if self._deferred:
            self._deferred.pop(0)()
        if self._deferred:
            QTimer.singleShot(0, self, self._next_deferred)

    def finish_startup(self) -> None:
        """Build every part left now (tests, screenshots)."""
        while self._deferred:
            self._deferred.pop(0)()

    @property
    def startup_finished(self) -> bool:
        """Every part is built."""
        return not self._deferred

    if TYPE_CHECKING:  # from the other parts of the window
        def _install_pane(self, placeholder: QWidget, pane: QWidget, label: str) -> None: ...
        def _remember_preview_layout(self, mode: str) -> None: ...
        def _apply_editor_prefs(self, pane: EditorPane, changed: frozenset[str]) -> None: ...
        def _open_from_health(self, name: str) -> None: ...
        def _on_health_available(self, available: bool) -> None: ...
