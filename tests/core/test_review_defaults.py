"""Review defaults that protect the library and the pass outlook (issue 16), on generated agents.

Each generated agent knows its own truth (which skills it used within the last 30 days, which are
starter skills, which sit under a protected prefix); the plans come from the real engine (a pasted
consolidation reply, the offline proposer), and the defaults are checked against that truth.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rockskills_gui.core.app.settings import Settings
from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.ledger import SKILL_CONSOLIDATION, skill_corpus_fingerprint
from rockskills_gui.core.dream.offline import STARTER_SKILLS
from rockskills_gui.core.dream.pass_outlook import (
    brief,
    describe,
    parse_ledger,
    pass_outlook,
    read_ledger,
)
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan, ProposalKind
from rockskills_gui.core.dream.review_defaults import (
    Guards,
    read_recent_use,
    recent_use,
    removed_names,
    review_defaults,
    risky_ids,
    unsaved_conflicts,
    unsaved_message,
)
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profiles import ROCKBOT_CURRENT
from rockskills_gui.core.model.rules import LEDGER_FILE
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import UsageEvent

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
PROTECTED = ("patrol/",)
WORDS = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango", "zulu", "metro")


def write_skill(agent: Path, skill: Skill) -> None:
    path = agent / "skills" / (skill.name + ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(skill_to_bytes(skill))


def usage_line(name: str, session: str, when: Timestamp, index: int) -> str:
    return json.dumps({"id": f"e{index}", "skillName": name, "sessionId": session,
                       "timestamp": when.isoformat()})


class Agent:
    """A generated agent directory and what it knows about itself."""

    def __init__(self, root: Path, seed: int) -> None:
        rng = random.Random(seed)
        self.root = root
        self.names: list[str] = []
        self.used: set[str] = set()  # fold(name): used within the 30-day window
        created = NOW.add_days(-200)
        pool = [f"{rng.choice(WORDS)}/{rng.choice(WORDS)}-{i}" for i in range(rng.randint(6, 14))]
        pool += [*rng.sample(STARTER_SKILLS, 3), f"patrol/{rng.choice(WORDS)}-{seed}"]
        lines: list[str] = []
        for index, name in enumerate(pool):
            if fold(name) in {fold(n) for n in self.names}:
                continue
            self.names.append(name)
            write_skill(root, Skill(name=name, summary=f"{name} summary words",
                                    content=f"Steps for {name}. " * 20, created_at=created))
            recent = rng.random() < 0.4
            spelled = name.upper() if rng.random() < 0.3 else name  # names match case-insensitively
            if recent:
                self.used.add(fold(name))
                when = NOW.add_days(-rng.uniform(0, 29.9))
            else:  # used, but before the window (or never)
                when = NOW.add_days(-rng.uniform(30.1, 120))
            if recent or rng.random() < 0.5:
                lines.append(usage_line(spelled, f"s{index % 3}", when, index))
        (root / "skill-usage").mkdir(parents=True, exist_ok=True)
        (root / "skill-usage" / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.rng = rng

    def risky(self, name: str) -> bool:
        key = fold(name)
        return (key in self.used or key in {fold(s) for s in STARTER_SKILLS}
                or key.startswith(fold("patrol/")))

    def consolidation_plan(self) -> Plan:
        """A consolidation reply merging and deleting random skills, through the real engine."""
        rng = self.rng
        names = list(self.names)
        rng.shuffle(names)
        saves = []
        for i in range(0, min(len(names) - 1, 6), 2):
            target = names[i] if rng.random() < 0.5 else f"merged/{rng.choice(WORDS)}-{i}"
            saves.append({"name": target, "summary": "merged summary",
                          "content": "Merged steps. " * 30, "sourceNames": names[i:i + 2]})
        deletes = names[6:6 + rng.randint(1, 3)]
        reply = json.dumps({"toDelete": deletes, "toSave": saves})
        options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW, protected_prefixes=PROTECTED)
        return run_dream(RockBotLibrary.open(self.root), options, PastedReplies([reply]))


def guards(agent: Path) -> Guards:
    return Guards(recent=read_recent_use(agent, NOW), protected=PROTECTED)


@pytest.mark.parametrize("seed", range(12))
def test_risky_proposals_start_unticked_with_their_reasons(tmp_path: Path, seed: int) -> None:
    agent = Agent(tmp_path / "agent", seed)
    plan = agent.consolidation_plan()
    defaults = review_defaults(plan, guards(agent.root))
    assert list(defaults) == plan.ids()
    removing = [p for p in plan.proposals if p.kind in (ProposalKind.DELETE, ProposalKind.PRUNE,
                                                        ProposalKind.MERGE)]
    assert removing, "the generator must produce deletions or merges"
    for proposal in plan.proposals:
        gone = removed_names(proposal)
        expected_risky = any(agent.risky(n) for n in gone)
        default = defaults[proposal.id]
        assert default.ticked is not expected_risky, (proposal.id, proposal.title, gone)
        if expected_risky:
            assert default.short.startswith("Starts unticked: ")
            for name in gone:
                key = fold(name)
                if key in agent.used:
                    assert any(name in r and "in the last 30 days" in r for r in default.reasons)
                if key in {fold(s) for s in STARTER_SKILLS}:
                    assert (f"'{name}' is a starter skill: RockBot re-creates it at its next start, "
                            "so the deletion does not stick") in default.reasons
                if key.startswith("PATROL/"):
                    assert any("protected prefix 'patrol/'" in r for r in default.reasons)
        else:
            assert default.reasons == () and default.short == ""
    # a merge keeps its target: only the other sources are merged away
    for proposal in plan.proposals:
        if proposal.kind is ProposalKind.MERGE and proposal.record is not None:
            assert fold(proposal.record.name) not in {fold(n) for n in removed_names(proposal)}


@pytest.mark.parametrize("seed", range(4))
def test_offline_plans_on_generated_agents(tmp_path: Path, seed: int) -> None:
    """The offline proposer's prunes and merges follow the same rule (prunes of used skills too)."""
    agent = Agent(tmp_path / "agent", 100 + seed)
    for i, name in enumerate(("old/one", "old/two")):  # inactive for two years: prune candidates
        write_skill(agent.root, Skill(name=name, summary="old", content="Old steps. " * 30,
                                      created_at=NOW.add_days(-800)))
        agent.names.append(name)
        if i == 0:  # used last week all the same (the log says so, lastUsedAt does not)
            with (agent.root / "skill-usage" / "log.jsonl").open("a", encoding="utf-8") as out:
                out.write(usage_line(name, "s9", NOW.add_days(-7), 999) + "\n")
            agent.used.add(fold(name))
    plan = run_dream(RockBotLibrary.open(agent.root), RunOptions(offline=True, now=NOW))
    defaults = review_defaults(plan, guards(agent.root))
    prunes = {p.deletes[0]: p.id for p in plan.proposals if p.kind is ProposalKind.PRUNE}
    assert set(prunes) == {"old/one", "old/two"}
    assert not defaults[prunes["old/one"]].ticked and defaults[prunes["old/two"]].ticked
    assert "prunes 'old/one', used once in the last 30 days" in defaults[prunes["old/one"]].reasons[0]
    assert risky_ids(defaults) == {i for i, d in defaults.items() if not d.ticked}


