"""A helper process of a parallel scan (``python -m rockskills_gui.core.stores.scan_worker``).

It reads one pickle from stdin: the display prefix and a list of ``(path, relative path)``; reads
those skill files exactly as the sequential scan does (:func:`rockbot._read`), and writes the
results to stdout in chunks: an 8-byte little-endian length, then a pickle of a list of compact
tuples (see :func:`encode`), one per file, in order. Nothing else is written to stdout.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

CHUNK = 1000

Encoded = tuple[Any, ...]


def encode(result: Any) -> Encoded:
    """A LoadedFile or Problem as plain values (pickling pydantic models is several times slower)."""
    from rockskills_gui.core.problems import Problem

    if isinstance(result, Problem):
        return (1, result.path, result.kind.value, result.message, result.name)
    skill = result.skill

    def stamp(value: Any) -> tuple[int, int] | None:
        return None if value is None else (value.ticks, value.offset_minutes)

    return (0, result.raw, skill.name, skill.summary, skill.content, stamp(skill.created_at),
            stamp(skill.updated_at), stamp(skill.last_used_at), skill.see_also)


def main() -> int:
    prefix, files = pickle.loads(sys.stdin.buffer.read())  # before the imports: the parent waits
    from rockskills_gui.core.stores.rockbot import _read, gc_paused

    out = sys.stdout.buffer
    with gc_paused():
        for start in range(0, len(files), CHUNK):
            chunk = [encode(_read(None, where, rel, prefix)) for where, rel in files[start:start + CHUNK]]
            blob = pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)
            out.write(len(blob).to_bytes(8, "little"))
            out.write(blob)
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
