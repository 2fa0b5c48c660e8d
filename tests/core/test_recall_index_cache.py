"""The recall index kept between opens (issue 19, core.recall.index_cache): whatever changed
between two opens -- summaries, names, files added, deleted, renamed, reordered, edits that keep
a file's size and modification time -- the index and session text it gives are exactly a fresh
build's: the same rankings, scores bit for bit, candidate order, and the same later edits."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot import scan as rockbot
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall import index_cache
from rockskills_gui.core.recall.bm25_index import Bm25Index
from rockskills_gui.core.recall.bm25_state import BadState, restore, snapshot
from rockskills_gui.core.recall.index_cache import RecallCache, cached_recall
from rockskills_gui.core.recall.index_text import session_index_text
from rockskills_gui.core.recall.skill_recall import RecallBuilder, SkillRecall

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
QUERIES = ("send the weekly report", "deploy thing 7", "group skill", "does thing 12 broken",
           "report weekly", "thing", "café naïve", "weekly report for dana")
WORDS = ("send", "weekly", "report", "Dana", "deploy", "the", "server", "café", "naïve", "x",
         "report-weekly", "SEND", "2026", "thing", "group")


def write_skill(skills: Path, name: str, summary: str | None) -> Path:
    path = skills / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(skill_to_bytes(Skill(name=name, summary=summary, content="body",
                                          created_at=NOW, updated_at=NOW)))
    return path


def make_agent(root: Path, count: int = 60) -> Path:
    import random

    rng = random.Random(11)
    skills = root / "agent" / "skills"
    for i in range(count):
        summary = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9)))
        write_skill(skills, f"group-{i % 4}/skill-{i:03d}", summary if i % 13 else None)
    return root / "agent"


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan runs a minute from now: files the test wrote are old enough to be cached."""
    real = time.time_ns
    monkeypatch.setattr(rockbot.time, "time_ns", lambda: real() + 60 * 10**9)


def rankings(recall: SkillRecall) -> list[list[tuple[str, float]]]:
    return [[(h.name, h.score) for h in recall.search(q, top=None)] for q in QUERIES]


def open_both(agent: Path, cache: Path) -> tuple[SkillRecall, str | None, str, SkillRecall]:
    """The cached path (as the window's loader takes it) and a fresh build of the same open."""
    library = RockBotLibrary.open(agent, cache_dir=cache)
    assert library.scan_cache is not None
    store = RecallCache(library.scan_cache.recall_path)
    recall, text = cached_recall(library.skills(), store)
    fresh = SkillRecall(RockBotLibrary.open(agent).skills())
    assert text == session_index_text(library.skills())
    assert recall.index.keys() == fresh.index.keys()  # candidate order
    assert [s.name for s in recall.skills()] == [s.name for s in fresh.skills()]
    assert rankings(recall) == rankings(fresh)
    return recall, text, store.outcome, fresh


def test_a_second_open_takes_the_kept_index_and_it_ranks_as_a_fresh_build(
        tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path)
    cache = tmp_path / "cache"
    assert open_both(agent, cache)[2] == "built"
    recall, _text, outcome, fresh = open_both(agent, cache)
    assert outcome == "hit"
    for index in (recall, fresh):  # later edits behave the same on both
        index.remove("group-1/skill-001")
        index.upsert(Skill(name="group-3/new", summary="send the weekly report to Dana now",
                           created_at=NOW))
        index.rename("group-2/skill-002", Skill(name="group-2/renamed", summary="deploy server",
                                                created_at=NOW))
    assert rankings(recall) == rankings(fresh)
    assert recall.index.keys() == fresh.index.keys()


def test_files_changed_between_opens_give_a_fresh_builds_index(tmp_path: Path,
                                                                later: None) -> None:
    agent = make_agent(tmp_path, count=120)
    skills = agent / "skills"
    cache = tmp_path / "cache"
    open_both(agent, cache)
    write_skill(skills, "group-0/skill-000", "a new summary: send weekly report")
    (skills / "group-1" / "skill-005.json").unlink()
    write_skill(skills, "group-9/added", "deploy the thing")
    os.replace(skills / "group-2" / "skill-006.json", skills / "group-2" / "skill-aaa.json")
    write_skill(skills, "group-2/skill-aaa", "renamed: thing group")
    (skills / "group-2" / "skill-006.json").unlink(missing_ok=True)
    assert open_both(agent, cache)[2] == "updated"
    assert open_both(agent, cache)[2] == "hit"  # kept again after the update


