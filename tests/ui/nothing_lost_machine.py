"""The state machine behind the "nothing lost between features" tests (issue 16), for any library.

:class:`NothingLost` drives the REAL main window and application context over a REAL, writable
copy of a library: it types into skills' editors (text and summary, unsaved), saves and saves
all, creates, renames/moves and deletes skills (through the core operations the UI runs), undoes
and redoes (Edit ▸ Undo / Redo), answers conflict questions, and lets a fake agent process write,
rewrite, create and delete skill files and add properties the editor does not show (the app then
re-reads them, as its file watcher would). Subclasses say what the library is and how its files
are written (``test_nothing_lost_stateful.py``: RockBot, with dream runs and usage events;
``test_nothing_lost_skillmd.py``: a SKILL.md corpus, where the frontmatter is what is kept).

The invariants use only the contract both libraries share (``names``, ``get``, ``entry(..).raw``,
``skill_path``, ``layout.path_for``, ``skills_dir``, ``problems``). After every step:

* **nothing typed is lost**: every piece of text the user typed and did not knowingly discard, and
  every piece the agent wrote, is on disk or in a buffer the quit prompt would save, unless an
  operation recorded in the undo history replaced it (one undo away);
* **no silent rebase**: a buffer with unsaved edits is never moved onto a library version that
  changed a field the user edited without the conflict question (or the "deleted" mark);
* **a save never silently overwrites** a version the edits did not start from;
* the disk is what the library believes: every skill file parses and is a library entry, no
  stray file appears among the skills.

A failure prints the steps and a ``@reproduce_failure(...)`` blob (``print_blob=True``): put that
decorator (or ``@seed(N)``) on the machine class to replay it, or run pytest with
``--hypothesis-seed=N``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar, TypeVar

from hypothesis import HealthCheck
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMessageBox

from rockskills_gui.core.library.archive import archive_skills, restore_refusal, restore_skill
from rockskills_gui.core.library.archive_records import archive_places, archived, damage_of
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.stores.skill_dirs import ARCHIVE_DIR
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.buffers import EDITABLE_FIELDS, Buffer, display_text, document_text
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.editor.editor_pane import EditorPane
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.property_budget import Budget, run_machine

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
INDEX = st.integers(min_value=0, max_value=3) | st.integers(min_value=0, max_value=10_000)
JOURNAL_DIR = ".rockskills"
NOT_SKILLS = (JOURNAL_DIR, ARCHIVE_DIR)  # the journal; a SKILL.md root's archive (issue 32)
WHOLE_APP = 4.0  # the machines' share of ROCKSKILLS_PROPERTY_SECONDS (tests/property_budget.py)

Fields = dict[str, object]
M = TypeVar("M", bound="NothingLost")


def norm(skill: Skill | Fields) -> Fields:
    """A skill's editable fields as the editor sees them (line ends, null vs empty)."""
    get = skill.get if isinstance(skill, dict) else lambda f: getattr(skill, f)
    return {"summary": get("summary") or "", "content": display_text(get("content")),  # type: ignore[arg-type]
            "see_also": tuple(get("see_also") or ())}  # type: ignore[arg-type]


def written_text(change: ChangeSet, side: str) -> str:
    """The text of every file ``change`` replaced (``side="before"``) or wrote (``"after"``)."""
    return "\n".join((getattr(fc, side) or b"").decode("utf-8", "replace") for fc in change.files)


