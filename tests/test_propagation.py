"""Propagation is sound: every rule keeps every solution's digits and finds only real contradictions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.backends.pysat_backend import PysatBackend
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.propagation import candidates, propagate, propagate_batch
from sudoku_cp.random_grids import blank_cells, random_solution


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


RULES: list[dict[str, Any]] = [{"locked": True}, {"pairs": True}, {"locked": True, "pairs": True}]
SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4)]


def _keeps(state_values: np.ndarray, state_candidates: np.ndarray, solutions: np.ndarray) -> np.ndarray:
    """Per puzzle: every placed digit is the solution's and every solution digit is still a candidate."""
    placed_ok = ((state_values == 0) | (state_values == solutions)).all(axis=1)
    rows = np.arange(len(solutions))[:, None]
    cells = np.arange(solutions.shape[1])[None, :]
    return placed_ok & state_candidates[rows, cells, solutions - 1].all(axis=1)


@settings(max_examples=30)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.floats(0.3, 0.9), st.sampled_from(RULES))
def test_stronger_rules_never_remove_a_solution_digit(
    shape: tuple[int, int], seed: int, blank: float, rules: dict[str, Any]
) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(seed)
    solutions = [random_solution(g, rng) for _ in range(12)]
    puzzles = [blank_cells(s, blank, rng) for s in solutions]
    stack = np.stack([s.values.reshape(-1) for s in solutions])
    state = propagate_batch(g, np.stack([p.values.reshape(-1) for p in puzzles]), **rules)
    assert not state.contradiction.any()
    assert _keeps(state.values, state.candidates, stack).all()
    singles = propagate_batch(g, np.stack([p.values.reshape(-1) for p in puzzles]))
    assert (state.candidates <= singles.candidates).all()  # the stronger rules only remove more


@pytest.mark.parametrize("rules", RULES)
def test_corpus_puzzles_keep_their_solution(rules: dict[str, Any]) -> None:
    lines = read_lines(DATA / "norvig_top95.txt") + read_lines(DATA / "forum_hardest_200.txt", 60)
    puzzles = [parse_grid(line) for line in lines]
    backend = PysatBackend()
    solutions = np.stack([backend.search(p).solutions[0].reshape(-1) for p in puzzles])
    state = propagate_batch(geometry_for_size(9), np.stack([p.values.reshape(-1) for p in puzzles]), **rules)
    assert not state.contradiction.any()
    assert _keeps(state.values, state.candidates, solutions).all()


def test_stronger_rules_remove_more_on_norvig_top95() -> None:
    lines = read_lines(DATA / "norvig_top95.txt")
    puzzles = np.stack([parse_grid(line).values.reshape(-1) for line in lines])
    g = geometry_for_size(9)
    sizes = [int(propagate_batch(g, puzzles, **rules).candidates.sum()) for rules in ({}, *RULES)]
    assert sizes[0] > sizes[1] > sizes[3] and sizes[0] > sizes[2] > sizes[3]


def _grid(cells: dict[tuple[int, int], int]) -> np.ndarray:
    """A 9x9 puzzle from {(row, column): digit}, 0-based."""
    values = np.zeros((9, 9), dtype=np.int16)
    for (r, c), d in cells.items():
        values[r, c] = d
    return values


def test_pointing_and_claiming_on_hand_made_grids() -> None:
    g = geometry_for_size(9)
    # Rows 2 and 3 of box 1 are full without a 1, so box 1's 1 is on row 1: the rest of row 1 loses 1.
    pointing = _grid({(1, 0): 2, (1, 1): 3, (1, 2): 4, (2, 0): 5, (2, 1): 6, (2, 2): 7})
    cand = propagate_batch(g, pointing[None], locked=True).candidates[0]
    assert not cand[3:9, 0].any() and cand[0:3, 0].all()
    assert propagate_batch(g, pointing[None]).candidates[0][3:9, 0].all()  # singles do not see it
    # Column 1 holds 1-6 below box 1, so its 7, 8, 9 lie in box 1: columns 2-3 of box 1 lose them.
    claiming = _grid({(r, 0): r - 2 for r in range(3, 9)})
    cand = propagate_batch(g, claiming[None], locked=True).candidates[0]
    box_rest = [r * 9 + c for r in range(3) for c in (1, 2)]
    assert not cand[box_rest][:, 6:9].any()
    assert propagate_batch(g, claiming[None]).candidates[0][box_rest][:, 6:9].all()


