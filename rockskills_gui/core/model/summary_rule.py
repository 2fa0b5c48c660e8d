"""What a format asks of a skill's one-line summary (RockBot) or description (SKILL.md formats)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SummaryRule:
    """A limit in ``unit`` ("words" or "characters"; ``limit`` None: no limit), the field's name in
    that format, who asks for it (shown in the editor's hints), and whether a skill without one
    is skipped when loading (``required``: a SKILL.md profile's ``require_description``)."""

    field: str
    unit: str
    limit: int | None
    source: str
    required: bool = False

    def measure(self, text: str) -> int:
        return len(re.findall(r"\S+", text)) if self.unit == "words" else len(text)

    def counter(self, text: str) -> str:
        """``3/15 words``, ``120/1024 characters`` or ``120 characters``."""
        value = self.measure(text)
        return f"{value}/{self.limit} {self.unit}" if self.limit is not None else f"{value} {self.unit}"

    def over(self, text: str) -> bool:
        return self.limit is not None and self.measure(text) > self.limit

    def hint(self, text: str) -> str:
        if self.limit is None:
            return f"{self.source} sets no length limit for the {self.field}."
        asks = f"{self.source} asks for a {self.field} of {self.limit} {self.unit} or fewer"
        return f"{asks}; this one has {self.measure(text)}." if self.over(text) else f"{asks}."


# RockBot's summary rule, the one place it is said (rockbot-skills.md §5: "one sentence of 15
# words or fewer"); lint, the dream checks and conversion read its limit from here.
ROCKBOT_SUMMARY_WORDS = 15
ROCKBOT_SUMMARY = SummaryRule("summary", "words", ROCKBOT_SUMMARY_WORDS, "RockBot")
