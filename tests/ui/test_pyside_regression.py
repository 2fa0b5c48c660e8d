"""PySide6 6.12.0 on Python 3.11 aborts ("none_dealloc") after a few thousand void Qt calls.

Each call returning None dropped a reference to None it never took; on 3.11 None is not immortal,
so its count reaches zero and the interpreter aborts. The pins in pyproject keep 3.11 on 6.11.x;
this test fails loudly if a wheel with the bug is installed. Run in a subprocess: the abort kills
the process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CALLS = 20_000

SCRIPT = textwrap.dedent(f"""
    import sys
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication([])
    widget = QWidget()
    obj = QObject()
    before = sys.getrefcount(None)
    for i in range({CALLS} // 2):
        widget.setEnabled(True)          # void C++ call: returns None
        obj.setObjectName("n%d" % (i % 7))
    drift = before - sys.getrefcount(None)
    print("none refcount drift", drift)
    sys.exit(0 if drift < 1000 else 3)
""")


def test_many_void_qt_calls_do_not_abort_the_interpreter() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, (
        f"exit {result.returncode}: PySide6 loses references to None on void calls "
        f"(see pyproject pins)\nstdout: {result.stdout}\nstderr: {result.stderr[-2000:]}"
    )
