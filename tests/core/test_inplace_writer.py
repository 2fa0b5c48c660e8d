"""An agent that saves in place (RockBot: open, truncate, write, close) while we replace or delete
the same file: no version of the agent's may be lost (issue 35, item 11).

Each test plays the agent at an exact step of our checked writer through the checkpoint hook
(:func:`fileio.set_checkpoint_hook`). Where the system tells that a file is open for writing
(Linux leases, :mod:`open_writers`): an agent holding the file open is refused before anything is
swapped, and one opening it while we swap waits and then writes into the file at the path. Where
it does not (simulated by turning the lease off, as on macOS): the agent writes into the file we
swapped out and then into the one we swapped in, and the bytes tell which is newer. Whatever it
wrote last must be at the path afterwards, and no temp file may stay behind. The time-bounded race
against a real writer process is ``inplace_writer_race`` in ``tests/adversarial/attacks_journal.py``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rockskills_gui.core.storage import fileio, open_writers

Hook = Callable[[int, str], None]


class InPlaceAgent:
    """Writes as .NET's File.WriteAllTextAsync does on Unix: open the path (no truncation yet),
    truncate, write, close -- into whatever file the path named when it opened it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def open(self) -> None:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)

    def write(self, data: bytes) -> None:
        assert self.fd is not None
        os.ftruncate(self.fd, 0)
        os.write(self.fd, data)
        os.close(self.fd)
        self.fd = None

    def save(self, data: bytes) -> None:
        self.open()
        self.write(data)


@pytest.fixture
def at_step() -> Iterator[Callable[[str, Callable[[], None]], None]]:
    """``at_step(label, act)``: run ``act`` once, at the first checkpoint with that label."""
    pending: dict[str, Callable[[], None]] = {}

    def hook(step: int, label: str) -> None:
        del step
        act = pending.pop(label, None)
        if act is not None:
            act()

    fileio.set_checkpoint_hook(hook)
    yield pending.__setitem__
    fileio.set_checkpoint_hook(None)
    assert not pending, f"never reached: {sorted(pending)}"


