"""Line diffs with intra-line (word) changes, as plain data for the review page to paint.

No Qt here: :func:`unified` gives one list of lines (a unified diff), :func:`side_by_side` two
aligned columns. A changed line is paired with its counterpart when the two are similar enough;
then only the words that differ are marked, otherwise the whole line is.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

Mark = Literal["same", "added", "removed"]
LineKind = Literal["equal", "added", "removed", "filler"]

PAIR_RATIO = 0.4  # below this two changed lines are shown as a removal and an addition
# Lines are marked word by word while they are no longer than this together, and while a text's
# word diffs have covered fewer characters than the budget; beyond, changed lines are marked
# whole. The word diff of two similar lines of a million characters ran for minutes, that of
# 100,000 short changed lines for seconds (issue 35, item 15).
INTRALINE_MAX = 20_000
INTRALINE_BUDGET = 200_000
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Segment:
    text: str
    mark: Mark = "same"


@dataclass(frozen=True)
class DiffLine:
    """One line: ``equal``, ``added``, ``removed`` or ``filler`` (empty, aligns the other column)."""

    kind: LineKind
    segments: tuple[Segment, ...]
    old_no: int | None = None  # 1-based line numbers
    new_no: int | None = None

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.segments)

    @property
    def changed(self) -> bool:
        return self.kind in ("added", "removed")


def tokens(line: str) -> list[str]:
    """Words, runs of spaces and single punctuation characters (what intra-line marks cover)."""
    return _TOKEN.findall(line)


def _merge(segments: list[Segment]) -> tuple[Segment, ...]:
    out: list[Segment] = []
    for segment in segments:
        if not segment.text:
            continue
        if out and out[-1].mark == segment.mark:
            out[-1] = Segment(out[-1].text + segment.text, segment.mark)
        else:
            out.append(segment)
    return tuple(out)


def intraline(old: str, new: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...], float]:
    """Word-level marks for a changed pair of lines and how similar they are (0..1); lines
    longer than :data:`INTRALINE_MAX` together are marked whole (similarity 0)."""
    if len(old) + len(new) > INTRALINE_MAX:
        return _whole(old, "removed"), _whole(new, "added"), 0.0
    a, b = tokens(old), tokens(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    left: list[Segment] = []
    right: list[Segment] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            left.append(Segment("".join(a[i1:i2])))
            right.append(Segment("".join(b[j1:j2])))
            continue
        left.append(Segment("".join(a[i1:i2]), "removed"))
        right.append(Segment("".join(b[j1:j2]), "added"))
    return _merge(left), _merge(right), matcher.ratio()


def _whole(line: str, mark: Mark) -> tuple[Segment, ...]:
    return (Segment(line, mark),) if line else ()


def _replace_block(old: list[str], new: list[str], o0: int, n0: int, budget: list[int]
                   ) -> list[tuple[DiffLine | None, DiffLine | None]]:
    """Rows for a replaced block: similar lines paired (intra-line), the rest whole; ``budget``
    holds the characters word diffs may still cover (spent here)."""
    rows: list[tuple[DiffLine | None, DiffLine | None]] = []
    i = j = 0
    while i < len(old) or j < len(new):
        if i < len(old) and j < len(new):
            size = len(old[i]) + len(new[j])
            if size <= budget[0]:
                budget[0] -= size
                left, right, ratio = intraline(old[i], new[j])
            else:
                left, right, ratio = _whole(old[i], "removed"), _whole(new[j], "added"), 0.0
            if ratio >= PAIR_RATIO:
                rows.append((DiffLine("removed", left, old_no=o0 + i + 1),
                             DiffLine("added", right, new_no=n0 + j + 1)))
                i += 1
                j += 1
                continue
            # not similar: whichever side has more lines left gives one up on its own
            if len(old) - i >= len(new) - j:
                rows.append((DiffLine("removed", _whole(old[i], "removed"), old_no=o0 + i + 1), None))
                i += 1
            else:
                rows.append((None, DiffLine("added", _whole(new[j], "added"), new_no=n0 + j + 1)))
                j += 1
        elif i < len(old):
            rows.append((DiffLine("removed", _whole(old[i], "removed"), old_no=o0 + i + 1), None))
            i += 1
        else:
            rows.append((None, DiffLine("added", _whole(new[j], "added"), new_no=n0 + j + 1)))
            j += 1
    return rows


def _rows(old_text: str, new_text: str) -> list[tuple[DiffLine | None, DiffLine | None]]:
    old = old_text.split("\n")
    new = new_text.split("\n")
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    rows: list[tuple[DiffLine | None, DiffLine | None]] = []
    budget = [INTRALINE_BUDGET]
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                line = old[i1 + k]
                rows.append((DiffLine("equal", _whole(line, "same"), old_no=i1 + k + 1),
                             DiffLine("equal", _whole(line, "same"), new_no=j1 + k + 1)))
        else:
            rows.extend(_replace_block(old[i1:i2], new[j1:j2], i1, j1, budget))
    return rows


def unified(old_text: str, new_text: str) -> list[DiffLine]:
    """Every line of both texts in order: equal lines once, a removal before its addition."""
    out: list[DiffLine] = []
    pending_added: list[DiffLine] = []
    for left, right in _rows(old_text, new_text):
        if left is not None and right is not None and left.kind == "equal":
            out.extend(pending_added)
            pending_added = []
            out.append(DiffLine("equal", left.segments, left.old_no, right.new_no))
            continue
        if left is not None:
            out.append(left)
        if right is not None:
            pending_added.append(right)
    out.extend(pending_added)
    return out


def side_by_side(old_text: str, new_text: str) -> tuple[list[DiffLine], list[DiffLine]]:
    """Two columns of equal length: the old text with its removals, the new with its additions;
    a line with no counterpart faces a filler line."""
    filler = DiffLine("filler", ())
    left: list[DiffLine] = []
    right: list[DiffLine] = []
    for a, b in _rows(old_text, new_text):
        left.append(a if a is not None else filler)
        right.append(b if b is not None else filler)
    return left, right


def one_side(old_text: str, new_text: str, side: Literal["old", "new"]) -> list[DiffLine]:
    """One column of :func:`side_by_side` without fillers: the old text marked with what the new
    one lost, or the new text marked with what it adds."""
    left, right = side_by_side(old_text, new_text)
    column = left if side == "old" else right
    return [line for line in column if line.kind != "filler"]


def stats(lines: list[DiffLine]) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff."""
    return (sum(1 for line in lines if line.kind == "added"),
            sum(1 for line in lines if line.kind == "removed"))
