"""Length-prefixed :mod:`marshal` records: the format of the app's cache files and of its helper
processes' replies. Each record is its length (8 bytes, little-endian), then the marshalled value."""

from __future__ import annotations

import marshal
from typing import Any, BinaryIO


def write_record(out: BinaryIO, value: Any) -> bytes:
    """Write one record of ``value``; returns its marshalled bytes (e.g. for a digest)."""
    blob = marshal.dumps(value)
    out.write(len(blob).to_bytes(8, "little"))
    out.write(blob)
    return blob


def record_bytes(data: memoryview, offset: int) -> tuple[memoryview, int]:
    """The marshalled bytes of the record at ``offset`` and the offset after it (EOFError when
    the data ends before the record does)."""
    if offset + 8 > len(data):
        raise EOFError("truncated")
    end = offset + 8 + int.from_bytes(data[offset:offset + 8], "little")
    if end > len(data):
        raise EOFError("truncated")
    return data[offset + 8:end], end


def read_record(data: memoryview, offset: int) -> tuple[Any, int]:
    """The value of the record at ``offset`` and the offset after it (EOFError, ValueError)."""
    blob, end = record_bytes(data, offset)
    return marshal.loads(blob), end
