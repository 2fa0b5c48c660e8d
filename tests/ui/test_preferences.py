"""The Preferences dialog: generated from the schema, validated, saved, key to the keyring, and
Fetch models / Test connection against a real OpenAI-protocol server on 127.0.0.1."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QDoubleSpinBox, QLineEdit, QSpinBox

from rockskills_gui.core.app.secrets import SERVICE, KeyStore
from rockskills_gui.core.app.settings import Settings, field_info
from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.preferences import PreferencesDialog
from tests.dict_keyring import DictKeyring
from tests.openai_server import OpenAIServer

KEY = "sk-ui-test-8fK2mQ0zW"


@pytest.fixture
def backend() -> DictKeyring:
    return DictKeyring()


@pytest.fixture
def ctx(tmp_path: Path, backend: DictKeyring) -> AppContext:
    return AppContext(preferences=SettingsStore(tmp_path / "settings.json"), keys=KeyStore(backend))


@pytest.fixture
def dialog(qtbot, ctx: AppContext) -> PreferencesDialog:
    dlg = PreferencesDialog(ctx)
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def click(qtbot, dlg: PreferencesDialog, which: QDialogButtonBox.StandardButton) -> None:
    dlg.buttons.button(which).click()


def set_combo(dlg: PreferencesDialog, name: str, value: str) -> None:
    box = dlg.editors[name].widget
    assert isinstance(box, QComboBox)
    index = box.findData(value)
    assert index >= 0, (name, value)
    box.setCurrentIndex(index)


def test_every_setting_has_an_editor_built_from_the_schema(dialog: PreferencesDialog) -> None:
    assert set(dialog.editors) == set(Settings.model_fields)
    for name, editor in dialog.editors.items():
        info = field_info(name)
        widget = editor.widget
        assert widget.objectName() == f"pref.{name}"
        assert widget.accessibleName() == info["title"]
        assert widget.toolTip() == info["description"]
        annotation = Settings.model_fields[name].annotation
        if typing.get_origin(annotation) is typing.Literal:
            assert isinstance(widget, QComboBox)
            assert [widget.itemData(i) for i in range(widget.count())] == list(typing.get_args(annotation))
        if isinstance(widget, QSpinBox | QDoubleSpinBox):
            assert (widget.minimum(), widget.maximum()) == (info["ge"], info["le"])
    assert dialog.editors["editor_font_size"].widget.specialValueText() == "System size"


def test_ok_saves_the_edited_settings(qtbot, dialog: PreferencesDialog, ctx: AppContext) -> None:
    set_combo(dialog, "theme", "dark")
    set_combo(dialog, "preview_layout", "editor")
    dialog.editors["timeout"].set_value(45)
    dialog.editors["editor_font_size"].set_value(13)
    dialog.editors["protected_prefixes"].set_value(("patrol/", "ops/"))
    with qtbot.waitSignal(ctx.preferencesChanged) as blocker:
        click(qtbot, dialog, QDialogButtonBox.StandardButton.Ok)
    assert blocker.args[0] == {"theme", "preview_layout", "timeout", "editor_font_size",
                               "protected_prefixes"}
    assert not dialog.isVisible()
    saved = json.loads(ctx.preferences.file.read_text())
    assert saved["theme"] == "dark" and saved["timeout"] == 45 and saved["editor_font_size"] == 13
    assert saved["protected_prefixes"] == ["patrol/", "ops/"]


def test_a_refused_value_is_explained_and_not_saved(qtbot, dialog: PreferencesDialog,
                                                    ctx: AppContext) -> None:
    set_combo(dialog, "endpoint", "custom")
    dialog.editors["base_url"].set_value("localhost:8000")
    click(qtbot, dialog, QDialogButtonBox.StandardButton.Apply)
    assert dialog.error_label.isVisible()
    assert dialog.error_label.text().startswith("Custom base URL: must be an http:// or https:// URL")
    assert ctx.prefs == Settings() and not ctx.preferences.file.exists()
    dialog.editors["base_url"].set_value("http://localhost:8000/v1")
    click(qtbot, dialog, QDialogButtonBox.StandardButton.Apply)
    assert not dialog.error_label.isVisible()
    assert ctx.prefs.effective_base_url == "http://localhost:8000/v1"


def test_base_url_is_only_editable_for_a_custom_endpoint(dialog: PreferencesDialog) -> None:
    url = dialog.editors["base_url"].widget
    set_combo(dialog, "endpoint", "lmstudio")
    assert not url.isEnabled() and "127.0.0.1:1234/v1" in dialog.preset_hint.text()
    set_combo(dialog, "endpoint", "custom")
    assert url.isEnabled()


def test_restore_defaults_fills_the_editors_without_saving(qtbot, dialog: PreferencesDialog,
                                                           ctx: AppContext) -> None:
    ctx.preferences.update(theme="dark", timeout=60)
    dialog.load(ctx.prefs)
    click(qtbot, dialog, QDialogButtonBox.StandardButton.RestoreDefaults)
    assert dialog.values()["theme"] == "system" and dialog.values()["timeout"] == 120
    assert ctx.prefs.theme == "dark"


def test_the_key_goes_to_the_keyring_not_the_settings(qtbot, dialog: PreferencesDialog,
                                                      ctx: AppContext, backend: DictKeyring) -> None:
    set_combo(dialog, "endpoint", "openrouter")
    assert dialog.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.key_edit.placeholderText() == "Required for this endpoint"
    dialog.key_edit.setText(KEY)
    click(qtbot, dialog, QDialogButtonBox.StandardButton.Apply)
    assert backend.store == {(SERVICE, "https://openrouter.ai/api/v1"): KEY}
    assert dialog.key_edit.text() == ""
    assert "stored" in dialog.key_edit.placeholderText()
    assert dialog.forget_button.isEnabled()
    assert KEY not in ctx.preferences.file.read_text()
    dialog.forget_button.click()
    assert backend.store == {}


def test_without_a_keyring_the_dialog_says_so(qtbot, tmp_path: Path) -> None:
    ctx = AppContext(preferences=SettingsStore(tmp_path / "s.json"))  # the fail backend
    dlg = PreferencesDialog(ctx)
    qtbot.addWidget(dlg)
    assert "in memory for this run only" in dlg.key_status.text()
    set_combo(dlg, "endpoint", "openai")
    dlg.key_edit.setText(KEY)
    dlg.apply()
    assert ctx.api_key() == KEY  # usable for this run
    assert KEY not in (tmp_path / "s.json").read_text()


def use_server(dialog: PreferencesDialog, server: OpenAIServer, model: str = "") -> None:
    set_combo(dialog, "endpoint", "custom")
    dialog.editors["base_url"].set_value(server.base_url)
    dialog.editors["model"].set_value(model)
    dialog.editors["timeout"].set_value(5)


def test_fetch_models_fills_the_model_box(qtbot, dialog: PreferencesDialog,
                                          openai_server: OpenAIServer) -> None:
    openai_server.models = ["llama3.1:8b", "qwen2.5:7b"]
    use_server(dialog, openai_server)
    with qtbot.waitSignal(dialog.modelsFetched, timeout=10_000) as blocker:
        dialog.fetch_button.click()
    assert blocker.args[0] == ["llama3.1:8b", "qwen2.5:7b"]
    box = dialog.editors["model"].widget
    assert isinstance(box, QComboBox)
    assert [box.itemText(i) for i in range(box.count())] == ["llama3.1:8b", "qwen2.5:7b"]
    assert box.currentText() == "llama3.1:8b"
    assert dialog.result_label.text() == "2 models offered."
    assert dialog.fetch_button.isEnabled()


def test_test_connection_uses_the_typed_key(qtbot, dialog: PreferencesDialog,
                                            openai_server: OpenAIServer) -> None:
    openai_server.api_key = KEY
    use_server(dialog, openai_server, "test-model")
    dialog.key_edit.setText(KEY)
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000) as blocker:
        dialog.test_button.click()
    assert blocker.args[0].ok
    assert dialog.result_label.text().startswith("✓ Connected to 127.0.0.1:")


def test_test_connection_reports_a_wrong_key_plainly(qtbot, dialog: PreferencesDialog,
                                                     openai_server: OpenAIServer) -> None:
    openai_server.api_key = "sk-right"
    use_server(dialog, openai_server, "test-model")
    dialog.key_edit.setText(KEY)
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000):
        dialog.test_button.click()
    text = dialog.result_label.text()
    assert text.startswith("✗ ") and "refused the API key (401)" in text and KEY not in text


def test_test_connection_reports_an_unknown_model(qtbot, dialog: PreferencesDialog,
                                                  openai_server: OpenAIServer) -> None:
    use_server(dialog, openai_server, "no-such-model")
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000) as blocker:
        dialog.test_button.click()
    assert blocker.args[0].kind == "model"
    assert "does not know the model 'no-such-model'" in dialog.result_label.text()
