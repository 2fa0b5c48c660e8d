"""The dream-run wizard (issue 6): RockBot's dream passes proposed, reviewed, applied, undone.

Modules: ``wizard`` (the QWizard and its state), one module per page (``setup_page``,
``prompt_page``, ``run_page``, ``review_page`` with ``proposal_view``, ``apply_page``), the
worker thread (``worker``), and Qt-free helpers: ``textdiff`` (intra-line diffs) and
``selection`` (accepting proposals with their dependencies).
"""

from rockskills_gui.ui.dream.wizard import DreamWizard

__all__ = ["DreamWizard"]
