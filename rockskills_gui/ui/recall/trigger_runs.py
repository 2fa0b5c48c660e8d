"""The trigger-eval panel's requests, off the UI thread through ``ctx.query``: the estimate
(before anything is sent), a run, and the description what-if (the saved listing, mostly from the
cache, then the listing with the editor's unsaved descriptions), with progress and cancel (what
finished is kept). A part of the trigger-eval panel; nothing here writes a library file (the
replies cache is the app's, in its cache folder).

Signals:
    estimated(object): a :class:`Guess` for the inputs last given.
    progressed(object): an :class:`~rockskills_gui.core.evals.run.EvalProgress` of the run.
    finished(object): the run's :class:`Outcome` (also a cancelled one: what finished).
    failed(str): the run or the estimate could not be made (one line).
    busyChanged(bool): a run started or ended.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication

from rockskills_gui.core.evals.presentation import Showing
from rockskills_gui.core.evals.report import TriggerReport
from rockskills_gui.core.evals.run import Estimate, EvalOptions, EvalProgress
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet
from rockskills_gui.core.evals.what_if import WhatIf
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.queries import QueryControl

ESTIMATE_DELAY_MS = 250
RETRIES = 2  # as the CLI's --retries


@dataclass(frozen=True)
class RunInputs:
    """Everything a run needs, read on the UI thread (the key too: the keyring is asked there)."""

    sets: tuple[TriggerEvalSet, ...]
    showing: Showing
    base_url: str
    model: str
    timeout: float
    options: EvalOptions
    edits: tuple[Skill, ...] = ()  # the editor's unsaved skills (the what-if)


@dataclass(frozen=True)
class Guess:
    """What a run (and the what-if, when there are edits) would send, before anything is sent."""

    run: Estimate
    what_if: WhatIf | None = None
    what_if_run: Estimate | None = None  # the requests the edited listing adds


@dataclass(frozen=True)
class Outcome:
    """A finished run: its report; for the what-if, also the saved listing's report."""

    report: TriggerReport
    saved: TriggerReport | None = None
    what_if: WhatIf | None = None


def _estimate(inputs: RunInputs) -> Guess:
    from rockskills_gui.core.budget.tokens import try_tokenizer
    from rockskills_gui.core.evals.cache import OutcomeCache
    from rockskills_gui.core.evals.run import estimate
    from rockskills_gui.core.evals.what_if import what_if

    tokenizer = try_tokenizer()[0]
    cache = OutcomeCache()
    try:
        change = what_if(inputs.showing, inputs.edits) if inputs.edits else None
        presentation = change.saved if change is not None else inputs.showing.present()
        run = estimate(inputs.sets, presentation, inputs.model, inputs.options, cache, tokenizer)
        extra = (estimate(inputs.sets, change.edited, inputs.model, inputs.options, cache, tokenizer)
                 if change is not None and change.changes_listing else None)
    finally:
        cache.close()
    return Guess(run, change, extra)


class Latest:
    """The newest progress of a run, handed from the worker to the UI thread: at most one
    report is on its way at a time and it always carries the newest value (a throttle that
    drops reports would leave the bar behind when the last requests end close together and the
    rest take long)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: tuple[str, EvalProgress] | None = None
        self._posted = False

    def put(self, phase: str, progress: EvalProgress) -> bool:
        """Keep ``progress``; True when a report must be posted (none is on its way)."""
        with self._lock:
            self._value = (phase, progress)
            posted, self._posted = self._posted, True
            return not posted

    def take(self) -> tuple[str, EvalProgress] | None:
        """The newest value (on the UI thread); the next :meth:`put` posts again."""
        with self._lock:
            self._posted = False
            return self._value


def _reporter(control: QueryControl, phase: str, latest: Latest) -> Callable[[EvalProgress], None]:
    """Every progress of the run reaches ``latest``; a report is posted when none is pending."""

    def report(progress: EvalProgress) -> None:
        if latest.put(phase, progress):
            control.report(latest)

    return report


def _run(inputs: RunInputs, api_key: str | None, control: QueryControl, latest: Latest) -> Outcome:
    from rockskills_gui.core.evals.cache import OutcomeCache
    from rockskills_gui.core.evals.run import run_trigger_evals
    from rockskills_gui.core.evals.what_if import what_if
    from rockskills_gui.core.llm.endpoint import Endpoint

    endpoint = Endpoint(inputs.base_url, inputs.model, timeout=inputs.timeout, retries=RETRIES)
    cache = OutcomeCache()
    try:
        if not inputs.edits:
            report = run_trigger_evals(inputs.sets, inputs.showing.present(), endpoint, api_key,
                                       inputs.options, cache, _reporter(control, "run", latest),
                                       control.cancel_event)
            return Outcome(report)
        change = what_if(inputs.showing, inputs.edits)
        saved = run_trigger_evals(inputs.sets, change.saved, endpoint, api_key, inputs.options, cache,
                                  _reporter(control, "saved descriptions", latest), control.cancel_event)
        if not change.changes_listing or not saved.complete:
            return Outcome(saved, saved, change)
        edited = run_trigger_evals(inputs.sets, change.edited, endpoint, api_key, inputs.options, cache,
                                   _reporter(control, "unsaved descriptions", latest), control.cancel_event)
        return Outcome(edited, saved, change)
    finally:
        cache.close()


class TriggerRuns(QObject):
    """Estimates and runs for the trigger-eval panel (see the module doc)."""

    estimated = Signal(object)
    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    busyChanged = Signal(bool)

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.phase = ""
        self._runs = ctx.channel(self, "run")
        self._runs.busyChanged.connect(self.busyChanged)
        self._estimates = ctx.channel(self, "estimate")
        app = QApplication.instance()
        if app is not None:  # quitting does not wait for replies: what is in flight is dropped
            app.aboutToQuit.connect(self.stop)

    @property
    def busy(self) -> bool:
        return self._runs.busy

    @property
    def estimating(self) -> bool:
        return self._estimates.busy

    def estimate(self, inputs: RunInputs | None) -> None:
        """Estimate ``inputs`` soon (a newer request replaces it); None: forget the estimate."""
        if inputs is None:
            self._estimates.cancel()
            return
        self.ctx.query(self, "estimate", lambda _control: _estimate(inputs), self.estimated.emit,
                       failure=lambda exc: self.failed.emit(f"could not estimate the run: {exc}"),
                       delay_ms=ESTIMATE_DELAY_MS)

    def run(self, inputs: RunInputs) -> None:
        """Send ``inputs``' requests (its edits: the what-if); the outcome comes by ``finished``."""
        api_key = self.ctx.api_key()
        self.phase = ""
        latest = Latest()
        self.ctx.query(self, "run", lambda control: _run(inputs, api_key, control, latest),
                       self.finished.emit,
                       failure=lambda exc: self.failed.emit(f"the run failed: {exc}"),
                       progress=self._on_progress)

    def cancel(self) -> None:
        """Stop the run: the requests in flight are dropped, what finished still arrives."""
        self._runs.cancel(keep_result=True)

    def stop(self) -> None:
        """Stop everything, delivering nothing (the app quits, the library closed)."""
        self._runs.cancel()
        self._estimates.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until no job runs (tests and shutdown)."""
        return self._runs.wait(msecs) and self._estimates.wait(msecs)

    def _on_progress(self, value: object) -> None:
        newest = value.take() if isinstance(value, Latest) else None
        if newest is not None:
            self.phase = newest[0]
            self.progressed.emit(newest[1])
