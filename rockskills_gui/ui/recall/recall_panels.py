"""Side panels of the recall playground: the session, "why not this skill?", and query sets.

The panels show what the pane computes with the core; the query-set panel also owns its sets'
files, which it reads and writes only through :mod:`rockskills_gui.core.recall.queryset`
(``<agent>/recall-tests/``, never inside ``skills/``).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, QStringListModel, Qt, Signal
from PySide6.QtGui import QFocusEvent, QFont, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QCompleter,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.model.profile import AgentProfile, Injection
from rockskills_gui.core.recall.aging import aging_note
from rockskills_gui.core.recall.playground import PinReport, SimulatedSession
from rockskills_gui.core.recall.session import (
    OTHER_SKILLS_HEADER,
    SEE_ALSO_PREFIX,
    TurnResult,
    injection_rules,
)
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.lazy_names import LazyNameModel
from rockskills_gui.ui.common.theme import monospace, secondary
from rockskills_gui.ui.common.tree_items import child_items, top_level_items
from rockskills_gui.ui.recall.mcp_calls import MCP_POSITION, McpCallBar, mcp_item_texts, mcp_servers

MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 50  # exact system-message text
TURN_ROLE = Qt.ItemDataRole.UserRole + 51  # turn number (0 = the preview)
QUERY_ROLE = Qt.ItemDataRole.UserRole + 53
TOOL_RESULT_ROLE = Qt.ItemDataRole.UserRole + 54  # exact MCP tool-result text (current RockBot)
NOTE_ROLE = Qt.ItemDataRole.UserRole + 55  # what the agent does beside a turn's messages (no text sent)
NOTE_POSITION = 2_000  # TURN_ROLE positions of a turn's notes (after its messages and MCP calls)


def _italic(item: QTreeWidgetItem, column: int = 0) -> None:
    font = QFont(item.font(column))
    font.setItalic(True)
    item.setFont(column, font)


def _bold(item: QTreeWidgetItem, column: int = 0) -> None:
    font = QFont(item.font(column))
    font.setBold(True)
    item.setFont(column, font)


def message_label(turn: TurnResult, position: int, message: str,
                  skills: int | None = None) -> tuple[str, str]:
    """``(kind, detail)`` of a turn's ``position``-th message, for the session tree.

    ``skills``: how many skills the session index lists (its lines are no count: a summary may
    span several); without it, the index's ``- name:`` entries are counted.
    """
    if position == 0 and turn.index is not None:
        if skills is None:
            skills = sum(1 for line in message.split("\n")[1:] if line.startswith("- "))
        return "Session index", f"{skills} skill{'' if skills == 1 else 's'}, first turn only"
    if message.startswith(SEE_ALSO_PREFIX):
        return "See-also line", message[len(SEE_ALSO_PREFIX):]
    if message.startswith(OTHER_SKILLS_HEADER):
        return "Other skills (by summary)", ", ".join(turn.listed)
    size = f"{len(message):,} characters"
    for name, body in turn.bodies:
        if body == message and not message.startswith("Skill: "):
            return f"Skill: {name}", f"{size}, framed as reference material"
    name = message.split("\n", 1)[0].removeprefix("Skill: ")
    return f"Skill: {name}", size


def turn_summary(turn: TurnResult) -> str:
    parts = []
    if turn.index is not None:
        parts.append("index")
    if turn.no_recall is not None:
        parts.append("no recall")
    if turn.injected:
        parts.append(f"{len(turn.injected)} skill{'s' if len(turn.injected) != 1 else ''}")
    if turn.listed:
        parts.append(f"{len(turn.listed)} listed")
    if turn.see_also:
        parts.append("see-also")
    return " + ".join(parts) or "nothing"


def turn_notes(turn: TurnResult, injection: Injection) -> list[tuple[str, str]]:
    """``(kind, detail)`` of what the agent does beside the messages of ``turn``: why nothing was
    searched (a short message), and what the tool loop's aging does to each body."""
    notes = [("No recall", turn.no_recall)] if turn.no_recall is not None else []
    if injection.body_unload_after > 0:
        notes += [("Body aging", aging_note(message, name, injection.body_unload_after))
                  for name, message in turn.bodies]
    return notes


