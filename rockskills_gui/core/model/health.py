"""What a skill's health stats may say (CortexPrism's ``procedural_memory``, formats.md §B.2):
the lifecycles, those that drop a skill from prompts, and the trust tiers. The stats themselves
come from the library (``Library.health_stats``) where its profile holds them."""

from __future__ import annotations

LIFECYCLES = ("candidate", "verified", "released", "degraded", "deprecated", "archived")
INACTIVE_LIFECYCLES = frozenset({"deprecated", "archived"})
TRUST_TIERS = {1: "untrusted", 2: "provisional", 3: "trusted", 4: "vetted"}
