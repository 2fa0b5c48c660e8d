"""The machine view's core (issue 33) over a generated home folder (tests/machine_home.py), never
the real one: every root and copy found, copies compared by digest, lock files, the gate, and the
operations (copy, link, enable/disable, batch archive) with one undo step each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.core.budget.agents import lister_for
from rockskills_gui.core.budget.compute import compute_budget
from rockskills_gui.core.budget.entries import entries_of
from rockskills_gui.core.budget.limits import Limits
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.machine import ops
from rockskills_gui.core.machine.changes import MachineHistory
from rockskills_gui.core.machine.digest import digest_lines, file_digest, folder_digest, folder_files
from rockskills_gui.core.machine.scan import DIFFERENT, IDENTICAL, Machine, scan_machine
from rockskills_gui.core.model.profiles import PROFILES
from tests.machine_home import FakeHome, build_home, tree_bytes


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return build_home(tmp_path)


def _scan(fake: FakeHome) -> Machine:
    return scan_machine(fake.home, [fake.project])


def _copy_in(machine: Machine, name: str, root: Path):
    skill = machine.skill(name)
    assert skill is not None, name
    return next(c for c in skill.copies if c.root.path == root)


def test_the_rfc_digest_example() -> None:
    """cloudflare/agent-skills-discovery-rfc README @ 366ad37: the worked skill-level digest."""
    files = {"SKILL.md": b"# Hello\n", "scripts/run.sh": b"#!/bin/sh\n"}
    assert folder_digest(files) == "sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544105c4185a7c4ab12eb1e"
    assert digest_lines((p, file_digest(d)) for p, d in reversed(list(files.items()))) == folder_digest(files)


def test_every_root_and_skill_of_the_generated_home(fake: FakeHome) -> None:
    machine = _scan(fake)
    roots = {r.path: r for r in machine.roots}
    for path in (fake.claude, fake.agents, fake.codex, fake.gemini, fake.project / ".claude" / "skills",
                 fake.project / ".gemini" / "skills", fake.project / ".agents" / "skills"):
        assert path in roots, path
    assert roots[fake.claude].scope == "user" and "claude-code" in roots[fake.claude].agent_ids
    assert roots[fake.gemini].agent_ids == ("gemini-cli",)
    assert {"codex", "gemini-cli"} <= set(roots[fake.agents].agent_ids)  # one root, several agents
    assert roots[fake.project / ".claude" / "skills"].scope == "project"
    on_disk = {p.parent for r in roots for p in r.rglob("SKILL.md") if ".rockskills" not in p.parts}
    assert on_disk == {c.folder for c in machine.copies()}
    assert roots[fake.claude].count == 4


def test_copies_marked_identical_or_different_by_digest(fake: FakeHome) -> None:
    machine = _scan(fake)
    assert machine.skill("frontend-design").sameness == IDENTICAL
    assert machine.skill("mcp-builder").sameness == IDENTICAL
    pdf = machine.skill("pdf-tools")
    assert pdf.sameness == DIFFERENT and len(pdf.copies) == 3
    marks = pdf.marks()
    by_root = {c.root.path: marks[i] for i, c in enumerate(pdf.copies)}
    assert by_root[fake.claude] == by_root[fake.gemini] != by_root[fake.agents]
    assert machine.skill("gem-only").sameness == ""
    # a change of one byte anywhere in the folder changes the digest
    (fake.gemini / "pdf-tools" / "scripts" / "fill.py").write_text("print('Fill')\n")
    assert _scan(fake).skill("pdf-tools").marks() != marks


def test_a_shell_syntax_folder_name_is_shown_literally(fake: FakeHome) -> None:
    machine = _scan(fake)
    copy = machine.skill("shell-name").copies[0]
    assert copy.folder.name == "$(id)" and copy.rel == "$(id)"


def test_lock_files_give_source_and_changed_since_install(fake: FakeHome) -> None:
    machine = _scan(fake)
    find = machine.skill("find-skills").copies[0].lock
    edited = machine.skill("edited-after").copies[0].lock
    assert find is not None and edited is not None
    assert (find.entry.source, find.entry.source_type) == ("vercel-labs/skills", "github")
    assert find.state.startswith("unchanged") and edited.state.startswith("changed since install")
    glob = _copy_in(machine, "frontend-design", fake.agents).lock
    assert glob is not None and glob.entry.source == "anthropics/skills"
    assert "offline" in glob.state  # a global entry records a GitHub tree SHA, not the files
    data = json.loads(json.dumps(machine.as_json()))
    copies = {c["path"]: c for s in data["skills"] for c in s["copies"]}
    assert copies[str(fake.project / ".agents" / "skills" / "edited-after")]["lock"]["state"].startswith(
        "changed")


def test_copy_records_the_digest_and_undo_removes_it(fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    machine, history = _scan(fake), MachineHistory()
    b = ops.Builder(machine)
    check = ops.copy_to(b, _copy_in(machine, "gem-only", fake.gemini), machine.root_at(fake.claude),
                        PROFILES["claude-code"])
    assert check.ok
    change = b.build("Copy gem-only to Claude Code")
    made = f"create {fake.claude / 'gem-only' / 'SKILL.md'}"
    assert any(line.startswith(made) for line in change.preview())
    history.apply(change)
    after = _scan(fake)
    copied = _copy_in(after, "gem-only", fake.claude)
    assert after.skill("gem-only").sameness == IDENTICAL and copied.copy_state == IDENTICAL
    (fake.gemini / "gem-only" / "SKILL.md").write_text("---\nname: gem-only\ndescription: Changed.\n---\n")
    changed = _scan(fake)
    assert _copy_in(changed, "gem-only", fake.claude).copy_state == "source changed since copied"
    assert _copy_in(changed, "gem-only", fake.gemini).copied_to[0][1] == "changed here since copied"
    (fake.gemini / "gem-only" / "SKILL.md").write_bytes(
        before[Path(".gemini/skills/gem-only/SKILL.md")])
    history.undo()
    assert tree_bytes(fake.home) == before


def test_a_copy_the_target_agent_would_not_load_is_refused(fake: FakeHome) -> None:
    long = "a" * 70  # Codex: MAX_NAME_LEN = 64 (codex-rs/core-skills/src/loader.rs)
    bad = fake.gemini / "long"
    bad.mkdir()
    (bad / "SKILL.md").write_text(f"---\nname: {long}\ndescription: A name too long for Codex.\n---\nx\n")
    machine = _scan(fake)
    b = ops.Builder(machine)
    check = ops.copy_to(b, _copy_in(machine, long, fake.gemini), machine.root_at(fake.codex),
                        PROFILES["codex"])
    assert "Codex would not load it" in check.refused and b.build("x").empty
    b = ops.Builder(machine)
    assert ops.copy_to(b, _copy_in(machine, long, fake.gemini), machine.root_at(fake.claude),
                       PROFILES["claude-code"]).ok


def test_the_gate_blocks_a_copy_until_the_finding_is_accepted_with_a_reason(fake: FakeHome) -> None:
    machine, history = _scan(fake), MachineHistory()
    fetcher = _copy_in(machine, "fetcher", fake.agents)
    assert [f.kind for f in fetcher.gate if f.open]
    b = ops.Builder(machine)
    assert ops.copy_to(b, fetcher, machine.root_at(fake.claude), PROFILES["claude-code"]).findings
    assert b.build("copy").empty
    b = ops.Builder(machine)
    with pytest.raises(ops.MachineError):
        ops.accept_finding(b, fetcher, fetcher.gate[0], "  ")
    ops.accept_finding(b, fetcher, fetcher.gate[0], "our own installer, pinned")
    history.apply(b.build("Accept"))
    again = _scan(fake)
    fetcher = _copy_in(again, "fetcher", fake.agents)
    assert not [f for f in fetcher.gate if f.open]
    accepted = fetcher.gate[0].accepted
    assert accepted is not None and accepted.reason == "our own installer, pinned"
    b = ops.Builder(again)
    assert ops.copy_to(b, fetcher, again.root_at(fake.claude), PROFILES["claude-code"]).ok
    assert not b.build("copy").empty


def test_link_then_undo(fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    machine, history = _scan(fake), MachineHistory()
    b = ops.Builder(machine)
    assert ops.copy_to(b, _copy_in(machine, "gem-only", fake.gemini), machine.root_at(fake.codex),
                       PROFILES["codex"], "link").ok
    history.apply(b.build("Link"))
    link = fake.codex / "gem-only"
    assert link.is_symlink() and link.resolve() == (fake.gemini / "gem-only").resolve()
    linked = _copy_in(_scan(fake), "gem-only", fake.codex)
    assert linked.linked_to == (fake.gemini / "gem-only").resolve()
    history.undo()
    assert not link.exists() and not link.is_symlink()
    assert tree_bytes(fake.home) == before


@pytest.mark.parametrize(("agent", "root", "name", "settings"), [
    ("gemini-cli", "gemini", "pdf-tools", ".gemini/settings.json"),
    ("claude-code", "claude", "pdf-tools", ".claude/settings.json"),
    ("codex", "codex", "mcp-builder", ".codex/config.toml"),
])
def test_disable_with_the_agents_own_switch_and_undo(fake: FakeHome, agent: str, root: str, name: str,
                                                      settings: str) -> None:
    before = tree_bytes(fake.home)
    folder = getattr(fake, root)
    machine, history = _scan(fake), MachineHistory()
    b = ops.Builder(machine)
    ops.set_enabled(b, _copy_in(machine, name, folder), PROFILES[agent], False)
    change = b.build("off")
    assert [f.path for f in change.files()] == [fake.home / settings]
    history.apply(change)
    off = _copy_in(_scan(fake), name, folder)
    assert agent in off.disabled and settings in off.disabled[agent]
    assert (folder / name / "SKILL.md").is_file()  # the files are where they were
    b = ops.Builder(_scan(fake))
    ops.set_enabled(b, off, PROFILES[agent], True)
    history.apply(b.build("on"))
    assert agent not in _copy_in(_scan(fake), name, folder).disabled
    history.undo()
    history.undo()
    assert tree_bytes(fake.home) == before


def test_a_settings_file_that_cannot_be_read_is_reported_and_never_written(fake: FakeHome) -> None:
    settings = fake.home / ".gemini" / "settings.json"
    settings.write_text("{ not json")
    machine = _scan(fake)
    assert any(str(settings) in p for p in machine.problems)
    b = ops.Builder(machine)
    with pytest.raises(ops.MachineError):
        ops.set_enabled(b, _copy_in(machine, "gem-only", fake.gemini), PROFILES["gemini-cli"], False)
    assert settings.read_text() == "{ not json"


def test_an_agent_without_a_switch_moves_the_folder_aside_visible_and_back(fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    machine, history = _scan(fake), MachineHistory()
    b = ops.Builder(machine)
    ops.set_enabled(b, _copy_in(machine, "pdf-tools", fake.claude), PROFILES["copilot"], False)
    change = b.build("off")
    assert any("Claude Code" in note for note in change.notes)  # the same folder: others lose it too
    history.apply(change)
    aside = _scan(fake)
    moved = _copy_in(aside, "pdf-tools", fake.home / ".claude" / "skills.disabled")
    assert moved.aside and set(moved.disabled) >= {"claude-code", "copilot"}
    b = ops.Builder(aside)
    ops.set_enabled(b, moved, PROFILES["copilot"], True)
    history.apply(b.build("on"))
    history.undo()
    history.undo()
    assert tree_bytes(fake.home) == before


def test_batch_archive_is_one_undo_step(fake: FakeHome) -> None:
    before = tree_bytes(fake.home)
    machine, history = _scan(fake), MachineHistory()
    b = ops.Builder(machine)
    for copy in machine.skill("team-review").copies + machine.skill("pdf-tools").copies:
        ops.archive_copy(b, copy)
    assert b.count == 5
    history.apply(b.build("Archive 5 skills"))
    after = _scan(fake)
    assert after.skill("team-review") is None and after.skill("pdf-tools") is None
    assert (fake.claude / ".archive" / "pdf-tools" / "SKILL.md").is_file()
    assert len(history.undo_stack) == 1
    history.undo()
    assert tree_bytes(fake.home) == before


def test_tags_and_notes_live_in_the_sidecar_and_survive_an_update(fake: FakeHome) -> None:
    machine, history = _scan(fake), MachineHistory()
    b = ops.Builder(machine)
    copies = machine.skill("pdf-tools").copies
    for copy in copies:
        ops.tag(b, copy, "team-approved", True)
    ops.set_note(b, copies[0], "keep the older one")
    history.apply(b.build("Tag"))
    skill_md = fake.claude / "pdf-tools" / "SKILL.md"
    assert "team-approved" not in skill_md.read_text()  # never in the frontmatter
    skill_md.write_text(skill_md.read_text() + "\nUpdated upstream.\n")  # an update of the skill
    again = _scan(fake)
    assert all(c.notes.tags == ("team-approved",) for c in again.skill("pdf-tools").copies)
    assert not any(p.suffix == ".json" for p in (fake.claude / ".rockskills").iterdir())


def test_budget_reflects_a_disable(fake: FakeHome) -> None:
    library = open_library(fake.gemini, OpenOptions(format="gemini-cli", home=fake.home))
    gemini = lister_for(PROFILES["gemini-cli"])

    def listed() -> tuple[str, ...]:
        return compute_budget(entries_of(library, fake.home), gemini, Limits()).listed

    assert "pdf-tools" in listed()
    machine = _scan(fake)
    b = ops.Builder(machine)
    ops.set_enabled(b, _copy_in(machine, "pdf-tools", fake.gemini), PROFILES["gemini-cli"], False)
    MachineHistory().apply(b.build("off"))
    budget = compute_budget(entries_of(library, fake.home), gemini, Limits())
    assert "pdf-tools" not in budget.listed
    assert any(h.name == "pdf-tools" and "switched off" in h.reason for h in budget.hidden)
    # another agent's listing of the same library is unchanged
    claude = lister_for(PROFILES["claude-code"])
    assert "pdf-tools" in compute_budget(entries_of(library, fake.home), claude, Limits()).listed


def test_digest_of_a_folder_with_a_fifo_is_none_and_the_scan_does_not_block(fake: FakeHome) -> None:
    import os

    os.mkfifo(fake.gemini / "gem-only" / "pipe")
    files = folder_files(fake.gemini / "gem-only")
    assert folder_digest(files) is None and files.skipped
    assert _copy_in(_scan(fake), "gem-only", fake.gemini).digest is None


def test_a_change_a_crash_interrupted_is_finished_by_the_next_scan(fake: FakeHome) -> None:
    from rockskills_gui.core.storage import journal
    from rockskills_gui.core.storage.layout import Layout

    machine = _scan(fake)
    b = ops.Builder(machine)
    for copy in machine.skill("pdf-tools").copies:
        if copy.root.path == fake.claude:
            ops.archive_copy(b, copy)
    (part,) = b.build("Archive").parts
    assert part.place == fake.home / ".claude" and len(part.files) == 5  # 2 files moved, the record
    with pytest.raises(journal.SimulatedCrash):  # dies after writing one of the four files
        journal.run(Layout(part.place, part.place, ()), part.files, "machine", "Archive", crash_after=1)
    after = _scan(fake)
    assert any("completed an interrupted change" in p for p in after.problems)
    for f in part.files:  # every file as the change left it: the archive is whole
        assert (f.path.read_bytes() if f.path.exists() else None) == f.after, f.path


def test_a_sidecar_that_cannot_be_read_is_reported_and_never_written_over(fake: FakeHome) -> None:
    sidecar = fake.claude / ".rockskills" / "machine.toml"
    sidecar.parent.mkdir()
    sidecar.write_text("[not toml")
    machine = _scan(fake)
    assert any(str(sidecar) in p for p in machine.problems)
    b = ops.Builder(machine)
    with pytest.raises(ops.MachineError, match="nothing was changed"):
        ops.tag(b, _copy_in(machine, "pdf-tools", fake.claude), "x", True)
    assert sidecar.read_text() == "[not toml"


def test_vercel_computed_hash_sorts_as_locale_compare(tmp_path: Path) -> None:
    """vercel-labs/skills src/local-lock.ts @ 0363f53 computeSkillFolderHash: paths sorted with
    localeCompare (case-insensitive first: a.txt < B.txt < SKILL.md, unlike byte order), SHA-256
    over each path then its bytes, no separators; .git skipped."""
    import hashlib

    from rockskills_gui.core.machine.digest import vercel_hash

    files = {"SKILL.md": b"# s\n", "a.txt": b"a\n", "B.txt": b"b\n", "refs/c.md": b"c\n"}
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: x\n")
    expected = hashlib.sha256()
    for rel in ("a.txt", "B.txt", "refs/c.md", "SKILL.md"):
        expected.update(rel.encode() + files[rel])
    assert vercel_hash(folder_files(tmp_path)) == expected.hexdigest()


def test_git_tree_sha_is_gits_own(tmp_path: Path) -> None:
    """The tree id git gives the same folder (git write-tree), executable bit included."""
    import os
    import shutil
    import subprocess

    from rockskills_gui.core.machine.digest import git_tree_sha

    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    folder = tmp_path / "skill"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: skill\ndescription: d\n---\n")
    (folder / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(folder / "scripts" / "run.sh", 0o755)
    (folder / "scripts-b.txt").write_text("x\n")  # sorts between "scripts" (a tree) and others
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}

    def run(*args: str) -> str:
        return subprocess.run([git, *args], cwd=folder, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    run("init", "-q")
    run("add", "-A")
    assert git_tree_sha(folder_files(folder)) == run("write-tree")


def test_hostile_roots_a_link_loop_deep_nesting_and_a_fifo_do_not_stop_the_scan(fake: FakeHome) -> None:
    import os

    (fake.gemini / "loop").symlink_to(fake.gemini)  # a link back to the root
    deep = fake.gemini / "nest"
    for _ in range(200):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "SKILL.md").write_text("---\nname: too-deep\ndescription: d\n---\n")
    os.mkfifo(fake.gemini / "pdf-tools" / "pipe")
    machine = _scan(fake)
    gemini = machine.root_at(fake.gemini)
    assert gemini is not None and any("deep" in p for p in gemini.problems)
    assert machine.skill("too-deep") is None and machine.skill("gem-only") is not None
    pdf = _copy_in(machine, "pdf-tools", fake.gemini)
    assert pdf.digest is None and any(s.startswith("pipe:") for s in pdf.files.skipped)
    assert machine.skill("pdf-tools").marks()[machine.skill("pdf-tools").copies.index(pdf)] == "?"


def test_an_archived_copy_is_in_its_librarys_skill_archive_and_restores(fake: FakeHome) -> None:
    from rockskills_gui.core.library.archive import restore_skill
    from rockskills_gui.core.library.archive_records import archived

    machine = _scan(fake)
    b = ops.Builder(machine)
    ops.archive_copy(b, _copy_in(machine, "pdf-tools", fake.claude))
    MachineHistory().apply(b.build("Archive"))
    for fmt in ("claude-code", "agentskills"):
        library = open_library(fake.claude, OpenOptions(format=fmt, home=fake.home))
        skills, problems = archived(library)
        assert [s.entry for s in skills] == ["pdf-tools"] and not problems, fmt
    assert skills[0].record is not None and skills[0].record.name == "pdf-tools"
    restore_skill(open_library(fake.claude, OpenOptions(format="claude-code", home=fake.home)), "pdf-tools")
    assert (fake.claude / "pdf-tools" / "scripts" / "fill.py").read_text() == "print('fill')\n"
    assert _scan(fake).skill("pdf-tools").sameness == DIFFERENT  # the three copies again


def test_a_rockbot_skill_is_never_archived_into_its_skills_folder(fake: FakeHome) -> None:
    rockbot = fake.project / "skills"
    rockbot.mkdir()
    (rockbot / "plan-trip.json").write_text('{"name": "plan-trip", "summary": "Plan a trip.", '
                                            '"content": "x"}')
    machine = _scan(fake)
    copy = _copy_in(machine, "plan-trip", rockbot)
    b = ops.Builder(machine)
    with pytest.raises(ops.MachineError, match="RockBot skill"):
        ops.archive_copy(b, copy)
    assert b.build("x").empty and not (rockbot / ".archive").exists()
