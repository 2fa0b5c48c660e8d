"""The limits an agent profile assumes for its skill list, and where the user's choices are kept.

Defaults come from the specs: PicoBot cuts its index (``max_index_chars`` 4000,
``max_listed_skills`` 32, issue 21; an assumed profile, formats.md §C.1); Codex keeps 8,000
characters of skill lines when the context window is unknown (2% of it when known), Claude Code
1% of a 200k window, VS Code's Copilot 15,000 characters of entries (the coding agents' listings,
core/budget/fits.py). RockBot, Agent Skills clients, Gemini CLI, CortexPrism and carpenter list
everything. A token limit is the user's own "what if my
context allowed only N tokens". The user's limits are stored per profile in ``budget.json``
beside ``settings.json`` (the config folder), written atomically; a damaged file means defaults.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from rockskills_gui.core.budget.agents import lister_for
from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.profiles import PROFILES
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.appdirs import config_dir
from rockskills_gui.core.storage.fileio import read_regular

FILE_NAME = "budget.json"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """How much of the skill list an agent keeps (``None``: no limit)."""

    max_chars: int | None = None
    max_skills: int | None = None
    max_tokens: int | None = None
    context_window: int | None = None  # the model's window in tokens (an agent's share of it)

    def as_json(self) -> dict[str, int | None]:
        data = asdict(self)
        if data["context_window"] is None:  # (files written before it existed stay the same)
            del data["context_window"]
        return data

    @classmethod
    def from_json(cls, data: object) -> Limits:
        """Read a ``{max_chars, max_skills, max_tokens}`` object; raises ValueError on bad values."""
        if not isinstance(data, Mapping):
            raise ValueError("expected an object of limits")
        values: dict[str, int | None] = {}
        known = {f.name for f in fields(cls)}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown limit {key!r}")
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"limit {key}: expected a whole number >= 0 or null, got {value!r}")
            values[str(key)] = value
        return cls(**values)


NO_LIMITS = Limits()
# The agents' own cuts, by agent (lister) id: each profile's ``listing.agent_max_*``.
SPEC_DEFAULTS: dict[str, Limits] = {
    lister_for(p).id: Limits(max_chars=p.listing.agent_max_chars, max_skills=p.listing.agent_max_entries,
                             context_window=p.listing.context_window)
    for p in PROFILES.values()
    if p.listing.agent_max_chars is not None or p.listing.agent_max_entries is not None
    or p.listing.context_window is not None}


def default_limits(profile_id: str) -> Limits:
    """The limits the spec gives ``profile_id`` (no limit where it gives none)."""
    return SPEC_DEFAULTS.get(profile_id, NO_LIMITS)


class LimitsStore:
    """The user's limits per profile id, in ``budget.json`` (only those that differ are kept)."""

    def __init__(self, file: Path | None = None) -> None:
        self.file = file if file is not None else config_dir() / FILE_NAME
        self.problem = ""
        self._saved = self._load()

    def _load(self) -> dict[str, Limits]:
        try:
            raw = loads_untrusted(read_regular(self.file, DOCUMENT_MAX_BYTES).decode("utf-8"))
            if not isinstance(raw, dict):
                raise ValueError("not a JSON object")
            return {str(k): Limits.from_json(v) for k, v in raw.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.problem = f"{self.file} could not be read ({exc}); using the default limits"
            log.warning("%s", self.problem)
            return {}

    def limits(self, profile_id: str) -> Limits:
        """The user's limits for ``profile_id``, else the spec's."""
        return self._saved.get(profile_id, default_limits(profile_id))

    def is_default(self, profile_id: str) -> bool:
        return profile_id not in self._saved

    def set(self, profile_id: str, limits: Limits) -> None:
        """Keep ``limits`` for ``profile_id`` (the defaults remove the entry) and save."""
        if limits == default_limits(profile_id):
            self._saved.pop(profile_id, None)
        else:
            self._saved[profile_id] = limits
        self._save()

    def reset(self, profile_id: str) -> None:
        self.set(profile_id, default_limits(profile_id))

    def _save(self) -> None:
        data = {k: v.as_json() for k, v in sorted(self._saved.items())}
        text = json.dumps(data, indent=2) + "\n"
        fileio.atomic_write(self.file, text.encode("utf-8"))
