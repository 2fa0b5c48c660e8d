"""Every agent profile this app knows (:class:`~.profile.AgentProfile`), and the registry.

RockBot 64e82cc is the fidelity target (rockbot-skills.md, MarimerLLC/rockbot @ 64e82cc);
RockBot (current) is RockBot as its later sources read (README, "Notes: RockBot (current)");
Agent Skills, CortexPrism, PicoBot and carpenter are formats.md's §D, §B, §C and §A (the last
two partly assumed: their settings are the user's to adjust, ``unverified``); the coding agents
(Claude Code, Codex, Gemini CLI, Copilot, Cursor, Hermes) are in :mod:`.coding_agents`. Each capability
cites its source or says "assumed: why". Adding an agent: one more instance here, listed in
:data:`PROFILES` (see ARCHITECTURE.md, "Adding an agent profile").
"""

from __future__ import annotations

from rockskills_gui.core.model.agent_note import AGENT_SKILLS_NOTE, ROCKBOT_NOTE
from rockskills_gui.core.model.coding_agents import CODING_AGENTS
from rockskills_gui.core.model.profile import (
    AgentProfile,
    Bodies,
    Curation,
    Delete,
    DreamSchedule,
    FileKind,
    Framing,
    Frontmatter,
    Holds,
    Injection,
    InjectionKind,
    Listing,
    ListingKind,
    NameKind,
    NameRules,
    Precedence,
    Selection,
    Storage,
    ToolNaming,
    Tools,
)
from rockskills_gui.core.model.rockbot_files import (
    EMBEDDINGS_DIR,
    LEDGER_FILE,
    RESOURCE_SUFFIX,
    SKILL_ARCHIVE_DIR,
)
from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY, SummaryRule

__all__ = ["AGENT_SKILLS", "CARPENTER", "CORTEX", "PICOBOT", "PROFILES", "ROCKBOT_64E82CC",
           "ROCKBOT_CURRENT", "SKILL_MD_PROFILES", "profile_for_settings"]

ROCKBOT = "MarimerLLC/rockbot @ 64e82cc"
ROCKBOT_LATER = "MarimerLLC/rockbot after 64e82cc (commit not pinned: README, Notes: RockBot (current))"
RB = "MarimerLLC/rockbot"  # + a file @ the commit read (README, "Two RockBot profiles")
SKILLS_REF = "agentskills/agentskills @ 69ef37e"
CORTEX_REPO = "CortexPrism/cortex @ 0c44657"
DREAM_PASSES = ("gap", "consolidate", "optimize")  # core/dream/passes.py: LLM_PASSES
# A SKILL.md library keeps no conversation log (no skill gap) and no usage dates (no 18-month
# prune): consolidation, and optimization over the thin skills (core/dream/formats.py; issue 32).
SKILL_MD_PASSES = ("consolidate", "optimize")
# Where a SKILL.md root keeps its archived skills, invisible to every agent's scan: Hermes' own
# convention (NousResearch/hermes-agent tools/skill_usage.py @ 03139a3, archive_skill:
# skills/.archive/<skill>/); the scan skips it (core/library/stores/skill_dirs.py: SKIP_DIRS).
SKILL_MD_ARCHIVE_DIR = ".archive"
ARCHIVES = ("this app archives what a dream deletes, prunes or merges away instead of removing it "
            "(issue 32; Hermes' curator archives too: NousResearch/hermes-agent tools/skill_usage.py "
            "@ 03139a3)")

