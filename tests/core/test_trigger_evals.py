"""Trigger evals against a real chat-completions server on 127.0.0.1 that answers each query with
scripted tool calls (tests/core/llm_server.py ``by_query``): what a run sends, rates, the
threshold, near misses, precision/recall, confusion, the cache, cancel, invalid replies,
snapshots, and the field's files."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from rockskills_gui.core.budget.agents import AGENT_SKILLS, ROCKBOT
from rockskills_gui.core.budget.compute import compute_budget
from rockskills_gui.core.budget.entries import AdEntry, entries_of
from rockskills_gui.core.budget.limits import Limits
from rockskills_gui.core.evals import snapshots
from rockskills_gui.core.evals.cache import OutcomeCache
from rockskills_gui.core.evals.detect import ACTIVATED, DETAIL_KEPT, ERROR, INVALID, NO_CALL, OTHER_TOOL
from rockskills_gui.core.evals.presentation import (
    ACTIVATE_SKILL,
    CLAUDE_SKILL,
    Presentation,
    present,
    present_library,
)
from rockskills_gui.core.evals.run import EvalOptions, estimate, run_trigger_evals
from rockskills_gui.core.evals.trigger_file import (
    TriggerEvalSet,
    TriggerFileError,
    TriggerRow,
    dump_rows,
    export_file,
    import_file,
    parse_rows,
    read_trigger_file,
    skill_of_file,
    store_path,
)
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.llm.endpoint import Endpoint
from tests.conftest import EXPECTED, SHARED
from tests.core.llm_server import Step, activate, by_query, error, ok, scripted_server, tool_call

KEY = "sk-trigger-0123456789abcdef"
FIELD = (SHARED / "corpora" / "anthropics-claude-plugins-official" / "plugins" / "math-olympiad"
         / "skills" / "math-olympiad")
ENTRIES = [AdEntry("pdf", "Read, fill and merge PDF forms.", "/lib/pdf/SKILL.md"),
           AdEntry("docx", "Write and edit Word documents.", "/lib/docx/SKILL.md"),
           AdEntry("xlsx", "Spreadsheets: formulas and charts.", "/lib/xlsx/SKILL.md")]


def shown(entries: list[AdEntry] = ENTRIES, tool=ACTIVATE_SKILL) -> Presentation:
    return present(entries, AGENT_SKILLS, Limits(), tool)


def endpoint(url: str, **kw) -> Endpoint:
    return Endpoint(url, "test-model", timeout=kw.pop("timeout", 10.0), retries=kw.pop("retries", 0))


def rows(*pairs: tuple[str, bool]) -> tuple[TriggerRow, ...]:
    return tuple(TriggerRow(q, s) for q, s in pairs)


def fires(*names: str | None) -> list[Step]:
    return [activate(n) for n in names]


@pytest.fixture
def skill_lib(tmp_path: Path) -> Path:
    """A SKILL.md library: the field's math-olympiad skill (with its evals/trigger_eval.json) and
    two neighbours."""
    root = tmp_path / "lib"
    shutil.copytree(FIELD, root / "skills" / "math-olympiad")
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    for name, text in (("pdf", "Read, fill and merge PDF forms."), ("code-review", "Review code.")):
        (root / "skills" / name).mkdir(parents=True)
        skill = root / "skills" / name / "SKILL.md"
        skill.write_text(f"---\nname: {name}\ndescription: {text}\n---\n\nBody.\n")
    return root


# ---------------------------------------------------------------- what a run sends


def test_a_run_sends_the_agents_listing_and_its_activation_tool(skill_lib: Path) -> None:
    library = open_library(skill_lib)
    presentation = present_library(library)
    listing = compute_budget(entries_of(library), AGENT_SKILLS, Limits()).text
    eval_set = TriggerEvalSet("pdf", rows(("merge these two PDFs", True)))
    with scripted_server() as server:
        server.responder = by_query({"merge these two PDFs": fires("pdf")})
        report = run_trigger_evals([eval_set], presentation, endpoint(server.base_url), KEY,
                                   EvalOptions(runs=1))
        (request,) = server.requests
    assert report.rows[0].rate == 1.0 and presentation.agent == "agentskills"
    assert request.body["messages"] == [{"role": "system", "content": listing},
                                        {"role": "user", "content": "merge these two PDFs"}]
    (tool,) = request.body["tools"]
    assert tool["function"]["name"] == "activate_skill"
    assert tool["function"]["parameters"]["properties"]["name"]["enum"] == [
        "code-review", "math-olympiad", "pdf"] == sorted(presentation.listed)
    assert tool["function"]["description"].startswith(
        "Activates a specialized agent skill by name (Available: 'code-review', 'math-olympiad', 'pdf'). ")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "temperature" not in request.body and "tool_choice" not in request.body


def test_rockbot_sends_its_session_index_and_get_skill(agent_copy: Path) -> None:
    presentation = present_library(RockBotLibrary.open(agent_copy))
    assert presentation.agent == ROCKBOT.id and presentation.tool.name == "get_skill"
    assert presentation.listing == (EXPECTED / "session-index.txt").read_text(encoding="utf-8")
    with scripted_server() as server:
        server.responder = by_query({"plan a meeting": [tool_call("get_skill", {"name": "PLAN-MEETING"})]})
        report = run_trigger_evals([TriggerEvalSet("plan-meeting", rows(("plan a meeting", True)))],
                                   presentation, endpoint(server.base_url), None, EvalOptions(runs=2))
        schema = server.requests[0].body["tools"][0]["function"]["parameters"]
    assert schema["properties"]["name"] == {
        "type": "string", "description": "The skill name as shown in the index (e.g. 'plan-meeting')"}
    row = report.rows[0]  # the name matched case-insensitively, as RockBot looks skills up
    assert row.rate == 1.0 and row.fired == {"plan-meeting": 2}


def test_a_skill_the_listing_leaves_out_cannot_trigger_and_is_named() -> None:
    presentation = present(ENTRIES, AGENT_SKILLS, Limits(max_skills=1), ACTIVATE_SKILL)
    assert presentation.listed == ("pdf",)
    with scripted_server() as server:
        server.responder = by_query({"a memo": fires("docx")})
        report = run_trigger_evals([TriggerEvalSet("docx", rows(("a memo", True)))], presentation,
                                   endpoint(server.base_url), None, EvalOptions(runs=1))
        enum = server.requests[0].body["tools"][0]["function"]["parameters"]["properties"]["name"]["enum"]
    assert enum == ["pdf"] and report.rows[0].outcomes[0].status == INVALID
    assert report.notes == ("docx is not in the listing (beyond the first 1 skills listed): it cannot "
                            "trigger",)
    assert report.skills[0].hidden and report.as_json()["skills"][0]["listed"] is False


def test_claude_codes_skill_tool_is_a_parameter() -> None:
    presentation = shown(tool=CLAUDE_SKILL)
    with scripted_server() as server:
        server.responder = by_query({"fill the form": [tool_call("Skill", {"skill": "pdf", "args": "x"})]})
        report = run_trigger_evals([TriggerEvalSet("pdf", rows(("fill the form", True)))], presentation,
                                   endpoint(server.base_url), None, EvalOptions(runs=1))
        function = server.requests[0].body["tools"][0]["function"]
    assert function["name"] == "Skill" and function["parameters"]["required"] == ["skill"]
    assert "enum" not in function["parameters"]["properties"]["skill"]
    assert report.rows[0].triggers == 1


# ---------------------------------------------------------------- rates, threshold, near misses


SCRIPT = {
    "fill this pdf form": fires("pdf", "pdf", None),  # 2/3
    "extract the tables of this pdf": fires("pdf", None, None),  # 1/3
    "merge two pdfs": fires("pdf", "pdf", "pdf"),  # 3/3
    "convert this word file to pdf": fires("docx", "pdf", "docx"),  # near miss, pdf 1/3
    "print a pdf of my spreadsheet": fires("pdf", "xlsx", "pdf"),  # near miss, pdf 2/3
    "what is a pdf": fires(None, None, None),  # near miss, 0/3
}
PDF_ROWS = rows(("fill this pdf form", True), ("extract the tables of this pdf", True),
                ("merge two pdfs", True), ("convert this word file to pdf", False),
                ("print a pdf of my spreadsheet", False), ("what is a pdf", False))


def run_pdf(url: str, threshold: float = 0.5, key: str | None = None, **kw):
    return run_trigger_evals([TriggerEvalSet("pdf", PDF_ROWS)], shown(), endpoint(url), key,
                             EvalOptions(threshold=threshold), **kw)


def test_rates_threshold_and_near_misses() -> None:
    with scripted_server() as server:
        server.responder = by_query(SCRIPT)
        cache_file = Path(os.environ["ROCKSKILLS_CACHE_DIR"]) / "t.db"
        report = run_pdf(server.base_url, cache=OutcomeCache(cache_file))
        strict = run_pdf(server.base_url, threshold=0.7, cache=OutcomeCache(cache_file))
        assert len(server.requests) == 18  # the second run came from the cache
    got = {r.row.query: (round(r.rate, 3), r.passed) for r in report.rows}
    assert got == {"fill this pdf form": (0.667, True), "extract the tables of this pdf": (0.333, False),
                   "merge two pdfs": (1.0, True), "convert this word file to pdf": (0.333, True),
                   "print a pdf of my spreadsheet": (0.667, False), "what is a pdf": (0.0, True)}
    assert [r.passed for r in strict.rows] == [False, False, True, True, True, True]
    assert {r.row.query for r in report.failing} == {"extract the tables of this pdf",
                                                      "print a pdf of my spreadsheet"}


def test_a_rate_equal_to_the_threshold_triggers() -> None:
    """As skill-creator: a row that should trigger passes at rate >= threshold, a near miss only
    below it."""
    both = rows(("half the time", True))
    with scripted_server() as server:
        server.responder = by_query({"half the time": fires("pdf", None)})
        positive = run_trigger_evals([TriggerEvalSet("pdf", both)], shown(), endpoint(server.base_url),
                                     None, EvalOptions(runs=2))
        near_miss = run_trigger_evals([TriggerEvalSet("pdf", rows(("half the time", False)))], shown(),
                                      endpoint(server.base_url), None, EvalOptions(runs=2))
    assert positive.rows[0].rate == near_miss.rows[0].rate == 0.5
    assert positive.rows[0].passed is True and near_miss.rows[0].passed is False


def test_precision_and_recall_count_runs() -> None:
    with scripted_server() as server:
        server.responder = by_query(SCRIPT)
        report = run_pdf(server.base_url)
    (score,) = report.skills
    assert (score.tp, score.fn, score.fp, score.tn) == (6, 3, 3, 6)
    assert score.precision == pytest.approx(6 / 9) and score.recall == pytest.approx(6 / 9)
    assert (score.rows, score.rows_passed) == (6, 4)
    assert report.as_json()["skills"][0]["precision"] == pytest.approx(6 / 9)


def test_confusion_which_skill_fired_instead_and_competing_descriptions() -> None:
    docx_rows = rows(("convert this word file to pdf", True), ("write a memo", True))
    sets = [TriggerEvalSet("pdf", (*PDF_ROWS, TriggerRow("scan to pdf", True))),
            TriggerEvalSet("docx", docx_rows)]
    script = {**SCRIPT, "fill this pdf form": fires("pdf", "docx", "docx"),
              "write a memo": fires("docx", "docx", "docx"), "scan to pdf": fires("xlsx")}
    with scripted_server() as server:
        server.responder = by_query(script)
        report = run_trigger_evals(sets, shown(), endpoint(server.base_url), None, EvalOptions())
        assert len(server.requests) == 8 * 3  # the query both files have is asked once per run
    instead = {(i.skill, i.fired): (i.runs, i.queries) for i in report.instead}
    assert instead == {("pdf", "xlsx"): (3, ("scan to pdf",)),
                       ("pdf", "docx"): (2, ("fill this pdf form",)),
                       ("docx", "pdf"): (1, ("convert this word file to pdf",))}
    competing = {(c.a, c.b): c.count for c in report.competing}
    # docx/pdf both in play for "fill this pdf form" and "convert this word file to pdf";
    # pdf/xlsx for "print a pdf of my spreadsheet" and "scan to pdf" (pdf expected, never fired)
    assert competing == {("docx", "pdf"): 2, ("pdf", "xlsx"): 2}
    assert [s.skill for s in report.skills] == ["pdf", "docx"]
    assert report.skills[1].recall == pytest.approx(5 / 6)


# ---------------------------------------------------------------- cache, estimate, cancel


def test_a_second_run_sends_nothing_and_a_changed_listing_asks_again(tmp_path: Path) -> None:
    cache_file = tmp_path / "cache" / "outcomes.sqlite3"
    one = TriggerEvalSet("pdf", rows(("fill this pdf form", True), ("what is a pdf", False)))
    with scripted_server() as server:
        server.responder = by_query(SCRIPT)
        first = run_trigger_evals([one], shown(), endpoint(server.base_url), KEY, EvalOptions(),
                                  OutcomeCache(cache_file))
        assert (len(server.requests), first.sent, first.cached) == (6, 6, 0)
        again = run_trigger_evals([one], shown(), endpoint(server.base_url), KEY, EvalOptions(),
                                  OutcomeCache(cache_file))
        assert (len(server.requests), again.sent, again.cached) == (6, 0, 6)
        assert [r.as_json() for r in again.rows] == [r.as_json() for r in first.rows]
        more = run_trigger_evals([one], shown(), endpoint(server.base_url), KEY, EvalOptions(runs=4),
                                 OutcomeCache(cache_file))
        assert (len(server.requests), more.sent) == (8, 2)  # only each query's 4th run
        edited = [ENTRIES[0].with_description("PDF forms only."), *ENTRIES[1:]]
        changed = run_trigger_evals([one], shown(edited), endpoint(server.base_url), KEY, EvalOptions(),
                                    OutcomeCache(cache_file))
        assert (len(server.requests), changed.sent) == (14, 6)
        other_model = run_trigger_evals([one], shown(), Endpoint(server.base_url, "other-model", 10, 0),
                                        KEY, EvalOptions(), OutcomeCache(cache_file))
        assert other_model.sent == 6
    assert KEY.encode() not in cache_file.read_bytes()
    assert oct(cache_file.stat().st_mode & 0o777) == "0o600"


def test_the_estimate_comes_before_any_request(tmp_path: Path) -> None:
    from rockskills_gui.core.budget.tokens import tokenizer

    counter = tokenizer()
    one = TriggerEvalSet("pdf", rows(("fill this pdf form", True), ("what is a pdf", False)))
    cache = OutcomeCache(tmp_path / "c.sqlite3")
    guess = estimate([one], shown(), "test-model", EvalOptions(), cache, counter)
    per_request = (counter.count(shown().listing) + counter.count(json.dumps(shown().tools))
                   + 8)
    assert (guess.total, guess.cached, guess.to_send) == (6, 0, 6)
    assert guess.prompt_tokens == 3 * (2 * per_request + counter.count("fill this pdf form")
                                       + counter.count("what is a pdf"))
    assert not guess.latency_measured and "6 requests to send" in guess.line()
    with scripted_server() as server:
        server.responder = by_query(SCRIPT)
        run_trigger_evals([one], shown(), endpoint(server.base_url), None, EvalOptions(), cache)
    after = estimate([one], shown(), "test-model", EvalOptions(), cache, counter)
    assert (after.to_send, after.prompt_tokens, after.latency_measured) == (0, 0, True)


def test_cancel_drops_the_requests_in_flight_and_keeps_what_finished() -> None:
    cancel = threading.Event()
    seen = []

    def progress(p) -> None:
        seen.append(p)
        if p.done >= 3:
            cancel.set()

    slow = {q: [Step(**{**activate("pdf").__dict__, "delay": 0.0 if q == "merge two pdfs" else 60.0})]
            for q in SCRIPT}
    with scripted_server() as server:
        server.responder = by_query(slow)
        started = time.monotonic()
        report = run_pdf(server.base_url, progress=progress, cancel=cancel)
        took = time.monotonic() - started
    assert took < 30  # far less than the 60 s the other replies take
    assert not report.complete and report.aborted == "cancelled"
    merge = next(r for r in report.rows if r.row.query == "merge two pdfs")
    assert (merge.runs, merge.rate, merge.passed) == (3, 1.0, True)
    assert [r.passed for r in report.rows if r.row.query != "merge two pdfs"] == [None] * 5
    assert seen[0].done == 0 and seen[-1].done == 3 and seen[-1].total == 18
    set_before = threading.Event()
    set_before.set()
    with scripted_server() as server:
        server.responder = by_query(SCRIPT)
        nothing = run_pdf(server.base_url, cancel=set_before)
        assert server.requests == [] and nothing.aborted == "cancelled"


# ---------------------------------------------------------------- replies that cannot be read


def test_invalid_replies_count_as_no_trigger_and_are_reported() -> None:
    huge = ok("x" * (1024 * 1024 + 10))
    script = {
        "not json": [Step(raw=b"<html>502 Bad Gateway</html>")],
        "bad arguments": [tool_call("activate_skill", "{name: pdf")],
        "unknown skill": [tool_call("activate_skill", {"name": "pdf-tools"})],
        "too large": [huge],
        "server error": [error(500, "the model crashed")],
        "no choices": [Step(body={"id": "x", "choices": []})],
        "another tool": [tool_call("read_file", {"path": "a.pdf"})],
        "first call decides": [Step(tool_calls=[
            {"id": "1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
            {"id": "2", "type": "function",
             "function": {"name": "activate_skill", "arguments": '{"name": "pdf"}'}}])],
        "as text": [ok('<tool_call>{"name": "activate_skill", "arguments": {"name": "pdf"}}</tool_call>')],
        "answered": [ok("Sure, here is how.")],
    }
    one = TriggerEvalSet("pdf", rows(*((q, True) for q in script)))
    with scripted_server() as server:
        server.responder = by_query(script)
        report = run_trigger_evals([one], shown(), endpoint(server.base_url), KEY, EvalOptions(runs=1))
    status = {r.row.query: (r.outcomes[0].status, r.triggers) for r in report.rows}
    assert status == {"not json": (INVALID, 0), "bad arguments": (INVALID, 0),
                      "unknown skill": (INVALID, 0), "too large": (INVALID, 0),
                      "server error": (ERROR, 0), "no choices": (INVALID, 0),
                      "another tool": (OTHER_TOOL, 0), "first call decides": (OTHER_TOOL, 0),
                      "as text": (ACTIVATED, 1),
                      "answered": (NO_CALL, 0)}
    assert report.complete and not report.aborted
    text = "\n".join(report.problems)
    for reason in ("the reply is not JSON", "arguments are not a JSON object",
                   "'pdf-tools', which is not in the listing", "larger than 1 MB",
                   "server error (500): the model crashed", "the reply has no choices"):
        assert reason in text
    assert sum(r.invalid for r in report.rows) == 5 and sum(r.errors for r in report.rows) == 1


def test_a_long_server_error_is_reported_on_one_short_line_without_the_key() -> None:
    """The error text a server sends is cut short on one line, as the dream's is
    (the report keeps the first DETAIL_KEPT characters of it)."""
    script = {"crash": [error(500, f"trace with {KEY}\n" + "at frame\n" * 50_000)]}
    one = TriggerEvalSet("pdf", rows(("crash", True)))
    with scripted_server() as server:
        server.responder = by_query(script)
        report = run_trigger_evals([one], shown(), endpoint(server.base_url), KEY, EvalOptions(runs=1))
    [problem] = report.problems
    assert problem.startswith("1 run: error: server error (500): trace with [redacted]\\n")
    assert "\n" not in problem and len(problem) < DETAIL_KEPT + 20, problem[:200]


def test_a_refused_key_or_no_server_stops_the_run_without_the_key() -> None:
    with scripted_server() as server:
        server.responder = lambda body: error(401, f"Incorrect API key provided: {KEY}")
        report = run_pdf(server.base_url, key=KEY)
    assert report.aborted.startswith("stopped: the server refused the API key (401)")
    assert KEY not in json.dumps(report.as_json()) and not report.complete
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    report = run_pdf(f"http://127.0.0.1:{port}/v1")
    assert "nothing answers" in report.aborted and time.monotonic() - started < 20


# ---------------------------------------------------------------- snapshots


def test_snapshots_and_compare(agent_copy: Path) -> None:
    layout = RockBotLibrary.open(agent_copy).layout
    with scripted_server() as server:
        server.responder = by_query(SCRIPT)
        before = run_pdf(server.base_url)
        server.responder = by_query({**SCRIPT, "fill this pdf form": fires(None, None, "pdf"),
                                     "extract the tables of this pdf": fires("pdf", "pdf", "pdf")})
        after = run_pdf(server.base_url)
    path = snapshots.save(layout, snapshots.take(before, "before"))
    snapshots.save(layout, snapshots.take(after, "after"))
    assert path == agent_copy / "recall-tests" / "trigger-snapshots" / "before.json"
    assert set(snapshots.names(layout)) == {"before", "after"}
    diffs = {d.query: d for d in snapshots.compare(snapshots.load(layout, "before"),
                                                  snapshots.load(layout, "after"))}
    assert diffs["fill this pdf form"].regressed and not diffs["fill this pdf form"].fixed
    assert diffs["extract the tables of this pdf"].fixed
    assert diffs["fill this pdf form"].rate_change == pytest.approx(-1 / 3)
    assert [q for q, d in diffs.items() if d.changed] == ["fill this pdf form",
                                                          "extract the tables of this pdf"]
    with pytest.raises(snapshots.SnapshotError):
        snapshots.snapshot_path(layout, "../escape")
    (agent_copy / "recall-tests" / "trigger-snapshots" / "broken.json").write_text("{")
    with pytest.raises(snapshots.SnapshotError, match="not a trigger-eval snapshot"):
        snapshots.load(layout, "broken")


# ---------------------------------------------------------------- the field's files


def test_the_field_file_reads_and_writes_back_as_is(tmp_path: Path) -> None:
    source = FIELD / "evals" / "trigger_eval.json"
    field_rows = read_trigger_file(source)
    assert len(field_rows) == 20 and sum(r.should_trigger for r in field_rows) == 10
    assert json.loads(dump_rows(field_rows)) == json.loads(source.read_text(encoding="utf-8"))
    extra = b'[{"note": "n1", "query": "q", "should_trigger": false, "tags": ["a"]}]'
    assert json.loads(dump_rows(parse_rows(extra))) == json.loads(extra)
    assert list(json.loads(dump_rows(parse_rows(extra)))[0]) == ["note", "query", "should_trigger", "tags"]


@pytest.mark.parametrize(("data", "message"), [
    (b'{"query": "q"}', "expected a list"),
    (b'[{"query": "q", "should_trigger": "yes"}]', 'row 1: "should_trigger" must be true or false'),
    (b'[{"query": "q", "should_trigger": true}, {"should_trigger": true}]', 'row 2 has no "query"'),
    (b"[]", "no rows"),
    (b"[1", "not JSON"),
    (b"\xff[]", "not UTF-8"),
])
def test_a_malformed_file_is_named_in_one_line(data: bytes, message: str) -> None:
    with pytest.raises(TriggerFileError, match=message.replace("(", r"\(")):
        parse_rows(data, "f.json")


def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "evals.json"
    os.mkfifo(fifo)
    with pytest.raises(TriggerFileError, match=r"a named pipe \(FIFO\), not a regular file"):
        read_trigger_file(fifo)


def test_the_skill_is_the_one_whose_folder_holds_the_file(skill_lib: Path, tmp_path: Path) -> None:
    entries = entries_of(open_library(skill_lib))
    assert skill_of_file(skill_lib / "skills" / "math-olympiad" / "evals" / "trigger_eval.json",
                         entries) == "math-olympiad"
    assert skill_of_file(skill_lib / "skills" / "pdf" / "evals" / "trigger-evals.json", entries) == "pdf"
    assert skill_of_file(tmp_path / "evals" / "trigger-evals.json", entries) is None
    assert skill_of_file(skill_lib / "skills" / "pdf" / "trigger-evals.json", entries) is None


def test_import_keeps_the_bytes_beside_the_query_sets_and_export_stays_out_of_skills(
        agent_copy: Path, skill_lib: Path) -> None:
    layout = RockBotLibrary.open(agent_copy).layout
    source = FIELD / "evals" / "trigger_eval.json"
    kept = import_file(layout, source, "mcp/calendar")
    assert kept == agent_copy / "recall-tests" / "trigger-evals" / "mcp" / "calendar.json"
    assert kept.read_bytes() == source.read_bytes() and kept == store_path(layout, "mcp/calendar")
    with pytest.raises(TriggerFileError, match="RockBot would load the file"):
        export_file(layout, read_trigger_file(source), agent_copy / "skills" / "evals" / "t.json")
    assert not (agent_copy / "skills" / "evals").exists()
    out = export_file(layout, read_trigger_file(source), agent_copy / "exported.json")
    assert json.loads(out.read_bytes()) == json.loads(source.read_bytes())
    md = open_library(skill_lib).layout
    target = skill_lib / "skills" / "pdf" / "evals" / "trigger-evals.json"
    export_file(md, rows(("merge pdfs", True)), target)
    assert json.loads(target.read_text()) == [{"query": "merge pdfs", "should_trigger": True}]
    with pytest.raises(TriggerFileError):
        store_path(layout, "../up")
