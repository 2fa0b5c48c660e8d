"""Fault-injection server: runs library operations in forked children that are SIGKILLed mid-write.

Started by ``test_crash_safety.py`` as ``python -m tests.core.crash_server``; reads one JSON request
per line on stdin and answers one JSON line on stdout. It imports the core once; every trial is a
``fork()``: the child arms :func:`fileio.arm_crash` (or is killed from outside after a delay) and
runs one operation; the parent waits for it, then opens the library again (recovery runs there)
and describes what is on disk. Requests:

- ``{"cmd": "states", "op", "base", "work"}``: the state before and after ``op`` (no crash), and the
  number of checkpoints the operation passes.
- ``{"cmd": "trial", "op", "base", "work", "crash_at"}``: kill at that checkpoint, recover, report.
- ``{"cmd": "kill", "op", "base", "work", "delay"}``: kill from outside after ``delay`` seconds.
- ``{"cmd": "raw", "op", "base", "work", "crash_at"}``: kill at that checkpoint and describe the
  disk with plain reads only, as a library nobody can recover (no journal key, moved, ...) is.
- ``{"cmd": "chain", "ops", "base", "work"}``: the states a sequence passes through.
- ``{"cmd": "killchain", "ops", "base", "work", "delay"}``: the sequence, killed after ``delay``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rockskills_gui.core.dream.apply import apply_plan, undo_last
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.run import PastedReplies, RunOptions, run_dream
from rockskills_gui.core.library.archive import archive_skills, purge_archive, restore_skill
from rockskills_gui.core.library.formats import detect
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, journal

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
JOURNAL = ".rockskills/journal"
SHARED = Path(os.environ.get("ROCKSKILLS_SHARED", Path(__file__).resolve().parents[3] / "shared"))
EXAMPLE = json.loads((SHARED / "fixtures/rockbot-agent-expected/apply-consolidation-example.json")
                     .read_text(encoding="utf-8"))


def clock() -> Timestamp:
    return NOW


def open_lib(work: Path) -> RockBotLibrary | SkillMdLibrary:
    """The RockBot agent (with the fixed clock), or a SKILL.md folder as its detected format;
    the link targets of :data:`LINKED` are confirmed (as the user would, once)."""
    targets = [elsewhere(work)] if elsewhere(work).exists() else []
    if detect(work).format == "rockbot":
        return RockBotLibrary.open(work, clock=clock, link_targets=targets)
    library = open_library(work, OpenOptions(link_targets=tuple(targets)))
    library.clock = clock
    return library


def elsewhere(work: Path) -> Path:
    """A folder beside the library, outside it: where a link may lead (a confirmed target)."""
    return work.parent / f"{work.name}-elsewhere"


def _link_skills(work: Path, outside: bool) -> None:
    """``skills/`` becomes a symbolic link to a folder inside the agent folder, or outside it."""
    target = elsewhere(work) / "skills" if outside else work / "store" / "skills"
    target.parent.mkdir(parents=True)
    shutil.move(work / "skills", target)
    (work / "skills").symlink_to(target if outside else Path("store") / "skills",
                                 target_is_directory=True)


def _link_skill_folder(work: Path) -> None:
    """The SKILL.md skill ``mcp-builder`` (with resources) is a link to a folder outside."""
    target = elsewhere(work) / "mcp-builder"
    target.parent.mkdir(parents=True)
    shutil.move(work / "mcp-builder", target)
    (work / "mcp-builder").symlink_to(target, target_is_directory=True)


# Operations run on a library with a symbolic link on the way (issue 35 item 9): the layout made
# after the copy.
LINKED: dict[str, Callable[[Path], None]] = {
    "link-inside-rename": lambda work: _link_skills(work, outside=False),
    "link-outside-rename": lambda work: _link_skills(work, outside=True),
    "md-link-rename": _link_skill_folder,
}


def consolidation(lib: RockBotLibrary) -> Any:
    options = RunOptions(passes=[DreamPass.CONSOLIDATE], now=NOW)
    plan = run_dream(lib, options, PastedReplies([json.dumps(EXAMPLE["llm_result"])]))
    plan.created_at = NOW.isoformat()  # the archive's records name the plan: the same in every trial
    return plan


def apply_all(lib: RockBotLibrary, plan: Any) -> object:
    return apply_plan(lib, plan, plan.acceptable_ids())


# Each operation: setup (not armed; its result is the "before" state), then act (armed).
Setup = Callable[[Any], Any]
Act = Callable[[Any, Any], object]


def _noop(lib: RockBotLibrary) -> None:
    del lib


OPS: dict[str, tuple[Setup, Act]] = {
    "save": (_noop, lambda lib, _: lib.update("mcp/email", content="# Email\n\nRewritten.\n")),
    "create-in-new-folder": (_noop, lambda lib, _: lib.create("ops/runbooks/restart-service",
                                                              "Restart a service", "1. Check.\n")),
    "rename-with-rewrite": (_noop, lambda lib, _: lib.rename("schedule-meeting", "meetings/schedule")),
    "move-folder": (_noop, lambda lib, _: lib.rename_many(
        {"research/summarize-paper": "reading/summarize-paper",
         "research/summarize-article": "reading/summarize-article"})),
    "delete-many": (_noop, lambda lib, _: lib.delete_many(
        ["legacy/fax-sender", "legacy/print-labels", "travel/expense-report", "mcp/weather"])),
    "delete-one": (_noop, lambda lib, _: lib.delete("write-report")),
    "undo-rename": (lambda lib: lib.rename("mcp/email", "mail/email"), lambda lib, _: lib.undo()),
    "redo-delete": (lambda lib: (lib.delete_many(["legacy/fax-sender", "scripts/csv-processing"]),
                                 lib.undo()), lambda lib, _: lib.redo()),
    "dream-apply": (consolidation, apply_all),
    "dream-undo": (lambda lib: apply_all(lib, consolidation(lib)), lambda lib, _: undo_last(lib)),
    # SKILL.md (Agent Skills) folder, see MD_SETUP: a skill is a folder with resources
    "md-save": (_noop, lambda lib, _: lib.update("frontend-design", content="# Rewritten\n")),
    "md-create": (_noop, lambda lib, _: lib.create("release-notes", "Write release notes.", "1. Go.\n")),
    "md-rename-with-rewrite": (_noop, lambda lib, _: lib.rename("mcp-builder", "mcp-server-builder")),
    "md-delete-many": (_noop, lambda lib, _: lib.delete_many(["mcp-builder", "theme-factory"])),
    "md-undo-rename": (lambda lib: lib.rename("mcp-builder", "mcp-server-builder"),
                       lambda lib, _: lib.undo()),
    "link-inside-rename": (_noop, lambda lib, _: lib.rename("schedule-meeting", "meetings/schedule")),
    "link-outside-rename": (_noop, lambda lib, _: lib.rename("schedule-meeting", "meetings/schedule")),
    "md-link-rename": (_noop, lambda lib, _: lib.rename("mcp-builder", "mcp-server-builder")),
    # Issue 32: the skill archive (RockBot: .rockskills/archive/, SKILL.md: <root>/.archive/)
    "archive": (_noop, lambda lib, _: archive_skills(lib, ["mcp/email", "write-report"])),
    "restore": (lambda lib: archive_skills(lib, ["mcp/email", "write-report"]),
                lambda lib, _: restore_skill(lib, "mcp/email")),
    "restore-as": (lambda lib: archive_skills(lib, ["write-report"]),
                   lambda lib, _: restore_skill(lib, "write-report", as_name="reports/write")),
    "purge": (lambda lib: archive_skills(lib, ["mcp/email", "legacy/fax-sender"]),
              lambda lib, _: purge_archive(lib, 0, NOW.add_days(1))),
    "undo-archive": (lambda lib: archive_skills(lib, ["mcp/email"]), lambda lib, _: lib.undo()),
    "md-archive": (_noop, lambda lib, _: archive_skills(lib, ["mcp-builder", "theme-factory"])),
    "md-restore": (lambda lib: archive_skills(lib, ["mcp-builder"]),
                   lambda lib, _: restore_skill(lib, "mcp-builder")),
    "md-restore-as": (lambda lib: archive_skills(lib, ["mcp-builder"]),
                      lambda lib, _: restore_skill(lib, "mcp-builder", as_name="mcp-server-builder")),
}
MD_RESOURCES = {"mcp-builder": ("scripts/check.py", "references/protocol.md")}


def md_setup(folder: Path) -> None:
    """Give a copied SKILL.md corpus what the md-* operations need: resources and a see-also."""
    for skill, files in MD_RESOURCES.items():
        for rel in files:
            (folder / skill / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / skill / rel).write_text(f"# {rel}\n", encoding="utf-8")
    open_library(folder).update("skill-creator", see_also=["mcp-builder", "theme-factory"])


def snapshot(agent: Path) -> dict[str, str]:
    """Every file (sha256) and folder under the agent directory, the journal (and the folder
    holding it) excluded, the skill archive included (symbolic links to folders followed: what is
    behind them is the library too)."""
    state: dict[str, str] = {}
    for folder, dirs, files in os.walk(agent, followlinks=True):
        rel_folder = Path(folder).relative_to(agent).as_posix()
        if rel_folder == JOURNAL or rel_folder.startswith(JOURNAL + "/"):
            continue
        for name in dirs:
            rel = f"{rel_folder}/{name}" if rel_folder != "." else name
            if rel not in (".rockskills", JOURNAL):
                state[rel + "/"] = "dir"
        for name in files:
            rel = f"{rel_folder}/{name}" if rel_folder != "." else name
            state[rel] = hashlib.sha256((Path(folder) / name).read_bytes()).hexdigest()
    return state


def digest(state: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def leftovers(agent: Path) -> list[str]:
    """Temp files anywhere, and journal entries that should not be there after recovery."""
    found = [(Path(folder) / name).relative_to(agent).as_posix()
             for folder, _dirs, files in os.walk(agent, followlinks=True) for name in files
             if name.endswith(fileio.TEMP_SUFFIX)]
    root = journal.journal_root(agent)
    if root.is_dir():
        for folder in root.iterdir():
            if not (folder / journal.JOURNAL_FILE).exists():
                found.append(f"unfinished journal entry {folder.name}")
    for tx in journal.transactions(agent):
        if tx.state is journal.TxState.PREPARED:
            found.append(f"prepared transaction {tx.id}")
        if tx.ephemeral:
            found.append(f"finished library transaction {tx.id} not removed")
    return found


def fresh(base: Path, work: Path, op: str | None = None) -> None:
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(elsewhere(work), ignore_errors=True)
    shutil.copytree(base, work)
    if op in LINKED:
        LINKED[op](work)


_READY: list[int] = []  # in a child: the pipe to say "set up, the operation starts now" on


def ready() -> None:
    """In a child: the setup is done; a kill from outside is timed from here (never in the setup)."""
    if _READY:
        os.write(_READY.pop(), b"1")


def run_in_child(body: Callable[[], None], kill_after: float | None = None,
                 waits: bool = False) -> dict[str, Any]:
    """Fork, run ``body`` in the child; returns how the child ended. ``waits``: ``body`` calls
    :func:`ready` after its setup, and ``kill_after`` counts from then."""
    result_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"crash-server-{os.getpid()}.json"
    result_file.unlink(missing_ok=True)
    signal_read, signal_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(signal_read)
        _READY[:] = [signal_write]
        code = 0
        try:
            body()
            result_file.write_text(json.dumps({"steps": fileio.steps()}))
        except BaseException:
            result_file.write_text(json.dumps({"error": traceback.format_exc()}))
            code = 3
        os._exit(code)
    os.close(signal_write)
    if waits:
        os.read(signal_read, 1)  # (empty when the child ended first)
    os.close(signal_read)
    started = time.perf_counter()
    if kill_after is not None:
        time.sleep(kill_after)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    out: dict[str, Any] = {"killed": os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL,
                           "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                           "elapsed": time.perf_counter() - started}
    if result_file.exists():  # may be empty: killed while writing it, after the operation
        text = result_file.read_text()
        result_file.unlink()
        if text:
            out.update(json.loads(text))
    return out


def after_crash(work: Path) -> dict[str, Any]:
    """Open again (recovery), then describe the disk; a second open must find nothing to do."""
    lib = open_lib(work)
    recovery = lib.recovery.lines() if lib.recovery is not None else []
    state = snapshot(work)
    again = open_lib(work)
    return {"state": digest(state), "files": state, "recovery": recovery, "skills": len(lib),
            "leftovers": leftovers(work),
            "second_recovery": again.recovery.lines() if again.recovery is not None else []}


def handle(request: dict[str, Any]) -> dict[str, Any]:
    base, work = Path(request["base"]), Path(request["work"])
    cmd = request["cmd"]
    if cmd in ("chain", "killchain"):
        ops = request["ops"]
        fresh(base, work)

        def sequence(states: list[str] | None = None) -> None:
            lib = open_lib(work)
            for name in ops:
                setup, act = OPS[name]
                prepared = setup(lib)
                if states is not None:  # a setup may write too (undo-rename renames first)
                    states.append(digest(snapshot(work)))
                act(lib, prepared)
                if states is not None:
                    states.append(digest(snapshot(work)))

        if cmd == "chain":
            states = [digest(snapshot(work))]
            sequence(states)
            return {"states": states}
        out = run_in_child(sequence, kill_after=request.get("delay"))
        return {**out, **after_crash(work)}
    setup, act = OPS[request["op"]]
    if cmd == "states":
        fresh(base, work, request["op"])
        lib = open_lib(work)
        prepared = setup(lib)
        before = snapshot(work)
        fileio.arm_crash(None)
        act(lib, prepared)
        steps = fileio.steps()
        after = snapshot(work)
        return {"before": digest(before), "after": digest(after), "steps": steps,
                "changed": sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)),
                "before_files": before, "after_files": after}
    fresh(base, work, request["op"])

    def body() -> None:
        lib = open_lib(work)
        prepared = setup(lib)
        ready()
        fileio.arm_crash(request.get("crash_at"))
        act(lib, prepared)

    out = run_in_child(body, kill_after=request.get("delay"), waits=True)
    if cmd == "raw":  # nothing opens the library: no recovery runs
        return {**out, "files": snapshot(work)}
    return {**out, **after_crash(work)}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = handle(json.loads(line))
        except Exception:
            reply = {"server_error": traceback.format_exc()}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
