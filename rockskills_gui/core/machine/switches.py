"""Writing an agent's own disable switch: the smallest edit of its settings file that turns one
skill off or on, everything else kept byte for byte where the format allows it.

- JSON (Gemini CLI ``skills.disabled``, Claude Code ``skillOverrides``): only the span of the one
  value that changes is rewritten (found with the standard decoder's positions); a key that is
  not there is inserted before its object's closing brace, in the file's indentation.
- TOML (Codex ``[[skills.config]]``): tomlkit, which keeps comments, order and formatting of
  everything it does not touch; one table appended or the matching ones removed.
- YAML (Hermes ``skills.disabled``): ruamel.yaml's round trip (comments and key order kept).

A file that does not parse is never written: the error names it. The change is a whole-file
:class:`FileChange` (before/after bytes), written atomically by :mod:`.changes`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rockskills_gui.core.library.switch_state import CLAUDE_HIDDEN, read_settings
from rockskills_gui.core.machine.changes import MachineError
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profile import DisableSwitch, SwitchKind
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.changes import FileChange

__all__ = ["DELETE", "json_set", "switch_change"]

DELETE = object()  # json_set: remove the member
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


# ---------------------------------------------------------------- JSON, by spans


def _skip(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


def _members(text: str, start: int) -> tuple[list[tuple[str, int, int, int]], int]:
    """The members of the object opening at ``start``: (key, member start, value start, value
    end), and the index just past its closing brace."""
    assert text[start] == "{"
    i = _skip(text, start + 1)
    out: list[tuple[str, int, int, int]] = []
    if text[i] == "}":
        return out, i + 1
    while True:
        key, after = _DECODER.raw_decode(text, i)
        j = _skip(text, after)
        assert text[j] == ":"
        value_start = _skip(text, j + 1)
        _value, value_end = _DECODER.raw_decode(text, value_start)
        out.append((key, i, value_start, value_end))
        k = _skip(text, value_end)
        if text[k] == "}":
            return out, k + 1
        assert text[k] == ","
        i = _skip(text, k + 1)


def _indent_unit(text: str) -> str:
    m = re.search(r"\n([ \t]+)\"", text)
    return m.group(1) if m else "  "


def _line_indent(text: str, i: int) -> str:
    line_start = text.rfind("\n", 0, i) + 1
    m = re.match(r"[ \t]*", text[line_start:])
    return m.group(0) if m else ""


def _dump(value: Any, multiline: bool, unit: str, base: str) -> str:
    if not multiline or isinstance(value, list) or (isinstance(value, dict) and not value):
        return json.dumps(value, ensure_ascii=False)
    dumped = json.dumps(value, ensure_ascii=False, indent=len(unit) if unit.strip(" ") == "" else unit)
    return dumped.replace("\n", "\n" + base)


def json_set(text: str, keys: list[str], value: Any) -> str:
    """``text`` (a JSON object) with the member at ``keys`` set to ``value`` (DELETE: removed),
    only that member's span rewritten."""
    start = _skip(text, 0)
    if start >= len(text) or text[start] != "{":
        raise ValueError("the settings are not a JSON object")
    return _set_in(text, start, keys, value, _indent_unit(text))


