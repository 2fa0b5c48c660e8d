"""Usage constants that a parser needs without importing the analysis (numpy)."""

from __future__ import annotations

USAGE_WINDOW_DAYS = 30  # RockBot's dream pass looks at the last 30 days
TOP_PAIRS = 10  # co-used pairs RockBot prints
