"""The '/' prefix tree of a skill library, its incremental updates, badges' facts and the filter.

The names are defined in :mod:`.skill_tree` (the tree, its nodes, incremental changes and
moves), :mod:`.tree_facts` (what the badges and flag filters know beyond a skill's record) and
:mod:`.tree_filter` (the filter and its highlights); this module keeps them under one name.
No Qt here.
"""

from __future__ import annotations

from rockskills_gui.core.library.skill_tree import INCREMENTAL_LIMIT as INCREMENTAL_LIMIT
from rockskills_gui.core.library.skill_tree import SEP as SEP
from rockskills_gui.core.library.skill_tree import Node as Node
from rockskills_gui.core.library.skill_tree import SkillTree as SkillTree
from rockskills_gui.core.library.skill_tree import TreeListener as TreeListener
from rockskills_gui.core.library.skill_tree import drop_mapping as drop_mapping
from rockskills_gui.core.library.skill_tree import is_inside as is_inside
from rockskills_gui.core.library.skill_tree import move_mapping as move_mapping
from rockskills_gui.core.library.tree_facts import Facts as Facts
from rockskills_gui.core.library.tree_facts import last_used_by_name as last_used_by_name
from rockskills_gui.core.library.tree_facts import problems_by_name as problems_by_name
from rockskills_gui.core.library.tree_filter import FilterResult as FilterResult
from rockskills_gui.core.library.tree_filter import TreeFilter as TreeFilter
from rockskills_gui.core.library.tree_filter import match_spans as match_spans
from rockskills_gui.core.library.tree_filter import run_filter as run_filter
from rockskills_gui.core.library.tree_filter import summary_snippet as summary_snippet
from rockskills_gui.core.storage.gcpause import gc_paused as gc_paused  # ui.library.tree_model
