"""Uniqueness rules: unique rectangle type 1 and BUG+1.  Hand-made positions on 9x9, 2x3 and 2x4
boxes (fire with exact eliminations or placements / stay silent), and on unique puzzles (a 9x9
corpus and the generator's 2x3, 2x4 and 3x4 puzzles) every step agrees with the one solution."""

from __future__ import annotations

import numpy as np
import pytest
from test_deduction_matching import eliminated, open_board, supported

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rules import RULES, Rule, select_rules
from sudoku_cp.deduction.rules.uniqueness import bug_plus_one, unique_rectangle
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.random_grids import random_solution

G9, G23, G24 = Geometry(3, 3), Geometry(2, 3), Geometry(2, 4)

# (box, puzzle, rule it needs, source): sudoku_exchange_diabolical_10k.txt lines 4 and 27
# (../shared/data/sudoku9, public domain); the others are generate_puzzle(Geometry(p, q), seed 1,
# attempt k) of sudoku_cp.deduction.generate (minimal, unique), attempt numbers below.
PUZZLES = [
    (
        (3, 3),
        "..6...2..9.......4243...896...591.....2.8.3..4..2.3..13.......7...9.7....1.4.8.2.",
        "unique-rectangle",
    ),
    (
        (3, 3),
        ".215.........83.2...6...8.....8....1.38...45.7....6.....2...5...5.62.........173.",
        "bug-plus-one",
    ),
    ((2, 3), ".6..4...46.....2....1.....24...5..3.", "unique-rectangle"),  # attempt 500
    ((2, 3), "5.6....4....2....31....6....6....5.1", "bug-plus-one"),  # attempt 523
    ((2, 4), "..3.4...1..6.5.7.37...16....3......1....78...62.3.4.7..8...7.3..", "unique-rectangle"),  # 82
    ((2, 4), "...74.626....5.....3...4.5..23....86..5.5...8.....1....582.53...", "bug-plus-one"),  # 251
    (
        (3, 4),  # attempt 41
        ".C.81.46....4A..........2..93......AC8.3....971..27.8....5....A..3.5..2..9..A.1..3...."
        "3....B.C6..18B....7.A25......92..B..........C5....27.C6.4.",
        "unique-rectangle",
    ),
]


def _local_and_uniqueness() -> tuple[Rule, ...]:
    local = select_rules(["singles", "locked", "subsets", "fish", "wings"])
    extra = tuple(rule for rule in RULES if rule.uniqueness)
    return tuple(sorted((*local, *extra), key=lambda rule: rule.weight))


@pytest.mark.parametrize(("box", "puzzle", "needed"), PUZZLES)
def test_uniqueness_steps_agree_with_the_one_solution(box: tuple[int, int], puzzle: str, needed: str) -> None:
    grid = parse_grid(puzzle, box=box)
    rules = _local_and_uniqueness()
    assert (
        deduce(grid, select_rules(["singles", "locked", "subsets", "fish", "wings"])).status.value == "stuck"
    )
    run = deduce(grid, rules)
    assert run.counts[needed] >= 1
    board = Board.from_grid(grid)
    alive = supported(board)
    assert (alive.sum(axis=1) == 1).all()  # the puzzle has one solution
    truth = alive.argmax(axis=1)
    for step in run.steps:
        if step.rule in ("unique-rectangle", "bug-plus-one"):
            for cell, d in step.eliminations:
                assert truth[cell] != d, step.describe(grid.geometry)
            for cell, d in step.placements:
                assert truth[cell] == d, step.describe(grid.geometry)
        board.apply(step.placements, step.eliminations)
    if run.status.value == "solved":
        assert np.array_equal(board.values - 1, truth)


def _only(board: Board, cell: int, digits: list[int]) -> None:
    board.cand[cell] = 0
    board.cand[cell, digits] = 1


def _rectangle(geometry: Geometry, odd: int) -> tuple[Board, list[int]]:
    """Corners on rows 0 and 1 (one band), columns 0 and q (two stacks); corner ``odd`` {1,2,5}."""
    n, q = geometry.n, geometry.q
    corners = [0, q, n, n + q]
    board = open_board(geometry)
    for k, cell in enumerate(corners):
        _only(board, cell, [0, 1, 4] if k == odd else [0, 1])
    return board, corners


