"""Permission tests that mean something when the tests run as root (as in many CI containers).

``chmod`` does not restrict root: its capabilities ``CAP_DAC_OVERRIDE`` and ``CAP_DAC_READ_SEARCH``
let it read and write any file. :func:`chmod_restricts` finds out by trying. When it does not,
:func:`rerun_restricted` runs the calling test again in a child process that dropped those
capabilities (and ``CAP_FOWNER``) from its bounding set before ``exec``: still root, so it can run
the interpreter and the virtual environment wherever they are installed, but the permission bits
of the test's own files apply to it (root owns them). The outer test passes when the inner one
does (the child runs the test's module once; each test reads its own outcome). Where neither
works (no ``prctl``, or no ``CAP_SETPCAP`` to drop capabilities with), the test is skipped and
says why.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INNER = "ROCKSKILLS_TEST_RESTRICTED"
# capability numbers (linux/capability.h): CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
_CAPS = (1, 2, 3)
_DROP = (
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    f"for cap in {_CAPS!r}:\n"
    "    if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP\n"
    "        sys.exit(f'cannot drop capability {cap}: ' + os.strerror(ctypes.get_errno()))\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n"
)


def chmod_restricts(folder: Path | None = None) -> bool:
    """Whether a file's permission bits restrict this process (False for root with its
    capabilities): a file made unreadable is tried."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        probe = Path(tmp) / "probe"
        probe.write_text("x")
        probe.chmod(0)
        try:
            probe.read_text()
        except PermissionError:
            return True
        finally:
            probe.chmod(0o600)
        return False


def restricted(argv: list[str]) -> list[str]:
    """``python ARGV`` run without the capabilities that let root ignore permission bits."""
    return [sys.executable, "-c", _DROP, *argv]


@functools.cache
def can_restrict() -> str | None:
    """None when :func:`restricted` children are restricted by chmod, else why not."""
    if not sys.platform.startswith("linux"):
        return f"root on {sys.platform}: chmod does not restrict it and capabilities cannot be dropped"
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe"
        probe.write_text("x")
        probe.chmod(0)
        code = f"open({str(probe)!r}).read()"
        done = subprocess.run(restricted(["-c", code]), capture_output=True, text=True, timeout=60)
        probe.chmod(0o600)
    if done.returncode == 0:
        return "running as root, and a child without CAP_DAC_OVERRIDE still reads a file chmod 000"
    if "PermissionError" not in done.stderr:
        return f"running as root, and capabilities cannot be dropped: {done.stderr.strip()[-200:]}"
    return None


def rerun_restricted(request: pytest.FixtureRequest) -> bool:
    """Call first in a permission test. False: chmod restricts this process, run the test here.
    True: it did not, and the test was run (and passed) in a restricted child; return at once.
    Skips the test when neither is possible. The child runs the test's whole module once (the
    first test that asks) and each test reads its own outcome."""
    if chmod_restricts():
        return False
    if os.environ.get(INNER):
        pytest.fail("the restricted child still ignores permission bits")
    why = can_restrict()
    if why is not None:
        pytest.skip(why)
    outcomes = _module_outcomes(str(request.node.path))
    name = request.node.name
    assert name in outcomes, f"{name} did not run in the restricted child: {sorted(outcomes)}"
    outcome, text = outcomes[name]
    if outcome == "skipped":
        pytest.skip(f"in the restricted child: {text}")
    assert outcome == "passed", f"without root's file capabilities the test {outcome}:\n{text}"
    return True


@functools.cache
def _module_outcomes(module: str) -> dict[str, tuple[str, str]]:
    """Each test of ``module`` run in one restricted child: name -> (outcome, its report)."""
    import xml.etree.ElementTree as ElementTree

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        env = dict(os.environ, **{INNER: "1"})
        argv = ["-m", "pytest", module, "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        done = subprocess.run(restricted(argv), cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=1200)
        if not report.is_file():
            raise AssertionError(f"the restricted child did not run: {done.stdout[-2000:]}"
                                 f"{done.stderr[-2000:]}")
        outcomes: dict[str, tuple[str, str]] = {}
        for case in ElementTree.parse(report).iter("testcase"):
            outcome, text = "passed", ""
            for child in case:
                if child.tag in ("failure", "error", "skipped"):
                    outcome = "skipped" if child.tag == "skipped" else "failed"
                    text = (child.get("message") or "") + "\n" + (child.text or "")
            outcomes[case.get("name", "")] = (outcome, text[-4000:])
        return outcomes


def tree(root: Path, mode: int, folders_only: bool = True) -> None:
    """chmod ``root`` and every folder below it (and files unless ``folders_only``) to ``mode``."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir() or not folders_only:
            path.chmod(mode)
