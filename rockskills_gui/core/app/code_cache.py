"""Code compiled at every start, kept between runs (issue 19: start-up time).

Python keeps the bytecode of modules in ``.pyc`` files, but three kinds of code are compiled again
from text in every process, before anything can be shown:

- each dataclass's methods (``__init__``, ``__eq__``, ``__repr__``, ...), which
  :mod:`dataclasses` writes as source and hands to ``exec``: ~150 pieces, ~12 ms at the window's
  start;
- regular expressions compiled as modules load (``re.compile`` in a module's top-level code or a
  class body, and in the support code of a library that asked for it with
  :func:`trust_patterns_of`), ours and our libraries': ~35 patterns, ~24 ms, most of them
  PySide6's own. A pattern made while the program runs (from a search, from an API key the log
  must not show) is never kept;
- PySide6's signature support (``ui/common/pyside_support``), ~15 ms.

A :class:`CodeCache` keeps what these compilations give in one file in the user's cache folder,
keyed by a digest of everything the result depends on (the source or pattern, its flags, the
interpreter's version and bytecode magic), and gives it back instead of compiling again: the same
code objects (``marshal``, as a ``.pyc``) and the same regular-expression programs. A miss
compiles as always; the file is written (atomically, readable by the user only) after the start
when something new was compiled, and anything wrong with it only means compiling again.
:func:`install` hooks the first two; PySide6's support code goes through :meth:`CodeCache.code`.
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import dataclasses
import marshal
import re
import sys
import threading
from collections.abc import Callable
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

try:  # hashlib.blake2b is this very function; importing hashlib loads OpenSSL (~2.5 ms at start)
    from _blake2 import blake2b
except ImportError:  # (a Python built without it)
    from hashlib import blake2b

from rockskills_gui.core.model.size_limits import CACHE_FILE_MAX_BYTES
from rockskills_gui.core.storage.fileio import read_regular
from rockskills_gui.core.storage.tempfiles import replaced_privately

FORMAT = 1
MAX_ENTRIES = 5_000  # beyond this, a save keeps only what this process used
FILE_NAME = f"code-{sys.implementation.cache_tag}.bin"
# Everything a compiled result depends on besides its own text and flags.
_INTERPRETER = (MAGIC_NUMBER + sys.version.encode() + bytes([sys.flags.optimize & 0xFF]))

RegexProgram = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
# The compiler flags that compile() and exec() of text inherit from the code calling them.
FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

_installed: CodeCache | None = None


def _digest(*parts: bytes) -> str:
    digest = blake2b(digest_size=20)
    for part in (_INTERPRETER, *parts):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _text(source: str | bytes) -> bytes:
    return source.encode("utf-8", "surrogatepass") if isinstance(source, str) else b"\0" + source


class CodeCache:
    """Compiled code by digest, read from ``path`` and written back by :meth:`save`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._code: dict[str, bytes] = {}
        self._regex: dict[str, RegexProgram] = {}
        self._new = 0  # entries compiled in this process (not in the file)
        self._used: set[str] = set()
        self._lock = threading.Lock()  # (dataclasses and patterns are made on worker threads too)
        self.hits = 0
        self.misses = 0
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            # (a FIFO or a link to /dev/zero put there is refused at once, never read: issue 35)
            data = marshal.loads(read_regular(path, CACHE_FILE_MAX_BYTES))
            if (isinstance(data, tuple) and len(data) == 3 and data[0] == FORMAT
                    and isinstance(data[1], dict) and isinstance(data[2], dict)):
                self._code, self._regex = data[1], data[2]

    # ---------------------------------------------------------------- source code

    def code(self, source: str | bytes, filename: str, mode: str, flags: int = 0) -> CodeType:
        """``compile(source, filename, mode, flags, dont_inherit=True)``, from the cache when
        there (``flags``: the ``__future__`` flags the code is compiled with)."""
        key = _digest(_text(source), filename.encode("utf-8", "surrogatepass"), mode.encode(),
                      str(flags).encode())
        blob = self._code.get(key)
        if blob is not None:
            with contextlib.suppress(ValueError, EOFError, TypeError):
                cached = marshal.loads(blob)
                if isinstance(cached, CodeType) and cached.co_filename == filename:
                    self._hit(key)
                    return cached
        code: CodeType = compile(source, filename, mode, flags, dont_inherit=True)
        with self._lock:
            self._code[key] = marshal.dumps(code)
            self._missed(key)
        return code

    # ---------------------------------------------------------------- regular expressions

    def regex(self, pattern: str | bytes, flags: int,
              compile_program: Callable[[str | bytes, int], RegexProgram]) -> RegexProgram:
        """The program ``re`` makes of ``pattern`` with ``flags`` (``compile_program`` makes it on
        a miss)."""
        key = _digest(b"re", _text(pattern), str(flags).encode())
        program = self._regex.get(key)
        if program is not None:
            self._hit(key)
            return program
        program = compile_program(pattern, flags)
        with self._lock:
            self._regex[key] = program
            self._missed(key)
        return program

    # ---------------------------------------------------------------- the file

    def _hit(self, key: str) -> None:
        self.hits += 1
        self._used.add(key)

    def _missed(self, key: str) -> None:
        self.misses += 1
        self._new += 1
        self._used.add(key)

    @property
    def dirty(self) -> bool:
        """Something was compiled that the file does not hold yet."""
        return self._new > 0

    def save(self) -> None:
        """Write the file when :attr:`dirty` (failures are ignored: the next start compiles)."""
        with self._lock:
            if not self._new:
                return
            code, regex = dict(self._code), dict(self._regex)
            if len(code) + len(regex) > MAX_ENTRIES:
                code = {k: v for k, v in code.items() if k in self._used}
                regex = {k: v for k, v in regex.items() if k in self._used}
            self._new = 0
        with contextlib.suppress(OSError, ValueError):
            with replaced_privately(self.path) as handle:
                handle.write(marshal.dumps((FORMAT, code, regex)))


