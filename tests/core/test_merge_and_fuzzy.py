"""Three-way merge for disk conflicts, diffs, and fuzzy skill-name matching."""

from __future__ import annotations

from rockskills_gui.core.text.fuzzy import fuzzy_filter, fuzzy_score
from rockskills_gui.core.text.merge import MINE_MARKER, THEIRS_MARKER, merge3, unified_diff

BASE = "# T\n\none\ntwo\nthree\nfour\n"


def test_merge_takes_changes_from_both_sides_when_they_do_not_overlap() -> None:
    mine = "# T\n\nONE\ntwo\nthree\nfour\n"
    theirs = "# T\n\none\ntwo\nthree\nFOUR\n"
    result = merge3(BASE, mine, theirs)
    assert result.conflicts == 0
    assert result.text == "# T\n\nONE\ntwo\nthree\nFOUR\n"


def test_merge_marks_overlapping_changes() -> None:
    result = merge3(BASE, "# T\n\nmine\ntwo\nthree\nfour\n", "# T\n\ntheirs\ntwo\nthree\nfour\n")
    assert result.conflicts == 1
    assert result.text == ("# T\n\n" + MINE_MARKER + "\nmine\n=======\ntheirs\n" + THEIRS_MARKER
                           + "\ntwo\nthree\nfour\n")


def test_merge_shortcuts_and_same_change() -> None:
    assert merge3(BASE, BASE, "x").text == "x"
    assert merge3(BASE, "y", BASE).text == "y"
    same = "# T\n\nsame\ntwo\nthree\nfour\n"
    assert merge3(BASE, same, same) == merge3(BASE, same, same)
    assert merge3(BASE, same, same).conflicts == 0
    # a final line without a newline never glues a marker onto content
    result = merge3("a\nb", "a\nmine", "a\ntheirs")
    assert result.conflicts == 1 and "mine\n=======\ntheirs\n>>>>>>>" in result.text


def test_unified_diff() -> None:
    assert unified_diff("a\n", "a\n", "x", "y") == ""
    diff = unified_diff("a\nb", "a\nc", "on disk", "yours")
    assert diff.startswith("--- on disk\n+++ yours\n")
    assert "-b\n" in diff and "+c\n" in diff


NAMES = ["mcp/email", "mcp/calendar", "research/summarize-paper", "research/summarize-article",
         "email", "scripts/csv-processing", "web/price-check"]


def test_fuzzy_ranks_exact_then_substring_then_scattered() -> None:
    found = [m.name for m in fuzzy_filter("email", NAMES)]
    assert found[:2] == ["email", "mcp/email"]
    assert fuzzy_filter("mcem", NAMES)[0].name == "mcp/email"
    assert fuzzy_filter("sumpap", NAMES)[0].name == "research/summarize-paper"
    assert [m.name for m in fuzzy_filter("csv", NAMES)] == ["scripts/csv-processing"]
    assert fuzzy_filter("zzz", NAMES) == []


def test_a_space_in_the_query_stands_for_any_gap() -> None:
    """Issue 35: Ctrl+P found nothing for "lit srch"."""
    names = [*NAMES, "research/literature-search", "literature"]
    assert [m.name for m in fuzzy_filter("lit srch", names)] == ["research/literature-search"]
    assert fuzzy_filter("sum  art", names)[0].name == "research/summarize-article"
    assert fuzzy_filter("mcp email", names)[0].name == "mcp/email"


def test_fuzzy_is_case_insensitive_and_reports_positions() -> None:
    match = fuzzy_score("MCE", "mcp/email")
    assert match is not None
    assert [("mcp/email")[i] for i in match.positions] == ["m", "c", "e"]
    assert fuzzy_score("x", "abc") is None
    assert len(fuzzy_filter("", NAMES, limit=3)) == 3


def large_library_names(count: int = 100_000) -> list[str]:
    """Names of a large library (also what tests/benchmarks/bench_names.py times)."""
    return [f"folder{i % 300}/skill-{i}" for i in range(count)]


def test_fuzzy_on_a_large_library_keeps_the_best_subsequence_matches() -> None:
    """Correctness at scale; how long it takes is tests/benchmarks/bench_names.py's."""
    names = large_library_names()
    found = fuzzy_filter("f12sk99", names, limit=50)
    scored = [m for m in (fuzzy_score("f12sk99", n) for n in names) if m is not None]
    assert len(found) == 50 < len(scored)
    assert [m.score for m in found] == sorted((m.score for m in scored), reverse=True)[:50]
    for match in found:  # each a case-insensitive subsequence, at the positions it reports
        assert "".join(match.name[i] for i in match.positions).casefold() == "f12sk99"
