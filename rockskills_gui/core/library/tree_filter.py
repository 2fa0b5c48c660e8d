"""Filtering a skill tree: a text and flag filter, which nodes it shows, and the highlights of
the matched terms in a label or a summary excerpt. Fast enough for 100,000 skills per keystroke."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rockskills_gui.core.library.skill_tree import Node, SkillTree
from rockskills_gui.core.library.tree_facts import Facts
from rockskills_gui.core.model.names import fold


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
