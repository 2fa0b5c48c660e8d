"""The skill health dock (CortexPrism)."""
