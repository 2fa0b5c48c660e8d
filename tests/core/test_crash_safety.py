"""Fault injection: SIGKILL at every write step of every multi-file operation, then reopen.

Each trial copies the sample agent, forks a child that runs one operation (save, create in a new
folder, rename with see-also rewrite, folder move, delete, undo/redo of them, dream apply and its
undo) and dies with SIGKILL at the N-th checkpoint of ``core.fileio`` (every step a crash could
interrupt: temp written, fsync, rename, link, unlink, mkdir, journal writes) — or is killed from
outside after a random delay. The library is then opened again (recovery runs) and every file's
bytes and every folder under the agent directory are compared with the state before and after the
operation: it must be exactly one of the two, with no temp files and no journal leftovers, and a
second open must find nothing left to recover.

CI runs every checkpoint of every operation plus random-delay kills (about 280 trials, ~15 s);
``-m slow`` adds thousands of random kills (see README, "Reliability").
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import AGENT, REPO, SHARED

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork and SIGKILL are POSIX-only")

OPS = ["save", "create-in-new-folder", "rename-with-rewrite", "move-folder", "delete-many",
       "delete-one", "undo-rename", "redo-delete", "dream-apply", "dream-undo",
       "archive", "restore", "restore-as", "purge", "undo-archive"]  # (issue 32: the skill archive)
MD_OPS = ["md-save", "md-create", "md-rename-with-rewrite", "md-delete-many", "md-undo-rename",
          "md-link-rename", "md-archive", "md-restore", "md-restore-as"]
# Issue 35 item 9: ``skills/`` linked inside / outside the agent folder (the outside target
# confirmed), a SKILL.md skill folder linked outside; see crash_server.LINKED.
LINK_OPS = ["link-inside-rename", "link-outside-rename", "md-link-rename"]
MD_CORPUS = SHARED / "corpora" / "anthropics-skills" / "skills"
CHAIN = ["rename-with-rewrite", "save", "delete-many", "create-in-new-folder", "undo-rename"]
Ask = Callable[..., dict[str, Any]]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("crash") / "agent"
    shutil.copytree(AGENT, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    return dest


@pytest.fixture(scope="module")
def md_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of a real SKILL.md corpus, with resources and a see-also added (crash_server.md_setup)."""
    from tests.core.crash_server import md_setup

    dest = tmp_path_factory.mktemp("crash-md") / "skills"
    shutil.copytree(MD_CORPUS, dest)
    md_setup(dest)
    return dest


