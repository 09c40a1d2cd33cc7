"""The one-digit searches' memory of each digit's last search (X and grouped) changes no answer."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.rules import chain_search as cs
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.geometry import geometry_for_size

pytestmark = pytest.mark.timeout(120)

#: Minimal puzzles that need fishes and chains (seed-1 generator output, rated 6-7.5).
PUZZLES = [
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
]


def _answers(board: Board) -> tuple[object, object]:
    cs._here.state = None  # no per-state answer: search again
    return cs.chain_search(board, cs.X), cs.grouped_search(board)


def _same(a: object, b: object) -> bool:
    return repr(a) == repr(b)


def _remembered_digits(board: Board) -> int:
    """How many digits' searches the memory answers on this board (their open candidates unchanged)."""
    columns = ((board.cand != 0) & (board.values == 0)[:, None]).T.astype(np.uint8)
    hits = 0
    for memory in cs._digit_memory.values():
        if memory.columns.shape == columns.shape:
            hits += int((memory.known & (memory.columns == columns).all(axis=1)).sum())
    return hits


def test_a_remembered_digit_gives_the_answers_of_a_fresh_search() -> None:
    """Remove candidates one at a time (states a digit at a time changes); at every state the
    searches with the memory of the last state answer as with none."""
    for item in parse_puzzles("\n".join(PUZZLES) + "\n"):
        assert item.grid is not None
        board = Board.from_grid(item.grid)
        rng = np.random.default_rng(0)
        cs._digit_memory.clear()
        remembered_digits = 0
        for _ in range(25):
            remembered_digits += _remembered_digits(board)
            remembered = _answers(board)
            memory = dict(cs._digit_memory)
            cs._digit_memory.clear()
            assert _same(remembered, _answers(board))
            cs._digit_memory.clear()
            cs._digit_memory.update(memory)
            open_cands = np.argwhere((board.cand != 0) & (board.values == 0)[:, None])
            several = [(c, d) for c, d in open_cands if board.cand[c].sum() > 2]
            if not several:
                break
            c, d = several[int(rng.integers(len(several)))]
            board.cand[c, d] = 0  # a smaller board: not a deduction, only a new state to search
        assert remembered_digits > 0


def test_the_memory_of_one_box_shape_is_not_read_for_another() -> None:
    """2x3 and 3x2 boxes share n = 6 but not their units: the same candidates searched in one shape
    and then in the other give the other's own answers."""
    wide, tall = geometry_for_size(6, (2, 3)), geometry_for_size(6, (3, 2))
    rng = np.random.default_rng(1)
    differed = 0
    for _ in range(30):
        cand = (rng.random((36, 6)) < 0.45).astype(np.uint8)
        cand[np.arange(36), rng.integers(0, 6, 36)] = 1  # every cell keeps a candidate
        values = np.zeros(36, np.int16)
        fresh = []
        for geometry in (wide, tall):
            cs._digit_memory.clear()
            fresh.append(_answers(Board(geometry, values.copy(), cand.copy())))
        cs._digit_memory.clear()
        _answers(Board(wide, values.copy(), cand.copy()))
        assert _same(_answers(Board(tall, values.copy(), cand.copy())), fresh[1])
        differed += not _same(fresh[0], fresh[1])
    assert differed > 0  # else the shapes would not tell a shared memory apart