def test_an_edit_keeping_size_and_times_is_seen(tmp_path: Path, later: None) -> None:
    """Same size, modification time set back: the scan reads the file again (its change time
    moved), and the index cache compares what the skills say, not the files' times."""
    agent = make_agent(tmp_path)
    cache = tmp_path / "cache"
    path = write_skill(agent / "skills", "group-0/skill-004", "send the weekly report")
    open_both(agent, cache)
    info = os.stat(path)
    raw = path.read_bytes()
    edited = raw.replace(b"send the weekly report", b"SEND THE WEEKLY REPORT")
    assert len(edited) == len(raw) and edited != raw
    path.write_bytes(edited)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    recall, _text, outcome, _fresh = open_both(agent, cache)
    assert outcome == "updated"
    assert recall.get("group-0/skill-004") is not None
    assert recall.get("group-0/skill-004").summary == "SEND THE WEEKLY REPORT"  # type: ignore[union-attr]


def test_many_changes_build_anew_and_a_reordered_library_is_exact(tmp_path: Path,
                                                                   later: None) -> None:
    agent = make_agent(tmp_path)
    cache = tmp_path / "cache"
    open_both(agent, cache)
    for i in range(0, 60, 2):
        write_skill(agent / "skills", f"group-{i % 4}/skill-{i:03d}", f"rewritten {i} thing")
    assert open_both(agent, cache)[2] == "built"
    library = RockBotLibrary.open(agent, cache_dir=cache)
    assert library.scan_cache is not None
    store = RecallCache(library.scan_cache.recall_path)
    reordered = list(reversed(library.skills()))  # the same documents, another candidate order
    recall, text = cached_recall(reordered, store)
    assert store.outcome == "updated"
    assert text == session_index_text(reordered)
    assert rankings(recall) == rankings(SkillRecall(reordered))


def test_a_damaged_stale_or_foreign_file_is_never_used(tmp_path: Path, later: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent(tmp_path)
    cache = tmp_path / "cache"
    open_both(agent, cache)
    library = RockBotLibrary.open(agent, cache_dir=cache)
    assert library.scan_cache is not None
    path = library.scan_cache.recall_path
    good = path.read_bytes()
    for damaged in (good[: len(good) // 2], good[:-3] + b"\x00\x01\x02",
                    good[:200] + bytes([good[200] ^ 0x20]) + good[201:], b"", b"\x00" * 64):
        path.write_bytes(damaged)
        assert RecallCache(path).load() is None
        assert open_both(agent, cache)[2] == "built"
    monkeypatch.setattr(index_cache, "FORMAT", 999)  # another version's file
    assert RecallCache(path).load() is None
    assert open_both(agent, cache)[2] == "built"


def test_the_index_fed_while_reading_is_kept(tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path)
    library = RockBotLibrary.open(agent)
    skills = library.skills()
    fed = RecallBuilder()
    fed.feed(reversed(skills))  # chunks arrive in any order
    store = RecallCache(tmp_path / "recall.bin")
    recall, _ = cached_recall(skills, store, fed)
    assert store.outcome == "fed"
    again, _ = cached_recall(skills, store)
    assert store.outcome == "hit"
    assert rankings(again) == rankings(recall) == rankings(SkillRecall(skills))


def test_a_state_restores_slot_for_slot_and_a_bad_one_is_refused() -> None:
    index = Bm25Index([(f"k{i}", f"send {i} weekly report café {i % 3}") for i in range(50)])
    index.remove("k3")
    index.replace("k10", "deploy the weekly server")
    index.add("new", "send the weekly report to Dana")  # reuses k3's slot
    state = snapshot(index)
    restored = restore(state)
    assert snapshot(restored) == state  # slots, words, postings, lengths, order, texts
    assert list(restored.documents()) == list(index.documents())
    for query in QUERIES:
        assert [(h.key, h.score) for h in restored.search(query, top=None)] == \
            [(h.key, h.score) for h in index.search(query, top=None)]
    bad_states = [
        snapshot(index).__class__(**{**state.__dict__, "free": [*state.free, 0]}),
        snapshot(index).__class__(**{**state.__dict__, "words": [*state.words, state.words[0]]}),
        snapshot(index).__class__(**{**state.__dict__, "length": state.length[:-8]}),
        snapshot(index).__class__(**{**state.__dict__, "terms": (*state.terms[:2], b"\x01", "|u1")}),
    ]
    for bad in bad_states:
        with pytest.raises(BadState):
            restore(bad)
