"""``rockskills-gui``: start the workbench, or render one screenshot of it and exit.

    rockskills-gui [PATH] [--pane tree|editor|recall|heatmap|dream] [--select NAME]
                   [--plan PLAN.json]
                   [--query TEXT] [--theme system|light|dark] [--screenshot OUT.png]
                   [--size 1400x900] [--version]

Without PATH the bundled demo library is installed (once, in the user data folder) and opened.
Exit status: 0 ok; 1 the screenshot could not be written; 2 usage error, or (with --screenshot)
the path is not a library; 3 a screenshot timed out.

The log goes to a rotating file in the user data folder (API keys redacted); an uncaught exception
shows a dialog naming it instead of ending the program.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, NoReturn

# isort: off
# The pure-Python modules the window starts with are imported before PySide6: from its import on,
# PySide6 reads the source of every module imported after it (its ``__feature__`` import hook
# looks for ``from __feature__ import``), ~0.3 ms a module; ~200 modules here (issue 19). The
# bare ``import`` lines are there for that alone.
from rockskills_gui import __version__
from rockskills_gui.core.app.logs import configure_logging, remove_logging
from rockskills_gui.core.library.formats import OPEN_FORMATS
import rockskills_gui.core.app.recent
import rockskills_gui.core.app.settings_store
import rockskills_gui.core.library.resources
import rockskills_gui.core.library.tree

from rockskills_gui.core.app import code_cache
from rockskills_gui.ui.common.pyside_support import support_code_cached

with support_code_cached(code_cache.installed()):  # (~15 ms less at every start: launch.run)
    from PySide6.QtCore import (
        QMessageLogContext,
        Qt,
        QTimer,
        SignalInstance,
        QtMsgType,
        qInstallMessageHandler,
        qVersion,
    )
from PySide6.QtWidgets import QApplication, QWidget
import rockskills_gui.ui.common.pyside_scan  # noqa: F401  (installs itself: PySide6 is loaded)
# isort: on

from rockskills_gui.ui.common import queries
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.icons import app_icon
from rockskills_gui.ui.common.theme import apply_theme, set_identity
from rockskills_gui.ui.shell.crash import CrashReporter
from rockskills_gui.ui.shell.main_window import PANES, MainWindow
from rockskills_gui.ui.shell.window_geometry import DEFAULT_SIZE

if TYPE_CHECKING:
    import argparse

SCREENSHOT_TIMEOUT_MS = 120_000
SETTLE_ROUNDS = 5
AFTER_START_MS = 500  # the log's start line waits until the window has had its first frames
SHOW_WAIT_MS = 100  # a library loaded within this is in the window's first frame
RESUME_GC_MS = 3_000  # the cycle collector runs again (ui.shell.launch) at the latest after this
# Printed by Qt's offscreen platform plugin for every top-level window; it means nothing here.
OFFSCREEN_NOISE = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
)
THEMES = ("system", "light", "dark")
log = logging.getLogger("rockskills_gui")


def parse_size(text: str) -> tuple[int, int]:
    """``1400x900`` -> (1400, 900)."""
    import argparse  # (the parser's own type: only when it parses)

    match = re.fullmatch(r"\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1400x900, got {text!r}")
    return int(match[1]), int(match[2])


def build_parser() -> argparse.ArgumentParser:
    import argparse  # (not for the usual start: see parse_args)

    parser = argparse.ArgumentParser(
        prog="rockskills-gui",
        description="Curate an AI agent's skill library (RockBot, Agent Skills SKILL.md, PicoBot, "
                    "carpenter or CortexPrism; detected from PATH). Without PATH, "
                    "the bundled demo library is opened.",
    )
    parser.add_argument("path", nargs="?", type=Path, metavar="PATH",
                        help="a skill library folder (RockBot agent directory or skills/, SKILL.md tree, "
                             ".cortex project, memory.db)")
    parser.add_argument("--format", choices=OPEN_FORMATS, metavar="FORMAT",
                        help="open PATH as this skill format instead of the detected one "
                             f"({', '.join(OPEN_FORMATS)}; rockbot-current and rockbot-64e82cc "
                             "choose the RockBot profile)")
    parser.add_argument("--pane", choices=PANES, help="the pane to show first")
    parser.add_argument("--select", metavar="NAME", help="the skill to select (case-insensitive)")
    parser.add_argument("--query", metavar="TEXT",
                        help="a user message to rank in the Recall tab (shows it unless --pane "
                             "names another pane)")
    parser.add_argument("--plan", type=Path, metavar="PLAN.json",
                        help="a saved dream plan to review (opens the dream wizard on it)")
    parser.add_argument("--theme", choices=THEMES,
                        help="colours for this run (default: the Preferences setting)")
    parser.add_argument("--screenshot", type=Path, metavar="OUT.png",
                        help="render the window offscreen, save it as PNG and exit")
    parser.add_argument("--size", type=parse_size, metavar="WxH",
                        help="window size (default 1400x900)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def parse_args(argv: Sequence[str]) -> SimpleNamespace:
    """The command line's options. The usual start (no option, at most a PATH) neither builds
    the parser nor imports argparse (~3 ms before the first paint); its values are the parser's
    own defaults (tested)."""
    if len(argv) <= 1 and not any(arg.startswith("-") for arg in argv):
        return SimpleNamespace(path=Path(argv[0]) if argv else None, format=None, pane=None,
                               select=None, query=None, plan=None, theme=None, screenshot=None,
                               size=None)
    return SimpleNamespace(**vars(build_parser().parse_args(argv)))


def _needs_offscreen() -> bool:
    """True on a Linux/BSD box without X11 or Wayland when no platform was chosen."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return False
    if sys.platform in ("win32", "darwin"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _application() -> QApplication:
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    set_identity(app)
    app.setWindowIcon(app_icon())
    return app


def _quiet_offscreen_noise() -> Callable[[], None]:
    """Drop the offscreen plugin's meaningless warnings; returns a function undoing that."""
    previous: Callable[[QtMsgType, QMessageLogContext, str], object] | None = None

    def handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if message in OFFSCREEN_NOISE:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            print(message, file=sys.stderr)

    def restore() -> None:
        qInstallMessageHandler(previous)

    previous = qInstallMessageHandler(handler)
    return restore


def _once(signal: SignalInstance, slot: Callable[[str], object]) -> None:
    """Connect ``slot`` to ``signal`` for one emission only."""

    def handler(value: str) -> None:
        signal.disconnect(handler)
        slot(value)

    signal.connect(handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the GUI (returns the application's exit status)."""
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return int(exc.code or 0)

    if args.plan is not None:
        problem = _plan_problem(args.plan)
        if problem is not None:
            print(f"rockskills-gui: {problem}", file=sys.stderr)
            return 2
        args.pane = "dream"
    if args.screenshot is not None and _needs_offscreen():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    restore_handler = _quiet_offscreen_noise()
    app = _application()
    ctx = AppContext()
    log_file = configure_logging(ctx.keys.known_keys)
    # (where API keys are kept is logged when the keyring is first consulted, not at start)
    reporter: CrashReporter | None = None
    theme = args.theme or ctx.preferences.startup().theme
    apply_theme(app, theme)  # before the window: its widgets are made in these colours
    window = MainWindow(ctx, interactive=args.screenshot is None)
    window.apply_theme_mode(theme, override=args.theme is not None, applied=True)
    if args.screenshot is None:
        reporter = CrashReporter(log_file, ctx.keys.known_keys, lambda: window, app)
        reporter.install()
    if args.size is not None or args.screenshot is not None:
        window.resize(*(args.size or DEFAULT_SIZE))  # (else the window placed itself: window_geometry)

    try:
        QTimer.singleShot(RESUME_GC_MS, gc.enable)  # (paused by ui.shell.launch; at the latest)
        if args.screenshot is not None:
            return _screenshot(app, window, args)
        _once(window.loadFinished, lambda _error: _apply_start_options(window, args))
        _once(window.loadFinished,
              lambda _error: QTimer.singleShot(AFTER_START_MS, window, lambda: _after_start(ctx)))
        window.show_when_loaded(SHOW_WAIT_MS)  # its first frame has the tree (window_loading)
        _start_loading(window, args.path, args.format)
        return app.exec()
    finally:
        window.loader.cancel()
        window.loader.wait()
        window.recall_warmup.wait()
        _wait_for_workers()
        window.close()
        window.deleteLater()
        restore_handler()
        if reporter is not None:
            reporter.uninstall()
            reporter.deleteLater()
        log.info("rockskills-gui exiting")
        remove_logging()


def run() -> NoReturn:
    """The ``rockskills-gui`` command: :func:`main`, then leave without tearing the interpreter
    down module by module (~50 ms at every quit, issue 19). What must reach the disk is written
    by then (the window layout is synced when the window closes; the settings and every change
    when made); what Python would still do that matters is done here: wait for running threads,
    run the exit handlers, close the log, flush."""
    code = main()
    # What Python's own shutdown does first: wake pooled workers (concurrent.futures registers
    # that with threading), then wait for every non-daemon thread.
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    else:
        current = threading.current_thread()
        for thread in threading.enumerate():
            if thread is not current and not thread.daemon:
                thread.join()
    _save_code_cache()  # (what the panes opened since compiled)
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _after_start(ctx: AppContext) -> None:
    """Once the window is up: the cycle collector runs again (paused while the program started,
    ui.shell.launch), the log's start line (the first record opens the log file), and the
    settings schema (pydantic, ~0.1 s) validated and the system keyring chosen (~0.4 s) on a
    thread, so that the first dialog that needs them (Preferences, the dream wizard) does not
    wait, and a damaged setting is logged."""
    import platform  # (its import is not for the start)

    gc.enable()
    _save_code_cache()
    log.info("rockskills-gui %s starting (Python %s, Qt %s, %s)", __version__,
             platform.python_version(), qVersion(), platform.platform())
    ctx.query(ctx, "settings schema", lambda _control: (ctx.preferences.settings, ctx.keys.status),
              lambda _loaded: None)  # (and the keyring: ~0.4 s)


def _save_code_cache() -> None:
    """Write what was compiled anew to the start-up code cache (launch.run starts it)."""
    cache = code_cache.installed()
    if cache is not None:
        cache.save()


def _wait_for_workers() -> None:
    """Let every background job finish before Python shuts down: a worker thread still running
    Python code during finalisation is torn down, and Qt reports an exception from it. Queued
    jobs never start; jobs that only wait on the network (detached) are not waited for."""
    queries.drop_queued()
    queries.wait_idle()


def _start_loading(window: MainWindow, path: Path | None, format: str | None = None) -> None:
    if path is None:
        window.open_demo()
    else:
        window.open_path(path, format)


def _apply_start_options(window: MainWindow, args: SimpleNamespace) -> bool:
    """Select the requested skill and bring the requested pane forward; False if not found."""
    found = True
    if args.select:
        found = window.ctx.select_skill(args.select)
        if found:
            window.show_pane("editor")
        else:
            window.statusBar().showMessage(f"No skill named '{args.select}'", 10000)
    if args.query is not None:
        window.recall_pane.set_query(args.query, immediate=True)
    if args.pane:
        window.show_pane(args.pane)
    elif args.query is not None:
        window.show_pane("recall")
    if args.pane == "dream" and window.dream_wizard is not None:
        if args.screenshot is not None:
            window.dream_wizard.resize(*(args.size or DEFAULT_SIZE))
        if args.plan is not None:
            window.dream_wizard.open_plan(args.plan)
    return found


def _plan_problem(path: Path) -> str | None:
    """Why ``path`` is not a readable dream plan, or None."""
    from rockskills_gui.core.dream.plan import Plan

    try:
        Plan.load(path)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    except ValueError as exc:
        return f"{path} is not a dream plan: {str(exc).splitlines()[0]}"
    return None


def _screenshot(app: QApplication, window: MainWindow, args: SimpleNamespace) -> int:
    """Load, apply the start options, let the event loop settle, save ``window.grab()``."""
    out: Path = args.screenshot

    def finished(error: str) -> None:
        if error:
            print(f"rockskills-gui: {error}", file=sys.stderr)
            app.exit(2)
            return
        if not _apply_start_options(window, args):
            print(f"rockskills-gui: warning: no skill named '{args.select}'", file=sys.stderr)
        settle(SETTLE_ROUNDS)

    def settle(rounds: int) -> None:
        if rounds > 0 or window.recall_busy:  # e.g. a large library's index being built
            QTimer.singleShot(20, window, lambda: settle(rounds - 1))
        else:
            app.exit(save())

    def save() -> int:
        target: QWidget = window
        if args.pane == "dream" and window.dream_wizard is not None:
            target = window.dream_wizard
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"rockskills-gui: cannot create {out.parent}: {exc.strerror}", file=sys.stderr)
            return 1
        if not target.grab().save(str(out), "PNG"):
            print(f"rockskills-gui: could not write {out}", file=sys.stderr)
            return 1
        return 0

    def timed_out() -> None:
        print(f"rockskills-gui: timed out after {SCREENSHOT_TIMEOUT_MS // 1000} s "
              "waiting for the library to open", file=sys.stderr)
        app.exit(3)

    _once(window.loadFinished, finished)
    window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    window.show()
    guard = QTimer(window)
    guard.setSingleShot(True)
    guard.timeout.connect(timed_out)
    guard.start(SCREENSHOT_TIMEOUT_MS)
    _start_loading(window, args.path, args.format)
    code = app.exec()
    guard.stop()
    return code


if __name__ == "__main__":
    run()
