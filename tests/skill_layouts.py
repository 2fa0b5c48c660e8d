"""Generated SKILL.md libraries in the layouts the coding agents use (issue 31), for tests: never
the real home (a fake home folder is made and passed explicitly).

- :func:`claude_marketplace`: ``.claude-plugin/marketplace.json``, ``plugins/<p>/.claude-plugin/
  plugin.json``, ``plugins/<p>/skills/<s>/SKILL.md``, ``external_plugins/<p>/skills/<s>/SKILL.md``;
  the same skill name in two plugins, a plugin without a manifest that the marketplace lists, a
  category folder Claude Code never reads.
- :func:`codex_marketplace`: ``openai/plugins``-style: ``plugins/<p>/.codex-plugin/plugin.json``,
  ``.agents/plugins/marketplace.json``, a root ``.agents/skills/`` with category folders, a
  ``.archive`` folder (the app's archive, issue 32), a ``.drafts`` folder Codex skips, a name
  Codex refuses as too long and a skill without a description.
- :func:`category_tree`: ``engineering/…``, ``marketing-skill/…`` collections.
- :func:`hermes_home`: ``~/.hermes/skills/<category>/<name>/`` with ``DESCRIPTION.md``,
  ``.index.toml`` and an archived skill in ``.archive/``.
- :func:`agent_roots`: an agent's project and user roots holding the same name (shadowing).
"""

from __future__ import annotations

import json
from pathlib import Path


def skill(folder: Path, name: str | None, description: str | None = "Does a thing.",
          body: str = "Steps.\n") -> Path:
    """``folder/SKILL.md`` with that frontmatter (None: the key left out)."""
    folder.mkdir(parents=True, exist_ok=True)
    head = "".join(f"{k}: {v}\n" for k, v in (("name", name), ("description", description)) if v is not None)
    path = folder / "SKILL.md"
    path.write_text(f"---\n{head}---\n\n# {name or folder.name}\n\n{body}", encoding="utf-8")
    return path


def _json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def claude_marketplace(root: Path) -> Path:
    """A Claude Code plugin marketplace (see the module doc)."""
    plugins = {"plugins/deploy-kit": ["deploy", "rollback"], "plugins/notes": ["take-notes"],
               "external_plugins/discord": ["access", "configure"],
               "external_plugins/telegram": ["access", "configure"],
               "plugins/receipts": ["receipts"]}  # (no plugin.json: named by the marketplace)
    for where, skills in plugins.items():
        folder = root / where
        if folder.name != "receipts":
            _json(folder / ".claude-plugin" / "plugin.json", {"name": folder.name, "version": "1.0.0"})
        for name in skills:
            skill(folder / "skills" / name, name, f"{name.title()} for the {folder.name} plugin.")
    skill(root / "plugins" / "notes" / "skills" / "archive" / "old-notes", "old-notes", "Nested: unseen.")
    _json(root / ".claude-plugin" / "marketplace.json", {
        "$schema": "https://anthropic.com/claude-code/marketplace.schema.json", "name": "generated",
        "owner": {"name": "tests"},
        "plugins": [{"name": Path(w).name, "source": f"./{w}"} for w in plugins]
        + [{"name": "remote", "source": {"source": "url", "url": "https://example.invalid/x.git"}}]})
    return root


def codex_marketplace(root: Path) -> Path:
    """An ``openai/plugins``-style Codex marketplace (see the module doc)."""
    for plugin, skills in {"github": ["review-pr", "triage"], "figma": ["implement-design"],
                           "linear": ["triage"]}.items():
        folder = root / "plugins" / plugin
        _json(folder / ".codex-plugin" / "plugin.json", {"name": plugin, "version": "0.1.0",
                                                          "skills": "./skills/"})
        for name in skills:
            skill(folder / "skills" / name, name, f"{name} with {plugin}.")
    agents = root / ".agents" / "skills"
    skill(agents / "plugin-creator", "plugin-creator", "Create a plugin.")
    skill(agents / "writing" / "release-notes", "release-notes", "Write release notes.")
    skill(agents / "writing" / "style" / "tone", "tone", "Pick the tone of a text.")
    skill(agents / ".archive" / "retired", "retired", "An archived skill.")
    skill(agents / ".drafts" / "wip", "wip", "In a folder Codex skips.")
    skill(agents / "too-long", "x" * 70, "A name longer than 64 characters.")
    skill(agents / "quiet", "quiet", None)
    _json(root / ".agents" / "plugins" / "marketplace.json", {
        "name": "generated", "interface": {"displayName": "Generated"},
        "plugins": [{"name": p, "source": {"source": "local", "path": f"./plugins/{p}"},
                     "policy": {"installation": "AVAILABLE"}, "category": "Coding"}
                    for p in ("github", "figma", "linear")]})
    return root


def category_tree(root: Path) -> Path:
    """A collection of skills in category folders."""
    for category, names in {"engineering": ["code-review", "incident-response"],
                            "marketing-skill": ["seo-audit", "launch-plan"],
                            "engineering/frontend": ["a11y-check"]}.items():
        for name in names:
            skill(root / category / name, name, f"{name.replace('-', ' ').title()} ({category}).")
    return root


def hermes_home(home: Path) -> Path:
    """``home/.hermes`` with categorised skills, a category description and an archived skill."""
    skills = home / ".hermes" / "skills"
    for category, names in {"mlops": ["axolotl", "vllm"], "research": ["arxiv"]}.items():
        for name in names:
            skill(skills / category / name, name, f"{name} — " + "a long description " * 5)
    (skills / "mlops" / "DESCRIPTION.md").write_text("---\ndescription: Training and serving.\n---\n")
    skill(skills / ".archive" / "old-tool", "old-tool", "Retired.")
    (skills / ".index.toml").write_text('[meta]\nversion = "1.0"\n')
    return home / ".hermes"


def agent_roots(project: Path, home: Path, project_root: str, user_root: str, name: str = "shared") -> None:
    """The same skill ``name`` in a project root and a user root (each says where it is)."""
    skill(project / project_root / name, name, f"The project's {name}.")
    skill(project / project_root / "project-only", "project-only", "Only in the project.")
    skill(home / user_root.removeprefix("~/") / name, name, f"The user's {name}.")
    skill(home / user_root.removeprefix("~/") / "user-only", "user-only", "Only the user's.")
