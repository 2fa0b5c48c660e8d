"""Replies already seen, so a run asks only what it has not asked before.

The key is a sha256 of (model, the presentation's fingerprint: listing and tool, the query, the
run index): run 2 of a query is its own sample, and a changed description changes the listing, so
every query is asked again. Kept in the app's cache folder (``trigger-evals.sqlite3``, 0600; never
in a library), at most :data:`MAX_ROWS` outcomes (the oldest go first). Only outcomes of a reply
are kept: a failed request is asked again next time. A damaged file is set aside: the run goes
on without a cache and says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import stat
import statistics
import time
from pathlib import Path

from rockskills_gui.core.evals.detect import ERROR, RunOutcome
from rockskills_gui.core.storage.appdirs import cache_dir

FILE_NAME = "trigger-evals.sqlite3"
MAX_ROWS = 200_000
KEY_VERSION = "1"
log = logging.getLogger(__name__)


def cache_key(model: str, fingerprint: str, query: str, run: int) -> str:
    """The key of run ``run`` (0-based) of ``query`` shown ``fingerprint`` by ``model``."""
    text = json.dumps([KEY_VERSION, model, fingerprint, query, run], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class OutcomeCache:
    """Outcomes by key, in SQLite. Use from one thread (the run's)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else cache_dir() / FILE_NAME
        self.problem = ""
        self._db: sqlite3.Connection | None = None
        try:
            self._db = self._open()
        except (OSError, sqlite3.Error) as exc:
            self.problem = f"the trigger-eval cache {self.path} cannot be used ({exc}); nothing is cached"
            log.warning("%s", self.problem)

    def _connect(self) -> sqlite3.Connection:
        """The database, created 0600 (a symbolic link or a FIFO in its place is refused)."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK
                     | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{self.path} is not a regular file")
        finally:
            os.close(fd)
        db = sqlite3.connect(self.path, timeout=5.0)
        try:
            db.execute("CREATE TABLE IF NOT EXISTS outcomes (key TEXT PRIMARY KEY, model TEXT, "
                       "outcome TEXT, elapsed REAL, saved REAL)")
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _open(self) -> sqlite3.Connection:
        try:
            db = self._connect()
        except sqlite3.DatabaseError:  # not a database: set it aside, start again
            os.replace(self.path, self.path.with_name(self.path.name + ".damaged"))
            db = self._connect()
        (count,) = db.execute("SELECT COUNT(*) FROM outcomes").fetchone()
        if count > MAX_ROWS:
            db.execute("DELETE FROM outcomes WHERE rowid IN (SELECT rowid FROM outcomes "
                       "ORDER BY saved LIMIT ?)", (count - MAX_ROWS,))
        db.commit()
        return db

    @property
    def usable(self) -> bool:
        return self._db is not None

    def get_many(self, keys: list[str]) -> dict[str, RunOutcome]:
        """The outcomes known for ``keys``."""
        found: dict[str, RunOutcome] = {}
        if self._db is None:
            return found
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._db.execute(f"SELECT key, outcome FROM outcomes WHERE key IN ({marks})",
                                        chunk).fetchall()
            except sqlite3.Error as exc:
                self._fail(exc)
                return found
            for key, text in rows:
                try:
                    outcome = RunOutcome.from_json(json.loads(text))
                except ValueError:
                    outcome = None
                if outcome is not None:
                    found[key] = outcome
        return found

    def put(self, key: str, model: str, outcome: RunOutcome, elapsed: float) -> None:
        """Keep ``outcome`` (not a failed request's)."""
        if self._db is None or outcome.status == ERROR:
            return
        try:
            self._db.execute("INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?, ?, ?)",
                             (key, model, json.dumps(outcome.as_json(), ensure_ascii=False), elapsed,
                              time.time()))
        except sqlite3.Error as exc:
            self._fail(exc)

    def commit(self) -> None:
        if self._db is not None:
            try:
                self._db.commit()
            except sqlite3.Error as exc:
                self._fail(exc)

    def typical_latency(self, model: str) -> float | None:
        """The median seconds of the last 200 requests to ``model``, if any were kept."""
        if self._db is None:
            return None
        try:
            rows = self._db.execute("SELECT elapsed FROM outcomes WHERE model = ? AND elapsed > 0 "
                                    "ORDER BY saved DESC LIMIT 200", (model,)).fetchall()
        except sqlite3.Error:
            return None
        return statistics.median(r[0] for r in rows) if rows else None

    def close(self) -> None:
        if self._db is not None:
            self.commit()
            self._db.close()
            self._db = None

    def _fail(self, exc: sqlite3.Error) -> None:
        self.problem = f"the trigger-eval cache stopped working ({exc}); nothing more is cached"
        log.warning("%s", self.problem)
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
