"""Which skill format a folder holds, and opening it as a library (detected or overridden).

Formats: ``rockbot`` (JSON files under ``skills/``), ``agentskills`` (SKILL.md trees, also
``.agents/skills`` and ``.claude/skills`` project roots), ``picobot`` and ``carpenter`` (SKILL.md
profiles, partly assumed: formats.md §A.1, §C.1), ``cortex`` (``.cortex/skills`` and
``memory.db``). Detection looks only at names on disk, never runs anything, and can be overridden.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.stores.skill_dirs import (
    CORTEX_DB_NAME,
    CORTEX_SKILLS_SUBDIR,
    SIDECAR_NAME,
    SKIP_DIRS,
    find_memory_db,
    find_skill_md,
    generic_root,
)
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.coding_agents import CODING_AGENTS
from rockskills_gui.core.model.problems import Problem
from rockskills_gui.core.model.profiles import PROFILES, SKILL_MD_PROFILES
from rockskills_gui.core.model.rules import (
    EMBEDDINGS_DIR,
    LEDGER_FILE,
    RESOURCE_SUFFIX,
    ROCKBOT_64E82CC,
    ROCKBOT_CURRENT,
    RockBotRules,
)
from rockskills_gui.core.storage import fileio, folder_walk
from rockskills_gui.core.storage.layout import SKILLS_DIR, NotALibraryError

if TYPE_CHECKING:  # (a SKILL.md library's code loads when one is opened)
    from rockskills_gui.core.library.library import Library
    from rockskills_gui.core.library.skillmd.profiles import Root

FORMATS = ("rockbot", "agentskills", "picobot", "carpenter", "cortex", *(p.format for p in CODING_AGENTS))
# What the window title shows for each format: its (first) profile's title.
FORMAT_LABELS = {f: next(p.title for p in PROFILES.values() if p.format == f) for f in FORMATS}
# A SKILL.md format -> the key of its profile's settings (core.library.profile_settings).
PROFILE_OF = {p.format: p.settings_id for p in SKILL_MD_PROFILES.values()}
# A folder below the opened one that says which agent's skills it holds, in the order asked; the
# generic ones (.agents/skills, .claude/skills: Agent Skills) come last.
AGENT_MARKERS = (("picobot", ".picobot/skills"), ("gemini-cli", ".gemini/skills"),
                 ("copilot", ".github/skills"), ("cursor", ".cursor/skills"),
                 ("codex", ".codex/skills"), ("hermes", ".hermes/skills"),
                 ("agentskills", ".agents/skills"), ("agentskills", ".claude/skills"))
# Plugin marketplaces and plugins (issue 31): the files that make a folder one, and its agent.
MARKETPLACE_MARKERS = (("claude-code", ".claude-plugin/marketplace.json"),
                       ("claude-code", ".claude-plugin/plugin.json"),
                       ("codex", ".agents/plugins/marketplace.json"),
                       ("codex", ".codex-plugin/plugin.json"))
# --format values choosing a RockBot profile (format "rockbot" with those rules), beside FORMATS.
ROCKBOT_PROFILE_FORMATS = {"rockbot-current": ROCKBOT_CURRENT, "rockbot-64e82cc": ROCKBOT_64E82CC}
# Every value ``--format`` and File ▸ Reopen As offer: the formats, and after "rockbot" (the
# RockBot profile its evidence says) the two RockBot profiles by name.
OPEN_FORMATS = (FORMATS[0], *ROCKBOT_PROFILE_FORMATS, *FORMATS[1:])
OPEN_FORMAT_LABELS = {
    **FORMAT_LABELS,
    "rockbot-current": ROCKBOT_CURRENT.profile.title,
    "rockbot-64e82cc": "RockBot (64e82cc)",
}
SKILL_FILE_NAMES = ("SKILL.md", "skill.md")


@dataclass(frozen=True)
class Detection:
    """A folder's format, the folders its skills live in, and why that format was chosen."""

    format: str
    base: Path
    roots: tuple[Root, ...] = ()
    memory_db: Path | None = None
    reason: str = ""
    rules: RockBotRules | None = None  # for format "rockbot": which RockBot (core.model.rules)
    profile_reason: str = ""  # why that RockBot (the evidence of a current one), "" for 64e82cc
    notes: tuple[Problem, ...] = ()  # what discovery could not read (a plugin manifest)

    @property
    def label(self) -> str:
        if self.format == "rockbot" and self.rules is not None:
            return self.rules.label
        return FORMAT_LABELS[self.format]


