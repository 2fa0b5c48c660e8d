"""The GUI's way to its first paint imports only what that paint needs (issue 19).

A fresh interpreter runs ``rockskills-gui DEMO`` (offscreen) until the Library tree has painted
the demo library, quits, and reports ``sys.modules``; the forbidden modules are listed in
``tests/startup_budget.py``. The tabs not shown (Usage), the dream wizard and the dialogs build
when first used.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rockskills_gui.resources import resource_dir
from tests.startup_budget import (
    GUI_SCRIPT,
    PREFERENCES_SCRIPT,
    USAGE_TAB_SCRIPT,
    forbidden_loaded,
    loaded_modules,
)

ROOT = Path(__file__).resolve().parents[2]


def test_gui_start_until_the_tree_is_painted_imports_no_heavy_module(tmp_path: Path) -> None:
    demo = shutil.copytree(resource_dir("demo-library"), tmp_path / "demo")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", GUI_SCRIPT, str(demo)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    modules = loaded_modules(done.stdout)
    assert "rockskills_gui.ui.shell.main_window" in modules  # the real startup path ran
    assert forbidden_loaded(modules, "gui") == []


def test_the_usage_tab_s_code_leaves_clustering_to_its_worker() -> None:
    """What the UI thread imports to build the Usage tab: not scipy's clustering (~0.1 s)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", USAGE_TAB_SCRIPT], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    modules = loaded_modules(done.stdout)
    assert "rockskills_gui.core.usage.matrix_order" in modules  # (the tab's ordering code)
    assert forbidden_loaded(modules, "usage_tab") == []


def test_opening_preferences_leaves_the_openai_client_to_the_first_request(tmp_path: Path) -> None:
    """Issue 35: the first opening took over 1.5 s, most of it importing the openai client."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", PREFERENCES_SCRIPT], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    modules = loaded_modules(done.stdout)
    assert "rockskills_gui.ui.shell.preferences" in modules  # the dialog was built
    assert forbidden_loaded(modules, "preferences") == []


def test_the_usage_tab_is_built_when_first_shown(window) -> None:
    """Until then its tab holds a placeholder; clicking the tab (or asking) builds the pane."""
    from rockskills_gui.ui.usage.usage_pane import UsagePane

    assert window.workspace.usage.built is None
    assert not window.findChildren(UsagePane)
    index = window.tabs.indexOf(window.workspace.usage.placeholder)
    assert window.tabs.tabText(index) == "Usage"
    window.tabs.setCurrentIndex(index)
    assert isinstance(window.workspace.usage.built, UsagePane)
    assert window.tabs.currentWidget() is window.usage_pane
    assert window.tabs.indexOf(window.usage_pane) == index
    assert window.tabs.count() == 5  # Skill, Recall, Usage, Budget, Machine
