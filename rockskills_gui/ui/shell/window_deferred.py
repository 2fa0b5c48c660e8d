"""The parts of the main window built after its first paint (issue 19): the Skill tab's editor,
the Skill health table and the accessible names of the window's controls. A part of
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

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QMenu, QTabWidget, QWidget

from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.after_paint import AfterPaint
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.library_watcher import DEFER_FROM, LibraryWatcher
from rockskills_gui.ui.editor.editor_face import EDITOR_COMMANDS, NEED_A_SKILL, EmptySkillPage
from rockskills_gui.ui.library.tree_pane import TreePane
from rockskills_gui.ui.shell.window_tabs import LazyTab

if TYPE_CHECKING:
    from rockskills_gui.core.library.library import Library
    from rockskills_gui.core.storage.changes import ChangeSet
    from rockskills_gui.ui.common.buffers import Buffer
    from rockskills_gui.ui.editor.editor_pane import EditorPane
    from rockskills_gui.ui.health.health_table import HealthPane

FINISH_DELAY_MS = 50  # after the tree's first paint of a library: its own frames go first
EDITOR_PREFS = frozenset({"editor_font", "editor_font_size", "preview_layout"})


class WindowDeferred(QObject):
    """The editor (the Skill tab), the health table and the accessible names of ``MainWindow``,
    built late, and the watcher of the open library's files.

    ``host`` is the window (its controls are named; the editor is built in ``tabs``),
    ``show_skill(name)`` opens a skill the health table asks for, ``installed(pane)`` is told of
    the editor when it is put in its tab.
    """

    def __init__(self, ctx: AppContext, host: QWidget, commands: ActionRegistry,
                 tabs: QTabWidget, library_pane: TreePane, health_dock: QDockWidget,
                 interactive: bool, show_skill: Callable[[str], object],
                 installed: Callable[[QWidget], None]) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.commands = commands
        self.tabs = tabs
        self.library_pane = library_pane
        self.health_dock = health_dock
        self.interactive = interactive
        self._show_skill = show_skill
        placeholder = EmptySkillPage(tabs)
        placeholder.setObjectName("skillPlaceholder")
        self.skill: LazyTab[EditorPane] = LazyTab(tabs, "Skill", placeholder, self._build_editor,
                                                  installed)
        self.health: HealthPane | None = None  # the health table, once built
        self._finishing: AfterPaint | None = None
        self.watcher = LibraryWatcher(self)
        # (the editor's modules load a turn before it is built: two short stalls, not one)
        self._deferred: list[Callable[[], None]] = [
            self._name_window_controls, self._load_editor_code, self._build_skill_pane,
            self._build_health_pane]

    def wire(self, menus: Iterable[QMenu]) -> None:
        """Editor commands run the editor (built then if need be); until it exists no skill is
        open, so the commands that need one are off. An opening ``menus`` builds it too (its
        commands then show their real states)."""
        for action_id, (method, args) in EDITOR_COMMANDS.items():
            self.commands.on(action_id, partial(self._run_editor_command, method, args))
        for action_id in NEED_A_SKILL:
            self.commands[action_id].setEnabled(False)
        self.ctx.currentSkillChanged.connect(self._on_current_skill)
        self.ctx.changeApplied.connect(self._on_change_before_editor)
        self.ctx.libraryChanged.connect(self._watch_library)
        self.ctx.preferencesChanged.connect(self._on_preferences_changed)
        self.watcher.changed.connect(self._on_disk_changed)
        self.library_pane.resourceSelected.connect(
            lambda name, filename: self.skill_pane.show_resource(name, filename))
        self.health_dock.visibilityChanged.connect(
            lambda visible: self._build_health_pane() if visible else None)
        for menu in menus:
            menu.aboutToShow.connect(self._build_skill_pane)

    def _run_editor_command(self, method: str, args: tuple[str, ...]) -> None:
        getattr(self.skill_pane, method)(*args)  # (an EDITOR_COMMANDS entry: an EditorPane method)

    # ---------------------------------------------------------------- the parts

    @property
    def skill_pane(self) -> EditorPane:
        """The Skill tab's editor, built (in its tab) the first time it is asked for."""
        return self.skill.pane()

    def _build_editor(self) -> EditorPane:
        from rockskills_gui.ui.editor.editor_pane import EditorPane

        pane = EditorPane(self.ctx, remember=self.interactive, parent=self.tabs,
                          watcher=self.watcher)
        pane.adopt_actions(self.commands)
        pane.modeChanged.connect(self._remember_preview_layout)
        self.apply_editor_prefs(pane, EDITOR_PREFS)
        return pane

    @property
    def health_pane(self) -> HealthPane:
        """The Skill health dock's table, built the first time it is asked for or shown."""
        if self.health is None:
            from rockskills_gui.ui.health.health_table import HealthPane

            pane = HealthPane(self.ctx, self.health_dock)
            self.health = pane
            pane.openSkillRequested.connect(self._show_skill)
            pane.availabilityChanged.connect(self._on_health_available)
            self.health_dock.setWidget(pane)
            self.name_controls_of(pane)
            if pane.available:  # the open library has CortexPrism stats: show them
                self._on_health_available(True)
        return self.health

    def _on_health_available(self, available: bool) -> None:
        """Show the health table (in front of Problems) when the library has CortexPrism data."""
        self.health_dock.setVisible(available)
        if available:
            self.health_dock.raise_()

    def _load_editor_code(self) -> None:
        import rockskills_gui.ui.editor.editor_pane  # noqa: F401

    def _build_skill_pane(self) -> None:
        self.skill.pane()

    def _build_health_pane(self) -> None:
        _ = self.health_pane

    def _name_window_controls(self) -> None:
        self.name_controls_of(self.host)

    def name_controls_of(self, root: QWidget) -> None:
        """Accessible names for ``root``'s controls, once the window's own are named (a part
        built before that is named with the window)."""
        if self._name_window_controls in self._deferred and root is not self.host:
            return
        from rockskills_gui.ui.common.accessibility import name_controls

        name_controls(root)

    def unsaved_edits(self) -> list[Buffer]:
        """The editor's buffers with unsaved edits (none before the editor is built)."""
        pane = self.skill.built
        return pane.unsaved_buffers() if pane is not None else []

    def resolve_unsaved(self, then: Callable[[], None], doing: str = "closing") -> None:
        """Run ``then`` once no edits would be lost (the editor asks, if it has any)."""
        pane = self.skill.built
        if pane is None:
            then()
        else:
            pane.resolve_unsaved(then, doing)

    def _on_current_skill(self, name: str) -> None:
        if name and self.skill.built is None:
            self._build_skill_pane()  # the pane shows the current skill as it is built

    def _on_change_before_editor(self, change: ChangeSet) -> None:
        """A skill created before the editor is built: its text takes the focus when shown."""
        if self.skill.built is None and len(change.created) == 1 \
                and change.label.startswith("Create "):
            self.skill_pane.focus_when_shown(change.created[0])

    # ---------------------------------------------------------------- the editor's preferences

    def _on_preferences_changed(self, changed: frozenset[str]) -> None:
        pane = self.skill.built
        if pane is not None:  # (a pane built later takes them as it is built)
            self.apply_editor_prefs(pane, changed)

    def apply_editor_prefs(self, pane: EditorPane, changed: frozenset[str]) -> None:
        """The editor font and the preview layout, where ``changed`` names them."""
        prefs = self.ctx.preferences.startup()  # (all it uses; no schema before the first paint)
        if changed & {"editor_font", "editor_font_size"}:
            from rockskills_gui.ui.editor.editor_font import apply_editor_font  # (with the editor)

            apply_editor_font(pane.editor, prefs)
        if "preview_layout" in changed and pane.mode != prefs.preview_layout:
            pane.set_mode(prefs.preview_layout)

    def _remember_preview_layout(self, mode: str) -> None:
        if self.interactive and mode != self.ctx.preferences.startup().preview_layout:
            self.ctx.preferences.update(preview_layout=mode)

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

    def finish_after_paint(self, _error: str = "") -> None:
        """A load ended: build what is left after the tree's next paint, one part a turn."""
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
