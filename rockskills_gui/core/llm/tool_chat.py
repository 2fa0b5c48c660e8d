"""Chat completions that offer tools, many at once on asyncio: one connection pool, retries,
cancel by cancelling the task (the connection is closed at once), and a reply size limit.

The reply is streamed and read up to ``max_reply_bytes`` by :func:`body.read_body_async` (a
larger one is an :class:`LlmReplyTooLarge`, not read further), then parsed by
:func:`tool_calls.parse_reply` with the API key masked out. The key is passed in and only sent,
never kept in a reply or an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from rockskills_gui.core.llm.body import read_body_async
from rockskills_gui.core.llm.endpoint import Endpoint, endpoint_secrets
from rockskills_gui.core.llm.errors import RETRYABLE, LlmTimeoutError, translate
from rockskills_gui.core.llm.retry import Retries
from rockskills_gui.core.llm.tool_calls import ToolReply, parse_reply
from rockskills_gui.core.model.size_limits import MB
from rockskills_gui.core.text.redact import redact

REPLY_MAX_BYTES = 1 * MB  # a reply with a tool call is a few KB
Message = dict[str, Any]


class ToolChat:
    """``async with ToolChat(endpoint, key) as chat: reply = await chat.ask(messages, tools)``."""

    def __init__(self, endpoint: Endpoint, api_key: str | None = None, connections: int = 8,
                 max_reply_bytes: int = REPLY_MAX_BYTES) -> None:
        self.endpoint = endpoint
        self.max_reply_bytes = max_reply_bytes
        self._connections = max(1, connections)
        self.__key = api_key or ""
        self._client: Any = None

    def __repr__(self) -> str:
        return f"ToolChat({self.endpoint!r})"

    def mask(self, text: str) -> str:
        """``text`` with the API key and a password in the base URL masked, in any form."""
        return redact(text, endpoint_secrets(self.endpoint.base_url, self.__key))

    async def __aenter__(self) -> ToolChat:
        import openai  # ~0.8 s to import: only when requests are sent

        self._client = openai.AsyncOpenAI(
            api_key=self.__key or "no-key", base_url=self.endpoint.base_url,
            timeout=self.endpoint.timeout, max_retries=0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def ask(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolReply:
        """One request, retried on 429, 5xx, timeouts and unreachable servers (``Retry-After``
        honoured); raises :class:`LlmError` (a reply that cannot be read: ``LlmReplyError``)."""
        retries = Retries(self.endpoint.retries)
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._attempt(messages, tools)
            except RETRYABLE as exc:
                delay = retries.delay(exc, attempt)
                if delay is None:
                    raise
                await asyncio.sleep(delay)

    async def _attempt(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> ToolReply:
        if self._client is None:
            raise RuntimeError("use ToolChat as an async context manager")
        try:
            async with asyncio.timeout(self.endpoint.timeout + 2.0):
                create = self._client.chat.completions.with_streaming_response.create
                async with create(model=self.endpoint.model, messages=list(messages),
                                  tools=list(tools)) as response:
                    data = await read_body_async(response, self.max_reply_bytes)
        except TimeoutError:
            raise LlmTimeoutError(f"no reply within {self.endpoint.timeout:g} s") from None
        except Exception as exc:  # an LlmError from reading the body is raised as it is
            raise translate(exc, self.endpoint, self.mask) from None
        return parse_reply(data, self.mask)
