"""What made ``dream --offline`` fast must not change what it finds (issue 14, item 10).

- phrase postings by distinct pair, with a hashed key screen (``core.recall.bm25_phrases``):
  scores stay bit-identical to the index on libraries large enough to hold every case at once
  (suffix/prefix phrases, adjacent overlapping matches, U+212A texts read the slow way);
- the packed sort behind the phrase universe equals ``np.unique``;
- large arrays reuse freed heap memory inside ``reuse_freed_memory`` and glibc's defaults return
  after it, also when it nests across threads;
- the plan builder's shared snapshots and file digests equal what it made one by one.
"""

from __future__ import annotations

import ctypes
import random
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.dream.plan import SkillRecord
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.bm25_join import SelfJoin, _unique_inverse
from rockskills_gui.core.recall.bm25_phrases import KeySet
from rockskills_gui.core.storage import heap
from rockskills_gui.core.storage.checksum import sha256
from tests.conftest import AGENT, NOW_TEXT
from tests.property_budget import budgeted

# Words whose suffixes and prefixes are words too (a run pair matches several phrases), repeated
# words (adjacent matches that may overlap), U+212A (read the slow way), and separators.
WORDS = ["plan", "xplan", "planx", "lan", "meeting", "meet", "ting", "aaa", "aaaa", "aaaaa", "the",
         "send", "sender", "endx", "email", "mail", "ail", "\u212aelvin", "kelvin", "vin", "abc",
         "abcd", "bcd", "2026", "026"]
SEPARATORS = [" ", " ", " ", " ", "  ", "-", "/", ". ", "\n"]


def _library(seed: int, size: int) -> list[str]:
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < size:
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 30))]
        if words and rng.random() < 0.3:
            words += [words[-1]] * rng.randint(1, 3)  # "aaa aaa aaa": overlapping phrase matches
        text = "".join(w + rng.choice(SEPARATORS) for w in words)
        texts += [text] * rng.choice((1, 1, 2))  # near duplicates share every pair
    return texts[:size]


def _index_scores(texts: list[str]) -> np.ndarray:
    """score[a, b]: document b for the query a, from the index (the fidelity-tested scorer)."""
    index = Bm25Index((str(i), t) for i, t in enumerate(texts))
    slots = [index._slot_of[str(i)] for i in range(len(texts))]
    return np.array([index.scores(t)[0][slots] for t in texts])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_join_scores_stay_bit_identical_on_a_library_with_every_case(seed: int) -> None:
    texts = _library(seed, 160)
    n = len(texts)
    join = SelfJoin(texts)
    a, b = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    assert np.array_equal(join.scores(a, b).reshape(n, n), _index_scores(texts))


@budgeted(40, 200)
@given(st.lists(st.integers(0, 2**40), max_size=300), st.lists(st.integers(0, 2**40), max_size=300))
def test_key_set_finds_exactly_the_present_keys(keys: list[int], probes: list[int]) -> None:
    present = np.unique(np.array(keys, dtype=np.int64))
    wanted = np.array(probes + keys[:50], dtype=np.int64)
    found, at = KeySet(present).find(wanted)
    expected = np.flatnonzero(np.isin(wanted, present))
    assert np.array_equal(found, expected)
    assert np.array_equal(present[at], wanted[found])


@budgeted(40, 200)
@given(st.lists(st.integers(0, 2**45), max_size=400))
def test_packed_unique_equals_numpy(keys: list[int]) -> None:
    values = np.array(keys, dtype=np.int64)
    unique, inverse = _unique_inverse(values)
    expected, expected_inverse = np.unique(values, return_inverse=True)
    assert np.array_equal(unique, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))
    assert inverse.dtype == np.int64


def test_packed_unique_falls_back_when_keys_do_not_fit() -> None:
    values = np.array([2**62, 5, 2**62, -3], dtype=np.int64)
    unique, inverse = _unique_inverse(values)
    assert unique.tolist() == [-3, 5, 2**62] and inverse.tolist() == [2, 1, 2, 0]


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                 "fordblks", "keepcost")]


def _mmapped_blocks() -> int:
    libc = heap._LIBC
    if libc is None or not hasattr(libc, "mallinfo2"):
        pytest.skip("glibc >= 2.33 only")
    libc.mallinfo2.restype = _MallInfo2
    return int(libc.mallinfo2().hblks)


def test_large_arrays_come_from_the_heap_inside_and_from_mmap_after() -> None:
    size = 64 * 1024 * 1024  # over glibc's largest mmap threshold (32 MB)
    before = _mmapped_blocks()
    with heap.reuse_freed_memory():
        inside = np.ones(size, dtype=np.uint8)
        assert _mmapped_blocks() == before
        del inside
    after = np.ones(size, dtype=np.uint8)
    assert _mmapped_blocks() == before + 1
    del after


def test_defaults_come_back_only_when_the_last_user_leaves() -> None:
    size = 64 * 1024 * 1024
    before = _mmapped_blocks()
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with heap.reuse_freed_memory():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    entered.wait(10)
    with heap.reuse_freed_memory():
        pass
    still = np.ones(size, dtype=np.uint8)  # the other thread is still inside
    assert _mmapped_blocks() == before
    del still
    leave.set()
    thread.join(10)
    again = np.ones(size, dtype=np.uint8)
    assert _mmapped_blocks() == before + 1
    del again


def test_offline_snapshots_and_digests_equal_those_made_one_by_one() -> None:
    library = RockBotLibrary.open(AGENT)
    plan = run_dream(library, RunOptions(offline=True, now=Timestamp.parse(NOW_TEXT)))
    skills = {fold(s.name): s for s in library.skills()}
    shared = 0
    seen: dict[str, SkillRecord] = {}
    for proposal in plan.proposals:
        for name, record in proposal.before.items():
            assert record == SkillRecord.of(skills[fold(name)])
            if name in seen:
                shared += seen[name] is record
            seen[name] = record
        for shown, digest in proposal.touched.items():
            path = Path(library.agent_dir, shown)
            assert digest == (sha256(path.read_bytes()) if path.is_file() else None)
    assert shared  # a skill read by several proposals is snapshot once
