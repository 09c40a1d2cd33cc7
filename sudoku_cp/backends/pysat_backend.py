"""python-sat backends: any of its solvers by name, on a per-puzzle CNF or incrementally per geometry.

Time limits: solvers that support ``interrupt`` are interrupted by a timer; the others (CaDiCaL
1.9.5 among them) run in slices of a growing conflict budget with the clock checked between
slices.  Either way an unfinished search is reported as timed out, never as unsatisfiable.

Counting adds, after each model, a clause that blocks that model's grid variables only (not
auxiliary variables), so each grid is counted once whatever the at-most-one encoding.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
from pysat.solvers import Solver, SolverNames

from ..cnf.sudoku import AmoEncoding, CnfEncoding, SudokuCnf, encode_cnf, encode_geometry_cnf
from ..cnf.varmap import GridVarMap
from ..geometry import Geometry
from ..grid import Grid
from ..propagation import propagate
from .base import BackendError, SearchResult, checked_solutions

__all__ = ["DEFAULT_SOLVER", "IncrementalPysat", "PysatBackend", "pysat_solver_names", "run_limited"]

DEFAULT_SOLVER = "cadical195"


def pysat_solver_names() -> list[str]:
    """Every solver name (and alias) python-sat accepts."""
    return sorted({alias for attr in vars(SolverNames) if not attr.startswith("_")
                   for alias in getattr(SolverNames, attr)})


def _check_name(name: str) -> str:
    if name not in pysat_solver_names():
        raise BackendError(f"unknown pysat solver {name!r}; choose from {', '.join(pysat_solver_names())}")
    return name


def run_limited(solver: Solver, assumptions: Sequence[int], deadline: float | None) -> bool | None:
    """Solve under assumptions before a monotonic-clock deadline: True, False, or None when time ran out."""
    if deadline is None:
        return bool(solver.solve(assumptions=assumptions))
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        budget = 1000
        while True:
            solver.conf_budget(budget)
            answer = solver.solve_limited(assumptions=assumptions)
            if answer is not None:
                return bool(answer)
            if time.monotonic() >= deadline:
                return None
            budget = min(budget * 2, 200_000)
    timer = threading.Timer(remaining, solver.interrupt)
    timer.start()
    try:
        answer = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
    return None if answer is None else bool(answer)


def _enumerate(
    solver: Solver,
    varmap: GridVarMap,
    limit: int,
    deadline: float | None,
    assumptions: Sequence[int] = (),
    activation: int = 0,
) -> tuple[list[np.ndarray], bool, bool]:
    """Models of the grid variables, blocked one by one: (solutions, complete, timed_out)."""
    solutions: list[np.ndarray] = []
    while len(solutions) < limit:
        answer = run_limited(solver, list(assumptions) + ([activation] if activation else []), deadline)
        if answer is None:
            return solutions, False, True
        if not answer:
            return solutions, True, False
        values = varmap.decode(solver.get_model())
        solutions.append(values)
        block = (-varmap.solution_literals(values)).tolist()
        if not block:  # no open variable: this was the only model
            return solutions, True, False
        solver.add_clause(block + ([-activation] if activation else []))
    return solutions, False, False


class PysatBackend:
    """A python-sat solver on the CNF model of each puzzle (optimized encoding by default)."""

    def __init__(
        self,
        solver: str = DEFAULT_SOLVER,
        encoding: CnfEncoding | str = CnfEncoding.OPTIMIZED,
        amo: AmoEncoding | str = AmoEncoding.PAIRWISE,
    ) -> None:
        self.solver = _check_name(solver)
        self.encoding = CnfEncoding(encoding)
        self.amo = AmoEncoding(amo)
        self.name = f"pysat:{solver}"

    def encode(self, puzzle: Grid) -> SudokuCnf:
        """The CNF model this backend solves."""
        return encode_cnf(puzzle, self.encoding, self.amo)

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions with the chosen solver."""
        start = time.monotonic()
        deadline = None if time_limit is None else start + time_limit
        cnf = self.encode(puzzle)
        stats: dict[str, float | int] = {"variables": cnf.n_vars, "clauses": cnf.n_clauses}
        if cnf.contradiction:
            return SearchResult(np.zeros((0, puzzle.n, puzzle.n), np.int16), True, stats=stats)
        with Solver(name=self.solver, bootstrap_with=cnf.clauses()) as solver:
            found, complete, timed_out = _enumerate(solver, cnf.varmap, limit, deadline)
            stats.update(solver.accum_stats() or {})
        return _result(puzzle, found, complete, timed_out, keep, self.name, stats)


def _result(
    puzzle: Grid,
    found: list[np.ndarray],
    complete: bool,
    timed_out: bool,
    keep: bool,
    name: str,
    stats: dict[str, float | int],
) -> SearchResult:
    n = puzzle.n
    stack = np.stack(found) if found else np.zeros((0, n, n), dtype=np.int16)
    stack = checked_solutions(puzzle, stack, name)
    count = len(stack)
    if not keep:
        stack = stack[:0]
    return SearchResult(stack, complete, timed_out, count, stats)


class IncrementalPysat:
    """One solver per geometry holding the extended encoding of the empty grid.

    Each puzzle is solved under assumptions: the digits that singles propagation placed.
    Blocking clauses carry a per-puzzle activation literal, retired after the puzzle, so the
    shared formula never changes meaning.
    """

    def __init__(self, geometry: Geometry, solver: str = DEFAULT_SOLVER) -> None:
        self.geometry = geometry
        self.name = f"pysat:{_check_name(solver)}"
        self._cnf = encode_geometry_cnf(Grid.empty(geometry))
        self._solver = Solver(name=solver, bootstrap_with=self._cnf.clauses())
        self._next_var = self._cnf.n_vars + 1

    def close(self) -> None:
        """Free the native solver."""
        self._solver.delete()

    def __enter__(self) -> IncrementalPysat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(
        self,
        puzzle: Grid,
        limit: int = 1,
        time_limit: float | None = None,
        keep: bool = True,
        placed: np.ndarray | None = None,
    ) -> SearchResult:
        """Find up to ``limit`` solutions; ``placed`` may carry an earlier propagation of the puzzle."""
        if puzzle.geometry != self.geometry:
            raise BackendError(f"incremental solver is for {self.geometry.box_label} boxes")
        start = time.monotonic()
        deadline = None if time_limit is None else start + time_limit
        if placed is None:
            state = propagate(puzzle)
            if state.contradiction[0]:
                return _result(puzzle, [], True, False, keep, self.name, {})
            placed = state.values[0]
        cells = np.flatnonzero(placed)
        assumptions = self._cnf.varmap.index[cells, placed[cells].astype(np.int64) - 1].tolist()
        if len(cells) == placed.size:  # propagation alone solved it: the solution is forced
            return _result(puzzle, [placed.reshape(puzzle.n, puzzle.n)], True, False, keep, self.name, {})
        activation = 0
        if limit > 1:
            activation = self._next_var
            self._next_var += 1
        found, complete, timed_out = _enumerate(
            self._solver, self._cnf.varmap, limit, deadline, assumptions, activation
        )
        if activation:
            self._solver.add_clause([-activation])
        return _result(puzzle, found, complete, timed_out, keep, self.name, {})
