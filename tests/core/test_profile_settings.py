"""User settings for the assumed SKILL.md profiles: KEY=VALUE parsing, project and user roots,
and the CLI's --profile-set / --include-user (real folders, the real command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from rockskills_gui.core.app.settings_store import SettingsStore
from rockskills_gui.core.library.open import OpenOptions, UserSettings, open_library
from rockskills_gui.core.library.profile_settings import (
    ProfileSettingError,
    apply_overrides,
    apply_settings,
    configured_profile,
    normalize_overrides,
    settings,
)
from rockskills_gui.core.library.skillmd.store import PICOBOT
from tests.conftest import REPO


def skill(root: Path, name: str, description: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody\n")


def run(*args: str, home: Path, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin",
           "ROCKSKILLS_CONFIG_DIR": str(config or home / "config")}
    return subprocess.run([sys.executable, "-m", "rockskills_gui.cli", *args], cwd=REPO, text=True,
                          capture_output=True, env=env)


def test_settings_are_typed_by_the_profile() -> None:
    changed = apply_settings(PICOBOT, ["project_roots=a/skills, b", "require_description=false",
                                       "description-limit=none", "max_listed_skills=7"])
    assert changed.storage.project_roots == ("a/skills", "b")
    assert changed.summary.required is False
    assert changed.summary.limit is None and changed.listing.max_entries == 7
    assert set(PICOBOT.unverified) <= set(settings())  # every assumed setting can be adjusted


@pytest.mark.parametrize("item", ["nope=1", "project_roots", "recursive=maybe", "max_index_chars=x",
                                  "id=other"])
def test_bad_settings_are_refused_with_the_key(item: str) -> None:
    with pytest.raises(ProfileSettingError) as info:
        apply_settings(PICOBOT, [item])
    assert item.split("=")[0] in str(info.value)


def test_project_roots_setting_finds_skills_elsewhere(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    skill(project / "agent-skills", "brew-tea", "Brew a pot of tea")
    default = open_library(project, OpenOptions(format="picobot"))
    # no .picobot/skills: the one folder holding skill folders is searched
    assert default.roots[0].path == project / "agent-skills"
    custom = open_library(project, OpenOptions(
        format="picobot", profile=apply_settings(PICOBOT, ["project_roots=agent-skills"])))
    assert custom.names() == ["brew-tea"]
    assert custom.roots[0].path == project / "agent-skills"


def test_cli_profile_set_and_include_user(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    skill(project / ".picobot" / "skills", "brew-tea", "Brew a pot of tea (project)")
    skill(home / ".picobot" / "skills", "brew-tea", "Brew tea (user copy)")
    skill(home / ".picobot" / "skills", "fold-laundry", "Fold the laundry")
    plain = run("list", str(project), "--format", "picobot", "--json", home=home)
    assert plain.returncode == 0, plain.stderr
    both = run("list", str(project), "--format", "picobot", "--include-user", "--json", home=home)
    assert both.returncode == 0, both.stderr
    assert [s["name"] for s in json.loads(plain.stdout)] == ["brew-tea"]
    names = [s["name"] for s in json.loads(both.stdout)]
    assert sorted(names) == ["brew-tea", "fold-laundry"]
    tea = next(s for s in json.loads(both.stdout) if s["name"] == "brew-tea")
    assert tea["summary"].endswith("(project)")  # the project skill wins the name collision
    bad = run("list", str(project), "--format", "picobot", "--profile-set", "colour=blue", home=home)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "colour" in bad.stderr


# ---------------------------------------------------------------- typed overrides, persisted


def test_typed_overrides_and_text_give_the_same_profile() -> None:
    typed = apply_overrides(PICOBOT, {"project_roots": ["a/skills", " b "], "require-name": True,
                                      "max_listed_skills": 7, "max_index_chars": None})
    text = apply_settings(PICOBOT, ["project_roots=a/skills,b", "require_name=true",
                                    "max_listed_skills=7", "max_index_chars=none"])
    assert typed == text
    assert typed.storage.project_roots == ("a/skills", "b") and typed.names.require_name is True
    assert apply_overrides(PICOBOT, {}) is PICOBOT


@pytest.mark.parametrize(("overrides", "words"), [
    ({"colour": "blue"}, ["unknown profile setting", "colour"]),
    ({"label": "x"}, ["unknown profile setting", "label"]),
    ({"require_description": "maybe"}, ["require_description", "true or false"]),
    ({"require_description": 1}, ["require_description", "true or false", "int"]),
    ({"max_listed_skills": True}, ["max_listed_skills", "whole number", "bool"]),
    ({"max_listed_skills": -3}, ["max_listed_skills", "0 or more"]),
    ({"project_roots": [1, 2]}, ["project_roots", "list of text"]),
    ({"project_roots": None}, ["project_roots", "cannot be none"]),
    ({"file_names": []}, ["file_names", "at least one"]),
    ({"plain": "toml"}, ["plain", "yaml, line"]),
])
def test_wrong_overrides_are_refused_in_one_line_naming_the_key(overrides: dict[str, object],
                                                                words: list[str]) -> None:
    with pytest.raises(ProfileSettingError) as info:
        apply_overrides(PICOBOT, overrides)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    assert all(word in message for word in words), message


def test_normalized_overrides_are_json_and_drop_defaults() -> None:
    data = {"picobot": {"project-roots": "x, y", "require_description": True, "max_index_chars": "300"},
            "carpenter": {"resource_dirs": ["resources"]}}  # both values are the defaults
    assert normalize_overrides(data) == {"picobot": {"project_roots": ["x", "y"],
                                                     "max_index_chars": 300}}
    with pytest.raises(ProfileSettingError, match="unknown profile 'pico'"):
        normalize_overrides({"pico": {}})
    persisted = normalize_overrides({"picobot": {"project_roots": ["x"], "max_listed_skills": 3}})
    profile = configured_profile("picobot", persisted, ["max_listed_skills=5"])
    assert profile.storage.project_roots == ("x",) and profile.listing.max_entries == 5  # CLI on top


def test_settings_file_keeps_overrides_and_refuses_bad_ones(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.update(include_user_skills=True,
                 profile_overrides={"picobot": {"project_roots": "agents/skills, .picobot/skills"}})
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved["include_user_skills"] is True
    assert saved["profile_overrides"] == {"picobot": {"project_roots": ["agents/skills",
                                                                       ".picobot/skills"]}}
    assert SettingsStore(tmp_path / "settings.json").settings == store.settings
    with pytest.raises(ValidationError, match="unknown profile setting 'colour'"):
        store.update(profile_overrides={"picobot": {"colour": "blue"}})
    # a hand-edited file with a bad override loses that setting only, with a note
    (tmp_path / "settings.json").write_text(json.dumps(
        {"theme": "dark", "profile_overrides": {"picobot": {"max_listed_skills": "lots"}}}))
    again = SettingsStore(tmp_path / "settings.json")
    assert again.settings.theme == "dark" and again.settings.profile_overrides == {}
    assert any("profile_overrides" in p for p in again.load_problems)


def two_roots(project: Path) -> None:
    skill(project / ".picobot" / "skills", "brew-tea", "Brew a pot of tea")
    skill(project / "agents" / "skills", "fold-laundry", "Fold the laundry")


def test_overridden_project_roots_load_skills_from_a_non_default_place(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    two_roots(project)
    assert open_library(project).names() == ["brew-tea"]  # detected: PicoBot, .picobot/skills
    moved = open_library(project, OpenOptions(
        settings=UserSettings(overrides={"picobot": {"project_roots": ["agents/skills"]}})))
    assert moved.names() == ["fold-laundry"]
    both = open_library(project, OpenOptions(settings=UserSettings(overrides=normalize_overrides(
        {"picobot": {"project_roots": "agents/skills, .picobot/skills"}}))))
    assert sorted(both.names()) == ["brew-tea", "fold-laundry"]
    # overrides of another profile change nothing here
    other = open_library(project, OpenOptions(
        settings=UserSettings(overrides={"carpenter": {"project_roots": ["agents/skills"]}})))
    assert other.names() == ["brew-tea"]


def test_include_user_reads_home_roots_and_the_project_wins(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    skill(project / ".picobot" / "skills", "brew-tea", "Brew a pot of tea (project)")
    skill(home / ".picobot" / "skills", "brew-tea", "Brew tea (user copy)")
    skill(home / "my-picobot", "water-plants", "Water the plants")
    lib = open_library(project, OpenOptions(settings=UserSettings(include_user=True)))
    assert sorted(lib.names()) == ["brew-tea"]  # ~/.picobot/skills has only the losing copy
    assert lib.get("brew-tea").summary.endswith("(project)")
    moved = open_library(project, OpenOptions(settings=UserSettings(
        include_user=True, overrides={"picobot": {"user_roots": ["~/my-picobot", "~/.picobot/skills"]}})))
    assert sorted(moved.names()) == ["brew-tea", "water-plants"]
    assert moved.get("brew-tea").summary.endswith("(project)")
    not_asked = OpenOptions(settings=UserSettings(overrides={"picobot": {"user_roots": ["~/my-picobot"]}}))
    assert open_library(project, not_asked).names() == ["brew-tea"]  # user roots only when asked for


def test_cli_applies_saved_settings_then_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    two_roots(project)
    skill(home / ".picobot" / "skills", "water-plants", "Water the plants")
    config = tmp_path / "config"
    SettingsStore(config / "settings.json").update(
        include_user_skills=True, profile_overrides={"picobot": {"project_roots": ["agents/skills"]}})

    def names(*args: str) -> list[str]:
        done = run("list", str(project), "--json", *args, home=home, config=config)
        assert done.returncode == 0, done.stderr
        return sorted(s["name"] for s in json.loads(done.stdout))

    assert names() == ["fold-laundry", "water-plants"]  # saved: other project root, user roots
    assert names("--no-include-user") == ["fold-laundry"]
    assert names("--profile-set", "project_roots=.picobot/skills,agents/skills",
                 "--no-include-user") == ["brew-tea", "fold-laundry"]
    recall = run("recall", str(project), "laundry", "--profile-set", "project_roots=agents/skills",
                 "--no-include-user", "--json", home=home, config=config)
    assert recall.returncode == 0, recall.stderr
    assert [h["name"] for h in json.loads(recall.stdout)["results"]] == ["fold-laundry"]
    bad = run("list", str(project), "--profile-set", "max_listed_skills=lots", home=home,
              config=config)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "max_listed_skills" in bad.stderr and bad.stdout == ""
