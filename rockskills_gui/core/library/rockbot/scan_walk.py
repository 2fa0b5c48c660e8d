"""The listing of a large skills folder and every skill file's signature, made by a helper process
while the scan loads its cache (issue 19).

A warm open of 100,000 skills spent about a quarter of its time listing the folders and taking
each file's signature (``lstat``), one CPU only; the other CPU was idle. When a scan cache worth
it exists, the scan starts this helper (``python -m rockskills_gui.core.library.rockbot.scan_walk``)
before it loads the cache: the helper runs the scan's own listing (``skill_files._walk``: the same
files in the same order, the same temp files, odd entries and symbolic links) and then takes
each file's signature (``scan_cache.stat_signature``), as the scan would after its listing. It
reads one pickle from stdin, ``(skills folder, RockBot rules)``, and writes :mod:`marshal`
records to stdout (plain values; each an 8-byte little-endian length, then the record): temps,
odd entries as problems' fields and links; then the files with their signatures in chunks of
:data:`CHUNK` (one record of 100,000 would hold the interpreter lock, and the UI, for 50 ms to
load); then ``None``. Anything else -- no helper, a helper that fails -- and the scan lists the
folder itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import BinaryIO, NamedTuple

from rockskills_gui.core.library.stores.scan_cache import ScanCache, Signature
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.rules import RockBotRules
from rockskills_gui.core.storage.helper_process import DrainedHelper, lower_priority
from rockskills_gui.core.storage.records import read_record, write_record

WALK_FROM_BYTES = 8_000_000  # a cache this big (some 5,000 skills) pays for a helper's start
CHUNK = 5000  # files per record


class Listing(NamedTuple):
    """What ``skill_files._walk`` gives, plus each file's signature after the listing."""

    files: list[tuple[str, str]]
    temps: list[Path]
    odd: list[Problem]
    links: list[tuple[str, str]]
    signatures: list[Signature | None]


class WalkHelper:
    """The helper process of one scan; :meth:`result` waits for its listing."""

    def __init__(self, skills_dir: Path, rules: RockBotRules) -> None:
        def feed(stdin: BinaryIO) -> None:
            import pickle  # (a large library's scan only: not for the app's start)

            pickle.dump((os.fspath(skills_dir), rules), stdin, protocol=pickle.HIGHEST_PROTOCOL)

        self._helper = DrainedHelper("rockskills_gui.core.library.rockbot.scan_walk",
                                     name="scan-walk", feed=feed)

    @classmethod
    def start(cls, skills_dir: Path, rules: RockBotRules, cache: ScanCache,
              allowed: bool) -> WalkHelper | None:
        """A helper when a helper process is ``allowed`` and ``cache`` holds enough skills to
        pay for one, else None."""
        try:
            big = allowed and os.stat(cache.path).st_size >= WALK_FROM_BYTES
        except OSError:
            big = False
        if not big:
            return None
        try:
            return cls(skills_dir, rules)
        except OSError:
            return None

    def wait(self, timeout: float) -> bool:
        """Whether the helper is done (waits up to ``timeout`` seconds)."""
        return self._helper.wait(timeout)

    def result(self) -> Listing | None:
        """The listing (after :meth:`wait` said done), or None when the helper failed."""
        blob = self._helper.output()
        if blob is None:
            return None
        data = memoryview(blob)
        try:
            (temps, odd, links), offset = read_record(data, 0)
            files: list[tuple[str, str]] = []
            signatures: list[Signature | None] = []
            while (chunk := read_record(data, offset))[0] is not None:
                (part, sigs), offset = chunk
                files.extend(part)
                signatures.extend(sigs)
            if len(files) != len(signatures):
                return None
            return Listing(
                files, [Path(t) for t in temps],
                [Problem(path=path, kind=ProblemKind(kind), message=message, severity=severity)
                 for path, kind, severity, message in odd], list(links), signatures)
        except (EOFError, ValueError, TypeError):
            return None
        finally:
            data.release()

    def cancel(self) -> None:
        self._helper.cancel()


def main() -> int:
    """The helper: list the folder as the scan does and take each file's signature."""
    import pickle

    lower_priority()
    skills_dir, rules = pickle.load(sys.stdin.buffer)
    from rockskills_gui.core.library.rockbot.skill_files import _walk
    from rockskills_gui.core.library.stores.scan_cache import stat_signature

    temps: list[Path] = []
    odd: list[Problem] = []
    links: list[tuple[str, str]] = []
    files = _walk(Path(skills_dir), temps, odd, links, rules)
    out = sys.stdout.buffer
    write_record(out, ([os.fspath(t) for t in temps],
                 [(p.path, p.kind.value, p.severity, p.message) for p in odd], links))
    for start in range(0, len(files), CHUNK):
        part = files[start:start + CHUNK]
        write_record(out, (part, [stat_signature(where) for where, _ in part]))
    write_record(out, None)
    out.flush()
    return 0


def wait_listing(helper: WalkHelper, cancelled: object) -> Listing | None:
    """:meth:`WalkHelper.result` once done, checking ``cancelled()`` every 50 ms (it stops the
    helper and returns None: the caller raises its own cancellation)."""
    while not helper.wait(0.05):
        if callable(cancelled) and cancelled():
            helper.cancel()
            return None
    return helper.result()


if __name__ == "__main__":
    sys.exit(main())
