"""The API key store: a real keyring backend (in-process, registered for the test), the fail
backend, insecure backends refused, and never a plaintext fallback."""

from __future__ import annotations

import keyring
import keyring.errors
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null

from rockskills_gui.core.app.secrets import SERVICE, KeyStore, is_secure_backend, secure_backend
from tests.dict_keyring import DictKeyring

URL = "https://api.example.test/v1"


class LockedKeyring(DictKeyring):
    """A keyring that is there but refuses to store (e.g. the user dismissed the unlock prompt)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("locked")


class PlaintextLookalike(DictKeyring):
    """Stands for a keyrings.alt backend (a file on disk): must never be used."""


PlaintextLookalike.__module__ = "keyrings.alt.file"


class FixedChainer(chainer.ChainerBackend):
    """keyring's chainer over a given list of backends (instead of every installed one)."""

    def __init__(self, members: list[KeyringBackend]) -> None:
        super().__init__()
        self.members = members

    @property
    def backends(self) -> list[KeyringBackend]:  # type: ignore[override]
        return self.members


def test_key_goes_to_the_keyring_under_the_endpoint() -> None:
    backend = DictKeyring()
    keys = KeyStore(backend)
    assert keys.status.secure and "DictKeyring" in keys.status.message
    assert keys.set(URL + "/", " sk-test-123 ") == "keyring"
    assert backend.store == {(SERVICE, URL): "sk-test-123"}
    assert KeyStore(backend).get(URL) == "sk-test-123"  # a later run finds it
    assert KeyStore(backend).get("http://127.0.0.1:11434/v1") is None  # other endpoints: none
    keys.delete(URL)
    assert backend.store == {}
    keys.delete(URL)  # deleting twice is fine


def test_registered_backend_is_found_through_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = DictKeyring()
    monkeypatch.setattr(keyring.core, "_keyring_backend", backend)
    keys = KeyStore()
    keys.set(URL, "sk-live")
    assert keyring.get_password(SERVICE, URL) == "sk-live"


def test_without_a_keyring_the_key_lives_in_memory_only() -> None:
    keys = KeyStore(fail.Keyring())
    status = keys.status
    assert not status.secure
    assert "in memory for this run only" in status.message and "never written" in status.message
    assert keys.set(URL, "sk-mem") == "memory"
    assert keys.get(URL) == "sk-mem"
    assert KeyStore(fail.Keyring()).get(URL) is None  # the next run does not have it
    keys.delete(URL)
    assert keys.get(URL) is None


def test_the_test_session_default_is_the_fail_backend() -> None:
    assert not KeyStore().secure  # tests/conftest.py: never the developer's real keyring


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring(), PlaintextLookalike()])
def test_insecure_backends_count_as_no_keyring(backend: KeyringBackend) -> None:
    assert not is_secure_backend(backend)
    keys = KeyStore(backend)
    assert keys.set(URL, "sk-x") == "memory"
    if isinstance(backend, DictKeyring):
        assert backend.store == {}  # nothing reached the "file"


def test_a_chainer_is_unwrapped_to_its_best_secure_member() -> None:
    good, plain = DictKeyring(), PlaintextLookalike()
    plain.priority = 10  # type: ignore[assignment]  # even when the plaintext one ranks higher
    chain = FixedChainer([plain, good])
    assert secure_backend(chain) is good
    KeyStore(chain).set(URL, "sk-chain")
    assert good.store and not plain.store
    assert secure_backend(FixedChainer([plain])) is None


def test_a_refusing_keyring_keeps_the_key_in_memory_and_says_so() -> None:
    backend = LockedKeyring()
    keys = KeyStore(backend)
    assert keys.set(URL, "sk-locked") == "memory"
    assert backend.store == {}
    assert keys.get(URL) == "sk-locked"
    assert not keys.status.secure and "refused" in keys.status.message


def test_known_keys_lists_what_this_run_saw() -> None:
    backend = DictKeyring()
    backend.set_password(SERVICE, URL, "sk-from-last-run")
    keys = KeyStore(backend)
    assert keys.known_keys() == []
    keys.get(URL)
    keys.set("http://other/v1", "sk-typed-now")
    assert keys.mark_secret(" sk-only-this-run ") == "sk-only-this-run"
    assert set(keys.known_keys()) == {"sk-from-last-run", "sk-typed-now", "sk-only-this-run"}
    assert backend.store == {(SERVICE, URL): "sk-from-last-run",
                             (SERVICE, "http://other/v1"): "sk-typed-now"}  # marking stores nothing
