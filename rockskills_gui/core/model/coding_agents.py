"""The coding agents' profiles (issue 31): Claude Code, OpenAI Codex, Gemini CLI, GitHub Copilot,
Cursor and Hermes Agent, as :class:`~.profile.AgentProfile` instances.

Each capability cites the upstream file and commit it was read from (research notes
``skillmd-agents.md``), or says "assumed: why" where no source confirmed it; the README's
"Coding agents" table repeats them. A plugin marketplace is not an agent of its own: a Claude
Code marketplace (``.claude-plugin/marketplace.json``) opens as Claude Code, a Codex one
(``.agents/plugins/marketplace.json``, ``plugins/*/.codex-plugin/plugin.json``) as Codex; their
``storage`` says where plugins and their skills are found.
"""

from __future__ import annotations

from rockskills_gui.core.model.agent_note import AGENT_SKILLS_NOTE
from rockskills_gui.core.model.profile import (
    AgentProfile,
    Curation,
    Delete,
    DisableSwitch,
    FileKind,
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
    SwitchKind,
)
from rockskills_gui.core.model.summary_rule import SummaryRule

__all__ = ["CLAUDE_CODE", "CODEX", "CODING_AGENTS", "COPILOT", "CURSOR", "GEMINI_CLI", "HERMES"]

CODEX_REPO = "openai/codex"
LOADER = f"{CODEX_REPO} codex-rs/core-skills/src/loader.rs @ 033d1d0"
RENDER = f"{CODEX_REPO} codex-rs/core-skills/src/render.rs @ 0899b7c"
CLAUDE_DOCS = "code.claude.com/docs/en/skills (fetched 2026-10-08)"
GEMINI = "google-gemini/gemini-cli"
GEMINI_SKILLS = f"{GEMINI} packages/core/src/skills/skillManager.ts, skillLoader.ts @ 04fbf50"
HERMES_REPO = "NousResearch/hermes-agent"
VSCODE = "microsoft/vscode src/vs/workbench/contrib/chat/common/promptSyntax/computeAutomaticInstructions.ts"
COPILOT_DOCS = "docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-skills"
COPILOT_REFERENCE = ("microsoft/vscode extensions/copilot/assets/prompts/skills/agent-customization/"
                     "references/skills.md")
CURSOR_DOCS = "cursor.com/docs/skills.md"
RESOURCES = ("scripts", "references", "assets")
ANY_KEYS = Frontmatter(allowed_keys=None)  # the agent ignores keys it does not know
# The frontmatter switch Claude Code, Copilot and Cursor share (each profile's curation source).
NO_MODEL_INVOCATION = DisableSwitch("SKILL.md", "disable-model-invocation", "disable-model-invocation: true",
                                    scope="skill")
_SKILL_MD = (FileKind.SKILL_MD,)
# Where each root keeps archived skills (issue 32; profiles.SKILL_MD_ARCHIVE_DIR, Hermes' convention):
# no coding agent reads it (one level deep, or a '.' folder Codex skips, or Hermes' own .archive).
ARCHIVE = ".archive"
_FILES = ("SKILL.md",)


def _description(label: str, limit: int | None, required: bool) -> SummaryRule:
    return SummaryRule("description", "characters", limit, label, required=required)


