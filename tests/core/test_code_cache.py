"""The start-up code cache (core/app/code_cache, issue 19): what it gives back is exactly what
compiling gives, cold or warm, and anything wrong with its file only means compiling again."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rockskills_gui.core.app import code_cache
from rockskills_gui.core.app.code_cache import FILE_NAME, CodeCache
from tests.property_budget import budgeted


@contextmanager
def installed(path: Path) -> Iterator[CodeCache]:
    code_cache.uninstall()
    cache = CodeCache(path)
    code_cache.install(cache)
    try:
        yield cache
    finally:
        code_cache.uninstall()


def _classes() -> list[type]:
    """Dataclasses with most of what dataclasses can generate."""

    @dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 0
        tags: tuple[str, ...] = ()

    @dataclass
    class Box:
        name: str
        items: list[int] = field(default_factory=list)
        hidden: int = field(default=3, repr=False, compare=False)
        scale: InitVar[int] = 1
        kind: ClassVar[str] = "box"
        total: int = field(init=False, default=0)

        def __post_init__(self, scale: int) -> None:
            self.total = sum(self.items) * scale

    @dataclass(slots=True, kw_only=True, unsafe_hash=True)
    class Options:
        depth: int
        label: str = "x"

    return [Point, Box, Options]


METHODS = ("__init__", "__repr__", "__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__",
           "__setattr__", "__delattr__")


def _codes(cls: type) -> dict[str, Any]:
    found = {}
    for name in METHODS:
        method = vars(cls).get(name)
        code = getattr(getattr(method, "__wrapped__", method), "__code__", None)
        if code is not None:
            found[name] = code
    return found


def test_dataclass_methods_are_the_compiled_ones_cold_and_warm(tmp_path: Path) -> None:
    code_cache.uninstall()
    plain = [_codes(c) for c in _classes()]
    with installed(tmp_path / FILE_NAME) as cold:
        made_cold = _classes()
        cold.save()
    assert cold.misses > 0 and (tmp_path / FILE_NAME).is_file()
    with installed(tmp_path / FILE_NAME) as warm:
        made_warm = _classes()
    assert warm.hits == cold.misses and warm.misses == 0 and not warm.dirty
    for before, after_cold, after_warm in zip(plain, map(_codes, made_cold), map(_codes, made_warm),
                                              strict=True):
        assert before.keys() == after_cold.keys() == after_warm.keys() and before
        for name, code in before.items():
            assert after_cold[name] == code and after_warm[name] == code, name
    Point, Box, Options = made_warm
    assert Point(1, 2) < Point(2) and repr(Point(1)).endswith(".Point(x=1, y=0, tags=())")
    box = Box("b", [1, 2], scale=2)
    assert box.total == 6 and box == Box("b", [1, 2], hidden=9, scale=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 2  # type: ignore[misc]
    assert hash(Options(depth=1)) == hash(Options(depth=1))


PATTERNS: list[tuple[str | bytes, int]] = [
    (r"^(?P<y>\d{4})-(?P<m>\d\d)(?:-(?P<d>\d\d))?$", 0),
    (r"(?<=\s)[A-Za-z_][\w.-]*(?=:)", 0),
    (r"""\b (?: foo | bar ) \s* = \s* (['"]) .*? \1""", re.VERBOSE),
    (r"straße|STRASSE", re.IGNORECASE),
    (r"^\s*#.*$", re.MULTILINE),
    (r"[\ud800-\udfff]", 0),
    (rb"\x00[\x01-\x7f]+\xff", 0),
    (r"(a+)++b|c*+", 0),
    (r"(?i:x)(?s:.)\Z", re.ASCII),
]


def _pieces() -> st.SearchStrategy[str]:
    atom = st.sampled_from(["a", "b", r"\d", r"\w", ".", "[a-c]", "[^x]", r"\s", "é", "(?:ab)"])
    quantified = st.tuples(atom, st.sampled_from(["", "*", "+", "?", "{2}", "{1,3}", "*?", "+?"])
                           ).map("".join)
    sequence = st.lists(quantified, min_size=1, max_size=5).map("".join)
    grouped = st.tuples(st.sampled_from(["(", "(?P<g>", "(?:", "(?=", "(?!"]), sequence
                        ).map(lambda t: t[0] + t[1] + ")")
    return st.lists(st.one_of(sequence, grouped), min_size=1, max_size=3).map("|".join)


def _at_module_level(pattern: str | bytes, flags: int) -> Any:
    """``pattern`` compiled by a module's top-level code (what the cache keeps), past ``re``'s
    own in-process cache."""
    namespace: dict[str, Any] = {"pattern": pattern, "flags": int(flags)}  # (as re._compile)
    exec("import re\nresult = re._compiler.compile(pattern, flags)", namespace)
    return namespace["result"]


@contextmanager
def _two_caches(tmp_path: Path) -> Iterator[Callable[[str | bytes, int], tuple[Any, Any]]]:
    """Compile through a cold cache, save, and through the warm one; yield a function giving
    (cold, warm) patterns for a pattern."""
    path = tmp_path / FILE_NAME

    def both(pattern: str | bytes, flags: int) -> tuple[Any, Any]:
        with installed(path) as cold:
            first = _at_module_level(pattern, flags)
            cold.save()
        with installed(path) as warm:
            second = _at_module_level(pattern, flags)
        assert cold.misses == 1 and (warm.hits, warm.misses) == (1, 0)
        return first, second

    yield both


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_regex_programs_are_re_s_own(tmp_path: Path, pattern: str | bytes, flags: int) -> None:
    code_cache.uninstall()
    expected = re._compiler.compile(pattern, flags)  # type: ignore[attr-defined]
    with _two_caches(tmp_path) as both:
        cold, warm = both(pattern, flags)
    assert cold == expected and warm == expected  # (Pattern equality compares the program)
    assert warm.groupindex == expected.groupindex and warm.groups == expected.groups
    sample = b"\x00abc\xff 2024-01-02 x: STRASSE" if isinstance(pattern, bytes) else \
        " name: 2024-01-02 foo = 'q' straße # c aab"
    assert [m.span() for m in warm.finditer(sample)] == \
           [m.span() for m in expected.finditer(sample)]


@budgeted(12, 60)
@given(pattern=_pieces(), flags=st.sampled_from([0, re.IGNORECASE, re.ASCII | re.MULTILINE]))
def test_generated_regexes_compile_to_re_s_own_programs(tmp_path_factory: pytest.TempPathFactory,
                                                         pattern: str, flags: int) -> None:
    code_cache.uninstall()
    try:
        expected = re._compiler.compile(pattern, flags)  # type: ignore[attr-defined]
    except re.error:  # (e.g. a group name used twice): not a pattern
        assume(False)
    with _two_caches(tmp_path_factory.mktemp("re")) as both:
        cold, warm = both(pattern, flags)
    assert cold == expected and warm == expected


def test_a_bad_pattern_fails_as_re_fails(tmp_path: Path) -> None:
    code_cache.uninstall()
    with pytest.raises(re.error) as plain:
        re._compiler.compile("a(b", 0)  # type: ignore[attr-defined]
    with installed(tmp_path / FILE_NAME) as cache, pytest.raises(re.error) as cached:
        _at_module_level("a(b", 0)
    assert str(cached.value) == str(plain.value) and not cache.dirty


def test_patterns_made_at_run_time_are_never_written(tmp_path: Path) -> None:
    """A pattern built while the program runs may hold data: an API key (the log's redaction),
    a search. Only patterns of a module's own top-level code (or a class body) are kept."""
    from rockskills_gui.core.text.redact import secret_pattern

    secret = "sk-test-Zq8Lw3Nv5Tb7Yc9Xd"
    with installed(tmp_path / FILE_NAME) as cache:
        pattern = secret_pattern(secret)
        re.compile("find (this|that) " + "user text", re.IGNORECASE)
        _at_module_level(r"\bconstant\b", 0)  # (a module's own: kept)
        cache.save()
    assert pattern.search(f"key={secret}") and cache.misses == 1
    data = (tmp_path / FILE_NAME).read_bytes()
    for text in (secret, "Zq8Lw3", "user text"):
        assert text.encode() not in data and text.encode("utf-16-le") not in data
    reopened = CodeCache(tmp_path / FILE_NAME)
    assert len(reopened._regex) == 1 and not reopened._code


def test_patterns_of_class_bodies_and_trusted_support_code_are_kept(tmp_path: Path) -> None:
    """A class body's patterns are constants like a module's; so are those a library's trusted
    support code builds in functions as it loads (PySide6's signature parser). A function
    elsewhere, with the same pattern text, still keeps nothing."""
    class_body = "import re\nclass Style:\n    pattern = re._compiler.compile(r'%\\(\\w+\\)s', 0)\n"
    support = ("import re\ndef build(level):\n    return re._compiler.compile(r'a{%d}b' % level, 0)\n"
               "made = build(3)\n")
    elsewhere = ("import re\ndef build(level):\n    return re._compiler.compile(r'a{%d}c' % level, 0)\n"
                 "made = build(3)\n")
    in_a_function = ("import re\ndef make(secret):\n    class Redactor:\n"
                     "        pattern = re._compiler.compile(secret, 0)\n    return Redactor\n"
                     "made = make('sk-class-Qx7Zr2')\n")
    with installed(tmp_path / FILE_NAME) as cache:
        exec(compile(class_body, "styles.py", "exec"), {})
        assert cache.misses == 1
        exec(compile(elsewhere, "mine/helpers.py", "exec"), {})
        exec(compile(in_a_function, "mine/redact.py", "exec"), {})
        assert cache.misses == 1  # (a function, a class made by one: not kept)
        code_cache.trust_patterns_of("trusted-support/")
        try:
            exec(compile(support, "trusted-support/parser.py", "exec"), {})
            exec(compile(elsewhere, "mine/helpers.py", "exec"), {})
        finally:
            code_cache._trusted_prefixes = ()
        assert cache.misses == 2
        cache.save()
    reopened = CodeCache(tmp_path / FILE_NAME)
    assert len(reopened._regex) == 2
    assert b"sk-class-Qx7Zr2" not in (tmp_path / FILE_NAME).read_bytes()
    with installed(tmp_path / FILE_NAME) as warm:
        namespace: dict[str, Any] = {}
        exec(compile(class_body, "styles.py", "exec"), namespace)
    assert (warm.hits, warm.misses) == (1, 0)
    assert namespace["Style"].pattern == re._compiler.compile(r"%\(\w+\)s", 0)  # type: ignore[attr-defined]


@pytest.mark.parametrize("content", [b"", b"\x00\x01garbage", b"\xe9", None])
def test_a_damaged_or_foreign_file_only_means_compiling(tmp_path: Path, content: bytes | None) -> None:
    import marshal

    path = tmp_path / FILE_NAME
    if content is None:  # valid marshal, wrong shape
        content = marshal.dumps({"not": "ours"})
    path.write_bytes(content)
    with installed(path) as cache:
        (Point, *_rest) = _classes()
        assert Point(3).x == 3 and cache.misses > 0 and cache.hits == 0
        cache.save()
    with installed(path) as again:
        _classes()
    assert again.hits > 0 and again.misses == 0


def test_a_code_entry_that_is_not_this_code_is_compiled_again(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / FILE_NAME)
    code = cache.code("x = 1\n", "<string>", "exec")
    cache._code = {key: b"\x00broken" for key in cache._code}  # every entry damaged
    assert cache.code("x = 1\n", "<string>", "exec") == code and cache.misses == 2


def test_an_unwritable_cache_folder_costs_nothing_but_the_compile(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = CodeCache(blocker / "cache" / FILE_NAME)
    assert cache.code("y = 2\n", "<string>", "exec") == compile("y = 2\n", "<string>", "exec",
                                                               dont_inherit=True)
    cache.save()  # (fails quietly)
    assert not (blocker / "cache").exists()


def test_the_rockskills_command_fills_the_cache_once(tmp_path: Path) -> None:
    """Two runs of the console entry: the first writes the file, the second reads it only."""
    env = {**os.environ, "ROCKSKILLS_CACHE_DIR": str(tmp_path)}
    demo = Path(__file__).resolve().parents[2] / "resources" / "demo-library"
    command = [sys.executable, "-c", "import sys; sys.argv[0] = 'rockskills'; "
               "from rockskills_gui.cli import run; run()", "list", str(demo)]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    stamp = (tmp_path / FILE_NAME).stat().st_mtime_ns
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert (tmp_path / FILE_NAME).stat().st_mtime_ns == stamp