# -------------------------------------------------------------------- hooks


def caller_flags(depth: int = 2) -> int:
    """The ``__future__`` flags of the code ``depth`` frames up (what its compile() and exec()
    of text inherit)."""
    return sys._getframe(depth).f_code.co_flags & FUTURE_FLAGS


def _dataclass_exec(cache: CodeCache) -> Callable[..., None]:
    real_exec = builtins.exec

    def exec_(source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` as dataclasses calls it, with the text's code from the cache."""
        if globals is None:  # (as exec itself: the caller's namespaces)
            frame = sys._getframe(1)
            globals = frame.f_globals
            locals = frame.f_locals if locals is None else locals
        if isinstance(source, str):
            source = cache.code(source, "<string>", "exec", caller_flags())
        real_exec(source, globals, locals)

    return exec_


def _regex_compiler(cache: CodeCache) -> Callable[..., Any] | None:
    """A replacement for ``re._compiler.compile`` that takes the program from ``cache``; None
    when this Python's ``re`` is not built the way it expects."""
    compiler = getattr(re, "_compiler", None)
    sre = getattr(compiler, "_sre", None)
    parser = getattr(compiler, "_parser", None)
    code_of = getattr(compiler, "_code", None)
    original = getattr(compiler, "compile", None)
    if sre is None or parser is None or code_of is None or original is None:
        return None

    def program(pattern: str | bytes, flags: int) -> RegexProgram:
        parsed = parser.parse(pattern, flags)
        code = code_of(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        return (int(flags | parsed.state.flags), [int(op) for op in code],  # (named int opcodes)
                parsed.state.groups - 1, groupindex,
                tuple(indexgroup))

    def checked(pattern: str | bytes, flags: int) -> RegexProgram:
        """A new program, kept only if it makes the very pattern ``re`` makes."""
        made = program(pattern, flags)
        if sre.compile(pattern, *made) != original(pattern, flags):  # (compares the code too)
            raise _NotTheSame
        return made

    def compile_(p: Any, flags: int = 0) -> Any:
        if not isinstance(p, (str, bytes)) or type(flags) is not int or flags & re.DEBUG \
                or not _a_program_constant():
            return original(p, flags)
        try:
            return sre.compile(p, *cache.regex(p, flags, checked))
        except _NotTheSame:
            return original(p, flags)

    return compile_


# Code flags of a function's frame (inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS); a module's
# top-level code and a class body have neither.
_FUNCTION_FLAGS = 0x1 | 0x2
_trusted_prefixes: tuple[str, ...] = ()


def trust_patterns_of(prefix: str) -> None:
    """Keep the patterns that code whose file name starts with ``prefix`` compiles, wherever in
    it (a library's own support code that builds its constant patterns in functions run as it
    loads; it must never compile a pattern from the program's data)."""
    global _trusted_prefixes
    if prefix and prefix not in _trusted_prefixes:
        _trusted_prefixes = (*_trusted_prefixes, prefix)


def _a_program_constant() -> bool:
    """Whether the pattern being compiled is a constant of the program: compiled by a module's
    top-level code or a class body (as the module loads), or by trusted support code
    (:func:`trust_patterns_of`). A pattern made in a function may hold data (a search the user
    typed, an API key to redact from the log): it is never written to the cache."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "re":
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename.startswith(_trusted_prefixes):
        return True
    # A class body counts only where the module itself runs it (a class made in a function may
    # take the function's data into its body).
    while frame is not None and not frame.f_code.co_flags & _FUNCTION_FLAGS \
            and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame is not None and frame.f_code.co_name == "<module>" \
        and not frame.f_code.co_flags & _FUNCTION_FLAGS


class _NotTheSame(Exception):
    """This ``re`` compiles a pattern otherwise than :func:`_regex_compiler` expects."""


_ORIGINAL_REGEX_COMPILER = getattr(getattr(re, "_compiler", None), "compile", None)


def install(cache: CodeCache) -> None:
    """Let dataclasses and ``re`` take their compiled code from ``cache`` (for this process;
    the first cache installed stays until :func:`uninstall`)."""
    global _installed
    if _installed is not None:
        return
    _installed = cache
    dataclasses.exec = _dataclass_exec(cache)  # type: ignore[attr-defined]  # (shadows builtins)
    compile_regex = _regex_compiler(cache)
    if compile_regex is not None:
        re._compiler.compile = compile_regex  # type: ignore[attr-defined]


def uninstall() -> None:
    """Compile as Python does again (tests)."""
    global _installed
    _installed = None
    if "exec" in vars(dataclasses):
        del dataclasses.exec  # type: ignore[attr-defined]
    if _ORIGINAL_REGEX_COMPILER is not None:
        re._compiler.compile = _ORIGINAL_REGEX_COMPILER  # type: ignore[attr-defined]


def installed() -> CodeCache | None:
    """The cache :func:`install` installed, if any."""
    return _installed


def start(folder: Path | None = None) -> CodeCache:
    """Read the cache file in ``folder`` (default: the user's cache folder) and :func:`install`
    it."""
    if folder is None:
        from rockskills_gui.core.storage.appdirs import cache_dir

        folder = cache_dir()
    cache = CodeCache(folder / FILE_NAME)
    install(cache)
    return cache
