"""The tool calls in a chat-completions reply, read from its JSON here (not by a client library),
so a malformed reply is a clear :class:`LlmReplyError` and never a crash.

Where calls are found, first that applies:

1. ``choices[0].message.tool_calls`` (``[{"function": {"name", "arguments"}}]``; ``arguments`` a
   JSON text, or an object as some servers send it);
2. ``choices[0].message.function_call`` (the older single call);
3. calls a model wrote as text in ``content`` (assumed, as OpenAI-compatible servers without
   native tool calling leave them): ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
   blocks (Hermes / Qwen templates), or a content that is only such a JSON object.

A call whose arguments are not a JSON object is kept with ``arguments`` None (the caller decides
what that means); the text of the reply is kept, cut to :data:`CONTENT_KEPT` characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.llm.errors import LlmReplyError
from rockskills_gui.core.model.dotnet_json import loads_untrusted

CONTENT_KEPT = 2000
SOURCE_NATIVE, SOURCE_LEGACY, SOURCE_TEXT = "tool_calls", "function_call", "text"
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    """One call: the tool's name and its arguments (None: not a JSON object)."""

    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str
    source: str


@dataclass(frozen=True)
class ToolReply:
    """What a reply says: its tool calls in order, its text, and why it stopped."""

    calls: tuple[ToolCall, ...]
    content: str
    finish_reason: str | None = None
    model: str | None = None


def _arguments(value: object) -> tuple[dict[str, Any] | None, str]:
    if isinstance(value, dict):
        return value, ""
    if not isinstance(value, str):
        return None, repr(value)[:200]
    if not value.strip():
        return {}, value  # "no arguments" as some servers write it
    try:
        parsed = loads_untrusted(value)
    except ValueError:
        return None, value[:200]
    return (parsed, value[:200]) if isinstance(parsed, dict) else (None, value[:200])


def _call(function: object, source: str) -> ToolCall:
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise LlmReplyError("a tool call without a function name")
    arguments, raw = _arguments(function.get("arguments", function.get("parameters")))
    return ToolCall(function["name"], arguments, raw, source)


def _text_calls(content: str) -> list[ToolCall]:
    blocks = _TAGGED.findall(content)
    if not blocks:
        stripped = content.strip()
        if not (stripped.startswith("{") and stripped.endswith("}")):
            return []
        blocks = [stripped]
    calls: list[ToolCall] = []
    for block in blocks:
        try:
            value = loads_untrusted(block)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("function"), dict):
            value = value["function"]
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            calls.append(_call(value, SOURCE_TEXT))
    return calls


def parse_reply(body: bytes, mask: Callable[[str], str] = lambda text: text) -> ToolReply:
    """The tool calls and text of a chat-completions reply ``body`` (``mask`` removes secrets
    from its text first); raises :class:`LlmReplyError` with one readable reason."""
    try:
        text = mask(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise LlmReplyError("the reply is not UTF-8 text") from None
    try:
        data = loads_untrusted(text)
    except ValueError as exc:
        raise LlmReplyError(f"the reply is not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise LlmReplyError("the reply is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LlmReplyError("the reply has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise LlmReplyError("the reply's first choice has no message")
    content = message.get("content")
    content = content if isinstance(content, str) else ""
    finish = choices[0].get("finish_reason")
    model = data.get("model")
    native = message.get("tool_calls")
    if native is not None and not isinstance(native, list):
        raise LlmReplyError("the reply's tool_calls is not a list")
    calls: list[ToolCall] = []
    for item in native or []:
        if not isinstance(item, dict):
            raise LlmReplyError("a tool call that is not an object")
        calls.append(_call(item.get("function"), SOURCE_NATIVE))
    if not calls and message.get("function_call") is not None:
        calls.append(_call(message.get("function_call"), SOURCE_LEGACY))
    if not calls and content:
        calls = _text_calls(content)
    return ToolReply(tuple(calls), content[:CONTENT_KEPT], finish if isinstance(finish, str) else None,
                     model if isinstance(model, str) else None)
