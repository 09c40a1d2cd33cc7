"""Singles propagation is sound: it keeps every solution's digits and finds only real contradictions."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.formats import parse_grid
from sudoku_cp.generate import blank_cells, random_solution
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.propagation import candidates, propagate, propagate_batch


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 4)])
def test_propagation_never_removes_the_solution(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(sum(shape))
    solutions = [random_solution(g, rng) for _ in range(40)]
    puzzles = [blank_cells(s, rng.uniform(0.3, 0.9), rng) for s in solutions]
    state = propagate_batch(g, np.stack([p.values.reshape(-1) for p in puzzles]))
    assert not state.contradiction.any()
    for k, solution in enumerate(solutions):
        flat = solution.values.reshape(-1)
        placed = state.values[k]
        assert ((placed == 0) | (placed == flat)).all()
        assert state.candidates[k][np.arange(flat.size), flat - 1].all()


def test_easy_puzzles_are_solved_by_singles_alone() -> None:
    easy = parse_grid("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..")
    state = propagate(easy)
    assert (state.values[0] > 0).all() and not state.contradiction[0]


def test_conflicting_givens_and_dead_cells_are_contradictions() -> None:
    clash = parse_grid("11" + "." * 14)
    assert propagate(clash).contradiction[0]
    # R1C4 sees 1, 2 and 3 in its row and 4 in its column: no candidate left.
    dead = parse_grid("123." + "...4" + "." * 8)
    assert propagate(dead).contradiction[0]


def test_givens_only_candidates_exclude_digits_seen_by_peers() -> None:
    g = geometry_for_size(9)
    puzzle = parse_grid(read_lines(DATA / "norvig_top95.txt", 1)[0])
    cand = candidates(puzzle)
    flat = puzzle.values.reshape(-1)
    peers = g.peers()
    for cell in np.flatnonzero(flat == 0)[:20]:
        seen = set(flat[peers[cell]].tolist()) - {0}
        assert set((np.flatnonzero(cand[cell]) + 1).tolist()) == set(range(1, 10)) - seen
