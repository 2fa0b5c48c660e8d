"""Generate the bundled demo library (``resources/demo-library/``), deterministically.

Run ``python resources/make_demo_library.py`` from the repository root to rewrite the committed
tree (``--out DIR`` writes elsewhere). The output depends only on this file and the core writers:
a seeded RNG and a fixed anchor instant (:data:`ANCHOR_TEXT`), so running it again reproduces the
committed files byte for byte (``tests/core/test_demo_library.py`` checks that).

Every file is written with the core's exact RockBot writers (``skill_to_bytes``, ``dumps_compact``,
``dumps_indented``), so the tree is byte-identical to what RockBot would have written. The app
installs a copy with every timestamp shifted so the anchor becomes "today"
(``rockskills_gui.core.app.demo.install_demo``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rockskills_gui.core.model.dotnet_json import dumps_compact, dumps_indented  # noqa: E402
from rockskills_gui.core.model.names import fold, validate_name  # noqa: E402
from rockskills_gui.core.model.skill import Skill, skill_to_bytes  # noqa: E402
from rockskills_gui.core.model.timestamps import TICKS_PER_DAY, TICKS_PER_SECOND, Timestamp  # noqa: E402

ANCHOR_TEXT = "2026-11-22T12:00:00+00:00"  # "now" of the demo; must equal core.demo.DEMO_ANCHOR
ANCHOR = Timestamp.parse(ANCHOR_TEXT)
SEED = 20261122
DEFAULT_OUT = Path(__file__).resolve().parent / "demo-library"
README_TITLE = "# RockSkills demo library"

_MIDNIGHT = ANCHOR.add_ticks(-(ANCHOR.ticks % TICKS_PER_DAY))  # anchor day, 00:00 UTC
_HOUR = 3600 * TICKS_PER_SECOND
_MINUTE = 60 * TICKS_PER_SECOND

rng = random.Random(SEED)


def at(days_before: int, hour: int, minute: int, second: int | None = None) -> Timestamp:
    """An instant ``days_before`` days before the anchor day, with a random 100-ns fraction."""
    sec = rng.randrange(60) if second is None else second
    ticks = (-days_before * TICKS_PER_DAY + hour * _HOUR + minute * _MINUTE
             + sec * TICKS_PER_SECOND + rng.randrange(TICKS_PER_SECOND))
    return _MIDNIGHT.add_ticks(ticks)


def later(ts: Timestamp, min_seconds: float, max_seconds: float) -> Timestamp:
    """``ts`` plus a random delay (in 100-ns ticks)."""
    return ts.add_ticks(rng.randrange(int(min_seconds * TICKS_PER_SECOND),
                                      int(max_seconds * TICKS_PER_SECOND)))


def new_id() -> str:
    """12 lowercase hex characters (RockBot: the first 12 hex chars of a GUID)."""
    return f"{rng.getrandbits(48):012x}"


def md(text: str) -> str:
    """Dedented Markdown as an LLM's ``save_skill`` call would pass it (ends with a newline)."""
    return textwrap.dedent(text).lstrip("\n")


# ====================================================================== skills

STARTERS: list[tuple[str, str]] = [  # registration order and exact summaries (spec §6)
    ("memory", "Long-term memory, working memory (path-namespaced, cross-context), and behavioral "
               "rules \u2014 when and how to use each."),
    ("skills", "Skill documents (reusable procedures) and behavioral rules \u2014 how to create, "
               "use, and maintain them."),
    ("mcp", "MCP server discovery and tool invocation (mcp_list_services, "
            "mcp_get_service_details, mcp_invoke_tool)."),
    ("web", "Web search and page browsing tools (web_search, web_browse)."),
    ("scheduling", "Schedule one-time or recurring tasks with cron expressions (schedule_task, "
                   "cancel_scheduled_task, list_scheduled_tasks)."),
    ("subagent", "Spawn background subagents for long-running tasks (spawn_subagent, "
                 "cancel_subagent, list_subagents)."),
    ("a2a", "Invoke external A2A agents by name and skill (invoke_agent, list_known_agents)."),
    ("scripts", "Execute Python scripts in isolated containers (execute_python_script)."),
]


def starter_content(name: str, summary: str) -> str:
    """Short stand-in for a starter document: CRLF line endings, no final newline (spec §6)."""
    lines = [
        f"# {name} tool guide (DEMO STAND-IN)",
        "",
        "This is placeholder text written for the RockSkills demo library. The real document is",
        f"the GetDocument() text of RockBot's '{name}' IToolSkillProvider (CRLF line endings).",
        "",
        "## When to use",
        "",
        summary,
        "",
        "## Steps",
        "",
        "1. Read the tool descriptions.",
        "2. Call the tool with explicit parameters.",
        f"3. Save a narrower skill (e.g. `{name}/your-topic`) once a workflow proves reliable.",
    ]
    return "\r\n".join(lines)


@dataclass
class SkillSpec:
    """A demo skill and how it came to be (which decides its timestamps)."""

    name: str
    summary: str
    content: str
    created: Timestamp
    updated: Timestamp | None
    reset: Timestamp | None  # last save_skill (which nulls lastUsedAt); None = never reset since
    used_before: Timestamp | None = None  # last use before the usage log starts
    see_also: tuple[str, ...] | None = None
    pool: bool = True  # may appear in generated usage


SKILLS: list[SkillSpec] = []


def agent_skill(name: str, summary: str, content: str, created: Timestamp,
                edited: Timestamp | None = None, used_before: Timestamp | None = None,
                pool: bool = True) -> None:
    """A skill the agent saved with ``save_skill`` (summary generated a few seconds later)."""
    saved = edited or created
    SKILLS.append(SkillSpec(name, summary, content, created, later(saved, 2.5, 9.0), saved,
                            used_before, None, pool))


def dream_skill(name: str, summary: str, content: str, created: Timestamp, dream: Timestamp,
                see_also: Sequence[str], used_before: Timestamp | None = None) -> None:
    """A skill (re)written by a dream consolidation: trimmed content, seeAlso, updatedAt = dream."""
    SKILLS.append(SkillSpec(name, summary, content.strip(), created, dream, None, used_before,
                            tuple(see_also)))


def gap_skill(name: str, summary: str, content: str, dream: Timestamp) -> None:
    """A skill created by the gap-detection pass: createdAt == updatedAt, trimmed content."""
    SKILLS.append(SkillSpec(name, summary, content.strip(), dream, dream, dream))


START = at(265, 9, 14)  # the agent's first start: StarterSkillService seeds the eight starters
_t = START
for _name, _summary in STARTERS:
    _t = later(_t, 0.0004, 0.003)
    SKILLS.append(SkillSpec(_name, _summary, starter_content(_name, _summary), _t,
                            _t.add_ticks(rng.randrange(60, 400)), _t,
                            pool=_name not in ("subagent", "a2a")))

DREAM_1 = at(33, 3, 17)  # dream cycles that changed the library (every 4 h after a start)
DREAM_2 = at(12, 7, 17)
DREAM_GAP = at(95, 11, 17)

# ---------------------------------------------------------------- top level

agent_skill("plan-meeting", "Find a slot and send a meeting invite to the attendees", md("""\
    # Plan a meeting

    ## When to use
    The user wants to meet with one or more people and has not picked a time yet.

    ## Steps
    1. Ask for the attendees, the purpose and the length if they are missing (default 30 min).
    2. Check the user's preferences in memory (preferred days and hours, time zone).
    3. Query free/busy for every attendee with `mcp/calendar` for the next 5 working days.
    4. Offer **three** slots, earliest first, each as `Day HH:MM-HH:MM (time zone)`.
    5. When the user picks one, create the event with a clear title and the purpose as the body.
    6. Confirm with the event link and the attendee list.

    ## Pitfalls
    - Never book over an existing event marked *busy*, even if it looks optional.
    - For attendees in other time zones, show both local times.
    """), at(180, 14, 2), used_before=at(70, 9, 40))

gap_skill("schedule-meeting", "Schedule a meeting with attendees at a time that suits everyone",
    md("""\
    # Schedule a meeting

    ## When to use
    The user asks to schedule, book or set up a meeting with other people.

    ## Steps
    1. Collect attendees, topic and duration.
    2. Look up free time with the calendar MCP server for the coming week.
    3. Propose two or three options and wait for the user's choice.
    4. Send the invite and report the final time and the attendee list.
    """), DREAM_GAP)

agent_skill("daily-standup", "Post a short daily standup from yesterday's commits and tickets",
    md("""\
    # Daily standup
    1. List yesterday's merged PRs (`mcp/github`).
    2. List tickets moved to Done.
    3. Post *Yesterday / Today / Blockers* to #team-standup.
    """), at(3, 8, 41))

agent_skill("write-report", "Write a short status report", md("""\
    # Write a report
    Collect the facts, write a summary paragraph, then bullet points. Keep it under one page.
    """), at(120, 16, 20), used_before=at(80, 10, 5))

agent_skill("weekly-review", "Weekly review of goals, open loops and next week's priorities",
    md("""\
    # Weekly review

    ## When to use
    Friday afternoon, or whenever the user asks to "close the week".

    ## Steps
    1. Pull this week's calendar and completed tasks.
    2. List open loops: unanswered email threads older than 3 days, overdue tasks.
    3. Compare against the quarterly goals stored in memory (`project-context/goals`).
    4. Propose the top three priorities for next week and ask the user to confirm.

    ## Checklist
    - [ ] Inbox below 20 unread
    - [ ] Every meeting this week has notes
    - [ ] Next week's calendar has two focus blocks
    - [ ] Expenses submitted
    """), at(60, 15, 30), pool=False)

# ---------------------------------------------------------------- mcp/

