"""System messages for the dream passes: the library's directive files, or our own built-in texts.

RockBot reads ``skill-gap.md``, ``skill-dream.md`` and ``skill-optimize.md`` from the agent's base
path when they exist and otherwise uses built-in fallbacks (rockbot-skills.md §11). Those built-in
texts are not reproduced here: the ones below are written for this project, to the same intent and
the same JSON output schema. A run may replace any directive with an edited text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from rockskills_gui.core.dream.passes import LLM_PASSES, DreamPass
from rockskills_gui.core.model.size_limits import DOCUMENT_MAX_BYTES
from rockskills_gui.core.model.skill import decode_file_text
from rockskills_gui.core.storage import fileio

DIRECTIVE_FILES: dict[DreamPass, str] = {
    DreamPass.GAP: "skill-gap.md",
    DreamPass.CONSOLIDATE: "skill-dream.md",
    DreamPass.OPTIMIZE: "skill-optimize.md",
    DreamPass.MCP_REFRESH: "mcp-skill-refresh-dream.md",  # RockBot (current), DreamOptions @ 150a84c
}


class DirectiveSource(StrEnum):
    LIBRARY = "library"    # the agent's own directive file
    BUILT_IN = "built-in"  # our fallback text
    EDITED = "edited"      # changed by the user for this run


@dataclass(frozen=True)
class Directive:
    """The system message of one pass and where it came from."""

    dream_pass: DreamPass
    text: str
    source: DirectiveSource
    path: str | None = None  # the file, for LIBRARY

    def edited(self, text: str) -> Directive:
        """The same directive with the user's text (unchanged text keeps its source)."""
        if text == self.text:
            return self
        return Directive(self.dream_pass, text, DirectiveSource.EDITED, self.path)


BUILT_IN_GAP = """\
You help an AI agent notice work it keeps doing without a written procedure.

You will get the agent's recent conversations grouped by session, the skills it already has, and \
sometimes feedback on sessions in which no skill was used, plus words that recur across sessions.

Propose a new skill only for a kind of request that shows up in at least two sessions, or that one \
session makes plainly recurring. Do not propose anything an existing skill already covers. Negative \
feedback on a session without a skill is the strongest reason to write one, even when only one \
session shows it. Positive feedback on such a session suggests an approach worth writing down.

For each skill:
- name: short, lower-case, words joined by hyphens; use a prefix such as mcp/, web/ or scripts/ \
when one fits;
- summary: one line of at most 15 words saying when to use the skill;
- content: markdown with a title, a "When to use" section and numbered steps that name the tools \
and parameters seen in the conversations. Invent nothing.

Answer with one JSON object and nothing else:
{ "toSave": [ { "name": "...", "summary": "...", "content": "..." } ] }
If nothing qualifies, answer { "toSave": [] }.
"""

BUILT_IN_CONSOLIDATE = """\
You maintain an AI agent's library of skills: short markdown procedures it loads by name.

You will get every skill with its usage in the last 30 days, the skills it is often used with, a \
note when its content is thin, then the pairs of skills used in the same sessions and groups of \
skills that share a name prefix.

Tidy the library conservatively:
1. Merge skills that describe the same task. The merged skill keeps every concrete detail of its \
sources: tool names, parameters, identifiers, accounts, limits and warnings. List every source in \
sourceNames and also in toDelete.
2. When a prefix group has two or more skills and no "{prefix}/guide", you may add an abstract \
guide that explains when to use which member. A guide replaces nothing.
3. Fill seeAlso with the names of closely related skills: siblings, skills used together, skills \
that complete each other.
4. Never delete a skill without saving what replaces it. Leave distinct skills alone.
5. A source cut short with "[... truncated for consolidation pass ...]" is incomplete: do not \
merge it and never copy that marker.

Each saved skill: a lower-case hyphenated name, a summary of at most 15 words, content of a title, \
a "When to use" section and numbered steps, about 300 to 800 characters, no tables, and no double \
quote characters inside the content (use single quotes) so the JSON stays valid.

Answer with one JSON object and nothing else:
{ "toDelete": ["name", ...], "toSave": [ { "name": "...", "summary": "...", "content": "...", \
"sourceNames": ["..."], "seeAlso": ["..."] } ] }
If nothing needs doing, answer { "toDelete": [], "toSave": [] }.
"""

