"""Detection by evidence (issue 17): JSON files that parse as RockBot skills are weighed against
SKILL.md folders; JSON files inside a skill's folder (package.json, state, examples) are resources,
not RockBot evidence. Every collection in shared/corpora opens correctly without ``--format``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rockskills_gui.core.library.formats import detect
from rockskills_gui.core.library.open import open_library
from tests.conftest import AGENT, SHARED

CORPORA = sorted(p for p in (SHARED / "corpora").iterdir() if p.is_dir()) \
    if (SHARED / "corpora").is_dir() else []


@pytest.mark.parametrize("corpus", CORPORA, ids=[p.name for p in CORPORA])
def test_every_corpus_opens_as_skill_md_without_a_format(corpus: Path) -> None:
    detection = detect(corpus)
    assert detection.format != "rockbot", detection.reason
    lib = open_library(corpus)
    skill_files = [p for p in corpus.rglob("SKILL.md") if ".git" not in p.parts]
    loaded = {lib.entry(s.name).path.resolve() for s in lib.skills()}
    reported = {(lib.base / p.path).resolve() for p in lib.problems}
    assert len(lib.skills()) > 0
    folders = {p.parent for p in loaded}  # a SKILL.md inside a loaded skill's folder is its resource
    missing = [p for p in skill_files if p.resolve() not in loaded | reported
               and not any(f in p.resolve().parents for f in folders)]
    assert missing == [], f"{len(missing)} SKILL.md files neither loaded, reported nor resources"


def _skill_md(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\n\n1. Go.\n")


def _rockbot_json(path: Path, name: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": name, "summary": "s", "content": "c"}))


@pytest.mark.parametrize("seed", range(8))
def test_json_inside_skill_folders_is_not_rockbot_evidence(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = tmp_path / "collection"
    count = rng.randint(3, 30)
    for i in range(count):
        folder = root / "skills" / f"skill-{i}"
        _skill_md(folder, f"skill-{i}")
        for j in range(rng.randint(0, 3)):  # resources that are JSON, some even skill-shaped
            sub = folder / rng.choice(["examples", "state", "templates/deep"])
            if rng.random() < 0.5:
                _rockbot_json(sub / f"example-{j}.json", f"example-{j}")
            else:
                (sub).mkdir(parents=True, exist_ok=True)
                (sub / "package.json").write_text('{"name": "x", "version": "1.0.0"}')
    detection = detect(root)
    assert detection.format == "agentskills", detection.reason
    assert len(open_library(root).skills()) == count


def test_a_rockbot_library_with_stray_skill_md_files_stays_rockbot_and_says_so(tmp_path: Path) -> None:
    import shutil

    agent = tmp_path / "agent"
    shutil.copytree(AGENT, agent)
    for path in [agent, *agent.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    _skill_md(agent / "skills" / "imported" / "one", "one")
    detection = detect(agent)
    assert detection.format == "rockbot"
    assert "also 1 SKILL.md" in detection.reason


def test_more_skill_md_than_rockbot_json_opens_as_agent_skills_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    for i in range(5):
        _skill_md(root / "skills" / f"s{i}", f"s{i}")
    _rockbot_json(root / "skills" / "legacy.json", "legacy")
    detection = detect(root)
    assert detection.format == "agentskills"
    assert "also 1 RockBot skill file" in detection.reason


def test_the_cli_says_what_else_it_saw(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    root = tmp_path / "mixed"
    for i in range(3):
        _skill_md(root / "skills" / f"s{i}", f"s{i}")
    _rockbot_json(root / "skills" / "legacy.json", "legacy")
    done = subprocess.run([sys.executable, "-m", "rockskills_gui", "list", str(root)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "note: opened as Agent Skills" in done.stderr and "also 1 RockBot skill file" in done.stderr
    assert sorted(line.split("\t")[0] for line in done.stdout.splitlines()) == ["s0", "s1", "s2"]
