"""``rockskills``: the core, headless. Each command family lives in ``rockskills_gui/commands``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from rockskills_gui import __version__

# Modules exposing ``register(subparsers)``; each subcommand sets ``func(args) -> int``.
COMMAND_MODULES = (
    "rockskills_gui.commands.library_cmds",
    "rockskills_gui.commands.recall",
    "rockskills_gui.commands.usage",
    "rockskills_gui.commands.dream",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rockskills",
        description="Read, check and convert an agent's skill library (RockBot format) headless.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; exit status 0 ok, 1 findings/failures, 2 usage error or not a library."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_usage(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
