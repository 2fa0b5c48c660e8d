"""The API key in other encodings (issue 35, item 17), through the real ``rockskills dream`` and
``apply`` against a real chat-completions server on 127.0.0.1 that echoes the key it was sent:
upper-case, reversed, hex, base64 (also inside a longer base64 text at each byte alignment, as
``Authorization: Basic`` of ``user:key``), URL- and JSON-escaped, in replies, skill contents,
see-also names and error messages. No form may reach the plan, the applied skills, the journal,
the log or the output (:func:`attacks_dream.secret_leaks` decodes hex and base64 itself)."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rockskills_gui.core.app.logs import configure_logging, remove_logging
from tests.adversarial.attacks_dream import (
    DEMO,
    encodings,
    environment,
    run_cli,
    secret_leaks,
    unreadable,
)
from tests.adversarial.attacks_dream import _dream as dream
from tests.core.llm_server import ScriptedServer, Step, error, ok, scripted_server

KEY = "sk-proj-Kx9/Zq+Lw3Nv5Tb7Yc9Xd=="


def echoing(server: ScriptedServer, form: Callable[[str], str]) -> list[Callable[[dict[str, Any]], Step]]:
    """Gap, consolidation and optimization replies that quote the key they were sent."""

    def sent() -> str:
        return form(server.requests[-1].headers.get("authorization", "").removeprefix("Bearer "))

    def gap(_body: dict[str, Any]) -> Step:
        text = sent()
        return ok(f"Authorization: {text}\n" + json.dumps({"toSave": [
            {"name": "echo/gap", "summary": f"uses {text}", "content": f"Call with {text}."}]}))

    def consolidate(_body: dict[str, Any]) -> Step:
        text = sent()
        return ok(json.dumps({"toDelete": [], "toSave": [
            {"name": "echo/merged", "summary": "s", "content": f"debug: {text}", "seeAlso": [text]}]}))

    def optimize(_body: dict[str, Any]) -> Step:
        return error(500, f"upstream failed for {sent()}")

    return [gap, consolidate, optimize]


@pytest.mark.parametrize("name", [n for n in encodings(KEY) if n != "raw"])
def test_the_cli_stores_the_key_in_no_encoding(tmp_path: Path, name: str) -> None:
    agent = tmp_path / "agent"
    shutil.copytree(DEMO, agent)
    plan = tmp_path / "plan.json"
    configure_logging(lambda: [KEY], path=tmp_path / "log" / "rockskills.log")
    try:
        with scripted_server() as server, environment(tmp_path, KEY):
            server.queue(*echoing(server, lambda token: encodings(token)[name]))
            runs = [dream(server, agent, plan, "gap,consolidate,optimize")]
            sent = [r.headers.get("authorization") for r in server.requests]
            saved = json.loads(plan.read_text(encoding="utf-8"))
            for record in saved["passes"]:  # careless code logging what it got
                logging.getLogger("rockskills.test").warning("reply: %s %s", record.get("rawReply"),
                                                             record.get("errors"))
            runs.append(run_cli("apply", agent, plan, "--accept-all"))
    finally:
        remove_logging()
    assert sent == [f"Bearer {KEY}"] * 3  # the key went out, and came back in each reply
    assert secret_leaks(tmp_path, [r.out + r.err for r in runs], KEY) == []
    assert [p["status"] for p in saved["passes"]] == ["ok", "ok", "failed"], saved["passes"]
    assert "[redacted]" in saved["passes"][0]["rawReply"]
    assert runs[1].code == 0 and (agent / "skills" / "echo" / "gap.json").is_file()
    assert [unreadable(r) for r in runs] == [None, None]
