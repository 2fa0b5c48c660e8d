"""The advisory content scan: prompt-injection and supply-chain markers, hidden Unicode,
base64 blobs. Nothing is ever executed; a marker is a warning, never a gate."""

from __future__ import annotations

import re

BASE64_MIN = 200
PIPE_SPAN = 500  # characters between a download command and the "|" into a shell (a URL and flags)

# (kind, severity, pattern, what) -- advisory markers, never a gate (formats.md §G.3 rule 5).
CONTENT_RULES: tuple[tuple[str, str, re.Pattern[str], str], ...] = (
    ("prompt-injection", "warning", re.compile(
        r"\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+)*"
        r"(previous|prior|above|earlier|preceding|system)\s+(instructions?|prompts?|rules|messages?)",
        re.I), "text telling the model to ignore its instructions"),
    ("prompt-injection", "warning", re.compile(r"<\|?\s*(system|im_start)\s*\|?>", re.I),
     "a chat-template control token"),
    ("prompt-injection", "warning", re.compile(
        r"\b(do not|don't|never)\s+(tell|inform|reveal to|mention to)\s+the\s+user\b", re.I),
     "text asking to hide something from the user"),
    # (bounded and possessive: a line of 10,000 "curl" words, or of "iex" and spaces, took
    # minutes with an unbounded span and nested optional white space; issue 35)
    ("pipe-to-shell", "warning", re.compile(
        r"\b(curl|wget|iwr|invoke-webrequest)\b[^\n|;]{0," + str(PIPE_SPAN)
        + r"}+\|\s*+(sudo\s++)?(ba|z|da|k)?sh\b", re.I),
     "a download piped straight into a shell"),
    ("pipe-to-shell", "warning", re.compile(
        r"\b(iex|invoke-expression)\b\s*+(?:\(\s*+){0,2}(iwr|irm|invoke-webrequest|invoke-restmethod|"
        r"new-object\s++net\.webclient)", re.I),
     "a download run with Invoke-Expression"),
    ("pipe-to-shell", "warning", re.compile(
        r"\b(ba|z)?sh\s+(-c\s+)?[\"']?\$\(\s*(curl|wget)\b|\bsh\s+<\(\s*(curl|wget)\b", re.I),
     "a download run by a shell"),
    ("credential-path", "warning", re.compile(
        r"(~|\$HOME|%USERPROFILE%)?/?\.(ssh/(id_[a-z0-9]+|authorized_keys)|aws/credentials|netrc"
        r"|git-credentials|docker/config\.json|kube/config|gnupg/|npmrc|pypirc)\b|/etc/shadow\b"
        r"|\bid_(rsa|ed25519|ecdsa)\b", re.I),
     "a path to credentials"),
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]{" + str(BASE64_MIN) + r",}={0,2}")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad")
_SPECIAL = re.compile("[" + "".join(sorted(_BIDI | _INVISIBLE)) + "\U000e0000-\U000e007f]")
# Per rule of CONTENT_RULES (keep in step): groups of words, one of each group occurs in every
# text the pattern matches, once folded by _RULE_FOLD -- a cheap test before the slow regex.
_RULE_WORDS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("ignore", "disregard", "forget", "override"),),
    (("system", "im_start"),),
    (("do not", "don't", "never"), ("tell", "inform", "reveal to", "mention to"), ("user",)),
    (("curl", "wget", "iwr", "invoke-webrequest"), ("|",), ("sh",)),
    (("iex", "invoke-expression"), ("iwr", "irm", "invoke-webrequest", "invoke-restmethod",
                                    "net.webclient")),
    (("sh",), ("curl", "wget"), ("$(", "<(")),
    ((".ssh/", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json", ".kube/config",
      ".gnupg/", ".npmrc", ".pypirc", "/etc/shadow", "id_rsa", "id_ed25519", "id_ecdsa"),),
)
# re.IGNORECASE lets A-Z and exactly these four characters match a lower-case ASCII letter.
_RULE_FOLD: dict[int, int | str] = {**{c: c + 32 for c in range(0x41, 0x5B)}, 0x130: "i", 0x131: "i",
                                    0x17F: "s", 0x212A: "k"}


def scan_text(text: str) -> list[tuple[int, str, str, str]]:
    """Content-scan markers in ``text``: (1-based line, kind, severity, message).

    Each check first looks at the whole text (cheap word tests, then the pattern): no rule anchors
    on a line's ends and the separators ``splitlines`` cuts at are not word characters, so a rule
    without a match in the text has none in any line, and a text without the special characters
    has them in no line. Only the checks that can report are then run line by line.
    """
    folded = text.lower() if text.isascii() else text.translate(_RULE_FOLD)
    rules = [rule for rule, groups in zip(CONTENT_RULES, _RULE_WORDS, strict=True)
             if all(any(word in folded for word in group) for group in groups) and rule[2].search(text)]
    longest = max(map(len, text.split()), default=0)  # a base64 run never holds white space
    base64 = longest >= BASE64_MIN and _BASE64.search(text) is not None
    special = not text.isascii() and _SPECIAL.search(text) is not None
    out: list[tuple[int, str, str, str]] = []
    if not (rules or base64 or special):
        return out
    for number, line in enumerate(text.splitlines(), 1):
        if special:
            bidi = sorted({f"U+{ord(c):04X}" for c in line if c in _BIDI})
            if bidi:
                out.append((number, "bidi-unicode", "error", "bidirectional control character(s) "
                            f"{', '.join(bidi)} can hide what the text says"))
            hidden = sorted({f"U+{ord(c):04X}" for c in line
                             if c in _INVISIBLE or 0xE0000 <= ord(c) <= 0xE007F})
            if hidden:
                tags = any(0xE0000 <= ord(c) <= 0xE007F for c in line)
                out.append((number, "hidden-unicode", "error" if tags else "warning",
                            f"invisible character(s) {', '.join(hidden[:5])}"
                            + (" (Unicode tag characters can smuggle instructions)" if tags else "")))
        for kind, severity, pattern, what in rules:
            m = pattern.search(line)
            if m:
                out.append((number, kind, severity, f"{what}: '{m.group(0)[:80]}'"))
        if base64:
            m = _BASE64.search(line)
            if m:
                out.append((number, "base64-blob", "warning", f"a {len(m.group(0))}-character "
                                                              "base64-like blob (hidden payload?)"))
    return out
