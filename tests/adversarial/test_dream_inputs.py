"""Untrusted dream input (issue #14, items 3, 5, 8 and 9): one fixed reproduction of each attack,
then the randomized attacks of :mod:`tests.adversarial.attacks_dream` with a few trials each.

3. a proposal saving onto a problem file (matched by its path, any letter case) is blocked, and
   apply never replaces a problem file;
5. ``apply`` checks every proposal again and ignores findings stored in the plan; names RockBot
   refuses are refused; a plan file with wrong types, NUL or paths outside ``skills/`` is one
   readable error;
8. a reply naming an unwritable path becomes a blocked proposal and the run is kept;
9. the API key is masked in everything stored, in any encoding.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import PlanRefused, apply_plan, recheck
from rockskills_gui.core.dream.llm import Endpoint, LlmClient
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import PassStatus, Plan
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from tests.adversarial import attacks_dream
from tests.adversarial.attacks_dream import ATTACKS, DEMO, run_cli, secret_leaks, skill_json, unreadable
from tests.core.llm_server import ok, scripted_server

NOW = Timestamp.parse(attacks_dream.NOW)
TRIALS = 3


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    """A private copy of the demo library."""
    dest = tmp_path / "agent"
    shutil.copytree(DEMO, dest)
    return dest


def gap_plan(agent: Path, names: list[str]) -> Plan:
    reply = json.dumps({"toSave": [{"name": n, "summary": "s", "content": "Steps."} for n in names]})
    return run_dream(RockBotLibrary.open(agent), RunOptions(passes=[DreamPass.GAP], now=NOW),
                     PastedReplies([reply]))


def blocked_codes(plan: Plan, name: str) -> list[str]:
    proposal = next(p for p in plan.proposals if p.record is not None and p.record.name == name)
    return [f.code for f in proposal.findings if f.severity.value == "block"]


# ---------------------------------------------------------------- item 3


@pytest.mark.parametrize("claim", ["broken", "BROKEN", "mismatch", "Mismatch", "other/name"])
def test_a_save_onto_a_problem_file_is_blocked_and_never_applied(agent: Path, claim: str) -> None:
    skills = agent / "skills"
    (skills / "broken.json").write_bytes(b'{"name": "broken", "content": ')
    (skills / "mismatch.json").write_bytes(skill_json("other/name"))
    before = {p: p.read_bytes() for p in (skills / "broken.json", skills / "mismatch.json")}
    plan = gap_plan(agent, [claim, "fine/new"])
    assert "name-claimed" in blocked_codes(plan, claim)
    assert blocked_codes(plan, "fine/new") == []
    with pytest.raises(PlanRefused):
        apply_plan(RockBotLibrary.open(agent), plan, plan.ids())
    for proposal in plan.proposals:  # the same plan with its findings stripped
        proposal.findings = []
    with pytest.raises(PlanRefused, match="cannot be applied"):
        apply_plan(RockBotLibrary.open(agent), plan, plan.ids())
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in skills.glob("*.json") if p.name.lower() in
                  {"broken.json", "mismatch.json"}) == ["broken.json", "mismatch.json"]


# ---------------------------------------------------------------- item 5


@pytest.mark.parametrize("name", ["/tmp/x", "x/./y", "a//b", ".hidden/x", "x\u0000y", "a/", "x" * 10_000,
                                  "ok/" + "y" * 300, "a\\b", "../up"])
def test_apply_refuses_names_rockbot_refuses_even_without_findings(agent: Path, tmp_path: Path,
                                                                    name: str) -> None:
    plan = gap_plan(agent, ["fine/new"])
    plan.proposals[0].record.name = name  # type: ignore[union-attr]
    plan.proposals[0].findings = []
    path = tmp_path / "forged.json"
    plan.save(path)
    before = attacks_dream.snapshot(agent)
    result = run_cli("apply", agent, path, "--accept", plan.proposals[0].id)
    assert unreadable(result) is None, result.crash or result.err
    assert result.code == 1 and "refused" in result.err, result.err
    assert attacks_dream.snapshot(agent) == before
    accept_all = run_cli("apply", agent, path, "--accept-all")
    assert unreadable(accept_all) is None and accept_all.code == 1, accept_all.err
    assert attacks_dream.snapshot(agent) == before


@pytest.mark.parametrize(("field", "value"), [
    ("name", 12345), ("name", None), ("createdAt", "yesterday"), ("createdAt", ""),
    ("seeAlso", "mcp/email"), ("content", {"x": 1})])
def test_a_plan_file_with_wrong_types_is_one_readable_error(agent: Path, tmp_path: Path, field: str,
                                                            value: object) -> None:
    plan = gap_plan(agent, ["fine/new"])
    data = json.loads(plan.to_json())
    data["proposals"][0]["record"][field] = value
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    before = attacks_dream.snapshot(agent)
    result = run_cli("apply", agent, path, "--accept-all")
    assert unreadable(result) is None, result.crash or result.err
    assert result.code == 2 and "is not a dream plan" in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1 and "validation error" not in result.err
    assert attacks_dream.snapshot(agent) == before


@pytest.mark.parametrize("touched", ["/etc/passwd", "../../outside", "/dev/zero", "skills/../../x"])
def test_a_plan_reading_outside_the_skills_folder_is_refused(agent: Path, tmp_path: Path,
                                                             touched: str) -> None:
    plan = gap_plan(agent, ["fine/new"])
    plan.proposals[0].touched = {touched: None}
    path = tmp_path / "forged.json"
    plan.save(path)
    result = run_cli("apply", agent, path, "--accept-all", "--recheck")
    assert unreadable(result) is None, result.crash or result.err
    assert result.code == 2 and "is not a dream plan" in result.err, result.err


def test_a_rechecked_plan_keeps_its_stale_proposals_blocked(agent: Path, tmp_path: Path) -> None:
    """Findings are made again at apply; a stale proposal stays stale (its file changed)."""
    reply = json.dumps({"toDelete": [], "toSave": [{"name": "plan-meeting", "summary": "s", "content": "New.",
                                                    "sourceNames": ["plan-meeting"]}]})
    plan = run_dream(RockBotLibrary.open(agent), RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW),
                     PastedReplies([reply]))
    source = agent / "skills" / "plan-meeting.json"
    source.write_bytes(source.read_bytes() + b" ")
    fresh = recheck(plan, RockBotLibrary.open(agent))
    rewrite = next(p for p in fresh.proposals if p.record is not None)
    assert "stale" in [f.code for f in rewrite.findings]
    path = tmp_path / "rechecked.json"
    fresh.save(path)
    changed = source.read_bytes()
    result = run_cli("apply", agent, path, "--accept", rewrite.id)
    assert result.code == 1 and "changed since the plan was made" in result.err, result.err
    assert source.read_bytes() == changed


def test_a_skill_deleted_by_one_pass_can_be_saved_again_by_the_next(agent: Path) -> None:
    merge = json.dumps({"toDelete": ["plan-meeting"], "toSave": [
        {"name": "meetings/all", "summary": "s", "content": "Merged.", "sourceNames": ["plan-meeting"]}]})
    again = json.dumps({"toDelete": [], "toSave": [{"name": "plan-meeting", "summary": "s",
                                                    "content": "Back again."}]})
    options = RunOptions(passes=[DreamPass.CONSOLIDATE, DreamPass.OPTIMIZE], now=NOW)
    plan = run_dream(RockBotLibrary.open(agent), options, PastedReplies([merge, again]))
    result = apply_plan(RockBotLibrary.open(agent), plan, plan.acceptable_ids())
    assert "plan-meeting" in result.change.deleted and "plan-meeting" in result.change.created
    assert b"Back again." in (agent / "skills" / "plan-meeting.json").read_bytes()


# ---------------------------------------------------------------- item 8


@pytest.mark.parametrize("name", ["x" * 10_000, "ok/" + "y" * 300, "dir", "fifo", "plain/child"])
def test_an_unwritable_name_in_a_reply_is_a_blocked_proposal_and_the_run_is_kept(
        agent: Path, name: str) -> None:
    skills = agent / "skills"
    (skills / "dir.json").mkdir()
    (skills / "plain").write_text("a file, not a folder")
    if hasattr(os, "mkfifo"):
        os.mkfifo(skills / "fifo.json")
    gap = json.dumps({"toSave": [{"name": name, "summary": "s", "content": "c"},
                                 {"name": "fine/new", "summary": "s", "content": "c"}]})
    merge = json.dumps({"toDelete": [], "toSave": [{"name": "fine/merged", "summary": "s",
                                                    "content": "c"}]})
    options = RunOptions(passes=[DreamPass.GAP, DreamPass.CONSOLIDATE], now=NOW)
    plan = run_dream(RockBotLibrary.open(agent), options, PastedReplies([gap, merge]))
    assert [p.status for p in plan.passes] == [PassStatus.OK, PassStatus.OK]
    assert blocked_codes(plan, name)
    assert blocked_codes(plan, "fine/new") == [] and blocked_codes(plan, "fine/merged") == []
    result = apply_plan(RockBotLibrary.open(agent), plan, plan.acceptable_ids())
    assert set(result.change.created) == {"fine/new", "fine/merged"}
    assert (skills / "dir.json").is_dir() and (skills / "plain").read_text() == "a file, not a folder"


# ---------------------------------------------------------------- item 9


def test_an_echoed_key_is_masked_in_every_form(agent: Path, tmp_path: Path) -> None:
    key = 'sk-Te5t/k+y=="q\\uote-0123456789'
    forms = [*attacks_dream.encodings(key).values(), f"Bearer {key}"]
    gap = "Authorization: " + " | ".join(forms) + "\n" + json.dumps({"toSave": [
        {"name": "echo/skill", "summary": "s", "content": "key: " + " ".join(forms)}]})
    with scripted_server() as server:
        server.queue(ok(gap))
        client = LlmClient(Endpoint(server.base_url, "m", retries=0), key)
        plan = run_dream(RockBotLibrary.open(agent), RunOptions(passes=[DreamPass.GAP], now=NOW), client)
        assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    path = tmp_path / "plan.json"
    plan.save(path)
    apply_plan(RockBotLibrary.open(agent), plan, plan.acceptable_ids())
    assert plan.passes[0].raw_reply is not None and "[redacted]" in plan.passes[0].raw_reply
    assert secret_leaks(tmp_path, [], key) == []


# ---------------------------------------------------------------- the randomized attacks


@pytest.mark.parametrize(("label", "attack"), ATTACKS, ids=[a.__name__ for _, a in ATTACKS])
def test_randomized_attack(label: str, attack: attacks_dream.Attack, tmp_path: Path) -> None:
    attacks_dream.REASONS.clear()
    run, failures = attack(TRIALS, tmp_path)
    reasons = [r for rs in attacks_dream.REASONS.values() for r in rs]
    assert run == TRIALS
    assert failures == 0, f"{label}: " + "\n".join(reasons)
