"""What a format asks of a skill's one-line summary (RockBot) or description (SKILL.md formats)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SummaryRule:
    """A limit in ``unit`` ("words" or "characters"; ``limit`` None: no limit), the field's name in
    that format, and who asks for it (shown in the editor's hints)."""

    field: str
    unit: str
    limit: int | None
    source: str

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


ROCKBOT_SUMMARY = SummaryRule("summary", "words", 15, "RockBot")


def skill_md_rule(profile_label: str, limit: int | None) -> SummaryRule:
    """The description rule of a SKILL.md profile (e.g. Agent Skills: 1024 characters)."""
    return SummaryRule("description", "characters", limit, profile_label)
