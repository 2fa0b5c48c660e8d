"""The '/' prefix tree of a skill library: its nodes, incremental updates and moves.

A node stands for one name prefix, compared case-insensitively (rockbot-skills.md §3): ``mcp``
exists as a folder node as soon as some skill is called ``mcp/…``, and when a skill is *also*
called ``mcp`` it is the same node (both a skill and a folder). Siblings are in RockBot's List
order (ordinal-ignore-case, §4). A folder's ``count`` is the number of skills below it.

Structural changes are reported to an optional :class:`TreeListener` *around* each mutation
(before/after), which is what an item model needs to emit begin/end insert/remove signals.
No Qt here.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

from rockskills_gui.core.model.names import fold, leaf
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.storage.gcpause import gc_paused

SEP = "/"
# A change naming more skills than this is applied by rebuilding (one model reset) instead of
# one insert/remove notification per name.
INCREMENTAL_LIMIT = 2000


class Node:
    """One prefix: a folder, a skill, or both."""

    __slots__ = ("_hay", "children", "count", "key", "label", "parent", "path", "row", "skill",
                 "sort", "uid")

    def __init__(self, uid: int, key: str, label: str, path: str, parent: Node | None,
                 folded_label: str = "") -> None:
        self.uid = uid
        self.key = key  # folded full path ("" for the root)
        self.label = label  # last segment as spelled
        self.path = path  # full path as spelled
        self.parent = parent
        self.children: list[Node] = []
        self.row = 0  # index in parent.children
        self.skill: Skill | None = None
        self.count = 0  # skills strictly below this node
        # List order of siblings: the folded label's UTF-16 code units (names.sort_key).
        self.sort = (folded_label or fold(label)).encode("utf-16-be", "surrogatepass")
        self._hay: str | None = None

    @property
    def is_skill(self) -> bool:
        return self.skill is not None

    @property
    def is_folder(self) -> bool:
        return bool(self.children)

    @property
    def name(self) -> str:
        """The skill's name ("" for a folder-only node)."""
        return self.skill.name if self.skill is not None else ""

    @property
    def depth(self) -> int:
        return 0 if not self.key else self.key.count(SEP) + 1

    def ancestors(self) -> Iterator[Node]:
        """Parent, grandparent, … up to (not including) the root."""
        node = self.parent
        while node is not None and node.parent is not None:
            yield node
            node = node.parent

    def haystack(self) -> str:
        """Folded ``name \\n summary``: what the text filter searches."""
        if self._hay is None:
            summary = (self.skill.summary or "") if self.skill is not None else ""
            self._hay = fold(self.path) + "\n" + fold(summary)
        return self._hay

    def __repr__(self) -> str:
        kind = "skill+folder" if self.skill and self.children else "skill" if self.skill else "folder"
        return f"<Node {self.path!r} {kind} count={self.count}>"


class TreeListener(Protocol):
    """Told around each structural change (an item model maps these to its signals)."""

    def before_insert(self, parent: Node, row: int) -> None: ...
    def after_insert(self) -> None: ...
    def before_remove(self, parent: Node, row: int) -> None: ...
    def after_remove(self) -> None: ...
    def node_changed(self, node: Node) -> None: ...


