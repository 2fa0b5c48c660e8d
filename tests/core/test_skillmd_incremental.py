"""A SKILL.md library updated incrementally (a save re-parses at most the saved file; a create,
rename or delete walks only the top-level folders it touched, else the roots again) always equals
the same folder opened afresh: stateful tests over real copies of the corpora and over a library
built to be hard (two roots, duplicates, problems, nested and disabled skills), with our own
operations, change sets, undo/redo and outside edits."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.changes import ChangeSet, ConflictError, FileChange, LibraryError
from tests.conftest import SHARED
from tests.property_budget import Budget, run_machine

SMALL = ("anthropics-skills", "K-Dense-AI-claude-scientific-skills")  # the big one costs a copy per case
CORPORA = [SHARED / "corpora" / name for name in SMALL if (SHARED / "corpora" / name).is_dir()]


def state_of(lib: SkillMdLibrary) -> tuple[object, ...]:
    """Everything a view can see: skills in order with their bytes, problems, warnings."""
    skills = [(s.name, s.summary, s.content, getattr(lib.entry(s.name), "raw", None),
               str(lib.entry(s.name).path), getattr(lib.entry(s.name), "resources", None))
              for s in lib.skills()]
    problems = sorted((p.path, p.kind.value, p.message) for p in lib.problems)
    warnings = sorted((w.path, w.kind.value, w.message) for w in lib.warnings)
    return skills, problems, warnings


class IncrementalEqualsFresh(RuleBasedStateMachine):
    """Operations on one library object; after each, a fresh open of the folder must agree."""

    def __init__(self) -> None:
        super().__init__()
        self.folder: Path | None = None
        self.lib: SkillMdLibrary | None = None
        self.counter = 0

    @initialize(corpus=st.sampled_from(CORPORA or [Path("missing")]))
    def open_copy(self, corpus: Path) -> None:
        base = Path(self._tmp) / f"lib-{id(self)}"
        shutil.rmtree(base, ignore_errors=True)
        shutil.copytree(corpus, base, symlinks=True)
        self.folder = base
        lib = open_library(base)
        assert isinstance(lib, SkillMdLibrary)
        self.lib = lib

    def _names(self) -> list[str]:
        assert self.lib is not None
        return [s.name for s in self.lib.skills() if not self.lib.is_read_only(s.name)]

    @rule(data=st.data())
    def save(self, data: st.DataObject) -> None:
        names = self._names()
        if names:
            name = data.draw(st.sampled_from(names))
            self.counter += 1
            self.lib.update(name, content=self.lib.get(name).content + f"\nstep {self.counter}\n")

    @rule(data=st.data())
    def save_summary(self, data: st.DataObject) -> None:
        names = self._names()
        if names:
            name = data.draw(st.sampled_from(names))
            self.counter += 1
            self.lib.update(name, summary=f"Does thing number {self.counter}.")

    @rule()
    def create(self) -> None:
        self.counter += 1
        self.lib.create(f"made-{self.counter}", "A made skill.", "1. Go.\n")

    @rule(data=st.data())
    def rename(self, data: st.DataObject) -> None:
        names = self._names()
        if names:
            self.counter += 1
            try:
                self.lib.rename(data.draw(st.sampled_from(names)), f"renamed-{self.counter}")
            except LibraryError:
                pass  # refused (e.g. a folder holding a link): nothing changed

    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        names = self._names()
        if names:
            try:
                self.lib.delete(data.draw(st.sampled_from(names)))
            except LibraryError:
                pass

    @rule()
    def undo(self) -> None:
        try:
            self.lib.undo()
        except ConflictError:
            pass  # a file it would rewrite changed on disk since (outside_edit): refused

    @rule()
    def redo(self) -> None:
        try:
            self.lib.redo()
        except ConflictError:
            pass

    @rule(data=st.data())
    def outside_edit(self, data: st.DataObject) -> None:
        """Someone else rewrites a SKILL.md (same size and all, maybe): the watcher reports it."""
        names = self._names()
        if names:
            path = self.lib.entry(data.draw(st.sampled_from(names))).path
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("\n", "\n\n", 1), encoding="utf-8")
            self.lib.refresh([path])

    @rule(data=st.data())
    def outside_resource(self, data: st.DataObject) -> None:
        """Resources appear deep inside a skill folder (only their own folder's time changes):
        the watcher reports them by path."""
        names = self._names()
        if names:
            folder = self.lib.entry(data.draw(st.sampled_from(names))).path.parent
            self.counter += 1
            first = folder / "references"
            if not first.exists():
                first.mkdir()
                self.lib.refresh([first])
            target = first / f"deep-{self.counter}" / "note.md"
            target.parent.mkdir()
            target.write_text("a note\n", encoding="utf-8")
            self.lib.refresh([target])

    @invariant()
    def equals_a_fresh_open(self) -> None:
        if self.lib is None or self.folder is None:
            return
        fresh = open_library(self.folder)
        assert isinstance(fresh, SkillMdLibrary)
        assert state_of(self.lib) == state_of(fresh)


@pytest.mark.skipif(not CORPORA, reason="the shared corpora are not available")
def test_incremental_updates_equal_a_fresh_open(tmp_path: Path) -> None:
    IncrementalEqualsFresh._tmp = str(tmp_path)  # type: ignore[attr-defined]
    run_machine(IncrementalEqualsFresh, Budget(minimum=3, maximum=8), stateful_step_count=10,
                suppress_health_check=list(HealthCheck))


def test_a_save_parses_only_what_it_must(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A body edit keeps the parsed frontmatter (no file parsed), a description edit parses the
    saved file, a create parses only the new one, a reload everything."""
    from rockskills_gui.core.library.skillmd import parse_cache

    corpus = CORPORA[0] if CORPORA else pytest.skip("no corpora")
    base = tmp_path / "lib"
    shutil.copytree(corpus, base, symlinks=True)
    lib = open_library(base)
    assert isinstance(lib, SkillMdLibrary)
    parsed: list[Path] = []
    real = parse_cache.read_skill_md

    def counting(root, path, *rest):
        parsed.append(path)
        return real(root, path, *rest)

    monkeypatch.setattr(parse_cache, "read_skill_md", counting)
    name = lib.skills()[0].name
    lib.update(name, content=lib.get(name).content + "\nmore\n")
    assert parsed == []
    lib.undo()
    assert parsed == []
    lib.update(name, summary="A new description.")
    assert parsed == [lib.entry(name).path]
    parsed.clear()
    lib.create("brand-new", "New.", "1. Go.\n")  # only the new folder is walked and parsed
    assert parsed == [lib.entry("brand-new").path]
    parsed.clear()
    lib.reload()  # an explicit reload reads everything again
    assert len(parsed) == len(lib.skills())


# ---------------------------------------------------------------- a library built to be hard

NEW_NAMES = ("zeta", "Zeta", "echo", "alpha", "ALPHA", "inner-one", "off", "broken", "beta",
             "host", "other-name", "folder-x", "group", "made")


def exact_state(lib: SkillMdLibrary) -> tuple[object, ...]:
    """Skills in load order with every field a view reads, and problems in their order."""
    skills = []
    for entry in lib.entries():
        s = entry.skill
        skills.append((s.name, s.summary, s.content, s.see_also, s.created_at, s.updated_at,
                       str(entry.path), entry.raw, getattr(entry, "resources", None),
                       [(w.path, w.kind.value, w.line, w.message) for w in entry.warnings]))
    problems = [(p.path, p.kind.value, p.severity, p.line, p.name, p.message) for p in lib.problems]
    return skills, problems


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _md(name: str | None, description: str = "Does a thing.", body: str = "1. Go.\n") -> str:
    head = f"name: {name}\n" if name is not None else ""
    return f"---\n{head}description: {description}\n---\n\n{body}"


def build_hard_library(base: Path) -> None:
    """Two project roots; skills at depth 1 and 2; a resource folder; a duplicate name across the
    roots; a malformed file; a disabled skill; a nested skill file; a name from its folder."""
    agents, claude = base / ".agents" / "skills", base / ".claude" / "skills"
    _write(agents / "alpha" / "SKILL.md", _md("alpha", body="Alpha steps.\n"))
    _write(agents / "alpha" / "scripts" / "run.py", "print('hi')\n")
    _write(agents / "beta" / "SKILL.md", _md("beta", body="See gamma.\n"))
    _write(agents / "gamma" / "SKILL.md",
           "---\nname: gamma\ndescription: Links.\nmetadata:\n  see-also: beta, alpha\n---\nG.\n")
    _write(agents / "group" / "inner-one" / "SKILL.md", _md("inner-one"))
    _write(agents / "broken" / "SKILL.md", "no frontmatter here\n")
    _write(agents / "off" / "SKILL.md.disabled", _md("off"))
    _write(agents / "host" / "SKILL.md", _md("host"))
    _write(agents / "host" / "references" / "sub" / "SKILL.md", _md("sub"))
    _write(agents / "nameless" / "SKILL.md", _md(None, body="Named by its folder.\n"))
    _write(claude / "alpha" / "SKILL.md", _md("alpha", "The other alpha."))
    _write(claude / "echo" / "SKILL.md", _md("echo"))
    _write(claude / "folder-x" / "SKILL.md", _md("other-name"))
    _write(claude / "deep" / "er" / "SKILL.md", _md("deeper"))
    (claude / "crlf").mkdir()
    (claude / "crlf" / "SKILL.md").write_bytes(  # CRLF, a BOM, blank lines before the body
        b"\xef\xbb\xbf---\r\nname: crlf\r\ndescription: Windows.\r\n---\r\n\r\n\r\nBody.\r\n")


OUTSIDE_FILES = (  # what a change set may write besides skills: (path under a root, text)
    ("alpha/scripts/extra.py", "print('more')\n"),
    ("host/references/sub/SKILL.md", _md("sub", body="Changed.\n")),
    ("beta/references/SKILL.md", _md("nested-in-beta")),
    ("group/inner-two/SKILL.md", _md("inner-two")),
    ("group/SKILL.md", _md("group-itself")),
    ("fresh/SKILL.md.disabled", _md("fresh")),
    ("README.md", "Not a skill.\n"),
    ("zeta/SKILL.md", _md("alpha", "A third alpha.")),
    ("broken/SKILL.md", _md("broken-fixed")),
    (".git/SKILL.md", _md("hidden")),
)


class HardLibraryEqualsFresh(RuleBasedStateMachine):
    """Every operation on a library with two roots, duplicates, problems, nested and disabled
    skills; after each, the library equals a fresh open exactly (order and problems included)."""

    def __init__(self) -> None:
        super().__init__()
        self._dir = tempfile.mkdtemp(prefix="hard-lib-")
        self.base = Path(self._dir)
        build_hard_library(self.base)
        lib = open_library(self.base)
        assert isinstance(lib, SkillMdLibrary) and len(lib.roots) == 2
        self.lib = lib
        self.counter = 0

    def teardown(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def _pick(self, data: st.DataObject) -> str | None:
        names = [s.name for s in self.lib.skills()]
        return data.draw(st.sampled_from(names)) if names else None

    def _try(self, call: Callable[[], object]) -> None:
        try:
            call()
        except LibraryError:
            pass  # refused (a taken name, a file changed, ...): nothing changed

    @rule(name=st.sampled_from(NEW_NAMES))
    def create(self, name: str) -> None:
        self._try(lambda: self.lib.create(name, "Made here.", "1. Made.\n"))

    @rule(data=st.data(), summary=st.booleans())
    def save(self, data: st.DataObject, summary: bool) -> None:
        name = self._pick(data)
        if name is not None:
            self.counter += 1
            if summary:
                self._try(lambda: self.lib.update(name, summary=f"Now number {self.counter}."))
            else:
                self._try(lambda: self.lib.update(
                    name, content=self.lib.get(name).content + f"\nstep {self.counter}\n"))

    @rule(data=st.data(), new=st.sampled_from(NEW_NAMES))
    def rename(self, data: st.DataObject, new: str) -> None:
        name = self._pick(data)
        if name is not None:
            self._try(lambda: self.lib.rename(name, new))

    @rule(data=st.data(), new=st.lists(st.sampled_from(NEW_NAMES), min_size=2, max_size=2))
    def move_several(self, data: st.DataObject, new: list[str]) -> None:
        """Two skills renamed in one change (a folder move in the tree)."""
        first, second = self._pick(data), self._pick(data)
        if first is not None and second is not None:
            self._try(lambda: self.lib.rename_many({first: new[0], second: new[1]}))

    @rule(data=st.data(), both=st.booleans())
    def delete(self, data: st.DataObject, both: bool) -> None:
        names = {self._pick(data), self._pick(data) if both else None} - {None}
        if names:
            self._try(lambda: self.lib.delete_many(sorted(n for n in names if n)))

    @rule(data=st.data(), root=st.integers(0, 1), remove=st.booleans())
    def write_files(self, data: st.DataObject, root: int, remove: bool) -> None:
        """A change set from elsewhere (a dream plan, a convert) writing or removing other files."""
        rel, text = data.draw(st.sampled_from(OUTSIDE_FILES))
        path = self.lib.roots[root].path / rel
        before = fileio.read_or_none(path) if path.is_file() or not path.exists() else None
        after = None if remove else text.encode()
        if before != after and (path.is_file() or not path.exists()):
            change = ChangeSet(label="Outside plan", files=(FileChange(path, before, after),))
            self._try(lambda: self.lib.apply_change_set(change))

    @rule(data=st.data())
    def outside_toggle(self, data: st.DataObject) -> None:
        """Someone disables a skill (SKILL.md -> SKILL.md.disabled) or enables one again; the
        watcher reports both paths."""
        files = sorted(path for root in self.lib.roots for pattern in ("SKILL.md", "SKILL.md.disabled")
                       for path in root.path.rglob(pattern))
        if files:
            path = data.draw(st.sampled_from(files))
            other = path.with_name("SKILL.md" if path.name.endswith(".disabled")
                                   else "SKILL.md.disabled")
            if not other.exists():
                path.rename(other)
                self.lib.refresh([path, other])

    @rule()
    def undo(self) -> None:
        self._try(self.lib.undo)

    @rule()
    def redo(self) -> None:
        self._try(self.lib.redo)

    @invariant()
    def equals_a_fresh_open(self) -> None:
        fresh = open_library(self.base)
        assert isinstance(fresh, SkillMdLibrary)
        assert exact_state(self.lib) == exact_state(fresh)


def test_hard_library_updates_equal_a_fresh_open() -> None:
    run_machine(HardLibraryEqualsFresh, Budget(minimum=12, maximum=60), stateful_step_count=20,
                suppress_health_check=list(HealthCheck))


def test_local_changes_are_taken_in_without_a_walk(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Create, rename, delete and their undo in a library with problems elsewhere walk only the
    folders they touch; a change near a problem (a duplicate's winner renamed) walks all."""
    from rockskills_gui.core.library.skillmd import scan as skillmd_scan

    build_hard_library(tmp_path)
    lib = open_library(tmp_path)
    assert isinstance(lib, SkillMdLibrary)
    walked: list[tuple[str, ...]] = []
    real = skillmd_scan.walk_skill_folders

    def counting(start, parts, profile):
        walked.append(parts)
        return real(start, parts, profile)

    monkeypatch.setattr(skillmd_scan, "walk_skill_folders", counting)
    lib.create("zeta", "Z.", "1. Z.\n")
    lib.rename("zeta", "omega")
    lib.undo()
    lib.delete("beta")
    lib.undo()
    assert () not in walked and walked  # never a walk from a root
    lib.rename("alpha", "first")  # the other root's 'alpha' now loads: a walk of everything
    assert () in walked
    assert lib.entry("alpha").path == tmp_path / ".claude" / "skills" / "alpha" / "SKILL.md"
