"""A helper process of a parallel scan (``python -m rockskills_gui.core.library.rockbot.scan_worker``).

It reads pickles from stdin: the display prefix, then lists of ``(path, relative path)`` up to a
``None``; reads those skill files exactly as the sequential scan does (:func:`rockbot._read`), and
writes the results to stdout in chunks: an 8-byte little-endian length, then a pickle of a list of
``(compact tuple, signature)``, one per file, in order: the result (see :func:`encode`) and the
file's signature after it was read (``scan_cache.stat_signature``: the scan cache keeps a result
only when nothing wrote the file while it was read). Nothing else is written to stdout.
"""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

CHUNK = 1000
REQUEST_CHUNK = 5000  # paths per pickle of the request

Encoded = tuple[Any, ...]


def encode(result: Any) -> Encoded:
    """A LoadedFile or Problem as plain values (pickling pydantic models is several times slower)."""
    from rockskills_gui.core.model.problems import Problem

    if isinstance(result, Problem):
        return (1, result.path, result.kind.value, result.message, result.name)
    skill = result.skill

    def stamp(value: Any) -> tuple[int, int] | None:
        return None if value is None else (value.ticks, value.offset_minutes)

    return (0, result.raw, skill.name, skill.summary, skill.content, stamp(skill.created_at),
            stamp(skill.updated_at), stamp(skill.last_used_at), skill.see_also, skill.extra)


def _request(stream: BinaryIO) -> tuple[str, list[tuple[str, str]]]:
    import pickle  # (the helper process only: not for the app's start)

    prefix = pickle.load(stream)
    files: list[tuple[str, str]] = []
    while (part := pickle.load(stream)) is not None:
        files.extend(part)
    return prefix, files


def main() -> int:
    from rockskills_gui.core.storage.helper_process import lower_priority  # (helper only)

    lower_priority()  # the app's own threads first: the UI must not wait for a core
    prefix, files = _request(sys.stdin.buffer)  # before the imports: the parent waits
    import pickle

    from rockskills_gui.core.library.rockbot.skill_file import _read
    from rockskills_gui.core.library.stores.scan_cache import stat_signature
    from rockskills_gui.core.storage.gcpause import gc_paused

    out = sys.stdout.buffer
    with gc_paused():
        for start in range(0, len(files), CHUNK):
            chunk = []
            for where, rel in files[start:start + CHUNK]:
                result = encode(_read(None, where, rel, prefix))
                chunk.append((result, stat_signature(where)))
            blob = pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)
            out.write(len(blob).to_bytes(8, "little"))
            out.write(blob)
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