class NothingLost(RuleBasedStateMachine):
    """The whole application, one user and one agent process, never losing a word (abstract:
    a subclass provides the library and the agent's way of writing its files)."""

    qtbot = None  # set by :func:`run` (pytest-qt's qtbot)
    focus: tuple[str, ...] = ()  # skills where features meet (picked by small indexes)

    # ---------------------------------------------------------------- what a subclass provides

    def make_library(self, root: Path) -> Path:
        """A writable library under ``root``; the folder to open."""
        raise NotImplementedError

    def new_name(self, kind: str, old: str = "") -> str:
        """A fresh, valid name: kind "create", "agent", "rename" (of ``old``) or "move"."""
        raise NotImplementedError

    def read_skill(self, path: Path) -> Skill:
        """The skill in a file, read as the format's loader reads it (raises if it cannot)."""
        raise NotImplementedError

    def is_skill_file(self, path: Path) -> bool:
        raise NotImplementedError

    def agent_edit(self, path: Path, how: str, marker: str) -> None:
        """The agent rewrites a skill file: how is "rewrite" (the text), "summary", "extra" (a
        property the editor does not show: frontmatter metadata, an unmodelled JSON property) or
        "dates" (nothing the editor shows); ``marker`` goes into what it writes."""
        raise NotImplementedError

    def agent_delete(self, path: Path) -> None:
        raise NotImplementedError

    def agent_skill_bytes(self, name: str, marker: str) -> bytes:
        raise NotImplementedError

    # ---------------------------------------------------------------- setup

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="nothing-lost-"))
        self.agent = self.make_library(self.root)
        self.window = self.shared_window()
        self.open_library()
        self.ctx.library.clock = lambda: NOW  # type: ignore[union-attr]
        self.counter = 0
        self.protected: dict[str, Buffer | None] = {}  # marker -> buffer typed into (None: agent)
        self.started: dict[Buffer, Fields] = {}  # dirty buffer -> the version its edits started from
        self.deleted_names: list[str] = []
        self.ctx.changeApplied.connect(self._recorded)
        self.baseline_other = self.other_files()

    # One window serves every example of a run (a new one costs more than the steps): each
    # example opens its own fresh copy of the library in it, discarding what the last one left
    # open (the window's own "Unsaved Changes" prompt, answered Discard), with the Skill tab
    # shown and no dream wizard, so an example starts as it would in a new window.
    _window: ClassVar[MainWindow | None] = None
    _spent: ClassVar[list[Path]] = []

    def shared_window(self) -> MainWindow:
        cls = type(self)
        if cls._window is None:
            window = MainWindow(AppContext(), interactive=True)
            window.resize(1200, 800)
            window.show()
            cls._window, cls._spent = window, []
        return cls._window

    def open_library(self) -> None:
        window = self.window
        with self.qtbot.waitSignal(window.loadFinished, timeout=10_000) as blocker:
            window.open_path(self.agent)
            prompt = self.pane.unsaved_prompt
            if prompt is not None:
                prompt.button(QMessageBox.StandardButton.Discard).click()
        assert blocker.args == [""], blocker.args
        assert self.ctx.library is not None and self.ctx.library.agent_dir == self.agent
        window.show_pane("editor")
        self.settle()
        for spent in type(self)._spent:
            shutil.rmtree(spent, ignore_errors=True)
        type(self)._spent = []

    def teardown(self) -> None:
        self.ctx.changeApplied.disconnect(self._recorded)
        wizard = self.window.dream_wizard
        if wizard is not None:
            wizard.done(0)
            self.settle()
        type(self)._spent.append(self.root)

    @classmethod
    def close_shared_window(cls) -> None:
        """After the last example: close the window, remove the library copies."""
        window, cls._window = cls._window, None
        try:
            if window is not None:
                window.skill_pane.watcher.set_files([])
                window._close_confirmed = True
                window.close()
                window.deleteLater()
                for _ in range(3):
                    QApplication.processEvents()
        finally:
            for spent in cls._spent:
                shutil.rmtree(spent, ignore_errors=True)
            cls._spent = []

    # ---------------------------------------------------------------- helpers

    @property
    def ctx(self) -> AppContext:
        return self.window.ctx

    @property
    def pane(self) -> EditorPane:
        pane = self.window.skill_pane
        assert isinstance(pane, EditorPane)
        return pane

    @property
    def lib(self) -> RockBotLibrary:
        assert self.ctx.library is not None
        return self.ctx.library

    def marker(self, kind: str) -> str:
        self.counter += 1
        return f"Q{kind}{self.counter}Q"

    def pick(self, index: int) -> str:
        """Small indexes pick the skills where features meet: the open buffers first, then the
        ``focus`` skills, then any skill."""
        lib = self.lib
        names = [b.name for b in reversed(self.pane.buffers.values()) if b.name in lib]
        names += [n for n in self.focus if n in lib]
        names += sorted(lib.names(), key=fold)
        return names[index % len(names)]

    def settle(self) -> None:
        self.ctx.runner.wait()  # a long operation (the dream wizard's Apply) is delivered
        for _ in range(3):
            QApplication.processEvents()

    def idle(self) -> bool:
        """No conflict question is open (a real user can do nothing else while one is)."""
        return self.pane.conflict_dialog is None

    def _recorded(self, change: ChangeSet) -> None:
        """An operation recorded in the undo history: what it took off the disk is one undo away."""
        if change.empty:
            return
        before, after = written_text(change, "before"), written_text(change, "after")
        for marker in [m for m in self.protected if m in before and m not in after]:
            del self.protected[marker]

    def skill_files(self) -> set[Path]:
        base = self.lib.skills_dir
        return {p for p in base.rglob("*") if p.is_file() and self.is_skill_file(p)
                and not set(NOT_SKILLS) & set(p.relative_to(base).parts)}

    def other_files(self) -> set[Path]:
        """Files among the skills that are not skill files (resources, licences; no journal)."""
        base = self.lib.skills_dir
        return {p for p in base.rglob("*") if p.is_file() and not self.is_skill_file(p)
                and not set(NOT_SKILLS) & set(p.relative_to(base).parts)}

    def archive_files(self) -> set[Path]:
        """Every file of the library's skill archive (what survives the undo history)."""
        return {p for place in archive_places(self.lib) if place.is_dir()
                for p in place.rglob("*") if p.is_file()}

    def disk_text(self) -> str:
        """The skill files' text and the archive's: an archived skill is not lost."""
        files = [*self.skill_files(), *self.archive_files()]
        return "\n".join(p.read_text("utf-8", "replace") for p in files)

    def _note_typing(self, buffer: Buffer) -> None:
        if buffer not in self.started:
            lib_skill = self.lib.get(buffer.name)
            self.started[buffer] = norm(lib_skill if lib_skill is not None and not buffer.dirty
                                        else buffer.base)

    def _mine(self, buffer: Buffer) -> Fields:
        return norm(buffer.edits())

    def _pending(self, buffer: Buffer) -> bool:
        dialog = self.pane.conflict_dialog
        return self.pane.outside_changes.waiting(buffer.name) or (
            dialog is not None and fold(dialog.name) == fold(buffer.name))

    def _forget_owned_by(self, buffer: Buffer | None) -> None:
        for marker, owner in list(self.protected.items()):
            if owner is buffer:
                del self.protected[marker]

    # ---------------------------------------------------------------- the user

    @initialize(index=INDEX, in_summary=st.booleans())
    def start_with_unsaved_edits(self, index: int, in_summary: bool) -> None:
        """Every run starts where features meet: a skill open with unsaved edits."""
        self.type_into_a_skill(index, in_summary)

    @rule(index=INDEX, in_summary=st.booleans())
    @precondition(lambda self: self.idle())
    def type_into_a_skill(self, index: int, in_summary: bool) -> None:
        name = self.pick(index)
        assert self.ctx.select_skill(name)
        self.window.show_pane("editor")
        self._type(in_summary)

    @rule(in_summary=st.booleans())
    @precondition(lambda self: self.idle() and self.pane.current is not None)
    def type_into_the_current_buffer(self, in_summary: bool) -> None:
        """Also the buffer of a skill deleted under it (it stays open, marked)."""
        self._type(in_summary)

    def _type(self, in_summary: bool) -> None:
        buffer = self.pane.current
        assert buffer is not None
        self._note_typing(buffer)
        marker = self.marker("u")
        if in_summary:  # SKILL.md: the frontmatter's description
            field = self.pane.summary
            field.setFocus()
            field.end(False)
            self.qtbot.keyClicks(field, f" {marker}")
        else:
            editor = self.pane.editor
            cursor = editor.textCursor()
            cursor.movePosition(QTextCursor.MoveOperation.End)
            editor.setTextCursor(cursor)
            editor.insertPlainText(f"\n{marker}")
        assert marker in document_text(buffer.document) + buffer.summary
        self.protected[marker] = buffer

    @rule(all_of_them=st.booleans())
    @precondition(lambda self: self.idle() and self.pane.current is not None)
    def save(self, all_of_them: bool) -> None:
        buffers = self.pane.unsaved_buffers() if all_of_them else [self.pane.current]
        before = {}
        for buffer in buffers:
            assert buffer is not None
            path = self.lib.skill_path(buffer.name)
            disk = self.read_skill(path) if path.is_file() else None
            before[buffer] = (disk, self.started.get(buffer), self._mine(buffer))
        if all_of_them:
            self.window.commands["file.save_all"].trigger()
        else:
            self.pane.save()
        self.settle()
        for buffer, (disk, started, mine) in before.items():
            if buffer.dirty or disk is None or started is None:
                continue  # refused (a conflict to settle), or a restore of a deleted skill
            for field in EDITABLE_FIELDS:
                if mine[field] != started[field]:
                    assert norm(disk)[field] in (started[field], mine[field]), (
                        f"saving '{buffer.name}' overwrote a {field} its edits did not start from")

    @rule(index=INDEX, answer=st.sampled_from(["keep", "take", "merge"]))
    @precondition(lambda self: self.pane.conflict_dialog is not None)
    def answer_the_conflict(self, index: int, answer: str) -> None:
        del index
        dialog = self.pane.conflict_dialog
        assert dialog is not None
        buffer = self.pane.buffers.get(fold(dialog.name))
        if answer == "take":
            dialog.take_button.click()
            self._forget_owned_by(buffer)  # the user chose to drop their edits
        elif answer == "merge":
            dialog.merge_button.click()
            dialog.use_button.click()
            if self.pane.conflict_dialog is dialog:
                dialog.use_button.click()  # keep the conflict markers as they are
        else:
            dialog.keep_button.click()
        self.settle()
        if buffer is not None:
            latest = self.lib.get(buffer.name)
            if answer == "take" or not buffer.dirty:
                self.started.pop(buffer, None)
            elif latest is not None:
                self.started[buffer] = norm(latest)  # the user chose to build on this version

    @rule()
    @precondition(lambda self: self.idle() and self.pane.current is not None
                  and self.pane.deleted_bar.isVisible())
    def discard_a_deleted_skill(self) -> None:
        buffer = self.pane.current
        self.pane.deleted_bar.buttons["closeSkill"].click()
        self.settle()
        self._forget_owned_by(buffer)

    # ---------------------------------------------------------------- operations

    def free_name(self, index: int, fresh: str) -> str:
        """A name whose skill was deleted (its buffer may still be open, marked), or ``fresh``."""
        free = [n for n in self.deleted_names if n not in self.lib]
        self.counter += 1
        return free[index % len(free)] if free and index % 2 else fresh

    @rule(index=INDEX, to=INDEX, folder=st.booleans())
    @precondition(lambda self: self.idle())
    def rename_or_move(self, index: int, to: int, folder: bool) -> None:
        old = self.pick(index)
        new = self.free_name(to, self.new_name("move" if folder else "rename", old))
        self.ctx.apply(lambda lib: lib.rename(old, new))

    @rule(index=INDEX)
    @precondition(lambda self: self.idle())
    def delete(self, index: int) -> None:
        name = self.pick(index)
        if self.ctx.apply(lambda lib: lib.delete(name)) is not None:
            self.deleted_names.append(name)

    @rule(index=INDEX)
    @precondition(lambda self: self.idle())
    def archive(self, index: int) -> None:
        """Issue 32: a skill moves to the archive (what a dream's deletion does), byte for byte."""
        name = self.pick(index)
        entry = self.lib.entry(name)
        raw = entry.raw
        if self.ctx.apply(lambda lib: archive_skills(lib, [name])) is None:
            return
        self.deleted_names.append(name)
        entries = [s for s in archived(self.lib)[0] if s.name == name]
        assert any(p.read_bytes() == raw for s in entries for p in s.folder.rglob("*") if p.is_file()), (
            f"the archive of '{name}' does not hold its file byte for byte")

    @rule(index=INDEX, rename=st.booleans())
    @precondition(lambda self: self.idle() and bool(archived(self.lib)[0]))
    def restore(self, index: int, rename: bool) -> None:
        """Issue 32: an archived skill comes back byte for byte (or renamed); a taken name is
        refused with nothing written."""
        skills = archived(self.lib)[0]
        skill = skills[index % len(skills)]
        kept = {p: p.read_bytes() for p in skill.folder.rglob("*") if p.is_file()}
        as_name = self.new_name("rename", skill.name) if rename else None
        refusal = restore_refusal(self.lib, skill, as_name)
        if refusal is not None:
            assert "Restore it under another name" in refusal or "cannot" in refusal, refusal
            assert {p: p.read_bytes() for p in skill.folder.rglob("*") if p.is_file()} == kept
            return
        change = self.ctx.apply(lambda lib: restore_skill(lib, skill, as_name))
        assert change is not None and not change.empty, "a restore the check allowed was refused"
        name = change.created[0]
        if as_name is None:
            assert self.lib.entry(name).raw in kept.values(), f"'{name}' came back changed"

    @rule(index=INDEX)
    @precondition(lambda self: self.idle())
    def create(self, index: int) -> None:
        name = self.free_name(index, self.new_name("create"))
        self.ctx.apply(lambda lib: lib.create(name, "A new skill.", "Steps."))

    @rule(redo=st.booleans())
    @precondition(lambda self: self.idle())
    def undo_or_redo(self, redo: bool) -> None:
        self.window.commands["edit.redo" if redo else "edit.undo"].trigger()

    # ---------------------------------------------------------------- the agent, another process

    @rule(index=INDEX, how=st.sampled_from(["rewrite", "summary", "extra", "dates", "delete"]))
    def agent_writes(self, index: int, how: str) -> None:
        name = self.pick(index)
        path = self.lib.skill_path(name)
        if how == "delete":
            text = path.read_text("utf-8", "replace")
            self.agent_delete(path)
            self.deleted_names.append(name)
            for marker, owner in list(self.protected.items()):
                if owner is None and marker in text:
                    del self.protected[marker]  # the agent deleted its own text
        else:
            marker = self.marker("a")
            self.agent_edit(path, how, marker)
            if how != "dates":
                self.protected[marker] = None
        self.pane.check_disk([path, path.parent])  # what the file watcher does

    @rule(index=INDEX)
    def agent_creates(self, index: int) -> None:
        marker = self.marker("a")
        name = self.free_name(index, self.new_name("agent"))
        path = self.lib.layout.path_for(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.agent_skill_bytes(name, marker))
        self.protected[marker] = None
        self.pane.check_disk([path, path.parent])

    # ---------------------------------------------------------------- invariants

    @invariant()
    def nothing_typed_is_lost(self) -> None:
        self.settle()
        disk = self.disk_text()
        # Unsaved edits, and the text of a skill deleted under its open buffer (marked, with
        # Restore: the agent deleting a skill the user saved does not make the app forget it).
        kept = "\n".join(document_text(b.document) + "\n" + b.summary
                         for b in self.pane.buffers.values() if b.dirty or b.deleted)
        for marker, owner in self.protected.items():
            who = "the agent wrote" if owner is None else "the user typed"
            assert marker in disk or marker in kept, (
                f"{marker!r} that {who} is gone: not on disk, not in an unsaved buffer, "
                "not one undo away")

    @invariant()
    def no_silent_rebase(self) -> None:
        for buffer in list(self.started):
            if buffer not in self.pane.buffers.values() or not buffer.dirty:
                del self.started[buffer]
        for buffer, started in self.started.items():
            if self._pending(buffer) or buffer.deleted:
                continue  # the question is asked, or the "deleted" banner is shown
            latest = self.lib.get(buffer.name)
            assert latest is not None, (
                f"'{buffer.name}' is gone from the library but its buffer is not marked")
            mine, now = self._mine(buffer), norm(latest)
            for field in EDITABLE_FIELDS:
                if mine[field] != started[field]:
                    assert now[field] in (started[field], mine[field]), (
                        f"the {field} of '{buffer.name}' changed under unsaved edits "
                        "and nobody asked")
                if mine[field] == now[field]:  # the buffer holds the library's text for this
                    started[field] = now[field]  # field: later typing in it builds on this one

    @invariant()
    def disk_is_what_the_library_believes(self) -> None:
        lib = self.lib
        entries = {lib.skill_path(n): lib.entry(n).raw for n in lib.names()}
        on_disk = self.skill_files()
        assert on_disk == set(entries), (
            f"stray or missing skill files: {sorted(map(str, on_disk ^ set(entries)))}")
        for path, raw in entries.items():  # (the library parsed ``raw``: no need to again)
            assert path.read_bytes() == raw, (
                f"{path} differs from what the library last read or wrote")
        assert self.other_files() == self.baseline_other, "a stray file appeared among the skills"
        assert not lib.problems, lib.problems
        for skill in archived(lib)[0]:  # the archive holds what it recorded, byte for byte
            assert damage_of(skill) is None, (skill.name, damage_of(skill))


def run(machine: type[NothingLost], qtbot, budget: Budget, steps: int) -> None:
    """Run ``machine`` for as many runs of up to ``steps`` steps as ``budget`` allows
    (tests/property_budget.py); a failure prints its steps and the ``@reproduce_failure`` blob that
    replays it."""
    machine.qtbot = qtbot
    try:
        run_machine(machine, budget, stateful_step_count=steps, suppress_health_check=list(HealthCheck))
    finally:
        machine.close_shared_window()
        machine.qtbot = None


@contextmanager
def scripted(machine: type[M], qtbot) -> Iterator[M]:
    """One example written out by hand (steps and invariants called in order)."""
    machine.qtbot = qtbot
    state = machine()
    try:
        yield state
    finally:
        try:
            state.teardown()
        finally:
            machine.close_shared_window()
            machine.qtbot = None
