"""Typed user preferences: a pydantic schema with titles, descriptions and ranges, stored as JSON.

The schema drives the Preferences dialog (one editor per field, grouped by ``group``). The store
validates every change, writes ``settings.json`` in the config folder atomically and calls its
subscribers with the names of the fields that changed (the UI turns that into a Qt signal).

The names, choices and presets the schema uses are in :mod:`settings_fields` and the store in
:mod:`settings_store`, neither of which imports pydantic: the window's first paint reads the few
settings it needs without it (issue 19).

The API key is *not* a setting: it lives in the OS keyring (:mod:`rockskills_gui.core.app.secrets`)
and is never serialized here. The recent-libraries list is :mod:`rockskills_gui.core.app.recent`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rockskills_gui.core.app.endpoint_presets import PRESET_BY_ID, PRESETS, EndpointPreset, PresetId
from rockskills_gui.core.app.settings_fields import (
    DEFAULT_PREVIEW_LAYOUT,
    DEFAULT_THEME,
    EDITOR_FONT_MAX,
    EDITOR_FONT_SIZE_MAX,
    FILE_NAME,
    GROUP_DREAM,
    GROUP_EDITOR,
    GROUP_FORMATS,
    GROUP_LLM,
    GROUP_LOOKS,
    GROUPS,
    MIN_FONT_SIZE,
    DreamProposer,
    PreviewLayout,
    ThemeMode,
)
from rockskills_gui.core.library.profile_settings import ProfileSettingError, normalize_overrides

_URL = re.compile(r"https?://[^\s/?#]+(/[^\s?#]*)?", re.IGNORECASE)

__all__ = ["FILE_NAME", "GROUPS", "GROUP_DREAM", "GROUP_EDITOR", "GROUP_FORMATS", "GROUP_LLM",
           "GROUP_LOOKS", "MIN_FONT_SIZE", "PRESETS", "PRESET_BY_ID", "DreamProposer",
           "EndpointPreset", "PresetId", "PreviewLayout", "Settings", "ThemeMode", "field_info"]

class Settings(BaseModel):
    """Every preference, its default, title, description and allowed range.

    ``json_schema_extra`` carries what the dialog needs beyond the type: ``group`` (the section),
    ``labels`` (how each choice of a Literal is shown) and ``widget`` (a special editor).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    endpoint: PresetId = Field(
        "ollama", title="Endpoint",
        description="The OpenAI-compatible server dream runs talk to.",
        json_schema_extra={"group": GROUP_LLM, "labels": {p.id: p.title for p in PRESETS}})
    base_url: str = Field(
        "", max_length=500, title="Custom base URL",
        description="Used when the endpoint is 'Custom base URL': the server's API root, "
                    "usually ending in /v1 (e.g. http://192.168.1.20:8000/v1).",
        json_schema_extra={"group": GROUP_LLM, "widget": "url"})
    model: str = Field(
        "", max_length=200, title="Model",
        description="The model name the server knows (use 'Fetch models' to list them).",
        json_schema_extra={"group": GROUP_LLM, "widget": "model"})
    timeout: float = Field(
        120.0, ge=5.0, le=900.0, title="Timeout (seconds)",
        description="How long to wait for one reply before giving up.",
        json_schema_extra={"group": GROUP_LLM})
    theme: ThemeMode = Field(
        DEFAULT_THEME, title="Theme",
        description="Light or dark colours; 'Follow system' uses the desktop's colour scheme.",
        json_schema_extra={"group": GROUP_LOOKS,
                           "labels": {"system": "Follow system", "light": "Light", "dark": "Dark"}})
    editor_font: str = Field(
        "", max_length=EDITOR_FONT_MAX, title="Editor font",
        description="The Markdown source font; empty for the system's fixed-width font.",
        json_schema_extra={"group": GROUP_EDITOR, "widget": "font"})
    editor_font_size: int = Field(
        0, ge=0, le=EDITOR_FONT_SIZE_MAX, title="Editor font size (points)",
        description="Size of the Markdown source font, 6 to 48 points; 0 follows the system size.",
        json_schema_extra={"group": GROUP_EDITOR, "zero": "System size"})
    preview_layout: PreviewLayout = Field(
        DEFAULT_PREVIEW_LAYOUT, title="Preview layout",
        description="Show the Markdown source, the rendered preview, or both side by side.",
        json_schema_extra={"group": GROUP_EDITOR,
                           "labels": {"split": "Source and preview side by side",
                                      "editor": "Source only", "preview": "Preview only"}})
    protected_prefixes: tuple[str, ...] = Field(
        ("patrol/",), max_length=100, title="Protected skill prefixes",
        description="A dream run never merges, rewrites or deletes skills whose names start with "
                    "one of these (one per line).",
        json_schema_extra={"group": GROUP_DREAM, "widget": "lines"})
    dream_proposer: DreamProposer = Field(
        "llm", title="Dream proposer",
        description="Who proposes changes in a dream run: the LLM endpoint above, or the offline "
                    "proposer (no LLM). The dream wizard remembers the last choice here, and its "
                    "endpoint and model in the LLM settings above.",
        json_schema_extra={"group": GROUP_DREAM,
                           "labels": {"llm": "An LLM on the endpoint above",
                                      "offline": "Offline (no LLM)"}})
    archive_purge_days: int = Field(
        0, ge=0, le=36_500, title="Purge archived skills after (days)",
        description="Skills a dream deleted, pruned or merged away are kept in the library's archive "
                    "(Tools ▸ Skill Archive…). When a library opens, remove from its archive what was "
                    "archived more than this many days ago (one undoable change); 'Never' keeps "
                    "everything.",
        json_schema_extra={"group": GROUP_DREAM, "zero": "Never"})
    include_user_skills: bool = Field(
        False, title="Include user-scope skill folders",
        description="When opening a SKILL.md library, also read the format's folders in your home "
                    "(e.g. ~/.agents/skills, ~/.picobot/skills); project skills win name "
                    "collisions. Takes effect the next time a library is opened.",
        json_schema_extra={"group": GROUP_FORMATS})
    profile_overrides: dict[str, dict[str, Any]] = Field(
        {}, title="Assumed format settings",
        description="Per SKILL.md profile (PicoBot, carpenter), the settings that could not be "
                    "confirmed from public code; only values that differ from the defaults are "
                    "kept. Takes effect the next time a library is opened.",
        json_schema_extra={"group": GROUP_FORMATS, "widget": "profiles"})

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        value = value.strip()
        if value and not _URL.fullmatch(value):
            raise ValueError("must be an http:// or https:// URL such as http://127.0.0.1:8000/v1")
        return value.rstrip("/")

    @field_validator("editor_font_size")
    @classmethod
    def _check_size(cls, value: int) -> int:
        if 0 < value < MIN_FONT_SIZE:
            raise ValueError(f"must be 0 (the system size) or at least {MIN_FONT_SIZE} points")
        return value

    @field_validator("model", "editor_font")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("protected_prefixes", mode="before")
    @classmethod
    def _clean_prefixes(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.splitlines()
        if not isinstance(value, list | tuple):
            return value
        seen: set[str] = set()
        cleaned: list[str] = []
        for item in value:
            if not isinstance(item, str):
                return value  # let pydantic report the wrong type
            text = item.strip()
            if text and text.casefold() not in seen:
                seen.add(text.casefold())
                cleaned.append(text)
        return tuple(cleaned)

    @field_validator("profile_overrides", mode="before")
    @classmethod
    def _check_profiles(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value  # let pydantic report the wrong type
        try:
            return normalize_overrides(value)
        except ProfileSettingError as exc:
            raise ValueError(str(exc)) from None

    # ---------------------------------------------------------------- derived

    @property
    def preset(self) -> EndpointPreset:
        return PRESET_BY_ID[self.endpoint]

    @property
    def effective_base_url(self) -> str:
        """The URL requests go to: the preset's, or ``base_url`` for a custom endpoint."""
        return self.base_url if self.endpoint == "custom" else self.preset.base_url


def field_info(name: str) -> dict[str, Any]:
    """The dialog's view of one field: title, description, group, labels, widget, bounds."""
    info = Settings.model_fields[name]
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    bounds: dict[str, Any] = {}
    for item in info.metadata:
        for key in ("ge", "le", "max_length"):
            if getattr(item, key, None) is not None:
                bounds[key] = getattr(item, key)
    return {"title": info.title or name, "description": info.description or "",
            "group": extra.get("group", ""), "labels": dict(extra.get("labels", {})),  # type: ignore[arg-type]
            "widget": extra.get("widget", ""), "zero": extra.get("zero", ""),
            "default": info.default, **bounds}


