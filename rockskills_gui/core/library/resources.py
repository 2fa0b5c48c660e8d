"""A skill's resources read for showing: one resource's bytes as text or as "binary, N bytes"
(never written here).

A resource is what :meth:`Library.resources` lists: for RockBot (current) a file in the skill's
sibling ``{name}.resources/`` folder, or an entry of the skill JSON's ``manifest`` list. A
profile without resources (``profile.holds.resources``) lists none.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.storage import fileio

MAX_SHOWN_BYTES = 1 << 20  # a resource larger than this shows its first MiB (text) only


def is_text(data: bytes) -> bool:
    """True for bytes shown as text: UTF-8 (a BOM allowed) without NUL bytes."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return True


@dataclass(frozen=True)
class ResourceContent:
    """What the read-only resource view shows."""

    skill: str
    filename: str
    type: str | None  # the manifest's type (Python, Markdown, ...), None when unlisted
    description: str | None
    entry: dict[str, Any] | None  # the manifest entry as parsed
    path: Path | None  # None: listed in the manifest, not on disk
    size: int | None  # bytes on disk (None: missing or unreadable)
    text: str | None  # the text (its first MAX_SHOWN_BYTES), None for binary/missing/unreadable
    truncated: bool = False
    error: str = ""  # why the file could not be read

    @property
    def binary(self) -> bool:
        return self.path is not None and self.size is not None and self.text is None

    @property
    def missing(self) -> bool:
        return self.path is None

    @property
    def summary(self) -> str:
        """One line: ``Python · 27 bytes``, ``binary, 12 bytes``, ``missing`` ..."""
        kind = self.type or "not in the manifest"
        if self.missing:
            return f"{kind} · missing"
        if self.error:
            return f"{kind} · unreadable"
        size = f"binary, {self.size:,} bytes" if self.binary else f"{self.size:,} bytes"
        return f"{kind} · {size}"


def read_resource(library: Library, name: str, filename: str,
                  limit: int = MAX_SHOWN_BYTES) -> ResourceContent:
    """Read skill ``name``'s resource ``filename`` for showing (regular files only)."""
    found = next((r for r in library.resources(name) if r.filename == filename), None)
    skill = library.get(name)
    shown_name = skill.name if skill is not None else name
    if found is None:
        return ResourceContent(shown_name, filename, None, None, None, None, None, None,
                               error="no such resource")
    entry = found.entry
    description = (entry or {}).get("description")
    base = ResourceContent(shown_name, filename, found.type,
                           description if isinstance(description, str) else None,
                           entry, found.path, None, None)
    if found.path is None:
        return base
    try:
        head, size = fileio.read_head(found.path, limit)  # (a 4 GB resource: its first MiB)
    except OSError as exc:
        return replace(base, error=str(exc.strerror or exc))
    if size > limit:  # do not cut a UTF-8 sequence in two
        while head and (head[-1] & 0xC0) == 0x80:
            head = head[:-1]
        if head and head[-1] >= 0xC0:
            head = head[:-1]
    text = head.decode("utf-8-sig") if is_text(head) else None
    return replace(base, size=size, text=text, truncated=size > limit and text is not None)

