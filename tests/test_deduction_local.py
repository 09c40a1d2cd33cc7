"""The compiled local rules (sudoku_cp.deduction.rules.local), each on hand-made candidate positions.

Every position starts from the empty grid of a box shape (every candidate open) and removes just
the candidates that make (or almost make) one pattern, so the pattern is the only instance of its
rule on the board and the expected step is exact.  Each rule is run where it must fire and where
it must not, on 9x9 and on rectangular (2x3, 3x2, 2x4) and 4x4 boxes: the row, column and box
arithmetic differs between them, and a transposition mistake shows on 3x2 and 2x3 only.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest

from sudoku_cp.deduction.board import Board, apply_record, contradiction, tables
from sudoku_cp.deduction.rules.base import local_finder
from sudoku_cp.deduction.rules.local import (
    LOCAL_RULES,
    MARK_COLUMNS,
    _bad_record,
    find_local,
    run_local,
)
from sudoku_cp.deduction.step import Step, step_from_record, steps_from_log
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.random_grids import random_solution

SHAPES = [(3, 3), (2, 3), (3, 2), (2, 4), (4, 4)]
Pairs = set[tuple[int, int]]


@pytest.fixture(params=SHAPES, ids=[f"{p}x{q}" for p, q in SHAPES])
def geometry(request: pytest.FixtureRequest) -> Geometry:
    p, q = request.param
    return geometry_for_size(p * q, (p, q))


def empty(geometry: Geometry) -> Board:
    """Every candidate open."""
    return Board.from_grid(Grid.empty(geometry))


def at(g: Geometry, r: int, c: int) -> int:
    return r * g.n + c


def row(g: Geometry, r: int) -> list[int]:
    return [int(c) for c in g.units[r]]


def col(g: Geometry, c: int) -> list[int]:
    return [int(x) for x in g.units[g.n + c]]


def box(g: Geometry, b: int) -> list[int]:
    return [int(c) for c in g.units[2 * g.n + b]]


def remove(board: Board, cells: Iterable[int], digits: Iterable[int]) -> None:
    board.cand[np.ix_(list(cells), list(digits))] = 0


def keep(board: Board, cells: Iterable[int], digits: Iterable[int]) -> None:
    """Leave only ``digits`` in each of ``cells``."""
    others = [d for d in range(board.n) if d not in set(digits)]
    remove(board, cells, others)


def find(name: str, board: Board) -> Step | None:
    before = board.cand.copy(), board.values.copy()
    step = local_finder(name)(board)
    assert np.array_equal(board.cand, before[0]) and np.array_equal(
        board.values, before[1]
    )  # finders only read
    return step


def pairs(array: np.ndarray) -> Pairs:
    return {(int(c), int(d)) for c, d in array}


def fires(name: str, board: Board, eliminations: Pairs, placements: Pairs | None = None) -> Step:
    step = find(name, board)
    assert step is not None, f"{name} did not fire"
    assert step.rule == name
    assert pairs(step.eliminations) == eliminations
    assert len(step.eliminations) == len(eliminations)  # no elimination named twice
    assert pairs(step.placements) == (placements or set())
    return step


def silent(name: str, board: Board) -> None:
    assert find(name, board) is None


def spread(g: Geometry) -> list[int]:
    """Four line positions in different boxes where the shape allows: 0, n - 1, p, 1."""
    return [0, g.n - 1, g.p, 1]


def second_band_row(g: Geometry) -> int:
    return g.p  # the first row of the second band of boxes


def second_stack_col(g: Geometry) -> int:
    return g.q  # the first column of the second stack of boxes


# ---------------------------------------------------------------- singles


def test_hidden_single_in_a_box(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    d = g.n - 1
    cells = box(g, 1)
    remove(board, cells[:-1], [d])
    step = fires("hidden-single", board, set(), {(cells[-1], d)})
    assert step.units == (2 * g.n + 1,) and step.digits == (d,)


def test_hidden_single_in_a_column(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    cells = col(g, 2)
    target = cells[g.n // 2]
    remove(board, [c for c in cells if c != target], [1])
    step = fires("hidden-single", board, set(), {(target, 1)})
    assert step.units == (g.n + 2,)


def test_no_hidden_single_with_two_places_or_a_placed_digit(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    remove(board, box(g, 1)[:-2], [0])
    silent("hidden-single", board)
    board = empty(g)
    board.apply(np.array([[at(g, 0, 0), 0]]), np.zeros((0, 2)))  # placed: its units hold it already
    silent("hidden-single", board)


def test_naked_single(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    cell = at(g, 2, g.n - 1)
    keep(board, [cell], [3])
    step = fires("naked-single", board, set(), {(cell, 3)})
    assert step.cells == (cell,)


def test_no_naked_single_with_two_digits_or_on_a_placed_cell(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    keep(board, [at(g, 2, 1)], [3, 4])
    silent("naked-single", board)
    board.apply(np.array([[at(g, 0, 0), 0]]), np.zeros((0, 2)))  # a placed cell keeps one candidate
    silent("naked-single", board)


# ---------------------------------------------------------------- locked candidates


def test_pointing_along_a_row(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    d, b, r = 2, 1, 1  # box 1 lies in band 0; row 1 crosses it
    cells = box(g, b)
    remove(board, [c for c in cells if c // g.n != r], [d])
    expected = {(c, d) for c in row(g, r) if c not in cells}
    step = fires("pointing", board, expected)
    assert step.units == (2 * g.n + b, r) and step.digits == (d,)
    assert set(step.cells) == {c for c in cells if c // g.n == r}


def test_pointing_along_a_column(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    d, b = 0, g.p + 1  # a box of the second band, second stack
    cells = box(g, b)
    c0 = cells[-1] % g.n  # the box's last column
    remove(board, [c for c in cells if c % g.n != c0], [d])
    expected = {(c, d) for c in col(g, c0) if c not in cells}
    step = fires("pointing", board, expected)
    assert step.units == (2 * g.n + b, g.n + c0)


def test_no_pointing_across_two_lines_or_with_nothing_to_remove(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    cells = box(g, 0)
    remove(board, cells[1:-1], [4])  # the first and last cells differ in row and column
    silent("pointing", board)
    board = empty(g)
    remove(board, [c for c in cells if c // g.n != 0], [4])
    remove(board, [c for c in row(g, 0) if c not in cells], [4])  # the row is clear already
    silent("pointing", board)


def test_claiming_from_a_row(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    d, r = 5, second_band_row(g) + 1
    b = int(g.cell_units[at(g, r, g.n - 1), 2]) - 2 * g.n  # the row's last box
    cells = box(g, b)
    remove(board, [c for c in row(g, r) if c not in cells], [d])
    expected = {(c, d) for c in cells if c // g.n != r}
    step = fires("claiming", board, expected)
    assert step.units == (r, 2 * g.n + b)


def test_claiming_from_a_column(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    d, c0 = 1, second_stack_col(g)
    cells = box(g, 1)  # band 0, stack 1: holds column q
    assert at(g, 0, c0) in cells
    remove(board, [c for c in col(g, c0) if c not in cells], [d])
    expected = {(c, d) for c in cells if c % g.n != c0}
    step = fires("claiming", board, expected)
    assert step.units == (g.n + c0, 2 * g.n + 1)


def test_no_claiming_when_a_line_spans_two_boxes(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    line = row(g, 0)
    remove(board, line[1 : g.n - 1], [1])  # digit 2 left in the row's first and last cells
    silent("claiming", board)


# ---------------------------------------------------------------- naked and hidden subsets

NAKED = {
    "naked-pair": [[0, 3], [0, 3]],
    "naked-triple": [[0, 3], [3, 5], [0, 5]],  # no cell holds all three digits
    "naked-quad": [[0, 1], [1, 2], [2, 3], [0, 3]],
}


@pytest.mark.parametrize("name", sorted(NAKED))
def test_naked_subset_in_a_row(geometry: Geometry, name: str) -> None:
    g, board = geometry, empty(geometry)
    r = second_band_row(g)
    line = row(g, r)
    members = [line[i] for i in spread(g)[: len(NAKED[name])]]
    for cell, digits in zip(members, NAKED[name], strict=True):
        keep(board, [cell], digits)
    digits = sorted({d for ds in NAKED[name] for d in ds})
    expected = {(c, d) for c in line if c not in members for d in digits}
    step = fires(name, board, expected)
    assert set(step.cells) == set(members) and step.units == (r,) and list(step.digits) == digits


@pytest.mark.parametrize("name", sorted(NAKED))
def test_no_naked_subset_one_digit_short_or_with_nothing_to_remove(geometry: Geometry, name: str) -> None:
    g, board = geometry, empty(geometry)
    line = col(g, 1)
    members = [line[i] for i in spread(g)[: len(NAKED[name])]]
    stray = [*NAKED[name][:-1], [*NAKED[name][-1], 4]]  # the last member holds a digit from outside
    for cell, own in zip(members, stray, strict=True):
        keep(board, [cell], own)
    silent(name, board)
    board = empty(g)
    for cell, own in zip(members, NAKED[name], strict=True):
        keep(board, [cell], own)
    digits = sorted({d for ds in NAKED[name] for d in ds})
    remove(board, [c for c in line if c not in members], digits)  # the column is clear already
    silent(name, board)


HIDDEN = {
    "hidden-pair": [[0, 1], [0, 1]],  # per digit: the member cells (by index) it may go in
    "hidden-triple": [[0, 1], [1, 2], [0, 2]],
    "hidden-quad": [[0, 1], [1, 2], [2, 3], [0, 1, 2, 3]],
}


def _hidden(
    board: Board, line: list[int], rows: list[int], digits: list[int], spots: list[list[int]]
) -> None:
    for d, where in zip(digits, spots, strict=True):
        remove(board, [c for i, c in enumerate(line) if i not in [rows[k] for k in where]], [d])


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_hidden_subset_in_a_column(geometry: Geometry, name: str) -> None:
    g, board = geometry, empty(geometry)
    c0 = second_stack_col(g) + 1
    line = col(g, c0)
    size = len(HIDDEN[name])
    rows = spread(g)[:size]
    digits = [g.n - 1, 1, 2, 0][:size]
    _hidden(board, line, rows, digits, HIDDEN[name])
    members = [line[i] for i in rows]
    expected = {(c, d) for c in members for d in range(g.n) if d not in digits}
    step = fires(name, board, expected)
    assert set(step.cells) == set(members) and step.units == (g.n + c0,)
    assert sorted(step.digits) == sorted(digits)


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_no_hidden_subset_with_a_stray_place_or_nothing_to_remove(geometry: Geometry, name: str) -> None:
    g, board = geometry, empty(geometry)
    line = col(g, 0)
    size = len(HIDDEN[name])
    rows = spread(g)[:size]
    digits = list(range(size))
    spots = [list(s) for s in HIDDEN[name]]
    spots[0] = [*spots[0], size]  # the first digit also fits one more cell (row p + 2)
    _hidden(board, line, [*rows, g.p + 1], digits, spots)
    silent(name, board)
    board = empty(g)
    _hidden(board, line, rows, digits, HIDDEN[name])
    keep(board, [line[i] for i in rows], digits)  # the subset's cells hold nothing else already
    silent(name, board)


# ---------------------------------------------------------------- fish

FISH = {
    "x-wing": [[0, 1], [0, 1]],  # per base line: the cover lines (by index) the digit lies on
    "swordfish": [[0, 1], [1, 2], [0, 2]],
    "jellyfish": [[0, 1], [1, 2], [2, 3], [3, 0]],
}


def _fish(
    g: Geometry, board: Board, d: int, bases: list[int], covers: list[int], spots: list[list[int]], rows: bool
) -> Pairs:
    """Confine digit d on each base line to its covers; return the cover cells outside the bases."""
    for base, where in zip(bases, spots, strict=True):
        keep_at = {covers[k] for k in where}
        line = row(g, base) if rows else col(g, base)
        remove(board, [c for i, c in enumerate(line) if i not in keep_at], [d])
    expected: Pairs = set()
    for cover in covers:
        for i, c in enumerate(col(g, cover) if rows else row(g, cover)):
            if i not in bases:
                expected.add((c, d))
    return expected


@pytest.mark.parametrize("name", sorted(FISH))
@pytest.mark.parametrize("rows", [True, False], ids=["rows", "columns"])
def test_fish(geometry: Geometry, name: str, rows: bool) -> None:
    g, board = geometry, empty(geometry)
    size = len(FISH[name])
    if not rows and g.n <= 2 * size:
        # Columns confined to `size` rows leave the other rows only the other n - size columns:
        # on so small a grid that is a fish in rows too, which the finder (rows first) reports.
        pytest.skip(f"a {size}-fish in columns of a {g.n}x{g.n} grid has a complement in rows")
    bases = [0, g.p, g.n - 1, 1][:size]
    covers = [g.n - 1, 0, g.q, g.q + 1][:size]
    d = 3
    expected = _fish(g, board, d, bases, covers, FISH[name], rows)
    step = fires(name, board, expected)
    assert step.digits == (d,)
    base_units = [b if rows else g.n + b for b in bases]
    cover_units = [g.n + c if rows else c for c in covers]
    assert set(step.units) == {*base_units, *cover_units}


@pytest.mark.parametrize("name", sorted(FISH))
def test_no_fish_with_a_line_outside_the_covers(geometry: Geometry, name: str) -> None:
    g, board = geometry, empty(geometry)
    size = len(FISH[name])
    bases = list(range(size))
    covers = list(range(size + 1))
    spots = [list(s) for s in FISH[name]]
    spots[-1] = [*spots[-1], size]  # the last base line also has the digit in one more column
    _fish(g, board, 0, bases, covers, spots, True)
    silent(name, board)


def test_a_smaller_fish_is_no_x_wing(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    _fish(g, board, 0, [0, 1, 2], [0, 1, 2], FISH["swordfish"], True)
    silent("x-wing", board)


# ---------------------------------------------------------------- XY-wing


def _xy_wing(board: Board, pivot: int, a: int, b: int, x: int = 0, y: int = 1, z: int = 2) -> None:
    keep(board, [pivot], [x, y])
    keep(board, [a], [x, z])
    keep(board, [b], [y, z])


def test_xy_wing_across_boxes(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    r1, c1 = second_band_row(g), second_stack_col(g)
    pivot, a, b = at(g, 0, 0), at(g, 0, c1), at(g, r1, 0)
    _xy_wing(board, pivot, a, b)
    step = fires("xy-wing", board, {(at(g, r1, c1), 2)})  # the one cell seeing both pincers
    assert set(step.cells) == {pivot, a, b} and step.digits == (0, 1, 2)


def test_xy_wing_with_a_pincer_in_the_pivot_box(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    c1 = second_stack_col(g) + 1
    pivot, a, b = at(g, 0, 0), at(g, 1, 1), at(g, 0, c1)
    _xy_wing(board, pivot, a, b)
    # Row 0 inside the pivot's box sees a by box and b by row; row 1 inside b's box sees a by
    # row and b by box.
    seen = [at(g, 0, c) for c in range(1, g.q)] + [at(g, 1, c) for c in range(g.q, 2 * g.q)]
    fires("xy-wing", board, {(c, 2) for c in seen})


def test_no_xy_wing_without_the_third_digit_or_a_pivot_link(geometry: Geometry) -> None:
    g, board = geometry, empty(geometry)
    r1, c1 = second_band_row(g), second_stack_col(g)
    _xy_wing(board, at(g, 0, 0), at(g, 0, c1), at(g, r1, 0), z=2)
    keep(board, [at(g, r1, 0)], [1, 3])  # the pincers end in different digits
    silent("xy-wing", board)
    board = empty(g)
    _xy_wing(board, at(g, 0, 0), at(g, 0, c1), at(g, r1, c1 + 1))  # b does not see the pivot
    silent("xy-wing", board)
    board = empty(g)
    _xy_wing(board, at(g, 0, 0), at(g, 0, c1), at(g, r1, 0))
    remove(board, [at(g, r1, c1)], [2])  # the wing holds, but its target lost z already
    silent("xy-wing", board)


# ---------------------------------------------------------------- every rule, beyond the masks


def test_mask_rules_report_nothing_above_64_but_singles_and_locked_still_work() -> None:
    g = geometry_for_size(72, (8, 9))
    board = empty(g)
    keep(board, [0, 1], [0, 1])  # a naked pair in row 1
    remove(board, box(g, 0)[g.q :], [5])  # digit 6 of box 1 only on row 1: pointing
    for name in LOCAL_RULES[4:]:
        silent(name, board)
    fires("pointing", board, {(c, 5) for c in row(g, 0)[g.q :]})


# ---------------------------------------------------------------- the fast path


def _one_at_a_time(board: Board, enabled: np.ndarray, limit: int) -> tuple[int, np.ndarray, list[Step]]:
    """``run_local`` spelled out: each enabled finder in order, apply, full contradiction scan;
    the outcome, the steps per rule and the steps (as ``find_local``'s records make them)."""
    t = board.tables
    rec = np.empty((board.cand.size + board.cand.shape[0] + 4 * board.n, 3), dtype=np.int64)
    counts = np.zeros(len(LOCAL_RULES), np.int64)
    steps: list[Step] = []
    while True:
        if board.solved:
            return 1, counts, steps
        if counts.sum() >= limit:
            return 2, counts, steps
        for r in np.flatnonzero(enabled).tolist():
            k = find_local(r, board.cand, board.values, t.units, t.cell_units, t.peers, rec)
            if k:
                steps.append(step_from_record(LOCAL_RULES[r], rec, k))
                apply_record(board.cand, board.values, t.peers, rec, k)
                counts[r] += 1
                if contradiction(board.cand, board.values, t.units)[0]:
                    return -1, counts, steps
                break
        else:
            return 0, counts, steps


def _unlogged() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The log, marks and info of a ``run_local`` call that records nothing."""
    return np.empty((0, 3), np.int64), np.empty((0, MARK_COLUMNS), np.int64), np.zeros(4, np.int64)


def _logged(board: Board, enabled: np.ndarray, limit: int, marks: int) -> tuple[int, np.ndarray, list[Step]]:
    """``run_local`` recording, called again while a slice ends with the log (as small as a record
    allows) or its ``marks`` full, as the engine does: outcome, steps per rule, steps."""
    t = board.tables
    rec = np.empty((board.cand.size + board.cand.shape[0] + 4 * board.n, 3), dtype=np.int64)
    log = np.empty((len(rec), 3), np.int64)
    mark_rows = np.empty((marks, MARK_COLUMNS), np.int64)
    info = np.zeros(4, np.int64)
    counts = np.zeros(len(LOCAL_RULES), np.int64)
    names = {r: (name, float(r)) for r, name in enumerate(LOCAL_RULES)}
    steps: list[Step] = []
    while True:
        done = run_local(
            board.cand, board.values, t.units, t.cell_units, t.peers, enabled, counts, rec,
            limit - len(steps), log, mark_rows, info,
        )  # fmt: skip
        logged = steps_from_log(log, mark_rows, int(info[0]), int(info[1]), names)
        assert all(step.weight == LOCAL_RULES.index(step.rule) for step in logged)
        steps += logged
        if done != 2 or len(steps) >= limit:
            return done, counts, steps


def _step_rows(steps: list[Step]) -> list[tuple[object, ...]]:
    return [
        (s.rule, s.placements.tolist(), s.eliminations.tolist(), s.cells, s.units, s.digits) for s in steps
    ]


@pytest.mark.parametrize("box_shape", [(3, 3), (2, 3), (3, 4)])
def test_run_local_takes_the_steps_of_the_finders_one_at_a_time(box_shape: tuple[int, int]) -> None:
    """The tallies of the fast path (room per unit and digit, candidates per cell) give the same steps,
    outcome and board as the finders and the full contradiction scan, wrong removals and boards that
    start contradicted included."""
    p, q = box_shape
    g = geometry_for_size(p * q, (p, q))
    n = g.n
    rng = np.random.default_rng(p * 10 + q)
    solution = random_solution(g, rng).values.reshape(-1) - 1
    t = tables(g)
    outcomes = set()
    for trial in range(60):
        board = Board(g, np.zeros(n * n, np.int16), np.ones((n * n, n), np.uint8))
        shown = np.flatnonzero(rng.random(n * n) < rng.uniform(0.2, 0.5))
        board.apply(np.stack([shown, solution[shown]], axis=1), np.zeros((0, 2), np.int64))
        if trial % 3 == 0:  # remove a few true candidates: contradictions, often later
            wrong = rng.choice(n * n, size=int(rng.integers(1, 4)), replace=False)
            board.cand[wrong, solution[wrong]] = 0
        if trial % 7 == 1:  # a contradiction from the start: an open cell with no candidate left
            empty_cell = rng.choice(np.flatnonzero(board.values == 0))
            board.cand[empty_cell] = 0
        enabled = (rng.random(len(LOCAL_RULES)) < 0.8).astype(np.uint8)
        enabled[0] = 1
        limit = int(rng.integers(5, 200))
        fast = board.copy()
        recorded = board.copy()
        counts = np.zeros(len(LOCAL_RULES), np.int64)
        rec = np.empty((board.cand.size + board.cand.shape[0] + 4 * n, 3), dtype=np.int64)
        done = run_local(
            fast.cand, fast.values, t.units, t.cell_units, t.peers, enabled, counts, rec, limit, *_unlogged()
        )
        logged, logged_counts, logged_steps = _logged(recorded, enabled, limit, 1 + trial % 5)
        expected, expected_counts, expected_steps = _one_at_a_time(board, enabled, limit)
        assert (done, counts.tolist()) == (expected, expected_counts.tolist()), trial
        assert (logged, logged_counts.tolist()) == (expected, expected_counts.tolist()), trial
        assert _step_rows(logged_steps) == _step_rows(expected_steps), trial
        for other in (fast, recorded):
            assert np.array_equal(other.cand, board.cand) and np.array_equal(other.values, board.values)
        outcomes.add(done)
    assert -1 in outcomes and len(outcomes) >= 3


def _first_contradiction(board: Board) -> tuple[int, int, int]:
    """The board's first contradiction in the documented order, in plain Python."""
    n = board.n
    for cell in range(n * n):
        if board.values[cell] == 0 and not board.cand[cell].any():
            return 1, cell, -1
    for u, unit in enumerate(board.tables.units.tolist()):
        for d in range(n):
            placed = sum(int(board.values[c]) == d + 1 for c in unit)
            room = sum(int(board.values[c]) == 0 and bool(board.cand[c, d]) for c in unit)
            if placed > 1:
                return 3, u, d
            if placed == 0 and room == 0:
                return 2, u, d
    return 0, -1, -1


@pytest.mark.parametrize("box_shape", [(3, 3), (2, 3), (3, 4)])
def test_the_contradiction_scan_finds_the_first_contradiction(box_shape: tuple[int, int]) -> None:
    """The compiled scan (bit masks per unit) names the first empty cell, digit placed twice or
    digit without room, in cell, then unit and digit order, as the plain definition does."""
    g = geometry_for_size(box_shape[0] * box_shape[1], box_shape)
    n = g.n
    rng = np.random.default_rng(sum(box_shape))
    kinds = set()
    for _ in range(150):
        values = np.zeros(n * n, np.int16)
        placed = np.flatnonzero(rng.random(n * n) < rng.uniform(0.0, 0.5))
        values[placed] = rng.integers(1, n + 1, len(placed))
        board = Board(g, values, (rng.random((n * n, n)) < rng.uniform(0.1, 0.95)).astype(np.uint8))
        expected = _first_contradiction(board)
        assert contradiction(board.cand, board.values, board.tables.units) == expected
        kinds.add(expected[0])
    assert kinds == {0, 1, 2, 3}


def test_a_record_that_names_no_open_candidate_is_refused_before_it_is_applied() -> None:
    """The compiled step check (the engine's ``RuleBug``): nothing changed, a placed cell, a
    removed candidate, a cell or digit out of range; a sound record passes."""
    g = geometry_for_size(4, (2, 2))
    board = Board.from_grid(Grid(g, np.array([1] + [0] * 15, dtype=np.int16)))

    def bad(*rows: tuple[int, int, int]) -> bool:
        rec = np.array(rows, dtype=np.int64).reshape(-1, 3)
        return bool(_bad_record(board.cand, board.values, rec, len(rec)))

    assert not bad((0, 5, 1), (2, 5, 0)) and not bad((1, 5, 1), (1, 6, 2))
    assert bad((2, 5, 0), (3, 0, 0))  # a pattern without a placement or an elimination
    assert bad((1, 0, 0))  # the given's own cell
    assert bad((1, 5, 1), (1, 1, 0))  # digit 1 left R1C2 with the given
    assert bad((0, 16, 0)) and bad((1, -1, 0)) and bad((1, 5, 4)) and bad((0, 5, -1))
