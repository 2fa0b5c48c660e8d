"""Where the app keeps its own files (settings, recent list, the installed demo library).

``ROCKSKILLS_CONFIG_DIR`` and ``ROCKSKILLS_DATA_DIR`` override the platform defaults, so tests and
portable installs never touch the user's home.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "rockskills-gui"
CONFIG_ENV = "ROCKSKILLS_CONFIG_DIR"
DATA_ENV = "ROCKSKILLS_DATA_DIR"


def config_dir() -> Path:
    """Settings folder (not created here)."""
    override = os.environ.get(CONFIG_ENV)
    return Path(override).expanduser() if override else platformdirs.user_config_path(APP_NAME)


def data_dir() -> Path:
    """Data folder, e.g. for the installed demo library (not created here)."""
    override = os.environ.get(DATA_ENV)
    return Path(override).expanduser() if override else platformdirs.user_data_path(APP_NAME)


def demo_library_dir() -> Path:
    """Where the demo library is installed on first use."""
    return data_dir() / "demo-library"
