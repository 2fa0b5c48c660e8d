"""Library dock: the '/' skill tree with filter, badges, create/rename/move/delete.

Every change goes through ``ctx.apply`` as one core operation (one undo step); a rename or move
first shows the see-also references it will rewrite. The tree follows ``ctx.changeApplied``
name by name, so expanded folders and the selection survive edits.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QRunnable,
    QSize,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QColor,
    QFont,
    QFontMetrics,
    QIcon,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPixmap,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.library.tree import (
    Node,
    SkillTree,
    TreeFilter,
    is_inside,
    last_used_by_name,
    problems_by_name,
)
from rockskills_gui.core.model.names import fold, name_error
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.layout import USAGE_DIR
from rockskills_gui.core.usage.events import read_usage
from rockskills_gui.ui.common.actions import ActionRegistry
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.library.tree_dialogs import (
    MoveDialog,
    NewSkillDialog,
    RenamePreviewDialog,
    delete_box,
)
from rockskills_gui.ui.library.tree_model import (
    BADGES_ROLE,
    COUNT_ROLE,
    KIND_ROLE,
    SNIPPET_ROLE,
    SPANS_ROLE,
    Badge,
    Index,
    SkillTreeModel,
)

UNUSED_CHOICES = (7, 30, 90, 180, 365)
EXPAND_ALL_LIMIT = 10_000  # rows a filter may show before folders stay collapsed
DEBOUNCE_LARGE_MS = 180  # typing in a filter over a large library waits for a pause
LARGE_LIBRARY = 5_000
USAGE_START_DELAY_MS = 150
SYNC_USAGE_BYTES = 2_000_000  # usage logs up to this size are read on the UI thread (~tens of ms)
PILL_TEXT = {Badge.SPARSE: "sparse", Badge.NEVER_USED: "never used",
             Badge.SUMMARY_PENDING: "no summary", Badge.DEPRECATED: "deprecated",
             Badge.ARCHIVED: "archived", Badge.INVISIBLE: "not advertised", Badge.LINT: "lint"}
LINT_MAX_SKILLS = 5_000  # the tree's lint marks are computed only for libraries up to this size


# ---------------------------------------------------------------- usage, off the UI thread


class _UsageSignals(QObject):
    done = Signal(int, object)


class _UsageJob(QRunnable):
    """Read ``skill-usage/*.jsonl`` and reduce it to the latest use per name."""

    def __init__(self, ticket: int, agent_dir: Path, signals: _UsageSignals) -> None:
        super().__init__()
        self.ticket = ticket
        self.agent_dir = agent_dir
        self.signals = signals  # kept alive by the job while it runs

    def run(self) -> None:
        try:
            with gc_paused():  # 100,000 events must not trigger full collections of a big heap
                result: dict[str, Timestamp] = last_used_by_name(read_usage(self.agent_dir).events)
        except OSError:
            result = {}
        _deliver(self.signals, self.ticket, result)


class _LintJob(QRunnable):
    """The tree's lint marks: each skill's warning-or-worse findings in its format."""

    def __init__(self, ticket: int, library: Library, signals: _UsageSignals) -> None:
        super().__init__()
        self.ticket = ticket
        self.library = library
        self.signals = signals

    def run(self) -> None:
        from rockskills_gui.core.lint.linter import skill_marks  # numpy: not at startup

        try:
            result = skill_marks(self.library)
        except Exception:  # advisory marks never break the tree
            result = {}
        _deliver(self.signals, self.ticket, result)


def _deliver(signals: _UsageSignals, ticket: int, result: object) -> None:
    """Hand a job's result to the pane; a pane closed meanwhile (the window quit while the job
    ran) has nobody to tell, and an exception must not escape the worker thread."""
    try:
        signals.done.emit(ticket, result)
    except RuntimeError:  # the signals object was deleted with the pane
        pass


def prepare_tree(library: Library) -> SkillTree:
    """The tree of ``library``, built on the loader's worker thread (see LibraryLoader.add_preparer),
    with its folder count (a walk over every node) already cached."""
    tree = SkillTree(library.skills())
    tree.folder_count()
    return tree


def _usage_bytes(agent_dir: Path) -> int:
    """Total size of ``skill-usage/*.jsonl`` (0 when there is none)."""
    folder = agent_dir / USAGE_DIR
    try:
        return sum(entry.stat().st_size for entry in os.scandir(folder)
                   if entry.name.endswith(".jsonl") and entry.is_file())
    except OSError:
        return 0


def _display_order(node: Node) -> list[bytes]:
    """Sort key putting nodes in the tree's display (depth-first, List) order."""
    keys = [node.sort]
    keys.extend(a.sort for a in node.ancestors())
    keys.reverse()
    return keys


# ---------------------------------------------------------------- painting


class TreeDelegate(QStyledItemDelegate):
    """Label with the filter match in bold, then badges and the folder count at the right."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._icons: dict[str, QIcon] = {}
        self.on_edit_text: list[Callable[[str], None]] = []  # told while a rename is typed
        # Asked on Enter: why the typed name cannot be taken (None: commit it). A refused name
        # keeps the editor open with the text as typed; ``on_refused`` is told the reason.
        self.refuse: Callable[[Index, str], str | None] | None = None
        self.on_refused: list[Callable[[str], None]] = []
        self._editing = QPersistentModelIndex()

    def icon(self, kind: str, widget: QWidget) -> QIcon:
        icon = self._icons.get(kind)
        if icon is None:
            style = widget.style()
            folder = style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
            file = style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)
            if kind == "folder":
                icon = folder
            elif kind == "skill":
                icon = file
            elif kind == "resource":  # a file of a skill's .resources folder
                icon = style.standardIcon(QStyle.StandardPixmap.SP_FileDialogContentsView)
            else:  # a folder that is also a skill: the folder with a page on it
                size = 32
                pixmap = QPixmap(size, size)
                pixmap.fill(Qt.GlobalColor.transparent)
                painter = QPainter(pixmap)
                painter.drawPixmap(0, 0, folder.pixmap(size - 4, size - 4))
                page = size * 5 // 8
                painter.drawPixmap(size - page, size - page, file.pixmap(page, page))
                painter.end()
                icon = QIcon(pixmap)
            self._icons[kind] = icon
        return icon

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:
        super().initStyleOption(option, index)
        widget = option.widget or self.parent()
        kind = index.data(KIND_ROLE)
        if kind and isinstance(widget, QWidget):
            option.icon = self.icon(kind, widget)
            option.features |= QStyleOptionViewItem.ViewItemFeature.HasDecoration
            option.decorationSize = QSize(16, 16)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        label = opt.text
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        opt.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)

        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (QPalette.ColorGroup.Normal if opt.state & QStyle.StateFlag.State_Active
                 else QPalette.ColorGroup.Inactive)
        palette = opt.palette
        fg = palette.color(group, QPalette.ColorRole.HighlightedText if selected
                           else QPalette.ColorRole.Text)
        dim = fg if selected else palette.color(group, QPalette.ColorRole.PlaceholderText)
        rect = text_rect.adjusted(2, 0, -4, 0)
        painter.save()
        painter.setClipRect(opt.rect)
        font = QFont(opt.font)
        metrics = QFontMetrics(font)
        small = QFont(font)
        small.setPointSizeF(max(6.0, font.pointSizeF() * 0.82))
        small_metrics = QFontMetrics(small)

        badges: tuple[Badge, ...] = index.data(BADGES_ROLE) or ()
        count = index.data(COUNT_ROLE)
        right = rect.right()
        # The count, right-aligned in a fixed column so that numbers line up.
        if count is not None:
            painter.setFont(font)
            painter.setPen(dim)
            count_text = f"{count:,}"
            width = metrics.horizontalAdvance(count_text)
            painter.drawText(QRect(right - width, rect.top(), width, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, count_text)
            right -= width + 8
        label_width = metrics.horizontalAdvance(label)
        min_label = min(label_width, metrics.horizontalAdvance("M") * 6)
        # Pills, right to left, as long as the label keeps room.
        pills = [b for b in badges if b in PILL_TEXT]
        for badge in reversed(pills):
            text = PILL_TEXT[badge]
            width = small_metrics.horizontalAdvance(text) + 10
            if right - width - 4 < rect.left() + min_label + 24:
                break
            pill = QRect(right - width, rect.center().y() - small_metrics.height() // 2 - 1,
                         width, small_metrics.height() + 2)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            border = QColor(dim)
            border.setAlphaF(0.55)
            painter.setPen(border)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(pill.adjusted(0, 0, -1, -1), pill.height() / 2, pill.height() / 2)
            painter.setFont(small)
            painter.setPen(dim)
            painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
            right -= width + 4
        if Badge.PROBLEM in badges and widget is not None:
            warn = style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
            side = min(16, rect.height() - 4)
            warn.paint(painter, QRect(right - side, rect.center().y() - side // 2, side, side))
            right -= side + 4

        # The label (elided), the match in bold on a tint of the highlight colour.
        unsaved = Badge.UNSAVED in badges
        dot = " ●" if unsaved else ""
        bold = QFont(font)
        bold.setBold(True)
        room = max(0, right - rect.left() - 4 - QFontMetrics(bold).horizontalAdvance(dot))
        tint = None
        if not selected:
            tint = QColor(palette.color(group, QPalette.ColorRole.Highlight))
            tint.setAlphaF(0.28)
        x = self._draw_marked(painter, rect, rect.left(), label, index.data(SPANS_ROLE) or [],
                              font, fg, tint, room)
        if unsaved:
            painter.setFont(bold)
            painter.setPen(fg)
            painter.drawText(QPoint(x, self._baseline(rect, metrics)), dot)
            x += QFontMetrics(bold).horizontalAdvance(dot)
        snippet = index.data(SNIPPET_ROLE)
        if snippet and right - x > 40:  # why a summary-only match matched
            text, spans = snippet
            gap = metrics.horizontalAdvance("  ")
            self._draw_marked(painter, rect, x + gap, text, spans, font, dim, None,
                              right - x - gap - 4)
        painter.restore()

    @staticmethod
    def _baseline(rect: QRect, metrics: QFontMetrics) -> int:
        return rect.top() + (rect.height() + metrics.ascent() - metrics.descent()) // 2

    def _draw_marked(self, painter: QPainter, rect: QRect, x: int, text: str,
                     spans: list[tuple[int, int]], font: QFont, color: QColor,
                     tint: QColor | None, room: int) -> int:
        """Draw ``text`` from ``x`` (elided to ``room``), spans in bold; returns the end x."""
        metrics = QFontMetrics(font)
        bold = QFont(font)
        bold.setBold(True)
        bold_metrics = QFontMetrics(bold)
        shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, room))
        marks = [False] * len(shown)
        for start, length in spans:
            for i in range(start, min(start + length, len(shown))):
                marks[i] = True
        baseline = self._baseline(rect, metrics)
        painter.setPen(color)
        i = 0
        while i < len(shown):
            j = i
            while j < len(shown) and marks[j] == marks[i]:
                j += 1
            part = shown[i:j]
            if marks[i]:
                width = bold_metrics.horizontalAdvance(part)
                if tint is not None:
                    painter.fillRect(QRect(x, rect.top() + 2, width, rect.height() - 4), tint)
                painter.setFont(bold)
            else:
                width = metrics.horizontalAdvance(part)
                painter.setFont(font)
            painter.drawText(QPoint(x, baseline), part)
            x += width
            i = j
        return x

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width(), max(size.height(), 22))

    # ---------------------------------------------------------------- inline rename

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            editor.setObjectName("inlineRename")
            for callback in self.on_edit_text:
                editor.textEdited.connect(callback)
            self._editing = QPersistentModelIndex(index)
        return editor

    def eventFilter(self, editor: QObject, event: QEvent) -> bool:
        """Enter on a name that would be refused keeps the editor open (Escape cancels)."""
        if isinstance(editor, QLineEdit) and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and self.refuse is not None and self._editing.isValid():
            reason = self.refuse(self._editing, editor.text())
            if reason is not None:
                for callback in self.on_refused:
                    callback(reason)
                return True
        return super().eventFilter(editor, event)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem,
                             index: Index) -> None:
        super().updateEditorGeometry(editor, option, index)
        rect = editor.geometry()  # the full path is edited: give it the row's whole width
        rect.setRight(option.rect.right())
        editor.setGeometry(rect)


def _empty_text(library: Library, total: int, filtered: bool) -> str:
    """What the empty tree says: why nothing is listed, and what to do."""
    if total and filtered:
        return "No skill matches the filter."
    if total:
        return ""
    problems = [p for p in library.problems if p.severity == "error"]
    if problems:
        return (f"No skill loaded: {len(problems):,} file{'' if len(problems) == 1 else 's'} could "
                "not be loaded (see Problems). If this folder holds another format, try File ▸ "
                "Reopen As.")
    return "This library has no skills yet. Ctrl+N creates one."


class SkillTreeView(QTreeView):
    """The tree widget: drag and drop moves, keyboard as in a file manager."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("libraryTree")
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setAnimated(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        # DragDrop rather than InternalMove: the model accepts only its own MIME type anyway,
        # and a skill's name can be dragged out as text.
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.setExpandsOnDoubleClick(True)
        self.setAutoExpandDelay(600)  # hovering a folder while dragging opens it
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.empty_text = ""  # shown in the middle while the tree has no rows

    def set_empty_text(self, text: str) -> None:
        if text != self.empty_text:
            self.empty_text = text
            self.viewport().update()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        model = self.model()
        if not self.empty_text or model is None or model.rowCount() > 0:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        area = self.viewport().rect().adjusted(12, 12, -12, -12)
        painter.drawText(area, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                                   | Qt.TextFlag.TextWordWrap), self.empty_text)
        painter.end()


# ---------------------------------------------------------------- the pane


class TreePane(QWidget):
    """Filter box and flag filters over the skill tree, with a count line below.

    Signals:
        openRequested(str): the user asked to open a skill (Enter, double-click, menu).
        resourceSelected(str, str): a skill's resource row became current (skill, filename);
            ``(skill, "")`` when the skill's own row follows one of its resource rows.
        usageLoaded(): last-use times from the usage logs reached the tree.
    """

    openRequested = Signal(str)
    resourceSelected = Signal(str, str)
    usageLoaded = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("libraryPane")
        self.ctx = ctx
        self.commands: ActionRegistry | None = None
        self.dialog: QWidget | None = None  # the dialog currently asking (tests drive it)
        self._expanded: set[str] = set()  # folded paths the user expanded (unfiltered)
        self._following = False
        self._usage_ticket = 0
        self._usage_signals = _UsageSignals()
        self._usage_signals.done.connect(self._on_usage)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._pending_usage: _UsageJob | None = None  # started after the first paint
        self._lint_ticket = 0
        self._lint_signals = _UsageSignals()
        self._lint_signals.done.connect(self._on_lint)
        self._pending_lint: _LintJob | None = None

        self.model = SkillTreeModel(self)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("libraryFilter")
        self.filter.setPlaceholderText("Filter by name or summary…")
        self.filter.setClearButtonEnabled(True)
        self.filter.installEventFilter(self)
        self.flags_button = QToolButton(self)
        self.flags_button.setObjectName("libraryFlags")
        self.flags_button.setText("Flags")
        self.flags_button.setToolTip("Show only skills that are never used, unused for a while, "
                                     "sparse or have problems")
        self.flags_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.flags_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._build_flag_menu()

        self.view = SkillTreeView(self)
        expanded_uids: set[int] = set()  # what the view shows, for the model's badge updates
        self.model.expanded_uids = expanded_uids
        self.view.expanded.connect(lambda index: expanded_uids.add(index.internalId()))
        self.view.collapsed.connect(lambda index: expanded_uids.discard(index.internalId()))
        self.model.modelReset.connect(expanded_uids.clear)
        self.delegate = TreeDelegate(self.view)
        self.delegate.on_edit_text.append(self._on_inline_text)
        self.delegate.refuse = self._inline_rename_error
        self.delegate.on_refused.append(self._show_message)
        self.delegate.closeEditor.connect(lambda *_args: self._show_message(None))
        self.view.setItemDelegate(self.delegate)
        self.view.setModel(self.model)
        self.message = QLabel(self)
        self.message.setObjectName("libraryMessage")
        self.message.setWordWrap(True)
        self.message.hide()
        self.count = secondary(QLabel(self))
        self.count.setObjectName("libraryCount")

        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.filter, 1)
        top.addWidget(self.flags_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.count)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.timeout.connect(self.apply_filter)
        self.filter.textChanged.connect(self._on_filter_text)
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)
        self.view.selectionModel().selectionChanged.connect(lambda *_args: self._update_actions())
        self.view.activated.connect(self._on_activated)
        self.view.expanded.connect(lambda index: self._remember(index, True))
        self.view.collapsed.connect(lambda index: self._remember(index, False))
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.model.filterApplied.connect(self._on_filter_applied)
        self.model.renameRequested.connect(self._on_inline_rename)
        self.model.moveRequested.connect(
            lambda mapping: QTimer.singleShot(0, lambda: self.request_rename(mapping)))
        self.model.rowsInserted.connect(self._update_count)
        self.model.rowsRemoved.connect(self._update_count)

        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.currentSkillChanged.connect(self.reveal)
        ctx.dirtyChanged.connect(lambda _name: self.model.set_dirty(ctx.dirty_names))
        ctx.invisibleSkillsChanged.connect(self.model.set_invisible)
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- actions

    def bind_actions(self, commands: ActionRegistry) -> None:
        """Connect the registry's tree commands; rename/delete keys act only in this pane."""
        self.commands = commands
        commands.on("tree.rename", self.rename_current)
        commands.on("tree.move", self.move_selected)
        commands.on("tree.delete", self.delete_selected)
        commands.on("tree.filter", self.focus_filter)
        for action_id in ("tree.rename", "tree.delete"):
            action = commands[action_id]
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)
        self._update_actions()

    def _action(self, action_id: str, text: str, slot: object, menu: QMenu) -> QAction:
        """The registry's action when bound (same text and shortcut), else a plain one."""
        if self.commands is not None:
            action = self.commands[action_id]
            menu.addAction(action)
            return action
        action = menu.addAction(text)
        action.triggered.connect(lambda _checked=False: slot())  # type: ignore[operator]
        return action

    def _update_actions(self) -> None:
        if self.commands is None:
            return
        nodes = self.selected_nodes()
        has = self.ctx.library is not None and bool(nodes)
        self.commands["tree.rename"].setEnabled(has and len(nodes) == 1)
        self.commands["tree.move"].setEnabled(has)
        delete = self.commands["tree.delete"]
        delete.setEnabled(has)
        if len(nodes) > 1:
            delete.setText(f"&Delete {len(nodes)} Items…")
        elif nodes and nodes[0].skill is None:
            delete.setText("&Delete Folder…")
        else:
            delete.setText("&Delete Skill…")

    # ---------------------------------------------------------------- library and changes

    def _on_library_changed(self, library: Library | None) -> None:
        self._expanded.clear()
        tree = self.ctx.prepared.get("tree")
        self.model.set_library(library, tree if isinstance(tree, SkillTree) else None)
        self.model.set_dirty(self.ctx.dirty_names)
        self._load_usage(library)
        self._load_lint(library)
        self._update_count()
        self._update_actions()

    def _load_usage(self, library: Library | None) -> None:
        """Last-use times from the usage logs: read at once when small, else off the UI thread."""
        self._usage_ticket += 1
        if library is None:
            return
        job = _UsageJob(self._usage_ticket, library.agent_dir, self._usage_signals)
        if _usage_bytes(library.agent_dir) <= SYNC_USAGE_BYTES:
            job.run()  # a few hundred kB: quicker than a round trip, and the first paint is right
        else:
            # After the new tree's first paint: a Python worker started now would make each of
            # the paint's calls into Python wait for the GIL (a 60-70 ms stall at 10,000 skills).
            self._pending_usage = job
            QTimer.singleShot(USAGE_START_DELAY_MS, self, self._start_pending_usage)

    def _start_pending_usage(self) -> None:
        job, self._pending_usage = self._pending_usage, None
        if job is not None and job.ticket == self._usage_ticket:
            self._pool.start(job)

    def _on_usage(self, ticket: int, last_used: dict[str, Timestamp]) -> None:
        if ticket != self._usage_ticket:
            return
        self.model.set_last_used(last_used)
        self.usageLoaded.emit()

    def wait_for_usage(self, msecs: int = 10_000) -> bool:
        """Block until the usage reader and the lint marks are done (shutdown and tests; jobs
        waiting for the first paint are started now)."""
        self._start_pending_usage()
        self._start_pending_lint()
        return self._pool.waitForDone(msecs)

    def _load_lint(self, library: Library | None) -> None:
        """Lint marks for the tree, on the worker after the first paint (small libraries only)."""
        self._lint_ticket += 1
        self._pending_lint = None
        if library is None or len(library) > LINT_MAX_SKILLS:
            return
        self._pending_lint = _LintJob(self._lint_ticket, library, self._lint_signals)
        QTimer.singleShot(USAGE_START_DELAY_MS, self, self._start_pending_lint)

    def _start_pending_lint(self) -> None:
        job, self._pending_lint = self._pending_lint, None
        if job is not None and job.ticket == self._lint_ticket:
            self._pool.start(job)

    def _on_lint(self, ticket: int, marks: dict[str, list[str]]) -> None:
        if ticket == self._lint_ticket:
            self.model.set_lint(marks)

    def _on_change_applied(self, change: ChangeSet) -> None:
        self._load_lint(self.ctx.library)  # the marks follow saves, renames and deletes
        self.model.apply_change(change)
        self._update_count()
        self._update_actions()

    # ---------------------------------------------------------------- filter

    def _build_flag_menu(self) -> None:
        menu = QMenu(self.flags_button)
        menu.setObjectName("libraryFlagsMenu")
        self.never_used_action = menu.addAction("&Never used")
        self.never_used_action.setToolTip("No lastUsedAt and no usage event")
        unused = menu.addMenu("&Unused for")
        self.unused_group = QActionGroup(self)
        self.unused_actions: dict[int | None, QAction] = {}
        for days in (None, *UNUSED_CHOICES):
            text = "Any time" if days is None else (f"{days} days" if days < 365 else "A year")
            action = unused.addAction(text)
            action.setCheckable(True)
            action.setData(days)
            self.unused_group.addAction(action)
            self.unused_actions[days] = action
        self.unused_actions[None].setChecked(True)
        self.sparse_action = menu.addAction("&Sparse (RockBot's rule)")
        self.problems_action = menu.addAction("Has &problems")
        for action in (self.never_used_action, self.sparse_action, self.problems_action):
            action.setCheckable(True)
            action.toggled.connect(lambda _on: self.apply_filter())
        self.unused_group.triggered.connect(lambda _action: self.apply_filter())
        menu.addSeparator()
        clear = menu.addAction("&Clear Filter")
        clear.triggered.connect(self.clear_filter)
        self.flags_button.setMenu(menu)

    def current_filter(self) -> TreeFilter:
        checked = self.unused_group.checkedAction()
        return TreeFilter(
            text=self.filter.text(),
            never_used=self.never_used_action.isChecked(),
            unused_days=checked.data() if checked is not None else None,
            sparse=self.sparse_action.isChecked(),
            has_problems=self.problems_action.isChecked(),
        )

    def set_flags(self, never_used: bool = False, unused_days: int | None = None,
                  sparse: bool = False, has_problems: bool = False) -> None:
        """Set every flag filter at once (one refilter)."""
        actions = (self.never_used_action, self.sparse_action, self.problems_action)
        for action in actions:
            action.blockSignals(True)
        self.never_used_action.setChecked(never_used)
        self.sparse_action.setChecked(sparse)
        self.problems_action.setChecked(has_problems)
        target = self.unused_actions.get(unused_days)
        if target is None:  # a custom number of days
            target = QAction(f"{unused_days} days", self)
            target.setCheckable(True)
            target.setData(unused_days)
            self.unused_group.addAction(target)
            self.unused_actions[unused_days] = target
        target.setChecked(True)
        for action in actions:
            action.blockSignals(False)
        self.apply_filter()

    def clear_filter(self) -> None:
        self.filter.blockSignals(True)
        self.filter.clear()
        self.filter.blockSignals(False)
        self.set_flags()

    def focus_filter(self) -> None:
        self.filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter.selectAll()

    def _on_filter_text(self, _text: str) -> None:
        if self.model.tree.skill_count >= LARGE_LIBRARY:
            self._debounce.start(DEBOUNCE_LARGE_MS)
        else:
            self.apply_filter()

    def apply_filter(self) -> None:
        """Filter now (typing waits for a pause in large libraries)."""
        self._debounce.stop()
        spec = self.current_filter()
        if spec == self.model.spec:
            return
        self.model.set_filter(spec)

    def _on_filter_applied(self) -> None:
        spec = self.model.spec
        flags = sum([spec.never_used, spec.unused_days is not None, spec.sparse, spec.has_problems])
        self.flags_button.setText(f"Flags ({flags})" if flags else "Flags")
        font = self.flags_button.font()
        font.setBold(bool(flags))
        self.flags_button.setFont(font)
        result = self.model.result
        self._following = True
        try:
            if result is not None:
                if len(result.visible) <= EXPAND_ALL_LIMIT:
                    self.view.expandAll()  # every shown folder holds a match
                else:  # laying out every match would freeze the window: open the first one
                    first = next((n for n in self.model.tree if n.uid in result.matches), None)
                    if first is not None:
                        self.reveal(first.path, select=False)
            else:
                for key in sorted(self._expanded, key=len):
                    index = self.model.index_of(self.model.tree.by_key.get(key))
                    if index.isValid():
                        self.view.expand(index)
        finally:
            self._following = False
        if not self.reveal(self.ctx.current_skill) and result is not None and len(result):
            self.view.scrollToTop()
        self._update_count()
        self._update_actions()

    def _remember(self, index: QModelIndex, expanded: bool) -> None:
        if self._following or self.model.filtering:
            return
        node = self.model.node(index)
        if node is not None:
            (self._expanded.add if expanded else self._expanded.discard)(node.key)

    def eventFilter(self, watched: QObject, event: object) -> bool:
        if watched is self.filter and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape and self.filter.text():
                self.filter.clear()
                return True
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.apply_filter()
                self.view.setFocus(Qt.FocusReason.OtherFocusReason)
                if not self.view.currentIndex().isValid():
                    self._select_first_match()
                return True
        return super().eventFilter(watched, event)

    def _select_first_match(self) -> None:
        result = self.model.result
        for node in self.model.tree:
            if node.skill is not None and (result is None or node.uid in result.matches):
                index = self.model.index_of(node)
                if index.isValid():
                    self.view.setCurrentIndex(index)
                return

    def _update_count(self, *_args: object) -> None:
        library = self.ctx.library
        tree = self.model.tree
        if library is None:
            self.count.setText("No library open")
            self.view.set_empty_text("")
            return
        total = tree.skill_count
        self.view.set_empty_text(_empty_text(library, total, self.model.result is not None))
        result = self.model.result
        if result is None:
            folders = tree.folder_count()
            self.count.setText(f"{total:,} skill{'' if total == 1 else 's'} · "
                               f"{folders:,} folder{'' if folders == 1 else 's'}")
        else:
            spec = self.model.spec
            flags = [text for on, text in (
                (spec.never_used, "never used"),
                (spec.unused_days is not None, f"unused {spec.unused_days}+ days"),
                (spec.sparse, "sparse"), (spec.has_problems, "with problems")) if on]
            shown = f" · {', '.join(flags)}" if flags else ""
            if len(result.visible) > EXPAND_ALL_LIMIT:
                shown += " · open folders to see them"
            self.count.setText(f"{len(result):,} of {total:,} skills match{shown}")

    # ---------------------------------------------------------------- selection

    def selected_nodes(self) -> list[Node]:
        """Selected nodes in display order (the current one when nothing is selected)."""
        indexes = self.view.selectionModel().selectedRows() if self.view.selectionModel() else []
        nodes = [n for n in (self.model.node(i) for i in indexes) if n is not None]
        if not nodes:
            current = self.model.node(self.view.currentIndex())
            nodes = [current] if current is not None else []
        return sorted(nodes, key=_display_order)

    def current_node(self) -> Node | None:
        return self.model.node(self.view.currentIndex())

    def _on_current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        self._update_actions()
        node = self.model.node(current)
        resource = self.model.resource_row(current)
        if resource is not None and not self._following:
            self._following = True  # the skill becomes current, its resource row stays selected
            try:
                self.ctx.select_skill(resource.skill)
            finally:
                self._following = False
            self.resourceSelected.emit(resource.skill, resource.resource.filename)
        if node is not None and node.skill is not None and not self._following:
            self._following = True
            try:
                self.ctx.select_skill(node.name)
            finally:
                self._following = False
            if self.model.resource_row(previous) is not None:
                self.resourceSelected.emit(node.name, "")  # back from a resource to the skill

    def reveal(self, name: str, select: bool = True) -> bool:
        """Select ``name`` (skill or folder), expanding its ancestors; False if it is not shown."""
        current = self.model.resource_row(self.view.currentIndex())
        if self._following and current is not None and name and fold(current.skill) == fold(name):
            return True  # a resource row of that skill was chosen: it stays current
        index = self.model.index_for(name) if name else QModelIndex()
        if not index.isValid():
            return False
        parent = index.parent()
        chain = []
        while parent.isValid():
            chain.append(parent)
            parent = parent.parent()
        for ancestor in reversed(chain):
            self.view.expand(ancestor)
        if not select:
            return True
        if index != self.view.currentIndex():
            following, self._following = self._following, True
            try:
                self.view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)
            finally:
                self._following = following
        self.view.scrollTo(index)
        return True

    def _on_activated(self, index: QModelIndex) -> None:
        resource = self.model.resource_row(index)
        if resource is not None:
            self.resourceSelected.emit(resource.skill, resource.resource.filename)
            self.openRequested.emit(resource.skill)
            return
        node = self.model.node(index)
        if node is not None and node.skill is not None:
            self.ctx.select_skill(node.name)
            self.openRequested.emit(node.name)

    # ---------------------------------------------------------------- context menu

    def _context_menu(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if index.isValid() and not self.view.selectionModel().isSelected(index):
            self.view.setCurrentIndex(index)
        elif not index.isValid():
            self.view.clearSelection()
            self.view.setCurrentIndex(QModelIndex())
        menu = self.build_context_menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    def build_context_menu(self) -> QMenu:
        """The menu for the current selection (also what the context-menu key shows)."""
        menu = QMenu(self)
        menu.setObjectName("libraryContextMenu")
        nodes = self.selected_nodes()
        node = nodes[0] if len(nodes) == 1 else None
        if node is not None and node.skill is not None:
            open_action = menu.addAction("&Open")
            open_action.triggered.connect(lambda: self._on_activated(self.model.index_of(node)))
            menu.addSeparator()
        new = menu.addAction("&New Skill Here…" if node is not None else "&New Skill…")
        new.triggered.connect(lambda: self.new_skill())
        if nodes:
            self._action("tree.rename", "&Rename…", self.rename_current, menu)
            self._action("tree.move", "&Move to Folder…", self.move_selected, menu)
            self._action("tree.delete", "&Delete…", self.delete_selected, menu)
            menu.addSeparator()
            copy = menu.addAction("&Copy Name" if len(nodes) == 1 else "&Copy Names")
            copy.triggered.connect(
                lambda: QApplication.clipboard().setText("\n".join(n.path for n in nodes)))
        menu.addSeparator()
        menu.addAction("E&xpand All").triggered.connect(self.view.expandAll)
        menu.addAction("Co&llapse All").triggered.connect(self.view.collapseAll)
        return menu

    # ---------------------------------------------------------------- create

    def _creation_error(self, name: str) -> str | None:
        library = self.ctx.library
        if library is None:
            return "No library is open."
        existing = library.get(name)
        if existing is not None:
            return (f"A skill named '{existing.name}' already exists "
                    "(RockBot names are case-insensitive).")
        claims = problems_by_name(library.problems).get(fold(name))
        if claims:
            return f"'{name}' is claimed by a file that could not be loaded: {claims[0]}"
        return library.name_error(name)  # the format's own rules (no '/' in a SKILL.md folder, ...)

    def new_skill(self, prefix: str | None = None) -> NewSkillDialog | None:
        """Ask for a name (checked live) and create the skill; the prefix is the chosen folder."""
        if self.ctx.library is None:
            return None
        if prefix is None:
            node = self.current_node()
            folder = node if node is not None and node.children else (
                node.parent if node is not None else None)
            prefix = f"{folder.path}/" if folder is not None and folder.path else ""
        dialog = NewSkillDialog(prefix, self._creation_error, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.create_skill(dialog.name.text(),
                                                          dialog.summary.text().strip()))
        self._show(dialog)
        dialog.name.setFocus()
        dialog.name.end(False)
        return dialog

    def create_skill(self, name: str, summary: str = "") -> bool:
        change = self.ctx.apply(lambda lib: lib.create(name, summary=summary))
        if change is None or change.empty:
            return False
        self.ctx.select_skill(name)
        self.reveal(name)
        self.openRequested.emit(name)
        return True

    # ---------------------------------------------------------------- rename and move

    def rename_current(self) -> None:
        """Rename inline (the full name is edited, so a new prefix moves the skill)."""
        index = self.view.currentIndex()
        if not index.isValid() and self.ctx.current_skill:
            self.reveal(self.ctx.current_skill)
            index = self.view.currentIndex()
        if index.isValid():
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)
            self.view.scrollTo(index)
            self.view.edit(index)

    def _on_inline_text(self, text: str) -> None:
        error = name_error(text) if text.strip() else "Type a name."
        self._show_message(error)

    def _show_message(self, text: str | None) -> None:
        self.message.setText(text or "")
        self.message.setVisible(bool(text))

    def _inline_rename_error(self, index: Index, text: str) -> str | None:
        """Why Enter in the inline editor cannot rename (RockBot's message), or None."""
        node = self.model.node(index)
        new = text.strip()
        if node is None or new == node.path:
            return None  # nothing to rename: Enter just closes the editor
        if not new:
            return "Type a name."
        return self._rename_error(self.model.move_mapping(node, new))

    def _on_inline_rename(self, old: str, new: str) -> None:
        self._show_message(None)
        node = self.model.tree.find(old)
        if node is not None:
            # Queued: the editor is still closing when setData asks.
            mapping = self.model.move_mapping(node, new)
            QTimer.singleShot(0, lambda: self.request_rename(mapping, reveal=new))

    def move_selected(self) -> MoveDialog | None:
        """Ask for a folder and move the selected skills and folders into it."""
        nodes = self.selected_nodes()
        if not nodes or self.ctx.library is None:
            return None
        what = f"'{nodes[0].path}'" if len(nodes) == 1 else f"{len(nodes)} items"
        folders = [n.path for n in self.model.tree if n.children]
        dialog = MoveDialog(what, folders, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        start = nodes[0].parent
        if start is not None and start.path:
            dialog.folder.setText(start.path)
        dialog.accepted.connect(lambda: self.move_into(nodes, dialog.target()))
        self._show(dialog)
        return dialog

    def move_into(self, nodes: list[Node], folder: str) -> None:
        target = self.model.tree.find(folder) if folder else self.model.tree.root
        if target is not None and any(is_inside(n, target) for n in nodes):
            self.ctx.operationFailed.emit("A folder cannot be moved into itself.")
            return
        mapping: dict[str, str] = {}
        chosen = {n.uid for n in nodes}
        for node in nodes:
            if any(a.uid in chosen for a in node.ancestors()):
                continue
            destination = f"{folder}/{node.label}" if folder else node.label
            if fold(destination) != node.key:
                mapping.update(self.model.move_mapping(node, destination))
        if mapping:
            reveal = f"{folder}/{nodes[0].label}" if folder else nodes[0].label
            self.request_rename(mapping, reveal=reveal)

    def request_rename(self, mapping: Mapping[str, str], reveal: str = "") -> RenamePreviewDialog | None:
        """Check the new names, show the see-also references to rewrite, then rename as one step.

        A single rename that no see-also names is applied at once (there is nothing to preview).
        """
        library = self.ctx.library
        mapping = {old: new for old, new in mapping.items() if old != new}
        if library is None or not mapping:
            return None
        error = self._rename_error(mapping)
        if error is not None:
            self.ctx.operationFailed.emit(error)
            return None
        references = library.references_to(mapping)
        if len(mapping) == 1 and not references:
            self._rename_now(mapping, reveal)
            return None
        dialog = RenamePreviewDialog(mapping, references, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._rename_now(mapping, reveal))
        self._show(dialog)
        return dialog

    def _rename_error(self, mapping: Mapping[str, str]) -> str | None:
        """RockBot's refusal of the new names (invalid, or taken by a skill that stays)."""
        library = self.ctx.library
        if library is None:
            return "No library is open."
        mapping = {old: new for old, new in mapping.items() if old != new}
        for new in mapping.values():
            error = name_error(new)
            if error is not None:
                return error
        moving = {fold(old) for old in mapping}
        for new in mapping.values():
            existing = library.get(new)
            if existing is not None and fold(existing.name) not in moving:
                return (f"A skill named '{existing.name}' already exists "
                        "(RockBot names are case-insensitive).")
        return None

    def _rename_now(self, mapping: Mapping[str, str], reveal: str) -> None:
        change = self.ctx.apply(lambda lib: lib.rename_many(dict(mapping)))
        if change is not None and not change.empty:
            current = self.ctx.current_skill
            self.reveal(current if fold(current) in {fold(n) for n in mapping.values()}
                        else reveal or next(iter(mapping.values())))

    # ---------------------------------------------------------------- delete

    def delete_selected(self) -> None:
        """Confirm, then delete every skill at or below the selection (one undo step)."""
        library = self.ctx.library
        nodes = self.selected_nodes()
        if library is None or not nodes:
            return
        names: list[str] = []
        seen: set[str] = set()
        for node in nodes:
            for skill_node in self.model.tree.walk_skills(node):
                if skill_node.key not in seen:
                    seen.add(skill_node.key)
                    names.append(skill_node.name)
        if not names:
            return
        dangling = [r for r in library.references_to(names) if fold(r.referrer) not in seen]
        box = delete_box(names, len(dangling), self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(
            lambda button: self._delete_now(names)
            if box.buttonRole(button) == box.ButtonRole.DestructiveRole else None)
        self._show(box)

    def _delete_now(self, names: list[str]) -> None:
        index = self.view.currentIndex()
        below = self.view.indexBelow(index) if index.isValid() else QModelIndex()
        keep = QPersistentModelIndex(below)
        change = self.ctx.apply(lambda lib: lib.delete_many(names))
        if change is not None and not change.empty and keep.isValid():
            self.view.setCurrentIndex(QModelIndex(keep))

    # ---------------------------------------------------------------- dialogs

    def _show(self, dialog: QWidget) -> None:
        self.dialog = dialog
        dialog.destroyed.connect(lambda: self._forget(dialog))
        dialog.open()  # type: ignore[attr-defined]

    def _forget(self, dialog: QWidget) -> None:
        if self.dialog is dialog:
            self.dialog = None
