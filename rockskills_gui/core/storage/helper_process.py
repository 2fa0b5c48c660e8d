"""Helper processes of ours: ``python -m rockskills_gui....`` with this package importable, run at a
lower priority, their output read by a thread so that they never wait on a full pipe.

The scan's file readers, its folder lister and the usage-log prefetch (issue 19) are such helpers;
each falls back to doing the work in-process when its helper fails.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

NICENESS = 10  # the UI thread never waits for a CPU because of a helper
WORKERS_ENV = "ROCKSKILLS_SCAN_WORKERS"  # 1 turns the helper processes off
PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])  # the folder holding rockskills_gui/


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity, where the system tells; else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def helpers_allowed() -> bool:
    """Whether one helper process beside this one (the folder lister, the usage prefetch) may
    run: ``ROCKSKILLS_SCAN_WORKERS`` above 1, else 2 CPUs or more and not a frozen app."""
    configured = os.environ.get(WORKERS_ENV, "")
    if configured.isdigit():
        return int(configured) > 1
    return not getattr(sys, "frozen", False) and usable_cpus() >= 2


def helper_env() -> dict[str, str]:
    """This process's environment with the folder holding ``rockskills_gui`` first on the path."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")) if p)}


def spawn(module: str, args: Sequence[str] = (), stdin: bool = False) -> Any:
    """``python -m module args`` as a helper: stdout piped, stderr dropped, stdin piped when
    ``stdin`` (else none). Returns the ``subprocess.Popen`` (raises OSError)."""
    import subprocess  # (only when a helper starts: not at start-up)

    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=helper_env())


def lower_priority() -> None:
    """In a helper: run at :data:`NICENESS` (where the system has it)."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):
        pass


class DrainedHelper:
    """A helper whose whole stdout is collected by a thread; :meth:`output` once it is done.

    ``feed`` writes the helper's stdin (then closes it) before the reading starts."""

    def __init__(self, module: str, args: Sequence[str] = (), name: str = "helper",
                 feed: Any = None) -> None:
        self._blob = b""
        self._proc = spawn(module, args, stdin=feed is not None)
        if feed is not None:
            stdin: IO[bytes] = self._proc.stdin
            try:
                feed(stdin)
                stdin.close()
            except OSError:
                self.cancel()
                raise
        self._reader = threading.Thread(target=self._drain, name=name, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        stdout = self._proc.stdout
        try:
            self._blob = stdout.read()
        except (OSError, ValueError):
            self._blob = b""
        finally:
            stdout.close()
            self._proc.wait()

    def wait(self, timeout: float | None) -> bool:
        """Whether the helper is done (waits up to ``timeout`` seconds; None: until it is)."""
        self._reader.join(timeout)
        return not self._reader.is_alive()

    def output(self) -> bytes | None:
        """All it wrote, taken once (later calls give b""), or None while it runs or when it
        failed."""
        if self._reader.is_alive() or self._proc.returncode != 0:
            return None
        blob, self._blob = self._blob, b""
        return blob

    def cancel(self) -> None:
        """Stop the helper (its work is no longer wanted)."""
        if self._proc.poll() is None:
            try:
                self._proc.kill()
            except OSError:
                pass
