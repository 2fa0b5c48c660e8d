"""Readers for RockBot's event logs: skill usage, feedback, conversation log (rockbot-skills.md §9).

Semantics follow RockBot's stores: top-level ``*.jsonl`` files only, blank or malformed lines
skipped (here also counted and reported), ``Query(since, max)`` keeps ``timestamp >= since``,
sorts ascending (stable) and takes the *first* ``max``.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from sys import intern
from typing import Any, Generic, TypeVar

from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.names import is_dotnet_whitespace, is_null_or_whitespace
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.rules import RESOURCE_USAGE_FILE
from rockskills_gui.core.model.size_limits import LOG_FILE_MAX_BYTES, LOG_LINE_MAX_BYTES, shown_size
from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp, TimestampError
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.layout import CONVERSATION_LOG, FEEDBACK_DIR, USAGE_DIR
from rockskills_gui.core.storage.line_reader import read_lines

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
class ArchivedUsageEvent(UsageEvent):
    """A usage event only the app's usage archive still has: RockBot's retention pass deleted or
    trimmed the log line (see :mod:`~rockskills_gui.core.usage.archive`)."""


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
    """A line RockBot would skip: file (relative to the agent dir), 1-based line number, reason.
    Line 0 is the whole file, not read (a FIFO, too large: ``kind`` says which)."""

    path: str
    line: int
    reason: str
    kind: ProblemKind = ProblemKind.MALFORMED_LINES


@dataclass
class EventLog(Generic[E]):
    """Events in read order plus the lines that could not be read."""

    events: list[E] = field(default_factory=list)
    malformed: list[MalformedLine] = field(default_factory=list)
    archived: int = 0  # events only the usage archive still has (ArchivedUsageEvent)

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


# A usage event line exactly as RockBot writes it (string values without escapes): its properties
# are these four strings, so the JSON parse is skipped (1,000,000 events: ~40% less time).
_USAGE_LINE = re.compile(r'\{"id":"([^"\\\x00-\x1f]*)","skillName":"([^"\\\x00-\x1f]*)",'
                         r'"sessionId":"([^"\\\x00-\x1f]*)","timestamp":"([^"\\\x00-\x1f]*)"\}')


def _plain_usage(groups: tuple[str, ...]) -> UsageEvent:
    """:func:`_usage` of a line :data:`_USAGE_LINE` matched (its four strings)."""
    event_id, skill, session, when = groups
    try:
        timestamp = Timestamp.parse(when)
    except TimestampError as exc:
        raise _LineError(str(exc)) from None
    return UsageEvent(event_id, intern(skill), intern(session), timestamp)


def _archived_usage(props: dict[str, Any]) -> UsageEvent:
    return ArchivedUsageEvent(*_fields(_usage(props)))


def _plain_archived_usage(groups: tuple[str, ...]) -> UsageEvent:
    return ArchivedUsageEvent(*_fields(_plain_usage(groups)))


def _fields(event: UsageEvent) -> tuple[str | None, str | None, str | None, Timestamp]:
    return event.id, event.skill_name, event.session_id, event.timestamp


def _parse_lines(lines: Iterable[tuple[int, str | None]], shown: str,
                 parse: Callable[[dict[str, Any]], E], log: EventLog[E],
                 shape: re.Pattern[str] | None = None,
                 plain: Callable[[tuple[str, ...]], E] | None = None) -> None:
    """The events of ``lines`` (``read_lines`` pairs) into ``log``; a line over
    ``LOG_LINE_MAX_BYTES`` and one that is not an event are reported. A line that ``shape``
    matches whole is made by ``plain`` from the match's groups."""
    for number, line in lines:
        if line is None:
            log.malformed.append(MalformedLine(
                shown, number, f"line longer than {shown_size(LOG_LINE_MAX_BYTES)}: skipped"))
            continue
        if not line or (is_dotnet_whitespace(line[0]) and is_null_or_whitespace(line)):
            continue
        try:
            match = shape.fullmatch(line) if shape is not None else None
            if match is not None and plain is not None:
                log.events.append(plain(match.groups()))
            else:
                log.events.append(parse(dotnet_json.loads_props(line)))
        except (dotnet_json.JsonReadError, _LineError) as exc:
            log.malformed.append(MalformedLine(shown, number, str(exc)))


