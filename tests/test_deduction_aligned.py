"""Aligned pair and triplet exclusion: hand-made positions on 9x9, 2x3 and 2x4 boxes, every step
sound against the solutions of random boards (SAT), exactness against a plain-Python enumeration
of the combinations, and Sudoku Exchange puzzles whose hardest step is an aligned triplet, every
step proved by SAT as the engine takes it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_deduction_matching import assert_sound, open_board, random_board

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import RULES, aligned, select_rules
from sudoku_cp.deduction.rules.aligned import aligned_exclusion
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.outcome import Status

G9, G23, G24 = Geometry(3, 3), Geometry(2, 3), Geometry(2, 4)


def _only(board: Board, cell: int, digits: list[int]) -> None:
    board.cand[cell] = 0
    board.cand[cell, digits] = 1


def _sees(board: Board, a: int, b: int) -> bool:
    return a != b and b in set(board.tables.peers[a].tolist())


def _open_digits(board: Board) -> dict[int, list[int]]:
    """The candidates of every open cell with two or more."""
    n = board.n
    open_cells = [c for c in range(n * n) if board.values[c] == 0 and board.cand[c].sum() >= 2]
    return {c: [int(d) for d in np.flatnonzero(board.cand[c])] for c in open_cells}


def _excluded(
    board: Board, digits: dict[int, list[int]], base: tuple[int, ...], excluding: list[int]
) -> set[tuple[int, int]]:
    """The candidates of ``base`` that no allowed combination uses: a combination is allowed when
    no two cells that see each other share a digit and no excluding cell's digits all lie in it."""
    used: list[set[int]] = [set() for _ in base]
    for combo in itertools.product(*(digits[b] for b in base)):
        if any(
            combo[i] == combo[j] and _sees(board, base[i], base[j])
            for i, j in itertools.combinations(range(len(base)), 2)
        ):
            continue
        if any(set(digits[e]) <= set(combo) for e in excluding):
            continue
        for i, d in enumerate(combo):
            used[i].add(d)
    return {(b, d) for i, b in enumerate(base) for d in digits[b] if d not in used[i]}


def _expected(board: Board, degree: int) -> set[tuple[int, int]]:
    """Every candidate some base of ``degree`` cells excludes, by plain enumeration."""
    digits = _open_digits(board)
    gone: set[tuple[int, int]] = set()
    for base in itertools.combinations(digits, degree):
        excluding = [e for e in digits if len(digits[e]) <= degree and all(_sees(board, e, b) for b in base)]
        if excluding:
            gone |= _excluded(board, digits, base, excluding)
    return gone


def _pair_position(geometry: Geometry) -> tuple[Board, int, int]:
    """A{1,2} and B{2,3} in the first row and box; E1{1,2} and E2{1,3} in the box see both:
    A = 1 would leave B 2 (E1 empty) or 3 (E2 empty), so A loses 1, and B = 2 would leave A 1."""
    n, q = geometry.n, geometry.q
    board = open_board(geometry)
    a, b, e1, e2 = 0, 1, n, n + 1 if q > 2 else 2 * n
    _only(board, a, [0, 1])
    _only(board, b, [1, 2])
    _only(board, e1, [0, 1])
    _only(board, e2, [0, 2])
    return board, a, b


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_aligned_pair_exclusion_removes_what_every_combination_forbids(geometry: Geometry) -> None:
    board, a, b = _pair_position(geometry)
    step = aligned_exclusion(board, 2)
    assert step is not None and step.rule == "aligned-pair-exclusion"
    assert {(int(c), int(d)) for c, d in step.eliminations} == {(a, 0), (b, 1)}
    assert a in step.cells and len(step.cells) >= 4
    assert "1 from" in step.note
    assert_sound(board, step)


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_aligned_exclusion_needs_an_excluding_cell(geometry: Geometry) -> None:
    board = open_board(geometry)
    _only(board, 0, [0, 1])
    _only(board, 1, [1, 2])
    assert aligned_exclusion(board, 2) is None
    assert aligned_exclusion(board, 3) is None


