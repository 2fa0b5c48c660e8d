"""When to ask again: ``Retry-After``, a doubling delay, and a short budget for servers that
cannot be reached."""

from __future__ import annotations

from rockskills_gui.core.llm.errors import LlmConnectionError, LlmError

CONNECTION_RETRY_BUDGET = 3.0  # seconds of waiting to retry a server that cannot be reached


def retry_delay(exc: LlmError, attempt: int) -> float:
    """``Retry-After`` when the server sent one, else 0.5 s doubling up to 8 s."""
    if exc.retry_after is not None:
        return exc.retry_after
    return min(8.0, 0.5 * 2.0 ** (attempt - 1))


class Retries:
    """What is left of one request's retries: ``retries`` in all, and for a server that cannot
    be reached at most :data:`CONNECTION_RETRY_BUDGET` seconds of waiting (none when it refuses
    the connection on this machine: nothing listens there, no retry helps)."""

    def __init__(self, retries: int) -> None:
        self.left = max(0, retries)
        self.connection_waits = 0.0

    def delay(self, exc: LlmError, attempt: int) -> float | None:
        """Seconds to wait before trying again after ``exc``, or None: give up."""
        if self.left <= 0:
            return None
        delay = retry_delay(exc, attempt)
        if isinstance(exc, LlmConnectionError):
            if exc.refused_locally or self.connection_waits + delay > CONNECTION_RETRY_BUDGET:
                return None
            self.connection_waits += delay
        self.left -= 1
        return delay
