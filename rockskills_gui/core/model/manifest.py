"""A RockBot (current) skill's ``manifest`` as the agent reads and shows it: the resource tag of
the session index and ``list_skills`` (``SkillTools.FormatResourceTag``) and the resources
block after a framed or fetched body (``SkillTools.FormatManifestBlock``).

Both are MarimerLLC/rockbot ``src/RockBot.Skills/SkillTools.cs`` @ 150a84c, word for word. The
manifest is read as System.Text.Json reads a ``SkillResource`` list (property names
case-insensitive; ``type`` an enum, shown by its name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rockskills_gui.core.model.names import dotnet_trim_end
from rockskills_gui.core.model.skill import Skill

# SkillResourceType, in declaration order (an enum written as a number is shown by its name).
RESOURCE_TYPES = ("Python", "Wisp", "JsonSchema", "Markdown", "Text", "Other")


@dataclass(frozen=True)
class ManifestEntry:
    """The parts of one ``SkillResource`` the agent's texts show."""

    filename: str
    type: str  # the enum's name ("Python", ...)
    description: str
    provisional: bool


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return RESOURCE_TYPES[value] if 0 <= value < len(RESOURCE_TYPES) else str(value)
    if isinstance(value, str):
        return next((t for t in RESOURCE_TYPES if t.lower() == value.lower()), value)
    return ""


def _entry(item: Mapping[str, object]) -> ManifestEntry:
    props = {str(k).lower(): v for k, v in item.items()}
    filename, description = props.get("filename"), props.get("description")
    return ManifestEntry(filename if isinstance(filename, str) else "", _type_name(props.get("type")),
                         description if isinstance(description, str) else "",
                         props.get("provisional") is True)


def manifest_entries(skill: Skill) -> list[ManifestEntry] | None:
    """The skill's manifest (objects only, in order), or None when it has none or it is null."""
    try:
        value = skill.extra_value("manifest")
    except ValueError:
        return None
    if not isinstance(value, list):
        return None
    return [_entry(item) for item in value if isinstance(item, Mapping)]


def resource_tag(manifest: list[ManifestEntry] | None) -> str:
    """``FormatResourceTag``: `` [JsonSchema, Python, Wisp*]`` -- the distinct types in ordinal
    order, ``*`` when any entry of that type is provisional; "" for no manifest."""
    if not manifest:
        return ""
    provisional: dict[str, bool] = {}
    for entry in manifest:
        provisional[entry.type] = provisional.get(entry.type, False) or entry.provisional
    types = sorted(provisional, key=lambda t: t.encode("utf-16-be", "surrogatepass"))
    return " [" + ", ".join(t + "*" if provisional[t] else t for t in types) + "]"


def skill_resource_tag(skill: Skill) -> str:
    """The skill's resource tag (:func:`resource_tag` of its manifest; "" without one)."""
    return resource_tag(manifest_entries(skill)) if skill.extra else ""


def manifest_block(skill_name: str, manifest: list[ManifestEntry] | None) -> str:
    """``FormatManifestBlock``: a ``---`` rule, the ``**Resources**`` line and one line per entry,
    trimmed at the end (also the last description's trailing spaces); "" for no manifest."""
    if not manifest:
        return ""
    lines = ["---", f'**Resources** (fetch with `get_skill_resource("{skill_name}", "<filename>")`):']
    lines += [f"- `{e.filename}` ({e.type}): {e.description}" for e in manifest]
    return dotnet_trim_end("\n".join(lines) + "\n")