dream_skill("mcp/email", "Read, search, summarize and send email through the calendar-mcp server",
            md("""\
    # Email via MCP

    ## When to use
    The user wants to read, search, summarize or send email from the work or personal account.

    ## Steps
    1. Call `mcp_get_service_details` for `calendar-mcp` to confirm the parameters of
       `search_emails`, `get_email_details` and `send_email`.
    2. Search with an explicit `accountId` (`work` unless the user names another account; the
       id is in memory) and a narrow `query`.
    3. For summaries fetch at most 10 messages with `get_email_details`; list sender, subject
       and the ask, **action items first**.
    4. Before `send_email`, read the draft back to the user and wait for an explicit yes.

    ## Query cheatsheet
    | want | query |
    |---|---|
    | unread today | `is:unread newer_than:1d` |
    | from a person | `from:dana@example.com` |
    | with attachment | `has:attachment` |
    | one thread | `subject:"vendor contract"` |

    ## Pitfalls
    - `accountId is required` errors mean step 2 skipped the account.
    - Never send on the user's behalf without confirmation.
    """), at(200, 13, 22), DREAM_2, ["mcp/calendar", "writing/email-reply", "schedule-meeting"])

dream_skill("mcp/calendar", "Look up free/busy time and create or move calendar events via MCP",
            md("""\
    # Calendar via MCP

    ## When to use
    Anything that reads or changes the user's calendar: free/busy, invites, moving events.

    ## Steps
    1. `mcp_get_service_details` on `calendar-mcp` for `get_calendar_events`,
       `find_free_slots` and `create_event`.
    2. Always pass `accountId` and an explicit `timeZone` (the user's zone from memory).
    3. Read events for the requested range; treat *tentative* as busy.
    4. To create or move an event, restate title, time, attendees and wait for a yes.
    5. Report the result with the event link.

    ## Pitfalls
    - Date ranges are end-exclusive: ask for `[Mon 00:00, Sat 00:00)` to cover a work week.
    - Recurring events: change one occurrence unless the user says "all".
    """), at(198, 10, 3), DREAM_2, ["mcp/email", "plan-meeting"])

agent_skill("mcp/weather", "Current weather and forecast for a city", md("""\
    # Weather
    Call `weather-mcp` `get_forecast` with the city name. Mention rain.
    """), at(150, 7, 12), used_before=at(75, 7, 30))

agent_skill("mcp/github",
            "Review pull requests, issues and CI status through the GitHub MCP server",
            md("""\
    # GitHub via MCP

    ## When to use
    The user asks about pull requests, issues, releases or CI runs in the team's repositories.

    ## Steps
    1. Confirm the repository as `owner/name`; the default is `acme/shop` (see memory).
    2. Use `list_pull_requests` with `state=open` and sort by `updated`.
    3. For a review summary call `get_pull_request_diff` and summarise per file: what changed,
       risk, missing tests.
    4. For CI failures call `list_workflow_runs`, then `get_job_logs` for the first failing job;
       quote the first error line, not the whole log.

    ## Example
    ```text
    mcp_invoke_tool server=github-mcp tool=list_pull_requests
      {"repo": "acme/shop", "state": "open", "sort": "updated"}
    ```

    ## Pitfalls
    - The server is rate limited (5000 calls/hour); batch questions.
    - Never merge or close anything without an explicit instruction.
    """), at(90, 11, 48))

agent_skill("mcp/drive", "Find, read and share documents in the shared drive via MCP", md("""\
    # Shared drive via MCP

    ## When to use
    The user refers to a document, spreadsheet or folder in the company drive.

    ## Steps
    1. `search_files` with the title words and `modifiedAfter` when the user gives a period.
    2. If several files match, list title, owner and modified date and ask which one.
    3. Read with `export_file` as Markdown (documents) or CSV (sheets).
    4. Sharing: use `share_file` with role `reader` unless the user asks for edit rights.

    ## Pitfalls
    - Files shared *with* the user are not in "My Drive"; search `sharedWithMe=true` too.
    """), at(70, 9, 5))

agent_skill("mcp/slack", "Post updates and search channel history through the Slack MCP server",
            md("""\
    # Slack via MCP

    ## When to use
    Posting a status update, incident note or standup; finding what was said in a channel.

    ## Steps
    1. Resolve the channel name to an id with `list_channels` (cache it in working memory).
    2. Post with `post_message`; use threads for follow-ups (`thread_ts`).
    3. For searches use `search_messages` with `in:#channel` and a date range.

    ## Formatting
    Slack uses *mrkdwn*: `*bold*`, `_italic_`, `<https://example.com|link text>`.
    """), at(45, 14, 55))

# ---------------------------------------------------------------- research/

dream_skill("research/guide",
            "When to use which research skill: search, summarize, compare, fact-check",
            md("""\
    # Research skills: which one when

    Use this guide to pick the right research procedure.

    | situation | skill |
    |---|---|
    | find sources on a topic | `research/literature-search` |
    | one academic paper to digest | `research/summarize-paper` |
    | one news or blog article | `research/summarize-article` |
    | several sources disagree | `research/compare-sources` |
    | a single claim to verify | `research/fact-check` |

    ## General rules
    1. Always keep the URL or DOI of every source you use.
    2. Prefer primary sources over summaries of them.
    3. Say how confident you are and why.
    """), DREAM_1, DREAM_1, ["research/literature-search", "research/summarize-paper",
                             "research/summarize-article", "research/compare-sources",
                             "research/fact-check"])

agent_skill("research/summarize-paper",
            "Summarize an academic paper: question, method, results, limits",
            md("""\
    # Summarize a research paper

    ## When to use
    The user shares a PDF, arXiv link or DOI and wants the gist.

    ## Steps
    1. Fetch the abstract page with `web_browse`; for arXiv use the `/abs/` URL, not the PDF.
    2. Extract: research question, method, data set, main result (with numbers), limitations.
    3. Write five bullets in that order, then one line "Why it matters for you".
    4. Add the citation: authors (first three + et al.), title, venue, year, link.

    ## Pitfalls
    - Do not invent numbers that are only in figures you could not read; say so instead.
    """), at(160, 20, 11), edited=at(70, 8, 30))

agent_skill("research/summarize-article",
            "Summarize a web article in five bullets with the source link",
            md("""\
    # Summarize an article

    ## When to use
    The user shares a news article, blog post or report page and wants a summary.

    ## Steps
    1. Open the page with `web_browse` and strip navigation and ads.
    2. Write five bullets: the claim, the evidence, who says so, what is new, what is missing.
    3. End with the link and the publication date.
    """), at(140, 18, 2))

agent_skill("research/literature-search",
            "Find recent papers on a topic via Semantic Scholar and arXiv",
            md("""\
    # Literature search

    ## When to use
    "What is the latest research on X?", or before writing anything that needs citations.

    ## Steps
    1. Turn the topic into 2-3 queries (synonyms, the field's own terms).
    2. Query the Semantic Scholar API with `web_browse`
       (`/graph/v1/paper/search?query=...&fields=title,year,citationCount,url`).
    3. Query arXiv listing pages for the last 12 months.
    4. Merge, drop duplicates, rank by (year, citations).
    5. Present a table and offer to summarize the top three with `research/summarize-paper`.

    | # | title | year | citations | link |
    |---|---|---|---|---|
    | 1 | ... | 2026 | 41 | ... |

    See the [Semantic Scholar API docs](https://api.semanticscholar.org/api-docs/).
    """), at(110, 10, 15))

dream_skill("research/fact-check", "Verify a claim against primary sources and rate confidence",
            md("""\
    # Fact-check a claim

    ## When to use
    The user asks "is it true that ...", or a draft contains a surprising number.

    ## Steps
    1. Restate the claim as one checkable sentence (who, what, when, how much).
    2. Search for the primary source (statistics office, paper, filing, official statement).
    3. Look for at least one independent confirmation.
    4. Rate it: **true**, **mostly true**, **misleading**, **false** or **unverifiable**.
    5. Give the verdict first, then the sources with links.

    ## Source credibility
    - Prefer sources with a named author, a date and a correction policy.
    - A press release is a claim, not a confirmation.
    """), at(125, 9, 50), DREAM_1,
            ["research/compare-sources", "research/source-credibility"])

agent_skill("research/compare-sources",
            "Compare what several sources say and show where they disagree",
            md("""\
    # Compare sources

    ## When to use
    Two or more sources give different answers, numbers or recommendations.

    ## Steps
    1. List each source with its date and who published it.
    2. Build a comparison table: one row per claim, one column per source.
    3. Mark disagreements and explain likely causes (date, definition, method).
    4. Say which source you would trust for this question and why.
    """), at(100, 16, 40))

# ---------------------------------------------------------------- web/

agent_skill("web/dotnet-docs", "Look up .NET API docs on learn.microsoft.com and quote examples",
            md("""\
    # .NET documentation lookup

    ## When to use
    Questions about a .NET type, method, NuGet package or configuration option.

    ## Steps
    1. Search with `web_search` limited to `site:learn.microsoft.com`.
    2. Open the API page with `web_browse`; check the version selector matches the
       user's target framework (e.g. `net9.0`).
    3. Quote the signature and the smallest working example.
    4. Link the page: [API browser](https://learn.microsoft.com/dotnet/api/).

    ```csharp
    var options = new JsonSerializerOptions { WriteIndented = true };
    string json = JsonSerializer.Serialize(value, options);
    ```
    """), at(130, 13, 7))

agent_skill("web/python-docs", "Answer Python standard library questions from docs.python.org",
    md("""\
    # Python documentation lookup

    ## When to use
    Questions about a Python built-in, standard library module or language feature.

    ## Steps
    1. Open `https://docs.python.org/3/library/<module>.html` directly when the module is known,
       else search `site:docs.python.org`.
    2. Check the "Added in version" and "Changed in version" notes against the user's Python.
    3. Answer with a runnable snippet:

    ```python
    from pathlib import Path

    for path in sorted(Path("reports").glob("*.csv")):
        print(path.name, path.stat().st_size)
    ```

    4. Link the section, e.g. [pathlib](https://docs.python.org/3/library/pathlib.html).
    """), at(85, 10, 12))

