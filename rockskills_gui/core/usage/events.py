"""Readers for RockBot's event logs: skill usage, feedback, conversation log (rockbot-skills.md §9).

Semantics follow RockBot's stores: top-level ``*.jsonl`` files only, blank or malformed lines
skipped (here also counted and reported), ``Query(since, max)`` keeps ``timestamp >= since``,
sorts ascending (stable) and takes the *first* ``max``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from sys import intern
from typing import Any, Generic, TypeVar

from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.names import is_dotnet_whitespace, is_null_or_whitespace
from rockskills_gui.core.model.rules import RESOURCE_USAGE_FILE
from rockskills_gui.core.model.skill import decode_file_text
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp, TimestampError
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.layout import CONVERSATION_LOG, FEEDBACK_DIR, USAGE_DIR

E = TypeVar("E")


class SignalType(IntEnum):
    """FeedbackSignalType, written as an integer."""

    Correction = 0
    ToolFailure = 1
    SessionSummary = 2
    UserThumbsUp = 3
    UserThumbsDown = 4


def signal_name(value: int) -> str:
    """The enum name RockBot prints in prompts (an undefined value prints as its number)."""
    try:
        return SignalType(value).name
    except ValueError:
        return str(value)


@dataclass(frozen=True, slots=True)
class UsageEvent:
    id: str | None
    skill_name: str | None
    session_id: str | None
    timestamp: Timestamp


@dataclass(frozen=True, slots=True)
class ResourceCheckout:
    """SkillResourceCheckoutEvent (RockBot (current)): a ``get_skill_resource`` read."""

    skill_name: str | None
    filename: str | None
    session_id: str | None
    timestamp: Timestamp


@dataclass(frozen=True, slots=True)
class FeedbackEntry:
    id: str | None
    session_id: str | None
    signal_type: int
    summary: str | None
    detail: str | None
    timestamp: Timestamp

    @property
    def signal_name(self) -> str:
        return signal_name(self.signal_type)


@dataclass(frozen=True, slots=True)
class ConversationTurn:
    session_id: str | None
    role: str | None
    content: str | None
    timestamp: Timestamp


@dataclass(frozen=True, slots=True)
class MalformedLine:
    """A line RockBot would skip: file (relative to the agent dir), 1-based line number, reason."""

    path: str
    line: int
    reason: str


@dataclass
class EventLog(Generic[E]):
    """Events in read order plus the lines that could not be read."""

    events: list[E] = field(default_factory=list)
    malformed: list[MalformedLine] = field(default_factory=list)

    def query(self, since: Timestamp | None = None, max_count: int | None = None) -> list[E]:
        """RockBot's ``QueryRecent``: ``timestamp >= since``, stable ascending sort, first max."""
        floor = since.utc_ticks if since is not None else None
        kept = [e for e in self.events
                if floor is None or e.timestamp.utc_ticks >= floor]  # type: ignore[attr-defined]
        kept.sort(key=lambda e: e.timestamp.utc_ticks)  # type: ignore[attr-defined]
        return kept if max_count is None else kept[:max_count]


class _LineError(ValueError):
    pass


def _str(props: dict[str, Any], key: str) -> str | None:
    value = props.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _LineError(f"'{key}' must be a string")


def _ts(props: dict[str, Any], key: str = "timestamp") -> Timestamp:
    if key not in props:
        return MIN_VALUE
    value = props[key]
    if not isinstance(value, str):
        raise _LineError(f"'{key}' must be a date string")
    try:
        return Timestamp.parse(value)
    except TimestampError as exc:
        raise _LineError(str(exc)) from None


def _shared(value: str | None) -> str | None:
    """One string object for every event naming the same skill or session (100,000 events of a
    few thousand names and sessions: ~13 MB fewer copies)."""
    return value if value is None else intern(value)


def _usage(props: dict[str, Any]) -> UsageEvent:
    return UsageEvent(_str(props, "id"), _shared(_str(props, "skillname")),
                      _shared(_str(props, "sessionid")), _ts(props))


def _checkout(props: dict[str, Any]) -> ResourceCheckout:
    return ResourceCheckout(_str(props, "skillname"), _str(props, "filename"),
                            _str(props, "sessionid"), _ts(props))


def _feedback(props: dict[str, Any]) -> FeedbackEntry:
    raw = props.get("signaltype", 0)
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise _LineError("'signalType' must be an integer")
    return FeedbackEntry(_str(props, "id"), _str(props, "sessionid"), raw,
                         _str(props, "summary"), _str(props, "detail"), _ts(props))