def _shortest_y_loop(board: Board) -> int:
    """Links of the shortest Y loop with a victim, by breadth-first search over every open
    candidate (-1: none): v weak w1 strong y1 ... y weak w strong v, a third candidate weak-linked
    to both y and w.  Weak: one cell, or one digit in cells that see each other; strong: the two
    digits of a two-digit cell."""
    n = board.n
    peers = [set(row) for row in board.tables.peers.tolist()]
    lits = [(int(c), int(d)) for c, d in np.argwhere((board.cand != 0) & (board.values == 0)[:, None])]
    by_cell: dict[int, list[tuple[int, int]]] = {}
    for c, d in lits:
        by_cell.setdefault(c, []).append((c, d))

    def weak(a: tuple[int, int]) -> list[tuple[int, int]]:
        return [x for x in lits if x != a and (x[0] == a[0] or (x[1] == a[1] and x[0] in peers[a[0]]))]

    def strong(a: tuple[int, int]) -> list[tuple[int, int]]:
        cell = by_cell[a[0]]
        return [x for x in cell if x != a] if len(cell) == 2 else []

    weak_of = {a: set(weak(a)) for a in lits}
    best = -1
    for v in lits:
        for w in strong(v):
            ends = {y for y in weak_of[w] if weak_of[w] & weak_of[y]}
            level, front, seen = 0, {v}, {v}
            while front:
                if level >= 1 and front & ends:
                    links = 2 * level + 2
                    best = links if best < 0 else min(best, links)
                    break
                front = {y for x in front for w2 in weak_of[x] for y in strong(w2)} - seen
                seen |= front
                level += 1
    assert n > 0
    return best


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (3, 3)])
def test_the_y_search_on_two_digit_cells_finds_the_shortest_loop_of_all_candidates(
    shape: tuple[int, int],
) -> None:
    """The Y search numbers only the candidates of two-digit cells; its loops are those of a search
    over every open candidate, of the same length, and the candidate it names sees both ends."""
    g = geometry_for_size(shape[0] * shape[1], shape)
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(60 if g.n < 9 else 25):
        cand = (rng.random((g.n * g.n, g.n)) < rng.uniform(0.15, 0.4)).astype(np.uint8)
        cand[np.arange(g.n * g.n), rng.integers(0, g.n, g.n * g.n)] = 1
        board = Board(g, np.zeros(g.n * g.n, np.int16), cand)
        cs._here.state = None
        answer = cs.chain_search(board, cs.Y)
        assert answer.links[cs.ELIMINATION] < 0 and answer.links[cs.PLACEMENT] < 0  # loops only
        assert answer.links[cs.LOOP] == _shortest_y_loop(board)
        if answer.links[cs.LOOP] >= 0:
            found += 1
            walk = answer.walk[cs.LOOP]
            victim = answer.target[cs.LOOP]
            y, w = tuple(walk[-2]), tuple(walk[-1])
            assert y[1] == w[1] == victim[1] and victim[0] not in (y[0], w[0])
            assert cand[victim] and {y[0], w[0]} <= set(board.tables.peers[victim[0]].tolist())
    assert found > 5


def test_victims_are_the_open_candidates_weak_linked_to_both_ends() -> None:
    """``aic.victims`` against its definition, every open candidate tried: two digits of one cell,
    or one digit in two cells that see each other, are weak-linked."""
    from sudoku_cp.deduction.rules.aic import victims

    g = geometry_for_size(9, (3, 3))
    peers = [
        set(row) for row in Board(g, np.zeros(81, np.int16), np.ones((81, 9), np.uint8)).tables.peers.tolist()
    ]

    def weak(x: tuple[int, int], y: tuple[int, int]) -> bool:
        return x != y and (x[0] == y[0] or (x[1] == y[1] and y[0] in peers[x[0]]))

    rng = np.random.default_rng(5)
    some = 0
    for _ in range(300):
        cand = (rng.random((81, 9)) < 0.4).astype(np.uint8)
        values = np.where(rng.random(81) < 0.2, 1, 0).astype(np.int16)
        board = Board(g, values, cand)
        lits = [(int(c), int(d)) for c, d in np.argwhere((cand != 0) & (values == 0)[:, None])]
        a, b = lits[int(rng.integers(len(lits)))], lits[int(rng.integers(len(lits)))]
        keep = {lits[int(i)] for i in rng.integers(0, len(lits), 3)}
        expected = {x for x in lits if x not in keep and weak(x, a) and weak(x, b)}
        assert victims(board, a, b, keep) == expected
        some += bool(expected)
    assert some > 50


def test_a_grouped_elimination_removes_the_digit_from_every_open_cell_seeing_both_end_nodes() -> None:
    """``aic._grouped_gone`` against its definition, on random walks of random boards: the target,
    and every open cell holding the digit, outside the walk, that sees every cell of the two end
    nodes (a group is one node of several cells)."""
    from sudoku_cp.deduction.rules.aic import _grouped_gone

    g = geometry_for_size(9, (3, 3))
    peers = [
        set(row) for row in Board(g, np.zeros(81, np.int16), np.ones((81, 9), np.uint8)).tables.peers.tolist()
    ]
    rng = np.random.default_rng(7)
    some = 0
    for _ in range(300):
        cand = (rng.random((81, 9)) < 0.5).astype(np.uint8)
        values = np.where(rng.random(81) < 0.2, 1, 0).astype(np.int16)
        board = Board(g, values, cand)
        digit = int(rng.integers(9))
        # nodes: one cell, or two or three cells of one box row (a group)
        walk = []
        for _ in range(int(rng.integers(3, 6))):
            start = int(rng.integers(81))
            width = int(rng.integers(1, 4 - start % 3))
            walk.append(tuple(range(start, start + width)))
        target = int(rng.integers(81))
        inside = {c for node in walk for c in node}
        ends = [*walk[1], *walk[-1]]
        expected = {
            (c, digit)
            for c in range(81)
            if values[c] == 0 and cand[c, digit] and c not in inside and all(e in peers[c] for e in ends)
        } | {(target, digit)}
        got = _grouped_gone(board, walk, target, digit)
        assert got == expected
        assert all(type(c) is int for c, _ in got)
        some += len(got) > 1
    assert some
