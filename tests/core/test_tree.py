"""The '/' prefix tree: structure, List order, counts, incremental updates, moves, filter."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.tree import (
    Facts,
    Node,
    SkillTree,
    TreeFilter,
    drop_mapping,
    is_inside,
    last_used_by_name,
    match_spans,
    move_mapping,
    problems_by_name,
    run_filter,
    summary_snippet,
)
from rockskills_gui.core.model.names import fold, sorted_names
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.core.usage.events import UsageEvent
from tests.property_budget import budgeted

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")


def sk(name: str, summary: str = "", content: str = "x" * 300, created: str = "2026-01-01",
       last_used: str | None = None, see_also: tuple[str, ...] | None = None) -> Skill:
    return Skill(name=name, summary=summary, content=content, created_at=Timestamp.parse(created),
                 last_used_at=Timestamp.parse(last_used) if last_used else None, see_also=see_also)


def tree_of(*names: str) -> SkillTree:
    return SkillTree(sk(n) for n in names)


def shape(tree: SkillTree) -> list[tuple[int, str, bool, int, int]]:
    """(depth, folded path, is skill, count, row) in display order: equal trees, equal shapes."""
    out = []
    for node in tree:
        assert node.parent is not None and node.parent.children[node.row] is node
        out.append((node.depth, node.key, node.is_skill, node.count, node.row))
    return out


def labels(node: Node) -> list[str]:
    return [child.label for child in node.children]


# ---------------------------------------------------------------- structure


def test_folders_exist_without_a_skill_and_a_skill_can_also_be_a_folder() -> None:
    tree = tree_of("mcp", "mcp/email", "mcp/calendar", "research/summarize-paper", "a2a")
    assert labels(tree.root) == ["a2a", "mcp", "research"]
    mcp = tree.find("MCP")
    assert mcp is not None and mcp.is_skill and mcp.is_folder  # one node, both
    assert labels(mcp) == ["calendar", "email"]
    assert mcp.count == 2
    research = tree.find("research")
    assert research is not None and not research.is_skill and research.count == 1
    assert tree.skill_count == 5
    assert tree.folder_count() == 2
    assert tree.skill_node("research") is None
    assert tree.skill_node("mcp/EMAIL").name == "mcp/email"


def test_children_are_in_rockbot_list_order() -> None:
    names = ["a_b", "aa", "a-b", "B", "a0", "Zeta", "zz", "_x", "a/b"]
    tree = tree_of(*names)
    # '_' sorts after letters (ordinal-ignore-case), unlike Python's str.lower order.
    assert labels(tree.root) == ["a", "a-b", "a0", "aa", "a_b", "B", "Zeta", "zz", "_x"]
    flat_skills = [n.name for n in tree if n.is_skill and "/" not in n.name]
    assert flat_skills == sorted_names(n for n in names if "/" not in n)


def test_counts_are_skills_held_at_any_depth() -> None:
    tree = tree_of("a/b/c", "a/b/d", "a/b", "a/e", "f")
    assert tree.find("a").count == 4
    assert tree.find("a/b").count == 2
    assert tree.find("a/b/c").count == 0
    assert tree.root.count == 5


def test_case_insensitive_prefixes_group_into_one_folder() -> None:
    tree = tree_of("MCP/x", "mcp/y")
    assert labels(tree.root) == ["MCP"]  # first spelling seen
    assert labels(tree.find("mcp")) == ["x", "y"]
    tree = tree_of("mcp/y", "MCP")
    assert labels(tree.root) == ["MCP"]  # the skill's own spelling wins


def many_skills(count: int = 100_000, seed: int = 7) -> list[Skill]:
    """``count`` distinct names one to four levels deep under eight top folders (also what
    tests/benchmarks/bench_names.py times)."""
    rng = random.Random(seed)
    tops = ["mcp", "web", "scripts", "research", "devops", "finance", "writing", "travel"]
    names: dict[str, None] = {}  # (in the order made: unsorted, as a scan finds them)
    while len(names) < count:
        depth = rng.choice([1, 2, 2, 3, 3, 4])
        parts = [rng.choice(tops)] + [f"area-{rng.randint(0, 50)}" for _ in range(depth - 2)]
        names["/".join([*parts, f"task-{rng.randint(0, 10**7)}"][-depth:])] = None
    return [Skill.model_construct(name=n, summary=f"how to {n}", content="", see_also=None,
                                  created_at=NOW, updated_at=None, last_used_at=None)
            for n in names]


def test_a_tree_of_100000_names_holds_each_once_and_filters_them() -> None:
    """Correctness at scale; how long it takes is tests/benchmarks/bench_names.py's."""
    skills = many_skills()
    tree = SkillTree(skills)
    assert tree.skill_count == 100_000
    result = run_filter(tree, TreeFilter("area-1"), Facts(NOW))
    expected = {s.name for s in skills if "area-1" in s.name}  # (the summaries repeat the name)
    assert len(result) == len(expected) > 1000
    assert {tree.by_uid[uid].skill.name for uid in result.matches} == expected


