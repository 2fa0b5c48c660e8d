"""A generic layout audit: walk the visible widgets under a root and report what a reader would
find clipped, tiny, unreadable or on top of something else.

It knows no pane: it looks at whatever widgets exist, so a new pane or dialog is covered as soon as
it is shown. Rules (each :class:`Finding` names one):

``clipped``
    A label, button, check box, combo box or tab whose text does not fit its rectangle. A widget
    that elides on purpose passes when its tooltip holds the whole text.
``narrow``
    A text field narrower than eight average characters (nothing typed there can be read).
``ambiguous``
    Two rows of one item-view column that are different texts but read the same once elided
    (``research/…`` twice: elide the middle instead).
``cramped``
    A name-like item-view column (the view's first text column) where most rows are elided:
    the column is starved for the less important ones.
``scrolled``
    A list or table that needs a horizontal scroll bar although its columns could share the width
    (columns should size by priority: the last or a stretching column elides).
``small-font``
    Text in a font smaller than the application's (also fonts a widget paints with itself: a
    widget may list them in an ``audit_fonts()`` method).
``contrast``
    Text whose colour against its background is below WCAG AA (4.5:1).
``overlap``
    Two visible siblings placed by the same layout that overlap.
``outside``
    A layout-placed child that sticks out of its parent (the window is too small for it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtGui import QFont, QFontInfo, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyleOptionComboBox,
    QTabBar,
    QTableView,
    QToolButton,
    QTreeView,
    QWidget,
)

from rockskills_gui.ui.common.audit_colours import (
    background_of,
    blend,
    brush_colour,
    contrast_ratio,
    rich_colours,
)
from rockskills_gui.ui.common.audit_widgets import (
    any_stretch,
    describe,
    full_text_on_hover,
    full_text_on_hover_of,
    in_layout,
    reads_as,
    rect_text,
    shown_text,
    visible_widgets,
)

AA_NORMAL = 4.5
MIN_INPUT_CHARS = 8
MAX_ROWS = 60  # item-view rows looked at per view
SLACK = 1  # pixels of rounding forgiven


@dataclass(frozen=True)
class Finding:
    rule: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.where}: {self.detail}"


# ---------------------------------------------------------------- rules


class Audit:
    """Run every rule under one root; :attr:`findings` holds what failed."""

    def __init__(self, app_font: QFont | None = None) -> None:
        app = QApplication.instance()
        font = app_font or (app.font() if isinstance(app, QApplication) else QFont())
        self.min_pixels = QFontInfo(font).pixelSize()
        self.findings: list[Finding] = []

    def fail(self, rule: str, widget: QWidget, detail: str) -> None:
        self.findings.append(Finding(rule, describe(widget), detail))

    def run(self, root: QWidget) -> list[Finding]:
        for widget in visible_widgets(root):
            self.check_font(widget)
            self.check_text_fits(widget)
            if widget.isEnabled():  # WCAG does not ask disabled controls for contrast
                self.check_contrast(widget)
            if isinstance(widget, QAbstractItemView):
                self.check_item_view(widget)
            self.check_children(widget)
        return self.findings

    # -- fonts

    def check_font(self, widget: QWidget) -> None:
        fonts: list[QFont] = []
        if isinstance(widget, (QLabel, QAbstractButton, QLineEdit, QComboBox, QTabBar,
                               QAbstractItemView, QHeaderView, QAbstractSpinBox)):
            fonts.append(widget.font())
        painted = getattr(widget, "audit_fonts", None)
        if callable(painted):
            fonts.extend(painted())
        for font in fonts:
            pixels = QFontInfo(font).pixelSize()
            if pixels < self.min_pixels:
                self.fail("small-font", widget,
                          f"{pixels} px text, the application font is {self.min_pixels} px")
                return

    # -- text that fits

    def check_text_fits(self, widget: QWidget) -> None:
        if isinstance(widget, QLabel):
            self._label_fits(widget)
        elif isinstance(widget, (QCheckBox, QRadioButton)):
            text = shown_text(widget.text())
            if text:
                style = widget.style()
                indicator = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, widget)
                spacing = style.pixelMetric(QStyle.PixelMetric.PM_CheckBoxLabelSpacing, None,
                                            widget)
                need = indicator + spacing + widget.fontMetrics().horizontalAdvance(text)
                self._needs(widget, text, need, widget.fontMetrics().height())
        elif isinstance(widget, QPushButton):
            text = shown_text(widget.text())
            if text:
                style = widget.style()
                margin = style.pixelMetric(QStyle.PixelMetric.PM_ButtonMargin, None, widget)
                frame = style.pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth, None, widget)
                icon = widget.iconSize().width() + 4 if not widget.icon().isNull() else 0
                menu = 12 if widget.menu() is not None else 0
                need = widget.fontMetrics().horizontalAdvance(text) + icon + menu + margin \
                    + 2 * frame
                self._needs(widget, text, need, widget.fontMetrics().height())
        elif isinstance(widget, QToolButton):
            style_kind = widget.toolButtonStyle()
            text = shown_text(widget.text())
            if text and style_kind != Qt.ToolButtonStyle.ToolButtonIconOnly:
                icon = 0
                if not widget.icon().isNull() and style_kind in (
                        Qt.ToolButtonStyle.ToolButtonTextBesideIcon,
                        Qt.ToolButtonStyle.ToolButtonFollowStyle):
                    icon = widget.iconSize().width() + 4
                need = widget.fontMetrics().horizontalAdvance(text) + icon + 4
                self._needs(widget, text, need, widget.fontMetrics().height())
        elif isinstance(widget, QComboBox):
            text = widget.currentText()
            if text and not widget.isEditable():
                option = QStyleOptionComboBox()
                widget.initStyleOption(option)
                field = widget.style().subControlRect(
                    QStyle.ComplexControl.CC_ComboBox, option,
                    QStyle.SubControl.SC_ComboBoxEditField, widget)
                need = widget.fontMetrics().horizontalAdvance(text)
                if need > field.width() + SLACK and not full_text_on_hover(widget, text):
                    self.fail("clipped", widget,
                              f"needs {need} px for its text, has {field.width()} px")
        elif isinstance(widget, QLineEdit) and not widget.isReadOnly():
            if isinstance(widget.parentWidget(), (QAbstractSpinBox, QComboBox)):
                return
            need = widget.fontMetrics().averageCharWidth() * MIN_INPUT_CHARS
            if widget.width() < need:
                self.fail("narrow", widget, f"{widget.width()} px wide, less than "
                          f"{MIN_INPUT_CHARS} characters ({need} px)")
        elif isinstance(widget, QTabBar):
            self._tabs_fit(widget)

    def _needs(self, widget: QWidget, text: str, width: int, height: int) -> None:
        if (width > widget.width() + SLACK or height > widget.height() + SLACK) \
                and not full_text_on_hover(widget, text):
            self.fail("clipped", widget, f"needs {width}×{height} px for its text, has "
                      f"{widget.width()}×{widget.height()}")

    def _label_fits(self, label: QLabel) -> None:
        text = label.text()
        if not text.strip() or (label.pixmap() is not None and not label.pixmap().isNull()):
            return
        rect = label.contentsRect()
        margin = label.margin()
        indent = max(0, label.indent())
        width = rect.width() - 2 * margin
        height = rect.height() - 2 * margin
        if label.wordWrap():
            need_h = label.heightForWidth(label.width())
            if need_h > label.height() + SLACK:
                self.fail("clipped", label, f"wrapped text needs {need_h} px of height, has "
                          f"{label.height()}")
            # one unbreakable word wider than the label is clipped, too
            hint = label.minimumSizeHint().width()
            if hint > label.width() + SLACK and not full_text_on_hover(label, text):
                self.fail("clipped", label, f"a word needs {hint} px, the label is "
                          f"{label.width()} px wide")
            return
        size_hint = label.sizeHint()
        need_w = size_hint.width() - 2 * margin - indent - (label.frameWidth() * 2)
        need_h = size_hint.height() - 2 * margin - (label.frameWidth() * 2)
        if need_w > width + SLACK or need_h > height + SLACK:
            plain = re.sub(r"<[^>]+>", "", text)
            if not full_text_on_hover(label, plain):
                self.fail("clipped", label, f"needs {need_w}×{need_h} px for its text, has "
                          f"{width}×{height}")

    def _tabs_fit(self, bar: QTabBar) -> None:
        metrics = bar.fontMetrics()
        for k in range(bar.count()):
            text = shown_text(bar.tabText(k))
            rect = bar.tabRect(k)
            need = metrics.horizontalAdvance(text)
            if bar.tabIcon(k) is not None and not bar.tabIcon(k).isNull():
                need += bar.iconSize().width() + 4
            if need > rect.width() - 4 and not bar.tabToolTip(k):
                self.fail("clipped", bar, f"tab {text!r} needs {need} px, has {rect.width()}")
            elif rect.right() > bar.width() + SLACK or rect.left() < -SLACK:
                self.fail("clipped", bar, f"tab {text!r} is scrolled out of the tab bar "
                          f"({bar.width()} px for {rect_text(rect)})")
                return

    # -- contrast

    def check_contrast(self, widget: QWidget) -> None:
        if not isinstance(widget, (QLabel, QAbstractButton, QLineEdit, QComboBox)):
            return
        if isinstance(widget, QLabel) and not widget.text().strip():
            return
        background = background_of(widget)
        palette = widget.palette()
        if isinstance(widget, QLineEdit):
            role = QPalette.ColorRole.Text if widget.text() else QPalette.ColorRole.PlaceholderText
            if not widget.text() and not widget.placeholderText():
                return
            foreground = palette.color(role)
        elif isinstance(widget, (QPushButton, QComboBox)) or (
                isinstance(widget, QToolButton) and not widget.autoRaise()):
            foreground = palette.color(QPalette.ColorRole.ButtonText)
        else:
            foreground = palette.color(widget.foregroundRole())
        colours = [foreground]
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText:
            colours.extend(rich_colours(widget.text()))
        for colour in colours:
            ratio = contrast_ratio(blend(colour, background), background)
            if ratio < AA_NORMAL:
                self.fail("contrast", widget, f"{colour.name()} on {background.name()} is "
                          f"{ratio:.2f}:1, below {AA_NORMAL}:1")
                return

    # -- item views

    def check_item_view(self, view: QAbstractItemView) -> None:
        model = view.model()
        if model is None:
            return
        base = view.palette().color(QPalette.ColorRole.Base)
        text = view.palette().color(QPalette.ColorRole.Text)
        header = view.header() if isinstance(view, QTreeView) else (
            view.horizontalHeader() if isinstance(view, QTableView) else None)
        columns = model.columnCount(view.rootIndex()) if header is not None else 1
        rows = list(self._visible_rows(view))
        metrics = QFontMetrics(view.font())
        first_text: int | None = None
        for column in range(columns):
            if header is not None and header.isSectionHidden(column):
                continue
            shown: dict[str, str] = {}
            texts = elided = 0
            for index in rows:
                cell = index.siblingAtColumn(column)
                rect = view.visualRect(cell)
                if rect.isEmpty():
                    continue
                value = cell.data(Qt.ItemDataRole.DisplayRole)
                if isinstance(value, str) and value:
                    full = value
                    room = rect.width() - 8
                    texts += 1
                    if view.indexWidget(cell) is None and metrics.horizontalAdvance(full) > room:
                        if not full_text_on_hover_of(cell, full):
                            elided += 1
                        reads = reads_as(view, full, metrics, room, rect.height())
                        other = shown.get(reads)
                        if other is not None and other != full:
                            self.fail("ambiguous", view, f"column {column}: {other!r} and "
                                      f"{full!r} both read {reads!r}")
                            break
                        shown[reads] = full
                fore = cell.data(Qt.ItemDataRole.ForegroundRole)
                back = cell.data(Qt.ItemDataRole.BackgroundRole)
                if fore is not None or back is not None:
                    f = brush_colour(fore, text)
                    b = brush_colour(back, base)
                    b = blend(b, base)
                    ratio = contrast_ratio(blend(f, b), b)
                    if ratio < AA_NORMAL and isinstance(value, str) and value.strip():
                        self.fail("contrast", view, f"cell {value[:30]!r}: {f.name()} on "
                                  f"{b.name()} is {ratio:.2f}:1")
                        break
            if texts and first_text is None:
                first_text = column
                if texts >= 3 and elided * 2 > texts:
                    self.fail("cramped", view, f"column {column}: {elided} of {texts} rows "
                              "elided")
        if isinstance(view, (QTreeView, QTableView)) and header is not None:
            bar = view.horizontalScrollBar()
            if bar.isVisible() and bar.maximum() > 0 and header.stretchLastSection() is False \
                    and not any_stretch(header):
                self.fail("scrolled", view, "columns wider than the view, none stretches")
            elif bar.isVisible() and bar.maximum() > 0:
                self.fail("scrolled", view, f"columns need {header.length()} px, the view has "
                          f"{view.viewport().width()} px")

    @staticmethod
    def _visible_rows(view: QAbstractItemView) -> Iterator[QModelIndex]:
        model = view.model()
        viewport = view.viewport().rect()
        if isinstance(view, QTreeView):
            index = view.indexAt(viewport.topLeft() + QPoint(2, 2))
            count = 0
            while index.isValid() and count < MAX_ROWS:
                if view.visualRect(index).top() > viewport.bottom():
                    break
                yield index
                index = view.indexBelow(index)
                count += 1
            return
        root = view.rootIndex()
        for row in range(min(model.rowCount(root), 10_000)):
            index = model.index(row, 0, root)
            rect = view.visualRect(index)
            if rect.bottom() < 0:
                continue
            if rect.top() > viewport.bottom() or row > MAX_ROWS * 4:
                break
            yield index

    # -- siblings

    def check_children(self, parent: QWidget) -> None:
        layout = parent.layout()
        if layout is None:
            return
        children = [c for c in parent.findChildren(
            QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if c.isVisible() and not c.isWindow() and c.width() > 0 and c.height() > 0
            and in_layout(layout, c)]
        area = parent.rect()
        for k, child in enumerate(children):
            geometry = child.geometry()
            if not area.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(geometry):
                self.fail("outside", child, f"{rect_text(geometry)} sticks out of its parent "
                          f"{rect_text(area)}")
            for other in children[k + 1:]:
                both = geometry.intersected(other.geometry())
                if both.width() > SLACK + 1 and both.height() > SLACK + 1:
                    self.fail("overlap", child, f"{rect_text(geometry)} overlaps "
                              f"{describe(other)} {rect_text(other.geometry())}")



def audit(roots: Iterable[QWidget], app_font: QFont | None = None) -> list[Finding]:
    """Every finding under ``roots`` (deduplicated, in walking order)."""
    checker = Audit(app_font)
    for root in roots:
        checker.run(root)
    seen: set[Finding] = set()
    unique = []
    for finding in checker.findings:
        if finding not in seen:
            seen.add(finding)
            unique.append(finding)
    return unique