def _set_in(text: str, start: int, keys: list[str], value: Any, unit: str) -> str:
    members, end = _members(text, start)
    key, rest = keys[0], keys[1:]
    for index, (name, member_start, value_start, value_end) in enumerate(members):
        if name != key:
            continue
        if rest:
            if text[value_start] != "{":
                raise ValueError(f"'{key}' is not an object")
            return _set_in(text, value_start, rest, value, unit)
        if value is DELETE:
            if len(members) == 1:
                close = end - 1
                return text[:start + 1] + text[close:]
            if index + 1 < len(members):
                return text[:member_start] + text[members[index + 1][1]:]
            prev_end = members[index - 1][3]
            return text[:prev_end] + text[value_end:]
        old = text[value_start:value_end]
        new = _dump(value, "\n" in old, unit, _line_indent(text, member_start))
        return text[:value_start] + new + text[value_end:]
    if value is DELETE:
        return text
    nested: Any = value
    for inner in reversed(rest):
        nested = {inner: nested}
    close = end - 1
    if members:
        base = _line_indent(text, members[-1][1])
        multiline = "\n" in text[start:close]
        sep = ",\n" + base if multiline else ", "
        member = json.dumps(key, ensure_ascii=False) + ": " + _dump(nested, multiline, unit, base)
        last_end = members[-1][3]
        return text[:last_end] + sep + member + text[last_end:]
    outer = _line_indent(text, start)
    base = outer + unit
    member = json.dumps(key, ensure_ascii=False) + ": " + _dump(nested, True, unit, base)
    return text[:start + 1] + "\n" + base + member + "\n" + outer + text[close:]


def _dig(data: Any, keys: list[str]) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _json_list(text: str, data: Any, keys: list[str], name: str, on: bool, aliases: set[str]) -> str:
    current = _dig(data, keys)
    names = [n for n in current if isinstance(n, str)] if isinstance(current, list) else []
    folded = {fold(a) for a in aliases}
    if on:
        kept = [n for n in current if not (isinstance(n, str) and fold(n) in folded)] \
            if isinstance(current, list) else []
        return text if isinstance(current, list) and len(kept) == len(current) else \
            json_set(text, keys, kept) if isinstance(current, list) else text
    if any(fold(n) in folded for n in names):
        return text
    return json_set(text, keys, [*(current if isinstance(current, list) else []), name])


def _json_map(text: str, data: Any, keys: list[str], name: str, on: bool, aliases: set[str]) -> str:
    current = _dig(data, keys)
    current = current if isinstance(current, dict) else None
    if on:
        for key in list(current or {}):
            if key in aliases and current is not None and current[key] in CLAUDE_HIDDEN:
                text = json_set(text, [*keys, key], DELETE)
        return text
    if current is not None and current.get(name) == "off":
        return text
    return json_set(text, [*keys, name], "off")


# ---------------------------------------------------------------- TOML and YAML


def _toml(text: str, name: str, skill_file: Path, on: bool, aliases: set[str]) -> str:
    import tomlkit

    doc = tomlkit.parse(text)
    skills = doc.get("skills")
    config = skills.get("config") if isinstance(skills, dict) else None
    real = untrusted.real(skill_file)

    def ours(entry: Any) -> bool:
        if not isinstance(entry, dict) or entry.get("enabled") is not False:
            return False
        path, named = entry.get("path"), entry.get("name")
        return (isinstance(path, str) and untrusted.real(path) == real) or \
            (isinstance(named, str) and named in aliases)

    if on:
        if config is None:
            return text
        matching = [i for i, entry in enumerate(config) if ours(entry)]
        if not matching:
            return text
        assert config is not None and isinstance(skills, dict)
        for i in reversed(matching):
            del config[i]
        if len(config) == 0:
            del skills["config"]
            if len(skills) == 0:
                del doc["skills"]
        out = tomlkit.dumps(doc)
        return out.rstrip("\n") + "\n" if out.endswith("\n\n") else out
    if config is not None and any(ours(entry) and isinstance(entry.get("path"), str) for entry in config):
        return text
    table = tomlkit.table()
    table["path"] = str(skill_file)
    table["enabled"] = False
    if config is None:
        aot = tomlkit.aot()
        aot.append(table)
        if isinstance(skills, dict):
            skills["config"] = aot
        else:
            outer = tomlkit.table(is_super_table=True)
            outer["config"] = aot
            doc["skills"] = outer
    else:
        from tomlkit.items import AoT

        if isinstance(config, AoT):
            config.append(table)
        else:  # an array of inline tables
            inline = tomlkit.inline_table()
            inline.update({"path": str(skill_file), "enabled": False})
            config.append(inline)
    return tomlkit.dumps(doc)


