"""The recall index of a library kept between opens, beside its scan cache (issue 19).

Building the BM25 index of 100,000 skills costs seconds of Python; loading the index a previous
open built costs a fraction of that. The index is a function of its documents alone -- each
skill's folded name and its document text, in candidate (load) order -- and those are a function
of each skill's name and summary. So the file keeps, with the index's whole state
(:func:`~rockskills_gui.core.recall.bm25_build.snapshot`), the ``(name, summary)`` of every
skill in candidate order, and the session index text made of them:

- when the library's skills have exactly those names and summaries in that order, the index and
  the text are taken as they are: what a fresh build gives (the same documents, so the same
  postings, lengths and order, and scores bit-identical: every score is computed from those);
- when a few differ, the kept index is brought up to date by the index's own exact edits
  (remove, replace, add, reorder: the same scores as a rebuild) and kept again; when many
  differ, it is built anew;
- the file is used only for the same parser (a fingerprint of the indexing code) and is ignored
  when it cannot be read, fails its digest, or holds a state no index could have had.

Records are :mod:`marshal` (plain values: loading cannot run code) in chunks, so that neither
writing nor reading holds the interpreter lock long (the UI thread runs beside the loader).
"""

from __future__ import annotations

import hashlib
import marshal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from rockskills_gui.core.library.stores.scan_cache import code_fingerprint
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.size_limits import CACHE_FILE_MAX_BYTES
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.bm25 import document_text
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.bm25_state import IndexState, restore, snapshot
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.skill_recall import RecallBuilder, SkillRecall
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.records import record_bytes, write_record
from rockskills_gui.core.storage.tempfiles import replaced_privately

FORMAT = 2
MAGIC = "rockskills-recall-index"
CHUNK = 2000  # list items per record
REBUILD_FRACTION = 0.1  # above this share of changed documents, the index is built anew
# What decides the index and the session text made from (name, summary) in order.
_CODE = ("core/recall/bm25.py", "core/recall/bm25_index.py", "core/recall/bm25_build.py",
         "core/recall/bm25_postings.py", "core/recall/bm25_words.py", "core/recall/bm25_texts.py",
         "core/recall/bm25_state.py", "core/recall/index_cache.py", "core/recall/index_text.py",
         "core/model/names.py")
_LIST_TAGS = ("names", "summaries", "keys", "free", "words", "risky", "text_edits")
# (big arrays are single records of bytes: marshal writes and reads them without the GIL churn
# of many small objects)

Pairs = list[tuple[str, str | None]]


@dataclass(frozen=True)
class Cached:
    """What the file held: each skill's ``(name, summary)`` in candidate order, the index state
    and the session index text."""

    pairs: Pairs
    state: IndexState
    session_text: str | None


class RecallCache:
    """The recall index file of one library (``ScanCache.recall_path``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity = (MAGIC, FORMAT, code_fingerprint(_CODE))
        self.outcome = ""  # what the last :func:`cached_recall` did: hit, updated, built, fed

    def load(self) -> Cached | None:
        """The file's content, or None when it is missing, stale or damaged."""
        try:  # (a FIFO or a link to /dev/zero put there is refused, never read)
            data = memoryview(fileio.read_regular(self.path, CACHE_FILE_MAX_BYTES))
        except OSError:
            return None
        try:
            return self._parse(data)
        except (EOFError, ValueError, TypeError, KeyError, IndexError):
            return None

    def _parse(self, data: memoryview) -> Cached | None:
        digest = hashlib.blake2b(digest_size=16)
        offset = 0
        lists: dict[str, list[Any]] = {tag: [] for tag in _LIST_TAGS}
        scalars: dict[str, Any] = {}
        first = True
        while True:
            blob, offset = record_bytes(data, offset)
            tag, value = marshal.loads(blob)
            if tag == "end":
                if value != digest.digest():
                    return None
                break
            digest.update(blob)
            if first:
                if tag != "identity" or tuple(value) != self.identity:
                    return None
                first = False
            elif tag in lists:
                lists[tag].extend(value)
            else:
                scalars[tag] = value
        names, summaries = lists["names"], lists["summaries"]
        if len(names) != len(summaries):
            return None
        block, sizes = scalars["text_block"]
        state = IndexState(keys=lists["keys"], free=lists["free"], length=scalars["length"],
                           pos=scalars["pos"], next_pos=scalars["next_pos"], words=lists["words"],
                           left_words=scalars["left_words"], terms=tuple(scalars["terms"]),
                           pairs=tuple(scalars["pairs"]),
                           risky=[tuple(item) for item in lists["risky"]],
                           texts=(block, sizes, [tuple(item) for item in lists["text_edits"]]))
        return Cached(list(zip(names, summaries, strict=True)), state, scalars["session"])

    def save(self, pairs: Pairs, state: IndexState, session_text: str | None) -> None:
        """Replace the file (atomically; a failure leaves no file, never a broken one)."""
        digest = hashlib.blake2b(digest_size=16)

        def write(handle: BinaryIO, tag: str, value: Any) -> None:
            digest.update(write_record(handle, (tag, value)))

        with replaced_privately(self.path) as handle:  # names and summaries: the user's only
            write(handle, "identity", self.identity)
            lists: dict[str, Sequence[Any]] = {"names": [name for name, _ in pairs],
                     "summaries": [summary for _, summary in pairs],
                     "keys": state.keys, "free": state.free, "words": state.words,
                     "risky": state.risky, "text_edits": state.texts[2]}
            for tag, items in lists.items():
                for chunk in _chunks(items):
                    write(handle, tag, chunk)
                    time.sleep(0)  # the UI thread gets the interpreter between chunks
            for tag, value in (("length", state.length), ("pos", state.pos),
                               ("next_pos", state.next_pos), ("left_words", state.left_words),
                               ("terms", state.terms), ("pairs", state.pairs),
                               ("text_block", state.texts[:2]), ("session", session_text)):
                write(handle, tag, value)
            write_record(handle, ("end", digest.digest()))


