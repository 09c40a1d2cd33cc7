"""The matching rules (Eppstein 2005, section 3.1): digit across rows and columns, unit across
digits and cells.  Hand-made positions on 9x9, 2x3, 2x4 and 4x4 boxes, exactness against brute
force over permutations, soundness against the solutions of the candidate state (python-sat).

This module also holds the board helpers the other rule tests import (``open_board``,
``random_board``, ``supported``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pysat.solvers import Solver

from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.rules import RULES
from sudoku_cp.deduction.rules.matching import _any_hall, _quiet, dead_edges, digit_matching, unit_matching
from sudoku_cp.deduction.step import Step
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.random_grids import random_solution

G9, G23, G24, G44 = Geometry(3, 3), Geometry(2, 3), Geometry(2, 4), Geometry(4, 4)


# -- helpers shared by the rule tests -------------------------------------------------------------


def open_board(geometry: Geometry) -> Board:
    """Every cell open, every digit a candidate."""
    n = geometry.n
    return Board(geometry, np.zeros(n * n, dtype=np.int16), np.ones((n * n, n), dtype=np.uint8))


def random_board(geometry: Geometry, seed: int, blank: float = 0.6, drop: float = 0.3) -> tuple[Board, Grid]:
    """A random solution with a share of cells blanked, their candidates from the givens, then a
    share of the wrong candidates dropped (as earlier steps would): the solution stays valid."""
    rng = np.random.default_rng(seed)
    solution = random_solution(geometry, rng)
    values = solution.values.reshape(-1).copy()
    values[rng.random(values.size) < blank] = 0
    board = Board.from_grid(Grid(geometry, values))
    truth = solution.values.reshape(-1) - 1
    wrong = board.cand.astype(bool)
    wrong[np.arange(values.size), truth] = False
    wrong[values != 0] = False
    board.cand[wrong & (rng.random(wrong.shape) < drop)] = 0
    return board, solution


def supported(board: Board) -> np.ndarray:
    """(n*n, n) bool: the candidates that some solution of the candidate state uses (SAT)."""
    n = board.n
    cand = board.cand.astype(bool)

    def var(cell: int, d: int) -> int:
        return int(cell) * n + int(d) + 1

    clauses: list[list[int]] = []
    groups = [[(c, d) for d in range(n)] for c in range(n * n)]
    groups += [[(int(c), d) for c in unit] for unit in board.tables.units for d in range(n)]
    for group in groups:
        alive = [var(c, d) for c, d in group if cand[c, d]]
        clauses.append(alive)
        clauses += [[-a, -b] for a, b in itertools.combinations(alive, 2)]
    clauses += [[-var(c, d)] for c, d in zip(*np.nonzero(~cand), strict=True)]
    seen = np.zeros_like(cand)
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        for c, d in zip(*np.nonzero(cand), strict=True):
            if not seen[c, d] and solver.solve(assumptions=[var(c, d)]):
                model = np.array(solver.get_model())
                on = model[model > 0] - 1
                seen[on // n, on % n] = True
    return seen


def assert_sound(board: Board, step: Step) -> None:
    """Every elimination is in no solution, every placement in all of them."""
    alive = supported(board)
    for cell, d in step.eliminations:
        assert board.cand[cell, d] and not alive[cell, d], (int(cell), int(d))
    for cell, d in step.placements:
        assert alive[cell, d] and alive[cell].sum() == 1, (int(cell), int(d))


def eliminated(step: Step | None) -> set[tuple[int, int]]:
    """The step's eliminations as a set of (cell, digit)."""
    assert step is not None
    return {(int(c), int(d)) for c, d in step.eliminations}


def restrict_digit(board: Board, d: int, rows: list[int], cols: list[int]) -> None:
    """Digit d, in the given rows, keeps only the given columns."""
    n = board.n
    for r in rows:
        for c in range(n):
            if c not in cols:
                board.cand[r * n + c, d] = 0


# -- exactness against brute force ----------------------------------------------------------------


