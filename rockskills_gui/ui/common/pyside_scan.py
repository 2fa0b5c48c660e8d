"""Spare PySide6's source scan of the modules the window imports (issue 19: start-up time).

From its first import on, PySide6 decides, for each module an ``import`` statement names, whether
it "uses PySide" (for its ``from __feature__ import`` switching) by reading the module's whole
source with ``inspect.getsource`` — unless the name is already in its ``pyside_feature_dict``.
That is ~75 modules at start (``typing``, ``inspect``, ``subprocess`` … and ours), tens of ms.

This program never selects a feature, so the answer only has to be the scan's: 0 ("uses PySide,
no feature") for PySide's modules and ours, -1 ("ignore") for any other. They are entered for the
modules already imported when :func:`spare_source_scan` runs, and for each later one by a
finder that finds nothing itself. A module that does select a feature still gets it: PySide sets
its entry on ``from __feature__ import``.

Importing this module (after PySide6) does it; the window's start (``ui.shell.app``) imports it
first thing after PySide6.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

USES_PYSIDE = ("rockskills_gui", "PySide6", "shiboken6", "shibokensupport")
NO_FEATURE = 0  # shibokensupport.feature: uses PySide, switching default "no feature"
IGNORE = -1  # shibokensupport.feature: does not use PySide, ignored in switching


def feature_entry(name: str) -> int:
    """What PySide's scan would enter for module ``name`` in this program."""
    return NO_FEATURE if name.split(".", 1)[0] in USES_PYSIDE else IGNORE


class _EnterModules:
    """A meta-path finder that enters each module in PySide6's table as it is imported and finds
    nothing (the normal finders import it)."""

    def __init__(self, table: dict[str, int]) -> None:
        self.table = table

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in self.table:
            self.table[name] = feature_entry(name)
        return None


def spare_source_scan() -> bool:
    """Enter the imported modules and install the finder (after PySide6 is imported); False
    when this PySide6 has no such table (nothing is changed then)."""
    feature = sys.modules.get("shibokensupport.feature")
    table = getattr(feature, "pyside_feature_dict", None)
    if not isinstance(table, dict):
        return False
    for name in list(sys.modules):
        if name not in table:
            table[name] = feature_entry(name)
    if not any(isinstance(f, _EnterModules) for f in sys.meta_path):
        sys.meta_path.insert(0, _EnterModules(table))
    return True


spare_source_scan()
