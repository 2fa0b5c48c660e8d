"""Hostile files in a library (issue #14 items 4, 6, 8, 11; issue #35 items 12, 13, 14, 18), as
repeatable attacks.

Each ``attack_<name>(trials, workdir)`` builds a fresh hostile library under ``workdir`` per trial
(random names, depths and targets), runs the CLI (or the core, for rename/delete, which have no
command) in a subprocess with a timeout, and returns ``(trials_run, failures)``. A failure is a hang
beyond :data:`TIMEOUT`, a traceback, a file outside the library written or copied, a FIFO or link
target copied, or a non-regular file or outside link that is not reported. The reasons of the last
failures are kept in :data:`FAILURES` (``attack name: trial: reason``). :data:`ATTACKS` lists them
all for an aggregated table.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ROCKSKILLS_SHARED", REPO.parent / "shared"))
AGENT = SHARED / "fixtures" / "rockbot-agent"
NOW = "2026-11-22T12:00:00+00:00"
TIMEOUT = 30.0
GUIDES = ("mcp/guide", "research/guide")  # skills the offline dream of the sample agent creates
FAILURES: list[str] = []

# Runs one library operation the CLI has no command for; prints {"ok": ...} or {"error": ...}.
_CORE_OP = """
import json, sys
from rockskills_gui.core.storage.changes import LibraryError
from rockskills_gui.core.library.open import open_library
lib = open_library(sys.argv[1])
op, args = sys.argv[2], sys.argv[3:]
try:
    if op == "rename":
        lib.rename(args[0], args[1])
    elif op == "delete":
        lib.delete(args[0])
    else:
        lib.update(args[0], content=args[1])
    print(json.dumps({"ok": True}))
except LibraryError as exc:
    print(json.dumps({"ok": False, "error": str(exc)}))
"""


@dataclass(frozen=True)
class Outcome:
    """What one subprocess did."""

    rc: int | None
    out: str
    err: str
    hung: bool

    def trouble(self) -> str | None:
        """Why this run counts as a failure by itself (a hang or a traceback), else None."""
        if self.hung:
            return f"hung (no exit within {TIMEOUT:g} s)"
        if "Traceback" in self.err or "Traceback" in self.out:
            return "traceback: " + self.err.strip().splitlines()[-1][:300]
        return None


def _env(workdir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "ROCKSKILLS_CONFIG_DIR": str(workdir / "userdirs" / "config"),
           "ROCKSKILLS_DATA_DIR": str(workdir / "userdirs" / "data"), "PYTHONPATH": str(REPO)}
    env.pop("ROCKSKILLS_CRASH_AFTER", None)
    return {**env, **(extra or {})}


def _run(argv: list[str], workdir: Path, extra: dict[str, str] | None = None) -> Outcome:
    try:
        done = subprocess.run(argv, cwd=REPO, capture_output=True, timeout=TIMEOUT, check=False,
                              env=_env(workdir, extra), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return Outcome(None, _text(exc.stdout), _text(exc.stderr), True)
    return Outcome(done.returncode, _text(done.stdout), _text(done.stderr), False)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def cli(workdir: Path, *args: str | Path, extra: dict[str, str] | None = None) -> Outcome:
    """``rockskills ARGS`` in a subprocess, with a timeout."""
    return _run([sys.executable, "-m", "rockskills_gui.cli", *map(str, args)], workdir, extra)


def core_op(workdir: Path, library: Path, op: str, *args: str) -> Outcome:
    """rename/delete/update through the core in a subprocess (the CLI has no such commands)."""
    return _run([sys.executable, "-c", _CORE_OP, str(library), op, *args], workdir)


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root`` by kind: file hashes, link targets, FIFOs, folders (never opened
    unless regular, never followed)."""
    found: dict[str, str] = {}
    if not root.exists() and not root.is_symlink():
        return found
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                found[rel] = "link:" + os.readlink(path)
            elif stat.S_ISREG(mode):
                found[rel] = "file:" + hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISDIR(mode):
                found[rel] = "dir"
            else:
                found[rel] = f"special:{stat.S_IFMT(mode):o}"
    return found


def _token(rng: random.Random, size: int = 6) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size))


def _rng(name: str, trial: int) -> random.Random:
    seed = os.environ.get("ROCKSKILLS_ATTACK_SEED") or str(time.time_ns())
    return random.Random(f"{name}:{trial}:{seed}")


