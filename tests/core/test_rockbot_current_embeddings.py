"""The query vector of RockBot (current)'s hybrid recall from an embedding endpoint (issue 20):
``POST /v1/embeddings`` on the configured OpenAI-compatible server, a real HTTP server here;
with it, explain_hybrid computes HybridRanker's ranking instead of a range."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

from rockskills_gui.core.app.embeddings import embed_query
from rockskills_gui.core.app.endpoint import EndpointError
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.recall.hybrid import explain_hybrid
from rockskills_gui.core.recall.skill_recall import SkillRecall
from tests.embedding_server import EmbeddingServer
from tests.rockbot_current import make_current_agent, snapshot

QUERY = "web search"


@pytest.fixture
def server():
    with EmbeddingServer(vectors={QUERY: [0.1, 0.5, -0.25, 1.0]}) as running:
        yield running


def test_the_endpoint_gives_the_query_vector(server: EmbeddingServer) -> None:
    vector = embed_query(server.base_url, "sk-test", "embed-model", QUERY)
    assert list(vector) == list(struct.unpack("<4f", struct.pack("<4f", 0.1, 0.5, -0.25, 1.0)))
    sent = server.requests[-1]
    assert sent["path"] == "/v1/embeddings"
    assert sent["body"]["input"] == QUERY and sent["body"]["model"] == "embed-model"
    assert sent["body"]["encoding_format"] == "float"


def test_failures_are_one_sentence(server: EmbeddingServer) -> None:
    with pytest.raises(EndpointError) as caught:
        embed_query(server.base_url, None, "missing-model", QUERY)
    assert caught.value.kind == "not-found" and "missing-model" in str(caught.value)
    server.raw = b'{"data": [{"embedding": ["x"]}]}'
    with pytest.raises(EndpointError, match="no embedding"):
        embed_query(server.base_url, None, "embed-model", QUERY)
    with pytest.raises(EndpointError, match="No embedding model"):
        embed_query(server.base_url, None, " ", QUERY)
    with pytest.raises(EndpointError) as caught:
        embed_query("http://127.0.0.1:9/v1", "sk-secret-key", "embed-model", QUERY, timeout=5)
    assert caught.value.kind == "unreachable" and "sk-secret-key" not in str(caught.value)


def test_with_the_vector_the_hybrid_ranking_is_computed(server: EmbeddingServer,
                                                        tmp_path: Path) -> None:
    agent = make_current_agent(tmp_path / "agent")
    before = snapshot(agent)
    lib = open_library(agent)
    recall = SkillRecall(lib.skills())
    vector = embed_query(server.base_url, None, "embed-model", QUERY)
    found = explain_hybrid(recall, lib.skills_dir, QUERY, top=None, query_vector=vector)
    assert found.query_vector
    hits = {h.name: h.score for h in recall.search(QUERY, top=None)}
    top = max(hits.values())

    def stored(index: int) -> list[float]:
        return list(struct.unpack("<4f", struct.pack("<4f", 0.1 * index, 0.5, -0.25, 1.0)))

    def cos(a: list[float], b: list[float]) -> float:
        dot = sum(x * y for x, y in zip(a, b, strict=True))
        return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))

    q = list(vector)
    web = next(r for r in found.rows if r.name == "web/search")
    assert web.cosine == pytest.approx(cos(q, stored(1)))
    assert web.score == pytest.approx((hits["web/search"] / top + web.cosine) / 2)
    github = next(r for r in found.rows if r.name == "mcp/github")  # by its vector alone
    assert "mcp/github" not in hits and github.score == pytest.approx(cos(q, stored(0)))
    assert [r.score for r in found.rows] == sorted((r.score for r in found.rows), reverse=True)
    assert snapshot(agent) == before
