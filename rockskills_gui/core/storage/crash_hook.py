"""The hooks of the fault-injection tests.

``ROCKSKILLS_CRASH_AFTER=N`` in the environment (or :func:`arm_crash`) makes the process kill
itself with SIGKILL at the N-th :func:`checkpoint` — every step of a write that a crash could
interrupt calls one. :func:`set_checkpoint_hook` installs a callback called at every checkpoint
with its number and its label (e.g. ``"exchanged"``), so that a test can act as another writer at
exactly that step (an agent writing into the file in place while we swap it). Disarmed, a
checkpoint costs two comparisons.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

CRASH_ENV = "ROCKSKILLS_CRASH_AFTER"
CheckpointHook = Callable[[int, str], None]  # (checkpoint number, its label or "")

_steps = 0
_crash_at: int | None = None
_hook: CheckpointHook | None = None
with contextlib.suppress(ValueError):
    _crash_at = int(os.environ[CRASH_ENV]) if os.environ.get(CRASH_ENV) else None


def arm_crash(after: int | None) -> None:
    """Kill this process with SIGKILL at the ``after``-th checkpoint from now (None disarms)."""
    global _crash_at, _steps
    _steps = 0
    _crash_at = after


def set_checkpoint_hook(hook: CheckpointHook | None) -> None:
    """Call ``hook(step, label)`` at every checkpoint from now on (None removes it); for tests only.

    ``step`` counts as :func:`steps` does; ``label`` names the few steps a concurrent writer's
    tests aim at (``exchanged``, ``put back``, ``linked``, ``replaced``, ``moved aside``)."""
    global _hook
    _hook = hook


def steps() -> int:
    """Checkpoints passed since the process started or :func:`arm_crash` was last called."""
    return _steps


def checkpoint(label: str = "") -> None:
    """A point where a crash may happen; dies here when the armed count is reached."""
    global _steps
    _steps += 1
    if _hook is not None:
        _hook(_steps, label)
    if _crash_at is not None and _steps >= _crash_at:
        import signal  # (armed by the fault-injection tests only)

        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