@pytest.fixture(scope="module")
def ask(base: Path) -> Iterator[Ask]:
    server = subprocess.Popen([sys.executable, "-m", "tests.core.crash_server"], cwd=REPO,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    work = base.parent / "work"
    assert server.stdin is not None and server.stdout is not None

    def call(**request: Any) -> dict[str, Any]:
        request.setdefault("base", str(base))
        request.setdefault("work", str(work))
        server.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        reply = json.loads(server.stdout.readline())  # type: ignore[union-attr]
        assert "server_error" not in reply, reply.get("server_error")
        return reply

    yield call
    server.stdin.close()
    server.wait(timeout=30)


def check(reply: dict[str, Any], allowed: set[str], what: str) -> None:
    details = {k: v for k, v in reply.items() if k != "files"}
    assert "error" not in reply, f"{what}: the operation failed: {reply['error']}"
    assert reply["state"] in allowed, f"{what}: the library is neither before nor after: {details}"
    assert reply["leftovers"] == [], f"{what}: leftovers {reply['leftovers']}"
    assert reply["second_recovery"] == [], f"{what}: a second open still recovered something"


@pytest.mark.parametrize("op", OPS + LINK_OPS[:2] + MD_OPS)
def test_a_kill_at_every_write_step_leaves_the_state_before_or_after(ask: Ask, md_base: Path,
                                                                      op: str) -> None:
    if op in MD_OPS:
        ask = functools.partial(ask, base=str(md_base), work=str(md_base.parent / "work"))
    states = ask(cmd="states", op=op)
    before, after, steps = states["before"], states["after"], states["steps"]
    assert before != after and steps > 0
    outcomes: Counter[str] = Counter()
    for crash_at in range(1, steps + 1):
        reply = ask(cmd="trial", op=op, crash_at=crash_at)
        assert reply["killed"], f"{op}: checkpoint {crash_at} of {steps} was never reached"
        check(reply, {before, after}, f"{op} killed at step {crash_at}/{steps}")
        outcomes["before" if reply["state"] == before else "after"] += 1
    survived = ask(cmd="trial", op=op, crash_at=steps + 1)
    assert not survived["killed"] and survived["state"] == after
    if op != "delete-one":  # the unlink is its only step that changes the skills folder
        assert outcomes["before"] and outcomes["after"], outcomes


UNRECOVERED_OPS = ["rename-with-rewrite", "move-folder", "delete-many", "undo-rename", "redo-delete",
                   "dream-apply", "dream-undo", "md-rename-with-rewrite", "md-delete-many",
                   "md-undo-rename", *LINK_OPS, "archive", "restore", "md-archive", "md-restore"]


def unrecovered_problems(before: dict[str, str], after: dict[str, str], now: dict[str, str]) -> list[str]:
    """What is wrong with ``now``, a library left by a kill and never recovered (files: sha256).

    Each file that existed before is there as before or as after, or it is one the change removes
    -- and then every file the change creates or rewrites is already there as after (so every
    skill exists, old or new: a rename's new file before the old one goes, a folder's new copy
    complete before the old folder goes, a merged skill before its sources go). No file ends in
    ``.json`` that is not a file of the before or the after state (RockBot would load it)."""
    problems: list[str] = []
    written = {k: v for k, v in after.items() if v != "dir" and before.get(k) != v}
    for path, sha in before.items():
        if sha == "dir" or now.get(path) == sha:
            continue
        if path in after or path in now:
            if now.get(path) != after.get(path):
                problems.append(f"{path}: neither its old nor its new bytes")
            continue
        missing = sorted(k for k, v in written.items() if now.get(k) != v)
        if missing:
            problems.append(f"{path} was removed before {', '.join(missing[:3])} was written")
    for path, sha in now.items():
        if sha != "dir" and path.endswith(".json") and before.get(path) != sha \
                and after.get(path) != sha:
            problems.append(f"{path}: a file RockBot would load, in neither state")
    return problems


@pytest.mark.parametrize("op", UNRECOVERED_OPS)
def test_without_recovery_every_skill_exists_old_or_new_at_every_step(ask: Ask, md_base: Path,
                                                                     op: str) -> None:
    """Issue 35 item 10: when recovery cannot run (the journal key lived in memory only, was
    deleted, or the library was moved), a kill at any step leaves every skill in its old or its
    new form: every creation and update is written before any deletion."""
    if op in MD_OPS:
        ask = functools.partial(ask, base=str(md_base), work=str(md_base.parent / "work"))
    states = ask(cmd="states", op=op)
    before, after = states["before_files"], states["after_files"]
    for crash_at in range(1, states["steps"] + 1):
        reply = ask(cmd="raw", op=op, crash_at=crash_at)
        assert reply["killed"], f"{op}: checkpoint {crash_at} was never reached"
        problems = unrecovered_problems(before, after, reply["files"])
        assert not problems, f"{op} killed at step {crash_at}/{states['steps']}: {problems}"


def random_kills(ask: Ask, op: str, trials: int, seed: int) -> Counter[str]:
    states = ask(cmd="states", op=op)
    timing = ask(cmd="trial", op=op, crash_at=None)  # how long a whole child run takes
    assert not timing["killed"] and timing["state"] == states["after"]
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    for _ in range(trials):
        delay = rng.uniform(0.0, timing["elapsed"] * 1.1)
        reply = ask(cmd="trial", op=op, delay=delay)
        check(reply, {states["before"], states["after"]}, f"{op} killed after {delay * 1000:.1f} ms")
        outcomes["killed" if reply["killed"] else "finished"] += 1
        outcomes["before" if reply["state"] == states["before"] else "after"] += 1
    return outcomes


@pytest.mark.parametrize("op", OPS)
def test_a_kill_from_outside_at_a_random_moment(ask: Ask, op: str) -> None:
    outcomes = random_kills(ask, op, trials=5, seed=OPS.index(op))
    assert outcomes["killed"] + outcomes["finished"] == 5


def test_a_kill_anywhere_in_a_sequence_leaves_one_of_its_states(ask: Ask) -> None:
    chain = ask(cmd="chain", ops=CHAIN)["states"]
    assert len(set(chain)) == len(CHAIN) + 1  # undo-rename's rename, then back
    timing = ask(cmd="killchain", ops=CHAIN)  # not killed: how long the sequence takes
    assert not timing["killed"] and timing["state"] == chain[-1]
    rng = random.Random(7)
    seen = set()
    for _ in range(10):
        reply = ask(cmd="killchain", ops=CHAIN, delay=rng.uniform(0, timing["elapsed"]))
        check(reply, set(chain), "sequence")
        seen.add(chain.index(reply["state"]))
    assert len(seen) > 1


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_slow_many_random_kills(ask: Ask, op: str) -> None:
    outcomes = random_kills(ask, op, trials=150, seed=1)
    assert outcomes["killed"] > 50


@pytest.mark.slow
def test_slow_many_kills_in_a_sequence(ask: Ask) -> None:
    chain = ask(cmd="chain", ops=CHAIN)["states"]
    timing = ask(cmd="killchain", ops=CHAIN)
    rng = random.Random(11)
    for _ in range(300):
        reply = ask(cmd="killchain", ops=CHAIN, delay=rng.uniform(0, timing["elapsed"]))
        check(reply, set(chain), "sequence")
