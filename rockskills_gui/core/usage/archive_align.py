"""Where a live log file continues the archived copy of it: the lines both hold, counted once.

RockBot only ever appends to ``skill-usage/<session>.jsonl``; its retention pass cuts the oldest
lines (keeping the last 50,000) or deletes the file, and a session may start the same file name
again later. So the live file is always a run of lines that begins somewhere in the archived
history of that name (or after its end): the lines they share are the longest end of the archive
that the live file starts with. An event is identified by its file, its place in that file's
history and its text, never by its text alone: two identical lines logged one after the other are
two events.
"""

from __future__ import annotations

from collections.abc import Sequence


def overlap(archived: Sequence[str], live: Sequence[str]) -> int:
    """How many lines at the start of ``live`` are the last lines of ``archived`` (the longest
    such run). ``live[overlap:]`` is new to the archive; ``archived[:len(archived) - overlap]``
    only the archive still has.

    Untrimmed (the common case: the live file starts with everything archived) it is
    ``len(archived)``. After a trim it is exact for RockBot's logs, whose lines carry a random
    event id; lines that repeat across the cut are matched as far as they go (counted once)."""
    n, m = len(archived), len(live)
    if not n or not m:
        return 0
    if n <= m and live[:n] == archived:
        return n
    tail = archived[-m:] if n > m else archived
    if len(tail) == m and tail == live:
        return m
    # Knuth-Morris-Pratt prefix function of live + separator + tail: its last value is the
    # longest prefix of live that is also a suffix of tail (None never equals a line).
    seq: list[str | None] = [*live, None, *tail]
    pi = [0] * len(seq)
    for i in range(1, len(seq)):
        k = pi[i - 1]
        while k and seq[i] != seq[k]:
            k = pi[k - 1]
        if seq[i] == seq[k]:
            k += 1
        pi[i] = k
    return pi[-1]
