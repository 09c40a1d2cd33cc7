"""verify.py against a brute-force oracle written here, with plain loops and nothing of sudoku_cp.

The oracle enumerates rows, columns and boxes by hand (a box PxQ is P rows by Q columns) and reads
each value as the Python object it is, so a bug shared by the checker and the geometry or the
generator cannot pass both.  Grids come from a construction of their own (not our generator).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.checker import (
    VerificationError,
    check_solution,
    given_conflict,
    solution_problem,
    valid_completions,
    valid_solutions_mask,
)
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid

#: Every box shape from 1x2 to 3x4, both ways round.
SHAPES = [(1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (1, 4), (4, 1), (2, 3), (3, 2), (2, 4), (4, 2)]
SHAPES += [(3, 3), (3, 4), (4, 3)]
#: Sides around the checker's switches of method (int32 bits, int64 bits, sorting).
EDGE_SHAPES = [(1, 31), (4, 8), (2, 31), (7, 9), (8, 8)]


# --- the oracle -----------------------------------------------------------------------------------


def _is_digit(value: object, low: int, n: int) -> bool:
    return type(value) is int and low <= value <= n


def oracle_units(p: int, q: int) -> list[list[tuple[int, int]]]:
    """Rows, then columns, then boxes in reading order, each as its (row, column) cells in order."""
    n = p * q
    units = []
    for r in range(n):
        units.append([(r, c) for c in range(n)])
    for c in range(n):
        units.append([(r, c) for r in range(n)])
    for top in range(0, n, p):
        for left in range(0, n, q):
            box = []
            for i in range(p):
                for j in range(q):
                    box.append((top + i, left + j))
            units.append(box)
    return units


def oracle_valid(p: int, q: int, puzzle: list[list[Any]], solution: list[list[Any]]) -> bool:
    """True when ``solution`` (nested lists) is a complete valid grid keeping ``puzzle``'s givens."""
    n = p * q
    for grid, low in ((solution, 1), (puzzle, 0)):
        if len(grid) != n or any(len(row) != n for row in grid):
            return False
        for row in grid:
            for value in row:
                if not _is_digit(value, low, n):
                    return False
    for r in range(n):
        for c in range(n):
            if puzzle[r][c] != 0 and puzzle[r][c] != solution[r][c]:
                return False
    for unit in oracle_units(p, q):
        if sorted(solution[r][c] for r, c in unit) != list(range(1, n + 1)):
            return False
    return True


