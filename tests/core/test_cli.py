"""The ``rockskills`` CLI contract, run as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import AGENT, EXPECTED, NOW_TEXT, REPO, tree_hashes


def run(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO,
                          capture_output=True, check=False)


def test_list_json_is_in_rockbot_list_order() -> None:
    result = run("list", AGENT, "--json")
    assert result.returncode == 0
    items = json.loads(result.stdout)
    assert [i["name"] for i in items] == (EXPECTED / "list-order.txt").read_text().splitlines()
    email = next(i for i in items if i["name"] == "mcp/email")
    assert email["seeAlso"] == ["mcp/calendar", "schedule-meeting"]
    assert email["createdAt"] == "2026-06-10T13:22:04.1175529+00:00"
    assert {"summary", "updatedAt", "lastUsedAt"} <= set(email)


def test_index_outputs_are_byte_exact() -> None:
    assert run("index", AGENT).stdout == (EXPECTED / "session-index.txt").read_bytes()
    out = run("index", AGENT, "--list-skills", "--now", NOW_TEXT).stdout
    assert out == (EXPECTED / "list_skills-output.txt").read_bytes()


def test_convert_round_trip_is_byte_identical(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    result = run("convert", AGENT, dest, "--to", "rockbot")
    assert result.returncode == 0, result.stderr
    assert tree_hashes(dest / "skills") == tree_hashes(AGENT / "skills")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_convert_refuses_a_non_empty_destination(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    result = run("convert", AGENT, dest, "--to", "rockbot")
    assert result.returncode == 2
    assert tree_hashes(dest) == {"keep.txt": tree_hashes(dest)["keep.txt"]}


def test_lint_lists_problems_with_exit_1(agent_copy: Path) -> None:
    (agent_copy / "skills/cut.json").write_text('{"name": "cut", "content": "tru')
    (agent_copy / "skill-usage/blazor-session.jsonl").open("a").write("{not json\n")
    before = tree_hashes(agent_copy)
    result = run("lint", agent_copy, "--json", "--now", NOW_TEXT)
    assert result.returncode == 1
    problems = json.loads(result.stdout)["problems"]
    assert {("skills/cut.json", "parse-error"), ("skill-usage/blazor-session.jsonl", "malformed-lines")} \
        <= {(p["path"], p["kind"]) for p in problems}
    assert all(set(p) == {"path", "kind", "message", "severity", "line"} for p in problems)
    assert all(p["severity"] in ("error", "warning", "info") for p in problems)
    assert tree_hashes(agent_copy) == before


def test_lint_clean_library_exits_0(tmp_path: Path) -> None:
    skills = tmp_path / "agent" / "skills"
    skills.mkdir(parents=True)
    body = "## Steps\\n" + "".join(f"{n}. Check the release branch and tag number {n}.\\n" for n in range(8))
    for name, summary in (("release-notes", "Draft release notes from merged pull requests"),
                          ("backup-database", "Back up the production database to object storage")):
        (skills / f"{name}.json").write_text(
            f'{{"name": "{name}", "summary": "{summary}", "content": "{body}", '
            '"createdAt": "2026-11-01T00:00:00+00:00", "updatedAt": null, "lastUsedAt": null, '
            '"seeAlso": null}')
    result = run("lint", tmp_path / "agent", "--json", "--now", NOW_TEXT)
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout) == {"problems": []}


@pytest.mark.parametrize("command", [["list"], ["lint"], ["index"], ["convert", "{tmp}/o"]])
def test_not_a_library_is_one_line_exit_2_and_writes_nothing(tmp_path: Path,
                                                             command: list[str]) -> None:
    bogus = tmp_path / "not-a-library"
    bogus.mkdir()
    args = [command[0], bogus, *[c.format(tmp=tmp_path) for c in command[1:]]]
    result = run(*args)
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1 and b"not a RockBot library" in result.stderr
    assert result.stdout == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-library"]


def test_usage_error_exits_2() -> None:
    assert run("list").returncode == 2
    assert run("frobnicate", AGENT).returncode == 2


def test_lint_lists_all_five_kinds_of_broken_skill_file(agent_copy: Path) -> None:
    skills = agent_copy / "skills"
    (skills / "cut.json").write_text('{\n  "name": "cut",\n  "summ')
    (skills / "anon.json").write_text('{"summary": "no name", "content": "x"}')
    (skills / "bad name.json").write_text('{"name": "bad name", "content": "x"}')
    (skills / "Web.json").write_text('{"name": "Web", "content": "case twin of web"}')
    (skills / "moved.json").write_text('{"name": "somewhere/else", "content": "x"}')
    before = tree_hashes(agent_copy)
    result = run("lint", agent_copy, "--json")
    assert result.returncode == 1
    load_kinds = {"parse-error", "missing-name", "invalid-name", "case-collision", "name-mismatch"}
    found = {(p["path"], p["kind"]) for p in json.loads(result.stdout)["problems"]
             if p["kind"] in load_kinds}
    assert found == {
        ("skills/cut.json", "parse-error"),
        ("skills/anon.json", "missing-name"),
        ("skills/bad name.json", "invalid-name"),
        ("skills/Web.json", "case-collision"),
        ("skills/web.json", "case-collision"),
        ("skills/moved.json", "name-mismatch"),
    }
    text = run("lint", agent_copy)
    assert text.returncode == 1
    assert all(f"{path}: {kind}" in text.stdout.decode() for path, kind in found)
    assert run("list", agent_copy, "--json").returncode == 0
    assert tree_hashes(agent_copy) == before


def test_lint_notes_are_listed_only_with_all_and_never_fail() -> None:
    quiet = run("lint", AGENT, "--json", "--now", NOW_TEXT)
    assert quiet.returncode == 0 and json.loads(quiet.stdout) == {"problems": []}
    loud = run("lint", AGENT, "--json", "--all", "--now", NOW_TEXT)
    assert loud.returncode == 0
    notes = json.loads(loud.stdout)["problems"]
    assert {p["severity"] for p in notes} == {"info"}
    sparse = {p["path"] for p in notes if p["kind"] == "sparse"}
    assert sparse == {"skills/mcp/weather.json", "skills/write-report.json",
                      "skills/legacy/fax-sender.json"}
