"""The records usage analysis is made of: a session in the window and a co-occurrence pair."""

from __future__ import annotations

from dataclasses import dataclass

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.timestamps import Timestamp


@dataclass(frozen=True, slots=True)
class Session:
    """A session in the window: id (case-sensitive), first/last event, distinct skills in use order."""

    id: str
    first: Timestamp
    last: Timestamp
    events: int
    skills: tuple[str, ...]
    keys: frozenset[str] = frozenset()  # folded skill names

    def uses(self, name: str) -> bool:
        return fold(name) in self.keys


@dataclass(frozen=True, slots=True)
class Pair:
    """A co-occurrence pair under RockBot's key ``a|b`` and its session count."""

    key: str
    sessions: int

    @property
    def a(self) -> str:
        return self.key.split("|")[0]  # RockBot prints pair.Split('|')[0] and [1]

    @property
    def b(self) -> str:
        return self.key.split("|")[1]

    def line(self) -> str:
        """RockBot's prompt line ``- {a} + {b}: {n} session(s)``."""
        return f"- {self.a} + {self.b}: {self.sessions} session(s)"
