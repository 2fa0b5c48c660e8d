"""Discovery per agent (issue 31), on generated libraries of each layout (tests/skill_layouts.py):
plugin marketplaces open as one library whose tree is plugin → skill, category folders are tree
folders, each agent's roots and precedence (a fake home, passed explicitly), every SKILL.md loaded
or named in a problem, and the trip to RockBot and back keeps every loaded file and its path."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from rockskills_gui.core.library.archive_records import archived
from rockskills_gui.core.library.convert.run import convert
from rockskills_gui.core.library.formats import detect
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.open import OpenOptions, UserSettings, open_library
from rockskills_gui.core.library.tree import SkillTree
from rockskills_gui.core.lint.linter import lint_library
from rockskills_gui.core.model.problems import ProblemKind
from tests.corpus_sweep import skill_md_files
from tests.skill_layouts import (
    agent_roots,
    category_tree,
    claude_marketplace,
    codex_marketplace,
    hermes_home,
    skill,
)


def archived_files(lib: Library) -> set[str]:
    """The SKILL.md files of the library's archived skills (issue 32's archive, no agent reads it)."""
    return {lib.layout.display_path(s.folder / "SKILL.md") for s in archived(lib)[0]}


def accounted(lib: Library, root: Path) -> tuple[set[str], set[str]]:
    """(SKILL.md files loaded, those named in a problem); every one below ``root`` is either, or
    an archived skill's."""
    files = set(skill_md_files(root))
    loaded = {lib.layout.display_path(lib.skill_path(n)) for n in lib.names()}
    named = {p.path for p in lib.problems}
    assert files <= loaded | named | archived_files(lib), files - loaded - named - archived_files(lib)
    return loaded, named


def round_trips(lib: Library, root: Path) -> None:
    """To RockBot and back: every loaded SKILL.md comes back at its path, byte for byte."""
    loaded, _named = accounted(lib, root)
    with tempfile.TemporaryDirectory() as tmp:
        convert(lib, Path(tmp) / "rockbot", "rockbot")
        convert(open_library(Path(tmp) / "rockbot"), Path(tmp) / "back", lib.format)
        back = skill_md_files(Path(tmp) / "back")
    assert back == {p: b for p, b in skill_md_files(root).items() if p in loaded}


def folders_of(lib: Library) -> set[str]:
    tree = SkillTree(lib.skills())
    return {node.path for node in tree.by_key.values() if node.is_folder}


def test_a_claude_code_marketplace_opens_as_one_library_of_plugins(tmp_path: Path) -> None:
    root = claude_marketplace(tmp_path / "market")
    found = detect(root)
    assert found.format == "claude-code" and ".claude-plugin/marketplace.json" in found.reason
    lib = open_library(root)
    assert sorted(lib.names()) == ["deploy-kit/deploy", "deploy-kit/rollback", "discord/access",
                                   "discord/configure", "notes/take-notes", "receipts/receipts",
                                   "telegram/access", "telegram/configure"]
    assert folders_of(lib) == {"deploy-kit", "discord", "notes", "receipts", "telegram"}
    entry = lib.entry("discord/access")
    assert entry.agent_name == "discord:access" and entry.own_name == "access"
    (deep,) = [p for p in lib.problems if p.kind is ProblemKind.NOT_DISCOVERED]
    assert deep.path == "plugins/notes/skills/archive/old-notes/SKILL.md"
    assert "Claude Code looks for skill folders only directly in a skills folder" in deep.message
    assert not [p for p in lib.problems if p.kind is ProblemKind.DUPLICATE_NAME]
    round_trips(lib, root)


def test_an_openai_plugins_marketplace_opens_as_codex_with_every_file_accounted_for(tmp_path: Path) -> None:
    root = codex_marketplace(tmp_path / "plugins-repo")
    assert detect(root).format == "codex"
    lib = open_library(root)
    assert lib.names() == ["plugin-creator", "writing/release-notes", "writing/style/tone",
                           "figma/implement-design", "github/review-pr", "github/triage", "linear/triage"]
    assert lib.entry("github/triage").agent_name == "github:triage"
    assert lib.entry("writing/style/tone").agent_name == "tone"  # Codex names carry no category
    assert {"writing", "writing/style", "github", "figma", "linear"} <= folders_of(lib)
    why = {p.path: p.message for p in lib.problems}
    assert why[".agents/skills/.drafts/wip/SKILL.md"] == \
        "Codex does not load it: it is inside .drafts/, which Codex never scans"
    assert archived_files(lib) == {".agents/skills/.archive/retired/SKILL.md"}  # the archive's
    assert why[".agents/skills/too-long/SKILL.md"] == \
        "Codex does not load it: invalid name: exceeds maximum length of 64 characters"
    assert "missing field `description`" in why[".agents/skills/quiet/SKILL.md"]
    round_trips(lib, root)


