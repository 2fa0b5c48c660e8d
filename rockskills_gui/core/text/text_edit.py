"""RockBot (current)'s exact-string edit: ``TextEdit.Apply`` (MarimerLLC/rockbot
``src/RockBot.Host/TextEdit.cs``, the newest version in the index, id 61438258637, commit not
reported; an older one is @ bcf679a), what ``edit_skill`` does to a skill's content.

The steps and messages, word for word (they say ``oldText``/``replaceAll`` although the tool's
parameters are ``old_string``/``replace_all``: that is how upstream words them):

1. an empty ``old`` is refused; 2. ``old == new`` changes nothing; 3. a ``new`` with ``\\n`` takes
the content's line ends when the content uses one style only; 4. no exact match: retry with
both texts in CRLF, then in LF; 5. still none: not found; 6. the texts differ only in line ends:
nothing to change; 7. more than one match without ``replace_all``: ambiguous; 8. replace the first
match (or every one), counting replacements. Lengths are UTF-16 units, as .NET counts.
"""

from __future__ import annotations

from dataclasses import dataclass

EMPTY_OLD = ("oldText must not be empty \u2014 an empty match has no well-defined location. To append "
             "content, include the trailing text you want to insert before.")
IDENTICAL = "oldText and newText are identical \u2014 the edit would change nothing."
NOT_FOUND = ("oldText was not found. It must match the content exactly, including whitespace and "
             "indentation. Read the current content and copy the text verbatim.")
LINE_ENDS_ONLY = ("oldText and newText differ only in line endings, which are normalized to the style "
                  "the content already uses \u2014 the edit would change nothing.")


def ambiguous(count: int) -> str:
    return (f"oldText occurs {count} times \u2014 the edit target is ambiguous. Either include more "
            "surrounding text so the match is unique, or set replaceAll to change every occurrence.")


@dataclass(frozen=True)
class TextEditResult:
    """The edited content and how many matches were replaced, or the error (content None)."""

    content: str | None
    replacements: int = 0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.content is not None


def _to_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _match_newline_style(new: str, content: str) -> str:
    """``MatchNewlineStyle``: ``new`` in the content's line ends when it uses one style only."""
    if "\n" not in new:
        return new
    crlf = content.count("\r\n")
    bare = content.count("\n") - crlf
    if crlf and not bare:
        return _to_crlf(new)
    if bare and not crlf:
        return _to_lf(new)
    return new


def apply_text_edit(content: str, old: str, new: str, replace_all: bool = False) -> TextEditResult:
    """``TextEdit.Apply(content, old, new, replaceAll)`` (see the module doc)."""
    if old == "":
        return TextEditResult(None, error=EMPTY_OLD)
    if old == new:
        return TextEditResult(None, error=IDENTICAL)
    effective_old, effective_new = old, _match_newline_style(new, content)
    count = content.count(effective_old)
    if count == 0:
        for candidate_old, candidate_new in ((_to_crlf(old), _to_crlf(new)), (_to_lf(old), _to_lf(new))):
            if candidate_old == old:
                continue
            found = content.count(candidate_old)
            if found:
                effective_old, effective_new, count = candidate_old, candidate_new, found
                break
    if count == 0:
        return TextEditResult(None, error=NOT_FOUND)
    if effective_old == effective_new:
        return TextEditResult(None, error=LINE_ENDS_ONLY)
    if count > 1 and not replace_all:
        return TextEditResult(None, error=ambiguous(count))
    if replace_all:
        return TextEditResult(content.replace(effective_old, effective_new), count)
    return TextEditResult(content.replace(effective_old, effective_new, 1), 1)


def edit_strings(before: str, after: str) -> tuple[str, str] | None:
    """The ``(old_string, new_string)`` an agent would pass to turn ``before`` into ``after`` with
    one edit: the changed span grown to whole lines, then a line at a time on both sides until
    ``old_string`` occurs once in ``before``, first where it is meant (None when nothing
    changed). Replacing it gives ``after`` exactly, unless ``before`` is empty (an edit needs a
    non-empty ``old_string``) or the agent's line-end rule rewrites ``new_string``."""
    if before == after:
        return None
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    start = before.rfind("\n", 0, prefix) + 1
    end = len(before) - suffix
    while True:
        found = before.find("\n", end)
        end = len(before) if found < 0 else found
        old = before[start:end]
        if (old and before.count(old) == 1 and before.find(old) == start) \
                or (start == 0 and end == len(before)):
            break
        start = before.rfind("\n", 0, max(start - 1, 0)) + 1
        end = min(end + 1, len(before))
    return old, after[start:len(after) - (len(before) - end)]
