"""Where an agent profile finds skills in an opened folder and in a home folder: its roots, in the
order its precedence gives (the first root's copy of a name wins; see ``scan.settle``).

- Project roots: the profile's ``storage.project_roots`` that exist under the opened folder.
- Plugins: a folder holding one of ``storage.plugin_manifests`` (``.claude-plugin/plugin.json``,
  ``.codex-plugin/plugin.json``), found at the opened folder, one or two levels below it
  (``plugins/<p>``, ``external_plugins/<p>``), or named by a marketplace manifest's local
  ``source`` (``.claude-plugin/marketplace.json``, ``.agents/plugins/marketplace.json``). Its
  skill roots are its manifest's ``skills`` paths or ``storage.plugin_skill_dirs``; its name is
  the manifest's ``name`` (else its folder's), the namespace of its skills. A folder beside such
  plugins with a ``skills/`` folder but no manifest is a plugin of its folder's name (assumed:
  Claude Code takes the folder name when ``plugin.json`` is absent).
- Without either: ``skills/`` when it exists, else the one subfolder holding every SKILL.md
  (``scientific-skills/``), else the opened folder itself.
- User roots (``storage.user_roots``, ``storage.extension_roots``) below an explicit home folder
  (the real one only when none is given), placed before the project's when the precedence says
  the user's copy wins (Claude Code), after them otherwise.

Manifests are untrusted: read only when regular files below a size limit, never followed out
of the opened folder; one that cannot be read is named in a problem and its folder name used.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rockskills_gui.core.library.skillmd.profiles import SKIP_DIRS, AgentProfile, Root
from rockskills_gui.core.library.stores.skill_dirs import generic_root
from rockskills_gui.core.model import dotnet_json
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.profile import Precedence
from rockskills_gui.core.storage import fileio, untrusted

__all__ = ["Found", "discover", "home_roots", "plugin_markers", "project_roots"]

MANIFEST_MAX_BYTES = 1 << 20  # a plugin or marketplace manifest larger than this is not read
SKILLS_DIR = "skills"


@dataclass
class Found:
    """The roots discovered in a folder, in precedence order, and what could not be read."""

    roots: list[Root] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _read_json(path: Path, base: Path, found: Found) -> dict[str, object] | None:
    """A manifest's JSON object (None: absent or unreadable, the latter named in a problem)."""
    if not (path.exists() or path.is_symlink()):
        return None
    shown = _shown(base, path)
    try:
        data = dotnet_json.loads_untrusted(untrusted.read_inside(path, [base], MANIFEST_MAX_BYTES))
    except (OSError, ValueError) as exc:
        why = exc.why if isinstance(exc, untrusted.Refused) else str(exc) or type(exc).__name__
        found.problems.append(Problem(path=shown, kind=ProblemKind.UNREADABLE, severity="warning",
                                      message=f"plugin manifest not read ({why}); the plugin's folder "
                                              "name is used"))
        return None
    if not isinstance(data, dict):
        found.problems.append(Problem(path=shown, kind=ProblemKind.PARSE_ERROR, severity="warning",
                                      message="plugin manifest is not a JSON object; the plugin's "
                                              "folder name is used"))
        return None
    return data