def test_category_folders_are_tree_folders(tmp_path: Path) -> None:
    root = category_tree(tmp_path / "collection")
    lib = open_library(root)
    assert lib.format == "agentskills" and not lib.problems
    assert sorted(lib.names()) == ["engineering/code-review", "engineering/frontend/a11y-check",
                                   "engineering/incident-response", "marketing-skill/launch-plan",
                                   "marketing-skill/seo-audit"]
    assert folders_of(lib) == {"engineering", "engineering/frontend", "marketing-skill"}
    assert lib.entry("engineering/frontend/a11y-check").own_name == "a11y-check"
    # the spec's name rules apply to the file's own name, not to the category folders before it
    assert not {f.kind for f in lint_library(lib)} & {"spec-name", "name-folder-mismatch"}
    round_trips(lib, root)


def test_a_hermes_home_has_categories_and_never_loads_its_archive(tmp_path: Path) -> None:
    hermes = hermes_home(tmp_path / "home")
    lib = open_library(hermes)
    assert lib.format == "hermes"
    assert lib.names() == ["mlops/axolotl", "mlops/vllm", "research/arxiv"]
    assert not lib.problems and archived_files(lib) == {"skills/.archive/old-tool/SKILL.md"}
    round_trips(lib, hermes)


def test_the_same_skill_in_two_categories_is_one_name_to_agents_that_shadow(tmp_path: Path) -> None:
    skill(tmp_path / "lib" / "a" / "deploy", "deploy", "First.")
    skill(tmp_path / "lib" / "b" / "deploy", "deploy", "Second.")
    lib = open_library(tmp_path / "lib")
    assert lib.names() == ["a/deploy"]  # both are 'deploy' to the agent: the first wins
    (dup,) = lib.problems
    assert dup.kind is ProblemKind.DUPLICATE_NAME and dup.path == "b/deploy/SKILL.md"
    codex = open_library(tmp_path / "lib", OpenOptions(format="codex"))
    assert codex.names() == ["a/deploy", "b/deploy"]  # Codex does not shadow: both load
    assert not codex.problems


# Each agent's project root and user root hold 'shared'; who wins (issue 31 precedence).
PRECEDENCE = [
    ("claude-code", ".claude/skills", "~/.claude/skills", "user"),  # personal > project
    ("gemini-cli", ".gemini/skills", "~/.gemini/skills", "project"),  # workspace > user
    ("hermes", ".hermes/skills", "~/.hermes/skills", "project"),  # trusted project > profile
    ("copilot", ".github/skills", "~/.copilot/skills", "project"),  # assumed: the first found
    ("cursor", ".cursor/skills", "~/.cursor/skills", "project"),  # assumed
]


@pytest.mark.parametrize(("agent", "project_root", "user_root", "winner"), PRECEDENCE,
                         ids=[p[0] for p in PRECEDENCE])
def test_each_agent_uses_the_copy_its_precedence_picks(tmp_path: Path, agent: str, project_root: str,
                                                       user_root: str, winner: str) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    agent_roots(project, home, project_root, user_root)
    # (.claude/skills alone is read by many agents: it opens as Agent Skills unless asked)
    assert detect(project).format == ("agentskills" if agent == "claude-code" else agent)
    alone = open_library(project, OpenOptions(format=agent))  # the user's roots only when asked for
    assert sorted(alone.names()) == ["project-only", "shared"]
    lib = open_library(project, OpenOptions(format=agent, settings=UserSettings(include_user=True),
                                            home=home))
    assert sorted(lib.names()) == ["project-only", "shared", "user-only"]
    assert lib.get("shared").summary == f"The {winner}'s shared."  # type: ignore[union-attr]
    (shadowed,) = lib.problems
    assert shadowed.kind is ProblemKind.DUPLICATE_NAME
    assert "which wins; this one is not loaded" in shadowed.message
    loser = project / project_root if winner == "user" else home / user_root.removeprefix("~/")
    assert Path(lib.layout.display_path(loser / "shared" / "SKILL.md")) == Path(shadowed.path)


