"""The settings' names and choices, and the few values the first paint needs,
read without pydantic (issue 19: the window paints before the schema is built).

:class:`~rockskills_gui.core.app.settings.Settings` (pydantic) is the schema and the one validator;
:func:`startup_value` answers for :data:`STARTUP_FIELDS` only when the value in the file is one
the schema would keep as it is (or clean the same simple way), and says ``UNSURE`` otherwise, so
the caller asks the schema. ``tests/core/test_settings_startup.py`` checks the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

FILE_NAME = "settings.json"
MIN_FONT_SIZE = 6

GROUP_LLM = "LLM endpoint"
GROUP_LOOKS = "Appearance"
GROUP_EDITOR = "Editor"
GROUP_DREAM = "Dream runs"
GROUP_FORMATS = "Skill formats"
GROUPS = (GROUP_LLM, GROUP_LOOKS, GROUP_EDITOR, GROUP_DREAM, GROUP_FORMATS)


ThemeMode = Literal["system", "light", "dark"]
PreviewLayout = Literal["split", "editor", "preview"]
DreamProposer = Literal["llm", "offline"]

DEFAULT_THEME: ThemeMode = "system"
DEFAULT_PREVIEW_LAYOUT: PreviewLayout = "split"
EDITOR_FONT_MAX = 200
EDITOR_FONT_SIZE_MAX = 48
# The settings the window needs before its first paint, and their defaults.
STARTUP_DEFAULTS: Final[dict[str, Any]] = {
    "theme": DEFAULT_THEME, "preview_layout": DEFAULT_PREVIEW_LAYOUT,
    "editor_font": "", "editor_font_size": 0}
STARTUP_FIELDS = tuple(STARTUP_DEFAULTS)


class _Unsure:
    def __repr__(self) -> str:
        return "UNSURE"


UNSURE: Final = _Unsure()


def startup_value(name: str, raw: Any) -> Any:
    """What the schema makes of ``raw`` for the startup field ``name``, when that is certain
    without it (the value as the settings file normally holds it); else :data:`UNSURE`."""
    kind = type(raw)
    if name == "theme":
        return raw if kind is str and raw in get_args(ThemeMode) else UNSURE
    if name == "preview_layout":
        return raw if kind is str and raw in get_args(PreviewLayout) else UNSURE
    if name == "editor_font":
        return raw.strip() if kind is str and len(raw) <= EDITOR_FONT_MAX else UNSURE
    if name == "editor_font_size":
        ok = kind is int and (raw == 0 or MIN_FONT_SIZE <= raw <= EDITOR_FONT_SIZE_MAX)
        return raw if ok else UNSURE
    raise KeyError(name)


@dataclass(frozen=True)
class StartupPrefs:
    """The settings the first paint uses (the same values ``Settings`` has for them)."""

    theme: ThemeMode = DEFAULT_THEME
    preview_layout: PreviewLayout = DEFAULT_PREVIEW_LAYOUT
    editor_font: str = ""
    editor_font_size: int = 0
