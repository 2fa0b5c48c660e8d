"""Convert a library between formats, with a loss report and lossless round trips (formats.md §G).

Every target is written from a canonical view of each skill (:class:`SourceSkill`). What a
target cannot hold goes into a sidecar (§G.3): ``<skill folder>/.skillgui.json`` for SKILL.md
targets, ``<agent>/.skillgui/<name>.skillgui.json`` for RockBot (never inside ``skills/``, which
RockBot loads wholesale). A sidecar records the SHA-256 of the file it describes; when it still
matches, converting back restores the original exactly (a SKILL.md byte for byte, from its
recorded head, body separator, line endings and BOM). When the file changed since, its own
fields win and the sidecar supplies only what the format cannot hold, with a note.

The source is untrusted: nothing is followed out of the library. A resource that is a FIFO,
device, folder link or dangling link, or a symbolic link whose target resolves outside the
library's folders (a RockBot ``skills/`` and ``.skillgui/``, or the SKILL.md roots), is not
copied and gets a warning in the loss report; a link resolving inside the library is copied as a
regular file holding its target's bytes (as before). A skill file that links outside the library
is not converted (it is listed with the problems). The output is built in a hidden staging folder
beside ``dest`` (``.<dest>.<pid>-<hex>.rsg-tmp``, marked by a file in it) and renamed into place;
a staging folder left by a killed conversion is removed by the next conversion into the same
parent folder once its process is gone.

The parts: :mod:`~rockskills_gui.core.library.convert.source` (the canonical view, sidecars,
reading a library), :mod:`~rockskills_gui.core.library.convert.write` (one skill in a target
format) and :mod:`~rockskills_gui.core.library.convert.resources` (RockBot (current)
resources); this module converts a whole library through a staging folder.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.convert.resources import (
    EXTENSION_TYPES,
    TYPE_DIRS,
    resource_dir_for,
    resource_type_for,
)
from rockskills_gui.core.library.convert.source import (
    ROCKBOT_RESOURCES_DIR,
    ROCKBOT_SIDECAR_DIR,
    SIDECAR_VERSION,
    Loss,
    RockbotResource,
    SourceSkill,
    apply_sidecar,
    library_boundary,
    make_sidecar,
    read_sidecar,
    sidecar_bytes,
    source_skills,
)
from rockskills_gui.core.library.convert.write import (
    SLUG_MAX,
    folder_name,
    rockbot_name,
    slug,
    to_rockbot,
    to_skillmd,
)
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.library.skillmd.store import PROFILES
from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY_WORDS
from rockskills_gui.core.storage import fileio

# "rockbot": RockBot 64e82cc (resources go to .skillgui/resources/); "rockbot-current": RockBot
# (current), whose multi-file skills hold them in skills/{name}.resources/ with a manifest.
# The coding agents' SKILL.md formats (core/model/coding_agents.py) are targets of their own name.
AGENT_TARGETS = ("claude-code", "codex", "gemini-cli", "copilot", "cursor", "hermes")
TARGETS = ("rockbot", "rockbot-current", "agentskills", "picobot", "cortex-fs", *AGENT_TARGETS)
TARGET_PROFILE = {"agentskills": "agentskills", "picobot": "picobot", "cortex-fs": "cortex-fs",
                  **{t: t for t in AGENT_TARGETS}}
STAGING_MARK = "rockskills-convert-staging"  # the file that marks our staging folders
STAGING_PAYLOAD = "output"  # the folder inside the staging folder that becomes ``dest``

__all__ = [  # the conversion's public names (some defined in the modules above)
    "EXTENSION_TYPES", "ROCKBOT_RESOURCES_DIR", "ROCKBOT_SIDECAR_DIR", "ROCKBOT_SUMMARY_WORDS",
    "SIDECAR_VERSION", "SLUG_MAX", "STAGING_MARK", "STAGING_PAYLOAD", "TARGETS", "TARGET_PROFILE",
    "TYPE_DIRS", "ConvertError", "ConvertResult", "Loss", "RockbotResource", "SourceSkill",
    "apply_sidecar", "convert", "folder_name", "library_boundary", "make_sidecar", "read_sidecar",
    "remove_stale_staging", "resource_dir_for", "resource_type_for", "rockbot_name",
    "sidecar_bytes", "slug", "source_skills",
]


class ConvertError(Exception):
    """Conversion refused (destination not empty, unknown target); nothing was written."""


@dataclass
class ConvertResult:
    target: str
    dest: Path
    written: list[str] = field(default_factory=list)  # skill names as written
    losses: list[Loss] = field(default_factory=list)
    not_converted: list[str] = field(default_factory=list)  # "path: kind: message"

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "dest": str(self.dest), "written": self.written,
                "losses": [x.as_json() for x in self.losses], "notConverted": self.not_converted}


# ---------------------------------------------------------------- whole library


def convert(lib: Library, dest: Path, target: str) -> ConvertResult:
    """Write ``lib``'s skills as a new ``target`` library at ``dest`` (new or empty folder)."""
    if target not in TARGETS:
        raise ConvertError(f"unknown target '{target}' (one of {', '.join(TARGETS)})")
    if not isinstance(lib, RockBotLibrary | SkillMdLibrary):  # (the formats this package reads)
        raise ConvertError(f"{lib.agent_dir}: cannot convert a {lib.profile.title} library")
    dest = Path(dest).expanduser()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ConvertError(f"{dest}: already exists and is not an empty folder; nothing written")
    result = ConvertResult(target, dest)
    skipped: list[str] = []
    sources = source_skills(lib, skipped)
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(dest.parent)
    staging = _new_staging(dest)
    out_dir = staging / STAGING_PAYLOAD
    try:
        taken: set[str] = set()
        if target in ("rockbot", "rockbot-current"):
            (out_dir / "skills").mkdir()
            for source in sources:
                result.losses.extend(source.notes)
                result.written.append(to_rockbot(source, out_dir, taken, result.losses,
                                                  current=target == "rockbot-current"))
        else:
            profile = PROFILES[TARGET_PROFILE[target]]
            base = out_dir / {"cortex-fs": ".cortex/skills", "picobot": ".picobot/skills"}.get(target, "")
            base.mkdir(parents=True, exist_ok=True)
            for source in sources:
                result.losses.extend(source.notes)
                result.written.append(to_skillmd(source, profile, base, taken, result.losses))
        if dest.exists():
            dest.rmdir()
        out_dir.rename(dest)
        fileio.checkpoint()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)  # the marker file only
    for problem in lib.problems:
        result.not_converted.append(f"{problem.path}: {problem.kind.value}: {problem.message}")
    result.not_converted.extend(skipped)
    return result


def _new_staging(dest: Path) -> Path:
    """A fresh staging folder beside ``dest`` (named after it and this process), marked as ours,
    with an empty ``output/`` folder that becomes ``dest``."""
    staging = fileio.temp_path_for(dest)
    staging.mkdir()
    (staging / STAGING_MARK).write_bytes(b"")
    (staging / STAGING_PAYLOAD).mkdir()
    return staging


def remove_stale_staging(folder: Path) -> list[Path]:
    """Remove the staging folders in ``folder`` that a conversion killed before it finished left
    behind (marked as ours, and their process is gone); returns those removed."""
    removed: list[Path] = []
    try:
        with os.scandir(folder) as listing:
            entries = [e for e in listing if fileio.is_temp_name(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return removed
    for entry in entries:
        path = Path(entry.path)
        if fileio.is_regular(path / STAGING_MARK) and not (path / STAGING_MARK).is_symlink() \
                and fileio.stale_temp(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
