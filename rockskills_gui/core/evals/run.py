"""Run trigger evals: every (query, run) asked once, concurrently (at most ``concurrency``
requests at a time), answered from the cache when it was asked before, with progress reports,
cancel (the requests in flight are dropped at once) and an estimate before anything is sent.

A failed request or an unreadable reply counts as "no trigger" for its run and is reported; the
run stops early only when no request can succeed: the key is refused (401/403), the server
cannot be reached, or it does not know the model or the route (404).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.budget.tokens import Tokenizer
from rockskills_gui.core.evals.cache import OutcomeCache, cache_key
from rockskills_gui.core.evals.detect import ERROR, INVALID, RunOutcome, detect, failed
from rockskills_gui.core.evals.presentation import Presentation
from rockskills_gui.core.evals.report import (
    TriggerReport,
    competition,
    fired_instead,
    problems,
    row_results,
    skill_scores,
)
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet
from rockskills_gui.core.llm.endpoint import Endpoint
from rockskills_gui.core.llm.errors import (
    LlmAuthError,
    LlmConnectionError,
    LlmError,
    LlmReplyError,
    LlmRequestError,
)
from rockskills_gui.core.llm.tool_chat import ToolChat
from rockskills_gui.core.model.names import fold

DEFAULT_RUNS = 3  # skill-creator's --runs-per-query
DEFAULT_THRESHOLD = 0.5  # skill-creator's --trigger-threshold
DEFAULT_CONCURRENCY = 8
ASSUMED_LATENCY = 2.0  # seconds per request when none was measured yet
MESSAGE_OVERHEAD = 4  # tokens a chat format adds per message (OpenAI's cookbook figure)
_COMMIT_EVERY = 25


@dataclass(frozen=True)
class EvalOptions:
    runs: int = DEFAULT_RUNS
    threshold: float = DEFAULT_THRESHOLD
    concurrency: int = DEFAULT_CONCURRENCY

    def __post_init__(self) -> None:
        if self.runs < 1:
            raise ValueError("runs must be at least 1")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError("the threshold must be between 0 and 1")
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")


@dataclass(frozen=True)
class Request:
    """One (query, run) to answer and its cache key."""

    query: str
    run: int
    key: str


@dataclass(frozen=True)
class Estimate:
    """What a run would cost before it starts."""

    total: int  # (query, run) pairs
    cached: int  # answered from the cache
    prompt_tokens: int | None  # of the requests to send (None: no tokenizer)
    tokenizer: str
    latency: float  # seconds per request
    latency_measured: bool  # from earlier requests to this model (else assumed)
    concurrency: int

    @property
    def to_send(self) -> int:
        return self.total - self.cached

    @property
    def seconds(self) -> float:
        return math.ceil(self.to_send / self.concurrency) * self.latency

    def line(self) -> str:
        tokens = ("prompt tokens unknown (no tokenizer)" if self.prompt_tokens is None
                  else f"~{self.prompt_tokens:,} prompt tokens by {self.tokenizer}")
        how = "measured" if self.latency_measured else "assumed"
        return (f"{self.to_send} requests to send ({self.cached} of {self.total} cached), {tokens}, "
                f"about {self.seconds:.0f} s at "
                f"{self.latency:.1f} s per request ({how}), {self.concurrency} at a time")


@dataclass(frozen=True)
class EvalProgress:
    done: int
    total: int
    cached: int
    sent: int
    failed: int  # runs that counted as no trigger without a clean reply
    elapsed: float


ProgressFn = Callable[[EvalProgress], None]


def requests_for(sets: Sequence[TriggerEvalSet], presentation: Presentation, model: str,
                 runs: int) -> list[Request]:
    """Every (query, run) of ``sets`` once, in row order (a query in two files is asked once)."""
    fingerprint = presentation.fingerprint()
    seen: set[str] = set()
    found: list[Request] = []
    for eval_set in sets:
        for row in eval_set.rows:
            if row.query in seen:
                continue
            seen.add(row.query)
            found += [Request(row.query, i, cache_key(model, fingerprint, row.query, i)) for i in range(runs)]
    return found


def estimate(sets: Sequence[TriggerEvalSet], presentation: Presentation, model: str,
             options: EvalOptions = EvalOptions(), cache: OutcomeCache | None = None,
             tokenizer: Tokenizer | None = None) -> Estimate:
    """Requests, prompt tokens (``core.budget``'s counter) and time, before sending anything."""
    requests = requests_for(sets, presentation, model, options.runs)
    known = cache.get_many([r.key for r in requests]) if cache is not None else {}
    todo = [r for r in requests if r.key not in known]
    tokens = None
    if tokenizer is not None:
        import json

        fixed = (tokenizer.count(presentation.listing)
                 + tokenizer.count(json.dumps(presentation.tools, ensure_ascii=False))
                 + 2 * MESSAGE_OVERHEAD)
        per_query = {q: tokenizer.count(q) for q in {r.query for r in todo}}
        tokens = sum(fixed + per_query[r.query] for r in todo)
    measured = cache.typical_latency(model) if cache is not None else None
    return Estimate(len(requests), len(requests) - len(todo), tokens,
                    tokenizer.name if tokenizer is not None else "",
                    measured if measured is not None else ASSUMED_LATENCY, measured is not None,
                    options.concurrency)


_FATAL = (LlmAuthError, LlmConnectionError)


def _fatal(exc: LlmError) -> bool:
    return isinstance(exc, _FATAL) or (isinstance(exc, LlmRequestError) and exc.status == 404)


class _Stop(Exception):
    def __init__(self, error: LlmError) -> None:
        super().__init__(str(error))
        self.error = error


async def _watch(cancel: threading.Event) -> None:
    while not cancel.is_set():
        await asyncio.sleep(0.05)


async def _send_all(todo: Sequence[Request], presentation: Presentation, chat: ToolChat,
                    concurrency: int, record: Callable[[Request, RunOutcome, float], None],
                    cancel: threading.Event | None) -> str:
    """Ask every request of ``todo``; returns why it stopped early ("" when it did not)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(request: Request) -> tuple[Request, RunOutcome, float]:
        async with gate:
            started = time.monotonic()
            try:
                reply = await chat.ask(presentation.messages(request.query), presentation.tools)
                outcome = detect(reply, presentation)
            except LlmReplyError as exc:
                outcome = failed(INVALID, str(exc))
            except LlmError as exc:
                if _fatal(exc):
                    raise _Stop(exc) from None
                outcome = failed(ERROR, str(exc))
            return request, outcome, time.monotonic() - started

    async with chat:
        tasks = {asyncio.create_task(one(r)) for r in todo}
        watchers = {asyncio.create_task(_watch(cancel))} if cancel is not None else set()
        stopped = ""
        try:
            while tasks and not stopped:
                waiting: set[asyncio.Task[Any]] = {*tasks, *watchers}
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if done & watchers:
                    stopped = "cancelled"
                    break
                for finished in done:
                    tasks.discard(finished)
                    try:
                        request, outcome, elapsed = finished.result()
                    except _Stop as stop:
                        stopped = f"stopped: {stop.error}"
                        break
                    record(request, outcome, elapsed)
        finally:
            leftovers: list[asyncio.Task[Any]] = [*tasks, *watchers]
            for task in leftovers:
                task.cancel()
            await asyncio.gather(*leftovers, return_exceptions=True)
    return stopped


def run_trigger_evals(sets: Sequence[TriggerEvalSet], presentation: Presentation, endpoint: Endpoint,
                      api_key: str | None = None, options: EvalOptions = EvalOptions(),
                      cache: OutcomeCache | None = None, progress: ProgressFn | None = None,
                      cancel: threading.Event | None = None) -> TriggerReport:
    """Run every row of ``sets`` ``options.runs`` times against ``endpoint`` as ``presentation``
    shows the skills; a cancelled or stopped run returns what finished (``complete`` False)."""
    started = time.monotonic()
    requests = requests_for(sets, presentation, endpoint.model, options.runs)
    known = cache.get_many([r.key for r in requests]) if cache is not None else {}
    outcomes = {(r.query, r.run): known[r.key] for r in requests if r.key in known}
    todo = [r for r in requests if r.key not in known]
    counts = {"sent": 0, "failed": sum(1 for o in outcomes.values() if o.status in (INVALID, ERROR))}

    def report_progress() -> None:
        if progress is not None:
            progress(EvalProgress(len(outcomes), len(requests), len(known), counts["sent"],
                                  counts["failed"], time.monotonic() - started))

    def record(request: Request, outcome: RunOutcome, elapsed: float) -> None:
        outcomes[(request.query, request.run)] = outcome
        counts["sent"] += 1
        counts["failed"] += int(outcome.status in (INVALID, ERROR))
        if cache is not None:
            cache.put(request.key, endpoint.model, outcome, elapsed)
            if counts["sent"] % _COMMIT_EVERY == 0:
                cache.commit()
        report_progress()

    report_progress()
    stopped = ""
    if todo and not (cancel is not None and cancel.is_set()):
        chat = ToolChat(endpoint, api_key, connections=options.concurrency)
        try:
            stopped = asyncio.run(_send_all(todo, presentation, chat, options.concurrency, record,
                                            cancel))
        finally:
            if cache is not None:
                cache.commit()
    elif todo:
        stopped = "cancelled"
    rows = row_results(sets, outcomes, options.runs, options.threshold)
    notes = [f"{name} is not in the listing ({why}): it cannot trigger"
             for name, why in presentation.hidden.items() if any(fold(s.skill) == fold(name) for s in sets)]
    if cache is not None and cache.problem:
        notes.append(cache.problem)
    return TriggerReport(
        rows=tuple(rows), skills=tuple(skill_scores(rows, presentation.hidden)),
        instead=tuple(fired_instead(rows)), competing=tuple(competition(rows)),
        runs=options.runs, threshold=options.threshold, agent=presentation.agent,
        tool=presentation.tool.name, model=endpoint.model, requests=len(requests),
        sent=counts["sent"], cached=len(known), complete=len(outcomes) == len(requests),
        aborted=stopped, problems=tuple(problems(rows)), elapsed=time.monotonic() - started,
        notes=tuple(notes))
