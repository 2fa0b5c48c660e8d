"""Randomized attacks on the dream engine (issue #14, items 3, 5, 8 and 9).

Each ``attack_<name>(trials, workdir) -> (trials_run, failures)`` builds, per trial, a fresh copy of
the demo library under ``workdir`` and a random hostile input, then does what a user does: the
``rockskills dream`` / ``apply`` commands (run in this process, output captured) against a real
chat-completions server on 127.0.0.1. A trial fails when a file was written that should not be, an
exception escaped as a traceback, a message is not one readable line, or the API key turns up in
any file under ``workdir`` or in the captured output. ``ATTACKS`` lists them for a summary table;
:data:`REASONS` keeps why the trials of the last run of each attack failed. The seed comes from
``ROCKSKILLS_ATTACK_SEED`` (default: random) and is part of every reason, so a failure can be
replayed.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import logging
import os
import random
import re
import shutil
import string
import sys
import traceback
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rockskills_gui.cli import main as cli_main
from rockskills_gui.core.app.logs import configure_logging, remove_logging
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.names import fold, name_error
from rockskills_gui.core.model.skill import skill_from_bytes
from tests.core.llm_server import ScriptedServer, Step, error, ok, scripted_server

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo-library"
NOW = "2026-11-22T12:00:00+00:00"
MAX_LINE = 1000  # a longer stderr line is not "one readable sentence"

Attack = Callable[[int, Path], tuple[int, int]]
REASONS: dict[str, list[str]] = {}


# ---------------------------------------------------------------- running the CLI


@dataclass
class CliRun:
    """What one ``rockskills`` command did: exit code, output, and a traceback if one escaped."""

    code: int
    out: str
    err: str
    crash: str | None = None


def run_cli(*argv: str | Path) -> CliRun:
    """Run ``rockskills ARGV`` in this process with stdout/stderr captured (bytes, as written)."""
    out, err = io.BytesIO(), io.BytesIO()
    wrappers = (io.TextIOWrapper(out, encoding="utf-8", write_through=True),
                io.TextIOWrapper(err, encoding="utf-8", write_through=True))
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = wrappers
    crash: str | None = None
    try:
        code = cli_main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:  # what the user would see as a traceback
        crash = traceback.format_exc()
        code = -1
    finally:
        sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            wrapper.flush()
    text = (out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"))
    for wrapper in wrappers:
        wrapper.detach()
    return CliRun(code, text[0], text[1], crash)


def unreadable(run: CliRun) -> str | None:
    """Why the command's output is not a readable message, or None."""
    if run.crash is not None:
        return "traceback: " + run.crash.strip().splitlines()[-1][:300]
    for stream in (run.out, run.err):
        if "Traceback (most recent call last)" in stream:
            return "a traceback was printed"
    for line in run.err.splitlines():
        if line.startswith("rockskills: error:"):  # the CLI's last resort for unhandled exceptions
            return f"an unhandled exception reached the command line: {line[:200]}"
    for line in run.err.splitlines():
        if len(line) > MAX_LINE:
            return f"an error line of {len(line)} characters"
        if any(ord(c) < 32 and c != "\t" for c in line):
            return f"a control character in an error line: {line[:120]!r}"
    return None


@contextlib.contextmanager
def environment(workdir: Path, key: str) -> Iterator[None]:
    """The API key in ``ROCKSKILLS_API_KEY`` (never the keyring) and private config/data folders."""
    values = {"ROCKSKILLS_API_KEY": key, "ROCKSKILLS_CONFIG_DIR": str(workdir / "userdirs" / "config"),
              "ROCKSKILLS_DATA_DIR": str(workdir / "userdirs" / "data")}
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ---------------------------------------------------------------- libraries and snapshots


