"""The listing of a large skills folder and every skill file's signature, made by a helper process
while the scan loads its cache (issue 19).

A warm open of 100,000 skills spent about a quarter of its time listing the folders and taking
each file's signature (``lstat``), one CPU only; the other CPU was idle. When a scan cache worth
it exists, the scan starts this helper (``python -m rockskills_gui.core.library.stores.scan_walk``)
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

import marshal
import os
import pickle
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from rockskills_gui.core.library.stores.scan_cache import ScanCache, Signature
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.rules import RockBotRules

WALK_FROM_BYTES = 8_000_000  # a cache this big (some 5,000 skills) pays for a helper's start
NICENESS = 10  # as the scan's helpers: the UI thread never waits for a core because of them
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
        self._blob = b""
        root = str(Path(__file__).resolve().parents[4])  # the folder holding rockskills_gui/
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH", "")) if p)}
        import subprocess  # (only when a helper starts: not at start-up)

        self._proc = subprocess.Popen(
            [sys.executable, "-m", "rockskills_gui.core.library.stores.scan_walk"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            pickle.dump((os.fspath(skills_dir), rules), stdin, protocol=pickle.HIGHEST_PROTOCOL)
            stdin.close()
        except OSError:
            self.cancel()
            raise
        self._reader = threading.Thread(target=self._drain, name="scan-walk", daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, skills_dir: Path, rules: RockBotRules, cache: ScanCache,
              workers: int) -> WalkHelper | None:
        """A helper when helper processes are allowed (``workers`` > 1) and ``cache`` holds
        enough skills to pay for one, else None."""
        try:
            big = workers > 1 and os.stat(cache.path).st_size >= WALK_FROM_BYTES
        except OSError:
            big = False
        if not big:
            return None
        try:
            return cls(skills_dir, rules)
        except OSError:
            return None

    def _drain(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            self._blob = stdout.read()
        except (OSError, ValueError):
            self._blob = b""
        finally:
            stdout.close()
            self._proc.wait()

    def wait(self, timeout: float) -> bool:
        """Whether the helper is done (waits up to ``timeout`` seconds)."""
        self._reader.join(timeout)
        return not self._reader.is_alive()

    def result(self) -> Listing | None:
        """The listing (after :meth:`wait` said done), or None when the helper failed."""
        if self._reader.is_alive() or self._proc.returncode != 0:
            return None
        data = memoryview(self._blob)
        try:
            (temps, odd, links), offset = _record(data, 0)
            files: list[tuple[str, str]] = []
            signatures: list[Signature | None] = []
            while (chunk := _record(data, offset))[0] is not None:
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
            self._blob = b""

    def cancel(self) -> None:
        if self._proc.poll() is None:
            try:
                self._proc.kill()
            except OSError:
                pass


def main() -> int:
    """The helper: list the folder as the scan does and take each file's signature."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):
        pass
    skills_dir, rules = pickle.load(sys.stdin.buffer)
    from rockskills_gui.core.library.stores.scan_cache import stat_signature
    from rockskills_gui.core.library.stores.skill_files import _walk

    temps: list[Path] = []
    odd: list[Problem] = []
    links: list[tuple[str, str]] = []
    files = _walk(Path(skills_dir), temps, odd, links, rules)
    out = sys.stdout.buffer
    _write(out, ([os.fspath(t) for t in temps],
                 [(p.path, p.kind.value, p.severity, p.message) for p in odd], links))
    for start in range(0, len(files), CHUNK):
        part = files[start:start + CHUNK]
        _write(out, (part, [stat_signature(where) for where, _ in part]))
    _write(out, None)
    out.flush()
    return 0


def _write(out: BinaryIO, value: Any) -> None:
    blob = marshal.dumps(value)
    out.write(len(blob).to_bytes(8, "little"))
    out.write(blob)


def _record(data: memoryview, offset: int) -> tuple[Any, int]:
    """The record at ``offset`` and the offset after it (EOFError past the end)."""
    if offset + 8 > len(data):
        raise EOFError("truncated")
    end = offset + 8 + int.from_bytes(data[offset:offset + 8], "little")
    if end > len(data):
        raise EOFError("truncated")
    return marshal.loads(data[offset + 8:end]), end


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
