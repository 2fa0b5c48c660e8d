"""``rockskills trigger-eval`` end to end against a scripted chat-completions server: the field's
file, ``--json``, the exit code, snapshots and compare, the API key, usage errors."""

from __future__ import annotations

import functools
import json
import os
import shutil
from pathlib import Path

import pytest

from rockskills_gui.cli import main
from tests.conftest import SHARED
from tests.core.llm_server import activate, by_query, error, scripted_server

KEY = "sk-cli-trigger-0123456789"
FIELD = (SHARED / "corpora" / "anthropics-claude-plugins-official" / "plugins" / "math-olympiad"
         / "skills" / "math-olympiad")


@functools.cache
def field_rows() -> list[dict]:
    return json.loads((FIELD / "evals" / "trigger_eval.json").read_text(encoding="utf-8"))


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    shutil.copytree(FIELD, root / "skills" / "math-olympiad")
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    (root / "skills" / "pdf").mkdir()
    (root / "skills" / "pdf" / "SKILL.md").write_text("---\nname: pdf\ndescription: PDF files.\n---\n\nB\n")
    return root


def field_file(lib: Path) -> str:
    return str(lib / "skills" / "math-olympiad" / "evals" / "trigger_eval.json")


def answers(wrong: int = 0) -> dict:
    """The model fires math-olympiad for every should-trigger row and nothing for near misses,
    except the first ``wrong`` should-trigger rows, where it fires pdf."""
    script = {r["query"]: [activate("math-olympiad" if r["should_trigger"] else None)] for r in field_rows()}
    for r in [r for r in field_rows() if r["should_trigger"]][:wrong]:
        script[r["query"]] = [activate("pdf")]
    return script


def run(lib: Path, url: str, *extra: str) -> int:
    return main(["trigger-eval", str(lib), field_file(lib), "--base-url", url, "--model", "test-model",
                 "--retries", "0", *extra])


def test_a_field_file_runs_end_to_end_and_a_failing_row_exits_1(lib: Path, capsys) -> None:
    with scripted_server() as server:
        server.responder = by_query(answers(wrong=1))
        assert run(lib, server.base_url, "--json") == 1
        assert len(server.requests) == 60
    out = json.loads(capsys.readouterr().out)
    first = out["rows"][0]
    assert {k: first[k] for k in ("query", "should_trigger", "trigger_rate", "pass")} == {
        "query": field_rows()[0]["query"], "should_trigger": True, "trigger_rate": 0.0, "pass": False}
    assert all(r["pass"] for r in out["rows"][1:]) and len(out["rows"]) == 20
    (skill,) = out["skills"]
    assert skill["skill"] == "math-olympiad"
    assert (skill["precision"], skill["recall"]) == (1.0, pytest.approx(27 / 30))
    assert out["confusion"]["instead"] == [{"skill": "math-olympiad", "fired": "pdf", "runs": 3,
                                            "queries": [field_rows()[0]["query"]]}]
    assert out["summary"] == {"total": 20, "passed": 19, "failed": 1, "not_run": 0}


def test_all_rows_passing_exits_0_and_the_text_report(lib: Path, capsys) -> None:
    with scripted_server() as server:
        server.responder = by_query(answers())
        assert run(lib, server.base_url, "--runs", "2") == 0
    captured = capsys.readouterr()
    assert "math-olympiad: precision 1.00, recall 1.00" in captured.out
    assert "20 rows: 20 pass, 0 fail" in captured.out
    assert "estimate: 40 requests to send (0 of 40 cached)" in captured.err


def test_the_key_comes_from_the_environment_and_is_written_nowhere(
        lib: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ROCKSKILLS_API_KEY", KEY)
    with scripted_server() as server:
        server.responder = by_query(answers())
        assert run(lib, server.base_url, "--snapshot", "s1", "--runs", "1") == 0
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}
    written = [p for base in (lib, Path(os.environ["ROCKSKILLS_CACHE_DIR"]),
                              Path(os.environ["ROCKSKILLS_CONFIG_DIR"])) if base.exists()
               for p in base.rglob("*") if p.is_file()]
    assert (lib / "recall-tests" / "trigger-snapshots" / "s1.json") in written
    assert any(p.suffix == ".sqlite3" for p in written)
    assert not [p for p in written if KEY.encode() in p.read_bytes()]


def test_snapshot_then_compare_exits_1_on_a_regression(lib: Path, capsys) -> None:
    with scripted_server() as server:
        server.responder = by_query(answers())
        assert run(lib, server.base_url, "--snapshot", "good") == 0
        server.responder = by_query(answers(wrong=2))
        assert run(lib, server.base_url, "--snapshot", "bad", "--no-cache") == 1
        capsys.readouterr()
        assert run(lib, server.base_url, "--compare", "good", "bad", "--json") == 1
        diff = json.loads(capsys.readouterr().out)
        assert diff["regressed"] == 2 and diff["fixed"] == 0
        assert [r["query"] for r in diff["rows"] if r["regressed"]] == [r["query"] for r in field_rows()[:2]]
        assert main(["trigger-eval", str(lib), "--compare", "bad", "good"]) == 0
        assert "2 fixed" in capsys.readouterr().out
        sent = len(server.requests)
        assert run(lib, server.base_url, "--compare", "good", "now") == 0  # now: from the cache
        assert len(server.requests) == sent


def test_estimate_sends_nothing(lib: Path, capsys) -> None:
    with scripted_server() as server:
        server.responder = by_query(answers())
        assert run(lib, server.base_url, "--estimate") == 0
        assert server.requests == []
    assert "60 requests to send" in capsys.readouterr().err


def test_an_incomplete_run_exits_1(lib: Path, capsys) -> None:
    with scripted_server() as server:
        server.responder = lambda body: error(404, "model not found")
        assert run(lib, server.base_url) == 1
    assert "stopped: request refused (404): model not found" in capsys.readouterr().err


def test_usage_errors_exit_2(lib: Path, tmp_path: Path, capsys) -> None:
    loose = tmp_path / "trigger-evals.json"
    loose.write_text(json.dumps(field_rows()[:2]))
    url = "http://127.0.0.1:9/v1"
    assert main(["trigger-eval", str(lib), str(loose), "--base-url", url, "--model", "m"]) == 2
    assert "give --skill NAME" in capsys.readouterr().err
    assert main(["trigger-eval", str(lib), str(loose), "--skill", "nope", "--base-url", url,
                 "--model", "m"]) == 2
    assert "no such skill" in capsys.readouterr().err
    assert main(["trigger-eval", str(lib), str(loose), "--skill", "PDF", "--agent", "all",
                 "--base-url", url, "--model", "m"]) == 2
    assert "not 'all'" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('[{"query": "q", "should_trigger": 1}]')
    assert main(["trigger-eval", str(lib), str(bad), "--skill", "pdf", "--base-url", url,
                 "--model", "m"]) == 2
    assert 'row 1: "should_trigger" must be true or false' in capsys.readouterr().err
    assert main(["trigger-eval", str(lib), str(loose), "--skill", "pdf"]) == 2
    assert "give --base-url URL and --model M" in capsys.readouterr().err


def test_import_keeps_the_file_beside_the_query_sets(lib: Path, capsys) -> None:
    with scripted_server() as server:
        server.responder = by_query(answers())
        assert run(lib, server.base_url, "--import", "--runs", "1") == 0
    kept = lib / "recall-tests" / "trigger-evals" / "math-olympiad.json"
    assert kept.read_bytes() == Path(field_file(lib)).read_bytes()
