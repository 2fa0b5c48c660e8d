"""Uncaught exceptions show a dialog naming the log instead of vanishing; the log has the
traceback with the key redacted; ``--version`` for both commands."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from rockskills_gui import __version__
from rockskills_gui.core.app.logs import configure_logging, remove_logging
from rockskills_gui.ui.shell.crash import CrashReporter

KEY = "sk-crash-Ue7dX0pL2qNz"


@pytest.fixture
def reporter(qtbot, no_quit_on_close: None) -> Iterator[CrashReporter]:
    secrets = [KEY]
    path = configure_logging(lambda: secrets)
    crash = CrashReporter(path, lambda: secrets)
    crash.install()
    yield crash
    crash.uninstall()
    if crash.dialog is not None:
        crash.dialog.close()
    remove_logging()


def raise_and_report(reporter: CrashReporter) -> None:
    try:
        raise ValueError(f"the server said: bad key {KEY}")
    except ValueError:
        sys.excepthook(*sys.exc_info())  # what Python and PySide do with an uncaught exception


def test_the_hook_is_installed_and_removed(qtbot) -> None:
    before = sys.excepthook, threading.excepthook
    crash = CrashReporter(Path("x.log"), list)
    crash.install()
    assert sys.excepthook == crash.excepthook
    crash.uninstall()
    assert (sys.excepthook, threading.excepthook) == before


def test_an_uncaught_exception_shows_a_dialog_with_the_log_path(qtbot, reporter: CrashReporter) -> None:
    raise_and_report(reporter)
    box = reporter.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert box.icon() == QMessageBox.Icon.Critical
    assert "ValueError" in box.text()
    assert str(reporter.log_path) in box.informativeText()
    assert "still running" in box.informativeText()
    assert "Traceback" in box.detailedText() and "raise_and_report" in box.detailedText()
    for text in (box.text(), box.informativeText(), box.detailedText()):
        assert KEY not in text


def test_the_log_has_the_traceback_without_the_key(qtbot, reporter: CrashReporter) -> None:
    raise_and_report(reporter)
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = reporter.log_path.read_text(encoding="utf-8")
    assert "uncaught exception: ValueError" in text and "raise_and_report" in text
    assert KEY not in text and "[redacted]" in text


def test_one_dialog_at_a_time(qtbot, reporter: CrashReporter) -> None:
    raise_and_report(reporter)
    first = reporter.dialog
    raise_and_report(reporter)
    assert reporter.dialog is first and reporter.count == 2
    first.close()
    qtbot.waitUntil(lambda: reporter.dialog is None)


def test_an_exception_in_a_thread_reaches_the_ui_thread(qtbot, reporter: CrashReporter) -> None:
    def work() -> None:
        raise RuntimeError("worker failed")

    with qtbot.waitSignal(reporter.reported, timeout=5000) as blocker:
        thread = threading.Thread(target=work, name="test-worker")
        thread.start()
        thread.join()
    assert blocker.args == ["RuntimeError: worker failed (in test-worker)"]
    assert reporter.dialog is not None and "worker failed" in reporter.dialog.text()


def test_keyboard_interrupt_goes_to_the_previous_hook(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    passed_on: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, exc, tb: passed_on.append(kind))
    crash = CrashReporter(Path("x.log"), list)
    crash.install()
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            sys.excepthook(*sys.exc_info())
    finally:
        crash.uninstall()
    assert passed_on == [KeyboardInterrupt]
    assert crash.dialog is None and crash.count == 0


def test_both_commands_print_their_version(capsys) -> None:
    from rockskills_gui import cli
    from rockskills_gui.ui.shell import app

    assert app.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"rockskills-gui {__version__}"
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"rockskills {__version__}"
