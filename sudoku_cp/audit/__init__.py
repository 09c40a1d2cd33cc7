"""Auditing solvers: run any solver over a corpus and check every answer against SAT ground truth.

A *solver* answers puzzles; three kinds are audited the same way:

* ``BackendSolver``: a backend of the registry (``pysat``, ``cpsat``, ``dlx``, the native ones),
  run in this process with the time limit passed on and a seed per run;
* ``ProgramSolver``: an external program that reads one puzzle line and prints one answer line
  (see ``parse_answer``), killed with its whole process group at the time limit;
* ``AnswerFileSolver``: answers produced elsewhere, one line per puzzle.

Each answer makes a *claim* (``Claim``): a solution, a solution said to be unique, more than one
solution, no solution, or nothing.  ``judge`` turns a claim into a ``Verdict``.  A claimed grid is
checked by the independent checker (complete, valid, keeps the givens), which needs no solver;
claims about the number of solutions ("no solution", "unique", "multiple") are decided by SAT
(python-sat, search limit 2).  ``GroundTruth`` makes that SAT call at most once per puzzle, only
when a claim needs it, and reuses it for every later run and solver.

The package holds one module per concept: ``answers`` (claims, verdicts, reading answers),
``truth`` (SAT ground truth), ``judge`` (verdicts on answers), ``solvers`` (what is run),
``tally`` (per-solver summaries); ``audit`` here runs solvers over a corpus.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..backends.base import BackendError
from ..backends.registry import make_backend
from ..formats import PuzzleItem
from ..grid import Grid
from ..limits import Deadline
from .answers import Answer, AuditError, Claim, Verdict, parse_answer, read_answer_lines
from .judge import RunResult, answer_from_search, judge
from .solvers import (
    BOX_PLACEHOLDER,
    PLACEHOLDER,
    SEED_PLACEHOLDER,
    AnswerFileSolver,
    BackendSolver,
    ProgramSolver,
    Solver,
    answered_late,
)
from .tally import SolverTally, tally
from .truth import GroundTruth, Truth

__all__ = [
    "BOX_PLACEHOLDER",
    "PLACEHOLDER",
    "SEED_PLACEHOLDER",
    "Answer",
    "AnswerFileSolver",
    "AuditError",
    "BackendSolver",
    "Claim",
    "GroundTruth",
    "ProgramSolver",
    "RunResult",
    "Solver",
    "SolverTally",
    "Truth",
    "Verdict",
    "answer_from_search",
    "audit",
    "judge",
    "make_backend",
    "parse_answer",
    "read_answer_lines",
    "run_seed",
    "tally",
]


def run_seed(seed: int, index: int, run: int) -> int:
    """The seed of run ``run`` on puzzle ``index``: distinct per pair, reproducible from ``seed``."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return int(np.random.SeedSequence([seed, index, run]).generate_state(1, np.uint32)[0] >> 1)


def audit(
    items: Sequence[PuzzleItem],
    solvers: Sequence[Solver],
    *,
    runs: int = 1,
    seed: int = 0,
    time_limit: float | None = None,
    unique: bool = False,
    truth: GroundTruth | None = None,
) -> Iterator[RunResult]:
    """Run every solver on every puzzle (``runs`` times if its runs can differ) and judge each answer.

    Results come solver by solver, puzzle by puzzle, run by run; an unreadable corpus item gives
    one INVALID result per solver.  With ``unique`` backends are asked to decide uniqueness.
    ``time_limit`` None or ``inf`` means no limit.
    """
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    time_limit = Deadline(time_limit).seconds  # checked: >= 0, inf is no limit
    truth = truth if truth is not None else GroundTruth()
    for solver in solvers:
        try:
            yield from _audit_solver(solver, items, runs, seed, time_limit, unique, truth)
        finally:
            solver.close()


def _audit_solver(
    solver: Solver,
    items: Sequence[PuzzleItem],
    runs: int,
    seed: int,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> Iterator[RunResult]:
    """One solver's results over the corpus."""
    for item in items:
        if item.grid is None:
            error = item.error or ""
            yield RunResult(
                solver.name, item.index, item.line, 0, None, Claim.NONE, Verdict.INVALID, 0.0, error
            )
            continue
        if not solver.repeatable:
            yield _one_run(solver, item, item.grid, 0, None, time_limit, unique, truth)
            continue
        for run in range(runs):
            seed_of_run = run_seed(seed, item.index, run)
            yield _one_run(solver, item, item.grid, run, seed_of_run, time_limit, unique, truth)


def _one_run(
    solver: Solver,
    item: PuzzleItem,
    puzzle: Grid,
    run: int,
    seed: int | None,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> RunResult:
    answer = solver.answer(puzzle, item.index, seed or 0, time_limit, unique)
    try:
        verdict, detail = judge(puzzle, answer, lambda: truth(puzzle))
    except BackendError as error:
        verdict, detail = Verdict.UNKNOWN, f"no ground truth: {error}"
    if verdict is Verdict.CORRECT and answered_late(answer.seconds, time_limit):
        verdict = Verdict.TIMEOUT
        detail = f"a correct answer after {answer.seconds:.2f} s, past the {time_limit:g} s limit"
    shown = answer.solutions[0] if answer.solutions else None
    return RunResult(
        solver.name, item.index, item.line, run, seed, answer.claim, verdict, answer.seconds, detail, shown
    )
