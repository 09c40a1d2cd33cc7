"""python-sat backends: any of its solvers by name, on a per-puzzle CNF, incrementally, or in batches.

* ``PysatBackend``: one puzzle, one solver on its CNF model (CaDiCaL 1.9.5 and the optimized
  encoding by default).
* ``IncrementalPysat``: one solver per geometry on the empty grid, puzzles under assumptions.
* The batch path (``PysatBatchBackend``, ``BatchPysat``) lives in ``pysat_batch``.

Time limits: one ``limits.Deadline`` per puzzle covers propagation, encoding, loading the
solver and the search.  The phases before the search check it as they go and stop with
``limits.TimeLimitReached`` (unknown, "time limit reached during propagation"); the search runs
through ``limits.solve_limited`` (a timer interrupts the solvers that can be interrupted; the
others, CaDiCaL 1.9.5 among them, run in slices of a conflict budget paced to the time left).
Either way an unfinished search is unknown (``outcome.REASON_TIME_LIMIT``), never unsatisfiable.
A CNF model too large for memory is refused before it is built (a ``BackendError`` naming its
estimated size), never a MemoryError.

Counting adds, after each model, a clause that blocks that model's grid variables only (not
auxiliary variables), so each grid is counted once whatever the at-most-one encoding.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from pysat.solvers import Solver, SolverNames

from ..cnf.sudoku import AmoEncoding, CnfEncoding, SudokuCnf, encode_cnf, encode_geometry_cnf
from ..cnf.varmap import GridVarMap
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from ..propagation import propagate
from .base import BackendError, SearchResult, checked_solutions, stopped

__all__ = [
    "BATCH_SOLVER",
    "DEFAULT_SOLVER",
    "IncrementalPysat",
    "PysatBackend",
    "pysat_solver_names",
]

DEFAULT_SOLVER = "cadical195"
BATCH_SOLVER = "minicard"


def pysat_solver_names() -> list[str]:
    """Every solver name (and alias) python-sat accepts."""
    names = (getattr(SolverNames, attr) for attr in vars(SolverNames) if not attr.startswith("_"))
    return sorted({alias for aliases in names for alias in aliases})


def check_solver_name(name: str) -> str:
    if name not in pysat_solver_names():
        raise BackendError(f"unknown pysat solver {name!r}; choose from {', '.join(pysat_solver_names())}")
    return name


def _enumerate(
    solver: Solver,
    varmap: GridVarMap,
    limit: int,
    deadline: Deadline,
    assumptions: Sequence[int] = (),
    activation: int = 0,
) -> tuple[list[np.ndarray], bool, str | None]:
    """Models of the grid variables, blocked one by one: (solutions, complete, reason)."""
    solutions: list[np.ndarray] = []
    while len(solutions) < limit:
        answer = solve_limited(solver, list(assumptions) + ([activation] if activation else []), deadline)
        if answer is None:
            return solutions, False, REASON_TIME_LIMIT
        if not answer:
            return solutions, True, None
        values = varmap.decode(solver.get_model())
        solutions.append(values)
        if len(solutions) >= limit:  # no block: in a shared solver it would hide this grid for good
            break
        block = (-varmap.solution_literals(values)).tolist()
        if not block:  # no open variable: this was the only model
            return solutions, True, None
        solver.add_clause(block + ([-activation] if activation else []))
    return solutions, False, None


class PysatBackend:
    """A python-sat solver on the CNF model of each puzzle (optimized encoding by default)."""

    def __init__(
        self,
        solver: str = DEFAULT_SOLVER,
        encoding: CnfEncoding = CnfEncoding.OPTIMIZED,
        amo: AmoEncoding = AmoEncoding.PAIRWISE,
    ) -> None:
        self.solver = check_solver_name(solver)
        self.encoding = encoding
        self.amo = amo
        self.name = f"pysat:{solver}"

    def encode(self, puzzle: Grid, deadline: Deadline | None = None) -> SudokuCnf:
        """The CNF model this backend solves (``BackendError`` when it cannot fit in memory)."""
        try:
            return encode_cnf(puzzle, self.encoding, self.amo, deadline=deadline, use="solve")
        except ModelTooLarge as error:
            raise BackendError(f"{self.name}: {error}") from None

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions with the chosen solver."""
        deadline = Deadline(time_limit)
        try:
            cnf = self.encode(puzzle, deadline)
        except TimeLimitReached as stop:
            return stopped(puzzle.n, str(stop))
        stats: dict[str, float | int] = {"variables": cnf.n_vars, "clauses": cnf.n_clauses}
        if cnf.contradiction:
            return SearchResult(np.zeros((0, puzzle.n, puzzle.n), np.int16), True, stats=stats)
        with Solver(name=self.solver) as solver:
            try:
                _load_clauses(solver, cnf, deadline)
            except TimeLimitReached as stop:
                return stopped(puzzle.n, str(stop), stats)
            found, complete, reason = _enumerate(solver, cnf.varmap, limit, deadline)
            stats.update(solver.accum_stats() or {})
        return _result(puzzle, found, complete, reason, keep, self.name, stats)


