"""Table models of the recall playground: RockBot's ranking for a query, and a compared ranking.

Rows carry the engine's exact values (``SCORE_ROLE`` is the float the core returned); the
display rounds. Tooltips list idf, tf, normalised tf and contribution per term and phrase.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QPalette

from rockskills_gui.core.recall.bm25 import QueryPlan
from rockskills_gui.core.recall.bm25_index import Explanation, QueryStats
from rockskills_gui.core.recall.playground import ComparedHit
from rockskills_gui.core.recall.skill_recall import RECALL_TOP_N
from rockskills_gui.ui.common.models import Column, RowModel
from rockskills_gui.ui.common.theme import readable
from rockskills_gui.ui.recall.score_bar_delegate import (
    CUT_ROLE,
    SCALE_ROLE,
    SEGMENTS_ROLE,
    Segment,
    segment_colour,
)

Index = QModelIndex | QPersistentModelIndex
NAME_ROLE = Qt.ItemDataRole.UserRole + 40
SCORE_ROLE = Qt.ItemDataRole.UserRole + 41
STATUS_ROLE = Qt.ItemDataRole.UserRole + 42  # "inject", "lists", "recalled", "hidden", "no-recall" or ""
SHIFT_ROLE = Qt.ItemDataRole.UserRole + 43

INJECT = "inject"
RECALLED = "recalled"
HIDDEN = "hidden"
LISTS = "lists"  # RockBot (current): named by summary in the "Other skills ..." list
NO_RECALL = "no-recall"  # RockBot (current): a short message, no skill search at all
STATUS_TIPS = {
    INJECT: "In the top 5 and not yet recalled in this session: the agent injects its full "
            "content as a 'Skill:' message in this turn (RockBot (current): the first new skill "
            "only, framed as reference material)",
    LISTS: "In the top 5 and new, but not the first new one: RockBot (current) names it with its "
           "summary in the 'Other skills that matched…' message, without its body, and marks it "
           "recalled (its body is never injected later in this session; get_skill still loads it)",
    NO_RECALL: "The message is too short: RockBot (current) does not search skills for it, so "
               "this ranking is never used",
    RECALLED: "Injected (or listed) earlier in this session: not injected again, yet it still takes "
              "one of the 5 places (the cut comes before the already-recalled filter)",
    HIDDEN: "Named in an earlier see-also line, which marked it as recalled: it is never "
            "injected with its content in this session, yet it still takes one of the 5 places",
}


def segment_slots(plan: QueryPlan, stats: QueryStats | None = None) -> dict[tuple[str, bool], int]:
    """Colour slot of every term (``(term, False)``) and phrase (``(phrase, True)``), in query
    order. With ``stats``, only those some skill contains get a slot (the others never appear in
    a bar), so a long query cycles through the colour table later."""
    keys = [(t, False) for t in plan.terms] + [(p, True) for p in plan.phrases]
    if stats is not None:
        keys = [(k, phrase) for k, phrase in keys
                if (stats.phrase_df if phrase else stats.term_df).get(k, 0)]
    return {key: i for i, key in enumerate(keys)}


def segments_of(explanation: Explanation, slots: dict[tuple[str, bool], int]) -> list[Segment]:
    """The explanation's contributions in scoring order, as bar segments."""
    out = [Segment(t, c.contribution, slots.get((t, False), 0), False)
           for t, c in explanation.terms.items()]
    out += [Segment(p, c.contribution, slots.get((p, True), 0), True)
            for p, c in explanation.phrases.items()]
    return out


