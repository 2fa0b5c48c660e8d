"""``--format rockbot-current`` / ``rockbot-64e82cc``: the CLI opens a RockBot directory with the
profile asked for (issue 20); ``rockbot`` and no ``--format`` take the one the evidence says."""

from __future__ import annotations

from pathlib import Path

import pytest

from rockskills_gui.cli import build_parser
from rockskills_gui.cli import main as cli_main
from rockskills_gui.commands.common import open_library
from rockskills_gui.core.library.formats import OPEN_FORMAT_LABELS, OPEN_FORMATS, open_format_of
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, ROCKBOT_CURRENT
from tests.conftest import AGENT
from tests.rockbot_current import make_current_agent


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return make_current_agent(tmp_path / "agent")


def test_the_profile_values_are_offered_beside_the_formats() -> None:
    assert OPEN_FORMATS[:3] == ("rockbot", "rockbot-current", "rockbot-64e82cc")
    assert set(OPEN_FORMATS) == set(OPEN_FORMAT_LABELS)
    args = build_parser().parse_args(["list", "LIB", "--format", "rockbot-current"])
    assert args.format == "rockbot-current"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["list", "LIB", "--format", "rockbot-1.0"])


@pytest.mark.parametrize(("format_id", "rules"), [
    (None, ROCKBOT_CURRENT), ("rockbot", ROCKBOT_CURRENT),
    ("rockbot-current", ROCKBOT_CURRENT), ("rockbot-64e82cc", ROCKBOT_64E82CC)])
def test_format_chooses_the_rockbot_profile(agent: Path, format_id: str | None, rules) -> None:
    lib = open_library(str(agent), format_id)
    assert isinstance(lib, RockBotLibrary) and lib.rules is rules
    assert open_format_of(lib) == ("rockbot-current" if rules is ROCKBOT_CURRENT
                                   else "rockbot-64e82cc")


def test_the_64e82cc_fixture_stays_64e82cc_unless_asked(tmp_path: Path) -> None:
    assert open_library(str(AGENT)).rules is ROCKBOT_64E82CC  # dream/usage commands detect too
    assert open_library(str(AGENT), "rockbot-current").rules is ROCKBOT_CURRENT


def test_lint_differs_by_profile(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli_main(["lint", str(agent), "--format", "rockbot-current"])
    current = capsys.readouterr().out
    assert "resource-missing" in current and ".resources/schema.json" not in current
    cli_main(["lint", str(agent), "--format", "rockbot-64e82cc"])
    old = capsys.readouterr().out
    # 64e82cc's loader reads every *.json below skills/: a resource JSON is a (bad) skill file
    assert ".resources/schema.json" in old and "resource-missing" not in old

