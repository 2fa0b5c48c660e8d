"""RockBot agent data directory: where things live and how skill files are found and read (§1, §4)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.rockbot import scan_worker
from rockskills_gui.core.library.rockbot.scan_walk import WalkHelper, wait_listing
from rockskills_gui.core.library.rockbot.skill_file import (  # noqa: F401
    FOLDER_NAMED_JSON,
    LoadedFile,
    PathMaker,
    _prefix,
    _read,
    decode,
    outside_link,
    read_skill_file,
)
from rockskills_gui.core.library.rockbot.skill_files import _walk
from rockskills_gui.core.library.stores.scan_cache import (
    Encoded,
    ScanCache,
    Signature,
    settled,
    stat_signature,
)
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, RockBotRules
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.helper_process import WORKERS_ENV as WORKERS_ENV
from rockskills_gui.core.storage.helper_process import helpers_allowed, spawn, usable_cpus
from rockskills_gui.core.storage.layout import (  # noqa: F401
    AGENT_MARKERS,
    CONVERSATION_LOG,
    FEEDBACK_DIR,
    SKILLS_DIR,
    USAGE_DIR,
    Layout,
    NotALibraryError,
)


def iter_skill_files(skills_dir: Path) -> Iterator[Path]:
    """``skills/**/*.json`` breadth-first, names sorted by code point in each folder.

    This is the load (BM25 candidate) order the fixtures use; RockBot's own is the OS order.
    Symlinked folders are not followed.
    """
    for path, _ in _walk(skills_dir):
        yield Path(path)


def odd_skill_files(skills_dir: Path) -> tuple[list[Path], list[tuple[Path, Problem]]]:
    """(``skills/**/*.json`` regular files in load order, other ``*.json`` entries with the
    problem each is: FIFOs, dangling links, folders named like skill files)."""
    odd: list[Problem] = []
    files = [Path(where) for where, _ in _walk(skills_dir, odd=odd)]
    return files, [(skills_dir / p.path, p) for p in odd]


class ScanCancelled(Exception):
    """The scan was cancelled before it finished (nothing was loaded)."""


Progress = Callable[[int, int], None]
SkillsRead = Callable[[list[Skill]], None]
CHUNK = 500  # files read between two progress reports / cancel checks
PARALLEL_FROM = 20_000  # files from which helper processes pay for their start (~0.3 s)
MAX_WORKERS = 4


def scan(layout: Layout, progress: Progress | None = None, cancel: Callable[[], bool] | None = None,
         temps: list[Path] | None = None, workers: int | None = None,
         parallel_from: int | None = None,
         on_skills: SkillsRead | None = None,
         rules: RockBotRules = ROCKBOT_64E82CC,
         cache: ScanCache | None = None) -> tuple[list[LoadedFile], list[Problem]]:
    """Read every skill file in load order; case collisions become problems for every file involved.

    ``progress(done, total)`` is called after the folders were listed (done = 0) and as files are
    read; ``cancel()`` is checked as often and raises :class:`ScanCancelled` when true. Temp files
    seen on the way (``*.rsg-tmp``) are appended to ``temps``. From ``parallel_from`` (default
    :data:`PARALLEL_FROM`) files on, the
    files are read by ``workers`` helper processes (default: :func:`default_workers`), with the
    same result. When helpers read, ``on_skills(skills)`` is given the skills of each chunk as it
    arrives (each helper's part in order), so that work on them (the recall index) overlaps the
    reading; skills that a case collision excludes at the end were given too. Without helpers it
    is not called: there is nothing to overlap, and interleaving made the whole slower.

    With ``cache`` (:mod:`~rockskills_gui.core.library.stores.scan_cache`), a file whose
    signature proves it unchanged since it was read before is not read again: the result is
    the one reading it gives. Only the other files are read (by helpers when they are many);
    ``on_skills`` is then called only when no cached result was used. When the cache is large
    and helpers are allowed, a helper process lists the folder and takes the signatures while
    this process loads the cache (:mod:`~rockskills_gui.core.library.rockbot.scan_walk`).
    """
    started_ns = time.time_ns()
    count = default_workers() if workers is None else workers
    # A big folder is listed (and its files' signatures taken) by a helper process while this one
    # loads the cache: the same listing (scan_walk).
    helper = WalkHelper.start(layout.skills_dir, rules, cache, helpers_allowed()) \
        if cache is not None else None
    # (in a list that the reading empties: it frees the entries gradually, see _read_cached)
    preloaded = [cache.load()] if cache is not None and helper is not None else []
    listing = wait_listing(helper, cancel) if helper is not None else None
    if cancel is not None and cancel():
        raise ScanCancelled("cancelled while listing the files")
    signatures: list[Signature | None] | None = None
    if listing is not None:
        files, odd, links, signatures = listing.files, listing.odd, listing.links, listing.signatures
        if temps is not None:
            temps.extend(listing.temps)
    else:
        odd, links = [], []
        files = _walk(layout.skills_dir, temps, odd, links, rules)
    prefix = _prefix(layout)
    problems: list[Problem] = [p.model_copy(update={"path": prefix + p.path}) for p in odd]
    loaded: list[LoadedFile] = []
    total = len(files)
    if progress is not None:
        progress(0, total)
    threshold = PARALLEL_FROM if parallel_from is None else parallel_from
    with gc_paused():  # millions of new objects: no point walking them again and again
        if cache is not None:
            results = _read_cached(files, prefix, cache, started_ns, count, threshold, progress,
                                   cancel, on_skills, preloaded, signatures)
        elif count > 1 and total >= threshold:
            results = _read_in_processes(files, prefix, count, progress, cancel, on_skills)
        else:
            results = _read_here(files, prefix, progress, cancel)
        for result in results:
            if isinstance(result, Problem):
                problems.append(result)
            else:
                loaded.append(result)
    groups: dict[str, list[LoadedFile]] = {}
    for item in loaded:
        groups.setdefault(fold(item.skill.name), []).append(item)
    colliding = {id(item) for group in groups.values() if len(group) > 1 for item in group}
    if colliding:
        for group in groups.values():
            if len(group) < 2:
                continue
            names = ", ".join(f"'{g.skill.name}'" for g in group)
            for item in group:
                problems.append(Problem(
                    path=layout.display_path(item.path), kind=ProblemKind.CASE_COLLISION,
                    name=item.skill.name,
                    message=f"names differ only by case ({names}); RockBot keeps one of them "
                            "at random (the last file it enumerates)",
                ))
        loaded = [item for item in loaded if id(item) not in colliding]
    if links:
        linked = {where for where, _ in links}
        for item in loaded:
            if str(item.path) in linked:
                warning = outside_link(layout, item.path, item.skill.name)
                if warning is not None:
                    problems.append(warning)
    while groups:  # (100,000 lists: freed bit by bit, as below, not in one long pause)
        groups.popitem()
    free_gradually(files, results)
    return loaded, problems


def default_workers() -> int:
    """Reader processes for a large scan: ``ROCKSKILLS_SCAN_WORKERS``, else one per usable CPU
    but the one this process keeps (at most :data:`MAX_WORKERS`) from 3 CPUs on, else none (1: read
    here; also in a frozen app, whose executable is not a Python).

    On 2 CPUs two readers and this process compete for two cores and cost more than they save:
    ``rockskills recall`` on 100,000 skills took longer with two than with none (issue 34; and
    reading here now leaves the recall index, built in one vectorised pass after the reading,
    nothing to overlap). One reader alone was slower than none too (issue 19).
    """
    configured = os.environ.get(WORKERS_ENV, "")
    if configured.isdigit():
        return max(1, int(configured))
    if getattr(sys, "frozen", False):
        return 1
    cpus = usable_cpus()
    return 1 if cpus < 3 else min(cpus - 1, MAX_WORKERS)


def _read_here(files: list[tuple[str, str]], prefix: str, progress: Progress | None,
               cancel: Callable[[], bool] | None,
               on_skills: SkillsRead | None = None,
               signatures: list[Signature | None] | None = None,
               done_before: int = 0, grand_total: int | None = None) -> list[LoadedFile | Problem]:
    """Read ``files`` in order; with ``signatures``, each file's signature after the read is
    appended to it (for the scan cache)."""
    results: list[LoadedFile | Problem] = []
    total = len(files)
    shown_total = total if grand_total is None else grand_total
    paths = PathMaker()
    for start in range(0, total, CHUNK):
        if cancel is not None and cancel():
            raise ScanCancelled(f"cancelled after {start:,} of {total:,} files")
        chunk = []
        for where, rel in files[start:start + CHUNK]:
            chunk.append(_read(None, where, rel, prefix, paths))
            if signatures is not None:
                signatures.append(stat_signature(where))
        results.extend(chunk)
        _tell(on_skills, chunk)
        if progress is not None:
            progress(done_before + min(start + CHUNK, total), shown_total)
    return results


# Problems that only a file's bytes (and its path) decide: their results may be cached.
_CACHEABLE_PROBLEMS = frozenset({ProblemKind.PARSE_ERROR.value, ProblemKind.MISSING_NAME.value,
                                 ProblemKind.INVALID_UTF8.value, ProblemKind.INVALID_NAME.value,
                                 ProblemKind.NAME_MISMATCH.value})


FREE_PIECE = 2_000  # items freed at a time (~0.5 ms each)


def _read_cached(files: list[tuple[str, str]], prefix: str, cache: ScanCache, started_ns: int,
                 count: int, threshold: int, progress: Progress | None,
                 cancel: Callable[[], bool] | None,
                 on_skills: SkillsRead | None,
                 preloaded: list[dict[str, tuple[Signature, Encoded]]] | None = None,
                 signatures: list[Signature | None] | None = None) -> list[LoadedFile | Problem]:
    """:func:`scan`'s reading with a cache: cached results of unchanged files, the rest read
    (``preloaded``: the cache's content, already loaded, taken out of the list; ``signatures``:
    each file's, taken after the listing, when already taken)."""
    stored = preloaded.pop() if preloaded else cache.load()
    total = len(files)
    paths = PathMaker()
    results: list[LoadedFile | Problem | None] = [None] * total
    before: list[Signature | None] = []
    misses: list[int] = []
    keep: dict[str, tuple[Signature, Encoded]] = {}
    for start in range(0, total, CHUNK):
        if cancel is not None and cancel():
            raise ScanCancelled(f"cancelled after {start:,} of {total:,} files")
        for index in range(start, min(start + CHUNK, total)):
            where, rel = files[index]
            sig = stat_signature(where) if signatures is None else signatures[index]
            before.append(sig)
            hit = stored.get(rel) if sig is not None else None
            if hit is not None and hit[0] == sig:
                results[index] = decode(hit[1], paths(where))
                keep[rel] = hit
            else:
                misses.append(index)
        if progress is not None:
            progress(min(start + CHUNK, total) - len(misses), total)
    cache.hits = total - len(misses)
    cache.read = len(misses)
    del stored
    missed = [files[i] for i in misses]
    after: list[Signature | None] = []
    encoded: list[Encoded | None] = []
    feed = on_skills if cache.hits == 0 else None
    if count > 1 and len(missed) >= threshold:
        read = _read_in_processes(missed, prefix, count, progress, cancel, feed, after, encoded,
                                  cache.hits, total)
    else:
        read = _read_here(missed, prefix, progress, cancel, feed, after, cache.hits, total)
    changed = len(keep) != cache.hits or bool(missed)
    for position, (index, result) in enumerate(zip(misses, read, strict=True)):
        results[index] = result
        sig = before[index]
        if sig is None or sig != after[position] or not settled(sig, started_ns):
            continue
        if isinstance(result, Problem) and result.kind.value not in _CACHEABLE_PROBLEMS:
            continue
        item = encoded[position] if position < len(encoded) and encoded[position] is not None \
            else scan_worker.encode(result)
        assert item is not None
        keep[files[index][1]] = (sig, item)
    if changed:
        try:
            cache.save((rel, sig, item) for rel, (sig, item) in keep.items())
        except (OSError, ValueError):
            pass  # no cache next time: the files are read
    while keep:  # freed a few at a time: dropping 100,000 encoded skills at once held the GIL 50 ms
        keep.popitem()
    # The same for what the helpers sent and the signatures: on a first open, returning with them
    # (some 400,000 objects) held the GIL, and the UI, for ~70 ms.
    free_gradually(encoded, after, before, missed, misses)
    done: list[LoadedFile | Problem] = []
    for slot in results:
        assert slot is not None
        done.append(slot)
    return done


def free_gradually(*lists: list[Any]) -> None:
    """Empty ``lists`` :data:`FREE_PIECE` items at a time, so that other threads (the UI) get the
    interpreter between the pieces instead of waiting for one long deallocation."""
    for items in lists:
        while items:
            del items[-FREE_PIECE:]


def _tell(on_skills: SkillsRead | None, chunk: list[LoadedFile | Problem]) -> None:
    if on_skills is not None:
        on_skills([item.skill for item in chunk if not isinstance(item, Problem)])


class _Worker:
    """One helper process reading a contiguous part of the file list."""

    def __init__(self, part: list[tuple[str, str]], prefix: str) -> None:
        self.part = part
        self.results: list[LoadedFile | Problem] = []
        self.signatures: list[Signature | None] = []  # each file's after its read
        self.encoded: list[Encoded | None] = []  # each result as the helper sent it
        self.paths = PathMaker()
        self.proc = spawn("rockskills_gui.core.library.rockbot.scan_worker", stdin=True)
        self.prefix = prefix

    def send(self) -> None:
        """The request, as scan_worker reads it: the prefix, then the file list in pickles of
        REQUEST_CHUNK (one pickle of 50,000 paths holds the GIL, and the UI, for ~35 ms)."""
        import pickle  # (with the helper processes: a large library's scan)

        stdin = self.proc.stdin
        assert stdin is not None
        pickle.dump(self.prefix, stdin, protocol=pickle.HIGHEST_PROTOCOL)
        for start in range(0, len(self.part), scan_worker.REQUEST_CHUNK):
            pickle.dump(self.part[start:start + scan_worker.REQUEST_CHUNK], stdin,
                        protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(None, stdin, protocol=pickle.HIGHEST_PROTOCOL)
        stdin.close()

    def receive(self, on_skills: SkillsRead | None = None) -> int:
        """Read one chunk of results (blocking); returns how many files it held (0: finished)."""
        assert self.proc.stdout is not None
        header = self.proc.stdout.read(8)
        if len(header) < 8:
            return 0
        blob = self.proc.stdout.read(int.from_bytes(header, "little"))
        import pickle

        items = pickle.loads(blob)
        offset = len(self.results)
        chunk = [decode(item, self.paths(self.part[offset + i][0]))
                 for i, (item, _) in enumerate(items)]
        self.results.extend(chunk)
        self.encoded.extend(item for item, _ in items)
        self.signatures.extend(sig for _, sig in items)
        _tell(on_skills, chunk)
        return len(items)

    @property
    def done(self) -> bool:
        return len(self.results) >= len(self.part)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                try:
                    stream.close()
                except OSError:  # the request's unsent rest, to a helper that died
                    pass


def _read_in_processes(files: list[tuple[str, str]], prefix: str, count: int,
                       progress: Progress | None, cancel: Callable[[], bool] | None,
                       on_skills: SkillsRead | None = None,
                       signatures: list[Signature | None] | None = None,
                       encoded: list[Encoded | None] | None = None,
                       done_before: int = 0, grand_total: int | None = None
                       ) -> list[LoadedFile | Problem]:
    """Read ``files`` in ``count`` helper processes, in order; what a helper could not deliver
    (it failed to start or died) is read here instead. With ``signatures`` and ``encoded``, each
    file's signature after its read and its result as plain values are appended to them."""
    size = -(-len(files) // count)
    parts = [files[i:i + size] for i in range(0, len(files), size)]
    workers: list[_Worker] = []
    try:
        try:
            workers = [_Worker(part, prefix) for part in parts]
            for worker in workers:
                worker.send()
        except OSError:
            return _read_here(files, prefix, progress, cancel, on_skills, signatures)
        total = len(files)
        shown_total = total if grand_total is None else grand_total
        import pickle  # (the helper processes' records; loaded by their requests already)
        import selectors

        selector = selectors.DefaultSelector()
        for worker in workers:
            assert worker.proc.stdout is not None
            selector.register(worker.proc.stdout, selectors.EVENT_READ, worker)
        while selector.get_map():
            if cancel is not None and cancel():
                raise ScanCancelled("cancelled")
            for key, _ in selector.select(timeout=0.05):
                worker = key.data
                try:
                    got = worker.receive(on_skills)
                except (OSError, EOFError, pickle.UnpicklingError, ValueError):
                    got = 0
                if not got:
                    selector.unregister(key.fileobj)
                elif progress is not None:
                    progress(done_before + sum(len(w.results) for w in workers), shown_total)
        selector.close()
        results: list[LoadedFile | Problem] = []
        for worker in workers:
            if not worker.done:  # a helper died: read the rest of its part here
                rest = worker.part[len(worker.results):]
                worker.results.extend(_read_here(rest, prefix, None, cancel, on_skills,
                                                 worker.signatures))
                worker.encoded.extend([None] * len(rest))
            results.extend(worker.results)
            if signatures is not None:
                signatures.extend(worker.signatures)
            if encoded is not None:
                encoded.extend(worker.encoded)
        if progress is not None:
            progress(done_before + total, shown_total)
        return results
    finally:
        for worker in workers:
            worker.stop()
