"""Session index (§7.1) and list_skills (§5) texts, byte-exact."""

from __future__ import annotations

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.index_text import list_skills_text, session_index_text
from tests.conftest import AGENT, EXPECTED, NOW_TEXT

NOW = Timestamp.parse(NOW_TEXT)


def test_fixture_texts_match_byte_for_byte() -> None:
    lib = RockBotLibrary.open(AGENT)
    assert session_index_text(lib.skills()) == (EXPECTED / "session-index.txt").read_text("utf-8")
    assert list_skills_text(lib.skills(), NOW) == \
        (EXPECTED / "list_skills-output.txt").read_text("utf-8")
    assert [s.name for s in lib.listed()] == \
        (EXPECTED / "list-order.txt").read_text("utf-8").splitlines()


def test_empty_library() -> None:
    assert session_index_text([]) is None
    assert list_skills_text([], NOW) == "No skills saved yet."


def test_pending_summaries_order_and_trailing_whitespace() -> None:
    created = Timestamp.parse("2026-11-20T12:00:00Z")
    skills = [
        Skill(name="b_x", summary="  ", created_at=created),
        Skill(name="bb", summary=None, created_at=created,
              last_used_at=Timestamp.parse("2026-11-22T11:00:00Z")),
        Skill(name="B-a", summary="tail  \t", created_at=created),
    ]
    assert session_index_text(skills) == (
        "Available skills (use get_skill to load full instructions):\n"
        "- B-a: tail  \t\n- bb: (summary pending)\n- b_x: (summary pending)"
    )
    assert list_skills_text(skills, NOW) == (
        "Available skills (3):\n"
        "- B-a (2d old, never used): tail  \t\n"
        "- bb (2d old, last used 0d ago): (summary pending)\n"
        "- b_x (2d old, never used): (summary pending)"
    )
    last = [Skill(name="z", summary="ends with space ", created_at=created)]
    assert list_skills_text(last, NOW).endswith("ends with space")