BUILT_IN_OPTIMIZE = """\
You improve skills of an AI agent, the markdown procedures it follows for recurring tasks.

You will get skills used in sessions that went badly, each followed by the feedback of those \
sessions (corrections, tool failures, thumbs up or down, session evaluations), and skills whose \
content is too thin to be useful.

For a skill with failure context: find the step that most likely caused the problem (a missing \
check, a wrong or missing parameter, an ambiguous instruction) and change only what fixes it. For a \
thin skill: add concrete steps, an example and the edge cases the text already implies. Keep the \
skill's name, put that name in sourceNames, keep every correct detail, invent no tools or facts, \
and keep the summary to at most 15 words. Skip a skill when the cause is unclear.

Answer with one JSON object and nothing else:
{ "toDelete": [], "toSave": [ { "name": "...", "summary": "...", "content": "...", \
"sourceNames": ["..."] } ] }
If nothing can be improved with confidence, answer { "toDelete": [], "toSave": [] }.
"""

BUILT_IN_MCP_REFRESH = """\
You bring a skill of an AI agent up to date with the MCP server it documents. The server's tools \
changed since the skill was written.

You will get the skill's markdown and the server's tools as they are now, each with its \
description and input schema; the schemas are the truth. Correct every tool name, parameter, type, \
required flag and allowed value the skill mentions so that it matches them, fix the examples' \
arguments, and drop what refers to tools that are gone. Keep everything else as it is: the \
procedures, the pitfalls, the account and id mappings, the examples, the headings and any section \
another pass appended. Do not add tools the skill did not cover.

Answer with one JSON object and nothing else:
{ "changed": true, "content": "the whole corrected markdown (empty when changed is false)", \
"notes": "one sentence: what changed, or why nothing had to" }
Answer with "changed": false when the skill already agrees with the schemas.
"""

BUILT_IN: dict[DreamPass, str] = {
    DreamPass.GAP: BUILT_IN_GAP,
    DreamPass.CONSOLIDATE: BUILT_IN_CONSOLIDATE,
    DreamPass.OPTIMIZE: BUILT_IN_OPTIMIZE,
    DreamPass.MCP_REFRESH: BUILT_IN_MCP_REFRESH,
}


def directive_path(agent_dir: Path, dream_pass: DreamPass) -> Path:
    """Where RockBot looks for the pass's directive (resolved against the agent base path)."""
    return agent_dir / DIRECTIVE_FILES[dream_pass]


def load_directive(agent_dir: Path, dream_pass: DreamPass) -> Directive:
    """The library's directive file when it exists (read as .NET ReadAllText), else our built-in."""
    if dream_pass not in DIRECTIVE_FILES:
        raise ValueError(f"no directive for {dream_pass}")
    path = directive_path(agent_dir, dream_pass)
    if path.is_file():
        try:
            # (swapped for a FIFO: refused; over DOCUMENT_MAX_BYTES: not read)
            text, _ = decode_file_text(fileio.read_regular(path, DOCUMENT_MAX_BYTES))
        except OSError:
            pass
        else:
            return Directive(dream_pass, text, DirectiveSource.LIBRARY, str(path))
    return Directive(dream_pass, BUILT_IN[dream_pass], DirectiveSource.BUILT_IN)


def load_directives(agent_dir: Path,
                    passes: tuple[DreamPass, ...] | None = None) -> dict[DreamPass, Directive]:
    """The directives of ``passes`` (default: the three every RockBot runs)."""
    return {p: load_directive(agent_dir, p) for p in (passes or LLM_PASSES)}
