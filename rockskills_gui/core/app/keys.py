"""Where the dream CLI finds the LLM API key: ``ROCKSKILLS_API_KEY``, else the OS keyring.

Storage rules (secure keyring or memory only, never a file) live in :mod:`rockskills_gui.core.app.secrets`.
"""

from __future__ import annotations

import os

from rockskills_gui.core.app.secrets import KeyStore

ENV_VAR = "ROCKSKILLS_API_KEY"


def find_api_key(base_url: str, store: KeyStore | None = None) -> str | None:
    """``ROCKSKILLS_API_KEY`` when set, else the secure keyring's key for ``base_url``."""
    return os.environ.get(ENV_VAR) or (store or KeyStore()).get(base_url)
