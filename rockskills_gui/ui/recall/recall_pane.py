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

The widgets and how they show a search are :mod:`~rockskills_gui.ui.recall.recall_view`'s; the
jobs that build on a worker, :mod:`~rockskills_gui.ui.recall.recall_jobs`'s. This module is the
behaviour: the index, the session, the searches and the comparisons.

Signals:
    openSkillRequested(str): the user opened a result (double-click or Enter): the window shows
        the Skill tab.
    resultsUpdated(): new results are on screen.
    indexReady(): an index for the open library is in place (after a build on a worker).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QSplitter, QTableView, QTabWidget, QWidget

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profiles import ROCKBOT_64E82CC
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import parse_query
from rockskills_gui.core.recall.bm25_index import Explanation
from rockskills_gui.core.recall.compare import ComparisonRanker
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.playground import (
    LISTED,
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
from rockskills_gui.core.recall.session import TurnResult
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N, RecallHit, SkillRecall
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.queries import runs_inline
from rockskills_gui.ui.common.shown_refresh import show_tab
from rockskills_gui.ui.recall.hybrid_panel import HybridPanel, hybrid_skills_dir
from rockskills_gui.ui.recall.mcp_calls import mcp_profile
from rockskills_gui.ui.recall.queryset_panel import QuerySetPanel
from rockskills_gui.ui.recall.recall_jobs import (  # PreparedRecall, prepare_recall: used from here
    Built,
    PreparedRecall,
    prepare_recall,
)
from rockskills_gui.ui.recall.recall_model import (
    HIDDEN,
    INJECT,
    LISTS,
    NAME_ROLE,
    NO_RECALL,
    RECALLED,
    CompareModel,
    ResultRow,
    ResultsModel,
    segment_slots,
)
from rockskills_gui.ui.recall.recall_panels import SessionPanel, WhyNotPanel
from rockskills_gui.ui.recall.recall_view import (
    COMPARE_CHOICES,
    EDITS,
    PLAYGROUND,
    TRIGGERS,
    RecallView,
    names_html,
    plural,
)
from rockskills_gui.ui.recall.selection_view import selection_view

if TYPE_CHECKING:  # built when trigger evals are first shown
    from rockskills_gui.ui.recall.trigger_panel import TriggerEvalPanel

DEBOUNCE_MS = 150
RESULT_LIMIT = 50  # rows shown (the count of every match is shown too)
BUILDS = ("index", "ranker", "edited")  # what is built off the UI thread (ctx.query keys)
EditsProvider = Callable[[], list[Skill]]
__all__ = ["RESULT_LIMIT", "PreparedRecall", "RecallPane", "prepare_recall"]


class RecallPane(QWidget):
    """Query box, RockBot's ranking with score bars, what this turn injects, and side panels."""

    openSkillRequested = Signal(str)
    resultsUpdated = Signal()
    indexReady = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.view = RecallView(ctx, self)  # the widgets (recall_view); this class: the behaviour
        self.pins: list[str] = []  # skills followed in "Why not?" (their names show wider)
        self._sized = False
        self._changes = 0  # change sets seen (a worker's result built before the last is stale)

        self.recall: SkillRecall | None = None
        self.sim: SimulatedSession | None = None
        self.ranker: ComparisonRanker | None = None
        self.edited: EditedRecall | None = None
        self._ranker_stale = True
        self.edits_provider: EditsProvider = list
        self.compare_kind = ""
        self.hits: list[RecallHit] = []
        self.matched = 0
        self.preview: TurnResult | None = None
        self.pin_reports: list[PinReport] = []
        self.mode = PLAYGROUND  # the view shown: the BM25 playground or trigger evals
        self._triggers: TriggerEvalPanel | None = None

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        self._connect()
        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(self._on_change_applied)
        ctx.dirtyChanged.connect(self._on_dirty_changed)
        self._on_library_changed(ctx.library)

    # ---------------------------------------------------------------- wiring

    def _connect(self) -> None:
        """What the view's widgets do."""
        self.query.textChanged.connect(lambda _t: self._timer.start())
        self.query.returnPressed.connect(self.add_turn)
        self.view.add_button.clicked.connect(self.add_turn)
        self.view.reset_button.clicked.connect(self.reset_session)
        self.compare_box.currentIndexChanged.connect(
            lambda _i: self.set_compare(self.compare_box.currentData()))
        self.table.activated.connect(lambda index: self.open_skill(index.data(NAME_ROLE)))
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.compare_table.activated.connect(
            lambda index: self.open_skill(index.data(NAME_ROLE)))
        self.why_panel.pinRequested.connect(self.pin)
        self.why_panel.unpinRequested.connect(self.unpin)
        self.sets_panel.queryRequested.connect(lambda text: self.set_query(text, immediate=True))
        self.sets_panel.failed.connect(lambda message: self.ctx.status(message, 8000))
        self.view.playground_button.clicked.connect(lambda: self.show_mode(PLAYGROUND))
        self.view.triggers_button.clicked.connect(lambda: self.show_mode(TRIGGERS))

    # ---------------------------------------------------------------- the view's widgets

    @property
    def query(self) -> QLineEdit:
        return self.view.query

    @property
    def table(self) -> QTableView:
        return self.view.table

    @property
    def model(self) -> ResultsModel:
        return self.view.model

    @property
    def legend(self) -> QLabel:
        return self.view.legend

    @property
    def count_label(self) -> QLabel:
        return self.view.count_label

    @property
    def empty_note(self) -> QLabel:
        return self.view.empty_note

    @property
    def compare_box(self) -> QComboBox:
        return self.view.compare_box

    @property
    def compare_model(self) -> CompareModel:
        return self.view.compare_model

    @property
    def compare_table(self) -> QTableView:
        return self.view.compare_table

    @property
    def compare_title(self) -> QLabel:
        return self.view.compare_title

    @property
    def inject_label(self) -> QLabel:
        return self.view.inject_label

    @property
    def see_also_label(self) -> QLabel:
        return self.view.see_also_label

    @property
    def hidden_label(self) -> QLabel:
        return self.view.hidden_label

    @property
    def side(self) -> QTabWidget:
        return self.view.side

    @property
    def splitter(self) -> QSplitter:
        return self.view.splitter

    @property
    def session_panel(self) -> SessionPanel:
        return self.view.session_panel

    @property
    def why_panel(self) -> WhyNotPanel:
        return self.view.why_panel

    @property
    def sets_panel(self) -> QuerySetPanel:
        return self.view.sets_panel

    @property
    def hybrid_panel(self) -> HybridPanel:
        return self.view.hybrid_panel

    # ---------------------------------------------------------------- public API

    @property
    def busy(self) -> bool:
        """An index or model is being built, a search is due, or a query set is evaluating."""
        return any(self._building(kind) for kind in BUILDS) or self._timer.isActive() \
            or self.sets_panel.busy

    def _building(self, kind: str) -> bool:
        return self.ctx.channel(self, kind).busy

    def wait(self) -> None:
        """Block until worker jobs are done (tests and shutdown)."""
        for kind in BUILDS:
            self.ctx.channel(self, kind).wait()
        if self._triggers is not None:
            self._triggers.wait()

    @property
    def trigger_panel(self) -> TriggerEvalPanel:
        """The trigger-eval view (built the first time it is asked for)."""
        if self._triggers is None:
            from rockskills_gui.ui.recall.trigger_panel import TriggerEvalPanel

            panel = TriggerEvalPanel(self.ctx, self)
            panel.edits_provider = self.edits_provider
            panel.openSkillRequested.connect(self.open_skill)
            self.view.stack.removeWidget(self.view.triggers_holder)
            self.view.triggers_holder.deleteLater()
            self.view.stack.addWidget(panel)
            self._triggers = panel
        return self._triggers

    def show_mode(self, mode: str) -> None:
        """Show the BM25 playground (``PLAYGROUND``) or trigger evals (``TRIGGERS``)."""
        self.mode = mode
        page = self.trigger_panel if mode == TRIGGERS else self.view.playground
        self.view.stack.setCurrentWidget(page)
        button = self.view.triggers_button if mode == TRIGGERS else self.view.playground_button
        button.setChecked(True)

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
        if self._triggers is not None:
            self._triggers.edits_provider = provider
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
        was_visible = not self.view.compare_box_widget.isHidden()
        self.view.compare_box_widget.setVisible(bool(kind))
        if kind and not was_visible:
            self.view.place_compare()
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
        for kind in BUILDS:  # what was being built for the library before is dropped
            self.ctx.channel(self, kind).cancel()
        self.recall = None
        self.sim = None
        self.ranker = None
        self.edited = None
        self._ranker_stale = True
        self.pins = []
        prepared = self.ctx.prepared.get("recall")
        names = prepared.names if isinstance(prepared, PreparedRecall) else (
            library.names() if library is not None else [])
        self.view.names_model.set_names(names)
        self.sets_panel.set_library(library.layout if library is not None else None, None)
        selection = selection_view(library)
        self.view.selection_note.setText(selection.note)
        self.view.selection_note.setToolTip(selection.detail)
        if library is not None:
            self.show_mode(selection.view)
        if library is None:
            self.refresh()
            return
        if isinstance(prepared, PreparedRecall):  # built while the library loaded
            self._install_recall(prepared.recall, prepared.index_for(library.profile.listing.kind))
        elif runs_inline(recall_index_skill=len(library)):
            self._install_recall(SkillRecall(library.skills()))
        else:
            skills, changes, kind = library.skills(), self._changes, library.profile.listing.kind
            self._start("index", lambda: (SkillRecall(skills), session_index_text(skills, kind), changes))
            self.refresh()
        self._prepare_compare()

    def _install_recall(self, recall: SkillRecall, index_text: Built | None = None) -> None:
        self.recall = recall
        lib = self.ctx.library
        profile = lib.profile if lib is not None else ROCKBOT_64E82CC
        # The session runs the open library's agent's rules: RockBot (current)'s short-message
        # gate, framing and rank-1 + list; 64e82cc's (and a SKILL.md library's) bare bodies.
        injection, listing = profile.injection, profile.listing.kind
        self.sim = SimulatedSession(recall, injection=injection, listing=listing) \
            if not isinstance(index_text, Built) \
            else SimulatedSession(recall, index_text=index_text.text, injection=injection, listing=listing)
        self.sets_panel.set_recall(recall)
        self.indexReady.emit()
        self.refresh()

    def _start(self, kind: str, build: Callable[[], object]) -> None:
        """Build off the UI thread (a newer build of the same kind supersedes it)."""
        self.ctx.query(self, kind, lambda _control: build(),
                       lambda result: self._on_built(kind, result),
                       failure=lambda error: self.ctx.status(
                           f"could not build the {kind}: {error!r}", 10000))

    def _on_built(self, kind: str, result: object) -> None:
        lib = self.ctx.library
        if lib is None:
            return
        if kind == "index" and isinstance(result, tuple):
            recall, index_text, changes = result
            if changes != self._changes:
                recall.sync(lib.skills())  # catch up with changes made while it was built
                self._install_recall(recall)  # (the index text is rebuilt when needed)
            else:
                self._install_recall(recall, Built(index_text))
        elif kind == "ranker" and isinstance(result, ComparisonRanker):
            self.ranker = result
            self.refresh()
        elif kind == "edited" and isinstance(result, EditedRecall):
            result.recall.sync(lib.skills())
            self.edited = result
            self.refresh()

    def _on_change_applied(self, change: ChangeSet) -> None:
        lib = self.ctx.library
        if lib is None:
            return
        self._changes += 1
        self.view.names_model.set_names(lib.names())
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
            self.sets_panel.follow_edits(recompute=runs_inline(recall_index_skill=len(self.recall)))

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
            if self.edited is None and not self._building("edited"):
                skills = lib.skills()
                if runs_inline(recall_index_skill=len(skills)):
                    self.edited = EditedRecall(skills)
                else:
                    self._start("edited", lambda: EditedRecall(skills))
            return
        if self.ranker is None or self.ranker.kind != kind or self._ranker_stale:
            self._ranker_stale = False
            skills = lib.skills()
            if runs_inline(recall_index_skill=len(skills)):
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
            self.view.show_empty(plan, self.recall is not None, len(self.hits), self.matched)
            self.session_panel.show_session(None, None)
            self.why_panel.show_reports([])
            self.legend.clear()
            self.count_label.clear()
            self.view.show_turn(None)
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
        self.view.fit_name_column(bool(self.pins))
        self.view.show_empty(plan, self.recall is not None, len(self.hits), self.matched)
        self.view.show_legend(plan, stats, slots)
        shown = len(self.hits)
        self.count_label.setText(
            "" if plan.empty else f"{plural(self.matched, 'skill')} match"
            + (f" · top {shown} shown" if shown < self.matched else "")
            + f" · the line marks the top-{RECALL_TOP_N} cut")
        self.view.show_turn(self.preview)
        self.session_panel.show_session(sim, self.preview if text.strip() else None,
                                        mcp_profile(self.ctx.library))
        self.pin_reports = [why_not(recall, text, name, session=sim) for name in self.pins]
        self.why_panel.show_reports(self.pin_reports)
        self._refresh_compare(text)
        skills_dir = hybrid_skills_dir(self.ctx.library)
        show_tab(self.side, self.hybrid_panel, "Hybrid", skills_dir is not None)
        self.hybrid_panel.set_query(recall, skills_dir, text, self.preview.no_recall)
        self.resultsUpdated.emit()

    def _status(self, hit: RecallHit) -> tuple[str, str]:
        assert self.sim is not None and self.preview is not None
        if hit.rank > RECALL_TOP_N:
            pinned = fold(hit.name) in {fold(p) for p in self.pins}
            return "", "pinned" if pinned else ""
        if self.preview.no_recall is not None:
            return NO_RECALL, "— no recall"
        if hit.name in self.preview.injected:
            return INJECT, "● injects now"
        if hit.name in self.preview.listed:
            return LISTS, "◐ listed now"
        mark = self.sim.mark(hit.name)
        if mark is not None and mark.how == SEE_ALSO:
            return HIDDEN, f"○ see-also, turn {mark.turn}"
        if mark is not None and mark.how == LISTED:
            return RECALLED, f"○ listed, turn {mark.turn}"
        if mark is not None:
            return RECALLED, f"○ injected, turn {mark.turn}"
        return RECALLED, "○ recalled earlier"

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
            detail = (f"unsaved edits of {names_html(edited)}" if edited
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
            change = (f"<br>Top {RECALL_TOP_N} differs — enters: {names_html(entering) or '—'}; "
                      f"leaves: {names_html(leaving) or '—'}")
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

