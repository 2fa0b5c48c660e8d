"""The collector pause and the allocator setting are shared switches: the first holder turns it
on, the last one to leave turns it off, across nesting and threads."""

from __future__ import annotations

import gc
import threading

from rockskills_gui.core.storage.gcpause import gc_paused
from rockskills_gui.core.storage.shared_switch import SharedSwitch


def test_first_in_turns_on_last_out_turns_off_across_threads() -> None:
    calls: list[str] = []
    switch = SharedSwitch(lambda: calls.append("on"), lambda: calls.append("off"))
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with switch.held():
            entered.set()
            release.wait(5)

    with switch.held():
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(5)
        with switch.held():
            assert calls == ["on"]
    assert calls == ["on"]  # the other thread still holds it
    release.set()
    thread.join(5)
    assert calls == ["on", "off"]


def test_gc_paused_nests_and_restores_the_collector_as_it_was() -> None:
    was = gc.isenabled()
    try:
        gc.enable()
        with gc_paused():
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled()
        gc.disable()  # a caller that had it off keeps it off
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
