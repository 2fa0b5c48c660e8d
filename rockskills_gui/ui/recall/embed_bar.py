"""The Hybrid panel's "Embed query" row: ask the configured OpenAI-compatible endpoint (the
Preferences' LLM connection and its key) for the query's embedding, on a worker thread, with
the embedding model the user names here (remembered in the UI settings). The vector comes back
through :attr:`EmbedBar.embedded`; failures are one sentence in the row.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from rockskills_gui.ui.common.theme import secondary

MODEL_KEY = "recall/embeddingModel"


def _embed(args: tuple[str, str | None, str, str, float]) -> object:
    """The query's vector, or the :class:`EndpointError` to show (on a worker: ``ctx.query``)."""
    # Imported here: openai is loaded only when a query is embedded (startup budget).
    from rockskills_gui.core.app.embeddings import embed_query
    from rockskills_gui.core.app.endpoint import EndpointError

    try:
        return embed_query(*args)
    except EndpointError as error:
        return error
    except Exception as error:  # shown as one sentence, never raised on the worker
        return EndpointError("server", f"{type(error).__name__}: {error}")


class EmbedBar(QWidget):
    """Model name + "Embed query"; ``embedded(query, model, vector)`` when a vector arrives."""

    embedded = Signal(str, str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hybridEmbedBar")
        self.ctx: Any = None
        self.query = ""
        self.model = QLineEdit(self)
        self.model.setObjectName("hybridEmbedModel")
        self.model.setPlaceholderText("embedding model RockBot uses, e.g. nomic-embed-text")
        self.model.returnPressed.connect(self.start)
        self.button = QPushButton("Embed query", self)
        self.button.setObjectName("hybridEmbed")
        self.button.setToolTip("Ask the LLM endpoint configured in Preferences for this message's "
                               "embedding: the cosine leg and the hybrid score become exact")
        self.button.clicked.connect(self.start)
        self.status = secondary(QLabel(self))
        self.status.setObjectName("hybridEmbedStatus")
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Embedding model:", self))
        row.addWidget(self.model, 1)
        row.addWidget(self.button)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addLayout(row)
        box.addWidget(self.status)
        self._pending: tuple[str, str] | None = None  # (query, model) being embedded

    def set_context(self, ctx: Any) -> None:
        """The app context: its Preferences' endpoint and key, its UI settings for the model."""
        self.ctx = ctx
        saved = ctx.settings.value(MODEL_KEY, "") if ctx is not None else ""
        self.model.setText(saved if isinstance(saved, str) else "")

    def set_query(self, query: str) -> None:
        self.query = query
        self.button.setEnabled(bool(query.strip()) and self.ctx is not None)

    def start(self) -> None:
        """Embed the current query (a newer request makes an older reply moot)."""
        ctx, model, query = self.ctx, self.model.text().strip(), self.query
        if ctx is None or not query.strip():
            return
        ctx.settings.setValue(MODEL_KEY, model)
        prefs = ctx.prefs
        self._pending = (query, model)
        self.status.setText(f"Asking {prefs.effective_base_url or 'the endpoint'} for the "
                            "query's embedding…")
        args = (prefs.effective_base_url, ctx.api_key(), model, query, float(prefs.timeout))
        # (it waits on the network: quitting does not wait for it)
        ctx.query(self, "embed", lambda _control: _embed(args), self._done, detached=True)

    def busy(self) -> bool:
        return self._pending is not None

    def _done(self, result: object) -> None:
        if self._pending is None:
            return
        query, model = self._pending
        self._pending = None
        if isinstance(result, Exception):
            self.status.setText(f"No query vector: {result}")
            return
        dims = len(result) if hasattr(result, "__len__") else 0
        self.status.setText(f"Query vector from {model}: {dims} dimensions.")
        self.embedded.emit(query, model, result)
