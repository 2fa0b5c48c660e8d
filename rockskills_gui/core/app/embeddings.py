"""The query's embedding from the configured OpenAI-compatible endpoint (``POST /embeddings``),
for RockBot (current)'s hybrid recall (:func:`rockskills_gui.core.recall.hybrid.explain_hybrid`).

RockBot embeds the query text as typed (``EmbeddingCache.GenerateQueryEmbeddingAsync``) with its
own embedding model; asking the same model on the same server gives the vector RockBot would
use. The values are rounded to float32, as RockBot holds them. Failures are
:class:`~rockskills_gui.core.app.endpoint.EndpointError` (one plain sentence, the key masked).
"""

from __future__ import annotations

import math

import numpy as np
import openai

from rockskills_gui.core.app.endpoint import EndpointError, classify

MAX_QUERY_CHARS = 32_000  # a playground query longer than this is not sent


def embed_query(base_url: str, api_key: str | None, model: str, text: str,
                timeout: float = 30.0) -> np.ndarray:
    """The embedding of ``text`` by ``model`` (float32 values as float64); raises EndpointError."""
    if not base_url:
        raise EndpointError("config", "No base URL: choose an endpoint in Preferences ▸ LLM "
                                      "endpoint.")
    if not model.strip():
        raise EndpointError("config", "No embedding model: enter the model RockBot embeds with.")
    if not text.strip():
        raise EndpointError("config", "Nothing to embed: type a message first.")
    if len(text) > MAX_QUERY_CHARS:
        raise EndpointError("config", f"The message is over {MAX_QUERY_CHARS:,} characters.")
    client = openai.OpenAI(api_key=api_key or "no-key", base_url=base_url, timeout=timeout,
                           max_retries=0)
    try:
        reply = client.embeddings.create(model=model.strip(), input=text, encoding_format="float")
    except Exception as exc:
        raise classify(exc, base_url, api_key, timeout) from None
    finally:
        client.close()
    data = getattr(reply, "data", None) or []
    vector = getattr(data[0], "embedding", None) if data else None
    if not isinstance(vector, list) or not vector \
            or not all(isinstance(v, int | float) and math.isfinite(v) for v in vector):
        raise EndpointError("server", "The server's reply holds no embedding (a list of numbers).")
    return np.asarray(vector, dtype=np.float32).astype(np.float64)
