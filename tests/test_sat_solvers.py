"""python-sat solvers by name (``sat_solvers``), and the solvers that solve a formula only once.

python-sat's kissat takes no clause after a solve (the C library aborts the process: ``count``
used to end in SIGABRT) and ignores assumptions.  Such a solver answers whole puzzles one at a
time, a new solver per model when solutions are enumerated, and is refused where an incremental
one is needed; its counts agree with CaDiCaL's.
"""

from __future__ import annotations

import pytest

import sudoku_cp as sc
from sudoku_cp.backends.base import BackendError
from sudoku_cp.backends.pysat_backend import IncrementalPysat
from sudoku_cp.backends.pysat_batch import BatchPysat
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.sat_solvers import canonical_solver, incremental, solver_names

ONCE = "kissat404"
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
PUZZLES = [
    HARD,  # unique
    HARD[:-7] + ".......",  # one given fewer: several solutions
    "." * 81,  # very many
    "12" + "." * 79,  # several
    "11" + "." * 79,  # a direct clash: none
    "....2....." + "." * 71,  # several
]

needs_once_only = pytest.mark.skipif(ONCE not in solver_names(), reason=f"this python-sat has no {ONCE}")


def test_names_resolve_through_aliases_and_unknown_names_are_refused() -> None:
    assert canonical_solver("cd15") == canonical_solver("cadical153") == "cadical153"
    assert incremental("cadical195") and incremental("g4")
    with pytest.raises(ValueError, match="unknown python-sat solver 'nope'"):
        canonical_solver("nope")


@needs_once_only
@pytest.mark.parametrize("puzzle", PUZZLES)
@pytest.mark.parametrize("limit", [1, 2, 5])
def test_a_once_only_solver_counts_as_cadical_does(puzzle: str, limit: int) -> None:
    grid = sc.parse_grid(puzzle)
    once = sc.count_solutions(grid, f"pysat:{ONCE}", limit=limit)
    reference = sc.count_solutions(grid, "pysat:cadical195", limit=limit)
    assert (once.count, once.exact) == (reference.count, reference.exact)


@needs_once_only
def test_a_once_only_solver_is_refused_where_assumptions_are_needed() -> None:
    assert not incremental(ONCE)
    with pytest.raises(BackendError, match="solves a formula once"):
        IncrementalPysat(geometry_for_size(9), ONCE)
    with pytest.raises(BackendError, match="solves a formula once"):
        BatchPysat(ONCE)