class SkillTree:
    """The prefix tree over a set of skills (build once, then update from change sets)."""

    def __init__(self, skills: Iterable[Skill] = (), listener: TreeListener | None = None) -> None:
        self.listener = listener
        self._uids = itertools.count(1)
        self.root = Node(0, "", "", "", None)
        self.by_key: dict[str, Node] = {}
        self.by_uid: dict[int, Node] = {0: self.root}
        self.skill_count = 0
        self._folders: int | None = None  # cached folder count (None: count again)
        self._build(skills)

    # ---------------------------------------------------------------- building

    def _build(self, skills: Iterable[Skill]) -> None:
        by_key = self.by_key
        with gc_paused():  # ~10^5 new objects: the collector's passes would cost more than the build
            for skill in skills:
                name = skill.name
                key = fold(name)
                node = by_key.get(key)
                if node is None:
                    node = self._ensure(name, key)
                elif node.skill is not None:
                    continue  # a case-insensitive duplicate: the first one stays (as loaded)
                else:  # a folder so far: the skill's spelling names it
                    node.label = leaf(name)
                    node.path = name
                node.skill = skill
                self.skill_count += 1
            # Parents are created before their children: walk backwards to sum the counts.
            for node in reversed(self.by_uid.values()):
                children = node.children
                if not children:
                    continue
                if len(children) > 1:
                    children.sort(key=_sort_of)
                total = 0
                for row, child in enumerate(children):
                    child.row = row
                    total += child.count + (child.skill is not None)
                node.count = total

    def _ensure(self, name: str, key: str) -> Node:
        """The node for ``name``, creating missing ones (appended unsorted: build only)."""
        head_key, sep, label_key = key.rpartition(SEP)
        head, _, label = name.rpartition(SEP)
        parent = self.root
        if sep:
            parent = self.by_key.get(head_key) or self._ensure(head, head_key)
        uid = next(self._uids)
        node = Node(uid, key, label, name, parent, label_key)
        self.by_key[key] = node
        self.by_uid[uid] = node
        parent.children.append(node)
        return node

    # ---------------------------------------------------------------- reading

    def find(self, name: str) -> Node | None:
        """The node for a skill name or folder path (case-insensitive)."""
        return self.by_key.get(fold(name)) if name else self.root

    def skill_node(self, name: str) -> Node | None:
        node = self.find(name)
        return node if node is not None and node.skill is not None else None

    def __iter__(self) -> Iterator[Node]:
        """Every node except the root, depth-first in display order."""
        stack = list(reversed(self.root.children))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def walk_skills(self, node: Node | None = None) -> Iterator[Node]:
        """Skill nodes at or below ``node`` (default: everywhere), in display order."""
        start = node or self.root
        stack = [start]
        while stack:
            current = stack.pop()
            if current.skill is not None:
                yield current
            stack.extend(reversed(current.children))

    def folder_count(self) -> int:
        """Nodes holding other nodes (cached between structural changes)."""
        if self._folders is None:
            self._folders = sum(1 for node in self.by_uid.values() if node.children) - (
                1 if self.root.children else 0)
        return self._folders

    # ---------------------------------------------------------------- incremental changes

    def add(self, skill: Skill) -> Node:
        """Add a skill (its folders appear as needed); returns its node."""
        name = skill.name
        key = fold(name)
        existing = self.by_key.get(key)
        if existing is not None:
            if existing.skill is None:
                self.skill_count += 1
                self._bump(existing, +1)
            existing.skill = skill
            existing.label = leaf(name)
            existing.path = name
            existing._hay = None
            self._changed(existing)
            return existing
        parts = name.split(SEP)
        keys = key.split(SEP)
        parent = self.root
        depth = 0
        while depth < len(parts):
            child = self.by_key.get(SEP.join(keys[: depth + 1]))
            if child is None:
                break
            parent = child
            depth += 1
        top: Node | None = None
        tip = parent
        for d in range(depth, len(parts)):
            uid = next(self._uids)
            node = Node(uid, SEP.join(keys[: d + 1]), parts[d], SEP.join(parts[: d + 1]), tip,
                        keys[d])
            node.count = 1 if d < len(parts) - 1 else 0  # the new skill is below it
            self.by_key[node.key] = node
            self.by_uid[uid] = node
            if top is None:
                top = node
            else:
                tip.children.append(node)
            tip = node
        assert top is not None
        tip.skill = skill
        row = bisect_left(parent.children, top.sort, key=_sort_of)
        self._folders = None
        if self.listener:
            self.listener.before_insert(parent, row)
        parent.children.insert(row, top)
        top.parent = parent
        for i in range(row, len(parent.children)):
            parent.children[i].row = i
        self.skill_count += 1
        if self.listener:
            self.listener.after_insert()
        self._bump(parent, +1, including=True)
        return tip

    def remove(self, name: str) -> None:
        """Remove a skill; folders left holding nothing disappear too. Unknown names: no-op."""
        node = self.by_key.get(fold(name))
        if node is None or node.skill is None:
            return
        node.skill = None
        node._hay = None
        self.skill_count -= 1
        if node.children:
            self._changed(node)
            self._bump(node, -1)
            return
        top = node
        while (top.parent is not None and top.parent is not self.root and top.parent.skill is None
               and len(top.parent.children) == 1):
            top = top.parent
        parent = top.parent
        assert parent is not None
        row = top.row
        self._folders = None
        if self.listener:
            self.listener.before_remove(parent, row)
        del parent.children[row]
        for i in range(row, len(parent.children)):
            parent.children[i].row = i
        for gone in self._subtree(top):
            del self.by_key[gone.key]
            del self.by_uid[gone.uid]
        top.parent = None
        if self.listener:
            self.listener.after_remove()
        self._bump(parent, -1, including=True)

    def replace(self, skill: Skill) -> None:
        """The skill's record changed (same name, case-insensitively)."""
        node = self.by_key.get(fold(skill.name))
        if node is None or node.skill is None:
            self.add(skill)
            return
        if skill.name != node.path:  # a change of spelling only
            self.remove(node.path)
            self.add(skill)
            return
        node.skill = skill
        node._hay = None
        self._changed(node)

    def apply(self, change: ChangeSet, lookup: Callable[[str], Skill | None]) -> bool:
        """Follow a change set; ``lookup`` gives the current record of a name.

        Returns False (and changes nothing) when the change is too large to follow name by name;
        the caller then rebuilds the tree.
        """
        if len(change.touched_names()) > INCREMENTAL_LIMIT:
            return False
        gone = [*change.deleted, *(old for old, _ in change.renamed)]
        for name in gone:
            self.remove(name)
        for name in [*change.created, *(new for _, new in change.renamed),
                     *change.updated, *change.links_rewritten]:
            skill = lookup(name)
            if skill is None:
                self.remove(name)
            else:
                self.replace(skill)
        return True

    def _subtree(self, node: Node) -> Iterator[Node]:
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(current.children)

    def _bump(self, node: Node, delta: int, including: bool = False) -> None:
        chain = [node] if including and node is not self.root else []
        chain.extend(node.ancestors())
        for ancestor in chain:
            ancestor.count += delta
            self._changed(ancestor)

    def _changed(self, node: Node) -> None:
        if self.listener and node is not self.root:
            self.listener.node_changed(node)


