"""The CP-SAT backend: solve, decide uniqueness and count with OR-tools' CP-SAT solver.

``limit == 1`` is one plain solve, with as many workers as asked for.  ``limit > 1`` enumerates
solutions (``enumerate_all_solutions``) through a solution callback that stops the search at the
limit; CP-SAT enumerates with one worker only, so ``workers`` is ignored there.

Statuses are read by ``sudoku_cp.cpsat.solve_verdict`` and ``enumeration_complete``:

=============  ================================  ==================================================
CP-SAT status  plain solve (limit 1)             enumeration (limit > 1)
=============  ================================  ==================================================
OPTIMAL        one solution, not complete        every solution seen: complete, count exact
FEASIBLE       one solution, not complete        stopped at the limit, or by the time limit
INFEASIBLE     no solution, complete             no solution, complete
UNKNOWN        time limit, zero solutions        time limit, zero solutions (never "no solution")
MODEL_INVALID  BackendError                      BackendError
=============  ================================  ==================================================

An enumeration that stopped below the limit was stopped by the time limit.  One deadline per
search covers building the model (stopped there: unknown, "time limit reached during encoding")
and the solve; a model too large for memory is refused before it is built (``BackendError``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
from ortools.sat.python import cp_model

from ..cpsat import (
    CpsatModelError,
    CpsatModelKind,
    SudokuCpModel,
    build_cpsat_model,
    check_cpsat_size,
    enumeration_complete,
    new_solver,
    run_solver,
    solution_vector,
    solve_verdict,
)
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, TimeLimitReached
from ..outcome import REASON_TIME_LIMIT
from .base import BackendError, SearchResult, refusal, stopped
from .confirm import ConfirmedOneByOne

__all__ = ["CpsatBackend"]

_T = TypeVar("_T")

_CHECK_BATCH = 4096
"""Solutions checked at once while only counting (keep=False), so memory stays bounded."""

_START_SECONDS = {CpsatModelKind.BOOL: 2.5e-6, CpsatModelKind.ALLDIFF: 1.5e-5}
"""Seconds per candidate CP-SAT spends loading and presolving a model before its time limit holds.

