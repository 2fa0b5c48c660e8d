"""Nothing lost between features (issue 16) in a RockBot library, proven by a stateful test over
the whole application (the machine and its invariants: ``nothing_lost_machine.py``).

Over a writable copy of the demo library, besides what every library gets (typing, saving,
creating, renaming, deleting, Edit ▸ Undo/Redo, conflict answers, an agent writing skill files),
this machine

* applies a subset of an offline dream plan through the engine (``apply_plan`` run by the
  context) and through the **dream wizard** (load the plan, tick one proposal, Apply), and uses the
  wizard's **Undo this dream run**; the session history (Edit ▸ Undo) and the journal that
  ``rockskills undo`` reads must then agree on which applied plans are in effect;
* lets the agent **append usage events** (RockBot's ``skill-usage/*.jsonl`` lines) while the Usage
  tab shows its analysis: once the tab has looked at the log again (its 3-second check, or being
  shown), its counts equal a fresh computation from disk, or it says the log changed.

Default run: up to 200 examples of up to 8 steps, at least 20, while its time budget lasts
(``WHOLE_APP``: ``ROCKSKILLS_PROPERTY_SECONDS`` × 4, 40 s by default; tests/property_budget.py);
``pytest -m slow`` runs 1,500 of up to 25, however long they take. A failure prints its steps and
a ``@reproduce_failure`` blob that replays it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import invariant, precondition, rule
from PySide6.QtWidgets import QWizard

from rockskills_gui.core.app.demo import demo_source_dir
from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.plan import Plan, Proposal
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.model.skill import Skill, skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import journal
from rockskills_gui.core.storage.layout import USAGE_DIR
from rockskills_gui.core.usage.events import read_usage
from rockskills_gui.core.usage.stats import analyze
from rockskills_gui.ui.common.buffers import Buffer
from rockskills_gui.ui.dream.selection import Selection
from rockskills_gui.ui.dream.wizard import DreamWizard
from tests.property_budget import Budget
from tests.ui.conftest import make_writable
from tests.ui.nothing_lost_machine import INDEX, NOW, WHOLE_APP, NothingLost, run, scripted

# The skills the offline dream merges, deletes or prunes in the demo library.
FOCUS = ("writing/proofread", "writing/copy-edit", "legacy/fax-sender")
KIND_ORDER = ("merge", "delete", "prune", "rewrite", "create", "see-also")
NEXT = QWizard.WizardButton.NextButton
COMMIT = QWizard.WizardButton.CommitButton


class NothingLostRockBot(NothingLost):
    """The demo library, its dream runs and its usage log."""

    focus = FOCUS

    def __init__(self) -> None:
        super().__init__()
        self.usage_unchecked = False  # events appended since the Usage tab last looked at the log

    # ---------------------------------------------------------------- the library

    def make_library(self, root: Path) -> Path:
        agent = root / "demo"
        shutil.copytree(demo_source_dir(), agent)
        return make_writable(agent)

    def new_name(self, kind: str, old: str = "") -> str:
        return {"create": f"new/c{self.counter}", "agent": f"agent/s{self.counter}",
                "rename": f"{old}-r{self.counter}", "move": f"moved/r{self.counter}"}[kind]

    def read_skill(self, path: Path) -> Skill:
        return skill_from_bytes(path.read_bytes())

    def is_skill_file(self, path: Path) -> bool:
        return path.suffix == ".json"

    def agent_edit(self, path: Path, how: str, marker: str) -> None:
        skill = skill_from_bytes(path.read_bytes())
        update: dict[str, object] = {"updated_at": Timestamp.parse("2026-11-23T08:00:00+00:00")}
        if how == "rewrite":
            update["content"] = f"{skill.content or ''}\n{marker}"
        elif how == "summary":
            update["summary"] = f"{skill.summary or ''} {marker}"
        elif how == "extra":  # a property this app does not model (kept on every save)
            update["extra"] = (*skill.extra, (f"agentNote{self.counter}", json.dumps(marker)))
        path.write_bytes(skill_to_bytes(skill.model_copy(update=update)))

    def agent_delete(self, path: Path) -> None:
        path.unlink()

    def agent_skill_bytes(self, name: str, marker: str) -> bytes:
        return skill_to_bytes(Skill(name=name, summary="Made by the agent.", content=marker,
                                    created_at=NOW, updated_at=NOW, last_used_at=None,
                                    see_also=None))

    # ---------------------------------------------------------------- dream runs

    def _candidates(self, plan: Plan) -> list[str]:
        """Acceptable proposals: those touching a skill with unsaved edits first, then merges and
        deletions."""
        lib = self.lib
        edited = {lib.skill_path(b.name).relative_to(lib.agent_dir).as_posix()
                  for b in self.pane.unsaved_buffers()}

        def order(proposal: Proposal) -> tuple[bool, int]:
            kind = proposal.kind.value
            return (not edited & set(proposal.touched),
                    KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER))

        return [p.id for p in sorted((p for p in plan.proposals if p.acceptable), key=order)]

    @rule(index=INDEX)
    @precondition(lambda self: self.idle())
    def apply_a_dream_plan(self, index: int) -> None:
        """The engine's apply through the context (what the wizard's Apply runs)."""
        plan = run_dream(self.lib, RunOptions(offline=True, now=NOW))
        candidates = self._candidates(plan)
        if not candidates:
            return
        ids = Selection(plan, [candidates[index % len(candidates)]]).ids()
        if ids:
            self.ctx.apply(lambda lib: apply_plan(lib, plan, ids).change)

    @property
    def wizard(self) -> DreamWizard | None:
        return self.window.dream_wizard

    @rule(index=INDEX)
    @precondition(lambda self: self.idle())
    def apply_in_the_dream_wizard(self, index: int) -> None:
        """Dream… → load an offline plan → tick one proposal (and what it needs) → Apply, as a user
        does; the wizard stays open on its summary page (with its Undo) if it applied."""
        plan = run_dream(self.lib, RunOptions(offline=True, now=NOW))
        candidates = self._candidates(plan)
        if not candidates:
            return
        path = self.root / f"plan-{self.counter}.json"
        self.counter += 1
        plan.save(path)
        self.window.show_pane("dream")
        wizard = self.wizard
        assert wizard is not None and wizard.open_plan(path)
        wizard.review.select_none()
        wizard.review.set_checked(candidates[index % len(candidates)], True)
        for button in (NEXT, COMMIT):  # to the apply page, then Apply (when the wizard allows it)
            if not wizard.button(button).isEnabled():
                break
            wizard.button(button).click()
        self.settle()

    def wizard_can_undo(self) -> bool:
        wizard = self.wizard
        return (wizard is not None and wizard.currentId() == wizard.page_id("summary")
                and wizard.summary.undo_button.isEnabled())

    @rule()
    @precondition(lambda self: self.idle() and self.wizard_can_undo())
    def undo_in_the_dream_wizard(self) -> None:
        """The summary page's "Undo this dream run" (however much happened since the apply)."""
        wizard = self.wizard
        assert wizard is not None
        wizard.summary.undo_button.click()
        self.settle()
        assert wizard.summary.undo_message.text(), "the wizard's Undo said nothing"

    @invariant()
    def history_agrees_with_the_journal(self) -> None:
        """Edit ▸ Undo's history and the journal ``rockskills undo`` reads name the same applied
        plans as in effect (issue 15: the two undo systems must not disagree)."""
        in_effect: set[str] = set()
        for entry in self.lib.history.undo_stack:
            if entry.journal is not None:
                kind, tx_id = entry.journal
                (in_effect.add if kind == "apply" else in_effect.discard)(tx_id)
        on_record = {tx.id: tx.state for tx in journal.transactions(self.agent)
                     if tx.kind == "apply"}
        committed = {i for i, state in on_record.items() if state is journal.TxState.COMMITTED}
        assert committed == in_effect & set(on_record), (
            f"the journal says {sorted(committed)} are applied, Edit ▸ Undo's history says "
            f"{sorted(in_effect)}")

    # ---------------------------------------------------------------- the usage log

    @rule(index=INDEX, count=st.integers(min_value=1, max_value=3), new_session=st.booleans())
    def agent_logs_usage(self, index: int, count: int, new_session: bool) -> None:
        """The agent appends usage events (RockBot's format: one JSON object per line)."""
        folder = self.agent / USAGE_DIR
        session = f"nothing-lost-{self.counter if new_session else 0}"
        lines = [json.dumps({"id": f"nl{self.counter}x{i}", "skillName": self.pick(index + i),
                             "sessionId": session, "timestamp": f"2026-11-22T1{i}:00:00+00:00"})
                 for i in range(count)]
        self.counter += 1
        with (folder / f"{session}.jsonl").open("a", encoding="utf-8") as log:
            log.write("\n".join(lines) + "\n")
        self.usage_unchecked = True

    @rule()
    def look_at_the_usage_tab(self) -> None:
        """Bring the Usage tab forward; coming into view, it checks the log (already in view, it
        waits for its timer)."""
        in_view = self.usage_shown()
        self.window.show_pane("heatmap")
        self.settle()
        if not in_view:
            self.usage_unchecked = False

    def usage_shown(self) -> bool:
        pane = self.window.workspace.usage.built
        return pane is not None and pane.isVisible()

    @rule(reload=st.booleans())
    @precondition(lambda self: self.usage_shown())
    def the_usage_tab_checks_the_log(self, reload: bool) -> None:
        """What the tab's 3-second timer does; then the user may press "Reload log"."""
        pane = self.window.usage_pane
        pane.check_log()
        if reload:
            pane.reload_button.click()
            pane.wait()
            self.settle()
        self.usage_unchecked = False

    @invariant()
    def the_usage_tab_is_current_or_says_so(self) -> None:
        if not self.usage_shown() or self.usage_unchecked:
            return
        pane = self.window.usage_pane
        pane.wait()
        self.settle()
        if pane.report is None or pane.stale.isVisible():
            return  # computing, or "the usage log changed since" is shown
        shown = pane.report.stats
        fresh = analyze(read_usage(self.agent), shown.window)
        assert (len(shown.events), shown.session_count) == (len(fresh.events), fresh.session_count), (
            "the Usage tab shows an analysis of an older log and does not say so")
        assert ({k: u.events for k, u in shown.usage.items()}
                == {k: u.events for k, u in fresh.usage.items()}), "per-skill usage counts differ"