def _trial_dir(workdir: Path, name: str, trial: int) -> Path:
    folder = workdir / f"{name}-{trial}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def _copy_agent(folder: Path) -> Path:
    agent = folder / "agent"
    shutil.copytree(AGENT, agent, symlinks=True)
    for path in [agent, *agent.rglob("*")]:  # the shared fixtures are read-only
        path.chmod(path.stat().st_mode | 0o200)
    return agent


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(path.lstat().st_mode)
    except OSError:
        return False


def _lint(workdir: Path, library: Path, why: list[str]) -> list[dict[str, object]]:
    """``lint --json`` findings (a hang, traceback or bad output is recorded in ``why``)."""
    done = cli(workdir, "lint", library, "--json", "--now", NOW)
    trouble = done.trouble()
    if trouble:
        why.append(f"lint: {trouble}")
        return []
    try:
        return list(json.loads(done.out)["problems"])
    except (ValueError, KeyError, TypeError):
        why.append(f"lint: no JSON ({done.err.strip()[:200]})")
        return []


def _reported(findings: list[dict[str, object]], path: str) -> bool:
    return any(f.get("path") == path for f in findings)


def _check(outcome: Outcome, what: str, why: list[str]) -> bool:
    trouble = outcome.trouble()
    if trouble:
        why.append(f"{what}: {trouble}")
        return False
    return True


def _finish(name: str, trial: int, why: list[str]) -> int:
    FAILURES.extend(f"{name}: trial {trial}: {reason}" for reason in why)
    return 1 if why else 0


def _skill_md(name: str, description: str = "does a thing") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nSteps.\n"


def _skillmd_project(folder: Path, rng: random.Random, count: int = 3) -> tuple[Path, Path, list[str]]:
    """An Agent Skills project: ``(project, skills root, skill names)``."""
    project = folder / "project"
    root = project / ".agents" / "skills"
    names = sorted({f"{_token(rng)}-{i}" for i in range(count)})
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(_skill_md(name))
    return project, root, names