def fresh_library(trial: Path) -> Path:
    """A private copy of the demo library's agent directory (``trial/agent``)."""
    agent = trial / "agent"
    shutil.copytree(DEMO, agent, symlinks=True)
    return agent


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root``: sha256 of regular files, link targets, FIFOs and folders."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[rel] = "dir"
            elif path.is_file():
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                found[rel] = "special"
    return found


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def outside_changes(trial: Path, before: dict[str, str], after: dict[str, str]) -> set[str]:
    """Changed entries outside ``agent/skills`` and the journal (nothing there may change)."""
    return {k for k in changed(before, after)
            if not k.startswith(("agent/skills/", "agent/.rockskills")) and not k.startswith("plan")
            and not k.startswith(("userdirs", "log"))}


def bad_skill_files(agent: Path, paths: set[str]) -> list[str]:
    """Files among ``paths`` (``agent/skills/...``) that RockBot would not load as the skill their
    path names, or that hold a name RockBot refuses."""
    bad: list[str] = []
    skills = agent / "skills"
    for rel in sorted(paths):
        path = agent.parent / rel
        if not rel.startswith("agent/skills/") or not path.is_file() or path.is_symlink():
            continue
        expected = path.relative_to(skills).as_posix().removesuffix(".json")
        try:
            skill = skill_from_bytes(path.read_bytes())
        except Exception as exc:  # any parse failure is a bad file
            bad.append(f"{rel}: unreadable ({type(exc).__name__})")
            continue
        if name_error(skill.name) is not None or skill.name != expected:
            bad.append(f"{rel}: holds the name {skill.name[:80]!r}")
    return bad


# ---------------------------------------------------------------- random inputs


def segment(rng: random.Random, low: int = 3, high: int = 12) -> str:
    return "".join(rng.choice(string.ascii_lowercase + string.digits + "-")
                   for _ in range(rng.randint(low, high))).strip("-") or "s"


def valid_name(rng: random.Random) -> str:
    return "/".join(["adv", *(segment(rng) for _ in range(rng.randint(1, 2)))])


INVALID_CLASSES: dict[str, Callable[[random.Random], str]] = {
    "rooted": lambda r: f"/{segment(r)}/{segment(r)}",
    "tmp": lambda r: f"/tmp/{segment(r)}",
    "dot-segment": lambda r: f"{segment(r)}/./{segment(r)}",
    "leading-dot": lambda r: f"./{segment(r)}",
    "trailing-dot": lambda r: f"{segment(r)}/.",
    "empty-segment": lambda r: f"{segment(r)}//{segment(r)}",
    "trailing-slash": lambda r: f"{segment(r)}/",
    "hidden": lambda r: f".{segment(r)}/{segment(r)}",
    "parent": lambda r: "../" * r.randint(1, 4) + segment(r),
    "inner-parent": lambda r: f"{segment(r)}/../../{segment(r)}",
    "nul": lambda r: f"{segment(r)}\0{segment(r)}",
    "control": lambda r: f"{segment(r)}{chr(r.choice([1, 7, 27, 127]))}{segment(r)}",
    "inner-newline": lambda r: f"{segment(r)}\n{segment(r)}",
    "backslash": lambda r: f"{segment(r)}\\{segment(r)}",
    "drive": lambda r: f"C:\\{segment(r)}",
    "space": lambda r: f"{segment(r)} {segment(r)}",
    "suffix": lambda r: f"{segment(r)}.json",
    "url-encoded": lambda r: f"%2e%2e/{segment(r)}",
    "lookalike": lambda r: f"{segment(r)}\u0435{segment(r)}",
    "huge": lambda r: "x" * r.randint(4_000, 12_000),
    "long-segment": lambda r: f"{segment(r)}/" + "y" * r.randint(252, 400),
    "deep": lambda r: "/".join(["d"] * r.randint(33, 200)),
    "many-segments": lambda r: "/".join(["d"] * r.randint(1_500, 3_000)),
}


def invalid_name(rng: random.Random) -> tuple[str, str]:
    """A random name that must never be written: (class, name)."""
    label = rng.choice(sorted(INVALID_CLASSES))
    return label, INVALID_CLASSES[label](rng)


def flip_case(rng: random.Random, name: str) -> str:
    """``name`` with some letters in the other case (the same skill for RockBot)."""
    return "".join(c.swapcase() if c.isalpha() and rng.random() < 0.5 else c for c in name)


