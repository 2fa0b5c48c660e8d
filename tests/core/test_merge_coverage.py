"""Merge coverage (issue 32): every name, number, acronym, tool name and URL a source has and the
merged text lacks is listed, as RockBot's MergeCoverage.cs does for memory merges."""

from __future__ import annotations

from rockskills_gui.core.dream.coverage import coverage

SOURCE = """# Fuzzing with AFL++
Build with `afl-clang-fast` and run `afl-fuzz -i in -o out` against the ELF target.
Set AFL_SKIP_CPUFREQ=1 and read https://aflplus.plus/docs/fuzzing_in_depth/ first.
The libFuzzer driver calls LLVMFuzzerTestOneInput; ask Rocky Lhotka before using the CI box.
Runs on port 8080 since version 4.08c (2026-09-10)."""


def test_every_category_of_what_a_merge_dropped_is_listed() -> None:
    merged = "# Fuzz\nRun a fuzzer against the target."
    lost = coverage([SOURCE], merged)
    assert lost.missing["URLs"] == ["https://aflplus.plus/docs/fuzzing_in_depth/"]
    assert {"afl-clang-fast", "afl-fuzz -i in -o out", "AFL_SKIP_CPUFREQ", "libFuzzer"} <= \
        set(lost.missing["tools"])
    assert {"ELF", "CI"} <= set(lost.missing["acronyms"])
    assert {"8080", "4.08", "2026-09-10"} <= set(lost.missing["numbers"])
    assert {"Rocky", "Lhotka", "LLVMFuzzerTestOneInput"} <= set(lost.missing["names"])
    assert "SKIP" not in lost.values() and "CPUFREQ" not in lost.values()  # inside an identifier
    message = lost.message()
    for value in lost.values():
        assert f"'{value}'" in message  # every one is listed, none cut


def test_a_merge_that_keeps_everything_loses_nothing_whatever_its_case_or_format() -> None:
    merged = SOURCE.upper().replace("2026-09-10", "2026-09-10T00:00")  # case-insensitive substrings
    assert coverage([SOURCE], merged).total == 0
    assert coverage([SOURCE], SOURCE).total == 0


def test_a_capitalised_word_that_is_ordinary_language_elsewhere_is_no_name() -> None:
    """#550's corpus-evidence rule: 'Marking' opens a sentence, 'marking' appears in lower case."""
    sources = ["Marking the files is done by hand.", "Keep marking them until Friday."]
    lost = coverage(sources, "Files are marked by hand.")
    assert "Marking" not in lost.values()
    assert lost.missing["names"] == ["Friday"]
