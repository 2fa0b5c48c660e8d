"""pyproject lists every package (the demo library mapping forbids automatic discovery)."""

from __future__ import annotations

import tomllib

from tests.conftest import REPO


def test_every_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "rockskills_gui").rglob("__init__.py")
    }
    missing = found - listed
    assert not missing, f"add these to [tool.setuptools] packages in pyproject.toml: {missing}"
