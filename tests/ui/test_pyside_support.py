"""The cache of shiboken6's compiled support code (ui/common/pyside_support, issue 19)."""

from __future__ import annotations

import builtins
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.ui.common.pyside_support import SupportCompiler, cache_name, support_code_cached

SOURCE = b"import sys\n\ndef answer(x):\n    return x * 2 + len(sys.argv)\n"
NAME = "shibokensupport/signature/example.py"


def test_the_cached_code_is_the_compiled_code(tmp_path: Path) -> None:
    compiler = SupportCompiler(tmp_path)
    first = compiler(SOURCE, NAME, "exec")
    second = compiler(SOURCE, NAME, "exec")
    assert (compiler.stored, compiler.hits) == (1, 1)
    expected = compile(SOURCE, NAME, "exec")
    assert first == expected and second == expected  # (code objects compare by their content)
    assert [p.name for p in tmp_path.iterdir()] == [cache_name(SOURCE, NAME)]


def test_other_source_or_other_code_is_compiled_as_always(tmp_path: Path) -> None:
    compiler = SupportCompiler(tmp_path)
    compiler(SOURCE, NAME, "exec")
    changed = SOURCE.replace(b"* 2", b"* 3")
    assert compiler(changed, NAME, "exec") == compile(changed, NAME, "exec")  # not the old code
    compiler(SOURCE, "mine/example.py", "exec")  # not shiboken's: not cached
    compiler("1 + 1", NAME, "eval")
    assert compiler.hits == 0 and len(list(tmp_path.iterdir())) == 2


def test_a_damaged_cache_file_is_compiled_again(tmp_path: Path) -> None:
    (tmp_path / cache_name(SOURCE, NAME)).write_bytes(b"\x00garbage")
    compiler = SupportCompiler(tmp_path)
    code = compiler(SOURCE, NAME, "exec")
    assert compiler.hits == 0 and compiler.stored == 1
    assert code == compile(SOURCE, NAME, "exec")
    other = marshal.dumps(compile(b"x = 1\n", "somewhere/else.py", "exec"))
    (tmp_path / cache_name(SOURCE, NAME)).write_bytes(other)  # valid, but not this module's
    assert SupportCompiler(tmp_path)(SOURCE, NAME, "exec") == code


def test_an_unwritable_cache_only_costs_the_compile(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    compiler = SupportCompiler(blocker / "cache")
    assert compiler(SOURCE, NAME, "exec") == compile(SOURCE, NAME, "exec")
    assert compiler.stored == 0


def test_compile_is_itself_again_afterwards(tmp_path: Path) -> None:
    real = builtins.compile
    with pytest.raises(RuntimeError), support_code_cached(tmp_path) as compiler:
        assert builtins.compile is compiler
        raise RuntimeError("an import failed")
    assert builtins.compile is real


def test_files_no_longer_used_go_when_new_ones_are_stored(tmp_path: Path) -> None:
    stale = tmp_path / ("0" * 40 + ".code")
    stale.write_bytes(b"old")
    keep = tmp_path / "notes.txt"
    keep.write_text("not ours")
    with support_code_cached(tmp_path):
        compile(SOURCE, NAME, "exec")
    assert not stale.exists() and keep.exists()
    assert [p.name for p in tmp_path.glob("*.code")] == [cache_name(SOURCE, NAME)]
    other = tmp_path / ("1" * 40 + ".code")
    other.write_bytes(b"another program's")
    with support_code_cached(tmp_path) as compiler:  # nothing new stored: nothing removed
        compile(SOURCE, NAME, "exec")
    assert compiler.hits == 1 and other.exists()


_CHILD = """
import json, sys
import rockskills_gui.ui.shell.app  # (imports PySide6 with the cache)
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication([])
try:  # the support code's work: the signatures in the message
    QWidget().setWindowTitle(5)
except TypeError as exc:
    message = str(exc)
print(json.dumps({"compile": builtins_compile_is_real(), "message": message,
                  "doc": QWidget.setWindowTitle.__doc__}))
"""


def test_the_window_start_uses_the_cache_and_pyside_still_works(tmp_path: Path) -> None:
    """Two fresh starts: the first fills the cache, the second reads it; PySide's signatures
    (the support code's work) are the same in both."""
    script = ("import builtins\nreal = builtins.compile\n"
              "def builtins_compile_is_real():\n    return builtins.compile is real\n" + _CHILD)
    env = {**os.environ, "ROCKSKILLS_CACHE_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    folder = tmp_path / "pyside-support"
    files = sorted(folder.glob("*.code"))
    assert len(files) >= 10  # shiboken6's support modules
    stamps = [f.stat().st_mtime_ns for f in files]
    assert runs[0] == runs[1] and runs[0]["compile"] is True
    assert "Supported signatures" in runs[0]["message"] and "arg__1: str" in runs[0]["doc"]
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0
    assert [f.stat().st_mtime_ns for f in sorted(folder.glob("*.code"))] == stamps  # read, not rewritten
