"""The '/' prefix tree of a skill library, its incremental updates, badges' facts and the filter.

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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rockskills_gui.core.model.names import fold, leaf
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
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


# ---------------------------------------------------------------- badges' facts


def last_used_by_name(events: Iterable[object]) -> dict[str, Timestamp]:
    """Latest usage-event time per folded skill name (events have ``skill_name``, ``timestamp``)."""
    latest: dict[str, Timestamp] = {}
    for event in events:
        name = getattr(event, "skill_name", None)
        when = getattr(event, "timestamp", None)
        if not name or when is None:
            continue
        key = fold(name)
        seen = latest.get(key)
        if seen is None or when.utc_ticks > seen.utc_ticks:
            latest[key] = when
    return latest


def problems_by_name(problems: Iterable[Problem]) -> dict[str, list[str]]:
    """Folded name → reasons, for problem files that claim a name (by their JSON or their path)."""
    found: dict[str, list[str]] = {}
    for problem in problems:
        claimed = set()
        if problem.name:
            claimed.add(fold(problem.name))
        if problem.path.startswith("skills/") and problem.path.endswith(".json"):
            claimed.add(fold(problem.path[len("skills/"):-len(".json")]))
        for key in claimed:
            warning = problem.severity != "error"  # e.g. a skill file linked outside: it loads
            found.setdefault(key, []).append(
                f"{problem.path} ({problem.kind.value}): {problem.message}" if warning else
                f"{problem.path} could not be loaded ({problem.kind.value}): {problem.message}")
    return found


@dataclass
class Facts:
    """What the badges and flag filters need to know beyond the skill record itself."""

    now: Timestamp
    last_used: Mapping[str, Timestamp] = field(default_factory=dict)  # from usage events
    file_problems: Mapping[str, list[str]] = field(default_factory=dict)
    exists: Callable[[str], bool] = lambda _name: True

    def last_use(self, skill: Skill) -> Timestamp | None:
        """``lastUsedAt`` or the latest usage event, whichever is later."""
        logged = self.last_used.get(fold(skill.name))
        stored = skill.last_used_at
        if logged is None or (stored is not None and stored.utc_ticks >= logged.utc_ticks):
            return stored
        return logged

    def never_used(self, skill: Skill) -> bool:
        return self.last_use(skill) is None

    def unused_for(self, skill: Skill, days: float) -> bool:
        """No use in the last ``days`` (a never-used skill counts from its creation)."""
        since = self.last_use(skill) or skill.created_at
        return self.now.total_days_since(since) > days

    def sparse(self, skill: Skill) -> bool:
        return skill.is_sparse(self.now)

    def problems(self, skill: Skill) -> list[str]:
        """Readable reasons: a file that failed to load claims the name; see-also names nothing
        or the skill itself (the same see-also checks as ``core.lint``)."""
        reasons = list(self.file_problems.get(fold(skill.name), ()))
        own = fold(skill.name)
        see_also = skill.see_also or ()
        dangling = [t for t in see_also if fold(t) != own and not self.exists(t)]
        if dangling:
            shown = ", ".join(f"'{t}'" for t in dangling)
            reasons.append(f"see-also names no skill: {shown}")
        if any(fold(t) == own for t in see_also):
            reasons.append("see-also names the skill itself")
        return reasons


# ---------------------------------------------------------------- filtering


@dataclass(frozen=True)
class TreeFilter:
    """Text (every whitespace-separated term in the name or summary) and flags, all ANDed."""

    text: str = ""
    never_used: bool = False
    unused_days: int | None = None
    sparse: bool = False
    has_problems: bool = False

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(fold(t) for t in self.text.split())

    @property
    def active(self) -> bool:
        return bool(self.terms) or self.has_flags

    @property
    def has_flags(self) -> bool:
        return self.never_used or self.unused_days is not None or self.sparse or self.has_problems

    def accepts(self, node: Node, facts: Facts) -> bool:
        skill = node.skill
        if skill is None:
            return False
        hay = node.haystack()
        if not all(term in hay for term in self.terms):
            return False
        if self.never_used and not facts.never_used(skill):
            return False
        if self.unused_days is not None and not facts.unused_for(skill, self.unused_days):
            return False
        if self.sparse and not facts.sparse(skill):
            return False
        return not (self.has_problems and not facts.problems(skill))


@dataclass
class FilterResult:
    """Which nodes a filter shows: the matching skills and every ancestor of one."""

    matches: set[int]  # uids of skill nodes that match
    visible: set[int]  # matches and their ancestors
    counts: dict[int, int]  # matching skills below each visible folder

    def __len__(self) -> int:
        return len(self.matches)


def run_filter(tree: SkillTree, spec: TreeFilter, facts: Facts) -> FilterResult:
    """Match every skill node against ``spec`` (fast enough for 100,000 skills per keystroke)."""
    terms = spec.terms
    flags = spec.has_flags
    matches: list[Node] = []
    for node in tree.by_uid.values():
        if node.skill is None:
            continue
        hay = node._hay if node._hay is not None else node.haystack()
        for term in terms:
            if term not in hay:
                break
        else:
            if not flags or spec.accepts(node, facts):
                matches.append(node)
    visible: set[int] = set()
    counts: dict[int, int] = {}
    for node in matches:
        visible.add(node.uid)
        parent = node.parent
        while parent is not None and parent.parent is not None:
            uid = parent.uid
            counts[uid] = counts.get(uid, 0) + 1
            visible.add(uid)
            parent = parent.parent
    return FilterResult({n.uid for n in matches}, visible, counts)


def match_spans(node: Node, terms: Sequence[str]) -> list[tuple[int, int]]:
    """(start, length) of every term occurrence that falls in the node's label, merged.

    Terms are matched in the folded full path, so ``mcp/em`` highlights ``em`` in ``email``.
    """
    if not terms:
        return []
    full = fold(node.path)
    offset = len(full) - len(node.label)
    marks = [False] * len(node.label)
    for term in terms:
        if not term:
            continue
        start = full.find(term)
        while start >= 0:
            for i in range(max(start, offset), min(start + len(term), len(full))):
                marks[i - offset] = True
            start = full.find(term, start + 1)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(marks):
        if marks[i]:
            j = i
            while j < len(marks) and marks[j]:
                j += 1
            spans.append((i, j - i))
            i = j
        else:
            i += 1
    return spans


def summary_snippet(node: Node, terms: Sequence[str], width: int = 60) -> tuple[str, list[tuple[int, int]]]:
    """An excerpt of the summary around the first term the *name* does not contain, with spans.

    Empty when every term is in the name (the label's own highlight explains the match).
    """
    skill = node.skill
    if skill is None or not terms or not skill.summary:
        return "", []
    name = fold(node.path)
    summary = " ".join(skill.summary.split())
    folded = fold(summary)
    missing = [t for t in terms if t and t not in name and t in folded]
    if not missing:
        return "", []
    first = min(folded.find(t) for t in missing)
    start = 0
    if first > 16:  # a few words of context before the match, from a word's start
        space = summary.rfind(" ", 0, first - 10)
        start = space + 1 if space >= 0 and first - space <= 24 else first - 12
    end = min(len(summary), start + width)
    text = ("…" if start else "") + summary[start:end] + ("…" if end < len(summary) else "")
    shift = (1 if start else 0) - start
    spans: list[tuple[int, int]] = []
    for term in terms:
        if not term:
            continue
        at = folded.find(term, start)
        while 0 <= at < end:
            spans.append((at + shift, min(len(term), end - at)))
            at = folded.find(term, at + 1)
    return text, sorted(spans)