MAX_JSON_READ = 200  # JSON files detection opens before it has seen enough
MAX_JSON_BYTES = 1 << 20  # a larger file is not read for detection


@dataclass(frozen=True)
class Evidence:
    """What is below a ``skills/`` folder: JSON files that parse as RockBot skills (an object with
    a string ``name`` and ``content``), other JSON files, and SKILL.md files."""

    rockbot: int = 0
    other_json: int = 0
    skill_md: int = 0
    manifests: int = 0  # RockBot skill files with a manifest or surfaceBaseline (RockBot current)
    resource_dirs: int = 0  # {name}.resources folders (RockBot current)

    def favours_rockbot(self) -> bool:
        return self.rockbot > 0 and self.rockbot >= self.skill_md


CURRENT_KEYS = frozenset({"manifest", "surfacebaseline"})  # properties only RockBot (current) writes


def _looks_like_rockbot_skill(path: Path) -> int:
    """0: not a RockBot skill file; 1: one; 2: one with RockBot (current)'s properties."""
    try:
        data = dotnet_json.loads_untrusted(fileio.read_regular(path, MAX_JSON_BYTES).decode("utf-8-sig"))
    except (OSError, ValueError):
        return 0
    if not (isinstance(data, dict) and isinstance(data.get("name"), str)
            and isinstance(data.get("content"), str)):
        return 0
    return 2 if any(k.lower() in CURRENT_KEYS and data[k] is not None for k in data) else 1


def evidence(folder: Path) -> Evidence:
    """Weigh what ``folder`` holds (never runs anything; opens at most :data:`MAX_JSON_READ` JSON
    files, regular ones only). A SKILL.md skill's own folder counts as SKILL.md evidence and its
    JSON files (resources, examples, package.json) do not count at all."""
    rockbot = other = skill_md = opened = manifests = resource_dirs = 0
    for dirpath, dirnames, filenames in folder_walk.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d != EMBEDDINGS_DIR)
        resources = [d for d in dirnames if d.endswith(RESOURCE_SUFFIX)]
        if resources:  # a RockBot (current) skill's files: not weighed as skills
            resource_dirs += len(resources)
            dirnames[:] = [d for d in dirnames if not d.endswith(RESOURCE_SUFFIX)]
        if any(n in filenames for n in SKILL_FILE_NAMES):
            skill_md += 1
            dirnames[:] = []  # a skill's folder: what is below it are its resources
            continue
        for name in sorted(filenames):
            if not name.endswith(".json") or name == SIDECAR_NAME or fileio.is_temp_name(name):
                continue
            if opened >= MAX_JSON_READ:
                other += 1
                continue
            opened += 1
            kind = _looks_like_rockbot_skill(Path(dirpath) / name)
            if kind:
                rockbot += 1
                manifests += kind == 2
            else:
                other += 1
    return Evidence(rockbot, other, skill_md, manifests, resource_dirs)


def current_rockbot_evidence(agent_dir: Path, seen: Evidence | None = None) -> list[str]:
    """What in an agent directory only a RockBot after 64e82cc writes (empty: none of it)."""
    found: list[str] = []
    if seen is not None and seen.manifests:
        found.append(f"{seen.manifests} skill file(s) with a manifest")
    if seen is not None and seen.resource_dirs:
        found.append(f"{seen.resource_dirs} .resources folder(s)")
    if (agent_dir / SKILLS_DIR / EMBEDDINGS_DIR).is_dir():
        found.append(f"{SKILLS_DIR}/{EMBEDDINGS_DIR}/")
    if (agent_dir / LEDGER_FILE).is_file():
        found.append(LEDGER_FILE)
    return found


def _rockbot(path: Path, reason: str, seen: Evidence | None = None) -> Detection:
    """A RockBot detection: the current profile when its evidence is there, else 64e82cc."""
    agent = path.parent if path.name == SKILLS_DIR and not (path / SKILLS_DIR).is_dir() else path
    current = current_rockbot_evidence(agent, seen)
    if not current:
        return Detection("rockbot", path, reason=reason, rules=ROCKBOT_64E82CC)
    return Detection("rockbot", path, reason=reason, rules=ROCKBOT_CURRENT,
                     profile_reason=f"{ROCKBOT_CURRENT.label}: " + ", ".join(current))