@pytest.fixture(params=["exchange", "link"])
def method(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The atomic exchange, and the hard-link method of a system without one."""
    if request.param == "exchange":
        if not fileio.exchange_supported(tmp_path):
            pytest.skip("no atomic exchange here")
    else:
        monkeypatch.setattr(fileio, "exchange_supported", lambda folder: False)
    return str(request.param)


def _only(path: Path) -> None:
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name], "a temp file was left"


@pytest.fixture
def leases(tmp_path: Path) -> None:
    """The system tells when a file is open for writing (skipped where it cannot)."""
    probe = tmp_path / "probe"
    probe.write_bytes(b"")
    if not open_writers.detectable(probe):
        pytest.skip("this system cannot tell whether a file is open for writing")
    probe.unlink()


@pytest.fixture
def no_leases(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a system that cannot tell (macOS, Windows, a file of another owner): bytes only."""
    monkeypatch.setattr(open_writers, "_SETLEASE", None)


def _opens_in_a_thread(agent: InPlaceAgent, data: bytes) -> threading.Thread:
    """The agent saves from another thread: its open waits while we hold the file's lease, so this
    returns once the kernel shows our lease breaking (/proc/locks), i.e. the open is under way."""
    ident = os.stat(agent.path)
    thread = threading.Thread(target=agent.save, args=(data,))
    thread.start()
    wanted = f":{ident.st_ino:d} "
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with open("/proc/locks", encoding="ascii") as locks:
            if any("BREAKING" in line and wanted in line for line in locks):
                return thread
        time.sleep(0.001)
    raise AssertionError("the agent's open never reached our lease")


# ---------------------------------------------------------------- where open writers are known


def test_a_save_is_refused_while_the_agent_holds_the_file_open_to_write(tmp_path: Path, method: str,
                                                                       leases: None) -> None:
    """The agent opened the file and has not truncated it yet: its bytes are as expected, but its
    write will land in that file. Refused before anything is swapped; its write lands at the path."""
    path = tmp_path / "skill.json"
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()
    with pytest.raises(fileio.ChangedOnDisk, match="open for writing"):
        fileio.replace_checked(path, b"before", b"ours", tmp_path)
    agent.write(b"agent v1")
    assert path.read_bytes() == b"agent v1"
    _only(path)
    fileio.replace_checked(path, b"agent v1", b"ours", tmp_path)  # closed: saved as usual
    assert path.read_bytes() == b"ours"


def test_a_delete_is_refused_while_the_agent_holds_the_file_open_to_write(tmp_path: Path,
                                                                         leases: None) -> None:
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()
    with pytest.raises(fileio.ChangedOnDisk, match="open for writing"):
        fileio.replace_checked(path, b"before", None, tmp_path)
    agent.write(b"agent v1")
    assert path.read_bytes() == b"agent v1"
    _only(path)


@pytest.mark.parametrize("operation", ["save", "delete"])
def test_an_agent_opening_the_file_while_we_swap_it_writes_at_the_path(tmp_path: Path, method: str,
                                                                      leases: None, at_step,
                                                                      operation: str) -> None:
    """The agent opens the path just before our swap (it found the old file there): its open
    waits for us, the old file goes back, and its write lands at the path."""
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    threads: list[threading.Thread] = []
    at_step("pinned", lambda: threads.append(_opens_in_a_thread(agent, b"agent v1")))
    with pytest.raises(fileio.ChangedOnDisk, match="open for writing"):
        fileio.replace_checked(path, b"before", b"ours" if operation == "save" else None, tmp_path)
    threads[0].join(timeout=60)
    assert path.read_bytes() == b"agent v1"
    _only(path)


def test_an_agent_opening_our_new_file_writes_into_it(tmp_path: Path, method: str, leases: None,
                                                     at_step) -> None:
    """Opened right after our swap: our save stands, and the agent's write lands in our file."""
    path = tmp_path / "skill.json"
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    threads: list[threading.Thread] = []
    at_step("swapped", lambda: threads.append(_opens_in_a_thread(agent, b"agent v1")))
    fileio.replace_checked(path, b"before", b"ours", tmp_path)
    threads[0].join(timeout=60)
    assert path.read_bytes() == b"agent v1"
    _only(path)


# ---------------------------------------------------------------- where only the bytes tell


def test_the_agents_write_into_the_file_we_swapped_in_is_kept(tmp_path: Path, method: str,
                                                              no_leases: None, at_step) -> None:
    """The agent opened the file before our swap and writes into it after; then it saves again,
    into our new file. The put-back must keep that newer version, not delete it with our file."""
    path = tmp_path / "skill.json"
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()  # opened before our check, not written yet (truncation comes after the open)

    def agent_saves_twice() -> None:
        agent.write(b"agent v1")  # into the file we just swapped out
        agent.save(b"agent v2")  # and, opened anew, into ours

    at_step("swapped", agent_saves_twice)
    with pytest.raises(fileio.ChangedOnDisk, match="while saving"):
        fileio.replace_checked(path, b"before", b"ours", tmp_path)
    assert path.read_bytes() == b"agent v2"
    _only(path)


@pytest.mark.parametrize("operation", ["save", "delete"])
def test_the_agents_write_into_the_file_moved_out_goes_back(tmp_path: Path, method: str, no_leases: None,
                                                            at_step, operation: str) -> None:
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()
    at_step("swapped" if operation == "save" else "moved aside", lambda: agent.write(b"agent v1"))
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"before", b"ours" if operation == "save" else None, tmp_path)
    assert path.read_bytes() == b"agent v1"
    _only(path)


def test_a_delete_keeps_the_file_the_agent_created_again(tmp_path: Path, no_leases: None,
                                                        at_step) -> None:
    """Written into the file moved aside, then saved again (the path was free: a new file)."""
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()

    def agent_saves_twice() -> None:
        agent.write(b"agent v1")
        agent.save(b"agent v2")

    at_step("moved aside", agent_saves_twice)
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"before", None, tmp_path)
    assert path.read_bytes() == b"agent v2"
    _only(path)


def test_without_a_concurrent_writer_everything_is_as_before(tmp_path: Path, method: str) -> None:
    path = tmp_path / "skill.json"
    fileio.replace_checked(path, None, b"one", tmp_path)
    fileio.replace_checked(path, b"one", b"two", tmp_path)
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"one", b"three", tmp_path)
    assert path.read_bytes() == b"two"
    fileio.replace_checked(path, b"two", None, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_race_against_a_writer_process_loses_no_version(tmp_path: Path, method: str) -> None:
    """Time-bounded (2 s): a real process saving in place as fast as it can, while we save; see
    ``inplace_writer_race`` for what counts as a lost version."""
    from tests.adversarial.attacks_journal import LOST_DETAILS, inplace_writer_race

    LOST_DETAILS.clear()
    ours, refused, saves, lost = inplace_writer_race(tmp_path / "shared.json", 2.0)
    assert saves > 0 and ours + refused > 0
    assert lost == 0, "\n".join(LOST_DETAILS)
