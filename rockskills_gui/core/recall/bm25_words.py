"""The words of a :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index`: one id per distinct
token or run, and the runs a phrase's tokens can match.

A phrase ``t1 t2`` matches a document wherever a run ending with ``t1`` is followed by one space
and a run starting with ``t2`` (see the ``bm25_index`` module doc). Words are kept as sorted
fixed-width byte arrays (numpy searches them): all words by their text (a token's id, and the words
starting with a token) and the words standing on the left of some run pair by their reversed
text (the words ending with a token). Words longer than :data:`WIDE` characters (rare: a pasted
blob) are kept apart and searched one by one. At 100,000 skills this is ~2 MB where a dictionary
of Python strings takes ~10 MB. Words are never forgotten (a few bytes per distinct word).
"""

from __future__ import annotations

import numpy as np

WIDE = 40  # longer words are kept apart
_AFTER = b"{"  # sorts after every character of a run ([a-z0-9])
_I32 = np.int32


def _added(texts: np.ndarray, ids: np.ndarray, new: np.ndarray, new_ids: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """``texts`` (sorted, distinct byte strings) and their ``ids`` with ``new`` ones (distinct
    from them) added in order, in an array one byte wider than its longest string (so that a
    prefix followed by one more character never gets cut)."""
    width = max(texts.dtype.itemsize - 1 if len(texts) else 0, new.dtype.itemsize) + 1
    kind = np.dtype(f"S{width}")
    if len(new) * 8 > len(texts):  # many: one sort of them all
        joined = np.concatenate((texts.astype(kind), new.astype(kind)))
        order = np.argsort(joined, kind="stable")
        return joined[order], np.concatenate((ids, new_ids))[order]
    order = np.argsort(new)  # a few: each inserted at its place
    new, new_ids = new[order].astype(kind), new_ids[order]
    texts = texts if texts.dtype == kind else texts.astype(kind)
    at = np.searchsorted(texts, new)
    return np.insert(texts, at, new), np.insert(ids, at, new_ids)


class Words:
    """Word ids (first seen first) and the left words of run pairs."""

    def __init__(self) -> None:
        self.count = 0
        self._text = np.zeros(0, dtype="S1")  # sorted words
        self._text_id = np.zeros(0, dtype=_I32)
        self._left = np.zeros(0, dtype=bool)  # id -> stands left in some run pair
        self._left_text = np.zeros(0, dtype="S1")  # sorted reversed left words
        self._left_id = np.zeros(0, dtype=_I32)
        self._long: dict[str, int] = {}  # words longer than WIDE -> id

    def __len__(self) -> int:
        return self.count

    def get(self, word: str) -> int | None:
        """The id of ``word`` (None: unknown)."""
        if len(word) >= self._text.dtype.itemsize:
            return self._long.get(word)
        data = word.encode("ascii")
        at = int(np.searchsorted(self._text, data))
        if at < len(self._text) and self._text[at] == data:
            return int(self._text_id[at])
        return None

    def map(self, words: list[str]) -> np.ndarray:
        """The ids of ``words`` (distinct, ASCII), new ones added in that order (int64)."""
        out = np.empty(len(words), dtype=np.int64)
        short = np.array([len(w) <= WIDE for w in words], dtype=bool)
        for i in np.flatnonzero(~short).tolist():
            word = words[i]
            found = self._long.get(word)
            if found is None:
                found = self._long[word] = self.count
                self.count += 1
            out[i] = found
        places = np.flatnonzero(short)
        data = np.array([words[i].encode("ascii") for i in places.tolist()], dtype=bytes)
        if len(data) == 0:
            return out
        known = np.zeros(len(data), dtype=bool)
        at = np.zeros(len(data), dtype=np.intp)
        if len(self._text):
            fits = np.array([len(d) < self._text.dtype.itemsize for d in data.tolist()], dtype=bool)
            at[fits] = np.minimum(np.searchsorted(self._text, data[fits]), len(self._text) - 1)
            known[fits] = self._text[at[fits]] == data[fits]
        out[places[known]] = self._text_id[at[known]]
        new = np.flatnonzero(~known)
        new_ids = np.arange(self.count, self.count + len(new), dtype=np.int64)
        self.count += len(new)
        out[places[new]] = new_ids
        self._text, self._text_id = _added(self._text, self._text_id, data[new],
                                           new_ids.astype(_I32))
        return out

    def mark_left(self, ids: np.ndarray, texts: list[str]) -> None:
        """Record the words ``ids`` (distinct; ``texts[i]`` is the text of ``ids[i]``) as
        standing left in run pairs."""
        if len(self._left) < self.count:
            grown = np.zeros(self.count, dtype=bool)
            grown[: len(self._left)] = self._left
            self._left = grown
        new = np.flatnonzero(~self._left[ids])
        if not len(new):
            return
        self._left[ids[new]] = True
        short = [i for i in new.tolist() if len(texts[i]) <= WIDE]
        if not short:
            return
        data = np.array([texts[i][::-1].encode("ascii") for i in short], dtype=bytes)
        self._left_text, self._left_id = _added(self._left_text, self._left_id, data,
                                                ids[short].astype(_I32))

    def ending_with(self, token: str) -> np.ndarray:
        """Ids of the left words ending with ``token``."""
        found = self._range(self._left_text, self._left_id, token[::-1])
        if self._long:
            extra = [i for w, i in self._long.items() if w.endswith(token) and self._left[i]]
            if extra:
                return np.concatenate((found, np.array(extra, dtype=_I32)))
        return found

    def starting_with(self, token: str) -> np.ndarray:
        """Ids of the words starting with ``token``."""
        found = self._range(self._text, self._text_id, token)
        if self._long:
            extra = [i for w, i in self._long.items() if w.startswith(token)]
            if extra:
                return np.concatenate((found, np.array(extra, dtype=_I32)))
        return found

    @staticmethod
    def _range(texts: np.ndarray, ids: np.ndarray, prefix: str) -> np.ndarray:
        if len(prefix) >= texts.dtype.itemsize:  # (the width is the longest word's + 1)
            return ids[:0]
        data = prefix.encode("ascii")
        lo = int(np.searchsorted(texts, data))
        hi = int(np.searchsorted(texts, data + _AFTER))
        return ids[lo:hi]

    def words(self) -> list[str]:
        """Every word, by id (for a snapshot)."""
        out = [""] * self.count
        for text, i in zip(self._text.tolist(), self._text_id.tolist(), strict=True):
            out[i] = text.decode("ascii")
        for word, i in self._long.items():
            out[i] = word
        return out

    def left_flags(self) -> np.ndarray:
        flags = np.zeros(self.count, dtype=bool)
        flags[: len(self._left)] = self._left[: self.count]
        return flags
