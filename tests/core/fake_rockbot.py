"""A process behaving like a running RockBot agent on a skills folder (for the live-agent tests).

    python -m tests.core.fake_rockbot AGENT_DIR LOG STOP_FILE [--seed N] [--max-ops N]

Like RockBot (rockbot-skills.md §4, §5, §9) it loads every ``skills/**/*.json`` into a cache once and
then works from the cache: ``save_skill`` writes a fresh record, ``get_skill`` re-saves the cached
record with ``lastUsedAt = now`` and appends a usage event to ``skill-usage/<session>.jsonl``,
``delete_skill`` unlinks the file, and the starter-skill service re-creates starter skills that
are missing. Writes are what .NET's ``File.WriteAllTextAsync`` does: truncate the file in place
and write it (here in two halves with a pause between, to widen the window in which the file is
half-written). Each record is in RockBot's exact format and carries a unique marker.

A reader thread re-reads every skill file in a loop (never while this process itself is writing
one) and parses it as JSON: any file it finds incomplete was written by someone else, non-atomically.

Every write and delete is logged to LOG as one JSON line: path, sha256 of the result (null when
deleted), and the CLOCK_MONOTONIC interval it took (comparable across processes on Linux), so a
test can order it against its own writes. The run ends when STOP_FILE exists (or after --max-ops);
the last line of LOG is a summary with the reader's findings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.skill import Skill, skill_from_bytes, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp

STARTERS = ("a2a", "mcp", "web", "scripts", "memory", "scheduling", "subagent", "skills")
HOT = ("mcp/email", "write-report", "plan-meeting", "daily-standup")  # the test edits these often
SESSION = "cli-session"


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class FakeAgent:
    def __init__(self, agent: Path, log: Path, seed: int) -> None:
        self.agent = agent
        self.skills_dir = agent / "skills"
        self.log = open(log, "a", encoding="utf-8")
        self.rng = random.Random(seed)
        self.lock = threading.Lock()  # held while this process writes a skill file
        self.cache: dict[str, Skill] = {}
        self.seq = 0
        self.partial_reads: list[str] = []
        self.reads = 0
        self.load()

    # ---------------------------------------------------------------- RockBot's store

    def path_for(self, name: str) -> Path:
        return self.skills_dir.joinpath(*name.split("/")[:-1], name.split("/")[-1] + ".json")

    def load(self) -> None:
        """What RockBot does at start: read every file into the cache (unreadable ones skipped)."""
        self.cache = {}
        for path in sorted(self.skills_dir.rglob("*.json")):
            try:
                skill = skill_from_bytes(path.read_bytes())
            except (OSError, ValueError):
                continue
            self.cache[skill.name.upper()] = skill

    def write(self, name: str, skill: Skill | None) -> None:
        """Truncate-and-write in place (or unlink), logged with its time interval."""
        path = self.path_for(name)
        with self.lock:
            t0 = time.monotonic_ns()
            if skill is None:
                try:
                    path.unlink()
                except FileNotFoundError:
                    return
                data = None
            else:
                data = skill_to_bytes(skill)
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "wb") as handle:  # O_TRUNC on the existing file, like .NET
                    half = len(data) // 2
                    handle.write(data[:half])
                    handle.flush()
                    time.sleep(0.0003)
                    handle.write(data[half:])
            t1 = time.monotonic_ns()
        self.record({"agent": True, "path": str(path), "sha": sha(data), "t0": t0, "t1": t1})

    def record(self, entry: dict[str, Any]) -> None:
        self.log.write(json.dumps(entry) + "\n")
        self.log.flush()

    # ---------------------------------------------------------------- tools

    def save_skill(self, name: str) -> None:
        self.seq += 1
        now = Timestamp.now()
        old = self.cache.get(name.upper())
        skill = Skill(name=name, summary="", content=f"# {name}\n\nagent write #{self.seq}\n",
                      created_at=old.created_at if old else now, updated_at=now)
        self.cache[name.upper()] = skill
        self.write(name, skill)

    def get_skill(self, name: str) -> None:
        skill = self.cache.get(name.upper())
        if skill is None:
            return
        self.seq += 1
        skill = skill.model_copy(update={"last_used_at": Timestamp.now()})
        self.cache[name.upper()] = skill
        self.write(skill.name, skill)
        line = (f'{{"id":"{self.seq:012x}","skillName":"{name}","sessionId":"{SESSION}",'
                f'"timestamp":"{Timestamp.now().isoformat()}"}}\n')
        usage = self.agent / "skill-usage"
        usage.mkdir(exist_ok=True)
        with open(usage / f"{SESSION}.jsonl", "a", encoding="utf-8") as handle:
            handle.write(line)

    def delete_skill(self, name: str) -> None:
        if self.cache.pop(name.upper(), None) is not None:
            self.write(name, None)

    def seed_starters(self) -> None:
        """StarterSkillService: a missing starter skill is written again."""
        for name in STARTERS:
            if not self.path_for(name).exists():
                self.save_skill(name)

    # ---------------------------------------------------------------- loops

    def reader(self, stop: threading.Event) -> None:
        while not stop.is_set():
            with self.lock:
                for path in self.skills_dir.rglob("*.json"):
                    try:
                        data = path.read_bytes()
                    except OSError:
                        continue  # deleted meanwhile
                    self.reads += 1
                    try:
                        json.loads(data)
                    except ValueError:
                        self.partial_reads.append(f"{path}: {data[:60]!r}…{data[-30:]!r}")
            time.sleep(0.001)

    def run(self, stop_file: Path, max_ops: int) -> None:
        stop = threading.Event()
        thread = threading.Thread(target=self.reader, args=(stop,), daemon=True)
        thread.start()
        ops = 0
        try:
            while not stop_file.exists() and ops < max_ops:
                names = sorted(s.name for s in self.cache.values())
                if self.rng.random() < 0.4:
                    names = [n for n in names if n in HOT] or names
                roll = self.rng.random()
                if roll < 0.35 and names:
                    self.get_skill(self.rng.choice(names))
                elif roll < 0.65:
                    pool = names if names and self.rng.random() < 0.8 else []
                    self.save_skill(self.rng.choice(pool) if pool
                                    else f"agent/learned-{self.rng.randrange(40)}")
                elif roll < 0.75 and names:
                    self.delete_skill(self.rng.choice(names))
                elif roll < 0.85:
                    self.delete_skill(self.rng.choice(STARTERS))
                elif roll < 0.93:
                    self.seed_starters()
                else:
                    self.load()  # a restart: the cache catches up with the disk
                ops += 1
                time.sleep(self.rng.uniform(0.001, 0.006))
        finally:
            stop.set()
            thread.join()
            self.record({"summary": True, "ops": ops, "reads": self.reads,
                         "partial_reads": self.partial_reads})
            self.log.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("agent", type=Path)
    parser.add_argument("log", type=Path)
    parser.add_argument("stop", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-ops", type=int, default=1_000_000)
    args = parser.parse_args()
    FakeAgent(args.agent, args.log, args.seed).run(args.stop, args.max_ops)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
