"""``rockskills dream | apply | undo`` as real processes, against a real local LLM server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXPECTED, NOW_TEXT, REPO, tree_hashes
from tests.core.llm_server import error, ok, scripted_server

EXAMPLE = json.loads((EXPECTED / "apply-consolidation-example.json").read_text(encoding="utf-8"))
SAVED = (EXPECTED / "apply-consolidation-example.meetings-plan-and-schedule.json").read_bytes()


def run(*args: str | Path, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("ROCKSKILLS_API_KEY", None)
    if key:
        env["ROCKSKILLS_API_KEY"] = key
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, check=False, text=True, encoding="utf-8", timeout=120)


def test_dream_apply_undo_round_trip(agent_copy: Path, tmp_path: Path) -> None:
    plan_path = tmp_path / "plan.json"
    original = tree_hashes(agent_copy / "skills")
    with scripted_server() as server:
        server.queue(ok(json.dumps(EXAMPLE["llm_result"])))
        result = run("dream", agent_copy, "--passes", "consolidate", "--base-url", server.base_url,
                     "--model", "m", "--now", NOW_TEXT, "--plan-out", plan_path, key="sk-cli-secret")
        auth = server.requests[0].headers["authorization"]
    assert result.returncode == 0, result.stderr
    assert auth == "Bearer sk-cli-secret"
    assert "sk-cli-secret" not in plan_path.read_text() + result.stdout + result.stderr
    assert "+ c2   merge    Merge 'plan-meeting', 'schedule-meeting' into" in result.stdout
    assert tree_hashes(agent_copy / "skills") == original  # dream never writes the library
    refused = run("apply", agent_copy, plan_path, "--accept", "c3")
    assert refused.returncode == 1 and "c3 depends on c2" in refused.stderr
    applied = run("apply", agent_copy, plan_path, "--accept-all")
    assert applied.returncode == 0, applied.stderr
    assert (agent_copy / "skills" / "meetings" / "plan-and-schedule.json").read_bytes() == SAVED
    undone = run("undo", agent_copy)
    assert undone.returncode == 0 and undone.stdout.startswith("undid ")
    assert tree_hashes(agent_copy / "skills") == original
    assert run("undo", agent_copy).returncode == 1


def test_failures_exit_1_and_keep_the_raw_reply(agent_copy: Path, tmp_path: Path) -> None:
    plan_path = tmp_path / "plan.json"
    with scripted_server() as server:
        server.queue(error(401, "bad key"))
        result = run("dream", agent_copy, "--passes", "gap", "--base-url", server.base_url, "--model",
                     "m", "--now", NOW_TEXT, "--plan-out", plan_path, "--retries", "0")
    assert result.returncode == 1
    plan = json.loads(plan_path.read_text())
    assert plan["passes"][0]["status"] == "failed" and "auth" in plan["passes"][0]["reason"]


def test_offline_dream_and_usage_errors(agent_copy: Path, tmp_path: Path) -> None:
    plan_path = tmp_path / "offline.json"
    result = run("dream", agent_copy, "--offline", "--now", NOW_TEXT, "--plan-out", plan_path,
                 "--protect", "patrol/")
    assert result.returncode == 0, result.stderr
    assert json.loads(plan_path.read_text())["protectedPrefixes"] == ["patrol/"]
    assert run("dream", agent_copy, "--now", NOW_TEXT, "--plan-out", plan_path).returncode == 2
    assert run("dream", agent_copy, "--offline", "--plan-out",
               agent_copy / "skills" / "plan.json").returncode == 2
    assert run("dream", agent_copy, "--prompt-only").returncode == 2
    stale = agent_copy / "skills" / "write-report.json"
    stale.write_bytes(stale.read_bytes() + b" ")
    refused = run("apply", agent_copy, plan_path, "--accept-all")
    assert refused.returncode == 1 and "changed skills/write-report.json" in refused.stderr
    assert run("apply", agent_copy, plan_path, "--accept-all", "--recheck").returncode == 0


@pytest.mark.parametrize(("kind", "name"), [("create", "MCP/EMAIL"), ("create", "mcp/email"),
                                            ("merge", "Write-Report"), ("see-also", "MCP/EMAIL")])
def test_a_hand_edited_plan_never_saves_over_a_skill_it_does_not_name(agent_copy: Path, tmp_path: Path,
                                                                      kind: str, name: str) -> None:
    """Issue 35 item 11: a proposal's saved name edited to an existing skill's, in any case, is
    blocked at apply (RockBot's names are case-insensitive): nothing is written."""
    plan_path = tmp_path / "plan.json"
    assert run("dream", agent_copy, "--offline", "--now", NOW_TEXT, "--plan-out", plan_path).returncode == 0
    plan = json.loads(plan_path.read_text())
    proposal = next(p for p in plan["proposals"] if p["kind"] == kind)
    proposal["record"]["name"] = name
    plan_path.write_text(json.dumps(plan))
    before = tree_hashes(agent_copy / "skills")
    accepted = [arg for pid in [proposal["id"], *proposal.get("dependsOn", [])]
                for arg in ("--accept", pid)]
    result = run("apply", agent_copy, plan_path, *accepted)
    assert result.returncode == 1, result.stdout
    assert "over the existing skill" in result.stderr and "nothing written" in result.stderr
    assert tree_hashes(agent_copy / "skills") == before


def test_writes_through_a_symlinked_skills_folder_need_allow_link_target(agent_copy: Path,
                                                                        tmp_path: Path) -> None:
    """Issue 35 item 9: ``skills/`` linked outside the agent folder. Reads follow the link; apply
    is refused until the target is allowed; an apply killed mid-way is finished by the next open
    that allows it (before that, every skill is there, old or new, and the note says how)."""
    import shutil

    outside = tmp_path / "shared-skills"
    shutil.move(agent_copy / "skills", outside)
    (agent_copy / "skills").symlink_to(outside, target_is_directory=True)
    plan_path = tmp_path / "plan.json"
    assert run("dream", agent_copy, "--offline", "--now", NOW_TEXT, "--plan-out", plan_path).returncode == 0
    before = tree_hashes(outside)
    refused = run("apply", agent_copy, plan_path, "--accept-all")
    assert refused.returncode == 1 and f"--allow-link-target {outside}" in refused.stderr
    assert tree_hashes(outside) == before
    env = {**os.environ, "ROCKSKILLS_CRASH_AFTER": "40"}
    killed = subprocess.run([sys.executable, "-m", "rockskills_gui", "apply", str(agent_copy),
                             str(plan_path), "--accept-all", "--allow-link-target", str(outside)],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9
    listed = run("list", agent_copy)
    assert listed.returncode == 0 and f"--allow-link-target {outside}" in listed.stderr
    finished = run("list", agent_copy, "--allow-link-target", outside)
    assert "completed an interrupted change" in finished.stderr, finished.stderr
    assert run("undo", agent_copy, "--allow-link-target", outside).returncode == 0
    assert tree_hashes(outside) == before
