"""Argument types shared by the ``rockskills`` commands (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse


def whole_number(text: str, minimum: int, none_ok: bool = False) -> int | None:
    """``text`` as a whole number of at least ``minimum`` (``none_ok``: "none" gives None)."""
    if none_ok and text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        wanted = "a whole number or none" if none_ok else "a whole number"
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {minimum} or more, got {value}")
    return value


def positive(text: str) -> int:
    """A whole number of 1 or more."""
    value = whole_number(text, 1)
    assert value is not None
    return value


def limit(text: str) -> int | None:
    """A whole number of 0 or more, or "none" (no limit)."""
    return whole_number(text, 0, none_ok=True)
