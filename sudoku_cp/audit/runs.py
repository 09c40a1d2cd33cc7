"""One solver's runs on one corpus item, judged: the step every audit repeats, here or in a worker.

A run's seed comes from the base seed, the puzzle and the run (``run_seed``), so a run gives the
same answer wherever it is made; each result carries its place in the audit's output
(``position``), which ``--resume`` keys on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ..backends.base import BackendError
from ..formats import PuzzleItem
from ..grid import Grid
from .answers import Answer, Claim, Verdict
from .judge import RunResult, judge
from .solvers import Solver, answered_late
from .truth import GroundTruth

__all__ = ["item_runs", "judged_answer", "run_count", "run_seed"]


def run_seed(seed: int, index: int, run: int) -> int:
    """The seed of run ``run`` on puzzle ``index``: distinct per pair, reproducible from ``seed``."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return int(np.random.SeedSequence([seed, index, run]).generate_state(1, np.uint32)[0] >> 1)


def run_count(repeatable: bool, item: PuzzleItem, runs: int) -> int:
    """Results an item gives for a solver: ``runs`` if its runs can differ, else one (an invalid
    item gives one result, no run)."""
    return runs if repeatable and item.grid is not None else 1


def item_runs(
    solver: Solver,
    item: PuzzleItem,
    todo: Iterable[int],
    position: int,
    *,
    seed: int,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> Iterator[RunResult]:
    """The runs ``todo`` (numbers from 0) of ``solver`` on ``item``, judged; ``position`` is the
    place of the item's first result in the output."""
    grid = item.grid
    for run in todo:
        if grid is None:
            error = item.error or ""
            yield RunResult(
                solver.name,
                item.index,
                item.line,
                0,
                None,
                Claim.NONE,
                Verdict.INVALID,
                0.0,
                error,
                None,
                position,
            )
        elif not solver.repeatable:
            yield _one_run(solver, item, grid, 0, None, position, time_limit, unique, truth)
        else:
            seed_of_run = run_seed(seed, item.index, run)
            yield _one_run(solver, item, grid, run, seed_of_run, position + run, time_limit, unique, truth)


def judged_answer(
    solver: Solver,
    puzzle: Grid,
    index: int,
    seed: int,
    *,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> tuple[Answer, Verdict, str]:
    """One answer of ``solver`` on ``puzzle`` and its verdict (with why): a correct answer that
    came well past the time limit is a timeout, and a ground truth that fails makes it unknown."""
    answer = solver.answer(puzzle, index, seed, time_limit, unique)
    try:
        verdict, detail = judge(puzzle, answer, lambda: truth(puzzle))
    except BackendError as error:  # no truth, no verdict: never wrong nor correct on a guess
        verdict, detail = Verdict.UNKNOWN, f"no ground truth: {error}"
    if verdict is Verdict.CORRECT and answered_late(answer.seconds, time_limit):
        verdict = Verdict.TIMEOUT
        detail = f"a correct answer after {answer.seconds:.2f} s, past the {time_limit:g} s limit"
    return answer, verdict, detail


def _one_run(
    solver: Solver,
    item: PuzzleItem,
    puzzle: Grid,
    run: int,
    seed: int | None,
    position: int,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> RunResult:
    calls, spent = truth.calls, truth.seconds
    answer, verdict, detail = judged_answer(
        solver, puzzle, item.index, seed or 0, time_limit=time_limit, unique=unique, truth=truth
    )
    shown = answer.solutions[0] if answer.solutions else None
    truth_seconds = truth.seconds - spent if truth.calls > calls else None
    return RunResult(
        solver.name,
        item.index,
        item.line,
        run,
        seed,
        answer.claim,
        verdict,
        answer.seconds,
        detail,
        shown,
        position,
        truth_seconds,
    )
