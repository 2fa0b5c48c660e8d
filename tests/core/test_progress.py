"""Progress and cancel of the long core operations (``core.storage.progress``, issue 15): a dream
apply, its undo, a bulk delete and its undo/redo, a journaled transaction report how far they are
(monotonic within a phase, reaching the total), may be cancelled while they only read (then
nothing at all is written: the skills, the journal, the history are as they were), never once
they write; a dream apply reads each skill file once. Real copies of the sample agent and a
generated library; the progress object is a plain implementation of the protocol."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import apply_plan, undo_last
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.changes import ConflictError, FileChange
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.core.storage.progress import CHECKING, JOURNALING, WRITING, Cancelled
from tests.conftest import EXPECTED, NOW_TEXT, tree_hashes

NOW = Timestamp.parse(NOW_TEXT)
EXAMPLE = json.loads((EXPECTED / "apply-consolidation-example.json").read_text(encoding="utf-8"))
SIZE = 300


class Recorder:
    """Records every report; cancels (raises Cancelled from ``check``) once ``cancel_when`` says
    so; fails the test if asked whether to stop after the write began. Also a write gate (runs
    the in-memory update at once)."""

    def __init__(self, cancel_when: Callable[[list[tuple[str, int, int]]], bool] | None = None,
                 on_report: Callable[[str, int, int], None] | None = None) -> None:
        self.reports: list[tuple[str, int, int]] = []
        self.events: list[str] = []
        self.cancel_when = cancel_when
        self.on_report = on_report
        self.writing = False

    def report(self, phase: str, done: int, total: int) -> None:
        self.reports.append((phase, done, total))
        if self.on_report is not None:
            self.on_report(phase, done, total)

    def check(self) -> None:
        assert not self.writing, "asked whether to stop after the write began"
        if self.cancel_when is not None and self.cancel_when(self.reports):
            self.events.append("cancelled")
            raise Cancelled("test")

    def begin_write(self) -> None:
        self.check()
        self.writing = True
        self.events.append(f"begin_write after {len(self.reports)} reports")

    def take_in(self, update: Callable[[], None]) -> None:
        update()

    def phases(self) -> dict[str, list[tuple[int, int]]]:
        found: dict[str, list[tuple[int, int]]] = {}
        for phase, done, total in self.reports:
            found.setdefault(phase, []).append((done, total))
        return found


def assert_monotonic_to_total(values: list[tuple[int, int]]) -> int:
    """Within one phase (possibly run more than once, each from 0): done never goes down except
    back to 0 for a new run, never passes the total, and every run reaches its total."""
    assert values, "never reported"
    runs: list[list[tuple[int, int]]] = []
    for done, total in values:
        if done == 0 or not runs or total != runs[-1][-1][1]:
            runs.append([])
        runs[-1].append((done, total))
    for run in runs:
        dones = [d for d, _ in run]
        assert dones == sorted(dones) and all(d <= t for d, t in run), run
        assert run[-1][0] == run[-1][1], f"did not reach the total: {run[-3:]}"
    return runs[-1][-1][1]


def consolidation_plan(agent: Path, reply: dict) -> Plan:
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW)
    return run_dream(RockBotLibrary.open(agent), options, PastedReplies([json.dumps(reply)]))


def whole_agent(agent: Path) -> dict[str, str]:
    """Every file under the agent folder, the journal included (its locks' bytes aside: none)."""
    return tree_hashes(agent)


def skill_files(agent: Path) -> int:
    return sum(1 for _ in (agent / "skills").rglob("*.json"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    agent = tmp_path_factory.mktemp("generated") / "agent"
    layout = Layout(agent, agent / "skills")
    for i in range(SIZE):
        name = f"bulk/group-{i % 6}/skill-{i:04d}"
        skill = Skill(name=name, summary=f"Skill {i}.", content=f"# Skill {i}\n", created_at=NOW,
                      updated_at=NOW, last_used_at=None)
        path = layout.path_for(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skill_to_bytes(skill))
    return agent


@pytest.fixture
def big(generated: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(generated, tmp_path / "agent"))


# ---------------------------------------------------------------- reports


def test_a_dream_apply_reports_every_skill_file_checked_and_every_file_written(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    recorder = Recorder()
    library.write_gate = recorder  # as the UI's operation runner does
    count = skill_files(agent_copy)
    result = apply_plan(library, plan, plan.acceptable_ids())
    phases = recorder.phases()
    assert list(phases) == [CHECKING, JOURNALING, WRITING]
    assert assert_monotonic_to_total(phases[CHECKING]) == count
    assert assert_monotonic_to_total(phases[JOURNALING]) == len(result.change.files)
    assert assert_monotonic_to_total(phases[WRITING]) == len(result.change.files)
    # the write begins after every check and before the first file is backed up
    first_write = recorder.reports.index((JOURNALING, 0, len(result.change.files)))
    assert recorder.events == [f"begin_write after {first_write} reports"]


def test_a_bulk_delete_and_its_undo_and_redo_report_their_checks_and_writes(big: Path) -> None:
    library = RockBotLibrary.open(big)
    doomed = [n for n in library.names() if n.startswith("bulk/group-2/")]
    for step in (lambda: library.delete_many(doomed), library.undo, library.redo):
        recorder = Recorder()
        library.write_gate = recorder
        change = step()
        assert change is not None and len(change.files) == len(doomed)
        phases = recorder.phases()
        assert list(phases) == [CHECKING, JOURNALING, WRITING]
        for phase in phases.values():
            assert assert_monotonic_to_total(phase) == len(doomed)
        assert len(recorder.events) == 1 and recorder.events[0].startswith("begin_write")
    library.write_gate = None
    assert not any(n.startswith("bulk/group-2/") for n in library.names())


def test_a_journaled_transaction_reports_its_backups_and_writes(big: Path) -> None:
    layout = Layout(big, big / "skills")
    paths = sorted((big / "skills" / "bulk" / "group-4").glob("*.json"))
    changes = [FileChange(p, p.read_bytes(), p.read_bytes() + b"\n") for p in paths]
    recorder = Recorder()
    journal.run(layout, changes, "library", "Touch group 4", progress=recorder)
    phases = recorder.phases()
    assert list(phases) == [JOURNALING, WRITING]
    assert [assert_monotonic_to_total(v) for v in phases.values()] == [len(paths)] * 2
    assert [p.read_bytes() for p in paths] == [c.after for c in changes]


def test_progress_silence_would_fail_these_tests(big: Path) -> None:
    """The helper above fails on a phase that was never reported (the tests can fail)."""
    with pytest.raises(AssertionError, match="never reported"):
        assert_monotonic_to_total([])
    with pytest.raises(AssertionError, match="did not reach the total"):
        assert_monotonic_to_total([(0, 10), (4, 10)])


# ---------------------------------------------------------------- cancel


def test_cancel_while_a_dream_apply_checks_writes_nothing_at_all(agent_copy: Path) -> None:
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    before = whole_agent(agent_copy)
    recorder = Recorder(cancel_when=lambda reports: len(reports) >= 3)
    library.write_gate = recorder
    with pytest.raises(Cancelled):
        apply_plan(library, plan, plan.acceptable_ids())
    assert recorder.events == ["cancelled"]
    assert {phase for phase, _, _ in recorder.reports} == {CHECKING}
    assert whole_agent(agent_copy) == before  # skills, journal: byte for byte
    assert not library.history.can_undo and "plan-meeting" in library


def test_cancel_while_a_bulk_delete_checks_writes_nothing_and_keeps_the_history(big: Path) -> None:
    library = RockBotLibrary.open(big)
    library.delete_many([n for n in library.names() if n.startswith("bulk/group-1/")])
    history = (list(library.history.undo_stack), list(library.history.redo_stack))
    before = whole_agent(big)
    size = len(library)
    doomed = [n for n in library.names() if n.startswith("bulk/group-3/")]
    library.write_gate = Recorder(cancel_when=lambda reports: len(reports) >= 10)
    with pytest.raises(Cancelled):
        library.delete_many(doomed)
    with pytest.raises(Cancelled):
        library.undo()  # the undo of the first delete: cancelled too
    assert whole_agent(big) == before and len(library) == size
    assert (library.history.undo_stack, library.history.redo_stack) == history


def test_a_cancelled_undo_of_an_already_undone_run_writes_no_marker(agent_copy: Path,
                                                                     tmp_path: Path) -> None:
    """The "already undone" marker in the journal is a write: a cancel before it leaves the
    journal byte for byte as it was (it used to be written before the cancel point)."""
    original = Path(shutil.copytree(agent_copy / "skills", tmp_path / "original"))
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    applied = apply_plan(RockBotLibrary.open(agent_copy), plan, plan.acceptable_ids())
    shutil.rmtree(agent_copy / "skills")
    shutil.copytree(original, agent_copy / "skills")  # put back by hand: already undone
    shutil.rmtree(agent_copy / ".rockskills" / "archive")  # (what the apply archived: issue 32)
    before = whole_agent(agent_copy)
    library = RockBotLibrary.open(agent_copy)
    recorder = Recorder(cancel_when=lambda reports: any(d == t for _, d, t in reports))
    library.write_gate = recorder
    with pytest.raises(Cancelled):
        undo_last(library)
    assert whole_agent(agent_copy) == before
    last = journal.last_undoable(agent_copy)
    assert last is not None and last.id == applied.tx_id  # still on record as in effect
    library.write_gate = None
    result = undo_last(library)  # not cancelled: the marker is written
    assert result.change is None and "already undone" in result.message
    assert journal.last_undoable(agent_copy) is None


# ---------------------------------------------------------------- each file read once


def test_a_dream_apply_reads_each_skill_file_once(agent_copy: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Until the write begins (the fingerprint, the stale checks, the change set, the conflict
    check) every skill file is opened for reading once; the write's own checked swaps are
    fileio's business and not counted."""
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    skills = str(agent_copy / "skills")
    reads: dict[str, int] = {}
    at_write: dict[str, int] = {}
    real_open = os.open

    def counting_open(path, flags, *args, **kwargs):  # the OS call, counted, then made
        name = os.fspath(path)
        if isinstance(name, str) and name.startswith(skills) and name.endswith(".json") \
                and not flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            reads[name] = reads.get(name, 0) + 1
        return real_open(path, flags, *args, **kwargs)

    class Snapshot(Recorder):
        def begin_write(self) -> None:
            at_write.update(reads)
            super().begin_write()

    library.write_gate = Snapshot()
    present = set(map(str, (agent_copy / "skills").rglob("*.json")))
    monkeypatch.setattr(os, "open", counting_open)
    result = apply_plan(library, plan, plan.acceptable_ids())
    monkeypatch.undo()
    assert result.change.files and present <= set(at_write)
    assert {p: n for p, n in at_write.items() if n != 1} == {}


def test_a_file_changed_after_the_apply_read_it_is_still_refused(agent_copy: Path) -> None:
    """The apply reads the files it replaces first and checks the rest; an agent writing one of
    them meanwhile is caught by the write's checked swap: rolled back, the agent's bytes kept."""
    plan = consolidation_plan(agent_copy, EXAMPLE["llm_result"])
    library = RockBotLibrary.open(agent_copy)
    victim = agent_copy / "skills" / "plan-meeting.json"  # deleted by the plan
    agents_bytes = victim.read_bytes().replace(b'"summary"', b'"summary" ', 1)

    def agent_writes(phase: str, done: int, total: int) -> None:
        if phase == CHECKING and done == total // 2:
            victim.write_bytes(agents_bytes)

    library.write_gate = Recorder(on_report=agent_writes)
    skills_before = {k: v for k, v in tree_hashes(agent_copy / "skills").items()
                     if k != "plan-meeting.json"}
    with pytest.raises(ConflictError, match="plan-meeting"):
        apply_plan(library, plan, plan.acceptable_ids())
    assert victim.read_bytes() == agents_bytes
    after = tree_hashes(agent_copy / "skills")
    assert {k: v for k, v in after.items() if k != "plan-meeting.json"} == skills_before
    assert not library.history.can_undo and journal.last_undoable(agent_copy) is None
