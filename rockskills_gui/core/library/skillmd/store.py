"""SKILL.md skill trees: Agent Skills, and the PicoBot, carpenter and CortexPrism-FS profiles.

A skill is a folder holding ``SKILL.md`` (or ``skill.md``); everything else in that folder is a
resource (listed, never run). A :class:`AgentProfile` holds one system's rules as settings; rules the
public code could not confirm (formats.md §A.1, §C.1) are named in ``AgentProfile.unverified`` so the
UI can label them "assumed". Loading is lenient (formats.md §D.2): a name/folder mismatch is a
warning, a file without a description (where the profile requires one) or with unparseable YAML
is skipped and listed with its reason.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.skillmd.profiles import (
    AGENT_SKILLS,
    CARPENTER,
    CORTEX_FS,
    PICOBOT,
    PROFILES,
    SEE_ALSO_KEY,
    SIDECAR_NAME,
    SKIP_DIRS,
    AgentProfile,
    Root,
)
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.problems import Problem, ProblemKind
from rockskills_gui.core.model.size_limits import FOLDER_MAX_DEPTH, SKILL_FILE_MAX_BYTES, too_large
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, folder_walk, untrusted
from rockskills_gui.core.storage.fileio import TEMP_SUFFIX

__all__ = [  # (the profiles and roots are defined in .skillmd_profiles)
    "AGENT_SKILLS",
    "CARPENTER",
    "CORTEX_FS",
    "PICOBOT",
    "PROFILES",
    "SEE_ALSO_KEY",
    "SIDECAR_NAME",
    "SKIP_DIRS",
    "AgentProfile",
    "Root",
    "SkillMdEntry",
    "agent_name",
    "display_path",
    "edited_bytes",
    "list_resources",
    "new_skill_bytes",
    "own_name_of",
    "qualified_name",
    "read_skill_md",
    "resource_warnings",
    "see_also_from",
    "walk_skill_folders",
    "with_new_body",
]

# ---------------------------------------------------------------- finding skill files

TOO_DEEP = Path("\0too-deep")  # walk_skill_folders' skill file for a folder it did not enter


def linked_skill_folder(path: Path, profile: AgentProfile) -> bool:
    """True for a symbolic link to a folder that holds a skill file: a skill shared by linking
    (installers link one copy into several agents' folders); read through the link, never
    searched further."""
    try:
        return os.path.islink(path) and any(os.path.isfile(path / n) for n in profile.storage.file_names)
    except (OSError, ValueError):
        return False


def walk_skill_folders(start: Path, parts: tuple[str, ...],
                       profile: AgentProfile) -> Iterator[tuple[Path, Path | None, tuple[str, ...]]]:
    """``(skill folder, SKILL.md path or None, its folder names below the root)`` breadth-first
    from ``start`` (whose names below the root are ``parts``; ``()`` for the root itself), names
    sorted in each folder: so in the order of ``(len(parts), parts)``.

    A folder holding a skill file is a skill and is not searched further (its contents are
    resources). ``None`` marks a folder that only holds a disabled ``SKILL.md.disabled``.
    Symlinked folders are not followed, except a link to a skill's folder
    (:func:`linked_skill_folder`), read as that skill; ``.git``, ``node_modules`` and similar
    are skipped. A
    skill file name that is not a regular file (a FIFO, a folder, a dangling link) still marks a
    skill folder, so that reading it reports the reason. A folder more than ``FOLDER_MAX_DEPTH``
    levels below the root is not entered: it comes with :data:`TOO_DEEP` for its skill file.
    """
    queue: deque[tuple[Path, tuple[str, ...]]] = deque([(start, parts)])
    while queue:
        folder, parts = queue.popleft()
        if len(parts) > FOLDER_MAX_DEPTH:
            yield folder, TOO_DEEP, parts
            continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        files = {e.name: e for e in entries if _is_file(e)}
        if parts:
            found = next((files[n] for n in profile.storage.file_names if n in files), None)
            if found is None:  # a FIFO, folder or dangling link under a skill file's name
                named = {e.name: e for e in entries}
                found = next((named[n] for n in profile.storage.file_names if n in named), None)
            if found is not None:
                yield folder, Path(found.path), parts
                continue
            if any(n + ".disabled" in files for n in profile.storage.file_names):
                yield folder, None, parts
                continue
        if not parts or profile.storage.recursive:
            for e in entries:
                if e.name in SKIP_DIRS:
                    continue
                if _is_dir(e) or (e.is_symlink() and linked_skill_folder(Path(e.path), profile)):
                    queue.append((Path(e.path), (*parts, e.name)))


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def list_resources(folder: Path, skill_file: Path) -> tuple[str, ...]:
    """Every other file in a skill folder, '/'-separated and sorted (sidecar and temp files excluded).

    Symbolic links (to files or folders, or dangling) and FIFOs are listed too, never followed:
    see :func:`resource_warnings`.
    """
    found: list[str] = []
    for dirpath, dirnames, filenames in folder_walk.walk(folder):
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d not in links)
        for name in sorted([*filenames, *links]):
            path = Path(dirpath) / name
            if path == skill_file or name == SIDECAR_NAME or name.endswith(TEMP_SUFFIX):
                continue
            found.append(path.relative_to(folder).as_posix())
    return tuple(sorted(found))


def resource_warnings(folder: Path, resources: tuple[str, ...], boundary: tuple[Path, ...],
                      base: Path) -> list[Problem]:
    """Warnings for resources that are not regular files inside the library: FIFOs, devices,
    dangling links, links to folders, links leaving ``boundary`` (never read, copied or moved)."""
    warnings: list[Problem] = []
    for rel in resources:
        path = folder / rel
        why = untrusted.not_regular(path)
        kind = ProblemKind.UNREADABLE
        if why is None and untrusted.leaves(path, boundary):
            why = f"a symbolic link leading outside the library (to {untrusted.link_target(path)})"
            kind = ProblemKind.OUTSIDE_LINK
        if why is not None:
            warnings.append(Problem(
                path=display_path(base, path), kind=kind, severity="warning",
                message=f"resource is {why}; it is never read: convert skips it, and rename "
                        "and delete refuse this skill until it is moved away"))
    return warnings


# ---------------------------------------------------------------- one file


@dataclass(frozen=True)
class SkillMdEntry:
    """A loaded SKILL.md: its file, bytes, parts, parsed frontmatter and the Skill view of it.

    ``skill.content`` is the body without its leading blank lines (``body_prefix``), with CRLF
    turned into LF when the whole file uses CRLF (``newline``); writing puts both back.
    """

    root: Root
    folder: Path
    path: Path
    raw: bytes
    doc: fm.Document
    frontmatter: fm.Frontmatter
    skill: Skill
    body_prefix: str
    newline: str
    resources: tuple[str, ...] = ()
    warnings: tuple[Problem, ...] = ()
    name_from_folder: bool = False
    read_only: bool = False
    stats: dict[str, Any] = field(default_factory=dict)
    own_name: str = ""  # the skill's own name (frontmatter, or folder); ``skill.name`` adds the path
    agent_name: str = ""  # what the profile's agent calls it ("<plugin>:<name>" in a plugin)

    @property
    def values(self) -> dict[str, Any]:
        return self.frontmatter.values

    @property
    def prefix(self) -> str:
        """The plugin and category folders before the skill's own name ("" at a root's top)."""
        name = self.skill.name
        return name[:len(name) - len(self.own_name) - 1] if name != self.own_name else ""

    @property
    def rel_folder(self) -> str:
        return self.folder.relative_to(self.root.path).as_posix()

    def file_line(self, key: str) -> int | None:
        """1-based line of a frontmatter key in the file."""
        line = self.frontmatter.line_of(key)
        return None if line is None else line + 2


def _mtime(path: Path) -> Timestamp:
    try:
        seconds = path.stat().st_mtime
    except OSError:
        seconds = 0.0
    return Timestamp.from_datetime(datetime.fromtimestamp(seconds, UTC))


def see_also_from(values: dict[str, Any]) -> tuple[str, ...] | None:
    """``metadata.see-also`` as names (comma- or whitespace-separated string, or a list)."""
    metadata = values.get("metadata")
    if not isinstance(metadata, dict) or SEE_ALSO_KEY not in metadata:
        return None
    raw = metadata[SEE_ALSO_KEY]
    if isinstance(raw, list):
        return tuple(str(x) for x in raw)
    if raw is None:
        return ()
    return tuple(x for x in re.split(r"[,\s]+", str(raw)) if x)


def _file_line(parsed: fm.Frontmatter, key: str) -> int:
    line = parsed.line_of(key)
    return 1 if line is None else line + 2


def read_skill_md(root: Root, path: Path, profile: AgentProfile, display: str,
                  boundary: tuple[Path, ...] | None = None,
                  base: Path | None = None) -> SkillMdEntry | Problem:
    """Read one SKILL.md; a reason not to load it becomes a :class:`Problem` (``display``: its path).

    ``boundary`` (default: the root) are the folders of the library: a SKILL.md or resource
    linking outside them gets a warning; ``base`` is what resource paths are shown relative to.
    """
    boundary = boundary if boundary is not None else (root.path,)
    try:
        raw = fileio.read_regular(path, SKILL_FILE_MAX_BYTES)  # never blocks on a FIFO
    except OSError as exc:
        if isinstance(exc, fileio.TooLarge):
            return Problem(path=display, kind=ProblemKind.TOO_LARGE,
                           message=too_large(exc.size, exc.limit, "not loaded"))
        if isinstance(exc, fileio.NotRegularFile) and exc.kind == "folder" and not path.is_symlink():
            return Problem(path=display, kind=ProblemKind.NOT_A_FILE,
                           message=f"a folder named {path.name}: the skill folder has no skill "
                                   "file, so the skill is not loaded")
        return Problem(path=display, kind=ProblemKind.UNREADABLE,
                       message=f"cannot read the file: {untrusted.reason(path, exc)}")
    try:
        doc = fm.split_document(raw)
    except UnicodeDecodeError as exc:
        return Problem(path=display, kind=ProblemKind.INVALID_UTF8,
                       message=f"the file is not valid UTF-8 (byte {exc.start}); it is left alone")
    if not doc.has_frontmatter:
        return Problem(path=display, kind=ProblemKind.NO_FRONTMATTER, line=1,
                       message="no YAML frontmatter: line 1 must be '---' and a closing '---' "
                               "line must follow")
    try:
        parsed = fm.parse_frontmatter(doc.frontmatter)
    except fm.FrontmatterError as exc:
        kind = ProblemKind.TOO_LARGE if exc.kind == "too-large" else ProblemKind.PARSE_ERROR
        return Problem(path=display, kind=kind, message=str(exc), line=exc.line)
    values = parsed.values
    folder = path.parent
    warnings: list[Problem] = []
    for number in parsed.repaired_lines:
        warnings.append(Problem(
            path=display, kind=ProblemKind.PARSE_ERROR, severity="warning", line=number + 2,
            message="unquoted ': ' in a value: strict YAML readers reject this file; loaded by "
                    "quoting the value (quote it in the file)"))
    name_value = values.get("name")
    if profile.names.strings_only and not (isinstance(name_value, str)
                                           and isinstance(values.get("description"), str)):
        return Problem(path=display, kind=ProblemKind.INVALID_NAME, line=1,
                       message=f"{profile.label} skips this file: its 'name' and 'description' must "
                               "both be strings")
    from_folder = False
    if isinstance(name_value, str) and name_value.strip():
        name = name_value
    elif name_value not in (None, "") and not isinstance(name_value, (dict, list)):
        name = str(name_value)
        warnings.append(Problem(path=display, kind=ProblemKind.INVALID_NAME, severity="warning",
                                line=_file_line(parsed, "name"), name=name,
                                message=f"'name' is not a string ({type(name_value).__name__})"))
    elif profile.names.require_name:
        return Problem(path=display, kind=ProblemKind.MISSING_NAME, line=1,
                       message=f"no 'name' in the frontmatter ({profile.label} requires one)")
    else:
        name = folder.name
        from_folder = True
        warnings.append(Problem(path=display, kind=ProblemKind.MISSING_NAME, severity="warning",
                                line=1, name=name,
                                message=f"no 'name' in the frontmatter; using the folder name '{name}'"))
    description = values.get("description")
    if description is None or (isinstance(description, str) and not description.strip()):
        if profile.summary.required:
            said = f" ({profile.label}: {profile.names.missing_description})" \
                if profile.names.missing_description else ""
            return Problem(path=display, kind=ProblemKind.MISSING_DESCRIPTION, name=name,
                           line=_file_line(parsed, "description"),
                           message=f"no description: agents skip a skill without one{said}")
        description = "" if description is None else description
    elif not isinstance(description, str):
        warnings.append(Problem(path=display, kind=ProblemKind.PARSE_ERROR, severity="warning",
                                line=_file_line(parsed, "description"), name=name,
                                message="'description' is not a string; read as text"))
        description = str(description)
    agent = agent_name(root, name, profile)
    refused = _refused(agent, description, profile)
    if refused:
        return Problem(path=display, kind=ProblemKind.INVALID_NAME, name=agent, line=1,
                       message=f"{profile.label} does not load it: {refused}")
    if untrusted.leaves(path, boundary):
        warnings.append(Problem(
            path=display, kind=ProblemKind.OUTSIDE_LINK, severity="warning", name=name,
            message=f"a symbolic link leading outside the library (to {untrusted.link_target(path)}); "
                    "loaded, but never written through or converted"))
    resources = list_resources(folder, path)
    shown_base = base if base is not None else root.path
    warnings.extend(resource_warnings(folder, resources, boundary, shown_base))
    prefix, content, newline = _body_of(doc)
    stamp = _mtime(path)
    skill = Skill.model_construct(name=qualified_name(root, folder, name), summary=description,
                                  content=content, created_at=stamp, updated_at=stamp,
                                  last_used_at=None, see_also=see_also_from(values))
    return SkillMdEntry(root=root, folder=folder, path=path, raw=raw, doc=doc, frontmatter=parsed,
                        skill=skill, body_prefix=prefix, newline=newline,
                        resources=resources, warnings=tuple(warnings),
                        name_from_folder=from_folder, own_name=name, agent_name=agent)


def qualified_name(root: Root, folder: Path, own: str) -> str:
    """What the library calls a skill named ``own`` in ``folder`` below ``root``: its plugin and
    the category folders above its own folder, then its name (``plugin/category/name``), so that
    the tree shows plugins and categories as folders."""
    try:
        categories = folder.relative_to(root.path).parts[:-1]
    except ValueError:
        categories = ()
    return "/".join([*([root.namespace] if root.namespace else []), *categories, own])


def agent_name(root: Root, own: str, profile: AgentProfile) -> str:
    """What the profile's agent calls the skill: ``<plugin>:<name>`` in a plugin, with the
    characters it replaces made '-'."""
    rules = profile.names
    if rules.replaced_chars:
        own = "".join("-" if c in rules.replaced_chars else c for c in own)
    return f"{root.namespace}{rules.namespace_separator}{own}" if root.namespace else own


def _refused(agent: str, description: object, profile: AgentProfile) -> str:
    """The agent's own message for a name or description it refuses ("" when it loads them)."""
    rules = profile.names
    for field_name, value, limit in (("name", agent, rules.max_length),
                                     ("description", description, rules.description_max)):
        if limit is not None and isinstance(value, str) and len(value) > limit:
            return rules.too_long.format(field=field_name, limit=limit) or \
                f"its {field_name} is longer than {limit} characters"
    return ""