agent_skill("web/price-check", "Check the current price of a product", md("""\
    # Price check
    Search the product name, open two shops, report the lowest price with links.
    """), at(75, 19, 33))

agent_skill("web/news-digest", "Morning news digest on the user's topics with links", md("""\
    # News digest

    ## When to use
    The user asks "what's new in ..." or a scheduled morning briefing.

    ## Steps
    1. Read the user's topics from memory (`user-preferences`).
    2. `web_search` each topic for the last 24 hours.
    3. Drop duplicates and opinion pieces unless asked.
    4. Write at most 7 items: **headline** - one sentence - link.
    5. End with "Anything you want me to dig into?"
    """), at(55, 6, 45))

agent_skill("web/scrape-table", "Extract an HTML table from a web page into CSV", md("""\
    # Scrape a table from a page

    ## When to use
    The user wants data that sits in a table on a public web page.

    ## Steps
    1. Fetch the page with `web_browse` and confirm the table is in the HTML (not drawn by script).
    2. Run the extraction with `execute_python_script`:

    ```python
    import io
    import pandas as pd

    tables = pd.read_html(io.StringIO(page_html))
    table = max(tables, key=len)
    print(table.to_csv(index=False))
    ```

    3. Show the first 10 rows and the row count; offer the CSV.

    ## Pitfalls
    - Respect robots.txt and the site's terms; do not scrape behind a login.
    """), at(40, 15, 20))

# ---------------------------------------------------------------- scripts/

agent_skill("scripts/csv-processing", "Python script to clean, filter and aggregate CSV files",
    md("""\
    # CSV processing script

    ## When to use
    The user uploads or links a CSV and wants it cleaned, filtered or aggregated.

    ## Steps
    1. Load the file into working memory and pass it as `input_data`.
    2. Run this script with `execute_python_script` (adapt column names):

    ```python
    import csv, io, json, statistics
    rows = list(csv.DictReader(io.StringIO(input_data)))
    clean = [r for r in rows if r.get("amount") not in (None, "", "n/a")]
    for r in clean:
        r["amount"] = float(r["amount"].replace(",", ""))
    by_cat = {}
    for r in clean:
        by_cat.setdefault(r["category"], []).append(r["amount"])
    summary = {k: {"count": len(v), "total": round(sum(v), 2)} for k, v in by_cat.items()}
    print(json.dumps({"rows_in": len(rows), "rows_kept": len(clean), "by_category": summary}))
    ```

    3. Report rows dropped (rows_in - rows_kept) & the top 3 categories by total.
    4. If amounts look like "1.234,56" (EU format) swap separators before float().

    ## Pitfalls
    - Scripts time out after 60 s; sample large files first.
    - Values < 0 are refunds - keep them unless the user says otherwise.
    """), at(170, 8, 30), edited=at(50, 17, 44))

agent_skill("scripts/excel-cleanup", "Normalize messy Excel sheets: headers, dates, merged cells",
    md("""\
    # Excel cleanup

    ## When to use
    A spreadsheet export has merged header rows, mixed date formats or totals inside the data.

    ## Steps
    1. Read every sheet with pandas (`sheet_name=None`) and show the sheet names.
    2. Pick the header row (first row with no empty cells); lower-case and snake_case the names.
    3. Parse dates with `dayfirst=True` for EU sources; report how many failed.
    4. Drop subtotal rows (rows where the first column contains "total").
    5. Return a clean CSV per sheet and a short change log.

    ```python
    import pandas as pd
    sheets = pd.read_excel(path, sheet_name=None, header=None)
    ```
    """), at(100, 11, 0))

agent_skill("scripts/chart-from-data", "Turn a small table into a PNG chart with matplotlib",
    md("""\
    # Chart from data

    ## When to use
    The user asks for a chart, graph or plot of data already in the conversation.

    ## Steps
    1. Pick the chart: line for time series, bar for categories, scatter for two measures.
    2. Run with `execute_python_script`:

    ```python
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=150)
    ax.bar(labels, values)
    ax.set_title(title)
    ax.set_ylabel(unit)
    fig.tight_layout()
    fig.savefig("/output/chart.png")
    ```

    3. Return the image and one sentence on what it shows.

    ## Style
    - Label axes with units; start bar charts at zero.
    - No more than 7 colours; sort bars by value unless the order means something.
    """), at(80, 14, 25))

agent_skill("scripts/pdf-extract", "Extract text and tables from a PDF with pdfplumber", md("""\
    # Extract text and tables from a PDF

    ## Steps
    1. Pass the PDF bytes as `input_file`.
    2. Run:

    ```python
    import pdfplumber
    with pdfplumber.open(input_file) as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            print(f"--- page {number} ---")
            print(page.extract_text() or "")
            for table in page.extract_tables():
                print(table)
    ```

    3. Scanned PDFs return no text: tell the user OCR is needed.
    """), at(50, 10, 10))

agent_skill("scripts/json-transform", "Reshape JSON data: flatten, filter and convert to CSV",
    md("""\
    # JSON transform

    ## When to use
    An API response or export needs flattening or filtering before analysis.

    ## Steps
    1. Show the top-level keys and one sample record.
    2. Flatten nested objects with `pandas.json_normalize` (separator `.`).
    3. Keep only the fields the user asked for; rename them to plain words.
    4. Output CSV, or JSON Lines for more than 10 000 records.
    """), at(35, 16, 50), pool=False)

# ---------------------------------------------------------------- writing/

agent_skill("writing/blog-post", "Draft a blog post from notes: outline first, then sections",
    md("""\
    # Blog post from notes

    ## When to use
    The user has notes, a talk or a thread and wants a publishable post.

    ## Steps
    1. Ask for the audience and the one thing readers should take away.
    2. Propose a title and an outline (H2 per section) and wait for approval.
    3. Write each section: claim, example, transition. 800-1200 words in total.
    4. Add a summary box at the top and a call to action at the end.
    5. Run `writing/proofread` on the result.

    > Tip: a concrete example beats an abstract explanation every time.
    """), at(120, 19, 0))

dream_skill("writing/email-reply", "Draft a reply to an email thread in the user's tone",
            md("""\
    # Draft an email reply

    ## When to use
    The user asks to answer, decline, follow up on or acknowledge an email.

    ## Steps
    1. Read the whole thread with `mcp/email` (not only the last message).
    2. Find the ask: question, request, deadline.
    3. Draft: greeting, answer first, details, next step, sign-off. Under 150 words.
    4. Match the user's tone (memory: *short, friendly, no exclamation marks*).
    5. Show the draft and send only after an explicit yes.
    """), at(150, 8, 15), DREAM_2, ["mcp/email"])

agent_skill("writing/meeting-notes",
            "Turn a meeting transcript into notes with decisions and actions",
            md("""\
    # Meeting notes from a transcript

    ## Steps
    1. Identify the attendees and the meeting goal.
    2. Write three sections: **Decisions**, **Action items**, **Open questions**.
    3. Action items as a task list with owner and due date:

    - [ ] Send the revised budget - Dana - Friday
    - [ ] Book the venue - Priya - next week

    4. Keep it under one screen; link the recording if there is one.
    """), at(130, 12, 0))

agent_skill("writing/release-notes", "Write user-facing release notes from merged pull requests",
            md("""\
    # Release notes

    ## Steps
    1. List PRs merged since the last tag (`mcp/github`).
    2. Group them: **New**, **Improved**, **Fixed**; drop internal refactors.
    3. One line per change in user language, with the PR number.
    4. Put breaking changes first, in bold, with a migration hint.
    """), at(60, 16, 5), pool=False)

agent_skill("writing/proofread", "Proofread text for grammar, clarity and consistency", md("""\
    # Proofread

    ## When to use
    The user pastes text and asks to proofread, check or polish it.

    ## Steps
    1. Ask which variant to use (US or British English) if it is not obvious.
    2. Fix spelling, grammar and punctuation; keep the author's voice.
    3. Flag (do not silently change) statements that look factually wrong.
    4. Return the corrected text, then a short list of the main changes.
    """), at(110, 9, 25))

agent_skill("writing/copy-edit", "Copy-edit a text: fix grammar, tighten wording, keep the voice",
            md("""\
    # Copy-edit

    ## When to use
    The user wants a text checked and tightened before it is published.

    ## Steps
    1. Fix grammar, spelling and punctuation.
    2. Cut filler words and shorten long sentences (aim for 20 words or fewer).
    3. Keep terminology consistent; keep the author's voice.
    4. Return the edited text and a list of changes.
    """), at(45, 10, 30))

# ---------------------------------------------------------------- devops/

agent_skill("devops/deploy-checklist", "Pre- and post-deploy checklist for the shop services",
    md("""\
    # Deploy checklist

    ## When to use
    Before and after every production deploy of the shop services.

    ## Before
    - [ ] CI is green on the release commit
    - [ ] Database migrations reviewed and backwards compatible
    - [ ] Feature flags for risky changes default to **off**
    - [ ] On-call engineer knows the deploy window

    ## Deploy
    ```bash
    kubectl -n shop set image deploy/checkout checkout=registry.acme.io/checkout:${VERSION}
    kubectl -n shop rollout status deploy/checkout --timeout=5m
    ```

    ## After
    - [ ] Error rate below 1% for 15 minutes (dashboard *Shop / Golden signals*)
    - [ ] Smoke test: place a test order
    - [ ] Post the version and time in #deploys
    """), at(140, 15, 10))

