"""The package type-checks strictly: ``mypy`` with no arguments (its configuration, ``[tool.mypy]`` in
pyproject.toml, checks all of rockskills_gui, core, commands and UI, with ``strict = true`` and the
pydantic plugin) exits 0, so a typing regression fails the suite and not only the test command's
own mypy step."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO


def test_package_passes_strict_mypy() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout}{result.stderr}"
