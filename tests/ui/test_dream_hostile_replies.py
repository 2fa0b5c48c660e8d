"""Hostile replies in the dream wizard (issue 35, item 15), from the real chat-completions server
on 127.0.0.1: the window keeps painting while the run goes on and when its outcome is shown, and
each reply ends as its pass's failure (or, for a valid reply with one line of 1.5 million
characters, as a pass whose reply is shown in pieces). A timer ticking every 20 ms on the UI
thread measures the longest time it could not run, from the run's start through showing every
proposal on the review page; the bound is generous (a freeze was minutes)."""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtCore import QTimer

from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import PassStatus
from rockskills_gui.ui.dream.common import SHOWN_LINE
from rockskills_gui.ui.dream.proposal_view import SOURCE_COLUMNS
from rockskills_gui.ui.dream.wizard import DreamWizard
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.core.llm_server import ScriptedServer, ok
from tests.ui.test_dream_wizard import main, open_wizard, server, use_llm  # noqa: F401 (main, server: fixtures)

FROZEN_AT_MOST_S = 8.0  # the longest the UI thread may be busy at once, loaded CI included


def save(name: str, content: str = "Steps.") -> dict[str, str]:
    return {"name": name, "summary": "s", "content": content}


REPLIES = {  # name -> (reply text, a phrase the pass's failure shows; "" for a pass that is ok)
    "50 MB": (json.dumps({"toDelete": [], "toSave": [save("big", "a" * 50_000_000)]}),
              "replies over 2,000,000 characters are refused"),
    "10,000 proposals": (json.dumps({"toDelete": [], "toSave": [save(f"gen/s{i}") for i in range(10_000)]}),
                         "at most 2,000 are read from one reply"),
    "100,000 deep": ('{"toDelete": [], "toSave": [' + "[" * 100_000 + "]" * 100_000 + "]}",
                     "nested deeper than 64 levels"),
    "5,000 digits": ('{"toDelete": [], "toSave": [], "n": ' + "9" * 5_000 + "}",
                     "a number with more than 4,300 digits"),
    "one line of 1.5 MB": (json.dumps({"toDelete": [], "toSave": [save("big", "b" * 1_500_000)]}), ""),
}


class Ticks:
    """A 20 ms timer on the UI thread: the longest gap between two of its ticks."""

    def __init__(self) -> None:
        self.times: list[float] = [time.monotonic()]
        self.timer = QTimer()
        self.timer.setInterval(20)
        self.timer.timeout.connect(lambda: self.times.append(time.monotonic()))
        self.timer.start()

    def longest_gap(self) -> float:
        self.timer.stop()
        self.times.append(time.monotonic())
        return max(b - a for a, b in zip(self.times, self.times[1:], strict=False))


@pytest.mark.parametrize("name", list(REPLIES))
def test_a_hostile_reply_never_freezes_the_window(qtbot, main: MainWindow, server: ScriptedServer,  # noqa: F811
                                                  name: str) -> None:
    text, phrase = REPLIES[name]
    server.queue(ok(text))
    wizard: DreamWizard = open_wizard(main)
    use_llm(wizard, server.base_url, [DreamPass.CONSOLIDATE], timeout=60)
    wizard.next()  # the prompts page
    ticks = Ticks()
    wizard.next()  # the run: it starts when its page is shown
    qtbot.waitUntil(lambda: not wizard.run.running, timeout=120_000)
    qtbot.wait(100)  # the outcome is painted
    wizard.next()  # the review: every proposal shown in turn
    assert wizard.currentId() == wizard.page_id("review")
    longest = 0
    for proposal_id in wizard.review.items:
        wizard.review.show_proposal_id(proposal_id)
        qtbot.wait(20)
        texts = [c.view.toPlainText() for c in wizard.review.view.columns]
        longest = max([longest, *(len(line) for t in texts for line in t.split("\n"))])
    gap = ticks.longest_gap()
    assert wizard.run.error is None, wizard.run.error  # the run itself finished
    plan = wizard.run.plan
    assert plan is not None and len(server.requests) == 1
    record = plan.passes[0]
    shown = wizard.run.results.problems.text()
    if phrase:
        assert record.status is PassStatus.FAILED
        assert phrase in shown, shown
        assert "consolidation failed" in wizard.run.summary.text()
    else:
        assert record.status is PassStatus.OK, record.errors
    raw = wizard.run.results.raw.toPlainText()
    assert max(len(line) for line in raw.split("\n")) <= SHOWN_LINE
    if record.raw_reply is not None:
        assert raw.replace("\n", "") == record.raw_reply.replace("\n", "")
    assert longest <= SHOWN_LINE
    assert gap < FROZEN_AT_MOST_S, f"the window did not paint for {gap:.1f} s"


def test_a_merge_of_every_skill_shows_a_few_sources_side_by_side(qtbot, main: MainWindow,  # noqa: F811
                                                                 server: ScriptedServer) -> None:  # noqa: F811
    """A reply merging every skill into one: a column per source froze the window for 35 s at
    3,000 sources; at most SOURCE_COLUMNS are shown beside the merged skill, the rest counted."""
    library = main.ctx.library
    assert library is not None
    names = [s.name for s in library.skills()]
    server.queue(ok(json.dumps({"toDelete": names, "toSave": [
        {"name": "everything", "summary": "s", "content": "All of it.", "sourceNames": names}]})))
    wizard: DreamWizard = open_wizard(main)
    use_llm(wizard, server.base_url, [DreamPass.CONSOLIDATE], timeout=60)
    wizard.next()
    wizard.next()
    qtbot.waitUntil(lambda: not wizard.run.running, timeout=60_000)
    wizard.next()
    merge = next(p for p in wizard.plan.proposals if p.record is not None and p.record.name == "everything")
    wizard.review.show_proposal_id(merge.id)
    columns = wizard.review.view.columns
    assert len(columns) == SOURCE_COLUMNS + 1 < len(merge.sources)
    assert "more sources, not shown side by side" in columns[-1].meta.text()
