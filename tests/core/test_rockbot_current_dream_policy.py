"""RockBot (current)'s dream policy (issue 30): the pass ledger's fingerprints, the carried MCP
baseline, the MCP skill refresh pass and the dream schedule.

Upstream (MarimerLLC/rockbot): ``src/RockBot.Host/DreamService.cs`` @ 150a84c (``CorpusFingerprint``,
``ContentFingerprint``, ``SkillCorpusFingerprint``, ``EventWatermarkFingerprint``, the pass names,
``CarriedSurfaceBaseline``, ``RunMcpSkillRefreshPassAsync`` and ``ApplyMcpSkillRefreshAsync``),
``src/RockBot.Host/DreamPassLedger.cs`` @ e7f95a1 (``ShouldSkip``), the cases of
``tests/RockBot.Host.Tests/DreamPassChangeGateTests.cs`` @ a1d3999 and
``McpSkillFreshnessHostTests.cs`` @ 2710fd9, ``src/RockBot.Host.Abstractions/DreamOptions.cs`` @
150a84c (``McpSkillRefreshMaxPerCycle`` 5, ``CronSchedule`` ``0 */12 * * *``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rockskills_gui.core.dream.apply import apply_plan
from rockskills_gui.core.dream.ledger import (
    LedgerRecord,
    content_fingerprint,
    corpus_fingerprint,
    event_watermark,
    should_skip,
    skill_corpus_fingerprint,
)
from rockskills_gui.core.dream.llm import Endpoint, LlmClient
from rockskills_gui.core.dream.mcp_refresh import McpSurface, read_surfaces
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import PassStatus, ProposalKind
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.dream_schedule import next_dream, next_dream_hint
from rockskills_gui.core.model.mcp_freshness import ServerSummary
from rockskills_gui.core.model.profiles import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from tests.rockbot_current import rockbot_json
from tests.rockbot_current_rules import SKILLS, make_rules_agent

NOW = Timestamp.parse("2026-08-29T12:00:00+00:00")
WEEK = 7


def test_should_skip_as_the_change_gate_tests_state_it() -> None:
    def rec(days: float) -> LedgerRecord:
        return LedgerRecord("abc", NOW.add_days(days))
    assert not should_skip(None, "abc", NOW, WEEK)  # never run
    assert should_skip(rec(-1), "abc", NOW, WEEK)  # unchanged within the floor
    assert should_skip(rec(-1), "ABC", NOW, WEEK)  # compared ignoring case
    assert not should_skip(LedgerRecord("abc", NOW.add_days(-1 / 1440)), "def", NOW, WEEK)  # changed
    assert not should_skip(rec(-7 - 1 / 86400), "abc", NOW, WEEK)  # the floor elapsed
    assert should_skip(rec(-365), "abc", NOW, 0)  # no floor: skip forever
    assert should_skip(rec(3), "abc", NOW, WEEK)  # a clock gone backwards: not yet due


def test_the_skill_corpus_fingerprint_is_upstreams_formula() -> None:
    # Computed here from the formula itself: each part "name|HEX(sha256(summary))[:16]|
    # HEX(sha256(content))[:16]|seeAlso|manifest" and each singleton prefix, every part followed by
    # U+001F, SHA-256 over UTF-8, the first 16 bytes in upper-case hex.
    def h8(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:16].upper()
    alpha = Skill(name="alpha", summary="summary of alpha", content="does alpha", see_also=("b", "A"))
    beta = Skill(name="Beta", summary=None, content="does beta")
    parts = [f"alpha|{h8('summary of alpha')}|{h8('does alpha')}|A,b|",
             f"Beta|{h8('')}|{h8('does beta')}||", "singleton:mcp/"]
    expected = hashlib.sha256("".join(p + "\u001f" for p in parts).encode()).hexdigest()[:32].upper()
    assert skill_corpus_fingerprint([beta, alpha], ["mcp/"]) == expected
    assert content_fingerprint(None) == h8("")


def test_the_fingerprint_properties_upstream_tests() -> None:
    a = Skill(name="alpha", summary="summary of alpha", content="does alpha", created_at=NOW.add_days(-30))
    b = Skill(name="beta", summary="summary of beta", content="does beta", created_at=NOW.add_days(-30))
    assert skill_corpus_fingerprint([a, b], []) == skill_corpus_fingerprint([b, a], [])
    assert skill_corpus_fingerprint([a], []) != skill_corpus_fingerprint(
        [a.model_copy(update={"content": "does alpha, but better"})], [])
    assert skill_corpus_fingerprint([a], []) == skill_corpus_fingerprint(
        [a.model_copy(update={"last_used_at": NOW, "updated_at": NOW})], [])
    todo = Skill(name="mcp/todo", summary="todo server", content="x")
    assert skill_corpus_fingerprint([todo], []) != skill_corpus_fingerprint([todo], ["mcp/"])
    assert corpus_fingerprint(["ab", "c"]) != corpus_fingerprint(["a", "bc"])


def test_a_manifest_entry_changes_the_fingerprint(tmp_path: Path) -> None:
    lib = open_library(make_rules_agent(tmp_path / "agent"))
    digest = lib.get("email/digest")
    entries = ("digest.wisp:Wisp:prov,older.wisp:Wisp:conf,run.py:Python:conf,shape.json:JsonSchema:conf")
    assert f"|{entries}" in _part_of(digest)
    assert skill_corpus_fingerprint(lib.skills(), ["mcp/"]) != skill_corpus_fingerprint(
        [s for s in lib.skills() if s.name != "email/digest"] + [Skill(
            name=digest.name, summary=digest.summary, content=digest.content)], ["mcp/"])


def _part_of(skill: Skill) -> str:
    from rockskills_gui.core.dream.ledger import _skill_part
    return _skill_part(skill)


def test_event_watermarks() -> None:
    full = [NOW.add_days(-13), NOW.add_days(-5), NOW]
    assert event_watermark(full) == event_watermark(full[1:]) == "watermark:2026-08-29T12:00:00.0000000+00:00"
    assert event_watermark(full[:2]) != event_watermark(full)
    tokyo = Timestamp.parse("2026-08-29T21:00:00+09:00")  # the same instant
    assert event_watermark([NOW.add_days(-2), tokyo]) == event_watermark([NOW, NOW.add_days(-9)])
    assert event_watermark([]) == "watermark:none"


# ---------------------------------------------------------------- the carried baseline (#615)


def merge(library: RockBotLibrary, target: str, sources: list[str]):
    reply = {"toDelete": [], "toSave": [{"name": target, "summary": "s", "content": "c",
                                         "sourceNames": sources}]}
    plan = run_dream(library, RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW),
                     PastedReplies([json.dumps(reply)]))
    return plan, next(p for p in plan.proposals if p.kind is ProposalKind.MERGE)


def baseline_after(agent: Path, target: str, sources: list[str]) -> object:
    library = open_library(agent)
    plan, proposal = merge(library, target, sources)
    apply_plan(library, plan, [proposal.id])
    return json.loads((agent / "skills" / f"{target}.json").read_text())["surfaceBaseline"]


def test_a_merge_keeps_the_oldest_same_server_baseline(tmp_path: Path) -> None:
    agent = make_rules_agent(tmp_path / "agent")
    # mcp/github (2026-06-01) and mcp/github/issues (2026-05-01): the older wins; mcp/ms365 is
    # another server and does not count.
    assert baseline_after(agent, "mcp/github", ["mcp/github/issues", "mcp/ms365"]) == \
        SKILLS["mcp/github/issues"]["surfaceBaseline"]


def test_any_same_server_source_without_a_baseline_makes_it_unknown(tmp_path: Path) -> None:
    agent = make_rules_agent(tmp_path / "agent")
    library = open_library(agent)
    _plan, proposal = merge(library, "mcp/github", ["mcp/github/prs"])
    assert any(f.code == "mcp-baseline" and "gets no surfaceBaseline" in f.message
               for f in proposal.findings)
    assert baseline_after(agent, "mcp/github", ["mcp/github/prs"]) is None


def test_a_non_mcp_target_gets_no_baseline(tmp_path: Path) -> None:
    agent = make_rules_agent(tmp_path / "agent")
    assert baseline_after(agent, "tools/github", ["mcp/github"]) is None


# ---------------------------------------------------------------- the MCP skill refresh pass (#615)


def surfaces(**versions: str) -> dict[str, McpSurface]:
    return {name: McpSurface(ServerSummary(name, f"id-{name}", "ffff", version), f"tool list of {name}")
            for name, version in versions.items()}


def stale_agent(root: Path, count: int) -> Path:
    """``count`` mcp/github/* skills with a 1.4.0 baseline, the n-th updated on day n."""
    for n in range(count):
        name = f"mcp/github/t{n}"
        record = {**SKILLS["mcp/github"], "name": name, "content": f"# T{n}\n\nCall old_tool_{n}.",
                  "updatedAt": f"2026-07-{10 + (count - n):02d}T00:00:00+00:00"}
        path = root / "skills" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rockbot_json(record))
    return root


def test_the_refresh_pass_rewrites_stale_skills_oldest_first_five_per_cycle(tmp_path: Path,
                                                                             openai_server) -> None:
    agent = stale_agent(tmp_path / "agent", 6)
    library = open_library(agent)
    openai_server.replies = [json.dumps({"changed": True, "content": f"  # new {n}  ", "notes": "renamed"})
                             for n in range(5)]
    client = LlmClient(Endpoint(openai_server.base_url, "test-model", json_mode=False), None)
    plan = run_dream(library, RunOptions(passes=[DreamPass.MCP_REFRESH], now=NOW,
                                         mcp_surfaces=surfaces(github="1.5.0")), client)
    sent = [r.body["messages"][1]["content"] for r in openai_server.requests
            if r.path.endswith("/completions")]
    assert len(sent) == 5  # McpSkillRefreshMaxPerCycle; the newest waits
    assert sent[0] == ("Skill: mcp/github/t5\nWhy it is stale: github changed from v1.4.0 to v1.5.0 since "
                       "this skill was written\n\n## Current tools on MCP server 'github'\n\ntool list of "
                       "github\n\n## Current skill markdown\n\n# T5\n\nCall old_tool_5.\n")
    refreshes = [p for p in plan.proposals if p.kind is ProposalKind.MCP_REFRESH]
    assert [p.record.name for p in refreshes] == [f"mcp/github/t{n}" for n in (5, 4, 3, 2, 1)]
    apply_plan(library, plan, [refreshes[0].id])
    written = json.loads((agent / "skills" / "mcp/github/t5.json").read_text())
    assert written["content"] == "# new 0"  # trimmed
    assert written["surfaceBaseline"] == {"serverName": "github", "serverId": "id-github",
                                          "fingerprint": "ffff", "version": "1.5.0", "identityHash": None,
                                          "recordedAt": "2026-08-29T12:00:00+00:00"}
    assert written["summary"] == SKILLS["mcp/github"]["summary"]  # kept
    assert written["updatedAt"] == "2026-08-29T12:00:00+00:00"


def test_an_unchanged_reply_re_verifies_and_a_bad_one_skips_only_its_skill(tmp_path: Path) -> None:
    agent = stale_agent(tmp_path / "agent", 2)
    library = open_library(agent)
    replies = PastedReplies(['{"changed": "yes"}', '{"changed": false, "content": "", "notes": "fine"}'])
    plan = run_dream(library, RunOptions(passes=[DreamPass.MCP_REFRESH], now=NOW,
                                         mcp_surfaces=surfaces(github="1.5.0")), replies)
    statuses = [r.status for r in plan.passes]
    assert statuses == [PassStatus.FAILED, PassStatus.OK]
    (proposal,) = plan.proposals
    assert proposal.title.startswith("Re-verify") and proposal.record.content == "# T0\n\nCall old_tool_0."


def test_without_surfaces_the_pass_is_skipped_and_64e82cc_has_no_such_pass(tmp_path: Path) -> None:
    agent = stale_agent(tmp_path / "agent", 1)
    plan = run_dream(open_library(agent), RunOptions(passes=[DreamPass.MCP_REFRESH], now=NOW),
                     PastedReplies([]))
    assert [(r.dream_pass, r.status) for r in plan.passes] == [(DreamPass.MCP_REFRESH, PassStatus.SKIPPED)]
    from rockskills_gui.core.library.open import OpenOptions
    old = open_library(agent, OpenOptions(format="rockbot-64e82cc"))
    assert run_dream(old, RunOptions(passes=[DreamPass.MCP_REFRESH], now=NOW,
                                     mcp_surfaces=surfaces(github="1.5.0")), PastedReplies([])).passes == []


def test_the_surfaces_file() -> None:
    found = read_surfaces(json.dumps({"servers": [{"ServerName": "GitHub", "version": "2", "tools": "t"}]})
                          .encode())
    assert found["GITHUB"].summary.version == "2" and found["GITHUB"].text == "t"
    with pytest.raises(ValueError, match="servers\\[0\\]: 'serverName' is required"):
        read_surfaces(b'{"servers": [{}]}')


# ---------------------------------------------------------------- the schedule


def test_the_next_dream_is_the_next_half_day_for_current_and_unknown_for_64e82cc() -> None:
    schedule = ROCKBOT_CURRENT.curation.schedule
    assert next_dream(schedule, NOW) == Timestamp.parse("2026-08-30T00:00:00+00:00")  # now excluded
    assert next_dream(schedule, NOW.add_days(-0.25)) == NOW
    assert next_dream_hint(schedule, NOW).startswith("next dream: 2026-08-30 00:00 UTC (every 12 hours")
    assert next_dream(ROCKBOT_64E82CC.curation.schedule, NOW) is None
    assert "then every 4 hours" in next_dream_hint(ROCKBOT_64E82CC.curation.schedule, NOW)


# ---------------------------------------------------------------- the consolidation prompt


def test_the_consolidation_prompt_of_a_current_agent(tmp_path: Path) -> None:
    # DreamService.BuildSkillConsolidationUserMessage @ 150a84c: the attached annotation after the
    # sparse one, no 'mcp/*' prefix cluster, the namespaced-singleton paragraph last.
    from rockskills_gui.core.dream.run import prompt_for

    library = open_library(make_rules_agent(tmp_path / "agent"))
    prompt = prompt_for(library, DreamPass.CONSOLIDATE, NOW).user
    assert prompt.endswith(
        "\nConstraints \u2014 namespaced-singleton prefixes:\nThe following skill name prefix(es) are "
        "namespaced bindings to live external entities: 'mcp/*'. Each immediate suffix is a 1:1 binding "
        "(e.g. 'mcp/{server-name}' refers to a specific MCP server). Do NOT merge skills across distinct "
        "suffixes \u2014 'mcp/calendar-mcp' and 'mcp/ms365' must remain separate, and a sub-skill of one "
        "('mcp/ms365/calendar-tools') must never be merged with a sub-skill or canonical entry of another. "
        "Do NOT replace these prefixes with an abstract parent guide. Within a single suffix's namespace "
        "(e.g. 'mcp/calendar-mcp/*'), normal semantic-overlap merging applies \u2014 duplicate sub-skills "
        "covering the same tool may be merged, but sub-skills covering distinct functional areas of a "
        "large server should be left alone.\n")
    assert "- 'email/*': email/digest, email/send, email/triage\n" in prompt and "- 'mcp/*'" not in prompt
    assert ("[NAME:email/send] [usage: 0x in last 30d] [sparse-content: may need examples or steps] "
            "[attached: send.py (Python) \u2014 Sends the message; template.md (Markdown) \u2014 The "
            "message template  ] summary: Send email messages to the team\n") in prompt
    from rockskills_gui.core.library.open import OpenOptions
    old = prompt_for(open_library(library.agent_dir, OpenOptions(format="rockbot-64e82cc")),
                     DreamPass.CONSOLIDATE, NOW).user
    assert "Constraints" not in old and "[attached:" not in old and "- 'mcp/*'" in old
