"""The three dream prompts byte for byte, the values behind them, directives and the prune."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.dream import prompts
from rockskills_gui.core.dream.directives import BUILT_IN, DirectiveSource, load_directive
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.run import prompt_for
from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from tests.conftest import AGENT, EXPECTED, NOW_TEXT, REPO

NOW = Timestamp.parse(NOW_TEXT)
DERIVED = json.loads((EXPECTED / "dream-derived.json").read_text(encoding="utf-8"))
FILES = {DreamPass.GAP: "dream-1-skill-gap.user.txt",
         DreamPass.CONSOLIDATE: "dream-2-consolidation.user.txt",
         DreamPass.OPTIMIZE: "dream-3-optimization.user.txt"}


def expected(dream_pass: DreamPass) -> bytes:
    return (EXPECTED / FILES[dream_pass]).read_bytes()


@pytest.mark.parametrize("dream_pass", list(FILES))
def test_prompt_is_byte_exact(dream_pass: DreamPass) -> None:
    prompt = prompt_for(RockBotLibrary.open(AGENT), dream_pass, NOW)
    assert prompt.user is not None and prompt.user.encode("utf-8") == expected(dream_pass)


@pytest.mark.parametrize("dream_pass", list(FILES))
def test_cli_prompt_only_prints_the_user_message_exactly(dream_pass: DreamPass) -> None:
    result = subprocess.run([sys.executable, "-m", "rockskills_gui", "dream", str(AGENT), "--pass",
                             dream_pass.value, "--prompt-only", "--now", NOW_TEXT],
                            cwd=REPO, capture_output=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected(dream_pass)


def test_derived_values_match_the_fixture() -> None:
    library = RockBotLibrary.open(AGENT)
    inputs = DreamInputs.read(library.agent_dir, NOW)
    gap = prompts.analyze_gap(library.skills(), inputs)
    assert [e.id for e in gap.negative] == DERIVED["gap"]["negative_no_skill"]
    assert [e.id for e in gap.positive] == DERIVED["gap"]["positive_no_skill"]
    assert gap.first_user_messages == DERIVED["gap"]["first_user_messages"]
    assert [list(t) for t in gap.recurring_terms] == DERIVED["gap"]["recurring_terms"]
    pruned = prompts.prune_candidates(library.skills(), NOW)
    assert [[c.name, c.last_activity.isoformat()] for c in pruned] == DERIVED["consolidation"]["pruned"]
    rest = [s for s in library.skills() if s.name not in {c.name for c in pruned}]
    consolidation = prompts.analyze_consolidation(rest, inputs)
    assert len(consolidation.skills) == DERIVED["consolidation"]["skill_count"]
    assert consolidation.sparse == DERIVED["consolidation"]["sparse"]
    assert [[p, n] for p, n in consolidation.clusters] == DERIVED["consolidation"]["prefix_clusters"]
    optimization = prompts.analyze_optimization(rest, inputs)
    derived = DERIVED["optimization"]
    assert optimization.at_risk_sessions == derived["at_risk_sessions"]
    assert optimization.at_risk_skill_names == derived["at_risk_skill_names"]
    assert [s.name for s in optimization.at_risk_skills] == derived["at_risk_skills_found"]
    assert [s.name for s in optimization.sparse] == derived["sparse"]


def test_gap_pass_is_skipped_without_a_conversation_log(agent_copy: Path) -> None:
    (agent_copy / "conversation-log" / "turns.jsonl").unlink()
    prompt = prompt_for(RockBotLibrary.open(agent_copy), DreamPass.GAP, NOW)
    assert prompt.user is None and "conversation log is empty" in (prompt.skipped or "")


def test_truncation_counts_utf16_units_and_may_cut_a_pair() -> None:
    text = "a" * 799 + "\U0001F600" + "tail"
    head = prompts.capped(text, prompts.CONSOLIDATION_TRUNCATED)
    assert head == "a" * 799 + "\ud83d" + "\n" + prompts.CONSOLIDATION_TRUNCATED
    assert prompts.printable(head).encode("utf-8").startswith(b"a" * 799 + "\ufffd".encode())
    assert prompts.capped("x" * 800, "M") == "x" * 800


def test_prefix_cluster_names_use_the_culture_order() -> None:
    names = ["a/b", "a/B", "a/_x", "a/-x", "a/0", "a/a"]
    skills = [Skill(name=n, created_at=NOW) for n in names]
    assert prompts.prefix_clusters(skills) == [("a", ["a/_x", "a/-x", "a/0", "a/a", "a/b", "a/B"])]


def test_library_directive_files_win_over_built_ins(agent_copy: Path) -> None:
    assert load_directive(agent_copy, DreamPass.CONSOLIDATE).source is DirectiveSource.BUILT_IN
    (agent_copy / "skill-dream.md").write_bytes("\ufeffOur own rules.\n".encode())
    directive = load_directive(agent_copy, DreamPass.CONSOLIDATE)
    assert directive.source is DirectiveSource.LIBRARY and directive.text == "Our own rules.\n"
    assert directive.edited("Changed").source is DirectiveSource.EDITED
    for dream_pass, text in BUILT_IN.items():
        if dream_pass is DreamPass.MCP_REFRESH:  # RockBot (current): {changed, content, notes}
            assert all(f'"{k}"' in text for k in ("changed", "content", "notes"))
            continue
        assert ('"toSave"' in text) and (dream_pass is DreamPass.GAP or '"toDelete"' in text)
