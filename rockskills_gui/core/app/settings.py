"""Typed user preferences: a pydantic schema with titles, descriptions and ranges, stored as JSON.

The schema drives the Preferences dialog (one editor per field, grouped by ``group``). The store
validates every change, writes ``settings.json`` in the config folder atomically and calls its
subscribers with the names of the fields that changed (the UI turns that into a Qt signal).

The API key is *not* a setting: it lives in the OS keyring (:mod:`rockskills_gui.core.app.secrets`)
and is never serialized here. The recent-libraries list is :mod:`rockskills_gui.core.app.recent`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rockskills_gui.core.library.profile_settings import ProfileSettingError, normalize_overrides
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.appdirs import config_dir

FILE_NAME = "settings.json"
MIN_FONT_SIZE = 6
log = logging.getLogger(__name__)

GROUP_LLM = "LLM endpoint"
GROUP_LOOKS = "Appearance"
GROUP_EDITOR = "Editor"
GROUP_DREAM = "Dream runs"
GROUP_FORMATS = "Skill formats"
GROUPS = (GROUP_LLM, GROUP_LOOKS, GROUP_EDITOR, GROUP_DREAM, GROUP_FORMATS)


@dataclass(frozen=True)
class EndpointPreset:
    """A known OpenAI-compatible server: its usual base URL and whether it wants an API key."""

    id: str
    title: str
    base_url: str
    needs_key: bool
    hint: str


PRESETS: tuple[EndpointPreset, ...] = (
    EndpointPreset("openai", "OpenAI", "https://api.openai.com/v1", True,
                   "Needs an API key from platform.openai.com."),
    EndpointPreset("ollama", "Ollama", "http://127.0.0.1:11434/v1", False,
                   "Local: run `ollama serve` and `ollama pull <model>`; no key needed."),
    EndpointPreset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", False,
                   "Local: start the server in LM Studio's Developer tab; no key needed."),
    EndpointPreset("vllm", "vLLM", "http://127.0.0.1:8000/v1", False,
                   "Local or on your network: `vllm serve <model>`; a key only if started with "
                   "--api-key."),
    EndpointPreset("llamacpp", "llama.cpp server", "http://127.0.0.1:8080/v1", False,
                   "Local: `llama-server -m model.gguf`; a key only if started with --api-key."),
    EndpointPreset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", True,
                   "Needs an API key from openrouter.ai; model names look like vendor/model."),
    EndpointPreset("custom", "Custom base URL", "", False,
                   "Any OpenAI-compatible server: give its base URL (it usually ends in /v1)."),
)
PRESET_BY_ID = {p.id: p for p in PRESETS}

PresetId = Literal["openai", "ollama", "lmstudio", "vllm", "llamacpp", "openrouter", "custom"]
ThemeMode = Literal["system", "light", "dark"]
PreviewLayout = Literal["split", "editor", "preview"]
DreamProposer = Literal["llm", "offline"]

_URL = re.compile(r"https?://[^\s/?#]+(/[^\s?#]*)?", re.IGNORECASE)


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
        "system", title="Theme",
        description="Light or dark colours; 'Follow system' uses the desktop's colour scheme.",
        json_schema_extra={"group": GROUP_LOOKS,
                           "labels": {"system": "Follow system", "light": "Light", "dark": "Dark"}})
    editor_font: str = Field(
        "", max_length=200, title="Editor font",
        description="The Markdown source font; empty for the system's fixed-width font.",
        json_schema_extra={"group": GROUP_EDITOR, "widget": "font"})
    editor_font_size: int = Field(
        0, ge=0, le=48, title="Editor font size (points)",
        description="Size of the Markdown source font, 6 to 48 points; 0 follows the system size.",
        json_schema_extra={"group": GROUP_EDITOR, "zero": "System size"})
    preview_layout: PreviewLayout = Field(
        "split", title="Preview layout",
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


Listener = Callable[[Settings, frozenset[str]], None]


class SettingsStore:
    """The current :class:`Settings`, read from and saved to ``settings.json``.

    A missing file means defaults. A damaged file is not overwritten until the user changes a
    setting; fields that fail validation fall back to their defaults and are listed in
    :attr:`load_problems`.
    """

    def __init__(self, file: Path | None = None) -> None:
        self.file = file if file is not None else config_dir() / FILE_NAME
        self.load_problems: list[str] = []
        self._listeners: list[Listener] = []
        self._settings = self._load()

    @property
    def settings(self) -> Settings:
        return self._settings

    def _load(self) -> Settings:
        try:
            raw = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Settings()
        except (OSError, ValueError) as exc:
            self.load_problems.append(f"{self.file} could not be read ({exc}); using defaults")
            return Settings()
        if not isinstance(raw, dict):
            self.load_problems.append(f"{self.file} is not a JSON object; using defaults")
            return Settings()
        try:
            return Settings.model_validate(raw)
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
            for name in sorted(bad):
                self.load_problems.append(f"setting '{name}' was invalid; using its default")
            kept = {k: v for k, v in raw.items() if k not in bad}
            try:
                return Settings.model_validate(kept)
            except ValidationError:
                return Settings()
        finally:
            for problem in self.load_problems:
                log.warning("%s", problem)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(settings, changed_names)`` after each change; returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def update(self, **changes: Any) -> frozenset[str]:
        """Validate and apply ``changes``, save, notify; returns the names that changed.

        Raises :class:`pydantic.ValidationError` (nothing saved) when a value is out of range.
        """
        unknown = set(changes) - set(Settings.model_fields)
        if unknown:
            raise KeyError(f"unknown settings: {', '.join(sorted(unknown))}")
        merged = {**self._settings.model_dump(), **changes}
        new = Settings.model_validate(merged)
        return self.replace(new)

    def replace(self, new: Settings) -> frozenset[str]:
        """Make ``new`` the settings (already validated); save and notify when anything changed."""
        old = self._settings
        changed = frozenset(n for n in Settings.model_fields if getattr(old, n) != getattr(new, n))
        if not changed:
            return changed
        self.save(new)
        self._settings = new
        log.info("settings changed: %s", ", ".join(sorted(changed)))
        for listener in list(self._listeners):
            listener(new, changed)
        return changed

    def save(self, settings: Settings | None = None) -> None:
        """Write ``settings`` (default: the current ones) atomically."""
        data = (settings or self._settings).model_dump(mode="json")
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        fileio.atomic_write(self.file, text.encode("utf-8"))

    def reset(self, names: Iterable[str] | None = None) -> frozenset[str]:
        """Put ``names`` (default: every setting) back to their defaults."""
        defaults = Settings()
        wanted = list(names) if names is not None else list(Settings.model_fields)
        return self.update(**{n: getattr(defaults, n) for n in wanted})
