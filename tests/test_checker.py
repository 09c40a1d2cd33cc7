"""The independent checker catches every kind of wrong answer."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.checker import given_conflict, solution_problem, valid_completions, valid_solutions_mask
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.random_grids import blank_cells, random_solution


def _pair(seed: int = 0) -> tuple:
    g = Geometry(3, 3)
    rng = np.random.default_rng(seed)
    solution = random_solution(g, rng)
    return blank_cells(solution, 0.6, rng), solution


def test_a_valid_completion_passes() -> None:
    puzzle, solution = _pair()
    assert solution_problem(puzzle, solution) is None
    assert valid_solutions_mask(puzzle, solution.values[None]).tolist() == [True]


def test_swapped_digits_break_a_unit_and_are_named() -> None:
    puzzle, solution = _pair(1)
    values = solution.values.copy()
    values[0, 0], values[0, 1] = values[0, 1], values[0, 0]
    wrong = solution.with_values(values)
    assert not valid_solutions_mask(puzzle.with_values(np.zeros((9, 9))), values[None])[0]
    assert "column" in (solution_problem(puzzle.with_values(np.zeros((9, 9))), wrong) or "")


def test_a_changed_given_is_reported_with_its_cell() -> None:
    puzzle, solution = _pair(2)
    given = int(np.flatnonzero(puzzle.values.reshape(-1))[0])
    values = solution.values.reshape(-1).copy()
    values[given] = values[given] % 9 + 1
    problem = solution_problem(puzzle, solution.with_values(values))
    assert problem is not None and Geometry(3, 3).cell_name(given) in problem


def test_empty_cells_are_not_a_solution() -> None:
    puzzle, solution = _pair(3)
    assert solution_problem(puzzle, puzzle) is not None
    assert not valid_solutions_mask(puzzle, puzzle.values[None])[0]


def test_equal_givens_in_a_box_are_named() -> None:
    g = Geometry(2, 3)
    values = np.zeros((6, 6), dtype=np.int16)
    values[0, 0] = values[1, 2] = 5
    assert given_conflict(Grid(g, values)) == "R1C1 and R2C3 both hold 5 in box 1"


@given(
    st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 4), (8, 8)]),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["none", "swap", "given", "blank", "range"]),
)
def test_the_batch_checker_agrees_with_the_single_grid_checker(
    shape: tuple[int, int], seed: int, damage: str
) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(seed)
    puzzles, solutions = [], []
    for _ in range(4):
        solution = random_solution(g, rng)
        puzzle = blank_cells(solution, 0.5, rng)
        values = solution.values.reshape(-1).copy()
        cell = int(rng.integers(g.n * g.n))
        if damage == "swap":
            values[cell], values[cell - 1] = values[cell - 1], values[cell]
        elif damage == "given":
            values = np.where(puzzle.values.reshape(-1) > 0, values % g.n + 1, values)
        elif damage == "blank":
            values[cell] = 0
        elif damage == "range":
            values[cell] = g.n + 1
        puzzles.append(puzzle.values.reshape(-1))
        solutions.append(values)
    found = valid_completions(g, np.stack(puzzles), np.stack(solutions))
    in_range = [values.min() >= 1 and values.max() <= g.n for values in solutions]
    expected = [
        fine and solution_problem(Grid(g, puzzle), Grid(g, values)) is None
        for puzzle, values, fine in zip(puzzles, solutions, in_range, strict=True)
    ]
    assert found.tolist() == expected
