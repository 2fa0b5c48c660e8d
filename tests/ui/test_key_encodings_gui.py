"""Preferences ▸ Test Connection against a real server on 127.0.0.1 whose 401 quotes the key it was
sent in another encoding (issue 35, item 17): base64, hex, reversed, upper-case, URL-escaped,
inside ``Basic`` base64 ... The sentence shown and ``rockskills-gui.log`` hold no form of it
(:func:`attacks_dream.secret_leaks` decodes hex and base64 itself)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rockskills_gui.core.app.logs import configure_logging, log_path, remove_logging
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.adversarial.attacks_dream import encodings, secret_leaks
from tests.openai_server import OpenAIServer
from tests.ui.conftest import open_window
from tests.ui.test_key_never_written import endpoint_with_key

KEY = "sk-proj-Kx9/Zq+Lw3Nv5Tb7Yc9Xd=="


@pytest.fixture
def logged(qtbot, agent: Path) -> Iterator[MainWindow]:
    """The window, logging to the user's log file as the app does (redacting the keys it saw)."""
    window = open_window(qtbot, agent)
    configure_logging(window.ctx.keys.known_keys)
    yield window
    remove_logging()
    window.loader.cancel()
    window.loader.wait()


@pytest.mark.parametrize("name", list(encodings(KEY)))
def test_test_connection_logs_the_key_in_no_encoding(qtbot, logged: MainWindow,
                                                     openai_server: OpenAIServer, name: str) -> None:
    openai_server.api_key = "sk-the-one-the-server-wants"  # ours is refused, and quoted back
    openai_server.echo = lambda token: encodings(token)[name]
    dialog = endpoint_with_key(logged, openai_server.base_url, KEY)
    with qtbot.waitSignal(dialog.checkFinished, timeout=20_000):
        dialog.test_connection()
    shown = dialog.result_label.text()
    dialog.reject()
    assert [r.headers.get("authorization") for r in openai_server.requests] == [f"Bearer {KEY}"]
    assert "refused the API key (401)" in shown and "[redacted]" in shown
    logged_text = log_path().read_text(encoding="utf-8")
    assert "connection test (auth)" in logged_text
    assert secret_leaks(log_path().parent, [shown], KEY) == []