@pytest.mark.parametrize(("geometry", "odd"), [(g, k) for g in (G9, G23, G24) for k in range(4)])
def test_unique_rectangle_removes_the_pair_from_the_fourth_corner(geometry: Geometry, odd: int) -> None:
    board, corners = _rectangle(geometry, odd)
    step = unique_rectangle(board)
    assert step is not None and step.rule == "unique-rectangle"
    assert eliminated(step) == {(corners[odd], 0), (corners[odd], 1)}
    assert step.cells == tuple(corners) and step.digits == (0, 1) and len(step.units) == 2
    assert step.note.endswith("could swap 1 and 2 (a second solution), so it loses both")


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_unique_rectangle_across_bands_in_one_stack(geometry: Geometry) -> None:
    n, p = geometry.n, geometry.p
    corners = [0, 1, p * n, p * n + 1]  # rows 0 and p (two bands), columns 0 and 1 (one stack)
    board = open_board(geometry)
    for cell in corners[:3]:
        _only(board, cell, [2, 3])
    _only(board, corners[3], [2, 3, 4, 5])
    step = unique_rectangle(board)
    assert step is not None and eliminated(step) == {(corners[3], 2), (corners[3], 3)}


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_unique_rectangle_does_not_fire_off_two_boxes_or_on_broken_patterns(geometry: Geometry) -> None:
    n, p, q = geometry.n, geometry.p, geometry.q
    assert unique_rectangle(open_board(geometry)) is None
    shapes = {
        "one box": [0, 1, n, n + 1],
        "four boxes": [0, q, p * n, p * n + q],
    }
    for corners in shapes.values():
        board = open_board(geometry)
        for cell in corners[:3]:
            _only(board, cell, [0, 1])
        _only(board, corners[3], [0, 1, 2])
        assert unique_rectangle(board) is None
    board, corners = _rectangle(geometry, 3)
    _only(board, corners[3], [0, 2, 4])  # the fourth corner lacks digit 2: no deadly pattern
    assert unique_rectangle(board) is None
    board, corners = _rectangle(geometry, 3)
    _only(board, corners[1], [0, 2])  # two corners with different pairs
    assert unique_rectangle(board) is None
    board, corners = _rectangle(geometry, 3)
    board.values[corners[0]] = 1  # a placed corner (maybe a given) breaks the swap argument
    _only(board, corners[0], [0])
    assert unique_rectangle(board) is None


def _grave(geometry: Geometry, extra: bool) -> tuple[Board, int]:
    """A solved grid with every 1 and 2 opened, {1,2} in each such cell: a bivalue universal grave.
    With ``extra`` the first opened cell also gets 3 (placed elsewhere in its units), the digit
    whose removal restores the grave."""
    solution = random_solution(geometry, np.random.default_rng(7))
    values = solution.values.reshape(-1).copy()
    grave = np.flatnonzero(values <= 2)
    values[grave] = 0
    n = geometry.n
    cand = np.zeros((n * n, n), dtype=np.uint8)
    placed = np.flatnonzero(values)
    cand[placed, values[placed] - 1] = 1
    cand[grave, :2] = 1
    first = int(grave[0])
    if extra:
        cand[first, 2] = 1
    return Board(geometry, values.astype(np.int16), cand), first


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_bug_plus_one_places_the_digit_that_breaks_the_grave(geometry: Geometry) -> None:
    board, cell = _grave(geometry, extra=True)
    step = bug_plus_one(board)
    assert step is not None and step.rule == "bug-plus-one"
    assert step.placements.tolist() == [[cell, 2]] and len(step.eliminations) == 0
    assert step.cells == (cell,) and step.digits == (2,)
    assert step.note.endswith(f"so 3 goes in {geometry.cell_name(cell)}")


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_bug_plus_one_does_not_fire_without_exactly_one_trivalue_cell(geometry: Geometry) -> None:
    assert bug_plus_one(open_board(geometry)) is None
    board, _ = _grave(geometry, extra=False)
    assert bug_plus_one(board) is None  # a pure grave (0 or 2 solutions): nothing to place
    board, cell = _grave(geometry, extra=True)
    second = int(np.flatnonzero(board.values == 0)[1])
    board.cand[second, 2] = 1  # two trivalue cells
    assert bug_plus_one(board) is None
    board, cell = _grave(geometry, extra=True)
    board.cand[cell, 0] = 0  # three candidates, but no single removal leaves a grave
    board.cand[cell, 3] = 1
    assert bug_plus_one(board) is None


def test_uniqueness_rules_are_marked_and_off_by_default() -> None:
    marked = {rule.name: rule for rule in RULES if rule.uniqueness}
    assert set(marked) >= {"unique-rectangle", "bug-plus-one"}
    # Sudoku Explainer's weights: unique rectangle (type 1) 4.5, BUG + 1 5.6
    assert {name: rule.weight for name, rule in marked.items()} == {
        "unique-rectangle": 4.5,
        "bug-plus-one": 5.6,
    }
    assert all(rule.family == "uniqueness" for rule in marked.values())
    assert not any(rule.uniqueness for rule in select_rules())
    assert {rule.name for rule in select_rules(["uniqueness"])} == {"unique-rectangle", "bug-plus-one"}
    assert {"unique-rectangle", "bug-plus-one"} <= {rule.name for rule in select_rules(uniqueness=True)}