def _yaml_indent(text: str) -> dict[str, int]:
    """The file's own indentation (ruamel's mapping/sequence/offset), so untouched lines keep it."""
    mapping = re.search(r"^( *)[^\s#-][^\n]*:[ \t]*(?:#[^\n]*)?\n( +)[^\s#-]", text, re.M)
    sequence = re.search(r"^( *)[^\s#-][^\n]*:[ \t]*(?:#[^\n]*)?\n( *)- ", text, re.M)
    indent = len(mapping.group(2)) - len(mapping.group(1)) if mapping else 2
    offset = max(0, len(sequence.group(2)) - len(sequence.group(1))) if sequence else 0
    return {"mapping": max(indent, 1), "sequence": offset + 2, "offset": offset}


def _yaml(text: str, name: str, on: bool, aliases: set[str]) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(**_yaml_indent(text))
    data = yaml.load(text) if text.strip() else CommentedMap()
    if data is None:
        data = CommentedMap()
    skills = data.get("skills")
    if skills is None:
        if on:
            return text
        skills = data["skills"] = CommentedMap()
    if not isinstance(skills, dict):
        raise ValueError("'skills' is not a mapping")
    current = skills.get("disabled")
    if isinstance(current, str):  # `hermes config set` may have stored a JSON string of a list
        try:
            parsed = json.loads(current)
        except ValueError:
            parsed = [current]
        current = CommentedSeq(x for x in parsed if isinstance(x, str)) if isinstance(parsed, list) else None
        skills["disabled"] = current
    if on:
        if not isinstance(current, list) or not any(x in aliases for x in current):
            return text
        for i in reversed(range(len(current))):
            if current[i] in aliases:
                del current[i]
    else:
        if isinstance(current, list) and any(x in aliases for x in current):
            return text
        if not isinstance(current, list):
            current = skills["disabled"] = CommentedSeq()
        current.append(name)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


# ---------------------------------------------------------------- one switch


def switch_change(switch: DisableSwitch, path: Path, name: str, folder: str, skill_file: Path,
                  on: bool) -> FileChange | None:
    """The edit of ``path`` (``switch``'s settings file) that turns the skill ``name`` (in the
    folder named ``folder``, its SKILL.md ``skill_file``) on or off (None: nothing to change)."""
    try:
        data = read_settings(path, switch.kind)
    except ValueError as exc:
        raise MachineError(f"{exc}; it is left as it is, and nothing was changed") from exc
    before = fileio.read_regular(path, DOCUMENT_MAX_BYTES) if data is not None else None
    text = before.decode("utf-8-sig") if before is not None else ""
    bom = before is not None and before.startswith(b"\xef\xbb\xbf")
    aliases = {name, folder}
    keys = switch.key.split(".")
    edits: dict[SwitchKind, Callable[[], str]] = {
        SwitchKind.JSON_NAME_LIST: lambda: _json_list(text or "{}\n", data or {}, keys, name, on, aliases),
        SwitchKind.JSON_NAME_MAP: lambda: _json_map(text or "{}\n", data or {}, keys, name, on, aliases),
        SwitchKind.TOML_PATH_TABLES: lambda: _toml(text, name, skill_file, on, aliases),
        SwitchKind.YAML_NAME_LIST: lambda: _yaml(text, name, on, aliases),
    }
    edit = edits.get(switch.kind)
    if edit is None:
        raise MachineError(f"{switch.kind.value} switches are not written here")
    try:
        after_text = edit()
    except (ValueError, AssertionError, IndexError, KeyError) as exc:
        raise MachineError(f"{path}: cannot be edited ({exc}); it is left as it is, and nothing was "
                           "changed") from exc
    if before is not None and after_text == text:
        return None
    if before is None and on:
        return None
    after = (b"\xef\xbb\xbf" if bom else b"") + after_text.encode("utf-8")
    return FileChange(path, before, after)
