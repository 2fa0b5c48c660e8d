"""The machine view (issue 33)."""
