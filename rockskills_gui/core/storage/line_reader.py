"""Log files read line by line, as .NET's ``File.ReadAllLines`` splits them, in bounded memory.

RockBot's logs (``skill-usage/*.jsonl``, ``feedback/*.jsonl``, ``conversation-log/turns.jsonl``)
hold one JSON value per line. A hostile log may be a FIFO, a 4 GB sparse file without a single
line break, or hold one 100 MB line (issue 35): :func:`read_lines` refuses what is not a regular
file or is larger than its file limit before reading anything, streams the rest in chunks, and
skips (reports) a line longer than its line limit without keeping it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from rockskills_gui.core.storage.fileio import TooLarge, open_regular

CHUNK = 4 << 20  # bytes read at a time
BOM = b"\xef\xbb\xbf"


def _split(piece: str) -> list[str]:
    """The .NET lines of one ``\\n``-ended piece: ``\\r\\n``, ``\\r`` and ``\\n`` each end a line."""
    if piece.endswith("\r"):
        piece = piece[:-1]  # (the piece ended at a '\n': this was '\r\n')
    return piece.split("\r") if "\r" in piece else [piece]


def _size(line: str) -> int:
    return len(line.encode("utf-8", "surrogatepass"))


def read_lines(path: Path | str, line_limit: int, file_limit: int,
               open_end: list[bool] | None = None) -> Iterator[tuple[int, str | None]]:
    """``(line number, text)`` of each line of ``path`` (1-based, empty lines included), decoded
    as ``File.ReadAllLines`` does (a UTF-8 BOM dropped, invalid bytes as U+FFFD); the text is None
    for a line of more than ``line_limit`` bytes (skipped, never held in memory).

    ``open_end``, when given, gets True appended once the whole file is read if its last line
    has no line break after it (a line its writer may still be writing).

    Raises :class:`~.fileio.NotRegularFile` (a FIFO, device or folder: never blocks) or
    :class:`~.fileio.TooLarge` (over ``file_limit``) before the first line, and TooLarge as well
    when the file grows past ``file_limit`` while it is read.
    """
    fd, _ = open_regular(path, file_limit)
    try:
        number = 0
        total = 0
        pending = b""  # the start of a line whose end is not read yet
        skipping = False  # inside a line already reported as too long
        first = True
        while True:
            chunk = os.read(fd, max(CHUNK, len(BOM)) if first else CHUNK)  # (the BOM whole)
            if not chunk:
                break
            total += len(chunk)
            if total > file_limit:
                raise TooLarge(path, total, file_limit)
            if first:
                first = False
                if chunk.startswith(BOM):
                    chunk = chunk[len(BOM):]
            if skipping:
                end = chunk.find(b"\n")
                if end < 0:
                    continue
                chunk, skipping = chunk[end + 1:], False
            data = pending + chunk if pending else chunk
            last = data.rfind(b"\n")
            if last < 0:
                pending = data
            else:
                pending = data[last + 1:]
                for piece in data[:last].decode("utf-8", "replace").split("\n"):
                    for line in _split(piece):
                        number += 1
                        too_long = len(line) > line_limit and _size(line) > line_limit
                        yield number, None if too_long else line
            if len(pending) > line_limit:
                number += 1
                yield number, None
                pending, skipping = b"", True
        if pending:
            if open_end is not None and not pending.endswith(b"\r"):
                open_end.append(True)
            for line in _split(pending.decode("utf-8", "replace")):
                number += 1
                yield number, line
    finally:
        os.close(fd)
