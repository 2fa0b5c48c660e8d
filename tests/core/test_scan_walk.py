"""The listing made by a helper process while the scan loads its cache (issue 19, scan_walk):
exactly the scan's own listing and signatures, and a helper that fails changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot import scan as rockbot
from rockskills_gui.core.library.rockbot import scan_walk
from rockskills_gui.core.library.rockbot.scan import _walk
from rockskills_gui.core.library.rockbot.scan_walk import WalkHelper, wait_listing
from rockskills_gui.core.library.stores.scan_cache import stat_signature
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from tests.core.test_scan_cache import assert_same_as_cold, later, make_agent, write_skill

__all__ = ["later"]  # (the fixture, used by name)


def odd_entries(agent: Path) -> None:
    """Temp files, a FIFO and a folder named like skill files, a resource folder, a link."""
    skills = agent / "skills"
    (skills / "group-0" / ".x.json.rsg-tmp").write_text("partial")
    os.mkfifo(skills / "group-1" / "fifo.json")
    (skills / "group-2" / "folder.json").mkdir()
    write_skill(skills, "group-2/folder.json/inside", "a skill inside a folder named .json")
    resources = skills / "group-0" / "skill-000.resources"
    resources.mkdir()
    (resources / "data.json").write_text("{}")
    (skills / "dangling.json").symlink_to(agent / "nowhere.json")


@pytest.mark.parametrize("rules", [ROCKBOT_64E82CC, ROCKBOT_CURRENT])
def test_the_helpers_listing_is_the_scans(tmp_path: Path, rules) -> None:
    agent = make_agent(tmp_path)
    odd_entries(agent)
    skills = agent / "skills"
    helper = WalkHelper(skills, rules)
    listing = wait_listing(helper, lambda: False)
    assert listing is not None
    temps: list[Path] = []
    odd: list = []
    links: list[tuple[str, str]] = []
    files = _walk(skills, temps, odd, links, rules)
    assert listing.files == files and len(files) > 40
    assert listing.temps == temps and temps
    assert listing.odd == odd and len(odd) >= 2
    assert listing.links == links and links
    assert listing.signatures == [stat_signature(where) for where, _ in files]


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The helper for any cache (and helpers allowed); records each listing it gave."""
    monkeypatch.setattr(scan_walk, "WALK_FROM_BYTES", 0)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "2")
    got: list[object] = []
    real = WalkHelper.result
    monkeypatch.setattr(WalkHelper, "result", lambda self: got.append(real(self)) or got[-1])
    return got


def test_opens_with_the_helper_give_what_reading_gives(tmp_path: Path, later: None,
                                                       forced: list[object]) -> None:
    agent = make_agent(tmp_path)
    odd_entries(agent)
    skills = agent / "skills"
    cache = tmp_path / "cache"
    assert_same_as_cold(agent, cache)
    assert forced == []  # no cache yet: no helper
    second = assert_same_as_cold(agent, cache)
    assert forced and forced[-1] is not None
    assert second.scan_cache is not None and second.scan_cache.hits > 40
    write_skill(skills, "group-0/skill-001", "changed between the opens, another size")
    same = skills / "group-1" / "skill-004.json"
    info = same.stat()
    same.write_bytes(same.read_bytes().replace(b"does thing 4 ", b"DOES THING 4 "))
    os.utime(same, ns=(info.st_atime_ns, info.st_mtime_ns))
    (skills / "group-2" / "skill-005.json").unlink()
    write_skill(skills, "group-9/new", "added")
    third = assert_same_as_cold(agent, cache)
    assert third.get("group-1/skill-004").summary.startswith("DOES THING 4")  # type: ignore[union-attr]
    assert len(forced) == 2 and forced[-1] is not None


def test_a_failing_helper_changes_nothing(tmp_path: Path, later: None, forced: list[object],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent(tmp_path)
    odd_entries(agent)
    cache = tmp_path / "cache"
    assert_same_as_cold(agent, cache)
    failing = tmp_path / "failing-python"  # reads the request, writes half a record, fails
    failing.write_text("#!/bin/sh\ncat > /dev/null\nprintf 'garbage'\nexit 3\n")
    failing.chmod(0o755)
    monkeypatch.setattr(scan_walk.sys, "executable", str(failing))
    assert_same_as_cold(agent, cache)
    assert forced == [None]  # it ran, failed, and the scan listed the folder itself
