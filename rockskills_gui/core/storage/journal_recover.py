"""Recovery: finishing (or rolling back) a transaction a crash interrupted, when the library is next
opened; only sealed entries are acted on, and only inside the skills folder (see :mod:`.journal`)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.storage import fileio, journal_seal, links
from rockskills_gui.core.storage.changes import LibraryError
from rockskills_gui.core.storage.checksum import sha256
from rockskills_gui.core.storage.journal_entries import (
    has_pending,
    journal_temps,
    leftovers,
    mark_undone,
    scan,
)
from rockskills_gui.core.storage.journal_paths import JOURNAL_DIR, journal_found
from rockskills_gui.core.storage.journal_tx import (
    JOURNAL_FILE,
    Transaction,
    TxFile,
    TxState,
    UntrustedJournal,
    is_inside,
)
from rockskills_gui.core.storage.journal_write import (
    check_target,
    finish,
    link_refusal,
    remove_created_dirs,
)
from rockskills_gui.core.storage.layout import Layout


@dataclass
class RecoveryReport:
    """What :func:`recover` did: transactions completed, rolled back or discarded, files it left
    alone because someone else changed them, and journal entries it refused to act on."""

    completed: list[str] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    removed_temps: list[str] = field(default_factory=list)  # left by a writer that crashed
    untrusted: list[str] = field(default_factory=list)  # entries not ours, or pointing outside

    @property
    def empty(self) -> bool:
        return not (self.completed or self.rolled_back or self.discarded or self.conflicts
                    or self.removed_temps or self.untrusted)

    def merge(self, other: RecoveryReport) -> None:
        for attr in ("completed", "rolled_back", "discarded", "conflicts", "removed_temps", "untrusted"):
            getattr(self, attr).extend(getattr(other, attr))

    def lines(self) -> list[str]:
        return ([f"completed an interrupted change ({t})" for t in self.completed]
                + [f"rolled back an interrupted change ({t})" for t in self.rolled_back]
                + [f"discarded an unfinished journal entry ({t})" for t in self.discarded]
                + [f"left alone (changed by someone else): {p}" for p in self.conflicts]
                + [f"removed a temporary file of an interrupted save: {p}"
                   for p in self.removed_temps]
                + [f"journal entry refused: {u}" for u in self.untrusted])


def journal_problems(report: RecoveryReport | None) -> list[Problem]:
    """The journal entries recovery refused, as Problems (shown beside the skill problems)."""
    if report is None:
        return []
    problems = []
    for line in report.untrusted:
        where, _, why = line.partition(": ")
        problems.append(Problem(path=where, kind=ProblemKind.UNTRUSTED_JOURNAL, severity="warning",
                                message=f"journal entry not acted on: {why}"))
    return problems


def _targets_of(tx: Transaction, layout: Layout) -> list[Path]:
    """Every file path of ``tx``, checked like a new write (inside the skills folder, normalised,
    no symbolic link on the way); UntrustedJournal for the first that is not."""
    paths: list[Path] = []
    for entry in tx.files:
        rel = entry.path
        if not isinstance(rel, str) or not rel or "\0" in rel or rel.startswith("/") or "\\" in rel:
            raise UntrustedJournal(f"{tx.id}: a file path that is not a plain relative path")
        path = layout.agent_dir / rel
        try:
            check_target(layout, path)
        except LibraryError as exc:
            raise UntrustedJournal(f"{tx.id}: {exc}") from None
        paths.append(path)
    for rel in tx.created_dirs:
        if not isinstance(rel, str) or "\0" in rel \
                or not is_inside(Path(os.path.normpath(layout.agent_dir / rel)), layout.skills_dir):
            raise UntrustedJournal(f"{tx.id}: a folder outside the skills folder")
    return paths


def recover(layout: Layout, policy: str = "complete") -> RecoveryReport:
    """Finish every interrupted transaction: ``complete`` writes the after state, ``rollback`` the
    before state. A file in neither state was changed by someone else and is left as it is. A
    transaction whose writer still holds its lock is left to that writer; one that is not sealed
    by this user's app for this library, or names a path outside its skills folder, is reported in
    :attr:`RecoveryReport.untrusted` and not touched. Folders are left as the finished (or never
    started) transaction would have left them, and journal leftovers (unfinished entries of ours,
    finished ephemeral ones, temp files) are removed."""
    if policy not in ("complete", "rollback"):
        raise ValueError("policy must be 'complete' or 'rollback'")
    report = RecoveryReport()
    agent_dir = layout.agent_dir
    found = scan(agent_dir)
    report.untrusted.extend(found.untrusted)
    for folder in found.unfinished:
        fileio.remove_tree(folder, last=journal_seal.OWNER_FILE)
        report.discarded.append(folder.name)
    for tx in leftovers(found):
        fileio.remove_tree(tx.folder, first=JOURNAL_FILE, last=journal_seal.OWNER_FILE)
    for temp in journal_temps(found):
        with contextlib.suppress(OSError):
            temp.unlink()
    home = layout
    for tx in found.sealed:
        if tx.state is not TxState.PREPARED or _in_progress(tx):
            continue
        try:
            _recover_one(tx, _layout_of(tx, home), policy, report)
        except UntrustedJournal as exc:
            report.untrusted.append(f"{JOURNAL_DIR.as_posix()}/{tx.id}: {exc}; left alone")
    return report


def _recover_one(tx: Transaction, layout: Layout, policy: str, report: RecoveryReport) -> None:
    agent_dir = layout.agent_dir
    paths = _targets_of(tx, layout)
    forward = policy == "complete"
    for entry in tx.files:  # every blob is checked before any file is touched
        tx.blob(entry.after if forward else entry.before,
                entry.after_sha if forward else entry.before_sha)
    for path in paths:
        report.removed_temps.extend(_remove_stale_temps_of(layout, path))
    pairs = list(zip(tx.files, paths, strict=True))
    # the files that must exist afterwards first, those that must not last (see safe_order)
    pairs.sort(key=lambda pair: (pair[0].after if forward else pair[0].before) is None)
    paired = _aliases(pairs)
    with_pair = {gone[1] for gone in paired.values()}
    for entry, path in pairs:
        if path in with_pair:
            continue  # one file with its creation's: written there
        if path in paired:
            _recover_alias(tx, layout, paired[path], (entry, path), forward, report)
            continue
        try:
            raw = fileio.read_or_none(path)
        except OSError:
            report.conflicts.append(entry.path)
            tx.notes.append(f"recovery left {entry.path} alone: not a readable regular file")
            continue
        current = sha256(raw)
        wanted_sha, wanted = ((entry.after_sha, entry.after) if forward
                              else (entry.before_sha, entry.before))
        other_sha = entry.before_sha if forward else entry.after_sha
        if current == wanted_sha:
            continue
        if current != other_sha:
            report.conflicts.append(entry.path)
            tx.notes.append(f"recovery left {entry.path} alone: changed by someone else")
            continue
        stop = layout.stop_for(path) if forward else path.parent
        try:
            fileio.replace_checked(path, raw, tx.blob(wanted, wanted_sha), stop)
        except fileio.ChangedOnDisk:
            report.conflicts.append(entry.path)
            tx.notes.append(f"recovery left {entry.path} alone: changed by someone else")
    if forward:  # folders a deletion emptied go, as they do when the transaction runs through
        for entry, path in zip(tx.files, paths, strict=True):
            if entry.after is None:
                fileio.remove_empty_parents(path.parent, layout.stop_for(path))
    else:
        remove_created_dirs(layout, tx)
    tx.notes.append(f"recovered ({policy}) at next open")
    finish(layout, tx, TxState.COMMITTED if forward else TxState.ROLLED_BACK)
    (report.completed if forward else report.rolled_back).append(tx.id)
    if forward and tx.undoes:
        mark_undone(agent_dir, tx.undoes, tx.id)


Pair = tuple[TxFile, Path]


def _aliases(pairs: list[Pair]) -> dict[Path, Pair]:
    """The deleted files that are one file with a created one (case-insensitive file system),
    by the created path (see :func:`journal_write.aliases`)."""
    gone = {str(path).casefold(): (entry, path) for entry, path in pairs
            if entry.before is not None and entry.after is None}
    found: dict[Path, Pair] = {}
    for entry, path in pairs if gone else ():
        if entry.before is None and entry.after is not None:
            other = gone.get(str(path).casefold())
            if other is not None and other[1] != path and fileio.same_file(other[1], path):
                found[path] = other
    return found


def _recover_alias(tx: Transaction, layout: Layout, gone: Pair, created: Pair, forward: bool,
                   report: RecoveryReport) -> None:
    """Finish (or roll back) a case-only rename of one file: its bytes, then its spelling."""
    (old_entry, old_path), (new_entry, new_path) = gone, created
    have, want = (old_entry, new_entry) if forward else (new_entry, old_entry)
    source, target = (old_path, new_path) if forward else (new_path, old_path)
    try:
        raw = fileio.read_or_none(source)
        current = sha256(raw)
        wanted_sha = want.after_sha if forward else want.before_sha
        if current != wanted_sha:
            if current != (have.before_sha if forward else have.after_sha):
                raise fileio.ChangedOnDisk(source)
            wanted = tx.blob(want.after if forward else want.before, wanted_sha)
            fileio.replace_checked(source, raw, wanted, layout.stop_for(source))
        os.replace(source, target)
    except (OSError, fileio.ChangedOnDisk):
        report.conflicts.append(new_entry.path)
        tx.notes.append(f"recovery left {new_entry.path} alone: changed by someone else")


def _layout_of(tx: Transaction, home: Layout) -> Layout:
    """The skills folder ``tx`` was written under (one journal can serve several SKILL.md roots),
    reached under the rule writes follow (:mod:`.links`: a link out of the library only to a
    trusted folder)."""
    rel = tx.meta.get("skillsDir")
    if not isinstance(rel, str) or not rel or "\0" in rel:
        return home
    folder = Path(os.path.normpath(home.agent_dir / rel))
    if folder != home.agent_dir and not is_inside(folder, home.agent_dir):
        raise UntrustedJournal(f"{tx.id}: its skills folder {rel[:200]!r} is not inside the library")
    found = links.blocking_link(folder, home.agent_dir, home.trusted, final=False)
    if found is not None:
        raise UntrustedJournal(f"{tx.id}: {link_refusal(home, *found)}; until then every skill is "
                               "there in its old or its new form")
    return Layout(home.agent_dir, folder, home.trusted, _floors(tx, home.agent_dir, folder))


def _floors(tx: Transaction, agent_dir: Path, folder: Path) -> tuple[Path, ...]:
    """The folders inside ``folder`` that ``tx`` recorded as kept when a removal empties them
    (anything else it names is ignored: a floor only makes a removal stop sooner)."""
    floors = tx.meta.get("floors")
    found: list[Path] = []
    for rel in floors if isinstance(floors, list) else ():
        if isinstance(rel, str) and rel and "\0" not in rel:
            path = Path(os.path.normpath(agent_dir / rel))
            if path != folder and is_inside(path, folder):
                found.append(path)
    return tuple(found)


def _remove_stale_temps_of(layout: Layout, path: Path) -> list[str]:
    """Remove temp files a crashed writer left next to ``path`` (before folders are tidied)."""
    prefix = f".{path.name}."
    try:
        with os.scandir(path.parent) as entries:
            temps = [Path(e.path) for e in entries
                     if e.name.startswith(prefix) and fileio.is_temp_name(e.name)
                     and e.is_file(follow_symlinks=False)]
    except OSError:
        return []
    return [layout.display_path(p) for p in fileio.remove_stale_temps(temps)]


def _in_progress(tx: Transaction) -> bool:
    """True while the writer of ``tx`` still holds the lock on its ``owner`` file (any process,
    this one included); an entry without an owner file is not in progress."""
    return journal_seal.owner_state(tx.folder, tx.home, tx.id) == "busy"


def recover_if_needed(layout: Layout) -> RecoveryReport | None:
    """:func:`recover` when a transaction is pending or the journal holds something that is not
    ours, else None (cheap when there is no journal folder)."""
    if not journal_found(layout.agent_dir):
        return None
    if not has_pending(layout.agent_dir):
        return None
    return recover(layout)

