"""What a dream reads: the skills, the event logs and the instant it runs at."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.usage.events import (
    ConversationTurn,
    EventLog,
    FeedbackEntry,
    UsageEvent,
    read_conversation_log,
    read_feedback,
    read_usage,
)


@dataclass(frozen=True)
class DreamInputs:
    """Event logs and ``now``; the skills come separately because each pass sees a different set."""

    now: Timestamp
    usage: EventLog[UsageEvent] = field(default_factory=EventLog)
    feedback: EventLog[FeedbackEntry] = field(default_factory=EventLog)
    conversation: EventLog[ConversationTurn] = field(default_factory=EventLog)

    @classmethod
    def read(cls, agent_dir: Path, now: Timestamp) -> DreamInputs:
        """Read ``skill-usage/``, ``feedback/`` and ``conversation-log/turns.jsonl`` of an agent."""
        return cls(now=now, usage=read_usage(agent_dir), feedback=read_feedback(agent_dir),
                   conversation=read_conversation_log(agent_dir))

    def unreadable(self) -> list[str]:
        """A note per log file or folder that could not be read at all (the dream runs without
        it; an unreadable ``feedback/`` is no reason to fail)."""
        return [f"{bad.path}: {bad.reason}; this pass ran without it"
                for log in (self.usage, self.feedback, self.conversation)
                for bad in log.malformed if bad.line == 0]
