"""Shared test helpers: data paths and the corpora of ../shared/data (skipped when absent)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import core as hypothesis_core

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared" / "data"

#: Hypothesis profiles.  ``dev`` (local runs): random examples, the failures hypothesis remembers in
#: ``.hypothesis/`` tried first.  ``ci``: random examples from a seed printed in the report header, no
#: example database (a clean clone has none), the failing example's reproduction blob printed.
#: ``SUDOKU_CP_HYPOTHESIS=ci`` chooses the second; ``SUDOKU_CP_SEED=N`` replays a run's seed in either.
#: No profile is derandomised: a test that needs fixed examples says why where it asks for them.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("dev"), database=None, print_blob=True)
settings.load_profile(os.environ.get("SUDOKU_CP_HYPOTHESIS", "dev"))
# No background compilation of every kernel, and no notice of it, from the commands tests start.
os.environ.setdefault("SUDOKU_CP_BACKGROUND_COMPILE", "0")

#: The environment variable that carries the run's seed from pytest to its xdist workers.
SEED_VARIABLE = "SUDOKU_CP_SEED"


def pytest_configure(config: pytest.Config) -> None:
    """One seed for the whole run: chosen here (or given), shared with the workers, printed."""
    if config.getoption("hypothesis_seed", None) is not None:
        return  # ``--hypothesis-seed`` given: hypothesis's own plugin uses it
    seed = os.environ.get(SEED_VARIABLE)
    if seed is None:
        seed = str(secrets.randbelow(2**32))
        os.environ[SEED_VARIABLE] = seed  # inherited by the workers xdist starts after this
    hypothesis_core.global_force_seed = int(seed)  # type: ignore[assignment]  # typed None there


def _seed_line(config: pytest.Config) -> str:
    given = config.getoption("hypothesis_seed", None)
    seed = given if given is not None else os.environ.get(SEED_VARIABLE)
    profile = settings.get_current_profile_name()
    return f"hypothesis profile {profile}, seed {seed} (replay with {SEED_VARIABLE}={seed})"


def pytest_report_header(config: pytest.Config) -> str:
    """The seed, before the tests run."""
    return _seed_line(config)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The seed again after them (``-q`` hides the header), so that a failure can be replayed."""
    terminalreporter.write_line(_seed_line(config))


#: Puzzles a slow test takes from each whole shared corpus: evenly spaced over the file, so that
#: CI's slow stage stays within its budget on two cores.  ``SUDOKU_CP_WHOLE_CORPORA=1`` takes every
#: line (the 49,158 17-clue puzzles and the 10,000-line files: hours on two cores).
CORPUS_SAMPLE = 500


def corpus_sample(lines: list[T]) -> list[T]:
    """``CORPUS_SAMPLE`` evenly spaced items of a whole corpus, or all of them when asked for."""
    if os.environ.get("SUDOKU_CP_WHOLE_CORPORA") or len(lines) <= CORPUS_SAMPLE:
        return lines
    return lines[:: -(-len(lines) // CORPUS_SAMPLE)]


#: Seconds a test lets a time limit be overrun past 10 %: Python's own pauses, and a busy machine
#: (two test workers on two cores, each maybe running solver processes).  Tests check that limits
#: are honoured with this margin; they never check speed (``benchmarks/`` does).
LIMIT_SLACK = 0.5


#: The margin of a whole command on a big input (``timing`` tests): starting Python and reading a
#: 400x400 file (about a second on a busy machine, not yet interruptible) come on top.
BIG_INPUT_SLACK = 2.0


def within_limit(seconds: float, limit: float, slack: float = LIMIT_SLACK) -> bool:
    """Whether a call that took ``seconds`` honoured a ``limit`` (10 % plus ``slack``)."""
    return seconds <= 1.1 * limit + slack


def shared_file(relative: str) -> Path:
    """A file of the shared corpora; the calling test is skipped when it is not there."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"shared corpus file {relative} is absent (expected at {path})")
    return path


def read_lines(path: Path, limit: int | None = None) -> list[str]:
    """The non-empty lines of a puzzle-per-line file, at most ``limit`` of them."""
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    return lines[:limit] if limit is not None else lines


#: Seconds a long test (marked ``slow``, run with ``-m slow``) may take; the rest keep pyproject's 300 s.
SLOW_TIMEOUT = 3600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every slow test the long time limit unless it names its own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


@pytest.fixture(autouse=True)
def _sigint_handler_kept() -> Any:
    """Every test starts with Ctrl-C working in this process, and must leave SIGINT's handler as
    it found it.

    A test run started in the background by a non-interactive shell inherits SIGINT ignored
    (Python then installs no handler of its own): the Ctrl-C tests that signal this process saw no
    KeyboardInterrupt.  So each test starts with SIGINT unblocked and Python's handler installed
    (again: that also puts back its C trampoline, should a C library have left its own), the
    inherited disposition put back after; a test that changes the handler and does not put it
    back fails.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    inherited = signal.getsignal(signal.SIGINT)
    handler = inherited if callable(inherited) else signal.default_int_handler
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, handler)
    try:
        yield
        after = signal.getsignal(signal.SIGINT)
        if after is not handler:
            pytest.fail(f"the test left SIGINT's handler changed ({handler!r} -> {after!r})")
    finally:
        signal.signal(signal.SIGINT, inherited if inherited is not None else signal.SIG_DFL)
