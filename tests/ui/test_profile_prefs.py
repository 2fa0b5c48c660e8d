"""Preferences ▸ Skill formats on real widgets: the assumed PicoBot / carpenter settings with their
defaults and "assumed" notes, the include-user toggle, saving and showing them again, refusing a
bad value, and the window opening a real folder with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QCheckBox, QDialogButtonBox, QLabel, QLineEdit, QPushButton

from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.core.library.profile_settings import ASSUMED_NOTE
from rockskills_gui.core.library.skillmd.store import CARPENTER, PICOBOT
from rockskills_gui.core.model.coding_agents import COPILOT, CURSOR
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.shell.preferences import PreferencesDialog
from rockskills_gui.ui.shell.profile_prefs import ProfileSettingsEditor
from tests.core.test_profile_settings import skill
from tests.ui.conftest import open_window
from tests.ui.test_main_window import list_names

OK = QDialogButtonBox.StandardButton.Ok
APPLY = QDialogButtonBox.StandardButton.Apply


@pytest.fixture
def ctx(tmp_path: Path) -> AppContext:
    return AppContext(preferences=SettingsStore(tmp_path / "settings.json"))


def make_dialog(qtbot, ctx: AppContext) -> PreferencesDialog:
    dialog = PreferencesDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def field(dialog: PreferencesDialog, profile: str, key: str) -> QLineEdit | QCheckBox:
    widget = dialog.findChild(QLineEdit, f"profile.{profile}.{key}") or \
        dialog.findChild(QCheckBox, f"profile.{profile}.{key}")
    assert widget is not None, (profile, key)
    return widget


def include_user(dialog: PreferencesDialog) -> QCheckBox:
    box = dialog.editors["include_user_skills"].widget
    assert isinstance(box, QCheckBox)
    return box


def test_each_assumed_setting_is_shown_with_its_default_and_a_note(qtbot, ctx: AppContext) -> None:
    dialog = make_dialog(qtbot, ctx)
    editor = dialog.editors["profile_overrides"].widget
    assert isinstance(editor, ProfileSettingsEditor)
    assumed = [PICOBOT, CARPENTER, COPILOT, CURSOR]  # (the coding agents' unconfirmed roots, issue 31)
    assert [editor.tabText(i) for i in range(editor.count())] == [p.label for p in assumed]
    for profile in assumed:
        shown = {key for pid, key in editor.fields if pid == profile.id}
        assert shown == set(profile.unverified)
        for key in profile.unverified:
            widget = field(dialog, profile.id, key)
            assert ASSUMED_NOTE in widget.accessibleDescription()
            note = dialog.findChild(QLabel, f"profileNote.{profile.id}.{key}")
            assert note is not None and note.text().startswith("assumed · default: ")
        header = dialog.findChild(QLabel, f"profileHeader.{profile.id}")
        assert header is not None and ASSUMED_NOTE in header.text().lower()
    assert field(dialog, "picobot", "project_roots").text() == ".picobot/skills"
    assert field(dialog, "picobot", "max_index_chars").text() == "none"
    assert field(dialog, "carpenter", "file_names").text() == "SKILL.md, skill.md"
    assert field(dialog, "picobot", "require_description").isChecked()
    assert not include_user(dialog).isChecked()


def test_edits_are_saved_and_shown_again(qtbot, ctx: AppContext) -> None:
    dialog = make_dialog(qtbot, ctx)
    field(dialog, "picobot", "project_roots").setText("agents/skills,  .picobot/skills")
    field(dialog, "picobot", "require_description").setChecked(False)
    field(dialog, "picobot", "max_listed_skills").setText("12")
    field(dialog, "carpenter", "resource_dirs").setText("resources, scripts")
    include_user(dialog).setChecked(True)
    with qtbot.waitSignal(ctx.preferencesChanged) as blocker:
        dialog.buttons.button(OK).click()
    assert blocker.args[0] == {"profile_overrides", "include_user_skills"}
    saved = json.loads(ctx.preferences.file.read_text())
    assert saved["include_user_skills"] is True
    assert saved["profile_overrides"] == {
        "picobot": {"project_roots": ["agents/skills", ".picobot/skills"],
                    "require_description": False, "max_listed_skills": 12},
        "carpenter": {"resource_dirs": ["resources", "scripts"]}}

    again = make_dialog(qtbot, AppContext(preferences=SettingsStore(ctx.preferences.file)))
    assert field(again, "picobot", "project_roots").text() == "agents/skills, .picobot/skills"
    assert not field(again, "picobot", "require_description").isChecked()
    assert field(again, "picobot", "max_listed_skills").text() == "12"
    assert field(again, "carpenter", "resource_dirs").text() == "resources, scripts"
    assert include_user(again).isChecked()
    with qtbot.assertNotEmitted(again.ctx.preferencesChanged):
        assert again.apply()  # nothing edited: nothing changes


def test_a_bad_value_is_refused_naming_the_setting(qtbot, ctx: AppContext) -> None:
    dialog = make_dialog(qtbot, ctx)
    field(dialog, "picobot", "max_index_chars").setText("lots")
    dialog.buttons.button(APPLY).click()
    assert dialog.error_label.isVisible()
    assert "max_index_chars" in dialog.error_label.text()
    assert "whole number" in dialog.error_label.text()
    assert not ctx.preferences.file.exists()
    field(dialog, "picobot", "max_index_chars").setText("4000")
    dialog.buttons.button(APPLY).click()
    assert not dialog.error_label.isVisible()
    assert ctx.prefs.profile_overrides == {"picobot": {"max_index_chars": 4000}}


def test_format_defaults_come_back_and_unshown_overrides_are_kept(qtbot, ctx: AppContext) -> None:
    ctx.preferences.update(profile_overrides={"picobot": {"recursive": False, "max_listed_skills": 3},
                                              "carpenter": {"project_roots": ["legacy"]}})
    dialog = make_dialog(qtbot, ctx)
    assert field(dialog, "picobot", "max_listed_skills").text() == "3"
    field(dialog, "carpenter", "description_limit").setText("2000")
    dialog.buttons.button(APPLY).click()
    assert ctx.prefs.profile_overrides == {  # recursive is not shown, and survives
        "picobot": {"recursive": False, "max_listed_skills": 3},
        "carpenter": {"project_roots": ["legacy"], "description_limit": 2000}}
    reset = dialog.findChild(QPushButton, "profileReset.picobot")
    assert reset is not None
    reset.click()
    assert field(dialog, "picobot", "max_listed_skills").text() == "none"
    dialog.buttons.button(APPLY).click()
    assert ctx.prefs.profile_overrides == {
        "carpenter": {"project_roots": ["legacy"], "description_limit": 2000}}
    dialog.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).click()
    assert field(dialog, "carpenter", "project_roots").text() == "skills"
    dialog.buttons.button(APPLY).click()
    assert ctx.prefs.profile_overrides == {}


def test_the_window_opens_with_the_saved_format_settings(qtbot, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    skill(project / ".picobot" / "skills", "brew-tea", "Brew a pot of tea (project)")
    skill(project / "agents" / "skills", "fold-laundry", "Fold the laundry")
    skill(home / ".picobot" / "skills", "brew-tea", "Brew tea (user copy)")
    skill(home / ".picobot" / "skills", "water-plants", "Water the plants")
    ctx = AppContext(preferences=SettingsStore(tmp_path / "settings.json"))
    plain = open_window(qtbot, project, ctx)
    assert list_names(plain) == ["brew-tea"]
    ctx.preferences.update(include_user_skills=True, profile_overrides={
        "picobot": {"project_roots": [".picobot/skills", "agents/skills"]}})
    window = open_window(qtbot, project, ctx)
    assert sorted(list_names(window)) == ["brew-tea", "fold-laundry", "water-plants"]
    library = window.ctx.library
    assert library is not None
    assert library.get("brew-tea").summary.endswith("(project)")  # the project wins
    for win in (plain, window):
        win._close_confirmed = True
        win.loader.cancel()
        win.loader.wait()