def brute_dead(adjacency: np.ndarray) -> np.ndarray:
    """Edges in no perfect matching, by trying every permutation (k <= 8)."""
    k = adjacency.shape[1]
    perms = np.array(list(itertools.permutations(range(k))))
    dead = np.zeros_like(adjacency)
    for g in range(adjacency.shape[0]):
        fits = adjacency[g][np.arange(k), perms].all(axis=1)
        used = np.zeros((k, k), dtype=bool)
        used[np.broadcast_to(np.arange(k), perms[fits].shape), perms[fits]] = True
        dead[g] = adjacency[g] & ~used
    return dead


@pytest.mark.parametrize("seed", range(40))
def test_dead_edges_equal_brute_force_on_random_graphs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 8))
    adjacency = rng.random((6, k, k)) < rng.uniform(0.25, 0.6)
    adjacency[:3] |= np.eye(k, dtype=bool)[rng.permutation(k)]  # some graphs surely match
    m = dead_edges(adjacency)
    perms = np.array(list(itertools.permutations(range(k))))
    for g in range(6):
        has_perfect = bool(adjacency[g][np.arange(k), perms].all(axis=1).any())
        assert m.perfect[g] == has_perfect
        if has_perfect:
            assert np.array_equal(m.dead[g], brute_dead(adjacency[g : g + 1])[0])


