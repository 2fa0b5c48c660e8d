"""Spare PySide6's compile of its own support code at every start (issue 19: start-up time).

shiboken6 keeps the Python half of its signature support (``shibokensupport``, 13 modules) as
source inside its library, and compiles it from that source at every start, ~15 ms before the
first window can exist; its ``.pyc`` caching only applies once those files are unpacked into the
installation (``SBK_EMBED=0``, which writes into site-packages). While :func:`support_code_cached`
is active, ``compile`` takes the code of those modules from the start-up code cache
(:mod:`~rockskills_gui.core.app.code_cache`): the very code objects compiling them gives. Any
other ``compile`` is the real one. The regular expressions that code builds as it loads (~10 ms:
its signature parser's, its stub generator's, all constants of PySide6) are kept by the cache too.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator
from typing import Any

from rockskills_gui.core.app.code_cache import CodeCache, caller_flags, trust_patterns_of

SUPPORT_PREFIX = "shibokensupport/"  # the file names shiboken6 compiles its support code under


@contextlib.contextmanager
def support_code_cached(cache: CodeCache | None) -> Iterator[None]:
    """While active, ``compile`` takes shiboken6's support code from ``cache`` (None: nothing
    changes); it is the real ``compile`` again afterwards, even after an error."""
    if cache is None:
        yield
        return
    trust_patterns_of(SUPPORT_PREFIX)
    real = builtins.compile

    def compile_(source: Any, filename: Any, mode: str, flags: int = 0,
                 dont_inherit: bool = False, optimize: int = -1, **more: Any) -> Any:
        if (mode == "exec" and flags == 0 and not dont_inherit and optimize == -1 and not more
                and isinstance(filename, str) and filename.startswith(SUPPORT_PREFIX)
                and isinstance(source, (bytes, str))):
            return cache.code(source, filename, mode, caller_flags())
        return real(source, filename, mode, flags, dont_inherit, optimize, **more)

    builtins.compile = compile_
    try:
        yield
    finally:
        builtins.compile = real