def oracle_conflict(p: int, q: int, grid: list[list[int]]) -> str | None:
    """The first repeated given: first unit (rows, columns, boxes), first repeat in that unit."""
    n = p * q
    for index, unit in enumerate(oracle_units(p, q)):
        first: dict[int, tuple[int, int]] = {}
        for r, c in unit:
            digit = grid[r][c]
            if digit == 0:
                continue
            if digit in first:
                kind = ("row", "column", "box")[index // n]
                r0, c0 = first[digit]
                return f"R{r0 + 1}C{c0 + 1} and R{r + 1}C{c + 1} both hold {digit} in {kind} {index % n + 1}"
            first[digit] = (r, c)
    return None


# --- grids made here ------------------------------------------------------------------------------


def pattern(p: int, q: int) -> list[list[int]]:
    """A valid solution: row r = band * p + i holds (i * q + band + c) mod n + 1 at column c."""
    n = p * q
    return [[((r % p) * q + r // p + c) % n + 1 for c in range(n)] for r in range(n)]


def shuffled(p: int, q: int, seed: int) -> list[list[int]]:
    """A valid solution: the pattern with digits relabelled, bands, rows in bands, stacks and columns
    in stacks permuted (each keeps every unit a unit)."""
    n = p * q
    rng = np.random.default_rng(seed)
    base = pattern(p, q)
    digits = [0, *(int(d) + 1 for d in rng.permutation(n))]
    rows = [int(band) * p + int(i) for band in rng.permutation(q) for i in rng.permutation(p)]
    cols = [int(stack) * q + int(j) for stack in rng.permutation(p) for j in rng.permutation(q)]
    return [[digits[base[r][c]] for c in cols] for r in rows]


def cyclic(n: int) -> list[list[int]]:
    """A Latin square (every row and column holds 1..n) whose boxes are wrong for p, q >= 2."""
    return [[(r + c) % n + 1 for c in range(n)] for r in range(n)]


def blanked(grid: list[list[int]], seed: int, share: float = 0.5) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[0 if rng.random() < share else v for v in row] for row in grid]


def both_verdicts(p: int, q: int, puzzle: list[list[int]], solution: list[list[int]]) -> bool:
    """The batch, mask and single-grid verdicts, which must agree; returns the common one."""
    g = Geometry(p, q)
    n = p * q
    flat_puzzle = np.array(puzzle, dtype=np.int16).reshape(1, n * n)
    batch = bool(valid_completions(g, flat_puzzle, np.array(solution, dtype=np.int16).reshape(1, n * n))[0])
    mask = bool(valid_solutions_mask(Grid(g, np.array(puzzle)), np.array(solution)[None])[0])
    single = solution_problem(Grid(g, np.array(puzzle)), Grid(g, np.array(solution))) is None
    assert batch == mask == single
    return batch


# --- valid grids of every shape, and Latin squares with wrong boxes --------------------------------


@pytest.mark.parametrize("shape", SHAPES + EDGE_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_valid_solutions_of_every_shape_pass(shape: tuple[int, int]) -> None:
    p, q = shape
    for seed in range(2):
        solution = shuffled(p, q, seed)
        puzzle = blanked(solution, seed)
        assert oracle_valid(p, q, puzzle, solution)
        assert both_verdicts(p, q, puzzle, solution)
        assert given_conflict(Grid(Geometry(p, q), np.array(puzzle))) is None


@pytest.mark.parametrize("shape", SHAPES + EDGE_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_latin_square_with_wrong_boxes_is_refused(shape: tuple[int, int]) -> None:
    p, q = shape
    n = p * q
    square = cyclic(n)
    empty = [[0] * n for _ in range(n)]
    expected = oracle_valid(p, q, empty, square)
    assert expected == (p == 1 or q == 1)  # a box of one row (or column) is no extra rule
    assert both_verdicts(p, q, empty, square) == expected
    problem = solution_problem(Grid.empty(Geometry(p, q)), Grid(Geometry(p, q), np.array(square)))
    if not expected:
        assert problem is not None and " in box " in problem
        assert problem == oracle_conflict(p, q, square)


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (2, 4), (4, 2), (3, 4), (4, 3)])
def test_a_grid_read_with_its_box_shape_turned_is_refused(shape: tuple[int, int]) -> None:
    p, q = shape
    verdicts = []
    for seed in range(4):
        solution = shuffled(p, q, seed)
        empty = [[0] * (p * q) for _ in range(p * q)]
        verdicts.append(oracle_valid(q, p, empty, solution))
        assert both_verdicts(q, p, empty, solution) == verdicts[-1]
        problem = solution_problem(Grid.empty(Geometry(q, p)), Grid(Geometry(q, p), np.array(solution)))
        assert problem == oracle_conflict(q, p, solution)
    assert verdicts.count(False) >= 2  # some grids happen to fit both shapes, not most


def test_a_solution_of_another_geometry_is_named() -> None:
    solution = Grid(Geometry(2, 3), np.array(shuffled(2, 3, 0)))
    problem = solution_problem(Grid.empty(Geometry(3, 2)), solution)
    assert problem == "solution is 6x6 with 2x3 boxes, puzzle is not"
    with pytest.raises(VerificationError, match="2x3 boxes"):
        check_solution(Grid.empty(Geometry(3, 2)), solution)


# --- values that are not digits -------------------------------------------------------------------


def _with(grid: list[list[Any]], r: int, c: int, value: Any) -> list[list[Any]]:
    changed = [list(row) for row in grid]
    changed[r][c] = value
    return changed


@pytest.mark.parametrize(
    "value", [0, 5, -1, 65537, 2**15 + 1, 2**16 + 1, 2**31 + 1, 2**63 - 1, 2**64 + 1, 2**100, -(2**70)]
)
@pytest.mark.parametrize("dtype", [None, object, np.int32, np.int64, np.uint64])
def test_an_integer_out_of_range_fails_whatever_the_array(value: int, dtype: Any) -> None:
    p, q = 2, 2
    solution = shuffled(p, q, 1)
    empty = [[0] * 4 for _ in range(4)]
    bad = _with(solution, 2, 1, value)
    array: Any
    try:
        array = bad if dtype is None else np.array(bad, dtype=dtype)
    except OverflowError:
        return  # that array type cannot hold the value, so no caller can pass it
    good: Any = solution if dtype is None else np.array(solution, dtype=dtype)
    assert not oracle_valid(p, q, empty, bad)
    g = Geometry(p, q)
    assert valid_completions(g, np.zeros((1, 16), dtype=np.int16), [good, array]).tolist() == [True, False]
    assert not valid_solutions_mask(Grid.empty(g), np.asarray(array)[None])[0]


@pytest.mark.parametrize(
    "array",
    [
        np.array(shuffled(2, 2, 3), dtype=np.float64),  # integral floats are still not integers
        np.array(shuffled(2, 2, 3), dtype=np.float64) + 0.25,
        np.array(shuffled(2, 2, 3)).astype(str),
        _with(shuffled(2, 2, 3), 0, 0, float(shuffled(2, 2, 3)[0][0])),  # one float in a list
        _with(shuffled(2, 2, 3), 3, 3, np.float32(shuffled(2, 2, 3)[3][3])),
        _with(shuffled(2, 2, 3), 1, 2, None),
    ],
    ids=["floats", "fractions", "text", "one-float", "one-float32", "none"],
)
def test_values_that_are_not_integers_fail(array: Any) -> None:
    g = Geometry(2, 2)
    assert valid_completions(g, np.zeros((1, 16), dtype=np.int16), [array]).tolist() == [False]


def test_bools_are_not_digits() -> None:
    """A 2x1 solution of 1s and 2s with each 1 written True: True == 1 in Python, yet no digit."""
    p, q = 2, 1
    solution = shuffled(p, q, 0)
    with_true = [[True if v == 1 else v for v in row] for row in solution]
    empty = [[0, 0], [0, 0]]
    assert oracle_valid(p, q, empty, solution) and not oracle_valid(p, q, empty, with_true)
    g = Geometry(p, q)
    assert valid_completions(g, np.zeros((1, 4), dtype=np.int8), [solution, with_true]).tolist() == [
        True,
        False,
    ]
    as_bools = np.array([[True, False], [False, True]])  # no digit 2 at all, and bools besides
    assert not valid_completions(g, np.zeros((1, 4), dtype=np.int8), as_bools[None])[0]
    assert not valid_completions(g, np.zeros((1, 4), dtype=np.int8), np.array([with_true], dtype=object))[0]
    fake_true = _fake_grid(g, np.array(with_true, dtype=object))
    cell = "R1C1" if solution[0][0] == 1 else "R1C2"
    assert (
        solution_problem(Grid.empty(g), fake_true) == f"{cell} of the solution holds True, not a digit 1..2"
    )


def test_integers_of_every_numpy_type_and_python_ints_pass() -> None:
    g = Geometry(2, 3)
    solution = shuffled(2, 3, 5)
    puzzle = blanked(solution, 5)
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint64, object):
        found = valid_completions(
            g, np.array(puzzle, dtype=dtype)[None], np.array(solution, dtype=dtype)[None]
        )
        assert found.tolist() == [True], dtype
    numpy_ints = [[np.int64(v) for v in row] for row in solution]
    assert valid_completions(g, [puzzle], [numpy_ints]).tolist() == [True]
    assert valid_completions(g, [puzzle], [solution]).tolist() == [True]


@pytest.mark.parametrize("given", [-1, 7, 65537, 1.0, True])
def test_a_puzzle_holding_no_digit_fails_its_row(given: Any) -> None:
    g = Geometry(2, 3)
    solution = shuffled(2, 3, 6)
    puzzle = _with(blanked(solution, 6, 1.0), 0, 0, given)
    other = blanked(solution, 7)
    assert not oracle_valid(2, 3, puzzle, solution)
    found = valid_completions(g, [puzzle, other], [solution, solution])
    assert found.tolist() == [False, True]


def _fake_grid(geometry: Geometry, values: Any) -> Grid:
    """A Grid holding ``values`` as they are: Grid's own check casts first, which the checker must not
    rely on."""
    grid = object.__new__(Grid)
    object.__setattr__(grid, "geometry", geometry)
    object.__setattr__(grid, "values", values)
    return grid


@pytest.mark.parametrize(
    ("value", "shown"), [(10, "10"), (-1, "-1"), (65537, "65537"), (2**80, str(2**80)), (2.0, "2.0")]
)
def test_the_single_grid_checker_names_a_cell_holding_no_digit(value: Any, shown: str) -> None:
    g = Geometry(3, 3)
    solution = shuffled(3, 3, 8)
    bad = _fake_grid(g, np.array(_with(solution, 8, 4, value), dtype=object))
    assert solution_problem(Grid.empty(g), bad) == f"R9C5 of the solution holds {shown}, not a digit 1..9"
    puzzle = _fake_grid(g, np.array(_with([[0] * 9] * 9, 0, 2, value), dtype=object))
    assert solution_problem(puzzle, Grid(g, np.array(solution))) == (
        f"R1C3 of the puzzle holds {shown}, not a digit 1..9"
    )
    with pytest.raises(VerificationError, match="R9C5"):
        check_solution(Grid.empty(g), bad)


def test_int16_grid_cast_is_not_trusted() -> None:
    """65537 in an int32 array would read as 1 once cast to int16: the checker must see 65537."""
    g = Geometry(2, 2)
    solution = shuffled(2, 2, 2)
    r, c = next((r, c) for r in range(4) for c in range(4) if solution[r][c] == 1)
    wrapped = np.array(solution, dtype=np.int32)
    wrapped[r, c] = 65537
    assert wrapped.astype(np.int16)[r, c] == 1  # the trap the checker must not fall into
    assert not valid_completions(g, np.zeros((1, 16), dtype=np.int16), wrapped[None])[0]
    assert solution_problem(Grid.empty(g), _fake_grid(g, wrapped)) == (
        f"R{r + 1}C{c + 1} of the solution holds 65537, not a digit 1..4"
    )


# --- shapes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape", [(1, 17), (17,), (15,), (1, 4, 5), (1, 5, 4), (16, 1), (2, 8), (4, 4, 1), ()]
)
def test_stacks_of_the_wrong_shape_are_refused(shape: tuple[int, ...]) -> None:
    g = Geometry(2, 2)
    with pytest.raises(VerificationError, match="not 4x4 grids"):
        valid_completions(g, np.zeros((1, 16), dtype=np.int16), np.ones(shape, dtype=np.int16))
    with pytest.raises(VerificationError, match="not 4x4 grids"):
        valid_completions(g, np.zeros(shape, dtype=np.int16), np.ones((1, 16), dtype=np.int16))


def test_stacks_of_grids_in_either_layout_pass() -> None:
    g = Geometry(2, 2)
    solution = np.array(shuffled(2, 2, 4), dtype=np.int16)
    for stack in (
        solution,
        solution.reshape(16),
        solution[None],
        solution.reshape(1, 16),
        solution[None, None],
    ):
        assert valid_completions(g, np.zeros(16, dtype=np.int16), stack).tolist() == [True]
    assert (
        valid_completions(g, np.zeros((1, 16), dtype=np.int16), np.zeros((0, 16), dtype=np.int16)).size == 0
    )


def test_puzzles_must_be_one_or_one_per_solution() -> None:
    g = Geometry(2, 2)
    solutions = np.array([shuffled(2, 2, seed) for seed in range(3)], dtype=np.int16).reshape(3, 16)
    assert valid_completions(g, np.zeros((3, 16), dtype=np.int16), solutions).tolist() == [True] * 3
    with pytest.raises(VerificationError, match="2 puzzles for 3 solutions"):
        valid_completions(g, np.zeros((2, 16), dtype=np.int16), solutions)


@pytest.mark.parametrize("shape", [(4, 5), (3, 4), (16,), (1, 4, 4), ()])
def test_the_single_grid_checker_names_a_wrong_shape(shape: tuple[int, ...]) -> None:
    g = Geometry(2, 2)
    bad = _fake_grid(g, np.ones(shape, dtype=np.int16))
    shown = "x".join(map(str, shape)) or "a single value"
    assert solution_problem(Grid.empty(g), bad) == f"the solution is {shown}, not 4x4"
    assert solution_problem(bad, Grid(g, np.array(shuffled(2, 2, 0)))) == f"the puzzle is {shown}, not 4x4"


# --- givens and single damage ---------------------------------------------------------------------


def test_a_changed_given_is_refused_and_named() -> None:
    g = Geometry(3, 2)
    solution = shuffled(3, 2, 9)
    puzzle = blanked(solution, 9)
    r, c = next((r, c) for r in range(6) for c in range(6) if puzzle[r][c])
    puzzle[r][c] = puzzle[r][c] % 6 + 1
    assert not oracle_valid(3, 2, puzzle, solution)
    assert not both_verdicts(3, 2, puzzle, solution)
    assert solution_problem(Grid(g, np.array(puzzle)), Grid(g, np.array(solution))) == (
        f"R{r + 1}C{c + 1} holds {solution[r][c]} but the given is {puzzle[r][c]}"
    )


def test_an_empty_cell_is_named() -> None:
    g = Geometry(2, 3)
    solution = _with(shuffled(2, 3, 10), 4, 5, 0)
    assert solution_problem(Grid.empty(g), Grid(g, np.array(solution))) == "R5C6 is empty"


@settings(max_examples=120)
@given(
    st.sampled_from(SHAPES),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["none", "swap", "digit", "given", "blank", "row-swap-across-bands"]),
    st.data(),
)
def test_single_damage_matches_the_oracle(
    shape: tuple[int, int], seed: int, damage: str, data: st.DataObject
) -> None:
    p, q = shape
    n = p * q
    solution = shuffled(p, q, seed)
    puzzle = blanked(solution, seed + 1)
    cell = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    r, c = data.draw(cell)
    if damage == "swap":
        r2, c2 = data.draw(cell)
        solution[r][c], solution[r2][c2] = solution[r2][c2], solution[r][c]
    elif damage == "digit":
        solution[r][c] = data.draw(st.integers(1, n))
    elif damage == "given":
        puzzle[r][c] = data.draw(st.integers(1, n))
    elif damage == "blank":
        solution[r][c] = 0
    elif damage == "row-swap-across-bands":
        r2 = data.draw(st.integers(0, n - 1))
        solution[r], solution[r2] = solution[r2], solution[r]
    expected = oracle_valid(p, q, puzzle, solution)
    assert both_verdicts(p, q, puzzle, solution) == expected
    if damage == "none":
        assert expected
    problem = solution_problem(
        Grid(Geometry(p, q), np.array(puzzle)), Grid(Geometry(p, q), np.array(solution))
    )
    oracle_given_ok = all(puzzle[i][j] in (0, solution[i][j]) for i in range(n) for j in range(n))
    if all(all(row) for row in solution) and oracle_given_ok:
        assert problem == oracle_conflict(p, q, solution)


