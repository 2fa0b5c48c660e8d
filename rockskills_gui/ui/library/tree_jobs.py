"""The tree's background work: last-use times from the usage logs and the lint marks, read off
the UI thread (``ctx.query``); and the tree built on the loader's worker."""

from __future__ import annotations

import gc
from pathlib import Path

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import SkillTree, last_used_by_name
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.ui.common.usage_prefetch import UsagePrefetch

FREEZE_EVENTS = 20_000  # usage events from which the result is frozen (see read_last_used)


def read_last_used(agent_dir: Path, prefetch: object = None) -> dict[str, Timestamp]:
    """Read ``skill-usage/*.jsonl`` and reduce it to the latest use per name (on a worker:
    ``ctx.query``); ``prefetch`` is the same result, read by a helper process while the library
    loaded (ui.common), when it is for this folder. Unreadable logs give no times."""
    if isinstance(prefetch, UsagePrefetch) and prefetch.agent_dir == agent_dir:
        latest = prefetch.result()  # waits for the helper (no lock held meanwhile)
        if latest is not None:
            gc.freeze()  # long-lived: out of the collector's way (see below)
            return latest
    from rockskills_gui.core.usage.events import read_usage  # (loads on this worker)

    try:
        with gc_paused():  # 100,000 events must not trigger full collections of a big heap
            events = read_usage(agent_dir).events
            result: dict[str, Timestamp] = last_used_by_name(events)
            if len(events) >= FREEZE_EVENTS:
                # The result lives as long as the library: out of the collector's way. The first
                # collection after the pause walked it (and every young object) for 120 ms.
                del events
                gc.freeze()
    except OSError:
        result = {}
    return result


def lint_marks(library: Library) -> dict[str, list[str]]:
    """The tree's lint marks: each skill's warning-or-worse findings in its format (on a
    worker); advisory marks never break the tree: a failure gives none."""
    try:
        from rockskills_gui.core.lint.linter import skill_marks  # numpy: not at startup

        return skill_marks(library)
    except Exception:
        return {}


def prepare_tree(library: Library) -> SkillTree:
    """The tree of ``library``, built on the loader's worker thread (see LibraryLoader.add_preparer),
    with its folder count (a walk over every node) already cached."""
    tree = SkillTree(library.skills())
    tree.folder_count()
    return tree
