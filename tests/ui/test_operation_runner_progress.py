"""The operation runner shows how far a long operation is (issue 15): the core operations report
their checks and writes through the library's write gate, the ticket passes them on to the UI
thread throttled (monotonic within a phase, reaching the total), the status bar shows a
determinate bar and "Checking 1,200 of 3,000 files…"; a cancel while the operation checks writes
nothing at all, and once it writes the Cancel button is off.

Real libraries on disk (the generated one of ``test_operation_runner``), real core operations,
real widgets; the worker is held at a report (a gate that passes everything on to the runner's)
so that what the UI thread sees at that moment is certain."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.progress import CHECKING, JOURNALING, WRITING
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import PROGRESS_EVERY_S, OperationTicket, Phase
from rockskills_gui.ui.common.operation_status import OperationStatus
from tests.conftest import tree_hashes
from tests.ui.conftest import open_window
from tests.ui.test_operation_runner import (  # noqa: F401 (fixtures)
    NOW,
    SIZE,
    WAIT_S,
    big,
    big_source,
    context_on,
    names_in,
)


class Held:
    """Wraps the runner's write gate inside an operation: passes everything on, and holds the
    worker after the report ``hold_at`` says so until the UI thread lets it go."""

    def __init__(self, gate: object, hold_at: Callable[[str, int, int], bool]) -> None:
        self.gate = gate
        self.hold_at = hold_at
        self.held = threading.Event()
        self.release = threading.Event()
        self.reports = 0

    def report(self, phase: str, done: int, total: int) -> None:
        self.reports += 1
        self.gate.report(phase, done, total)  # type: ignore[attr-defined]
        if not self.held.is_set() and self.hold_at(phase, done, total):
            self.held.set()
            assert self.release.wait(WAIT_S), "the UI thread never let the worker go"

    def check(self) -> None:
        self.gate.check()  # type: ignore[attr-defined]

    def begin_write(self) -> None:
        self.gate.begin_write()  # type: ignore[attr-defined]

    def take_in(self, update: Callable[[], None]) -> None:
        self.gate.take_in(update)  # type: ignore[attr-defined]


def held(library: RockBotLibrary, hold_at: Callable[[str, int, int], bool]) -> Held:
    gate = Held(library.write_gate, hold_at)
    library.write_gate = gate  # type: ignore[assignment]  # the runner restores its own after
    return gate


def collect(ticket: OperationTicket) -> list[tuple[str, int, int]]:
    seen: list[tuple[str, int, int]] = []
    ticket.progressChanged.connect(lambda phase, done, total: seen.append((phase, done, total)))
    return seen


def by_phase(seen: list[tuple[str, int, int]]) -> dict[str, list[tuple[int, int]]]:
    phases: dict[str, list[tuple[int, int]]] = {}
    for phase, done, total in seen:
        phases.setdefault(phase, []).append((done, total))
    return phases


def consolidation(agent: Path, merges: int) -> Plan:
    library = RockBotLibrary.open(agent)
    names = library.names()
    saves = [{"name": names[2 * i], "summary": f"Merged {i}.", "content": f"# Merged {i}\n",
              "sourceNames": [names[2 * i], names[2 * i + 1]]} for i in range(merges)]
    reply = json.dumps({"toDelete": [names[2 * i + 1] for i in range(merges)], "toSave": saves})
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW)
    return run_dream(library, options, PastedReplies([reply]))


def deleting(qtbot, agent: Path,
             groups: range) -> tuple[AppContext, RockBotLibrary, list[str], OperationStatus]:
    """A context on ``agent``, the skills of ``groups`` to delete, and an operation status bar."""
    ctx = context_on(agent)
    library = ctx.library
    assert isinstance(library, RockBotLibrary)
    status = OperationStatus(ctx)
    qtbot.addWidget(status)
    return ctx, library, [n for g in groups for n in names_in(library, g)], status


def test_a_big_delete_reports_its_progress_monotonic_to_the_total_and_throttled(
        qtbot, big: Path) -> None:  # noqa: F811
    ctx, library, doomed, status = deleting(qtbot, big, range(0, 15))
    maxima: set[int] = set()
    started = time.monotonic()
    ticket = ctx.run(lambda lib: lib.delete_many(doomed), f"Deleting {len(doomed):,} skills")
    assert ticket is not None
    seen = collect(ticket)
    ticket.progressChanged.connect(lambda *_: maxima.add(status.progress.maximum()))
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    elapsed = time.monotonic() - started
    assert blocker.args[0].ok and not any(n in library for n in doomed)
    phases = by_phase(seen)
    assert list(phases) == [CHECKING, JOURNALING, WRITING]
    for values in phases.values():
        dones = [d for d, _ in values]
        assert dones == sorted(dones) and values[-1] == (len(doomed), len(doomed)), values[-3:]
    # each phase: its start and end; between, at most one report every PROGRESS_EVERY_S (and
    # one look at the newest after each), never one for each of the core's reports (a file)
    assert len(seen) <= 2 * (2 * len(phases) + elapsed / PROGRESS_EVERY_S + 1), (len(seen), elapsed)
    assert maxima == {len(doomed)}  # a determinate bar, never a busy one once reports came


def test_a_report_sent_before_the_newest_shown_never_moves_the_bar_back(
        qtbot, big: Path) -> None:  # noqa: F811
    """The catch-up look (the worker's newest report, after a pause) may show a report newer
    than one still on its way to the UI thread: that older one must not move the bar back (a
    full run once showed 578, then 577 of 1,500)."""
    ctx, _library, doomed, _status = deleting(qtbot, big, range(0, 15))
    gates: list[Held] = []

    def operation(lib: RockBotLibrary) -> ChangeSet:
        gates.append(held(lib, lambda phase, done, total: phase == CHECKING and done >= 300))
        return lib.delete_many(doomed)

    ticket = ctx.run(operation, "Deleting")
    assert ticket is not None
    qtbot.waitUntil(lambda: bool(gates) and gates[0].held.is_set(), timeout=WAIT_S * 1000)
    qtbot.waitUntil(lambda: ticket.progress is not None and ticket.progress[1] >= 300)
    shown = ticket.progress
    assert shown is not None
    seen = collect(ticket)
    ctx.runner._on_progress(ticket, CHECKING, shown[1] - 1, shown[2])  # (a late one arrives)
    qtbot.wait(10)
    assert ticket.progress == shown and seen == []
    gates[0].release.set()
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args[0].ok


def test_the_status_bar_shows_the_files_checked_and_cancel_then_writes_nothing(
        qtbot, big: Path, tmp_path: Path) -> None:  # noqa: F811
    plan = consolidation(big, 40)
    window = open_window(qtbot, big)
    ctx = window.ctx
    library = ctx.library
    assert library is not None
    before = tree_hashes(big)
    gates: list[Held] = []

    def operation(lib: RockBotLibrary) -> ChangeSet:
        gates.append(held(lib, lambda phase, done, total: phase == CHECKING and done == 1200))
        return apply_plan(lib, plan, plan.acceptable_ids()).change

    ticket = ctx.run(operation, "Applying the dream plan (80 proposals)")
    assert ticket is not None
    qtbot.waitUntil(lambda: bool(gates) and gates[0].held.is_set(), timeout=WAIT_S * 1000)
    status = window.operation_status
    qtbot.waitUntil(lambda: status.progress.maximum() == SIZE and status.progress.value() >= 1200,
                    timeout=WAIT_S * 1000)
    assert "Checking 1,200 of 3,000 files…" in status.label.text()
    assert status.cancel_button.isEnabled()
    for width, height in ((1400, 900), (1280, 720)):
        window.resize(width, height)
        qtbot.wait(50)
        window.grab().save(str(tmp_path / f"progress-{width}.png"))
    status.cancel_button.click()
    assert "nothing will be written" in status.label.text()
    gates[0].release.set()
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args[0].cancelled
    assert tree_hashes(big) == before  # the skills and the journal, byte for byte
    assert not library.history.can_undo and journal.last_undoable(big) is None
    assert status.isHidden()
    window.loader.wait()


def test_once_writing_the_cancel_button_is_off_and_the_bar_counts_the_writes(
        qtbot, big: Path) -> None:  # noqa: F811
    ctx, library, doomed, status = deleting(qtbot, big, range(3, 8))
    status.show()
    gates: list[Held] = []

    def operation(lib: RockBotLibrary) -> ChangeSet:
        gates.append(held(lib, lambda phase, done, total: phase == WRITING and done == 100))
        return lib.delete_many(doomed)

    ticket = ctx.run(operation, f"Deleting {len(doomed)} skills")
    assert ticket is not None
    qtbot.waitUntil(lambda: bool(gates) and gates[0].held.is_set(), timeout=WAIT_S * 1000)
    qtbot.waitUntil(lambda: status.progress.value() == 100, timeout=WAIT_S * 1000)
    assert ticket.phase is Phase.WRITING and not ticket.can_cancel and not ticket.cancel()
    assert not status.cancel_button.isEnabled()
    assert "cannot be cancelled" in status.cancel_button.toolTip()
    assert f"Writing 100 of {len(doomed)} files…" in status.label.text()
    gates[0].release.set()
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    assert blocker.args[0].ok and not any(n in library for n in doomed)


@pytest.mark.parametrize("cancel", [False, True])
def test_an_undo_of_many_files_reports_progress_and_cancels_cleanly(
        qtbot, big: Path, cancel: bool) -> None:  # noqa: F811
    ctx = context_on(big)
    library = ctx.library
    assert library is not None
    doomed = [n for g in range(10, 14) for n in names_in(library, g)]
    assert ctx.apply(lambda lib: lib.delete_many(doomed)) is not None
    before = tree_hashes(big)
    gates: list[Held] = []

    def undo(lib: RockBotLibrary) -> ChangeSet | None:  # what ctx.request_undo runs, held at its start
        gates.append(held(lib, lambda phase, done, total: phase == CHECKING and done == 0))
        return lib.undo()

    ticket = ctx.run(undo, "Undo")
    assert ticket is not None and ticket.off_thread
    seen = collect(ticket)
    qtbot.waitUntil(lambda: bool(gates) and gates[0].held.is_set(), timeout=WAIT_S * 1000)
    if cancel:
        assert ticket.cancel()
    gates[0].release.set()
    with qtbot.waitSignal(ticket.finished, timeout=WAIT_S * 1000) as blocker:
        pass
    result = blocker.args[0]
    if cancel:
        assert result.cancelled and tree_hashes(big) == before
        assert library.history.can_undo and not library.history.can_redo
        assert not any(n in library for n in doomed)
        assert {phase for phase, _, _ in seen} <= {CHECKING}
    else:
        assert result.ok and all(n in library for n in doomed) and library.history.can_redo
        assert list(by_phase(seen)) == [CHECKING, JOURNALING, WRITING]
        assert seen[-1] == (WRITING, len(doomed), len(doomed))


def test_pressing_apply_in_the_wizard_reads_each_skill_file_once_and_none_on_the_ui_thread(
        qtbot, big: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    plan = consolidation(big, 40)
    plan.save(tmp_path / "plan.json")
    window = open_window(qtbot, big)
    window.show_pane("dream")
    wizard = window.dream_wizard
    assert wizard is not None and wizard.open_plan(tmp_path / "plan.json")
    wizard.review.select_all()
    wizard.next()  # the Apply page: it shows what would change (read on entering it)
    assert wizard.currentId() == wizard.page_id("apply") and wizard.apply.isComplete()
    skills = str(big / "skills")
    reads: dict[str, list[int]] = {}
    real_open = os.open

    def counting_open(path, flags, *args, **kwargs):  # the OS call, counted, then made
        name = os.fspath(path)
        if isinstance(name, str) and name.startswith(skills) and name.endswith(".json") \
                and not flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            reads.setdefault(name, []).append(threading.get_ident())
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    wizard.next()  # Apply
    qtbot.waitUntil(lambda: wizard.currentId() == wizard.page_id("summary"), timeout=WAIT_S * 1000)
    monkeypatch.undo()
    assert wizard.apply_result is not None and len(wizard.apply_result.accepted) == 80
    ui = threading.get_ident()
    assert [p for p, threads in reads.items() if ui in threads] == []
    assert len(reads) >= SIZE
    written = {str(fc.path) for fc in wizard.apply_result.change.files}
    assert {p: len(t) for p, t in reads.items() if p not in written and len(t) != 1} == {}
    window.loader.wait()