@settings(max_examples=80)
@given(st.sampled_from(SHAPES + [(5, 6), (2, 31)]), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_given_conflicts_match_the_oracle(shape: tuple[int, int], seed: int, share: float) -> None:
    """Random partial grids, most with repeats: the first repeated pair, named as the oracle names it."""
    p, q = shape
    n = p * q
    rng = np.random.default_rng(seed)
    grid = [[int(rng.integers(1, n + 1)) if rng.random() < share else 0 for _ in range(n)] for _ in range(n)]
    assert given_conflict(Grid(Geometry(p, q), np.array(grid))) == oracle_conflict(p, q, grid)


@pytest.mark.parametrize("shape", EDGE_SHAPES + [(3, 3)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_batches_of_damaged_grids_match_the_oracle(shape: tuple[int, int]) -> None:
    """Many grids at once, some damaged, across the checker's methods (int32, int64 bits, sorting)."""
    p, q = shape
    n = p * q
    rng = np.random.default_rng(n)
    puzzles, solutions = [], []
    for index in range(8):
        solution = shuffled(p, q, index)
        puzzle = blanked(solution, index, 0.9)
        r, c, r2, c2 = (int(x) for x in rng.integers(0, n, 4))
        if index % 4 == 1:
            solution[r][c], solution[r2][c2] = solution[r2][c2], solution[r][c]
        elif index % 4 == 2:
            solution[r][c] = solution[r][c] % n + 1
        elif index % 4 == 3:
            solution = cyclic(n)
        puzzles.append(puzzle)
        solutions.append(solution)
    expected = [oracle_valid(p, q, pz, sol) for pz, sol in zip(puzzles, solutions, strict=True)]
    assert expected[0] and not all(expected)
    found = valid_completions(Geometry(p, q), np.array(puzzles), np.array(solutions))
    assert found.tolist() == expected


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (3, 4), (4, 3)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_repeat_in_any_box_is_named_as_the_oracle_names_it(shape: tuple[int, int]) -> None:
    """Two equal givens on a box's diagonal share no row or column: only that box can name them."""
    p, q = shape
    n = p * q
    for top in range(0, n, p):
        for left in range(0, n, q):
            grid = [[0] * n for _ in range(n)]
            grid[top][left] = grid[top + 1][left + 1] = n
            expected = oracle_conflict(p, q, grid)
            assert expected is not None and " in box " in expected
            assert given_conflict(Grid(Geometry(p, q), np.array(grid))) == expected


def test_check_solution_returns_the_solution_it_passes() -> None:
    g = Geometry(3, 4)
    solution = Grid(g, np.array(shuffled(3, 4, 11)))
    puzzle = Grid(g, np.array(blanked(shuffled(3, 4, 11), 11)))
    assert check_solution(puzzle, solution) is solution
    with pytest.raises(VerificationError, match="is empty"):
        check_solution(solution, puzzle)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_oracle_numbers_boxes_as_geometry_documents(shape: tuple[int, int]) -> None:
    """geometry.py: box b covers rows (b // p) * p ... and columns (b % p) * q ..., p rows by q columns."""
    p, q = shape
    n = p * q
    boxes = oracle_units(p, q)[2 * n :]
    for b, box in enumerate(boxes):
        top, left = (b // p) * p, (b % p) * q
        assert box == [(top + i, left + j) for i in range(p) for j in range(q)]
