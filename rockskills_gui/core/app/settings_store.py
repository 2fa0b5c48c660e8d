"""The store of the user's settings: ``settings.json`` in the config folder, validated by the
schema (:class:`~rockskills_gui.core.app.settings.Settings`) when first needed.

Opening the window needs only a few settings (:class:`StartupPrefs`); :meth:`SettingsStore.startup`
reads them without pydantic when the file holds them as it normally does, so the first paint does
not wait for the schema (issue 19). Everything else reads :attr:`SettingsStore.settings`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from rockskills_gui.core.app.settings_fields import (
    FILE_NAME,
    STARTUP_DEFAULTS,
    STARTUP_FIELDS,
    UNSURE,
    StartupPrefs,
    startup_value,
)
from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.appdirs import config_dir
from rockskills_gui.core.storage.fileio import read_regular

if TYPE_CHECKING:
    from rockskills_gui.core.app.settings import Settings

log = logging.getLogger(__name__)
UNREADABLE: Final = object()  # the settings file exists but could not be read or parsed


Listener = Callable[["Settings", frozenset[str]], None]


class SettingsStore:
    """The current :class:`Settings`, read from and saved to ``settings.json``.

    The file is read when the store is made and validated when :attr:`settings` (or
    :attr:`load_problems`) is first asked for; :meth:`startup` needs no validation.

    A missing file means defaults. A damaged file is not overwritten until the user changes a
    setting; fields that fail validation fall back to their defaults and are listed in
    :attr:`load_problems`.
    """

    def __init__(self, file: Path | None = None) -> None:
        self.file = file if file is not None else config_dir() / FILE_NAME
        self._problems: list[str] = []
        self._listeners: list[Listener] = []
        self._settings: Settings | None = None
        self._lock = threading.Lock()
        self._raw = self._read()

    @property
    def settings(self) -> Settings:
        """The validated settings (the schema, and pydantic, load at the first call)."""
        if self._settings is None:
            with self._lock:
                if self._settings is None:
                    self._settings = self._load()
        return self._settings

    @property
    def load_problems(self) -> list[str]:
        """What was wrong with the file (each fell back to defaults); validates it first."""
        _ = self.settings
        return self._problems

    @property
    def loaded(self) -> bool:
        """Whether :attr:`settings` has been validated yet."""
        return self._settings is not None

    def startup(self) -> StartupPrefs:
        """The settings the first paint needs, equal to :attr:`settings`' values for them, read
        without the schema when the file holds them as it normally does."""
        if self._settings is not None:
            return StartupPrefs(**{n: getattr(self._settings, n) for n in STARTUP_FIELDS})
        values: dict[str, Any] = {}
        for name in STARTUP_FIELDS:
            value = (startup_value(name, self._raw[name])
                     if isinstance(self._raw, dict) and name in self._raw
                     else STARTUP_DEFAULTS[name])
            values[name] = getattr(self.settings, name) if value is UNSURE else value
        return StartupPrefs(**values)

    def _read(self) -> Any:
        """The file's JSON value; None when there is no file; :data:`UNREADABLE` (with the
        reason in :attr:`load_problems`) when it cannot be read or parsed."""
        try:
            return loads_untrusted(read_regular(self.file, DOCUMENT_MAX_BYTES).decode("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self._problems.append(f"{self.file} could not be read ({exc}); using defaults")
            log.warning("%s", self._problems[-1])
            return UNREADABLE

    def _load(self) -> Settings:
        from pydantic import ValidationError

        from rockskills_gui.core.app.settings import Settings

        self._reported = len(self._problems)
        raw = self._raw
        if raw is None or raw is UNREADABLE:
            return Settings()
        if not isinstance(raw, dict):
            self._problems.append(f"{self.file} is not a JSON object; using defaults")
            return Settings()
        try:
            return Settings.model_validate(raw)
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
            for name in sorted(bad):
                self._problems.append(f"setting '{name}' was invalid; using its default")
            kept = {k: v for k, v in raw.items() if k not in bad}
            try:
                return Settings.model_validate(kept)
            except ValidationError:
                return Settings()
        finally:
            for problem in self._problems[self._reported:]:
                log.warning("%s", problem)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(settings, changed_names)`` after each change; returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def update(self, **changes: Any) -> frozenset[str]:
        """Validate and apply ``changes``, save, notify; returns the names that changed.

        Raises :class:`pydantic.ValidationError` (nothing saved) when a value is out of range.
        """
        from rockskills_gui.core.app.settings import Settings

        unknown = set(changes) - set(Settings.model_fields)
        if unknown:
            raise KeyError(f"unknown settings: {', '.join(sorted(unknown))}")
        merged = {**self.settings.model_dump(), **changes}
        new = Settings.model_validate(merged)
        return self.replace(new)

    def replace(self, new: Settings) -> frozenset[str]:
        """Make ``new`` the settings (already validated); save and notify when anything changed."""
        from rockskills_gui.core.app.settings import Settings

        old = self.settings
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
        data = (settings or self.settings).model_dump(mode="json")
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        fileio.atomic_write(self.file, text.encode("utf-8"))

    def reset(self, names: Iterable[str] | None = None) -> frozenset[str]:
        """Put ``names`` (default: every setting) back to their defaults."""
        from rockskills_gui.core.app.settings import Settings

        defaults = Settings()
        wanted = list(names) if names is not None else list(Settings.model_fields)
        return self.update(**{n: getattr(defaults, n) for n in wanted})
