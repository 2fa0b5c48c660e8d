"""The scan cache (issue 19): parsed skill files kept between opens outside the library give
exactly what reading every file gives -- the same skills, bytes, problems, load order and recall
scores -- whatever changed between two opens, and are never trusted when a file cannot prove it is
unchanged (same-size edits within one tick of a coarse file-system clock)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rockskills_gui.core.library.rockbot import scan as rockbot
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.rockbot.scan import scan
from rockskills_gui.core.library.stores import scan_cache
from rockskills_gui.core.library.stores.scan_cache import ScanCache
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.skill_recall import SkillRecall
from rockskills_gui.core.storage.layout import Layout

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
QUERIES = ("send the weekly report", "deploy thing 7", "group skill", "does thing 12 broken")


def write_skill(skills: Path, name: str, summary: str, content: str = "body") -> Path:
    path = skills / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(skill_to_bytes(Skill(name=name, summary=summary, content=content,
                                          created_at=NOW, updated_at=NOW)))
    return path


def make_agent(root: Path, count: int = 40) -> Path:
    skills = root / "agent" / "skills"
    for i in range(count):
        write_skill(skills, f"group-{i % 3}/skill-{i:03d}", f"does thing {i} for the weekly report")
    (skills / "group-1" / "broken.json").write_text('{"name": "group-1/broken", "conte')
    (skills / "group-2" / "nameless.json").write_text('{"content": "x"}')
    (skills / "group-0" / "latin1.json").write_bytes(
        b'{"name": "group-0/latin1", "summary": "caf\xe9", "createdAt": "2026-11-22T12:00:00Z"}')
    write_skill(skills, "group-0/elsewhere", "a name that does not match its path")
    os.replace(skills / "group-0" / "elsewhere.json", skills / "group-0" / "moved.json")
    write_skill(skills, "Group-1/Skill-001", "differs only by case")  # a case collision
    (skills / "group-1" / "linked.json").symlink_to(skills / "group-1" / "skill-001.json")
    return root / "agent"


def snapshot(library: RockBotLibrary) -> dict[str, Any]:
    """Everything a cold open decides: skills in load order, their files and bytes, problems,
    and recall rankings with their scores."""
    recall = SkillRecall(library.skills())
    return {
        "entries": [(e.path, e.skill, e.raw) for e in (library.entry(n) for n in library.names())],
        "order": library.names(),
        "problems": [p.model_dump() for p in library.problems],
        "recall": [[(h.name, h.score) for h in recall.search(q, top=None)] for q in QUERIES],
    }


@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan runs a minute from now: files written by the test are old enough to be cached
    (on a real disk they are, a few seconds after an edit)."""
    real = time.time_ns
    monkeypatch.setattr(rockbot.time, "time_ns", lambda: real() + 60 * 10**9)


def open_cached(agent: Path, cache: Path, **kwargs: Any) -> RockBotLibrary:
    return RockBotLibrary.open(agent, cache_dir=cache, **kwargs)


def assert_same_as_cold(agent: Path, cache: Path, **kwargs: Any) -> RockBotLibrary:
    cached = open_cached(agent, cache, **kwargs)
    cold = RockBotLibrary.open(agent, **kwargs)
    assert snapshot(cached) == snapshot(cold)
    return cached


def test_a_second_open_reads_no_file_and_gives_what_reading_gives(tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path)
    cache = tmp_path / "cache"
    first = assert_same_as_cold(agent, cache)
    assert first.scan_cache is not None and first.scan_cache.hits == 0
    assert list(cache.iterdir())  # written outside the library
    second = assert_same_as_cold(agent, cache)
    assert second.scan_cache is not None
    files = len(list((agent / "skills").rglob("*.json")))
    # Everything but the symbolic link (never cached) comes from the cache.
    assert second.scan_cache.hits == files - 1 and second.scan_cache.read == 1


