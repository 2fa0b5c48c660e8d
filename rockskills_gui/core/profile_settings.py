"""User settings for a SKILL.md profile: ``KEY=VALUE`` text turned into a checked :class:`Profile`.

The PicoBot and carpenter profiles are partly assumed (their ``unverified`` settings come from a
brief, not from public code); these are the settings a user is expected to adjust. Values are
typed by the setting: lists are comma-separated, numbers are whole, ``true``/``false``, and
``none`` clears an optional setting.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable

from rockskills_gui.core.changes import LibraryError
from rockskills_gui.core.stores.skillmd import Profile

FIXED = ("id", "label", "unverified")  # describe the profile; not settings


class ProfileSettingError(LibraryError):
    """A ``KEY=VALUE`` that names no setting or has a value of the wrong kind."""


def settings() -> dict[str, object]:
    """Each adjustable setting and its type."""
    hints = typing.get_type_hints(Profile)
    return {f.name: hints[f.name] for f in dataclasses.fields(Profile) if f.name not in FIXED}


def _value(key: str, kind: object, text: str) -> object:
    args = typing.get_args(kind)
    optional = type(None) in args
    if optional and text.strip().lower() == "none":
        return None
    base = next((a for a in args if a is not type(None)), kind) if optional else kind
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
    return text


def apply_settings(profile: Profile, items: Iterable[str]) -> Profile:
    """``profile`` with each ``KEY=VALUE`` of ``items`` applied (raises ProfileSettingError)."""
    known = settings()
    changes: dict[str, object] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in known:
            raise ProfileSettingError(
                f"unknown profile setting {item!r}: use KEY=VALUE with KEY one of "
                f"{', '.join(sorted(known))}")
        changes[key] = _value(key, known[key], text)
    return dataclasses.replace(profile, **changes) if changes else profile
