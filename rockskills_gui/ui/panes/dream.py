"""Dream-run wizard (placeholder): the deliberate, reviewable consolidation run."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget, QWizard, QWizardPage

from rockskills_gui.ui.context import AppContext
from rockskills_gui.ui.panes.placeholder import PlaceholderPane


class DreamWizard(QWizard):
    """Pages: passes, prompt, run, review, apply. Only the overview page exists so far."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamWizard")
        self.ctx = ctx
        self.setWindowTitle("Dream Run")
        self.resize(760, 560)
        page = QWizardPage(self)
        page.setTitle("Dream run")
        page.setSubTitle("Nothing touches the library until you accept a reviewed plan.")
        layout = QVBoxLayout(page)
        layout.addWidget(PlaceholderPane(
            "Review before anything is written",
            "An LLM (any OpenAI-compatible endpoint, or the offline proposer) proposes gap "
            "skills, merges, rewrites and deletions the way RockBot's dream cycle would.",
            ["the passes to run: gap detection, consolidation, optimization, prune",
             "the exact prompt that will be sent",
             "every proposal with its evidence: merged skill beside its sources, deletions, "
             "new guides, see-also changes, RockBot's guard rules",
             "accept or reject each item, save the plan, apply it as one undoable transaction"],
            page,
        ))
        library = ctx.library
        scope = (f"Library: {library.agent_dir} ({len(library)} skills)" if library is not None
                 else "Open a library first.")
        layout.addWidget(QLabel(scope, page))
        self.addPage(page)
