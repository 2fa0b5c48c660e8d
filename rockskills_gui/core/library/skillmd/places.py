"""Where a SKILL.md skill of a given library name lives: the root, its folder and its own name.

A library name is ``[plugin/][category/…]name`` (:func:`~.store.qualified_name`). A first segment
naming a plugin's root (its namespace) puts the skill in that plugin; otherwise it goes to the
skill's own root (a rename or move), else to the library's first project root that is no plugin's.
The other segments are category folders, the last is the skill's own name (its frontmatter
``name`` and, for a new skill, its folder). A name the profile's agent would not find (deeper
than its ``scan_depth``, or with no root to go to) is refused with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rockskills_gui.core.library.skillmd.profiles import AgentProfile, Root
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.changes import LibraryError

__all__ = ["Place", "home_root", "place_of"]


@dataclass(frozen=True)
class Place:
    """Where a skill goes: its root, the category folders below it, its own name."""

    root: Root
    categories: tuple[str, ...]
    own: str

    def folder(self, leaf: str | None = None) -> Path:
        """The skill's folder (named ``leaf``, default its own name)."""
        return self.root.path.joinpath(*self.categories, leaf if leaf is not None else self.own)


def home_root(roots: Sequence[Root]) -> Root | None:
    """Where a new skill without a plugin goes: the first project root that is no plugin's (else
    the first root that is no plugin's)."""
    plain = [r for r in roots if not r.namespace]
    return next((r for r in plain if r.scope == "project"), plain[0] if plain else None)


def place_of(name: str, roots: Sequence[Root], profile: AgentProfile, own_root: Root | None = None) -> Place:
    """Where a skill the library calls ``name`` goes (see the module doc); raises LibraryError."""
    parts = name.split("/")
    plugin = next((r for r in roots if r.namespace and fold(r.namespace) == fold(parts[0])), None) \
        if len(parts) > 1 else None
    rest = parts[1:] if plugin is not None else parts
    root = plugin or (own_root if own_root is not None and not own_root.namespace else home_root(roots))
    if root is None:
        plugins = ", ".join(sorted({r.namespace for r in roots if r.namespace}))
        raise LibraryError(f"'{name}' names no plugin: every skill of this library is in a plugin; "
                           f"name it '<plugin>/{parts[-1]}' (plugins: {plugins}).")
    depth = profile.storage.scan_depth
    if depth is not None and len(rest) > depth:
        raise LibraryError(f"{profile.label} would not find '{name}': it reads skill folders only "
                           f"{'directly in' if depth == 1 else f'up to {depth} folders below'} a skills "
                           "folder, so no category folders"
                           + ("" if depth == 1 else f" beyond {depth - 1}") + ".")
    return Place(root, tuple(rest[:-1]), rest[-1])