@pytest.mark.parametrize("seed", range(8))
def test_quick_check_agrees_with_the_full_analysis(seed: int) -> None:
    """The compiled "anything to say?" check that lets a quiet board skip the scipy analysis."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(300):
        k = int(rng.integers(1, 10))
        adjacency = rng.random((3, k, k)) < rng.uniform(0.05, 0.6)
        if rng.random() < 0.7:
            adjacency[:2] |= np.eye(k, dtype=bool)[rng.permutation(k)]
        allowed = rng.random((3, k, k)) < rng.uniform(0.3, 1.0)
        m = dead_edges(adjacency)
        speaks = not m.perfect.all() or bool((m.dead & allowed & m.perfect[:, None, None]).any())
        assert _any_hall(adjacency, allowed) == speaks


@pytest.mark.parametrize("geometry", [G23, G24, Geometry(3, 3)])
def test_quick_check_on_boards_reads_the_digit_and_unit_graphs(geometry: Geometry) -> None:
    """The board-level check builds the same graphs as the rules (digits: rows x columns; units:
    digits x cells), edges at open cells allowed."""
    units = geometry.units
    seen = set()
    for seed in range(16):
        board, _ = random_board(
            geometry, seed, blank=0.8 if seed % 2 else 0.7, drop=0.05 if seed % 2 else 0.4
        )
        n = board.n
        digit_graphs = board.cand.reshape(n, n, n).transpose(2, 0, 1).astype(bool)
        digit_open = np.broadcast_to((board.values == 0).reshape(1, n, n), digit_graphs.shape)
        unit_graphs = board.cand[units].transpose(0, 2, 1).astype(bool)
        unit_open = np.broadcast_to((board.values[units] == 0)[:, None, :], unit_graphs.shape)
        for digits, graphs, allowed in ((True, digit_graphs, digit_open), (False, unit_graphs, unit_open)):
            m = dead_edges(graphs)
            speaks = not m.perfect.all() or bool((m.dead & allowed & m.perfect[:, None, None]).any())
            assert _quiet(board, digits) is not speaks, (seed, digits)
            seen.add(speaks)
    assert seen == {True, False}


def _until_stuck(board: Board, find) -> list[Step]:  # type: ignore[no-untyped-def]
    steps = []
    while (step := find(board)) is not None:
        steps.append(step)
        board.apply(step.placements, step.eliminations)
    return steps


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24, Geometry(2, 2)) for s in range(8)])
def test_digit_matching_removes_exactly_the_edges_in_no_perfect_matching(
    geometry: Geometry, seed: int
) -> None:
    board, solution = random_board(geometry, seed)
    n = geometry.n
    adjacency = board.cand.reshape(n, n, n).transpose(2, 0, 1).astype(bool)
    expected = brute_dead(adjacency) & (board.values == 0).reshape(1, n, n)
    before = board.copy()
    steps = _until_stuck(board, digit_matching)
    removed = {pair for step in steps for pair in eliminated(step)}
    d, r, c = np.nonzero(expected)
    assert removed == {(int(rr * n + cc), int(dd)) for dd, rr, cc in zip(d, r, c, strict=True)}
    if steps:
        assert_sound(before, steps[0])
    truth = solution.values.reshape(-1) - 1
    assert all(truth[cell] != digit for cell, digit in removed)


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24) for s in range(8)])
def test_unit_matching_steps_are_dead_edges_and_sound(geometry: Geometry, seed: int) -> None:
    board, solution = random_board(geometry, seed, drop=0.4)
    units = board.tables.units
    first = unit_matching(board)
    adjacency = board.cand[units].transpose(0, 2, 1).astype(bool)
    dead = brute_dead(adjacency)
    initial = {(int(units[u, i]), int(d)) for u, d, i in zip(*np.nonzero(dead), strict=True)}
    initial = {(c, d) for c, d in initial if board.values[c] == 0}
    if first is None:
        assert not initial
        return
    assert eliminated(first) <= initial
    assert_sound(board, first)
    steps = _until_stuck(board, unit_matching)
    removed = {pair for step in steps for pair in eliminated(step)}
    assert initial <= removed  # removing dead edges can kill more edges in the crossing units
    truth = solution.values.reshape(-1) - 1
    assert all(truth[cell] != digit for cell, digit in removed)


# -- hand-made positions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("geometry", "rows", "cols"),
    [(G9, [0, 4], [1, 6]), (G9, [0, 3, 7], [2, 4, 8]), (G23, [1, 4], [0, 5]), (G24, [0, 2, 5], [1, 3, 7])],
)
def test_digit_matching_fires_on_a_fish_and_removes_the_rest_of_its_columns(
    geometry: Geometry, rows: list[int], cols: list[int]
) -> None:
    n = geometry.n
    board = open_board(geometry)
    restrict_digit(board, 2, rows, cols)
    step = digit_matching(board)
    assert step is not None and step.rule == "digit-matching" and step.digits == (2,)
    expected = {(r * n + c, 2) for r in range(n) for c in cols if r not in rows}
    assert eliminated(step) == expected
    assert set(step.units) == set(rows) | {n + c for c in cols}
    assert set(step.cells) == {r * n + c for r in rows for c in cols}
    assert step.note.startswith("rows {" + ",".join(str(r + 1) for r in rows) + "} hold 3 only in columns")
    assert_sound(board, step)


def test_digit_matching_finds_a_five_row_fish_on_16x16_that_no_local_rule_sees() -> None:
    board = open_board(G44)
    rows, cols = [0, 3, 6, 9, 12], [1, 4, 7, 10, 13]
    restrict_digit(board, 0, rows, cols)
    for rule in RULES:
        if rule.local_id >= 0:
            assert rule.find(board) is None, rule.name
    step = digit_matching(board)
    assert eliminated(step) == {(r * 16 + c, 0) for r in range(16) for c in cols if r not in rows}


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_digit_matching_does_not_fire_without_a_hall_set(geometry: Geometry) -> None:
    board = open_board(geometry)
    assert digit_matching(board) is None
    restrict_digit(board, 1, [0, 1], [0, 1, 2])  # two rows over three columns: no deduction
    assert digit_matching(board) is None


def test_digit_matching_mirror_form_names_columns() -> None:
    board = open_board(G9)
    for r in range(9):
        if r not in (2, 5):
            board.cand[r * 9 + 4, 6] = 0
            board.cand[r * 9 + 8, 6] = 0
    step = digit_matching(board)
    assert step is not None
    assert step.note.startswith("columns {5,9} hold 7 only in rows {3,6}")
    assert eliminated(step) == {(r * 9 + c, 6) for r in (2, 5) for c in range(9) if c not in (4, 8)}


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_digit_matching_raises_contradiction_when_rows_outnumber_columns(geometry: Geometry) -> None:
    board = open_board(geometry)
    restrict_digit(board, 0, [0, 1, 2], [3, 4])
    with pytest.raises(Contradiction, match=r"rows \{1,2,3\} hold it only in columns \{4,5\}"):
        digit_matching(board)


@pytest.mark.parametrize(
    ("geometry", "unit", "digits"), [(G9, 3, [0, 4]), (G23, 7, [1, 2, 5]), (G24, 17, [3, 6])]
)
def test_unit_matching_fires_on_a_hidden_subset(geometry: Geometry, unit: int, digits: list[int]) -> None:
    n = geometry.n
    board = open_board(geometry)
    cells = geometry.units[unit]
    keep = cells[: len(digits)]
    for d in digits:
        board.cand[cells[len(digits) :], d] = 0
    step = unit_matching(board)
    assert step is not None and step.rule == "unit-matching"
    assert (
        step.units == (unit,) and step.digits == tuple(digits) and step.cells == tuple(int(c) for c in keep)
    )
    assert eliminated(step) == {(int(c), d) for c in keep for d in range(n) if d not in digits}
    assert "fit only" in step.note


@pytest.mark.parametrize(("geometry", "unit"), [(G9, 20), (G23, 0), (G24, 9)])
def test_unit_matching_fires_on_a_naked_subset(geometry: Geometry, unit: int) -> None:
    n = geometry.n
    board = open_board(geometry)
    cells = geometry.units[unit]
    pair = [0, 4] if unit >= 2 * n else [0, 1]  # in a box: cells on no common line
    board.cand[cells[pair]] = 0
    board.cand[cells[pair], 0] = 1
    board.cand[cells[pair], n - 1] = 1
    step = unit_matching(board)
    assert step is not None and step.units == (unit,)
    rest = np.delete(cells, pair)
    assert eliminated(step) == {(int(c), d) for c in rest for d in (0, n - 1)}
    assert "hold only digits {1," in step.note


def test_unit_matching_finds_a_hidden_quint_on_16x16_that_no_local_rule_sees() -> None:
    board = open_board(G44)
    cells = G44.units[40]  # box 9
    digits = [0, 3, 5, 8, 15]
    board.cand[np.ix_(cells[5:], digits)] = 0
    for rule in RULES:
        if rule.local_id >= 0:
            assert rule.find(board) is None, rule.name
    step = unit_matching(board)
    assert eliminated(step) == {(int(c), d) for c in cells[:5] for d in range(16) if d not in digits}


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_unit_matching_does_not_fire_on_open_units_or_placed_cells(geometry: Geometry) -> None:
    n = geometry.n
    assert unit_matching(open_board(geometry)) is None
    solution = random_solution(geometry, np.random.default_rng(1))
    values = solution.values.reshape(-1).copy()
    values[:n] = 0  # the first row open: one candidate per cell, nothing for the matching rules
    board = Board.from_grid(Grid(geometry, values))
    assert unit_matching(board) is None
    assert digit_matching(board) is None


@pytest.mark.parametrize("geometry", [G9, G23])
def test_unit_matching_raises_contradiction_when_digits_outnumber_cells(geometry: Geometry) -> None:
    board = open_board(geometry)
    cells = geometry.units[2 * geometry.n]  # box 1
    board.cand[cells[1:], :2] = 0  # digits 1 and 2 both only in the box's first cell
    with pytest.raises(Contradiction, match=r"box 1: digits \{1,2\} fit only in R1C1, too few"):
        unit_matching(board)


def test_matching_rules_are_registered_with_their_weights() -> None:
    by_name = {rule.name: rule for rule in RULES}
    assert by_name["digit-matching"].family == "matching" and by_name["digit-matching"].weight == 5.6
    assert by_name["unit-matching"].family == "matching" and by_name["unit-matching"].weight == 5.8
