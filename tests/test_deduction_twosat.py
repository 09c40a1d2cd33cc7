"""The 2-SAT rule: bivalue, bilocal and at-most-one implications; a literal implying its own
negation.  Hand-made chains on 9x9, 2x3 and 2x4 boxes; the failed literals against python-sat
on an independently built clause set; every step sound against the solutions of the board."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pysat.solvers import Solver
from test_deduction_matching import assert_sound, eliminated, open_board, random_board

from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rules import RULES, select_rules
from sudoku_cp.deduction.rules.twosat import _strong_components, failed_literals, two_sat
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry

G9, G23, G24 = Geometry(3, 3), Geometry(2, 3), Geometry(2, 4)


def _only(board: Board, cell: int, digits: list[int]) -> None:
    board.cand[cell] = 0
    board.cand[cell, digits] = 1


def _clauses(board: Board) -> list[tuple[int, int]]:
    """The rule's 2-clauses, built cell by cell in plain Python (literal +-(cell * n + d + 1))."""
    n = board.n
    live = {(c, d) for c in range(n * n) for d in range(n) if board.values[c] == 0 and board.cand[c, d]}

    def lit(c: int, d: int) -> int:
        return c * n + d + 1

    clauses = []
    for unit in board.tables.units:
        cells = [int(c) for c in unit]
        for d in range(n):
            places = [c for c in cells if (c, d) in live]
            held = any(board.values[c] == d + 1 for c in cells)
            if len(places) == 2 and not held:
                clauses.append((lit(places[0], d), lit(places[1], d)))
            clauses += [(-lit(a, d), -lit(b, d)) for a, b in itertools.combinations(places, 2)]
    for c in range(n * n):
        digits = [d for d in range(n) if (c, d) in live]
        if len(digits) == 2:
            clauses.append((lit(c, digits[0]), lit(c, digits[1])))
        clauses += [(-lit(c, a), -lit(c, b)) for a, b in itertools.combinations(digits, 2)]
    return clauses


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24, G9) for s in range(6)])
def test_failed_literals_are_exactly_those_the_clauses_refute(geometry: Geometry, seed: int) -> None:
    board, _ = random_board(geometry, seed, blank=0.7, drop=0.45)
    n = board.n
    with Solver(name="minisat22", bootstrap_with=[list(c) for c in _clauses(board)]) as solver:
        if not solver.solve():
            with pytest.raises(Contradiction):
                failed_literals(board)
            return
        imp, failed = failed_literals(board)
        for literal in range(2 * imp.size):
            v = literal % imp.size
            var = int(imp.cells[v]) * n + int(imp.digits[v]) + 1
            refuted = not solver.solve(assumptions=[var if literal < imp.size else -var])
            assert failed[literal] == refuted, imp.name(literal)


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24) for s in range(6)])
def test_two_sat_steps_are_sound_until_stuck(geometry: Geometry, seed: int) -> None:
    board, solution = random_board(geometry, seed, blank=0.7, drop=0.45)
    truth = solution.values.reshape(-1) - 1
    for _ in range(30):
        step = two_sat(board)
        if step is None:
            break
        assert_sound(board, step)
        assert len(step.links) == len(step.note.split(" -> ")) - 1
        for cell, d in step.eliminations:
            assert truth[cell] != d
        for cell, d in step.placements:
            assert truth[cell] == d
        board.apply(step.placements, step.eliminations)