CP-SAT looks at its clock only between presolve steps, and a big presolve stopped by it can take
seconds to wind down (400x400 alldiff: 14 s for a 0.5 s limit, 11 s for 8 s).  Measured with
OR-tools 9.15 on two cores: about 2.5 us per Boolean variable of the bool model (144x144: 7 s
whatever the limit) and 15 us per candidate of the alldiff model (400x400: 7 s).  With less than
twice that left, the search is not started: it could not answer in time.
"""


class _Collector(cp_model.CpSolverSolutionCallback):
    """Decodes each solution, keeps it or (counting only) checks it in batches, and stops the
    search at the limit.  Kept grids are checked by ``base.checked_answers``; counted ones are not
    returned, so they are checked here, a batch at a time, to keep memory bounded."""

    def __init__(self, model: SudokuCpModel, puzzle: Grid, limit: int, keep: bool, backend: str) -> None:
        super().__init__()
        self.model = model
        self.puzzle = puzzle
        self.limit = limit
        self.keep = keep
        self.backend = backend
        self.count = 0
        self.pending: list[np.ndarray] = []
        self.kept: list[np.ndarray] = []
        self.error: BackendError | None = None

    def on_solution_callback(self) -> None:
        if self.count >= self.limit or self.error is not None:
            return
        self.count += 1
        self.pending.append(self.model.decode_vector(solution_vector(self)))
        if not self.keep and len(self.pending) >= _CHECK_BATCH:
            self.flush()
        if self.count >= self.limit or self.error is not None:
            self.stop_search()

    def flush(self) -> None:
        """Check the pending solutions of a count-only search and drop them."""
        if self.pending and self.error is None:
            problem = refusal(
                self.puzzle.geometry, self.puzzle.values.reshape(-1), np.stack(self.pending), self.backend
            )
            if problem is not None:
                self.error = BackendError(problem)
        self.pending.clear()


class CpsatBackend(ConfirmedOneByOne):
    """Whole puzzles with CP-SAT over the bool or alldiff model of ``sudoku_cp.cpsat``."""

    def __init__(self, kind: CpsatModelKind | str = "bool", workers: int = 1, seed: int = 0) -> None:
        self.kind = CpsatModelKind(kind)
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.seed = seed
        self.name = "cpsat" if self.kind is CpsatModelKind.BOOL else f"cpsat:{self.kind.value}"

    def _solver(self, time_limit: float | None, workers: int) -> cp_model.CpSolver:
        return new_solver(workers=workers, seed=self.seed, time_limit=time_limit)

    def search_one(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> SearchResult:
        """Raw: up to ``limit`` solutions of ``puzzle``; ``keep=False``: only count them (checked here)."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        deadline = Deadline(time_limit)
        try:
            size = check_cpsat_size(puzzle, self.kind, "solve", deadline)
            if time_limit is None:  # nothing to watch while the model is built
                model = build_cpsat_model(puzzle, self.kind)
            else:
                model = build_cpsat_model(puzzle, self.kind, deadline=deadline)
        except TimeLimitReached as stop:
            return stopped(puzzle.n, str(stop))
        except ModelTooLarge as error:
            raise BackendError(f"backend {self.name}: {error}") from None
        left = deadline.remaining()
        start = _START_SECONDS[self.kind] * size
        if left is not None and left < 2 * start:
            reason = f"{REASON_TIME_LIMIT} before the search: CP-SAT takes about {start:.1f} s "
            return stopped(puzzle.n, reason + "to load and presolve this model, too long for the time left")
        if limit == 1:
            return self._solve_one(puzzle, model, left, keep)
        return self._enumerate(puzzle, model, limit, left, keep)

    def _solve_one(
        self, puzzle: Grid, model: SudokuCpModel, time_limit: float | None, keep: bool
    ) -> SearchResult:
        solver = self._solver(time_limit, self.workers)
        status = run_solver(solver, model.model)
        verdict = self._verdict(solve_verdict, status, model)
        n = puzzle.n
        stats = _stats(solver, status)
        none = np.empty((0, n, n), dtype=np.int16)
        if verdict is None:
            return SearchResult(none, complete=False, stats=stats, reason=REASON_TIME_LIMIT)
        if not verdict:
            return SearchResult(none, complete=True, stats=stats)
        found = model.decode(solver)[None]
        if not keep:
            problem = refusal(puzzle.geometry, puzzle.values.reshape(-1), found, self.name)
            if problem is not None:
                raise BackendError(problem)
        return SearchResult(found if keep else found[:0], complete=False, count=len(found), stats=stats)

    def _enumerate(
        self, puzzle: Grid, model: SudokuCpModel, limit: int, time_limit: float | None, keep: bool
    ) -> SearchResult:
        solver = self._solver(time_limit, 1)
        solver.parameters.enumerate_all_solutions = True
        collector = _Collector(model, puzzle, limit, keep, self.name)
        status = run_solver(solver, model.model, collector)
        complete = self._verdict(enumeration_complete, status, model)
        n = puzzle.n
        if keep:
            solutions = np.stack(collector.pending) if collector.pending else np.empty((0, n, n), np.int16)
        else:
            collector.flush()
            solutions = np.empty((0, n, n), dtype=np.int16)
        if collector.error is not None:
            raise collector.error
        stopped_early = not complete and collector.count < limit
        return SearchResult(
            solutions,
            complete=complete,
            count=collector.count,
            stats=_stats(solver, status),
            reason=REASON_TIME_LIMIT if stopped_early else None,
        )

    def _verdict(
        self, read: Callable[[object, cp_model.CpModel], _T], status: object, model: SudokuCpModel
    ) -> _T:
        """``read(status)``, a rejected model reported as this backend's failure."""
        try:
            return read(status, model.model)
        except CpsatModelError as error:
            raise BackendError(f"backend {self.name}: {error}") from error


def _stats(solver: cp_model.CpSolver, status: object) -> dict[str, float | int]:
    """Solver statistics of the last solve: conflicts, branches, wall and deterministic time."""
    return {
        "conflicts": int(solver.num_conflicts),
        "branches": int(solver.num_branches),
        "wall_time": float(solver.wall_time),
        "deterministic_time": float(solver.deterministic_time),
        "booleans": int(solver.num_booleans),
        "status": int(getattr(status, "value", -1)),
    }
