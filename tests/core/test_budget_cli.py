"""``rockskills budget``: the advertised text, sizes, invisible skills, limits and exit codes."""

from __future__ import annotations

import json

from rockskills_gui.cli import main
from tests.conftest import AGENT, EXPECTED, SHARED

CORPUS = SHARED / "corpora" / "anthropics-skills"


def test_text_is_the_exact_session_index(capsysbinary) -> None:
    assert main(["budget", str(AGENT), "--text"]) == 0
    assert capsysbinary.readouterr().out == (EXPECTED / "session-index.txt").read_bytes()


def test_json_for_every_profile(capsys) -> None:
    assert main(["budget", str(AGENT), "--profile", "all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    profiles = {p["profile"]: p for p in data["profiles"]}
    assert next(iter(profiles)) == "rockbot" and set(profiles) == {
        "rockbot", "rockbot-current", "agentskills", "picobot", "cortex", "carpenter", "codex", "claude-code",
        "gemini-cli", "copilot", "hermes"}
    rockbot = profiles["rockbot"]
    assert rockbot["chars"] == len(rockbot["text"]) and rockbot["tokens"] == 459
    assert rockbot["invisible"] == [] and rockbot["tokenizer"].startswith("cl100k_base")
    assert profiles["picobot"]["limits"] == {"max_chars": 4000, "max_skills": 32, "max_tokens": None}
    assert {"name": "travel/expense-report", "kind": "filtered",
            "reason": "no description: the client skips it"} in profiles["picobot"]["invisible"]


def test_limits_on_the_command_line_and_fail_on_hidden(capsys) -> None:
    assert main(["budget", str(AGENT), "--max-skills", "20", "--fail-on-hidden"]) == 1
    out = capsys.readouterr().out
    assert "20 of 24 skills listed" in out and "write-report: beyond the first 20 skills listed" in out
    assert "prefix guide" in out
    assert main(["budget", str(AGENT), "--max-skills", "none", "--fail-on-hidden"]) == 0


def test_a_skill_md_corpus_defaults_to_its_own_agent(capsys) -> None:
    assert main(["budget", str(CORPUS), "--json"]) == 0
    (profile,) = json.loads(capsys.readouterr().out)["profiles"]
    assert profile["profile"] == "agentskills" and profile["text"].startswith("<available_skills>")


def test_usage_errors(capsys) -> None:
    assert main(["budget", str(AGENT), "--profile", "nobody"]) == 2
    assert "unknown agent profile" in capsys.readouterr().err
    assert main(["budget", str(AGENT), "--profile", "all", "--text"]) == 2
