"""The one way to run an operation (``ui/common/operation_runner``, issue 15): off the UI thread
with the UI alive, the same signals as the synchronous path, errors and cancel that write nothing,
one operation at a time; the dream wizard's Apply and the tree's bulk delete use it.

Real libraries on disk (a generated one of a few thousand skills, the sample agent), real core
operations, real widgets."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWizard

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.layout import Layout
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import LONG_CHANGE, OperationResult, Phase
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.conftest import tree_hashes
from tests.ui.conftest import open_window
from tests.ui.test_dream_review_defaults import demo, offline_review  # noqa: F401 (a fixture)

SIZE = 3000
NOW = Timestamp.parse("2026-01-15T10:00:00.0000000+00:00")
WAIT_S = 20  # an operation blocked on the UI thread's timer gives up after this (no hang)


def generate(agent: Path, size: int) -> Path:
    """``size`` RockBot skills in 30 folders; every tenth sees-also its neighbour."""
    layout = Layout(agent, agent / "skills")
    for i in range(size):
        name = f"bulk/group-{i % 30:02d}/skill-{i:05d}"
        see_also = (f"bulk/group-{(i + 1) % 30:02d}/skill-{i + 1:05d}",) if i % 10 == 0 else None
        skill = Skill(name=name, summary=f"Skill number {i}.", content=f"# Skill {i}\n\nSteps.\n",
                      created_at=NOW, updated_at=NOW, last_used_at=None, see_also=see_also)
        path = layout.path_for(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skill_to_bytes(skill))
    return agent


@pytest.fixture(scope="module")
def big_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("big") / "agent", SIZE)


@pytest.fixture
def big(big_source: Path, tmp_path: Path) -> Path:
    """A private copy of the generated library."""
    import shutil

    return Path(shutil.copytree(big_source, tmp_path / "agent"))


class Recorder:
    """Every signal the context emits about changes, in order."""

    def __init__(self, ctx: AppContext) -> None:
        self.events: list[tuple[object, ...]] = []
        ctx.changeApplied.connect(lambda c: self.events.append(
            ("changeApplied", c.label, c.created, c.updated, c.deleted, c.renamed, len(c.files))))
        ctx.historyChanged.connect(lambda: self.events.append(("historyChanged",)))
        ctx.operationFailed.connect(lambda m: self.events.append(("operationFailed", m)))
        ctx.statusMessage.connect(lambda m, t: self.events.append(("statusMessage", m, t)))
        ctx.currentSkillChanged.connect(lambda n: self.events.append(("currentSkillChanged", n)))


def context_on(agent: Path) -> AppContext:
    ctx = AppContext()
    ctx.set_library(RockBotLibrary.open(agent), remember=False)
    return ctx


@pytest.fixture
def ctx(qtbot, big: Path) -> Iterator[AppContext]:
    context = context_on(big)
    yield context
    context.runner.wait()


def names_in(library: RockBotLibrary, group: int) -> list[str]:
    return [n for n in library.names() if n.startswith(f"bulk/group-{group:02d}/")]


def test_an_operation_runs_off_the_ui_thread_while_the_event_loop_runs(
        qtbot, ctx: AppContext, big: Path) -> None:
    library = ctx.library
    assert library is not None and len(library) == SIZE
    doomed = names_in(library, 3) + names_in(library, 4)
    ticks: list[int] = []
    seen_sizes: set[int] = set()
    released = threading.Event()
    ran_on: list[int] = []

    def tick() -> None:  # the UI thread, reading the library as a repaint would
        ticks.append(1)
        seen_sizes.add(len(library.names()))
        assert library.get(doomed[0]) is None or library.get(doomed[-1]) is not None
        if len(ticks) >= 5:
            released.set()

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(2)

    def slow(lib: RockBotLibrary) -> ChangeSet:
        ran_on.append(threading.get_ident())
        # Only the UI thread's timer lets this go on: if the operation ran on the UI thread it
        # would wait in vain and fail.
        assert released.wait(WAIT_S), "the event loop did not run while the operation ran"
        return lib.delete_many(doomed)

    ticket = ctx.run(slow, "Deleting a lot")
    assert ticket is not None and not ticket.done and ctx.busy
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    timer.stop()
    result = blocker.args[0]
    assert isinstance(result, OperationResult) and result.ok, result
    assert ran_on and ran_on[0] != threading.get_ident() == threading.main_thread().ident
    assert len(ticks) >= 5
    assert seen_sizes <= {SIZE, SIZE - len(doomed)}  # a whole state, before or after, never half
    assert len(library) == SIZE - len(doomed) and not ctx.busy
    assert not any((big / "skills" / "bulk" / "group-03").glob("*.json"))


def test_reads_on_the_ui_thread_during_the_run_always_see_a_whole_library(
        qtbot, ctx: AppContext) -> None:
    """The in-memory update is done on the UI thread: reading the library there as fast as it
    can while a big delete runs never sees a half-updated index (KeyError, or a count between)."""
    library = ctx.library
    assert library is not None
    doomed = [n for g in range(1, 7) for n in names_in(library, g)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # switch threads often
    sizes: set[int] = set()
    try:
        for start in (lambda: ctx.run(lambda lib: lib.delete_many(doomed), "Deleting most"),
                      ctx.request_undo):  # the undo of so many files runs off the UI thread too
            ticket = start()
            assert ticket is not None and ticket.off_thread
            while not ticket.done:
                sizes.update(len(library) for _ in range(200))  # cheap: many looks per turn
                sizes.update((len(library.names()), len(library.skills())))
                QApplication.processEvents()
            assert ticket.result is not None and ticket.result.ok
    finally:
        sys.setswitchinterval(interval)
    assert sizes <= {SIZE, SIZE - len(doomed)}
    assert len(library) == SIZE


def test_the_result_arrives_with_the_same_signals_as_the_synchronous_path(
        qtbot, big_source: Path, tmp_path: Path) -> None:
    import shutil

    events: list[list[tuple[object, ...]]] = []
    hashes = []
    for mode in ("sync", "async"):
        agent = Path(shutil.copytree(big_source, tmp_path / mode))
        context = context_on(agent)
        context.select_skill("bulk/group-05/skill-00005")  # deleted: the current skill follows
        recorder = Recorder(context)
        library = context.library
        assert library is not None
        doomed = names_in(library, 5)
        if mode == "sync":
            change = context.apply(lambda lib, d=doomed: lib.delete_many(d))
            assert change is not None
        else:
            ticket = context.run(lambda lib, d=doomed: lib.delete_many(d), "Deleting group 5")
            assert ticket is not None
            assert recorder.events == []  # nothing delivered before the UI thread gets it
            with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000):
                pass
        events.append(recorder.events)
        hashes.append({k.split("/", 1)[1]: v for k, v in tree_hashes(agent).items()
                       if "/.rockskills" not in k and "journal" not in k})
    assert events[0] == events[1]
    assert [e[0] for e in events[0]] == ["currentSkillChanged", "changeApplied", "statusMessage",
                                         "historyChanged"]
    assert hashes[0] == hashes[1]


def test_an_error_becomes_operation_failed_and_writes_nothing(
        qtbot, ctx: AppContext, big: Path) -> None:
    library = ctx.library
    assert library is not None
    victim = big / "skills" / "bulk" / "group-07" / "skill-00007.json"
    victim.write_bytes(victim.read_bytes().replace(b"Steps.", b"Changed by the agent."))
    before = tree_hashes(big)
    recorder = Recorder(ctx)
    ticket = ctx.run(lambda lib: lib.delete_many(names_in(lib, 7)), "Deleting group 7")
    assert ticket is not None
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    result = blocker.args[0]
    assert result.error and "changed on disk" in result.error and result.change is None
    assert [e[0] for e in recorder.events] == ["operationFailed"]
    assert "changed on disk" in str(recorder.events[0][1])
    assert tree_hashes(big) == before
    assert not library.history.can_undo and len(library) == SIZE


def test_cancel_before_the_write_writes_nothing_and_cancel_while_writing_is_refused(
        qtbot, ctx: AppContext, big: Path) -> None:
    library = ctx.library
    assert library is not None
    before = tree_hashes(big)
    go = threading.Event()

    def waits_then_deletes(lib: RockBotLibrary) -> ChangeSet:
        assert go.wait(WAIT_S)
        return lib.delete_many(names_in(lib, 9))

    recorder = Recorder(ctx)
    ticket = ctx.run(waits_then_deletes, "Deleting group 9")
    assert ticket is not None and ticket.phase is Phase.PREPARING and ticket.can_cancel
    assert ticket.cancel()
    go.set()
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args[0].cancelled and blocker.args[0].change is None
    assert tree_hashes(big) == before and len(library) == SIZE and not library.history.can_undo
    assert [e[0] for e in recorder.events] == ["statusMessage"]
    assert "Nothing was written" in str(recorder.events[0][1])

    # Once writing, cancel is refused and the write completes.
    writing = threading.Event()
    finish = threading.Event()

    def slow_writer(change: ChangeSet) -> object:
        writing.set()
        assert finish.wait(WAIT_S)
        tx = journal.run(library.layout, change.files, "apply", change.label)
        return ChangeSet(label=change.label, files=change.files, deleted=change.deleted,
                         journal=("apply", tx.id))

    def deletes_slowly(lib: RockBotLibrary) -> ChangeSet:
        doomed = names_in(lib, 10)
        files = tuple(fc for name in doomed for fc in lib._delete_files(lib._editable(name)))
        return lib.apply_change_set(ChangeSet(label="Delete group 10", files=files,
                                              deleted=tuple(doomed)), writer=slow_writer)

    ticket = ctx.run(deletes_slowly, "Deleting group 10")
    assert ticket is not None
    qtbot.waitUntil(lambda: ticket.phase is Phase.WRITING and writing.is_set(), timeout=WAIT_S * 1000)
    assert not ticket.can_cancel and not ticket.cancel()
    finish.set()
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args[0].ok and not names_in(library, 10)
    assert not any((big / "skills" / "bulk" / "group-10").glob("*.json"))


def test_a_second_operation_is_queued_and_a_synchronous_one_refused_while_one_runs(
        qtbot, ctx: AppContext, big: Path) -> None:
    library = ctx.library
    assert library is not None
    go = threading.Event()
    order: list[str] = []

    def first(lib: RockBotLibrary) -> ChangeSet:
        assert go.wait(WAIT_S)
        order.append("first")
        return lib.delete_many(names_in(lib, 11))

    def second(lib: RockBotLibrary) -> ChangeSet:
        order.append("second")
        return lib.delete_many(names_in(lib, 12))

    recorder = Recorder(ctx)
    one = ctx.run(first, "first")
    two = ctx.run(second, "second")
    assert one is not None and two is not None and two.phase is Phase.QUEUED
    before = tree_hashes(big)
    # the editor's save, a rename... asked for now: refused with a clear message, nothing written
    assert ctx.apply(lambda lib: lib.create("brand-new", summary="x")) is None
    assert ctx.undo() is None
    assert recorder.events[0][0] == "operationFailed" and "still running" in str(recorder.events[0][1])
    assert tree_hashes(big) == before and "brand-new" not in library
    go.set()
    two.wait()
    assert one.done and two.done and order == ["first", "second"]
    applied = [e[1] for e in recorder.events if e[0] == "changeApplied"]
    assert len(applied) == 2 and "group-11" in str(applied[0]) and "group-12" in str(applied[1])
    assert not names_in(library, 11) and not names_in(library, 12) and not ctx.busy
    # and a queued one can be cancelled before it starts
    go.clear()
    three = ctx.run(first, "third")
    four = ctx.run(second, "fourth")
    assert three is not None and four is not None and four.cancel()
    go.set()
    three.wait()
    assert four.done and four.result is not None and four.result.cancelled
    assert names_in(library, 12) == []  # group 12 was gone already; nothing else deleted


def test_undo_of_a_big_change_runs_off_the_ui_thread_and_small_ones_stay_synchronous(
        qtbot, ctx: AppContext, big: Path) -> None:
    library = ctx.library
    assert library is not None
    small = ctx.apply(lambda lib: lib.delete_many(names_in(lib, 13)))
    assert small is not None and len(small.files) <= LONG_CHANGE
    ticket = ctx.request_undo()
    assert ticket is not None and ticket.done and not ticket.off_thread  # at once
    assert len(names_in(library, 13)) == SIZE // 30
    doomed = [n for g in range(14, 17) for n in names_in(library, g)]
    assert len(doomed) > LONG_CHANGE
    assert ctx.apply(lambda lib: lib.delete_many(doomed)) is not None
    before = tree_hashes(big)
    ticket = ctx.request_undo()
    assert ticket is not None and ticket.off_thread and not ticket.done
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args[0].ok and ticket.worker_thread != threading.get_ident()
    assert all(n in library for n in doomed) and tree_hashes(big) != before
    assert library.history.can_redo and ctx.last_verb == "Undid: "


# ---------------------------------------------------------------- the panes


def test_the_dream_wizard_s_apply_runs_through_the_runner_and_lands_on_the_summary(
        qtbot, demo: tuple[MainWindow, Path]) -> None:  # noqa: F811
    window, agent = demo
    wizard = offline_review(qtbot, window)
    wizard.review.select_none()
    guide = next(p.id for p in wizard.plan.proposals if p.title == "Create the guide 'mcp/guide'")
    wizard.review.set_checked(guide, True)
    wizard.next()
    before = tree_hashes(agent)
    started: list[object] = []
    window.ctx.runner.started.connect(started.append)
    wizard.next()  # Apply: it starts, and the page shows it running
    page = wizard.apply
    assert started and wizard.currentId() == wizard.page_id("apply")
    assert page.ticket is not None and not page.isComplete()
    assert not wizard.button(QWizard.WizardButton.CommitButton).isEnabled()
    assert not wizard.button(QWizard.WizardButton.BackButton).isEnabled()
    assert not page.busy.isHidden() and "Nothing has been written" in page.busy_label.text()
    assert not window.operation_status.isHidden()
    ticket = page.ticket
    qtbot.waitUntil(lambda: wizard.currentId() == wizard.page_id("summary"), timeout=WAIT_S * 1000)
    assert ticket.worker_thread is not None and ticket.worker_thread != threading.get_ident()
    assert "Applied 1 proposal" in wizard.summary.message.text()
    assert "mcp/guide" in window.ctx.library and tree_hashes(agent) != before
    assert window.operation_status.isHidden()


def test_cancelling_a_queued_dream_apply_writes_nothing(
        qtbot, demo: tuple[MainWindow, Path]) -> None:  # noqa: F811
    window, agent = demo
    wizard = offline_review(qtbot, window)
    wizard.review.select_none()
    guide = next(p.id for p in wizard.plan.proposals if p.title == "Create the guide 'mcp/guide'")
    wizard.review.set_checked(guide, True)
    wizard.next()
    go = threading.Event()
    blocker = window.ctx.run(lambda lib: (go.wait(WAIT_S), ChangeSet(label="nothing"))[1], "Busy")
    before = tree_hashes(agent)
    wizard.next()  # Apply: queued behind the other operation
    assert wizard.apply_ticket is not None and wizard.apply_ticket.phase is Phase.QUEUED
    wizard.reject()  # the wizard's Cancel stops the apply, the wizard stays
    go.set()
    assert blocker is not None
    blocker.wait()
    qtbot.waitUntil(lambda: wizard.apply.ticket is None, timeout=WAIT_S * 1000)
    assert wizard.isVisible() and wizard.currentId() == wizard.page_id("apply")
    assert "cancelled before anything was written" in wizard.apply.error.text()
    assert tree_hashes(agent) == before and "mcp/guide" not in window.ctx.library
    assert wizard.button(QWizard.WizardButton.BackButton).isEnabled()


def test_a_bulk_delete_from_the_tree_runs_off_the_ui_thread(qtbot, big: Path) -> None:
    window = open_window(qtbot, big)
    pane = window.library_pane
    library = window.ctx.library
    assert library is not None
    doomed = [n for g in (20, 21, 22) for n in names_in(library, g)]
    assert len(doomed) > LONG_CHANGE
    tickets: list[object] = []
    window.ctx.runner.started.connect(tickets.append)
    pane.edits.delete_now(doomed)
    assert tickets and window.ctx.busy
    qtbot.waitUntil(lambda: not window.ctx.busy, timeout=WAIT_S * 1000)
    assert not any(n in library for n in doomed)
    assert all(pane.model.tree.find(n) is None for n in doomed[:5])
    assert not any((big / "skills" / "bulk" / "group-20").glob("*.json"))
    few = names_in(library, 23)[:3]
    pane.edits.delete_now(few)  # a few: at once, as before
    assert not any(n in library for n in few) and not window.ctx.busy and len(tickets) == 1
    window.loader.wait()

