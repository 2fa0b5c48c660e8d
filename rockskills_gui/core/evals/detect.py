"""Which listed skill one reply activates: the first tool call decides, as skill-creator's
``run_eval.py`` does (a first call to another tool, or none, is no trigger).

The skill name in the call's argument is matched exactly, else case-insensitively (Gemini CLI
and RockBot look skills up that way). A reply that cannot be read, a call whose arguments are not
a JSON object, or a name that is not in the listing is ``invalid``: it counts as "no trigger" for
that run and is reported with one line saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rockskills_gui.core.evals.presentation import Presentation
from rockskills_gui.core.llm.tool_calls import ToolReply
from rockskills_gui.core.model.names import fold

ACTIVATED = "activated"  # the first call activated a listed skill
NO_CALL = "no-call"  # the model answered without a tool call
OTHER_TOOL = "other-tool"  # the first call was to another tool
INVALID = "invalid"  # the reply or the call could not be read
ERROR = "error"  # no reply (the request failed after its retries)
STATUSES = (ACTIVATED, NO_CALL, OTHER_TOOL, INVALID, ERROR)
DETAIL_KEPT = 300


@dataclass(frozen=True)
class RunOutcome:
    """One run of one query: the skill activated (None: none) and how the reply was read."""

    skill: str | None
    status: str
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"skill": self.skill, "status": self.status, "detail": self.detail}

    @classmethod
    def from_json(cls, data: object) -> RunOutcome | None:
        """The outcome stored as :meth:`as_json`, or None when ``data`` is not one."""
        if not isinstance(data, dict):
            return None
        skill, status, detail = data.get("skill"), data.get("status"), data.get("detail", "")
        if status not in STATUSES or not (skill is None or isinstance(skill, str)):
            return None
        return cls(skill, status, detail if isinstance(detail, str) else "")


def failed(status: str, detail: str) -> RunOutcome:
    return RunOutcome(None, status, detail[:DETAIL_KEPT])


def detect(reply: ToolReply, presentation: Presentation) -> RunOutcome:
    """The outcome of ``reply`` for a request that offered ``presentation``'s tool."""
    if not reply.calls:
        return RunOutcome(None, NO_CALL)
    call = reply.calls[0]
    tool = presentation.tool
    if call.name != tool.name and fold(call.name) != fold(tool.name):
        return RunOutcome(None, OTHER_TOOL, f"first call: {call.name[:80]}")
    if call.arguments is None:
        return failed(INVALID, f"{tool.name}'s arguments are not a JSON object: {call.raw_arguments}")
    value = call.arguments.get(tool.argument)
    if not isinstance(value, str):
        return failed(INVALID, f"{tool.name} called without a {tool.argument!r} text")
    name = presentation.skill_called(value)
    if name is None:
        return failed(INVALID, f"{tool.name} asked for {value[:80]!r}, which is not in the listing")
    return RunOutcome(name, ACTIVATED)