def _deep(rng: random.Random, base: Path) -> Path:
    """``base`` plus 0-3 random sub-folders (created)."""
    folder = base.joinpath(*(_token(rng, 4) for _ in range(rng.randint(0, 3))))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ---------------------------------------------------------------- 4: FIFO at skills/*.json


def attack_fifo_json(trials: int, workdir: Path) -> tuple[int, int]:
    """A FIFO at ``skills/<name>.json`` (anywhere, or where the dream wants to create a skill,
    before the dream or between dream and apply): dream and apply finish, never block, never
    replace the FIFO, and lint reports it."""
    failures = 0
    for trial in range(trials):
        rng = _rng("fifo-json", trial)
        folder = _trial_dir(workdir, "fifo-json", trial)
        agent = _copy_agent(folder)
        why: list[str] = []
        variant = trial % 3
        if variant == 0:
            fifo = _deep(rng, agent / "skills") / f"{_token(rng)}.json"
        else:
            fifo = agent / "skills" / (rng.choice(GUIDES) + ".json")
        if variant != 2:
            os.mkfifo(fifo)
        plan = folder / "plan.json"
        if _check(cli(workdir, "dream", agent, "--offline", "--plan-out", plan, "--now", NOW),
                  "dream", why) and variant == 2:
            os.mkfifo(fifo)
        if plan.is_file():
            _check(cli(workdir, "apply", agent, plan, "--accept-all"), "apply", why)
            _check(cli(workdir, "apply", agent, plan, "--accept-all", "--recheck"), "apply --recheck", why)
        elif not why:
            why.append("dream wrote no plan")
        if not _is_fifo(fifo):
            why.append(f"{fifo.relative_to(agent)} is no longer the FIFO")
        shown = fifo.relative_to(agent).as_posix()
        if not _reported(_lint(workdir, agent, why), shown):
            why.append(f"lint does not report {shown}")
        failures += _finish("fifo-json", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 4: FIFO resource of a SKILL.md skill


def attack_fifo_resource(trials: int, workdir: Path) -> tuple[int, int]:
    """A FIFO among a SKILL.md skill's resources: rename and delete refuse with a message (nothing
    changed), convert finishes without copying it, lint reports it."""
    failures = 0
    for trial in range(trials):
        rng = _rng("fifo-resource", trial)
        folder = _trial_dir(workdir, "fifo-resource", trial)
        project, root, names = _skillmd_project(folder, rng)
        victim = rng.choice(names)
        fifo = _deep(rng, root / victim / rng.choice(("scripts", "references", "assets"))) / _token(rng)
        os.mkfifo(fifo)
        why: list[str] = []
        before = snapshot(project)
        for op, args in (("rename", (victim, f"{victim}-renamed")), ("delete", (victim,))):
            done = core_op(workdir, project, op, *args)
            if _check(done, op, why):
                result = json.loads(done.out or "{}")
                if result.get("ok"):
                    why.append(f"{op} succeeded with a FIFO in the skill folder")
                elif fifo.name not in str(result.get("error", "")):
                    why.append(f"{op}: the refusal does not name the FIFO: {result.get('error')}")
            if snapshot(project) != before:
                why.append(f"{op} changed the library")
                break
        target = rng.choice(("rockbot", "agentskills", "picobot", "cortex-fs"))
        dest = folder / f"out-{_token(rng)}"
        done = cli(workdir, "convert", project, dest, "--to", target, "--json")
        if _check(done, f"convert --to {target}", why):
            if any(v.startswith("special:") for v in snapshot(dest).values()):
                why.append("convert copied a FIFO")
            if fifo.name not in done.out:
                why.append("convert's report does not mention the FIFO")
        if not any(fifo.name in str(f.get("path")) for f in _lint(workdir, project, why)):
            why.append("lint does not report the FIFO resource")
        failures += _finish("fifo-resource", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 6: symlinked resources out of the library


def attack_symlink_resource_escape(trials: int, workdir: Path) -> tuple[int, int]:
    """A resource that is a symlink leaving the library (to a secret beside it, or /etc/passwd;
    in a SKILL.md skill folder or a RockBot ``.skillgui/resources`` folder): convert never copies
    its target and reports it; rename never copies it into the library."""
    failures = 0
    passwd = Path("/etc/passwd")
    for trial in range(trials):
        rng = _rng("symlink-escape", trial)
        folder = _trial_dir(workdir, "symlink-escape", trial)
        secret = folder / "outside" / f"secret-{_token(rng)}.txt"
        secret.parent.mkdir()
        secret.write_text(f"SECRET-{_token(rng, 16)}\n")
        secrets = {secret.read_bytes()}
        if passwd.is_file():
            secrets.add(passwd.read_bytes())
        project, root, names = _skillmd_project(folder, rng)
        victim = rng.choice(names)
        why: list[str] = []
        target_file = secret if trial % 2 == 0 or not passwd.is_file() else passwd
        link_dir = _deep(rng, root / victim / rng.choice(("scripts", "references")))
        link = link_dir / f"{_token(rng)}.txt"
        link.symlink_to(target_file if rng.random() < 0.5 else os.path.relpath(target_file, link_dir))
        (root / victim / "inside-link.md").symlink_to(  # a link inside the library is fine
            os.path.relpath(root / names[0] / "SKILL.md", root / victim))
        source = project
        if trial % 3 == 2:  # the RockBot variant: .skillgui/resources/<name>/ from an earlier convert
            rb = folder / "rockbot"
            link.unlink()  # a clean library first
            made = cli(workdir, "convert", project, rb, "--to", "rockbot")
            res = next((rb / ".skillgui" / "resources").glob("*"), None)
            if not _check(made, "convert to rockbot (setup)", why) or res is None:
                why.append("setup: no .skillgui/resources folder")
                failures += _finish("symlink-escape", trial, why)
                continue
            link = _deep(rng, res) / f"{_token(rng)}.txt"
            link.symlink_to(target_file)
            source = rb
        outside_before = snapshot(secret.parent)
        dest = folder / f"out-{_token(rng)}"
        target = rng.choice(("rockbot", "agentskills", "picobot", "cortex-fs"))
        done = cli(workdir, "convert", source, dest, "--to", target, "--json")
        if _check(done, f"convert --to {target}", why):
            for rel, kind in snapshot(dest).items():
                path = dest / rel
                if kind.startswith("file:") and path.read_bytes() in secrets:
                    why.append(f"convert copied the link's target to {rel}")
                if kind.startswith("link:") and not os.path.realpath(path).startswith(str(dest)):
                    why.append(f"convert wrote a link leaving the output: {rel}")
            if link.name not in done.out:
                why.append("convert's report does not mention the link leaving the library")
        if source == project:
            done = core_op(workdir, project, "rename", victim, f"{victim}-moved")
            if _check(done, "rename", why):
                for rel, kind in snapshot(project).items():
                    if kind.startswith("file:") and (project / rel).read_bytes() in secrets:
                        why.append(f"rename copied the link's target into the library: {rel}")
        if snapshot(secret.parent) != outside_before:
            why.append("a file outside the library changed")
        failures += _finish("symlink-escape", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 8: dangling symlinked resource


def attack_dangling_resource(trials: int, workdir: Path) -> tuple[int, int]:
    """A resource that is a dangling symlink: rename, delete and convert give a readable message
    (no traceback), and lint reports it."""
    failures = 0
    for trial in range(trials):
        rng = _rng("dangling-resource", trial)
        folder = _trial_dir(workdir, "dangling-resource", trial)
        project, root, names = _skillmd_project(folder, rng)
        victim = rng.choice(names)
        link = _deep(rng, root / victim / "scripts") / _token(rng)
        link.symlink_to(rng.choice((f"missing-{_token(rng)}", f"/nonexistent/{_token(rng)}")))
        why: list[str] = []
        for op, args in (("rename", (victim, f"{victim}-renamed")), ("delete", (victim,))):
            done = core_op(workdir, project, op, *args)
            if _check(done, op, why) and not done.out.strip():
                why.append(f"{op}: no result")
        dest = folder / "out"
        done = cli(workdir, "convert", project, dest, "--to", rng.choice(("rockbot", "agentskills")),
                   "--json")
        if _check(done, "convert", why) and link.name not in done.out:
            why.append("convert's report does not mention the dangling link")
        findings = _lint(workdir, project, why)
        if link.exists() or link.is_symlink():
            if not any(link.name in str(f.get("path")) for f in findings):
                why.append("lint does not report the dangling link")
        failures += _finish("dangling-resource", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 11: staging left after a kill


def _big_project(folder: Path, rng: random.Random, count: int) -> Path:
    project = folder / "project"
    root = project / ".agents" / "skills"
    for i in range(count):
        name = f"{_token(rng)}-{i}"
        (root / name / "references").mkdir(parents=True)
        (root / name / "SKILL.md").write_text(_skill_md(name, "x " * rng.randint(1, 30)))
        (root / name / "references" / "notes.md").write_text("notes\n" * rng.randint(1, 50))
    return project


def _staging_left(parent: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name not in keep and p.name.startswith("."))


def attack_convert_kill(trials: int, workdir: Path) -> tuple[int, int]:
    """SIGKILL in the middle of convert (at a random write through the crash hook, or from
    outside as soon as the staging folder appears): the next convert into the same folder
    succeeds and no staging folder is left."""
    failures = 0
    for trial in range(trials):
        rng = _rng("convert-kill", trial)
        folder = _trial_dir(workdir, "convert-kill", trial)
        project = _big_project(folder, rng, 150)
        out = folder / "outputs"
        out.mkdir()
        why: list[str] = []
        dest = out / f"lib-{_token(rng)}"
        target = rng.choice(("rockbot", "agentskills"))
        argv = [sys.executable, "-m", "rockskills_gui.cli", "convert", str(project), str(dest),
                "--to", target]
        if trial % 2 == 0:
            cli(workdir, *argv[3:], extra={"ROCKSKILLS_CRASH_AFTER": str(rng.randint(1, 200))})
        else:
            proc = subprocess.Popen(argv, cwd=REPO, env=_env(workdir), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline and proc.poll() is None:
                if any(p.name.startswith(".") for p in out.iterdir()):
                    time.sleep(rng.random() * 0.05)
                    break
                time.sleep(0.001)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        again = dest if rng.random() < 0.5 or not dest.exists() else out / f"lib-{_token(rng)}"
        if dest.exists() and again == dest:
            shutil.rmtree(dest)  # a finished first run: convert into a fresh folder of that name
        done = cli(workdir, "convert", project, again, "--to", target)
        if _check(done, "second convert", why) and done.rc != 0:
            why.append(f"second convert failed: {done.err.strip()[-200:]}")
        left = _staging_left(out, set())
        if left:
            why.append(f"staging left after the next convert: {left}")
        failures += _finish("convert-kill", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 11: folder named *.json


def attack_dir_json(trials: int, workdir: Path) -> tuple[int, int]:
    """A folder named ``<x>.json`` under ``skills/`` (empty, or holding a skill): reported by lint."""
    failures = 0
    for trial in range(trials):
        rng = _rng("dir-json", trial)
        folder = _trial_dir(workdir, "dir-json", trial)
        agent = _copy_agent(folder)
        odd = _deep(rng, agent / "skills") / f"{_token(rng)}.json"
        odd.mkdir()
        if rng.random() < 0.5:
            (odd / "inner.json").write_text(json.dumps({"name": "x", "content": "y"}))
        why: list[str] = []
        shown = odd.relative_to(agent).as_posix()
        _check(cli(workdir, "list", agent), "list", why)
        if not _reported(_lint(workdir, agent, why), shown):
            why.append(f"lint does not report the folder {shown}")
        failures += _finish("dir-json", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 11: skill file linked outside


def attack_outside_link_skill(trials: int, workdir: Path) -> tuple[int, int]:
    """``skills/<x>.json`` is a symlink to a skill file outside the library: it loads (RockBot
    loads it too), lint marks it, and an update is refused (the outside file is untouched)."""
    failures = 0
    for trial in range(trials):
        rng = _rng("outside-link", trial)
        folder = _trial_dir(workdir, "outside-link", trial)
        agent = _copy_agent(folder)
        where = _deep(rng, agent / "skills")
        name = (where / _token(rng)).relative_to(agent / "skills").as_posix()
        outside = folder / "outside" / f"{_token(rng)}.json"
        outside.parent.mkdir()
        outside.write_text(json.dumps({"name": name, "content": "outside", "summary": "s"}))
        link = agent / "skills" / f"{name}.json"
        link.symlink_to(outside if rng.random() < 0.5 else os.path.relpath(outside, link.parent))
        before = snapshot(outside.parent)
        why: list[str] = []
        listed = cli(workdir, "list", agent, "--json")
        if _check(listed, "list", why) and name not in {i["name"] for i in json.loads(listed.out)}:
            why.append("the linked skill does not load")
        findings = _lint(workdir, agent, why)
        shown = link.relative_to(agent).as_posix()
        if not any(f.get("path") == shown and "outside" in str(f.get("message")) for f in findings):
            why.append(f"lint does not mark {shown} as linking outside the library")
        done = core_op(workdir, agent, "update", name, "through the link")
        if _check(done, "update", why) and json.loads(done.out or "{}").get("ok"):
            why.append("update wrote through the link")
        if snapshot(outside.parent) != before:
            why.append("the file outside the library changed")
        failures += _finish("outside-link", trial, why)
    return trials, failures


# ---------------------------------------------------------------- 11: SKILL.md that is a FIFO or a folder


def attack_skillmd_not_a_file(trials: int, workdir: Path) -> tuple[int, int]:
    """A ``SKILL.md`` that is a FIFO or a folder: list and lint finish, and lint reports it."""
    failures = 0
    for trial in range(trials):
        rng = _rng("skillmd-odd", trial)
        folder = _trial_dir(workdir, "skillmd-odd", trial)
        project, root, _names = _skillmd_project(folder, rng, 2)
        odd = _deep(rng, root / f"odd-{_token(rng)}") / "SKILL.md"
        if trial % 2 == 0:
            os.mkfifo(odd)
        else:
            odd.mkdir()
        why: list[str] = []
        _check(cli(workdir, "list", project), "list", why)
        shown = odd.relative_to(project).as_posix()
        if not _reported(_lint(workdir, project, why), shown):
            why.append(f"lint does not report {shown} ({'FIFO' if trial % 2 == 0 else 'folder'})")
        failures += _finish("skillmd-odd", trial, why)
    return trials, failures


# ---------------------------------------------------------------- issue 35, 12 and 18: one hostile file


def _fresh_agent(workdir: Path, name: str, trial: int) -> tuple[random.Random, Path, Path]:
    """``(random source, trial folder, a copy of the sample agent in it)`` for one trial."""
    folder = _trial_dir(workdir, name, trial)
    return _rng(name, trial), folder, _copy_agent(folder)


def _hostile_file(rng: random.Random, agent: Path) -> tuple[str, str]:
    """Plant one hostile thing in ``agent`` (random kind, place and size): ``(path shown, what)``."""
    kind = rng.choice(("deep-json", "digits", "sparse-skill", "nested", "sparse-log", "long-line"))
    where = _deep(rng, agent / "skills")
    name = f"{_token(rng)}.json"
    path = where / name
    if kind == "deep-json":
        depth = rng.randint(1000, 100_000)
        path.write_text('{"name": "x", "content": "c", "x": ' + "[" * depth + "]" * depth + "}")
    elif kind == "digits":
        digits = "9" * rng.randint(4301, 20_000)
        path.write_text(rng.choice(('{"name": "x", "content": "c", "n": ' + digits + "}",
                                    '{"name": "x", "content": "c", "m": {"a": [' + digits + "]}}",
                                    '{"name": "x", "content": ' + digits + "}")))
    elif kind == "sparse-skill":
        with open(path, "wb") as handle:
            handle.truncate(rng.choice((17 << 20, 4 << 30)))
    elif kind == "nested":  # deeper than the walks go (shallow enough for shutil.rmtree)
        path = where.joinpath(*["n"] * rng.randint(65, 300))
        path.mkdir(parents=True)
        (path / name).write_text(json.dumps({"name": "x", "content": "c"}))
    else:
        log = agent / rng.choice(("skill-usage", "feedback")) / f"{_token(rng)}.jsonl"
        with open(log, "wb") as handle:
            if kind == "sparse-log":
                handle.truncate(4 << 30)
            else:
                handle.write(b'{"id": "' + b"x" * rng.randint(1 << 20, 3 << 20) + b'"}\n')
        return log.relative_to(agent).as_posix(), kind
    return path.relative_to(agent).as_posix(), kind


def attack_unopenable(trials: int, workdir: Path) -> tuple[int, int]:
    """One hostile file (JSON nested 1,000-100,000 deep, a number of 4,301-20,000 digits, a
    sparse 17 MB or 4 GB skill file or log, folders nested past the limit, a log line over 1 MB):
    list, lint, usage and an offline dream finish without an internal error, every other skill
    loads, and list or lint names the file."""
    failures = 0
    for trial in range(trials):
        rng, folder, agent = _fresh_agent(workdir, "unopenable", trial)
        why: list[str] = []
        clean = cli(workdir, "list", agent)
        expected = len(clean.out.splitlines())
        shown, kind = _hostile_file(rng, agent)
        listed = cli(workdir, "list", agent)
        if _check(listed, "list", why):
            if len(listed.out.splitlines()) != expected:
                why.append(f"{kind}: list gave {len(listed.out.splitlines())} skills, not {expected}")
            if "internal error" in listed.err:
                why.append(f"{kind}: list: {listed.err.strip()[:200]}")
        findings = _lint(workdir, agent, why)
        if kind != "long-line" and not any(shown.startswith(str(f.get("path"))) or
                                           str(f.get("path")).startswith(shown) for f in findings):
            why.append(f"{kind}: lint does not report {shown}")
        for args in (("usage", agent, "--now", NOW),
                     ("dream", agent, "--offline", "--now", NOW, "--plan-out", folder / "plan.json")):
            done = cli(workdir, *args)
            if _check(done, str(args[0]), why) and (done.rc != 0 or "internal error" in done.err):
                why.append(f"{kind}: {args[0]} failed: {done.err.strip()[:200]}")
        failures += _finish("unopenable", trial, why)
    return trials, failures


# ---------------------------------------------------------------- issue 35, 13: what blocks or never ends


def attack_blocking_inputs(trials: int, workdir: Path) -> tuple[int, int]:
    """A FIFO, a link to /dev/zero or a 4 GB sparse file given as ``--against``, ``--queries-file``,
    ``--directive``, a query set or a plan, or planted at the start-up code cache: every command
    ends within the timeout, without a traceback; a file option is refused (exit 2) naming it."""
    failures = 0
    from rockskills_gui.core.app.code_cache import FILE_NAME

    for trial in range(trials):
        rng, folder, agent = _fresh_agent(workdir, "blocking", trial)
        why: list[str] = []
        kind = rng.choice(("fifo", "dev-zero", "sparse"))
        place = rng.choice(("against", "queries", "directive", "query-set", "plan", "code-cache"))
        if place == "code-cache":
            cache = workdir / "userdirs" / f"cache-{trial}"
            cache.mkdir(parents=True, exist_ok=True)
            hostile = cache / FILE_NAME
        else:
            hostile = (agent / "recall-tests" if place == "query-set" else folder) / f"{_token(rng)}.json"
            hostile.parent.mkdir(exist_ok=True)
        if kind == "fifo":
            os.mkfifo(hostile)
        elif kind == "dev-zero":
            hostile.symlink_to("/dev/zero")
        else:
            with open(hostile, "wb") as handle:
                handle.truncate(4 << 30)
        args: tuple[str | Path, ...] = {
            "against": ("recall-test", agent, "--against", hostile),
            "queries": ("recall", agent, "--queries-file", hostile),
            "directive": ("dream", agent, "--offline", "--directive", f"gap={hostile}"),
            "query-set": ("recall-test", agent, hostile),
            "plan": ("apply", agent, hostile, "--accept-all"),
            "code-cache": ("list", agent),
        }[place]
        extra = {"ROCKSKILLS_CACHE_DIR": str(hostile.parent)} if place == "code-cache" else None
        done = cli(workdir, *args, extra=extra)
        if _check(done, f"{place} ({kind})", why):
            if place == "code-cache":
                if done.rc != 0 or not done.out:
                    why.append(f"code cache ({kind}): list failed: {done.err.strip()[:200]}")
            elif done.rc != 2 or str(hostile) not in done.err or "internal error" in done.err:
                why.append(f"{place} ({kind}): exit {done.rc}, {done.err.strip()[:200]!r}")
        failures += _finish("blocking", trial, why)
    return trials, failures


# ---------------------------------------------------------------- issue 35, 14: writes through links


def attack_recall_tests_links(trials: int, workdir: Path) -> tuple[int, int]:
    """``recall-tests/`` or ``recall-tests/snapshots/`` is a symbolic link leaving the library (to
    a canary folder, or dangling): ``recall-test SET --snapshot NAME`` refuses (exit 2) and
    nothing outside the library is written or created."""
    failures = 0
    for trial in range(trials):
        rng, folder, agent = _fresh_agent(workdir, "recall-links", trial)
        canary = folder / "canary"
        canary.mkdir()
        (canary / "keep.txt").write_text("canary\n")
        tests = agent / "recall-tests"
        tests.mkdir()
        query_set = tests / "set.json"
        query_set.write_text(json.dumps({"name": "set", "queries": [
            {"query": "send an email", "expected": ["mcp/email"]}]}))
        linked = rng.choice(("snapshots", "whole"))
        target = canary if rng.random() < 0.7 else folder / f"missing-{_token(rng)}"
        if linked == "whole":
            real = folder / "real-tests"
            tests.rename(real)
            if target == canary:
                shutil.copy(real / "set.json", canary / "set.json")
                query_set = tests / "set.json"
            else:
                query_set = real / "set.json"
            tests.symlink_to(target, target_is_directory=True)
        else:
            (tests / "snapshots").symlink_to(target, target_is_directory=True)
        before = snapshot(folder / "canary")
        why: list[str] = []
        done = cli(workdir, "recall-test", agent, query_set, "--snapshot", _token(rng))
        if _check(done, "recall-test --snapshot", why) and done.rc != 2:
            why.append(f"{linked} -> {target.name}: exit {done.rc}: {(done.out + done.err).strip()[:200]}")
        if snapshot(folder / "canary") != before:
            why.append(f"{linked} -> {target.name}: the canary folder changed")
        if target != canary and (target.exists() or target.is_symlink()):
            why.append(f"{linked} -> {target.name}: the link's missing target was created")
        failures += _finish("recall-links", trial, why)
    return trials, failures


Attack = Callable[[int, Path], tuple[int, int]]
ATTACKS: list[tuple[str, Attack]] = [
    ("FIFO at skills/<x>.json: dream, apply, lint", attack_fifo_json),
    ("FIFO resource in a SKILL.md skill: rename, delete, convert", attack_fifo_resource),
    ("symlinked resource leaving the library: convert, rename", attack_symlink_resource_escape),
    ("dangling symlinked resource: rename, delete, convert", attack_dangling_resource),
    ("SIGKILL mid-convert: staging left behind", attack_convert_kill),
    ("folder named <x>.json under skills/", attack_dir_json),
    ("skill file symlinked outside the library", attack_outside_link_skill),
    ("SKILL.md that is a FIFO or a folder", attack_skillmd_not_a_file),
    ("one hostile file: deep JSON, huge numbers, 4 GB files, deep folders, long lines", attack_unopenable),
    ("FIFO, /dev/zero or 4 GB file as an input or a cache", attack_blocking_inputs),
    ("recall-tests/ or snapshots/ linked outside the library", attack_recall_tests_links),
]
