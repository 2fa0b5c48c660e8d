"""The recently opened libraries: a small JSON list in the config folder, most recent first.

Each entry may remember the format the user chose for the folder (File ▸ Reopen As, ``--format``),
so Open Recent and the command line open it that way again; a folder opened by detection stores
no format (detection runs again next time)."""

from __future__ import annotations

import json
from pathlib import Path

from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.appdirs import config_dir
from rockskills_gui.core.storage.fileio import read_regular

MAX_RECENT = 10
FILE_NAME = "recent.json"


class RecentLibraries:
    """Recently opened library folders (max :data:`MAX_RECENT`, de-duplicated, missing pruned)."""

    def __init__(self, file: Path | None = None, limit: int = MAX_RECENT) -> None:
        self.file = file if file is not None else config_dir() / FILE_NAME
        self.limit = limit

    def _entries(self) -> dict[Path, str | None]:
        """Stored folder -> chosen format (None: detected), most recent first; folders that no
        longer exist are skipped, and a bad file reads as empty."""
        try:
            data = loads_untrusted(read_regular(self.file, DOCUMENT_MAX_BYTES).decode("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, list):
            return {}
        found: dict[Path, str | None] = {}
        for item in data:
            text, format_id = (item, None) if isinstance(item, str) else (
                (item.get("path"), item.get("format")) if isinstance(item, dict) else (None, None))
            if not isinstance(text, str) or not text:
                continue
            path = Path(text)
            if path.is_dir() and path not in found:
                found[path] = format_id if isinstance(format_id, str) and format_id else None
        return dict(list(found.items())[: self.limit])

    def paths(self) -> list[Path]:
        """The stored folders that still exist, most recent first."""
        return list(self._entries())

    def format_of(self, path: Path | str) -> str | None:
        """The format the user last chose for ``path`` (None: let detection decide)."""
        return self._entries().get(Path(path).expanduser().absolute())

    def add(self, path: Path | str, format_id: str | None = None) -> list[Path]:
        """Put ``path`` (made absolute) first, remembering ``format_id`` when the user chose one,
        and store the list; returns the new list of paths."""
        path = Path(path).expanduser().absolute()
        entries = {path: format_id, **{p: f for p, f in self._entries().items() if p != path}}
        self._write(dict(list(entries.items())[: self.limit]))
        return list(entries)[: self.limit]

    def remove(self, path: Path | str) -> list[Path]:
        entries = {p: f for p, f in self._entries().items() if p != Path(path)}
        self._write(entries)
        return list(entries)

    def clear(self) -> None:
        self._write({})

    def _write(self, entries: dict[Path, str | None]) -> None:
        data = [str(p) if f is None else {"path": str(p), "format": f} for p, f in entries.items()]
        text = json.dumps(data, indent=2) + "\n"
        fileio.atomic_write(self.file, text.encode("utf-8"))