def own_name_of(entry: SkillMdEntry, name: str) -> str:
    """The own name a skill of ``entry`` has when the library calls it ``name``: its last '/'
    segment (the rest are its plugin and categories), or all of it for an entry whose own name
    already holds a '/' (a name this app never splits)."""
    if name == entry.skill.name:
        return entry.own_name
    return name if "/" in entry.own_name else name.rpartition("/")[2]


def _body_of(doc: fm.Document) -> tuple[str, str, str]:
    """(leading blank lines, content with LF line breaks, the file's newline)."""
    prefix, content = fm.split_body(doc.body)
    newline = "\r\n" if fm.uses_crlf(doc.text) else "\n"
    if newline == "\r\n":
        content = fm.to_lf(content)
    return prefix, content, newline


def with_new_body(entry: SkillMdEntry, raw: bytes) -> SkillMdEntry | None:
    """What :func:`read_skill_md` makes of ``raw`` just written to ``entry.path``, without parsing
    the YAML again: only when ``raw`` keeps ``entry``'s frontmatter text exactly (else None).

    Everything else a read derives (name, description, warnings, resources) comes from the
    frontmatter, the path and the folder, which a body edit leaves alone.
    """
    try:
        doc = fm.split_document(raw)
    except UnicodeDecodeError:
        return None
    old = entry.doc
    if (doc.bom, doc.open_line, doc.frontmatter, doc.close_line) != \
            (old.bom, old.open_line, old.frontmatter, old.close_line) or not doc.has_frontmatter:
        return None
    prefix, content, newline = _body_of(doc)
    stamp = _mtime(entry.path)
    skill = entry.skill.model_copy(update={"content": content, "created_at": stamp,
                                           "updated_at": stamp})
    return dataclasses.replace(entry, raw=raw, doc=doc, skill=skill, body_prefix=prefix,
                               newline=newline)


