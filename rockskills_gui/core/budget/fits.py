"""How the coding agents fit their skill listings into a budget (issue 31): exactly the algorithm
and the strings each one uses, as read from its source (README, "What each agent lists").

- Codex (openai/codex ``codex-rs/core-skills/src/render.rs`` @ 0899b7c): skill lines
  ``- name: description (file: path)`` ordered by scope (system, admin, repo, user), name, path;
  the budget is 2% of the context window in tokens (bytes / 4) when it is known, else 8,000
  characters. If the full lines do not fit, every description is shortened (one character at a
  time, round robin, no ellipsis) as long as the lines without descriptions fit; otherwise the
  descriptions are all removed and skills omitted in order; a shorter form with ``r0``-style root
  aliases is taken when it keeps more. The warning is Codex's own sentence.
- Claude Code (code.claude.com/docs/en/skills): 1% of the context window in characters (4 per
  token); each entry's description at most 1,536 characters; when the list overflows, the
  descriptions of the least-used skills are dropped first (names always stay). The order of
  equally used skills, the ``…`` at the cap and the listing text are assumed.
- VS Code's Copilot: 15,000 characters of ``<skill>`` entries; the first that does not fit and
  every later one are named on one ``Additional skills available`` line of at most 5,000.
- Hermes Agent: descriptions cut at 60 characters (57 and ``...``), grouped by category; no total.

A fit returns the text, the skills listed, those cut and those whose description was shortened.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import groupby

from rockskills_gui.core.budget.entries import AdEntry
from rockskills_gui.core.budget.limits import Limits

__all__ = ["FITS", "Cut", "Fitted", "Shortened", "claude_code_fit", "codex_fit", "copilot_fit",
           "hermes_text"]

# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class Cut:
    """A skill the budget leaves out of the listing."""

    name: str
    kind: str  # max_chars | max_tokens
    reason: str


@dataclass(frozen=True)
class Shortened:
    """A listed skill whose description the agent shortened (``kept`` of ``full`` characters)."""

    name: str
    kept: int
    full: int
    reason: str


@dataclass(frozen=True)
class Fitted:
    """A listing fitted to its budget."""

    text: str
    listed: tuple[str, ...]
    cut: tuple[Cut, ...] = ()
    shortened: tuple[Shortened, ...] = ()
    warning: str = ""  # what the agent itself says about the cut ("": nothing)
    cap: str = ""  # the budget in words ("8,000 characters of skill lines (context window unknown)")
    full_text: str = ""  # the text with every skill and full descriptions
    entry_chars: dict[str, int] = field(default_factory=dict)


Fit = Callable[[Sequence[AdEntry], Limits], Fitted]

# ---------------------------------------------------------------- Codex

CODEX_CHAR_BUDGET = 8000  # DEFAULT_SKILL_METADATA_CHAR_BUDGET
CODEX_PERCENT = 2  # SKILL_METADATA_CONTEXT_WINDOW_PERCENT
CODEX_WARN_AVERAGE = 100  # SKILL_DESCRIPTION_TRUNCATION_WARNING_THRESHOLD_CHARS
CODEX_SHORTENED = ("Skill descriptions were shortened to fit the skills context budget. Codex can still "
                   "see every skill, but some descriptions are shorter. Disable unused skills or plugins "
                   "to leave more room for the rest.")
CODEX_SHORTENED_PERCENT = CODEX_SHORTENED.replace("the skills context budget",
                                                  "the 2% skills context budget")
CODEX_REMOVED = "Exceeded skills context budget. All skill descriptions were removed and"
CODEX_INTRO = ("A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. "
               "Below is the list of skills that can be used. Each entry includes a name, description, "
               "and file path so you can open the source for full instructions when using a specific "
               "skill.")
CODEX_INTRO_ALIASES = ("A skill is a set of local instructions to follow that is stored in a `SKILL.md` "
                       "file. Below is the list of skills that can be used. Each entry includes a name, "
                       "description, and a short path that can be expanded into an absolute path using "
                       "the skill roots table.")
_CODEX_RULES = """\
- Trigger rules: If the user names a skill (with `$SkillName` or plain text) OR the task clearly matches \
a skill's description shown above, you must use that skill for that turn. Multiple mentions mean use them \
all. Do not carry skills across turns unless re-mentioned.
- Missing/blocked: If a named skill isn't in the list or the path can't be read, say so briefly and \
continue with the best fallback.
- How to use a skill (progressive disclosure):
  1) {open}
  2) When `SKILL.md` references relative paths (e.g., `scripts/foo.py`), resolve them relative to \
{relative} first, and only consider other paths if needed.
  3) If `SKILL.md` points to extra folders such as `references/`, load only the specific files needed \
