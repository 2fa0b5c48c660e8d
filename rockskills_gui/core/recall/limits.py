"""Recall constants that a parser or a setting needs without importing the index (numpy)."""

from __future__ import annotations

RECALL_TOP_N = 5  # AgentContextBuilder asks SearchAsync for 5 skills per turn
