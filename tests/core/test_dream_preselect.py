"""Nothing destructive is pre-selected (issue 32): plans from a real OpenAI-protocol server on a
library with no usage log, RockBot and SKILL.md; the plan file says why for every proposal; the
CLI's ``--accept-preselected`` applies exactly that; what the apply removes is archived and comes
back byte for byte after a restart."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import apply_plan, checked
from rockskills_gui.core.dream.llm import Endpoint, LlmClient
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Plan, ProposalKind
from rockskills_gui.core.dream.preselect import SHRINK_LIMIT, preselected_ids
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.archive import restore_skill
from rockskills_gui.core.library.archive_records import archived
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.model.skill import skill_from_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from tests.conftest import AGENT, NOW_TEXT, REPO, SHARED
from tests.core.llm_server import ScriptedServer, ok, scripted_server

NOW = Timestamp.parse(NOW_TEXT)
CORPUS = SHARED / "corpora" / "anthropics-skills" / "skills"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server() as running:
        yield running


def no_usage_agent(tmp_path: Path) -> Path:
    agent = tmp_path / "agent"
    shutil.copytree(AGENT, agent)
    for path in [agent, *agent.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    shutil.rmtree(agent / "skill-usage")  # no usage log: no recent-use guard can protect anything
    return agent


def skill_md_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    shutil.copytree(CORPUS, root)
    (root / "canvas-design" / "references").mkdir()
    (root / "canvas-design" / "references" / "palette.md").write_bytes(b"# Palette\n#FF6600\n")
    return root


def rockbot_text(agent: Path, name: str) -> dict[str, str]:
    data = json.loads((agent / "skills" / f"{name}.json").read_text(encoding="utf-8"))
    return {"summary": data["summary"], "content": data["content"]}


def skill_md_text(root: Path, name: str) -> dict[str, str]:
    library = open_library(root)
    skill = library.get(name)
    assert skill is not None
    return {"summary": skill.summary or "", "content": skill.content or ""}


def reply(lossless: tuple[str, str, str], lossy: tuple[str, str, str], alone: list[str],
          text: dict[str, dict[str, str]]) -> str:
    """A consolidation reply: a merge that keeps both texts whole, a merge into a three-line stub,
    and deletions nothing replaces."""
    into, a, b = lossless
    keep = {"name": into, "summary": f"{text[a]['summary']} {text[b]['summary']}"[:1000],
            "content": f"{text[a]['content']}\n\n{text[b]['content']}", "sourceNames": [a, b]}
    stub_into, c, d = lossy
    stub = {"name": stub_into, "summary": "Do it", "content": "1. Start.\n2. Do it.\n3. Done.\n",
            "sourceNames": [c, d]}
    return json.dumps({"toDelete": [a, b, c, d, *alone], "toSave": [keep, stub]})


def llm_plan(library: RockBotLibrary | SkillMdLibrary, server: ScriptedServer, answer: str) -> Plan:
    server.queue(ok(answer))
    client = LlmClient(Endpoint(server.base_url, "test-model", timeout=10, retries=0), None)
    return run_dream(library, RunOptions(passes=[DreamPass.CONSOLIDATE, DreamPass.OPTIMIZE], now=NOW),
                     client)


def assert_nothing_destructive_ticked(plan: Plan, lossless_into: str, lossy_into: str,
                                      alone: list[str]) -> None:
    by_title = {p.title: p for p in plan.proposals}
    for proposal in plan.proposals:
        assert proposal.preselect_reason.startswith(
            "Starts ticked: " if proposal.preselected else "Starts unticked: "), proposal
    for proposal in plan.proposals:
        if proposal.kind is ProposalKind.PRUNE:
            assert not proposal.preselected and "prunes" in proposal.preselect_reason
    for name in alone:
        delete = by_title[f"Delete '{name}'"]
        assert not delete.preselected
        assert "which nothing replaces (archived on apply, restorable)" in delete.preselect_reason
    lossy = next(p for p in plan.proposals if p.record is not None and p.record.name == lossy_into)
    assert not lossy.preselected and "drops" in lossy.preselect_reason
    finding = next(f for f in lossy.findings if f.code == "lost-specifics")
    assert "missing from the new text" in finding.message
    for source in lossy.sources:
        assert not by_title[f"Delete '{source}'"].preselected
    lossless = next(p for p in plan.proposals if p.record is not None and p.record.name == lossless_into)
    assert lossless.preselected, lossless.preselect_reason
    assert not any(f.code == "lost-specifics" for f in lossless.findings)
    for source in lossless.sources:  # merged-away sources follow their merge
        delete = by_title[f"Delete '{source}'"]
        assert delete.preselected and f"merged into '{lossless_into}'" in delete.preselect_reason
    assert 0 < SHRINK_LIMIT < 1


def test_a_rockbot_plan_without_usage_log_ticks_nothing_destructive(tmp_path: Path,
                                                                    server: ScriptedServer) -> None:
    agent = no_usage_agent(tmp_path)
    library = RockBotLibrary.open(agent, clock=lambda: NOW)
    text = {n: rockbot_text(agent, n) for n in ("research/summarize-paper", "research/summarize-article",
                                                "plan-meeting", "schedule-meeting")}
    alone = ["daily-standup", "write-report"]
    answer = reply(("research/summarize", "research/summarize-paper", "research/summarize-article"),
                   ("meetings/meet", "plan-meeting", "schedule-meeting"), alone, text)
    plan = llm_plan(library, server, answer)
    assert any(p.kind is ProposalKind.PRUNE for p in plan.proposals)  # legacy/fax-sender, 18 months
    assert_nothing_destructive_ticked(plan, "research/summarize", "meetings/meet", alone)
    saved = tmp_path / "plan.json"
    plan.save(saved)
    raw = json.loads(saved.read_text(encoding="utf-8"))
    assert all("preselected" in p and p["preselectReason"] for p in raw["proposals"])
    # a forged file cannot tick a deletion: the preselection is made again
    for proposal in raw["proposals"]:
        proposal["preselected"] = True
    saved.write_text(json.dumps(raw), encoding="utf-8")
    assert preselected_ids(checked(Plan.load(saved), library)) == preselected_ids(plan)

    result = apply_plan(library, plan, preselected_ids(plan))
    assert set(result.change.deleted) == {"research/summarize-paper", "research/summarize-article"}
    for name in alone:
        assert name in library
    # a restart: the undo history is gone; the archive still has both sources, byte for byte
    again = RockBotLibrary.open(agent)
    records = {s.name: s for s in archived(again)[0]}
    assert {n: (s.record.action, s.record.absorbed_into) for n, s in records.items() if s.record} == {
        "research/summarize-paper": ("merge", "research/summarize"),
        "research/summarize-article": ("merge", "research/summarize")}
    restore_skill(again, "research/summarize-paper")
    assert (agent / "skills" / "research" / "summarize-paper.json").read_bytes() == \
        (AGENT / "skills" / "research" / "summarize-paper.json").read_bytes()


def test_a_skill_md_plan_is_written_as_skill_md_and_ticks_nothing_destructive(
        tmp_path: Path, server: ScriptedServer) -> None:
    root = skill_md_root(tmp_path)
    library = open_library(root)
    assert isinstance(library, SkillMdLibrary) and not library.profile.holds.usage_log
    library.clock = lambda: NOW
    names = ("algorithmic-art", "canvas-design", "web-artifacts-builder", "webapp-testing")
    text = {n: skill_md_text(root, n) for n in names}
    alone = ["slack-gif-creator"]
    answer = reply(("visual-art", "algorithmic-art", "canvas-design"),
                   ("web-building", "web-artifacts-builder", "webapp-testing"), alone, text)
    plan = llm_plan(library, server, answer)
    assert plan.library_format == "agentskills"
    statuses = {r.dream_pass: r for r in plan.passes}
    assert any("SKILL.md files keep no usage dates" in n for n in statuses[DreamPass.CONSOLIDATE].notes)
    assert "Format: these skills are Agent Skills SKILL.md folders" in (
        statuses[DreamPass.CONSOLIDATE].user or "")
    assert_nothing_destructive_ticked(plan, "visual-art", "web-building", alone)
    before = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    apply_plan(library, plan, preselected_ids(plan))
    merged = (root / "visual-art" / "SKILL.md").read_text(encoding="utf-8")
    assert merged.startswith("---\nname: visual-art\n") and "license: Complete terms in LICENSE.txt" in merged
    assert (root / "visual-art" / "references" / "palette.md").read_bytes() == b"# Palette\n#FF6600\n"
    assert not (root / "canvas-design").exists() and (root / "slack-gif-creator").is_dir()
    assert set(open_library(root).names()) >= {"visual-art", "slack-gif-creator", "web-artifacts-builder"}
    # archived as Hermes keeps them; no SKILL.md agent sees them; back byte for byte after a restart
    assert {p.parent.name for p in root.glob("*/SKILL.md")}.isdisjoint({"algorithmic-art", "canvas-design"})
    again = open_library(root)
    restore_skill(again, "canvas-design", as_name=None)
    restored = {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "canvas-design").rglob("*")
                if p.is_file()}
    assert restored == {k: v for k, v in before.items() if k.startswith("canvas-design/")}


def test_the_cli_accepts_exactly_the_preselected_proposals(tmp_path: Path, server: ScriptedServer) -> None:
    agent = no_usage_agent(tmp_path)
    text = {n: rockbot_text(agent, n) for n in ("research/summarize-paper", "research/summarize-article",
                                                "plan-meeting", "schedule-meeting")}
    server.queue(ok(reply(("research/summarize", "research/summarize-paper", "research/summarize-article"),
                          ("meetings/meet", "plan-meeting", "schedule-meeting"), ["daily-standup"], text)))
    plan_path = tmp_path / "plan.json"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rockskills_gui.cli", *args], cwd=REPO,
                              capture_output=True, text=True, timeout=120)

    made = run("dream", str(agent), "--passes", "consolidate", "--base-url", server.base_url,
               "--model", "test-model", "--now", NOW_TEXT, "--plan-out", str(plan_path))
    assert made.returncode == 0, made.stderr
    assert "Starts unticked: deletes 'daily-standup', which nothing replaces" in made.stdout
    plan = Plan.load(plan_path)
    wanted = preselected_ids(plan)
    applied = run("apply", str(agent), str(plan_path), "--accept-preselected")
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.startswith(f"applied {', '.join(wanted)} ")
    assert "left unticked" in applied.stderr and "daily-standup" in applied.stderr
    assert (agent / "skills" / "daily-standup.json").is_file()
    assert (agent / "skills" / "plan-meeting.json").is_file()  # a lossy merge's source stays
    archived_paper = agent / ".rockskills" / "archive" / "research.summarize-paper" / "research"
    assert skill_from_bytes((archived_paper / "summarize-paper.json").read_bytes()).name == \
        "research/summarize-paper"
    assert hashlib.sha256((archived_paper / "summarize-paper.json").read_bytes()).digest() == \
        hashlib.sha256((AGENT / "skills/research/summarize-paper.json").read_bytes()).digest()
