"""shiboken6's support code through the start-up code cache (ui/common/pyside_support, issue 19)."""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.app.code_cache import FILE_NAME, CodeCache
from rockskills_gui.ui.common.pyside_support import support_code_cached

SOURCE = b"import sys\n\ndef answer(x):\n    return x * 2 + len(sys.argv)\n"
NAME = "shibokensupport/signature/example.py"


def _compile_here(source: bytes | str, name: str) -> object:
    """``compile`` as shiboken's bootstrap calls it (inheriting this module's __future__ flags)."""
    return compile(source, name, "exec")


def test_support_code_is_the_compiled_code_cold_and_warm(tmp_path: Path) -> None:
    expected = _compile_here(SOURCE, NAME)
    cold = CodeCache(tmp_path / FILE_NAME)
    with support_code_cached(cold):
        first = _compile_here(SOURCE, NAME)
    cold.save()
    warm = CodeCache(tmp_path / FILE_NAME)
    with support_code_cached(warm):
        second = _compile_here(SOURCE, NAME)
    assert (cold.misses, warm.hits, warm.misses) == (1, 1, 0)
    assert first == expected and second == expected  # (code objects compare by content)


def test_the_caller_s_future_flags_are_kept(tmp_path: Path) -> None:
    """compile() inherits the caller's ``from __future__`` flags; the cache must too."""
    source = "def f(x: Undefined) -> None: ...\n"  # (runs only with postponed annotations)
    with support_code_cached(CodeCache(tmp_path / FILE_NAME)):
        inherited = _compile_here(source, NAME)
    assert inherited == _compile_here(source, NAME)
    assert inherited != compile(source, NAME, "exec", dont_inherit=True)
    namespace: dict[str, object] = {}
    exec(inherited, namespace)  # type: ignore[arg-type]
    assert callable(namespace["f"])


def test_other_code_is_compiled_as_always(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / FILE_NAME)
    with support_code_cached(cache):
        assert _compile_here(SOURCE, "mine/example.py") == compile(SOURCE, "mine/example.py",
                                                                   "exec")
        compile("1 + 1", NAME, "eval")
        compile(SOURCE, NAME, "exec", dont_inherit=True)
    assert cache.hits == cache.misses == 0


def test_compile_is_itself_again_afterwards(tmp_path: Path) -> None:
    real = builtins.compile
    with pytest.raises(RuntimeError), support_code_cached(CodeCache(tmp_path / FILE_NAME)):
        assert builtins.compile is not real
        raise RuntimeError("an import failed")
    assert builtins.compile is real
    with support_code_cached(None):  # no cache: nothing changes
        assert builtins.compile is real


_CHILD = """
import builtins, json, sys
real = builtins.compile
from rockskills_gui.ui.shell import launch
from rockskills_gui.core.app import code_cache
cache = code_cache.start()  # (as launch.run does)
import rockskills_gui.ui.shell.app  # (imports PySide6 through the cache)
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication([])
try:  # the support code's work: the signatures in the message
    QWidget().setWindowTitle(5)
except TypeError as exc:
    message = str(exc)
cache.save()
print(json.dumps({"compile": builtins.compile is real, "message": message, "hits": cache.hits,
                  "doc": QWidget.setWindowTitle.__doc__}))
"""


def test_the_window_start_uses_the_cache_and_pyside_still_works(tmp_path: Path) -> None:
    """Two fresh starts: the first fills the cache, the second reads it; PySide's signatures
    (the support code's work) are the same in both."""
    env = {**os.environ, "ROCKSKILLS_CACHE_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    assert runs[0]["hits"] == 0 and runs[1]["hits"] >= 13  # shiboken's modules, dataclasses, re
    assert runs[0]["compile"] is runs[1]["compile"] is True
    assert runs[0]["message"] == runs[1]["message"] and "Supported signatures" in runs[0]["message"]
    assert runs[0]["doc"] == runs[1]["doc"] and "arg__1: str" in runs[0]["doc"]