_ROCKBOT_SOURCES = {
    "storage": f"{ROCKBOT} FileSkillStore.cs: skills/**/*.json, one file per skill "
               "(rockbot-skills.md §1, §4)",
    "names": f"{ROCKBOT} SkillStore name validation and its messages; names case-insensitive "
             "(rockbot-skills.md §3)",
    "summary": f"{ROCKBOT} summary generation: one sentence of 15 words or fewer (rockbot-skills.md §5)",
    "listing": f"{ROCKBOT} AgentContextBuilder's session index, every skill, no limit "
               "(rockbot-skills.md §7.1)",
    "selection": f"{ROCKBOT} Bm25Ranker over name and summary, top 5 (rockbot-skills.md §7.2, §8)",
    "injection": f"{ROCKBOT} AgentContextBuilder: 'Skill: {{name}}' + content, the see-also line "
                 "(rockbot-skills.md §7.2-7.3); skills cached at start (§4, §13.9); tools built by "
                 "AIFunctionFactory.Create(method) with no name: MEAI's default, the method name "
                 "(GetSkill, ...; rockbot-skills.md §5, the test asserting 'EditSkill' @ 0672fab)",
    "curation": f"{ROCKBOT} DreamService's passes (rockbot-skills.md §10); FileSkillStore.DeleteAsync "
                f"removes the file, {ARCHIVES}; DreamOptions + Program.cs: first cycle 5 min after "
                "start, then every 4 h (rockbot-skills.md §12)",
    "holds": f"{ROCKBOT} Skill record: createdAt/updatedAt/lastUsedAt, seeAlso (rockbot-skills.md §2); "
             "usage events (§9)",
}

ROCKBOT_64E82CC = AgentProfile(
    id="rockbot-64e82cc", label="RockBot", title="RockBot", format="rockbot",
    settings_id="rockbot-64e82cc", sources=_ROCKBOT_SOURCES,
    storage=Storage(file_kinds=(FileKind.ROCKBOT_JSON,), file_names=("{name}.json",),
                    project_roots=("skills",), precedence=Precedence.SINGLE_ROOT,
                    archive_dir=SKILL_ARCHIVE_DIR),
    names=NameRules(kind=NameKind.ROCKBOT, taken_hint=" (RockBot names are case-insensitive)"),
    summary=ROCKBOT_SUMMARY,
    listing=Listing(kind=ListingKind.ROCKBOT_INDEX),
    selection=Selection.BM25,
    injection=Injection(kind=InjectionKind.ROCKBOT_64E82CC, note=ROCKBOT_NOTE,
                        tools=Tools(naming=ToolNaming.METHOD)),
    curation=Curation(passes=DREAM_PASSES, delete=Delete.ARCHIVE,
                      schedule=DreamSchedule(initial_delay_minutes=5, interval_hours=4)),
    holds=Holds(usage_log=True, timestamps=True),
)

