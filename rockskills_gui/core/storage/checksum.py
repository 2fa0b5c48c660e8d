"""sha256 of a file's bytes (None for a file that does not exist)."""

from __future__ import annotations

import hashlib


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()
