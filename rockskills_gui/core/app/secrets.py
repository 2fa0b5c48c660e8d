"""The LLM API key: in the OS keyring under the endpoint, or in memory for this run only.

Keys are stored with service ``rockskills-gui`` and the endpoint's base URL as the user name, so
each server keeps its own key. Only a secure backend is used: keyring's ``fail`` and ``null``
backends and every ``keyrings.alt`` backend (plain-text or weakly encrypted files) count as "no
keyring". When a chainer mixes secure and insecure backends, the best secure one is used on its
own, so a refusal can never fall through to a file. With no usable backend (e.g. headless Linux
without a Secret Service) the key lives in this process's memory and :class:`KeyStoreStatus`
says so in one plain sentence. There is no plain-text fallback, ever.

Nothing here logs a key; :meth:`KeyStore.known_keys` feeds the log redaction filter.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # keyring (~60 ms, and its backend probe) loads when a key is first needed
    from keyring.backend import KeyringBackend

SERVICE = "rockskills-gui"
log = logging.getLogger(__name__)

_INSECURE_MODULES = ("keyrings.alt", "keyring.backends.null", "keyring.backends.fail")


@dataclass(frozen=True)
class KeyStoreStatus:
    """Where keys go: ``secure`` (the OS keyring, named by ``backend``) or memory only."""

    secure: bool
    backend: str
    message: str


def is_secure_backend(backend: KeyringBackend) -> bool:
    """False for the fail/null backends, any ``keyrings.alt`` backend and priorities <= 0."""
    module = type(backend).__module__
    if module.startswith(_INSECURE_MODULES):
        return False
    try:
        priority = float(backend.priority)
    except Exception:  # a backend whose priority probe fails is not usable here
        return False
    return priority > 0


def secure_backend(candidate: KeyringBackend | None = None) -> KeyringBackend | None:
    """The secure backend to use (unwrapping a chainer), or None when there is none."""
    import keyring
    from keyring.backends.chainer import ChainerBackend

    backend = candidate if candidate is not None else keyring.get_keyring()
    if isinstance(backend, ChainerBackend):
        # keyring leaves ChainerBackend.backends unannotated; its items are backends
        usable: list[KeyringBackend] = [b for b in backend.backends if is_secure_backend(b)]
        if not usable:
            return None
        return max(usable, key=lambda b: float(b.priority))
    return backend if is_secure_backend(backend) else None


def _backend_name(backend: KeyringBackend) -> str:
    name = getattr(backend, "name", "") or type(backend).__name__
    return str(name)


class KeyStore:
    """API keys by endpoint base URL, in the OS keyring when a secure one works, else in memory.

    ``backend`` picks a keyring backend explicitly (tests register their own); by default the
    one keyring selects for this system. A keyring error while storing (locked, refused) keeps
    the key in memory and changes :attr:`status` to say so.
    """

    def __init__(self, backend: KeyringBackend | None = None) -> None:
        self._candidate = backend
        self._resolved = False
        self._chosen: KeyringBackend | None = None
        self._memory: dict[str, str] = {}
        self._failure = ""
        self._used: set[str] = set()

    @property
    def _backend(self) -> KeyringBackend | None:
        """The secure backend, chosen when first needed (not at start: keyring is slow to load)."""
        if not self._resolved:
            self._chosen = secure_backend(self._candidate)
            self._resolved = True
            self._candidate = None
            log.info("%s", self.status.message)
        return self._chosen

    @property
    def status(self) -> KeyStoreStatus:
        if self._backend is not None and not self._failure:
            name = _backend_name(self._backend)
            return KeyStoreStatus(True, name, f"API keys are kept in the system keyring ({name}).")
        why = self._failure or "No usable system keyring was found (for example, no Secret " \
                               "Service is running)"
        return KeyStoreStatus(False, "", f"{why}: the API key is kept in memory for this run only "
                                         "and must be entered again next time. It is never written "
                                         "to a file.")

    @property
    def secure(self) -> bool:
        return self.status.secure

    def get(self, base_url: str) -> str | None:
        """The key for ``base_url``: this run's key if one was given, else the keyring's."""
        url = _norm(base_url)
        if url in self._memory:
            return self._remember(self._memory[url])
        backend = self._backend
        if backend is None or self._failure:
            return None
        from keyring.errors import KeyringError

        try:
            value = backend.get_password(SERVICE, url)
        except KeyringError as exc:
            log.warning("the keyring could not be read: %s", type(exc).__name__)
            return None
        return self._remember(value) if value else None

    def set(self, base_url: str, key: str) -> Literal["keyring", "memory"]:
        """Store ``key`` for ``base_url``; returns where it went. An empty key deletes it."""
        url = _norm(base_url)
        key = key.strip()
        if not key:
            self.delete(url)
            return "keyring" if self.secure else "memory"
        self._remember(key)
        backend = self._backend
        if backend is not None and not self._failure:
            from keyring.errors import KeyringError

            try:
                backend.set_password(SERVICE, url, key)
            except KeyringError as exc:
                self._failure = f"The system keyring refused to store the key ({type(exc).__name__})"
                log.warning("the keyring refused the key: %s; keeping it in memory",
                            type(exc).__name__)
            else:
                self._memory.pop(url, None)
                log.info("API key for %s stored in the keyring", url)
                return "keyring"
        self._memory[url] = key
        log.info("API key for %s kept in memory for this run", url)
        return "memory"

    def delete(self, base_url: str) -> None:
        """Forget the key for ``base_url`` (memory and keyring)."""
        url = _norm(base_url)
        self._memory.pop(url, None)
        backend = self._backend
        if backend is not None and not self._failure:
            from keyring.errors import KeyringError, PasswordDeleteError

            try:
                backend.delete_password(SERVICE, url)
            except PasswordDeleteError:
                pass
            except KeyringError as exc:
                log.warning("the keyring could not delete the key: %s", type(exc).__name__)

    def mark_secret(self, key: str) -> str:
        """Note a key used without storing it (typed for one run) so logs and crash reports
        redact it too; returns the key."""
        return self._remember(key.strip())

    def known_keys(self) -> list[str]:
        """Every key this run has seen (for redacting logs and crash reports)."""
        return sorted(self._used, key=len, reverse=True)

    def _remember(self, key: str) -> str:
        if key:
            self._used.add(key)
        return key


def _norm(base_url: str) -> str:
    return base_url.strip().rstrip("/")