CODEX = AgentProfile(
    id="codex", label="Codex", title="OpenAI Codex (SKILL.md)", format="codex", settings_id="codex",
    sources={
        "storage": f"{LOADER}: roots .agents/skills in every folder from the project root down, "
                   "<project>/.codex/skills, ~/.agents/skills, ~/.codex/skills (deprecated); "
                   "discover_skills_under_root: breadth-first, MAX_SCAN_DEPTH 6, names starting with "
                   "'.' skipped, the scan goes on below a skill (a SKILL.md in its references/ "
                   "loads too), copies deduplicated only by path; plugins: "
                   f"{CODEX_REPO} codex-rs/utils/plugins/src/plugin_namespace.rs @ 19b965a "
                   "(.codex-plugin/plugin.json or .claude-plugin/plugin.json); marketplace "
                   ".agents/plugins/marketplace.json (codex-rs/skills/.../plugin-json-spec.md @ 790c0fb); "
                   "/etc/codex/skills (admin) and ~/.codex/skills/.system are not read here",
        "names": f"{LOADER} parse_skill_file, validate_len: a name defaults to its folder, is "
                 "'<plugin>:<name>' in a plugin and at most 64 characters; the description is "
                 "required and at most 1024; otherwise the skill is not loaded (its error)",
        "summary": f"{LOADER} validate_len: description required, MAX_DESCRIPTION_LEN 1024",
        "listing": f"{RENDER} render_available_skills_body, render_skill_lines_from_lines, "
                   "default_skill_metadata_budget: 2% of the context window in tokens (bytes/4), "
                   "8,000 characters when it is unknown; descriptions shortened equally, then skills "
                   "omitted by scope, with the warning strings",
        "selection": "developers.openai.com/codex/skills and the listing's text: the model opens "
                     "SKILL.md at the listed path with its own tools (no skill tool); $name mentions "
                     f"({CODEX_REPO} codex-rs/core-skills/src/injection.rs @ d1056ef)",
        "injection": f"{CODEX_REPO} codex-rs/instructions/src/user_instructions.rs @ 80cfbc5: a mentioned "
                     "skill's file in a <skill> block",
        "curation": f"{CODEX_REPO} codex-rs/core-skills/src/config_rules.rs @ 9a5113a: "
                    "[[skills.config]] enabled = false in ~/.codex/config.toml; "
                    "agents/openai.yaml policy.allow_implicit_invocation (openai_yaml.md @ 8303c5f)",
        "holds": f"{LOADER} load_skill_metadata: agents/openai.yaml beside SKILL.md; {RENDER}: "
                 "scripts/, references/, assets/ read on demand; no usage log or timestamps",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=_FILES, archive_dir=ARCHIVE,
                    project_roots=(".agents/skills", ".codex/skills"),
                    user_roots=("~/.agents/skills", "~/.codex/skills"),
                    precedence=Precedence.NO_SHADOWING, resource_dirs=RESOURCES, scan_depth=6,
                    skip_dot_dirs=True, nested_skills_load=True,
                    plugin_manifests=(".codex-plugin/plugin.json", ".claude-plugin/plugin.json"),
                    marketplace_manifests=(".agents/plugins/marketplace.json",), frontmatter=ANY_KEYS),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True, max_length=64, description_max=1024,
                    too_long="invalid {field}: exceeds maximum length of {limit} characters",
                    missing_description="missing field `description`"),
    summary=_description("Codex", 1024, required=True),
    listing=Listing(kind=ListingKind.CODEX, agent_max_chars=8000, context_fraction=0.02,
                    chars_per_token=4),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=Curation(delete=Delete.ARCHIVE, disable=(
        DisableSwitch("~/.codex/config.toml", "[[skills.config]]",
                      '[[skills.config]]\npath = "/abs/my-skill/SKILL.md"\nenabled = false', scope="any",
                      kind=SwitchKind.TOML_PATH_TABLES),
        DisableSwitch("agents/openai.yaml", "policy.allow_implicit_invocation",
                      "policy:\n  allow_implicit_invocation: false", scope="skill"))),
    holds=Holds(resources=True),
)