dream_skill("devops/incident-triage",
            "First 15 minutes of an incident: scope, severity, mitigation",
            md("""\
    # Incident triage

    ## When to use
    Alerts fire, users report errors, or a deploy went wrong.

    ## Steps
    1. Scope: which service, since when, how many users? Check the error-rate dashboard.
    2. Set the severity:

    | severity | meaning | response |
    |---|---|---|
    | SEV1 | checkout or login down for everyone | page on-call now, status page |
    | SEV2 | a feature broken or degraded for many | on-call within 15 min |
    | SEV3 | minor, workaround exists | ticket, next working day |

    3. Open a thread in #incidents: what, impact, severity, who leads.
    4. Mitigate before you debug: roll back (`devops/rollback`) if a deploy happened in the last
       hour.
    5. Then find the cause with `devops/log-search` and `devops/k8s-pod-debug`.
    6. Post an update every 30 minutes until resolved.
    """), at(135, 22, 40), DREAM_2,
            ["devops/log-search", "devops/k8s-pod-debug", "devops/rollback"])

agent_skill("devops/k8s-pod-debug", "Debug crashing or pending Kubernetes pods step by step",
    md("""\
    # Debug a Kubernetes pod

    ## Steps
    1. `kubectl -n <ns> get pods -o wide` - note the status and restarts.
    2. Status decides the next step:

    | status | look at |
    |---|---|
    | `CrashLoopBackOff` | `kubectl logs <pod> --previous` |
    | `Pending` | `kubectl describe pod <pod>` events (resources, node selector) |
    | `ImagePullBackOff` | image tag and registry credentials |
    | `OOMKilled` | memory limit vs. actual use (`kubectl top pod`) |

    3. Compare with the last working ReplicaSet: `kubectl rollout history deploy/<name>`.
    4. Never `kubectl delete` pods in production without saying so first.

    Reference: [Debug Pods](https://kubernetes.io/docs/tasks/debug/debug-application/debug-pods/).
    """), at(100, 13, 45))

agent_skill("devops/log-search", "Search service logs in Loki for errors around an incident",
    md("""\
    # Log search (Loki)

    ## Steps
    1. Narrow the time range to the incident window plus 10 minutes before.
    2. Start broad, then filter:

    ```logql
    {namespace="shop", app="checkout"} |= "error" | json | status >= 500
    ```

    3. Count by error message to find the dominant one:

    ```logql
    sum by (msg) (count_over_time({app="checkout"} |= "error" | json [5m]))
    ```

    4. Quote at most 5 representative lines, with timestamps.
    """), at(95, 10, 20))

agent_skill("devops/rollback", "Roll back a Kubernetes deployment to the previous revision", md("""\
    # Roll back a deployment

    ## Steps
    1. Confirm with the user which service and that a rollback is wanted.
    2. Show the history: `kubectl -n shop rollout history deploy/<name>`.
    3. Roll back: `kubectl -n shop rollout undo deploy/<name>`.
    4. Wait: `kubectl -n shop rollout status deploy/<name> --timeout=5m`.
    5. Check the error rate recovered; post in #deploys and #incidents.

    ## Pitfalls
    - A rollback does not undo database migrations.
    """), at(90, 17, 0))

agent_skill("devops/cert-renewal", "Renew a TLS certificate", md("""\
    # Cert renewal
    Check expiry with openssl, renew with cert-manager, verify.
    """), at(200, 11, 10), used_before=at(105, 9, 0))

# ---------------------------------------------------------------- finance/

agent_skill("finance/invoice-check",
            "Check a supplier invoice against the PO, VAT and payment terms",
            md("""\
    # Check a supplier invoice

    ## Steps
    1. Find the purchase order number on the invoice; fetch the PO from the drive.
    2. Compare line items, quantities and unit prices; list every difference.
    3. Check the VAT rate and that the total includes VAT (see `finance/vat-calc`).
    4. Check the payment terms (default 30 days net) and the bank details against the
       supplier master data - **changed bank details are a fraud signal**.
    5. Verdict: approve, query the supplier, or escalate to Dana.
    """), at(120, 9, 0))

agent_skill("finance/budget-variance",
            "Compare actuals with budget per cost center and explain gaps",
            md("""\
    # Budget variance

    ## Steps
    1. Load the budget and the actuals export (CSV) with `scripts/csv-processing`.
    2. Join on cost center and month.
    3. Compute variance = actual - budget and variance % = variance / budget.
    4. Flag lines over **10%** or over 5 000 EUR.
    5. For each flagged line, list the three largest transactions.

    | cost center | budget | actual | variance | % |
    |---|---:|---:|---:|---:|
    | 4100 Marketing | 20 000 | 23 400 | 3 400 | 17% |
    """), at(90, 14, 30))

agent_skill("finance/monthly-close", "Month-end close checklist for the small finance team", md("""\
    # Monthly close

    ## Checklist
    - [ ] All supplier invoices of the month booked
    - [ ] Bank accounts reconciled
    - [ ] Accruals for unbilled services
    - [ ] Card transactions categorised (`scripts/csv-processing`)
    - [ ] Budget variance report sent (`finance/budget-variance`)
    - [ ] VAT return prepared (due on the 10th)

    ## Steps
    1. Work through the checklist in order; report what is blocked and by whom.
    2. Send Dana the summary by the 5th working day.
    """), at(80, 8, 50))

agent_skill("finance/vat-calc", "Calculate VAT amounts and gross/net prices for EU countries",
    md("""\
    # VAT calculation

    ## Formulas
    - gross = net x (1 + rate)
    - net = gross / (1 + rate)
    - VAT = gross - net

    ## Standard rates (check before use: rates change)
    | country | rate |
    |---|---|
    | Germany | 19% |
    | France | 20% |
    | Netherlands | 21% |
    | Portugal | 23% |

    Round per line, not on the total, unless the invoice says otherwise.
    """), at(60, 11, 40), pool=False)

agent_skill("finance/fx-convert", "Convert an amount between currencies", md("""\
    # FX convert
    Use the ECB reference rate of the transaction date. Show both amounts and the rate.
    """), at(40, 16, 0))

# ---------------------------------------------------------------- travel/

agent_skill("travel/book-flight",
            "Find and compare flights, then hold the best option for approval",
            md("""\
    # Book a flight

    ## Steps
    1. Collect: from, to, dates, flexible +/- days, cabin, checked bag, loyalty number.
    2. Search two sources; compare in a table:

    | option | depart | arrive | stops | price | bag |
    |---|---|---|---|---:|---|
    | A | 07:10 | 09:55 | 0 | 212 EUR | yes |

    3. Check the travel policy: economy under 4 hours, no basic fares without a bag.
    4. Hold the chosen option (do not pay) and ask for approval.
    5. After booking, add the flight to the calendar with `mcp/calendar`.
    """), at(150, 17, 45))

agent_skill("travel/itinerary", "Build a day-by-day trip itinerary with bookings and buffers",
    md("""\
    # Trip itinerary

    ## Steps
    1. Collect all bookings (flights, hotels, trains) from email.
    2. One section per day: transport, meetings, hotel, with local times.
    3. Add buffers: 2 h before international flights, 45 min between meetings in different
       buildings.
    4. Packing list:
       - [ ] passport / ID
       - [ ] adapters
       - [ ] laptop charger
    5. Put the itinerary in the calendar as all-day notes.
    """), at(120, 20, 30))

agent_skill("travel/visa-check", "Check passport and visa requirements for a destination", md("""\
    # Visa check

    ## Steps
    1. Ask for nationality, destination, purpose (business or tourism) and length of stay.
    2. Check the destination's official government site, not a visa agency.
    3. Note passport validity rules (often 6 months beyond the stay).
    4. Give the answer with the link and the date you checked.
    """), at(70, 9, 15), pool=False)

PHRASES = [
    ("English", "Deutsch", "Fran\u00e7ais", "Portugu\u00eas", "日本語"),
    ("---", "---", "---", "---", "---"),
    ("Hello", "Grüß Gott / Hallo", "Bonjour", "Olá", "こんにちは"),
    ("Thank you", "Danke schön", "Merci beaucoup", "Obrigado / Obrigada", "ありがとうございます"),
    ("The bill, please", "Die Rechnung, bitte", "L'addition, s'il vous plaît",
     "A conta, por favor", "お会計お願いします"),
    ("Where is the station?", "Wo ist der Bahnhof?", "Où est la gare ?",
     "Onde fica a estação?", "駅はどこですか？"),
]
agent_skill("travel/phrasebook",
            "Essential travel phrases in German, French, Portuguese and Japanese",
            md("""\
    # Travel phrasebook 🧳

    ## When to use
    Before a trip, or when the user asks "how do I say ..." for a common situation.

    """) + "".join("| " + " | ".join(row) + " |\n" for row in PHRASES) + "\n" + md("""\
    ## Notes
    - In France a space goes before `?` and `!` (« espace insécable »).
    - Prices: 12,50 € in Germany, France and Portugal; ¥1,200 in Japan.
    - Tipping: 5–10 % in Germany, service compris in France, none in Japan ✈️
    """), at(90, 21, 5))

agent_skill("travel/expense-report", "", md("""\
    # Expense report for a trip

    ## When to use
    After a business trip, to turn receipts into an expense report.

    ## Steps
    1. Ask for the trip dates and project code.
    2. Collect receipts from email (search 'receipt' between the trip dates).
    3. Build a table: date, merchant, category, amount, currency.
    4. Convert currencies at the rate of the receipt date (`finance/fx-convert`).
    """), at(0, 11, 20, 9), pool=False)

# ---------------------------------------------------------------- legacy/

agent_skill("legacy/fax-sender", "Send a PDF by fax through the old gateway", md("""\
    # Send a fax
    Use the (retired) fax gateway REST tool 'fax_send' with number and PDF url.
    Check status after 5 minutes.
    """), Timestamp.parse("2025-01-10T10:10:10.1+00:00"),
    used_before=Timestamp.parse("2025-04-10T13:45:00.25+00:00"), pool=False)

