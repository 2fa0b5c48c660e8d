"""Lint findings over a library (shared by the CLI and the Problems dock)."""