def _turn(props: dict[str, Any]) -> ConversationTurn:
    return ConversationTurn(_str(props, "sessionid"), _str(props, "role"), _str(props, "content"),
                            _ts(props))


def _read_lines(path: Path, shown: str, parse: Callable[[dict[str, Any]], E],
                log: EventLog[E]) -> None:
    try:
        text, _ = decode_file_text(fileio.read_regular(path))  # a FIFO: refused, never blocks
    except OSError as exc:
        log.malformed.append(MalformedLine(shown, 0, f"cannot read: {untrusted.reason(path, exc)}"))
        return
    # File.ReadAllLines: \r\n, \r or \n end a line (not str.splitlines' longer list)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line or (is_dotnet_whitespace(line[0]) and is_null_or_whitespace(line)):
            continue
        try:
            props = dotnet_json.loads_props(line)
            log.events.append(parse(props))
        except (dotnet_json.JsonReadError, _LineError) as exc:
            log.malformed.append(MalformedLine(shown, number, str(exc)))


def _listed(path: Path) -> bool:
    """A log file RockBot would try to read: anything but a folder (a FIFO or a dangling link is
    reported as unreadable, never opened)."""
    return (path.exists() or path.is_symlink()) and not path.is_dir()


def _read_folder(agent_dir: Path, folder: str, parse: Callable[[dict[str, Any]], E]) -> EventLog[E]:
    log: EventLog[E] = EventLog()
    directory = agent_dir / folder
    if not directory.is_dir():
        return log
    try:
        files = sorted(p for p in directory.iterdir() if p.name.endswith(".jsonl") and _listed(p))
    except OSError as exc:  # an unreadable folder is reported; the other logs are read
        why = untrusted.reason(directory, exc)
        log.malformed.append(MalformedLine(folder, 0, f"cannot read the folder: {why}"))
        return log
    for path in files:
        _read_lines(path, f"{folder}/{path.name}", parse, log)
    return log


def read_usage(agent_dir: Path) -> EventLog[UsageEvent]:
    """``skill-usage/*.jsonl`` (top level only, files in sorted name order)."""
    return _read_folder(agent_dir, USAGE_DIR, _usage)


def read_resource_usage(agent_dir: Path) -> EventLog[ResourceCheckout]:
    """``skill-resource-usage.jsonl`` in the agent folder (FileSkillResourceUsageStore, RockBot
    (current)): one line per resource read, in file order; an absent file is an empty log."""
    log: EventLog[ResourceCheckout] = EventLog()
    path = agent_dir / RESOURCE_USAGE_FILE
    if _listed(path):
        _read_lines(path, RESOURCE_USAGE_FILE, _checkout, log)
    return log


def read_feedback(agent_dir: Path) -> EventLog[FeedbackEntry]:
    """``feedback/*.jsonl`` (top level only, files in sorted name order)."""
    return _read_folder(agent_dir, FEEDBACK_DIR, _feedback)


def read_conversation_log(agent_dir: Path) -> EventLog[ConversationTurn]:
    """``conversation-log/turns.jsonl`` in file order."""
    log: EventLog[ConversationTurn] = EventLog()
    path = agent_dir / CONVERSATION_LOG
    if _listed(path):
        _read_lines(path, CONVERSATION_LOG, _turn, log)
    return log


def malformed_summary(logs: Sequence[EventLog[Any]]) -> list[MalformedLine]:
    """Every malformed line across several logs."""
    return [m for log in logs for m in log.malformed]


LogSignature = tuple[tuple[str, int, int], ...]


def usage_log_signature(agent_dir: Path) -> LogSignature:
    """Name, size and modification time of each ``skill-usage/*.jsonl`` file (and the resource
    usage file): a log read while this was the signature is out of date once it differs (a
    running agent appended events). Only ``stat`` calls; nothing is read."""
    found: list[tuple[str, int, int]] = []
    folder = agent_dir / USAGE_DIR
    try:
        paths = [p for p in folder.iterdir() if p.name.endswith(".jsonl")]
    except OSError:
        paths = []
    for path in sorted([*paths, agent_dir / RESOURCE_USAGE_FILE]):
        try:
            stat = path.stat()
        except OSError:
            continue
        found.append((path.name, stat.st_size, stat.st_mtime_ns))
    return tuple(found)
