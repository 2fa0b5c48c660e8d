"""Recall tab: "if a user says X, which skills will my agent see, and why?"

Everything shown comes from the exact engine (:mod:`rockskills_gui.core.recall.skill_recall`,
:mod:`~rockskills_gui.core.recall.session`, :mod:`~rockskills_gui.core.recall.playground`):
same scores, same order, same injected message texts as the agent.

- Results update as you type (150 ms debounce), searched synchronously: a query is about a
  millisecond and a whole refresh (50 explained rows, the turn preview, pins) 10-40 ms at
  100,000 skills. Building an index for a large library (with its session index text), and the
  rank-bm25 comparison models, which cannot be updated, run on a worker thread that builds its
  own object and hands it over: the index is never used from two threads.
- The index follows ``changeApplied`` incrementally (:func:`follow_change`).
- The session is simulated turn by turn; the results show what the current message would
  inject *now*, given the turns added so far.

Signals:
    openSkillRequested(str): the user opened a result (double-click or Enter): the window shows
        the Skill tab.
    resultsUpdated(): new results are on screen.
    indexReady(): an index for the open library is in place (after a build on a worker).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QObject,
    QRunnable,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeySequence, QPalette, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import QueryPlan, parse_query
from rockskills_gui.core.recall.bm25_index import Explanation, QueryStats
from rockskills_gui.core.recall.compare import ComparisonRanker
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.playground import (
    SEE_ALSO,
    EditedRecall,
    PinReport,
    SimulatedSession,
    compare_rankings,
    follow_change,
    ranks,
    top_changes,
    why_not,
)
from rockskills_gui.core.recall.session import SEE_ALSO_PREFIX, TurnResult
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, RecallBuilder, RecallHit, SkillRecall
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.lazy_names import LazyNameModel
from rockskills_gui.ui.common.shown_refresh import show_tab
from rockskills_gui.ui.common.theme import heading, monospace, secondary
from rockskills_gui.ui.recall.hybrid_panel import HybridPanel, hybrid_skills_dir
from rockskills_gui.ui.recall.queryset_panel import QuerySetPanel
from rockskills_gui.ui.recall.recall_model import (
    HIDDEN,
    INJECT,
    NAME_ROLE,
    RECALLED,
    CompareModel,
    ResultRow,
    ResultsModel,
    segment_slots,
)
from rockskills_gui.ui.recall.recall_panels import SessionPanel, WhyNotPanel
from rockskills_gui.ui.recall.score_bar_delegate import ResultsDelegate, segment_colour

DEBOUNCE_MS = 150
RESULT_LIMIT = 50  # rows shown (the count of every match is shown too)
BAR_MIN = 90  # the contribution bar keeps at least this many pixels when names are long
COMPARE_SIDE_MIN = 460  # narrower than twice this, the compared ranking goes below RockBot's
SYNC_MAX_SKILLS = 2_000  # up to this many skills an index or model builds on the UI thread
EDITS = "edits"
COMPARE_CHOICES = (
    ("", "Nothing"),
    ("okapi", "rank-bm25 Okapi (stock idf)"),
    ("okapi-lucene", "rank-bm25 Okapi (Lucene idf)"),
    ("bm25l", "rank-bm25 BM25L"),
    ("bm25plus", "rank-bm25 BM25Plus"),
    (EDITS, "RockBot after unsaved edits (what-if)"),
)
EditsProvider = Callable[[], list[Skill]]


class _JobSignals(QObject):
    done = Signal(str, int, object)
    failed = Signal(str, int, str)


class _BuildJob(QRunnable):
    """Builds one object (an index, a comparison model) off the UI thread and hands it over."""

    def __init__(self, kind: str, ticket: int, build: Callable[[], object],
                 signals: _JobSignals) -> None:
        super().__init__()
        self.kind, self.ticket, self.build, self.signals = kind, ticket, build, signals

    def run(self) -> None:
        try:
            result = self.build()
        except Exception as exc:  # a bug must not kill the worker silently
            self._emit(self.signals.failed, f"could not build the {self.kind}: {exc!r}")
        else:
            self._emit(self.signals.done, result)

    def _emit(self, signal: Any, value: object) -> None:
        try:
            signal.emit(self.kind, self.ticket, value)
        except RuntimeError:  # the pane is gone
            pass


class _Built:
    """A session index text built on a worker (``None`` is a valid text: an empty library)."""

    def __init__(self, text: str | None) -> None:
        self.text = text


class PreparedRecall:
    """The recall index, session index text and skill names of a library, built while it loaded."""

    def __init__(self, recall: SkillRecall, index_text: str | None, names: list[str]) -> None:
        self.recall = recall
        self.index_text = index_text
        self.names = names


def prepare_recall(library: Library, fed: RecallBuilder | None = None) -> PreparedRecall:
    """Build :class:`PreparedRecall` on the loader's worker thread (LibraryLoader.add_preparer),
    finishing the index ``fed`` was given while the library was read, if any."""
    skills = library.skills()
    recall = fed.build(skills) if fed is not None else SkillRecall(skills)
    return PreparedRecall(recall, session_index_text(skills), library.names())


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _names(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(html.escape(n) for n in names)


class RecallPane(QWidget):
    """Query box, RockBot's ranking with score bars, what this turn injects, and side panels."""

    openSkillRequested = Signal(str)
    resultsUpdated = Signal()
    indexReady = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recallPane")
        self.ctx = ctx
        self.pool = QThreadPool(self)  # created before the signals object: destroyed first, waits
        self._signals = _JobSignals(self)
        self._signals.done.connect(self._on_built)
        self._signals.failed.connect(self._on_build_failed)
        self._tickets: dict[str, int] = {}
        self._building: set[str] = set()
        self._changes = 0  # change sets seen (a worker's result built before the last is stale)

        self.recall: SkillRecall | None = None
        self.sim: SimulatedSession | None = None
        self.ranker: ComparisonRanker | None = None
        self.edited: EditedRecall | None = None
        self._ranker_stale = True
        self.edits_provider: EditsProvider = list
        self.pins: list[str] = []
        self.compare_kind = ""
        self.hits: list[RecallHit] = []
        self.matched = 0
        self.preview: TurnResult | None = None
        self.pin_reports: list[PinReport] = []

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        self.names_model = LazyNameModel(self)
        self._build()
        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.dirtyChanged.connect(self._on_dirty_changed)
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- construction

    def _build(self) -> None:
        self.query = QLineEdit(self)
        self.query.setObjectName("recallQuery")
        self.query.setPlaceholderText("Type what a user might say… (Enter adds it as a turn)")
        self.query.setClearButtonEnabled(True)
        heading(self.query, 1.15, bold=False)
        self.query.textChanged.connect(lambda _t: self._timer.start())
        self.query.returnPressed.connect(self.add_turn)
        self.add_button = QPushButton("Add as turn", self)
        self.add_button.setObjectName("recallAddTurn")
        self.add_button.setToolTip("Send this message in the simulated session (Enter)")
        self.add_button.clicked.connect(self.add_turn)
        self.reset_button = QPushButton("Reset session", self)
        self.reset_button.setObjectName("recallResetSession")
        self.reset_button.setToolTip("Start a fresh session: the index is sent again, nothing "
                                     "counts as recalled")
        self.reset_button.clicked.connect(self.reset_session)

        self.legend = QLabel(self)
        self.legend.setObjectName("recallLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.count_label = secondary(QLabel(self))
        self.count_label.setObjectName("recallCount")
        self.count_label.setWordWrap(True)  # may shrink: the splitter, not this text, sets widths
        self.compare_box = QComboBox(self)
        self.compare_box.setObjectName("recallCompare")
        for key, label in COMPARE_CHOICES:
            self.compare_box.addItem(label, key)
        self.compare_box.setToolTip("Show a second ranking beside RockBot's, with rank changes")
        # As wide as its longest choice: a truncated choice reads like another one.
        self.compare_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.compare_box.currentIndexChanged.connect(
            lambda _i: self.set_compare(self.compare_box.currentData()))

        self.model = ResultsModel(self)
        self.table = QTableView(self)
        self.table.setObjectName("recallResults")
        self.table.setModel(self.model)
        self.table.setItemDelegate(ResultsDelegate(ResultsModel.BAR, self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # research/…-paper
        self.table.setMouseTracking(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(ResultsModel.RANK, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ResultsModel.NAME, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(ResultsModel.SCORE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ResultsModel.BAR, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ResultsModel.STATUS, QHeaderView.ResizeMode.ResizeToContents)
        self.table.activated.connect(lambda index: self.open_skill(index.data(NAME_ROLE)))
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.table.viewport().installEventFilter(self)
        self.empty_note = secondary(QLabel(self.table.viewport()))
        self.empty_note.setObjectName("recallEmptyNote")
        self.empty_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_note.setWordWrap(True)

        self.compare_model = CompareModel(self)
        self.compare_table = QTableView(self)
        self.compare_table.setObjectName("recallCompareResults")
        self.compare_table.setModel(self.compare_model)
        self.compare_table.setItemDelegate(ResultsDelegate(-1, self.compare_table))
        self.compare_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.compare_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.compare_table.setShowGrid(False)
        self.compare_table.setWordWrap(False)
        self.compare_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.compare_table.verticalHeader().hide()
        cheader = self.compare_table.horizontalHeader()
        for column in (CompareModel.RANK, CompareModel.SHIFT, CompareModel.SCORE):
            cheader.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        cheader.setSectionResizeMode(CompareModel.NAME, QHeaderView.ResizeMode.Stretch)
        self.compare_table.activated.connect(
            lambda index: self.open_skill(index.data(NAME_ROLE)))
        self.compare_title = QLabel(self)
        self.compare_title.setObjectName("recallCompareTitle")
        self.compare_title.setWordWrap(True)
        self.compare_box_widget = QWidget(self)
        cbox = QVBoxLayout(self.compare_box_widget)
        cbox.setContentsMargins(0, 0, 0, 0)
        cbox.addWidget(self.compare_title)
        cbox.addWidget(self.compare_table, 1)
        self.compare_box_widget.hide()

        self.inject_label = QLabel(self)
        self.inject_label.setObjectName("recallInjects")
        self.inject_label.setWordWrap(True)
        self.inject_label.setTextFormat(Qt.TextFormat.RichText)
        self.see_also_label = QLabel(self)
        self.see_also_label.setObjectName("recallSeeAlso")
        self.see_also_label.setWordWrap(True)
        self.see_also_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        monospace(self.see_also_label)
        self.hidden_label = QLabel(self)
        self.hidden_label.setObjectName("recallHidden")
        self.hidden_label.setWordWrap(True)
        self.hidden_label.setTextFormat(Qt.TextFormat.RichText)
        self.turn_frame = QFrame(self)
        self.turn_frame.setObjectName("recallTurnFrame")
        self.turn_frame.setFrameShape(QFrame.Shape.StyledPanel)
        self.turn_frame.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.turn_frame.setAutoFillBackground(True)
        tbox = QVBoxLayout(self.turn_frame)
        tbox.setContentsMargins(10, 8, 10, 8)
        tbox.setSpacing(4)
        for widget in (self.inject_label, self.see_also_label, self.hidden_label):
            tbox.addWidget(widget)

        self.session_panel = SessionPanel(self)
        self.why_panel = WhyNotPanel(self.names_model, self)
        self.why_panel.pinRequested.connect(self.pin)
        self.why_panel.unpinRequested.connect(self.unpin)
        self.sets_panel = QuerySetPanel(self.names_model, self)
        self.sets_panel.current_query = self.query.text
        self.sets_panel.queryRequested.connect(lambda text: self.set_query(text, immediate=True))
        self.sets_panel.failed.connect(lambda message: self.ctx.status(message, 8000))
        self.side = QTabWidget(self)
        self.side.setObjectName("recallSide")
        self.side.setDocumentMode(True)
        self.side.addTab(self.session_panel, "Session")
        self.side.addTab(self.why_panel, "Why not?")
        self.side.addTab(self.sets_panel, "Query sets")
        self.hybrid_panel = HybridPanel(self)  # RockBot (current)'s BM25 + embeddings score
        self.hybrid_panel.hide()  # a tab only while a RockBot (current) library is open

        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addWidget(self.add_button)
        top.addWidget(self.reset_button)
        bar = QHBoxLayout()
        bar.addWidget(self.count_label, 1)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Compare with:", self))
        bar.addWidget(self.compare_box)

        results = self.results_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        results.setObjectName("recallResultsSplitter")
        results.addWidget(self.table)
        results.addWidget(self.compare_box_widget)
        results.setStretchFactor(0, 3)
        results.setStretchFactor(1, 2)
        left = QWidget(self)
        lbox = QVBoxLayout(left)
        lbox.setContentsMargins(0, 0, 0, 0)
        lbox.addWidget(self.legend)
        lbox.addLayout(bar)
        lbox.addWidget(results, 1)
        lbox.addWidget(self.turn_frame)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("recallSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self._sized = False
        self._compare_placed = False
        results.installEventFilter(self)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        focus_query = QShortcut(QKeySequence("Ctrl+L"), self, self.query.setFocus)
        focus_query.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

    # ---------------------------------------------------------------- public API

    @property
    def busy(self) -> bool:
        """An index or model is being built, a search is due, or a query set is evaluating."""
        return bool(self._building) or self._timer.isActive() or self.sets_panel.busy

    def wait(self) -> None:
        """Block until worker jobs are done (tests and shutdown)."""
        self.pool.waitForDone()

    def set_query(self, text: str, immediate: bool = False) -> None:
        """Put ``text`` in the query box; ``immediate`` searches now instead of after the debounce."""
        self.query.setText(text)
        if immediate:
            self._timer.stop()
            self.refresh()

    def set_edits_provider(self, provider: EditsProvider) -> None:
        """The editor's unsaved edits (edited skills) for the what-if comparison."""
        self.edits_provider = provider
        self.sets_panel.edits_provider = provider
        if self.compare_kind == EDITS:
            self._schedule()

    def set_compare(self, kind: str) -> None:
        """Compare with a rank-bm25 variant (``okapi``, ``okapi-lucene``, ``bm25l``, ``bm25plus``),
        the library after unsaved edits (``edits``) or nothing (``""``)."""
        if kind == self.compare_kind:
            return
        self.compare_kind = kind
        index = self.compare_box.findData(kind)
        if index >= 0 and index != self.compare_box.currentIndex():
            self.compare_box.blockSignals(True)
            self.compare_box.setCurrentIndex(index)
            self.compare_box.blockSignals(False)
        self.ranker = None
        self._ranker_stale = True
        was_visible = not self.compare_box_widget.isHidden()
        self.compare_box_widget.setVisible(bool(kind))
        if kind and not was_visible:
            self._place_compare()
        self._prepare_compare()
        self.refresh()

    def pin(self, name: str) -> None:
        """Follow ``name`` in the "Why not?" panel (the library's spelling when it exists)."""
        lib = self.ctx.library
        skill = lib.get(name) if lib is not None else None
        shown = skill.name if skill is not None else name
        if fold(shown) not in {fold(p) for p in self.pins}:
            self.pins.append(shown)
        self.side.setCurrentWidget(self.why_panel)
        self.refresh()

    def unpin(self, name: str) -> None:
        self.pins = [p for p in self.pins if fold(p) != fold(name)]
        self.refresh()

    def add_turn(self) -> TurnResult | None:
        """Send the current query as the next turn of the simulated session."""
        if self.sim is None:
            return None
        self._timer.stop()
        result = self.sim.add(self.query.text())
        self.session_panel.reset_selection()
        self.side.setCurrentWidget(self.session_panel)
        self.refresh()
        return result

    def reset_session(self) -> None:
        if self.sim is not None:
            self.sim.reset()
            self.session_panel.reset_selection()
            self.refresh()

    def open_skill(self, name: str | None) -> None:
        """Make ``name`` the current skill and ask the window to show the Skill tab."""
        if name and self.ctx.select_skill(name):
            self.openSkillRequested.emit(name)
        elif name:
            self.ctx.status(f"'{name}' is not a skill of this library", 6000)

    # ---------------------------------------------------------------- library and index

    def _on_library_changed(self, library: Library | None) -> None:
        self._tickets = {kind: ticket + 1 for kind, ticket in self._tickets.items()}
        self._building.clear()
        self.recall = None
        self.sim = None
        self.ranker = None
        self.edited = None
        self._ranker_stale = True
        self.pins = []
        prepared = self.ctx.prepared.get("recall")
        names = prepared.names if isinstance(prepared, PreparedRecall) else (
            library.names() if library is not None else [])
        self.names_model.set_names(names)
        self.sets_panel.set_library(library.layout if library is not None else None, None)
        if library is None:
            self.refresh()
            return
        if isinstance(prepared, PreparedRecall):  # built while the library loaded
            self._install_recall(prepared.recall, _Built(prepared.index_text))
        elif len(library) <= SYNC_MAX_SKILLS:
            self._install_recall(SkillRecall(library.skills()))
        else:
            skills, changes = library.skills(), self._changes
            self._start("index", lambda: (SkillRecall(skills), session_index_text(skills), changes))
            self.refresh()
        self._prepare_compare()

    def _install_recall(self, recall: SkillRecall, index_text: _Built | None = None) -> None:
        self.recall = recall
        self.sim = SimulatedSession(recall) if not isinstance(index_text, _Built) \
            else SimulatedSession(recall, index_text=index_text.text)
        self.sets_panel.set_recall(recall)
        self.indexReady.emit()
        self.refresh()

    def _start(self, kind: str, build: Callable[[], object]) -> None:
        ticket = self._tickets.get(kind, 0) + 1
        self._tickets[kind] = ticket
        self._building.add(kind)
        self.pool.start(_BuildJob(kind, ticket, build, self._signals))

    def _on_built(self, kind: str, ticket: int, result: object) -> None:
        if ticket != self._tickets.get(kind):
            return  # superseded (another library, another choice)
        self._building.discard(kind)
        lib = self.ctx.library
        if lib is None:
            return
        if kind == "index" and isinstance(result, tuple):
            recall, index_text, changes = result
            if changes != self._changes:
                recall.sync(lib.skills())  # catch up with changes made while it was built
                self._install_recall(recall)  # (the index text is rebuilt when needed)
            else:
                self._install_recall(recall, _Built(index_text))
        elif kind == "ranker" and isinstance(result, ComparisonRanker):
            self.ranker = result
            self.refresh()
        elif kind == "edited" and isinstance(result, EditedRecall):
            result.recall.sync(lib.skills())
            self.edited = result
            self.refresh()

    def _on_build_failed(self, kind: str, ticket: int, message: str) -> None:
        if ticket == self._tickets.get(kind):
            self._building.discard(kind)
            self.ctx.status(message, 10000)

    def _on_change_applied(self, change: ChangeSet) -> None:
        lib = self.ctx.library
        if lib is None:
            return
        self._changes += 1
        self.names_model.set_names(lib.names())
        if self.recall is not None and self.sim is not None:
            follow_change(self.recall, lib, change)
            self.sim.library_changed()
        if self.edited is not None:
            self.edited.follow(lib, change)
        if self.compare_kind and self.compare_kind != EDITS:
            self.ranker = None  # rank-bm25 models cannot be updated: rebuild
            self._ranker_stale = True
            self._prepare_compare()
        self.sets_panel.note_renames(change.renamed)
        if self.recall is not None:
            self._follow_set_edits()
            self.sets_panel.evaluate()
        self._schedule()

    def _on_dirty_changed(self, _name: str) -> None:
        self._follow_set_edits()
        if self.compare_kind == EDITS:
            self._schedule()

    def _follow_set_edits(self) -> None:
        """Keep the query sets' comparison with unsaved edits current (dropped when large)."""
        if self.recall is not None:
            self.sets_panel.follow_edits(recompute=len(self.recall) <= SYNC_MAX_SKILLS)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._sized:  # the side panels get a fair share once, the user decides after
            self._sized = True
            total = sum(self.splitter.sizes()) or self.width()
            self.splitter.setSizes([int(total * 0.6), total - int(total * 0.6)])
        if self.compare_kind == EDITS:
            self._schedule()  # the editor may hold new edits
        if self.sets_panel.compared_with:
            self._follow_set_edits()

    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _prepare_compare(self) -> None:
        """Build what the chosen comparison needs (on a worker for large libraries)."""
        lib = self.ctx.library
        kind = self.compare_kind
        if lib is None or not kind:
            return
        if kind == EDITS:
            if self.edited is None and "edited" not in self._building:
                skills = lib.skills()
                if len(skills) <= SYNC_MAX_SKILLS:
                    self.edited = EditedRecall(skills)
                else:
                    self._start("edited", lambda: EditedRecall(skills))
            return
        if self.ranker is None or self.ranker.kind != kind or self._ranker_stale:
            self._ranker_stale = False
            skills = lib.skills()
            if len(skills) <= SYNC_MAX_SKILLS:
                self.ranker = ComparisonRanker.for_skills(kind, skills)
            else:
                self.ranker = None
                self._start("ranker", lambda: ComparisonRanker.for_skills(kind, skills))

    # ---------------------------------------------------------------- searching

    def refresh(self) -> None:
        """Search the current query and update every part of the pane."""
        self._timer.stop()
        text = self.query.text()
        plan = parse_query(text)
        recall, sim = self.recall, self.sim
        if recall is None or sim is None:
            self.hits, self.matched, self.preview, self.pin_reports = [], 0, None, []
            self.model.set_rows(None, [])
            self.compare_model.set_rows([])
            self._show_empty(plan)
            self.session_panel.show_session(None, None)
            self.why_panel.show_reports([])
            self.legend.clear()
            self.count_label.clear()
            self._show_turn(None)
            self.hybrid_panel.set_query(None, None, "")
            self.resultsUpdated.emit()
            return
        self.hits = recall.search(text, top=RESULT_LIMIT, explain=True)
        if len(self.hits) < RESULT_LIMIT:
            self.matched = len(self.hits)
        else:
            self.matched = int((recall.index.scores(plan)[0] > 0.0).sum())
        self.preview = sim.preview(text)
        pinned = {fold(p) for p in self.pins}
        rows = [ResultRow(h.rank, h.name, h.score, h.explanation or Explanation(), *self._status(h),
                          pinned=fold(h.name) in pinned) for h in self.hits]
        stats = recall.index.stats(plan)
        slots = segment_slots(plan, stats)
        self.model.set_rows(plan, rows, slots)
        self._fit_name_column()
        self._show_empty(plan)
        self._show_legend(plan, stats, slots)
        shown = len(self.hits)
        self.count_label.setText(
            "" if plan.empty else f"{_plural(self.matched, 'skill')} match"
            + (f" · top {shown} shown" if shown < self.matched else "")
            + f" · the line marks the top-{RECALL_TOP_N} cut")
        self._show_turn(self.preview)
        self.session_panel.show_session(sim, self.preview if text.strip() else None)
        self.pin_reports = [why_not(recall, text, name) for name in self.pins]
        self.why_panel.show_reports(self.pin_reports)
        self._refresh_compare(text)
        skills_dir = hybrid_skills_dir(self.ctx.library)
        show_tab(self.side, self.hybrid_panel, "Hybrid", skills_dir is not None)
        self.hybrid_panel.set_query(recall, skills_dir, text)
        self.resultsUpdated.emit()

    def _fit_name_column(self) -> None:
        """Names as wide as the longest shown, leaving the bar at least BAR_MIN pixels."""
        metrics = self.table.fontMetrics()
        widest = max((metrics.horizontalAdvance(r.name) for r in self.model.rows), default=0)
        wanted = int(widest * (1.1 if self.pins else 1.0)) + 24
        header = self.table.horizontalHeader()
        fixed = sum(header.sectionSize(c) for c in (ResultsModel.RANK, ResultsModel.SCORE,
                                                    ResultsModel.STATUS))
        room = self.table.viewport().width() - fixed - BAR_MIN
        self.table.setColumnWidth(ResultsModel.NAME, max(110, min(wanted, 340, room)))

    def _place_compare(self) -> None:
        """The second ranking beside RockBot's when both fit with names in full, else below it."""
        results = self.results_splitter
        wide = results.width() >= 2 * COMPARE_SIDE_MIN
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if results.orientation() != orientation or not self._compare_placed:
            self._compare_placed = True
            results.setOrientation(orientation)
            total = results.width() if wide else results.height()
            first = int(total * (0.58 if wide else 0.5))
            results.setSizes([first, total - first])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is getattr(self, "results_splitter", None) and event.type() == QEvent.Type.Resize:
            if not self.compare_box_widget.isHidden():
                self._place_compare()
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_name_column()
            self._place_empty_note()
        return super().eventFilter(watched, event)

    def _status(self, hit: RecallHit) -> tuple[str, str]:
        assert self.sim is not None and self.preview is not None
        if hit.rank > RECALL_TOP_N:
            pinned = fold(hit.name) in {fold(p) for p in self.pins}
            return "", "pinned" if pinned else ""
        if hit.name in self.preview.injected:
            return INJECT, "● injects now"
        mark = self.sim.mark(hit.name)
        if mark is not None and mark.how == SEE_ALSO:
            return HIDDEN, f"○ see-also, turn {mark.turn}"
        if mark is not None:
            return RECALLED, f"○ injected, turn {mark.turn}"
        return RECALLED, "○ recalled earlier"

    def _show_empty(self, plan: QueryPlan) -> None:
        if self.ctx.library is None:
            note = "Open a library to try recall."
        elif self.recall is None:
            note = f"Indexing {_plural(len(self.ctx.library), 'skill')}…"
        elif plan.empty:
            note = ("Type a message. RockBot ranks skills by their name and summary with BM25; "
                    "words shorter than 3 letters are ignored." if not self.query.text().strip()
                    else "No word of 3 letters or more: RockBot recalls nothing for this message.")
        elif not self.hits:
            note = "No skill matches: the agent would inject no skill for this message."
        elif self.matched < len(self.ctx.library):
            rest = len(self.ctx.library) - self.matched
            note = (f"{_plural(rest, 'other skill')} score 0 for this message: "
                    f"{'it shares' if rest == 1 else 'they share'} no word of 3+ letters (or "
                    "phrase) with it in name or summary, so the agent never recalls "
                    f"{'it' if rest == 1 else 'them'} for it.")
        else:
            note = ""
        self.empty_note.setText(note)
        self.empty_note.setVisible(bool(note))
        self._place_empty_note()

    def _place_empty_note(self) -> None:
        """Centred in the free space below the rows (hidden when the rows fill the view)."""
        area = self.table.viewport().rect().adjusted(24, 12, -24, -12)
        rows = self.model.rowCount()
        if rows:
            bottom = self.table.visualRect(self.model.index(rows - 1, 0)).bottom()
            area.setTop(bottom + 12)
        enough = area.height() >= 3 * self.empty_note.fontMetrics().height()
        self.empty_note.setGeometry(area)
        self.empty_note.setVisible(bool(self.empty_note.text()) and enough)

    def _show_legend(self, plan: QueryPlan, stats: QueryStats,
                     slots: dict[tuple[str, bool], int]) -> None:
        if plan.empty:
            self.legend.clear()
            return
        faded = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        parts, nowhere = [], []
        for key in [(t, False) for t in plan.terms] + [(p, True) for p in plan.phrases]:
            text, phrase = key
            shown = html.escape(f'"{text}"' if phrase else text).replace(" ", "&nbsp;")
            if key not in slots:  # df 0: in no skill
                nowhere.append(shown)
                continue
            swatch = "▨" if phrase else "■"
            colour = segment_colour(slots[key]).name()
            parts.append(f"<span style='color:{colour}'>{swatch}</span>&nbsp;{shown}")
        text = "&nbsp;&nbsp; ".join(parts)
        if nowhere:
            text += (f"&nbsp;&nbsp; <span style='color:{faded}'>in no skill: "
                     f"{', '.join(nowhere)}</span>")
        self.legend.setText(text)
        self.legend.setToolTip("Query terms and two-word phrases (▨, worth double) with their "
                               "colour in the bars; 'in no skill' ones cannot change any score")

    def _show_turn(self, preview: TurnResult | None) -> None:
        lib = self.ctx.library
        if preview is None or lib is None or not self.query.text().strip():
            self.inject_label.setText(
                "Type a message to see which skills the agent would inject in this turn.")
            self.see_also_label.hide()
            self.hidden_label.hide()
            return
        index = (f" after the <b>session index</b> ({_plural(len(lib), 'skill')}, first turn "
                 "only)" if preview.index is not None else "")
        if preview.injected:
            self.inject_label.setText(
                f"Sent now, this message injects <b>{_plural(len(preview.injected), 'skill')}"
                f"</b>{index}: {_names(preview.injected)}.")
        elif preview.top:
            self.inject_label.setText(
                f"Sent now, this message injects <b>no skill</b>{index}: its top "
                f"{len(preview.top)} were all recalled earlier in this session (the top-5 cut "
                "comes before the already-recalled filter).")
        else:
            self.inject_label.setText(f"Sent now, this message injects <b>no skill</b>{index}.")
        if preview.see_also:
            line = SEE_ALSO_PREFIX + ", ".join(preview.see_also)
            self.see_also_label.setText(line)
            self.see_also_label.setToolTip("The see-also line the agent adds after the skills")
            unknown = [n for n in preview.see_also if lib.get(n) is None]
            note = (f" ({_names(unknown)}: not skills of this library; RockBot does not check)"
                    if unknown else "")
            self.hidden_label.setText(
                f"Hidden from later recall: {_names(preview.see_also)}{note}. The see-also line "
                "marks these names as recalled, so they are never injected with their content "
                "later in this session.")
            self.see_also_label.show()
            self.hidden_label.show()
        else:
            self.see_also_label.hide()
            self.hidden_label.setText("No see-also line: "
                                      + ("the injected skills name no new related skills."
                                         if preview.injected else "nothing was injected."))
            self.hidden_label.show()

    # ---------------------------------------------------------------- compare

    def _refresh_compare(self, text: str) -> None:
        kind = self.compare_kind
        lib = self.ctx.library
        if not kind or self.recall is None or lib is None:
            self.compare_model.set_rows([])
            return
        label = dict(COMPARE_CHOICES)[kind]
        if kind == EDITS:
            if self.edited is None:
                self.compare_title.setText(f"<b>{label}</b>: indexing…")
                self.compare_model.set_rows([])
                return
            self.edited.set_edits(lib, self.edits_provider())
            other = [(h.name, h.score) for h in self.edited.recall.search(text, top=RESULT_LIMIT)]
            edited = self.edited.edited
            detail = (f"unsaved edits of {_names(edited)}" if edited
                      else "no unsaved edits in the editor: the ranking is the same")
        else:
            if self.ranker is None:
                self.compare_title.setText(f"<b>{label}</b>: building the model…")
                self.compare_model.set_rows([])
                return
            other = self.ranker.search(text, top=RESULT_LIMIT)
            detail = "same tokens, no phrase bonus, the variant's own idf"
        self.compare_model.base_label = "RockBot"
        base_ranks = ranks(self.recall, text, [name for name, _ in other])
        self.compare_model.set_rows(compare_rankings(base_ranks, other))
        entering, leaving = top_changes([h.name for h in self.hits], [name for name, _ in other])
        if parse_query(text).empty:
            change = ""
        elif entering or leaving:
            change = (f"<br>Top {RECALL_TOP_N} differs — enters: {_names(entering) or '—'}; "
                      f"leaves: {_names(leaving) or '—'}")
        else:
            change = f"<br>Same top {RECALL_TOP_N} as RockBot."
        self.compare_title.setText(f"<b>{html.escape(label)}</b> — {detail}{change}")

    # ---------------------------------------------------------------- selection

    def _on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        names = [self.model.rows[r].name for r in rows if r < len(self.model.rows)]
        if names:
            self.sets_panel.suggest_expected(names)

    def selected_names(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.rows[r].name for r in rows if r < len(self.model.rows)]

