"""The words of a :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index`: one id per distinct
token or run, and the runs a phrase's tokens can match.

A phrase ``t1 t2`` matches a document wherever a run ending with ``t1`` is followed by one space
and a run starting with ``t2`` (see the ``bm25_index`` module doc). The words that stand on the
left of some run pair are kept sorted by their reversed text, those on the right by their text, so
that both sets are two binary searches away (``bisect`` over Python strings). Words are never
forgotten (a few bytes per distinct word).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

import numpy as np

_AFTER = "{"  # sorts after every character of a run ([a-z0-9])


class Words:
    """Word ids (first seen first) and the left / right words of run pairs."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        self._left = np.zeros(0, dtype=bool)  # id -> is the left run of some pair
        self._right = np.zeros(0, dtype=bool)
        self._left_reversed: list[str] = []  # sorted reversed texts of the left words
        self._left_ids = np.zeros(0, dtype=np.int32)  # their ids, in that order
        self._right_sorted: list[str] = []  # sorted texts of the right words
        self._right_ids = np.zeros(0, dtype=np.int32)
        for word in words:
            self.add(word)

    def __len__(self) -> int:
        return len(self.words)

    def add(self, word: str) -> int:
        """The id of ``word``, a new one when it is new."""
        found = self.ids.get(word)
        if found is None:
            found = self.ids[word] = len(self.words)
            self.words.append(word)
        return found

    def map(self, words: list[str]) -> np.ndarray:
        """The ids of ``words`` (new ones added), as an int64 array."""
        add = self.add
        return np.fromiter((add(w) for w in words), dtype=np.int64, count=len(words))

    def mark_pairs(self, left: np.ndarray, right: np.ndarray) -> None:
        """Record the ids of words seen on the left / right of run pairs (ids already known)."""
        size = len(self.words)
        for name in ("_left", "_right"):
            flags = getattr(self, name)
            if len(flags) < size:
                grown = np.zeros(size, dtype=bool)
                grown[: len(flags)] = flags
                setattr(self, name, grown)
        new_left = np.unique(left[~self._left[left]]) if len(left) else left
        new_right = np.unique(right[~self._right[right]]) if len(right) else right
        self._left[new_left] = True
        self._right[new_right] = True
        words = self.words
        if len(new_left) > 64 or len(new_right) > 64:  # many: sort everything again
            lefts = np.flatnonzero(self._left).tolist()
            rights = np.flatnonzero(self._right).tolist()
            by_reversed = sorted((words[i][::-1], i) for i in lefts)
            self._left_reversed = [text for text, _ in by_reversed]
            self._left_ids = np.array([i for _, i in by_reversed], dtype=np.int32)
            by_text = sorted((words[i], i) for i in rights)
            self._right_sorted = [text for text, _ in by_text]
            self._right_ids = np.array([i for _, i in by_text], dtype=np.int32)
            return
        for i in new_left.tolist():
            at = bisect_left(self._left_reversed, words[i][::-1])
            self._left_reversed.insert(at, words[i][::-1])
            self._left_ids = np.insert(self._left_ids, at, i)
        for i in new_right.tolist():
            at = bisect_left(self._right_sorted, words[i])
            self._right_sorted.insert(at, words[i])
            self._right_ids = np.insert(self._right_ids, at, i)

    def ending_with(self, token: str) -> np.ndarray:
        """Ids of the left words ending with ``token``."""
        reversed_token = token[::-1]
        lo = bisect_left(self._left_reversed, reversed_token)
        hi = bisect_left(self._left_reversed, reversed_token + _AFTER, lo)
        return self._left_ids[lo:hi]

    def starting_with(self, token: str) -> np.ndarray:
        """Ids of the right words starting with ``token``."""
        lo = bisect_left(self._right_sorted, token)
        hi = bisect_left(self._right_sorted, token + _AFTER, lo)
        return self._right_ids[lo:hi]

    def pair_flags(self) -> tuple[np.ndarray, np.ndarray]:
        """Which ids are left / right words (for a snapshot)."""
        return self._left[: len(self.words)], self._right[: len(self.words)]
