"""The Preferences dialog, generated from the settings schema (:mod:`rockskills_gui.core.app.settings`).

Each field of :class:`~rockskills_gui.core.app.settings.Settings` gets an editor chosen from its type
(choices, numbers with their ranges, text, font, lines, a checkbox, the assumed SKILL.md profile
settings), its title as the label and its description as tooltip and accessible description, in
the section its ``group`` names; the sections scroll when the screen is too short. The LLM section
adds what is not a setting: the API key (stored in the OS keyring, or in memory when there is
none), "Fetch models" and "Test connection" (real requests, run off the UI thread).
"""

from __future__ import annotations

import logging
import typing
from collections.abc import Callable
from types import ModuleType
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.app.settings import GROUP_LLM, GROUPS, PRESET_BY_ID, Settings, field_info
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.queries import QueryControl
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.shell.profile_prefs import ProfileSettingsEditor

FONT_DEFAULT_LABEL = "System fixed-width font"
log = logging.getLogger(__name__)


class FieldEditor:
    """One setting's editor: ``widget`` to place, ``value()`` / ``set_value()`` to move data."""

    def __init__(self, name: str, widget: QWidget, getter: Callable[[], Any],
                 setter: Callable[[Any], None], changed: Any) -> None:
        self.name = name
        self.widget = widget
        self.value = getter
        self.set_value = setter
        self.changed = changed  # a Qt signal emitted on edits


def _combo(choices: dict[str, str], parent: QWidget) -> tuple[QComboBox, Callable[[], Any],
                                                              Callable[[Any], None]]:
    box = QComboBox(parent)
    for value, label in choices.items():
        box.addItem(label, value)

    def set_value(value: Any) -> None:
        index = box.findData(value)
        box.setCurrentIndex(max(index, 0))

    return box, lambda: box.currentData(), set_value


def make_editor(name: str, parent: QWidget) -> FieldEditor:
    """The editor for field ``name``, chosen from its annotation and ``widget`` hint."""
    info = field_info(name)
    annotation = Settings.model_fields[name].annotation
    widget_kind = info["widget"]
    editor: FieldEditor
    if typing.get_origin(annotation) is typing.Literal:
        labels = info["labels"]
        choices = {str(v): labels.get(v, str(v)) for v in typing.get_args(annotation)}
        box, get, put = _combo(choices, parent)
        editor = FieldEditor(name, box, get, put, box.currentIndexChanged)
    elif annotation is bool:
        check = QCheckBox(info["title"], parent)
        editor = FieldEditor(name, check, check.isChecked, check.setChecked, check.toggled)
    elif annotation is int:
        spin = QSpinBox(parent)
        spin.setRange(int(info.get("ge", -2**31)), int(info.get("le", 2**31 - 1)))
        if info["zero"] and spin.minimum() == 0:
            spin.setSpecialValueText(info["zero"])
        editor = FieldEditor(name, spin, spin.value, lambda v: spin.setValue(int(v)),
                             spin.valueChanged)
    elif annotation is float:
        dspin = QDoubleSpinBox(parent)
        dspin.setDecimals(1)
        dspin.setRange(float(info.get("ge", -1e9)), float(info.get("le", 1e9)))
        editor = FieldEditor(name, dspin, dspin.value, lambda v: dspin.setValue(float(v)),
                             dspin.valueChanged)
    elif widget_kind == "font":
        fonts = QComboBox(parent)
        fonts.addItem(FONT_DEFAULT_LABEL, "")
        for family in QFontDatabase.families():
            if QFontDatabase.isFixedPitch(family) and not QFontDatabase.isPrivateFamily(family):
                fonts.addItem(family, family)

        def set_font(value: Any) -> None:
            index = fonts.findData(value)
            if index < 0:
                fonts.addItem(str(value), value)
                index = fonts.count() - 1
            fonts.setCurrentIndex(index)

        editor = FieldEditor(name, fonts, lambda: fonts.currentData() or "", set_font,
                             fonts.currentIndexChanged)
    elif widget_kind == "model":
        models = QComboBox(parent)
        models.setEditable(True)
        models.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        model_edit = models.lineEdit()  # editable: Qt made one
        if model_edit is not None:
            model_edit.setPlaceholderText("e.g. llama3.1:8b or gpt-4o-mini")
        editor = FieldEditor(name, models, models.currentText, models.setEditText,
                             models.editTextChanged)
    elif widget_kind == "profiles":
        profiles = ProfileSettingsEditor(parent)
        editor = FieldEditor(name, profiles, profiles.value, profiles.set_value, profiles.changed)
    elif widget_kind == "lines":
        lines = QPlainTextEdit(parent)
        lines.setTabChangesFocus(True)
        lines.setFixedHeight(lines.fontMetrics().lineSpacing() * 4 + 12)
        editor = FieldEditor(name, lines, lines.toPlainText,
                             lambda v: lines.setPlainText("\n".join(v)), lines.textChanged)
    else:
        line = QLineEdit(parent)
        if "max_length" in info:
            line.setMaxLength(int(info["max_length"]))
        if widget_kind == "url":
            line.setPlaceholderText("http://127.0.0.1:8000/v1")
        editor = FieldEditor(name, line, line.text, line.setText, line.textChanged)
    editor.widget.setObjectName(f"pref.{name}")
    editor.widget.setAccessibleName(info["title"])
    editor.widget.setAccessibleDescription(info["description"])
    editor.widget.setToolTip(info["description"])
    return editor


