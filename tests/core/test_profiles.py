"""Every agent profile answers every capability, cites where each comes from (or says it is
assumed), and every value it answers is served by the layer that owns it (issue 29)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from rockskills_gui.core.budget.agents import LISTERS, lister_for
from rockskills_gui.core.budget.limits import SPEC_DEFAULTS, Limits
from rockskills_gui.core.dream.checks import MAX_SUMMARY_WORDS
from rockskills_gui.core.dream.passes import ALL_PASSES
from rockskills_gui.core.library.convert.write import ROCKBOT_SUMMARY_WORDS as CONVERT_WORDS
from rockskills_gui.core.library.formats import FORMAT_LABELS, FORMATS, OPEN_FORMATS
from rockskills_gui.core.library.names import RULES, rule_error
from rockskills_gui.core.library.open import OpenOptions, open_library
from rockskills_gui.core.library.profile_settings import SETTING_PATHS, setting_value, settings
from rockskills_gui.core.lint.skill_checks import SUMMARY_MAX_WORDS
from rockskills_gui.core.model.profile import (
    CAPABILITIES,
    AgentProfile,
    ListingKind,
    NameKind,
    capability_fields,
)
from rockskills_gui.core.model.profiles import PROFILES, SKILL_MD_PROFILES
from rockskills_gui.core.model.rules import ROCKBOT_64E82CC, ROCKBOT_CURRENT, RockBotRules
from rockskills_gui.core.model.summary_rule import ROCKBOT_SUMMARY
from rockskills_gui.core.recall.agent_tools import WIRE_NAMES
from rockskills_gui.core.recall.session import BODIES, FRAMES
from tests.conftest import SHARED

SIX = ("rockbot-64e82cc", "rockbot-current", "agentskills", "picobot", "cortex", "carpenter")
CODING_AGENTS = ("claude-code", "codex", "gemini-cli", "copilot", "cursor", "hermes")  # issue 31
# A cited source names a repository at a commit, an upstream file, a section of the specs or a
# documentation page; else it says it is assumed.
CITED = re.compile(r"@ ?[0-9a-f]{7}|§|\w\.(cs|mdx?|py)\b|^assumed: \S|\b[\w.-]+\.(com|io|dev)/\S")


def test_the_six_profiles_are_registered() -> None:
    assert sorted(PROFILES) == sorted((*SIX, *CODING_AGENTS))
    assert all(PROFILES[pid].id == pid for pid in PROFILES)
    assert {p.format for p in PROFILES.values()} == set(FORMATS)


@pytest.mark.parametrize("profile", PROFILES.values(), ids=lambda p: p.id)
def test_every_profile_answers_every_capability_and_says_where_from(profile: AgentProfile) -> None:
    for capability, value in profile.answers().items():
        assert value is not None, capability
        source = profile.source(capability)
        assert CITED.search(source), f"{profile.id}.{capability}: {source!r} cites nothing"
    for capability, names in capability_fields().items():
        value = getattr(profile, capability)
        for name in names if dataclasses.is_dataclass(value) else ():
            assert hasattr(value, name), (capability, name)
    assert set(profile.sources) == set(CAPABILITIES)
    assert profile.label and profile.title and profile.settings_id


@pytest.mark.parametrize("profile", PROFILES.values(), ids=lambda p: p.id)
def test_every_answer_is_served_by_the_layer_that_owns_it(profile: AgentProfile) -> None:
    """The dispatch tables cover every value a profile can give: its listing has a renderer,
    its name rule a check, its dream passes exist, its settings paths resolve."""
    assert lister_for(profile) is LISTERS[profile.listing.kind]
    assert profile.names.kind in RULES
    assert set(profile.curation.passes) <= {p.value for p in ALL_PASSES}
    injection = profile.injection  # issue 30: each injection rule has its implementation
    assert injection.framing in FRAMES and injection.bodies in BODIES
    assert injection.worker_bodies is None or injection.worker_bodies in BODIES
    assert injection.tools.naming in WIRE_NAMES
    assert profile.title == FORMAT_LABELS[profile.format] or profile.format == "rockbot"
    if profile.settings_id in SKILL_MD_PROFILES:
        for key in settings():
            setting_value(profile, key)  # (every setting path exists in the profile)
    else:
        assert profile.id in OPEN_FORMATS  # a RockBot profile is chosen by its id


def test_every_listing_kind_and_name_rule_has_its_implementation() -> None:
    assert set(LISTERS) == set(ListingKind)
    assert set(RULES) == set(NameKind)


def test_a_new_profile_needs_no_change_outside_its_own_module() -> None:
    """A profile made of existing capability values is served everywhere as it is."""
    claude = dataclasses.replace(PROFILES["agentskills"], id="claude-code", label="Claude Code",
                                 title="Claude Code (SKILL.md)")
    assert lister_for(claude).id == "agentskills"
    assert rule_error(claude.names.kind, "a/.b") is not None
    assert SETTING_PATHS and setting_value(claude, "project_roots") == (".agents/skills",
                                                                        ".claude/skills")


def test_rockbot_rules_are_a_view_of_the_rockbot_profiles() -> None:
    assert RockBotRules.of(PROFILES["rockbot-64e82cc"]) == ROCKBOT_64E82CC
    assert RockBotRules.of(PROFILES["rockbot-current"]) == ROCKBOT_CURRENT
    assert ROCKBOT_64E82CC.profile is PROFILES["rockbot-64e82cc"]
    # every rule of 64e82cc is off: the fidelity target's behaviour is untouched
    assert ROCKBOT_64E82CC == RockBotRules(id="rockbot-64e82cc", label="RockBot")


def test_rockbots_summary_rule_exists_once() -> None:
    assert ROCKBOT_SUMMARY.limit == 15
    assert SUMMARY_MAX_WORDS == MAX_SUMMARY_WORDS == CONVERT_WORDS == ROCKBOT_SUMMARY.limit
    for pid in ("rockbot-64e82cc", "rockbot-current"):
        assert PROFILES[pid].summary is ROCKBOT_SUMMARY


def test_the_listing_limits_of_an_agent_are_its_profiles() -> None:
    assert SPEC_DEFAULTS == {"picobot": Limits(max_chars=4000, max_skills=32),
                             "codex": Limits(max_chars=8000),  # when the context window is unknown
                             "claude-code": Limits(context_window=200_000),  # 1% of it
                             "copilot": Limits(max_chars=15_000)}  # VS Code's entries


@pytest.mark.parametrize(("folder", "format_id", "profile_id"), [
    ("fixtures/rockbot-agent", None, "rockbot-64e82cc"),
    ("fixtures/rockbot-agent", "rockbot-current", "rockbot-current"),
    ("corpora/anthropics-skills", "agentskills", "agentskills"),
    ("corpora/anthropics-skills", "picobot", "picobot"),
    ("corpora/anthropics-skills", "carpenter", "carpenter"),
    ("corpora/anthropics-skills", "cortex", "cortex"),
])
def test_a_library_gives_its_profile(folder: str, format_id: str | None, profile_id: str) -> None:
    path = SHARED / folder
    if not path.exists():
        pytest.skip(f"{path} is not in this checkout")
    library = open_library(Path(path), OpenOptions(format=format_id))
    assert library.profile.id == profile_id
    assert library.summary_rule() == library.profile.summary
    assert library.agent_note() == library.profile.injection.note
