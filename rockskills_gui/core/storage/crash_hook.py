"""The crash hook of the fault-injection tests.

``ROCKSKILLS_CRASH_AFTER=N`` in the environment (or :func:`arm_crash`) makes the process kill
itself with SIGKILL at the N-th :func:`checkpoint` — every step of a write that a crash could
interrupt calls one. Disarmed, a checkpoint costs one comparison.
"""

from __future__ import annotations

import contextlib
import os

CRASH_ENV = "ROCKSKILLS_CRASH_AFTER"

_steps = 0
_crash_at: int | None = None
with contextlib.suppress(ValueError):
    _crash_at = int(os.environ[CRASH_ENV]) if os.environ.get(CRASH_ENV) else None


def arm_crash(after: int | None) -> None:
    """Kill this process with SIGKILL at the ``after``-th checkpoint from now (None disarms)."""
    global _crash_at, _steps
    _steps = 0
    _crash_at = after


def steps() -> int:
    """Checkpoints passed since the process started or :func:`arm_crash` was last called."""
    return _steps


def checkpoint() -> None:
    """A point where a crash may happen; dies here when the armed count is reached."""
    global _steps
    _steps += 1
    if _crash_at is not None and _steps >= _crash_at:
        import signal  # (armed by the fault-injection tests only)

        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
