"""An agent profile: one object that says, as data, how an agent keeps, names, lists, selects,
injects and curates its skills, and what a library of it can hold.

Code asks a profile (``library.profile.holds.resources``, ``profile.listing.kind``), it never
branches on which agent it is. Behaviour keyed by a capability's value lives in the layer that
owns it, as a table: the name check of a :class:`NameKind` in ``core/library/names.py``, the
renderer of a :class:`ListingKind` in ``core/budget/agents.py``, the window's part for each
capability in ``ui/common/capabilities.py``. The instances are in :mod:`.profiles`; every one
cites where each capability comes from (``sources``: a repository, file and commit, or
"assumed: why").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from rockskills_gui.core.model.agent_note import AgentNote
from rockskills_gui.core.model.summary_rule import SummaryRule

__all__ = ["CAPABILITIES", "MOVE_ASIDE", "AgentProfile", "Bodies", "Curation", "Delete", "DisableSwitch",
           "DreamSchedule", "FileKind", "Framing", "Frontmatter", "Holds", "Injection", "InjectionKind",
           "Listing", "ListingKind", "NameKind", "NameRules", "Precedence", "Selection", "Storage",
           "SwitchKind", "ToolNaming", "Tools"]


class FileKind(StrEnum):
    """What a skill is on disk."""

    ROCKBOT_JSON = "rockbot-json"  # skills/{name}.json, '/' in a name makes folders
    SKILL_MD = "skill-md"  # <root>/<folder>/SKILL.md with YAML frontmatter
    CORTEX_DB = "cortex-db"  # rows of memory.db's procedural_memory (read-only here)


class Precedence(StrEnum):
    """Which skill wins when two roots hold the same name."""

    SINGLE_ROOT = "single-root"  # one skills folder (RockBot: the last file enumerated wins a case clash)
    PROJECT_FIRST = "project-first"  # project roots before user roots, the first in load order wins
    USER_FIRST = "user-first"  # user roots before project roots, the first wins (Claude Code)
    NO_SHADOWING = "no-shadowing"  # every copy loads and is listed; a name mention is ambiguous (Codex)


class NameKind(StrEnum):
    """Which rule a new name is checked with (the check itself: core/library/names.py)."""

    ROCKBOT = "rockbot"  # '/'-separated segments of letters, digits, '-' and '_' (SkillStore)
    SKILL_FOLDER = "skill-folder"  # one folder name: no '/', no leading '.', no surrounding spaces


class ListingKind(StrEnum):
    """How the agent advertises its skills (the renderer: core/budget/agents.py)."""

    ROCKBOT_INDEX = "rockbot-index"  # "Available skills (use get_skill ...)" + "- name: summary"
    # RockBot (current): the header explains resource tags, "- name [Python, Wisp*]: summary";
    # list_skills tags its lines the same way (SkillTools.FormatResourceTag)
    ROCKBOT_INDEX_TAGGED = "rockbot-index-tagged"
    AVAILABLE_SKILLS_XML = "available-skills-xml"  # skills-ref to_prompt's <available_skills>
    PICOBOT_INDEX = "picobot-index"  # "### name" blocks in prompts/SKILLS.md
    CORTEX_MARKDOWN = "cortex-markdown"  # CortexPrism's reliable-skill Markdown list
    CARPENTER_CATALOGUE = "carpenter-catalogue"  # kb/skills/_index.md read through kb_describe
    CODEX = "codex"  # "## Skills" + "- name: description (file: path)", shortened to a budget
    CLAUDE_CODE = "claude-code"  # a <system-reminder> of "- name: description" lines, 1% of context
    GEMINI = "gemini"  # "# Available Agent Skills" + <available_skills>, no limit
    COPILOT = "copilot"  # VS Code's <skills> block, 15,000 characters of entries
    HERMES = "hermes"  # "## Skills (mandatory)" by category, descriptions cut to 60 characters


class Selection(StrEnum):
    """How the agent picks the skills a turn gets."""

    BM25 = "bm25"  # BM25 over name and summary, top 5 (Bm25Ranker)
    HYBRID = "hybrid"  # BM25 with stored embeddings (HybridRanker)
    LLM_LISTING = "llm-listing"  # the model reads the listing and activates a skill itself
    EMBEDDING_LEXICAL = "embedding-lexical"  # embedding match, slots left filled lexically


class InjectionKind(StrEnum):
    """What the agent puts into the conversation for a selected skill."""

    ROCKBOT_64E82CC = "rockbot-64e82cc"  # "Skill: {name}" + content per recalled skill, see-also line
    ROCKBOT_CURRENT = "rockbot-current"  # framed rank-1 body, ranks 2-5 listed, short-message gate,
    # body aging, mcp/{server} skills on MCP tool calls (the fields of :class:`Injection` say which)
    SKILL_ACTIVATION = "skill-activation"  # an activation returns the SKILL.md body (resources on demand)
    PROMPT_LIST = "prompt-list"  # the matched skills' list in the system prompt


class Delete(StrEnum):
    """What removing a skill means: a dream's delete, prune and merge's sources, and the Library
    tree's Delete (issue 32: every profile archives; core/library/archive.remove_skills)."""

    REMOVE = "remove"  # its files are removed (undo brings them back while the history lasts)
    ARCHIVE = "archive"  # moved where the agent cannot see it, restorable


