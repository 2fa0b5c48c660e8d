"""The text side of :class:`~rockskills_gui.core.recall.bm25_index.Bm25Index` and of the self-join:
run pairs, the one regular-expression pass over many texts (:func:`scan`), and a batch of
documents turned into sorted postings (:func:`segment`; see the ``bm25_index`` module doc)."""

from __future__ import annotations

import re
from array import array
from collections import defaultdict
from collections.abc import Sequence
from itertools import count
from typing import NamedTuple

import numpy as np

from rockskills_gui.core.recall.bm25 import fold_ascii, tokenize
from rockskills_gui.core.recall.bm25_words import Words

_PAIR_RE = re.compile(r"(?<![a-z0-9])(?=([a-z0-9]{3,}) ([a-z0-9]{3,}))")
_SCAN_RE = re.compile(r"[a-z0-9]{3,}(?: (?=[a-z0-9]{3}))?")  # a token, and " " if a run pair starts
_I64 = np.int64
KEY_SHIFT = 32  # a run pair's key: left word id << 32 | right word id


def run_pairs(document: str) -> list[tuple[str, str]]:
    """Single-space-separated run pairs (both runs >= 3) of the A-Z-folded document, in text
    order: the rows a phrase query matches (see the ``bm25_index`` module doc)."""
    return _PAIR_RE.findall(fold_ascii(document))


def capacity(count: int) -> int:
    """Slots the per-slot arrays hold for ``count`` documents (powers of two from 16)."""
    capacity = 16
    while capacity < count:
        capacity *= 2
    return capacity


def scan(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str],
                                        tuple[np.ndarray, np.ndarray, list[str], np.ndarray]]:
    """Every text's tokens (``tokenize``) and run pairs (``run_pairs``), in one pass: token ids
    (texts concatenated), token counts, the words (by id), and the rows -- each run pair's
    document, its two run ids (into the words, then any run that is no word), the runs' text and
    the position of its first token (-1: not read from the tokens).

    A token followed by exactly one space and a run of 3+ characters starts a run pair with the
    next token (tokens are the maximal runs of 3+ characters, the same runs ``run_pairs`` reads
    where the two folds agree). They differ only on U+212A (a letter to the tokenizer, a
    separator to phrase matching): such texts are read the slow way.
    """
    n = len(texts)
    sizes: list[int] = []
    odd: list[int] = []
    raw: defaultdict[str, int] = defaultdict(count().__next__)
    matches = array("q")  # one text's at a time: 100,000 texts make 10 million of them
    for i, text in enumerate(texts):
        folded = fold_ascii(text)
        if "\u212a" in folded:
            odd.append(i)
            found = tokenize(text)
        else:
            found = _SCAN_RE.findall(folded)
        sizes.append(len(found))
        matches.extend(map(raw.__getitem__, found))
    lengths = np.array(sizes, dtype=_I64).reshape(n)
    raw_ids = np.frombuffer(matches, dtype=_I64) if len(matches) else np.zeros(0, dtype=_I64)
    vocab: defaultdict[str, int] = defaultdict(count().__next__)
    strings = list(raw)
    raw_word = np.fromiter((vocab[s.rstrip(" ")] for s in strings), dtype=_I64, count=len(strings))
    raw_pair = np.fromiter((s.endswith(" ") for s in strings), dtype=bool, count=len(strings))
    tokens, starts = raw_word[raw_ids], np.flatnonzero(raw_pair[raw_ids])
    words = list(vocab)
    doc_of = np.repeat(np.arange(n, dtype=_I64), lengths)
    row_doc, ab = doc_of[starts], np.stack((tokens[starts], tokens[starts + 1]), axis=1)
    row_pos, run_text = starts, words
    if odd:
        run_id = {w: i for i, w in enumerate(words)}
        run_text = list(words)
        pairs = [(i, run_pairs(texts[i])) for i in odd]
        ids = [run_id.setdefault(r, len(run_id)) for _, found in pairs for pair in found for r in pair]
        run_text += list(run_id)[len(words):]
        more_doc = np.repeat(np.array([i for i, _ in pairs], dtype=_I64),
                             np.array([len(found) for _, found in pairs], dtype=_I64))
        row_doc = np.concatenate((row_doc, more_doc))
        ab = np.concatenate((ab, np.array(ids, dtype=_I64).reshape(-1, 2)))
        row_pos = np.concatenate((row_pos, np.full(len(more_doc), -1, dtype=_I64)))
        order = np.argsort(row_doc, kind="stable")
        row_doc, ab, row_pos = row_doc[order], ab[order], row_pos[order]
    return tokens, lengths, words, (row_doc, ab, run_text, row_pos)


class Segment(NamedTuple):
    """A batch of documents as postings over the index's word ids (documents numbered 0..n-1).

    Term entries sorted by (word, document) with their token count; pair entries sorted by
    (key, document), one per occurrence; per document its token count and whether two of its
    occurrences of some phrase could overlap (``risky``: its text is kept for recounting)."""

    lengths: np.ndarray
    term_word: np.ndarray
    term_doc: np.ndarray
    term_tf: np.ndarray
    pair_key: np.ndarray
    pair_doc: np.ndarray
    risky: np.ndarray


def segment(texts: Sequence[str], words: Words) -> Segment:
    """The postings of ``texts`` (new words are added to ``words``)."""
    n = len(texts)
    tokens, lengths, _words, (row_doc, ab, run_text, row_pos) = scan(texts)
    ids = words.map(run_text)  # local id -> the index's id
    # Terms: one entry per distinct (word, document), with its count; sorted by word, document.
    doc_of = np.repeat(np.arange(n, dtype=_I64), lengths)
    keys, tf = np.unique(ids[tokens] * max(n, 1) + doc_of, return_counts=True)
    term_word, term_doc = np.divmod(keys, max(n, 1))
    del keys, doc_of
    # Pairs: one entry per occurrence, sorted by key then document (rows are in document order).
    left_runs = np.unique(ab[:, 0])
    words.mark_left(ids[left_runs], [run_text[i] for i in left_runs.tolist()])
    pair_key = (ids[ab[:, 0]] << KEY_SHIFT) | ids[ab[:, 1]]
    order = np.argsort(pair_key, kind="stable")
    risky = np.zeros(n, dtype=bool)
    risky[row_doc[row_pos < 0]] = True  # read the slow way (U+212A): always recounted
    if len(row_pos) > 1:
        # Two occurrences of one phrase overlap only across adjacent rows A B, B C where B ends
        # like A (3 characters at least) and starts like C: flag such documents.
        ends = _affix_ids(run_text, -3)
        begins = _affix_ids(run_text, 3)
        a, b = ab[:, 0], ab[:, 1]
        adjacent = (row_pos[1:] == row_pos[:-1] + 1) & (row_pos[:-1] >= 0)
        close = adjacent & (ends[a[:-1]] == ends[b[:-1]]) & (begins[b[:-1]] == begins[b[1:]])
        risky[row_doc[:-1][close]] = True
    return Segment(lengths, term_word, term_doc, tf.astype(_I64), pair_key[order], row_doc[order],
                   risky)


def _affix_ids(texts: list[str], size: int) -> np.ndarray:
    """Per text, an id of its last (``size`` < 0) or first ``size`` characters."""
    seen: dict[str, int] = {}
    get = seen.setdefault
    if size < 0:
        return np.fromiter((get(t[size:], len(seen)) for t in texts), dtype=_I64, count=len(texts))
    return np.fromiter((get(t[:size], len(seen)) for t in texts), dtype=_I64, count=len(texts))