agent_skill("legacy/print-labels", "Print shipping labels on the warehouse label printer", md("""\
    # Print shipping labels

    ## Steps
    1. Export the day's orders as CSV from the shop admin.
    2. Send them to the label service with `mcp_invoke_tool` (`labels-mcp`, `print_batch`).
    3. Check the printer queue; reprint failed labels one by one.
    """), Timestamp.parse("2025-06-01T08:00:00.3+00:00"), pool=False)

SKILL_BY_KEY = {fold(s.name): s for s in SKILLS}


# ====================================================================== sessions

CORRECTION_RE = re.compile(  # UserMessageHandler's pattern (spec §9.2), .NET \b semantics
    r"\b(no[,\s]|that'?s?\s+(wrong|incorrect|not right)|you were wrong|actually[,\s]"
    r"|that didn'?t work|try again)\b", re.IGNORECASE)
THUMBS_UP_TURN = ("[The user indicated the previous response was helpful \u2014 reinforce this "
                  "approach.]")
CORRECTION, TOOL_FAILURE, SESSION_SUMMARY, THUMBS_UP, THUMBS_DOWN = range(5)


@dataclass
class Session:
    """One session id's events: usage, feedback and (recent sessions only) logged turns."""

    id: str
    usage: list[tuple[Timestamp, str]] = field(default_factory=list)
    feedback: list[tuple[Timestamp, int, str, str]] = field(default_factory=list)
    turns: list[tuple[Timestamp, str, str]] = field(default_factory=list)
    conversation: bool = False  # write conversations/<id>.json

    def use(self, ts: Timestamp, name: str) -> None:
        key = fold(name)
        if key in SKILL_BY_KEY:
            assert SKILL_BY_KEY[key].created.utc_ticks < ts.utc_ticks, (name, ts)
        self.usage.append((ts, name))

    def signal(self, ts: Timestamp, kind: int, summary: str, detail: str) -> None:
        self.feedback.append((ts, kind, summary, detail))


SESSIONS: dict[str, Session] = {}


def session(session_id: str) -> Session:
    if session_id not in SESSIONS:
        SESSIONS[session_id] = Session(session_id)
    return SESSIONS[session_id]


def client_session_id() -> str:
    return f"session-{rng.getrandbits(32):08x}"


def message_id() -> str:
    return f"{rng.getrandbits(64):016x}"


def evaluator_json(summary: str, worked: Sequence[str], failed: Sequence[str], corrections: int,
                   quality: str) -> str:
    """The session evaluator's raw JSON reply, as the LLM formats it (2-space indent)."""
    return json.dumps({"summary": summary, "toolsWorkedWell": list(worked),
                       "toolsFailedOrMissed": list(failed), "correctionsMade": corrections,
                       "overallQuality": quality}, indent=2, ensure_ascii=False)


def add_summary(s: Session, ts: Timestamp, summary: str, worked: Sequence[str],
                failed: Sequence[str], corrections: int, quality: str) -> None:
    s.signal(ts, SESSION_SUMMARY, summary,
             evaluator_json(summary, worked, failed, corrections, quality))


def add_thumb(s: Session, ts: Timestamp, up: bool) -> None:
    if up:
        s.signal(ts, THUMBS_UP, "User marked reply as helpful",
                 f"MessageId={message_id()}, Agent=RockBot")
    else:
        s.signal(ts, THUMBS_DOWN, "User marked reply as unhelpful",
                 f"MessageId={message_id()}, Agent=RockBot")


def add_correction(s: Session, ts: Timestamp, message: str) -> None:
    assert CORRECTION_RE.search(message), message
    s.signal(ts, CORRECTION, "User message detected as a correction", message[:200])


# ---------------------------------------------------------------- generated history

# Skill clusters a session draws from (weight, [(skill, weight), ...]): they make the co-use
# heatmap show clear blocks. Near-duplicates often come together (COMPANIONS).
CLUSTERS: dict[str, tuple[float, list[tuple[str, float]]]] = {
    "mail": (5, [("mcp/email", 6), ("mcp/calendar", 5), ("plan-meeting", 2.5),
                 ("schedule-meeting", 2), ("writing/email-reply", 2.5), ("scheduling", 1),
                 ("mcp", 1), ("memory", 1)]),
    "research": (3, [("research/literature-search", 3), ("research/summarize-paper", 3),
                     ("research/summarize-article", 3), ("research/compare-sources", 2),
                     ("research/fact-check", 2), ("web", 2), ("web/news-digest", 1),
                     ("research/guide", 1), ("writing/blog-post", 1)]),
    "data": (3, [("scripts/csv-processing", 5), ("scripts", 2), ("scripts/excel-cleanup", 2.5),
                 ("scripts/chart-from-data", 3), ("scripts/pdf-extract", 1.5),
                 ("finance/budget-variance", 1.5), ("web/scrape-table", 1)]),
    "finance": (2, [("finance/invoice-check", 4), ("finance/monthly-close", 2.5),
                    ("finance/budget-variance", 2.5), ("scripts/csv-processing", 1.5),
                    ("finance/fx-convert", 1), ("mcp/drive", 2)]),
    "devops": (3, [("devops/incident-triage", 3), ("devops/log-search", 3.5),
                   ("devops/k8s-pod-debug", 3), ("devops/rollback", 2),
                   ("devops/deploy-checklist", 2.5), ("mcp/github", 2), ("mcp/slack", 1.5)]),
    "writing": (2, [("writing/proofread", 3), ("writing/copy-edit", 3),
                    ("writing/meeting-notes", 2.5), ("writing/blog-post", 2),
                    ("write-report", 1), ("mcp/drive", 1)]),
    "travel": (1.5, [("travel/book-flight", 3), ("travel/itinerary", 3),
                     ("travel/phrasebook", 1.5), ("mcp/calendar", 1.5), ("mcp/weather", 1),
                     ("finance/fx-convert", 1)]),
    "docs": (2, [("web/dotnet-docs", 3), ("web/python-docs", 3), ("web", 2), ("scripts", 1),
                 ("mcp/github", 1.5), ("web/scrape-table", 1)]),
}
COMPANIONS = {"plan-meeting": "schedule-meeting", "schedule-meeting": "plan-meeting",
              "research/summarize-paper": "research/summarize-article",
              "research/summarize-article": "research/summarize-paper",
              "writing/proofread": "writing/copy-edit", "writing/copy-edit": "writing/proofread",
              "mcp/calendar": "mcp/email"}

GOOD = {
    "mail": ["Inbox summarized with clear action items; invite sent after confirmation.",
             "Found a slot that suited all attendees and sent the invite.",
             "Email thread summarized accurately and the reply matched the user's tone."],
    "research": ["Sources found quickly; the summaries were accurate and well cited.",
                 "Claim checked against the primary source with a clear verdict."],
    "data": ["CSV cleaned and aggregated; the chart answered the question.",
             "Spreadsheet normalized without losing rows; the change log was clear."],
    "finance": ["Invoice checked against the PO; the discrepancy was spotted.",
                "Variance report produced with the right flags."],
    "devops": ["Incident scoped fast; the rollback restored the error rate.",
               "Pod crash traced to a missing config value within minutes."],
    "writing": ["Text proofread with minimal changes and a useful change list.",
                "Meeting notes captured every decision and owner."],
    "travel": ["Flight options compared clearly and the itinerary was complete."],
    "docs": ["Answered with the right API version and a working snippet."],
}
BAD = {
    "mail": ["Invite went to the wrong attendee list; user had to redo it.",
             "Summary missed the only urgent email; the user had to ask again.",
             "Calendar lookup used the wrong time zone for the remote attendee."],
    "research": ["Summary quoted numbers that were not in the paper.",
                 "Relied on a secondary source; the user asked for the original."],
    "data": ["Script timed out on the full file; no sampling was tried first.",
             "EU number format was parsed wrongly, totals were off by 1000x."],
    "finance": ["Invoice total was checked without VAT; the user corrected it.",
                "Variance flagged the wrong cost centers after a bad join."],
    "devops": ["Logs were searched in the wrong namespace before the right one.",
               "Rollback was proposed before confirming a deploy had happened."],
    "writing": ["Proofreading changed the author's voice and American spellings.",
                "Notes missed two action items from the transcript."],
    "travel": ["Flight option ignored the checked-bag requirement."],
    "docs": ["Answer used an API from a newer framework version than the user's."],
}
TOOLS = {"mail": ["mcp_invoke_tool", "get_skill"], "research": ["web_search", "web_browse"],
         "data": ["execute_python_script"], "finance": ["execute_python_script", "mcp_invoke_tool"],
         "devops": ["mcp_invoke_tool", "execute_python_script"], "writing": ["get_skill"],
         "travel": ["web_search", "mcp_invoke_tool"], "docs": ["web_search", "web_browse"]}
FAILURES = {
    "mail": ("mcp_invoke_tool", "calendar-mcp/get_calendar_events: accountId is required"),
    "research": ("web_browse", "Response status code does not indicate success: 403 (Forbidden)."),
    "data": ("execute_python_script", "Script execution timed out after 60 seconds."),
    "finance": ("mcp_invoke_tool", "drive-mcp/export_file: file not found or access denied"),
    "devops": ("mcp_invoke_tool", "github-mcp/list_workflow_runs: API rate limit exceeded"),
    "writing": ("get_skill", "Skill 'writing/style-guide' not found."),
    "travel": ("web_search", "The operation was canceled."),
    "docs": ("web_browse", "The request was canceled due to the configured HttpClient.Timeout "
                           "of 100 seconds elapsing."),
}
CORRECTIONS = {
    "mail": ["no I meant the finance team in Berlin", "Actually the meeting is 45 minutes",
             "that's wrong, Priya is not on that thread", "try again with my work account"],
    "research": ["that's not right, the paper is from 2025",
                 "Actually I need peer-reviewed sources"],
    "data": ["that didn't work, the file has semicolons", "no the amounts are in EUR not USD"],
    "finance": ["that's wrong, the invoice total should include VAT",
                "no I meant cost center 4100"],
    "devops": ["try again in the shop namespace", "no it's the checkout service, not cart"],
    "writing": ["Actually keep British spelling", "that's wrong, the launch is next month"],
    "travel": ["no I need a checked bag", "Actually I fly back a day later"],
    "docs": ["that didn't work on .NET 8", "no I'm on Python 3.11"],
}

