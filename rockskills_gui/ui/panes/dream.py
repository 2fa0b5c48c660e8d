"""The dream-run wizard lives in :mod:`rockskills_gui.ui.dream`; this name is kept for importers."""

from rockskills_gui.ui.dream import DreamWizard

__all__ = ["DreamWizard"]
