"""The recently opened libraries: a small JSON list in the config folder, most recent first."""

from __future__ import annotations

import json
from pathlib import Path

from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.appdirs import config_dir

MAX_RECENT = 10
FILE_NAME = "recent.json"


class RecentLibraries:
    """Recently opened library folders (max :data:`MAX_RECENT`, de-duplicated, missing pruned)."""

    def __init__(self, file: Path | None = None, limit: int = MAX_RECENT) -> None:
        self.file = file if file is not None else config_dir() / FILE_NAME
        self.limit = limit

    def paths(self) -> list[Path]:
        """The stored folders that still exist, most recent first (a bad file reads as empty)."""
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(data, list):
            return []
        found: list[Path] = []
        for item in data:
            if isinstance(item, str) and item:
                path = Path(item)
                if path.is_dir() and path not in found:
                    found.append(path)
        return found[: self.limit]

    def add(self, path: Path | str) -> list[Path]:
        """Put ``path`` (made absolute) first and store the list; returns the new list."""
        path = Path(path).expanduser().absolute()
        updated = [path, *(p for p in self.paths() if p != path)][: self.limit]
        self._write(updated)
        return updated

    def remove(self, path: Path | str) -> list[Path]:
        updated = [p for p in self.paths() if p != Path(path)]
        self._write(updated)
        return updated

    def clear(self) -> None:
        self._write([])

    def _write(self, paths: list[Path]) -> None:
        text = json.dumps([str(p) for p in paths], indent=2) + "\n"
        fileio.atomic_write(self.file, text.encode("utf-8"))
