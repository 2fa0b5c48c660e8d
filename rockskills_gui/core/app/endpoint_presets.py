"""The OpenAI-compatible servers the settings offer as presets (the Preferences dialog and the
dream wizard's endpoint list); not needed before the window's first paint (issue 19)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class EndpointPreset:
    """A known OpenAI-compatible server: its usual base URL and whether it wants an API key."""

    id: str
    title: str
    base_url: str
    needs_key: bool
    hint: str


PRESETS: tuple[EndpointPreset, ...] = (
    EndpointPreset("openai", "OpenAI", "https://api.openai.com/v1", True,
                   "Needs an API key from platform.openai.com."),
    EndpointPreset("ollama", "Ollama", "http://127.0.0.1:11434/v1", False,
                   "Local: run `ollama serve` and `ollama pull <model>`; no key needed."),
    EndpointPreset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", False,
                   "Local: start the server in LM Studio's Developer tab; no key needed."),
    EndpointPreset("vllm", "vLLM", "http://127.0.0.1:8000/v1", False,
                   "Local or on your network: `vllm serve <model>`; a key only if started with "
                   "--api-key."),
    EndpointPreset("llamacpp", "llama.cpp server", "http://127.0.0.1:8080/v1", False,
                   "Local: `llama-server -m model.gguf`; a key only if started with --api-key."),
    EndpointPreset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", True,
                   "Needs an API key from openrouter.ai; model names look like vendor/model."),
    EndpointPreset("custom", "Custom base URL", "", False,
                   "Any OpenAI-compatible server: give its base URL (it usually ends in /v1)."),
)
PRESET_BY_ID = {p.id: p for p in PRESETS}

PresetId = Literal["openai", "ollama", "lmstudio", "vllm", "llamacpp", "openrouter", "custom"]
