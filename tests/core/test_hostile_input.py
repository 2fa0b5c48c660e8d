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
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot_library import Library, NameTakenError
from rockskills_gui.core.model.problems import ProblemKind
from rockskills_gui.core.model.skill import skill_from_bytes
from rockskills_gui.core.storage.changes import ChangeSet, FileChange, LibraryError
from rockskills_gui.core.text.markdown import render
from tests.conftest import REPO, tree_hashes


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
    lib = Library.open(agent_copy)
    before = everything(agent_copy.parent)
    for attempt in (lambda: lib.create(name, "s", "c"), lambda: lib.rename("mcp/email", name)):
        with pytest.raises(LibraryError, match=message.replace("(", r"\(").replace(".", r"\.")):
            attempt()
    assert everything(agent_copy.parent) == before


def test_the_longest_allowed_name_works(agent_copy: Path) -> None:
    lib = Library.open(agent_copy)
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
    lib = Library.open(agent_copy)
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
    lib = Library.open(agent)
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
    lib = Library.open(agent_copy)
    assert len(lib) > 0 and lib.unconfirmed_links() == {agent_copy / "skills": real}
    with pytest.raises(LibraryError, match=f"--allow-link-target {real}"):
        lib.create("via/link", "s", "c")
    assert not (real / "via").exists()
    lib = Library.open(agent_copy, link_targets=[real])
    assert lib.unconfirmed_links() == {}
    lib.create("via/link", "s", "c")
    assert (real / "via" / "link.json").is_file()
    assert lib.link_of("via/link") == (agent_copy / "skills", real)


def test_a_skills_folder_linked_inside_the_agent_folder_is_written_through(agent_copy: Path) -> None:
    inside = agent_copy / "store" / "skills"
    inside.parent.mkdir()
    shutil.move(agent_copy / "skills", inside)
    (agent_copy / "skills").symlink_to(Path("store") / "skills", target_is_directory=True)
    lib = Library.open(agent_copy)
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
    lib = Library.open(agent_copy)
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
    Library.open(agent)  # import everything lazily imported while we still may read it all
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            lib = Library.open(agent)
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
    lib = Library.open(agent_copy)
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
    from rockskills_gui.core.library.rockbot_library import Library
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


@pytest.mark.parametrize("megabytes", [20, pytest.param(100, marks=pytest.mark.slow)])
def test_a_huge_content_field_is_written_and_read_back(agent_copy: Path, megabytes: int) -> None:
    """Created, read back, edited: exact, in a separate process whose peak memory is reported
    (100 MB: write ~5 s, open ~1 s, edit ~5 s, ~1.4 GB peak on a 2-CPU machine; the content alone
    is 200 MB in memory, Python's two bytes per character for text beyond Latin-1)."""
    size = megabytes * 1024 * 1024
    out = subprocess.run([sys.executable, "-c", HUGE_SCRIPT, str(agent_copy), str(size)],
                         capture_output=True, text=True, cwd=REPO, check=False,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    print(result)
    assert result["ok"]
    assert result["peak_mb"] < 200 + 14 * megabytes, result


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
