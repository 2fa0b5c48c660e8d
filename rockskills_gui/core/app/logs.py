"""The user-facing log: a rotating file in the data folder, with secrets redacted.

Every record that reaches the file passes :class:`RedactSecrets`, which replaces each known
secret (the API keys this run has seen, ``ROCKSKILLS_API_KEY``) in the message, its arguments,
the traceback and the stack with ``[redacted]``, in any form :func:`core.redact.redact` knows
(``Bearer <key>``, JSON-escaped, URL-encoded). The log never holds a key even when code logs one
by mistake.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from rockskills_gui.core.storage.appdirs import data_dir
from rockskills_gui.core.text.redact import MIN_SECRET, REDACTED, redact

LOG_NAME = "rockskills-gui.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
ENV_KEY = "ROCKSKILLS_API_KEY"
FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

__all__ = ["MIN_SECRET", "REDACTED", "RedactSecrets", "configure_logging", "log_path", "redact",
           "remove_logging"]
SecretsProvider = Callable[[], Iterable[str | None]]


def log_dir() -> Path:
    """Where the log files live (``<data dir>/logs``)."""
    return data_dir() / "logs"


def log_path() -> Path:
    return log_dir() / LOG_NAME


class RedactSecrets(logging.Filter):
    """Rewrites a record so that no current secret survives in it (always lets it through)."""

    def __init__(self, provider: SecretsProvider) -> None:
        super().__init__()
        self._provider = provider
        self._formatter = logging.Formatter()

    def secrets(self) -> list[str]:
        found = [s for s in self._provider() if s]
        env = os.environ.get(ENV_KEY)
        if env:
            found.append(env)
        return found

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = self.secrets()
        if not secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what there is
            message = f"{record.msg} {record.args}"
        record.msg = redact(message, secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, secrets)
            record.exc_info = None  # formatted and redacted above; never re-formatted raw
        if record.stack_info:
            record.stack_info = redact(record.stack_info, secrets)
        return True


def _open_log(path: str, encoding: str | None) -> io.TextIOWrapper:
    """``path`` opened for appending, as a regular file only: never through a symbolic link
    (O_NOFOLLOW) and never blocking on a FIFO put there (O_NONBLOCK, then checked), so a link
    planted at the log's name is never written through (issue 35)."""
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_NONBLOCK", 0))
    fd = os.open(path, flags, 0o600)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"{path}: not a regular file; not logging there")
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "a", encoding=encoding)


class _RotatingFile(logging.Handler):
    """A rotating log file (1 MB × 3) opened at the first record it is given: the standard
    ``RotatingFileHandler`` (``logging.handlers``, which loads ``socket`` and ``pickle``) is
    imported then, not at start (issue 19). Each file is opened by :func:`_open_log`; when that
    is refused (a link or FIFO at the log's name), nothing is logged."""

    def __init__(self, target: Path) -> None:
        super().__init__()
        self.target = target
        self._file: logging.Handler | None = None
        self._refused = False

    def emit(self, record: logging.LogRecord) -> None:
        if self._refused:
            return
        if self._file is None:
            import logging.handlers

            class Safe(logging.handlers.RotatingFileHandler):
                def _open(self) -> io.TextIOWrapper:
                    return _open_log(self.baseFilename, self.encoding)

            self._file = Safe(self.target, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8",
                              delay=True)
            self._file.setFormatter(self.formatter)
            try:
                _open_log(os.fspath(self.target), "utf-8").close()
            except OSError:
                self._refused = True
                return
        self._file.emit(record)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()


def configure_logging(provider: SecretsProvider = lambda: (), path: Path | None = None,
                      level: int = logging.INFO) -> Path:
    """Send the root logger to a rotating file (1 MB × 3) that redacts secrets; returns its path.

    Calling it again replaces the handler installed earlier (e.g. tests with another data dir).
    """
    target = path if path is not None else log_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_rockskills", False):
            root.removeHandler(handler)
            handler.close()
    handler = _RotatingFile(target)
    handler._rockskills = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(RedactSecrets(provider))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    for noisy in ("httpx", "httpcore", "openai"):  # request logs could carry headers
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return target


def remove_logging() -> None:
    """Detach (and close) the handler installed by :func:`configure_logging`."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_rockskills", False):
            root.removeHandler(handler)
            handler.close()
