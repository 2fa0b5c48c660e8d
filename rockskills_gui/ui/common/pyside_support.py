"""Spare PySide6's compile of its own support code at every start (issue 19: start-up time).

shiboken6 keeps the Python half of its signature support (``shibokensupport``, 13 modules) as
source inside its library, and compiles it from that source at every start, ~15 ms before the
first window can exist; its ``.pyc`` caching only applies once those files are unpacked into the
installation (``SBK_EMBED=0``, which writes into site-packages). While :func:`support_code_cached`
is active, the compiled code of those modules is kept in the user's cache folder, one file per
module, named by a digest of the source, the file name, the interpreter's bytecode magic and its
optimisation level, and read back instead of compiled again: the very code object ``compile``
gives (``marshal``, as in a ``.pyc``). Anything else, or any failure to read or write the cache,
goes to the real ``compile``.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import sys
from collections.abc import Iterator
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

try:  # hashlib.blake2b is this very function; importing hashlib loads OpenSSL (~2.5 ms at start)
    from _blake2 import blake2b
except ImportError:  # (a Python built without it)
    from hashlib import blake2b

from rockskills_gui.core.storage.tempfiles import replaced_privately

SUPPORT_PREFIX = "shibokensupport/"  # the file names shiboken6 compiles its support code under
SUFFIX = ".code"


def cache_name(source: bytes, filename: str) -> str:
    """The cache file of ``source`` compiled as ``filename`` by this interpreter."""
    digest = blake2b(digest_size=20)
    for part in (MAGIC_NUMBER, str(sys.flags.optimize).encode(), filename.encode(), source):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest() + SUFFIX


class SupportCompiler:
    """``compile`` with a cache for shiboken6's support modules (see the module doc)."""

    def __init__(self, folder: Path, compile_: Any = builtins.compile) -> None:
        self.folder = folder
        self.compile = compile_
        self.hits = 0  # code objects read from the cache (tests)
        self.stored = 0  # code objects compiled and written to it
        self.used: set[str] = set()  # the cache files of this start

    def __call__(self, source: Any, filename: Any, mode: str, flags: int = 0,
                 dont_inherit: bool = False, optimize: int = -1, **more: Any) -> Any:
        if not (mode == "exec" and flags == 0 and not dont_inherit and optimize == -1
                and not more and isinstance(filename, str) and filename.startswith(SUPPORT_PREFIX)
                and isinstance(source, (bytes, str))):
            return self.compile(source, filename, mode, flags, dont_inherit, optimize, **more)
        text = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
        path = self.folder / cache_name(text, filename)
        self.used.add(path.name)
        try:
            code = marshal.loads(path.read_bytes())
            if getattr(code, "co_filename", None) == filename:
                self.hits += 1
                return code
        except (OSError, ValueError, EOFError, TypeError):
            pass
        code = self.compile(source, filename, mode)
        with contextlib.suppress(OSError):
            with replaced_privately(path) as handle:
                handle.write(marshal.dumps(code))
            self.stored += 1
        return code


@contextlib.contextmanager
def support_code_cached(folder: Path) -> Iterator[SupportCompiler]:
    """While active, ``compile`` keeps shiboken6's support code in ``folder`` (start-up only: it
    is the real ``compile`` again afterwards, even after an error). When something new was
    stored (a first start, another PySide6), the files no longer used are removed."""
    real = builtins.compile
    compiler = SupportCompiler(folder, real)
    builtins.compile = compiler
    try:
        yield compiler
    finally:
        builtins.compile = real
    if compiler.stored:
        with contextlib.suppress(OSError):
            for old in folder.glob("*" + SUFFIX):
                if old.name not in compiler.used:
                    old.unlink()