def test_codex_loads_both_copies_and_says_a_mention_is_ambiguous(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    agent_roots(project, home, ".codex/skills", "~/.agents/skills")
    lib = open_library(project, OpenOptions(settings=UserSettings(include_user=True), home=home))
    assert lib.format == "codex" and lib.get("shared").summary == "The project's shared."  # type: ignore[union-attr]
    (both,) = lib.problems
    assert "Codex loads and lists both, and a mention of the name is ambiguous" in both.message


def test_gemini_prefers_the_agents_alias_within_the_workspace(tmp_path: Path) -> None:
    skill(tmp_path / ".gemini" / "skills" / "x", "x", "From .gemini.")
    skill(tmp_path / ".agents" / "skills" / "x", "x", "From .agents.")
    lib = open_library(tmp_path, OpenOptions(format="gemini-cli"))
    assert lib.get("x").summary == "From .agents."  # type: ignore[union-attr]


def test_gemini_skips_a_file_whose_name_is_not_a_string(tmp_path: Path) -> None:
    skill(tmp_path / ".gemini" / "skills" / "n", "123", "A number for a name.")
    (problem,) = open_library(tmp_path).problems
    assert problem.message == ("Gemini CLI skips this file: its 'name' and 'description' must both be "
                               "strings")


def test_an_unreadable_plugin_manifest_is_named_and_the_folder_name_used(tmp_path: Path) -> None:
    root = claude_marketplace(tmp_path / "market")
    (root / "plugins" / "notes" / ".claude-plugin" / "plugin.json").write_text("{not json")
    lib = open_library(root)
    assert "notes/take-notes" in lib.names()
    (bad,) = [p for p in lib.problems if p.path == "plugins/notes/.claude-plugin/plugin.json"]
    assert "plugin manifest not read" in bad.message


def test_a_marketplace_source_leaving_the_folder_is_not_followed(tmp_path: Path) -> None:
    root = claude_marketplace(tmp_path / "market")
    skill(tmp_path / "outside" / "skills" / "secret", "secret", "Outside the marketplace.")
    (root / ".claude-plugin" / "marketplace.json").write_text(
        '{"plugins": [{"name": "out", "source": "./../outside"}]}')
    assert not [n for n in open_library(root).names() if "secret" in n]


ROOT_LAYOUTS = [("claude-code", ".claude/skills"), ("codex", ".agents/skills"), ("codex", ".codex/skills"),
                ("gemini-cli", ".gemini/skills"), ("gemini-cli", ".agents/skills"),
                ("copilot", ".github/skills"), ("cursor", ".cursor/skills"), ("hermes", ".hermes/skills")]


@pytest.mark.parametrize(("agent", "project_root"), ROOT_LAYOUTS, ids=[f"{a}:{r}" for a, r in ROOT_LAYOUTS])
def test_every_skill_md_of_an_agents_root_is_loaded_or_named(tmp_path: Path, agent: str,
                                                            project_root: str) -> None:
    """A skill at the top of the root, one in a category folder, one in a dot folder, one inside
    another skill and one ten folders down: each is loaded or named in a problem, as the agent
    would treat it."""
    root = tmp_path / project_root
    skill(root / "top", "top")
    skill(root / "ops" / "deploy", "deploy")
    skill(root / ".hidden" / "secret", "secret")
    skill(root / "top" / "references" / "inner", "inner")
    skill(root.joinpath(*[f"d{i}" for i in range(10)]) / "deep", "deep")
    lib = open_library(tmp_path, OpenOptions(format=agent))
    loaded, named = accounted(lib, tmp_path)
    assert f"{project_root}/top/SKILL.md" in loaded
    assert f"{project_root}/top/references/inner/SKILL.md" in named  # a file of 'top', not a skill
    one_level = lib.profile.storage.scan_depth == 1
    assert (f"{project_root}/ops/deploy/SKILL.md" in (named if one_level else loaded))
    hidden = f"{project_root}/.hidden/secret/SKILL.md"
    assert hidden in (named if lib.profile.storage.skip_dot_dirs or one_level else loaded)
    deep = f"{project_root}/{'/'.join(f'd{i}' for i in range(10))}/deep/SKILL.md"
    assert deep in (loaded if lib.profile.storage.scan_depth is None else named)


def test_codex_says_a_skill_md_inside_a_skill_is_a_skill_to_it(tmp_path: Path) -> None:
    """loader.rs goes on scanning below a skill: Codex loads the inner file as a skill too."""
    skill(tmp_path / ".agents" / "skills" / "top" / "references" / "inner", "inner")
    skill(tmp_path / ".agents" / "skills" / "top", "top")
    for agent, said in (("codex", "Codex loads it as a skill of its own too"),
                        ("agentskills", "agents read it as one of that skill's files")):
        (nested,) = open_library(tmp_path, OpenOptions(format=agent)).problems
        assert nested.kind is ProblemKind.NESTED_SKILL and said in nested.message
