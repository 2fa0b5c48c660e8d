"""The recall safety net: replaying logged first messages and query sets before and after a plan,
checked against what recall really gives on the library the plan leaves on disk."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.app.demo import DEMO_ANCHOR, demo_source_dir
from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.plan import Plan
from rockskills_gui.core.dream.recall_guard import CODE, corpus, plan_effect, session_queries
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.recall import snapshots
from rockskills_gui.core.recall.bm25 import tokenize
from rockskills_gui.core.recall.queryset import QueryCase, QuerySet, evaluate, load_query_set, save_query_set
from rockskills_gui.core.recall.replay import GuardedQuery, replay
from rockskills_gui.core.recall.skill_recall import SkillRecall


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    dest = tmp_path / "demo"
    shutil.copytree(demo_source_dir(), dest)
    return dest


def log_session(agent: Path, session: str, message: str, skills: list[str]) -> None:
    """Append a logged session: its first user message and the skills it used."""
    with (agent / "conversation-log" / "turns.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps({"sessionId": session, "role": "user", "content": message,
                              "timestamp": "2026-11-21T09:00:00+00:00"}) + "\n")
    with (agent / "skill-usage" / f"{session}.jsonl").open("w", encoding="utf-8") as out:
        for i, name in enumerate(skills):
            out.write(json.dumps({"id": f"{session}-{i}", "skillName": name, "sessionId": session,
                                  "timestamp": f"2026-11-21T09:00:0{i}+00:00"}) + "\n")


def own_words(skill_name: str, other_name: str, lib: RockBotLibrary) -> str:
    """Words of one skill's name and summary that the other's lack (a message only it answers)."""
    a, b = lib.get(skill_name), lib.get(other_name)
    assert a is not None and b is not None
    theirs = set(tokenize(f"{b.name} {b.summary}"))
    mine = [t for t in dict.fromkeys(tokenize(f"{a.name} {a.summary}")) if t not in theirs]
    assert mine
    return " ".join(mine)


def offline_plan(agent: Path) -> Plan:
    return run_dream(RockBotLibrary.open(agent), RunOptions(offline=True, now=DEMO_ANCHOR))


def check_against_disk(agent: Path, plan: Plan, accepted: list[str], queries: list[GuardedQuery]) -> None:
    """What the replay predicts for 'after' is what recall gives once the plan is applied."""
    lib = RockBotLibrary.open(agent)
    effect = plan_effect(plan, lib.skills(), accepted, queries)
    apply_plan(lib, plan, accepted)
    real = SkillRecall(RockBotLibrary.open(agent).skills())
    for outcome in effect.report.outcomes:
        top = real.search(outcome.query.query)
        assert sorted(outcome.after) == sorted(h.name for h in top), outcome.query.query
        for move in outcome.expected:
            if move.successor is not None:
                assert move.after == real.index.ranks(outcome.query.query, [fold(move.successor)])[
                    fold(move.successor)]


def test_corpus_pairs_each_sessions_first_message_with_the_skills_it_used(demo: Path) -> None:
    log_session(demo, "s-guard", "first message here", ["writing/copy-edit", "writing/proofread"])
    with (demo / "conversation-log" / "turns.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps({"sessionId": "s-guard", "role": "user", "content": "a later message",
                              "timestamp": "2026-11-21T09:05:00+00:00"}) + "\n")
    queries = {q.source: q for q in session_queries(demo)}
    assert queries["session s-guard"].query == "first message here"
    assert queries["session s-guard"].expected == ("writing/copy-edit", "writing/proofread")
    log = (demo / "conversation-log" / "turns.jsonl").read_text()
    users = {t["sessionId"] for t in map(json.loads, log.splitlines()) if t["role"] == "user"}
    assert {q.source.removeprefix("session ") for q in queries.values()} <= users


def test_a_merge_that_hides_a_skill_from_a_logged_first_message_gets_a_finding(demo: Path) -> None:
    plan = offline_plan(demo)
    merges = [p for p in plan.proposals if p.kind.value == "merge"]
    assert merges, "the demo's offline dream proposes a merge"
    merge = merges[0]
    keep = merge.record.name if merge.record else ""
    drop = next(s for s in merge.sources if fold(s) != fold(keep))
    message = own_words(drop, keep, RockBotLibrary.open(demo))
    log_session(demo, "s-lost", message, [drop])
    plan = offline_plan(demo)  # the checks read the logs
    effect = plan_effect(plan, RockBotLibrary.open(demo).skills(), plan.acceptable_ids(), corpus(demo)[0])
    outcome = next(o for o in effect.report.outcomes if o.query.source == "session s-lost")
    assert outcome.lost and outcome.lost[0].name == drop and outcome.lost[0].successor == keep
    flagged = {p.id for p in plan.proposals if any(f.code == CODE for f in p.findings)}
    merge_id = next(p.id for p in plan.proposals if p.kind.value == "merge" and p.record
                    and p.record.name == keep)
    assert merge_id in flagged
    finding = next(f for p in plan.proposals if p.id == merge_id for f in p.findings if f.code == CODE)
    assert message[:20] in finding.message and drop in finding.message
    check_against_disk(demo, plan, plan.acceptable_ids(), corpus(demo)[0])


def test_a_merge_whose_skill_still_surfaces_gets_no_finding(demo: Path) -> None:
    plan = offline_plan(demo)
    effect = plan_effect(plan, RockBotLibrary.open(demo).skills(), plan.acceptable_ids(), corpus(demo)[0])
    regressed_ids = {pid for causes in effect.causes.values() for pid in causes}
    for proposal in plan.proposals:
        assert (proposal.id in regressed_ids) == any(f.code == CODE for f in proposal.findings)


@pytest.mark.parametrize("seed", range(4))
def test_replay_predicts_what_the_applied_library_recalls(demo: Path, seed: int) -> None:
    rng = random.Random(seed)
    lib = RockBotLibrary.open(demo)
    names = lib.names()
    for i in range(6):
        skill = lib.get(rng.choice(names))
        assert skill is not None
        words = tokenize(f"{skill.name} {skill.summary}")
        log_session(demo, f"s-rand-{i}", " ".join(rng.sample(words, min(3, len(words)))), [skill.name])
    plan = offline_plan(demo)
    ids = [p for p in plan.acceptable_ids() if rng.random() < 0.7]
    closed = [p.id for p in plan.proposals if p.id in ids and all(d in ids for d in p.depends_on)]
    check_against_disk(demo, plan, closed, corpus(demo)[0])


def test_replay_follows_successors_and_reports_deletions(tmp_path: Path) -> None:
    from rockskills_gui.core.model.skill import Skill
    from rockskills_gui.core.model.timestamps import Timestamp

    now = Timestamp.parse("2026-11-22T12:00:00+00:00")

    def skill(name: str, summary: str) -> Skill:
        return Skill(name=name, summary=summary, content="x", created_at=now, updated_at=now)

    before = [skill("a/fax", "send a fax"), skill("a/mail", "send a letter"), skill("b/x", "other")]
    after = [skill("a/mail", "send a letter or a fax"), skill("b/x", "other")]
    queries = [GuardedQuery("send a fax", ("a/fax",)), GuardedQuery("other", ("b/x",), ("a/mail",))]
    followed = replay(before, after, queries, {"a/fax": "a/mail"})
    assert followed.outcomes[0].expected[0].successor == "a/mail"
    assert not followed.regressions
    deleted = replay(before, after, queries, {})
    assert deleted.outcomes[0].lost[0].successor is None and deleted.regressions


def test_query_sets_can_say_what_must_not_be_recalled(demo: Path) -> None:
    lib = RockBotLibrary.open(demo)
    recall = SkillRecall(lib.skills())
    top = recall.search("plan a meeting")[0].name
    query_set = QuerySet(name="near-miss", queries=[QueryCase(query="plan a meeting", avoid=[top])])
    path = demo / "recall-tests" / "near-miss.json"
    save_query_set(lib.layout, path, query_set)
    assert '"expected"' not in path.read_text()  # an avoid-only case stores no empty list
    loaded = load_query_set(path)
    report = evaluate(recall, loaded)
    assert report.failing and report.failing[0].intruders == (top,)
    with pytest.raises(ValueError):
        QueryCase(query="nothing to say")


def test_snapshots_compare_per_query(demo: Path) -> None:
    lib = RockBotLibrary.open(demo)
    cases = [QueryCase(query=q, expected=[lib.names()[i]]) for i, q in
             enumerate(["summarize this arxiv paper", "plan a meeting", "convert currency"])]
    query_set = QuerySet(name="s", queries=cases)
    a = snapshots.take(SkillRecall(lib.skills()), query_set, "a")
    snapshots.save(lib.layout, a)
    assert snapshots.load(lib.layout, "a") == a
    assert not any(d.changed for d in snapshots.compare(a, a))
    first = lib.get(lib.names()[0])
    assert first is not None
    others = [s for s in lib.skills() if s.name != first.name]
    b = snapshots.take(SkillRecall(others), query_set, "b")
    diffs = snapshots.compare(a, b)
    assert diffs[0].changed
    assert diffs[0].regressed == (a.results[0].ranks[first.name] is not None
                                  and a.results[0].ranks[first.name] <= 5)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_against_exits_1_when_a_guarded_query_regresses(demo: Path, tmp_path: Path) -> None:
    plan = offline_plan(demo)
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(plan.to_json(), "utf-8")
    clean = cli("recall-test", str(demo), "--against", str(plan_path), "--json")
    data = json.loads(clean.stdout)
    assert clean.returncode == (1 if data["regressions"] else 0)
    merge = next(p for p in plan.proposals if p.kind.value == "merge")
    keep = merge.record.name if merge.record else ""
    drop = next(s for s in merge.sources if fold(s) != fold(keep))
    log_session(demo, "s-cli", own_words(drop, keep, RockBotLibrary.open(demo)), [drop])
    result = cli("recall-test", str(demo), "--against", str(plan_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "REGRESSED" in result.stdout and drop in result.stdout
    unknown = cli("recall-test", str(demo), "--against", str(plan_path), "--accept", "nope")
    assert unknown.returncode == 2 and "nope" in unknown.stderr


def test_cli_snapshot_and_compare_now(demo: Path) -> None:
    lib = RockBotLibrary.open(demo)
    target = lib.names()[3]
    path = demo / "recall-tests" / "one.json"
    save_query_set(lib.layout, path, QuerySet(name="one", queries=[QueryCase(query=target.replace("/", " "),
                                                                             expected=[target])]))
    assert cli("recall-test", str(demo), str(path), "--snapshot", "base").returncode == 0
    assert (demo / "recall-tests" / "snapshots" / "base.json").is_file()
    same = cli("recall-test", str(demo), "--compare", "base", "now")
    assert same.returncode == 0 and "0 changed" in same.stdout
    (demo / "skills" / f"{target}.json").unlink()
    gone = cli("recall-test", str(demo), "--compare", "base", "now")
    was_top = json.loads((demo / "recall-tests" / "snapshots" / "base.json").read_text())[
        "results"][0]["ranks"][target]
    assert gone.returncode == (1 if was_top is not None and was_top <= 5 else 0), gone.stdout
