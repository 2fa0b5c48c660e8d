"""The usage archive in the window (issue 30, "Log retention"): the window archives on open and
on Reload log, off the UI thread, and the Usage tab says which days come from the archive."""

from __future__ import annotations

import contextlib
import shutil
from datetime import timedelta
from pathlib import Path

from rockskills_gui.core.library.rockbot.library import RockBotLibrary
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage.file_lock import held
from rockskills_gui.core.storage.layout import USAGE_ARCHIVE_DIR
from rockskills_gui.core.usage.archive import archive_usage
from rockskills_gui.core.usage.archive_read import describe_days, utc_day
from rockskills_gui.core.usage.events import read_usage
from rockskills_gui.core.usage.stats import UsageWindow, analyze
from tests.ui.test_usage_pane import open_window
from tests.usage_history import NOW, NOW_TEXT, make_history_agent, rockbot_retention, usage_line

NOW_TS = Timestamp.parse(NOW_TEXT)


def history(tmp_path: Path) -> Path:
    return make_history_agent(tmp_path / "agent", days=60, sessions_per_day=2,
                              old_sessions_per_day=2, long_lines=200).root


def test_the_usage_tab_shows_which_days_come_from_the_archive(qtbot, tmp_path: Path) -> None:
    agent = history(tmp_path)
    original = tmp_path / "original"
    shutil.copytree(agent / "skill-usage", original / "skill-usage")
    archive_usage(agent)
    rockbot_retention(agent / "skill-usage", NOW)
    gone = {p.name for p in (original / "skill-usage").iterdir()} - \
        {p.name for p in (agent / "skill-usage").iterdir()}
    assert gone
    window = open_window(qtbot, agent)
    window.show_pane("heatmap")
    pane = window.usage_pane
    with qtbot.waitSignal(pane.updated, timeout=10_000):
        pane.set_window_days(90)
    report = pane.report
    assert report is not None and report.stats.window.days == 90
    fresh = analyze(read_usage(original), UsageWindow.last_days(NOW_TS, 90))
    assert report.stats.counts() == fresh.counts()  # RockBot deleted them; the tab still counts them
    assert [(p.key, p.sessions) for p in report.stats.pairs] == [(p.key, p.sessions) for p in fresh.pairs]
    days = sorted({utc_day(e.timestamp) for e in read_usage(original).events
                   if f"{e.session_id}.jsonl" in gone})
    assert pane.archive_note.isVisible()
    text = pane.archive_note.text()
    assert f"From the usage archive:</b> {sum(1 for e in fresh.events if f'{e.session_id}.jsonl' in gone)}" \
           f" event(s) on {len(days)} day(s): {describe_days(days)}." in text
    assert days[0] in pane.archive_note.toolTip()

    with qtbot.waitSignal(pane.updated, timeout=10_000):  # the last 30 days: all still live
        pane.set_window_days(30)
    assert not pane.archive_note.isVisible()
    window.usage_archiver.wait()
    pane.wait()


def test_the_window_archives_on_open_and_reload_off_the_ui_thread(qtbot, tmp_path: Path) -> None:
    agent = history(tmp_path)
    folder = agent / USAGE_ARCHIVE_DIR
    folder.mkdir(parents=True)
    lines = sum(1 for p in (agent / "skill-usage").iterdir() for _ in p.open(encoding="utf-8"))
    cron = contextlib.ExitStack()
    cron.enter_context(held(folder / "lock", 5))  # another archiver at work: the window's waits
    window = open_window(qtbot, agent)
    archiver = window.usage_archiver
    assert archiver.busy
    # the job started on its worker and waits there for the lock; this thread runs meanwhile
    qtbot.waitUntil(lambda: (folder / "skill-usage").is_dir(), timeout=10_000)
    qtbot.wait(200)
    assert archiver.busy and not list((folder / "skill-usage").iterdir())
    with qtbot.waitSignal(archiver.archived, timeout=20_000) as done:
        cron.close()  # the other archiver is done
    assert done.args[0].lines == lines
    archived = sum(1 for p in (folder / "skill-usage").iterdir() for _ in p.open(encoding="utf-8"))
    assert archived == lines

    with (agent / "skill-usage" / "cli-session.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(usage_line("00000000abcd", "memory", "cli-session",
                                NOW - timedelta(minutes=1)) + "\n")
    window.show_pane("heatmap")
    pane = window.usage_pane
    qtbot.waitUntil(lambda: pane.report is not None, timeout=10_000)
    with qtbot.waitSignal(archiver.archived, timeout=20_000) as again:
        pane.reload_button.click()
    assert again.args[0].added == {"skill-usage/cli-session.jsonl": 1}
    pane.wait()


def test_the_bundled_demo_opened_in_place_is_never_archived_into(qtbot, tmp_path: Path) -> None:
    """Every demo install copies ``resources/demo-library``: the window writes nothing there."""
    from rockskills_gui.core.app.demo import demo_source_dir

    source = demo_source_dir()
    assert (source / "skill-usage").is_dir()  # (it has usage logs to archive)
    window = open_window(qtbot, source)
    window.usage_archiver.archive()
    assert not window.usage_archiver.busy
    assert not (source / ".rockskills").exists()
    installed = shutil.copytree(source, tmp_path / "demo")  # an installed copy is archived
    window.ctx.set_library(RockBotLibrary.open(installed), remember=False)
    with qtbot.waitSignal(window.usage_archiver.archived, timeout=20_000) as done:
        window.usage_archiver.archive()
    assert done.args[0].lines > 0
    assert not (source / ".rockskills").exists()
