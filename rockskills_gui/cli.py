"""``rockskills``: the core, headless. Each command family lives in ``rockskills_gui/commands``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from rockskills_gui import __version__

TYPE_CHECKING = False  # (typing's own import, ~2 ms, is not for --version)
if TYPE_CHECKING:
    from typing import NoReturn

# Modules exposing ``register(subparsers)``; each subcommand sets ``func(args) -> int``.
COMMAND_MODULES = (
    "rockskills_gui.commands.library_cmds",
    "rockskills_gui.commands.recall",
    "rockskills_gui.commands.usage",
    "rockskills_gui.commands.usage_archive",
    "rockskills_gui.commands.dream",
    "rockskills_gui.commands.archive",
    "rockskills_gui.commands.budget",
    "rockskills_gui.commands.agent_tool",
    "rockskills_gui.commands.trigger_eval",
    "rockskills_gui.commands.agents",
)


# Which module registers each command: ``rockskills list ...`` imports only the module of
# ``list`` (tests/core/test_cli_commands.py checks this against what the modules register).
COMMANDS = {
    **dict.fromkeys(("list", "lint", "index", "convert"), "rockskills_gui.commands.library_cmds"),
    **dict.fromkeys(("recall", "simulate", "recall-test"), "rockskills_gui.commands.recall"),
    "usage": "rockskills_gui.commands.usage",
    "archive-usage": "rockskills_gui.commands.usage_archive",
    **dict.fromkeys(("dream", "apply", "undo"), "rockskills_gui.commands.dream"),
    **dict.fromkeys(("archived", "restore"), "rockskills_gui.commands.archive"),
    "budget": "rockskills_gui.commands.budget",
    "tool": "rockskills_gui.commands.agent_tool",
    "trigger-eval": "rockskills_gui.commands.trigger_eval",
    "agents": "rockskills_gui.commands.agents",
}


def build_parser(commands: bool | str = True) -> argparse.ArgumentParser:
    """The ``rockskills`` parser; ``commands=False`` leaves out the subcommands (whose modules
    are only imported when a command may run: ``--version`` needs none of them), a command name
    registers only the module of that command (see :data:`COMMANDS`)."""
    parser = argparse.ArgumentParser(
        prog="rockskills",
        description="Read, check and convert an agent's skill library (RockBot format) headless.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    if not commands:
        return parser
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    only = COMMANDS.get(commands) if isinstance(commands, str) else None
    for module_name in (only,) if only is not None else COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(subparsers)
    return parser


DEBUG_ENV = "ROCKSKILLS_DEBUG"  # set: an unexpected error shows its traceback


def error_text(exc: BaseException) -> str:
    """One readable line for an error that reached the command line (no traceback)."""
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror if exc.filename is None else f"{exc.filename}: {exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    if not isinstance(exc, OSError | ValueError) and not type(exc).__module__.startswith("rockskills_gui"):
        text = f"{type(exc).__name__}: {text} (an internal error; set {DEBUG_ENV}=1 for details)"
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; exit status 0 ok, 1 findings/failures, 2 usage error or not a library.

    An error no command handled is printed as one ``rockskills: error: ...`` line (exit 1),
    never as a traceback (unless ``ROCKSKILLS_DEBUG`` is set).
    """
    if argv is None:
        argv = sys.argv[1:]
    if list(argv[:1]) == ["--version"]:  # prints and exits before any command module is imported
        build_parser(commands=False).parse_args(argv[:1])
    # (a command given first needs only its own module: the others are not imported)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else True)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_usage(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("rockskills: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"rockskills: error: {error_text(exc)}", file=sys.stderr)
        return 1


def run() -> NoReturn:
    """The ``rockskills`` command: :func:`main`, with the start-up code cache
    (:mod:`~rockskills_gui.core.app.code_cache`) for a command (``--version`` needs none)."""
    argv = sys.argv[1:]
    if list(argv[:1]) == ["--version"]:
        sys.exit(main(argv))
    from rockskills_gui.core.app import code_cache

    cache = code_cache.start()
    try:
        code = main(argv)
    finally:
        cache.save()
    sys.exit(code)


if __name__ == "__main__":
    run()
