"""How many helper processes a scan starts: sized to the CPUs this process may use (issue 34)."""

from __future__ import annotations

import pytest

from rockskills_gui.core.library.rockbot import scan as rockbot
from rockskills_gui.core.storage import helper_process
from rockskills_gui.core.storage.helper_process import usable_cpus


@pytest.mark.parametrize(("cpus", "readers", "one_helper"),
                         [(1, 1, False), (2, 1, True), (3, 2, True), (4, 3, True), (16, 4, True)])
def test_readers_only_where_a_core_is_left_for_this_process(
        monkeypatch: pytest.MonkeyPatch, cpus: int, readers: int, one_helper: bool) -> None:
    """On 2 CPUs two readers and this process compete for two cores: no readers (1 = read
    here), but the one-helper jobs (listing, usage prefetch) still run beside this process."""
    monkeypatch.delenv(rockbot.WORKERS_ENV, raising=False)
    monkeypatch.setattr(rockbot, "usable_cpus", lambda: cpus)
    monkeypatch.setattr(helper_process, "usable_cpus", lambda: cpus)
    assert rockbot.default_workers() == readers
    assert rockbot.helpers_allowed() is one_helper


def test_the_environment_decides_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rockbot, "usable_cpus", lambda: 2)
    monkeypatch.setattr(helper_process, "usable_cpus", lambda: 2)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "3")
    assert (rockbot.default_workers(), rockbot.helpers_allowed()) == (3, True)
    monkeypatch.setenv(rockbot.WORKERS_ENV, "1")
    assert (rockbot.default_workers(), rockbot.helpers_allowed()) == (1, False)


def test_usable_cpus_is_the_affinity() -> None:
    import os

    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert usable_cpus() == expected