def _chunks(items: Sequence[Any]) -> Iterator[list[Any]]:
    if not items:
        yield []
    for start in range(0, len(items), CHUNK):
        yield list(items[start:start + CHUNK])


def _release(cached: Cached) -> None:
    """Empty the file's big lists a chunk at a time: hundreds of thousands of objects freed at
    once hold the interpreter lock (and the UI thread) for tens of milliseconds."""
    state = cached.state
    for items in (cached.pairs, state.keys, state.words, state.risky):
        while items:
            del items[-CHUNK:]


def _documents(skills: Sequence[Skill]) -> list[tuple[str, str]]:
    return [(fold(s.name), document_text(s.name, s.summary)) for s in skills]


def _update(index: Bm25Index, documents: list[tuple[str, str]]) -> bool:
    """Make ``index`` hold ``documents`` in that order with its exact edits; False (nothing
    done) when more than :data:`REBUILD_FRACTION` of them differ: a rebuild is quicker."""
    wanted = dict(documents)
    if len(wanted) != len(documents):
        raise ValueError("skill names must be unique case-insensitively")
    kept = dict(index.documents())
    gone = [key for key in kept if key not in wanted]
    changed = [key for key, text in documents if kept.get(key) != text]
    if len(gone) + len(changed) > REBUILD_FRACTION * max(len(documents), 1):
        return False
    for key in gone:
        index.remove(key)
    for key in changed:
        if key in kept:
            index.replace(key, wanted[key])
        else:
            index.add(key, wanted[key])
    order = [key for key, _ in documents]
    if index.keys() != order:
        index.set_order(order)
    return True


def cached_recall(skills: Sequence[Skill], cache: RecallCache | None,
                  fed: RecallBuilder | None = None) -> tuple[SkillRecall, str | None]:
    """The recall index of ``skills`` (candidate order) and their session index text: from
    ``cache`` when it holds them (see the module doc), else from what ``fed`` was given while
    the library was read, else built; kept in ``cache`` for the next open when it changed."""
    with gc_paused():  # hundreds of thousands of new objects: no collection passes meanwhile
        pairs = [(s.name, s.summary) for s in skills]
        cached = cache.load() if cache is not None else None
        index: Bm25Index | None = None
        if cached is not None and cached.pairs == pairs:
            try:
                index = restore(cached.state)
            except (ValueError, TypeError):
                index = None
            else:
                assert cache is not None
                cache.outcome = "hit"
                text = cached.session_text
                _release(cached)
                return SkillRecall.with_index(index, skills), text
        outcome = "built"
        if fed is not None and len(fed.recall):
            recall = fed.build(skills)
            outcome = "fed"
        else:
            documents = _documents(skills)
            if cached is not None:
                try:
                    index = restore(cached.state)
                    if not _update(index, documents):
                        index = None
                except (ValueError, TypeError, KeyError):
                    index = None
            if cached is not None:
                _release(cached)
            del cached
            if index is not None:
                recall = SkillRecall.with_index(index, skills)
                outcome = "updated"
            else:
                recall = SkillRecall(skills)
        text = session_index_text(skills)
        if cache is not None:
            cache.outcome = outcome
            try:
                cache.save(pairs, snapshot(recall.index), text)
            except (OSError, ValueError):
                pass  # built again next time
        return recall, text
