"""The bundled demo library: shape, byte parity with RockBot's writers, generator, installer."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rockskills_gui.core.app import demo
from rockskills_gui.core.app.demo import DEMO_ANCHOR, demo_source_dir, install_demo, shift_days
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.dotnet_json import dumps_compact, dumps_indented
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.timestamps import TICKS_PER_DAY, Timestamp
from rockskills_gui.resources import resource_candidates

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "resources" / "make_demo_library.py"
SOURCE = demo_source_dir()
TS_KEYS = {"timestamp", "createdAt", "updatedAt", "lastUsedAt"}
TS_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{0,6}[1-9])?\+00:00$")
ID_RE = re.compile(r"^[0-9a-f]{12}$")
STARTERS = {
    "memory": "Long-term memory, working memory (path-namespaced, cross-context), and behavioral "
              "rules \u2014 when and how to use each.",
    "skills": "Skill documents (reusable procedures) and behavioral rules \u2014 how to create, "
              "use, and maintain them.",
    "mcp": "MCP server discovery and tool invocation (mcp_list_services, mcp_get_service_details, "
           "mcp_invoke_tool).",
    "web": "Web search and page browsing tools (web_search, web_browse).",
    "scheduling": "Schedule one-time or recurring tasks with cron expressions (schedule_task, "
                  "cancel_scheduled_task, list_scheduled_tasks).",
    "subagent": "Spawn background subagents for long-running tasks (spawn_subagent, "
                "cancel_subagent, list_subagents).",
    "a2a": "Invoke external A2A agents by name and skill (invoke_agent, list_known_agents).",
    "scripts": "Execute Python scripts in isolated containers (execute_python_script).",
}


# ---------------------------------------------------------------- helpers


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for rel, data in tree(root).items():
        h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def writable(value: Any) -> Any:
    """Parsed JSON with timestamp strings as Timestamps (the writer's input form)."""
    if isinstance(value, dict):
        return {k: Timestamp.parse(v) if k in TS_KEYS and isinstance(v, str) else writable(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [writable(v) for v in value]
    return value


def records(root: Path, folder: str) -> list[dict[str, Any]]:
    out = []
    for path in sorted((root / folder).glob("*.jsonl")):
        out.extend(json.loads(line) for line in path.read_text("utf-8").splitlines())
    return out


def ts(text: str) -> int:
    return Timestamp.parse(text).utc_ticks


@pytest.fixture(scope="module")
def library() -> RockBotLibrary:
    return RockBotLibrary.open(SOURCE, clock=lambda: DEMO_ANCHOR)


@pytest.fixture(scope="module")
def usage() -> list[dict[str, Any]]:
    return records(SOURCE, "skill-usage")


@pytest.fixture(scope="module")
def feedback() -> list[dict[str, Any]]:
    return records(SOURCE, "feedback")


# ---------------------------------------------------------------- shape


def test_source_is_the_repo_copy() -> None:
    assert SOURCE == REPO / "resources" / "demo-library"
    assert SOURCE in resource_candidates("demo-library")


def test_opens_without_problems(library: RockBotLibrary) -> None:
    assert library.problems == []
    assert len(library) >= 48
    prefixes = Counter(s.name.split("/")[0] for s in library.skills() if "/" in s.name)
    assert len(prefixes) >= 7
    assert not any((SOURCE / "skills").rglob("*.md"))  # nothing but skill files in skills/


def test_starter_skills(library: RockBotLibrary) -> None:
    for name, summary in STARTERS.items():
        skill = library.get(name)
        assert skill is not None and skill.name == name
        assert skill.summary == summary
        assert "STAND-IN" in (skill.content or "")
        assert "\r\n" in (skill.content or "") and not (skill.content or "").endswith("\n")


def test_skill_shapes(library: RockBotLibrary, usage: list[dict[str, Any]]) -> None:
    skills = library.skills()
    names = {fold(s.name) for s in skills}
    assert "mcp" in library and any(s.name.startswith("mcp/") for s in skills)
    sparse = [s for s in skills if s.is_sparse(DEMO_ANCHOR)]
    assert len(sparse) >= 3
    assert any(s.content_units < 200 and not s.is_sparse(DEMO_ANCHOR) for s in skills)
    with_see_also = [s for s in skills if s.see_also]
    assert len(with_see_also) >= 3
    dangling = [t for s in with_see_also for t in s.see_also or () if fold(t) not in names]
    assert dangling == ["research/source-credibility"]
    email, calendar = library.get("mcp/email"), library.get("mcp/calendar")
    assert email and calendar and "mcp/calendar" in (email.see_also or ())
    assert "mcp/email" in (calendar.see_also or ())
    used = {fold(e["skillName"]) for e in usage}
    never = [s for s in skills if s.last_used_at is None and fold(s.name) not in used]
    assert len(never) >= 3
    assert [s.name for s in skills if s.summary_pending] == ["travel/expense-report"]
    assert any(not (s.content or "").isascii() for s in skills)
    assert any(any(ord(c) > 0xFFFF for c in s.content or "") for s in skills)
    threshold = DEMO_ANCHOR.add_months(-18).utc_ticks
    assert [s.name for s in skills if s.last_activity().utc_ticks < threshold] == [
        "legacy/fax-sender"]
    clusters = Counter(s.name.split("/")[0] for s in skills if "/" in s.name)
    assert any(n >= 2 and f"{p}/guide" not in library for p, n in clusters.items())
    for a, b in [("plan-meeting", "schedule-meeting"),
                 ("research/summarize-paper", "research/summarize-article"),
                 ("writing/proofread", "writing/copy-edit")]:
        assert a in library and b in library
    for skill in skills:  # lastUsedAt is consistent with the usage log
        times = [ts(e["timestamp"]) for e in usage if fold(e["skillName"]) == fold(skill.name)]
        if times and skill.last_used_at is not None:
            assert skill.last_used_at.utc_ticks >= max(times), skill.name
        assert skill.created_at.utc_ticks <= DEMO_ANCHOR.utc_ticks


def test_usage_log(library: RockBotLibrary, usage: list[dict[str, Any]]) -> None:
    assert len(usage) >= 300
    sessions = {e["sessionId"] for e in usage}
    assert len(sessions) >= 30 and {"blazor-session", "cli-session"} <= sessions
    times = sorted(ts(e["timestamp"]) for e in usage)
    assert (DEMO_ANCHOR.utc_ticks - times[0]) / TICKS_PER_DAY >= 40
    assert times[-1] <= DEMO_ANCHOR.utc_ticks
    window = DEMO_ANCHOR.add_days(-30).utc_ticks
    assert sum(1 for t in times if t >= window) >= 100
    names = {e["skillName"] for e in usage}
    assert [n for n in names if n not in library] == ["old-meeting-notes"]
    assert any(n != library.get(n).name for n in names if n in library)  # a case variant
    for path in (SOURCE / "skill-usage").glob("*.jsonl"):
        assert all(json.loads(line)["sessionId"] == path.stem
                   for line in path.read_text("utf-8").splitlines())


def test_co_use_has_clusters(usage: list[dict[str, Any]]) -> None:
    window = DEMO_ANCHOR.add_days(-30).utc_ticks
    per_session: dict[str, set[str]] = {}
    for e in usage:
        if ts(e["timestamp"]) >= window:
            per_session.setdefault(e["sessionId"], set()).add(fold(e["skillName"]))
    pairs: Counter[tuple[str, str]] = Counter()
    for names in per_session.values():
        ordered = sorted(names)
        pairs.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:])
    top = [pair for pair, _ in pairs.most_common(10)]
    assert (fold("mcp/calendar"), fold("mcp/email")) in top
    assert pairs.most_common(1)[0][1] >= 5


def test_feedback(feedback: list[dict[str, Any]], usage: list[dict[str, Any]]) -> None:
    assert {f["signalType"] for f in feedback} == {0, 1, 2, 3, 4}
    assert all(isinstance(f["signalType"], int) for f in feedback)
    qualities = {json.loads(f["detail"])["overallQuality"]
                 for f in feedback if f["signalType"] == 2}
    assert qualities == {"good", "fair", "poor"}
    window = DEMO_ANCHOR.add_days(-30).utc_ticks
    used = {e["sessionId"].lower() for e in usage if ts(e["timestamp"]) >= window}
    at_risk = {f["sessionId"] for f in feedback
               if ts(f["timestamp"]) >= window and f["sessionId"].lower() in used
               and (f["signalType"] in (0, 4) or (f["signalType"] == 2 and re.search(
                   "poor|fair", (f["summary"] + " " + f["detail"]).lower())))}
    assert len(at_risk) >= 3 and "blazor-session" in at_risk


def test_conversations_and_memory() -> None:
    turns = [json.loads(x) for x in
             (SOURCE / "conversation-log" / "turns.jsonl").read_text("utf-8").splitlines()]
    assert len({t["sessionId"] for t in turns}) >= 12
    assert {t["role"] for t in turns} == {"user", "assistant", "system"}
    assert len(list((SOURCE / "conversations").glob("*.json"))) >= 2
    memories = list((SOURCE / "memory").rglob("*.json"))
    assert len(memories) >= 3
    for path in memories:
        entry = json.loads(path.read_bytes())
        assert list(entry) == ["id", "content", "category", "tags", "createdAt", "updatedAt",
                               "metadata"]
        assert path.stem == entry["id"]


# ---------------------------------------------------------------- byte parity


def test_skill_files_are_rockbots_bytes() -> None:
    files = list((SOURCE / "skills").rglob("*"))
    assert files and all(p.is_dir() or p.suffix == ".json" for p in files)
    for path in files:
        if path.is_file():
            raw = path.read_bytes()
            assert skill_to_bytes(skill_from_bytes(raw)) == raw, path


def test_event_lines_are_rockbots_bytes() -> None:
    paths = [*(SOURCE / "skill-usage").glob("*.jsonl"), *(SOURCE / "feedback").glob("*.jsonl"),
             SOURCE / "conversation-log" / "turns.jsonl"]
    for path in paths:
        raw = path.read_bytes().decode("utf-8")
        assert raw.endswith("\n") and "\n\n" not in raw
        for line in raw.splitlines():
            value = json.loads(line)
            assert dumps_compact(writable(value)) == line, path
            for key in TS_KEYS & value.keys():
                assert TS_TEXT.match(value[key]), value[key]
            if "id" in value:
                assert ID_RE.match(value["id"])
    for path in (SOURCE / "conversations").glob("*.json"):
        raw = path.read_bytes().decode("utf-8")
        assert dumps_compact(writable(json.loads(raw))) == raw
    for path in (SOURCE / "memory").rglob("*.json"):
        raw = path.read_bytes().decode("utf-8")
        assert dumps_indented(writable(json.loads(raw))) == raw


def test_all_skill_timestamps_are_utc_ticks_text() -> None:
    for path in (SOURCE / "skills").rglob("*.json"):
        value = json.loads(path.read_bytes())
        for key in ("createdAt", "updatedAt", "lastUsedAt"):
            assert value[key] is None or TS_TEXT.match(value[key]), (path, key)


def _timestamps(value: Any) -> list[str]:
    """Every timestamp string in a parsed JSON value (nulls skipped)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in TS_KEYS and isinstance(item, str):
                found.append(item)
            else:
                found.extend(_timestamps(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_timestamps(item))
    return found


def test_nothing_happens_after_the_anchor() -> None:
    found = 0
    for rel, data in tree(SOURCE).items():
        if rel == "README.md":
            continue
        values = ([json.loads(x) for x in data.decode().splitlines()] if rel.endswith(".jsonl")
                  else [json.loads(data)])
        for text in _timestamps(values):
            found += 1
            assert ts(text) <= DEMO_ANCHOR.utc_ticks, (rel, text)
    assert found > 700


# ---------------------------------------------------------------- generator


def test_anchor_is_recorded_everywhere() -> None:
    assert f'ANCHOR_TEXT = "{DEMO_ANCHOR.isoformat()}"' in SCRIPT.read_text("utf-8")
    assert DEMO_ANCHOR.isoformat() in (SOURCE / "README.md").read_text("utf-8")


def test_generator_reproduces_the_committed_tree(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True,
                   capture_output=True)
    assert tree(out) == tree(SOURCE)


def test_generator_refuses_foreign_folders(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    result = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)],
                            capture_output=True)
    assert result.returncode != 0
    assert (tmp_path / "mine.txt").read_text() == "keep me"


# ---------------------------------------------------------------- install_demo


def test_shift_days() -> None:
    assert shift_days(DEMO_ANCHOR) == 0
    assert shift_days(DEMO_ANCHOR.add_ticks(-1)) == -1
    assert shift_days(DEMO_ANCHOR.add_days(0.99)) == 0
    assert shift_days(DEMO_ANCHOR.add_days(400.5)) == 400
    assert shift_days(DEMO_ANCHOR.add_days(-3.2)) == -4


def _compare_shifted(a: Any, b: Any, ticks: int) -> None:
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            if key in TS_KEYS and isinstance(a[key], str):
                assert ts(b[key]) - ts(a[key]) == ticks, key
                assert b[key].endswith("+00:00")
            else:
                _compare_shifted(a[key], b[key], ticks)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _compare_shifted(x, y, ticks)
    else:
        assert a == b


def test_install_shifts_every_timestamp(tmp_path: Path) -> None:
    before = digest(SOURCE)
    now = DEMO_ANCHOR.add_days(137.25)
    dest = tmp_path / "data" / "demo-library"
    assert install_demo(dest, now=now) == dest
    assert digest(SOURCE) == before
    ticks = 137 * TICKS_PER_DAY
    src, out = tree(SOURCE), tree(dest)
    assert set(src) == set(out)
    for rel, data in src.items():
        if rel == "README.md":
            assert out[rel].startswith(data) and b"+137 days" in out[rel]
            continue
        if rel.endswith(".jsonl"):
            a = [json.loads(x) for x in data.decode().splitlines()]
            b = [json.loads(x) for x in out[rel].decode().splitlines()]
        else:
            a, b = json.loads(data), json.loads(out[rel])
        assert a != b, rel  # every data file has at least one timestamp
        _compare_shifted(a, b, ticks)
    installed = RockBotLibrary.open(dest)
    assert installed.problems == []
    for rel in out:  # still RockBot's exact bytes
        if rel.startswith("skills/"):
            assert skill_to_bytes(skill_from_bytes(out[rel])) == out[rel]
    latest = max(ts(e["timestamp"]) for e in records(dest, "skill-usage"))
    assert now.add_days(-1).utc_ticks < latest <= now.utc_ticks


def test_install_at_the_anchor_copies_bytes(tmp_path: Path) -> None:
    dest = tmp_path / "demo-library"
    install_demo(dest, now=DEMO_ANCHOR.add_days(0.5))
    src, out = tree(SOURCE), tree(dest)
    assert {k: v for k, v in out.items() if k != "README.md"} == {
        k: v for k, v in src.items() if k != "README.md"}


def test_install_is_idempotent(tmp_path: Path) -> None:
    dest = tmp_path / "demo-library"
    install_demo(dest, now=DEMO_ANCHOR.add_days(10))
    first = digest(dest)
    skill_file = dest / "skills" / "mcp" / "email.json"
    skill_file.write_bytes(skill_file.read_bytes())  # a user-curated copy stays as it is
    assert install_demo(dest, now=DEMO_ANCHOR.add_days(50)) == dest
    assert digest(dest) == first


def test_install_leaves_no_temp_files(tmp_path: Path) -> None:
    dest = tmp_path / "demo-library"
    install_demo(dest, now=DEMO_ANCHOR.add_days(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo-library"]
    for path in (dest / "skills").rglob("*"):
        assert path.is_dir() or (path.suffix == ".json" and not path.name.startswith("."))
    assert not [p for p in dest.rglob("*") if p.name.startswith(".")]


def test_interrupted_install_leaves_nothing(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    dest = tmp_path / "demo-library"
    calls = 0
    real = demo.shift_file

    def failing(rel: str, data: bytes, days: int) -> bytes:
        nonlocal calls
        calls += 1
        if calls == 40:
            raise OSError("disk full")
        return real(rel, data, days)

    monkeypatch.setattr(demo, "shift_file", failing)
    with pytest.raises(OSError, match="disk full"):
        install_demo(dest, now=DEMO_ANCHOR)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(demo, "shift_file", real)
    stale = tmp_path / ".demo-library.deadbeef.installing"  # e.g. left by a killed process
    (stale / "skills").mkdir(parents=True)
    running = tmp_path / ".demo-library.0badcafe.installing"  # another instance, still busy
    running.mkdir()
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    install_demo(dest, now=DEMO_ANCHOR)
    assert running.is_dir()
    running.rmdir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo-library"]
    assert RockBotLibrary.open(dest).problems == []


def test_install_into_an_empty_folder(tmp_path: Path) -> None:
    dest = tmp_path / "demo-library"
    dest.mkdir()
    install_demo(dest, now=DEMO_ANCHOR)
    assert (dest / "skills" / "mcp.json").is_file()