ROCKBOT_CURRENT = AgentProfile(
    id="rockbot-current", label="RockBot (current)", title="RockBot (current)", format="rockbot",
    settings_id="rockbot-current",
    sources={
        **_ROCKBOT_SOURCES,
        "storage": f"{ROCKBOT_LATER} FileSkillStore.cs ({{name}}.resources/, IsInsideResourceFolder), "
                   "EmbeddingCache.cs (skills/.embeddings/); nulls written: FileSkillStore.JsonOptions "
                   f"(no DefaultIgnoreCondition) @ 4105def, Skill.cs @ 2710fd9 ({RB})",
        "names": f"{ROCKBOT_LATER} FileSkillStore.cs ValidateName: the same name rules; mcp/{{server}} "
                 "names: McpSkillNames in IMcpSkillSurface.cs (PRs #381/#382; the startup rename "
                 "itself assumed: not read)",
        "selection": f"{ROCKBOT_LATER} HybridRanker over BM25 and EmbeddingCache.cs's stored vectors",
        "listing": f"{RB} src/RockBot.Host/AgentContextBuilder.cs @ a1d3999 (the index header with "
                   "tags), src/RockBot.Skills/SkillTools.cs @ 150a84c (FormatResourceTag, FormatIndex)",
        "injection": f"{RB} src/RockBot.Host/SkillRecallFraming.cs @ 5c27c24 (#492 framing), "
                     "src/RockBot.Host/AgentContextBuilder.cs @ a1d3999 (rank-1 body, ranks 2-5 "
                     "listed, worker path), src/RockBot.Host.Abstractions/ShortMessageHeuristics.cs "
                     "@ 0874c0e (30, inclusive), src/RockBot.Host/AgentHostOptions.cs "
                     "(SkillBodyUnloadAfterIterations = 5; commit not reported) and AgentLoopRunner.cs "
                     "(aging matches 'Skill: ' messages only), src/RockBot.Skills/SkillTools.cs @ "
                     "150a84c (snake_case names #493/#549, save_skill lastUsedAt #275, edit_skill, "
                     "get_skill's resources block); McpServerSkillFormatter.cs: mcp/{server} skills on "
                     "MCP tool results (PRs #410/#412)",
        "curation": f"{RB} src/RockBot.Host.Abstractions/DreamOptions.cs @ 150a84c (no "
                    "ProtectedSkillPrefixes; McpSkillRefreshMaxPerCycle 5; CronSchedule '0 */12 * * *'; "
                    "DreamPassMaxSkipInterval 7 d), src/RockBot.Host/DreamService.cs @ 150a84c "
                    "(singleton paragraph, CarriedSurfaceBaseline, the refresh pass, fingerprints), "
                    "src/RockBot.Host/DreamPassLedger.cs @ e7f95a1, src/RockBot.Agent/agent/"
                    "skill-dream.md (keyword rule; commit not reported); "
                    f"{ARCHIVES}",
        "holds": f"{ROCKBOT_LATER} SkillResource.cs (manifest), FileSkillResourceUsageStore, "
                 "IMcpSkillSurface.cs (surfaceBaseline); usage log retention: JsonlLogRetention.cs, "
                 "FileSkillUsageStore.cs @ 5389c16",
    },
    storage=Storage(file_kinds=(FileKind.ROCKBOT_JSON,), file_names=("{name}.json",),
                    project_roots=("skills",), precedence=Precedence.SINGLE_ROOT,
                    resource_suffix=RESOURCE_SUFFIX, ignored_dirs=(EMBEDDINGS_DIR,),
                    archive_dir=SKILL_ARCHIVE_DIR, null_properties=("manifest", "surfaceBaseline")),
    names=NameRules(kind=NameKind.ROCKBOT, mcp_naming=True,
                    taken_hint=" (RockBot names are case-insensitive)"),
    summary=ROCKBOT_SUMMARY,
    listing=Listing(kind=ListingKind.ROCKBOT_INDEX_TAGGED),
    selection=Selection.HYBRID,
    injection=Injection(kind=InjectionKind.ROCKBOT_CURRENT, mcp_skills=True, note=ROCKBOT_NOTE,
                        framing=Framing.PREAMBLE, bodies=Bodies.FIRST_AND_LIST,
                        worker_bodies=Bodies.EVERY_ALONE, short_message_chars=30, body_unload_after=5,
                        tools=Tools(naming=ToolNaming.SNAKE, save_sets_last_used=True, edit_skill=True,
                                    get_skill_resources=True)),
    curation=Curation(passes=(*DREAM_PASSES, "mcp-refresh"), delete=Delete.ARCHIVE,
                      singleton_prefixes=("mcp/",), keep_summary_keywords=True,
                      ledger_file=LEDGER_FILE, carry_mcp_baseline=True, mcp_refresh_per_cycle=5,
                      schedule=DreamSchedule(initial_delay_minutes=5, cron="0 */12 * * *")),
    holds=Holds(resources=True, usage_log=True, usage_retention=True, resource_reads=True,
                timestamps=True, mcp_baselines=True),
)


def _description(label: str, limit: int | None, required: bool = True) -> SummaryRule:
    return SummaryRule("description", "characters", limit, label, required=required)


_SKILL_MD = (FileKind.SKILL_MD,)
_SKILL_MD_CURATION = Curation(passes=SKILL_MD_PASSES, delete=Delete.ARCHIVE)
_SKILL_FOLDER = NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True)
_SKILL_MD_DREAM = ("assumed: RockBot's consolidation and optimization passes run over the SKILL.md "
                   f"folders in place (no conversation log, no usage dates: issue 32); {ARCHIVES}")