def test_naked_and_hidden_pairs_on_a_hand_made_grid() -> None:
    g = geometry_for_size(9)
    # Columns 1 and 2 hold 3-9 in rows 2-8, so R1C1 and R1C2 can only hold 1 or 2: a naked pair.
    columns = ([3, 4, 5, 6, 7, 8, 9], [5, 6, 8, 9, 3, 4, 7])
    puzzle = _grid({(r + 1, c): d for c, column in enumerate(columns) for r, d in enumerate(column)})
    cand = propagate_batch(g, puzzle[None], pairs=True).candidates[0]
    assert not cand[2:9, 0:2].any() and cand[0:2, 0:2].all()
    assert propagate_batch(g, puzzle[None]).candidates[0][2:9, 0:2].all()
    # Row 1's 1 and 2 fit only R1C1 and R1C2 (the other cells see both), a hidden pair: those two
    # cells lose every other digit.
    hidden = _grid({(1, 3): 1, (2, 4): 2, (1, 6): 2, (2, 7): 1, (3, 2): 1, (6, 2): 2})
    cand = propagate_batch(g, hidden[None], pairs=True).candidates[0]
    assert not cand[0:2, 2:].any() and cand[0:2, 0:2].all()
    assert propagate_batch(g, hidden[None]).candidates[0][0:2, 2:].all()


def test_stronger_rules_find_contradictions_only_in_unsolvable_puzzles() -> None:
    rng = np.random.default_rng(7)
    g = geometry_for_size(9)
    backend = PysatBackend()
    found = 0
    for _ in range(60):
        solution = random_solution(g, rng)
        puzzle = blank_cells(solution, 0.7, rng).values.reshape(-1).copy()
        empty = np.flatnonzero(puzzle == 0)
        cell = int(rng.choice(empty))
        puzzle[cell] = (solution.values.reshape(-1)[cell] % 9) + 1  # a wrong digit, maybe no clash
        grid = parse_grid("".join(str(v) if v else "." for v in puzzle))
        for rules in RULES:
            if propagate(grid, **rules).contradiction[0]:
                found += 1
                assert backend.search(grid).count == 0
    assert found > 0


@pytest.mark.parametrize("rules", [{}, {"singles": False}, *RULES])
def test_a_batch_propagates_each_puzzle_as_if_alone(rules: dict[str, Any]) -> None:
    # Puzzles leave the batch at different rounds (contradictions, fixpoints): their candidates
    # must come out as they would alone.
    rng = np.random.default_rng(11)
    for shape in [(2, 3), (3, 3), (4, 4)]:
        g = Geometry(*shape)
        solutions = [random_solution(g, rng) for _ in range(12)]
        stack = np.stack([blank_cells(s, rng.uniform(0.2, 0.9), rng).values.reshape(-1) for s in solutions])
        stack[::4, 0] = stack[::4, 1]  # some clashes: contradictions at the first round
        batch = propagate_batch(g, stack, **rules)
        for k, values in enumerate(stack):
            alone = propagate_batch(g, values[None], **rules)
            assert (batch.values[k] == alone.values[0]).all()
            assert (batch.candidates[k] == alone.candidates[0]).all()
            assert batch.contradiction[k] == alone.contradiction[0]


def test_rows_columns_and_boxes_are_counted_in_the_units_order() -> None:
    from sudoku_cp.propagation.vectorized import _unit_digit_counts

    rng = np.random.default_rng(5)
    for shape in [(2, 3), (3, 2), (2, 5), (4, 3)]:
        g = Geometry(*shape)
        onehot = rng.random((3, g.n * g.n, g.n)) < 0.4
        expected = onehot[:, g.units, :].sum(axis=2)
        assert (_unit_digit_counts(g, onehot) == expected).all()