@dataclass(frozen=True)
class Frontmatter:
    """SKILL.md frontmatter rules: how values are written and which keys the spec knows."""

    plain: str = "yaml"  # "line": line-based readers keep quotes literally, so avoid them
    export_keys: tuple[str, ...] | None = None  # keys a fresh export writes (None: all it has)
    allowed_keys: tuple[str, ...] | None = (
        "name", "description", "license", "compatibility", "metadata", "allowed-tools")
    compatibility_limit: int | None = 500
    line_reader: bool = False  # the agent reads it line by line: block scalars and quotes stay literal
    needs_body: bool = False  # the agent skips a skill whose body is empty


@dataclass(frozen=True)
class Storage:
    """Where the skills live and how they are found."""

    file_kinds: tuple[FileKind, ...]
    file_names: tuple[str, ...]  # a skill file's names, in order of preference
    project_roots: tuple[str, ...]  # folders below the opened one that hold skills
    user_roots: tuple[str, ...] = ()  # folders in the user's home that hold skills
    precedence: Precedence = Precedence.PROJECT_FIRST
    recursive: bool = True  # skills are found below a root at any depth, not only one level down
    resource_dirs: tuple[str, ...] = ()  # SKILL.md: a skill folder's resource folders
    resource_suffix: str | None = None  # RockBot: the {name}.resources/ folder beside {name}.json
    ignored_dirs: tuple[str, ...] = ()  # folders below a root the agent owns (never read or touched)
    plugin_manifests: tuple[str, ...] = ()  # a folder holding one of these is a plugin ("plugin:skill")
    # where an archived skill goes (issue 32): inside each root where a skill is a folder (SKILL.md:
    # ".archive"), else inside the agent folder (RockBot: ".rockskills/archive", outside skills/)
    archive_dir: str | None = None
    null_properties: tuple[str, ...] = ()  # written as null when a skill has none (RockBot current)
    frontmatter: Frontmatter = Frontmatter()  # SKILL.md's frontmatter rules (other file kinds: unused)
    # Discovery (issue 31). How deep below a root a skill folder may be (1: <root>/<name>/SKILL.md;
    # None: any depth the walks go); deeper skill files are named in a problem, not loaded.
    scan_depth: int | None = None
    skip_dot_dirs: bool = False  # folders whose name starts with '.' are never scanned (Codex)
    skipped_dirs: tuple[str, ...] = ()  # folders below a root the agent never scans (Hermes)
    marketplace_manifests: tuple[str, ...] = ()  # files listing a marketplace's plugins
    plugin_skill_dirs: tuple[str, ...] = ("skills",)  # a plugin's skill roots (unless its manifest says)
    extension_roots: tuple[str, ...] = ()  # user-scope roots below each extension ('*': any folder)
    nested_skills_load: bool = False  # a SKILL.md inside a skill's folder is a skill too (Codex)


@dataclass(frozen=True)
class NameRules:
    """How skills are named: the rule a new name is checked with, and what the agent says."""

    kind: NameKind
    case_insensitive: bool = True  # names differing only by case are the same skill
    require_name: bool = False  # SKILL.md: a file without a frontmatter name is skipped (else: its folder)
    folder_is_name: bool = False  # the skill's folder is named after it (SKILL.md)
    spec: bool = False  # the Agent Skills spec's name rules are checked (lint warnings)
    mcp_naming: bool = False  # MCP skills are mcp/{server}[/...]; top-level mcp-x is flagged
    taken_hint: str = ""  # said after "A skill named 'x' already exists"
    # What the agent itself refuses (issue 31): such a skill is not loaded, with the agent's message.
    max_length: int | None = None  # the longest name it loads (counted with a plugin's prefix)
    too_long: str = ""  # its message: "{field}" and "{limit}" filled in
    strings_only: bool = False  # a name or description that is not a string: the file is skipped
    replaced_chars: str = ""  # characters of a name the agent turns into '-'
    description_max: int | None = None  # the longest description it loads
    missing_description: str = ""  # its message for a skill without a description
    namespace_separator: str = ":"  # a plugin's skill is "<plugin><separator><skill>"


