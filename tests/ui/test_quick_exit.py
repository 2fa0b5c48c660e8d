"""``rockskills-gui`` leaves without tearing the interpreter down (``app.run``, issue 19): what
must reach the disk is written first — the window layout, the log — and the exit status is kept."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rockskills_gui.resources import resource_dir

ROOT = Path(__file__).resolve().parents[2]

# Open PATH, make the window 1234×777 once the library is in, quit; ``run`` leaves with os._exit.
SCRIPT = """
import sys
from rockskills_gui.ui.shell import app as gui_app
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

start_loading = gui_app._start_loading


def start(window, path, format=None):
    def loaded(_error):
        window.resize(1234, 777)
        QTimer.singleShot(50, lambda: QApplication.instance().exit(7))
    window.loadFinished.connect(loaded)
    start_loading(window, path, format)


gui_app._start_loading = start
print("started", flush=True)
gui_app.run()
print("never reached")
"""


def run_gui(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``script`` on a copy of the demo library, with the app's folders under ``tmp_path``."""
    demo = shutil.copytree(resource_dir("demo-library"), tmp_path / "demo")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "ROCKSKILLS_CONFIG_DIR": str(tmp_path / "config"),
           "ROCKSKILLS_DATA_DIR": str(tmp_path / "data"),
           "ROCKSKILLS_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", script, str(demo)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)


def test_run_writes_the_layout_and_the_log_and_keeps_the_exit_status(tmp_path: Path) -> None:
    done = run_gui(SCRIPT, tmp_path)
    assert done.returncode == 7, done.stderr[-3000:]
    assert done.stdout.split() == ["started"]  # stdout flushed; nothing ran after run()
    layouts = list((tmp_path / "config").rglob("ui.ini"))
    assert len(layouts) == 1
    text = layouts[0].read_text(encoding="utf-8", errors="replace")
    assert "geometry" in text  # QSettings writes when freed, which os._exit skips: synced on close
    logs = list((tmp_path / "data").rglob("rockskills-gui.log"))
    assert len(logs) == 1 and "rockskills-gui exiting" in logs[0].read_text(encoding="utf-8")


# An idle pool worker (a ThreadPoolExecutor left open) waits on its queue forever unless Python's
# shutdown wakes it: ``run`` must do that, as the interpreter would, and not hang.
POOL_SCRIPT = SCRIPT.replace("gui_app.run()", """
from concurrent.futures import ThreadPoolExecutor
pool = ThreadPoolExecutor(max_workers=1)
pool.submit(lambda: None).result()
gui_app.run()""")


def test_run_does_not_wait_forever_for_an_idle_pool(tmp_path: Path) -> None:
    done = run_gui(POOL_SCRIPT, tmp_path)
    assert done.returncode == 7, done.stderr[-3000:]


# Once the window is up, the settings schema is validated on a thread (and the log starts).
WARM_SCRIPT = """
import sys, time
from rockskills_gui.ui.shell import app as gui_app
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

start_loading = gui_app._start_loading


def start(window, path, format=None):
    began = time.monotonic()

    def check():
        if window.ctx.preferences.loaded:
            print("pydantic" in sys.modules, flush=True)
            QApplication.instance().exit(0)
        elif time.monotonic() - began > 30:
            QApplication.instance().exit(3)
        else:
            QTimer.singleShot(20, check)

    first = "pydantic" in sys.modules
    print(first, flush=True)
    check()
    start_loading(window, path, format)


gui_app._start_loading = start
gui_app.run()
"""


def test_the_settings_schema_loads_after_the_window_is_up(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.json").write_text('{"theme": "dark", "timeout": 2}', "utf-8")
    done = run_gui(WARM_SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True"]  # not before the window; then validated
    log = next((tmp_path / "data").rglob("rockskills-gui.log")).read_text(encoding="utf-8")
    assert "starting" in log
    assert "setting 'timeout' was invalid" in log  # (2 s is below its range)


# ``rockskills-gui`` as its console script runs it (``launch.run``): is the cycle collector on at
# the tree's first paint, and once the window has started (the log's start line)?
COLLECTOR_SCRIPT = """
import gc
import sys
from rockskills_gui.ui.shell import launch


def prepare(gui_app):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    start_loading = gui_app._start_loading

    def start(window, path, format=None):
        view = window.library_pane.view

        def painted():
            if view.model().rowCount() > 0:
                view.painted.disconnect(painted)
                print("at-paint", gc.isenabled(), flush=True)
                QTimer.singleShot(gui_app.AFTER_START_MS + 300, later)

        def later():
            print("started", gc.isenabled(), flush=True)
            QApplication.instance().exit(0)

        view.painted.connect(painted)
        start_loading(window, path, format)

    gui_app._start_loading = start


print("before", gc.isenabled(), flush=True)
launch.run(prepare)
"""


def test_the_collector_waits_while_the_window_starts(tmp_path: Path) -> None:
    done = run_gui(COLLECTOR_SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["before", "True", "at-paint", "False", "started", "True"]
