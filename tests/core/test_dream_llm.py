"""The LLM client and the whole run against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from rockskills_gui.core.dream.llm import (
    CONNECTION_RETRY_BUDGET,
    Endpoint,
    LlmAuthError,
    LlmCancelled,
    LlmClient,
    LlmConnectionError,
    LlmRateLimitError,
    LlmTimeoutError,
)
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import PassStatus
from rockskills_gui.core.dream.run import RunOptions, run_dream
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from tests.conftest import EXPECTED, NOW_TEXT, tree_hashes
from tests.core.llm_server import Step, error, ok, refuses_json_mode, scripted_server

NOW = Timestamp.parse(NOW_TEXT)
EXAMPLE = json.loads((EXPECTED / "apply-consolidation-example.json").read_text(encoding="utf-8"))
GOOD = json.dumps(EXAMPLE["llm_result"])
KEY = "sk-test-0123456789abcdef"


def client(base_url: str, **kw: object) -> LlmClient:
    endpoint = Endpoint(base_url, "test-model", timeout=kw.pop("timeout", 5.0),  # type: ignore[arg-type]
                        retries=kw.pop("retries", 0))  # type: ignore[arg-type]
    return LlmClient(endpoint, KEY)


def consolidate(server_url: str, library: RockBotLibrary, **kw: object):
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW)
    return run_dream(library, options, client(server_url, **kw))


def test_request_is_rockbots_two_messages_in_json_mode_with_the_key() -> None:
    with scripted_server() as server:
        server.queue(ok('{"toSave": []}'))
        completion = client(server.base_url).complete("SYSTEM", "USER")
        request = server.requests[0]
    assert completion.text == '{"toSave": []}' and completion.json_mode
    assert request.path == "/v1/chat/completions"
    assert request.body["messages"] == [{"role": "system", "content": "SYSTEM"},
                                        {"role": "user", "content": "USER"}]
    assert request.body["response_format"] == {"type": "json_object"}
    assert "temperature" not in request.body and "tools" not in request.body
    assert request.headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("text", [
    GOOD,
    f"```json\n{GOOD}\n```",
    f"<think>\nMerging the {{meeting}} skills...\n</think>\nHere is the result:\n{GOOD}\nDone.",
], ids=["valid", "fenced", "think-and-prose"])
def test_usable_replies_become_the_same_proposals(agent_copy, text: str) -> None:
    library = RockBotLibrary.open(agent_copy)
    with scripted_server() as server:
        server.queue(ok(text))
        plan = consolidate(server.base_url, library)
    record = plan.passes[0]
    assert record.status is PassStatus.OK, record.errors
    assert record.raw_reply == text
    kinds = [(p.kind.value, p.title) for p in plan.proposals]
    assert kinds == [
        ("prune", "Prune 'legacy/fax-sender' (inactive for 18 months)"),
        ("merge", "Merge 'plan-meeting', 'schedule-meeting' into 'meetings/plan-and-schedule'"),
        ("delete", "Delete 'plan-meeting'"),
        ("delete", "Delete 'schedule-meeting'"),
    ]
    assert plan.get("c3").depends_on == ["c2"] and plan.get("c4").depends_on == ["c2"]


@pytest.mark.parametrize("text, expected", [
    ('{"toDelete": ["a"], "toSave": [}', "invalid JSON"),
    ("I could not decide.", "no JSON object"),
    ('{"toDelete": "plan-meeting", "toSave": []}', "toDelete"),
    ('{"skills": []}', "has no 'toDelete' or 'toSave'"),
], ids=["invalid-json", "no-object", "wrong-type", "wrong-schema"])
def test_unusable_replies_fail_with_the_raw_reply_and_apply_nothing(agent_copy, text, expected) -> None:
    library = RockBotLibrary.open(agent_copy)
    before = tree_hashes(agent_copy)
    with scripted_server() as server:
        server.queue(ok(text))
        plan = consolidate(server.base_url, library)
    record = plan.passes[0]
    assert record.status is PassStatus.FAILED
    assert record.raw_reply == text
    assert any(expected in e for e in record.errors), record.errors
    assert [p.kind.value for p in plan.proposals] == ["prune"]  # only RockBot's own prune rule
    assert tree_hashes(agent_copy) == before


def test_guard_violation_is_refused_and_blocked(agent_copy) -> None:
    library = RockBotLibrary.open(agent_copy)
    with scripted_server() as server:
        server.queue(ok(json.dumps(EXAMPLE["guard_example"]["llm_result"])))
        plan = run_dream(library, RunOptions(now=NOW, passes=[DreamPass.CONSOLIDATE,
                                                              DreamPass.OPTIMIZE]),
                         client(server.base_url))
        assert len(server.requests) == 1  # RockBot does not run optimization after a refusal
    assert plan.passes[0].status is PassStatus.REFUSED
    assert plan.passes[1].status is PassStatus.SKIPPED
    delete = plan.get("c2")
    assert delete.deletes == ["write-report"] and delete.blocked
    assert [f.code for f in delete.findings] == ["safety-guard"]


def test_401_is_an_auth_error_without_the_key() -> None:
    with scripted_server() as server:
        server.queue(error(401, f"Incorrect API key provided: {KEY}"))
        with pytest.raises(LlmAuthError) as caught:
            client(server.base_url, retries=2).complete("s", "u")
        assert len(server.requests) == 1  # never retried
    assert KEY not in str(caught.value) and "401" in str(caught.value)


def test_429_then_success_waits_for_retry_after() -> None:
    with scripted_server() as server:
        server.queue(error(429, "slow down", {"Retry-After": "0.3"}), ok('{"toSave": []}'))
        reports = []
        started = time.monotonic()
        completion = client(server.base_url, retries=1).complete("s", "u", progress=reports.append)
        elapsed = time.monotonic() - started
    assert completion.text == '{"toSave": []}' and completion.attempts == 2
    assert elapsed >= 0.3
    assert any(r.phase == "retrying" for r in reports)


def test_429_without_retries_left_fails() -> None:
    with scripted_server() as server:
        server.queue(error(429, "slow down", {"Retry-After": "0"}), error(429, "still"))
        with pytest.raises(LlmRateLimitError):
            client(server.base_url, retries=1).complete("s", "u")


def test_timeout(agent_copy) -> None:
    """A 0.5 s timeout ends the wait for a reply that would come after 30 s (the bound is half
    that: a loaded machine is slow, not 15 s slow)."""
    library = RockBotLibrary.open(agent_copy)
    with scripted_server() as server:
        server.queue(Step(content=GOOD, delay=30.0))
        started = time.monotonic()
        plan = consolidate(server.base_url, library, timeout=0.5)
        assert time.monotonic() - started < 15
    assert plan.passes[0].status is PassStatus.FAILED
    assert plan.passes[0].reason.startswith("timeout")
    with scripted_server() as server:
        server.queue(Step(content=GOOD, delay=30.0))
        with pytest.raises(LlmTimeoutError):
            client(server.base_url, timeout=0.5).complete("s", "u")


def test_server_refusing_response_format_falls_back_to_plain_text() -> None:
    with scripted_server() as server:
        server.queue(refuses_json_mode('{"toSave": []}'), refuses_json_mode('{"toSave": []}'))
        completion = client(server.base_url).complete("s", "u")
        bodies = [r.body for r in server.requests]
    assert completion.text == '{"toSave": []}' and not completion.json_mode
    assert "response_format" in bodies[0] and "response_format" not in bodies[1]
    assert "refused response_format" in completion.notes[0]


def test_cancel_while_waiting_returns_promptly() -> None:
    """Cancelled after 0.3 s, the wait for a reply due after 30 s ends (well before it)."""
    cancel = threading.Event()
    with scripted_server() as server:
        server.queue(Step(content=GOOD, delay=30.0))
        threading.Timer(0.3, cancel.set).start()
        started = time.monotonic()
        with pytest.raises(LlmCancelled):
            client(server.base_url, timeout=60).complete("s", "u", cancel=cancel)
        assert time.monotonic() - started < 15


def test_whole_run_gap_consolidate_optimize_builds_each_prompt_on_the_previous_pass(agent_copy) -> None:
    library = RockBotLibrary.open(agent_copy)
    gap = {"toSave": [{"name": "email/unread-digest", "summary": "Summarize unread emails",
                       "content": "# Unread digest\n1. Search unread with `search_emails`."}]}
    optimize = {"toDelete": [], "toSave": [{"name": "mcp/weather", "summary": "Weather forecasts",
                                            "content": "# Weather\n1. Call `mcp_invoke_tool`.",
                                            "sourceNames": ["mcp/weather"]}]}
    with scripted_server() as server:
        server.queue(ok(json.dumps(gap)), ok(GOOD), ok(json.dumps(optimize)))
        plan = run_dream(library, RunOptions(now=NOW), client(server.base_url))
        prompts = [r.body["messages"][1]["content"] for r in server.requests]
    assert [p.status for p in plan.passes] == [PassStatus.OK] * 3
    assert "email/unread-digest" in prompts[1]  # the gap pass's skill is consolidated too
    assert "[NAME:legacy/fax-sender]" not in prompts[1]  # pruned first
    # optimization sees the library after the merge: the merged sources are gone
    assert "## Skill: plan-meeting\n" not in prompts[2]
    assert "## Skill: schedule-meeting\n" not in prompts[2]
    assert "## Skill: mcp/weather [SPARSE]" in prompts[2]
    ids = [p.id for p in plan.proposals]
    assert ids == ["g1", "c1", "c2", "c3", "c4", "o1"]
    rewrite = plan.get("o1")
    assert rewrite.kind.value == "rewrite" and rewrite.record.created_at == NOW_TEXT
    assert rewrite.record.last_used_at is None


# ---------------------------------------------------------------- unreachable servers (issue 35)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_nothing_listening_on_this_machine_fails_at_once_in_one_sentence() -> None:
    reports: list = []
    with pytest.raises(LlmConnectionError) as caught:
        client(f"http://127.0.0.1:{free_port()}/v1", retries=5).complete("s", "u",
                                                                        progress=reports.append)
    message = str(caught.value)
    assert "connection refused" in message and "is the server running" in message
    assert ".;" not in message and "Connection error." not in message
    assert not any(r.phase == "retrying" for r in reports)  # no retry helps: said at once


def test_an_unreachable_server_is_retried_within_a_short_budget() -> None:
    """A server that accepts and hangs up (not refused): retried, but only for a few seconds."""
    accepted = []
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            accepted.append(1)
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    reports: list = []
    try:
        with pytest.raises(LlmConnectionError) as caught:
            client(f"http://127.0.0.1:{listener.getsockname()[1]}/v1", retries=10).complete(
                "s", "u", progress=reports.append)
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    waits = [r for r in reports if r.phase == "retrying"]
    assert 1 <= len(waits) < 10  # retried, but not ten times
    total = sum(float(r.message.rsplit("retrying in ", 1)[1].split()[0]) for r in waits)
    assert total <= CONNECTION_RETRY_BUDGET
    assert all(".;" not in r.message for r in waits) and ".;" not in str(caught.value)
