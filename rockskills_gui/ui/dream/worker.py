"""A dream run off the UI thread (the run page asks ``queries``: progress and the finished plan
arrive on the UI thread).

The run reads its own snapshot of the library's files (a fresh read-only :class:`Library` on the
same folder), so the UI thread can keep editing the open library meanwhile; the plan records the
fingerprint of what it read and ``apply`` refuses it if the files changed since. Cancel sets the
query's event, which the engine polls; a request in flight is abandoned and the run ends within a
moment, with the plan so far.
"""

from __future__ import annotations

from rockskills_gui.core.dream.llm import Endpoint, LlmClient
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.rockbot_library import Library
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.ui.common.queries import QueryControl


def run_snapshot(layout: Layout, options: RunOptions, endpoint: Endpoint | None,
                 api_key: str | None, control: QueryControl) -> Plan:
    """Run :func:`run_dream` once on a read-only snapshot of ``layout``'s library; each
    :class:`RunProgress` is reported through ``control`` (also after a cancel: the passes say
    so). ``api_key`` lives in memory only, handed to the client."""
    library = Library(layout)  # a read-only snapshot; no recovery, no writes
    client = None
    if not options.offline:
        if endpoint is None:
            raise ValueError("no endpoint to ask")
        client = LlmClient(endpoint, api_key)
    return run_dream(library, options, client, progress=control.report,
                     cancel=control.cancel_event)
