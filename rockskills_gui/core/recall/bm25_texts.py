"""The document texts of a :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index`, compressed.

Scoring never reads them (the postings answer every question a query asks, see the
``bm25_index`` module doc); only :meth:`Bm25Index.documents` and :meth:`Bm25Index.text` do. So
the texts of a bulk build are kept as one zlib-compressed block (at 100,000 skills ~2 MB instead of
~14 MB of string objects) and the texts set later by edits one by one beside it.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

_LEVEL = 1  # fast; texts of skills compress about 4x at any level


class TextStore:
    """Per slot, its text (None: no document), as a compressed block plus later edits."""

    def __init__(self) -> None:
        self._block = b""  # zlib of the block's texts, concatenated (UTF-8, surrogates passed)
        self._sizes = np.zeros(0, dtype=np.int64)  # per slot of the block: its text's length
        self._edits: dict[int, str | None] = {}  # slot -> text set (or cleared) after the block

    def set_block(self, texts: Sequence[str]) -> None:
        """Slots ``0..len(texts)-1`` hold ``texts`` (replacing everything held)."""
        self._sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        joined = "".join(texts)
        self._block = zlib.compress(joined.encode("utf-8", "surrogatepass"), _LEVEL)
        self._edits = {}

    def set(self, slot: int, text: str | None) -> None:
        self._edits[slot] = text

    def get(self, slot: int) -> str | None:
        if slot in self._edits:
            return self._edits[slot]
        if slot >= len(self._sizes):
            return None
        return self.all(slot + 1)[slot]

    def all(self, count: int) -> list[str | None]:
        """The texts of slots ``0..count-1``."""
        out: list[str | None] = [None] * count
        if len(self._sizes):
            joined = zlib.decompress(self._block).decode("utf-8", "surrogatepass")
            ends = np.cumsum(self._sizes).tolist()
            start = 0
            for slot, end in enumerate(ends[:count]):
                out[slot] = joined[start:end]
                start = end
        for slot, text in self._edits.items():
            if slot < count:
                out[slot] = text
        return out

    def compact(self, count: int) -> None:
        """Fold many edits into the block again (after a build fed one document at a time)."""
        if len(self._edits) <= 1000 or len(self._edits) * 4 < len(self._sizes):
            return
        texts = self.all(count)
        self.set_block([text or "" for text in texts])
        self._edits = {slot: None for slot, text in enumerate(texts) if text is None}

    def state(self) -> tuple[bytes, bytes, list[tuple[int, str | None]]]:
        """Plain values for a snapshot: the block, its sizes (int64 bytes), the edits."""
        return self._block, self._sizes.tobytes(), list(self._edits.items())

    @classmethod
    def from_state(cls, block: bytes, sizes: bytes, edits: list[tuple[int, str | None]]) -> TextStore:
        store = cls()
        store._block = bytes(block)
        store._sizes = np.frombuffer(sizes, dtype=np.int64).copy()
        store._edits = dict(edits)
        if int(store._sizes.sum()) and not store._block:
            raise ValueError("text sizes without their block")
        return store
