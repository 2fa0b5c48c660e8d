"""The three skill dream passes and RockBot's constants for them (rockbot-skills.md §10, §12)."""

from __future__ import annotations

from enum import StrEnum


class DreamPass(StrEnum):
    """A skill dream pass, in RockBot's order; ``OFFLINE`` marks proposals made without an LLM."""

    GAP = "gap"
    CONSOLIDATE = "consolidate"
    OPTIMIZE = "optimize"
    MCP_REFRESH = "mcp-refresh"  # RockBot (current): stale mcp/ skills rewritten (#615)
    OFFLINE = "offline"


LLM_PASSES = (DreamPass.GAP, DreamPass.CONSOLIDATE, DreamPass.OPTIMIZE)  # every RockBot's
ALL_PASSES = (*LLM_PASSES, DreamPass.MCP_REFRESH)  # in RockBot (current)'s order

USAGE_DAYS = 30
USAGE_CAP = 10_000
OPTIMIZE_FEEDBACK_CAP = 1000
GAP_DAYS = 14
GAP_FEEDBACK_CAP = 200
GAP_USAGE_CAP = 10_000
GAP_MIN_TERM_LEN = 4
GAP_MIN_SESSIONS = 2
GAP_TOP_TERMS = 15
CONTENT_CAP = 800
CO_USED_SHOWN = 3
TOP_PAIRS = 10
MIN_CLUSTER = 2


def parse_passes(text: str) -> list[DreamPass]:
    """``"gap,consolidate"`` -> passes in RockBot's order (raises ValueError on an unknown name;
    a pass the library's profile does not run is left out by the run)."""
    wanted: set[DreamPass] = set()
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        try:
            dream_pass = DreamPass(part)
        except ValueError:
            raise ValueError(f"unknown pass '{part}' (use gap, consolidate, optimize, mcp-refresh)") from None
        if dream_pass is DreamPass.OFFLINE:
            raise ValueError("'offline' is not a pass; use --offline")
        wanted.add(dream_pass)
    return [p for p in ALL_PASSES if p in wanted]