for the request; don't bulk-load everything.
  4) If `scripts/` exist, prefer running or patching them instead of retyping large code blocks.
  5) If `assets/` or templates exist, reuse them instead of recreating from scratch.
- Coordination and sequencing:
  - If multiple skills apply, choose the minimal set that covers the request and state the order you'll \
use them.
  - Announce which skill(s) you're using and why (one short line). If you skip an obvious skill, say why.
- Context hygiene:
  - Keep context small: summarize long sections instead of pasting them; only load extra files when \
needed.
  - Avoid deep reference-chasing: prefer opening only files directly linked from `SKILL.md` unless \
you're blocked.
  - When variants exist (frameworks, providers, domains), pick only the relevant reference file(s) and \
note that choice.
- Safety and fallback: If a skill can't be applied cleanly (missing files, unclear instructions), state \
the issue, pick the next-best approach, and continue."""
CODEX_HOW_TO = ("- Discovery: The list above is the skills available in this session (name + description "
                "+ file path). Skill bodies live on disk at the listed paths.\n" + _CODEX_RULES.format(
                    open="After deciding to use a skill, open its `SKILL.md`. Read only enough to follow "
                         "the workflow.",
                    relative="the skill directory listed above"))
CODEX_HOW_TO_ALIASES = (
    "- Discovery: The list above is the skills available in this session (name + description + short "
    "path). Skill bodies live on disk at the listed paths after expanding the matching alias from "
    "`### Skill roots`.\n" + _CODEX_RULES.format(
        open="After deciding to use a skill, expand the listed short `path` with the matching alias "
             "from `### Skill roots`, then open its `SKILL.md`. Read only enough to follow the workflow.",
        relative="the directory containing that expanded `SKILL.md`"))
CODEX_SCOPE_RANK = {"system": 0, "admin": 1, "project": 2}  # prompt_scope_rank; any other: user (3)


@dataclass(frozen=True)
class _Budget:
    tokens: bool
    limit: int

    def cost_of(self, chars: int, size: int) -> int:
        return (size + 3) // 4 if self.tokens else chars

    def cost(self, text: str) -> int:
        return self.cost_of(len(text), len(text.encode("utf-8")))

    def words(self) -> str:
        return f"{self.limit:,} tokens of skill lines (2% of the context window)" if self.tokens else \
            f"{self.limit:,} characters of skill lines"


@dataclass(frozen=True)
class _Line:
    entry: AdEntry
    name: str
    description: str
    path: str

    def render(self, chars: int | None = None) -> str:
        text = self.description if chars is None else self.description[:chars]
        return f"- {self.name}: {text} (file: {self.path})" if text else f"- {self.name}: (file: {self.path})"


@dataclass(frozen=True)
class _Rendered:
    lines: tuple[str, ...]
    kept: dict[str, int]  # skill -> description characters kept (listed skills only)
    omitted: tuple[str, ...]
    truncated_chars: int
    roots: tuple[str, ...] = ()  # the "- `r0` = `/root`" lines (aliases)

    def better_than(self, other: _Rendered, budget: _Budget) -> bool:
        """aliased_render_is_better: more skills, then fewer characters cut, then cheaper."""
        if len(self.kept) != len(other.kept):
            return len(self.kept) > len(other.kept)
        if self.truncated_chars != other.truncated_chars:
            return self.truncated_chars < other.truncated_chars
        return _rendered_cost(self, budget) < _rendered_cost(other, budget)


def codex_body(root_lines: Sequence[str], skill_lines: Sequence[str]) -> str:
    """render_available_skills_body (its leading and trailing newline included)."""
    lines = ["## Skills"]
    if root_lines:
        lines += [CODEX_INTRO_ALIASES, "### Skill roots", *root_lines]
    else:
        lines.append(CODEX_INTRO)
    lines += ["### Available skills", *skill_lines, "### How to use skills",
              CODEX_HOW_TO_ALIASES if root_lines else CODEX_HOW_TO]
    return "\n" + "\n".join(lines) + "\n"


