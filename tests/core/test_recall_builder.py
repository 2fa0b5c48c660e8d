"""The recall index built while helper processes read a library (RecallBuilder fed by the scan)
is the index a fresh build gives: the same candidate order, the same scores bit for bit, also
when the chunks arrive out of load order and when a case collision drops skills at the end."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.library.rockbot.scan import scan
from rockskills_gui.core.model.skill import Skill, skill_to_bytes
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.recall.skill_recall import RecallBuilder, SkillRecall
from rockskills_gui.core.storage.layout import Layout

NOW = Timestamp.parse("2026-11-22T12:00:00+00:00")
WORDS = ("send email report weekly calendar meeting invite summarize paper deploy service "
         "rollback database backup restore invoice travel booking flight hotel").split()

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="helper processes: POSIX")


def write_library(root: Path, count: int, seed: int) -> Path:
    rng = random.Random(seed)
    skills = root / "agent" / "skills"
    for i in range(count):
        prefix = rng.choice(("mcp", "research", "ops/deploy", "travel"))
        name = f"{prefix}/{rng.choice(WORDS)}-{i}"
        summary = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))
        path = skills / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skill_to_bytes(Skill(name=name, summary=summary, content="x",
                                              created_at=NOW)))
    # two names differing only by case: both are dropped at the end of the scan
    for name in ("travel/Visa-Rules", "travel/visa-rules"):
        (skills / f"{name}.json").write_bytes(skill_to_bytes(Skill(
            name=name, summary="visa rules for travel", content="x", created_at=NOW)))
    return root / "agent"


def ranking(recall: SkillRecall, query: str) -> list[tuple[str, float]]:
    return [(hit.skill.name, hit.score) for hit in recall.search(query, top=None)]


@pytest.mark.parametrize("seed", [1, 2])
def test_fed_index_equals_a_fresh_build(tmp_path: Path, seed: int) -> None:
    layout = Layout.locate(write_library(tmp_path, 900, seed))
    builder = RecallBuilder()
    chunks: list[int] = []

    def feed(skills: list[Skill]) -> None:
        chunks.append(len(skills))
        builder.feed(skills)

    loaded, problems = scan(layout, workers=3, parallel_from=1, on_skills=feed)
    assert len(chunks) >= 3, "the helpers' chunks were fed as they arrived"
    assert {p.kind.value for p in problems} == {"case-collision"}
    skills = [item.skill for item in loaded]
    fed = builder.build(skills)
    fresh = SkillRecall(skills)
    assert [s.name for s in fed.skills()] == [s.name for s in fresh.skills()]
    assert fed.get("travel/visa-rules") is None
    rng = random.Random(seed)
    queries = ["visa rules", "send the weekly report", "deploy rollback service now"]
    queries += [" ".join(rng.sample(WORDS, 3)) for _ in range(20)]
    for query in queries:
        assert ranking(fed, query) == ranking(fresh, query), query


def test_without_helpers_nothing_is_fed_and_build_does_it_all(tmp_path: Path) -> None:
    agent = write_library(tmp_path, 120, 3)
    builder = RecallBuilder()
    library = RockBotLibrary.open(agent, on_skills=builder.feed)  # small: read here, no helpers
    assert len(builder.recall) == 0
    fed = builder.build(library.skills())
    assert ranking(fed, "weekly email report") == ranking(SkillRecall(library.skills()),
                                                          "weekly email report")
