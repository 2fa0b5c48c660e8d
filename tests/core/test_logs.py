"""The rotating log in the data folder never holds a secret, however it is logged."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from rockskills_gui.core.app.logs import (
    BACKUPS,
    MAX_BYTES,
    REDACTED,
    configure_logging,
    log_path,
    redact,
    remove_logging,
)
from rockskills_gui.core.storage.appdirs import data_dir

KEY = "sk-proj-Zq8v3LrT0pSecretValue42"


@pytest.fixture
def secrets() -> Iterator[list[str]]:
    known: list[str] = []
    yield known
    remove_logging()


def read_all(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.log*"))


def test_log_lives_in_the_data_folder_and_rotates(secrets: list[str]) -> None:
    path = configure_logging(lambda: secrets)
    assert path == log_path() == data_dir() / "logs" / "rockskills-gui.log"
    handler = next(h for h in logging.getLogger().handlers if getattr(h, "_rockskills", False))
    assert not path.exists()  # opened at the first record
    logging.getLogger("rockskills_gui.test").info("hello %s", "log")
    handler.flush()
    assert "hello log" in path.read_text()
    line = "x" * 999
    for _ in range((MAX_BYTES // 1000) * (BACKUPS + 2)):  # enough to rotate past every backup
        logging.getLogger("rockskills_gui.test").info(line)
    handler.flush()
    files = sorted(p.name for p in path.parent.glob("rockskills-gui.log*"))
    assert files == ["rockskills-gui.log", *(f"rockskills-gui.log.{n}" for n in range(1, BACKUPS + 1))]
    assert all(p.stat().st_size <= MAX_BYTES for p in path.parent.glob("rockskills-gui.log*"))


def test_every_way_of_logging_a_key_is_redacted(secrets: list[str]) -> None:
    path = configure_logging(lambda: secrets)
    secrets.append(KEY)
    log = logging.getLogger("rockskills_gui.test")
    log.warning("key in the message " + KEY)
    log.warning("key as an argument %s and %r", KEY, {"auth": f"Bearer {KEY}"})
    try:
        raise RuntimeError(f"request failed with Authorization: Bearer {KEY}")
    except RuntimeError:
        log.exception("with a traceback")
    log.error("with the stack", stack_info=True, extra={"note": KEY})
    text = read_all(path.parent)
    assert KEY not in text
    assert text.count(REDACTED) >= 4
    assert "Traceback" in text and "RuntimeError" in text


def test_environment_key_is_redacted_too(secrets: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROCKSKILLS_API_KEY", KEY)
    path = configure_logging(lambda: secrets)
    logging.getLogger("rockskills_gui.test").warning("env %s", KEY)
    assert KEY not in read_all(path.parent)


def test_configuring_twice_keeps_one_handler(secrets: list[str], tmp_path: Path) -> None:
    configure_logging(lambda: secrets)
    configure_logging(lambda: secrets, tmp_path / "other.log")
    ours = [h for h in logging.getLogger().handlers if getattr(h, "_rockskills", False)]
    assert len(ours) == 1


def test_redact_ignores_short_or_empty_secrets() -> None:
    assert redact("a b c", ["", None, "b"]) == "a b c"
    assert redact("xx sk-abcd xx sk-abcdef", ["sk-abcd", "sk-abcdef"]) == \
        f"xx {REDACTED} xx {REDACTED}"