CLAUDE_CODE = AgentProfile(
    id="claude-code", label="Claude Code", title="Claude Code (SKILL.md)", format="claude-code",
    settings_id="claude-code",
    sources={
        "storage": f"{CLAUDE_DOCS} 'Choose where skills load': .claude/skills/<name>/SKILL.md in the "
                   "project, ~/.claude/skills (personal), enterprise > personal > project; exactly one "
                   "level (anthropics/claude-code#39138); plugin skills <plugin>/skills/<name>/SKILL.md "
                   "as plugin:skill from .claude-plugin/plugin.json, marketplaces "
                   ".claude-plugin/marketplace.json (anthropics/claude-plugins-official @ 340e33ae); the "
                   "managed (enterprise) folder is not read here",
        "names": f"{CLAUDE_DOCS} frontmatter table: every field optional, the name defaults to the "
                 "folder; no length or character rule enforced",
        "summary": f"{CLAUDE_DOCS}: description optional (the first paragraph otherwise)",
        "listing": f"{CLAUDE_DOCS} 'Skill descriptions are cut short': 1% of the context window in "
                   "characters (4 per token, 8,000 at 200k), each entry capped at 1,536, descriptions of "
                   "the least-used skills dropped first; the <system-reminder> text is reverse-engineered "
                   "(assumed)",
        "selection": "assumed: reverse-engineered from the Claude Code v2.1.32 tool prompt: the Skill "
                     "tool {skill, args?}",
        "injection": f"{CLAUDE_DOCS} 'Skill content lifecycle': the SKILL.md content enters the "
                     "conversation as one message",
        "curation": f"{CLAUDE_DOCS}: skillOverrides {{name: \"off\"}} in ~/.claude/settings.json (user) or "
                    ".claude/settings.local.json (what the /skills menu writes; not for plugin skills), "
                    "disable-model-invocation: true in the frontmatter",
        "holds": f"{CLAUDE_DOCS}: supporting files beside SKILL.md; no usage log or timestamps here",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=_FILES, archive_dir=ARCHIVE,
                    project_roots=(".claude/skills",),
                    user_roots=("~/.claude/skills",), precedence=Precedence.USER_FIRST,
                    resource_dirs=RESOURCES, scan_depth=1,
                    plugin_manifests=(".claude-plugin/plugin.json",),
                    marketplace_manifests=(".claude-plugin/marketplace.json",), frontmatter=ANY_KEYS),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True),
    summary=_description("Claude Code", None, required=False),
    listing=Listing(kind=ListingKind.CLAUDE_CODE, context_fraction=0.01, chars_per_token=4,
                    context_window=200_000, per_entry_cap=1536, tool="Skill"),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=Curation(delete=Delete.ARCHIVE, disable=(
        DisableSwitch("~/.claude/settings.json", "skillOverrides",
                      '{"skillOverrides": {"my-skill": "off"}}', kind=SwitchKind.JSON_NAME_MAP),
        DisableSwitch(".claude/settings.local.json", "skillOverrides",
                      '{"skillOverrides": {"my-skill": "off"}}', scope="project",
                      kind=SwitchKind.JSON_NAME_MAP),
        NO_MODEL_INVOCATION)),
    holds=Holds(resources=True),
)

GEMINI_CLI = AgentProfile(
    id="gemini-cli", label="Gemini CLI", title="Gemini CLI (SKILL.md)", format="gemini-cli",
    settings_id="gemini-cli",
    sources={
        "storage": f"{GEMINI_SKILLS} discoverSkills: built-in < extension < user (~/.gemini/skills < "
                   "~/.agents/skills) < workspace (.gemini/skills < .agents/skills), the later wins; "
                   "loadSkillsFromDir globs SKILL.md and */SKILL.md (one level); extension skills under "
                   "~/.gemini/extensions/<name>/skills (assumed path)",
        "names": f"{GEMINI_SKILLS} skillLoader: name and description must both be strings (else the file "
                 "is skipped); ':\\/<>*?\"|' in a name become '-'; lookups case-insensitive",
        "summary": f"{GEMINI_SKILLS}: a description is required (a string), no length limit",
        "listing": f"{GEMINI} packages/core/src/prompts/snippets.ts @ 00408ae renderAgentSkills: every "
                   "enabled skill, no limit (the tool name's backticks assumed)",
        "selection": f"{GEMINI} packages/core/src/tools/activate-skill.ts @ 04fbf50: activate_skill "
                     "{name: enum}",
        "injection": f"{GEMINI} activate-skill.ts @ 04fbf50: <activated_skill> with the body and the "
                     "folder's files",
        "curation": "geminicli.com/docs/cli/skills: skills.disabled in settings.json (UNION across "
                    "scopes), /skills disable <name>",
        "holds": f"{GEMINI} activate-skill.ts @ 04fbf50: the skill folder's files listed as resources",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=_FILES, archive_dir=ARCHIVE,
                    project_roots=(".agents/skills", ".gemini/skills"),
                    user_roots=("~/.agents/skills", "~/.gemini/skills"),
                    extension_roots=("~/.gemini/extensions/*/skills",),
                    resource_dirs=RESOURCES, scan_depth=1, frontmatter=ANY_KEYS),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True, strings_only=True,
                    replaced_chars=':\\/<>*?"|'),
    summary=_description("Gemini CLI", None, required=True),
    listing=Listing(kind=ListingKind.GEMINI, tool="activate_skill"),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=Curation(delete=Delete.ARCHIVE, disable=(
        DisableSwitch("~/.gemini/settings.json", "skills.disabled",
                      '{"skills": {"disabled": ["my-skill"]}}', kind=SwitchKind.JSON_NAME_LIST),
        DisableSwitch(".gemini/settings.json", "skills.disabled",
                      '{"skills": {"disabled": ["my-skill"]}}', scope="project",
                      kind=SwitchKind.JSON_NAME_LIST))),
    holds=Holds(resources=True),
)

