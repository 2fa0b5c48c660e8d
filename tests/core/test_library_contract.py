"""One library contract (issue 15): RockBot's Library and the SKILL.md library share their
operations, errors and types, so code written against one works on the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot import library as rockbot_library
from rockskills_gui.core.library.skillmd import library as skillmd_library
from rockskills_gui.core.storage.changes import ChangeSet, ConflictError, FileChange


def skill_md(root: Path, name: str, description: str, see_also: str = "") -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = f"metadata:\n  see-also: {see_also}\n" if see_also else ""
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\nBody of {name}\n")
    return path


@pytest.fixture
def md_lib(tmp_path: Path) -> skillmd_library.SkillMdLibrary:
    root = tmp_path / "lib"
    skill_md(root, "alpha", "First skill")
    skill_md(root, "beta", "Second skill")
    lib = open_library(root)
    assert isinstance(lib, skillmd_library.SkillMdLibrary)
    return lib


def test_both_formats_are_one_contract_with_one_set_of_errors(
        agent_copy: Path, md_lib: skillmd_library.SkillMdLibrary) -> None:
    rockbot = open_library(agent_copy)
    assert isinstance(rockbot, Library) and isinstance(md_lib, Library)
    assert rockbot_library.NameTakenError is skillmd_library.NameTakenError
    assert rockbot_library.UnknownSkillError is skillmd_library.UnknownSkillError
    assert rockbot_library.Reference is skillmd_library.Reference
    with pytest.raises(rockbot_library.NameTakenError, match="'alpha' already exists"):
        md_lib.create("ALPHA")
    with pytest.raises(rockbot_library.UnknownSkillError):
        md_lib.entry("gamma")
    name = rockbot.names()[0]
    with pytest.raises(skillmd_library.NameTakenError, match="RockBot names are case-insensitive"):
        rockbot.create(name.upper() if name != name.upper() else name.lower())


def test_a_skill_md_library_applies_a_change_set_as_one_undoable_step(
        md_lib: skillmd_library.SkillMdLibrary) -> None:
    alpha = md_lib.entry("alpha")
    new = alpha.raw.replace(b"First skill", b"Edited elsewhere")
    gamma = md_lib.skills_dir / "gamma" / "SKILL.md"
    change = ChangeSet("Plan", files=(FileChange(alpha.path, alpha.raw, new),
                                      FileChange(gamma, None, b"---\nname: gamma\ndescription: New\n---\n")))
    recorded = md_lib.apply_change_set(change)
    assert recorded.files == change.files and md_lib.history.undo_stack[-1] == recorded
    assert md_lib.get("alpha").summary == "Edited elsewhere"  # type: ignore[union-attr]
    assert "gamma" in md_lib and alpha.path.read_bytes() == new
    md_lib.undo()
    assert alpha.path.read_bytes() == alpha.raw and not gamma.exists() and "gamma" not in md_lib
    stale = ChangeSet("Stale", files=(FileChange(alpha.path, new, b"x"),))
    with pytest.raises(ConflictError, match=r"alpha/SKILL\.md changed on disk"):
        md_lib.apply_change_set(stale)
    assert alpha.path.read_bytes() == alpha.raw


def test_rename_rewrites_references_the_same_way_in_both_formats(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    skill_md(root, "alpha", "First skill")
    skill_md(root, "beta", "Second skill", see_also="alpha")
    lib = open_library(root)
    change = lib.rename("alpha", "omega")
    assert change.renamed == (("alpha", "omega"),) and change.links_rewritten == ("beta",)
    assert lib.get("beta").see_also == ("omega",)  # type: ignore[union-attr]
    assert (root / "omega" / "SKILL.md").is_file() and not (root / "alpha").exists()
    assert [r.referrer for r in lib.references_to(["OMEGA"])] == ["beta"]
    lib.undo()
    assert (root / "alpha" / "SKILL.md").is_file() and lib.get("beta").see_also == ("alpha",)  # type: ignore[union-attr]


@pytest.mark.parametrize("how", ["on disk", "by an operation"])
def test_restoring_a_deleted_skill_md_keeps_the_frontmatter_the_editor_hides(
        tmp_path: Path, how: str) -> None:
    """A SKILL.md deleted while being edited comes back with its license and other keys, the
    user's edits in it, at its old place; an unknown skill is created afresh."""
    root = tmp_path / "lib"
    path = root / "alpha" / "SKILL.md"
    path.parent.mkdir(parents=True)
    original = ("---\nname: alpha\ndescription: First\nlicense: Apache-2.0\n"
                "metadata:\n  owner: ops\n---\n\nOld body\n")
    path.write_text(original)
    (root / "alpha" / "scripts").mkdir()
    (root / "alpha" / "scripts" / "run.py").write_text("print(1)\n")
    lib = open_library(root)
    assert isinstance(lib, skillmd_library.SkillMdLibrary)
    edited = lib.get("alpha").model_copy(update={"content": "New body\n"})  # type: ignore[union-attr]
    if how == "on disk":
        path.unlink()  # the resources folder stays
        lib.refresh([path])
    else:
        lib.delete("alpha")
    assert "alpha" not in lib
    change = lib.restore(edited)
    text = path.read_text()
    assert "license: Apache-2.0" in text and "owner: ops" in text and "New body" in text
    assert text == original.replace("Old body", "New body")
    assert lib.get("alpha").content == "New body\n"  # type: ignore[union-attr]
    assert change.label == "Restore 'alpha'"
    lib.undo()
    assert not path.exists()
    fresh = lib.restore(edited.model_copy(update={"name": "zeta"}))
    assert fresh.files[0].path == root / "zeta" / "SKILL.md"


def test_undo_never_brings_back_a_skill_whose_name_another_file_now_holds(tmp_path: Path) -> None:
    """Found by the nothing-lost machine: a SKILL.md deleted in the app, then a new one of the
    same name written elsewhere (another root or folder); undoing the delete would make two
    skills share a name. It is refused, nothing is written, and the undo stays available."""
    root = tmp_path / "lib"
    skill_md(root / ".agents" / "skills", "alpha", "First")
    skill_md(root / ".claude" / "skills", "beta", "Second")
    lib = open_library(root)
    old = lib.skill_path("alpha")
    lib.delete("alpha")
    elsewhere = root / ".claude" / "skills" / "alpha" / "SKILL.md"  # another root of the library
    assert lib.layout.path_for("alpha") == old != elsewhere
    skill_md(root / ".claude" / "skills", "alpha", "Written by the agent")
    lib.refresh([elsewhere])
    with pytest.raises(rockbot_library.NameTakenError, match="Cannot bring 'alpha' back"):
        lib.undo()
    assert not old.exists() and lib.get("alpha").summary == "Written by the agent"  # type: ignore[union-attr]
    assert lib.history.undo_stack and not lib.problems
    elsewhere.unlink()
    lib.refresh([elsewhere])
    lib.undo()
    assert old.exists() and lib.get("alpha").summary == "First"  # type: ignore[union-attr]
