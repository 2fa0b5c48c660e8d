"""The usage archive: the app's own append-only copy of RockBot's usage logs, which RockBot's
retention pass never touches.

A current RockBot starts every dream cycle by pruning ``skill-usage/*.jsonl``: files not written
for 30 days are deleted, then all but the 1,000 newest, and each file left is cut to its last
50,000 lines (``JsonlLogRetention.cs``; see README, "Usage archive"). The archive keeps every line
the app has seen, so usage older than a month stays countable.

Where: ``<agent>/.rockskills/usage-archive/skill-usage/<the log's own file name>``, beside the
crash journal, outside ``skills/`` (RockBot loads nothing there and prunes only its own log
folders). It moves, is backed up and is deleted with the agent folder it describes; a key made
of the folder's path (the app's data folder) would lose it whenever the folder moves.

Each archive file holds the lines of the live file of that name, in order, each once
(:mod:`.archive_align` finds where the live file continues it). Lines are only ever appended
(:func:`~rockskills_gui.core.storage.append_file.append_lines`: a kill leaves at most a torn last
line, cut off by the next append and skipped by readers) under a lock shared by every process
(the window, a cron job), so a line is archived once however many archivers run.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.size_limits import LOG_FILE_MAX_BYTES, LOG_LINE_MAX_BYTES
from rockskills_gui.core.storage import untrusted
from rockskills_gui.core.storage.append_file import append_lines, fsync_folder, own_folder
from rockskills_gui.core.storage.file_lock import held
from rockskills_gui.core.storage.journal_paths import odd_part
from rockskills_gui.core.storage.layout import USAGE_ARCHIVE_DIR, USAGE_DIR
from rockskills_gui.core.storage.line_reader import read_lines
from rockskills_gui.core.usage.archive_align import overlap
from rockskills_gui.core.usage.events import MalformedLine, listed, unread_file

ARCHIVED_FOLDERS = (USAGE_DIR,)  # what the Usage tab reads (feedback/ is not shown there)
LOCK_FILE = "lock"
LOCK_WAIT_S = 60.0  # another archiver (the window, a cron job) holds the lock at most this long
Lines = list[tuple[int, str | None]]  # (line number, text) as read_lines gives them


class ArchiveUnavailable(OSError):
    """The archive's folder cannot be used (a symbolic link or a file in its place)."""


def archive_folder(agent_dir: Path) -> Path:
    """``<agent>/.rockskills/usage-archive``."""
    return Path(agent_dir) / USAGE_ARCHIVE_DIR


def archive_problem(agent_dir: Path) -> Path | None:
    """The first part of the archive's folder path (``.rockskills``, ``usage-archive``,
    ``skill-usage``) that is a symbolic link or not a folder: never read or written through."""
    return odd_part(agent_dir, (*Path(USAGE_ARCHIVE_DIR).parts, USAGE_DIR))


def read_log(path: Path) -> tuple[Lines, int]:
    """The lines of one log file and how many of them are whole (a last line without a line break
    may still be being written). Raises OSError (NotRegularFile, TooLarge) as ``read_lines``."""
    open_end: list[bool] = []
    lines = list(read_lines(path, LOG_LINE_MAX_BYTES, LOG_FILE_MAX_BYTES, open_end))
    return lines, len(lines) - (1 if open_end else 0)


def texts(lines: Lines) -> list[str]:
    """The text of each line as the archive holds it: a line too long to read is an empty line
    (it is no event either way, and keeps its place)."""
    return [text if text is not None else "" for _, text in lines]