EVENT_LOG_DAYS = 64  # the usage log covers the 64 days before the anchor


def weighted(items: Sequence[tuple[str, float]]) -> str:
    names = [name for name, _ in items]
    weights = [weight for _, weight in items]
    return rng.choices(names, weights)[0]


def pick_cluster(allowed: Iterable[str] | None = None) -> str:
    keys = [k for k in CLUSTERS if allowed is None or k in allowed]
    return rng.choices(keys, [CLUSTERS[k][0] for k in keys])[0]


def visit(s: Session, cluster: str, start: Timestamp, evaluate: float = 0.55) -> Timestamp:
    """Some ``get_skill`` calls from one cluster (plus feedback); returns the last event time."""
    pool = [(n, w) for n, w in CLUSTERS[cluster][1]
            if SKILL_BY_KEY[fold(n)].created.utc_ticks < start.utc_ticks]
    count = rng.choice([2, 2, 3, 3, 3, 4, 4, 5, 6, 7])
    names: list[str] = []
    while len(names) < count and pool:
        name = weighted(pool)
        if name in names and rng.random() < 0.8:
            continue
        names.append(name)
        partner = COMPANIONS.get(name)
        if (partner and partner not in names and rng.random() < 0.55
                and any(partner == n for n, _ in pool)):
            names.append(partner)
    if rng.random() < 0.15:
        other = pick_cluster([k for k in CLUSTERS if k != cluster])
        extra = [(n, w) for n, w in CLUSTERS[other][1]
                 if SKILL_BY_KEY[fold(n)].created.utc_ticks < start.utc_ticks]
        if extra:
            names.append(weighted(extra))
    ts = start
    for name in names:
        ts = later(ts, 15, 420)
        s.use(ts, name)
    end = ts
    if rng.random() < evaluate:
        bad = rng.random() < 0.38
        quality = ("poor" if rng.random() < 0.4 else "fair") if bad else "good"
        corrections = 0
        if bad and rng.random() < 0.65:
            corrections = 1
            add_correction(s, later(start, 60, 600), rng.choice(CORRECTIONS[cluster]))
        failed: list[str] = []
        if bad and rng.random() < 0.45:
            tool, message = FAILURES[cluster]
            s.signal(later(start, 30, 500), TOOL_FAILURE, tool, message)
            failed.append(tool)
        if bad and quality == "poor" and rng.random() < 0.5:
            add_thumb(s, later(end, 5, 120), up=False)
        if not bad and rng.random() < 0.35:
            add_thumb(s, later(end, 5, 120), up=True)
        text = rng.choice(BAD[cluster] if bad else GOOD[cluster])
        worked = [t for t in ["get_skill", *TOOLS[cluster]] if t not in failed]
        add_summary(s, later(end, 31 * 60, 36 * 60), text, list(dict.fromkeys(worked)), failed,
                    corrections, quality)
    else:
        if rng.random() < 0.12:
            add_correction(s, later(start, 60, 600), rng.choice(CORRECTIONS[cluster]))
        elif rng.random() < 0.15:
            add_thumb(s, later(end, 5, 120), up=True)
    return end


def random_day(first: int, last: int, recent: bool = False) -> int:
    """A day (days before the anchor) in [last, first], weekdays four times as likely.

    ``recent`` skews towards the anchor (the user relies on the agent more and more).
    """
    while True:
        day = round(rng.triangular(last, first, last)) if recent else rng.randint(last, first)
        weekday = _MIDNIGHT.add_days(-day).to_datetime().weekday()
        if weekday < 5 or rng.random() < 0.25:
            return day


def generated_history() -> None:
    """Client sessions and visits of the two long-lived sessions, days 64..2 before the anchor."""
    blazor, cli = session("blazor-session"), session("cli-session")
    plans: list[tuple[Timestamp, Session, str]] = []
    for _ in range(62):
        day = random_day(EVENT_LOG_DAYS, 2, recent=True)
        plans.append((at(day, rng.randint(7, 21), rng.randrange(60)), session(client_session_id()),
                      pick_cluster()))
    for _ in range(24):
        day = random_day(EVENT_LOG_DAYS, 2)
        plans.append((at(day, rng.randint(7, 19), rng.randrange(60)), blazor,
                      pick_cluster(["mail", "research", "writing", "travel", "finance"])))
    for _ in range(13):
        day = random_day(EVENT_LOG_DAYS - 6, 2)
        plans.append((at(day, rng.randint(8, 22), rng.randrange(60)), cli,
                      pick_cluster(["data", "devops", "docs", "finance"])))
    plans.sort(key=lambda p: p[0].utc_ticks)
    for start, s, cluster in plans:
        long_lived = s.id in ("blazor-session", "cli-session")
        visit(s, cluster, start, evaluate=0.3 if long_lived else 0.6)


# ---------------------------------------------------------------- special cases


def special_cases() -> None:
    """Hand-placed events the demo must show."""
    # A usage of a skill that no longer exists (consolidated away on DREAM_2).
    s = session(client_session_id())
    t = at(13, 16, 40)
    s.use(t, "research/summarize-article")
    s.use(later(t, 60, 120), "old-meeting-notes")
    s.use(later(t, 200, 300), "writing/meeting-notes")
    # Case variants: the name exactly as the LLM spelled it (counted with the real skill).
    blazor = session("blazor-session")
    t = at(9, 8, 20)
    blazor.use(t, "MCP/Email")
    blazor.use(later(t, 20, 60), "schedule-meeting")
    s = session(client_session_id())
    t = at(17, 14, 5)
    s.use(t, "Research/Summarize-Paper")
    s.use(later(t, 40, 90), "research/summarize-article")
    add_summary(s, later(t, 40 * 60, 50 * 60), "Paper summary was accurate and well cited.",
                ["get_skill", "web_browse"], [], 0, "good")
    # At-risk: blazor-session (correction, then a fair evaluation) inside the 30-day window.
    t = at(5, 15, 2)
    blazor.use(t, "mcp/calendar")
    blazor.use(later(t, 25, 40), "plan-meeting")
    add_correction(blazor, later(t, 180, 200), "no I meant next week, not this one")
    add_summary(blazor, at(5, 16, 5), "Calendar lookups worked but the meeting was first "
                "booked on the wrong day.", ["mcp_invoke_tool"], [], 1, "fair")
    # A "No rush" request that RockBot's regex flags as a correction (a real false positive),
    # and a "no, ..." that its trailing \b lets through unflagged (spec §9.2).
    s = session(client_session_id())
    t = at(8, 10, 12)
    s.use(t, "finance/invoice-check")
    add_correction(s, later(t, 30, 60), "No rush, but can you also check the March invoice?")
    # Old no-skill sessions with feedback (outside the 14-day gap window) and one inside it.
    s = session(client_session_id())
    add_correction(s, at(20, 9, 3), "that's wrong, the office closes at 18:00")
    s = session(client_session_id())
    add_thumb(s, at(6, 18, 41), up=True)
    add_summary(s, at(6, 19, 20), "Recipe converted to metric and scaled correctly.",
                ["execute_python_script"], [], 0, "good")


# ---------------------------------------------------------------- recent sessions (logged)

Step = tuple[str, ...]


def story(s: Session, start: Timestamp, steps: Sequence[Step], conversation: bool = False) -> None:
    """A logged conversation: turns go to the conversation log, plus usage and feedback.

    Steps: ``("user", text)`` (a Correction is recorded when RockBot's regex matches),
    ``("assistant", text)``, ``("use", skill)``, ``("up",)``, ``("down",)``,
    ``("fail", tool, message)``, ``("eval", quality, summary, corrections)``.
    """
    ts = start
    failed: list[str] = []
    s.conversation = s.conversation or conversation
    for step in steps:
        kind = step[0]
        if kind == "user":
            ts = later(ts, 40, 240) if ts is not start else ts
            s.turns.append((ts, "user", step[1]))
            if CORRECTION_RE.search(step[1]):
                add_correction(s, later(ts, 0.005, 0.05), step[1])
        elif kind == "assistant":
            ts = later(ts, 8, 55)
            s.turns.append((ts, "assistant", step[1]))
        elif kind == "use":
            ts = later(ts, 2, 12)
            s.use(ts, step[1])
        elif kind == "fail":
            ts = later(ts, 2, 20)
            s.signal(ts, TOOL_FAILURE, step[1], step[2])
            failed.append(step[1])
        elif kind in ("up", "down"):
            ts = later(ts, 10, 90)
            add_thumb(s, ts, up=kind == "up")
            if kind == "up":
                s.turns.append((later(ts, 0.002, 0.02), "system", THUMBS_UP_TURN))
        elif kind == "eval":
            quality, text, corrections = step[1], step[2], int(step[3])
            worked = ["get_skill", "mcp_invoke_tool"] if s.usage else ["web_search"]
            add_summary(s, later(ts, 31 * 60, 38 * 60), text, worked, failed, corrections,
                        quality)
        else:
            raise ValueError(kind)


