"""User settings for the assumed SKILL.md profiles: KEY=VALUE parsing, project and user roots,
and the CLI's --profile-set / --include-user (real folders, the real command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.formats import open_library
from rockskills_gui.core.profile_settings import ProfileSettingError, apply_settings, settings
from rockskills_gui.core.stores.skillmd import PICOBOT
from tests.conftest import REPO


def skill(root: Path, name: str, description: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody\n")


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rockskills_gui.cli", *args], cwd=REPO, text=True,
                          capture_output=True, env={"HOME": str(home), "PATH": "/usr/bin:/bin"})


def test_settings_are_typed_by_the_profile() -> None:
    changed = apply_settings(PICOBOT, ["project_roots=a/skills, b", "require_description=false",
                                       "description-limit=none", "max_listed_skills=7"])
    assert changed.project_roots == ("a/skills", "b")
    assert changed.require_description is False
    assert changed.description_limit is None and changed.max_listed_skills == 7
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
    default = open_library(project, "picobot")
    assert default.roots[0].path == project  # no .picobot/skills: the folder itself is searched
    custom = open_library(project, "picobot",
                          profile=apply_settings(PICOBOT, ["project_roots=agent-skills"]))
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