def parse_usage_lines(lines: Iterable[tuple[int, str | None]], shown: str,
                      log: EventLog[UsageEvent], archived: bool = False) -> None:
    """The usage events of ``lines`` (``(number, text)`` as ``read_lines`` gives them, shown as
    ``shown`` in reports) appended to ``log``; ``archived``: as :class:`ArchivedUsageEvent`."""
    if not archived:
        _parse_lines(lines, shown, _usage, log, _USAGE_LINE, _plain_usage)
        return
    before = len(log.events)
    _parse_lines(lines, shown, _archived_usage, log, _USAGE_LINE, _plain_archived_usage)
    log.archived += len(log.events) - before


def unread_file(path: Path, shown: str, exc: OSError) -> MalformedLine:
    """The report for a log file that could not be read at all (line 0)."""
    if isinstance(exc, fileio.TooLarge):
        return MalformedLine(shown, 0, exc.reason, ProblemKind.TOO_LARGE)
    return MalformedLine(shown, 0, f"cannot read: {untrusted.reason(path, exc)}",
                         ProblemKind.UNREADABLE)


def _read_lines(path: Path, shown: str, parse: Callable[[dict[str, Any]], E],
                log: EventLog[E], shape: re.Pattern[str] | None = None,
                plain: Callable[[tuple[str, ...]], E] | None = None) -> None:
    """Every line of one log (streamed: a FIFO is refused, a file over ``LOG_FILE_MAX_BYTES`` is
    not read, a line over ``LOG_LINE_MAX_BYTES`` is skipped; each is reported)."""
    try:
        _parse_lines(read_lines(path, LOG_LINE_MAX_BYTES, LOG_FILE_MAX_BYTES), shown, parse, log,
                     shape, plain)
    except OSError as exc:
        log.malformed.append(unread_file(path, shown, exc))


def listed(path: Path) -> bool:
    """A log file RockBot would try to read: anything but a folder (a FIFO or a dangling link is
    reported as unreadable, never opened)."""
    return (path.exists() or path.is_symlink()) and not path.is_dir()


def _read_folder(agent_dir: Path, folder: str, parse: Callable[[dict[str, Any]], E],
                 shape: re.Pattern[str] | None = None,
                 plain: Callable[[tuple[str, ...]], E] | None = None) -> EventLog[E]:
    log: EventLog[E] = EventLog()
    directory = agent_dir / folder
    if not directory.is_dir():
        return log
    try:
        files = sorted(p for p in directory.iterdir() if p.name.endswith(".jsonl") and listed(p))
    except OSError as exc:  # an unreadable folder is reported; the other logs are read
        why = untrusted.reason(directory, exc)
        log.malformed.append(MalformedLine(folder, 0, f"cannot read the folder: {why}",
                                           ProblemKind.UNREADABLE))
        return log
    for path in files:
        _read_lines(path, f"{folder}/{path.name}", parse, log, shape, plain)
    return log


_last_usage: tuple[Path, LogSignature, weakref.ref[EventLog[UsageEvent]]] | None = None


def read_usage(agent_dir: Path) -> EventLog[UsageEvent]:
    """``skill-usage/*.jsonl`` (top level only, files in sorted name order).

    While a log read before is still in use and no log file changed since (same names, sizes
    and times: :func:`usage_log_signature`), that very log is given again (treat it as read-only):
    a dream run reads the log for its passes and again for its recall guard, each ~4 s at
    1,000,000 events."""
    global _last_usage
    signature = usage_log_signature(agent_dir)
    if _last_usage is not None and _last_usage[0] == agent_dir and _last_usage[1] == signature:
        kept = _last_usage[2]()
        if kept is not None:
            return kept
    log = _read_folder(agent_dir, USAGE_DIR, _usage, _USAGE_LINE, _plain_usage)
    _last_usage = (agent_dir, signature, weakref.ref(log))
    return log


def read_resource_usage(agent_dir: Path) -> EventLog[ResourceCheckout]:
    """``skill-resource-usage.jsonl`` in the agent folder (FileSkillResourceUsageStore, RockBot
    (current)): one line per resource read, in file order; an absent file is an empty log."""
    log: EventLog[ResourceCheckout] = EventLog()
    path = agent_dir / RESOURCE_USAGE_FILE
    if listed(path):
        _read_lines(path, RESOURCE_USAGE_FILE, _checkout, log)
    return log


def read_feedback(agent_dir: Path) -> EventLog[FeedbackEntry]:
    """``feedback/*.jsonl`` (top level only, files in sorted name order)."""
    return _read_folder(agent_dir, FEEDBACK_DIR, _feedback)


def read_conversation_log(agent_dir: Path) -> EventLog[ConversationTurn]:
    """``conversation-log/turns.jsonl`` in file order."""
    log: EventLog[ConversationTurn] = EventLog()
    path = agent_dir / CONVERSATION_LOG
    if listed(path):
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