@dataclass(frozen=True)
class Listing:
    """How the agent advertises its skills, and how much of the list it keeps."""

    kind: ListingKind
    max_chars: int | None = None  # the user's limit for the listing's characters (None: none)
    max_entries: int | None = None  # the user's limit for the listed skills (None: none)
    agent_max_chars: int | None = None  # the agent's own cut, when it has one
    agent_max_entries: int | None = None
    context_fraction: float | None = None  # a share of the context window (None: not a share)
    per_entry_cap: int | None = None  # characters of one entry (None: no cap)
    context_window: int | None = None  # the model's window (tokens) the agent's share assumes
    chars_per_token: int | None = None  # how the agent turns tokens into characters or bytes
    overflow_chars: int | None = None  # the list of names past the budget (VS Code)
    tool: str = ""  # the tool the model calls to activate a listed skill ("": it reads the file)


class Framing(StrEnum):
    """How a recalled skill's body is worded in its system message (core/recall/session.py)."""

    BARE = "bare"  # "Skill: {name}\n{content}" (64e82cc)
    PREAMBLE = "preamble"  # SkillRecallFraming.Wrap: the preamble, "Skill: {name}", content, resources


class Bodies(StrEnum):
    """Which newly recalled skills of a turn get their body (core/recall/session.py)."""

    EVERY = "every"  # one message per newly recalled skill, then the see-also line (64e82cc)
    FIRST_AND_LIST = "first-and-list"  # the first new skill's body, the others as one summary list,
    # then the see-also line (AgentContextBuilder.BuildAsync after #548)
    EVERY_ALONE = "every-alone"  # one message per new skill, no list, no see-also (BuildForWorkerAsync)


class ToolNaming(StrEnum):
    """The names the agent's skill tools have on the wire (core/recall/agent_tools.py)."""

    NONE = "none"  # the agent has no skill tools of this kind (SKILL.md agents: activation)
    METHOD = "method"  # the C# method names, MEAI's default: GetSkill, SaveSkill, ... (64e82cc)
    SNAKE = "snake"  # pinned snake_case: get_skill, save_skill, edit_skill, ... (#493, PR #549)


@dataclass(frozen=True)
class Tools:
    """The agent's own skill tools: their names and what they do to a skill."""

    naming: ToolNaming = ToolNaming.NONE
    save_sets_last_used: bool = False  # save_skill stamps lastUsedAt = now (#275); else null
    edit_skill: bool = False  # edit_skill: exact-string replace, summary and resources kept
    get_skill_resources: bool = False  # get_skill appends the "**Resources**" block


@dataclass(frozen=True)
class Injection:
    """What selecting a skill puts into the conversation, and when the agent reads its skills."""

    kind: InjectionKind
    mcp_skills: bool = False  # MCP tool results inject mcp/{server} skills (RockBot current)
    note: AgentNote | None = None  # what a running agent does with edited skills (None: not known)
    framing: Framing = Framing.BARE
    bodies: Bodies = Bodies.EVERY
    worker_bodies: Bodies | None = None  # a worker (subagent) session's rule (None: not modelled)
    short_message_chars: int = 0  # a message of at most this many UTF-16 units recalls nothing (0: no gate)
    body_unload_after: int = 0  # SkillBodyUnloadAfterIterations: tool calls a body stays unused (0: never)
    tools: Tools = Tools()


@dataclass(frozen=True)
class DreamSchedule:
    """When the agent dreams: a cron expression in the agent's time zone, or a fixed interval
    after a delay from its start (what the "next dream" hint says)."""

    initial_delay_minutes: int = 5  # the first cycle after the agent starts
    interval_hours: int | None = None  # every N hours after the first cycle (None: cron)
    cron: str | None = None  # Cronos, 5 fields (minute hour day month weekday)


class SwitchKind(StrEnum):
    """How a disable switch is written (the writers: core/machine/switches.py)."""

    JSON_NAME_LIST = "json-name-list"  # a JSON settings file's list of names ("skills.disabled")
    JSON_NAME_MAP = "json-name-map"  # a JSON settings file's map of name -> "off" ("skillOverrides")
    TOML_PATH_TABLES = "toml-path-tables"  # [[skills.config]] path = ".../SKILL.md", enabled = false
    YAML_NAME_LIST = "yaml-name-list"  # a YAML settings file's list of names ("skills.disabled")
    SKILL_FIELD = "skill-field"  # a field in the skill's own files (written only when the user asks)
    MOVE = "move"  # the skill folder moved to a sibling folder the agent does not scan


@dataclass(frozen=True)
class DisableSwitch:
    """Where the agent keeps a skill switched off without deleting it.

    ``file``: the settings file ("~/..." below the home, else below the project; "" or a skill
    file for SKILL_FIELD); for MOVE the folder the skill goes to, "{root}" being its skills root.
    ``scope``: the skills it is for (user | project | skill | any)."""

    file: str  # the settings file, "~" for the home ("" for frontmatter)
    key: str  # the key or frontmatter field
    example: str  # what turning one skill off looks like there
    scope: str = "user"  # user | project | skill | any
    kind: SwitchKind = SwitchKind.SKILL_FIELD