COPILOT = AgentProfile(
    id="copilot", label="GitHub Copilot", title="GitHub Copilot (SKILL.md)", format="copilot",
    settings_id="copilot",
    sources={
        "storage": f"{COPILOT_DOCS}: project .github/skills, .claude/skills, .agents/skills; personal "
                   "~/.copilot/skills, ~/.agents/skills (+ ~/.claude/skills in VS Code); immediate "
                   "subfolders only (Copilot SDK docs); which copy wins is not documented (assumed: "
                   "the first found)",
        "names": f"{COPILOT_REFERENCE}: 1-64 lowercase letters, digits and hyphens, matching the folder "
                 "(checked as lint warnings; enforcement assumed)",
        "summary": f"{COPILOT_REFERENCE}: a description of at most 1024 characters; a skill without one "
                   "is not listed",
        "listing": f"{VSCODE} @ 0155379: the <skills> block read through read_file; the 15,000-character "
                   "entry budget and the 5,000-character overflow line are newer extension code (path "
                   "assumed)",
        "selection": f"{VSCODE} @ 0155379: the model reads the listed file with read_file",
        "injection": f"{VSCODE} @ 0155379: the skill file's content read on demand",
        "curation": "docs.github.com/en/copilot/how-tos/copilot-sdk/use-copilot-sdk/custom-skills: "
                    "disabledSkills; disable-model-invocation in the frontmatter; the CLI's own disabled "
                    "list is not documented (its file assumed), so a skill is switched off by moving its "
                    "folder aside",
        "holds": f"{COPILOT_DOCS}: scripts and other files beside SKILL.md",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=_FILES, archive_dir=ARCHIVE,
                    project_roots=(".github/skills", ".claude/skills", ".agents/skills"),
                    user_roots=("~/.copilot/skills", "~/.agents/skills", "~/.claude/skills"),
                    resource_dirs=RESOURCES, scan_depth=1),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True, spec=True),
    summary=_description("GitHub Copilot", 1024, required=False),
    listing=Listing(kind=ListingKind.COPILOT, agent_max_chars=15_000, overflow_chars=5000,
                    tool="read_file"),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=Curation(delete=Delete.ARCHIVE, disable=(NO_MODEL_INVOCATION,)),
    holds=Holds(resources=True),
    unverified=("project_roots", "user_roots"),
)

