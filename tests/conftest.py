"""Shared test fixtures: the read-only ../shared fixtures and fresh copies to modify."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import keyring.backends.fail
import keyring.core
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROCKSKILLS_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"
AGENT = FIXTURES / "rockbot-agent"
EXPECTED = FIXTURES / "rockbot-agent-expected"
NOW_TEXT = "2026-11-22T12:00:00+00:00"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` run only when asked for: ``pytest -m slow`` (see README)."""
    if "slow" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="slow variant: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def tree_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under root, by relative path."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real config/data folders or the real keyring from tests."""
    base = tmp_path_factory.mktemp("userdirs")
    monkeypatch.setenv("ROCKSKILLS_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("ROCKSKILLS_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("ROCKSKILLS_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("ROCKSKILLS_HOME", str(base / "home"))  # the machine view's home folder
    monkeypatch.delenv("ROCKSKILLS_API_KEY", raising=False)
    # keyring's own "no keyring" backend, unless a test hands a KeyStore its own backend
    monkeypatch.setattr(keyring.core, "_keyring_backend", keyring.backends.fail.Keyring())


@pytest.fixture
def agent_copy(tmp_path: Path) -> Path:
    """A private copy of the sample RockBot agent directory."""
    if not AGENT.is_dir():
        pytest.fail(f"shared fixtures not found at {AGENT} (set ROCKSKILLS_SHARED)")
    dest = tmp_path / "agent"
    shutil.copytree(AGENT, dest)
    for path in [dest, *dest.rglob("*")]:  # shared/ is read-only; the copy must not be
        path.chmod(path.stat().st_mode | 0o200)
    return dest


@pytest.fixture
def openai_server():
    """A real OpenAI-protocol HTTP server on 127.0.0.1 (see tests/openai_server.py)."""
    from tests.openai_server import OpenAIServer

    server = OpenAIServer().start()
    yield server
    server.stop()