# The rule for an agent without a switch of its own (and for every skill folder moved aside): the
# folder goes to ``<root>.disabled/``, beside the root. No agent scans it: every profile's roots are
# named folders (``.claude/skills``, ``~/.agents/skills``...), none of them ends in ".disabled",
# and the walks stay below a root (a sibling inside the root would be seen by Hermes, which walks
# every folder but its EXCLUDED_SKILL_DIRS, and by Codex below a name not starting with '.').
MOVE_ASIDE = DisableSwitch("{root}.disabled", "", "<root>.disabled/my-skill/SKILL.md", scope="any",
                           kind=SwitchKind.MOVE)


@dataclass(frozen=True)
class Curation:
    """How the library is curated: the dream passes, what delete means, what is protected."""

    passes: tuple[str, ...] = ()  # the dream passes this app runs for it (core/dream/passes.py)
    delete: Delete = Delete.REMOVE
    protected_prefixes: tuple[str, ...] = ()  # never pruned, merged away or deleted by a dream
    singleton_prefixes: tuple[str, ...] = ()  # suffixes are 1:1 bindings: never merged across
    keep_summary_keywords: bool = False  # a merged summary keeps each original's keywords
    ledger_file: str | None = None  # a gated pass is skipped while its inputs are unchanged
    ledger_max_skip_days: int = 7  # DreamPassMaxSkipInterval: a gated pass runs at least this often
    carry_mcp_baseline: bool = False  # a merge keeps the oldest surfaceBaseline of its mcp/ sources
    mcp_refresh_per_cycle: int = 0  # stale mcp/ skills the refresh pass rewrites per cycle (0: none)
    schedule: DreamSchedule = DreamSchedule()
    disable: tuple[DisableSwitch, ...] = ()  # the agent's own switches (issue 31; written: issue 33)

    def switches(self) -> tuple[DisableSwitch, ...]:
        """The agent's own switches, then moving the folder aside (:data:`MOVE_ASIDE`)."""
        return (*self.disable, MOVE_ASIDE)


@dataclass(frozen=True)
class Holds:
    """What a library of this agent can hold (the window shows a part only where it can)."""

    resources: bool = False  # files that belong to a skill, listed with it
    health: bool = False  # per-skill scores (trust, success rate, utility)
    lifecycle: bool = False  # a lifecycle per skill (released, deprecated, archived, ...)
    read_only_rows: bool = False  # skills this app shows but never writes (memory.db rows)
    usage_log: bool = False  # the agent logs skill usage beside the skills
    usage_retention: bool = False  # the agent deletes old usage log lines (the app's archive keeps them)
    resource_reads: bool = False  # the agent logs which resources it read
    timestamps: bool = False  # createdAt / updatedAt / lastUsedAt stored in each skill
    see_also: bool = True  # see-also lists between skills
    mcp_baselines: bool = False  # MCP skills carry a surface baseline (their freshness)


CAPABILITIES = ("storage", "names", "summary", "listing", "selection", "injection", "curation",
                "holds")


@dataclass(frozen=True)
class AgentProfile:
    """One agent's skills, as capabilities (see the module doc)."""

    id: str  # "rockbot-64e82cc", "rockbot-current", "agentskills", "picobot", "cortex", "carpenter"
    label: str  # the agent as messages name it ("Agent Skills asks for ...")
    title: str  # what the window title and the format menus show
    format: str  # the detected format ("rockbot", "agentskills", "picobot", "carpenter", "cortex")
    settings_id: str  # the key of its settings, convert target and sidecars ("cortex-fs" for CortexPrism)
    sources: Mapping[str, str]  # capability -> "repository file @ commit (spec §)" or "assumed: why"
    storage: Storage
    names: NameRules
    summary: SummaryRule
    listing: Listing
    selection: Selection
    injection: Injection
    curation: Curation
    holds: Holds
    unverified: tuple[str, ...] = ()  # settings (core/library/profile_settings) taken from a brief

    def source(self, capability: str) -> str:
        """Where ``capability`` comes from ("" when the profile does not say)."""
        return self.sources.get(capability, "")

    def answers(self) -> dict[str, object]:
        """Every capability and its value (what a test and the docs walk)."""
        return {name: getattr(self, name) for name in CAPABILITIES}


def capability_fields() -> dict[str, tuple[str, ...]]:
    """Each capability's fields (the docs' table)."""
    kinds = {"storage": Storage, "names": NameRules, "summary": SummaryRule, "listing": Listing,
             "injection": Injection, "curation": Curation, "holds": Holds}
    return {name: tuple(f.name for f in fields(kinds[name])) if name in kinds else (name,)
            for name in CAPABILITIES}
