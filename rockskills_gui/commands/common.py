"""Helpers shared by CLI commands: opening a library, printing exact text, parsing --now."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.formats import OPEN_FORMATS, format_label
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.open import OpenOptions, RockBotHasNoSettings, UserSettings
from rockskills_gui.core.library.open import open_library as open_through_the_door
from rockskills_gui.core.library.profile_settings import ProfileSettingError
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES, shown_size
from rockskills_gui.core.model.timestamps import Timestamp, TimestampError
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.layout import NotALibraryError


class CommandError(Exception):
    """A one-line message for stderr; the command exits 2."""


def open_library(path: str, format_id: str | None = None, include_user: bool | None = None,
                 profile_settings: Sequence[str] = (), link_targets: Sequence[str] = (),
                 say_format: bool = True, cache_dir: Path | None = None) -> Library:
    """Open a library through the one door (``core.library.open``): detected, or ``format_id``
    (an ``OPEN_FORMATS`` value; ``rockbot`` for the commands about RockBot's own files, which
    then say nothing of the format on stderr: ``say_format`` False).

    The user's saved settings apply to a SKILL.md library (Preferences ▸ Skill formats: the
    assumed profile settings and "include user-scope skill folders"; read only for one);
    ``include_user`` (None: the saved choice) adds the SKILL.md profile's user-scope roots, and
    ``profile_settings`` are ``KEY=VALUE`` changes to the profile on top of the saved ones
    (core.profile_settings); ``link_targets``: the folders of ``--allow-link-target``. With
    ``cache_dir`` a RockBot library keeps what reading its files gave there
    (core.library.stores.scan_cache)."""

    def saved() -> UserSettings:
        # The saved settings are about SKILL.md formats: a RockBot library opens without reading
        # them (nor importing the settings model: issue 19).
        from rockskills_gui.core.app.settings_store import SettingsStore

        settings = SettingsStore().settings
        return UserSettings(settings.include_user_skills if include_user is None else include_user,
                            settings.profile_overrides)

    options = OpenOptions(format=format_id, load_settings=saved, profile_items=tuple(profile_settings),
                          link_targets=tuple(Path(t).expanduser() for t in link_targets),
                          cache_dir=cache_dir)
    try:
        library = open_through_the_door(path, options)
    except RockBotHasNoSettings:
        raise CommandError("--profile-set applies to SKILL.md formats, not to RockBot") from None
    except (NotALibraryError, ProfileSettingError) as exc:
        raise CommandError(str(exc)) from None
    report_recovery(library, say_format)
    return library


def add_link_option(p: argparse.ArgumentParser) -> None:
    """``--allow-link-target DIR`` for a command that opens a library (opening may finish an
    interrupted change, so every one of them may write)."""
    p.add_argument("--allow-link-target", action="append", default=[], metavar="DIR",
                   help="a folder outside the library that a symbolic link in it (skills/, a skill "
                        "folder) leads to: allow writing there, and finishing an interrupted change "
                        "written there (repeatable; without it such writes are refused)")


def open_from_args(args: argparse.Namespace, path: str | None = None,
                   cache_dir: Path | None = None) -> Library:
    """:func:`open_library` for ``path`` (default ``args.library``) with the options of
    :func:`add_library_options`, where the command has them."""
    return open_library(args.library if path is None else path, getattr(args, "format", None),
                        getattr(args, "include_user", None), getattr(args, "profile_set", ()),
                        getattr(args, "allow_link_target", ()), cache_dir=cache_dir)


def report_recovery(library: Library, say_format: bool = True) -> None:
    """Say on stderr what detection saw besides the format it chose (``say_format``), what opening
    the library did about an interrupted change, and which journal entries it refused to act on
    (``untrusted-journal``: not written by this account's app)."""
    note = library.detection_note if say_format else ""
    if note:
        print(f"note: opened as {format_label(library)} ({note})", file=sys.stderr)
    report = library.recovery
    if report is None:
        return
    for line in report.lines():
        kind = "untrusted-journal: " if line.startswith("journal entry refused") else ""
        print(f"note: {kind}{line}", file=sys.stderr)


def add_library_options(p: argparse.ArgumentParser, help_text: str = "the library's format "
                        "(default: detected; rockbot-current / rockbot-64e82cc choose the RockBot "
                        "profile, rockbot the one the directory's evidence says)") -> None:
    """``--format``, ``--include-user`` and ``--profile-set`` for a command that opens a library
    (read them with :func:`open_from_args`)."""
    p.add_argument("--format", choices=OPEN_FORMATS, default=None, help=help_text)
    p.add_argument("--include-user", action=argparse.BooleanOptionalAction, default=None,
                   help="also read the SKILL.md format's user-scope roots (e.g. ~/.agents/skills); "
                        "project skills win name collisions (default: the saved preference)")
    p.add_argument("--profile-set", action="append", default=[], metavar="KEY=VALUE",
                   help="change a SKILL.md profile setting on top of the saved ones, e.g. "
                        "project_roots=.picobot/skills,skills (lists comma-separated, none clears; "
                        "repeatable)")
    add_link_option(p)


def parse_now(text: str | None) -> Timestamp:
    if text is None:
        return Timestamp.now()
    try:
        return Timestamp.parse(text)
    except TimestampError as exc:
        raise CommandError(f"--now: {exc}") from None


NO_PIPES = "named pipes, devices and process substitution (<(...)) are refused, never read"


def read_input(name: str, option: str, limit: int = DOCUMENT_MAX_BYTES, stdin: bool = False) -> bytes:
    """The bytes of the file ``name`` given to ``option``, which must be a regular file of at most
    ``limit`` bytes (``-``: standard input, when ``stdin``, read up to ``limit``). A FIFO, a device
    (a link to /dev/zero) or a pipe from process substitution is refused at once with a
    :class:`CommandError`, never read: reading one could block forever or never end (issue 35)."""
    if stdin and name == "-":
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise CommandError(f"{option} -: standard input is larger than {shown_size(limit)}")
        return data
    try:
        return fileio.read_regular(name, limit)
    except fileio.NotRegularFile as exc:
        hint = f" (pipe into '{option} -' instead)" if stdin else ""
        raise CommandError(f"{option} {name}: is a {exc.kind}, not a regular file; "
                           f"{NO_PIPES}{hint}") from None
    except fileio.TooLarge as exc:
        raise CommandError(f"{option} {name}: {exc.reason}") from None
    except OSError as exc:
        raise CommandError(f"{option} {name}: {exc.strerror or exc}") from None


def write_exact(text: str) -> None:
    """Write text to stdout as UTF-8 bytes, adding nothing (no newline, no locale encoding)."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def write_json(value: Any) -> None:
    write_exact(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def guarded(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Wrap a handler so CommandError becomes one stderr line and exit status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return int(func(args))
        except CommandError as exc:
            print(f"rockskills: {exc}", file=sys.stderr)
            return 2

    run.__doc__ = func.__doc__
    return run
