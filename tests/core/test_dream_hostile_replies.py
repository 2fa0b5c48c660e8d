"""Hostile replies from a real chat-completions server on 127.0.0.1 (issue 35, item 15): a reply of
50 MB, one over the character limit, 10,000 proposals, JSON nested 100,000 deep, a number of
5,000 digits, a body that is not JSON. Each fails its own pass with one readable sentence; the run
itself finishes with a plan (RockBot's rule then skips the passes after a failed one), nothing
from the reply is proposed, and nothing is written."""

from __future__ import annotations

import json

import pytest

from rockskills_gui.core.dream.llm import MAX_RESPONSE_BYTES, Endpoint, LlmClient
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import PassStatus, ProposalKind
from rockskills_gui.core.dream.reply import MAX_REPLY_CHARS, MAX_REPLY_ITEMS
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from tests.conftest import NOW_TEXT, tree_hashes
from tests.core.llm_server import Step, ok, scripted_server

NOW = Timestamp.parse(NOW_TEXT)


def save(name: str, content: str = "Steps.") -> dict[str, str]:
    return {"name": name, "summary": "s", "content": content}


def hostile_replies() -> dict[str, tuple[Step, str]]:
    """Reply steps by name, with a phrase the pass's failure must hold."""
    return {
        "50 MB": (ok(json.dumps({"toDelete": [], "toSave": [save("big", "a" * 50_000_000)]})),
                  "replies over 2,000,000 characters are refused"),
        "over the character limit": (ok("{" + " " * MAX_REPLY_CHARS + '"toSave": []}'),
                                     "replies over 2,000,000 characters are refused"),
        "10,000 proposals": (ok(json.dumps({"toDelete": [], "toSave": [save(f"gen/s{i}")
                                                                       for i in range(10_000)]})),
                             f"at most {MAX_REPLY_ITEMS:,} are read from one reply"),
        "100,000 deep": (ok('{"toDelete": [], "toSave": [' + "[" * 100_000 + "]" * 100_000 + "]}"),
                         "nested deeper than 64 levels"),
        "5,000 digits": (ok('{"toDelete": [], "toSave": [], "n": ' + "9" * 5_000 + "}"),
                         "a number with more than 4,300 digits"),
        "a text body": (Step(body="not a chat completion"), "not a JSON object"),
    }


@pytest.mark.parametrize("name", list(hostile_replies()))
def test_a_hostile_reply_fails_its_pass_and_the_run_finishes(agent_copy, name: str) -> None:
    step, phrase = hostile_replies()[name]
    library = RockBotLibrary.open(agent_copy)
    before = tree_hashes(agent_copy)
    with scripted_server() as server:
        server.queue(step)
        client = LlmClient(Endpoint(server.base_url, "test-model", timeout=60, retries=0), "sk-hostile-1")
        plan = run_dream(library, RunOptions(now=NOW, passes=[DreamPass.CONSOLIDATE, DreamPass.OPTIMIZE]),
                         client)
        asked = len(server.requests)
    consolidation, optimization = plan.passes
    assert consolidation.status is PassStatus.FAILED, (consolidation.reason, consolidation.errors)
    assert any(phrase in e for e in consolidation.errors), consolidation.errors
    assert all(len(e) < 1_000 and "\n" not in e for e in consolidation.errors)
    assert optimization.status is PassStatus.SKIPPED and asked == 1  # RockBot stops after an error
    assert [p.kind for p in plan.proposals] == [ProposalKind.PRUNE]  # RockBot's own rule, no reply
    assert len(plan.to_bytes()) < 2 * MAX_RESPONSE_BYTES
    assert tree_hashes(agent_copy) == before


def test_the_body_is_not_read_past_the_limit() -> None:
    """A server sending far more than a reply can hold: refused once the limit is passed."""
    with scripted_server() as server:
        server.queue(ok("x" * (MAX_RESPONSE_BYTES + 1)))
        client = LlmClient(Endpoint(server.base_url, "test-model", timeout=60, retries=0))
        with pytest.raises(Exception) as caught:
            client.complete("s", "u")
    assert caught.value.kind == "too-large"  # type: ignore[attr-defined]
    assert "MB; replies over 2,000,000 characters are refused" in str(caught.value)


def test_a_reply_just_under_the_limits_is_used(agent_copy) -> None:
    library = RockBotLibrary.open(agent_copy)
    names = [f"gen/s{i}" for i in range(MAX_REPLY_ITEMS)]
    with scripted_server() as server:
        server.queue(ok(json.dumps({"toSave": [save(n) for n in names]})))
        client = LlmClient(Endpoint(server.base_url, "test-model", timeout=60, retries=0))
        plan = run_dream(library, RunOptions(now=NOW, passes=[DreamPass.GAP]), client)
    assert plan.passes[0].status is PassStatus.OK, plan.passes[0].errors
    assert len(plan.proposals) == MAX_REPLY_ITEMS
