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
import threading
from pathlib import Path

from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.layout import USAGE_DIR

PREFETCH_FROM_BYTES = 2_000_000  # smaller logs are read at once by the pane (tens of ms)
NICENESS = 10  # as the scan's helpers: the UI thread never waits for a core because of them


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
        self._blob = b""
        self._result: dict[str, Timestamp] | None = None
        root = str(Path(__file__).resolve().parents[2])  # the folder holding rockskills_gui/
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH", "")) if p)}
        import subprocess  # (only when a helper starts: not at start-up)

        self._proc = subprocess.Popen(
            [sys.executable, "-m", "rockskills_gui.ui.common.usage_prefetch", os.fspath(agent_dir)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        # Drained by a thread (blocking reads do not hold the interpreter lock): the helper never
        # waits on a full pipe, whether or not anybody asks for the result.
        self._reader = threading.Thread(target=self._drain, name="usage-prefetch", daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, path: Path) -> UsagePrefetch | None:
        """A prefetch for the library at ``path`` when it has usage logs worth one (and helper
        processes are possible here), else None."""
        from rockskills_gui.core.library.stores.rockbot import default_workers

        agent = _agent_dir(path)
        if agent is None or default_workers() < 2 or usage_bytes(agent) <= PREFETCH_FROM_BYTES:
            return None
        try:
            return cls(agent)
        except OSError:
            return None

    def _drain(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            self._blob = stdout.read()
        except (OSError, ValueError):
            self._blob = b""
        finally:
            stdout.close()
            self._proc.wait()

    def result(self, timeout: float | None = None) -> dict[str, Timestamp] | None:
        """Latest use per folded name, or None when the helper failed or did not finish within
        ``timeout`` seconds (then read the logs here)."""
        self._reader.join(timeout)
        if self._reader.is_alive() or self._proc.returncode != 0:
            return None
        from rockskills_gui.core.storage.gcpause import gc_paused

        if self._result is None and self._blob:
            try:
                with gc_paused():  # tens of thousands of new objects
                    raw = marshal.loads(self._blob)
                    self._result = {key: Timestamp(ticks, offset)
                                    for key, (ticks, offset) in raw.items()}
            except (EOFError, ValueError, TypeError, AttributeError):
                pass
            self._blob = b""
        return self._result

    def cancel(self) -> None:
        """Stop the helper (a load cancelled or superseded)."""
        if self._proc.poll() is None:
            try:
                self._proc.kill()
            except OSError:
                pass


def main(argv: list[str]) -> int:
    """The helper: read ``argv[0]``'s usage logs and write the reduced result to stdout."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):
        pass
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
