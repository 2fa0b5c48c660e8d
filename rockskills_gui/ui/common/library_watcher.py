"""Watches the skills folders for changes made by others (a running agent, an editor, git).

A QFileSystemWatcher follows the library's skills roots (``library.skill_roots()``: RockBot's
``skills/``, every root of a SKILL.md library) and their sub-folders (files appearing or
vanishing) and the files open in the editor (changed in place). Because file watches are
dropped when a file is replaced, and some file systems report nothing at all, the open files
are also polled every couple of seconds. Reports are debounced and carry the paths to re-read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from rockskills_gui.core.storage.folder_walk import walk

DEFER_FROM = 5_000  # skills from which watching (and see-also candidates) wait for the next event
MAX_FOLDERS = 2000  # beyond this only the top of the tree is watched (the poll covers open files)
WATCH_BATCH = 250  # folders handed to the watcher per event (2,000 at once stall the UI ~40 ms)


def folders_to_watch(roots: Iterable[Path]) -> list[str]:
    """Each of ``roots`` and its sub-folders (hidden ones skipped), at most MAX_FOLDERS in all."""
    folders: list[str] = []
    seen: set[str] = set()
    for root in roots:
        for folder, dirs, _files in walk(root):  # (iterative, depth-limited: a hostile tree)
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            if folder not in seen:  # (a root inside another root)
                seen.add(folder)
                folders.append(folder)
            if len(folders) >= MAX_FOLDERS:
                return folders
    return folders


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


class LibraryWatcher(QObject):
    """Reports paths under the skills roots that may have changed.

    Signals:
        changed(list): paths (files or folders) to re-read, debounced.
    """

    changed = Signal(list)

    def __init__(self, parent: QObject | None = None, poll_ms: int = 2000,
                 debounce_ms: int = 150) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._on_directory_changed)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._roots: list[Path] = []
        self._files: dict[Path, tuple[int, int] | None] = {}
        self._pending: set[Path] = set()
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(self._flush)
        self._poll = QTimer(self)
        self._poll.setInterval(poll_ms)
        self._poll.timeout.connect(self.poll)
        self._queued: list[str] = []  # folders still to watch, a batch per event
        self._batches = QTimer(self)
        self._batches.setSingleShot(True)
        self._batches.setInterval(0)
        self._batches.timeout.connect(self._watch_batch)

    # ---------------------------------------------------------------- what to watch

    def watch(self, roots: Iterable[Path] | None, folders: list[str] | None = None) -> None:
        """Watch the skills ``roots`` and their sub-folders (None: stop watching); ``folders``:
        what :func:`folders_to_watch` found, when it ran off the UI thread."""
        self._clear()
        self._roots = list(roots) if roots is not None else []
        if roots is None:
            self._poll.stop()
            return
        self._queued = list(folders if folders is not None else folders_to_watch(self._roots))
        self._watch_batch()
        self._poll.start()

    @property
    def watching_all(self) -> bool:
        """Every folder found is watched (the last batch was handed to the watcher)."""
        return not self._queued

    def _watch_batch(self) -> None:
        batch, self._queued = self._queued[:WATCH_BATCH], self._queued[WATCH_BATCH:]
        self._add(batch)
        if self._queued:
            self._batches.start()

    def set_files(self, paths: Iterable[Path]) -> None:
        """The files open in the editor (watched in place and polled)."""
        wanted = {Path(p) for p in paths}
        gone = [str(p) for p in self._files if p not in wanted]
        watched = set(self._watcher.files())
        drop = [p for p in gone if p in watched]
        if drop:
            self._watcher.removePaths(drop)
        self._files = {p: self._files.get(p, _stamp(p)) for p in wanted}
        self._add([str(p) for p in wanted if str(p) not in watched])

    def _clear(self) -> None:
        self._batches.stop()
        self._queued = []
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)
        self._files = {}
        self._pending.clear()

    def _add(self, paths: list[str]) -> None:
        existing = [p for p in paths if os.path.exists(p)]
        if existing:
            self._watcher.addPaths(existing)

    # ---------------------------------------------------------------- reports

    def _on_directory_changed(self, folder: str) -> None:
        path = Path(folder)
        if path.is_dir():
            known = set(self._watcher.directories())
            try:
                fresh = [str(p) for p in path.iterdir()
                         if p.is_dir() and not p.name.startswith(".") and str(p) not in known]
            except OSError:  # gone meanwhile (a delete running on a worker): noted below
                fresh = []
            if fresh and len(known) < MAX_FOLDERS:
                self._add(fresh)
                self._pending.update(Path(p) for p in fresh)
        self._note(path)
        # A file replaced by rename loses its watch: put it back.
        watched = set(self._watcher.files())
        self._add([str(p) for p in self._files if p.parent == path and str(p) not in watched])

    def _on_file_changed(self, file: str) -> None:
        path = Path(file)
        if path in self._files and str(path) not in self._watcher.files():
            self._add([file])
        self._note(path)

    def poll(self) -> None:
        """Report open files whose size or modification time changed."""
        for path, before in list(self._files.items()):
            now = _stamp(path)
            if now != before:
                self._files[path] = now
                self._note(path)

    def _note(self, path: Path) -> None:
        self._pending.add(path)
        if path in self._files:
            self._files[path] = _stamp(path)
        self._debounce.start()

    def _flush(self) -> None:
        if self._pending:
            paths = sorted(self._pending)
            self._pending.clear()
            self.changed.emit(paths)
