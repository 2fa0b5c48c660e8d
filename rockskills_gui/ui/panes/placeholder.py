"""A pane that says what will appear in its place (until its issue lands)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from rockskills_gui.ui.theme import heading, secondary


class PlaceholderPane(QWidget):
    """A title, a one-line purpose and a list of what the finished pane will show."""

    def __init__(self, title: str, purpose: str, coming: Sequence[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = heading(QLabel(title, self))
        self.purpose = QLabel(purpose, self)
        self.purpose.setWordWrap(True)
        items = "".join(f"<li>{line}</li>" for line in coming)
        self.coming = QLabel(f"<p>This pane will show:</p><ul>{items}</ul>", self)
        self.coming.setTextFormat(Qt.TextFormat.RichText)
        self.coming.setWordWrap(True)
        self.note = secondary(QLabel("Not built yet: this is the place it plugs into.", self))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.setSpacing(10)
        for widget in (self.title, self.purpose, self.coming, self.note):
            widget.setMaximumWidth(760)
            layout.addWidget(widget)
        layout.addStretch(1)


def recall_placeholder(parent: QWidget | None = None) -> PlaceholderPane:
    return PlaceholderPane(
        "Recall playground",
        "Type a message and see which skills RockBot would recall for it, ranked exactly as the "
        "agent's BM25 index ranks them.",
        ["rank, score and the per-term and phrase contributions that add up to it",
         "which of the top 5 the agent would inject, and the see-also line it would add",
         "multi-turn simulation, pinned skills (\"why not this one?\") and what-if edits",
         "saved query sets with hit@k and MRR"],
        parent,
    )


def usage_placeholder(parent: QWidget | None = None) -> PlaceholderPane:
    return PlaceholderPane(
        "Usage heatmap",
        "Which skills the agent used together, read from the usage logs with RockBot's session "
        "semantics.",
        ["a skills × skills co-occurrence heatmap with a time-window slider",
         "measures: sessions together, Jaccard, lift; ordering by prefix tree or clustering",
         "the sessions behind a cell, and usage counts per skill",
         "see-also overlay: used together but not linked, linked but never used together"],
        parent,
    )
