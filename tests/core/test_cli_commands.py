"""``rockskills COMMAND`` imports only the module of COMMAND (issue 19): the map in ``cli`` names
each command's module, and says so truly."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

from rockskills_gui import cli
from tests.startup_budget import cli_script, loaded_modules

ROOT = Path(__file__).resolve().parents[2]


def registered(module_name: str) -> list[str]:
    parser = argparse.ArgumentParser()
    module = importlib.import_module(module_name)
    subparsers = parser.add_subparsers()
    module.register(subparsers)
    return list(subparsers.choices)


def test_the_command_map_names_the_module_that_registers_each_command() -> None:
    for module_name in cli.COMMAND_MODULES:
        for command in registered(module_name):
            assert cli.COMMANDS.get(command) == module_name, command
    assert set(cli.COMMANDS.values()) == set(cli.COMMAND_MODULES)
    full = cli.build_parser()
    actions = [a for a in full._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(actions[0].choices) == sorted(cli.COMMANDS)


def test_a_command_parses_the_same_with_its_module_alone() -> None:
    argv = ["recall", "LIB", "--queries-file", "Q", "--top", "50", "--json"]
    alone, full = cli.build_parser("recall").parse_args(argv), cli.build_parser().parse_args(argv)
    assert vars(alone) == vars(full)


def test_list_imports_no_other_command_module(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", cli_script(["list", str(tmp_path / "none")])],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "no such file or directory" in done.stderr
    modules = loaded_modules(done.stdout)
    assert "rockskills_gui.commands.library_cmds" in modules
    others = set(cli.COMMAND_MODULES) - {"rockskills_gui.commands.library_cmds"}
    assert not others & set(modules)


def test_convert_offers_the_targets_the_converter_has() -> None:
    from rockskills_gui.commands.library_cmds import CONVERT_TARGETS
    from rockskills_gui.core.library.convert.run import TARGETS

    assert CONVERT_TARGETS == TARGETS
