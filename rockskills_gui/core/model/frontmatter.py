"""SKILL.md files: split into frontmatter and body, parse leniently, edit without damage.

A file is kept as a :class:`Document` whose parts join back to the exact original text, so an
unchanged skill is never re-serialized. Frontmatter is read with PyYAML (safe loader, no
timestamp conversion); when that fails, values holding an unquoted ``": "`` are quoted and the
parse retried, as the Agent Skills client guidance recommends. Edits replace only the lines of
the keys that changed (located through PyYAML's node marks); every other line -- unknown keys,
comments, key order, quoting -- and the file's line endings and BOM stay as they were.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from rockskills_gui.core.model.size_limits import FRONTMATTER_MAX_BYTES, too_large

if TYPE_CHECKING:  # PyYAML loads with the first frontmatter parsed or written (issue 19)
    import yaml

BOM = b"\xef\xbb\xbf"
DELIMITER = "---"


class FrontmatterError(ValueError):
    """The file cannot be read as SKILL.md (no frontmatter, unparseable YAML, not a mapping)."""

    def __init__(self, message: str, line: int | None = None, kind: str = "yaml-error") -> None:
        super().__init__(message)
        self.line = line  # 1-based line in the whole file, when known
        self.kind = kind


@cache
def _loader() -> type[yaml.SafeLoader]:
    """SafeLoader that leaves timestamps as strings (values keep their written text); made, and
    PyYAML imported, when first needed: a RockBot library and ``--version`` never need it."""
    import yaml

    class _Loader(yaml.SafeLoader):
        """SafeLoader without the timestamp resolver."""

    _Loader.yaml_implicit_resolvers = {
        key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return _Loader


def __getattr__(name: str) -> Any:
    if name == "_Loader":  # (tests read it under its former name)
        return _loader()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------- documents


@dataclass(frozen=True)
class Document:
    """A SKILL.md text cut into parts that concatenate back to the original exactly.

    ``open_line`` and ``close_line`` are the delimiter lines with their own line endings
    (``close_line`` may lack one at the end of the file); ``frontmatter`` is the text between
    them; ``body`` everything after. A file without frontmatter has empty delimiter parts.
    """

    bom: bool
    open_line: str
    frontmatter: str
    close_line: str
    body: str

    @property
    def has_frontmatter(self) -> bool:
        return bool(self.open_line)

    @property
    def head(self) -> str:
        """Everything before the body."""
        return self.open_line + self.frontmatter + self.close_line

    @property
    def text(self) -> str:
        return self.head + self.body

    @property
    def newline(self) -> str:
        """The line ending of the opening delimiter (else the body's first), ``"\\n"`` by default."""
        if self.open_line.endswith("\r\n"):
            return "\r\n"
        if self.open_line:
            return "\n"
        return "\r\n" if "\r\n" in self.body.split("\n", 1)[0] + "\n" else "\n"

    @property
    def body_line(self) -> int:
        """1-based line number where the body starts."""
        return self.head.count("\n") + 1

    def to_bytes(self) -> bytes:
        return (BOM if self.bom else b"") + self.text.encode("utf-8")

    def with_parts(self, frontmatter: str | None = None, body: str | None = None) -> Document:
        return Document(self.bom, self.open_line,
                        self.frontmatter if frontmatter is None else frontmatter,
                        self.close_line, self.body if body is None else body)


def decode(raw: bytes) -> tuple[str, bool]:
    """Strict UTF-8 text and whether a BOM was present (raises UnicodeDecodeError)."""
    bom = raw.startswith(BOM)
    return (raw[3:] if bom else raw).decode("utf-8"), bom


def split_document(raw: bytes) -> Document:
    """Cut a file's bytes into a :class:`Document` (raises UnicodeDecodeError on bad UTF-8)."""
    text, bom = decode(raw)
    return split_text(text, bom)


def split_text(text: str, bom: bool = False) -> Document:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != DELIMITER:
        return Document(bom, "", "", "", text)
    offset = len(lines[0])
    for line in lines[1:]:
        if line.rstrip("\r\n").rstrip() == DELIMITER:
            fm_end = offset
            return Document(bom, lines[0], text[len(lines[0]):fm_end], line,
                            text[fm_end + len(line):])
        offset += len(line)
    return Document(bom, "", "", "", text)  # an opening line but no closing one: no frontmatter


# ---------------------------------------------------------------- parsing


@dataclass(frozen=True)
class KeySpan:
    """Where one top-level key sits in the frontmatter: lines ``start``..``end`` (0-based, end excl.)."""

    key: str
    start: int
    end: int
    style: str | None = None  # a scalar value's YAML style: "" plain, "'", '"', "|", ">"


@dataclass(frozen=True)
class Frontmatter:
    """Parsed frontmatter: values in file order, each top-level key's lines, and repairs made."""

    values: dict[str, Any]
    spans: dict[str, KeySpan] = field(default_factory=dict)
    repaired_lines: tuple[int, ...] = ()  # 0-based frontmatter lines quoted by the lenient retry
    duplicate_keys: tuple[str, ...] = ()

    def line_of(self, key: str) -> int | None:
        """0-based frontmatter line of ``key``."""
        span = self.spans.get(key)
        return span.start if span else None


_PLAIN_KEY_LINE = re.compile(
    r"^(?P<key>[A-Za-z0-9_][\w.-]*)(?P<sep>[ \t]*:[ \t]+)(?P<value>\S.*?)(?P<eol>\r?\n?)$")
_NOT_PLAIN_START = tuple("\"'|>[{&*!%@`#")


def _quote_colons(text: str) -> tuple[str, tuple[int, ...]]:
    """Double-quote top-level plain values that hold ``": "`` (or end in ``":"``)."""
    out: list[str] = []
    fixed: list[int] = []
    for number, line in enumerate(text.splitlines(keepends=True)):
        m = _PLAIN_KEY_LINE.match(line)
        if m and not m["value"].startswith(_NOT_PLAIN_START):
            value = m["value"].rstrip()
            if ": " in value or value.endswith(":") or " #" in value:
                out.append(f"{m['key']}{m['sep']}{_double_quoted(value)}{m['eol']}")
                fixed.append(number)
                continue
        out.append(line)
    return "".join(out), tuple(fixed)


def _compose(text: str) -> tuple[dict[str, Any], dict[str, KeySpan], tuple[str, ...]]:
    import yaml

    node = yaml.compose(text, Loader=_loader())
    if node is None:
        return {}, {}, ()
    if not isinstance(node, yaml.MappingNode):
        raise FrontmatterError("the frontmatter is not a mapping of keys to values", kind="not-a-mapping")
    values = yaml.load(text, Loader=_loader())
    line_count = len(text.splitlines())
    spans: dict[str, KeySpan] = {}
    duplicates: list[str] = []
    pairs = node.value
    for index, (key_node, value_node) in enumerate(pairs):
        key = str(key_node.value)
        end_mark = value_node.end_mark
        end = end_mark.line + (1 if end_mark.column > 0 else 0)
        if index + 1 < len(pairs):
            end = min(max(end, key_node.start_mark.line + 1), pairs[index + 1][0].start_mark.line)
        end = max(min(end, line_count), key_node.start_mark.line + 1)
        if key in spans:
            duplicates.append(key)
        style = (value_node.style or "") if isinstance(value_node, yaml.ScalarNode) else None
        spans[key] = KeySpan(key, key_node.start_mark.line, end, style)
    if not isinstance(values, dict):
        raise FrontmatterError("the frontmatter is not a mapping of keys to values", kind="not-a-mapping")
    return {str(k): v for k, v in values.items()}, spans, tuple(duplicates)


MAX_NODES = 100_000  # values after expanding YAML aliases ("billion laughs" stops here)


def _check_size(values: Any) -> None:
    """Refuse values that are huge or endless once aliases are expanded (later code walks them)."""
    budget = MAX_NODES
    stack = [values]
    while stack:
        item = stack.pop()
        budget -= 1
        if budget < 0:
            raise FrontmatterError("the frontmatter is too large, or refers to itself, once its YAML "
                                   f"aliases are expanded (more than {MAX_NODES:,} values)",
                                   kind="too-large")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and item.bit_length() > _INT_BITS:  # (0x... is not limited)
            raise FrontmatterError(_HUGE_NUMBER, kind="too-large")


_INT_BITS = 14_000  # a number Python can still print (it refuses more than 4,300 digits)
_HUGE_NUMBER = "the frontmatter holds a number with more than 4,300 digits"


def _compose_checked(text: str) -> tuple[dict[str, Any], dict[str, KeySpan], tuple[str, ...]]:
    try:
        values, spans, duplicates = _compose(text)
    except RecursionError:
        raise FrontmatterError("the frontmatter is nested too deeply", kind="too-deep") from None
    except ValueError as exc:  # int(): "Exceeds the limit (4300 digits) for integer string conversion"
        raise FrontmatterError(_HUGE_NUMBER if "integer string" in str(exc) else str(exc),
                               kind="too-large") from None
    _check_size(values)
    return values, spans, duplicates


def parse_frontmatter(text: str, first_line: int = 2) -> Frontmatter:
    """Parse frontmatter text leniently (``first_line``: its 1-based line in the file, for messages).

    A block over :data:`FRONTMATTER_MAX_BYTES` is refused unread (kind ``too-large``): PyYAML
    takes about a second per 64 KB of keys, and a 20 MB value took 20 s."""
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > FRONTMATTER_MAX_BYTES:
        raise FrontmatterError(f"the frontmatter is {too_large(size, FRONTMATTER_MAX_BYTES)}",
                               line=first_line - 1, kind="too-large")
    import yaml

    try:
        values, spans, duplicates = _compose_checked(text)
        return Frontmatter(values, spans, (), duplicates)
    except yaml.YAMLError as exc:
        first_error = exc
    repaired, fixed = _quote_colons(text)
    if fixed:
        try:
            values, spans, duplicates = _compose_checked(repaired)
            return Frontmatter(values, spans, fixed, duplicates)
        except yaml.YAMLError:
            pass
    mark = getattr(first_error, "problem_mark", None)
    last = max(len(text.splitlines()) - 1, 0)
    if mark is not None and mark.line > last:  # "stream end": point at where the construct began
        mark = getattr(first_error, "context_mark", None) or mark
    line = first_line + min(mark.line, last) if mark is not None else None
    problem = getattr(first_error, "problem", None) or str(first_error).splitlines()[0]
    raise FrontmatterError(f"unparseable YAML frontmatter: {problem}"
                           + (f" (line {line})" if line else ""), line=line)


# ---------------------------------------------------------------- writing values


def _printable(ch: str) -> bool:
    """YAML's printable set (other characters must be escaped)."""
    code = ord(ch)
    return (ch in "\t\n\r" or 0x20 <= code <= 0x7E or code == 0x85 or 0xA0 <= code <= 0xD7FF
            or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF)


def _double_quoted(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif not _printable(ch) or ch in "\x85\u2028\u2029\ufeff":
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _reads_back(key: str, text: str, value: Any) -> bool:
    import yaml

    try:
        loaded = yaml.load(f"{key}: {text}\n", Loader=_loader())
    except (yaml.YAMLError, ValueError, RecursionError):  # (a number of 5,000 digits)
        return False
    return (isinstance(loaded, dict) and list(loaded) == [key] and loaded[key] == value
            and type(loaded[key]) is type(value))


def scalar_text(key: str, value: str, plain: str = "yaml") -> str:
    """One-line text for a string value.

    ``plain="yaml"`` writes it plain when YAML reads it back unchanged, else double-quoted;
    ``plain="line"`` (line-based readers that keep quotes literally) writes any single-line
    value without surrounding whitespace or leading quote plain, even if YAML would need quotes.
    """
    single = (value == value.strip() and value != "" and all(_printable(c) for c in value)
              and "\n" not in value and "\r" not in value)
    if single and _reads_back(key, value, value):
        return value
    if plain == "line" and single and not value.startswith(("'", '"')):
        try:  # plain if the lenient reader (colon-quoting retry) gets the value back
            if parse_frontmatter(f"{key}: {value}\n").values.get(key) == value:
                return value
        except FrontmatterError:
            pass
    return _double_quoted(value)


def emit_key(key: str, value: Any, newline: str = "\n", plain: str = "yaml") -> str:
    """The lines for ``key: value`` (ending with ``newline``)."""
    import yaml

    if isinstance(value, str):
        shown = key if _reads_back(key, "x", "x") else _double_quoted(key)  # e.g. 'on', 'null'
        text = f"{shown}: {scalar_text(key, value, plain)}\n"
    else:
        text = yaml.safe_dump({key: value}, sort_keys=False, default_flow_style=False,
                              allow_unicode=True, width=1 << 30)
        if yaml.load(text, Loader=_loader()) != {key: value}:  # e.g. U+0085 kept raw: escape instead
            text = yaml.safe_dump({key: value}, sort_keys=False, default_flow_style=False,
                                  allow_unicode=False, width=1 << 30)
    return text.replace("\n", newline)


# ---------------------------------------------------------------- keeping the user's style

_BLOCK_HEADER = re.compile(r"^(?P<lead>[^#]*?:[ \t]*)(?P<ind>[|>])(?P<mods>[-+0-9]*)(?P<rest>.*)$")
FOLD_WIDTH = 80  # a folded block's lines, when the old ones give no width


def _block_lines(value: str, old: list[str], header: str, newline: str) -> str | None:
    """``value`` as a block scalar written like the old one (``old``: its lines, header first):
    the same indicator, indentation and, for ``>``, the old line breaks where the text still
    has them; the chomping indicator says how many line breaks end the value. None when the
    header is not understood."""
    m = _BLOCK_HEADER.match(header.rstrip("\r\n"))
    if m is None:
        return None
    digits = "".join(c for c in m["mods"] if c.isdigit())
    body = [line.rstrip("\r\n") for line in old[1:]]
    shown = [line for line in body if line.strip()]
    indent = " " * (len(shown[0]) - len(shown[0].lstrip(" ")) if shown else 2)
    content = value.rstrip("\n")
    ending = len(value) - len(content)
    chomp = "-" if ending == 0 else "" if ending == 1 else "+"
    out = [f"{m['lead']}{m['ind']}{digits}{chomp}{m['rest']}"]
    if m["ind"] == "|":
        out.extend(indent + line if line else "" for line in content.split("\n"))
    else:
        # In a folded block one line break in the value is an empty line; lines join with spaces.
        old_lines = [line.strip() for line in shown]
        width = max([len(line) for line in old_lines] + [40]) if old_lines else FOLD_WIDTH
        for number, paragraph in enumerate(content.split("\n")):
            if number:
                out.append("")
            out.extend(indent + line for line in _fold(paragraph, old_lines, width))
    out.extend([""] * max(0, ending - 1))
    return "".join(line + newline for line in out)


def _fold(paragraph: str, old_lines: list[str], width: int) -> list[str]:
    """``paragraph`` cut into lines at single spaces: first the old lines it still starts with,
    then greedily at ``width`` (text added after the last old line continues that line)."""
    lines: list[str] = []
    rest = paragraph
    for line in old_lines:
        if rest == line or (rest.startswith(line + " ") and not rest.startswith(line + "  ")):
            lines.append(line)
            rest = rest[len(line) + 1:]
        else:
            break
    words = re.split(r"(?<=\S) (?=\S)", rest) if rest else []
    current = lines.pop() if words and lines and len(lines) == len(old_lines) else ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


def _styled(key: str, value: Any, span: KeySpan, lines: list[str], newline: str) -> str | None:
    """``key: value`` in the style the file gave the old value (block ``|``/``>``, single or
    double quotes), when that style can hold ``value`` exactly; else None."""
    import yaml

    if not isinstance(value, str) or not span.style:
        return None
    old = lines[span.start:span.end]
    if span.style in "|>":
        text = _block_lines(value, old, old[0], newline)
    elif span.end - span.start != 1 or "\n" in value or "\r" in value:
        return None
    else:
        m = re.match(r"^(?P<lead>[^'\"]*?:[ \t]*)['\"]", old[0])
        if m is None:
            return None
        quoted = "'" + value.replace("'", "''") + "'" if span.style == "'" else _double_quoted(value)
        if span.style == "'" and not all(_printable(c) for c in value):
            return None
        text = f"{m['lead']}{quoted}{newline}"
    if text is None:
        return None
    try:
        loaded = yaml.load(text.replace(newline, "\n"), Loader=_loader())
    except yaml.YAMLError:
        return None
    if not isinstance(loaded, dict) or list(loaded.values()) != [value]:
        return None
    return text


DELETE = object()


def edit_frontmatter(text: str, changes: Mapping[str, Any], newline: str = "\n",
                     plain: str = "yaml") -> str:
    """``text`` with only the keys in ``changes`` rewritten (``DELETE`` removes a key).

    New keys are appended in the order given. Lines of other keys are untouched. A string keeps
    the style its old value had (a ``>`` or ``|`` block, single or double quotes) when that style
    can hold it exactly.
    """
    if not changes:
        return text
    parsed = parse_frontmatter(text)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    replace: dict[int, tuple[int, str]] = {}
    appended: list[str] = []
    for key, value in changes.items():
        span = parsed.spans.get(key)
        styled = _styled(key, value, span, lines, newline) if span is not None else None
        emitted = "" if value is DELETE else styled or emit_key(key, value, newline, plain)
        if span is None:
            if value is not DELETE:
                appended.append(emitted)
        else:
            replace[span.start] = (span.end, emitted)
    out: list[str] = []
    index = 0
    while index < len(lines):
        if index in replace:
            end, emitted = replace[index]
            out.append(emitted)
            index = end
        else:
            out.append(lines[index])
            index += 1
    # new keys go after the last key, before trailing blank or comment lines
    insert_at = len(out)
    while insert_at > 0 and (not out[insert_at - 1].strip() or out[insert_at - 1].lstrip().startswith("#")):
        insert_at -= 1
    out[insert_at:insert_at] = appended
    return "".join(out)


def render_frontmatter(values: Mapping[str, Any], newline: str = "\n", plain: str = "yaml") -> str:
    """Fresh frontmatter text for ``values`` (in order)."""
    return "".join(emit_key(k, v, newline, plain) for k, v in values.items())


def render_document(values: Mapping[str, Any], body: str, newline: str = "\n", plain: str = "yaml",
                    body_prefix: str | None = None) -> Document:
    """A new SKILL.md: delimiters, ``values``, then ``body`` after one blank line by default."""
    prefix = newline if body_prefix is None else body_prefix
    return Document(False, DELIMITER + newline, render_frontmatter(values, newline, plain),
                    DELIMITER + newline, prefix + body)


# ---------------------------------------------------------------- body and newlines


def split_body(body: str) -> tuple[str, str]:
    """(leading blank lines, rest): the separator kept apart so ``content`` starts at the text."""
    m = re.match(r"(?:[ \t]*\r?\n)*", body)
    cut = m.end() if m else 0
    return body[:cut], body[cut:]


def uses_crlf(text: str) -> bool:
    """True when every line break in ``text`` is CRLF (and there is at least one)."""
    return "\r\n" in text and text.count("\n") == text.count("\r\n") and "\r" not in text.replace("\r\n", "")


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def to_newline(text: str, newline: str) -> str:
    return text if newline == "\n" else text.replace("\n", newline)