CURSOR = AgentProfile(
    id="cursor", label="Cursor (assumed)", title="Cursor (SKILL.md, assumed profile)", format="cursor",
    settings_id="cursor",
    sources={
        "storage": f"{CURSOR_DOCS}: project .agents/skills, .cursor/skills, and for compatibility "
                   ".claude/skills, .codex/skills; user ~/.agents/skills, ~/.cursor/skills, "
                   "~/.claude/skills, ~/.codex/skills; one level and which copy wins assumed",
        "names": f"{CURSOR_DOCS}: the Agent Skills fields (name matching the folder; enforcement assumed)",
        "summary": f"{CURSOR_DOCS}: a description (required by the spec; enforcement assumed)",
        "listing": "assumed: not documented; the Agent Skills <available_skills> block, no limit",
        "selection": f"{CURSOR_DOCS}: 'the agent ... decides when they are relevant' (how: assumed, it "
                     "reads the file)",
        "injection": "assumed: the SKILL.md body when the agent uses the skill",
        "curation": f"{CURSOR_DOCS}: disable-model-invocation: true in the frontmatter; no settings switch "
                    "documented, so a skill is switched off by moving its folder aside (assumed safe: "
                    "one level scanned)",
        "holds": f"{CURSOR_DOCS}: scripts/, references/, assets/ beside SKILL.md",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=_FILES, archive_dir=ARCHIVE,
                    project_roots=(".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"),
                    user_roots=("~/.agents/skills", "~/.cursor/skills", "~/.claude/skills",
                                "~/.codex/skills"),
                    resource_dirs=RESOURCES, scan_depth=1),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True, spec=True),
    summary=_description("Cursor (assumed)", 1024, required=True),
    listing=Listing(kind=ListingKind.AVAILABLE_SKILLS_XML),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=Curation(delete=Delete.ARCHIVE, disable=(NO_MODEL_INVOCATION,)),
    holds=Holds(resources=True),
    unverified=("project_roots", "user_roots"),  # (its depth, one level, is assumed in the sources)
)

HERMES_SKIPPED = (".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules", "site-packages",
                  "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache", ".ruff_cache")

HERMES = AgentProfile(
    id="hermes", label="Hermes Agent", title="Hermes Agent (SKILL.md)", format="hermes",
    settings_id="hermes",
    sources={
        "storage": f"{HERMES_REPO} agent/skill_utils.py @ 010929c: ~/.hermes/skills (the profile), trusted "
                   "project .hermes/skills and .agents/skills first, first wins by name; os.walk with "
                   "EXCLUDED_SKILL_DIRS (.archive among them); skills/<category>/<name>/SKILL.md",
        "names": f"{HERMES_REPO} tools/skills_tool.py @ 0006718: the frontmatter name or the folder name, "
                 "cut (not refused) at 64 characters (assumed value)",
        "summary": f"{HERMES_REPO} agent/skill_utils.py @ 010929c extract_skill_description: the "
                   "frontmatter description or the first body line",
        "listing": f"{HERMES_REPO} agent/prompt_builder.py (newer revision) build_skills_system_prompt: "
                   "'## Skills (mandatory)' by category, descriptions cut at 60 characters (57 + '...'), "
                   "no total limit",
        "selection": f"{HERMES_REPO} tools/skills_tool.py @ 0006718: skill_view(name, file_path?)",
        "injection": f"{HERMES_REPO} tools/skills_tool.py @ 0006718: skill_view returns SKILL.md and its "
                     "linked files",
        "curation": f"{HERMES_REPO} issue #642, skill_utils.py get_disabled_skill_names: skills.disabled "
                    "in ~/.hermes/config.yaml; skills/.archive/ is never loaded",
        "holds": f"{HERMES_REPO} skill_utils.py @ 010929c: references/, templates/, assets/, scripts/ "
                 "beside SKILL.md",
    },
    storage=Storage(file_kinds=_SKILL_MD, file_names=_FILES, archive_dir=ARCHIVE,
                    project_roots=(".hermes/skills", ".agents/skills"), user_roots=("~/.hermes/skills",),
                    resource_dirs=("references", "templates", "assets", "scripts"),
                    skipped_dirs=HERMES_SKIPPED, frontmatter=ANY_KEYS),
    names=NameRules(kind=NameKind.SKILL_FOLDER, folder_is_name=True),
    summary=_description("Hermes Agent", None, required=False),
    listing=Listing(kind=ListingKind.HERMES, per_entry_cap=60, tool="skill_view"),
    selection=Selection.LLM_LISTING,
    injection=Injection(kind=InjectionKind.SKILL_ACTIVATION, note=AGENT_SKILLS_NOTE),
    curation=Curation(delete=Delete.ARCHIVE, disable=(
        DisableSwitch("~/.hermes/config.yaml", "skills.disabled", "skills:\n  disabled: [my-skill]",
                      scope="any", kind=SwitchKind.YAML_NAME_LIST),)),
    holds=Holds(resources=True),
)

CODING_AGENTS = (CLAUDE_CODE, CODEX, GEMINI_CLI, COPILOT, CURSOR, HERMES)
