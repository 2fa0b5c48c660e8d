"""The recall playground's "Hybrid" side panel: RockBot (current)'s hybrid score, leg by leg.

Shown for a RockBot agent directory with an embedding cache (``skills/.embeddings/``): each BM25
hit's raw score, its share of the top score (the BM25 leg, exact), whether a vector is stored
for it, and the cosine leg marked "query vector unavailable offline" (with the range of hybrid
scores it allows). Computed with :func:`rockskills_gui.core.recall.hybrid.explain_hybrid` only
while the panel is visible. "Embed query" (:mod:`~rockskills_gui.ui.recall.embed_bar`) asks the
configured endpoint for the query's vector: the ranking is then computed, not bounded.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import (
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.recall.hybrid import (
    MIN_SIMILARITY,
    QUERY_VECTOR_UNAVAILABLE,
    HybridExplanation,
    HybridRow,
    explain_hybrid,
)
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.shown_refresh import RefreshWhenShown
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.recall.embed_bar import EmbedBar

COLUMNS = ("Skill", "BM25", "÷ top", "Stored vector", "Cosine", "Hybrid score")
SHOWN = 20


def hybrid_skills_dir(library: Library | None) -> Path | None:
    """The skills folder of a library whose agent selects skills by hybrid recall (RockBot
    (current): BM25 with the vectors stored beside the skills), else None."""
    return library.skills_dir if library is not None and shows(Part.HYBRID, library) else None


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def row_texts(row: HybridRow, explanation: HybridExplanation) -> list[str]:
    """The cells of one row (see :data:`COLUMNS`)."""
    stored = f"{row.dims} dims" if row.dims is not None else "none"
    if not explanation.embeddings:
        cos, hybrid = "—", "BM25 alone"
    elif row.cosine is None and not explanation.query_vector:
        cos = "unavailable offline" if row.dims is not None else "—"
        low_high = row.score_range
        hybrid = ("—" if low_high is None else _score(low_high[0]) if low_high[0] == low_high[1]
                  else f"{_score(low_high[0])}–{_score(low_high[1])}")
    else:
        cos = _score(row.cosine) + ("" if row.vector_kept in (None, True) else " (dropped)")
        hybrid = _score(row.score)
    bm25_norm = _score(row.bm25_norm) if row.bm25_norm is not None else "no match"
    return [row.name, f"{row.bm25:.4f}" if row.bm25 else "0", bm25_norm, stored, cos, hybrid]


class HybridPanel(RefreshWhenShown):
    """Hybrid recall of the playground's query (see the module doc)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hybridPanel")
        self.recall: SkillRecall | None = None
        self.skills_dir: Path | None = None
        self.query = ""
        self.no_recall: str | None = None  # why the agent does not search for the query
        self.explanation: HybridExplanation | None = None
        self._stale = False
        self.header = QLabel(self)
        self.header.setObjectName("hybridHeader")
        self.header.setWordWrap(True)
        self.notes = secondary(QLabel(self))
        self.notes.setObjectName("hybridNotes")
        self.notes.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("hybridRows")
        self.tree.setRootIsDecorated(False)
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setUniformRowHeights(True)
        self.embed_bar = EmbedBar(self)
        self.embed_bar.embedded.connect(self._embedded)
        self.vector: tuple[str, str, np.ndarray] | None = None  # (query, model, vector) from the endpoint
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.header)
        layout.addWidget(self.embed_bar)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.notes)

    def set_query(self, recall: SkillRecall | None, skills_dir: Path | None, query: str,
                  no_recall: str | None = None) -> None:
        """What to explain; computed now when the panel is shown, else when it is. ``no_recall``:
        why the agent neither embeds nor searches for ``query`` (a short message), or None."""
        self.recall, self.skills_dir, self.query = recall, skills_dir, query
        self.no_recall = no_recall
        self.embed_bar.set_query(query)
        self.mark_stale()

    def _embedded(self, query: str, model: str, vector: object) -> None:
        self.vector = (query, model, np.asarray(vector, dtype=np.float64))
        self.refresh()

    def refresh(self) -> None:
        self._stale = False
        self.tree.clear()
        self.explanation = None
        if self.recall is None or self.skills_dir is None:
            self.header.setText("Hybrid recall applies to RockBot (current) agent directories.")
            self.notes.clear()
            return
        if not self.query.strip():
            self.header.setText("Type a message to see its hybrid score.")
            self.notes.clear()
            return
        vector = self.vector if self.vector is not None and self.vector[0] == self.query else None
        found = explain_hybrid(self.recall, self.skills_dir, self.query, top=SHOWN,
                               query_vector=vector[2] if vector is not None else None)
        self.explanation = found
        if not found.embeddings:
            self.header.setText("No embedding cache (skills/.embeddings/): RockBot ranks by BM25 "
                                "alone, as the results show.")
        else:
            self.header.setText(
                "<b>Hybrid recall</b> (RockBot pull request 203): BM25 divided by the top BM25 score "
                f"({found.top_bm25:.4f}), averaged with the cosine similarity of the query's "
                f"embedding and the skill's stored one; vector hits under {MIN_SIMILARITY} "
                f"dropped. <i>{html.escape(QUERY_VECTOR_UNAVAILABLE)}</i>: the cosine leg is "
                "unknown here, so the hybrid score is shown as a range."
                if vector is None else "<b>Hybrid recall</b> (RockBot pull request 203), with the "
                f"query vector from <b>{html.escape(vector[1])}</b>: BM25 ÷ top score "
                f"({found.top_bm25:.4f}) averaged with the cosine; vector hits under "
                f"{MIN_SIMILARITY} dropped.")
        if self.no_recall is not None:  # ShortMessageHeuristics: no query embedding, no search
            self.header.setText(f"<b>{html.escape(self.no_recall)}</b>: the agent neither embeds nor "
                                "searches for this message; below is what a longer one would get.<br>"
                                + self.header.text())
        for row in found.rows:
            item = QTreeWidgetItem(row_texts(row, found))
            item.setToolTip(0, row.name)
            self.tree.addTopLevelItem(item)
        for column in range(1, len(COLUMNS)):
            self.tree.resizeColumnToContents(column)
        extra = [f"{found.stored} skill(s) have a stored vector."] if found.embeddings else []
        self.notes.setText("\n".join([*extra, *found.notes]))
