"""The API key test: set a key, use the app (settings, connection test against a real server, a
saved skill, a dream plan, a crash, quitting), then grep every file the app wrote under the
config and data folders (and the library) for the key. It must be nowhere.

Run twice: with a working keyring (a real in-process backend) and with none (memory only).
"""

from __future__ import annotations

import base64
import sys
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import keyring.backends.fail
import keyring.core
import pytest
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QComboBox

from rockskills_gui.core.app.secrets import SERVICE
from rockskills_gui.core.storage.appdirs import config_dir, data_dir
from rockskills_gui.ui.common.theme import apply_theme
from rockskills_gui.ui.shell import app
from rockskills_gui.ui.shell.main_window import MainWindow
from rockskills_gui.ui.shell.preferences import PreferencesDialog
from tests.dict_keyring import DictKeyring
from tests.openai_server import OpenAIServer

KEY = "sk-proj-K3yN3v3rWr1tt3n-7QmZp2Lx9Vb4"


def forms_of(key: str) -> list[bytes]:
    """The key as it could appear in a file: plain, URL-quoted, base64, UTF-16."""
    return [key.encode(), urllib.parse.quote(key).encode(), base64.b64encode(key.encode()),
            key.encode("utf-16-le")]


def files_under(*roots: Path) -> list[Path]:
    return sorted(p for root in roots if root.exists() for p in root.rglob("*") if p.is_file())


def wait_for(signal: object, start: Callable[[], None], timeout_ms: int = 10_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)  # type: ignore[attr-defined]
    QTimer.singleShot(timeout_ms, loop.quit)
    start()
    loop.exec()


def endpoint_with_key(window: MainWindow, base_url: str, key: str) -> PreferencesDialog:
    """Preferences open on a custom endpoint (test-model, 5 s) with ``key`` typed, not yet saved."""
    window.show_preferences()
    dialog = window.preferences_dialog
    assert dialog is not None
    endpoint = dialog.editors["endpoint"].widget
    assert isinstance(endpoint, QComboBox)
    endpoint.setCurrentIndex(endpoint.findData("custom"))
    dialog.editors["base_url"].set_value(base_url)
    dialog.editors["model"].set_value("test-model")
    dialog.editors["timeout"].set_value(5)
    dialog.key_edit.setText(key)
    return dialog


def use_the_app(window: MainWindow, server: OpenAIServer, notes: dict[str, object]) -> None:
    """What a user does with a key: enter it, test it, edit and save, dream, hit a bug."""
    dialog = endpoint_with_key(window, server.base_url, KEY)
    assert dialog.apply()  # settings.json + keyring (or memory)
    notes["key in use"] = window.ctx.api_key()

    wait_for(dialog.checkFinished, dialog.test_connection)  # a good request with the key
    notes["test ok"] = dialog.result_label.text()
    server.api_key = "sk-some-other-key"  # now the server quotes our key back in its 401
    wait_for(dialog.checkFinished, dialog.test_connection)
    wait_for(dialog.modelsFetched, dialog.fetch_models)
    notes["test 401"] = dialog.result_label.text()
    dialog.accept()

    window.ctx.select_skill("mcp/email")  # an edit, saved to the library
    window.skill_pane.editor.appendPlainText("\nOne more line.")
    window.skill_pane.save()

    try:  # a dream run with the key, saved as a plan where the app keeps its data
        from rockskills_gui.core.dream.llm import Endpoint, LlmClient
        from rockskills_gui.core.dream.run import RunOptions, run_dream
    except ImportError as exc:  # the dream engine is another issue's work
        notes["plan"] = f"skipped: {exc}"
    else:
        library = window.ctx.library
        assert library is not None
        client = LlmClient(Endpoint(server.base_url, "test-model", timeout=5, retries=0),
                           api_key=window.ctx.api_key())
        plan = run_dream(library, RunOptions(), client)  # 401: the server echoes the key
        server.api_key = KEY
        server.replies = ['{"toSave": []}'] * 3
        second = run_dream(library, RunOptions(), client)
        plans = data_dir() / "plans"
        plan.save(plans / "refused.json")
        second.save(plans / "run.json")
        notes["plan"] = sorted(p.name for p in plans.iterdir())

    try:  # an uncaught exception whose message carries the key
        raise RuntimeError(f"request failed: Authorization: Bearer {KEY}")
    except RuntimeError:
        sys.excepthook(*sys.exc_info())
    notes["crash dialog"] = any(w.objectName() == "crashDialog" and w.isVisible()
                                for w in QApplication.topLevelWidgets())
    # app.main closes the window after the event loop ends, which saves its layout (ui.ini);
    # closing it here would quit the application the way a user's last window does


@pytest.mark.parametrize("keyring_kind", ["keyring", "memory"])
def test_the_key_is_in_no_file_the_app_wrote(agent: Path, qapp: QApplication, keyring_kind: str,
                                             monkeypatch: pytest.MonkeyPatch,
                                             openai_server: OpenAIServer) -> None:
    backend = DictKeyring() if keyring_kind == "keyring" else keyring.backends.fail.Keyring()
    monkeypatch.setattr(keyring.core, "_keyring_backend", backend)
    openai_server.api_key = KEY
    notes: dict[str, object] = {}

    def drive() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow)]
        if not windows or windows[0].ctx.library is None:
            QTimer.singleShot(20, drive)
            return
        try:
            use_the_app(windows[0], openai_server, notes)
        finally:
            qapp.exit(0)

    QTimer.singleShot(0, drive)
    try:
        assert app.main([str(agent)]) == 0
    finally:
        apply_theme(qapp, "light")
        for widget in qapp.topLevelWidgets():
            if widget.objectName() == "crashDialog":
                widget.close()

    # the key really was set and used, so the test could have found it
    assert notes["key in use"] == KEY
    assert str(notes["test ok"]).startswith("✓ ")
    assert "refused the API key (401)" in str(notes["test 401"])
    assert notes["crash dialog"] is True
    requests_with_key = [r for r in openai_server.requests
                         if r.headers.get("authorization") == f"Bearer {KEY}"]
    assert len(requests_with_key) >= 3
    if keyring_kind == "keyring":
        assert isinstance(backend, DictKeyring)
        assert backend.store == {(SERVICE, openai_server.base_url): KEY}

    written = files_under(config_dir(), data_dir(), agent)
    names = {p.name for p in written}
    assert {"settings.json", "ui.ini", "recent.json", "rockskills-gui.log"} <= names, names
    if isinstance(notes["plan"], list):
        assert {"refused.json", "run.json"} <= names
    log_text = (data_dir() / "logs" / "rockskills-gui.log").read_text(encoding="utf-8")
    assert "[redacted]" in log_text  # the crash carried the key; the log has it masked
    assert "connection test (auth)" in log_text
    leaks = [str(p) for p in written if any(form in p.read_bytes() for form in forms_of(KEY))]
    assert leaks == []
