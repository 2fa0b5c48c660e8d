"""``rockskills-gui``, the command: Python's cycle collector waits while the program starts.

Starting imports some 300 modules and builds the window: hundreds of thousands of objects that
all stay alive (classes, functions, Qt's Python enums), so each collection the start triggers
frees nothing, and the full ones walk everything allocated so far (~7 ms in all before the first
paint, issue 19). The collector is paused from the first import until the window has shown the
library (``app.main`` resumes it with the log's start line, or after :data:`app.RESUME_GC_MS`
if no library finishes loading). Reference counting frees everything else as always.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from types import ModuleType
from typing import NoReturn


def run(prepare: Callable[[ModuleType], None] | None = None) -> NoReturn:
    """Pause the collector, take compiled code from the start-up code cache
    (:mod:`~rockskills_gui.core.app.code_cache`), import the window's start (``ui.shell.app``)
    and run it; ``prepare(app_module)`` runs in between (the start-up benchmark hooks the first
    paint)."""
    gc.disable()
    from rockskills_gui.core.app import code_cache

    code_cache.start()
    from rockskills_gui.ui.shell import app

    if prepare is not None:
        prepare(app)
    app.run()
