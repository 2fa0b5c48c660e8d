"""The agent's own skill tools, as the model calls them and as they change a skill.

RockBot's ``SkillTools`` by the profile's :class:`~rockskills_gui.core.model.profile.Tools`:

- wire names (:func:`tool_names`): 64e82cc's tools are ``AIFunctionFactory.Create(method)`` with
  no name, so MEAI names them after the methods (``GetSkill``, ...); RockBot (current) pins them
  to snake_case (``get_skill``, ..., #493, PR #549; MarimerLLC/rockbot
  ``src/RockBot.Skills/SkillTools.cs`` @ 150a84c, descriptions word for word in
  :data:`DESCRIPTIONS`);
- ``get_skill`` (:func:`get_skill_result`): the content, and in RockBot (current) a newline and the
  resources block when the skill has a manifest (its skill name as the model passed it);
- ``save_skill`` (:func:`save_skill_record`): a new record -- summary ``""``, createdAt kept,
  updatedAt now, seeAlso null, lastUsedAt now in RockBot (current) (#275; null in 64e82cc), the
  manifest kept, ``surfaceBaseline`` null (no MCP gateway offline);
- ``edit_skill`` (:func:`edit_skill`, RockBot (current) only): ``TextEdit.Apply`` on the content,
  everything else kept, updatedAt now; its messages word for word
  (``FileSkillStore.EditContentAsync`` @ 4105def).

:func:`agent_edit` and :func:`agent_save` apply them to a library as one undoable change;
:func:`agent_edit_to` saves an edited content as the agent's ``edit_skill`` would (the Skill
tab's "Save Like the Agent").
"""

from __future__ import annotations

from dataclasses import dataclass

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.manifest import manifest_block, manifest_entries
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.profile import AgentProfile, ToolNaming, Tools
from rockskills_gui.core.model.skill import Skill, utf16_len
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.index_text import list_skills_text
from rockskills_gui.core.storage.changes import ChangeSet, LibraryError
from rockskills_gui.core.text.text_edit import apply_text_edit, edit_strings

GET_SKILL, GET_SKILL_RESOURCE, LIST_SKILLS = "get_skill", "get_skill_resource", "list_skills"
SAVE_SKILL, EDIT_SKILL, DELETE_SKILL = "save_skill", "edit_skill", "delete_skill"

# The tools each naming has, by their snake_case key -> the wire name.
WIRE_NAMES: dict[ToolNaming, dict[str, str]] = {
    ToolNaming.NONE: {},
    ToolNaming.METHOD: {GET_SKILL: "GetSkill", LIST_SKILLS: "ListSkills", SAVE_SKILL: "SaveSkill",
                        DELETE_SKILL: "DeleteSkill"},
    ToolNaming.SNAKE: {k: k for k in (GET_SKILL, GET_SKILL_RESOURCE, LIST_SKILLS, SAVE_SKILL,
                                      EDIT_SKILL, DELETE_SKILL)},
}
# SkillTools' [Description]s @ 150a84c (the snake_case tools; 64e82cc's were not read).
DESCRIPTIONS: dict[str, str] = {
    GET_SKILL: "Load the full instructions for a named skill so you can follow them. Call this when "
               "the skill index shows a skill relevant to the user's request. Returns the skill "
               "content and the list of sub-resources (if any) that can be fetched individually "
               "with get_skill_resource.",
    GET_SKILL_RESOURCE: "Fetch a single sub-resource file from a skill's resource folder. Use the "
                        "manifest shown by get_skill to decide which resource to load.",
    LIST_SKILLS: "List all available skills with their one-line summaries. Use this to discover what "
                 "skills exist or to refresh the index mid-session.",
    SAVE_SKILL: "Create or update a skill with markdown instructions for completing a specific type of "
                "task. Write the content as markdown: include a heading, a 'When to use' section, and "
                "numbered steps. Attach structured artifacts (scripts, schemas, etc.) as resources "
                "rather than embedding them in markdown. A summary will be generated automatically and "
                "added to the skill index. Returns the updated skill index.",
    EDIT_SKILL: "Change part of an existing skill's markdown without rewriting the whole document. This "
                "is the right tool for the usual case \u2014 adding a pitfall you just hit, correcting a "
                "step, updating an example. save_skill replaces the entire body, so anything you do not "
                "reproduce verbatim is lost, and on a long procedure you will not reproduce it verbatim. "
                "Editing also keeps the existing summary instead of regenerating it. Call get_skill "
                "first and copy old_string from what it returns; it must match exactly, and if it "
                "appears more than once the edit is refused \u2014 include more surrounding text or set "
                "replace_all.",
    DELETE_SKILL: "Delete a skill by name. Returns the updated skill index.",
}


DESCRIBED: dict[ToolNaming, dict[str, str]] = {ToolNaming.SNAKE: DESCRIPTIONS}


def description(tools: Tools, key: str) -> str:
    """The tool's description as the model reads it ("" where it was not read upstream)."""
    return DESCRIBED.get(tools.naming, {}).get(key, "")


def tool_names(tools: Tools) -> dict[str, str]:
    """The agent's skill tools: snake_case key -> the name the model calls it by."""
    return WIRE_NAMES[tools.naming]


def not_found(name: str) -> str:
    """``get_skill``'s answer for an unknown name (both profiles)."""
    return f"Skill '{name}' not found. Call list_skills to see available skills."


