"""``recall``, ``simulate`` and ``recall-test`` handlers, run in-process through their parser."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.commands.recall import register
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import utf16_len
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.conftest import AGENT, EXPECTED, REPO, tree_hashes

DEMO = json.loads((EXPECTED / "recall-demo.json").read_text("utf-8"))


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="rockskills")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args([str(a) for a in argv])
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_recall_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "recall", AGENT, "plan a meeting with the finance team")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["1", "12.265478912975087", "plan-meeting"]
    assert len(lines) == 5
    code, out, _ = run(capsys, "recall", AGENT, "plan meeting", "--explain", "--top", "1")
    assert code == 0
    assert 'phrase "plan meeting"' in out and "term   plan" in out
    code, out, _ = run(capsys, "recall", AGENT, "xyzzy")
    assert (code, out) == (0, "(no skill matches)\n")


def test_recall_json_has_exact_scores_and_contributions(
        capsys: pytest.CaptureFixture[str]) -> None:
    query = DEMO[0]["user"]
    code, out, _ = run(capsys, "recall", AGENT, query, "--json", "--top", "0")
    assert code == 0
    data = json.loads(out)
    assert data["query"] == query
    expected = SkillRecall(RockBotLibrary.open(AGENT).skills()).search(query, top=None)
    assert [(r["rank"], r["name"], r["score"]) for r in data["results"]] == \
        [(h.rank, h.name, h.score) for h in expected]
    for result in data["results"]:
        total = 0.0
        for part in [*result["terms"].values(), *result["phrases"].values()]:
            assert set(part) == {"df", "idf", "tf", "tfn", "contribution"}
            total += part["contribution"]
        assert total == result["score"]


def test_queries_file_one_json_line_per_query(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(t["user"] for t in DEMO) + "\n\n", "utf-8")
    code, out, _ = run(capsys, "recall", AGENT, "--queries-file", queries, "--top", "5",
                       "--json")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(DEMO) + 1  # the blank line is an (empty) query too
    for line, turn in zip(lines, DEMO, strict=False):
        data = json.loads(line)
        assert data["query"] == turn["user"]
        assert [r["name"] for r in data["results"]] == [n for n, _ in turn["bm25_top5"]]
    assert json.loads(lines[-1]) == {"query": "", "results": []}


def test_queries_file_json_has_ranks_names_and_scores_and_explain_adds_contributions(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(t["user"] for t in DEMO[:3]) + "\n", "utf-8")
    expected = SkillRecall(RockBotLibrary.open(AGENT).skills())
    code, out, _ = run(capsys, "recall", AGENT, "--queries-file", queries, "--top", "3", "--json")
    assert code == 0
    for line, turn in zip(out.splitlines(), DEMO[:3], strict=True):
        results = json.loads(line)["results"]
        assert results == [{"rank": h.rank, "name": h.name, "score": h.score}
                           for h in expected.search(turn["user"], top=3)]
    code, out, _ = run(capsys, "recall", AGENT, "--queries-file", queries, "--top", "3", "--json",
                       "--explain")
    assert code == 0
    for line in out.splitlines():
        for result in json.loads(line)["results"]:
            total = 0.0
            for part in [*result["terms"].values(), *result["phrases"].values()]:
                total += part["contribution"]
            assert total == result["score"]


def test_recall_keeps_its_index_beside_the_scan_cache_and_follows_edits(
        capsys: pytest.CaptureFixture[str], agent_copy: Path, tmp_path: Path) -> None:
    """The batch CLI keeps the library's recall index in the user's cache folder (the GUI's, next
    to the scan cache); a later run whose library changed ranks what a fresh build ranks."""
    queries = tmp_path / "queries.txt"
    queries.write_text("plan a meeting\nquarterly budget spreadsheet\nsend an email\n", "utf-8")

    def fresh() -> list[list[dict[str, object]]]:
        recall = SkillRecall(RockBotLibrary.open(agent_copy).skills())
        return [[{"rank": h.rank, "name": h.name, "score": h.score} for h in recall.search(q, top=5)]
                for q in queries.read_text("utf-8").splitlines()]

    def ranked() -> list[list[dict[str, object]]]:
        code, out, _ = run(capsys, "recall", agent_copy, "--queries-file", queries, "--top", "5",
                           "--json")
        assert code == 0
        return [json.loads(line)["results"] for line in out.splitlines()]

    before = tree_hashes(agent_copy)
    assert ranked() == fresh()
    kept = list((Path(os.environ["ROCKSKILLS_CACHE_DIR"]) / "scan").glob("recall-*.bin"))
    assert len(kept) == 1 and tree_hashes(agent_copy) == before  # nothing written in the library
    assert ranked() == fresh()  # from the kept index
    path = agent_copy / "skills" / "plan-meeting.json"
    data = json.loads(path.read_text("utf-8"))
    data["summary"] = "Quarterly budget spreadsheet review with finance"
    path.write_text(json.dumps(data, indent=2), "utf-8")
    (agent_copy / "skills" / "schedule-meeting.json").unlink()
    changed = fresh()
    assert changed[1][0]["name"] == "plan-meeting"
    assert ranked() == changed


def test_recall_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "recall", AGENT)
    assert code == 2 and "QUERY or --queries-file" in err
    code, _, err = run(capsys, "recall", AGENT, "q", "--queries-file", tmp_path / "x")
    assert code == 2
    code, _, err = run(capsys, "recall", AGENT, "--queries-file", tmp_path / "missing.txt")
    assert code == 2 and "missing.txt" in err
    code, out, err = run(capsys, "recall", tmp_path / "nowhere", "q")
    assert code == 2 and out == "" and err.count("\n") == 1 and "nowhere" in err
    (tmp_path / "plain").mkdir()
    code, _, err = run(capsys, "simulate", tmp_path / "plain", "--turn", "x")
    assert code == 2 and "not a RockBot library" in err


def test_simulate_json_reproduces_the_recall_demo(capsys: pytest.CaptureFixture[str]) -> None:
    argv: list[str | Path] = ["simulate", AGENT, "--json"]
    for turn in DEMO:
        argv += ["--turn", turn["user"]]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    turns = json.loads(out)["turns"]
    lib = RockBotLibrary.open(AGENT)
    for got, expected in zip(turns, DEMO, strict=True):
        assert [n for n, _ in got["top5"]] == [n for n, _ in expected["bm25_top5"]]
        shown = []
        for message in got["messages"]:
            if message.startswith("Skill: "):
                head, _, content = message.partition("\n")
                skill = lib.get(head.removeprefix("Skill: "))
                assert skill is not None and content == skill.content
                message = f"{head}\\n<content: {utf16_len(content)} UTF-16 units>"
            shown.append(message)
        assert shown == expected["injected_system_messages"]
        assert got["injected"] == [m.split("\n")[0].removeprefix("Skill: ")
                                   for m in got["messages"] if m.startswith("Skill: ")]
    assert turns[0]["index"] is not None and turns[1]["index"] is None
    assert turns[0]["seeAlso"] == ["mcp/calendar"]


def test_simulate_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", AGENT, "--turn", DEMO[0]["user"], "--turn",
                       DEMO[1]["user"])
    assert code == 0
    assert "=== turn 1: Search my inbox" in out
    assert "Related skills (see-also): mcp/calendar\n" in out
    assert "=== turn 2" in out and "(no skill messages)" in out


def write_set(path: Path, queries: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": "demo", "queries": queries}), "utf-8")
    return path


def test_recall_test_passes_and_fails(capsys: pytest.CaptureFixture[str],
                                      agent_copy: Path) -> None:
    before = tree_hashes(agent_copy / "skills")
    good = write_set(agent_copy / "recall-tests" / "good.json", [
        {"query": "plan a meeting with the finance team", "expected": ["plan-meeting"]},
        {"query": "Check my calendar for Thursday", "expected": ["MCP/Calendar"]},
        {"query": "summarize this arxiv paper", "expected": ["research/summarize-paper",
                                                            "research/summarize-article"]},
    ])
    code, out, _ = run(capsys, "recall-test", agent_copy, good)
    assert code == 0
    assert "hit@1  1.000  (3/3)" in out and "MRR    1.000" in out

    bad = write_set(agent_copy / "recall-tests" / "bad.json", [
        {"query": "plan a meeting with the finance team", "expected": ["plan-meeting"]},
        {"query": "Check my calendar for Thursday", "expected": ["subagent"]},
        {"query": "weather forecast", "expected": ["mcp/weather", "no-such-skill"]},
        {"query": "Check my calendar", "expected": ["mcp/weather"]},
    ])
    code, out, _ = run(capsys, "recall-test", agent_copy, bad)
    assert code == 1
    assert "hit@1  0.500  (2/4)" in out and "hit@5  0.750  (3/4)" in out
    assert "failing (2):" in out and "'weather forecast'" in out
    assert "not in the library: no-such-skill" in out
    code, out, _ = run(capsys, "recall-test", agent_copy, bad, "--json")
    report = json.loads(out)
    assert code == 1 and report["mrr"] == pytest.approx((1 + 1 / 4 + 1 + 0) / 4)
    assert [f["query"] for f in report["failing"]] == ["weather forecast", "Check my calendar"]
    assert tree_hashes(agent_copy / "skills") == before


def test_recall_test_refuses_sets_inside_skills_and_bad_files(
        capsys: pytest.CaptureFixture[str], agent_copy: Path) -> None:
    inside = write_set(agent_copy / "skills" / "tests" / "set.json",
                       [{"query": "x", "expected": ["a2a"]}])
    code, _, err = run(capsys, "recall-test", agent_copy, inside)
    assert code == 2 and "not inside skills/" in err
    broken = agent_copy / "broken.json"
    broken.write_text('{"name": "x", "queries": [{"query": "q", "expected": []}]}', "utf-8")
    code, _, err = run(capsys, "recall-test", agent_copy, broken)
    assert code == 2 and "not a query set" in err and err.count("\n") == 1


def test_entry_point_runs_recall() -> None:
    result = subprocess.run([sys.executable, "-m", "rockskills_gui", "recall", str(AGENT),
                             "send an email", "--json"], cwd=REPO, capture_output=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["results"][0]["name"] == "mcp/email"
