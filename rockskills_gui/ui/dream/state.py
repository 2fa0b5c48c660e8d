"""What a page of the dream wizard may ask of the wizard: a narrow interface, so the pages never
import the wizard that composes them (no import cycle; each page is testable on its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, cast

from PySide6.QtWidgets import QWizardPage

from rockskills_gui.core.dream.apply import ApplyResult, UndoResult
from rockskills_gui.core.dream.formats import DreamLibrary
from rockskills_gui.core.dream.llm import Endpoint
from rockskills_gui.core.dream.mcp_refresh import McpSurface
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.review_defaults import ReviewDefault
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import OperationTicket
from rockskills_gui.ui.dream.review_start import ReviewStart
from rockskills_gui.ui.dream.selection import Selection

PAGES = ("setup", "prompts", "run", "review", "apply", "summary")


def page_id(name: str) -> int:
    """The wizard's page id of a page by name."""
    return PAGES.index(name)


def wizard_of(page: QWizardPage) -> WizardState:
    """The wizard ``page`` is on: always the dream wizard (Qt types ``wizard()`` as a plain QWizard)."""
    return cast("WizardState", page.wizard())


class SetupChoices(Protocol):
    """What the first page chose: passes, reference time, proposer."""

    @property
    def offline(self) -> bool: ...
    def passes(self) -> list[DreamPass]: ...
    def prune(self) -> bool: ...
    def protected_prefixes(self) -> list[str]: ...
    def now(self) -> Timestamp | None: ...
    def endpoint(self) -> Endpoint | None: ...
    def api_key_for(self, base_url: str) -> str | None: ...
    @property
    def mcp_surfaces(self) -> dict[str, McpSurface]: ...  # the refresh pass's servers (current)


class WizardState(Protocol):
    """The wizard as its pages see it."""

    ctx: AppContext
    plan: Plan | None
    selection: Selection | None
    directives: dict[DreamPass, str]
    apply_result: ApplyResult | None
    apply_message: str | None  # why the last apply wrote nothing
    plan_notes: list[str]
    stale: dict[str, list[str]]  # proposals whose files changed since the plan (by id)
    defaults: dict[str, ReviewDefault]  # proposals that start unticked, and why (by id)

    @property
    def setup(self) -> SetupChoices: ...
    def after_setup(self) -> int: ...
    def dream_library(self) -> DreamLibrary | None: ...
    def set_plan(self, plan: Plan | None, origin: str = "run", keep: list[str] | None = None,
                 start: ReviewStart | None = None) -> None: ...
    def review_prefixes(self) -> list[str]: ...
    def plan_from_elsewhere(self) -> bool: ...
    def plan_dir(self) -> Path: ...
    def save_plan(self, path: Path) -> bool: ...
    def recheck_plan(self) -> None: ...
    def apply_selected(self) -> str | None: ...
    def start_apply(self) -> OperationTicket | str: ...
    def unsaved_conflicts(self) -> dict[str, list[str]]: ...
    def undo_applied(self) -> UndoResult | None: ...