def read_archived(path: Path) -> Lines:
    """The whole lines of an archive file (a torn last line left by a kill is not one); [] when
    there is none. A symbolic link or anything but a regular file raises NotRegularFile."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return []
    if stat.S_ISLNK(mode):
        from rockskills_gui.core.storage.fileio import NotRegularFile

        raise NotRegularFile(path, "symbolic link")
    lines, whole = read_log(path)
    return lines[:whole]


def live_logs(agent_dir: Path, folder: str = USAGE_DIR,
              problems: list[MalformedLine] | None = None) -> list[Path]:
    """The ``*.jsonl`` files directly in ``agent_dir/folder`` that RockBot reads, by name; a
    folder that cannot be read is reported in ``problems`` (none then)."""
    directory = Path(agent_dir) / folder
    if not directory.is_dir():
        return []
    try:
        return sorted(p for p in directory.iterdir() if p.name.endswith(".jsonl") and listed(p))
    except OSError as exc:
        if problems is not None:
            problems.append(MalformedLine(folder, 0, "cannot read the folder: "
                                          f"{untrusted.reason(directory, exc)}", ProblemKind.UNREADABLE))
        return []


def archive_files(agent_dir: Path, folder: str = USAGE_DIR) -> dict[str, Path]:
    """The archive's files for ``folder`` by name ({} when there is no archive, or its folder is
    a link); symbolic links and other odd entries are left out."""
    if archive_problem(agent_dir) is not None:
        return {}
    directory = archive_folder(agent_dir) / folder
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return {}
    return {e.name: Path(e.path) for e in entries
            if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False)}


@dataclass
class ArchiveResult:
    """What one archiving run added: lines per log file (``skill-usage/<name>``), and the files
    it could not archive (line 0 problems, as the log readers report them)."""

    folder: Path
    added: dict[str, int] = field(default_factory=dict)
    problems: list[MalformedLine] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return sum(self.added.values())


@dataclass
class _Plan:
    live: Path
    archive: Path
    stamp: tuple[int, int] | None  # the archive file's (size, mtime) when planned
    new: list[str]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    return info.st_size, info.st_mtime_ns


class _Unread(Exception):
    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(str(error))
        self.path, self.error = path, error


def _plan(live: Path, archive: Path) -> _Plan:
    """The live file's whole lines the archive does not hold yet (the archive read first: an
    archiver appends only lines it read from the live file, so the live file read after it
    continues it)."""
    stamp = _stamp(archive)
    try:
        archived = texts(read_archived(archive))
    except OSError as exc:
        raise _Unread(archive, exc) from None
    try:
        lines, whole = read_log(live)
    except OSError as exc:
        raise _Unread(live, exc) from None
    current = texts(lines[:whole])
    return _Plan(live, archive, stamp, current[overlap(archived, current):])


def _report(agent_dir: Path, path: Path, error: OSError) -> MalformedLine:
    return unread_file(path, path.relative_to(agent_dir).as_posix(), error)


def _plans(agent_dir: Path, folder: str, target: Path, result: ArchiveResult) -> Iterator[_Plan]:
    for live in live_logs(agent_dir, folder, result.problems):
        try:
            yield _plan(live, target / live.name)
        except _Unread as exc:
            result.problems.append(_report(agent_dir, exc.path, exc.error))


def archive_usage(agent_dir: Path) -> ArchiveResult:
    """Append to the archive every usage log line it does not hold yet; returns what was added.

    Idempotent: a second run adds nothing until the agent logs more. Nothing is written (not
    even a folder) when there is nothing new. Raises :class:`ArchiveUnavailable` when the
    archive's folder is a symbolic link or a file, and
    :class:`~rockskills_gui.core.storage.file_lock.LockBusy` when another archiver held the lock
    longer than :data:`LOCK_WAIT_S`."""
    agent_dir = Path(agent_dir)
    root = archive_folder(agent_dir)
    result = ArchiveResult(root)
    bad = archive_problem(agent_dir)
    if bad is not None:
        raise ArchiveUnavailable(f"{bad}: a symbolic link or not a folder; the usage archive is "
                                 "never written through it")
    for folder in ARCHIVED_FOLDERS:
        target = root / folder
        plans = [p for p in _plans(agent_dir, folder, target, result) if p.new]
        if not plans:
            continue
        own_folder(agent_dir, [*Path(USAGE_ARCHIVE_DIR).parts, folder])
        with held(root / LOCK_FILE, LOCK_WAIT_S):
            for plan in plans:
                try:
                    if _stamp(plan.archive) != plan.stamp:  # another archiver came first
                        plan = _plan(plan.live, plan.archive)
                    append_lines(plan.archive, plan.new, sync_folder=False)
                except _Unread as exc:
                    result.problems.append(_report(agent_dir, exc.path, exc.error))
                    continue
                except OSError as exc:  # (a write: no line of it is counted as archived)
                    shown = plan.archive.relative_to(agent_dir).as_posix()
                    result.problems.append(MalformedLine(
                        shown, 0, f"cannot write: {untrusted.reason(plan.archive, exc)}",
                        ProblemKind.UNREADABLE))
                    continue
                if plan.new:
                    result.added[f"{folder}/{plan.live.name}"] = len(plan.new)
            fsync_folder(target)  # the files created above, durable in one go
    return result
