"""A generated puzzle's uniqueness checked by a solver the generator never uses (shared by tests)."""

from __future__ import annotations

import numpy as np

from sudoku_cp.checker import solution_problem
from sudoku_cp.cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from sudoku_cp.grid import Grid


def assert_unique_by_glucose(puzzle: Grid, solution: Grid) -> None:
    """``solution`` solves ``puzzle``, and a fresh glucose4 on the extended formula (pairwise "at
    most one") with that solution blocked finds no other."""
    from pysat.solvers import Solver

    assert solution_problem(puzzle, solution) is None
    givens = np.asarray(puzzle.values).reshape(-1)
    digits = np.asarray(solution.values).reshape(-1)
    cnf = encode_cnf(puzzle, CnfEncoding.EXTENDED, AmoEncoding.PAIRWISE, use="solve")
    index = cnf.varmap.index
    blocked = [-int(index[c, int(digits[c]) - 1]) for c in range(givens.size) if givens[c] == 0]
    solver = Solver(name="glucose4", bootstrap_with=cnf.clauses())
    try:
        solver.add_clause([v for v in blocked if v != 0])
        assert solver.solve() is False
    finally:
        solver.delete()
