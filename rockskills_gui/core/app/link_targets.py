"""The link targets the user confirmed, per library: a small JSON object in the config folder.

A library whose ``skills/`` (or a skill's folder) is a symbolic link to a folder outside it is
written through that link only once the user allowed that folder (see
:mod:`rockskills_gui.core.storage.links`); the window asks once and remembers the answer here,
keyed by the library's real folder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.appdirs import config_dir

FILE_NAME = "link-targets.json"
MAX_LIBRARIES = 200  # (the oldest are forgotten)


class LinkTargets:
    """Library real path -> the link targets (real paths) the user allowed writes to."""

    def __init__(self, file: Path | None = None) -> None:
        self.file = file if file is not None else config_dir() / FILE_NAME

    def _read(self) -> dict[str, list[str]]:
        try:
            data = json.loads(fileio.read_regular(self.file).decode("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: [t for t in v if isinstance(t, str)] for k, v in data.items()
                if isinstance(k, str) and isinstance(v, list)}

    def confirmed(self, library: Path | str) -> list[Path]:
        """The targets allowed for the library at ``library`` (any spelling of its folder)."""
        return [Path(t) for t in self._read().get(_key(library), [])]

    def confirm(self, libraries: Iterable[Path | str], targets: Iterable[Path]) -> None:
        """Allow ``targets`` for the library known by each of ``libraries`` (e.g. the folder
        opened and the agent folder it resolved to), and store it."""
        data = self._read()
        for library in libraries:
            key = _key(library)
            kept = data.pop(key, [])
            data[key] = list(dict.fromkeys([*kept, *(os.path.realpath(t) for t in targets)]))
        data = dict(list(data.items())[-MAX_LIBRARIES:])
        fileio.atomic_write(self.file, json.dumps(data, indent=1).encode("utf-8"))


def _key(library: Path | str) -> str:
    return os.path.realpath(Path(library).expanduser())
