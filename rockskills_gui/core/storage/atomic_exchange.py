"""The atomic exchange of two names: Linux ``renameat2(RENAME_EXCHANGE)``, macOS
``renamex_np(RENAME_SWAP)``; not available elsewhere (Windows)."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

NO_EXCHANGE = {  # the errors of a file system that cannot exchange
    errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.EXDEV}
_exchange_unsupported: set[int] = set()  # st_dev of file systems that refused an exchange
_exchange_fn: Any = None


def _exchange_call() -> Any:
    """The C function that swaps two names atomically: Linux ``renameat2(RENAME_EXCHANGE)``, macOS
    ``renamex_np(RENAME_SWAP)``; None elsewhere (Windows)."""
    global _exchange_fn
    if _exchange_fn is None:
        _exchange_fn = False
        if sys.platform.startswith("linux") or sys.platform == "darwin":
            import ctypes
            import ctypes.util

            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
                fn = libc.renamex_np
                fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
                _exchange_fn = lambda a, b: fn(a, b, 0x2)  # noqa: E731 - RENAME_SWAP
            elif hasattr(libc, "renameat2"):
                fn = libc.renameat2
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                _exchange_fn = lambda a, b: fn(-100, a, -100, b, 0x2)  # noqa: E731 - AT_FDCWD, EXCHANGE
    return _exchange_fn or None


def exchange_supported(folder: Path) -> bool:
    """Whether :func:`exchange` may work in ``folder`` (not yet refused by its file system)."""
    if _exchange_call() is None:
        return False
    try:
        return os.lstat(folder).st_dev not in _exchange_unsupported
    except OSError:
        return False


def mark_unsupported(folder: Path) -> None:
    """Remember that ``folder``'s file system refused an exchange (:data:`NO_EXCHANGE`)."""
    _exchange_unsupported.add(os.lstat(folder).st_dev)


def exchange(a: Path, b: Path) -> None:
    """Swap the two names atomically (both must exist); OSError with the system's errno."""
    import ctypes

    call = _exchange_call()
    if call is None:
        raise OSError(errno.ENOSYS, "atomic exchange is not available on this system")
    if call(os.fsencode(a), os.fsencode(b)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{os.strerror(code)}: exchanging {a} and {b}")