AGENT_SKILLS = AgentProfile(
    id="agentskills", label="Agent Skills", title="Agent Skills (SKILL.md)", format="agentskills",
    settings_id="agentskills",
    sources={
        "storage": f"{SKILLS_REF} docs/specification.mdx, adding-skills-support.mdx: SKILL.md or "
                   "skill.md, project and user roots, project wins (formats.md §D.1-D.2)",
        "names": f"{SKILLS_REF} skills-ref validator.py: spec names as warnings; a new skill's folder "
                 "name is this app's rule (formats.md §D.2, §D.3: never blocking)",
        "summary": f"{SKILLS_REF} docs/specification.mdx: description required, 1-1024 characters",
        "listing": f"{SKILLS_REF} skills-ref prompt.py to_prompt: <available_skills> (formats.md §D.2)",
        "selection": f"{SKILLS_REF} adding-skills-support.mdx: the model picks from name and "
                     "description (formats.md §D.1)",
        "injection": f"{SKILLS_REF} adding-skills-support.mdx: activation returns the body, "
                     "resources on demand; name and description read at start (formats.md §D.1-D.2)",
        "curation": _SKILL_MD_DREAM,
        "holds": f"{SKILLS_REF} docs/specification.mdx: scripts/, references/, assets/ (listed by "
                 "convert and delete, not as rows); no usage log or timestamps",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=("SKILL.md", "skill.md"),
                    project_roots=(".agents/skills", ".claude/skills"),
                    user_roots=("~/.agents/skills", "~/.claude/skills"),
                    resource_dirs=("scripts", "references", "assets"), frontmatter=Frontmatter(),
                    archive_dir=SKILL_MD_ARCHIVE_DIR),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True, spec=True),
    summary=_description("Agent Skills", 1024),
    listing=Listing(kind=ListingKind.AVAILABLE_SKILLS_XML),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=_SKILL_MD_CURATION,
    holds=Holds(),
)

PICOBOT = AgentProfile(
    id="picobot", label="PicoBot (assumed)", title="PicoBot (assumed profile)", format="picobot",
    settings_id="picobot",
    sources={
        "storage": "assumed: the brief's repository was not found (formats.md §C.1); roots from the "
                   "brief, line-based frontmatter as brumaombra/picobot @ 6735687 reads it (§C.2)",
        "names": "assumed: folder names, no spec rule (formats.md §C.3)",
        "summary": "assumed: a description required, no limit (formats.md §C.3)",
        "listing": "brumaombra/picobot @ 6735687 per-skill block; the 4,000-character / 32-skill cut "
                   "is the brief's (assumed, formats.md §C.1, issue 21)",
        "selection": "assumed: the model reads the index (formats.md §C.2)",
        "injection": "assumed: the skill file is read when used (formats.md §C.2)",
        "curation": _SKILL_MD_DREAM,
        "holds": "assumed: no resources, usage log or timestamps (formats.md §C.3)",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=("SKILL.md", "skill.md"),
                    project_roots=(".picobot/skills",), user_roots=("~/.picobot/skills",),
                    frontmatter=Frontmatter(plain="line", export_keys=("name", "description"),
                                            allowed_keys=None, compatibility_limit=None),
                    archive_dir=SKILL_MD_ARCHIVE_DIR),
    names=_SKILL_FOLDER,
    summary=_description("PicoBot (assumed)", None),
    listing=Listing(kind=ListingKind.PICOBOT_INDEX, agent_max_chars=4000, agent_max_entries=32),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION),
    curation=_SKILL_MD_CURATION,
    holds=Holds(),
    unverified=("require_description", "require_name", "max_index_chars", "max_listed_skills",
                "project_roots", "user_roots"),
)

