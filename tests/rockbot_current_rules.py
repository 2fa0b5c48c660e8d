"""A current-RockBot agent directory made to exercise each rule of issue 30.

Skills with manifests of every shape the resource tag distinguishes (one type, several types, a
provisional entry among confirmed ones of the same type), see-also chains, an empty summary,
``mcp/{server}`` skills with and without a ``surfaceBaseline`` (different ``recordedAt``), and
one plain skill. Written by :func:`tests.rockbot_current.rockbot_json` (json.dumps, independent of
the app's writer), every property present as a current RockBot writes it (nulls included).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.rockbot_current import UPDATED, baseline, resource, rockbot_json, skill


def _baseline(server: str, recorded: str, version: str = "1.4.0") -> dict[str, Any]:
    return {**baseline(server), "recordedAt": recorded, "version": version}


SKILLS: dict[str, dict[str, Any]] = {s["name"]: s for s in (
    skill("email/send", "Send email messages to the team",
          "# Send email\n\n1. Draft the message.\n2. Send it.",
          manifest=[resource("send.py", "Python", "Sends the message"),
                    resource("template.md", "Markdown", "The message template  ")],
          see_also=["email/triage", "Calendar/Plan"]),
    skill("email/triage", "Triage the email inbox and label each message",
          "# Triage\n\nLabel, archive, flag.", see_also=["calendar/plan", "team/notify"]),
    skill("email/digest", "Summarize email threads into a daily digest",
          "# Digest\n\nCollect threads, summarize.",
          manifest=[resource("digest.wisp", "Wisp", "Builds the digest", provisional=True),
                    resource("shape.json", "JsonSchema", "Digest shape"),
                    resource("older.wisp", "Wisp", "The confirmed wisp"),
                    resource("run.py", "Python", "Runs it")]),
    skill("calendar/plan", "Plan calendar events for the team", "# Plan\n\nFind a slot, invite."),
    skill("team/notify", "Notify the team in chat about email changes", "# Notify\n\nPost in chat."),
    skill("notes/journal", "", "# Journal\n\nWrite the day down."),
    skill("mcp/github", "Use the GitHub MCP server for issues", "# GitHub\n\nCall list_issues.",
          baseline=_baseline("github", "2026-06-01T08:00:00+00:00")),
    skill("mcp/github/issues", "File GitHub issues through the MCP server", "# Issues\n\nCall create_issue.",
          baseline=_baseline("github", "2026-05-01T08:00:00.5+00:00")),
    skill("mcp/github/prs", "Review GitHub pull requests through the MCP server", "# PRs\n\nCall get_pr."),
    skill("mcp/ms365", "Use the ms365 MCP server for mail", "# ms365\n\nCall send_mail.",
          baseline=_baseline("ms365", "2026-04-01T08:00:00+00:00")),
    skill("web/search", "Search the web and summarize the top results", "# Web\n\nSearch, summarize."),
)}


def make_rules_agent(root: Path) -> Path:
    """Write the agent directory at ``root`` (skills only, plus an empty ledger) and return it."""
    for name, record in SKILLS.items():
        path = root / "skills" / (name + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rockbot_json(record))
    (root / "dream-pass-ledger.json").write_text("{}")
    return root


__all__ = ["SKILLS", "UPDATED", "make_rules_agent"]
