"""The one door into a library: :func:`open_library` opens a folder (or a skill file, a
``memory.db``) as its detected format, or as the one asked for, with the user's settings, and
returns a :class:`~rockskills_gui.core.library.library.Library`. The window (its loader) and the
CLI both call it; nothing outside ``core/library`` names a format's class.

What an open can be told is one frozen :class:`OpenOptions`: the format (an ``OPEN_FORMATS``
value of :mod:`~rockskills_gui.core.library.formats`), the SKILL.md profile and the user's
settings for it, progress/cancel/the skills as they are read, the scan cache folder and the
link targets the user confirmed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rockskills_gui.core.library.formats import PROFILE_OF, detect, detection_note
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.rockbot.scan import Progress, ScanCancelled, SkillsRead
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC
from rockskills_gui.core.storage.changes import LibraryError

if TYPE_CHECKING:  # (a SKILL.md library's code loads when one is opened)
    from rockskills_gui.core.library.library import Library
    from rockskills_gui.core.library.profile_settings import Override
    from rockskills_gui.core.library.skillmd.profiles import AgentProfile

__all__ = ["OpenOptions", "RockBotHasNoSettings", "ScanCancelled", "UserSettings", "open_library"]


@dataclass(frozen=True)
class UserSettings:
    """The user's settings for SKILL.md libraries (Preferences ▸ Skill formats): add the
    profile's user-scope roots (project skills win name collisions), and per-profile overrides
    (by profile id, see :mod:`~rockskills_gui.core.library.profile_settings`)."""

    include_user: bool = False
    overrides: Mapping[str, Mapping[str, Override]] = field(default_factory=dict)


class RockBotHasNoSettings(LibraryError):
    """AgentProfile settings were given (``OpenOptions.profile_items``) for a RockBot library."""


@dataclass(frozen=True)
class OpenOptions:
    """How to open a library (see :func:`open_library`); every field has a default.

    ``format``: an ``OPEN_FORMATS`` value (None: detected). ``profile``: replaces the SKILL.md
    format's profile settings; without it, ``settings`` (or, when ``load_settings`` is given,
    what it returns: called only for a SKILL.md library) adjust the detected format's profile,
    and ``profile_items`` (``KEY=VALUE``, the CLI's ``--profile-set``) go on top of them.
    ``progress``/``cancel``/``on_skills`` follow the scan (:class:`ScanCancelled` when cancelled;
    a SKILL.md library, read in one go, does not call ``on_skills``); ``cache_dir`` keeps the
    parsed skill files of a RockBot library between opens; ``link_targets``: folders outside the
    library that writes may reach through a symbolic link, confirmed by the user
    (:mod:`~rockskills_gui.core.storage.links`); ``home``: where the profile's user-scope roots
    (``~/.claude/skills`` ...) are looked for when ``settings.include_user`` (tests pass a fake one).
    """

    format: str | None = None
    profile: AgentProfile | None = None
    settings: UserSettings = UserSettings()
    load_settings: Callable[[], UserSettings] | None = None
    profile_items: tuple[str, ...] = ()
    progress: Progress | None = None
    cancel: Callable[[], bool] | None = None
    on_skills: SkillsRead | None = None
    cache_dir: Path | None = None
    link_targets: tuple[Path, ...] = ()
    home: Path | None = None  # the home folder user-scope roots are found in (None: the real one)


def open_library(path: Path | str, options: OpenOptions | None = None) -> Library:
    """Open ``path`` as its detected (or the given) format (raises NotALibraryError, ScanCancelled,
    ProfileSettingError); ``library.detection_note`` says what else detection saw."""
    options = options or OpenOptions()
    found = detect(path, options.format)
    if found.format == "rockbot":
        if options.profile_items:
            raise RockBotHasNoSettings("profile settings apply to SKILL.md formats, not to RockBot")
        opened = RockBotLibrary.open(found.base, progress=options.progress, cancel=options.cancel,
                                     on_skills=options.on_skills,
                                     rules=found.rules or ROCKBOT_64E82CC,
                                     cache_dir=options.cache_dir, link_targets=options.link_targets)
        opened.detection_note = detection_note(found)
        return opened
    from rockskills_gui.core.library.skillmd.profiles import PROFILES, Root

    settings = options.load_settings() if options.load_settings is not None else options.settings
    key = PROFILE_OF[found.format]
    profile = options.profile
    if profile is None and (settings.overrides.get(key) or options.profile_items):
        from rockskills_gui.core.library.profile_settings import configured_profile

        profile = configured_profile(key, settings.overrides, options.profile_items)
    chosen = profile or PROFILES[key]
    roots = list(found.roots)
    if profile is not None and found.format != "cortex":  # the user's project roots, where present
        custom = [Root(found.base / m, "project") for m in profile.storage.project_roots
                  if (found.base / m).is_dir()]
        roots = custom or roots
    if settings.include_user:
        from rockskills_gui.core.library.skillmd.discovery import discover

        roots = discover(found.base, chosen, options.home, True, project=roots).roots
    cancel = options.cancel
    if cancel is not None and cancel():
        raise ScanCancelled()
    from rockskills_gui.core.library.skillmd.library import SkillMdLibrary

    library = SkillMdLibrary(found.base, roots, chosen, found.format, found.memory_db,
                             link_targets=options.link_targets, notes=found.notes)
    library.detection_note = detection_note(found)
    if options.progress is not None:
        options.progress(len(library), len(library))
    if cancel is not None and cancel():
        raise ScanCancelled()
    return library
