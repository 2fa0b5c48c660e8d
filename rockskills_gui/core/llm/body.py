"""A response body read with a size limit (issue 35, item 15): refused from the length it declares,
or once more than the limit has come (nothing past it is read), as :class:`LlmReplyTooLarge` with
the size said. The dream's client and trigger evals both read their replies through it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rockskills_gui.core.llm.errors import LlmReplyTooLarge
from rockskills_gui.core.model.size_limits import shown_size

MAX_REPLY_CHARS = 2_000_000  # far above what a model writes in one reply (~500,000 at 128k tokens)
# the reply's characters JSON-escaped (at most 6 bytes each) and the response around them
MAX_RESPONSE_BYTES = 6 * MAX_REPLY_CHARS + 1_000_000
CHUNK = 1 << 16


class CappedBody:
    """The chunks of one body, at most ``limit`` bytes; ``refused`` ends the message of a larger
    one (default: "responses larger than <limit> are not read")."""

    def __init__(self, headers: Mapping[str, str], limit: int = MAX_RESPONSE_BYTES,
                 refused: str | None = None) -> None:
        self.limit = limit
        self.refused = refused or f"responses larger than {shown_size(limit)} are not read"
        self._chunks: list[bytes] = []
        self._size = 0
        declared = headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise LlmReplyTooLarge(self._message(int(declared), more=False))

    def add(self, chunk: bytes) -> None:
        """Keep ``chunk`` (raises :class:`LlmReplyTooLarge` once the limit is passed)."""
        self._size += len(chunk)
        if self._size > self.limit:
            self._chunks.clear()
            raise LlmReplyTooLarge(self._message(self._size, more=True))
        self._chunks.append(chunk)

    def bytes(self) -> bytes:
        return b"".join(self._chunks)

    def _message(self, size: int, more: bool) -> str:
        return f"the server's response is {'over ' if more else ''}{shown_size(size)}; {self.refused}"


def read_body(response: Any, limit: int = MAX_RESPONSE_BYTES, refused: str | None = None) -> bytes:
    """The body of a streamed ``openai`` response (``with_streaming_response``), at most ``limit``
    bytes of it (see :class:`CappedBody`)."""
    body = CappedBody(response.headers, limit, refused)
    for chunk in response.iter_bytes(CHUNK):
        body.add(chunk)
    return body.bytes()


async def read_body_async(response: Any, limit: int = MAX_RESPONSE_BYTES,
                          refused: str | None = None) -> bytes:
    """:func:`read_body` for an ``openai.AsyncOpenAI`` streamed response."""
    body = CappedBody(response.headers, limit, refused)
    async for chunk in response.iter_bytes(CHUNK):
        body.add(chunk)
    return body.bytes()