# ---------------------------------------------------------------- incremental updates


class Recorder:
    """A listener checking that each notification describes the tree it is sent about."""

    def __init__(self, tree: SkillTree) -> None:
        self.tree = tree
        self.events: list[tuple[str, str, int]] = []
        self.pending: tuple[str, Node, int, int] | None = None

    def before_insert(self, parent: Node, row: int) -> None:
        assert self.pending is None and 0 <= row <= len(parent.children)
        self.pending = ("insert", parent, row, len(parent.children))

    def after_insert(self) -> None:
        kind, parent, row, before = self.pending
        assert kind == "insert" and len(parent.children) == before + 1
        self.events.append(("insert", parent.path, row))
        self.pending = None

    def before_remove(self, parent: Node, row: int) -> None:
        assert self.pending is None and 0 <= row < len(parent.children)
        self.pending = ("remove", parent, row, len(parent.children))

    def after_remove(self) -> None:
        kind, parent, row, before = self.pending
        assert kind == "remove" and len(parent.children) == before - 1
        self.events.append(("remove", parent.path, row))
        self.pending = None

    def node_changed(self, node: Node) -> None:
        assert node.key in self.tree.by_key and node.parent is not None
        self.events.append(("changed", node.path, node.row))


def test_add_creates_missing_folders_in_one_insert_and_keeps_counts() -> None:
    tree = tree_of("mcp/email", "web")
    rec = Recorder(tree)
    tree.listener = rec
    tree.add(sk("research/papers/summarize"))
    assert rec.events[0] == ("insert", "", 1)  # 'research' (with its subtree) between mcp, web
    assert ("changed", "research", 1) not in rec.events  # a new node needs no change notice
    assert tree.find("research").count == 1 and tree.find("research/papers").count == 1
    rec.events.clear()
    tree.add(sk("mcp"))  # the folder becomes a skill too: a change, not an insert
    assert rec.events == [("changed", "mcp", 0)]
    assert shape(tree) == shape(tree_of("mcp/email", "web", "research/papers/summarize", "mcp"))


def test_remove_prunes_empty_folders_but_keeps_a_folder_that_is_a_skill() -> None:
    tree = tree_of("a/b/c", "a", "x")
    rec = Recorder(tree)
    tree.listener = rec
    tree.remove("A/B/C")
    assert rec.events[0] == ("remove", "a", 0)  # 'a/b' went with it (it held only 'c')
    assert tree.find("a/b") is None and tree.find("a").is_skill
    tree.remove("a")
    assert tree.find("a") is None
    tree.remove("nothing")  # unknown: no-op
    assert shape(tree) == shape(tree_of("x"))


@budgeted(12, 60)
@given(st.lists(st.tuples(st.booleans(),
                          st.lists(st.sampled_from(["a", "B", "b", "a_", "c-d", "e0"]),
                                   min_size=1, max_size=3)),
                max_size=30))
def test_incremental_updates_equal_a_fresh_build(ops: list[tuple[bool, list[str]]]) -> None:
    tree = tree_of("a/B", "c-d")
    tree.listener = Recorder(tree)
    present = {fold("a/B"): "a/B", fold("c-d"): "c-d"}
    for add, parts in ops:
        name = "/".join(parts)
        if add and fold(name) not in present:
            tree.add(sk(name))
            present[fold(name)] = name
        elif not add:
            tree.remove(name)
            present.pop(fold(name), None)
    assert tree.skill_count == len(present)
    assert shape(tree) == shape(tree_of(*present.values()))


