"""The one redaction function against every encoding a server may echo a key in (issue 35, item 17):
random keys (base64 punctuation, quotes, backslashes, non-ASCII letters), each form of
:func:`attacks_dream.encodings` placed in text; what is left must not hold the key in any form
(the oracle decodes hex and base64 runs at every alignment itself), and text without the key is
left as it is."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rockskills_gui.core.text.redact import REDACTED, redact
from tests.adversarial.attacks_dream import encodings, leaks
from tests.property_budget import budgeted

ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+/=.~\"\\é漢"
KEYS = st.text(ALPHABET, min_size=12, max_size=48).map(lambda s: "sk-" + s)
AROUND = st.text("abc XYZ 012:+/=\n\"", max_size=12)


@budgeted(60, 300)
@given(key=KEYS, before=AROUND, after=AROUND)
def test_every_encoding_of_the_key_is_masked(key: str, before: str, after: str) -> None:
    for name, form in encodings(key).items():
        text = f"{before}{form}{after}"
        assert leaks(text, key), name  # (the oracle sees it)
        masked = redact(text, [key])
        assert REDACTED in masked and not leaks(masked, key), (name, masked)


@budgeted(60, 300)
@given(key=KEYS, text=st.text(max_size=200))
def test_text_without_the_key_is_left_as_it_is(key: str, text: str) -> None:
    if not leaks(text, key):
        assert redact(text, [key]) == text