def _single_line(text: str) -> str:
    return " ".join(text.split())  # sanitize_single_line


def _codex_order(entries: Sequence[AdEntry]) -> list[AdEntry]:
    def key(e: AdEntry) -> tuple[int, bytes, bytes]:
        return (CODEX_SCOPE_RANK.get(e.scope, 3), _single_line(e.shown).encode("utf-8"),
                e.location.encode("utf-8", "surrogateescape"))

    return sorted(entries, key=key)


def _line_cost(budget: _Budget, line: str) -> int:
    return budget.cost(line + "\n")


def _rendered_cost(rendered: _Rendered, budget: _Budget) -> int:
    lines = sum(_line_cost(budget, line) for line in rendered.lines)
    return lines + (_alias_overhead(budget, rendered.roots) if rendered.roots else 0)


def _alias_overhead(budget: _Budget, root_lines: Sequence[str]) -> int:
    return max(0, budget.cost(codex_body(root_lines, [])) - budget.cost(codex_body([], [])))


def _share_descriptions(lines: Sequence[_Line], budget: _Budget, room: int) -> list[int]:
    """render_lines_with_description_budget: ``room`` handed out one description character at a
    time, round robin; returns each line's kept characters."""
    extras: list[list[int]] = []
    for line in lines:
        minimum = line.render(0)
        chars, size = len(minimum) + 1, len(minimum.encode("utf-8")) + 1
        base = budget.cost_of(chars, size)
        costs, prefix_chars, prefix_size = [0], 0, 0
        for ch in line.description:
            prefix_chars += 1
            prefix_size += len(ch.encode("utf-8"))
            costs.append(budget.cost_of(chars + prefix_chars + 1, size + prefix_size + 1) - base)
        extras.append(costs)
    kept = [0] * len(lines)
    spent = [0] * len(lines)
    changed = True
    while changed:
        changed = False
        for i, line in enumerate(lines):
            if kept[i] >= len(line.description):
                continue
            delta = max(0, extras[i][kept[i] + 1] - spent[i])
            if delta <= room:
                kept[i] += 1
                spent[i] = extras[i][kept[i]]
                room -= delta
                changed = True
    return kept


def _codex_render(lines: Sequence[_Line], budget: _Budget, roots: tuple[str, ...] = ()) -> _Rendered:
    """render_skill_lines_from_lines."""
    full = sum(_line_cost(budget, line.render()) for line in lines)
    if full <= budget.limit:
        return _Rendered(tuple(line.render() for line in lines),
                         {line.entry.name: len(line.description) for line in lines}, (), 0, roots)
    minimum = sum(_line_cost(budget, line.render(0)) for line in lines)
    if minimum <= budget.limit:
        kept = _share_descriptions(lines, budget, budget.limit - minimum)
        return _Rendered(tuple(line.render(k) for line, k in zip(lines, kept, strict=True)),
                         {line.entry.name: k for line, k in zip(lines, kept, strict=True)}, (),
                         sum(len(line.description) - k for line, k in zip(lines, kept, strict=True)), roots)
    used, out, listed, omitted = 0, [], {}, []
    for line in lines:  # render_minimum_skill_lines_until_budget
        cost = _line_cost(budget, line.render(0))
        if used + cost <= budget.limit:
            used += cost
            out.append(line.render(0))
            listed[line.entry.name] = 0
        else:
            omitted.append(line.entry.name)
    return _Rendered(tuple(out), listed, tuple(omitted), sum(len(line.description) for line in lines), roots)


def _marketplace_base(path: str) -> str | None:
    """plugin_marketplace_base: the folder just below a ``plugins/cache`` ancestor."""
    candidate = path
    while True:
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return None
        if os.path.basename(parent) == "cache" and os.path.basename(os.path.dirname(parent)) == "plugins":
            return candidate
        candidate = parent


def _version_base(path: str) -> str | None:
    base = _marketplace_base(path)
    if base is None:
        return None
    parts = os.path.relpath(path, base).split(os.sep)
    return os.path.join(base, parts[0], parts[1]) if len(parts) >= 2 and ".." not in parts else None


