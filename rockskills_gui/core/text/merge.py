"""Line-based three-way merge and readable diffs, for a buffer edited while its file changed on disk."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

MINE_MARKER = "<<<<<<< yours"
SEPARATOR = "======="
THEIRS_MARKER = ">>>>>>> on disk"


@dataclass(frozen=True)
class MergeResult:
    """The merged text and how many conflicting regions it holds (marked like git does)."""

    text: str
    conflicts: int


def merge3(base: str, mine: str, theirs: str) -> MergeResult:
    """Merge two edits of ``base`` line by line.

    A region changed on one side only takes that side; a region changed identically on both
    takes it once; a region changed differently on both sides becomes a conflict block
    ``<<<<<<< yours`` … ``=======`` … ``>>>>>>> on disk``.
    """
    if mine == theirs:
        return MergeResult(mine, 0)
    if mine == base:
        return MergeResult(theirs, 0)
    if theirs == base:
        return MergeResult(mine, 0)
    o, a, b = (text.splitlines(keepends=True) for text in (base, mine, theirs))
    a_of = _matches(o, a)
    b_of = _matches(o, b)
    out: list[str] = []
    conflicts = 0
    io = ia = ib = 0
    for i in [*range(len(o)), len(o)]:
        at_end = i == len(o)
        if not at_end and not (i in a_of and i in b_of):
            continue
        ja = len(a) if at_end else a_of[i]
        jb = len(b) if at_end else b_of[i]
        base_chunk, a_chunk, b_chunk = o[io:i], a[ia:ja], b[ib:jb]
        if a_chunk == base_chunk:
            out.extend(b_chunk)
        elif b_chunk == base_chunk or a_chunk == b_chunk:
            out.extend(a_chunk)
        else:
            conflicts += 1
            out.append(MINE_MARKER + "\n")
            out.extend(_closed(a_chunk))
            out.append(SEPARATOR + "\n")
            out.extend(_closed(b_chunk))
            out.append(THEIRS_MARKER + "\n")
        if not at_end:
            out.append(o[i])
            io, ia, ib = i + 1, ja + 1, jb + 1
    return MergeResult("".join(out), conflicts)


def _matches(base: list[str], other: list[str]) -> dict[int, int]:
    """Base line index -> matching line index in ``other`` (monotonic)."""
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    found: dict[int, int] = {}
    for i, j, n in matcher.get_matching_blocks():
        for k in range(n):
            found[i + k] = j + k
    return found


def _closed(lines: list[str]) -> list[str]:
    """The lines with a final newline (so a marker never ends up on a content line)."""
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n"]
    return lines


def unified_diff(before: str, after: str, before_label: str, after_label: str) -> str:
    """A unified diff of two texts ("" when equal); every line ends with a newline."""
    lines = difflib.unified_diff(_closed(before.splitlines(keepends=True)),
                                 _closed(after.splitlines(keepends=True)),
                                 fromfile=before_label, tofile=after_label, n=2)
    return "".join(lines)
