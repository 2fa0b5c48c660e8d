"""A read-only or unreadable library (issue 35, item 16): a change that cannot be written is refused
before anything is written, with one sentence naming the folder; what can be read is read, and an
unreadable folder is a reported problem, not a failure. Real folders made read-only or unreadable
with chmod; as root the tests run again without root's file capabilities (tests/permissions.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.storage.changes import LibraryError
from tests.conftest import NOW_TEXT, REPO, tree_hashes
from tests.permissions import rerun_restricted, tree


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, check=False, timeout=300)


@pytest.fixture
def library(agent_copy: Path) -> Iterator[Path]:
    """The sample agent; every folder is made writable again afterwards (for the clean-up)."""
    yield agent_copy
    tree(agent_copy, 0o755)


def everything(agent: Path) -> dict[str, str]:
    """The hashes of every file, and the folders (a write leaves a temp file or a journal)."""
    return {**tree_hashes(agent), **{p.relative_to(agent).as_posix(): "dir"
                                     for p in agent.rglob("*") if p.is_dir()}}


OPERATIONS = {
    "rename": lambda lib: lib.rename("web", "web-tools"),
    "move": lambda lib: lib.rename("mcp/email", "mail/email"),
    "create": lambda lib: lib.create("mcp/new-skill", "New.", "Steps."),
    "delete": lambda lib: lib.delete("mcp/weather"),
}


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_a_read_only_skills_folder_is_refused_in_one_sentence_and_nothing_is_written(
        request: pytest.FixtureRequest, library: Path, operation: str) -> None:
    if rerun_restricted(request):
        return
    lib = RockBotLibrary.open(library)
    tree(library / "skills", 0o555)
    before = everything(library)
    with pytest.raises(LibraryError) as refused:
        OPERATIONS[operation](lib)
    message = str(refused.value)
    assert message.startswith("Cannot write in the folder 'skills") and "read-only" in message, message
    assert "nothing was changed" in message and "\n" not in message
    assert everything(library) == before
    assert "web" in lib and "mcp/email" in lib and "mcp/new-skill" not in lib


def test_a_read_only_agent_folder_is_refused_naming_where_the_journal_goes(
        request: pytest.FixtureRequest, library: Path) -> None:
    if rerun_restricted(request):
        return
    lib = RockBotLibrary.open(library)
    library.chmod(0o555)  # the skills folder stays writable; the journal cannot be made
    before = everything(library)
    with pytest.raises(LibraryError) as refused:
        lib.rename("mcp/email", "mail/email")
    assert str(refused.value) == (f"Cannot write in the folder {library} (where changes are journaled, "
                                  "so that a crash loses nothing): it is read-only (permission "
                                  "denied); nothing was changed.")
    assert everything(library) == before


def test_an_unreadable_skill_folder_is_a_problem_and_the_rest_is_read(
        request: pytest.FixtureRequest, library: Path) -> None:
    if rerun_restricted(request):
        return
    (library / "skills" / "mcp").chmod(0)
    lib = RockBotLibrary.open(library)
    assert "web" in lib and "mcp/email" not in lib
    assert [(p.path, p.message) for p in lib.problems] == [
        ("skills/mcp", "cannot read this folder (Permission denied): the skills in it are not loaded")]
    with pytest.raises(LibraryError, match=r"'skills/mcp' .* cannot be read or written"):
        lib.create("mcp/another", "s", "c")
    linted = run("lint", library)
    assert linted.returncode == 1 and "rockskills: error" not in linted.stderr
    assert "skills/mcp: unreadable: error: cannot read this folder" in linted.stdout


def test_an_unreadable_skills_folder_is_one_line(request: pytest.FixtureRequest, library: Path) -> None:
    if rerun_restricted(request):
        return
    (library / "skills").chmod(0)
    listed = run("list", library)
    assert listed.returncode == 2
    assert listed.stderr == (f"rockskills: {library}/skills: the skills folder cannot be read "
                             "(permission denied)\n")


def test_an_unreadable_feedback_folder_is_reported_and_lint_and_dream_go_on(
        request: pytest.FixtureRequest, library: Path, tmp_path: Path) -> None:
    if rerun_restricted(request):
        return
    (library / "feedback").chmod(0)
    linted = run("lint", library)
    assert "rockskills: error" not in linted.stderr, linted.stderr
    assert "feedback: unreadable: warning: cannot read the folder: Permission denied" in linted.stdout
    assert "24 skills loaded" in linted.stderr
    plan_file = tmp_path / "plan.json"
    dreamed = run("dream", library, "--offline", "--now", NOW_TEXT, "--plan", plan_file)
    assert dreamed.returncode == 0, dreamed.stderr
    assert "feedback: cannot read the folder: Permission denied; this pass ran without it" in dreamed.stdout
    plan = Plan.load(plan_file)
    assert plan.proposals and plan.passes[0].notes[0].startswith("feedback: cannot read the folder")
    assert json.loads(plan_file.read_text())["passes"][0]["status"] == "ok"
