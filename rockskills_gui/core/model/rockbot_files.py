"""The names RockBot's own files and folders have (MarimerLLC/rockbot, later than 64e82cc: README,
"Notes: RockBot (current)"); :mod:`.rules` and :mod:`.profiles` use them."""

from __future__ import annotations

RESOURCE_SUFFIX = ".resources"  # FileSkillStore.ResourceFolderSuffix
EMBEDDINGS_DIR = ".embeddings"  # EmbeddingCache.DirectoryName, under the skills folder
LEDGER_FILE = "dream-pass-ledger.json"  # DreamPassLedger.FileName, in the agent folder
RESOURCE_USAGE_FILE = "skill-resource-usage.jsonl"  # FileSkillResourceUsageStore, agent folder
SKILL_ARCHIVE_DIR = ".rockskills/archive"  # this app's archive of skills, outside skills/: never loaded