def test_aligned_triplet_exclusion_on_a_hand_made_position() -> None:
    """A{1,2} B{1,3} C{2,3,4} in the first row of a box, E1{1,3,4} E2{1,2,4} E3{2,3,4} in its
    second row (each sees all three): with C = 4, A and B hold 1 3, 2 1 or 2 3, and with 4 that
    is all of E1's, E2's or E3's digits, so C loses 4.  No pair does it: the excluding cells have
    three digits, more than a pair can cover."""
    board = open_board(G9)
    a, b, c = 0, 1, 2
    for cell, digits in (
        (a, [0, 1]),
        (b, [0, 2]),
        (c, [1, 2, 3]),
        (9, [0, 2, 3]),
        (10, [0, 1, 3]),
        (11, [1, 2, 3]),
    ):
        _only(board, cell, digits)
    assert aligned_exclusion(board, 2) is None
    step = aligned_exclusion(board, 3)
    assert step is not None and step.rule == "aligned-triplet-exclusion"
    assert {(int(x), int(d)) for x, d in step.eliminations} == {(c, 3)}
    assert {9, 10, 11} <= set(step.cells)
    assert_sound(board, step)


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24, G9) for s in range(4)])
def test_aligned_exclusion_finds_exactly_what_enumeration_finds_and_is_sound(
    geometry: Geometry, seed: int
) -> None:
    board, solution = random_board(geometry, seed, blank=0.65, drop=0.45)
    truth = solution.values.reshape(-1) - 1
    for degree in (2, 3):
        expected = _expected(board, degree)
        step = aligned_exclusion(board, degree)
        if step is None:
            assert not expected
            continue
        got = {(int(c), int(d)) for c, d in step.eliminations}
        assert got and got <= expected
        assert_sound(board, step)
        for cell, d in got:
            assert truth[cell] != d


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24) for s in range(4)])
def test_aligned_exclusion_steps_are_sound_until_none(geometry: Geometry, seed: int) -> None:
    board, _ = random_board(geometry, seed + 10, blank=0.7, drop=0.35)
    for degree in (2, 3):
        for _ in range(20):
            step = aligned_exclusion(board, degree)
            if step is None:
                break
            assert_sound(board, step)
            board.apply(step.placements, step.eliminations)


def test_aligned_rules_are_registered_with_explainer_weights() -> None:
    by_name = {rule.name: rule for rule in RULES}
    assert by_name["aligned-pair-exclusion"].weight == 6.2
    assert by_name["aligned-triplet-exclusion"].weight == 7.5
    assert {rule.name for rule in select_rules(["aligned"])} == {
        "aligned-pair-exclusion",
        "aligned-triplet-exclusion",
    }
    assert aligned_exclusion(open_board(Geometry(5, 5)), 2) is None  # above the searched sides


# Sudoku Exchange diabolical puzzles (lines 1263 and 2809) that Sukaku Explainer rates 7.5 (aligned
# triplet exclusion) and the forcing chains rated 8.2 before the triplets.
TRIPLETS = [
    "004071089300000400091600000100000930000080000069000002000007390003000005540920700",
    "008902500350408012090030080670000054000000000002704800000607000080090040960000028",
]


@pytest.mark.parametrize("line", TRIPLETS)
def test_aligned_triplet_is_the_hardest_step_where_explainer_says_so(line: str) -> None:
    grid = parse_grid(line)
    deduction = deduce(grid, check=True)  # every step proved by SAT as it is taken
    assert deduction.status is Status.SOLVED
    assert deduction.hardest == "aligned-triplet-exclusion"
    assert deduction.weight == 7.5
    assert rate(grid).rating == 7.5


def _narrowed(board: Board, rng: np.random.Generator) -> bool:
    """Remove one candidate from a random open cell of three or more (False: there is none)."""
    wide = [c for c in range(board.n * board.n) if board.values[c] == 0 and board.cand[c].sum() >= 3]
    if not wide:
        return False
    cell = int(rng.choice(wide))
    board.cand[cell, int(rng.choice(np.flatnonzero(board.cand[cell])))] = 0
    return True


@pytest.mark.parametrize(
    ("geometry", "seed", "blank", "drop"),
    [(G23, 0, 0.8, 0.1), (G24, 0, 0.8, 0.1), (G9, 0, 0.75, 0.2), (G9, 2, 0.75, 0.2), (G9, 1, 0.8, 0.1)],
)
def test_aligned_exclusion_after_a_barren_state_is_what_a_fresh_search_finds(
    geometry: Geometry, seed: int, blank: float, drop: float
) -> None:
    """The search skips the bases that no change since the last barren state touched: along a
    run of states narrowed one candidate at a time, each answer equals a search that remembers
    nothing (the runs chosen have both barren states and finds)."""
    rng = np.random.default_rng(seed)
    board, _ = random_board(geometry, seed + 20, blank=blank, drop=drop)
    found = barren = 0
    for _ in range(40):
        for degree in (2, 3):
            step = aligned_exclusion(board, degree)
            aligned._barren.clear()
            fresh = aligned_exclusion(board, degree)
            assert (step is None) == (fresh is None)
            if step is not None and fresh is not None:
                found += 1
                assert step.eliminations.tolist() == fresh.eliminations.tolist()
                assert step.cells == fresh.cells
            else:
                barren += 1
            if step is None:
                # the fresh search just remembered this state: a second look finds nothing again
                assert aligned_exclusion(board, degree) is None
        if not _narrowed(board, rng):
            break
    assert found and barren


