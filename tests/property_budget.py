"""Property and stateful tests bounded by a time budget, not by a fixed number of examples.

Hypothesis stops after ``max_examples`` and has no wall-clock stop (its old ``timeout`` setting is
gone), so a count that takes a minute on a quiet machine takes ten on a loaded one. A budgeted
test runs in rounds instead: the first round runs ``minimum`` examples (what a machine at load 6
on 2 CPUs finishes well inside pytest's timeout); each further round runs as many as the time
measured so far says fit in what is left of the budget, never more than ``maximum`` in all (what
a quiet machine runs). Every round is a whole Hypothesis run with no per-example deadline: a
failure is shrunk and reported with its steps (stateful) or its falsifying example, and the
``@reproduce_failure(...)`` blob that replays it (``print_blob=True``).

The budget of one test is ``ROCKSKILLS_PROPERTY_SECONDS`` (default :data:`DEFAULT_SECONDS`)
times the test's ``share`` (the whole-app machines get several). ``ROCKSKILLS_PROPERTY_SECONDS=0``
runs the minimum only; a large value runs the maximum.

- ``@budgeted(minimum, maximum, ...)`` above ``@given``, in place of ``@settings(max_examples=...)``;
- :func:`run_machine` in place of ``run_state_machine_as_test``.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

ENV = "ROCKSKILLS_PROPERTY_SECONDS"
DEFAULT_SECONDS = 10.0

F = TypeVar("F", bound=Callable[..., Any])


def budget_seconds(share: float = 1.0) -> float:
    """This run's budget for a test of ``share``: ``$ROCKSKILLS_PROPERTY_SECONDS × share``."""
    text = os.environ.get(ENV, "").strip()
    try:
        seconds = float(text) if text else DEFAULT_SECONDS
    except ValueError as exc:
        raise ValueError(f"{ENV} must be a number of seconds, not {text!r}") from exc
    return max(0.0, seconds) * share


@dataclass(frozen=True)
class Budget:
    """At least ``minimum`` examples, at most ``maximum``, more only while ``seconds`` last."""

    minimum: int
    maximum: int
    share: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.minimum <= self.maximum:
            raise ValueError(f"need 1 <= minimum <= maximum, not {self.minimum}, {self.maximum}")

    def run(self, one_round: Callable[[int], None], what: str = "") -> list[int]:
        """Call ``one_round(n)`` (run ``n`` examples) until the budget or the maximum is spent;
        returns the rounds' sizes (and prints them: ``pytest -rP`` shows it)."""
        seconds = budget_seconds(self.share)
        start = time.monotonic()
        rounds: list[int] = []
        count = self.minimum
        while count > 0:
            one_round(count)
            rounds.append(count)
            done = sum(rounds)
            spent = time.monotonic() - start
            fit = int((seconds - spent) * done / spent) if spent > 0 else self.maximum
            count = min(self.maximum - done, fit)
        print(f"{what}: {sum(rounds)} examples (rounds {rounds}, at least {self.minimum}, at most "
              f"{self.maximum}) in {time.monotonic() - start:.1f} s of a {seconds:g} s budget")
        return rounds


def _settings(**overrides: Any) -> settings:
    return settings(**{"deadline": None, "print_blob": True, **overrides})


def budgeted(minimum: int, maximum: int, *, share: float = 1.0, **overrides: Any) -> Callable[[F], F]:
    """Run a ``@given`` test (put this above ``@given``) under a :class:`Budget`; ``overrides`` are
    further settings (``suppress_health_check=...``). ``deadline=None`` and ``print_blob=True``
    unless overridden."""
    budget = Budget(minimum, maximum, share)

    def decorate(test: F) -> F:
        if not getattr(test, "is_hypothesis_test", False):
            raise TypeError(f"@budgeted goes above @given ({test.__qualname__})")

        @functools.wraps(test)
        def run(*args: Any, **kwargs: Any) -> None:
            __tracebackhide__ = True
            # The settings pytest's Hypothesis plugin may have derived from ours (parametrized tests).
            parent = run._hypothesis_internal_use_settings  # type: ignore[attr-defined]

            def one_round(count: int) -> None:
                # What ``@settings`` does to a ``@given`` test (and the plugin does too), per round.
                test._hypothesis_internal_use_settings = settings(  # type: ignore[attr-defined]
                    parent, max_examples=count)
                test(*args, **kwargs)

            run.hypothesis_rounds = budget.run(one_round, test.__name__)  # type: ignore[attr-defined]

        run._hypothesis_internal_use_settings = _settings(**overrides)  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


def run_machine(machine: type[RuleBasedStateMachine], budget: Budget, **overrides: Any) -> list[int]:
    """``run_state_machine_as_test`` in rounds under ``budget``; ``overrides`` are further settings
    (``stateful_step_count=...``, ``suppress_health_check=...``). Returns the rounds' sizes."""
    base = _settings(**overrides)

    def one_round(count: int) -> None:
        run_state_machine_as_test(machine, settings=settings(base, max_examples=count))

    return budget.run(one_round, machine.__name__)