def test_the_usage_window_is_inclusive_counts_every_event_and_folds_names() -> None:
    since = NOW.add_days(-30)
    events = [UsageEvent(str(i), "Web/Search", "s", since) for i in range(12_000)]  # > RockBot's cap
    events += [UsageEvent("x", "web/search", "s", NOW), UsageEvent("y", "other", "s", since.add_ticks(-1)),
               UsageEvent("z", None, "s", NOW)]
    found = recent_use(events, since)
    assert set(found) == {fold("web/search")}
    use = found[fold("web/search")]
    assert use.name == "Web/Search" and use.events == 12_001 and use.last == NOW


def test_unsaved_edits_block_only_ticked_proposals_that_touch_them(tmp_path: Path) -> None:
    agent = Agent(tmp_path / "agent", 7)
    plan = agent.consolidation_plan()
    merge = next(p for p in plan.proposals if p.kind is ProposalKind.MERGE)
    source = next(s for s in merge.sources if merge.record is None or fold(s) != fold(merge.record.name))
    dirty = {source.upper(), "not/in/the-plan"}  # as the editor spells it
    assert unsaved_conflicts(plan, [], dirty) == {}
    found = unsaved_conflicts(plan, plan.ids(), dirty)
    assert list(found) == [source.upper()] and merge.id in found[source.upper()]
    message = unsaved_message(found)
    assert message.startswith("Apply is blocked: 1 skill has unsaved edits")
    assert f"'{source.upper()}'" in message and merge.id in message
    assert unsaved_message({}) == ""


