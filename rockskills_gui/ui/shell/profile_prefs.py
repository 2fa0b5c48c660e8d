"""The Preferences editor for the assumed SKILL.md profile settings (``Settings.profile_overrides``).

One tab per profile with assumed settings (PicoBot, carpenter); one row per ``unverified``
setting, showing its current value, its default and that it is assumed, not confirmed from public
code. Text follows the command line's ``--profile-set`` syntax (lists comma-separated, ``none``
clears a limit); the settings schema checks it when the dialog applies.
"""

from __future__ import annotations

import typing
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.profile_settings import (
    ASSUMED_NOTE,
    adjustable_profiles,
    setting_help,
    setting_value,
    settings,
    to_text,
)
from rockskills_gui.core.model.profiles import profile_for_settings
from rockskills_gui.ui.common.theme import secondary


def _is_bool(kind: object) -> bool:
    return kind is bool or bool in typing.get_args(kind)


class ProfileSettingsEditor(QTabWidget):
    """Edit ``{profile id: {setting: value}}``; overrides the dialog does not show are kept.

    Signals:
        changed(): a value was edited.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields: dict[tuple[str, str], QLineEdit | QCheckBox] = {}
        self._loaded: dict[str, dict[str, Any]] = {}
        kinds = settings()
        for profile in adjustable_profiles():
            page = QWidget(self)
            page.setObjectName(f"profileTab.{profile.settings_id}")
            outer = QVBoxLayout(page)
            header = secondary(QLabel(
                f"{ASSUMED_NOTE.capitalize()}. These settings follow a project brief, not the "
                "agent's code. Lists are comma-separated; none clears a limit.", page))
            header.setObjectName(f"profileHeader.{profile.settings_id}")
            header.setWordWrap(True)
            outer.addWidget(header)
            form = QFormLayout()
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
            outer.addLayout(form)
            for key in profile.unverified:
                title, help_text = setting_help(key)
                default = to_text(setting_value(profile, key))
                field: QLineEdit | QCheckBox
                if _is_bool(kinds[key]):
                    field = QCheckBox(page)
                    field.toggled.connect(lambda *_: self.changed.emit())
                else:
                    field = QLineEdit(page)
                    field.setPlaceholderText(default or "(empty)")
                    field.textChanged.connect(lambda *_: self.changed.emit())
                field.setObjectName(f"profile.{profile.settings_id}.{key}")
                field.setAccessibleName(f"{profile.label}: {title}")
                field.setAccessibleDescription(f"{help_text} {ASSUMED_NOTE}; default: {default}")
                field.setToolTip(f"{help_text}\n{key} — {ASSUMED_NOTE}.")
                note = secondary(QLabel(f"assumed · default: {default or '(empty)'}", page))
                note.setObjectName(f"profileNote.{profile.settings_id}.{key}")
                note.setToolTip(f"{ASSUMED_NOTE}; default: {default or '(empty)'}")
                row = QHBoxLayout()
                row.addWidget(field, 1)
                row.addWidget(note)
                label = QLabel(f"{title}:", page)
                label.setBuddy(field)
                form.addRow(label, row)
                self.fields[(profile.settings_id, key)] = field
            reset = QPushButton("Restore Defaults for This Format", page)
            reset.setToolTip(f"Show the defaults of {profile.label} (saved by OK or Apply)")
            reset.setObjectName(f"profileReset.{profile.settings_id}")
            reset.clicked.connect(lambda *_, pid=profile.settings_id: self.restore_defaults(pid))
            buttons = QHBoxLayout()
            buttons.addStretch(1)
            buttons.addWidget(reset)
            outer.addLayout(buttons)
            outer.addStretch(1)
            self.addTab(page, profile.label)

    def value(self) -> dict[str, dict[str, Any]]:
        """The overrides as shown (text as typed; the settings schema checks and normalizes)."""
        result = {pid: dict(items) for pid, items in self._loaded.items()}
        for (pid, key), field in self.fields.items():
            result.setdefault(pid, {})[key] = (field.isChecked() if isinstance(field, QCheckBox)
                                               else field.text())
        return result

    def set_value(self, overrides: dict[str, dict[str, Any]]) -> None:
        """Show ``overrides`` (per profile id), defaults where a setting has none."""
        self._loaded = {pid: dict(items) for pid, items in overrides.items()}
        for (pid, key), field in self.fields.items():
            items = self._loaded.get(pid, {})
            current = items[key] if key in items else setting_value(profile_for_settings(pid), key)
            if isinstance(field, QCheckBox):
                field.setChecked(bool(current))
            else:
                field.setText(to_text(current))

    def restore_defaults(self, profile_id: str) -> None:
        """Show ``profile_id``'s defaults (saved when the dialog applies)."""
        self._loaded.pop(profile_id, None)
        for (pid, key), field in self.fields.items():
            if pid == profile_id:
                default = setting_value(profile_for_settings(pid), key)
                if isinstance(field, QCheckBox):
                    field.setChecked(bool(default))
                else:
                    field.setText(to_text(default))