def test_apply_follows_real_library_operations_and_undo(agent_copy: Path) -> None:
    lib = RockBotLibrary.open(agent_copy, clock=lambda: NOW)
    tree = SkillTree(lib.skills())
    tree.listener = Recorder(tree)

    def check(change: ChangeSet | None) -> None:
        assert change is not None
        assert tree.apply(change, lib.get)
        assert shape(tree) == shape(SkillTree(lib.skills()))

    check(lib.create("tools/new-thing", summary="brand new"))
    check(lib.rename_many(move_mapping(tree, tree.find("mcp"), "servers/mcp")))
    assert tree.find("servers/mcp/email").is_skill and tree.find("mcp") is None
    check(lib.delete_many(["research/summarize-paper", "research/summarize-article"]))
    assert tree.find("research") is None
    check(lib.update("web", summary="changed summary"))
    assert "CHANGED SUMMARY" in tree.find("web").haystack()
    while lib.history.can_undo:
        check(lib.undo())
    assert tree.find("mcp/email").skill == lib.get("mcp/email")


def test_a_huge_change_asks_for_a_rebuild() -> None:
    tree = tree_of("a")
    big = ChangeSet("big", created=tuple(f"n{i}" for i in range(3000)))
    assert tree.apply(big, lambda name: sk(name)) is False
    assert shape(tree) == shape(tree_of("a"))


# ---------------------------------------------------------------- moves


def test_move_mapping_carries_the_whole_subtree() -> None:
    tree = tree_of("mcp", "mcp/email", "mcp/google/drive", "web")
    assert move_mapping(tree, tree.find("mcp"), "tools/mcp") == {
        "mcp": "tools/mcp", "mcp/email": "tools/mcp/email",
        "mcp/google/drive": "tools/mcp/google/drive"}
    assert move_mapping(tree, tree.find("mcp/email"), "mail") == {"mcp/email": "mail"}


def test_drop_mapping_into_a_folder_or_the_top_level() -> None:
    tree = tree_of("mcp/email", "mcp/calendar", "web/search", "solo")
    mcp, web, email = tree.find("mcp"), tree.find("web"), tree.find("mcp/email")
    assert drop_mapping(tree, [mcp, email], web) == {  # email moves with its folder
        "mcp/calendar": "web/mcp/calendar", "mcp/email": "web/mcp/email"}
    assert drop_mapping(tree, [email], tree.root) == {"mcp/email": "email"}
    assert drop_mapping(tree, [tree.find("solo")], tree.root) == {}  # already there
    assert is_inside(mcp, email) and is_inside(mcp, mcp) and not is_inside(email, mcp)


# ---------------------------------------------------------------- facts and filter


def test_facts_combine_last_used_at_with_usage_events() -> None:
    events = [UsageEvent("1", "MCP/Email", "s", Timestamp.parse("2026-11-21T00:00:00+00:00")),
              UsageEvent("2", "mcp/email", "s", Timestamp.parse("2026-10-01T00:00:00+00:00")),
              UsageEvent("3", None, "s", NOW)]
    facts = Facts(NOW, last_used_by_name(events))
    used_by_log = sk("mcp/email", last_used=None)
    assert facts.last_use(used_by_log) == Timestamp.parse("2026-11-21T00:00:00+00:00")
    stored_later = sk("mcp/email", last_used="2026-11-22T00:00:00+00:00")
    assert facts.last_use(stored_later) == stored_later.last_used_at
    never = sk("fresh", created="2026-11-20")
    assert facts.never_used(never) and not facts.never_used(used_by_log)
    assert not facts.unused_for(never, 7)  # created two days ago
    assert facts.unused_for(sk("old", created="2026-01-01"), 30)
    assert not facts.unused_for(used_by_log, 30) and facts.unused_for(used_by_log, 0.5)


def test_facts_problems_name_claims_and_dangling_see_also() -> None:
    problems = [
        Problem(path="skills/web.json", kind=ProblemKind.NAME_MISMATCH, name="mcp", message="m"),
        Problem(path="skills/notes/broken.json", kind=ProblemKind.PARSE_ERROR, message="bad"),
    ]
    claims = problems_by_name(problems)
    assert set(claims) == {"MCP", "WEB", "NOTES/BROKEN"}
    facts = Facts(NOW, file_problems=claims, exists=lambda n: fold(n) in {"A", "MCP"})
    assert facts.problems(sk("a", see_also=("mcp",))) == []
    assert facts.problems(sk("a", see_also=("mcp", "A"))) == ["see-also names the skill itself"]
    reasons = facts.problems(sk("a", see_also=("mcp", "gone", "also-gone")))
    assert reasons == ["see-also names no skill: 'gone', 'also-gone'"]
    assert "skills/web.json could not be loaded (name-mismatch)" in facts.problems(sk("MCP"))[0]


