"""User settings for a SKILL.md profile: overrides (typed values or ``KEY=VALUE`` text) turned into
a checked :class:`~rockskills_gui.core.model.profile.AgentProfile`.

A setting is a flat key (``project_roots``, ``max_index_chars``, ...) naming one value of the
profile's capabilities (:data:`SETTING_PATHS`: ``storage.project_roots``,
``listing.max_chars``, ...). Any of them can be overridden, but the ones meant to be adjusted are
the profile's ``unverified`` settings: for PicoBot and carpenter they come from a brief, not from
public code (formats.md §A.1, §C.1). Values are typed by the setting; as text, lists are
comma-separated, numbers are whole, ``true``/``false``, and ``none`` clears an optional setting.

Persisted overrides are kept per profile id (``picobot``, ``carpenter``, ``agentskills``,
``cortex-fs``) as JSON values (:func:`normalize_overrides`), in the user's settings
(:mod:`rockskills_gui.core.app.settings`); the CLI applies its ``--profile-set`` items on top.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.profiles import SKILL_MD_PROFILES as PROFILES
from rockskills_gui.core.storage.changes import LibraryError

# Each setting (its key in the user's settings, on the command line and in Preferences) and the
# value of the profile it sets, in the order the settings are listed.
SETTING_PATHS: dict[str, tuple[str, ...]] = {
    "file_names": ("storage", "file_names"),
    "require_description": ("summary", "required"),
    "require_name": ("names", "require_name"),
    "recursive": ("storage", "recursive"),
    "resource_dirs": ("storage", "resource_dirs"),
    "export_keys": ("storage", "frontmatter", "export_keys"),
    "plain": ("storage", "frontmatter", "plain"),
    "description_limit": ("summary", "limit"),
    "compatibility_limit": ("storage", "frontmatter", "compatibility_limit"),
    "spec_names": ("names", "spec"),
    "allowed_keys": ("storage", "frontmatter", "allowed_keys"),
    "project_roots": ("storage", "project_roots"),
    "user_roots": ("storage", "user_roots"),
    "max_index_chars": ("listing", "max_chars"),
    "max_listed_skills": ("listing", "max_entries"),
}
PLAIN_STYLES = ("yaml", "line")
ASSUMED_NOTE = "assumed: not confirmed from public code"

# What each setting the Preferences dialog shows does (text for titles and tooltips).
SETTING_HELP: dict[str, tuple[str, str]] = {
    "require_description": ("Require a description",
                            "Skip (but list as a problem) a skill whose frontmatter has no description."),
    "require_name": ("Require a name",
                     "Skip a skill with no frontmatter name; otherwise the folder name is used."),
    "max_index_chars": ("Index length limit",
                        "Cut the skill index to this many characters (none: no limit)."),
    "max_listed_skills": ("Listed skills limit",
                          "List at most this many skills in the index (none: no limit)."),
    "project_roots": ("Project skill folders",
                      "Folders under the opened folder that hold skill folders, comma-separated; "
                      "those that exist are read."),
    "user_roots": ("User skill folders",
                   "Folders in your home that hold skill folders, comma-separated; read when "
                   "user-scope skill folders are included."),
    "file_names": ("Skill file names",
                   "Names of a skill folder's skill file, comma-separated, in order of preference."),
    "resource_dirs": ("Resource folders",
                      "Folders beside the skill file listed as its resources, comma-separated."),
    "description_limit": ("Description length limit",
                          "Warn about a longer description (none: no limit)."),
}

JsonValue = str | bool | int | list[str] | None
Override = str | bool | int | list[str] | tuple[str, ...] | None


class ProfileSettingError(LibraryError):
    """An override that names no setting or has a value of the wrong kind (one-line message)."""


def settings() -> dict[str, object]:
    """Each adjustable setting and its type."""
    found: dict[str, object] = {}
    for key, path in SETTING_PATHS.items():
        kind: Any = AgentProfile
        for part in path:
            kind = typing.get_type_hints(kind)[part]
        found[key] = kind
    return found


def setting_value(profile: AgentProfile, key: str) -> object:
    """The value setting ``key`` has in ``profile``."""
    value: object = profile
    for part in SETTING_PATHS[key]:
        value = getattr(value, part)
    return value


def _with_value(owner: Any, path: tuple[str, ...], value: object) -> Any:
    if len(path) == 1:
        return dataclasses.replace(owner, **{path[0]: value})
    return dataclasses.replace(owner, **{path[0]: _with_value(getattr(owner, path[0]), path[1:], value)})


def _key(raw: str, known: Mapping[str, object]) -> str:
    key = raw.strip().replace("-", "_")
    if key not in known:
        raise ProfileSettingError(
            f"unknown profile setting {raw.strip()!r}: use one of {', '.join(sorted(known))}")
    return key


def _base(kind: object) -> tuple[object, bool]:
    """(the type without ``None``, whether ``None`` is allowed)."""
    args = typing.get_args(kind)
    optional = type(None) in args
    return (next((a for a in args if a is not type(None)), kind) if optional else kind), optional


def _value(key: str, kind: object, text: str) -> object:
    base, optional = _base(kind)
    word = text.strip().lower()
    if optional and (word == "none" or (not word and typing.get_origin(base) is not tuple)):
        return None
    if typing.get_origin(base) is tuple:
        return tuple(part.strip() for part in text.split(",") if part.strip())
    if base is bool:
        if text.strip().lower() not in ("true", "false"):
            raise ProfileSettingError(f"profile setting {key}: expected true or false, got {text!r}")
        return text.strip().lower() == "true"
    if base is int:
        try:
            return int(text)
        except ValueError:
            raise ProfileSettingError(
                f"profile setting {key}: expected a whole number, got {text!r}") from None
    return text.strip()


def _typed(key: str, kind: object, value: object) -> object:
    """``value`` (text, or a JSON-like value) as the setting's type; raises ProfileSettingError."""
    if isinstance(value, str):
        return _value(key, kind, value)
    base, optional = _base(kind)
    if value is None:
        if optional:
            return None
        raise ProfileSettingError(f"profile setting {key}: cannot be none")
    if typing.get_origin(base) is tuple and isinstance(value, list | tuple) \
            and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    if base is bool and isinstance(value, bool):
        return value
    if base is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    wanted = ("true or false" if base is bool else "a whole number" if base is int
              else "text" if base is str else "a list of text")
    raise ProfileSettingError(f"profile setting {key}: expected {wanted}"
                              f"{' or none' if optional else ''}, got {type(value).__name__}")


