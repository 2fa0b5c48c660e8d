"""Quitting while background jobs run (the recall warm-up, lint, usage) must end quietly.

A worker thread still running Python code while the interpreter finalises is torn down, and Qt
prints "Qt Concurrent has caught an exception thrown from a worker thread". It showed when the
window was closed a few hundred milliseconds after its first paint; ``app.main`` now waits for
every thread pool before returning.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from rockskills_gui.core.app.demo import demo_source_dir
from rockskills_gui.ui.shell.app import main
delay = int(sys.argv[1])
QTimer.singleShot(0, lambda: QTimer.singleShot(delay, QApplication.quit))
sys.exit(main([str(demo_source_dir())]))
"""


@pytest.mark.parametrize("delay_ms", [250, 350])
def test_quitting_just_after_the_first_paint_leaves_no_worker_running(tmp_path, delay_ms) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(delay_ms)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "exception thrown from a worker thread" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
