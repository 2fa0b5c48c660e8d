"""A SKILL.md library updated incrementally (a save re-parses one file; other changes re-walk the
roots but re-parse only what changed) always equals the same folder opened afresh: a stateful
test over real copies of every corpus, with our own operations, undo/redo and outside edits."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from rockskills_gui.core.library.formats import open_library
from rockskills_gui.core.library.skillmd_library import SkillMdLibrary
from rockskills_gui.core.storage.changes import LibraryError
from tests.conftest import SHARED

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
        self.lib.undo()

    @rule()
    def redo(self) -> None:
        self.lib.redo()

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
    run_state_machine_as_test(IncrementalEqualsFresh, settings=settings(
        max_examples=8, stateful_step_count=10, deadline=None, suppress_health_check=list(HealthCheck)))


def test_a_save_parses_only_the_saved_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rockskills_gui.core.library.stores import parse_cache

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
    assert parsed == [lib.entry(name).path]
    parsed.clear()
    lib.create("brand-new", "New.", "1. Go.\n")  # a walk, but only the new file is parsed
    assert parsed == [lib.entry("brand-new").path]
    parsed.clear()
    lib.reload()  # an explicit reload reads everything again
    assert len(parsed) == len(lib.skills())