def _xy_chain(geometry: Geometry) -> tuple[Board, int]:
    """A{1,2} - B{2,3} - C{3,1}: the cell T seeing A and C loses 1 (T = the rectangle's corner)."""
    n, p, q = geometry.n, geometry.p, geometry.q
    board = open_board(geometry)
    a, b, c, target = 0, q, p * n + q, p * n
    _only(board, a, [0, 1])
    _only(board, b, [1, 2])
    _only(board, c, [2, 0])
    return board, target


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_two_sat_fires_on_a_bivalue_chain(geometry: Geometry) -> None:
    n, p, q = geometry.n, geometry.p, geometry.q
    board, target = _xy_chain(geometry)
    step = two_sat(board)
    assert step is not None and step.rule == "2-sat"
    assert eliminated(step) == {(target, 0)} and len(step.placements) == 0
    name = geometry.cell_name
    t, a, b, c = name(target), name(0), name(q), name(p * n + q)
    assert step.note == (
        f"{t}=1 -> {a}!=1 -> {a}=2 -> {b}!=2 -> {b}=3 -> {c}!=3 -> {c}=1 -> {t}!=1: "
        f"{t}=1 refutes itself, so 1 leaves {t}"
    )
    assert step.links[0] == (target, 0, 0, "implication") and step.links[1] == (0, 0, 1, "implication")
    assert step.cells == (target, 0, q, p * n + q) and step.digits == (0,)
    assert_sound(board, step)


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_two_sat_places_a_digit_whose_absence_forces_it_back(geometry: Geometry) -> None:
    """Digit 1: row 1 only at X and A, A's column then a box pair B-C, C's row hides Q, Q and X
    are column 1's only places: X != 1 -> A = 1 -> B != 1 -> C = 1 -> Q != 1 -> X = 1."""
    n, p, q = geometry.n, geometry.p, geometry.q
    board = open_board(geometry)
    x, a = 0, q  # row 0: 1 only at X and A
    b, c = (p + 1) * n + q, p * n + q + 1  # box of band 1, stack 1: 1 only at B and C
    qq = p * n  # column 0: 1 only at X and Q (Q in C's row)
    for cell in range(n):
        if cell not in (x, a):
            board.cand[cell, 0] = 0
    for r in range(n):
        if r * n not in (x, qq):
            board.cand[r * n, 0] = 0
    for cell in geometry.units[2 * n + p + 1]:
        if cell not in (b, c):
            board.cand[cell, 0] = 0
    step = two_sat(board)
    assert step is not None and len(step.eliminations) == 0
    assert step.placements.tolist() == [[x, 0]]
    name = geometry.cell_name
    chain = f"R1C1!=1 -> {name(a)}=1 -> {name(b)}!=1 -> {name(c)}=1 -> {name(qq)}!=1 -> R1C1=1"
    assert step.note == f"{chain}: R1C1!=1 refutes itself, so 1 goes in R1C1"
    assert step.links == tuple((u, v, 0, "implication") for u, v in itertools.pairwise([x, a, b, c, qq, x]))
    assert_sound(board, step)


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_two_sat_raises_contradiction_on_three_cells_sharing_two_digits(geometry: Geometry) -> None:
    board = open_board(geometry)
    for cell in range(3):
        _only(board, cell, [3, 4])
    board.check()  # no single cell or unit is empty: only the implications see it
    with pytest.raises(Contradiction, match=r"the 2-SAT implications force both R1C1=4 and R1C1!=4"):
        two_sat(board)


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_two_sat_does_not_fire_without_a_chain(geometry: Geometry) -> None:
    board = open_board(geometry)
    assert two_sat(board) is None
    n, p, q = geometry.n, geometry.p, geometry.q
    _only(board, 0, [0, 1])  # two pairs that see each other through no unit
    _only(board, p * n + q, [0, 1])
    assert two_sat(board) is None


def test_two_sat_on_stuck_9x9_boards_is_sound() -> None:
    """The boards of ``benchmarks/engine_costs.py`` (which times this call; tests never do)."""
    lines = [  # sudoku_exchange_diabolical_10k.txt lines 1, 4 and 5 (../shared/data/sudoku9)
        "083020090000800100029300008000098700070000060006740000300006980002005000010030540",
        "006000200900000004243000896000591000002080300400203001300000007000907000010408020",
        "850000031000070000000809000003000600970301052000020000100407006205000307000080000",
    ]
    rules = select_rules(["singles", "locked", "subsets", "fish", "wings"])
    boards = [deduce(parse_grid(line), rules, record=False).board for line in lines]
    assert all(not board.solved for board in boards)
    steps = [two_sat(board) for board in boards]
    assert any(step is not None for step in steps)
    for board, step in zip(boards, steps, strict=True):
        if step is not None:
            assert_sound(board, step)


def test_two_sat_is_registered() -> None:
    rule = next(rule for rule in RULES if rule.name == "2-sat")
    assert rule.family == "twosat" and rule.weight == 7.0 and not rule.uniqueness


@pytest.mark.parametrize("seed", range(8))
def test_strong_components_are_scipys_partition(seed: int) -> None:
    """The compiled Tarjan search splits random directed graphs (sparse to dense, self-loops and
    long cycles included) into the strong components scipy finds."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 300))
    arcs = int(rng.integers(0, 4 * nodes))
    tails = rng.integers(0, nodes, arcs)
    heads = rng.integers(0, nodes, arcs)
    ring = np.arange(nodes)  # a long cycle through a third of the nodes: deep searches
    tails = np.concatenate([tails, ring[: nodes // 3]])
    heads = np.concatenate([heads, np.roll(ring[: nodes // 3], -1)])
    graph = csr_matrix((np.ones(len(tails)), (tails, heads)), shape=(nodes, nodes))
    count, labels = _strong_components(graph.indptr.astype(np.int64), graph.indices.astype(np.int64))
    expected_count, expected = connected_components(graph, directed=True, connection="strong")
    assert count == expected_count
    pairs = set(zip(labels.tolist(), expected.tolist(), strict=True))
    assert len(pairs) == count  # the same partition: labels correspond one to one