def _also_seen(seen: Evidence) -> str:
    """A note on the other format's evidence, for the status bar and the problems."""
    if seen.favours_rockbot() and seen.skill_md:
        return f"; also {seen.skill_md} SKILL.md file(s): File ▸ Reopen As ▸ Agent Skills to read those"
    if not seen.favours_rockbot() and seen.rockbot:
        return f"; also {seen.rockbot} RockBot skill file(s) (JSON): File ▸ Reopen As ▸ RockBot to read those"
    return ""


def _skillmd(path: Path, format: str, reason: str) -> Detection:
    """A SKILL.md format's detection: the roots its profile finds in ``path``."""
    from rockskills_gui.core.library.skillmd.discovery import project_roots

    found = project_roots(path, SKILL_MD_PROFILES[PROFILE_OF[format]])
    return Detection(format, path, tuple(found.roots), reason=reason, notes=tuple(found.problems))


def _marketplace(path: Path) -> tuple[str, str] | None:
    """(format, reason) when ``path`` is a plugin marketplace or plugin (or holds plugins)."""
    for format, marker in MARKETPLACE_MARKERS:
        if fileio.is_regular(path / marker):
            return format, f"a {marker} file"
    from rockskills_gui.core.library.skillmd.discovery import plugin_markers

    codex = PROFILES["codex"]
    for plugin in plugin_markers(path, codex):
        format = "codex" if fileio.is_regular(plugin / codex.storage.plugin_manifests[0]) else "claude-code"
        return format, f"plugins with manifests ({plugin.relative_to(path).as_posix()}/…)"
    return None


PROJECT_SKILL_DIRS = (".agents", ".claude", ".picobot", ".cortex")  # {dir}/skills/ in a project


def library_of_file(path: Path) -> Path:
    """The folder of the library holding skill file ``path``: for a SKILL.md, the project of the
    nearest ``.claude/skills`` (``.agents``, ``.picobot``, ``.cortex``) above it, else the folder
    holding the nearest ``skills/``, else its skill folder's parent; for a RockBot ``.json``, the
    agent directory holding the nearest ``skills/``. Raises NotALibraryError for other files."""
    if path.name in SKILL_FILE_NAMES:
        for ancestor in path.parents[1:]:
            if ancestor.name == SKILLS_DIR:
                inside = ancestor.parent.name in PROJECT_SKILL_DIRS
                return ancestor.parent.parent if inside else ancestor.parent
        return path.parent.parent
    if path.suffix.lower() == ".json":
        for ancestor in path.parents:
            if ancestor.name == SKILLS_DIR:
                return ancestor.parent
        raise NotALibraryError(f"{path}: a JSON file outside any skills/ folder (open the agent "
                               "directory that holds it)")
    raise NotALibraryError(f"{path}: not a directory (expected a skill library folder)")


