"""An agent that saves in place (RockBot: open, truncate, write, close) while we replace or delete
the same file: no version of the agent's may be lost (issue 35, item 11).

Each test plays the agent at an exact step of our checked writer through the checkpoint hook
(:func:`fileio.set_checkpoint_hook`): it opens the path before we swap (and writes later), or
writes into the file we swapped out and then into the one we swapped in. Whatever it wrote last
must be at the path afterwards, and no temp file may stay behind. The time-bounded race against a
real writer process is ``inplace_writer_race`` in ``tests/adversarial/attacks_journal.py``.
"""

from __future__ import annotations

import os
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


def _needs_leases(path: Path) -> None:
    if not open_writers.detectable(path):
        pytest.skip("this system cannot tell whether a file is open for writing")


def test_the_agents_write_into_the_file_we_swapped_in_is_kept(tmp_path: Path, method: str,
                                                              at_step) -> None:
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


def test_the_file_the_agent_opened_during_the_put_back_stays(tmp_path: Path, method: str,
                                                             at_step) -> None:
    """The agent writes into the old file, then opens our new one and is about to write: the
    file it holds is its newest and must end up at the path."""
    path = tmp_path / "skill.json"
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()

    def agent_writes_then_opens_again() -> None:
        agent.write(b"agent v1")
        agent.open()  # our file, at the path now; its write comes after our put-back

    at_step("swapped", agent_writes_then_opens_again)
    _needs_leases(path)  # our file, untouched but open: only a lease tells
    with pytest.raises(fileio.ChangedOnDisk, match="while saving"):
        fileio.replace_checked(path, b"before", b"ours", tmp_path)
    agent.write(b"agent v2")
    assert path.read_bytes() == b"agent v2"
    _only(path)


def test_a_save_is_refused_while_the_agent_holds_the_file_open_to_write(tmp_path: Path, method: str,
                                                                       at_step) -> None:
    """The agent opened the file and has not truncated it yet when we swap: our check sees the
    expected bytes, but its write will land in the old file. Refused, and the old file stays."""
    path = tmp_path / "skill.json"
    path.write_bytes(b"before")
    _needs_leases(path)
    agent = InPlaceAgent(path)
    agent.open()
    with pytest.raises(fileio.ChangedOnDisk, match="open"):
        fileio.replace_checked(path, b"before", b"ours", tmp_path)
    agent.write(b"agent v1")
    assert path.read_bytes() == b"agent v1"
    _only(path)
    fileio.replace_checked(path, b"agent v1", b"ours", tmp_path)  # closed: saved as usual
    assert path.read_bytes() == b"ours"


def test_a_delete_is_refused_while_the_agent_holds_the_file_open_to_write(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    _needs_leases(path)
    agent = InPlaceAgent(path)
    agent.open()
    with pytest.raises(fileio.ChangedOnDisk, match="open"):
        fileio.replace_checked(path, b"before", None, tmp_path)
    agent.write(b"agent v1")
    assert path.read_bytes() == b"agent v1"
    _only(path)


def test_a_delete_keeps_what_the_agent_wrote_into_the_file_moved_aside(tmp_path: Path, at_step) -> None:
    path = tmp_path / "sub" / "skill.json"
    path.parent.mkdir()
    path.write_bytes(b"before")
    agent = InPlaceAgent(path)
    agent.open()
    at_step("moved aside", lambda: agent.write(b"agent v1"))
    with pytest.raises(fileio.ChangedOnDisk):
        fileio.replace_checked(path, b"before", None, tmp_path)
    assert path.read_bytes() == b"agent v1"
    _only(path)


def test_a_delete_keeps_the_file_the_agent_created_again(tmp_path: Path, at_step) -> None:
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
    _only(path)
