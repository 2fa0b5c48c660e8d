"""What the Review page says in words (rich text): the banner of passes that did not run well,
the stale-plan line, the tick count and a proposal's state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rockskills_gui.core.dream.plan import PassStatus, Plan, Proposal
from rockskills_gui.core.dream.review_defaults import ReviewDefault
from rockskills_gui.ui.dream.common import PASS_TITLES, STATUS_TITLES
from rockskills_gui.ui.dream.run_page import BAD
from rockskills_gui.ui.dream.selection import Selection


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def banner_lines(plan: Plan, notes: Sequence[str]) -> list[str]:
    """A line per pass that failed, was refused, cancelled or skipped (with its safety-guard
    notes), then the plan's own notes; none when every pass ran."""
    lines = []
    for record in plan.passes:
        if record.status in BAD or record.status is PassStatus.SKIPPED:
            icon = "✗" if record.status in BAD else "–"
            lines.append(f"{icon} <b>{PASS_TITLES[record.dream_pass]}</b> "
                         f"{STATUS_TITLES[record.status]}: {escape(record.reason or '')}")
            lines += [f"&nbsp;&nbsp;&nbsp;{escape(n)}" for n in record.notes
                      if n.startswith("Safety guard")]
    if lines and any(r.status in BAD for r in plan.passes):
        lines.append("Proposals from a pass that failed, was refused or cancelled are not "
                     "pre-selected; tick them only if they stand on their own.")
    lines += [f"⚠ {escape(n)}" for n in notes]
    return lines


def stale_text(stale: Mapping[str, Sequence[str]]) -> str:
    """The line naming the proposals whose files changed since the plan was made ("" if none)."""
    shown = ", ".join(list(stale)[:8]) + ("…" if len(stale) > 8 else "")
    return (f"<b>The library changed since this plan was made</b>: {len(stale)} proposal(s) "
            f"touch changed files ({shown}); applying them is refused until the plan is "
            "re-checked (Apply page)." if stale else "")


def count_text(plan: Plan, selection: Selection, visible: int) -> str:
    """How many proposals are ticked, blocked, advisory and hidden by the filter."""
    blocked = sum(1 for p in plan.proposals if p.blocked)
    advisory = sum(1 for p in plan.proposals if p.advisory)
    parts = [f"<b>{len(selection)} of {len(plan.proposals)} ticked</b>"]
    if blocked:
        parts.append(f"{blocked} blocked")
    if advisory:
        parts.append(f"{advisory} advisory")
    hidden = len(plan.proposals) - visible
    if hidden:
        parts.append(f"{hidden} hidden by the filter")
    return " · ".join(parts)


def state_text(selection: Selection, defaults: Mapping[str, ReviewDefault], proposal: Proposal) -> str:
    """Whether ``proposal`` will be applied, why it cannot be, and why it started unticked."""
    why_not = selection.why_not(proposal.id)
    if why_not is not None:
        return f"<b>Cannot be applied</b>: {escape(why_not)}."
    default = defaults.get(proposal.id)
    caution = ""
    if default is not None and not default.ticked:
        caution = ("<br>Started unticked: " + "; ".join(escape(r) for r in default.reasons)
                   + ".")
    if proposal.id in selection:
        return "<b>Ticked</b>: will be applied when you press Apply." + caution
    return "Not ticked: will not be applied." + caution