_FREE_SECONDS = 1.2e-7
"""Seconds to free one loaded clause when the solver is deleted (CaDiCaL 1.9.5; others take less)."""


def _load_clauses(solver: Solver, cnf: SudokuCnf, deadline: Deadline) -> None:
    """Give a solver every clause of ``cnf``, a chunk at a time, within the deadline ("encoding").

    Loading stops while there is still time to free what was loaded (a few million clauses take
    a few tenths of a second to delete).
    """
    clauses = cnf.clauses()
    loaded = 0
    while chunk := list(itertools.islice(clauses, 1 << 16)):
        left = deadline.remaining()
        if left is not None and left <= loaded * _FREE_SECONDS:
            raise TimeLimitReached("encoding")
        solver.append_formula(chunk)
        loaded += len(chunk)


def _result(
    puzzle: Grid,
    found: list[np.ndarray],
    complete: bool,
    reason: str | None,
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
    return SearchResult(stack, complete, count=count, stats=stats, reason=reason)


class IncrementalPysat:
    """One solver per geometry holding the extended encoding of the empty grid.

    Each puzzle is solved under assumptions: the digits that singles propagation placed.
    Blocking clauses carry a per-puzzle activation literal, retired after the puzzle, so the
    shared formula never changes meaning.
    """

    def __init__(self, geometry: Geometry, solver: str = DEFAULT_SOLVER) -> None:
        self.geometry = geometry
        self.name = f"pysat:{check_solver_name(solver)}"
        self._cnf = encode_geometry_cnf(Grid.empty(geometry))
        self._solver = Solver(name=solver, bootstrap_with=self._cnf.clauses())
        self._next_var = self._cnf.n_vars + 1

    def close(self) -> None:
        """Free the native solver."""
        self._solver.delete()

    def accum_stats(self) -> dict[str, int]:
        """The solver's running totals (conflicts, decisions, ...) where it reports them."""
        return dict(self._solver.accum_stats() or {})

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
        deadline = Deadline(time_limit)
        if placed is None:
            try:
                state = propagate(puzzle, deadline=deadline)
            except TimeLimitReached as stop:
                return stopped(puzzle.n, str(stop))
            if state.contradiction[0]:
                return _result(puzzle, [], True, None, keep, self.name, {})
            placed = state.values[0]
        cells = np.flatnonzero(placed)
        assumptions = self._cnf.varmap.index[cells, placed[cells].astype(np.int64) - 1].tolist()
        if len(cells) == placed.size:  # propagation alone solved it: the solution is forced
            return _result(puzzle, [placed.reshape(puzzle.n, puzzle.n)], True, None, keep, self.name, {})
        activation = 0
        if limit > 1:
            activation = self._next_var
            self._next_var += 1
        found, complete, reason = _enumerate(
            self._solver, self._cnf.varmap, limit, deadline, assumptions, activation
        )
        if activation:
            self._solver.add_clause([-activation])
        return _result(puzzle, found, complete, reason, keep, self.name, {})