def build_sample() -> SkillTree:
    return SkillTree([
        sk("mcp", "MCP server discovery", last_used="2026-11-20"),
        sk("mcp/email", "Send and search email", last_used="2026-11-21"),
        sk("mcp/calendar", "Read calendar events", content="short"),
        sk("research/papers/summarize", "Summarize an academic PAPER", created="2026-11-20",
           content="tiny"),
        sk("web", "Web search", see_also=("missing",)),
    ])


def test_text_filter_matches_name_or_summary_and_shows_ancestors() -> None:
    tree = build_sample()
    facts = Facts(NOW)
    result = run_filter(tree, TreeFilter("paper"), facts)  # in the summary (case-insensitive)
    found = {tree.by_uid[uid].path for uid in result.matches}
    assert found == {"research/papers/summarize"}
    assert {tree.by_uid[uid].path for uid in result.visible} == {
        "research", "research/papers", "research/papers/summarize"}
    assert result.counts[tree.find("research").uid] == 1
    result = run_filter(tree, TreeFilter("  MCP/E  "), facts)  # name, across the '/'
    assert {tree.by_uid[uid].path for uid in result.matches} == {"mcp/email"}
    assert tree.find("mcp").uid in result.visible and tree.find("mcp").uid not in result.matches
    result = run_filter(tree, TreeFilter("search email"), facts)  # every term, anywhere
    assert {tree.by_uid[uid].path for uid in result.matches} == {"mcp/email"}
    assert not TreeFilter("   ").active and TreeFilter(sparse=True).active


@pytest.mark.parametrize(("spec", "expected"), [
    (TreeFilter(never_used=True), {"mcp/calendar", "research/papers/summarize", "web"}),
    (TreeFilter(unused_days=30), {"mcp/calendar", "web"}),  # summarize is two days old
    (TreeFilter(sparse=True), {"mcp/calendar"}),  # 'tiny' is too young to be sparse
    (TreeFilter(has_problems=True), {"web"}),
    (TreeFilter("mail", never_used=True), set()),
    (TreeFilter("cal", never_used=True, sparse=True), {"mcp/calendar"}),
])
def test_flag_filters(spec: TreeFilter, expected: set[str]) -> None:
    tree = build_sample()
    facts = Facts(NOW, exists=lambda name: tree.skill_node(name) is not None)
    result = run_filter(tree, spec, facts)
    assert {tree.by_uid[uid].path for uid in result.matches} == expected


def test_match_spans_are_in_label_coordinates_and_merged() -> None:
    tree = tree_of("mcp/email-mail", "research/papers")
    email = tree.find("mcp/email-mail")
    assert match_spans(email, [fold("mail")]) == [(1, 4), (6, 4)]
    assert match_spans(email, [fold("p/em")]) == [(0, 2)]  # the part inside the label
    assert match_spans(email, [fold("ema"), fold("mai")]) == [(0, 4), (6, 3)]
    assert match_spans(tree.find("research"), [fold("papers")]) == []
    assert match_spans(email, []) == []


def test_summary_snippet_explains_a_summary_only_match() -> None:
    tree = SkillTree([sk("mcp/email", "Read, search, summarize and send email through the "
                                      "calendar-mcp server"),
                      sk("notes", "A very long introduction before the word we look for: zebra.")])
    email = tree.find("mcp/email")
    assert summary_snippet(email, [fold("summ")]) == (
        "Read, search, summarize and send email through the calendar-…", [(14, 4)])
    assert summary_snippet(email, [fold("email")]) == ("", [])  # the name explains it
    text, spans = summary_snippet(tree.find("notes"), [fold("zebra")])
    assert text.startswith("…") and text.endswith("zebra.")
    assert text[spans[0][0]:spans[0][0] + spans[0][1]] == "zebra"
