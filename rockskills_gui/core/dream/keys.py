"""The LLM API key: from the OS keyring or memory only, never a file or a log.

Plain-text keyring backends (``keyrings.alt``) and the null/fail backends are refused: with no
secure keyring the key can only be given for the session (the CLI also reads ROCKSKILLS_API_KEY).
"""

from __future__ import annotations

import os

SERVICE = "rockskills-gui"
ENV_VAR = "ROCKSKILLS_API_KEY"


class KeyringUnavailable(Exception):
    """No secure OS keyring to keep the key in."""


def _secure_backend() -> object | None:
    try:
        import keyring
        from keyring.backends import chainer, fail
    except ImportError:
        return None
    backend = keyring.get_keyring()
    candidates = list(getattr(backend, "backends", [])) if isinstance(backend, chainer.ChainerBackend) \
        else [backend]
    for candidate in candidates:
        module = type(candidate).__module__
        insecure = module.startswith(("keyrings.alt", "keyring.backends.null"))
        if isinstance(candidate, fail.Keyring) or insecure:
            return None
    return backend if candidates else None


def keyring_available() -> bool:
    return _secure_backend() is not None


def get_api_key(base_url: str) -> str | None:
    """The key stored for ``base_url``, or None (also when no secure keyring exists)."""
    backend = _secure_backend()
    if backend is None:
        return None
    try:
        return backend.get_password(SERVICE, base_url)  # type: ignore[attr-defined,no-any-return]
    except Exception:  # any keyring error means "no key"; never log the details
        return None


def set_api_key(base_url: str, key: str) -> None:
    backend = _secure_backend()
    if backend is None:
        raise KeyringUnavailable("no secure OS keyring is available; the key can only be kept "
                                 "for this session")
    backend.set_password(SERVICE, base_url, key)  # type: ignore[attr-defined]


def delete_api_key(base_url: str) -> None:
    backend = _secure_backend()
    if backend is None:
        return
    try:
        backend.delete_password(SERVICE, base_url)  # type: ignore[attr-defined]
    except Exception:
        pass


def find_api_key(base_url: str) -> str | None:
    """``ROCKSKILLS_API_KEY`` when set, else the keyring's key for ``base_url``."""
    return os.environ.get(ENV_VAR) or get_api_key(base_url)
