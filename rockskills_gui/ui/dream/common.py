"""Words and icons shared by the dream wizard's pages."""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QFrame, QStyle, QWidget

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import Finding, PassStatus, Proposal, ProposalKind, Severity

PASS_TITLES = {
    DreamPass.GAP: "Skill gap",
    DreamPass.CONSOLIDATE: "Consolidation",
    DreamPass.OPTIMIZE: "Optimization",
    DreamPass.OFFLINE: "Offline proposer",
    DreamPass.MCP_REFRESH: "MCP skill refresh",  # RockBot (current), #615
}
PASS_HINTS = {
    DreamPass.GAP: "new skills for requests the agent keeps handling without one "
                   "(conversation log, feedback)",
    DreamPass.CONSOLIDATE: "merge skills that do the same job, add guides for name clusters, "
                           "link skills used together",
    DreamPass.OPTIMIZE: "improve skills used in sessions that went badly, and skills too thin "
                        "to help",
}
KIND_TITLES = {
    ProposalKind.CREATE: "Create",
    ProposalKind.MERGE: "Merge",
    ProposalKind.REWRITE: "Rewrite",
    ProposalKind.DELETE: "Delete",
    ProposalKind.PRUNE: "Prune",
    ProposalKind.SEE_ALSO: "See also",
    ProposalKind.MCP_REFRESH: "MCP refresh",
}
STATUS_TITLES = {
    PassStatus.OK: "done",
    PassStatus.SKIPPED: "skipped",
    PassStatus.FAILED: "failed",
    PassStatus.REFUSED: "refused",
    PassStatus.CANCELLED: "cancelled",
    PassStatus.PROMPT_ONLY: "prompt only",
}
SEVERITY_ORDER = {Severity.BLOCK: 0, Severity.WARN: 1, Severity.INFO: 2}
SEVERITY_WORDS = {Severity.BLOCK: "Blocks", Severity.WARN: "Warning", Severity.INFO: "Note"}


SHOWN_CHARS = 2_000_000  # of a reply or a prompt shown in a text view (a plan file can hold more)
SHOWN_LINE = 10_000  # longer lines are shown in pieces: Qt lays out a 1 MB line for ~50 s


def viewable(text: str) -> str:
    """``text`` for a plain-text view: at most :data:`SHOWN_CHARS` characters (the rest counted
    at the end) and no line longer than :data:`SHOWN_LINE` (cut into pieces), so that a hostile
    reply of megabytes on one line shows at once (issue 35, item 15)."""
    shown = text[:SHOWN_CHARS]
    if any(len(line) > SHOWN_LINE for line in shown.split("\n")):
        shown = "\n".join(line[i:i + SHOWN_LINE] for line in shown.split("\n")
                          for i in range(0, max(len(line), 1), SHOWN_LINE))
    if len(text) > SHOWN_CHARS:
        shown += f"\n… ({len(text) - SHOWN_CHARS:,} more characters not shown)"
    return shown


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def severity_icon(severity: Severity | None, widget: QWidget | None = None) -> QIcon:
    """The style's critical, warning or information icon (no colours of our own)."""
    style = widget.style() if widget is not None else QApplication.style()
    pixmap = {
        Severity.BLOCK: QStyle.StandardPixmap.SP_MessageBoxCritical,
        Severity.WARN: QStyle.StandardPixmap.SP_MessageBoxWarning,
        Severity.INFO: QStyle.StandardPixmap.SP_MessageBoxInformation,
    }.get(severity) if severity is not None else None
    return style.standardIcon(pixmap) if pixmap is not None else QIcon()


def worst(findings: list[Finding]) -> Severity | None:
    if not findings:
        return None
    return min((f.severity for f in findings), key=lambda s: SEVERITY_ORDER[s])


def sorted_findings(proposal: Proposal) -> list[Finding]:
    return sorted(proposal.findings, key=lambda f: SEVERITY_ORDER[f.severity])


def finding_counts(proposal: Proposal) -> str:
    """``1 blocks · 2 warnings`` or ""."""
    counts = {s: sum(1 for f in proposal.findings if f.severity is s) for s in Severity}
    parts = []
    if counts[Severity.BLOCK]:
        parts.append(f"{counts[Severity.BLOCK]} block{'s' if counts[Severity.BLOCK] != 1 else ''}")
    if counts[Severity.WARN]:
        parts.append(plural(counts[Severity.WARN], "warning"))
    if counts[Severity.INFO]:
        parts.append(plural(counts[Severity.INFO], "note"))
    return " · ".join(parts)


def pass_label(dream_pass: DreamPass) -> str:
    if dream_pass is DreamPass.OFFLINE:
        return "offline proposer (no LLM)"
    return f"{PASS_TITLES[dream_pass].lower()} pass"


def panel(widget: QFrame, name: str) -> QFrame:
    """A framed box in palette colours (findings, banners)."""
    widget.setObjectName(name)
    widget.setFrameShape(QFrame.Shape.StyledPanel)
    widget.setStyleSheet(f"#{name} {{ background: palette(alternate-base); border: 1px solid "
                         "palette(mid); border-radius: 4px; }")
    return widget