def _endpoint() -> ModuleType:
    """``core.app.endpoint``, loaded by the first request's worker: it imports the openai client
    (1.5-2 s), which opening the dialog never waits for."""
    from rockskills_gui.core.app import endpoint

    return endpoint


def _outcome(work: Callable[[], object]) -> Callable[[QueryControl], object]:
    """``work``'s result, or the exception it raised (the dialog explains it)."""

    def run(_control: QueryControl) -> object:
        try:
            return work()
        except Exception as exc:  # delivered to the dialog, which explains it
            return exc

    return run


class PreferencesDialog(QDialog):
    """Edit the settings; OK/Apply validate and save them, the key goes to the keyring.

    Signals:
        modelsFetched(object): a list of model ids, or an :class:`EndpointError`.
        checkFinished(object): the :class:`CheckResult` of "Test connection".
    """

    modelsFetched = Signal(object)
    checkFinished = Signal(object)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle("Preferences")
        self.ctx = ctx
        self.editors: dict[str, FieldEditor] = {}
        # Requests to the endpoint, off the UI thread: they may wait for their timeout, so they
        # are detached (closing the dialog or the app does not wait for them).
        self._requests = ctx.channel(self, "endpoint", detached=True)
        self._requests.busyChanged.connect(self._set_busy)
        self._build()
        self.load(ctx.prefs)

    # ---------------------------------------------------------------- construction

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.scroll_area = QScrollArea(self)  # the sections scroll when the screen is too short
        self.scroll_area.setObjectName("preferencesScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        sections = QWidget(self.scroll_area)
        sections_layout = QVBoxLayout(sections)
        sections_layout.setContentsMargins(0, 0, 0, 0)
        forms: dict[str, QFormLayout] = {}
        for group in GROUPS:
            box = QGroupBox(group, sections)
            box.setObjectName(f"prefGroup.{group}")
            form = QFormLayout(box)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
            forms[group] = form
            sections_layout.addWidget(box)
        self.scroll_area.setWidget(sections)
        layout.addWidget(self.scroll_area, 1)
        for name in Settings.model_fields:
            info = field_info(name)
            editor = self.editors[name] = make_editor(name, self)
            form = forms[info["group"] or GROUP_LLM]
            if isinstance(editor.widget, QCheckBox):  # the box carries the title itself
                form.addRow(editor.widget)
                continue
            label = QLabel(f"{info['title']}:", self)
            label.setBuddy(editor.widget)
            if name == "model":
                row = QHBoxLayout()
                row.addWidget(editor.widget, 1)
                self.fetch_button = QPushButton("Fetch Models", self)
                self.fetch_button.setObjectName("fetchModels")
                self.fetch_button.setToolTip("Ask the server which models it offers (GET /models)")
                self.fetch_button.clicked.connect(self.fetch_models)
                row.addWidget(self.fetch_button)
                form.addRow(label, row)
            elif name == "endpoint":
                form.addRow(label, editor.widget)
                self.preset_hint = secondary(QLabel(self))
                self.preset_hint.setObjectName("presetHint")
                self.preset_hint.setWordWrap(True)
                form.addRow("", self.preset_hint)
            else:
                form.addRow(label, editor.widget)
            if name == "base_url":
                self._add_key_rows(form)
        llm = forms[GROUP_LLM]
        self.test_button = QPushButton("Test Connection", self)
        self.test_button.setObjectName("testConnection")
        self.test_button.setToolTip("Send one short request to the model and report what happens")
        self.test_button.clicked.connect(self.test_connection)
        self.result_label = QLabel(self)
        self.result_label.setObjectName("connectionResult")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.setAccessibleName("Connection test result")
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.result_label, 1)
        llm.addRow("", row)

        self.error_label = QLabel(self)
        self.error_label.setObjectName("preferencesErrors")
        self.error_label.setWordWrap(True)
        self.error_label.setAccessibleName("Problems with the values entered")
        self.error_label.hide()
        layout.addWidget(self.error_label)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.RestoreDefaults, self)
        self.buttons.clicked.connect(self._on_button)
        layout.addWidget(self.buttons)
        self.editors["endpoint"].changed.connect(lambda *_: self._on_endpoint_changed())
        self.editors["base_url"].changed.connect(lambda *_: self._update_key_placeholder())
        self._fit_to_screen(sections)

    def _fit_to_screen(self, sections: QWidget) -> None:
        """Open as large as the sections need, within 90% of the screen."""
        screen = self.screen().availableGeometry()
        boxes = [box.sizeHint() for box in
                 sections.findChildren(QGroupBox, options=Qt.FindChildOption.FindDirectChildrenOnly)]
        inner, outer = sections.layout(), self.layout()
        if inner is None or outer is None:  # (both made by _build)
            return
        spacing = max(inner.spacing(), 0)
        width = max(hint.width() for hint in boxes) + self.scroll_area.verticalScrollBar().sizeHint().width()
        height = sum(hint.height() + spacing for hint in boxes)
        margins = outer.contentsMargins()
        below = self.buttons.sizeHint().height() + max(outer.spacing(), 0)
        self.resize(min(width + margins.left() + margins.right(), int(screen.width() * 0.9)),
                    min(height + below + margins.top() + margins.bottom(),
                        int(screen.height() * 0.9)))

    def _add_key_rows(self, form: QFormLayout) -> None:
        self.key_edit = QLineEdit(self)
        self.key_edit.setObjectName("apiKey")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setAccessibleName("API key")
        self.key_edit.setAccessibleDescription(
            "Stored in the system keyring under this endpoint; never written to a file")
        self.key_edit.setToolTip(self.key_edit.accessibleDescription())
        self.forget_button = QPushButton("Forget", self)
        self.forget_button.setObjectName("forgetKey")
        self.forget_button.setToolTip("Remove the stored key for this endpoint")
        self.forget_button.clicked.connect(self.forget_key)
        row = QHBoxLayout()
        row.addWidget(self.key_edit, 1)
        row.addWidget(self.forget_button)
        key_label = QLabel("API key:", self)
        key_label.setBuddy(self.key_edit)
        form.addRow(key_label, row)
        self.key_status = secondary(QLabel(self.ctx.keys.status.message, self))
        self.key_status.setObjectName("keyStatus")
        self.key_status.setWordWrap(True)
        form.addRow("", self.key_status)

    # ---------------------------------------------------------------- values

    def load(self, settings: Settings) -> None:
        """Show ``settings`` in the editors."""
        for name, editor in self.editors.items():
            editor.set_value(getattr(settings, name))
        self._on_endpoint_changed()
        self._show_errors([])

    def values(self) -> dict[str, Any]:
        return {name: editor.value() for name, editor in self.editors.items()}

    def validated(self) -> Settings | None:
        """The edited settings, or None (and the problems shown) when a value is refused."""
        try:
            settings = Settings.model_validate(self.values())
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                name = str(error["loc"][0]) if error["loc"] else ""
                title = field_info(name)["title"] if name in Settings.model_fields else name
                problems.append(f"{title}: {error['msg'].removeprefix('Value error, ')}")
            self._show_errors(problems)
            return None
        self._show_errors([])
        return settings

    def _show_errors(self, problems: list[str]) -> None:
        self.error_label.setText("\n".join(problems))
        self.error_label.setVisible(bool(problems))

    def current_base_url(self) -> str:
        preset = PRESET_BY_ID.get(str(self.editors["endpoint"].value()))
        if preset is None or preset.id == "custom":
            return str(self.editors["base_url"].value()).strip().rstrip("/")
        return preset.base_url

    def current_key(self) -> str | None:
        """The key typed now, else the one stored for the endpoint shown."""
        typed = self.key_edit.text().strip()
        return typed or self.ctx.keys.get(self.current_base_url())

    def apply(self) -> bool:
        """Validate, save the settings and the typed key; False when something was refused."""
        settings = self.validated()
        if settings is None:
            return False
        typed = self.key_edit.text().strip()
        if typed:
            where = self.ctx.keys.set(settings.effective_base_url, typed)
            self.key_edit.clear()
            self.key_status.setText(self.ctx.keys.status.message if where == "keyring" else
                                    "The key is kept in memory for this run only. "
                                    + self.ctx.keys.status.message)
        self.ctx.preferences.replace(settings)
        self._update_key_placeholder()
        return True

    def forget_key(self) -> None:
        self.ctx.keys.delete(self.current_base_url())
        self.key_edit.clear()
        self._update_key_placeholder()

    def _on_button(self, button: QAbstractButton) -> None:
        role = self.buttons.standardButton(button)
        if role == QDialogButtonBox.StandardButton.Ok:
            if self.apply():
                self.accept()
        elif role == QDialogButtonBox.StandardButton.Apply:
            self.apply()
        elif role == QDialogButtonBox.StandardButton.Cancel:
            self.reject()
        elif role == QDialogButtonBox.StandardButton.RestoreDefaults:
            self.load(Settings())

    def _on_endpoint_changed(self) -> None:
        preset = PRESET_BY_ID.get(str(self.editors["endpoint"].value()))
        custom = preset is None or preset.id == "custom"
        url_edit = self.editors["base_url"].widget
        url_edit.setEnabled(custom)
        if isinstance(url_edit, QLineEdit):
            url_edit.setPlaceholderText("http://127.0.0.1:8000/v1" if custom else
                                        (preset.base_url if preset else ""))
        hint = preset.hint if preset is not None else ""
        if preset is not None and not custom:
            hint = f"{preset.base_url} — {hint}"
        self.preset_hint.setText(hint)
        self._update_key_placeholder()

    def _update_key_placeholder(self) -> None:
        url = self.current_base_url()
        stored = bool(url) and self.ctx.keys.get(url) is not None
        preset = PRESET_BY_ID.get(str(self.editors["endpoint"].value()))
        if stored:
            text = "A key is stored for this endpoint (type to replace it)"
        elif preset is not None and preset.needs_key:
            text = "Required for this endpoint"
        else:
            text = "Optional (local servers usually need none)"
        self.key_edit.setPlaceholderText(text)
        self.forget_button.setEnabled(stored)

    # ---------------------------------------------------------------- requests

    def _start(self, work: Callable[[], object], deliver: Callable[[object], None]) -> None:
        """Run ``work`` off the UI thread; a newer request makes this one's result moot."""
        self.ctx.query(self, "endpoint", _outcome(work), deliver, detached=True)

    def _set_busy(self, busy: bool) -> None:
        self.fetch_button.setEnabled(not busy)
        self.test_button.setEnabled(not busy)

    def _timeout(self) -> float:
        return float(self.editors["timeout"].value())

    def fetch_models(self) -> None:
        """List the server's models into the model box (off the UI thread)."""
        url, key, timeout = self.current_base_url(), self.current_key(), self._timeout()
        self.result_label.setText(f"Asking {url or 'the server'} for its models…")
        self._start(lambda: _endpoint().list_models(url, key, timeout), self._on_models)

    def _on_models(self, result: object) -> None:
        if isinstance(result, _endpoint().EndpointError):
            log.info("fetching models failed (%s): %s", result.kind, result)
            self.result_label.setText(str(result))
        elif isinstance(result, list):
            box = self.editors["model"].widget
            assert isinstance(box, QComboBox)
            current = box.currentText()
            box.clear()
            box.addItems(result)
            box.setEditText(current or (result[0] if result else ""))
            self.result_label.setText(f"{len(result)} model{'s' if len(result) != 1 else ''} "
                                      "offered." if result else "The server offers no models.")
        else:
            self.result_label.setText(f"Could not list the models: {result}")
        self.modelsFetched.emit(result)

    def test_connection(self) -> None:
        """Send one real request with the values shown (not yet saved) and report the outcome."""
        url, key, timeout = self.current_base_url(), self.current_key(), self._timeout()
        model = str(self.editors["model"].value()).strip()
        self.result_label.setText(f"Testing {url or 'the endpoint'}…")
        self._start(lambda: _endpoint().check_connection(url, model, key, timeout), self._on_checked)

    def _on_checked(self, result: object) -> None:
        from rockskills_gui.core.app.endpoint import CheckResult  # (loaded by the worker already)

        checked = result if isinstance(result, CheckResult) \
            else CheckResult(False, "error", f"The test failed: {result}")
        self.result_label.setText(("✓ " if checked.ok else "✗ ") + checked.message)
        log.info("connection test (%s): %s", checked.kind, checked.message)
        self.checkFinished.emit(checked)

    def busy(self) -> bool:
        return self._requests.busy