def _codex_aliased(entries: Sequence[AdEntry], budget: _Budget) -> _Rendered | None:
    """build_aliased_available_skills: paths as ``r<N>/<relative>`` with a roots table."""
    used = list(dict.fromkeys(e.root for e in entries if e.root))
    if not used:
        return None
    counts: dict[str, int] = {}
    for root in (e.root for e in entries if e.root):
        version = _version_base(root)
        if version is not None:
            counts[version] = counts.get(version, 0) + 1
    alias_of = {}
    for root in used:
        version = _version_base(root)
        alias_of[root] = root if version is None or counts.get(version, 0) > 1 else \
            (_marketplace_base(root) or root)
    aliases = list(dict.fromkeys(alias_of[r] for r in used))
    index = {a: i for i, a in enumerate(aliases)}
    root_lines = tuple(f"- `r{i}` = `{a.replace(os.sep, '/')}`" for i, a in enumerate(aliases))
    overhead = _alias_overhead(budget, root_lines)
    if overhead >= budget.limit:
        return None
    smaller = _Budget(budget.tokens, budget.limit - overhead)

    def short(entry: AdEntry) -> str:
        alias = alias_of.get(entry.root)
        if alias is None or not entry.location.startswith(alias.rstrip(os.sep) + os.sep):
            return entry.location.replace("\\", "/")
        return f"r{index[alias]}/" + os.path.relpath(entry.location, alias).replace(os.sep, "/")

    lines = [_Line(e, _single_line(e.shown), _single_line(e.description or ""), short(e))
             for e in _codex_order(entries)]
    return _codex_render(lines, smaller, root_lines)