# ---------------------------------------------------------------- session


class SessionPanel(QWidget):
    """The turns added so far and the preview of the next one; a selected message's exact text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recallSessionPanel")
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("recallTurns")
        self.tree.setHeaderLabels(["Turn / message", "Detail"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.columns = ColumnFitter(self.tree, order=[0], stretch=1, cap=0.62)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("recallMessageText")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setPlaceholderText("Select a message to read the exact text the agent sends.")
        monospace(self.text)
        self.caption = secondary(QLabel("Exact system-message text", self))
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.tree)
        bottom = QWidget(splitter)
        box = QVBoxLayout(bottom)
        box.setContentsMargins(0, 4, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.caption)
        box.addWidget(self.text)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.summary)
        self.rules = secondary(QLabel(self))  # the open library's agent's recall rules
        self.rules.setObjectName("recallSessionRules")
        self.rules.setWordWrap(True)
        layout.addWidget(self.rules)
        self.mcp_bar = McpCallBar(self)  # RockBot (current): the MCP skill-injection path
        self.mcp_bar.hide()
        self.mcp_bar.called.connect(self.mcp_call)
        layout.addWidget(self.mcp_bar)
        layout.addWidget(splitter, 1)
        self._selected: tuple[int, int] | None = None  # the user's choice: (turn, position)
        self._index_skills: int | None = None  # skills the session index lists
        self._shown: tuple[SimulatedSession | None, TurnResult | None, AgentProfile | None] = \
            (None, None, None)

    def show_session(self, session: SimulatedSession | None, preview: TurnResult | None,
                     profile: AgentProfile | None = None) -> None:
        """Rebuild the tree: added turns, then the preview of the current query (turn 0).

        ``profile``: the profile of an agent that injects MCP skills (see
        :func:`~rockskills_gui.ui.recall.mcp_calls.mcp_profile`)
        shows the MCP strip and the MCP tool results under their turns."""
        self._shown = (session, preview,
                       profile if profile is not None and profile.injection.mcp_skills else None)
        mcp = session is not None and self._shown[2] is not None
        self.mcp_bar.setVisible(mcp)
        if session is not None and mcp:
            recall = session.recall
            self.mcp_bar.set_state(len(session.turns), lambda: mcp_servers(recall.skills()), recall)
        self.tree.blockSignals(True)
        self.tree.clear()
        turns = session.turns if session is not None else []
        self._index_skills = len(session.recall) if session is not None else None
        for number, turn in enumerate(turns, 1):
            self._add_turn(f"Turn {number}", number, turn)
        if preview is not None:
            item = self._add_turn("Next turn (preview)", 0, preview)
            _italic(item)
        self.tree.blockSignals(False)
        rules = injection_rules(session.session.injection) if session is not None else []
        self.rules.setText("This agent: " + "; ".join(rules) + "." if rules else "")
        self.rules.setVisible(bool(rules))
        if session is None:
            self.summary.setText("No library open.")
        else:
            recalled = len(session.recalled_names())
            first = ("the next turn is the first: it also sends the skill index"
                     if not session.indexed else "the skill index was sent in turn 1")
            calls = len(session.session.mcp_calls) if mcp else 0
            tools = f" · {calls} MCP tool result{'s' if calls != 1 else ''}" if calls else ""
            self.summary.setText(
                f"<b>{len(turns)} turn{'s' if len(turns) != 1 else ''}</b> so far · "
                f"{recalled} name{'s' if recalled != 1 else ''} marked as recalled{tools} · "
                f"{first}.")
        self.tree.resizeColumnToContents(0)
        self._restore_selection(preview)

    def _add_turn(self, label: str, number: int, turn: TurnResult) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self.tree, [label, f"{turn.user}  →  {turn_summary(turn)}"])
        item.setData(0, TURN_ROLE, number)
        item.setData(1, TURN_ROLE, -1)
        item.setToolTip(1, turn.user)
        if not turn.messages:
            empty = QTreeWidgetItem(item, ["(no skill messages)", ""])
            _italic(empty)
        for position, message in enumerate(turn.messages):
            kind, detail = message_label(turn, position, message, self._index_skills)
            child = QTreeWidgetItem(item, [kind, detail])
            child.setData(0, MESSAGE_ROLE, message)
            child.setData(0, TURN_ROLE, number)
            child.setData(1, TURN_ROLE, position)
            child.setToolTip(1, detail)
        self._add_mcp_calls(item, number)
        session = self._shown[0]
        notes = turn_notes(turn, session.session.injection) if session is not None else []
        for index, (kind, detail) in enumerate(notes):
            child = QTreeWidgetItem(item, [kind, detail])
            child.setData(0, NOTE_ROLE, detail)
            child.setData(0, TURN_ROLE, number)
            child.setData(1, TURN_ROLE, NOTE_POSITION + index)
            child.setToolTip(1, detail)
            _italic(child)
        item.setExpanded(number == 0 or number == len(self._turn_items()))
        return item

    def _add_mcp_calls(self, item: QTreeWidgetItem, number: int) -> None:
        """The MCP tool results simulated while the agent answered turn ``number``."""
        session, _preview, rules = self._shown
        if session is None or rules is None or number == 0:
            return
        for index, call in enumerate(session.session.mcp_calls):
            if call.turn != number:
                continue
            kind, detail, tip = mcp_item_texts(call)
            child = QTreeWidgetItem(item, [kind, detail])
            child.setData(0, TOOL_RESULT_ROLE, call.result)
            child.setData(0, TURN_ROLE, number)
            child.setData(1, TURN_ROLE, MCP_POSITION + index)
            child.setToolTip(0, tip)
            child.setToolTip(1, detail)
            _italic(child)

    def mcp_call(self, trigger: str, server: str) -> None:
        """Simulate an MCP call while the agent answers the last turn, and select its result."""
        session, preview, rules = self._shown
        if session is None or rules is None or not session.turns:
            return
        call = session.session.mcp_call(rules, server, trigger, len(session.turns))
        self._selected = (call.turn, MCP_POSITION + len(session.session.mcp_calls) - 1)
        self.show_session(session, preview, rules)

    def _turn_items(self) -> list[QTreeWidgetItem]:
        return top_level_items(self.tree)

    def _find(self, turn: int, position: int) -> QTreeWidgetItem | None:
        for item in self._turn_items():
            if item.data(0, TURN_ROLE) != turn:
                continue
            if position < 0:
                return item
            for child in child_items(item):
                if child.data(1, TURN_ROLE) == position:
                    return child
        return None

    def _restore_selection(self, preview: TurnResult | None) -> None:
        target = self._find(*self._selected) if self._selected is not None else None
        if target is None and preview is not None:
            # By default the preview's first recalled skill (the index is long and familiar).
            first_skill = 1 if preview.index is not None and len(preview.messages) > 1 else 0
            target = self._find(0, first_skill)
        self.tree.blockSignals(True)
        if target is not None:
            self.tree.setCurrentItem(target)
        else:  # no current item (what Qt's setCurrentItem(nullptr) does)
            self.tree.setCurrentIndex(QModelIndex())
        self.tree.blockSignals(False)
        self._display(target)

    def _on_current_changed(self, item: QTreeWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self._selected = (item.data(0, TURN_ROLE), item.data(1, TURN_ROLE))
        self._display(item)

    def reset_selection(self) -> None:
        """Forget the user's choice (the default, the preview's first skill, applies again)."""
        self._selected = None

    def _display(self, item: QTreeWidgetItem | None) -> None:
        if item is None:
            self.text.clear()
            return
        message = item.data(0, MESSAGE_ROLE)
        tool = item.data(0, TOOL_RESULT_ROLE) is not None
        note = item.data(0, NOTE_ROLE)
        self.caption.setText("Exact tool-result text (⟨…⟩: what only the live server knows)"
                             if tool else "What the agent does (nothing is sent)" if note is not None
                             else "Exact system-message text")
        if note is not None:
            self.text.setPlainText(note)
            return
        if message is None:
            message = item.data(0, TOOL_RESULT_ROLE)
        if message is None and item.childCount():
            parts = [child.data(0, MESSAGE_ROLE) for child in child_items(item)]
            message = "\n\n".join(f"──── system message {i} ────\n{text}"
                                  for i, text in enumerate(parts, 1) if text is not None)
            results = [child for child in child_items(item) if child.data(0, TOOL_RESULT_ROLE) is not None]
            message = "\n\n".join([message] * bool(message) + [
                f"──── {child.text(0).lower()} ────\n{child.data(0, TOOL_RESULT_ROLE)}"
                for child in results])
        self.text.setPlainText(message or "")

    def messages(self, turn: int) -> list[str]:
        """The exact message texts shown for ``turn`` (0 = the preview)."""
        item = self._find(turn, -1)
        if item is None:
            return []
        return [child.data(0, MESSAGE_ROLE) for child in child_items(item)
                if child.data(0, MESSAGE_ROLE) is not None]


# ---------------------------------------------------------------- why not this skill?


class NameEdit(QLineEdit):
    """A line edit completing skill names (contains, case-insensitive); optionally a list."""

    def __init__(self, names: QStringListModel, multiple: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.multiple = multiple
        self.completer_ = QCompleter(names, self)
        self.completer_.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer_.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer_.setWidget(self)
        self.completer_.activated.connect(self._insert)
        # Enter in the open list is the line edit's Enter too (one press pins): the list has the
        # keyboard while it shows, and the completer alone would only fill the name in.
        popup = self.completer_.popup()  # Qt makes its list view when first asked
        if popup is not None:
            popup.installEventFilter(self)  # (after the completer's: runs first)
        self.textEdited.connect(self._complete)
        self.names_model = names

    def focusInEvent(self, event: QFocusEvent) -> None:
        if isinstance(self.names_model, LazyNameModel):
            self.names_model.ensure()
        super().focusInEvent(event)

    def _current_part(self) -> str:
        text = self.text()
        return text.rsplit(",", 1)[-1].strip() if self.multiple else text.strip()

    def _complete(self, _text: str) -> None:
        part = self._current_part()
        popup = self.completer_.popup()
        if not part:
            if popup is not None:
                popup.hide()
            return
        self.completer_.setCompletionPrefix(part)
        if self.completer_.completionCount():
            self.completer_.complete()
        elif popup is not None:
            popup.hide()

    def _insert(self, name: str) -> None:
        if self.multiple:
            head = self.text().rsplit(",", 1)[0] if "," in self.text() else ""
            self.setText(f"{head.strip()}, {name}" if head.strip() else name)
        else:
            self.setText(name)

    def names(self) -> list[str]:
        return [p.strip() for p in self.text().split(",") if p.strip()] if self.multiple \
            else ([self.text().strip()] if self.text().strip() else [])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.completer_.popup() and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent)
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)):
            self._enter()
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        popup = self.completer_.popup()
        if popup is not None and popup.isVisible() and event.key() in (Qt.Key.Key_Return,
                                                                       Qt.Key.Key_Enter):
            self._enter()
            event.accept()
            return
        super().keyPressEvent(event)

    def _enter(self) -> None:
        """Enter while the list shows: take its current name (or the only name it lists),
        close it, and go on as Enter in the field does (``returnPressed``)."""
        popup = self.completer_.popup()
        index = popup.currentIndex() if popup is not None else QModelIndex()
        if index.isValid():
            self._insert(index.data())
        elif self.completer_.completionCount() == 1:
            self.completer_.setCurrentRow(0)
            self._insert(self.completer_.currentCompletion())
        if popup is not None:
            popup.hide()
        self.returnPressed.emit()


def pin_verdict(report: PinReport) -> str:
    if not report.found:
        return "not a skill of this library"
    if report.no_recall is not None and report.rank is not None:
        return f"{report.no_recall}: the agent does not search"
    if report.in_top and report.hidden is not None:
        return f"in the top {report.top_n}, but this session hides it"
    if report.in_top:
        return f"in the top {report.top_n}"
    if report.rank is None:
        return "scores 0: never recalled for this message"
    return f"below the top-{report.top_n} cut"


def pin_details(report: PinReport) -> list[str]:
    """The explanation lines under a pinned skill."""
    if not report.found:
        return ["There is no skill of that name (see-also names are not checked either)."]
    lines = []
    if report.session_note:
        lines.append("Session: " + report.session_note + " (Reset session starts over)")
    if report.explanation.terms or report.explanation.phrases:
        parts = [f"{t} +{c.contribution:.3f}" for t, c in report.explanation.terms.items()]
        parts += [f'"{p}" +{c.contribution:.3f}' for p, c in report.explanation.phrases.items()]
        lines.append("Has: " + ", ".join(parts))
    nowhere = set(report.nowhere)
    terms = [t for t in report.lacks_terms if t not in nowhere]
    phrases = [f'"{p}"' for p in report.lacks_phrases if f'"{p}"' not in nowhere]
    if terms:
        lines.append("Lacks terms: " + ", ".join(terms))
    if phrases:
        lines.append("Lacks phrases: " + ", ".join(phrases))
    if report.nowhere:
        lines.append("In no skill (cannot help any skill): " + ", ".join(report.nowhere))
    if report.gap is not None:
        lines.append(f"Needs +{report.gap:.3f} to reach the top {report.top_n} "
                     f"(#{report.top_n} scores {report.cutoff:.3f})")
    elif not report.in_top and report.rank is not None:
        lines.append(f"Fewer than {report.top_n} skills match, yet it is not among them")
    if report.rank is None:
        lines.append("Only the name and summary are indexed: words in the content never count")
    return lines


class PinCard(QFrame):
    """One pinned skill: rank, score and verdict, the explanation lines, an unpin button."""

    def __init__(self, report: PinReport, unpin: Callable[[str], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recallPinCard")
        self.report = report
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.setAutoFillBackground(True)
        rank = f"#{report.rank}" if report.rank is not None else "not ranked"
        score = f" · score {report.score:.4f}" if report.found else ""
        strong = report.in_top and report.hidden is None and report.no_recall is None
        self.title = QLabel(f"<b>{html.escape(report.name)}</b> &nbsp; {rank}{score} · "
                            f"{'<b>' if strong else ''}{html.escape(pin_verdict(report))}"
                            f"{'</b>' if strong else ''}", self)
        self.title.setWordWrap(True)
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(f"Unpin {report.name}")
        self.close_button.clicked.connect(lambda: unpin(report.name))
        self.details = QLabel("<br>".join(html.escape(line) for line in pin_details(report)), self)
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 6, 8)
        layout.setSpacing(3)
        layout.addLayout(head)
        layout.addWidget(self.details)


class WhyNotPanel(QWidget):
    """Pin skills to see their rank, score and the query terms and phrases they lack.

    Signals:
        pinRequested(str), unpinRequested(str).
    """

    pinRequested = Signal(str)
    unpinRequested = Signal(str)

    def __init__(self, names: QStringListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recallWhyNotPanel")
        self.edit = NameEdit(names, parent=self)
        self.edit.setObjectName("recallPinEdit")
        self.edit.setPlaceholderText("Skill name… (why is it not recalled?)")
        self.edit.returnPressed.connect(self._pin)
        self.pin_button = QPushButton("Pin", self)
        self.pin_button.clicked.connect(self._pin)
        self.hint = secondary(QLabel(
            "Pin a skill to follow it as you type: its rank, its score, and which query terms "
            "and phrases its name and summary lack (only those are indexed).", self))
        self.hint.setWordWrap(True)
        self.cards = QWidget(self)
        self.cards_layout = QVBoxLayout(self.cards)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(6)
        self.cards_layout.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(self.cards)
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.pin_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        layout.addWidget(self.scroll_area, 1)
        self.reports: list[PinReport] = []
        self._cards: list[PinCard] = []

    def _pin(self) -> None:
        name = self.edit.text().strip()
        if name:
            self.pinRequested.emit(name)
            self.edit.clear()

    def card_widgets(self) -> list[PinCard]:
        return list(self._cards)

    def show_reports(self, reports: Sequence[PinReport]) -> None:
        self.reports = list(reports)
        for card in self._cards:
            card.hide()
            card.deleteLater()
        self._cards = []
        for position, report in enumerate(reports):
            card = PinCard(report, self.unpinRequested.emit, self.cards)
            self.cards_layout.insertWidget(position, card)
            card.show()
            self._cards.append(card)
        self.hint.setVisible(not reports)


# ---------------------------------------------------------------- query sets
