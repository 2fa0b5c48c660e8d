"""Where the app keeps its own files (settings, recent list, the installed demo library, caches).

``ROCKSKILLS_CONFIG_DIR``, ``ROCKSKILLS_DATA_DIR`` and ``ROCKSKILLS_CACHE_DIR`` override the
platform defaults, so tests and portable installs never touch the user's home.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "rockskills-gui"
HOME_ENV = "ROCKSKILLS_HOME"
CONFIG_ENV = "ROCKSKILLS_CONFIG_DIR"
DATA_ENV = "ROCKSKILLS_DATA_DIR"
CACHE_ENV = "ROCKSKILLS_CACHE_DIR"


def home_dir() -> Path:
    """The home folder whose agents' skill folders and settings the machine view reads (the
    user's own; ``ROCKSKILLS_HOME`` names another, e.g. a generated one in tests)."""
    override = os.environ.get(HOME_ENV)
    return Path(override).expanduser() if override else Path.home()


def config_dir() -> Path:
    """Settings folder (not created here)."""
    override = os.environ.get(CONFIG_ENV)
    return Path(override).expanduser() if override else platformdirs.user_config_path(APP_NAME)


def data_dir() -> Path:
    """Data folder, e.g. for the installed demo library (not created here)."""
    override = os.environ.get(DATA_ENV)
    return Path(override).expanduser() if override else platformdirs.user_data_path(APP_NAME)


def cache_dir() -> Path:
    """Cache folder: things that can be rebuilt at any time, e.g. parsed skills (not created here)."""
    override = os.environ.get(CACHE_ENV)
    return Path(override).expanduser() if override else platformdirs.user_cache_path(APP_NAME)


def demo_library_dir() -> Path:
    """Where the demo library is installed on first use."""
    return data_dir() / "demo-library"
