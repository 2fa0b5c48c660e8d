"""``rockskills --version`` and ``rockskills list`` import only what they need (issue 19).

Each runs in a fresh interpreter; the modules it must not import are listed in one place,
``tests/startup_budget.py`` (the GUI's startup is checked in tests/ui/test_startup_imports.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.resources import resource_dir
from tests.startup_budget import FORBIDDEN, cli_script, forbidden_loaded, loaded_modules

ROOT = Path(__file__).resolve().parents[2]


def run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return Path(shutil.copytree(resource_dir("demo-library"), tmp_path / "demo"))


def test_version_imports_no_library_code() -> None:
    done = run_script(cli_script(["--version"]))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rockskills ")
    assert forbidden_loaded(loaded_modules(done.stdout), "version") == []


def test_list_imports_no_heavy_module(demo: Path) -> None:
    done = run_script(cli_script(["list", str(demo)]))
    assert done.returncode == 0, done.stderr
    assert "\t" in done.stdout  # the skills were listed
    assert forbidden_loaded(loaded_modules(done.stdout), "list") == []


def test_the_check_can_fail() -> None:
    """A script that imports a listed module is caught (the check is not vacuous)."""
    done = run_script("import numpy, rockskills_gui.core.lint.linter\n" + cli_script(["--version"]))
    found = forbidden_loaded(loaded_modules(done.stdout), "version")
    assert "numpy" in found and "rockskills_gui.core.lint.linter" in found
    assert set(FORBIDDEN) == {"version", "list", "gui", "usage_tab", "preferences"}