def skill_json(name: object, content: str = "Steps.", **extra: object) -> bytes:
    body = {"name": name, "summary": "planted", "content": content,
            "createdAt": "2026-01-01T00:00:00+00:00", **extra}
    return json.dumps(body, indent=2).encode()


def plant_problem(skills: Path, rng: random.Random) -> tuple[str, list[str]]:
    """Write one random problem file; returns its path (relative to ``skills``) and the names a
    proposal could use to overwrite it (its path's name, and the name inside it if any)."""
    name = valid_name(rng)
    path = skills / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    kind = rng.choice(["garbage", "truncated", "mismatch", "missing-name", "invalid-utf8",
                       "bad-date", "wrong-type"])
    names = [name]
    if kind == "garbage":
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))) + b"\xff{")
    elif kind == "truncated":
        path.write_bytes(skill_json(name)[: rng.randint(1, 30)])
    elif kind == "mismatch":
        other = valid_name(rng)
        path.write_bytes(skill_json(other))
        names.append(other)
    elif kind == "missing-name":
        path.write_bytes(b'{"summary": "s", "content": "no name"}')
    elif kind == "invalid-utf8":
        path.write_bytes(skill_json(name).replace(b"Steps.", b"St\xffeps."))
    elif kind == "bad-date":
        path.write_bytes(skill_json(name).replace(b"2026-01-01T00:00:00+00:00", b"yesterday"))
    else:
        path.write_bytes(skill_json(name, content=123))  # type: ignore[arg-type]
    return path.relative_to(skills).as_posix(), names


# ---------------------------------------------------------------- secrets


KEY_EXTRAS = "+/=.~"


def random_key(rng: random.Random) -> str:
    """An API key: letters, digits, ``-_``, sometimes base64 punctuation, a quote or a backslash."""
    alphabet = string.ascii_letters + string.digits + "-_"
    if rng.random() < 0.5:
        alphabet += KEY_EXTRAS
    key = "sk-" + "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 48)))
    if rng.random() < 0.2:
        at = rng.randint(4, len(key) - 1)
        key = key[:at] + rng.choice('"\\') + key[at:]
    return key


def encodings(secret: str) -> dict[str, str]:
    """The forms a secret can take in text we store or print (issue 35, item 17: also in another
    case, reversed, hex- and base64-encoded, and inside a longer base64 text at each of the three
    byte alignments, as ``Authorization: Basic`` of ``user:key`` is)."""
    data = secret.encode("utf-8")
    return {
        "raw": secret,
        "json": json.dumps(secret)[1:-1],
        "json-ascii-slash": json.dumps(secret)[1:-1].replace("/", "\\/"),
        "unicode-escaped": "".join(f"\\u{ord(c):04x}" for c in secret),
        "url": urllib.parse.quote(secret, safe=""),
        "url-plus": urllib.parse.quote_plus(secret),
        "url-lower": urllib.parse.quote(secret, safe="").replace("%2F", "%2f").replace("%2B", "%2b"),
        "upper": secret.upper(),
        "lower": secret.lower(),
        "reversed": secret[::-1],
        "hex": data.hex(),
        "hex-upper": data.hex().upper(),
        "base64": base64.b64encode(data).decode(),
        "base64-url": base64.urlsafe_b64encode(data).decode().rstrip("="),
        "basic": "Basic " + base64.b64encode(b"user:" + data).decode(),  # offset 5 (2 mod 3)
        "base64-offset-1": base64.b64encode(b"x" + data + b"!").decode(),
        "base64-inside": base64.b64encode(b"abc" + data + b"tail").decode(),  # offset 0
    }


def echo(secret_header: str, rng: random.Random) -> str:
    """The Authorization header as a careless server echoes it, in a random encoding."""
    form = rng.choice(sorted(encodings(secret_header)))
    return encodings(secret_header)[form]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{8,}")


