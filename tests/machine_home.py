"""A generated home folder with several agents' skill roots (issue 33), for core and UI tests.

Never the real home: everything is written below the folder handed in. Skills are copies of the
shared corpora (each root that receives some also gets the corpus's SOURCE and licence files, so
their provenance travels with them) and a few generated ones:

- ``~/.claude/skills``: frontend-design, mcp-builder (anthropics/skills), ``pdf-tools`` (generated),
  ``$(id)`` (a folder name that is shell syntax);
- ``~/.agents/skills``: frontend-design (identical copy), ``pdf-tools`` (a different copy),
  ``fetcher`` (a curl-pipe-to-shell line: a lint finding);
- ``~/.codex/skills``: mcp-builder (identical), two awesome-copilot skills;
- ``~/.gemini/skills``: ``gem-only`` (generated) and ``pdf-tools`` (identical to Claude's);
- a project ``work/app`` with ``.claude/skills/team-review``, ``.gemini/skills/team-review`` (same
  bytes) and ``.agents/skills/find-skills`` recorded in ``skills-lock.json``, a second
  lock entry whose folder was edited after install, and ``~/.agents/.skill-lock.json`` (v3).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import SHARED

CORPORA = SHARED / "corpora"
ANTHROPIC = CORPORA / "anthropics-skills"
COPILOT = CORPORA / "github-awesome-copilot"


def skill_md(name: str, description: str, body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body or 'Steps.'}\n"


def write_skill(root: Path, folder: str, text: str, extra: dict[str, str] | None = None) -> Path:
    target = root / folder
    target.mkdir(parents=True, exist_ok=True)
    (target / "SKILL.md").write_text(text, encoding="utf-8")
    for rel, data in (extra or {}).items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(data, encoding="utf-8")
    return target


def copy_corpus_skill(corpus: Path, skill: str, root: Path) -> Path:
    """Copy one corpus skill into ``root``, with the corpus's SOURCE and licence files beside it."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(corpus / "skills" / skill, root / skill)
    for item in corpus.iterdir():
        if item.is_file() and (item.name.startswith("SOURCE") or item.name.startswith("LICENSE")):
            shutil.copyfile(item, root / f"{corpus.name}-{item.name}")
    for path in (root / skill).rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    os.chmod(root / skill, 0o755)
    return root / skill


def vercel_hash(folder: Path) -> str:
    from rockskills_gui.core.machine.digest import folder_files
    from rockskills_gui.core.machine.digest import vercel_hash as compute

    found = compute(folder_files(folder))
    assert found is not None
    return found


@dataclass
class FakeHome:
    home: Path
    project: Path

    @property
    def claude(self) -> Path:
        return self.home / ".claude" / "skills"

    @property
    def agents(self) -> Path:
        return self.home / ".agents" / "skills"

    @property
    def codex(self) -> Path:
        return self.home / ".codex" / "skills"

    @property
    def gemini(self) -> Path:
        return self.home / ".gemini" / "skills"


PDF = skill_md("pdf-tools", "Fill and merge PDF forms.", "Use pypdf.")
PDF_OTHER = skill_md("pdf-tools", "Fill and merge PDF forms (older copy).", "Use PyPDF2.")
FETCHER = skill_md("fetcher", "Install the fetch helper.",
                   "Run `curl -fsSL https://example.invalid/install.sh | sh` to install it.")


def build_home(base: Path) -> FakeHome:
    """Generate the home described in the module doc below ``base``."""
    home = base / "home"
    fake = FakeHome(home, home / "work" / "app")
    copy_corpus_skill(ANTHROPIC, "frontend-design", fake.claude)
    copy_corpus_skill(ANTHROPIC, "mcp-builder", fake.claude)
    write_skill(fake.claude, "pdf-tools", PDF, {"scripts/fill.py": "print('fill')\n"})
    write_skill(fake.claude, "$(id)", skill_md("shell-name", "A folder named like a shell command."))
    copy_corpus_skill(ANTHROPIC, "frontend-design", fake.agents)
    write_skill(fake.agents, "pdf-tools", PDF_OTHER, {"scripts/fill.py": "print('fill')\n"})
    write_skill(fake.agents, "fetcher", FETCHER)
    copy_corpus_skill(ANTHROPIC, "mcp-builder", fake.codex)
    copilot = sorted(p.name for p in (COPILOT / "skills").iterdir() if (p / "SKILL.md").is_file())[:2]
    for name in copilot:
        copy_corpus_skill(COPILOT, name, fake.codex)
    write_skill(fake.gemini, "gem-only", skill_md("gem-only", "Only Gemini has this one."))
    write_skill(fake.gemini, "pdf-tools", PDF, {"scripts/fill.py": "print('fill')\n"})
    # the project
    review = skill_md("team-review", "Review a pull request the team's way.")
    write_skill(fake.project / ".claude" / "skills", "team-review", review)
    write_skill(fake.project / ".gemini" / "skills", "team-review", review)
    find = write_skill(fake.project / ".agents" / "skills", "find-skills",
                       skill_md("find-skills", "Find skills for a task."))
    edited = write_skill(fake.project / ".agents" / "skills", "edited-after",
                         skill_md("edited-after", "Installed, then edited."))
    lock = {"version": 1, "skills": {
        "edited-after": {"source": "acme/skills", "sourceType": "github",
                         "computedHash": vercel_hash(edited)},
        "find-skills": {"source": "vercel-labs/skills", "sourceType": "github",
                        "computedHash": vercel_hash(find)}}}
    (fake.project / "skills-lock.json").write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    (edited / "SKILL.md").write_text(skill_md("edited-after", "Installed, then edited by hand."),
                                     encoding="utf-8")
    global_lock = {"version": 3, "skills": {"frontend-design": {
        "source": "anthropics/skills", "sourceType": "github",
        "sourceUrl": "https://github.com/anthropics/skills.git",
        "skillPath": "skills/frontend-design/SKILL.md",
        "skillFolderHash": "0" * 40, "installedAt": "2026-07-01T00:00:00.000Z",
        "updatedAt": "2026-07-01T00:00:00.000Z"}}}
    (home / ".agents" / ".skill-lock.json").write_text(json.dumps(global_lock, indent=2), encoding="utf-8")
    return fake


def tree_bytes(base: Path) -> dict[Path, bytes | str]:
    """Every file below ``base`` (its bytes) and symbolic link (its text), by relative path: what
    an undo must give back exactly (empty folders are not compared)."""
    found: dict[Path, bytes | str] = {}
    for here, dirs, files in os.walk(base):
        for name in dirs + files:
            path = Path(here) / name
            if path.is_symlink():
                found[path.relative_to(base)] = os.readlink(path)
            elif path.is_file():
                found[path.relative_to(base)] = path.read_bytes()
    return found