# ---------------------------------------------------------------- would RockBot run the pass?


def outlook_of(agent: Path, now: Timestamp = NOW, ledger_file: str | None = None) -> dict:
    library = RockBotLibrary.open(agent)
    return pass_outlook(library.skills(), DreamInputs.read(agent, now), read_ledger(agent, ledger_file),
                        ROCKBOT_CURRENT.curation)


def turn(session: str, text: str, when: Timestamp) -> str:
    return json.dumps({"sessionId": session, "role": "user", "content": text,
                       "timestamp": when.isoformat()})


def test_gap_needs_a_conversation_log_and_says_when_one_session_cannot_recur(tmp_path: Path) -> None:
    agent = Agent(tmp_path / "agent", 3).root
    outlook = outlook_of(agent)
    assert not outlook[DreamPass.GAP].runs
    assert describe(outlook[DreamPass.GAP]) == ("RockBot would not run this pass: the conversation "
                                                "log is empty.")
    assert brief(outlook[DreamPass.GAP]) == "RockBot would skip it: the conversation log is empty"
    log = agent / "conversation-log" / "turns.jsonl"
    log.parent.mkdir()
    log.write_text(turn("a", "export the invoices", NOW) + "\n", encoding="utf-8")
    gap = outlook_of(agent)[DreamPass.GAP]
    assert gap.runs and describe(gap).startswith("Note: only 1 session with a user message")
    assert brief(gap) == "Note: only 1 session, nothing can recur"
    with log.open("a", encoding="utf-8") as out:
        out.write(turn("b", "export invoices again", NOW) + "\n")
    gap = outlook_of(agent)[DreamPass.GAP]
    assert gap.runs and describe(gap) == "" and brief(gap) == ""