def _check(key: str, value: object) -> None:
    """Refuse values the loader cannot use."""
    if key == "file_names" and not value:
        raise ProfileSettingError("profile setting file_names: needs at least one file name")
    if key == "plain" and value not in PLAIN_STYLES:
        raise ProfileSettingError(f"profile setting plain: expected one of {', '.join(PLAIN_STYLES)}, "
                                  f"got {value!r}")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise ProfileSettingError(f"profile setting {key}: expected 0 or more, got {value}")


def apply_overrides(profile: AgentProfile, overrides: Mapping[str, Override]) -> AgentProfile:
    """``profile`` with ``overrides`` applied (raises ProfileSettingError naming the key).

    Keys are setting names (``-`` may stand for ``_``); values are typed (a list of text for a
    list setting, a bool, an int, ``None`` for an optional one) or text as on the command line.
    """
    known = settings()
    # Keyed by setting, so the value types differ per key; _typed checks each value against
    # its setting's type at run time, which a static type cannot say.
    changes: dict[str, Any] = {}
    for raw, value in overrides.items():
        if not isinstance(raw, str):
            raise ProfileSettingError(f"unknown profile setting {raw!r}")
        key = _key(raw, known)
        changes[key] = _typed(key, known[key], value)
        _check(key, changes[key])
    for key, value in changes.items():
        profile = _with_value(profile, SETTING_PATHS[key], value)
    return profile


def parse_settings(items: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` items as typed overrides (raises ProfileSettingError naming the key)."""
    known = settings()
    parsed: dict[str, Any] = {}
    for item in items:
        raw, sep, text = item.partition("=")
        if not sep:
            raise ProfileSettingError(f"profile setting {item!r}: use KEY=VALUE, KEY one of "
                                      f"{', '.join(sorted(known))}")
        key = _key(raw, known)
        parsed[key] = _value(key, known[key], text)
        _check(key, parsed[key])
    return parsed


def apply_settings(profile: AgentProfile, items: Iterable[str]) -> AgentProfile:
    """``profile`` with each ``KEY=VALUE`` of ``items`` applied (raises ProfileSettingError)."""
    return apply_overrides(profile, parse_settings(items))


def to_json(value: object) -> JsonValue:
    """A setting's value as JSON (tuples become lists)."""
    return list(value) if isinstance(value, tuple) else value  # type: ignore[return-value]


def to_text(value: object) -> str:
    """A setting's value as the text :func:`parse_settings` reads back."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def normalize_overrides(data: Mapping[str, Mapping[str, Override]]) -> dict[str, dict[str, JsonValue]]:
    """Checked per-profile overrides as JSON values, keeping only those that differ from the
    profile's defaults (raises ProfileSettingError for an unknown profile or setting)."""
    result: dict[str, dict[str, JsonValue]] = {}
    for profile_id, overrides in data.items():
        if profile_id not in PROFILES:
            raise ProfileSettingError(f"unknown profile {profile_id!r}: use one of "
                                      f"{', '.join(PROFILES)}")
        if not isinstance(overrides, Mapping):
            raise ProfileSettingError(f"profile {profile_id}: expected an object of settings")
        default = PROFILES[profile_id]
        changed = apply_overrides(default, overrides)
        keys = [k.strip().replace("-", "_") for k in overrides]
        kept = {k: to_json(setting_value(changed, k)) for k in keys
                if setting_value(changed, k) != setting_value(default, k)}
        if kept:
            result[profile_id] = kept
    return result


def configured_profile(profile_id: str, persisted: Mapping[str, Mapping[str, Override]] | None = None,
                       items: Iterable[str] = ()) -> AgentProfile:
    """The profile whose settings are kept under ``profile_id`` (``cortex-fs`` for CortexPrism) with
    the persisted overrides, then the ``KEY=VALUE`` items."""
    profile = apply_overrides(PROFILES[profile_id], (persisted or {}).get(profile_id, {}))
    return apply_settings(profile, items)


def setting_help(key: str) -> tuple[str, str]:
    """(title, description) of a setting, for display."""
    return SETTING_HELP.get(key, (key.replace("_", " ").capitalize(), ""))


def adjustable_profiles() -> list[AgentProfile]:
    """The profiles with assumed settings, which the user is expected to adjust."""
    return [p for p in PROFILES.values() if p.unverified]