def codex_fit(entries: Sequence[AdEntry], limits: Limits) -> Fitted:
    """Codex's listing of ``entries`` (see the module doc)."""
    if limits.max_tokens is not None:
        budget, unknown = _Budget(True, limits.max_tokens), ""
    elif limits.context_window:
        budget, unknown = _Budget(True, max(1, limits.context_window * CODEX_PERCENT // 100)), ""
    else:
        chars = limits.max_chars if limits.max_chars is not None else 10 ** 12
        budget, unknown = _Budget(False, chars), " (context window unknown)"
    lines = [_Line(e, _single_line(e.shown), _single_line(e.description or ""), e.location.replace("\\", "/"))
             for e in _codex_order(entries)]
    chosen = _codex_render(lines, budget)
    if chosen.omitted or chosen.truncated_chars:
        aliased = _codex_aliased(entries, budget)
        if aliased is not None and aliased.better_than(chosen, budget):
            chosen = aliased
    text = codex_body(chosen.roots, chosen.lines)
    fulls = {line.entry.name: len(line.description) for line in lines}
    kind = "max_tokens" if budget.tokens else "max_chars"
    warning = ""
    if chosen.omitted:
        n = len(chosen.omitted)
        prefix = CODEX_REMOVED.replace("budget.", "budget of 2%.", 1) if budget.tokens else CODEX_REMOVED
        warning = (f"{prefix} {n} additional {'skill' if n == 1 else 'skills'} {'was' if n == 1 else 'were'} "
                   "not included in the model-visible skills list.")
    elif entries and -(-chosen.truncated_chars // len(entries)) > CODEX_WARN_AVERAGE:
        warning = CODEX_SHORTENED_PERCENT if budget.tokens else CODEX_SHORTENED
    cap = "no limit" if budget.limit >= 10 ** 12 else budget.words() + unknown
    return Fitted(
        text=text, listed=tuple(e.name for e in _codex_order(entries) if e.name in chosen.kept),
        cut=tuple(Cut(name, kind, "omitted: even without descriptions the list passes Codex's budget "
                                  f"({cap})") for name in chosen.omitted),
        shortened=tuple(Shortened(name, kept, fulls[name], f"description cut to {kept} of {fulls[name]} "
                                                          "characters" if kept else "description removed")
                        for name, kept in chosen.kept.items() if kept < fulls[name]),
        warning=warning, cap=cap, full_text=codex_body((), [line.render() for line in lines]),
        entry_chars={line.entry.name: len(line.render()) + 1 for line in lines})


# ---------------------------------------------------------------- Claude Code

CLAUDE_HEADER = "The following skills are available for use with the Skill tool:"
CLAUDE_ENTRY_CAP = 1536  # skillListingMaxDescChars
CLAUDE_FRACTION = 0.01  # skillListingBudgetFraction
CLAUDE_CHARS_PER_TOKEN = 4
CLAUDE_WINDOW = 200_000


def _claude_description(entry: AdEntry) -> str:
    text = _single_line(entry.description or "") or entry.paragraph
    return text if len(text) <= CLAUDE_ENTRY_CAP else text[:CLAUDE_ENTRY_CAP - 1] + "…"


def claude_text(lines: Sequence[str]) -> str:
    return "<system-reminder>\n" + CLAUDE_HEADER + "\n\n" + "\n".join(lines) + "\n</system-reminder>"


def claude_code_fit(entries: Sequence[AdEntry], limits: Limits) -> Fitted:
    """Claude Code's listing (see the module doc): least-used skills lose their description
    first (ties: the later listed first, assumed)."""
    window = limits.context_window or CLAUDE_WINDOW
    limit = limits.max_chars if limits.max_chars is not None else \
        int(window * CLAUDE_CHARS_PER_TOKEN * CLAUDE_FRACTION)
    cap = f"{limit:,} characters" + ("" if limits.max_chars is not None else
                                     f" (1% of a {window:,}-token context window)")
    descriptions = {e.name: _claude_description(e) for e in entries}
    full = {e.name: f"- {e.shown}: {descriptions[e.name]}" if descriptions[e.name] else f"- {e.shown}"
            for e in entries}
    bare = {e.name: f"- {e.shown}" for e in entries}
    total = sum(len(line) + 1 for line in full.values())
    dropped: list[str] = []
    ranked = sorted(enumerate(entries), key=lambda pair: (pair[1].invocations, -pair[0]))
    for _index, entry in ranked:
        if total <= limit:
            break
        if descriptions[entry.name]:
            total -= len(full[entry.name]) - len(bare[entry.name])
            dropped.append(entry.name)
    gone = set(dropped)
    lines = [bare[e.name] if e.name in gone else full[e.name] for e in entries]
    capped = [e for e in entries if e.name not in gone and len(_single_line(e.description or "")
                                                               or e.paragraph) > CLAUDE_ENTRY_CAP]
    shortened = [Shortened(e.name, 0, len(descriptions[e.name]), "description dropped (least used first)")
                 for e in entries if e.name in gone]
    shortened += [Shortened(e.name, CLAUDE_ENTRY_CAP, len(_single_line(e.description or "") or e.paragraph),
                            f"description cut at {CLAUDE_ENTRY_CAP:,} characters (each entry's cap)")
                  for e in capped]
    warning = (f"{len(dropped)} skill description(s) dropped to fit the listing budget; every name stays "
               "(Claude Code says so only in its debug log)") if dropped else ""
    return Fitted(text=claude_text(lines), listed=tuple(e.name for e in entries),
                  shortened=tuple(shortened), warning=warning, cap=cap,
                  full_text=claude_text(list(full.values())),
                  entry_chars={name: len(line) + 1 for name, line in full.items()})


# ---------------------------------------------------------------- GitHub Copilot (VS Code)

COPILOT_HEADER = (
    "<skills>\nHere is a list of skills that contain domain specific knowledge on a variety of topics.\n"
    "Each skill comes with a description of the topic and a file path that contains the detailed "
    "instructions.\nWhen a user asks you to perform a task that falls within the domain of a skill, use "
    "the read_file tool to acquire the full instructions from the file URI.")
COPILOT_BUDGET = 15_000  # SKILL_DESCRIPTION_CHAR_BUDGET
COPILOT_NAMES = 5_000  # TRUNCATED_NAMES_CHAR_BUDGET


def copilot_entry(entry: AdEntry) -> str:
    lines = ["<skill>", f"<name>{entry.shown}</name>"]
    if entry.description:
        lines.append(f"<description>{entry.description}</description>")
    return "\n".join([*lines, f"<file>{entry.location}</file>", "</skill>"])


def _copilot_text(entries: Sequence[str], overflow: str) -> str:
    return "\n".join([COPILOT_HEADER, *entries, *([overflow] if overflow else []), "</skills>"])


def copilot_fit(entries: Sequence[AdEntry], limits: Limits) -> Fitted:
    """VS Code's listing: whole entries up to the budget, then the others by name only."""
    limit = limits.max_chars if limits.max_chars is not None else 10 ** 12
    rendered = [copilot_entry(e) for e in entries]
    used, kept = 0, 0
    for text in rendered:
        if used + len(text) + 1 > limit:
            break
        used, kept = used + len(text) + 1, kept + 1
    rest = list(entries[kept:])
    named: list[AdEntry] = []
    length = 0
    for entry in rest:
        extra = len(entry.shown) + (2 if named else 0)
        if length + extra > COPILOT_NAMES:
            break
        named.append(entry)
        length += extra
    overflow = ""
    if rest:
        more = len(rest) - len(named)
        overflow = "Additional skills available (invoke by name): " + ", ".join(e.shown for e in named) + \
            (f"... and {more} more" if more else "")
    cap = f"{limit:,} characters of entries" if limit < 10 ** 12 else "no limit"
    return Fitted(
        text=_copilot_text(rendered[:kept], overflow),
        listed=tuple(e.name for e in [*entries[:kept], *named]),
        cut=tuple(Cut(e.name, "max_chars", f"past the {COPILOT_NAMES:,}-character list of further names")
                  for e in rest[len(named):]),
        shortened=tuple(Shortened(e.name, 0, len(e.description or ""), "named only, past the entries' budget")
                        for e in named),
        warning="", cap=cap, full_text=_copilot_text(rendered, ""),
        entry_chars={e.name: len(t) + 1 for e, t in zip(entries, rendered, strict=True)})


# ---------------------------------------------------------------- Hermes Agent

HERMES_LIMIT = 60  # SKILL_PROMPT_DESC_LIMIT
HERMES_HEADER = (
    "## Skills (mandatory)\nBefore replying, scan the skills below. If one clearly matches your task, load "
    "it with skill_view(name) and follow its instructions. If a skill has issues, fix it with "
    "skill_manage(action='patch').\nAfter difficult/iterative tasks, offer to save as a skill. If a skill "
    "you loaded was missing steps, had wrong commands, or needed pitfalls you discovered, update it before "
    "finishing.\n\n<available_skills>")
HERMES_FOOTER = "</available_skills>\n\nIf none match, proceed normally without loading a skill."


def _hermes_description(entry: AdEntry) -> str:
    return _single_line(entry.description or "") or entry.paragraph


def hermes_text(entries: Sequence[AdEntry], limit: int | None = HERMES_LIMIT) -> tuple[str, list[str]]:
    """build_skills_system_prompt's text (categories sorted, names sorted in each, a name listed
    once per category) and the skills listed."""
    def category(e: AdEntry) -> str:
        return e.category or "general"

    lines, listed = [HERMES_HEADER], []
    ordered = sorted(entries, key=lambda e: (category(e), e.shown))
    for name, group in groupby(ordered, key=category):
        lines.append(f"  {name}:")
        seen: set[str] = set()
        for entry in group:
            if entry.shown in seen:
                continue
            seen.add(entry.shown)
            listed.append(entry.name)
            text = _hermes_description(entry)
            if limit is not None and len(text) > limit:
                text = text[:limit - 3] + "..."
            lines.append(f"    - {entry.shown}: {text}" if text else f"    - {entry.shown}")
    return "\n".join([*lines, HERMES_FOOTER]), listed


def hermes_fit(entries: Sequence[AdEntry], limits: Limits) -> Fitted:
    del limits  # Hermes has no total budget
    text, listed = hermes_text(entries)
    full_text, _ = hermes_text(entries, None)
    shown = set(listed)
    shortened = tuple(Shortened(e.name, HERMES_LIMIT, len(_hermes_description(e)),
                                f"description cut to {HERMES_LIMIT} characters (57 and '...')")
                      for e in entries if e.name in shown and len(_hermes_description(e)) > HERMES_LIMIT)
    return Fitted(text=text, listed=tuple(listed), shortened=shortened, cap="no limit",
                  full_text=full_text,
                  entry_chars={e.name: len(e.shown) + len(_hermes_description(e)) + 8 for e in entries})


FITS: dict[str, Fit] = {"codex": codex_fit, "claude-code": claude_code_fit, "copilot": copilot_fit,
                        "hermes": hermes_fit}