CARPENTER = AgentProfile(
    id="carpenter", label="carpenter legacy SKILL.md (assumed)",
    title="carpenter legacy SKILL.md (assumed profile)", format="carpenter", settings_id="carpenter",
    sources={
        "storage": "assumed: the brief's skills_dir/{name}/SKILL.md with resources/, removed upstream "
                   "(carpenter-ai/carpenter-core @ f8ab134, formats.md §A.1)",
        "names": "assumed: folder names (formats.md §A.3)",
        "summary": "assumed: a description of up to 1024 characters, as Agent Skills (formats.md §A.1)",
        "listing": "carpenter-ai/carpenter-core @ f8ab134 kb/skills/_index.md catalogue read through "
                   "kb_describe (formats.md §A.2)",
        "selection": "carpenter-ai/carpenter-core @ f8ab134: the model browses the KB (formats.md §A.2)",
        "injection": "carpenter-ai/carpenter-core @ f8ab134: kb_describe returns the entry "
                     "(formats.md §A.2; the SKILL.md form assumed)",
        "curation": _SKILL_MD_DREAM,
        "holds": "assumed: resources/ beside SKILL.md; no usage log or timestamps (formats.md §A.1)",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=("SKILL.md", "skill.md"),
                    project_roots=("skills",), resource_dirs=("resources",),
                    frontmatter=Frontmatter(allowed_keys=None), archive_dir=SKILL_MD_ARCHIVE_DIR),
    names=_SKILL_FOLDER,
    summary=_description("carpenter legacy SKILL.md (assumed)", 1024),
    listing=Listing(kind=ListingKind.CARPENTER_CATALOGUE),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION),
    curation=_SKILL_MD_CURATION,
    holds=Holds(),
    unverified=("file_names", "require_description", "require_name", "resource_dirs",
                "description_limit", "project_roots"),
)

CORTEX = AgentProfile(
    id="cortex", label="CortexPrism", title="CortexPrism", format="cortex", settings_id="cortex-fs",
    sources={
        "storage": f"{CORTEX_REPO} .cortex/skills/<name>/SKILL.md (one level) and memory.db's "
                   "procedural_memory (formats.md §B.1, §B.4)",
        "names": f"{CORTEX_REPO} the filesystem import needs a frontmatter name (formats.md §B.4)",
        "summary": f"{CORTEX_REPO} no description limit; a missing one is allowed (formats.md §B.4)",
        "listing": f"{CORTEX_REPO} the Markdown renderer after the reliability filter (formats.md §B.2-B.4)",
        "selection": f"{CORTEX_REPO} embedding match, slots left filled lexically (formats.md §B.3)",
        "injection": f"{CORTEX_REPO} the matched skills' list in the prompt (formats.md §B.2-B.4)",
        "curation": _SKILL_MD_DREAM + "; memory.db is only read here",
        "holds": f"{CORTEX_REPO} lifecycle, trust tier, success rate, utility per row (formats.md §B.1-B.2)",
    },
    storage=Storage(file_kinds=(FileKind.SKILL_MD, FileKind.CORTEX_DB), file_names=("SKILL.md",),
                    project_roots=(".cortex/skills",), recursive=False,
                    frontmatter=Frontmatter(plain="line",
                                            export_keys=("name", "description", "trigger_pattern"),
                                            allowed_keys=None, compatibility_limit=None,
                                            line_reader=True, needs_body=True),
                    archive_dir=SKILL_MD_ARCHIVE_DIR),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True, require_name=True),
    summary=_description("CortexPrism", None, required=False),
    listing=Listing(kind=ListingKind.CORTEX_MARKDOWN),
    selection=Selection.EMBEDDING_LEXICAL,
    injection=Injection(kind=InjectionKind.PROMPT_LIST),
    curation=_SKILL_MD_CURATION,
    holds=Holds(health=True, lifecycle=True, read_only_rows=True),
)

PROFILES: dict[str, AgentProfile] = {p.id: p for p in (
    ROCKBOT_64E82CC, ROCKBOT_CURRENT, AGENT_SKILLS, PICOBOT, CARPENTER, CORTEX, *CODING_AGENTS)}
# The SKILL.md profiles by the key of their settings (Preferences, --profile-set, convert --to).
SKILL_MD_PROFILES: dict[str, AgentProfile] = {
    p.settings_id: p for p in PROFILES.values() if FileKind.SKILL_MD in p.storage.file_kinds}


def profile_for_settings(settings_id: str) -> AgentProfile:
    """The SKILL.md profile whose settings are kept under ``settings_id`` (KeyError: none)."""
    return SKILL_MD_PROFILES[settings_id]
