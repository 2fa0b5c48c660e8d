"""What reading each skill file of a RockBot library gave, kept between opens outside the library.

Reading 100,000 skill files costs seconds of system calls and parsing; checking that they did
not change costs one ``stat`` each. This cache (one file per skills folder in the user's cache
folder, :func:`~rockskills_gui.core.storage.appdirs.cache_dir`) keeps, per skill file, the result
of :func:`~rockskills_gui.core.library.rockbot.skill_file._read` -- the skill and the file's
exact bytes, or the problem its bytes are -- with the file's *signature*: device, inode, size,
modification and change times in nanoseconds. A cached result is used only when the file has
that signature now, so it is exactly what reading the file would give:

- a file written since has a new change time (``st_ctime`` follows every write and cannot be set
  back by anyone but the clock), a file replaced (an atomic save, a rename over it) a new inode;
- a result is kept only when the file's signature was the same before and after it was read
  (nothing wrote it meanwhile), and only when its change and modification times lie more than
  :data:`RACY_NS` before the read began. A file changed again within the same tick of a coarse
  file-system clock (whole seconds, or two on FAT) keeps its size and times; such a file is
  "racy" (git's word) and is read every time until it is old enough to prove it is unchanged;
- symbolic links, unreadable entries and anything else whose result does not depend on the
  bytes alone are never kept; files the cache does not know (added, renamed) are read;
- the whole cache is used only for the same skills folder, display prefix, RockBot profile and
  parser (a fingerprint of the reading code), and is ignored when it cannot be read.

The file is written with :mod:`marshal` (plain values only: loading it cannot run code), in
chunks, so that neither writing nor reading holds the interpreter lock long (the UI thread runs
beside the loader).
"""

from __future__ import annotations

import os
import stat as stat_module
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

try:  # hashlib.blake2b is this very function; importing hashlib loads OpenSSL (~2.5 ms at start)
    from _blake2 import blake2b
except ImportError:  # (a Python built without it)
    from hashlib import blake2b

from rockskills_gui import __version__
from rockskills_gui.core.model.rules import RockBotRules
from rockskills_gui.core.model.size_limits import CACHE_FILE_MAX_BYTES
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.records import read_record, write_record
from rockskills_gui.core.storage.tempfiles import replaced_privately

FORMAT = 1
MAGIC = "rockskills-scan-cache"
RACY_NS = 3_000_000_000  # results of files changed less than this before the read are not kept
CHUNK = 500  # entries per marshal record (2,000: each load held the interpreter lock 20-40 ms)
CACHE_ENV_OFF = "ROCKSKILLS_NO_SCAN_CACHE"  # set (non-empty) to read every file every time

Signature = tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns
Encoded = tuple[Any, ...]  # scan_worker.encode's tuple
Entry = tuple[Signature, Encoded]

# The modules whose code decides what reading a skill file gives: a change to any of them (a
# new version, an edited checkout) makes every cached result stale.
_CODE = ("core/model", "core/library/rockbot/skill_file.py", "core/library/rockbot/scan_worker.py",
         "core/library/stores/scan_cache.py", "core/storage/fileio.py",
         "core/storage/untrusted.py")
_fingerprints: dict[tuple[str, ...], str] = {}


def signature(info: os.stat_result) -> Signature | None:
    """What must be unchanged for a result to stand (None: not a regular file, never kept)."""
    if not stat_module.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def stat_signature(where: str) -> Signature | None:
    """:func:`signature` of ``where`` without following a symbolic link (a link: None)."""
    try:
        return signature(os.lstat(where))
    except (OSError, ValueError):
        return None


def settled(sig: Signature, started_ns: int) -> bool:
    """Whether a file with ``sig``, read after ``started_ns``, can later prove it is unchanged:
    its times lie well before the read (see the module doc on racy files)."""
    limit = started_ns - RACY_NS
    return sig[3] < limit and sig[4] < limit


def code_fingerprint(code: tuple[str, ...] = _CODE) -> str:
    """A digest of the reading code, or of the ``code`` given (paths below the package: modules
    and folders of modules), with the package version (all there is without source files)."""
    known = _fingerprints.get(code)
    if known is None:
        digest = blake2b(f"{FORMAT} {__version__}".encode(), digest_size=16)
        package = Path(__file__).resolve().parents[3]
        for rel in code:
            path = package / rel
            files = sorted(path.glob("*.py")) if path.is_dir() else [path]
            for file in files:
                try:
                    digest.update(file.name.encode() + b"\0" + file.read_bytes())
                except OSError:
                    digest.update(file.name.encode() + b"\0?")
        known = _fingerprints[code] = digest.hexdigest()
    return known


class ScanCache:
    """The cache file of one skills folder (see the module doc)."""

    def __init__(self, folder: Path, skills_dir: Path, prefix: str, rules: RockBotRules) -> None:
        where = os.fspath(skills_dir.resolve())
        self.identity = (MAGIC, FORMAT, code_fingerprint(), where, prefix, repr(rules))
        name = blake2b(where.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
        self.path = folder / f"scan-{name}.bin"
        self.recall_path = folder / f"recall-{name}.bin"  # the recall index (core.recall.index_cache)
        self.hits = 0  # results used by the last scan (tests, the benchmark)
        self.read = 0  # files the last scan read

    @staticmethod
    def enabled() -> bool:
        return not os.environ.get(CACHE_ENV_OFF)

    def load(self) -> dict[str, Entry]:
        """Relative path -> (signature, encoded result); empty when missing, stale or damaged."""
        entries: dict[str, Entry] = {}
        try:  # (a FIFO or a link to /dev/zero put there is refused, never read)
            data = memoryview(fileio.read_regular(self.path, CACHE_FILE_MAX_BYTES))
            offset = 0
            identity, offset = read_record(data, offset)
            if identity != self.identity:
                return {}
            while (chunk_and_offset := read_record(data, offset))[0] is not None:
                chunk, offset = chunk_and_offset
                for rel, sig, encoded in chunk:
                    entries[rel] = (sig, encoded)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return entries

    def save(self, entries: Iterable[tuple[str, Signature, Encoded]]) -> None:
        """Replace the cache file (atomically; a failure leaves no cache, never a broken one)."""
        with replaced_privately(self.path) as handle:  # the skills' text: the user's only
            write_record(handle, self.identity)
            for chunk in _chunks(entries, CHUNK):
                write_record(handle, chunk)
                time.sleep(0)  # let the UI thread have the interpreter between chunks
            write_record(handle, None)

    def clear(self) -> None:
        """Remove the cache file and the recall index kept beside it."""
        for path in (self.path, self.recall_path):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def _chunks(items: Iterable[tuple[str, Signature, Encoded]], size: int
            ) -> Iterator[list[tuple[str, Signature, Encoded]]]:
    chunk: list[tuple[str, Signature, Encoded]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