def recent_sessions() -> None:
    """The last day and a half: every turn is still in ``conversation-log/turns.jsonl``."""
    blazor, cli = session("blazor-session"), session("cli-session")
    ids = {key: client_session_id() for key in "ABCDEFGHIJKLNM"}
    story(session(ids["A"]), at(1, 8, 12), [
        ("user", "Draft an agenda for tomorrow's vendor review call with Acme Logistics."),
        ("assistant", "Draft agenda (60 min): 1. Introductions 2. Q3 delivery performance "
                      "3. Open incidents 4. Pricing for next year 5. Next steps."),
        ("user", "no, keep it to 30 minutes and put pricing first"),
        ("assistant", "Updated (30 min): 1. Pricing for next year (10) 2. Delivery performance "
                      "(10) 3. Open incidents (5) 4. Next steps (5)."),
        ("user", "Actually the call moved to 45 minutes, add a slot for the SLA review."),
        ("assistant", "Done: pricing 10, SLA review 10, delivery 10, incidents 10, next steps 5."),
    ])
    story(session(ids["B"]), at(1, 9, 30), [
        ("user", "Summarize the unread emails from the finance team."),
        ("use", "mcp/email"),
        ("assistant", "4 unread from finance: the invoice batch is approved, the VAT return is "
                      "due on the 10th, Dana needs the Q1 budget input, and a reminder about "
                      "expense cut-off."),
        ("eval", "good", "Finance emails summarized with the deadlines first.", 0),
    ])
    story(session(ids["C"]), at(1, 11, 2), [
        ("user", "Plan a meeting with Priya and Tom next week about the Berlin office move."),
        ("use", "mcp/calendar"), ("use", "plan-meeting"), ("use", "schedule-meeting"),
        ("assistant", "Three options: Tue 09:30-10:00, Wed 14:00-14:30, Thu 10:00-10:30 (CET). "
                      "Which one?"),
        ("user", "that's wrong, Tom is off all of next week. Try the week after."),
        ("use", "mcp/calendar"),
        ("assistant", "Week after: Mon 10:00-10:30 or Tue 15:00-15:30 (CET)."),
        ("down",),
        ("user", "Tuesday. And invite Priya's assistant too."),
        ("assistant", "Invite sent for Tue 15:00-15:30 CET to Priya, Tom and Lena."),
        ("eval", "fair", "Meeting booked, but the first proposals ignored Tom's leave.", 1),
    ])
    story(session(ids["D"]), at(1, 13, 15), [
        ("user", "Prepare an agenda for the design review and include the open questions from "
                 "last week's notes."),
        ("assistant", "Agenda: 1. Goals of the redesign 2. Open questions (checkout copy, "
                      "mobile nav, dark mode) 3. Decisions needed 4. Owners and dates."),
        ("user", "try again, the review is only 45 minutes and dark mode is out of scope"),
        ("assistant", "45-min agenda: goals (5), checkout copy (15), mobile nav (15), "
                      "decisions and owners (10)."),
    ])
    story(session(ids["E"]), at(1, 14, 40), [
        ("user", "The checkout service is returning 502s since the deploy, help me triage."),
        ("use", "devops/incident-triage"), ("use", "devops/log-search"),
        ("fail", "mcp_invoke_tool", "loki-mcp/query_range: query timed out after 30s"),
        ("use", "devops/log-search"), ("use", "devops/k8s-pod-debug"),
        ("assistant", "SEV2: checkout pods are OOMKilled since 14:21 (v2.14.0 raised the "
                      "cache size). Error rate 18%. Recommend rolling back now."),
        ("user", "Roll it back please."),
        ("use", "devops/rollback"),
        ("assistant", "Rolled back to v2.13.4; error rate is down to 0.3%. Posted in #incidents."),
        ("up",),
        ("eval", "good", "Incident scoped fast; the rollback restored the error rate.", 0),
    ])
    story(session(ids["F"]), at(1, 16, 5), [
        ("user", "Find recent papers on evaluating retrieval-augmented generation and "
                 "summarize the top three."),
        ("use", "research/literature-search"), ("use", "research/summarize-paper"),
        ("use", "research/summarize-paper"), ("use", "research/summarize-paper"),
        ("assistant", "Top three by citations this year, each with question, method, result and "
                      "limits, plus links."),
        ("eval", "good", "Relevant papers found; summaries accurate and cited.", 0),
    ])
    story(cli, at(1, 17, 30), [
        ("user", "Summarize yesterday's nginx error log and list the top 5 upstream failures."),
        ("use", "devops/log-search"), ("use", "scripts"),
        ("assistant", "2,314 errors; top upstreams: checkout (61%), cart (17%), search (9%), "
                      "auth (8%), images (5%)."),
    ], conversation=True)
    story(session(ids["G"]), at(1, 19, 20), [
        ("user", "Find flights to Lisbon for the conference next month and draft an "
                 "itinerary."),
        ("use", "travel/book-flight"), ("use", "travel/itinerary"), ("use", "mcp/calendar"),
        ("assistant", "Option A: direct, 07:10-09:55, 212 EUR with bag (held, not paid). "
                      "Itinerary drafted for 3 days with buffers."),
    ])
    story(session(ids["H"]), at(1, 21, 10), [
        ("user", "Convert this pasted recipe to metric units and scale it for 6 people."),
        ("assistant", "Scaled x1.5 and converted: 340 g flour, 225 ml milk, 2 eggs (+1 yolk), "
                      "85 g butter, oven 180 C."),
        ("up",),
    ])
    story(blazor, at(0, 7, 58), [
        ("user", "Summarize my unread emails from this morning and flag anything urgent."),
        ("use", "mcp/email"),
        ("assistant", "6 unread. Urgent: the contract renewal deadline is today at 17:00. "
                      "Needs action: Q1 budget sign-off from Dana, venue confirmation."),
        ("up",),
    ], conversation=True)
    story(session(ids["I"]), at(0, 8, 30), [
        ("user", "Clean up this CSV export of card transactions and total it by category."),
        ("use", "scripts/csv-processing"), ("use", "scripts/chart-from-data"),
        ("assistant", "412 rows in, 398 kept (14 empty amounts). Top: travel 3,940 EUR, "
                      "software 2,310 EUR, meals 1,105 EUR. Chart attached."),
        ("eval", "good", "CSV cleaned and aggregated; the chart answered the question.", 0),
    ])
    story(session(ids["J"]), at(0, 9, 45), [
        ("user", "Draft an agenda for the quarterly planning offsite with the finance leads."),
        ("assistant", "Two-day agenda drafted: day 1 review and budget, day 2 priorities and "
                      "owners. Want time slots?"),
    ])
    story(session(ids["K"]), at(0, 10, 20), [
        ("user", "Proofread the release announcement below and tighten it.\n\n"
                 "We are exited to announce that our new checkout is live! It's faster, "
                 "simpler and it supports more payment methods then before."),
        ("use", "writing/proofread"), ("use", "writing/copy-edit"),
        ("assistant", "We're excited to announce our new checkout: faster, simpler, and with "
                      "more payment methods than before. (Fixed: exited, then; tightened.)"),
        ("user", "Actually keep British spelling, it goes to the UK list."),
        ("assistant", "Kept British spelling throughout; no other changes needed."),
        ("eval", "fair", "Proofreading was accurate but missed the British English requirement.",
         1),
    ], conversation=True)
    story(blazor, at(0, 10, 52), [
        ("user", "Thanks. Draft a reply to Dana approving the Q1 budget."),
        ("use", "writing/email-reply"),
        ("assistant", "Draft: 'Hi Dana, approved - thanks for pulling this together. Best, Sam' "
                      "Send it?"),
    ])
    story(session(ids["L"]), at(0, 11, 5), [
        ("user", "Summarize the unread emails about the vendor contract and draft a reply "
                 "to Acme."),
        ("use", "mcp/email"), ("use", "writing/email-reply"),
        ("assistant", "3 unread in the thread: Acme proposes a 4% increase and a 24-month term. "
                      "Draft reply asks for 2% and 12 months. Send?"),
    ], conversation=True)
    story(session(ids["N"]), at(0, 11, 20, 5), [
        ("user", "Save a skill for turning trip receipts into an expense report, I do this "
                 "after every trip."),
        ("assistant", "Skill 'travel/expense-report' saved. Summary is being generated."),
    ], conversation=True)
    story(session(ids["M"]), at(0, 11, 35), [
        ("user", "What meetings do I have tomorrow? Also summarize any emails about them."),
        ("use", "mcp/calendar"), ("use", "mcp/email"),
        ("assistant", "Tomorrow: 09:30 design review, 14:00 vendor call. Two emails mention "
                      "the vendor call agenda."),
    ], conversation=True)


# ====================================================================== memory

MEMORIES: list[tuple[str | None, str, list[str], Timestamp, Timestamp | None, dict | None]] = [
    ("user-preferences", "Prefers meeting invites on Tuesday or Thursday mornings",
     ["calendar", "meetings"], at(142, 10, 0), None, None),
    ("project-context/finance", "Finance team in Berlin owns the cost-center mapping; Dana "
     "approves budgets", ["finance", "people"], at(68, 12, 30), at(21, 8, 0), None),
    (None, "Work email account id for the calendar MCP server is 'work'", ["mcp", "email"],
     at(200, 13, 25), None, {"source": "agent"}),
    ("user-preferences/inferred", "Likes short bullet summaries with the action items first",
     ["style", "summaries"], at(33, 3, 19), None, {"source": "preference-inference"}),
    ("project-context/devops", "Production cluster is prod-eu-1 (namespace shop); staging is "
     "stg-eu-1. Default GitHub repository: acme/shop", ["kubernetes", "github"], at(96, 15, 2),
     at(40, 9, 12), None),
    ("people", "Priya Raman leads facilities for the Berlin office move; Tom Becker is her "
     "deputy", ["people", "berlin"], at(1, 11, 9), None, {"source": "agent"}),
]


# ====================================================================== output


