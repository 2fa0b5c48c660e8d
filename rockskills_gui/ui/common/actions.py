"""Every command of the window, declared once: id, title, shortcut, menu and toolbar placement.

The window (and later panes) connect behaviour by id (``registry.on("file.open", slot)``);
menus, the toolbar and the command palette are all built from :data:`ACTIONS`, so a command
has one title and one shortcut everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QStyle, QToolBar, QWidget

from rockskills_gui.ui.common.icons import themed_icon

Shortcut = QKeySequence.StandardKey | str | None

MENUS: tuple[tuple[str, str], ...] = (
    ("file", "&File"),
    ("edit", "&Edit"),
    ("view", "&View"),
    ("tools", "&Tools"),
    ("help", "&Help"),
)

# Toolbar order (None = separator); each listed spec gives its short ``toolbar`` text.
TOOLBAR: tuple[str | None, ...] = (
    "file.open", "file.new_skill", "file.save", None,
    "view.recall", "view.usage", "tools.dream", None,
    "edit.palette",
)


@dataclass(frozen=True)
class ActionSpec:
    """One command. ``menu`` is a key of :data:`MENUS` (None: not in a menu)."""

    id: str
    title: str
    menu: str | None = None
    shortcut: Shortcut = None
    toolbar: str | None = None  # short text for the toolbar button (see TOOLBAR)
    tip: str = ""
    icon: QIcon.ThemeIcon | None = None
    fallback_icon: QStyle.StandardPixmap | None = None
    checkable: bool = False
    enabled: bool = True
    submenu: bool = False  # the action opens a submenu the window fills (e.g. Open Recent)
    separator_before: bool = False
    palette: bool = True  # offered in the command palette
    svg: str | None = None  # a themed icon from resources/icons (preferred over ``icon``)
    role: QAction.MenuRole | None = None  # e.g. the macOS application menu's Preferences


TI = QIcon.ThemeIcon
SP = QStyle.StandardPixmap
SK = QKeySequence.StandardKey

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("file.open", "&Open Library…", "file", SK.Open, "Open",
               "Open a skill library folder: a RockBot agent directory, SKILL.md skills or a "
               "CortexPrism project (the format is detected; File > Reopen As overrides it)",
               TI.DocumentOpen, SP.SP_DialogOpenButton, svg="folder-open"),
    ActionSpec("file.recent", "Open &Recent", "file", submenu=True, palette=False),
    ActionSpec("file.reopen_as", "Reopen &As", "file", submenu=True, palette=False,
               tip="Open the current folder again as another skill format"),
    ActionSpec("file.demo", "Open &Demo Library", "file",
               tip="Open the bundled demo library (installed in your data folder on first use)"),
    ActionSpec("file.new_skill", "&New Skill…", "file", SK.New, "New skill",
               "Create an empty skill in the open library", TI.DocumentNew, SP.SP_FileIcon,
               separator_before=True, svg="file-plus"),
    ActionSpec("file.save", "&Save", "file", SK.Save, "Save",
               "Save the skill being edited", TI.DocumentSave, SP.SP_DialogSaveButton,
               enabled=False, svg="save"),
    ActionSpec("file.save_all", "Save A&ll", "file", "Ctrl+Shift+S",
               tip="Save every skill with unsaved edits", enabled=False),
    ActionSpec("file.save_like_agent", "Save Like RockBot's &edit_skill", "file",
               tip="Save only the content, as the agent's own edit_skill does: one exact-string edit; "
                   "summary, see-also, lastUsedAt and resources stay as they are (agents with an "
                   "edit_skill tool: RockBot (current))", enabled=False),
    ActionSpec("file.quit", "&Quit", "file", "Ctrl+Q", tip="Close the window",
               icon=TI.ApplicationExit, separator_before=True, svg="quit"),
    ActionSpec("edit.undo", "&Undo", "edit", SK.Undo, tip="Undo the last change to the library",
               icon=TI.EditUndo, enabled=False, svg="undo"),
    ActionSpec("edit.redo", "&Redo", "edit", SK.Redo, tip="Redo the last undone change",
               icon=TI.EditRedo, enabled=False, svg="redo"),
    # Cut, Copy and Paste act on the focused text field (the window enables them to match it).
    ActionSpec("edit.cut", "Cu&t", "edit", SK.Cut, tip="Cut the selected text to the clipboard",
               icon=TI.EditCut, enabled=False, separator_before=True, palette=False),
    ActionSpec("edit.copy", "&Copy", "edit", SK.Copy, tip="Copy the selected text",
               icon=TI.EditCopy, enabled=False, palette=False),
    ActionSpec("edit.paste", "&Paste", "edit", SK.Paste,
               tip="Paste the clipboard's text at the cursor", icon=TI.EditPaste, enabled=False,
               palette=False),
    ActionSpec("edit.find", "&Find in Skill…", "edit", SK.Find,
               tip="Find text in the skill's source (or in the preview when it has focus)",
               icon=TI.EditFind, separator_before=True, enabled=False, svg="find"),
    ActionSpec("edit.find_next", "Find &Next", "edit", SK.FindNext, enabled=False),
    ActionSpec("edit.find_previous", "Find Pre&vious", "edit", SK.FindPrevious, enabled=False),
    ActionSpec("edit.palette", "Command &Palette…", "edit", "Ctrl+Shift+P", "Commands",
               "Find and run any command by name", TI.SystemSearch,
               separator_before=True, palette=False, svg="command"),
    ActionSpec("edit.goto_skill", "&Go to Skill…", "edit", "Ctrl+P",
               tip="Open a skill by typing part of its name (fuzzy matching)"),
    # The tree pane scopes Del to itself; F2 renames from any focus (TreePane.bind_actions).
    ActionSpec("tree.rename", "Re&name Skill…", "edit", "F2",
               tip="Rename the selected skill or folder in place (a new prefix moves it)",
               separator_before=True, enabled=False),
    ActionSpec("tree.move", "&Move to Folder…", "edit",
               tip="Move the selected skills and folders into another folder", enabled=False),
    ActionSpec("tree.delete", "&Delete Skill…", "edit", SK.Delete,
               tip="Delete the selected skills (and everything in selected folders)",
               icon=TI.EditDelete, enabled=False, svg="trash"),
    ActionSpec("tree.filter", "&Filter Library", "edit", "Ctrl+Shift+F",
               tip="Filter the Library by name, summary, usage and problems"),
    ActionSpec("view.skill", "&Skill", "view", "Ctrl+1",
               tip="Show the Skill tab (editor and preview)"),
    ActionSpec("view.recall", "&Recall Playground", "view", "Ctrl+2", "Recall",
               "Show the Recall tab: what the agent would recall for a message",
               TI.EditFind, SP.SP_FileDialogContentsView, svg="recall"),
    ActionSpec("view.usage", "&Usage Heatmap", "view", "Ctrl+3", "Usage",
               "Show the Usage tab: which skills are used together",
               fallback_icon=SP.SP_FileDialogListView, svg="heatmap"),
    ActionSpec("view.layout_editor", "&Editor Only", "view", "Ctrl+Shift+E",
               tip="Show only the Markdown source", checkable=True, separator_before=True),
    ActionSpec("view.layout_split", "Side &by Side", "view", "Ctrl+Shift+B",
               tip="Show the source and the rendered preview side by side", checkable=True),
    ActionSpec("view.layout_preview", "Pre&view Only", "view", "Ctrl+Shift+V",
               tip="Show only the rendered preview", checkable=True),
    ActionSpec("view.focus_tree", "Focus Library", "view", "Alt+1",
               tip="Move the keyboard focus to the Library panel", separator_before=True),
    ActionSpec("view.focus_editor", "Focus Editor", "view", "Alt+2",
               tip="Move the keyboard focus to the Markdown source", enabled=False),
    ActionSpec("view.focus_preview", "Focus Preview", "view", "Alt+3",
               tip="Move the keyboard focus to the rendered preview", enabled=False),
    ActionSpec("view.library", "&Library Panel", "view", "Ctrl+Shift+L",
               tip="Show or hide the Library panel", checkable=True, separator_before=True, svg="library"),
    ActionSpec("view.problems", "&Problems Panel", "view", "Ctrl+Shift+M",
               tip="Show or hide the Problems panel", checkable=True),
    ActionSpec("view.health", "Skill &Health Panel", "view", "Ctrl+Shift+H",
               tip="CortexPrism lifecycle, trust, success rate, utility, freshness and health",
               checkable=True),
    ActionSpec("tools.dream", "&Dream Run…", "tools", None, "Dream…",
               "Review an LLM's proposed consolidation before anything is written",
               fallback_icon=SP.SP_BrowserReload, svg="dream"),
    ActionSpec("tools.archive", "Skill &Archive…", "tools",
               tip="The skills a dream deleted, pruned or merged away: preview and restore them"),
    ActionSpec("view.theme_system", "Follow S&ystem Theme", "view",
               tip="Use light or dark colours as the desktop does", checkable=True,
               separator_before=True),
    ActionSpec("view.theme_light", "Li&ght Theme", "view", tip="Use light colours",
               checkable=True),
    ActionSpec("view.theme_dark", "Dar&k Theme", "view", tip="Use dark colours", checkable=True),
    ActionSpec("app.preferences", "Pre&ferences…", "tools", "Ctrl+,",
               tip="LLM endpoint and API key, theme, editor font, dream settings",
               icon=TI.DocumentProperties, separator_before=True, svg="preferences",
               role=QAction.MenuRole.PreferencesRole),
    ActionSpec("help.shortcuts", "&Keyboard Shortcuts", "help", "Ctrl+/",
               tip="List every command and its shortcut", svg="keyboard"),
    ActionSpec("help.logs", "Show &Log Folder", "help",
               tip="Open the folder holding the application log (useful for bug reports)"),
    ActionSpec("help.about", "&About rockskills-gui", "help", icon=TI.HelpAbout, svg="info",
               separator_before=True),
)


class ActionRegistry:
    """The QActions built from :data:`ACTIONS`, owned by ``parent`` (the main window)."""

    def __init__(self, parent: QWidget, specs: tuple[ActionSpec, ...] = ACTIONS) -> None:
        self._parent = parent
        self._specs = {spec.id: spec for spec in specs}
        self._actions: dict[str, QAction] = {}
        self._submenus: dict[str, QMenu] = {}
        for spec in specs:
            if spec.submenu:
                menu = QMenu(_plain(spec.title), parent)
                menu.setObjectName(spec.id)
                self._submenus[spec.id] = menu
                action = menu.menuAction()
                action.setText(spec.title)
            else:
                action = QAction(spec.title, parent)
            self._configure(action, spec)
            self._actions[spec.id] = action

    def _configure(self, action: QAction, spec: ActionSpec) -> None:
        action.setObjectName(spec.id)
        action.setText(spec.title)
        if spec.shortcut is not None:
            action.setShortcut(QKeySequence(spec.shortcut))
        tip = spec.tip or _plain(spec.title)
        shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)
        action.setStatusTip(spec.tip)
        icon = _icon(self._parent, spec)
        if icon is not None:
            action.setIcon(icon)
        if spec.toolbar:
            action.setIconText(spec.toolbar)
        action.setCheckable(spec.checkable)
        action.setEnabled(spec.enabled)
        if spec.role is not None:
            action.setMenuRole(spec.role)

    def __getitem__(self, action_id: str) -> QAction:
        return self._actions[action_id]

    def __iter__(self) -> Iterator[tuple[ActionSpec, QAction]]:
        for action_id, spec in self._specs.items():
            yield spec, self._actions[action_id]

    def spec(self, action_id: str) -> ActionSpec:
        return self._specs[action_id]

    def submenu(self, action_id: str) -> QMenu:
        return self._submenus[action_id]

    def on(self, action_id: str, slot: Callable[[], object]) -> None:
        """Run ``slot`` when the command is triggered (the checked flag is not passed)."""
        self._actions[action_id].triggered.connect(lambda _checked=False: slot())

    def adopt(self, action_id: str, action: QAction) -> None:
        """Use an existing action (e.g. a dock's toggle) for ``action_id``, with its spec's text."""
        self._configure(action, self._specs[action_id])
        action.setCheckable(True)
        self._actions[action_id] = action

    def fill_menus(self, menubar: QMenuBar) -> dict[str, QMenu]:
        """Create the menus in :data:`MENUS` order and add each command where its spec says."""
        menus: dict[str, QMenu] = {}
        for key, title in MENUS:
            menu = menubar.addMenu(title)
            menu.setObjectName(f"menu.{key}")
            menus[key] = menu
        for spec, action in self:
            if spec.menu is None:
                continue
            menu = menus[spec.menu]
            if spec.separator_before and not menu.isEmpty():
                menu.addSeparator()
            if spec.submenu:
                menu.addMenu(self._submenus[spec.id])
            else:
                menu.addAction(action)
        return menus

    def fill_toolbar(self, toolbar: QToolBar, layout: tuple[str | None, ...] = TOOLBAR) -> None:
        for action_id in layout:
            if action_id is None:
                toolbar.addSeparator()
            else:
                toolbar.addAction(self._actions[action_id])

    def palette_actions(self) -> list[tuple[ActionSpec, QAction]]:
        """Commands offered by the command palette, enabled or not."""
        return [(spec, action) for spec, action in self if spec.palette]


def _plain(title: str) -> str:
    """The title without mnemonic ampersands or a trailing ellipsis."""
    return title.replace("&&", "\0").replace("&", "").replace("\0", "&").removesuffix("…")


def _icon(widget: QWidget, spec: ActionSpec) -> QIcon | None:
    if spec.svg is not None:
        themed = themed_icon(spec.svg)
        if themed is not None:
            return themed
    if spec.icon is not None and QIcon.hasThemeIcon(spec.icon):
        return QIcon.fromTheme(spec.icon)
    if spec.fallback_icon is not None:
        return widget.style().standardIcon(spec.fallback_icon)
    return None