def _sort_of(node: Node) -> bytes:
    return node.sort


# ---------------------------------------------------------------- moves


def move_mapping(tree: SkillTree, node: Node, new_path: str) -> dict[str, str]:
    """Old → new names when ``node`` (a skill, a folder, or both) is renamed to ``new_path``.

    Every skill at or below the node keeps its path below it: moving folder ``mcp`` to
    ``tools/mcp`` renames ``mcp`` (if a skill) and ``mcp/email`` to ``tools/mcp/email``.
    """
    depth = node.depth
    mapping: dict[str, str] = {}
    for skill_node in tree.walk_skills(node):
        rest = skill_node.path.split(SEP)[depth:]
        mapping[skill_node.path] = SEP.join([new_path, *rest]) if rest else new_path
    return mapping


def drop_mapping(tree: SkillTree, nodes: Sequence[Node], target: Node) -> dict[str, str]:
    """Old → new names for dropping ``nodes`` into folder ``target`` (the root: top level).

    Nodes below another dragged node move with it; a node already directly in ``target`` stays.
    """
    chosen = {n.uid for n in nodes}
    mapping: dict[str, str] = {}
    for node in nodes:
        if any(a.uid in chosen for a in node.ancestors()) or node.parent is target:
            continue
        destination = f"{target.path}{SEP}{node.label}" if target.path else node.label
        mapping.update(move_mapping(tree, node, destination))
    return mapping


def is_inside(node: Node, folder: Node) -> bool:
    """True when ``folder`` is ``node`` or one of its descendants (a drop that cannot be)."""
    current: Node | None = folder
    while current is not None:
        if current is node:
            return True
        current = current.parent
    return False
