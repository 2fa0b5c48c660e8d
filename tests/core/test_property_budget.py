"""The time budget of the property and stateful tests (tests/property_budget.py): at least the
minimum, at most the maximum, more only while the budget lasts; a failure still reports its example
and the blob that replays it."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tests.conftest import REPO
from tests.property_budget import ENV, Budget, budget_seconds, budgeted, run_machine


def test_the_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "3")
    assert budget_seconds() == 3.0 and budget_seconds(share=4) == 12.0
    monkeypatch.setenv(ENV, "soon")
    with pytest.raises(ValueError, match=ENV):
        budget_seconds()
    with pytest.raises(ValueError, match="minimum"):
        Budget(5, 4)


def run_counted(minimum: int, maximum: int, pause: float = 0.0) -> tuple[int, list[int]]:
    """Run a budgeted property that takes ``pause`` seconds an example: (examples, rounds)."""
    calls: list[int] = []

    @budgeted(minimum=minimum, maximum=maximum)
    @given(st.integers())
    def prop(value: int) -> None:
        calls.append(value)
        time.sleep(pause)

    prop()
    return len(calls), prop.hypothesis_rounds


def test_a_slow_property_stops_at_the_budget_after_the_minimum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "0.5")
    started = time.monotonic()
    examples, rounds = run_counted(3, 10_000, pause=0.02)
    assert time.monotonic() - started < 5
    assert 3 <= examples < 200, examples  # ~25 fit in 0.5 s; far from the maximum
    assert rounds[0] == 3 and sum(rounds) == examples


def test_the_minimum_runs_even_when_the_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "0")
    assert run_counted(7, 100) == (7, [7])


def test_a_fast_property_runs_the_maximum_and_no_more(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "60")
    examples, rounds = run_counted(5, 40)
    assert examples == 40 and sum(rounds) == 40 and rounds[0] == 5


class Counter(RuleBasedStateMachine):
    """Counts up; ``broken`` makes the sixth step forget everything (the seeded bug)."""

    runs = 0
    broken = False

    def __init__(self) -> None:
        super().__init__()
        type(self).runs += 1
        self.count = 0
        self.model = 0

    @rule(step=st.integers(1, 3))
    def add(self, step: int) -> None:
        self.model += step
        self.count = 0 if self.broken and self.model > 5 else self.count + step

    @invariant()
    def agrees(self) -> None:
        assert self.count == self.model


def test_a_machine_runs_in_rounds_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "60")
    Counter.runs = 0
    rounds = run_machine(Counter, Budget(minimum=4, maximum=30), stateful_step_count=5)
    assert rounds[0] == 4 and sum(rounds) == 30
    assert Counter.runs >= 30


FAILING = '''
from hypothesis import given, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tests.core.test_property_budget import Counter
from tests.property_budget import Budget, budgeted, run_machine


@budgeted(minimum=5, maximum=500)
@given(st.lists(st.integers()))
def test_property(values):
    assert sum(values) < 1000


def test_machine():
    Counter.broken = True
    run_machine(Counter, Budget(minimum=5, maximum=500), stateful_step_count=10)
'''


def test_a_budgeted_failure_prints_its_example_steps_and_blob(tmp_path: Path) -> None:
    """A seeded bug is found within the minimum, shrunk, and reported as Hypothesis reports it."""
    test_file = tmp_path / "test_seeded.py"
    test_file.write_text(textwrap.dedent(FAILING))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         str(test_file), "--rootdir", str(tmp_path), "--hypothesis-seed=1"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env={
            **os.environ, "PYTHONPATH": str(REPO), ENV: "1"})
    out = result.stdout + result.stderr
    assert result.returncode == 1 and "2 failed" in out, out
    assert "Failing test case: test_property(" in out and "values=[1000]" in out, out
    assert "state = Counter()" in out and "state.add(" in out, out  # the steps
    # one blob per failing test (pytest repeats it in the summary when CI is set)
    assert len(set(re.findall(r"@reproduce_failure\(([^)]*)\)", out))) == 2, out



def unbudgeted(tests: Path) -> list[str]:
    """Property tests under ``tests`` not bounded by a budget: ``@given`` with no ``@budgeted``
    (or a module constant made by ``budgeted(...)``) above it, ``run_state_machine_as_test``, or
    a fixed ``max_examples``."""
    found: list[str] = []
    for path in sorted(tests.rglob("*.py")):
        if path.name == "property_budget.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        budgets = {"budgeted"} | {
            target.id for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "budgeted"
            for target in node.targets if isinstance(target, ast.Name)}
        where = path.relative_to(tests.parent)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [ast.unparse(d).split("(")[0] for d in node.decorator_list]
                if "given" in names and not budgets & set(names[:names.index("given")]):
                    found.append(f"{where}:{node.lineno} {node.name}: no @budgeted above @given")
            if isinstance(node, ast.Name) and node.id == "run_state_machine_as_test":
                found.append(f"{where}:{node.lineno}: run_state_machine_as_test")
            if isinstance(node, ast.keyword) and node.arg == "max_examples":
                found.append(f"{where}:{node.lineno}: max_examples=")
    return found


def test_every_property_test_in_the_suite_is_budgeted() -> None:
    """A fixed count, or Hypothesis's 200 ms deadline, times out or fails on a loaded machine."""
    assert unbudgeted(REPO / "tests") == []