def test_nothing_lost_across_the_whole_app(qtbot) -> None:
    run(NothingLostRockBot, qtbot, Budget(minimum=20, maximum=200, share=WHOLE_APP), steps=8)


@pytest.mark.slow
@pytest.mark.timeout(0)
def test_nothing_lost_across_the_whole_app_many_runs(qtbot) -> None:
    run(NothingLostRockBot, qtbot, Budget(minimum=1500, maximum=1500), steps=25)


def test_the_machine_fails_when_the_conflict_check_is_disabled(qtbot, monkeypatch) -> None:
    """The invariants are not vacuous: with ``Buffer.clashes`` switched off, a dream merge into a
    skill with unsaved edits silently moves the buffer onto the merged version (the issue's bug),
    and the machine says so."""
    monkeypatch.setattr(Buffer, "clashes", lambda self, new_base: set())
    with scripted(NothingLostRockBot, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=False)  # writing/proofread
        assert machine.pane.current is not None
        assert machine.pane.current.name == "writing/proofread"
        machine.apply_a_dream_plan(index=0)  # the merge into it comes first
        with pytest.raises(AssertionError, match="changed under unsaved edits and nobody asked"):
            machine.no_silent_rebase()


def test_the_usage_invariant_fails_when_the_tab_misses_new_events(qtbot, monkeypatch) -> None:
    """With the Usage tab's log check switched off, events the agent appends leave the tab showing
    old counts without a word, and the machine says so."""
    from rockskills_gui.ui.usage.usage_pane import UsagePane

    monkeypatch.setattr(UsagePane, "check_log", lambda self: False)
    with scripted(NothingLostRockBot, qtbot) as machine:
        machine.look_at_the_usage_tab()
        machine.the_usage_tab_is_current_or_says_so()  # holds before the agent writes
        machine.agent_logs_usage(index=0, count=2, new_session=True)
        machine.the_usage_tab_checks_the_log(reload=False)
        with pytest.raises(AssertionError, match="older log and does not say so"):
            machine.the_usage_tab_is_current_or_says_so()


