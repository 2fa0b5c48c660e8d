"""The field's trigger-eval files: ``[{"query": ..., "should_trigger": true|false}, ...]``
(Anthropic's skill-creator ``run_eval.py``; ``evals/trigger-evals.json`` in github/awesome-copilot
skills, ``evals/trigger_eval.json`` in anthropics/claude-plugins-official's math-olympiad).

A file is about one skill: the one whose folder holds it (``<skill>/evals/<file>.json``) or the
one named by the caller. Rows keep every key they have, in order; unknown keys are written back
on export as they were read. Importing keeps the file, byte for byte, beside the library's query
sets (``recall-tests/trigger-evals/<skill>.json``), never inside RockBot's ``skills/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rockskills_gui.core.budget.entries import AdEntry
from rockskills_gui.core.model.dotnet_json import loads_untrusted
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.recall.queryset import QUERY_SET_DIR, AnyLayout
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.layout import Layout

EVALS_DIR = "evals"
FIELD_FILE = "trigger-evals.json"  # the name export writes in a skill's evals/ folder
STORE_DIR = "trigger-evals"  # beside the query sets: <agent>/recall-tests/trigger-evals/


class TriggerFileError(ValueError):
    """The file is not a trigger-eval file, or cannot be written where asked (one line)."""


@dataclass(frozen=True)
class TriggerRow:
    """One row: a user message and whether the skill should be activated for it. ``fields``
    holds every key of the row as read (unknown ones included), in order."""

    query: str
    should_trigger: bool
    fields: tuple[tuple[str, Any], ...] = ()

    def as_json(self) -> dict[str, Any]:
        data = dict(self.fields)
        data["query"], data["should_trigger"] = self.query, self.should_trigger
        return data if self.fields else {"query": self.query, "should_trigger": self.should_trigger}


@dataclass(frozen=True)
class TriggerEvalSet:
    """The rows of one file and the skill they are about."""

    skill: str
    rows: tuple[TriggerRow, ...]
    source: Path | None = None

    def with_skill(self, skill: str) -> TriggerEvalSet:
        return replace(self, skill=skill)


def parse_rows(data: bytes, where: str = "file") -> tuple[TriggerRow, ...]:
    """The rows of a trigger-eval file's bytes; raises :class:`TriggerFileError`."""
    try:
        value = loads_untrusted(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise TriggerFileError(f"{where}: not UTF-8 text") from None
    except ValueError as exc:
        raise TriggerFileError(f"{where}: not JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(value, list):
        raise TriggerFileError(f'{where}: expected a list of {{"query", "should_trigger"}} rows, '
                               f"got a JSON {type(value).__name__}")
    rows: list[TriggerRow] = []
    for index, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise TriggerFileError(f"{where}: row {index} is not an object")
        query, should = item.get("query"), item.get("should_trigger")
        if not isinstance(query, str) or not query.strip():
            raise TriggerFileError(f'{where}: row {index} has no "query" text')
        if not isinstance(should, bool):
            raise TriggerFileError(f'{where}: row {index}: "should_trigger" must be true or false, '
                                   f"got {json.dumps(should)[:40]}")
        rows.append(TriggerRow(query, should, tuple(item.items())))
    if not rows:
        raise TriggerFileError(f"{where}: no rows")
    return tuple(rows)


def read_trigger_file(path: Path) -> tuple[TriggerRow, ...]:
    """The rows of the file at ``path`` (a regular file of at most 64 MB; a FIFO is refused)."""
    try:
        data = fileio.read_regular(path, DOCUMENT_MAX_BYTES)
    except OSError as exc:
        raise TriggerFileError(f"{path}: {untrusted.reason(path, exc)}") from None
    return parse_rows(data, str(path))


def dump_rows(rows: Iterable[TriggerRow]) -> bytes:
    """The field's format: a JSON list, two-space indent, UTF-8, every row's keys as read."""
    return (json.dumps([r.as_json() for r in rows], ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def skill_of_file(path: Path, entries: Sequence[AdEntry]) -> str | None:
    """The skill whose folder holds ``path`` as ``<skill>/evals/<file>``: the entry whose skill
    file (``SKILL.md``) lies in that folder; None when there is none."""
    folder = path.expanduser().absolute().parent
    if folder.name != EVALS_DIR:
        return None
    try:
        skill_dir = folder.parent.resolve()
    except OSError:
        return None
    for entry in entries:
        location = Path(entry.location)
        if location.name == "SKILL.md" and location.parent.resolve() == skill_dir:
            return entry.name
    return None


def find_skill(name: str, entries: Sequence[AdEntry]) -> str | None:
    """The library's spelling of skill ``name`` (compared case-insensitively), or None."""
    exact = next((e.name for e in entries if e.name == name), None)
    return exact or next((e.name for e in entries if fold(e.name) == fold(name)), None)


def store_path(layout: AnyLayout, skill: str) -> Path:
    """``<agent>/recall-tests/trigger-evals/<skill>.json`` (a ``/`` in a name is a folder)."""
    parts = skill.split("/")
    if any(not p or p.startswith(".") or "\\" in p or "\0" in p for p in parts):
        raise TriggerFileError(f"cannot store a trigger-eval file for skill {skill!r}")
    return layout.agent_dir.joinpath(QUERY_SET_DIR, STORE_DIR, *parts[:-1], f"{parts[-1]}.json")


def import_file(layout: AnyLayout, source: Path, skill: str) -> Path:
    """Keep ``source`` (checked to be a trigger-eval file) byte for byte beside the library's
    query sets for ``skill``; returns where. Raises :class:`TriggerFileError`."""
    try:
        data = fileio.read_regular(source, DOCUMENT_MAX_BYTES)
    except OSError as exc:
        raise TriggerFileError(f"{source}: {untrusted.reason(source, exc)}") from None
    parse_rows(data, str(source))
    target = store_path(layout, skill)
    _write(layout, target, data)
    return target


def stored_sets(layout: AnyLayout) -> list[TriggerEvalSet]:
    """The imported files of a library, one set per skill (unreadable files are left out)."""
    base = layout.agent_dir / QUERY_SET_DIR / STORE_DIR
    found: list[TriggerEvalSet] = []
    try:
        paths = sorted(p for p in base.rglob("*.json") if fileio.is_regular(p))
    except OSError:
        return []
    for path in paths[:10_000]:
        skill = path.relative_to(base).with_suffix("").as_posix()
        try:
            found.append(TriggerEvalSet(skill, read_trigger_file(path), path))
        except TriggerFileError:
            continue
    return found


def export_file(layout: AnyLayout, rows: Iterable[TriggerRow], target: Path) -> Path:
    """Write ``rows`` in the field's format to ``target`` (e.g. ``<skill>/evals/trigger-evals.json``
    of a SKILL.md skill), atomically; never inside a RockBot library's ``skills/`` folder, never
    through a symbolic link. Raises :class:`TriggerFileError`."""
    _write(layout, target, dump_rows(rows))
    return target


def _write(layout: AnyLayout, target: Path, data: bytes) -> None:
    resolved = target.expanduser().absolute()
    if isinstance(layout, Layout) and untrusted.is_inside(resolved, (layout.skills_dir,)):
        raise TriggerFileError(f"{target}: not inside skills/ (RockBot would load the file as a "
                               "skill); keep it beside the library")
    inside = untrusted.is_inside(resolved.parent, (layout.agent_dir,))
    root = layout.agent_dir if inside else resolved.parent
    try:
        untrusted.write_inside(resolved, data, root)
    except untrusted.Refused as exc:
        raise TriggerFileError(str(exc)) from None