def detect(path: Path | str, format: str | None = None) -> Detection:
    """Detect (or, with ``format``, resolve) what ``path`` holds; raises NotALibraryError."""
    path = Path(path).expanduser()
    if not path.exists():
        raise NotALibraryError(f"{path}: no such file or directory")
    path = path.resolve()
    if path.is_file():
        if path.name == CORTEX_DB_NAME:
            project = path.parent.parent if path.parent.name == ".cortex" else path.parent
            return _cortex(project, path, "a CortexPrism memory.db")
        path = library_of_file(path)
    if format is not None:
        return _forced(path, format)
    if (path / ".cortex").is_dir() or path.name == ".cortex" or \
            (path.name == "skills" and path.parent.name == ".cortex"):
        project = (path.parent.parent if path.name == "skills"
                   else path.parent if path.name == ".cortex" else path)
        return _cortex(project, find_memory_db(project), "a .cortex folder")
    if find_memory_db(path) is not None and not (path / SKILLS_DIR).is_dir():
        return _cortex(path, find_memory_db(path), "a CortexPrism memory.db")
    skills = path / SKILLS_DIR if (path / SKILLS_DIR).is_dir() else path if path.name == SKILLS_DIR else None
    if skills is not None and not os.access(skills, os.R_OK | os.X_OK):  # (issue 35, item 16)
        raise NotALibraryError(f"{skills}: the skills folder cannot be read (permission denied)")
    seen = evidence(skills) if skills is not None and not any(
        (skills / n).is_file() for n in SKILL_FILE_NAMES) else Evidence()
    if seen.favours_rockbot():
        return _rockbot(path, f"{seen.rockbot} RockBot skill file(s) under skills/" + _also_seen(seen),
                        seen)
    also = _also_seen(seen)
    from rockskills_gui.core.library.skillmd.profiles import Root  # (SKILL.md)

    market = _marketplace(path)
    if market is not None:
        return _skillmd(path, market[0], market[1] + also)
    for name, marker in AGENT_MARKERS:
        if (path / marker).is_dir():
            return _skillmd(path, name, f"a {marker} folder{also}")
    if path.name == ".picobot" and (path / "skills").is_dir():
        return Detection("picobot", path, (Root(path / "skills", "user"),), reason="a .picobot folder")
    if _hermes_skills(path):
        return _skillmd(path, "hermes", "a Hermes skills folder (categories with DESCRIPTION.md, "
                                        "skills/.index.toml or skills/.archive)")
    if find_skill_md(path):
        return Detection("agentskills", path, (Root(generic_root(path)),), reason=f"SKILL.md files{also}")
    try:
        RockBotLibrary.open(path)  # a RockBot agent directory with no skills yet, else its own message
    except NotALibraryError:
        raise NotALibraryError(f"{path}: not a RockBot library, and no SKILL.md skills or .cortex "
                               "folder found in it") from None
    return _rockbot(path, "a RockBot agent directory")


def _hermes_skills(path: Path) -> bool:
    """A Hermes skills tree: ``.hermes`` itself, or a ``skills/`` with ``.index.toml``, ``.archive/``
    or a category folder's ``DESCRIPTION.md``."""
    skills = path / "skills"
    if not skills.is_dir():
        return False
    if path.name == ".hermes" or (skills / ".index.toml").is_file() or (skills / ".archive").is_dir():
        return True
    try:
        with os.scandir(skills) as entries:
            return any(e.is_dir(follow_symlinks=False) and (Path(e.path) / "DESCRIPTION.md").is_file()
                       for e in entries)
    except OSError:
        return False


def _cortex(project: Path, db: Path | None, reason: str) -> Detection:
    skills = project / CORTEX_SKILLS_SUBDIR
    from rockskills_gui.core.library.skillmd.profiles import Root

    return Detection("cortex", project, (Root(skills),), db, reason)


def _forced(path: Path, format: str) -> Detection:
    if format in ROCKBOT_PROFILE_FORMATS:
        return Detection("rockbot", path, reason="chosen by the user",
                         rules=ROCKBOT_PROFILE_FORMATS[format])
    if format not in FORMATS:
        raise NotALibraryError(f"unknown format '{format}' (one of {', '.join(OPEN_FORMATS)})")
    if format == "rockbot":  # the RockBot the directory's evidence says
        skills = path / SKILLS_DIR if (path / SKILLS_DIR).is_dir() else path
        return _rockbot(path, "chosen by the user", evidence(skills) if skills.is_dir() else None)
    if format == "cortex":
        if path.name == "skills" and path.parent.name == ".cortex":
            path = path.parent.parent
        elif path.name == ".cortex":
            path = path.parent
        return _cortex(path, find_memory_db(path), "chosen by the user")
    return _skillmd(path, format, "chosen by the user")


def detection_note(found: Detection) -> str:
    """What else detection saw, when the choice was not certain ("" when it was)."""
    _, marker, rest = found.reason.partition("; also ")
    notes = [found.profile_reason] if found.profile_reason else []
    if marker:
        notes.append(f"also {rest}")
    return "; ".join(notes)


def format_label(lib: Library) -> str:
    """What the window title shows, e.g. ``Agent Skills (SKILL.md)``, ``RockBot (current)``."""
    return lib.profile.title


def open_format_of(lib: Library) -> str:
    """The :data:`OPEN_FORMATS` value naming what ``lib`` was opened as: its profile
    (``rockbot-current``, ``rockbot-64e82cc``, ``agentskills``, ...)."""
    return lib.profile.id