def _shown(base: Path, path: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _subfolders(folder: Path) -> list[Path]:
    """Real (not linked) subfolders of ``folder``, sorted, without ``.git``-like ones."""
    try:
        with os.scandir(folder) as entries:
            return sorted(Path(e.path) for e in entries
                          if e.name not in SKIP_DIRS and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _inside(path: Path, base: Path) -> bool:
    return untrusted.is_inside(path, [base]) and ".." not in path.relative_to(base).parts


def _local_sources(base: Path, profile: AgentProfile, found: Found) -> list[Path]:
    """The plugin folders the marketplace manifests name by a local path inside ``base``."""
    folders: list[Path] = []
    for manifest in profile.storage.marketplace_manifests:
        data = _read_json(base / manifest, base, found)
        plugins = data.get("plugins") if data is not None else None
        for plugin in plugins if isinstance(plugins, list) else []:
            source = plugin.get("source") if isinstance(plugin, dict) else None
            if isinstance(source, dict) and source.get("source") == "local":
                source = source.get("path")
            if isinstance(source, str) and source.startswith("./"):
                folder = base / source
                if folder.is_dir() and _inside(folder, base):
                    folders.append(folder)
    return folders


def plugin_markers(base: Path, profile: AgentProfile) -> list[Path]:
    """Plugin folders holding a manifest: ``base`` itself, a folder below it, or two below."""
    manifests = profile.storage.plugin_manifests
    if not manifests:
        return []

    def has_manifest(folder: Path) -> bool:
        return any(fileio.is_regular(folder / m) for m in manifests)

    found = [base] if has_manifest(base) else []
    for child in _subfolders(base):
        if has_manifest(child):
            found.append(child)
            continue
        found += [g for g in _subfolders(child) if has_manifest(g)]
    return found


def _plugins(base: Path, profile: AgentProfile, found: Found) -> list[Path]:
    """Every plugin folder of ``base`` (see the module doc), in path order."""
    marked = plugin_markers(base, profile)
    folders = set(marked) | set(_local_sources(base, profile, found))
    for container in {p.parent for p in marked if p != base}:  # their siblings with skills/
        folders |= {s for s in _subfolders(container) if (s / SKILLS_DIR).is_dir() and s != base}
    return sorted(folders)


def _plugin_roots(folder: Path, base: Path, profile: AgentProfile, found: Found) -> Iterator[Root]:
    """A plugin's skill roots, namespaced by its name."""
    data: dict[str, object] | None = None
    for manifest in profile.storage.plugin_manifests:
        data = _read_json(folder / manifest, base, found)
        if data is not None:
            break
    name = data.get("name") if data is not None else None
    namespace = name if isinstance(name, str) and name.strip() and "/" not in name \
        and "\\" not in name else folder.name
    listed = data.get("skills") if data is not None else None
    paths = [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else None
    dirs = [p for p in paths or [] if isinstance(p, str) and p.startswith("./")
            and ".." not in Path(p).parts] or list(profile.storage.plugin_skill_dirs)
    for rel in dirs:
        root = Path(os.path.normpath(folder / rel))
        if root.is_dir() and _inside(root, base):
            yield Root(root, "plugin", namespace.strip())


def project_roots(base: Path, profile: AgentProfile) -> Found:
    """The roots of ``base`` (see the module doc); none of the user's."""
    found = Found()
    found.roots = [Root(base / m, "project") for m in profile.storage.project_roots if (base / m).is_dir()]
    for plugin in _plugins(base, profile, found):
        found.roots += [r for r in _plugin_roots(plugin, base, profile, found)
                        if r.path not in {x.path for x in found.roots}]
    if not found.roots:
        found.roots = [Root(base / SKILLS_DIR if (base / SKILLS_DIR).is_dir() else generic_root(base),
                            "project")]
    return found


def _expand(pattern: str, home: Path) -> list[Path]:
    """``~/a/*/b`` below ``home``: each '*' is any real subfolder (sorted)."""
    parts = Path(pattern.removeprefix("~/")).parts if pattern.startswith("~/") else Path(pattern).parts
    folders = [home if pattern.startswith("~/") else Path(parts[0])]
    for part in parts if pattern.startswith("~/") else parts[1:]:
        folders = [s for f in folders for s in _subfolders(f)] if part == "*" else \
            [f / part for f in folders]
    return [f for f in folders if f.is_dir()]


def home_roots(profile: AgentProfile, home: Path | None = None) -> list[Root]:
    """The profile's user-scope roots that exist below ``home`` (None: the real home)."""
    home = home if home is not None else Path.home()
    roots = [Root(p, "user") for pattern in profile.storage.user_roots for p in _expand(pattern, home)]
    roots += [Root(p, "extension") for pattern in profile.storage.extension_roots
              for p in _expand(pattern, home)]
    return roots


def discover(base: Path, profile: AgentProfile, home: Path | None, include_user: bool,
             project: list[Root] | None = None) -> Found:
    """Every root of ``base`` for ``profile`` in precedence order (``project``: the project roots
    already found), with the user's when ``include_user``."""
    found = project_roots(base, profile) if project is None else Found(list(project))
    if include_user:
        seen = {r.path for r in found.roots}
        user = [r for r in home_roots(profile, home) if r.path not in seen]
        first = profile.storage.precedence is Precedence.USER_FIRST
        found.roots = [*user, *found.roots] if first else [*found.roots, *user]
    return found
