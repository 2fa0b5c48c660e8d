"""What the entry points may import before they are ready (issue 19), kept in one place.

``tests/core/test_lazy_imports.py`` runs each entry point in a fresh interpreter and fails if a
module listed here was imported; ``tests/benchmarks/bench_startup.py`` times the same entry
points. The scripts below are run with ``python -c``; each ends by printing one line
``MODULES <json list of sys.modules>`` on stdout.
"""

from __future__ import annotations

# Heavy modules no entry point below may import (top-level package names).
HEAVY = ("openai", "httpx", "scipy", "numpy", "rank_bm25", "keyring", "sklearn", "tiktoken")
# Ours that only the panes and passes that use them load (clustering, dream pages, usage).
LATE = ("rockskills_gui.core.usage.matrix_order",
        "rockskills_gui.core.usage.matrix", "rockskills_gui.core.dream.offline",
        "rockskills_gui.core.app.endpoint", "rockskills_gui.core.lint.linter",
        "rockskills_gui.ui.dream", "rockskills_gui.ui.usage", "rockskills_gui.ui.shell.preferences")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    # ``rockskills --version``: nothing but the parser (no library code at all).
    "version": (*HEAVY, *LATE, "pydantic", "yaml", "markdown_it", "PySide6",
                "rockskills_gui.core", "rockskills_gui.commands"),
    # ``rockskills list DEMO``: the library and its records, nothing else (PyYAML loads with the
    # first SKILL.md frontmatter; the demo is a RockBot library; the records are dataclasses).
    # The saved settings (about SKILL.md formats), the converter, the usage logs: not for this.
    "list": (*HEAVY, *LATE, "pydantic", "yaml", "markdown_it", "PySide6", "rockskills_gui.ui",
             "rockskills_gui.commands.recall", "rockskills_gui.commands.dream",
             "rockskills_gui.core.app.settings", "rockskills_gui.core.library.convert.run",
             "rockskills_gui.core.usage"),
    # ``rockskills-gui DEMO`` until the tree of the demo library is painted: the recall index
    # (numpy) of a small library is built after that paint, the Recall tab when first shown; the
    # settings schema (pydantic) when first needed (core.app.settings_store).
    # The Skill tab's editor, the health table and the accessible names: after that paint too
    # (ui.shell.window_deferred).
    "gui": (*HEAVY, *LATE, "pydantic", "rockskills_gui.core.app.settings", "yaml", "markdown_it",
            "rockskills_gui.core.recall.bm25_index", "rockskills_gui.ui.recall",
            "rockskills_gui.ui.editor.editor_pane", "rockskills_gui.ui.editor.editor_layout",
            "rockskills_gui.ui.health", "rockskills_gui.ui.common.accessibility"),
    # The Usage tab's code, which the UI thread loads when the tab is first shown: scipy's
    # clustering (~0.1 s to import) loads on the worker that orders the matrix (scipy.sparse,
    # which the recall index loads on its worker after the first paint, is no matter).
    "usage_tab": ("scipy.cluster", "scipy.spatial"),
    # Opening Preferences: the openai client (1.5-2 s to import) loads with the first request
    # (Fetch models, Test connection), on its worker (issue 35).
    "preferences": ("openai", "httpx", "rockskills_gui.core.app.endpoint"),
}


def forbidden_loaded(modules: list[str], entry: str) -> list[str]:
    """The modules of ``modules`` that ``entry`` must not have imported."""
    banned = FORBIDDEN[entry]
    return sorted(m for m in modules if any(m == b or m.startswith(b + ".") for b in banned))


_REPORT = "import json, sys; print('MODULES', json.dumps(sorted(sys.modules)), flush=True)"


def cli_script(argv: list[str]) -> str:
    """``rockskills ARGV`` as the console script runs it (its output is sent to stdout)."""
    return (f"import sys\nfrom rockskills_gui.cli import main\ntry:\n    code = main({argv!r})\n"
            f"except SystemExit as exc:\n    code = exc.code\n{_REPORT}\nsys.exit(code or 0)\n")


# Start the GUI on PATH as the ``rockskills-gui`` command does (``launch.run``: the collector
# paused, then the app module, which loads the core before Qt), report the modules and quit as
# soon as the Library tree has painted a row of the library. The moment of that paint is printed
# on stderr as ``PAINTED <time.time()>`` (and the bare window's first paint likewise:
# bench_startup's "to paint").
GUI_SCRIPT = """
import sys
import time
from rockskills_gui.ui.shell import launch


def prepare(gui_app):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    start_loading = gui_app._start_loading

    def finish():
        """ + _REPORT.replace("; ", "\n        ") + """
        QApplication.instance().exit(0)

    def start(window, path, format=None):
        view = window.library_pane.view

        def painted():  # (SkillTreeView.painted: the viewport's paint, emitted as it ends)
            if view.model().rowCount() > 0:
                view.painted.disconnect(painted)
                print("PAINTED", time.time(), file=sys.stderr, flush=True)
                QTimer.singleShot(0, finish)

        view.painted.connect(painted)
        start_loading(window, path, format)

    gui_app._start_loading = start


launch.run(prepare)
"""

# The same, but quit only once the recall index, built after that paint (ui/shell/recall_warmup),
# is ready for the Recall tab: what the deferral costs in all (bench_startup's last GUI row).
GUI_RECALL_SCRIPT = GUI_SCRIPT.replace(
    "                QTimer.singleShot(0, finish)",
    "                wait_for_recall(window)",
).replace("    def start(window, path, format=None):", """    def wait_for_recall(window):
        if window.ctx.prepared.get("recall") is not None:
            finish()
        else:
            QTimer.singleShot(2, lambda: wait_for_recall(window))

    def start(window, path, format=None):""")

# The same, for a bare PySide6 window: start, show, painted, quit.
BARE_QT_SCRIPT = """
import sys
import time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QLabel

app = QApplication(sys.argv[:1])
window = QMainWindow()
window.setCentralWidget(QLabel("hello"))
window.resize(1400, 900)


class Painted(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            print("PAINTED", time.time(), file=sys.stderr, flush=True)
            QTimer.singleShot(0, lambda: app.exit(0))
        return False


window.centralWidget().installEventFilter(Painted(window))
window.show()
code = app.exec()
""" + _REPORT + "\nsys.exit(code)\n"


def loaded_modules(stdout: str) -> list[str]:
    """The module names a script above reported (its ``MODULES`` line)."""
    import json

    for line in reversed(stdout.splitlines()):
        if line.startswith("MODULES "):
            names: list[str] = json.loads(line[len("MODULES "):])
            return names
    raise AssertionError(f"the script reported no modules; its output ended:\n{stdout[-2000:]}")


# Import the Usage tab's code as its first showing does (PySide6 through the code cache first).
USAGE_TAB_SCRIPT = ("import rockskills_gui.ui.shell.app\n"
                    "import rockskills_gui.ui.usage.usage_pane\n" + _REPORT + "\n")

# Open Preferences in a window as Edit ▸ Preferences does (no request sent).
PREFERENCES_SCRIPT = ("import rockskills_gui.ui.shell.app\n"
                      "from PySide6.QtWidgets import QApplication\n"
                      "from rockskills_gui.ui.common.context import AppContext\n"
                      "from rockskills_gui.ui.shell.main_window import MainWindow\n"
                      "app = QApplication([])\n"
                      "window = MainWindow(AppContext(), interactive=False)\n"
                      "window.show_preferences()\n"
                      "assert window.preferences_dialog is not None\n" + _REPORT + "\n")