@pytest.mark.parametrize("degree", [2, 3])
def test_aligned_exclusion_sees_a_change_among_the_excluding_cells_only(degree: int) -> None:
    """Small positions (six open cells of the first box, the rest placed): a barren state, then
    one candidate less.  The search after the barren state answers as a fresh one, including
    where the cell that changed is none of the step's base cells (only a cell seeing them)."""
    n = G9.n
    rng = np.random.default_rng(degree)
    box = [0, 1, 2, n, n + 1, n + 2]
    outside = 0
    for _ in range(400):
        values = np.tile(np.arange(1, n + 1, dtype=np.int16), n)
        cand = np.zeros((n * n, n), dtype=np.uint8)
        for cell in box:
            values[cell] = 0
            cand[cell, rng.choice(5, size=int(rng.integers(2, 5)), replace=False)] = 1
        board = Board(G9, values, cand)
        aligned._barren.clear()
        if aligned_exclusion(board, degree) is not None:
            continue
        wide = [c for c in box if board.cand[c].sum() >= 3]
        if not wide:
            continue
        cell = int(rng.choice(wide))
        board.cand[cell, int(rng.choice(np.flatnonzero(board.cand[cell])))] = 0
        step = aligned_exclusion(board, degree)
        aligned._barren.clear()
        fresh = aligned_exclusion(board, degree)
        assert (step is None) == (fresh is None)
        if step is not None and fresh is not None:
            assert step.eliminations.tolist() == fresh.eliminations.tolist()
            assert step.cells == fresh.cells
            removed = {int(c) for c in step.eliminations[:, 0]}
            outside += cell not in step.cells[:degree] and bool(removed)
    assert outside  # some step's base cells kept their candidates: only an excluding cell changed


def _first_base(board: Board, degree: int) -> tuple[tuple[int, ...], set[tuple[int, int]]] | None:
    """The first base in cell order (plain enumeration) that removes something with an excluding
    cell holding only its digits, and what it removes: the base the compiled search must find."""
    digits = _open_digits(board)
    for base in itertools.combinations(digits, degree):
        union = set().union(*(digits[b] for b in base))
        excluding = [
            e
            for e in digits
            if len(digits[e]) <= degree and set(digits[e]) <= union and all(_sees(board, e, b) for b in base)
        ]
        if not excluding:
            continue
        gone = _excluded(board, digits, base, excluding)
        if gone:
            return base, gone
    return None


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G9) for s in range(6)])
def test_aligned_exclusion_takes_the_first_base_in_cell_order(geometry: Geometry, seed: int) -> None:
    """The search passes over pairs that cannot remove anything (no digit of either cell has the
    other's digits among those its excluding cells pair with it): the base it returns is still
    the first in cell order that removes something, as plain enumeration finds it."""
    found = 0
    for k in range(4):
        board, _ = random_board(geometry, 100 * seed + k, blank=0.7, drop=0.3 + 0.1 * k)
        for degree in (2, 3) if geometry is G23 else (2,):
            aligned._barren.clear()
            step = aligned_exclusion(board, degree)
            first = _first_base(board, degree)
            assert (step is None) == (first is None)
            if step is not None and first is not None:
                found += 1
                assert tuple(step.cells[:degree]) == first[0]
                assert {(int(c), int(d)) for c, d in step.eliminations} == first[1]
    assert found


def test_the_triplet_keeps_exactly_the_digits_of_its_allowed_combinations() -> None:
    """``aligned._allowed_triplet`` (which stops once every digit is kept) against the plain
    projection of the allowed combinations: no two seeing cells repeat a digit, and no excluding
    cell's digits all lie in the combination."""
    board = open_board(G9)
    sees = aligned.sees_table(G9)
    rng = np.random.default_rng(3)
    lost = 0
    for _ in range(3000):
        base = np.sort(rng.choice([0, 1, 2, 3, 9, 10, 11, 20, 27], size=3, replace=False)).astype(np.int64)
        masks = np.zeros(81, np.int64)
        for c in base:
            masks[c] = int(rng.choice(np.arange(3, 1 << 5)))
            while bin(int(masks[c])).count("1") < 2:
                masks[c] = int(rng.integers(3, 1 << 5))
        excl = np.array([40 + k for k in range(int(rng.integers(1, 4)))], dtype=np.int64)
        for e in excl:
            masks[e] = int(rng.choice([m for m in range(3, 1 << 5) if 2 <= bin(m).count("1") <= 3]))
        keep = np.zeros(3, np.int64)
        aligned._allowed_triplet(base, masks, 5, sees, excl, len(excl), keep)
        expected = [0, 0, 0]
        digits = [[d for d in range(5) if masks[c] >> d & 1] for c in base]
        for combo in itertools.product(*digits):
            if any(
                combo[i] == combo[j] and _sees(board, int(base[i]), int(base[j]))
                for i, j in itertools.combinations(range(3), 2)
            ):
                continue
            if any(all(d in combo for d in range(5) if masks[e] >> d & 1) for e in excl):
                continue
            for i in range(3):
                expected[i] |= 1 << combo[i]
        assert keep.tolist() == expected
        lost += expected != [int(masks[c]) for c in base]
    assert lost
