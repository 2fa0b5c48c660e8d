"""The text side of :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index`: run pairs and
their windows, a document's block in a posting, and the one-pass build of many documents (see the
``bm25_index`` module doc for the layout)."""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from rockskills_gui.core.recall.bm25 import fold_ascii, tokenize

_PAIR_RE = re.compile(r"(?<![a-z0-9])(?=([a-z0-9]{3,}) ([a-z0-9]{3,}))")
WINDOW = 3  # = MIN_TOKEN_LEN: every phrase token is at least this long


def run_pairs(document: str) -> list[tuple[str, str]]:
    """Single-space-separated run pairs (both runs >= 3) of the A-Z-folded document, in text
    order: the rows a phrase query matches (see the ``bm25_index`` module doc)."""
    return _PAIR_RE.findall(fold_ascii(document))


def window(left: str, right: str) -> str:
    """The phrase-posting key a run pair (or a phrase's two tokens) is filed under."""
    return f"{left[-WINDOW:]} {right[:WINDOW]}"


def block(postings: array[int], width: int, slot: int) -> tuple[int, int]:
    """Start row and row count of ``slot``'s contiguous block in a posting of ``width`` ints."""
    view = np.frombuffer(postings, dtype=np.int32)
    rows = np.flatnonzero(view[::width] == slot)
    del view
    if len(rows) == 0:
        raise KeyError(slot)
    start, count = int(rows[0]), len(rows)
    if int(rows[-1]) - start + 1 != count:  # pragma: no cover - guarded invariant
        raise AssertionError("posting rows of one document are not contiguous")
    return start, count


def capacity(count: int) -> int:
    """Slots the per-slot arrays hold for ``count`` documents (powers of two from 16)."""
    capacity = 16
    while capacity < count:
        capacity *= 2
    return capacity


class Built(NamedTuple):
    """What :func:`build` made: per slot its key, text and token count; postings by key."""

    slot_of: dict[str, int]
    keys: list[str | None]
    texts: list[str | None]
    lengths: list[int]
    terms: dict[str, array[int]]
    windows: dict[str, array[int]]


def build(documents: Iterable[tuple[str, str]], run_id: dict[str, int], runs: list[str]) -> Built:
    """Each document in turn in one pass, as ``Bm25Index.add`` would add it to an empty index
    (slots, postings in slot order, windows and run ids in first-seen order); new runs are added
    to ``run_id`` and ``runs``."""
    slot_of: dict[str, int] = {}
    keys: list[str | None] = []
    texts: list[str | None] = []
    lengths: list[int] = []
    terms: dict[str, list[int]] = {}
    windows: dict[str, list[int]] = {}
    new_id = run_id.setdefault  # (a new run's id is len(runs), appended right after)
    find_term, find_window = terms.get, windows.get
    for key, text in documents:
        if key in slot_of:
            raise KeyError(f"{key!r} is already indexed")
        slot = len(keys)
        slot_of[key] = slot
        keys.append(key)
        texts.append(text)
        tokens = tokenize(text)
        lengths.append(len(tokens))
        for term, tf in Counter(tokens).items():
            posting = find_term(term)
            if posting is None:
                terms[term] = [slot, tf]
            else:
                posting += (slot, tf)
        previous, b = "", -1  # consecutive pairs share a run: "a b", "b c"
        for left, right in run_pairs(text):
            if left == previous:
                a = b
            else:
                a = new_id(left, len(runs))
                if a == len(runs):
                    runs.append(left)
            b = new_id(right, len(runs))
            if b == len(runs):
                runs.append(right)
            previous = right
            key_of_pair = f"{left[-WINDOW:]} {right[:WINDOW]}"
            rows = find_window(key_of_pair)
            if rows is None:
                windows[key_of_pair] = [slot, a, b]
            else:
                rows += (slot, a, b)
    return Built(slot_of, keys, texts, lengths,
                 {term: array("i", posting) for term, posting in terms.items()},
                 {key_of_pair: array("i", rows) for key_of_pair, rows in windows.items()})
