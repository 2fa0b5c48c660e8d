"""The two RockBot profiles and every rule that differs between them, in one place.

``ROCKBOT_64E82CC`` is the fidelity target (rockbot-skills.md, commit 64e82cc): every rule here
is off or empty for it, so code that consults a :class:`RockBotRules` behaves exactly as before.
``ROCKBOT_CURRENT`` is RockBot as its later sources read (README, "Notes: RockBot (current)"):
multi-file skills (``{name}.resources/`` + a ``manifest`` list in the skill JSON), the skills
store's ``.embeddings/`` cache, protected prefixes, the ``mcp/`` namespace policy and the dream
pass ledger. A rule that is assumed rather than read upstream says so in its comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RESOURCE_SUFFIX = ".resources"  # FileSkillStore.ResourceFolderSuffix
EMBEDDINGS_DIR = ".embeddings"  # EmbeddingCache.DirectoryName, under the skills folder
LEDGER_FILE = "dream-pass-ledger.json"  # DreamPassLedger.FileName, in the agent folder
RESOURCE_USAGE_FILE = "skill-resource-usage.jsonl"  # FileSkillResourceUsageStore, agent folder
# FileSkillStore.FilenamePattern: a resource file name (no separators, no '..').
_RESOURCE_NAME_RE = re.compile(r"^[a-zA-Z0-9_\-\.]+$")
RESOURCE_TYPES = ("Python", "Wisp", "JsonSchema", "Markdown", "Text", "Other")  # SkillResourceType


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
    # DreamOptions.ProtectedSkillPrefixes (PR #275): never pruned, merged away or deleted.
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


ROCKBOT_64E82CC_ID = "rockbot-64e82cc"
ROCKBOT_CURRENT_ID = "rockbot-current"

ROCKBOT_64E82CC = RockBotRules(id=ROCKBOT_64E82CC_ID, label="RockBot")
ROCKBOT_CURRENT = RockBotRules(
    id=ROCKBOT_CURRENT_ID, label="RockBot (current)", resources=True,
    ignored_dirs=(EMBEDDINGS_DIR,), protected_prefixes=("patrol/",),
    singleton_prefixes=("mcp/",), keep_summary_keywords=True, mcp_naming=True,
    ledger_file=LEDGER_FILE,
)
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