# ---------------------------------------------------------------- writing


def edited_bytes(entry: SkillMdEntry, skill: Skill, profile: AgentProfile) -> bytes:
    """``entry``'s file with only what differs between ``entry.skill`` and ``skill`` rewritten."""
    old = entry.skill
    changes: dict[str, Any] = {}
    own = own_name_of(entry, skill.name)
    if own != entry.own_name and not (entry.name_from_folder and own == entry.folder.name):
        changes["name"] = own
    if (skill.summary or "") != (old.summary or ""):
        changes["description"] = skill.summary or ""
    if skill.see_also != old.see_also:
        metadata = entry.values.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
        if skill.see_also is None:
            metadata.pop(SEE_ALSO_KEY, None)
        else:
            metadata[SEE_ALSO_KEY] = ", ".join(skill.see_also)
        changes["metadata"] = metadata if metadata else fm.DELETE
    doc = entry.doc
    if changes:
        doc = doc.with_parts(frontmatter=fm.edit_frontmatter(doc.frontmatter, changes, doc.newline,
                                                             profile.storage.frontmatter.plain))
    if (skill.content or "") != (old.content or ""):
        body = fm.to_newline(skill.content or "", entry.newline)
        doc = doc.with_parts(body=entry.body_prefix + body)
    return entry.raw if doc == entry.doc else doc.to_bytes()


def new_skill_bytes(skill: Skill, profile: AgentProfile, extra: dict[str, Any] | None = None) -> bytes:
    """A fresh SKILL.md for ``skill`` written the profile's way (``extra``: further keys)."""
    values: dict[str, Any] = {"name": skill.name, "description": skill.summary or ""}
    for key, value in (extra or {}).items():
        values[key] = value
    keys = profile.storage.frontmatter.export_keys
    if skill.see_also is not None and (keys is None or "metadata" in keys):
        metadata = dict(values.get("metadata") or {})
        metadata[SEE_ALSO_KEY] = ", ".join(skill.see_also)
        values["metadata"] = metadata
    if keys is not None:
        values = {k: v for k, v in values.items() if k in keys}
    return fm.render_document(values, skill.content or "", "\n", profile.storage.frontmatter.plain).to_bytes()


# ---------------------------------------------------------------- showing paths


def display_path(base: Path, path: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)