def test_consolidation_needs_two_skills_after_the_prune_and_optimization_needs_it(
        tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write_skill(agent, Skill(name="fresh", summary="s", content="c" * 300, created_at=NOW.add_days(-3)))
    write_skill(agent, Skill(name="ancient", summary="s", content="c" * 300,
                             created_at=NOW.add_days(-900)))
    outlook = outlook_of(agent)
    assert not outlook[DreamPass.CONSOLIDATE].runs and not outlook[DreamPass.OPTIMIZE].runs
    assert "only 1 skill(s) after pruning" in describe(outlook[DreamPass.CONSOLIDATE])
    assert "only after a consolidation" in describe(outlook[DreamPass.OPTIMIZE])
    assert brief(outlook[DreamPass.CONSOLIDATE]) == "RockBot would skip it: 1 skill(s) left after pruning"


def test_optimization_without_an_at_risk_session_is_not_run(tmp_path: Path) -> None:
    agent = Agent(tmp_path / "agent", 5).root
    outlook = outlook_of(agent)
    assert outlook[DreamPass.CONSOLIDATE].runs
    assert not outlook[DreamPass.OPTIMIZE].runs
    assert "no at-risk session in the last 30 days, even with sparse skills" in describe(
        outlook[DreamPass.OPTIMIZE])
    assert brief(outlook[DreamPass.OPTIMIZE]) == ("RockBot would skip it: no at-risk session in the "
                                                  "last 30 days")


def test_the_ledger_skips_an_unchanged_consolidation_for_at_most_seven_days(tmp_path: Path) -> None:
    # DreamPassLedger.ShouldSkip (MarimerLLC/rockbot src/RockBot.Host/DreamPassLedger.cs @ e7f95a1):
    # the same fingerprint (ignoring case) within DreamPassMaxSkipInterval (7 days) skips; the
    # pass name is the key, case-insensitively; the fingerprint is the catalog's (DreamService.cs
    # @ 150a84c, SkillCorpusFingerprint with the 'mcp/' singleton prefix).
    agent = Agent(tmp_path / "agent", 9).root
    ran = NOW.add_days(-2)
    skills = RockBotLibrary.open(agent).skills()
    same = skill_corpus_fingerprint(skills, ("mcp/",)).lower()
    (agent / LEDGER_FILE).write_text(json.dumps(
        {"Skill Consolidation": {"fingerprint": same, "lastRunAt": ran.isoformat()}}), encoding="utf-8")
    assert outlook_of(agent)[DreamPass.CONSOLIDATE].runs  # the 64e82cc profile keeps no ledger
    outlook = outlook_of(agent, ledger_file=LEDGER_FILE)
    gated = outlook[DreamPass.CONSOLIDATE]
    assert not gated.runs
    assert describe(gated) == (f"RockBot (current): the dream-pass ledger says 'skill consolidation' "
                               f"last ran on {ran.isoformat()[:10]} on the same inputs (fingerprint "
                               f"{same}): RockBot would skip it (inputs unchanged) until "
                               f"{ran.add_days(7).isoformat()[:10]}.")
    assert brief(gated) == (f"RockBot (current) would skip it: inputs unchanged since "
                            f"{ran.isoformat()[:10]} (ledger)")
    assert not outlook[DreamPass.OPTIMIZE].runs  # it runs only after a consolidation
    assert outlook_of(agent, now=NOW.add_days(5.1), ledger_file=LEDGER_FILE)[DreamPass.CONSOLIDATE].runs
    # A timestamp alone does not change the fingerprint; a summary does.
    (agent / "skills" / f"{skills[0].name}.json").write_bytes(skill_to_bytes(
        skills[0].model_copy(update={"updated_at": NOW, "last_used_at": NOW})))
    assert not outlook_of(agent, ledger_file=LEDGER_FILE)[DreamPass.CONSOLIDATE].runs
    (agent / "skills" / f"{skills[0].name}.json").write_bytes(skill_to_bytes(
        skills[0].model_copy(update={"summary": "another summary"})))
    assert outlook_of(agent, ledger_file=LEDGER_FILE)[DreamPass.CONSOLIDATE].runs


def test_a_damaged_ledger_reads_as_empty(tmp_path: Path) -> None:
    assert parse_ledger(b"{not json") == {}
    assert parse_ledger(b"[1, 2]") == {}
    assert parse_ledger(json.dumps({"other": {"fingerprint": "F", "lastRunAt": "not a date"},
                                    SKILL_CONSOLIDATION: {"fingerprint": "F"}}).encode()) == {}
    records = parse_ledger(json.dumps({
        "skill consolidation": {"fingerprint": " ", "lastRunAt": NOW.isoformat()},  # no fingerprint
        "Skill-Consolidation": {"FINGERPRINT": "F", "LastRunAt": NOW.isoformat()},  # another pass
        "SKILL CONSOLIDATION": {"fingerprint": "G", "lastRunAt": NOW.isoformat()}}).encode())
    assert set(records) == {fold("Skill-Consolidation"), fold(SKILL_CONSOLIDATION)}
    assert records[fold(SKILL_CONSOLIDATION)].fingerprint == "G"
    assert records[fold(SKILL_CONSOLIDATION)].last_run_at.utc_ticks == NOW.utc_ticks
    (tmp_path / LEDGER_FILE).mkdir()  # a folder where the file should be
    assert read_ledger(tmp_path, LEDGER_FILE) == {}
    assert read_ledger(tmp_path, None) == {}


# ---------------------------------------------------------------- the remembered proposer


def test_the_dream_proposer_is_a_setting_and_round_trips(tmp_path: Path) -> None:
    file = tmp_path / "settings.json"
    assert Settings().dream_proposer == "llm"
    store = SettingsStore(file)
    assert store.update(dream_proposer="offline", endpoint="custom", base_url="http://10.1.2.3:9/v1",
                        model="m1") == {"dream_proposer", "endpoint", "base_url", "model"}
    again = SettingsStore(file).settings
    assert (again.dream_proposer, again.effective_base_url, again.model) == (
        "offline", "http://10.1.2.3:9/v1", "m1")
    file.write_text(json.dumps({"dream_proposer": "telepathy", "model": "m2"}), encoding="utf-8")
    damaged = SettingsStore(file)
    assert damaged.settings.dream_proposer == "llm" and damaged.settings.model == "m2"
    assert any("dream_proposer" in p for p in damaged.load_problems)
