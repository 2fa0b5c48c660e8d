"""Taking in a change to a SKILL.md library without walking it again: only the top-level folders
the change touched are walked and read, and the result is exactly what a fresh open would give.

Why that holds: a scan's load order is the order of each folder's key ``(root index, depth,
names below the root)`` (:mod:`~rockskills_gui.core.library.skillmd.scan`), and what the
walk finds inside a root's top-level folder depends on that folder alone. So the folders found in
a touched top-level folder replace the ones found there before, each at its key's place. What
else a scan decides is not local -- which of two skills of one name wins, the problem lists --
so :meth:`ScanIndex.plan` proves the change stays clear of it and otherwise says it cannot
(the library then walks everything again):

- every path changed lies in a top-level folder of exactly one root; the roots do not overlap
  (not even through links) and that root was found holding skills before (it could be listed);
- no folder found there, before or after, adds a problem (disabled, not loadable, duplicate,
  nested skill files);
- no name found there before or after belongs to any other folder of the library.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.skillmd.scan import (
    Key,
    Reader,
    Scanned,
    read_folders,
    settle,
)
from rockskills_gui.core.library.skillmd.store import AgentProfile, Root, SkillMdEntry

Top = tuple[int, str]  # (root index, a folder's name in that root)


@dataclass(frozen=True)
class Delta:
    """What a change did to the touched top-level folders: the folders found before and now."""

    before: dict[Top, list[Scanned]]
    after: dict[Top, list[Scanned]]

    def paths_left(self) -> list[Path]:
        """The skill files found before and not now (what a parse cache may forget)."""
        now = {item.path for items in self.after.values() for item in items}
        return [item.path for items in self.before.values() for item in items
                if item.path is not None and item.path not in now]


class ScanIndex:
    """The last scan's folders, by root and top-level folder, kept in step with each change
    taken in; :meth:`build` returns None where a change can never be proven local.

    A skill saved in place keeps its folder, file and name, so the index is not told: of a
    :class:`Scanned` it keeps, only the key, file, name and problems are used.
    """

    def __init__(self, roots: list[Root], profile: AgentProfile, base: Path,
                 items: list[Scanned]) -> None:
        self.roots = roots
        self.profile = profile
        self.base = base
        self._boundary = tuple(r.path for r in roots)
        self._tops: dict[Top, list[Scanned]] = {}
        self._names: Counter[str] = Counter()  # folded name -> folders read as a skill of it
        self._agents: Counter[str] = Counter()  # the same by the name the agent calls them
        self._keys: list[Key] = []  # the loaded skills' keys, in load order
        self._by_path: dict[Path, str] = {}  # a loaded skill's file -> its folded name
        self._filled: set[int] = set()  # roots a scan found folders in
        for item in items:
            self._tops.setdefault((item.key[0], item.key[2][0]), []).append(item)
            self._filled.add(item.key[0])
            if item.name is not None:
                self._names[item.name] += 1
                self._agents[item.agent or item.name] += 1
            if item.entry is not None:
                assert item.name is not None
                self._keys.append(item.key)
                self._by_path[item.entry.path] = item.name

    @classmethod
    def build(cls, roots: list[Root], profile: AgentProfile, base: Path,
              items: list[Scanned]) -> ScanIndex | None:
        """An index of ``items`` (a whole scan), or None when two roots overlap."""
        real = [os.path.realpath(r.path) for r in roots]
        for i, one in enumerate(real):
            for other in real[i + 1:]:
                if one == other or _inside(one, other) or _inside(other, one):
                    return None
        return cls(roots, profile, base, items)

    def name_of(self, path: Path) -> str | None:
        """The folded name of the loaded skill whose file is ``path`` (None: no such skill)."""
        return self._by_path.get(path)

    # ---------------------------------------------------------------- a change

    def plan(self, paths: Iterable[Path], read: Reader) -> Delta | None:
        """What a change to ``paths`` did, read from disk (``read``: a fresh read of a skill
        file); None when it cannot be proven to leave everything else as it was."""
        tops: set[Top] = set()
        for path in paths:
            top = self._top_of(path)
            if top is None:
                return None
            if top[1]:  # a file directly in a root is no skill folder's
                tops.add(top)
        before = {top: self._tops.get(top, []) for top in tops}
        if any(item.problems or item.entry is None for items in before.values() for item in items):
            return None
        after: dict[Top, list[Scanned]] = {}
        for index, name in tops:
            seen: dict[str, SkillMdEntry] = {}
            after[(index, name)] = found = [
                settle(f, seen, self.profile, self.base)
                for f in read_folders(index, self.roots[index], self.profile, self.base,
                                      self._boundary, read, top=name)]
            if any(item.problems or item.entry is None for item in found):
                return None
        leaving = Counter(item.name or "" for items in before.values() for item in items)
        coming = Counter(item.name or "" for items in after.values() for item in items)
        for name in leaving | coming:
            if not name or self._names[name] != leaving[name] or coming[name] > 1:
                return None  # another folder reads as a skill of that name: who wins may change
        leaving = Counter(item.agent or item.name or "" for items in before.values() for item in items)
        coming = Counter(item.agent or item.name or "" for items in after.values() for item in items)
        for name in leaving | coming:
            if not name or self._agents[name] != leaving[name] or coming[name] > 1:
                return None  # the agent knows another skill by that name
        return Delta(before, after)

    def _top_of(self, path: Path) -> Top | None:
        """(root index, top-level folder name, or "" for a file directly in the root) of a path
        inside exactly one root that a scan found folders in; None otherwise."""
        found: Top | None = None
        for index, root in enumerate(self.roots):
            try:
                parts = path.relative_to(root.path).parts
            except ValueError:
                continue
            if found is not None or not parts or index not in self._filled or ".." in parts:
                return None
            found = (index, parts[0] if len(parts) > 1 else "")
        return found

    def commit(self, delta: Delta, order: list[str]) -> tuple[list[str], list[SkillMdEntry]]:
        """Apply ``delta`` to the index and to a library's load ``order`` (folded names, which
        this index's keys follow); the folded names that left and the entries that came, for
        the library's own map."""
        left: list[str] = []
        came: list[SkillMdEntry] = []
        for top, items in delta.before.items():
            for item in items:
                assert item.name is not None and item.path is not None
                at = bisect_left(self._keys, item.key)
                assert self._keys[at] == item.key and order[at] == item.name
                del self._keys[at], order[at]
                del self._by_path[item.path]
                self._names[item.name] -= 1
                self._agents[item.agent or item.name] -= 1
                left.append(item.name)
            self._tops.pop(top, None)
        for top, items in delta.after.items():
            for item in items:
                assert item.name is not None and item.entry is not None
                at = bisect_left(self._keys, item.key)
                self._keys.insert(at, item.key)
                order.insert(at, item.name)
                self._by_path[item.entry.path] = item.name
                self._names[item.name] += 1
                self._agents[item.agent or item.name] += 1
                came.append(item.entry)
            if items:
                self._tops[top] = items
        return left, came


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)