def explanation_html(name: str, score: float, explanation: Explanation,
                     plan: QueryPlan | None = None) -> str:
    """A rich-text table of idf, tf, tfn and contribution per term and phrase."""
    rows = []
    for kind, parts in (("term", explanation.terms), ("phrase", explanation.phrases)):
        for text, c in parts.items():
            shown = html.escape(f'"{text}"' if kind == "phrase" else text)
            rows.append(f"<tr><td>{shown}</td><td align='right'>{c.df}</td>"
                        f"<td align='right'>{c.idf:.4f}</td><td align='right'>{c.tf}</td>"
                        f"<td align='right'>{c.tfn:.4f}</td>"
                        f"<td align='right'><b>{c.contribution:.4f}</b></td></tr>")
    lacking = ""
    if plan is not None:
        missing = [t for t in plan.terms if t not in explanation.terms]
        missing += [f'"{p}"' for p in plan.phrases if p not in explanation.phrases]
        if missing:
            lacking = f"<p>Lacks: {html.escape(', '.join(missing))}</p>"
    return (f"<p><b>{html.escape(name)}</b> — score {score:.6f}</p>"
            "<table cellspacing='0' cellpadding='2'>"
            "<tr><th align='left'>term / phrase</th><th>df</th><th>idf</th><th>tf</th>"
            "<th>tfn</th><th>contribution</th></tr>"
            + "".join(rows) + "</table>"
            "<p>score = Σ idf·tfn (terms) + Σ 2·idf·tfn (phrases)</p>" + lacking)


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One ranked skill as the playground shows it."""

    rank: int
    name: str
    score: float
    explanation: Explanation
    status: str  # INJECT / RECALLED / HIDDEN / ""
    status_text: str
    pinned: bool = False


class ResultsModel(QAbstractTableModel):
    """RockBot's ranking: rank, skill, score, the contribution bar, what this turn does."""

    HEADERS = ("#", "Skill", "Score", "Contributions", "This turn")
    RANK, NAME, SCORE, BAR, STATUS = range(5)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[ResultRow] = []
        self.plan: QueryPlan | None = None
        self.top_n = RECALL_TOP_N
        self._slots: dict[tuple[str, bool], int] = {}
        self._scale = 0.0

    def set_rows(self, plan: QueryPlan | None, rows: Sequence[ResultRow],
                 slots: dict[tuple[str, bool], int] | None = None) -> None:
        """Show ``rows``; ``slots`` are the segment colours (default: :func:`segment_slots`)."""
        self.beginResetModel()
        self.plan = plan
        self.rows = list(rows)
        self._slots = slots if slots is not None else segment_slots(plan) if plan else {}
        self._scale = max((r.score for r in self.rows), default=0.0)
        self.endResetModel()

    def names(self) -> list[str]:
        return [r.name for r in self.rows]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return ("Rank in RockBot's BM25 order (ties keep load order)", "Skill name",
                    "BM25 score (exact value in the tooltip)",
                    "Each query term's and phrase's share of the score (hatched = phrase)",
                    "What the agent would do with this skill if the message were sent now")[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == self.RANK:
                return row.rank
            if col == self.NAME:
                return row.name
            if col == self.SCORE:
                return f"{row.score:.4f}"
            if col == self.STATUS:
                return row.status_text
            return None
        if role == NAME_ROLE:
            return row.name
        if role == SCORE_ROLE:
            return row.score
        if role == STATUS_ROLE:
            return row.status
        if role == SEGMENTS_ROLE and col == self.BAR:
            return segments_of(row.explanation, self._slots)
        if role == SCALE_ROLE:
            return self._scale
        if role == CUT_ROLE:
            return row.rank == self.top_n and len(self.rows) > 0
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.STATUS and row.status:
                return STATUS_TIPS[row.status]
            return explanation_html(row.name, row.score, row.explanation, self.plan)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (self.RANK, self.SCORE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and (row.pinned or (col == self.STATUS
                                                                and row.status == INJECT)):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            if row.rank > self.top_n and col in (self.RANK, self.SCORE):
                return QPalette().color(QPalette.ColorRole.PlaceholderText)
            if col == self.STATUS and row.status in (RECALLED, HIDDEN, NO_RECALL):
                return QPalette().color(QPalette.ColorRole.PlaceholderText)
        return None


def shift_text(hit: ComparedHit) -> str:
    shift = hit.shift
    if shift is None:
        return "new"
    if shift > 0:
        return f"▲ {shift}"
    if shift < 0:
        return f"▼ {-shift}"
    return "="


class CompareModel(RowModel[ComparedHit]):
    """Another ranking for the same query, each row with its move against RockBot's rank."""

    HEADERS = ("#", "Move", "Skill", "Score")
    RANK, SHIFT, NAME, SCORE = range(4)
    UP, DOWN = 2, 5  # colour slots (the segment table): bluish green and vermillion

    def __init__(self, parent: QObject | None = None) -> None:
        right = Qt.AlignmentFlag.AlignRight
        super().__init__((
            Column("#", lambda r: r.rank, align=right),
            Column("Move", shift_text, align=right,
                   header_tip="Places gained (▲) or lost (▼) against RockBot's rank; "
                              "new = RockBot does not rank it",
                   roles={Qt.ItemDataRole.ForegroundRole: self._shift_colour}),
            Column("Skill", lambda r: r.name),
            Column("Score", lambda r: f"{r.score:.4f}", align=right),
        ), parent, roles={NAME_ROLE: lambda r: r.name, SCORE_ROLE: lambda r: r.score,
                          SHIFT_ROLE: lambda r: r.shift, CUT_ROLE: lambda r: r.rank == self.top_n},
            tooltip=self._tooltip)
        self.base_label = "RockBot"
        self.top_n = RECALL_TOP_N

    def names(self) -> list[str]:
        return [r.name for r in self.rows]

    def _shift_colour(self, row: ComparedHit) -> object:
        if row.shift is None or row.shift == 0:
            return QPalette().color(QPalette.ColorRole.PlaceholderText)
        return readable(segment_colour(self.UP if row.shift > 0 else self.DOWN),
                        QPalette().color(QPalette.ColorRole.Base))

    def _tooltip(self, row: ComparedHit) -> str:
        where = (f"{self.base_label} ranks it #{row.base_rank}" if row.base_rank is not None
                 else f"{self.base_label} does not rank it (score 0)")
        return f"{row.name}: #{row.rank} here, score {row.score!r}; {where}"
