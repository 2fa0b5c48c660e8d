"""A dream run off the UI thread (the run page asks ``queries``: progress, the finished plan
and its review start arrive on the UI thread).

The run reads its own snapshot of the library's files (``Library.snapshot``: a fresh read-only
library on the same folder, RockBot or SKILL.md), so the UI thread can keep editing the open
library meanwhile; the plan records the fingerprint of what it read and ``apply`` refuses it if
the files changed since. Cancel sets the query's event, which the engine polls; a request in
flight is abandoned and the run ends within a moment, with the plan so far.
"""

from __future__ import annotations

from collections.abc import Callable

from rockskills_gui.core.dream.llm import Endpoint, LlmClient
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.library import Library
from rockskills_gui.ui.common.queries import QueryControl
from rockskills_gui.ui.dream.review_start import ReviewStart, review_start


def run_snapshot(snapshot: Callable[[], Library], options: RunOptions, endpoint: Endpoint | None,
                 api_key: str | None, control: QueryControl, prune: bool = True,
                 review_prefixes: list[str] | None = None) -> tuple[Plan, ReviewStart]:
    """Run :func:`run_dream` once on a read-only snapshot of the library (``snapshot``, called
    here: the read happens on the worker), then make the
    review's start (defaults and selection, :func:`review_start`) on the same worker: a plan of
    thousands of proposals and the usage log the defaults read cost the UI thread nothing. Each
    :class:`RunProgress` is reported through ``control``; after a cancel the plan still comes
    (its passes say so). ``api_key`` lives in memory only, handed to the client."""
    library = snapshot()  # a read-only snapshot; no recovery, no writes
    client = None
    if not options.offline:
        if endpoint is None:
            raise ValueError("no endpoint to ask")
        client = LlmClient(endpoint, api_key)
    plan = run_dream(library, options, client, progress=control.report,
                     cancel=control.cancel_event)
    return plan, review_start(plan, library, list(review_prefixes or []), prune)