def test_edit_undo_of_the_wizard_s_undo_keeps_the_history_and_the_journal_in_step(qtbot) -> None:
    """Found by the machine's ``history_agrees_with_the_journal``: apply a plan in the wizard, do
    something else, press the wizard's Undo, then Edit ▸ Undo (the plan is applied again), Edit ▸
    Undo twice more (the plan's files are back as before): the journal still says the re-applied
    plan is in effect, and ``rockskills undo`` answers that it "was already undone"."""
    with scripted(NothingLostRockBot, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=False)
        machine.save(all_of_them=False)
        machine.apply_in_the_dream_wizard(index=1)
        assert machine.wizard_can_undo()
        machine.create(index=0)  # the apply is no longer the last step
        machine.undo_in_the_dream_wizard()
        machine.history_agrees_with_the_journal()  # holds
        machine.undo_or_redo(redo=False)  # Edit ▸ Undo of the wizard's Undo
        machine.history_agrees_with_the_journal()


def test_merging_a_skill_recreated_on_disk_keeps_the_users_text(qtbot) -> None:
    """Found by the machine: the user saves, the agent rewrites, deletes, then writes a new skill
    of that name; answering the conflict with Merge must keep the deleted version's text (the two
    versions share no base: a three-way merge against the old one took the new one whole)."""
    with scripted(NothingLostRockBot, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=False)
        machine.save(all_of_them=False)
        machine.agent_writes(index=0, how="rewrite")
        machine.agent_writes(index=0, how="delete")
        machine.agent_creates(index=1)  # an odd index: the deleted skill's name
        machine.nothing_typed_is_lost()
        machine.answer_the_conflict(index=0, answer="merge")
        machine.nothing_typed_is_lost()
