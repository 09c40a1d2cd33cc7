"""The research matching (Hall) propagator of research/hall_propagator.py answers as CaDiCaL alone.

Research, not the product: not collected by the project's test run; run it with
``.venv/bin/pytest -p no:cacheprovider research/test_hall_propagator.py -m slow -n 0``.

Its clauses (Hall conflicts, Régin removals with their reasons) must be implied by the puzzle
whatever the solver's state: on 16x16 puzzles with many holes, some with a wrong given (often
unsatisfiable), the answer with the propagator equals the answer without it.  Slow: the
propagator's numba kernels compile on first use.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pysat.solvers import Solver

from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.grid import Grid

sys.path.insert(0, str(Path(__file__).resolve().parent))

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _solution(n: int, p: int, q: int) -> np.ndarray:
    """A valid grid with p x q boxes (the pattern solution, rows and digits shuffled within bands)."""
    rows = np.arange(n)
    cols = np.arange(n)
    grid = (q * (rows[:, None] % p) + rows[:, None] // p + cols[None, :]) % n + 1
    return grid.astype(np.int16)


def _answer(puzzle: Grid, hall: bool) -> bool:
    from hall_propagator import HallPropagator

    cnf = encode_cnf(puzzle, "optimized", use="solve")
    if cnf.contradiction:
        return False
    with Solver(name="cadical195") as solver:
        solver.solver.configure({"chrono": 0})
        for block in cnf.blocks():
            solver.append_formula(block.tolist())
        if hall:
            propagator = HallPropagator(cnf.varmap, digits=range(puzzle.n))
            solver.connect_propagator(propagator)
            propagator.setup_observe(solver)
        return bool(solver.solve())


def test_hall_propagator_agrees_with_cadical() -> None:
    geometry = geometry_for_size(16)
    solution = _solution(16, geometry.p, geometry.q)
    assert len({tuple(row) for row in solution}) == 16
    rng = np.random.default_rng(7)
    answers = []
    for trial in range(24):
        values = solution.copy().ravel()
        values[rng.random(values.size) < rng.uniform(0.6, 0.8)] = 0
        if trial % 2:
            values[rng.choice(np.flatnonzero(values))] = rng.integers(1, 17)
        puzzle = Grid(geometry, values.reshape(16, 16))
        plain = _answer(puzzle, hall=False)
        assert _answer(puzzle, hall=True) == plain, f"trial {trial}"
        answers.append(plain)
    assert any(answers) and not all(answers)  # both kinds were checked