def get_skill_result(skill: Skill | None, name: str, tools: Tools) -> str:
    """What ``get_skill(name)`` returns for ``skill`` (None: not in the library). RockBot also
    stamps lastUsedAt and logs a usage event; that is not done here."""
    if skill is None:
        return not_found(name)
    content = skill.content or ""
    if not tools.get_skill_resources:
        return content
    block = manifest_block(name, manifest_entries(skill)) if skill.extra else ""
    return content + "\n" + block if block else content


def save_skill_record(existing: Skill | None, name: str, content: str, now: Timestamp,
                      tools: Tools, null_properties: tuple[str, ...] = ()) -> Skill:
    """The record ``save_skill(name, content)`` writes (resources not given). Properties the
    agent's record does not have are dropped; RockBot (current)'s ``manifest`` is kept and its
    ``surfaceBaseline`` written null (no MCP gateway here)."""
    extra: tuple[tuple[str, str], ...] = ()
    if null_properties:
        kept = {k.lower(): v for k, v in existing.extra} if existing is not None else {}
        extra = tuple((p, kept.get("manifest", "null") if p.lower() == "manifest" else "null")
                      for p in null_properties)
    return Skill(name=name, summary="", content=content,
                 created_at=existing.created_at if existing is not None else now, updated_at=now,
                 last_used_at=now if tools.save_sets_last_used else None, see_also=None, extra=extra)


def save_skill_message(name: str, skills_after: list[Skill], now: Timestamp,
                       profile: AgentProfile) -> str:
    """``save_skill``'s answer: saved, the summary is generated in the background, the index."""
    return (f"Skill '{name}' saved. Summary is being generated.\n\n"
            f"{list_skills_text(skills_after, now, profile.listing.kind)}")


@dataclass(frozen=True)
class EditOutcome:
    """``edit_skill``'s answer, and the skill it writes (None: nothing is written)."""

    message: str
    skill: Skill | None = None


def edit_skill(existing: Skill | None, name: str, old: str, new: str, replace_all: bool,
               now: Timestamp) -> EditOutcome:
    """``edit_skill(name, old_string, new_string, replace_all)`` on ``existing`` (None: unknown)."""
    if existing is None:
        return EditOutcome(f"Edit failed on skill '{name}': Skill '{name}' not found. "
                           "List skills to see what exists.")
    before = existing.content or ""
    result = apply_text_edit(before, old, new, replace_all)
    if result.content is None:
        return EditOutcome(f"Edit failed on skill '{name}': {result.error}")
    plural = "occurrence" if result.replacements == 1 else "occurrences"
    message = (f"Skill '{name}' edited \u2014 replaced {result.replacements} {plural} "
               f"({utf16_len(before)} \u2192 {utf16_len(result.content)} characters). "
               "Summary and resources unchanged.")
    return EditOutcome(message, existing.model_copy(update={"content": result.content, "updated_at": now}))


@dataclass(frozen=True)
class AgentWrite:
    """A tool applied to a library: its answer and the change written (None: nothing)."""

    message: str
    change: ChangeSet | None = None


def agent_edit(library: Library, name: str, old: str, new: str, replace_all: bool = False) -> AgentWrite:
    """``edit_skill`` on ``library``'s skill ``name`` as one undoable change (raises LibraryError
    when the profile's agent has no ``edit_skill``)."""
    tools = library.profile.injection.tools
    if not tools.edit_skill:
        raise LibraryError(f"{library.profile.label} has no edit_skill tool")
    outcome = edit_skill(library.get(name), name, old, new, replace_all, library.clock())
    if outcome.skill is None:
        return AgentWrite(outcome.message)
    return AgentWrite(outcome.message, library.save(outcome.skill, touch=False))


def agent_edit_to(library: Library, name: str, content: str) -> AgentWrite:
    """Save ``content`` as the agent's ``edit_skill`` would write it ("edit like the agent"): the
    one exact-string edit that turns the skill's content into ``content``
    (:func:`~rockskills_gui.core.text.text_edit.edit_strings`), so the summary, see-also,
    lastUsedAt and resources stay as they are and only content and updatedAt change; the
    agent's answer is the message. Raises LibraryError for a profile without ``edit_skill``."""
    if not library.profile.injection.tools.edit_skill:
        raise LibraryError(f"{library.profile.label} has no edit_skill tool")
    existing = library.get(name)
    if existing is None:
        raise LibraryError(f"'{name}' is not a skill of this library")
    strings = edit_strings(existing.content or "", content)
    if strings is None:
        return AgentWrite(f"Skill '{existing.name}': the content is unchanged; nothing to edit.")
    return agent_edit(library, existing.name, *strings)


def agent_save(library: Library, name: str, content: str) -> AgentWrite:
    """``save_skill`` over ``library``'s existing skill ``name`` as one undoable change (a new
    name: use the library's create)."""
    existing = library.get(name)
    if existing is None:
        raise LibraryError(f"'{name}' is not a skill of this library")
    profile = library.profile
    now = library.clock()
    record = save_skill_record(existing, existing.name, content, now, profile.injection.tools,
                               profile.storage.null_properties)
    change = library.save(record, touch=False)
    after = [record if fold(s.name) == fold(name) else s for s in library.skills()]
    return AgentWrite(save_skill_message(name, after, now, profile), change)