def leaks(text: str, secret: str) -> bool:
    """Whether ``text`` holds ``secret`` in any form of :func:`encodings` (any case), or its bytes
    in any run of hex or base64 characters at any alignment (decoded here: an oracle of its own,
    not our redaction's patterns)."""
    folded = text.lower()
    if any(f.lower() in folded for f in encodings(secret).values() if f):
        return True
    data = secret.encode("utf-8")
    for run in _HEX_RUN.findall(text):
        for shift in (0, 1):
            part = run[shift:]
            if data in bytes.fromhex(part[: len(part) // 2 * 2]):
                return True
    for run in _BASE64_RUN.findall(text):
        standard = run.replace("-", "+").replace("_", "/")
        for shift in range(4):
            part = standard[shift:]
            part = part[: len(part) // 4 * 4]
            if part and data in base64.b64decode(part):
                return True
    return False


def secret_leaks(root: Path, texts: list[str], secret: str) -> list[str]:
    """Where ``secret`` (in any of its encodings, see :func:`leaks`) appears: files under ``root``
    and ``texts``."""
    found: list[str] = []
    for index, text in enumerate(texts):
        if leaks(text, secret):
            found.append(f"captured output #{index}")
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            text = data.decode("utf-8", "replace")
            if leaks(text, secret):
                found.append(str(path.relative_to(root)))
                continue
            if name.endswith((".json", ".jsonl")):
                for line in [text, *text.splitlines()]:
                    try:
                        value = json.loads(line)
                    except ValueError:
                        continue
                    if any(secret in s for s in _strings(value)):
                        found.append(f"{path.relative_to(root)} (decoded)")
                        break
    return found


# ---------------------------------------------------------------- the attacks


def _seed() -> int:
    text = os.environ.get("ROCKSKILLS_ATTACK_SEED")
    return int(text) if text else random.SystemRandom().randrange(1_000_000)


def _run(label: str, trials: int, workdir: Path,
         trial: Callable[[random.Random, Path, ScriptedServer, list[str]], None]) -> tuple[int, int]:
    """Run ``trial`` ``trials`` times, each in its own folder with its own random generator."""
    seed = _seed()
    reasons: list[str] = []
    failures = 0
    with scripted_server() as server:
        for index in range(trials):
            rng = random.Random(f"{label}/{seed}/{index}")
            folder = workdir / f"{label}-{seed}-{index}"
            folder.mkdir(parents=True)
            found: list[str] = []
            with server._lock:
                server.script.clear()
            try:
                trial(rng, folder, server, found)
            except Exception:  # a bug in the attack or an escaped exception: a failure either way
                found.append("exception: " + traceback.format_exc().strip().splitlines()[-1][:300])
            if found:
                failures += 1
                reasons.append(f"seed {seed} trial {index}: " + "; ".join(found))
    REASONS[label] = reasons
    return trials, failures


def _dream(server: ScriptedServer, agent: Path, plan: Path, passes: str, *extra: str) -> CliRun:
    return run_cli("dream", agent, "--passes", passes, "--base-url", server.base_url, "--model", "m",
                   "--now", NOW, "--plan-out", plan, "--retries", "0", "--timeout", "20", *extra)


def _plan(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _gap_reply(names: list[str]) -> str:
    return json.dumps({"toSave": [{"name": n, "summary": "s", "content": f"Do {i}."}
                                  for i, n in enumerate(names)]})


def attack_problem_file_overwrite(trials: int, workdir: Path) -> tuple[int, int]:
    """Item 3: a proposal saving a skill onto a problem file (unparseable, missing name, name
    differing from its path, invalid UTF-8, ...) under a name matching its path or its JSON name,
    in any letter case. Neither apply, accept-all, forcing every id, nor a plan with its findings
    stripped may change a problem file or write a file at its path in another case."""

    def trial(rng: random.Random, folder: Path, server: ScriptedServer, found: list[str]) -> None:
        agent = fresh_library(folder)
        skills = agent / "skills"
        planted = [plant_problem(skills, rng) for _ in range(rng.randint(1, 3))]
        problems = {fold(p.path) for p in RockBotLibrary.open(agent).problems}
        planted = [(rel, names) for rel, names in planted if fold(f"skills/{rel}") in problems]
        if not planted:
            return
        hostile = [flip_case(rng, rng.choice(names)) if rng.random() < 0.5 else rng.choice(names)
                   for _rel, names in planted]
        good = valid_name(rng) + "-good"
        names = [*hostile, good]
        rng.shuffle(names)
        key = random_key(rng)
        server.queue(ok(_gap_reply(names)))
        plan = folder / "plan.json"
        before = snapshot(folder)
        problem_bytes = {rel: (skills / rel).read_bytes() for rel, _ in planted}
        taken = {fold(rel.removesuffix(".json")) for rel, _ in planted} | \
                {fold(n) for _, ns in planted for n in ns}
        with environment(folder, key):
            made = _dream(server, agent, plan, "gap")
            runs = [made]
            if made.code != 0 or not plan.is_file():
                found.append(f"dream exited {made.code}: {made.err.strip()[-300:]}")
                return
            proposals = _plan(plan)["proposals"]
            hostile_ids = [p["id"] for p in proposals
                           if p.get("record") and fold(p["record"]["name"]) in taken]
            acceptable = [p["id"] for p in proposals if p["id"] in hostile_ids
                          and not any(f["severity"] == "block" for f in p["findings"])]
            if acceptable:
                found.append(f"not blocked: {acceptable}")
            runs.append(run_cli("apply", agent, plan, "--accept", ",".join(p["id"] for p in proposals)))
            stripped = _plan(plan)
            for p in stripped["proposals"]:
                p["findings"] = []
            forged = folder / "plan-stripped.json"
            forged.write_text(json.dumps(stripped), encoding="utf-8")
            if hostile_ids:
                runs.append(run_cli("apply", agent, forged, "--accept", ",".join(hostile_ids)))
            runs.append(run_cli("apply", agent, forged, "--accept-all"))
            runs.append(run_cli("apply", agent, plan, "--accept-all"))
        for run in runs:
            why = unreadable(run)
            if why:
                found.append(why)
        for rel, data in problem_bytes.items():
            if not (skills / rel).is_file() or (skills / rel).read_bytes() != data:
                found.append(f"problem file skills/{rel} was replaced")
        after = snapshot(folder)
        for rel in changed(before, after):
            if rel.startswith("agent/skills/") and rel.endswith(".json"):
                name = rel.removeprefix("agent/skills/").removesuffix(".json")
                if fold(name) in taken and rel.removeprefix("agent/skills/") not in problem_bytes:
                    found.append(f"wrote {rel}, the path of a problem file in another case")
        if not (skills / f"{good}.json").is_file():
            found.append(f"the good proposal '{good}' was not applied")
        found.extend(bad_skill_files(agent, changed(before, after)))
        found.extend(f"changed outside skills/: {r}" for r in sorted(outside_changes(folder, before, after)))
        found.extend(f"key leaked: {w}" for w in secret_leaks(folder, [r.out + r.err for r in runs], key))

    return _run("problem-file-overwrite", trials, workdir, trial)


def _forge(rng: random.Random, data: dict[str, Any], agent: Path) -> tuple[str, bool]:
    """Change a saved plan the way a hostile hand would; returns (what, must fail to load)."""
    proposals = data["proposals"]
    target = rng.choice(proposals)
    choice = rng.choice(["invalid-name", "invalid-name", "invalid-name", "wrong-type", "timestamp",
                         "touched", "ids", "see-also-type", "problem-path"])
    for p in proposals:
        p["findings"] = []
    if choice == "invalid-name":
        label, name = invalid_name(rng)
        target["record"]["name"] = name
        target["title"] = "Create"
        return f"invalid name ({label})", False
    if choice == "problem-path":
        rel, names = plant_problem(agent / "skills", rng)
        target["record"]["name"] = flip_case(rng, rng.choice(names))
        return f"problem file {rel}", False
    if choice == "wrong-type":
        where, value = rng.choice([
            (("record", "name"), rng.choice([12345, None, ["a"], {"x": 1}, True])),
            (("record", "content"), {"x": 1}),
            (("deletes",), rng.choice(["everything", [None], [1, 2]])),
            (("pass",), "bogus"),
            (("kind",), 7),
            (("id",), ["x"]),
            (("findings",), [{"code": 1}]),
        ])
        holder = target
        for part in where[:-1]:
            holder = holder[part]
        holder[where[-1]] = value
        return f"wrong type at {'.'.join(where)}", True
    if choice == "see-also-type":
        target["record"]["seeAlso"] = "not-a-list"
        return "seeAlso not a list", True
    if choice == "timestamp":
        target["record"]["createdAt"] = rng.choice(["yesterday", "2026-13-45T99:00:00+00:00", 12, ""])
        return "bad createdAt", True
    if choice == "touched":
        target["touched"] = {rng.choice(["/etc/passwd", "../../outside.txt", "/dev/zero",
                                         "skills/\u0000x.json", "skills/../../x"]): None}
        return "touched outside skills/", True
    target["dependsOn"] = [rng.choice(["nope", "", "x" * 5000])]
    return "unknown dependency", True


def attack_forged_plan(trials: int, workdir: Path) -> tuple[int, int]:
    """Item 5: a saved plan edited by hand (findings stripped, names RockBot refuses, NUL, huge
    names, wrong types, bad timestamps, paths outside skills/, unknown ids). ``apply`` must check
    everything again and write no file RockBot would not load as named; a broken plan is one
    readable error."""

    def trial(rng: random.Random, folder: Path, server: ScriptedServer, found: list[str]) -> None:
        agent = fresh_library(folder)
        goods = [valid_name(rng) for _ in range(rng.randint(1, 3))]
        server.queue(ok(_gap_reply(goods)))
        key = random_key(rng)
        plan = folder / "plan.json"
        with environment(folder, key):
            made = _dream(server, agent, plan, "gap")
            if made.code != 0:
                found.append(f"dream exited {made.code}: {made.err.strip()[-300:]}")
                return
            data = _plan(plan)
            what, load_error = _forge(rng, data, agent)
            forged = folder / "plan-forged.json"
            forged.write_text(json.dumps(data), encoding="utf-8")
            before = snapshot(folder)
            problems = {p.path for p in RockBotLibrary.open(agent).problems}
            ids = [p["id"] for p in data["proposals"] if isinstance(p.get("id"), str)]
            runs = [run_cli("apply", agent, forged, "--accept", ",".join(ids) or "g1"),
                    run_cli("apply", agent, forged, "--accept-all"),
                    run_cli("apply", agent, forged, "--accept-all", "--recheck")]
        after = snapshot(folder)
        for run in runs:
            why = unreadable(run)
            if why:
                found.append(f"{what}: {why}")
            if load_error and run.code != 2:
                found.append(f"{what}: apply exited {run.code}, expected 2 (not a plan)")
        if runs[0].code == 0:
            found.append(f"{what}: every id accepted, and apply succeeded")
        for rel in problems:
            if before.get(f"agent/{rel}") != after.get(f"agent/{rel}"):
                found.append(f"{what}: problem file {rel} changed")
        found.extend(f"{what}: {b}" for b in bad_skill_files(agent, changed(before, after)))
        found.extend(f"{what}: changed outside skills/: {r}"
                     for r in sorted(outside_changes(folder, before, after)))
        found.extend(f"key leaked: {w}" for w in secret_leaks(folder, [r.out + r.err for r in runs], key))

    return _run("forged-plan", trials, workdir, trial)


def _obstacles(rng: random.Random, skills: Path, outside: Path) -> dict[str, str]:
    """Things on disk in the way of a save: name -> what it is."""
    made: dict[str, str] = {}
    folder = valid_name(rng)
    (skills / f"{folder}.json").mkdir(parents=True)
    made[folder] = "a folder named like a skill file"
    if hasattr(os, "mkfifo"):
        fifo = valid_name(rng)
        (skills / fifo).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(skills / f"{fifo}.json")
        made[fifo] = "a FIFO"
    plain = valid_name(rng)
    (skills / plain).parent.mkdir(parents=True, exist_ok=True)
    (skills / plain).write_text("a file where a folder would be")
    made[f"{plain}/{segment(rng)}"] = "a file in place of a parent folder"
    link = valid_name(rng)
    (skills / link).parent.mkdir(parents=True, exist_ok=True)
    (skills / f"{link}.json").symlink_to(outside / "sentinel.txt")
    made[link] = "a symbolic link to a file outside"
    linked = valid_name(rng)
    (skills / linked).parent.mkdir(parents=True, exist_ok=True)
    (skills / linked).symlink_to(outside, target_is_directory=True)
    made[f"{linked}/{segment(rng)}"] = "a path through a symbolic link to a folder outside"
    return made


def attack_hostile_reply_paths(trials: int, workdir: Path) -> tuple[int, int]:
    """Item 8: replies naming paths the file system refuses (10,000 characters, a 300-character
    part), paths where a folder, FIFO, file or symbolic link is in the way, and names RockBot
    refuses, mixed with good proposals. The run is kept (every pass ok, the good proposals
    acceptable, the hostile ones blocked), and ``apply --accept-all`` writes only the good ones."""

    def trial(rng: random.Random, folder: Path, server: ScriptedServer, found: list[str]) -> None:
        agent = fresh_library(folder)
        outside = folder / "outside"
        outside.mkdir()
        (outside / "sentinel.txt").write_text("outside the library")
        obstacles = _obstacles(rng, agent / "skills", outside)
        hostile = rng.sample(sorted(obstacles), rng.randint(1, len(obstacles)))
        hostile += [invalid_name(rng)[1] for _ in range(rng.randint(1, 4))]
        good_gap, good_merge = valid_name(rng) + "-g", valid_name(rng) + "-c"
        names = [*hostile, good_gap]
        rng.shuffle(names)
        server.queue(ok(_gap_reply(names)))
        server.queue(ok(json.dumps({"toDelete": [], "toSave": [
            {"name": good_merge, "summary": "s", "content": "Merged."},
            *({"name": n, "summary": "s", "content": "x"} for n in rng.sample(hostile, 1))]})))
        key = random_key(rng)
        plan = folder / "plan.json"
        before = snapshot(folder)
        with environment(folder, key):
            made = _dream(server, agent, plan, "gap,consolidate")
            runs = [made]
            if made.crash is None and plan.is_file():
                data = _plan(plan)
                statuses = [p["status"] for p in data["passes"]]
                if statuses != ["ok", "ok"]:
                    found.append(f"passes {statuses}: {[p.get('reason') for p in data['passes']]}")
                for p in data["proposals"]:
                    record = p.get("record")
                    if record is None:
                        continue
                    blocked = any(f["severity"] == "block" for f in p["findings"])
                    if record["name"] in (good_gap, good_merge) and blocked:
                        found.append(f"good proposal {record['name']} blocked")
                    if record["name"] not in (good_gap, good_merge) and not blocked:
                        found.append(f"hostile name {record['name'][:80]!r} not blocked")
                runs.append(run_cli("apply", agent, plan, "--accept-all"))
                if runs[-1].code != 0:
                    found.append(f"apply exited {runs[-1].code}: {runs[-1].err.strip()[:300]}")
            else:
                found.append("the dream run was lost")
        for run in runs:
            why = unreadable(run)
            if why:
                found.append(why)
        after = snapshot(folder)
        pruned = [n for p in (_plan(plan)["proposals"] if plan.is_file() else [])
                  if p["kind"] == "prune" for n in p["deletes"]]  # the 18-month prune of the demo
        touched = [good_gap, good_merge, *pruned]
        allowed = {f"agent/skills/{n}.json" for n in touched}
        allowed |= {f"agent/skills/{'/'.join(n.split('/')[:i])}"
                    for n in touched for i in range(1, n.count("/") + 1)}
        for rel in sorted(changed(before, after)):
            if rel.startswith("agent/skills/") and rel not in allowed:
                found.append(f"changed {rel[:120]}")
        if runs[-1] is not made and runs[-1].code == 0:
            for name in (good_gap, good_merge):
                if not (agent / "skills" / f"{name}.json").is_file():
                    found.append(f"good skill {name} not written")
        found.extend(f"changed outside skills/: {r}" for r in sorted(outside_changes(folder, before, after)))
        found.extend(f"key leaked: {w}" for w in secret_leaks(folder, [r.out + r.err for r in runs], key))

    return _run("hostile-reply-paths", trials, workdir, trial)


def _echo_steps(rng: random.Random, server: ScriptedServer) -> list[Callable[[dict[str, Any]], Step]]:
    """Three replies (gap, consolidate, optimize) that echo the request's Authorization header."""

    def header() -> str:
        return server.requests[-1].headers.get("authorization", "")

    def where(kind: str) -> Callable[[dict[str, Any]], Step]:
        def step(_body: dict[str, Any]) -> Step:
            auth = header()
            token = auth.removeprefix("Bearer ")
            text = echo(rng.choice([auth, token]), rng)
            name = valid_name(rng)
            if kind == "prose":
                return ok(f"Authorization: {text}\n" + json.dumps({"toDelete": [], "toSave": [
                    {"name": name, "summary": "s", "content": "Steps."}]}))
            if kind == "think":
                return ok(f"<think>the header was {text}</think>" + json.dumps({"toSave": []}))
            if kind == "content":
                return ok(json.dumps({"toDelete": [], "toSave": [
                    {"name": name, "summary": f"uses {token}", "content": f"Call with {auth}\n"
                     f"(debug: {text})", "seeAlso": [token]}]}))
            if kind == "raw-in-json":
                return ok('{"toDelete": [], "toSave": [{"name": "' + name + '", "summary": "s", '
                          '"content": "key ' + text.replace('"', "'") + '"}]}')
            if kind == "name":
                return ok(json.dumps({"toDelete": [token], "toSave": [
                    {"name": token, "summary": "s", "content": "c", "sourceNames": [auth]}]}))
            if kind == "not-json":
                return ok(f"I cannot help. Your request had {text}.")
            if kind == "error-401":
                return error(401, f"Incorrect API key provided: {text}")
            return error(500, f"upstream failed for {text}")

        return step

    kinds = ["prose", "think", "content", "raw-in-json", "name", "not-json", "error-401", "error-500"]
    return [where(rng.choice(kinds)) for _ in range(3)]


def attack_secret_echo(trials: int, workdir: Path) -> tuple[int, int]:
    """Item 9: a server echoes the Authorization header (raw, ``Bearer <key>``, JSON-escaped,
    ``\\u``-escaped or URL-encoded) in replies, skill contents, names, errors and prose. The key
    must not appear in the plan, the applied skills, the journal, the log or the output."""

    def trial(rng: random.Random, folder: Path, server: ScriptedServer, found: list[str]) -> None:
        agent = fresh_library(folder)
        key = random_key(rng)
        server.queue(*_echo_steps(rng, server))
        plan = folder / "plan.json"
        log_file = folder / "log" / "rockskills.log"
        configure_logging(lambda: [key], path=log_file)
        try:
            with environment(folder, key):
                runs = [_dream(server, agent, plan, "gap,consolidate,optimize")]
                if plan.is_file():
                    for record in _plan(plan)["passes"]:  # careless code logging what it got
                        logging.getLogger("rockskills.attack").warning("reply: %s", record.get("rawReply"))
                    runs.append(run_cli("apply", agent, plan, "--accept-all"))
                logging.getLogger("rockskills.attack").warning("header was Bearer %s", key)
        finally:
            remove_logging()
        for run in runs:
            why = unreadable(run)
            if why:
                found.append(why)
        if not plan.is_file():
            found.append(f"no plan: dream exited {runs[0].code}")
        found.extend(f"key leaked: {w}" for w in secret_leaks(folder, [r.out + r.err for r in runs], key))

    return _run("secret-echo", trials, workdir, trial)


ATTACKS: list[tuple[str, Attack]] = [
    ("dream: proposal overwrites a problem file", attack_problem_file_overwrite),
    ("dream: hand-edited plan file", attack_forged_plan),
    ("dream: reply names unwritable paths", attack_hostile_reply_paths),
    ("dream: server echoes the API key", attack_secret_echo),
]
