"""The core never imports Qt: checked by import-linter and by a real import in a fresh process."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import rockskills_gui.core
from tests.conftest import REPO


def test_importing_every_core_module_loads_no_qt() -> None:
    modules = [m.name for m in pkgutil.walk_packages(rockskills_gui.core.__path__,
                                                     "rockskills_gui.core.")]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6'))\n"
        "assert not bad, bad\n"
        "print(len(sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_import_linter_contract_holds() -> None:
    """The ``lint-imports`` of the environment running the tests (beside ``sys.executable``, as in
    any venv), whatever is on PATH."""
    exe = Path(sys.executable).parent / "lint-imports"
    assert exe.is_file(), f"import-linter is a test dependency: no {exe}"
    result = subprocess.run([str(exe)], cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
