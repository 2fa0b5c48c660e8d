"""Each library answers which file a skill lives in (``skill_path``) and which folders hold its
skills (``skill_roots``), whatever its format: the editor watches these, so they must be the files
the library really read (issue 15: asking RockBot's layout was wrong for every SKILL.md skill of a
corpus opened at its top folder)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import DbEntry, SkillMdLibrary
from tests.conftest import SHARED
from tests.cortex_project import make_cortex

CORPORA = sorted(p for p in (SHARED / "corpora").iterdir() if p.is_dir())


def opened_folders() -> list[Path]:
    """Each corpus opened at its top folder and at the one folder of skill folders inside it."""
    folders = []
    for corpus in CORPORA:
        inner = [p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(".")]
        folders += [corpus, *inner[:1]] if len(inner) == 1 else [corpus]  # corpora vary in shape
    return folders


def assert_paths_are_the_loaded_files(lib: RockBotLibrary | SkillMdLibrary) -> None:
    assert len(lib) > 0
    for name in lib.names():
        entry = lib.entry(name)
        path = lib.skill_path(name)
        assert path == entry.path, name
        assert path.is_file(), name
        assert path.read_bytes() == entry.raw, name
        assert any(root in path.parents for root in lib.skill_roots()), name
        assert lib.skill_path(name.upper()) == path  # names are case-insensitive


@pytest.mark.parametrize("folder", opened_folders(), ids=lambda p: p.relative_to(SHARED).as_posix())
def test_every_corpus_skill_path_is_the_skill_md_it_was_loaded_from(folder: Path) -> None:
    # every corpus also detects so (test_detection_evidence)
    lib = open_library(folder, OpenOptions(format="agentskills"))
    assert isinstance(lib, SkillMdLibrary)
    assert_paths_are_the_loaded_files(lib)
    assert all(lib.skill_path(n).name == "SKILL.md" for n in lib.names())
    (root,) = [r.resolve() for r in lib.skill_roots()]  # shared/ may be a link
    assert folder.resolve() in (root, root.parent)  # the folder, or its one folder of skill folders


def test_every_rockbot_skill_path_is_its_json_file(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    assert_paths_are_the_loaded_files(lib)
    assert lib.skill_roots() == [agent_copy / "skills"]


def test_a_name_with_no_skill_answers_where_creating_it_writes(agent_copy: Path,
                                                              tmp_path: Path) -> None:
    rockbot = RockBotLibrary.open(agent_copy)
    corpus = shutil.copytree(SHARED / "corpora" / "anthropics-skills", tmp_path / "anthropics")
    skill_md = open_library(corpus)
    for lib in (rockbot, skill_md):
        expected = lib.skill_path("made-later")
        assert not expected.exists()
        lib.create("made-later", "A summary", "# Made later")
        assert lib.skill_path("made-later") == expected and expected.is_file()


def test_skill_md_roots_and_cortex_rows(tmp_path: Path) -> None:
    project = tmp_path / "project"
    db = make_cortex(project)
    lib = open_library(project)
    assert isinstance(lib, SkillMdLibrary) and lib.format == "cortex"
    assert lib.skill_roots() == [project / ".cortex" / "skills"]
    assert lib.skill_path("deploy_service_safely") == \
        project / ".cortex" / "skills" / "deploy_service_safely" / "SKILL.md"
    assert isinstance(lib.entry("summarize_logs"), DbEntry)
    assert lib.skill_path("summarize_logs") == db  # a row with no SKILL.md lives in memory.db

    both = tmp_path / "both"
    for root in (".agents/skills", ".claude/skills"):
        (both / root / f"from-{root[1:7]}").mkdir(parents=True)
        (both / root / f"from-{root[1:7]}" / "SKILL.md").write_text(
            f"---\nname: from-{root[1:7]}\ndescription: x\n---\n\nBody\n", encoding="utf-8")
    lib = open_library(both)
    assert isinstance(lib, SkillMdLibrary)
    assert lib.skill_roots() == [both / ".agents/skills", both / ".claude/skills"]
    assert lib.skill_path("from-claude") == both / ".claude/skills/from-claude/SKILL.md"
    assert_paths_are_the_loaded_files(lib)
