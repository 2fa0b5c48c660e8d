"""The tree's last-use times read by a helper process while the library itself is read (issue 19).

Reading 100,000 usage events costs seconds of Python; the library pane used to start it after the
library loaded, so that a 100,000-skill open waited for both in turn. A RockBot agent folder with
large usage logs now gets, as its load starts, a helper process
(``python -m rockskills_gui.ui.common.usage_prefetch AGENT``) that reads ``skill-usage/*.jsonl``
and reduces it to the latest use per folded name -- exactly what the pane computes itself,
``last_used_by_name(read_usage(agent).events)`` -- on the other CPU. It writes the result as one
:mod:`marshal` record (plain values) to stdout: ``{folded name: (ticks, offset minutes)}``, or
nothing when it failed (the pane then reads the logs itself, as before).

No Qt here: the helper imports this module.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path

from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.helper_process import DrainedHelper, lower_priority
from rockskills_gui.core.storage.layout import USAGE_DIR

PREFETCH_FROM_BYTES = 2_000_000  # smaller logs are read at once by the pane (tens of ms)


def usage_bytes(agent_dir: Path) -> int:
    """Total size of ``skill-usage/*.jsonl`` (0 when there is none)."""
    try:
        with os.scandir(agent_dir / USAGE_DIR) as listing:
            return sum(entry.stat().st_size for entry in listing
                       if entry.name.endswith(".jsonl") and entry.is_file())
    except OSError:
        return 0


def _agent_dir(path: Path) -> Path | None:
    """The agent folder a RockBot library opened at ``path`` has (its folder or its parent)."""
    try:
        path = path.expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    return path.parent if path.name == "skills" and not (path / "skills").is_dir() else path


class UsagePrefetch:
    """A helper process reading one agent folder's usage logs; :meth:`result` waits for it."""

    def __init__(self, agent_dir: Path) -> None:
        self.agent_dir = agent_dir
        self._result: dict[str, Timestamp] | None = None
        self._helper = DrainedHelper("rockskills_gui.ui.common.usage_prefetch",
                                     [os.fspath(agent_dir)], name="usage-prefetch")

    @classmethod
    def start(cls, path: Path) -> UsagePrefetch | None:
        """A prefetch for the library at ``path`` when it has usage logs worth one (and helper
        processes are possible here), else None."""
        from rockskills_gui.core.storage.helper_process import helpers_allowed

        agent = _agent_dir(path)
        if agent is None or not helpers_allowed() or usage_bytes(agent) <= PREFETCH_FROM_BYTES:
            return None
        try:
            return cls(agent)
        except OSError:
            return None

    def result(self, timeout: float | None = None) -> dict[str, Timestamp] | None:
        """Latest use per folded name, or None when the helper failed or did not finish within
        ``timeout`` seconds (then read the logs here)."""
        if not self._helper.wait(timeout):
            return None
        blob = self._helper.output()
        if blob is None:
            return None
        from rockskills_gui.core.storage.gcpause import gc_paused

        if self._result is None and blob:
            try:
                with gc_paused():  # tens of thousands of new objects
                    raw = marshal.loads(blob)
                    self._result = {key: Timestamp(ticks, offset)
                                    for key, (ticks, offset) in raw.items()}
            except (EOFError, ValueError, TypeError, AttributeError):
                pass
        return self._result

    def cancel(self) -> None:
        """Stop the helper (a load cancelled or superseded)."""
        self._helper.cancel()


def main(argv: list[str]) -> int:
    """The helper: read ``argv[0]``'s usage logs and write the reduced result to stdout."""
    lower_priority()
    from rockskills_gui.core.library.tree import last_used_by_name
    from rockskills_gui.core.storage.gcpause import gc_paused
    from rockskills_gui.core.usage.events import read_usage

    with gc_paused():
        latest = last_used_by_name(read_usage(Path(argv[0])).events)
        plain = {key: (when.ticks, when.offset_minutes) for key, when in latest.items()}
    sys.stdout.buffer.write(marshal.dumps(plain))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
