"""Convert with RockBot (current) resources (issue 20): ``{name}.resources/`` files go to the
Agent Skills ``scripts/``, ``references/`` and ``assets/`` folders by manifest type and come back
byte for byte (files, manifest, unlisted files); SKILL.md resources get manifest entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rockskills_gui.cli import main as cli_main
from rockskills_gui.core.library.convert.run import (
    TARGETS,
    convert,
    resource_dir_for,
    resource_type_for,
)
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary, manifest_of
from rockskills_gui.core.library.skillmd.store import AGENT_SKILLS, CARPENTER, PICOBOT
from rockskills_gui.core.model.rules import ROCKBOT_CURRENT
from tests.rockbot_current import RESOURCES, make_current_agent, snapshot


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return make_current_agent(tmp_path / "agent")


def skills_files(root: Path) -> dict[str, bytes]:
    """What RockBot's skill store holds (the embedding cache is RockBot's own, not converted)."""
    return {k: v for k, v in snapshot(root).items()
            if k.startswith("skills/") and not k.startswith("skills/.embeddings/")}


def test_type_folder_mapping() -> None:
    assert [resource_dir_for(t, AGENT_SKILLS) for t in
            ("Python", "Wisp", "Markdown", "Text", "JsonSchema", "Other", None)] == \
        ["scripts", "scripts", "references", "references", "references", "assets", "assets"]
    assert resource_dir_for("Python", CARPENTER) == "resources"
    assert resource_dir_for("Python", PICOBOT) == ""
    assert [resource_type_for(r) for r in ("scripts/a.py", "scripts/a.wisp", "scripts/run.sh",
                                           "references/a.md", "references/s.json",
                                           "references/n.txt", "references/x.py", "assets/a.md",
                                           "notes.md")] == \
        ["Python", "Wisp", "Other", "Markdown", "JsonSchema", "Text", "Text", "Other", "Markdown"]
    assert "rockbot-current" in TARGETS


def test_current_to_agent_skills_and_back_is_byte_for_byte(agent: Path, tmp_path: Path) -> None:
    lib = open_library(agent)
    result = convert(lib, tmp_path / "md", "agentskills")
    md = tmp_path / "md" / "scripts-csv-report"
    files = RESOURCES["scripts/csv-report"]
    assert (md / "scripts" / "report.py").read_bytes() == files["report.py"]
    assert (md / "references" / "schema.json").read_bytes() == files["schema.json"]
    assert (md / "assets" / "logo.png").read_bytes() == files["logo.png"]  # unlisted: Other
    messages = [f"{x.skill}: {x.severity}: {x.message}" for x in result.losses
                if x.kind == "resources"]
    assert any("3 RockBot resource file(s) written" in m for m in messages)
    assert any("missing.md, which is not on disk" in m and ": warning:" in m for m in messages)
    assert any("not in the manifest: logo.png" in m for m in messages)

    back = convert(open_library(tmp_path / "md"), tmp_path / "back", "rockbot-current")
    assert skills_files(tmp_path / "back") == skills_files(agent)  # files, manifests, unlisted
    assert not (tmp_path / "back" / ".skillgui").exists()  # nothing left to remember
    assert not [x for x in back.losses if x.severity == "warning"]
    reopened = open_library(tmp_path / "back")
    assert isinstance(reopened, RockBotLibrary) and reopened.rules is ROCKBOT_CURRENT


def test_an_edited_skill_md_keeps_its_manifest(agent: Path, tmp_path: Path) -> None:
    convert(open_library(agent), tmp_path / "md", "agentskills")
    md = tmp_path / "md" / "scripts-csv-report"
    (md / "SKILL.md").write_bytes((md / "SKILL.md").read_bytes() + b"\nOne more step.\n")
    (md / "references" / "extra.txt").write_bytes(b"added in SKILL.md form\n")
    result = convert(open_library(tmp_path / "md"), tmp_path / "back", "rockbot-current")
    lib = open_library(tmp_path / "back")
    assert isinstance(lib, RockBotLibrary)
    skill = lib.get("scripts/csv-report")
    assert skill is not None and skill.content.endswith("One more step.\n")
    manifest = manifest_of(skill) or []
    assert [e["filename"] for e in manifest] == ["report.py", "schema.json", "missing.md",
                                                 "extra.txt"]
    assert manifest[0] == json.loads(
        (agent / "skills/scripts/csv-report.json").read_text())["manifest"][0]  # kept whole
    assert manifest[3]["type"] == "Text" and manifest[3]["description"] == \
        "Converted from references/extra.txt"
    folder = lib.resource_dir("scripts/csv-report")
    assert sorted(p.name for p in folder.iterdir()) == ["extra.txt", "logo.png", "report.py",
                                                        "schema.json"]
    assert any("added to the manifest: extra.txt (Text)" in x.message for x in result.losses)


def test_agent_skills_resources_become_a_manifest(tmp_path: Path) -> None:
    skill = tmp_path / "src" / ".agents" / "skills" / "pdf-tools"
    (skill / "scripts").mkdir(parents=True)
    (skill / "references").mkdir()
    (skill / "assets").mkdir()
    (skill / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: Work with PDF files\n"
                                    "---\n\n# PDF tools\n")
    (skill / "scripts" / "extract.py").write_text("print('x')\n")
    (skill / "scripts" / "run me.sh").write_text("echo\n")
    (skill / "references" / "forms.md").write_text("# Forms\n")
    (skill / "assets" / "logo.png").write_bytes(b"\x89PNG")
    result = convert(open_library(tmp_path / "src"), tmp_path / "rb", "rockbot-current")
    lib = open_library(tmp_path / "rb")
    assert isinstance(lib, RockBotLibrary) and lib.rules is ROCKBOT_CURRENT
    entries = {e["filename"]: e["type"] for e in manifest_of(lib.entry("pdf-tools").skill) or []}
    assert entries == {"extract.py": "Python", "run-me.sh": "Other", "forms.md": "Markdown",
                       "logo.png": "Other"}
    assert (lib.resource_dir("pdf-tools") / "logo.png").read_bytes() == b"\x89PNG"
    assert any("scripts/run me.sh written as run-me.sh" in x.message for x in result.losses)
    # ... and back: each file returns to its folder
    convert(lib, tmp_path / "md2", "agentskills")
    again = tmp_path / "md2" / ".agents" / "skills" / "pdf-tools"  # (its root travels with it)
    for rel in ("scripts/extract.py", "scripts/run me.sh", "references/forms.md", "assets/logo.png"):
        assert (again / rel).read_bytes() == (skill / rel).read_bytes(), rel


def test_to_rockbot_64e82cc_resources_go_beside(agent: Path, tmp_path: Path) -> None:
    result = convert(open_library(agent), tmp_path / "old", "rockbot")
    kept = tmp_path / "old" / ".skillgui" / "resources" / "scripts" / "csv-report"
    assert sorted(p.name for p in kept.iterdir()) == ["logo.png", "report.py", "schema.json"]
    assert any("RockBot 64e82cc cannot hold resources" in x.message for x in result.losses)
    same = convert(open_library(agent), tmp_path / "same", "rockbot-current")
    assert skills_files(tmp_path / "same") == skills_files(agent)
    assert not (tmp_path / "same" / ".skillgui").exists() and not same.not_converted


def test_cli_convert_to_rockbot_current(agent: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["convert", str(agent), str(tmp_path / "md"), "--to", "agentskills"]) == 0
    assert cli_main(["convert", str(tmp_path / "md"), str(tmp_path / "rb"),
                     "--to", "rockbot-current"]) == 0
    capsys.readouterr()
    assert skills_files(tmp_path / "rb") == skills_files(agent)