def test_files_changed_between_opens_are_read_again(tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path)
    skills = agent / "skills"
    cache = tmp_path / "cache"
    open_cached(agent, cache)
    files = len(list(skills.rglob("*.json")))

    # An edit of another size; a same-size edit with the old modification time put back (only
    # the change time tells); a new file; a deleted file; a rename; a replace by rename.
    write_skill(skills, "group-0/skill-000", "a longer summary than before, for the weekly report")
    same = skills / "group-1" / "skill-004.json"
    info = same.stat()
    text = same.read_bytes()
    same.write_bytes(text.replace(b"does thing 4 ", b"DOES THING 4 "))
    os.utime(same, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert same.stat().st_size == info.st_size and same.stat().st_mtime_ns == info.st_mtime_ns
    write_skill(skills, "group-2/new-skill", "a skill added between the opens")
    (skills / "group-2" / "skill-005.json").unlink()
    os.replace(skills / "group-0" / "skill-006.json", skills / "group-0" / "renamed.json")
    replacement = write_skill(tmp_path, "group-1/skill-007", "replaced by an atomic save")
    os.replace(replacement, skills / "group-1" / "skill-007.json")

    library = assert_same_as_cold(agent, cache)
    assert library.get("group-1/skill-004").summary.startswith("DOES THING 4")
    assert library.scan_cache is not None
    # read again: the two edits, the new file, the renamed file, the replaced one, the link
    assert library.scan_cache.read == 6
    assert library.scan_cache.hits == files + 1 - 1 - 6 + 0  # one added, one deleted
    again = assert_same_as_cold(agent, cache)
    assert again.scan_cache is not None and again.scan_cache.read == 1  # only the link now


def test_a_same_size_edit_in_the_same_clock_tick_is_never_trusted(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """On a file system whose clock has whole seconds, a same-size edit in the same second
    leaves size and times unchanged: files that recent are not cached, so they are read."""

    def coarse(info: os.stat_result) -> scan_cache.Signature | None:
        exact = scan_cache.stat_module.S_ISREG(info.st_mode)
        if not exact:
            return None
        second = 10**9
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns // second * second,
                info.st_ctime_ns // second * second)

    monkeypatch.setattr(scan_cache, "signature", coarse)
    agent = make_agent(tmp_path, 6)
    cache = tmp_path / "cache"
    path = agent / "skills" / "group-0" / "skill-003.json"
    marker = b"thing 3"
    for round_ in range(3):
        before = path.read_bytes()
        library = assert_same_as_cold(agent, cache)
        assert library.scan_cache is not None and library.scan_cache.hits == 0
        path.write_bytes(before.replace(marker, marker := f"THING {round_}".encode()))
        assert path.stat().st_size == len(before)
        library = assert_same_as_cold(agent, cache)
        assert library.get("group-0/skill-003").summary.startswith(f"does THING {round_}")


def test_a_damaged_or_foreign_cache_is_ignored(tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path)
    cache = tmp_path / "cache"
    first = open_cached(agent, cache)
    assert first.scan_cache is not None
    cache_file = first.scan_cache.path
    cache_file.write_bytes(cache_file.read_bytes()[: cache_file.stat().st_size // 2])
    again = assert_same_as_cold(agent, cache)
    assert again.scan_cache is not None and again.scan_cache.hits == 0
    cache_file.write_bytes(b"not a cache at all")
    assert_same_as_cold(agent, cache)
    # another RockBot profile, another parser: nothing is used
    other = open_cached(agent, cache, rules=ROCKBOT_CURRENT)
    assert other.scan_cache is not None and other.scan_cache.hits == 0
    assert open_cached(agent, cache, rules=ROCKBOT_64E82CC).scan_cache.hits == 0  # type: ignore[union-attr]
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setitem(scan_cache._fingerprints, scan_cache._CODE, "another version")
    try:
        assert open_cached(agent, cache).scan_cache.hits == 0  # type: ignore[union-attr]
    finally:
        monkeypatch.undo()
    monkeypatch.setenv(scan_cache.CACHE_ENV_OFF, "1")
    try:
        assert open_cached(agent, cache).scan_cache is None
    finally:
        monkeypatch.undo()


def test_problems_that_do_not_come_from_the_bytes_are_not_cached(tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path, 5)
    cache = tmp_path / "cache"
    locked = agent / "skills" / "group-0" / "skill-000.json"
    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    locked.chmod(0)
    try:
        assert_same_as_cold(agent, cache)
        library = assert_same_as_cold(agent, cache)
        assert any(p.kind.value == "unreadable" for p in library.problems)
        locked.chmod(0o644)
        assert_same_as_cold(agent, cache)
    finally:
        locked.chmod(0o644)


@pytest.mark.skipif(sys.platform == "win32", reason="helper processes are tested on POSIX")
def test_helper_processes_fill_the_cache_with_the_same_results(tmp_path: Path, later: None) -> None:
    agent = make_agent(tmp_path, 300)
    layout = Layout.locate(agent)
    prefix = rockbot._prefix(layout)
    cache = ScanCache(tmp_path / "cache", layout.skills_dir, prefix, ROCKBOT_64E82CC)
    cold = scan(layout, workers=1)
    seen: list[tuple[int, int]] = []
    first = scan(layout, workers=2, parallel_from=1, cache=cache,
                 progress=lambda d, t: seen.append((d, t)))
    assert cache.hits == 0
    second = scan(layout, workers=2, parallel_from=1, cache=cache,
                  progress=lambda d, t: seen.append((d, t)))
    assert cache.read == 1 and cache.hits > 300  # all but the link
    for got in (first, second):
        assert [(x.path, x.skill, x.raw) for x in got[0]] == [(x.path, x.skill, x.raw) for x in cold[0]]
        assert got[1] == cold[1]
    assert all(t == seen[0][1] for _, t in seen) and seen[-1][0] == seen[-1][1]
    # a file edited since is read again
    write_skill(layout.skills_dir, "group-0/skill-000", "edited just now")
    third = scan(layout, workers=2, parallel_from=1, cache=cache)
    edited = [x.skill for x in third[0] if x.skill.name == "group-0/skill-000"]
    assert edited[0].summary == "edited just now" and cache.read == 2
