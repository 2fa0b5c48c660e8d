"""Which skills an agent has switched off, read from the agent's own settings (its profile's
``curation.disable`` switches) and from the folders skills were moved aside to.

Read only (the writers: ``core/machine/switches.py``). Settings files are untrusted: read only
when regular and below :data:`DOCUMENT_MAX_BYTES`; one that cannot be read or parsed is named in
:attr:`Disabled.errors` and taken as switching nothing off (it is never written over).

- JSON_NAME_LIST (Gemini CLI ``skills.disabled``): names, case-insensitive; every scope's file
  counts (settings merge the lists, UNION).
- JSON_NAME_MAP (Claude Code ``skillOverrides``): ``"off"`` switches a skill off,
  ``"user-invocable-only"`` hides it from Claude's listing (both count here).
- TOML_PATH_TABLES (Codex ``[[skills.config]]``): ``path`` (the SKILL.md) or ``name`` with
  ``enabled``; a later entry for the same selector wins.
- YAML_NAME_LIST (Hermes ``skills.disabled``): names; a JSON string of a list is read too.
- MOVE: a skill found in ``<root>.disabled/`` (:data:`~rockskills_gui.core.model.profile.MOVE_ASIDE`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profile import MOVE_ASIDE, AgentProfile, DisableSwitch, SwitchKind
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio, untrusted

__all__ = ["CLAUDE_HIDDEN", "Disabled", "aside_of", "read_disabled", "read_settings", "switch_path",
           "unaside_of"]

CLAUDE_HIDDEN = ("off", "user-invocable-only")  # skillOverrides values that keep a skill out of the listing
ASIDE_SUFFIX = MOVE_ASIDE.file.removeprefix("{root}")  # ".disabled"


def aside_of(root: Path) -> Path:
    """Where ``root``'s skills go when moved aside (``<root>.disabled``)."""
    return Path(MOVE_ASIDE.file.format(root=os.fspath(root)))


def unaside_of(folder: Path) -> Path | None:
    """The skills root whose aside folder ``folder`` is (None: it is not one)."""
    name = folder.name
    if name.endswith(ASIDE_SUFFIX) and len(name) > len(ASIDE_SUFFIX):
        return folder.with_name(name[: -len(ASIDE_SUFFIX)])
    return None


def switch_path(switch: DisableSwitch, home: Path | None, project: Path | None) -> Path | None:
    """The settings file ``switch`` is written in: below ``home`` for "~/...", below ``project``
    otherwise (None: that folder is not known, or the switch is no settings file)."""
    if switch.kind in (SwitchKind.MOVE, SwitchKind.SKILL_FIELD):
        return None
    if switch.file.startswith("~/"):
        return home / switch.file[2:] if home is not None else None
    return project / switch.file if project is not None else None


def read_settings(path: Path, kind: SwitchKind) -> Any:
    """The parsed settings file (None when absent; raises ValueError naming what is wrong)."""
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        raw = fileio.read_regular(path, DOCUMENT_MAX_BYTES)
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({untrusted.reason(path, exc)})") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text") from exc
    try:
        if kind in (SwitchKind.JSON_NAME_LIST, SwitchKind.JSON_NAME_MAP):
            data: Any = json.loads(text) if text.strip() else {}
        elif kind is SwitchKind.TOML_PATH_TABLES:
            import tomllib

            data = tomllib.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text) if text.strip() else {}
    except (ValueError, RecursionError) as exc:  # json, tomllib and yaml errors are ValueErrors or YAMLError
        raise ValueError(f"{path}: not valid {_format(kind)} ({str(exc).splitlines()[0]})") from exc
    except Exception as exc:  # yaml.YAMLError
        raise ValueError(f"{path}: not valid {_format(kind)} ({str(exc).splitlines()[0]})") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the settings are not a {_format(kind)} object/table")
    return data


def _format(kind: SwitchKind) -> str:
    return {SwitchKind.TOML_PATH_TABLES: "TOML", SwitchKind.YAML_NAME_LIST: "YAML"}.get(kind, "JSON")


def _dig(data: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _names(value: Any) -> list[str]:
    if isinstance(value, str):  # Hermes: `hermes config set` may store a JSON string of a list
        try:
            value = json.loads(value)
        except ValueError:
            value = [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


@dataclass
class Disabled:
    """What one agent has switched off: by name (folded), by SKILL.md path, each with where."""

    names: dict[str, str] = field(default_factory=dict)  # folded name -> where it is switched off
    paths: dict[str, str] = field(default_factory=dict)  # real SKILL.md path -> where
    enabled_paths: set[str] = field(default_factory=set)  # explicitly on (Codex: a later entry)
    errors: list[str] = field(default_factory=list)  # settings files that could not be read

    def why(self, name: str, skill_file: Path | None = None) -> str:
        """Where the skill is switched off ("" : it is not)."""
        if skill_file is not None:
            real = untrusted.real(skill_file)
            if real in self.paths:
                return self.paths[real]
            if real in self.enabled_paths:
                return ""
        return self.names.get(fold(name), "")


def _read_one(switch: DisableSwitch, path: Path, found: Disabled) -> None:
    try:
        data = read_settings(path, switch.kind)
    except ValueError as exc:
        found.errors.append(str(exc))
        return
    if data is None:
        return
    where = f"{path} ({switch.key})"
    if switch.kind is SwitchKind.JSON_NAME_LIST or switch.kind is SwitchKind.YAML_NAME_LIST:
        for name in _names(_dig(data, switch.key)):
            found.names.setdefault(fold(name), where)
    elif switch.kind is SwitchKind.JSON_NAME_MAP:
        overrides = _dig(data, switch.key)
        for name, value in (overrides.items() if isinstance(overrides, dict) else ()):
            if isinstance(name, str) and value in CLAUDE_HIDDEN:
                found.names.setdefault(fold(name), f"{where}: \"{value}\"")
    elif switch.kind is SwitchKind.TOML_PATH_TABLES:
        entries = _dig(data, "skills.config")
        by_name: dict[str, bool] = {}
        by_path: dict[str, bool] = {}
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("enabled"), bool):
                continue
            selector_path, selector_name = entry.get("path"), entry.get("name")
            if isinstance(selector_path, str) and selector_name is None:
                by_path[untrusted.real(selector_path)] = entry["enabled"]
            elif isinstance(selector_name, str) and selector_path is None:
                by_name[fold(selector_name)] = entry["enabled"]
        for key, on in by_name.items():
            if not on:
                found.names.setdefault(key, where)
        for key, on in by_path.items():
            if on:
                found.enabled_paths.add(key)
            else:
                found.paths.setdefault(key, where)


def read_disabled(profile: AgentProfile, home: Path | None, project: Path | None) -> Disabled:
    """What ``profile``'s agent has switched off in its settings files below ``home`` and
    ``project`` (either None: that scope's files are not read)."""
    found = Disabled()
    for switch in profile.curation.disable:
        path = switch_path(switch, home, project)
        if path is not None:
            _read_one(switch, path, found)
    return found
