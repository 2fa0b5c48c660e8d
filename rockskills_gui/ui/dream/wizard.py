"""The dream-run wizard: passes and endpoint → prompts → run → review → apply → summary (undo).

Pages live in ``dream_setup``, ``dream_prompts``, ``dream_run``, ``dream_review`` (with
``dream_proposal``, the detail of one proposal) and ``dream_apply`` (apply and summary); the run
thread in ``dream_worker``; Qt-free helpers in ``dream_textdiff`` (intra-line diffs) and
``dream_selection`` (accepting proposals with their dependencies).

The wizard holds the run's state (the plan, the reviewer's selection, edited directives, the
outcome of Apply). It never writes library files: Apply and Undo are the engine's ``apply_plan``
and ``undo_last`` run through the context (Apply off the UI thread, :meth:`AppContext.run`; Undo
with :meth:`AppContext.apply`), so the open library and every pane follow.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget, QWizard

from rockskills_gui.core.dream.apply import (
    ApplyResult,
    UndoResult,
    apply_plan,
    checked,
    recheck,
    selection_problems,
    touched_since,
    undo_last,
)
from rockskills_gui.core.dream.formats import DreamLibrary, format_label, is_skill_md, no_dream_text
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.review_defaults import (
    ReviewDefault,
    risky_ids,
    unsaved_conflicts,
    unsaved_message,
)
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.accessibility import name_controls
from rockskills_gui.ui.common.capabilities import Part, shows
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import OperationResult, OperationTicket
from rockskills_gui.ui.common.screen_room import FRAME_ALLOWANCE, available
from rockskills_gui.ui.dream.apply_page import ApplyPage, SummaryPage
from rockskills_gui.ui.dream.common import plural
from rockskills_gui.ui.dream.prompts_page import PromptPage
from rockskills_gui.ui.dream.review_page import ReviewPage
from rockskills_gui.ui.dream.review_start import ReviewStart, start_defaults
from rockskills_gui.ui.dream.run_page import RunPage
from rockskills_gui.ui.dream.selection import Selection, default_selection
from rockskills_gui.ui.dream.setup_page import SetupPage
from rockskills_gui.ui.dream.state import page_id

log = logging.getLogger(__name__)
PLAN_DIR_KEY = "dream/planDir"


class DreamWizard(QWizard):
    """A dream run on the open library, from choosing passes to an undoable apply.

    Signals:
        planChanged(object): a plan arrived (run, loaded, re-checked) or was dropped (None).
    """

    planChanged = Signal(object)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamWizard")
        self.ctx = ctx
        self.setWindowTitle("Dream Run")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.NoDefaultButton, True)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        room = available(parent)
        # Within the screen with the window manager's frame (its pages scroll when too short).
        self.resize(min(1240, int(room.width() * 0.92)) if room else 1240,
                    min(820, room.height() - FRAME_ALLOWANCE.height()) if room else 820)
        self.plan: Plan | None = None
        self.plan_path: Path | None = None
        self.selection: Selection | None = None
        self.directives: dict[DreamPass, str] = {}
        self.apply_result: ApplyResult | None = None
        self.undo_result: UndoResult | None = None
        self.plan_notes: list[str] = []
        self.defaults: dict[str, ReviewDefault] = {}  # proposals that start unticked, and why
        self.discard_prompt: QMessageBox | None = None  # "throw the review away?" (reject)
        self._jump_to_review = False

        self.setup = SetupPage(self)
        self.prompts = PromptPage(self)
        self.run = RunPage(self)
        self.review = ReviewPage(self)
        self.apply = ApplyPage(self)
        self.summary = SummaryPage(self)
        for index, page in enumerate((self.setup, self.prompts, self.run, self.review, self.apply,
                                      self.summary)):
            self.setPage(index, page)
        self.setStartId(0)
        self.setup.load_button.clicked.connect(self.choose_plan_file)
        self.setup.load_defaults()
        self.ctx.libraryChanged.connect(self._library_changed)
        self.ctx.changeApplied.connect(self._library_moved)
        self.ctx.dirtyChanged.connect(self._buffers_changed)
        self.stale: dict[str, list[str]] = {}  # proposals whose files changed since the plan
        self._applying = False
        self.apply_ticket: OperationTicket | None = None  # the apply running off the UI thread
        self.apply_message: str | None = None  # why the last apply wrote nothing
        self._library_changed(ctx.library)
        name_controls(self)

    # ---------------------------------------------------------------- navigation

    @staticmethod
    def page_id(name: str) -> int:
        return page_id(name)

    def after_setup(self) -> int:
        if self._jump_to_review:
            return self.page_id("review")
        return self.page_id("run" if self.setup.offline else "prompts")

    def go_to_review(self) -> None:
        """Show the review page for the current plan, coming from the first page."""
        if self.currentId() != self.page_id("setup"):
            self.restart()
        self._jump_to_review = True
        try:
            self.next()
        finally:
            self._jump_to_review = False

    # ---------------------------------------------------------------- library

    def dream_library(self) -> DreamLibrary | None:
        """The open library when its agent has dream passes (its profile's ``curation.passes``:
        RockBot's, or consolidation and optimization over SKILL.md folders), else None."""
        library = self.ctx.library
        if library is None or not shows(Part.DREAM, library):
            return None
        return library

    def _library_changed(self, library: Library | None) -> None:
        self.run.stop()
        if self.plan is not None and self.apply_result is None:
            self.set_plan(None)
        if self.currentId() > 0:
            self.restart()
        lib = self.dream_library()
        if lib is not None and is_skill_md(lib):
            label = format_label(lib)
            self.setup.set_library_text(
                f"Library: {lib.agent_dir} ({plural(len(lib), 'skill')}, {label}). Proposals are "
                "written as SKILL.md; skill gap and the 18-month prune need RockBot's logs and "
                "dates, which this format does not keep.", True)
        elif lib is not None:
            self.setup.set_library_text(f"Library: {lib.agent_dir} ({plural(len(lib), 'skill')}).", True)
        elif library is not None:
            self.setup.set_library_text(no_dream_text(library.profile), False)
        else:
            self.setup.set_library_text("Open a library first.", False)

    def _library_moved(self, change: object) -> None:
        """The library changed under the loaded plan (an edit, an undo, the agent): mark the
        proposals whose files it touched on the review and apply pages."""
        del change
        if self.apply_result is not None and self.currentId() == self.page_id("summary"):
            self.summary.follow_history()  # an undo or redo of the applied plan, from anywhere
        if self._applying or self.plan is None or self.apply_result is not None:
            return
        self.update_stale()

    def update_stale(self) -> dict[str, list[str]]:
        """Which proposals of the plan the library's changes touched (``touched_since``)."""
        library = self.dream_library()
        self.stale = touched_since(self.plan, library) if (
            self.plan is not None and library is not None) else {}
        self.review.mark_stale(self.stale)
        if self.currentId() == self.page_id("apply"):
            self.apply.refresh()
        return self.stale

    # ---------------------------------------------------------------- plans

    def set_plan(self, plan: Plan | None, origin: str = "run", keep: list[str] | None = None,
                 start: ReviewStart | None = None) -> None:
        """Make ``plan`` the one under review, with the default selection (or ``keep``); ``start``:
        the defaults and selection made for it off the UI thread (the run's worker)."""
        self.plan = plan
        self.plan_notes = []
        self.stale = {}
        if plan is not None and start is not None and start.plan is plan and keep is None:
            self.defaults, self.selection = start.defaults, start.selection
        else:
            self.defaults = self.review_defaults(plan) if plan is not None else {}
            if plan is None:
                self.selection = None
            elif keep is not None:
                self.selection = Selection(plan, [i for i in keep if i in plan.ids()])
            else:
                prune = self.setup.prune() if origin == "run" else True
                self.selection = default_selection(plan, prune=prune, unticked=risky_ids(self.defaults))
        if plan is not None and self.plan_from_elsewhere():
            self.plan_notes.append(f"This plan was made for {plan.library}.")
        self.planChanged.emit(plan)

    def review_prefixes(self) -> list[str]:
        """The Preferences' protected prefixes (the plan's and the profile's are added to them)."""
        return list(self.ctx.prefs.protected_prefixes)

    def review_defaults(self, plan: Plan) -> dict[str, ReviewDefault]:
        """Which proposals start unticked and why (``review_start.start_defaults``)."""
        return start_defaults(plan, self.dream_library(), self.review_prefixes())

    def plan_from_elsewhere(self) -> bool:
        library = self.ctx.library
        if self.plan is None or library is None:
            return False
        try:
            return Path(self.plan.library).resolve() != library.agent_dir.resolve()
        except OSError:
            return True

    def plan_dir(self) -> Path:
        saved = self.ctx.settings.value(PLAN_DIR_KEY, "")
        if isinstance(saved, str) and saved and Path(saved).is_dir():
            return Path(saved)
        library = self.ctx.library
        return library.agent_dir.parent if library is not None else Path.home()

    def open_plan(self, path: Path) -> bool:
        """Load a saved plan and show its review page; False (and a message) when it is unusable."""
        try:
            plan = Plan.load(path)
        except OSError as exc:
            self._complain("Cannot read the plan", f"{path}: {exc.strerror or exc}")
            return False
        except ValueError as exc:
            self._complain("Not a dream plan", f"{path}: {str(exc).splitlines()[0]}")
            return False
        library = self.dream_library()
        if library is None:
            self._complain("No library", "Open the library the plan was made for first.")
            return False
        plan = checked(plan, library)  # the findings a plan file holds are not trusted
        self.plan_path = path
        self.apply_result = None
        self.set_plan(plan, origin="file")
        self.ctx.settings.setValue(PLAN_DIR_KEY, str(path.parent))
        self.go_to_review()
        self.ctx.status(f"Loaded the dream plan {path.name} ({plural(len(plan.proposals), 'proposal')})")
        return True

    def choose_plan_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load Dream Plan", str(self.plan_dir()),
                                              "Dream plans (*.json);;All files (*)")
        if path:
            self.open_plan(Path(path))

    def save_plan(self, path: Path) -> bool:
        """Save the plan under review as JSON (never inside the skills folder)."""
        library = self.ctx.library
        if self.plan is None:
            return False
        target = path.expanduser().resolve()
        if library is not None and (library.skills_dir.resolve() in target.parents):
            self._complain("Not there", "A plan must not be saved inside the skills folder: RockBot "
                                        "would try to load it as a skill.")
            return False
        try:
            self.plan.save(target)
        except OSError as exc:
            self._complain("Cannot save the plan", f"{target}: {exc.strerror or exc}")
            return False
        self.plan_path = target
        self.ctx.settings.setValue(PLAN_DIR_KEY, str(target.parent))
        self.ctx.status(f"Saved the dream plan to {target}", 8000)
        return True

    def recheck_plan(self) -> None:
        """Check the plan again against the library as it is now (engine ``recheck``)."""
        library = self.dream_library()
        if self.plan is None or library is None:
            return
        keep = self.selection.ids() if self.selection is not None else []
        fresh = recheck(self.plan, library)
        self.set_plan(fresh, origin="recheck", keep=keep)
        dropped = [i for i in keep if self.selection is not None and i not in self.selection]
        if dropped:
            self.plan_notes.append("Re-checked against the library as it is now; no longer "
                                   f"applicable: {', '.join(dropped)}.")
        self.review.show_plan(self.plan, self.selection)

    # ---------------------------------------------------------------- apply and undo

    def can_apply(self) -> bool:
        """True when the accepted proposals could be applied now (what enables Apply)."""
        return (self.selection is not None and len(self.selection) > 0
                and not self.selection.problems() and not self.unsaved_conflicts())

    def unsaved_conflicts(self) -> dict[str, list[str]]:
        """Skills with unsaved editor edits that ticked proposals touch (Apply waits for them)."""
        if self.plan is None or self.selection is None:
            return {}
        return unsaved_conflicts(self.plan, self.selection.ids(), self.ctx.dirty_names)

    def _buffers_changed(self, _name: str = "") -> None:
        """A buffer became dirty or clean: Apply's block follows at once."""
        if self.plan is None or self.apply_result is not None or self._applying:
            return
        self.review.show_unsaved()
        if self.currentId() == self.page_id("apply"):
            self.apply.refresh()

    def apply_selected(self) -> str | None:
        """Apply the accepted proposals as one transaction and wait for it; the reason when
        nothing was written (the Apply page uses :meth:`start_apply` and does not wait)."""
        started = self.start_apply()
        if isinstance(started, str):
            return started
        started.wait()
        return self.apply_message

    def start_apply(self) -> OperationTicket | str:
        """Start applying the accepted proposals off the UI thread (the context's runner); the
        reason when it cannot start. When the ticket finishes, :attr:`apply_result` holds what
        was applied, or :attr:`apply_message` why nothing was written."""
        if self.plan is None or self.selection is None or self.ctx.library is None:
            return "no plan or no library"
        if self.apply_ticket is not None:
            return "the plan is being applied"
        plan, ids = self.plan, self.selection.ids()
        # the engine refuses these too; asking first keeps refusals on this page
        problems = selection_problems(plan, ids)
        if problems:
            return "; ".join(problems)
        unsaved = self.unsaved_conflicts()
        if unsaved:
            return unsaved_message(unsaved)
        # A library changed since the plan is refused by the apply itself, on the worker with
        # progress and Cancel (the Apply page blocks it beforehand): reading every skill file
        # here too would freeze the window for seconds at 100,000 skills.
        box: dict[str, ApplyResult] = {}

        def operation(library: Library) -> ChangeSet:
            box["result"] = apply_plan(library, plan, ids)
            return box["result"].change

        self._applying = True
        self.apply_message = None
        ticket = self.ctx.run(operation, f"Applying the dream plan ({plural(len(ids), 'proposal')})")
        if ticket is None:
            self._applying = False
            return "no library"
        self.apply_ticket = ticket
        ticket.finished.connect(lambda result: self._apply_finished(result, box.get("result")))
        if ticket.done:  # delivered already (it cannot be: the runner queues; kept for safety)
            self._apply_finished(ticket.result, box.get("result"))
        return ticket

    def _apply_finished(self, result: OperationResult | None, applied: ApplyResult | None) -> None:
        if self.apply_ticket is None:
            return
        self.apply_ticket = None
        self._applying = False
        if result is not None and result.ok and applied is not None:
            self.apply_result = applied
            log.info("dream plan applied: %s (transaction %s)", ", ".join(applied.accepted),
                     applied.tx_id)
            return
        if result is None or result.cancelled:
            self.apply_message = "cancelled before anything was written"
            return
        reasons = getattr(result.exception, "reasons", [])
        text = result.error or "unknown error"
        self.apply_message = "; ".join([text, *reasons]) if reasons else text

    def undo_applied(self) -> UndoResult | None:
        """Undo the transaction this wizard applied (refused if another one came after it)."""
        library = self.ctx.library
        applied = self.apply_result
        if library is None or applied is None or applied.tx_id is None:
            return None
        last = journal.last_undoable(library.agent_dir)
        if last is None or last.id != applied.tx_id:
            result = UndoResult(None, None, None, "this run's changes are no longer the last applied "
                                "plan; use `rockskills undo` for the newest one, or Edit ▸ Undo")
            self.undo_result = result
            return result
        history = library.history
        if history.undo_stack and history.undo_stack[-1].journal == ("apply", applied.tx_id):
            # The apply is the last step of this session: undo it as Edit ▸ Undo does (through the
            # journal), so Edit ▸ Redo can bring it back and the history shows no extra step.
            change = self.ctx.undo()
            self.undo_result = (UndoResult(None, applied.tx_id, change, f"undid '{change.label}'")
                                if change is not None else
                                UndoResult(None, None, None, "the undo was refused (see the status bar)"))
            return self.undo_result
        box: dict[str, UndoResult] = {}

        def operation(lib: Library) -> ChangeSet | None:
            box["result"] = undo_last(lib)
            return box["result"].change

        self.ctx.apply(operation)
        self.undo_result = box.get("result")
        return self.undo_result

    # ---------------------------------------------------------------- closing

    def _complain(self, title: str, message: str) -> None:
        self.ctx.status(f"{title}: {message}", 10000)
        if self.testAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen):
            return
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def reject(self) -> None:
        """Cancel, Escape or the window's close button: after the reviewer changed a tick on the
        review page, ask before throwing the review away."""
        if self.apply_ticket is not None:  # Cancel while applying stops the apply, if it can
            self.apply.cancel_apply()
            return
        if (self.currentId() == self.page_id("review") and self.review.user_changed
                and self.apply_result is None):
            self.ask_to_discard()
            return
        super().reject()

    def ask_to_discard(self) -> QMessageBox:
        """The question (non-modal, kept in ``discard_prompt``); Discard closes the wizard."""
        if self.discard_prompt is not None:
            self.discard_prompt.raise_()
            return self.discard_prompt
        ticked = len(self.selection) if self.selection is not None else 0
        box = QMessageBox(QMessageBox.Icon.Question, "Discard the Review?",
                          "You changed which proposals are ticked. Close the dream run and throw "
                          "the review away?",
                          QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("dreamDiscardReview")
        box.setInformativeText(f"{plural(ticked, 'proposal')} ticked. Nothing has been written; "
                               "Save plan… keeps the proposals for later.")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.discard_prompt = box

        def answered(result: int) -> None:
            self.discard_prompt = None
            if result == QMessageBox.StandardButton.Discard:
                self.review.user_changed = False
                super(DreamWizard, self).reject()

        box.finished.connect(answered)
        box.open()
        return box

    def done(self, result: int) -> None:
        self.run.stop()
        self.setup.api_key.clear()  # the typed key lives no longer than the wizard
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.run.stop()
        super().closeEvent(event)
