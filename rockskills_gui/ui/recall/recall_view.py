"""The recall pane's view: its widgets and how they show a search (the rows' note, the legend,
what this turn injects, where the compared ranking goes). A part of :class:`RecallPane`
(:mod:`~rockskills_gui.ui.recall.recall_pane`), which has the behaviour: the index, the
session, the searches and the comparisons.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.recall.bm25 import QueryPlan
from rockskills_gui.core.recall.bm25_index import QueryStats
from rockskills_gui.core.recall.session import SEE_ALSO_PREFIX, TurnResult
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.lazy_names import LazyNameModel
from rockskills_gui.ui.common.theme import heading, monospace, secondary
from rockskills_gui.ui.recall.hybrid_panel import HybridPanel
from rockskills_gui.ui.recall.queryset_panel import QuerySetPanel
from rockskills_gui.ui.recall.recall_model import CompareModel, ResultsModel
from rockskills_gui.ui.recall.recall_panels import SessionPanel, WhyNotPanel
from rockskills_gui.ui.recall.score_bar_delegate import ResultsDelegate, segment_colour

BAR_MIN = 90  # the contribution bar keeps at least this many pixels when names are long
COMPARE_SIDE_MIN = 460  # narrower than twice this, the compared ranking goes below RockBot's
EDITS = "edits"
PLAYGROUND = "playground"  # the Recall tab's views: RockBot's BM25 playground ...
TRIGGERS = "triggers"  # ... and trigger evals (the model picks from the listing)
COMPARE_CHOICES = (
    ("", "Nothing"),
    ("okapi", "rank-bm25 Okapi (stock idf)"),
    ("okapi-lucene", "rank-bm25 Okapi (Lucene idf)"),
    ("bm25l", "rank-bm25 BM25L"),
    ("bm25plus", "rank-bm25 BM25Plus"),
    (EDITS, "RockBot after unsaved edits (what-if)"),
)


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def names_html(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(html.escape(n) for n in names)


class RecallView(QObject):
    """The recall pane's widgets, built and laid out on ``host`` (no behaviour wired: the pane
    connects them), and what shows a search's results in them."""

    def __init__(self, ctx: AppContext, host: QWidget) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        host.setObjectName("recallPane")
        self.names_model = LazyNameModel(host)
        self._build()

    # ---------------------------------------------------------------- construction

    def _build(self) -> None:
        host = self.host
        self.query = QLineEdit(host)
        self.query.setObjectName("recallQuery")
        self.query.setPlaceholderText("Type what a user might say… (Enter adds it as a turn)")
        self.query.setClearButtonEnabled(True)
        heading(self.query, 1.15, bold=False)
        self.add_button = QPushButton("Add as turn", host)
        self.add_button.setObjectName("recallAddTurn")
        self.add_button.setToolTip("Send this message in the simulated session (Enter)")
        self.reset_button = QPushButton("Reset session", host)
        self.reset_button.setObjectName("recallResetSession")
        self.reset_button.setToolTip("Start a fresh session: the index is sent again, nothing "
                                     "counts as recalled")

        self.legend = QLabel(host)
        self.legend.setObjectName("recallLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.count_label = secondary(QLabel(host))
        self.count_label.setObjectName("recallCount")
        self.count_label.setWordWrap(True)  # may shrink: the splitter, not this text, sets widths
        self.compare_box = QComboBox(host)
        self.compare_box.setObjectName("recallCompare")
        for key, label in COMPARE_CHOICES:
            self.compare_box.addItem(label, key)
        self.compare_box.setToolTip("Show a second ranking beside RockBot's, with rank changes")
        # As wide as its longest choice: a truncated choice reads like another one.
        self.compare_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

        self.model = ResultsModel(host)
        self.table = QTableView(host)
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
        self.table.viewport().installEventFilter(self)
        self.empty_note = secondary(QLabel(self.table.viewport()))
        self.empty_note.setObjectName("recallEmptyNote")
        self.empty_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_note.setWordWrap(True)

        self.compare_model = CompareModel(host)
        self.compare_table = QTableView(host)
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
        self.compare_title = QLabel(host)
        self.compare_title.setObjectName("recallCompareTitle")
        self.compare_title.setWordWrap(True)
        self.compare_box_widget = QWidget(host)
        cbox = QVBoxLayout(self.compare_box_widget)
        cbox.setContentsMargins(0, 0, 0, 0)
        cbox.addWidget(self.compare_title)
        cbox.addWidget(self.compare_table, 1)
        self.compare_box_widget.hide()

        self.inject_label = QLabel(host)
        self.inject_label.setObjectName("recallInjects")
        self.inject_label.setWordWrap(True)
        self.inject_label.setTextFormat(Qt.TextFormat.RichText)
        self.see_also_label = QLabel(host)
        self.see_also_label.setObjectName("recallSeeAlso")
        self.see_also_label.setWordWrap(True)
        self.see_also_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        monospace(self.see_also_label)
        self.hidden_label = QLabel(host)
        self.hidden_label.setObjectName("recallHidden")
        self.hidden_label.setWordWrap(True)
        self.hidden_label.setTextFormat(Qt.TextFormat.RichText)
        self.turn_frame = QFrame(host)
        self.turn_frame.setObjectName("recallTurnFrame")
        self.turn_frame.setFrameShape(QFrame.Shape.StyledPanel)
        self.turn_frame.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.turn_frame.setAutoFillBackground(True)
        tbox = QVBoxLayout(self.turn_frame)
        tbox.setContentsMargins(10, 8, 10, 8)
        tbox.setSpacing(4)
        for widget in (self.inject_label, self.see_also_label, self.hidden_label):
            tbox.addWidget(widget)

        self.session_panel = SessionPanel(host)
        self.why_panel = WhyNotPanel(self.names_model, host)
        self.sets_panel = QuerySetPanel(self.names_model, host)
        self.sets_panel.current_query = self.query.text
        self.side = QTabWidget(host)
        self.side.setObjectName("recallSide")
        self.side.setDocumentMode(True)
        self.side.addTab(self.session_panel, "Session")
        self.side.addTab(self.why_panel, "Why not?")
        self.side.addTab(self.sets_panel, "Query sets")
        self.hybrid_panel = HybridPanel(host)  # RockBot (current)'s BM25 + embeddings score
        self.hybrid_panel.embed_bar.set_context(self.ctx)  # "Embed query": the LLM endpoint
        self.hybrid_panel.hide()  # a tab only while a RockBot (current) library is open

        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addWidget(self.add_button)
        top.addWidget(self.reset_button)
        bar = QHBoxLayout()
        bar.addWidget(self.count_label, 1)
        bar.addSpacing(12)
        bar.addWidget(QLabel("Compare with:", host))
        bar.addWidget(self.compare_box)

        results = self.results_splitter = QSplitter(Qt.Orientation.Horizontal, host)
        results.setObjectName("recallResultsSplitter")
        results.addWidget(self.table)
        results.addWidget(self.compare_box_widget)
        results.setStretchFactor(0, 3)
        results.setStretchFactor(1, 2)
        left = QWidget(host)
        lbox = QVBoxLayout(left)
        lbox.setContentsMargins(0, 0, 0, 0)
        lbox.addWidget(self.legend)
        lbox.addLayout(bar)
        lbox.addWidget(results, 1)
        lbox.addWidget(self.turn_frame)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, host)
        self.splitter.setObjectName("recallSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self._compare_placed = False
        self._pinned = False  # (the names column is wider while skills are pinned)
        results.installEventFilter(self)

        # Two views: the BM25 playground and trigger evals (built when first shown).
        self.playground = QWidget(host)
        self.playground.setObjectName("recallPlayground")
        pbox = QVBoxLayout(self.playground)
        pbox.setContentsMargins(0, 0, 0, 0)
        pbox.addLayout(top)
        pbox.addWidget(self.splitter, 1)
        self.triggers_holder = QWidget(host)
        self.triggers_holder.setObjectName("recallTriggersPlaceholder")
        self.stack = QStackedWidget(host)
        self.stack.setObjectName("recallViews")
        self.stack.addWidget(self.playground)
        self.stack.addWidget(self.triggers_holder)
        self.mode_buttons = QButtonGroup(host)
        self.mode_buttons.setExclusive(True)
        self.playground_button = QPushButton("Recall playground (BM25)", host)
        self.playground_button.setObjectName("recallModePlayground")
        self.playground_button.setToolTip("RockBot's recall: which skills BM25 over name and summary "
                                          "injects for a message, exactly")
        self.triggers_button = QPushButton("Trigger evals (the model picks)", host)
        self.triggers_button.setObjectName("recallModeTriggers")
        self.triggers_button.setToolTip("Agents that list skills in the prompt (Claude Code, Codex, "
                                        "Gemini CLI, ...) let the model activate one: test which "
                                        "it picks, row by row of a trigger-eval file")
        for button in (self.playground_button, self.triggers_button):
            button.setCheckable(True)
            self.mode_buttons.addButton(button)
        self.playground_button.setChecked(True)
        self.selection_note = secondary(QLabel(host))
        self.selection_note.setObjectName("recallSelectionNote")
        self.selection_note.setWordWrap(True)
        modes = QHBoxLayout()
        modes.setSpacing(0)
        modes.addWidget(self.playground_button)
        modes.addWidget(self.triggers_button)
        modes.addSpacing(12)
        modes.addWidget(self.selection_note, 1)

        layout = QVBoxLayout(host)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(modes)
        layout.addWidget(self.stack, 1)
        focus_query = QShortcut(QKeySequence("Ctrl+L"), host, self.query.setFocus)
        focus_query.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

    # ---------------------------------------------------------------- showing a search

    def fit_name_column(self, pinned: bool = False) -> None:
        """Names as wide as the longest shown (a little wider with ``pinned`` skills: their
        names show wider), leaving the bar at least BAR_MIN pixels."""
        self._pinned = pinned
        metrics = self.table.fontMetrics()
        widest = max((metrics.horizontalAdvance(r.name) for r in self.model.rows), default=0)
        wanted = int(widest * (1.1 if pinned else 1.0)) + 24
        header = self.table.horizontalHeader()
        fixed = sum(header.sectionSize(c) for c in (ResultsModel.RANK, ResultsModel.SCORE,
                                                    ResultsModel.STATUS))
        room = self.table.viewport().width() - fixed - BAR_MIN
        self.table.setColumnWidth(ResultsModel.NAME, max(110, min(wanted, 340, room)))

    def place_compare(self) -> None:
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
                self.place_compare()
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_name_column(self._pinned)
            self._place_empty_note()
        return super().eventFilter(watched, event)

    def show_empty(self, plan: QueryPlan, indexed: bool, hits: int, matched: int) -> None:
        """The note under the rows: what to do, or why other skills are missing."""
        if self.ctx.library is None:
            note = "Open a library to try recall."
        elif not indexed:
            note = f"Indexing {plural(len(self.ctx.library), 'skill')}…"
        elif plan.empty:
            note = ("Type a message. RockBot ranks skills by their name and summary with BM25; "
                    "words shorter than 3 letters are ignored." if not self.query.text().strip()
                    else "No word of 3 letters or more: RockBot recalls nothing for this message.")
        elif not hits:
            note = "No skill matches: the agent would inject no skill for this message."
        elif matched < len(self.ctx.library):
            rest = len(self.ctx.library) - matched
            note = (f"{plural(rest, 'other skill')} score 0 for this message: "
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

    def show_legend(self, plan: QueryPlan, stats: QueryStats,
                     slots: dict[tuple[str, bool], int]) -> None:
        if plan.empty:
            self.legend.clear()
            return
        faded = self.host.palette().color(QPalette.ColorRole.PlaceholderText).name()
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

    def show_turn(self, preview: TurnResult | None) -> None:
        lib = self.ctx.library
        if preview is None or lib is None or not self.query.text().strip():
            self.inject_label.setText(
                "Type a message to see which skills the agent would inject in this turn.")
            self.see_also_label.hide()
            self.hidden_label.hide()
            return
        index = (f" after the <b>session index</b> ({plural(len(lib), 'skill')}, first turn "
                 "only)" if preview.index is not None else "")
        listed = (f" It lists <b>{plural(len(preview.listed), 'other skill')}</b> by summary, "
                  f"without body: {names_html(preview.listed)}." if preview.listed else "")
        if preview.no_recall is not None:
            self.inject_label.setText(
                f"Sent now, this message injects <b>no skill</b>{index}: <b>{html.escape(preview.no_recall)}"
                "</b> (the agent does not search its skills for so short a message; the ranking "
                "below is never used).")
        elif preview.injected:
            self.inject_label.setText(
                f"Sent now, this message injects <b>{plural(len(preview.injected), 'skill')}"
                f"</b>{index}: {names_html(preview.injected)}.{listed}")
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
            note = (f" ({names_html(unknown)}: not skills of this library; RockBot does not check)"
                    if unknown else "")
            self.hidden_label.setText(
                f"Hidden from later recall: {names_html(preview.see_also)}{note}. The see-also line "
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
