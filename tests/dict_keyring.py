"""A real keyring backend for tests: a ``KeyringBackend`` subclass keeping passwords in a dict."""

from __future__ import annotations

import keyring.errors
from keyring.backend import KeyringBackend


class DictKeyring(KeyringBackend):
    """A working keyring backend that keeps passwords in this process only."""

    priority = 5  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError(username)
