"""How the library tree looks: the row delegate (label with the filter match in bold, badges,
the folder count, the inline rename editor) and the tree widget itself."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPersistentModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
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
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QWidget,
)

from rockskills_gui.ui.library.tree_roles import (
    BADGES_ROLE,
    COUNT_ROLE,
    KIND_ROLE,
    SNIPPET_ROLE,
    SPANS_ROLE,
    Badge,
    Index,
)

PILL_TEXT = {Badge.SPARSE: "sparse", Badge.NEVER_USED: "never used",
             Badge.SUMMARY_PENDING: "no summary", Badge.DEPRECATED: "deprecated",
             Badge.ARCHIVED: "archived", Badge.INVISIBLE: "not advertised", Badge.LINT: "lint",
             Badge.SWITCHED_OFF: "off"}


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
        if Badge.SWITCHED_OFF in badges and not selected:
            fg = dim  # a switched-off skill stays in the tree, dimmed
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

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        """The node's path, unless the user has typed in the editor: Qt asks again whenever the
        row's data changes (last-use times or lint marks arriving, a save elsewhere), and what
        was typed is kept."""
        if isinstance(editor, QLineEdit) and editor.isModified():
            return
        super().setEditorData(editor, index)

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


class SkillTreeView(QTreeView):
    """The tree widget: drag and drop moves, keyboard as in a file manager.

    Signals:
        painted(): the rows were painted (work that waits for the first paint listens: asking
            for ``viewport()`` instead costs PySide ~5 ms the first time, before that paint).
    """

    painted = Signal()

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
        self.painted.emit()
        model = self.model()
        if not self.empty_text or model is None or model.rowCount() > 0:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        area = self.viewport().rect().adjusted(12, 12, -12, -12)
        painter.drawText(area, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                                   | Qt.TextFlag.TextWordWrap), self.empty_text)
        painter.end()

