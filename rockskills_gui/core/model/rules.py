"""The two RockBot profiles' rules as RockBot's store and dream passes read them: a view of an
:class:`~rockskills_gui.core.model.profile.AgentProfile` (:meth:`RockBotRules.of`).

``ROCKBOT_64E82CC`` is the fidelity target (rockbot-skills.md, commit 64e82cc): every rule here
is off or empty for it, so code that consults a :class:`RockBotRules` behaves exactly as before.
``ROCKBOT_CURRENT`` is RockBot as its later sources read (README, "Notes: RockBot (current)"):
multi-file skills (``{name}.resources/`` + a ``manifest`` list in the skill JSON), the skills
store's ``.embeddings/`` cache, the ``mcp/`` namespace policy and the dream pass ledger. The
values, and where each comes from, are the profiles' (:mod:`.profiles`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rockskills_gui.core.model import profiles
from rockskills_gui.core.model.manifest import RESOURCE_TYPES as RESOURCE_TYPES
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.rockbot_files import EMBEDDINGS_DIR as EMBEDDINGS_DIR
from rockskills_gui.core.model.rockbot_files import LEDGER_FILE as LEDGER_FILE
from rockskills_gui.core.model.rockbot_files import RESOURCE_SUFFIX as RESOURCE_SUFFIX
from rockskills_gui.core.model.rockbot_files import RESOURCE_USAGE_FILE as RESOURCE_USAGE_FILE

# FileSkillStore.FilenamePattern: a resource file name (no separators, no '..').
_RESOURCE_NAME_RE = re.compile(r"^[a-zA-Z0-9_\-\.]+$")


@dataclass(frozen=True)
class RockBotRules:
    """What one RockBot version does with a skills folder (see the module docstring)."""

    id: str
    label: str
    # Multi-file skills: the loader skips *.json below any folder whose name ends in
    # ``.resources``; rename/delete carry a skill's resource folder; the manifest is kept.
    resources: bool = False
    # Folders below skills/ the agent owns and the GUI never touches nor reports (the
    # embedding cache). 64e82cc has none: it loads every *.json below skills/.
    ignored_dirs: tuple[str, ...] = ()
    # DreamOptions.ProtectedSkillPrefixes (PR #275; 64e82cc has none, and later RockBot removed
    # it: DreamOptions @ 05346ff, 150a84c): never pruned, merged away or deleted.
    protected_prefixes: tuple[str, ...] = ()
    # Name prefixes whose suffixes are 1:1 bindings to external entities (PR #380,
    # design/skill-name-stability.md): no merges across suffixes, no parent guide replacing them.
    singleton_prefixes: tuple[str, ...] = ()
    # skill-dream.md (PR #380): a merged summary keeps the search keywords of each original.
    keep_summary_keywords: bool = False
    # PR #381/#382: MCP skills are named mcp/{server}[/...]; old top-level ones are renamed.
    mcp_naming: bool = False
    # DreamPassLedger: a gated pass is skipped while its inputs' fingerprint is unchanged.
    ledger_file: str | None = None

    @classmethod
    def of(cls, profile: AgentProfile) -> RockBotRules:
        """The rules a RockBot ``profile`` gives its store and its dream passes."""
        return cls(id=profile.id, label=profile.label, resources=profile.holds.resources,
                   ignored_dirs=profile.storage.ignored_dirs,
                   protected_prefixes=profile.curation.protected_prefixes,
                   singleton_prefixes=profile.curation.singleton_prefixes,
                   keep_summary_keywords=profile.curation.keep_summary_keywords,
                   mcp_naming=profile.names.mcp_naming, ledger_file=profile.curation.ledger_file)

    @property
    def profile(self) -> AgentProfile:
        """The profile these rules are a view of."""
        return profiles.PROFILES[self.id]

    @property
    def current(self) -> bool:
        return self.id == ROCKBOT_CURRENT_ID

    def in_ignored_dir(self, rel_parts: tuple[str, ...]) -> bool:
        """True when a path below skills/ (its parts) lies in a folder the agent owns."""
        return bool(rel_parts) and rel_parts[0] in self.ignored_dirs

    def in_resource_dir(self, rel_parts: tuple[str, ...]) -> bool:
        """True when a path below skills/ (its parts, file name last) lies in a resource folder
        (FileSkillStore.IsInsideResourceFolder: any folder segment ending in ``.resources``)."""
        return self.resources and any(p.endswith(RESOURCE_SUFFIX) for p in rel_parts[:-1])

    def singleton_of(self, name: str) -> tuple[str, str] | None:
        """``(prefix, suffix head)`` when ``name`` is under a namespaced-singleton prefix:
        ``mcp/github/issues`` -> ``("mcp/", "github")`` (case-insensitive prefix; the head is
        lower-cased as McpSkillNames.TryGetServerName does). None otherwise."""
        lowered = name.lower()
        for prefix in self.singleton_prefixes:
            if lowered.startswith(prefix.lower()):
                head = name[len(prefix):].split("/", 1)[0].strip().lower()
                if head:
                    return prefix, head
        return None


ROCKBOT_64E82CC_ID = profiles.ROCKBOT_64E82CC.id
ROCKBOT_CURRENT_ID = profiles.ROCKBOT_CURRENT.id

ROCKBOT_64E82CC = RockBotRules.of(profiles.ROCKBOT_64E82CC)
ROCKBOT_CURRENT = RockBotRules.of(profiles.ROCKBOT_CURRENT)
RULES = {r.id: r for r in (ROCKBOT_64E82CC, ROCKBOT_CURRENT)}


def resource_filename_error(filename: str) -> str | None:
    """FileSkillStore.ValidateFilename's message for ``filename``, or None when it is accepted."""
    if not filename.strip():
        return "Resource filename cannot be empty."
    if "/" in filename or "\\" in filename:
        return f"Resource filename cannot contain path separators: '{filename}'"
    if ".." in filename:
        return f"Resource filename cannot contain '..': '{filename}'"
    if not _RESOURCE_NAME_RE.match(filename):
        return (f"Resource filename contains invalid characters: '{filename}'. "
                "Only alphanumeric, hyphens, underscores, and dots are allowed.")
    return None


def mcp_server(name: str) -> str | None:
    """McpSkillNames.TryGetServerName: ``{server}`` (lower-cased) of ``mcp/{server}[/...]``."""
    if not name.strip() or not name.lower().startswith("mcp/"):
        return None
    server = name[4:].split("/", 1)[0].strip()
    return server.lower() or None
