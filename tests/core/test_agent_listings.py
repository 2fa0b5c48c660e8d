"""What each coding agent lists (issue 31), on generated libraries: Codex's 8,000-character cap
(descriptions shortened round robin, then skills omitted, with Codex's own warnings; 2% of a known
context window in tokens), Claude Code's least-used-first drop, Copilot's names-only overflow and
Hermes' 60-character descriptions, in the core and in ``rockskills budget --profile``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from rockskills_gui.cli import main
from rockskills_gui.core.budget.agents import AGENTS
from rockskills_gui.core.budget.compute import Budget, compute_budget
from rockskills_gui.core.budget.entries import entries_of
from rockskills_gui.core.budget.fits import (
    CLAUDE_HEADER,
    CODEX_SHORTENED,
    CODEX_SHORTENED_PERCENT,
    HERMES_LIMIT,
)
from rockskills_gui.core.budget.limits import Limits, default_limits
from rockskills_gui.core.evals.presentation import CLAUDE_SKILL, present_library
from rockskills_gui.core.evals.run import EvalOptions, run_trigger_evals
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet, TriggerRow
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.llm.endpoint import Endpoint
from tests.core.llm_server import by_query, scripted_server, tool_call
from tests.skill_layouts import claude_marketplace, hermes_home, skill


def library_of(root: Path, count: int, description: int, name: str = "skill") -> Path:
    """``count`` skills below ``root/skills`` with descriptions of ``description`` characters."""
    for i in range(count):
        text = (f"Skill {i} does its own thing. " * 40)[:description]
        skill(root / "skills" / f"{name}-{i:03}", f"{name}-{i:03}", text)
    return root


def codex(root: Path, limits: Limits | None = None) -> Budget:
    lib = open_library(root)
    return compute_budget(entries_of(lib), AGENTS["codex"], limits or default_limits("codex"))


def skill_lines(text: str) -> list[str]:
    """The ``- name: description (file: path)`` lines of a Codex listing."""
    return text.split("### Available skills\n", 1)[1].split("\n### How to use skills", 1)[0].split("\n")


def test_codex_lists_everything_in_full_when_it_fits(tmp_path: Path) -> None:
    budget = codex(library_of(tmp_path, 5, 80))
    assert budget.cap == "8,000 characters of skill lines (context window unknown)"
    assert budget.warning == "" and budget.shortened == () and budget.hidden == ()
    lib = open_library(tmp_path)
    lines = skill_lines(budget.text)
    assert lines == [f"- {s.name}: {s.summary} (file: {lib.skill_path(s.name).as_posix()})"
                     for s in lib.skills()]
    assert budget.text.startswith("\n## Skills\nA skill is a set of local instructions")


def test_codex_shortens_every_description_round_robin_to_its_8000_characters(tmp_path: Path) -> None:
    budget = codex(library_of(tmp_path, 40, 400))
    lines = skill_lines(budget.text)
    assert len(lines) == 40 == len(budget.listed) and budget.hidden == ()
    assert sum(len(line) + 1 for line in lines) <= 8000  # each line and its newline
    summaries = {s.name: s.summary or "" for s in open_library(tmp_path).skills()}
    kept = {s.name: s.kept for s in budget.shortened}
    assert set(kept) == set(summaries) and max(kept.values()) - min(kept.values()) <= 1  # one at a time
    for line, name in zip(lines, budget.listed, strict=True):
        description = line.split(": ", 1)[1].rsplit(" (file: ", 1)[0]
        assert summaries[name].startswith(description) and len(description) == kept[name]  # a prefix
    assert budget.warning == CODEX_SHORTENED  # more than 100 characters cut per skill on average


def test_codex_omits_skills_when_even_bare_lines_pass_the_cap(tmp_path: Path) -> None:
    budget = codex(library_of(tmp_path, 120, 50, name="a-rather-long-skill-name-for-the-list"))
    lines = skill_lines(budget.text)
    assert sum(len(line) + 1 for line in lines) <= 8000
    assert all(line.endswith("/SKILL.md)") and ": (file: " in line for line in lines)  # no description
    omitted = [h for h in budget.hidden if h.kind == "max_chars"]
    assert len(lines) + len(omitted) == 120 and omitted
    assert budget.listed == tuple(sorted(budget.listed)) and max(budget.listed) < min(h.name for h in omitted)
    assert budget.warning == ("Exceeded skills context budget. All skill descriptions were removed and "
                              f"{len(omitted)} additional skills were not included in the model-visible "
                              "skills list.")
    assert {s.reason for s in budget.shortened} == {"description removed"}


def test_codex_takes_two_percent_of_a_known_context_window_in_tokens(tmp_path: Path) -> None:
    library_of(tmp_path, 40, 400)
    budget = codex(tmp_path, Limits(context_window=100_000))
    assert budget.cap == "2,000 tokens of skill lines (2% of the context window)"
    lines = skill_lines(budget.text)
    assert sum((len((line + "\n").encode()) + 3) // 4 for line in lines) <= 2000  # bytes / 4, rounded up
    assert budget.warning == CODEX_SHORTENED_PERCENT and len(budget.listed) == 40


def test_budget_profile_codex_on_the_command_line(tmp_path: Path, capsys) -> None:
    library_of(tmp_path, 120, 300, name="a-rather-long-skill-name-for-the-list")
    assert main(["budget", str(tmp_path), "--profile", "codex", "--fail-on-hidden"]) == 1
    out = capsys.readouterr().out
    assert "Codex's budget: 8,000 characters of skill lines (context window unknown)" in out
    assert "warning: Exceeded skills context budget." in out and "shortened (" in out
    assert "a-rather-long-skill-name-for-the-list-000: description removed" in out
    assert "a-rather-long-skill-name-for-the-list-119: omitted: even without descriptions" in out
    assert main(["budget", str(tmp_path), "--profile", "codex", "--json", "--max-skills", "10"]) == 0
    (data,) = json.loads(capsys.readouterr().out)["profiles"]
    assert data["cap"] == "8,000 characters of skill lines (context window unknown)"
    assert data["invisible"][0]["kind"] == "max_skills"
    assert {s["name"] for s in data["shortened"]} <= set(data["listed"]) and len(data["listed"]) == 10


def test_claude_code_drops_the_descriptions_of_the_least_used_first(tmp_path: Path) -> None:
    library_of(tmp_path, 30, 400)
    entries = [replace(e, invocations=9) if e.name == "skill-029" else e
               for e in entries_of(open_library(tmp_path))]
    budget = compute_budget(entries, AGENTS["claude-code"], Limits(max_chars=6000))
    lines = budget.text.split(f"{CLAUDE_HEADER}\n\n", 1)[1].removesuffix("\n</system-reminder>").split("\n")
    assert len(budget.listed) == 30 == len(lines) and sum(len(line) + 1 for line in lines) <= 6000
    dropped = {s.name for s in budget.shortened}
    assert "skill-029" not in dropped and dropped  # the used one keeps its description
    assert f"- skill-029: {entries[-1].description}" in budget.text
    assert all(f"- {name}\n" in budget.text for name in dropped)  # the name always stays


def test_copilot_names_the_overflow_on_one_line(tmp_path: Path) -> None:
    budget = compute_budget(entries_of(open_library(library_of(tmp_path, 80, 300))), AGENTS["copilot"],
                            default_limits("copilot"))
    named = [s.name for s in budget.shortened]
    assert named and len(budget.listed) == 80
    assert "Additional skills available (invoke by name): " + ", ".join(named) in budget.text
    assert all(f"<name>{n}</name>" not in budget.text for n in named)


def test_hermes_cuts_descriptions_at_sixty_characters_by_category(tmp_path: Path) -> None:
    lib = open_library(hermes_home(tmp_path / "home"))
    budget = compute_budget(entries_of(lib), AGENTS["hermes"], default_limits("hermes"))
    assert "  mlops:\n    - axolotl: " in budget.text and "  research:\n    - arxiv: " in budget.text
    line = next(x for x in budget.text.splitlines() if x.startswith("    - vllm: "))
    assert len(line.removeprefix("    - vllm: ")) == HERMES_LIMIT and line.endswith("...")
    assert {s.name for s in budget.shortened} == set(lib.names())


def test_codex_leaves_out_a_skill_whose_openai_yaml_forbids_implicit_invocation(tmp_path: Path) -> None:
    """agents/openai.yaml ``policy.allow_implicit_invocation: false``: not listed by Codex (a $name
    still works); a malformed file, or one linked from outside the skill, is ignored (fail-open)."""
    library_of(tmp_path, 4, 40)
    skills = tmp_path / "skills"
    for name, text in (("skill-000", "policy:\n  allow_implicit_invocation: false\n"),
                       ("skill-001", "policy: [unclosed\n"), ("skill-002", "policy:\n  products: [x]\n")):
        (skills / name / "agents").mkdir()
        (skills / name / "agents" / "openai.yaml").write_text(text)
    (tmp_path / "outside.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    (skills / "skill-003" / "agents").mkdir()
    (skills / "skill-003" / "agents" / "openai.yaml").symlink_to(tmp_path / "outside.yaml")
    budget = codex(tmp_path)
    assert budget.listed == ("skill-001", "skill-002", "skill-003")
    (hidden,) = budget.hidden
    assert hidden.name == "skill-000" and "policy.allow_implicit_invocation is false" in hidden.reason
    claude = compute_budget(entries_of(open_library(tmp_path)), AGENTS["claude-code"], Limits())
    assert len(claude.listed) == 4  # Claude Code does not read Codex's file


def test_a_trigger_eval_knows_a_plugin_skill_by_the_name_its_agent_lists(tmp_path: Path) -> None:
    """Claude Code lists 'discord:access' (plugin:skill); the model calling Skill with that name
    activates the library's 'discord/access', not a skill 'not in the listing'."""
    lib = open_library(claude_marketplace(tmp_path / "market"))
    presentation = present_library(lib, "claude-code", tool=CLAUDE_SKILL.name)
    assert "- discord:access: " in presentation.listing and "discord/access" in presentation.listed
    with scripted_server() as server:
        server.responder = by_query({"who may message me on discord": [
            tool_call("Skill", {"skill": "discord:access"})]})
        report = run_trigger_evals([TriggerEvalSet("discord/access", (TriggerRow(
            "who may message me on discord", True),))], presentation,
            Endpoint(server.base_url, "test-model", timeout=10.0, retries=0), None, EvalOptions(runs=1))
    assert report.rows[0].outcomes[0].skill == "discord/access" and report.rows[0].triggers == 1