def last_used(spec: SkillSpec) -> Timestamp | None:
    """``lastUsedAt``: the last ``get_skill`` (event or older), unless a later save reset it."""
    times = [ts for s in SESSIONS.values() for ts, name in s.usage if fold(name) == fold(spec.name)]
    if spec.used_before is not None:
        times.append(spec.used_before)
    if not times:
        return None
    last = max(times, key=lambda t: t.utc_ticks)
    if spec.reset is not None and last.utc_ticks < spec.reset.utc_ticks:
        return None
    return last


def build_skills() -> list[Skill]:
    skills = []
    for spec in SKILLS:
        validate_name(spec.name)
        skills.append(Skill(name=spec.name, summary=spec.summary, content=spec.content,
                            created_at=spec.created, updated_at=spec.updated,
                            last_used_at=last_used(spec), see_also=spec.see_also))
    return skills


def jsonl(records: Iterable[dict]) -> bytes:
    return "".join(dumps_compact(r) + "\n" for r in records).encode("utf-8")


def by_time(items: Iterable[tuple]) -> list:
    return sorted(items, key=lambda item: item[0].utc_ticks)  # stable


def prepare_out(out: Path) -> None:
    """Empty ``out`` (only if it is missing, empty or a previous demo: never anything else)."""
    if out.exists():
        readme = out / "README.md"
        is_demo = readme.is_file() and readme.read_text("utf-8").startswith(README_TITLE)
        if any(out.iterdir()) and not is_demo:
            raise SystemExit(f"{out} exists and is not a generated demo library; not touching it")
        shutil.rmtree(out)
    out.mkdir(parents=True)


def write(out: Path, rel: str, data: bytes) -> None:
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def generate(out: Path) -> dict[str, object]:
    """Write the whole demo tree into ``out``; returns the statistics shown in its README."""
    generated_history()
    special_cases()
    recent_sessions()
    skills = build_skills()
    prepare_out(out)
    for skill in skills:
        write(out, f"skills/{skill.name}.json", skill_to_bytes(skill))
    for s in sorted(SESSIONS.values(), key=lambda x: x.id):
        if s.usage:
            write(out, f"skill-usage/{s.id}.jsonl", jsonl(
                {"id": new_id(), "skillName": name, "sessionId": s.id, "timestamp": ts}
                for ts, name in by_time(s.usage)))
        if s.feedback:
            write(out, f"feedback/{s.id}.jsonl", jsonl(
                {"id": new_id(), "sessionId": s.id, "signalType": kind, "summary": summary,
                 "detail": detail, "timestamp": ts}
                for ts, kind, summary, detail in by_time(s.feedback)))
        if s.conversation:
            turns = [{"role": role, "content": content, "timestamp": ts}
                     for ts, role, content in by_time(s.turns)][-50:]
            write(out, f"conversations/{s.id}.json", dumps_compact(turns).encode("utf-8"))
    turns = by_time((ts, s.id, role, content) for s in SESSIONS.values()
                    for ts, role, content in s.turns)
    write(out, "conversation-log/turns.jsonl", jsonl(
        {"sessionId": sid, "role": role, "content": content, "timestamp": ts}
        for ts, sid, role, content in turns))
    for category, content, tags, created, updated, metadata in MEMORIES:
        memory_id = new_id()
        folder = f"memory/{category}/" if category else "memory/"
        write(out, f"{folder}{memory_id}.json", dumps_indented({
            "id": memory_id, "content": content, "category": category, "tags": tags,
            "createdAt": created, "updatedAt": updated, "metadata": metadata,
        }).encode("utf-8"))
    stats = statistics(skills, turns)
    write(out, "README.md", readme(stats).encode("utf-8"))
    return stats


# ====================================================================== README


def statistics(skills: list[Skill], turns: list[tuple]) -> dict[str, object]:
    usage = [(ts, name, s.id) for s in SESSIONS.values() for ts, name in s.usage]
    feedback = [(ts, kind) for s in SESSIONS.values() for ts, kind, _, _ in s.feedback]
    prefixes: dict[str, int] = {}
    for skill in skills:
        prefix = skill.name.split("/")[0] + "/" if "/" in skill.name else "(top level)"
        prefixes[prefix] = prefixes.get(prefix, 0) + 1
    window = ANCHOR.add_days(-30).utc_ticks
    sparse = [s.name for s in skills if s.is_sparse(ANCHOR)]
    prune = ANCHOR.add_months(-18)
    return {
        "skills": len(skills),
        "prefixes": prefixes,
        "usage_events": len(usage),
        "usage_events_30d": sum(1 for ts, _, _ in usage if ts.utc_ticks >= window),
        "usage_sessions": len({sid for _, _, sid in usage}),
        "first_event": min(ts.utc_ticks for ts, _, _ in usage),
        "feedback": {kind: sum(1 for _, k in feedback if k == kind) for kind in range(5)},
        "feedback_sessions": sum(1 for s in SESSIONS.values() if s.feedback),
        "turns": len(turns),
        "turn_sessions": len({sid for _, sid, _, _ in turns}),
        "sparse": sparse,
        "never_used": [s.name for s in skills if s.last_used_at is None],
        "see_also": [s.name for s in skills if s.see_also],
        "prune": [s.name for s in skills if s.last_activity().utc_ticks < prune.utc_ticks],
        "memories": len(MEMORIES),
    }


def readme(st: dict[str, object]) -> str:
    prefixes = st["prefixes"]
    assert isinstance(prefixes, dict)
    prefix_text = ", ".join(f"`{p}` {n}" for p, n in sorted(prefixes.items()))
    first_ticks = st["first_event"]
    assert isinstance(first_ticks, int)
    first = Timestamp.from_utc_ticks(first_ticks).isoformat()[:10]
    fb = st["feedback"]
    assert isinstance(fb, dict)
    names = ("Correction", "ToolFailure", "SessionSummary", "UserThumbsUp", "UserThumbsDown")
    fb_text = ", ".join(f"{names[k]} {fb[k]}" for k in range(5))

    usage_text = (f"{st['usage_events']} `get_skill` events from {st['usage_sessions']} "
                  f"sessions, {first} to the anchor ({st['usage_events_30d']} in the last 30 days)")
    turns_text = f"{st['turns']} turns from {st['turn_sessions']} sessions since the last dream"

    def listing(key: str) -> str:
        value = st[key]
        assert isinstance(value, list)
        return ", ".join(f"`{n}`" for n in value)

    return f"""{README_TITLE}

A realistic RockBot agent data directory (RockBot commit 64e82cc, spec
`rockbot-skills.md`) bundled with RockSkills so every pane has something to show. Generated by
`resources/make_demo_library.py` (seeded, deterministic: running it again reproduces these files
byte for byte). Every file is written with RockSkills' exact RockBot writers. RockBot itself
ignores this README.

**Anchor ("now") of the data: `{ANCHOR_TEXT}`.** When the app installs the demo into your data
folder (`rockskills_gui.core.app.demo.install_demo`) it shifts every timestamp by whole days so the
anchor lands within the last 24 hours: the 30-day windows always have data. This bundled copy is
never modified.

## Contents

| path | what is in it |
|---|---|
| `skills/` | {st["skills"]} skills: {prefix_text} |
| `skill-usage/` | {usage_text} |
| `feedback/` | {st["feedback_sessions"]} session files: {fb_text} |
| `conversation-log/turns.jsonl` | {turns_text} |
| `conversations/` | history of the sessions active in the last day |
| `memory/` | {st["memories"]} long-term memory entries (a dream cycle needs at least 2) |

## What to look for

- Starter skills `memory skills mcp web scheduling subagent a2a scripts` with their real names
  and summaries; their content is a short stand-in marked "DEMO STAND-IN" (CRLF line endings).
- `mcp` is both a skill and a prefix (`mcp/email`, `mcp/calendar`, ...); so are `web` and
  `scripts`.
- Sparse skills (content under 200 UTF-16 units, older than 7 days): {listing("sparse")}.
  `daily-standup` is short too but only 3 days old, so it is not sparse.
- See-also links: {listing("see_also")}; `mcp/email` and `mcp/calendar` point at each other;
  `research/fact-check` names `research/source-credibility`, which no longer exists.
- Never used: {listing("never_used")}.
- `travel/expense-report` was saved minutes before the anchor: its summary is still pending.
- `travel/phrasebook` is full of non-ASCII text (accents, Japanese, an emoji outside the BMP).
- Prune candidate (last activity more than 18 months before the anchor): {listing("prune")};
  `legacy/print-labels` is old and never used but survives.
- Near-duplicates a consolidation would merge: `plan-meeting` / `schedule-meeting`,
  `research/summarize-paper` / `research/summarize-article`, `writing/proofread` /
  `writing/copy-edit`.
- Prefix clusters without a `{{prefix}}/guide`: all but `research/`.
- Usage: the long-lived `blazor-session` and `cli-session`, client sessions that each stay within
  one area (mail and calendar, research, data scripts, finance, devops, writing, travel, docs),
  case variants `MCP/Email` and `Research/Summarize-Paper`, and one use of the deleted skill
  `old-meeting-notes`.
- Feedback: session evaluations with the evaluator's raw JSON (`good`, `fair`, `poor`), at-risk
  sessions (corrections, thumbs-down, fair/poor), and corrections in sessions that used no skill
  (skill-gap signals). Corrections follow RockBot's regex exactly: "No rush, ..." is flagged,
  while "no, keep it to 30 minutes" is not (the pattern's trailing `\\b` fails after a comma).
- Conversation log: recurring first requests ("draft an agenda ...", "summarize the unread
  emails ...") for the skill-gap pass; no skill covers agendas yet.
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="target folder (default: resources/demo-library)")
    args = parser.parse_args(argv)
    stats = generate(args.out)
    print(f"wrote {args.out}: {stats['skills']} skills, {stats['usage_events']} usage events, "
          f"{stats['usage_sessions']} sessions, {stats['turns']} logged turns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
