"""How the Library tree shows an ``mcp/{server}`` skill's MCP freshness (RockBot (current)):
a short dimmed marker after the name and tooltip lines (no Qt; the model draws them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rockskills_gui.core.model.mcp_freshness import SkillFreshness


def freshness_marker(found: SkillFreshness) -> str:
    """``Unknown · no baseline``, ``Unknown · v1.4.0 baseline``, ``Stale · baseline``..."""
    base = found.baseline
    brief = ("no baseline" if base is None else
             f"v{base.version} baseline" if base.version else "baseline")
    return f"{found.status} · {brief}"


def freshness_tip(found: SkillFreshness) -> list[str]:
    """Tooltip lines (HTML): the status with RockBot's reason, then the baseline it rests on."""
    import html  # (tooltips are asked for on hover: not at start)

    lines = [f"MCP freshness: <b>{found.status}</b>"
             + (f" — {html.escape(found.reason)}" if found.reason else "")]
    base = found.baseline
    if base is None:
        lines.append("RockBot (current) records a surface baseline when it saves an "
                     "mcp/{server} skill while the server is connected.")
    else:
        facts = [f"server '{base.server_name}'" if base.server_name else None,
                 f"v{base.version}" if base.version else None,
                 f"recorded {base.recorded_at}" if base.recorded_at else None]
        lines.append("Baseline: " + html.escape(", ".join(f for f in facts if f) or "empty")
                     + ". Fresh, Stale or Renamed needs the live server's surface (offline: "
                     "Unknown).")
    return lines
