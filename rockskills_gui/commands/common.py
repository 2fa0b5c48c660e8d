"""Helpers shared by CLI commands: opening a library, printing exact text, parsing --now."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from rockskills_gui.core.formats import PROFILE_OF, detect
from rockskills_gui.core.formats import open_library as open_library_of_format
from rockskills_gui.core.library import Library
from rockskills_gui.core.profile_settings import ProfileSettingError, apply_settings
from rockskills_gui.core.skillmd_library import SkillMdLibrary
from rockskills_gui.core.stores.rockbot import NotALibraryError
from rockskills_gui.core.stores.skillmd import PROFILES
from rockskills_gui.core.timestamps import Timestamp, TimestampError


class CommandError(Exception):
    """A one-line message for stderr; the command exits 2."""


def open_library(path: str) -> Library:
    try:
        return Library.open(path)
    except NotALibraryError as exc:
        raise CommandError(str(exc)) from None


def open_any_library(path: str, format_id: str | None = None, include_user: bool = False,
                     profile_settings: Sequence[str] = ()) -> Library | SkillMdLibrary:
    """Open a library of any format (detected, or ``format_id``); see ``core.formats``.

    ``include_user`` adds the SKILL.md profile's user-scope roots; ``profile_settings`` are
    ``KEY=VALUE`` changes to the profile (core.profile_settings)."""
    try:
        profile = None
        if profile_settings:
            found = detect(path, format_id)
            if found.format == "rockbot":
                raise CommandError("--profile-set applies to SKILL.md formats, not to RockBot")
            profile = apply_settings(PROFILES[PROFILE_OF[found.format]], profile_settings)
        return open_library_of_format(path, format_id, include_user=include_user, profile=profile)
    except (NotALibraryError, ProfileSettingError) as exc:
        raise CommandError(str(exc)) from None


def parse_now(text: str | None) -> Timestamp:
    if text is None:
        return Timestamp.now()
    try:
        return Timestamp.parse(text)
    except TimestampError as exc:
        raise CommandError(f"--now: {exc}") from None


def write_exact(text: str) -> None:
    """Write text to stdout as UTF-8 bytes, adding nothing (no newline, no locale encoding)."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def write_json(value: Any) -> None:
    write_exact(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def guarded(func: Any) -> Any:
    """Wrap a handler so CommandError becomes one stderr line and exit status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return int(func(args))
        except CommandError as exc:
            print(f"rockskills: {exc}", file=sys.stderr)
            return 2

    run.__doc__ = func.__doc__
    return run
