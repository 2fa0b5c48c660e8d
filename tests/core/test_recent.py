"""Recent libraries: most recent first, de-duplicated, capped, pruned, atomic, overridable dir."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.app.recent import MAX_RECENT, RecentLibraries
from rockskills_gui.core.storage.appdirs import config_dir, data_dir, demo_library_dir


def folders(tmp_path: Path, count: int) -> list[Path]:
    made = []
    for i in range(count):
        (tmp_path / f"lib{i}").mkdir()
        made.append(tmp_path / f"lib{i}")
    return made


def test_dirs_follow_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ROCKSKILLS_CONFIG_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("ROCKSKILLS_DATA_DIR", str(tmp_path / "d"))
    assert config_dir() == tmp_path / "c"
    assert data_dir() == tmp_path / "d"
    assert demo_library_dir() == tmp_path / "d" / "demo-library"
    assert RecentLibraries().file == tmp_path / "c" / "recent.json"


def test_most_recent_first_without_duplicates(tmp_path: Path) -> None:
    a, b = folders(tmp_path, 2)
    recent = RecentLibraries(tmp_path / "cfg" / "recent.json")
    assert recent.paths() == []
    recent.add(a)
    recent.add(b)
    recent.add(a)
    assert recent.paths() == [a, b]
    assert RecentLibraries(recent.file).paths() == [a, b]  # persisted


def test_capped_and_pruned(tmp_path: Path) -> None:
    libs = folders(tmp_path, MAX_RECENT + 3)
    recent = RecentLibraries(tmp_path / "recent.json")
    for lib in libs:
        recent.add(lib)
    assert recent.paths() == list(reversed(libs))[:MAX_RECENT]
    libs[-1].rmdir()
    assert recent.paths()[0] == libs[-2]


def test_clear_remove_and_bad_file(tmp_path: Path) -> None:
    a, b = folders(tmp_path, 2)
    recent = RecentLibraries(tmp_path / "recent.json")
    recent.add(a)
    recent.add(b)
    recent.remove(b)
    assert recent.paths() == [a]
    recent.clear()
    assert recent.paths() == []
    recent.file.write_text("{not json", encoding="utf-8")
    assert recent.paths() == []
    recent.file.write_text('{"a": 1}', encoding="utf-8")
    assert recent.paths() == []
    recent.add(a)
    assert recent.paths() == [a]
    assert not [p for p in recent.file.parent.iterdir() if p.name.endswith(".rsg-tmp")]


def test_a_chosen_format_is_remembered_and_old_lists_still_read(tmp_path: Path) -> None:
    import json

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    recent = RecentLibraries(tmp_path / "cfg" / "recent.json")
    recent.file.parent.mkdir(parents=True)
    recent.file.write_text(json.dumps([str(a), str(b)]))  # a list written by an older version
    assert recent.paths() == [a, b] and recent.format_of(a) is None
    recent.add(b, "agentskills")
    assert recent.paths() == [b, a] and recent.format_of(b) == "agentskills"
    recent.add(b)  # opened by detection again: the choice is forgotten
    assert recent.format_of(b) is None
    recent.add(a, "picobot")
    assert RecentLibraries(recent.file).format_of(a) == "picobot"  # stored, not only in memory
