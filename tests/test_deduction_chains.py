"""The chain rules on the bilocation and bivalue graphs (sudoku_cp.deduction.rules.chains).

Hand-made positions start from a known solution ``S`` of a box shape, every cell open with every
candidate, and remove only candidates that ``S`` does not use until one pattern stands on the
board.  ``S`` stays a solution of every position, so each step must agree with it (an elimination
never removes ``S``'s digit, a placement places it) and no rule may report a contradiction.  Each
rule is run where it must fire and where it must not, on 9x9 and on 2x3, 3x2, 3x4 boxes.

Soundness on many boards: puzzles of tests/data run by the engine (local rules, then the chain
rules) with every step checked against the known solution; generated puzzles of rectangular
shapes likewise; random candidate positions around a known solution with the chain rules applied
until none fires.  The realizable pairs of the cycle rules (Theorem 2.1 on strong components) and
the walk facts of the path rules (Theorem 2.2) are compared with a brute-force search over walks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest
from conftest import DATA, read_lines, shared_file

from sudoku_cp.api import solve
from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.generate import fill_givens, generate_puzzle
from sudoku_cp.deduction.rules import RULES as ALL_RULES
from sudoku_cp.deduction.rules import graphs_of_board, select_rules
from sudoku_cp.deduction.rules.chains import (
    RULES,
    find_bilocation_conflicting_paths,
    find_bilocation_cycle,
    find_bilocation_repetitive_cycle,
    find_bivalue_conflicting_paths,
    find_bivalue_cycle,
    find_bivalue_repetitive_cycle,
)
from sudoku_cp.deduction.rules.graphs_of_board import BILOCATION, BIVALUE, ChainGraph, GraphKind
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry, geometry_for_size

SHAPES = [(3, 3), (2, 3), (3, 2), (3, 4)]
CHAIN_FAMILIES = ["singles", "locked", "subsets", "fish", "wings", "bilocation", "bivalue"]
Finder = Callable[[Board], Step | None]


@pytest.fixture(params=SHAPES, ids=[f"{p}x{q}" for p, q in SHAPES])
def geometry(request: pytest.FixtureRequest) -> Geometry:
    p, q = request.param
    return geometry_for_size(p * q, (p, q))


# -- positions around a known solution ---------------------------------------------------------------


def random_grid(geometry: Geometry, rng: np.random.Generator) -> np.ndarray:
    """A random complete grid, 0-based digits per cell (the generator's fill: varied, unlike shifted rows)."""
    filled = fill_givens(geometry, rng)
    assert filled is not None
    return filled[1].values.reshape(-1).astype(np.int64) - 1


class Position:
    """A board whose cells are all open, built from a solution by removing candidates it does not use."""

    def __init__(self, geometry: Geometry, seed: int) -> None:
        self.g = geometry
        self.n = geometry.n
        self.S = random_grid(geometry, np.random.default_rng(seed))
        n = self.n
        self.board = Board(geometry, np.zeros(n * n, np.int16), np.ones((n * n, n), np.uint8))

    def at(self, r: int, c: int) -> int:
        return r * self.n + c

    def s(self, cell: int) -> int:
        return int(self.S[cell])

    def band(self, r: int) -> int:
        return r // self.g.p

    def stack(self, c: int) -> int:
        return c // self.g.q

    def box(self, cell: int) -> int:  # the unit index of the cell's box
        return int(self.g.cell_units[cell, 2])

    def unit_cells(self, unit: int) -> list[int]:
        return [int(c) for c in self.g.units[unit]]

    def row(self, r: int) -> int:
        return r

    def col(self, c: int) -> int:
        return self.n + c

    def confine(self, unit: int, digit: int, cells: Iterable[int]) -> None:
        """Digit ``digit`` may go only in ``cells`` within ``unit``."""
        keep = set(cells)
        for cell in self.unit_cells(unit):
            if cell not in keep:
                self.board.cand[cell, digit] = 0

    def only(self, cell: int, digits: Iterable[int]) -> None:
        """``cell`` keeps only ``digits``."""
        self.board.cand[cell, :] = 0
        self.board.cand[cell, list(digits)] = 1

    def consistent(self) -> None:
        assert np.all(self.board.cand[np.arange(self.n * self.n), self.S] == 1), "the position lost S"


def sound(step: Step, S: np.ndarray) -> None:
    """Every placement is S's digit, no elimination is."""
    for cell, digit in step.placements:
        assert S[cell] == digit, f"{step.rule} places {digit + 1} at cell {cell}, S has {S[cell] + 1}"
    for cell, digit in step.eliminations:
        assert S[cell] != digit, f"{step.rule} removes S's digit {digit + 1} from cell {cell}"


def shares_unit(g: Geometry, a: int, b: int) -> set[int]:
    return set(g.cell_units[a].tolist()) & set(g.cell_units[b].tolist())


def check_links(board: Board, step: Step, *, closed: bool) -> None:
    """The links are real edges of their graph on this board, consecutive where they form one walk."""
    g = board.geometry
    for a, b, d, graph in step.links:
        assert a != b and (board.values[[a, b]] == 0).all()
        units = shares_unit(g, a, b)
        assert units, f"link {a}-{b} shares no unit"
        if graph == BILOCATION:
            assert any(
                {int(c) for c in g.units[u] if board.values[c] == 0 and board.cand[c, d]} == {a, b}
                for u in units
            ), f"link {a}-{b} is not {d + 1}'s only two places in a unit"
        else:
            assert graph == BIVALUE
            assert (
                board.cand[a].sum() == 2
                and board.cand[b].sum() == 2
                and board.cand[a, d]
                and board.cand[b, d]
            )
    links = step.links
    if closed:
        assert all(links[i][1] == links[(i + 1) % len(links)][0] for i in range(len(links)))
        labels = [d for _, _, d, _ in links]
        assert all(labels[i] != labels[(i + 1) % len(labels)] for i in range(len(labels)))


def exhaust(board: Board, finders: Iterable[Finder], S: np.ndarray, limit: int = 500) -> list[Step]:
    """Apply the finders' steps (first finder that fires, then again from the first) until none fires."""
    finders = list(finders)
    steps: list[Step] = []
    while len(steps) < limit:
        for find in finders:
            step = find(board)
            if step is None:
                continue
            assert step.progress > 0
            sound(step, S)
            board.apply(step.placements, step.eliminations)
            board.check()
            steps.append(step)
            break
        else:
            return steps
    raise AssertionError("the chain rules did not stop")


def pairs(rows: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    return {(int(c), int(d)) for c, d in rows}


# -- constructions (each searches the solution for cells that fit; None when this S has none) ------


def rectangle(pos: Position, ok: Callable[[int, int, int, int], bool]) -> tuple[int, int, int, int] | None:
    """Rows r1, r2 in different bands and columns c1, c2 in different stacks with ``ok(A, B, C, D)``, where
    A = (r1, c1), B = (r1, c2), C = (r2, c2), D = (r2, c1)."""
    n = pos.n
    for r1 in range(n):
        for r2 in range(n):
            if pos.band(r1) == pos.band(r2):
                continue
            for c1 in range(n):
                for c2 in range(n):
                    if pos.stack(c1) == pos.stack(c2):
                        continue
                    cells = (pos.at(r1, c1), pos.at(r1, c2), pos.at(r2, c2), pos.at(r2, c1))
                    if ok(*cells):
                        return cells
    return None


def build(
    geometry: Geometry, make: Callable[[Position], dict[str, Any] | None]
) -> tuple[Position, dict[str, Any]]:
    """The first seed whose solution admits the construction."""
    for seed in range(50):
        pos = Position(geometry, seed)
        made = make(pos)
        if made is not None:
            pos.consistent()
            return pos, made
    raise AssertionError("no solution admits the construction")


def bilocation_loop(pos: Position) -> dict[str, Any] | None:
    """A = x = C, B = y = D; row r1 and row r2 hold x only at A, B and C, D; columns c1, c2 hold y only at
    D, A and B, C: the loop A =x= B =y= C =x= D =y= A."""
    s = pos.s
    found = rectangle(pos, lambda a, b, c, d: s(a) == s(c) and s(b) == s(d))
    if found is None:
        return None
    a, b, c, d = found
    x, y = s(a), s(b)
    r1, r2, c1, c2 = a // pos.n, c // pos.n, a % pos.n, b % pos.n
    pos.confine(pos.row(r1), x, (a, b))
    pos.confine(pos.row(r2), x, (c, d))
    pos.confine(pos.col(c1), y, (a, d))
    pos.confine(pos.col(c2), y, (b, c))
    return {"cells": (a, b, c, d), "x": x, "y": y, "c2": c2, "r1": r1}


def bilocation_two_loops(pos: Position) -> dict[str, Any] | None:
    """Two bilocation loops meeting only at cell A: the rectangle of ``bilocation_loop`` passes A with
    {x, y}, a second loop A =x= F =w= G =v= E =z= A (F in A's box, G in F's row, E in G's column and
    A's row) passes it with {x, z}.  A keeps only x; three loop digits at A are no contradiction."""
    n, s = pos.n, pos.s
    loop = bilocation_loop(pos)
    if loop is None:
        return None
    a, b, c, d = loop["cells"]
    x, y = int(loop["x"]), int(loop["y"])
    r1, c1, c2 = a // n, a % n, b % n
    for fr in range(n):
        for fc in range(n):
            f = pos.at(fr, fc)
            if fr == r1 or fc == c1 or pos.box(f) != pos.box(a):
                continue
            for ce in range(n):
                if pos.stack(ce) == pos.stack(c1) or ce == c2:
                    continue
                e, gg = pos.at(r1, ce), pos.at(fr, ce)
                w, v, z = s(f), s(gg), s(e)
                if len({x, y, z, w, v}) < 5:
                    continue
                pos.confine(pos.row(r1), z, (a, e))
                pos.confine(pos.box(a), x, (a, f))
                pos.confine(pos.row(fr), w, (f, gg))
                pos.confine(pos.col(ce), v, (gg, e))
                return {"a": a, "x": x, "others": (y, z)}
    return None


def bilocation_return(pos: Position) -> dict[str, Any] | None:
    """c =d= a (row), a =e= b (box), b =d= c (column), with a and b in c's box: leaving c by d comes back by
    d, so c is d."""
    n, s = pos.n, pos.s
    for c in range(n * n):
        r0, c0 = divmod(c, n)
        a = next((pos.at(r0, k) for k in range(n) if k != c0 and pos.box(pos.at(r0, k)) == pos.box(c)), None)
        b = next((pos.at(k, c0) for k in range(n) if k != r0 and pos.box(pos.at(k, c0)) == pos.box(c)), None)
        if a is None or b is None:
            continue
        d, e = s(c), s(a)
        pos.confine(pos.row(r0), d, (c, a))
        pos.confine(pos.col(c0), d, (c, b))
        pos.confine(pos.box(c), e, (a, b))
        return {"c": c, "d": d, "a": a, "b": b, "e": e}
    return None


def bilocation_conflict(pos: Position) -> dict[str, Any] | None:
    """c =d= a (row), c =d= b (column), a =e= u1 (column), b =e= u2 (row), u1 and u2 in one box: if c were
    not d, both u1 and u2 would be e."""
    n, s = pos.n, pos.s
    for r0 in range(n):
        for c0 in range(n):
            for c1 in range(n):
                if pos.stack(c1) == pos.stack(c0):
                    continue
                for r1 in range(n):
                    if pos.band(r1) == pos.band(r0):
                        continue
                    c, a, b = pos.at(r0, c0), pos.at(r0, c1), pos.at(r1, c0)
                    e = s(b)
                    r2 = next((r for r in range(n) if s(pos.at(r, c1)) == e), -1)
                    if r2 == r1 or pos.band(r2) != pos.band(r1):
                        continue
                    c2 = next((k for k in range(n) if k != c1 and pos.stack(k) == pos.stack(c1)), None)
                    if c2 is None:
                        continue
                    u1, u2 = pos.at(r2, c1), pos.at(r1, c2)
                    d = s(c)
                    pos.confine(pos.row(r0), d, (c, a))
                    pos.confine(pos.col(c0), d, (c, b))
                    pos.confine(pos.col(c1), e, (a, u1))
                    pos.confine(pos.row(r1), e, (b, u2))
                    return {"c": c, "d": d, "e": e, "ends": {u1, u2}, "a": a, "c1": c1, "r2": r2}
    return None


def bivalue_loop(pos: Position) -> dict[str, Any] | None:
    """Two-digit cells A = {S[A], S[B]}, B = {S[B], S[C]}, C = {S[C], S[D]}, D = {S[D], S[A]} on a
    rectangle."""
    s = pos.s
    found = rectangle(pos, lambda a, b, c, d: len({s(a), s(b), s(c), s(d)}) == 4)
    if found is None:
        return None
    a, b, c, d = found
    for cell, nxt in ((a, b), (b, c), (c, d), (d, a)):
        pos.only(cell, (s(cell), s(nxt)))
    return {"cells": found}


def bivalue_return(pos: Position) -> dict[str, Any] | None:
    """c = {o, d}, a = {d, e}, b = {e, f}, g = {f, d} around a rectangle c, a, b, g: if c were d, then a = e,
    b = f, g = d, so c would not be d.  c is o."""
    s = pos.s
    found = rectangle(pos, lambda c, a, b, g: s(a) != s(g) and s(c) != s(b))
    if found is None:
        return None
    c, a, b, g = found
    o, d, e, f = s(c), s(a), s(b), s(g)
    pos.only(c, (o, d))
    pos.only(a, (d, e))
    pos.only(b, (e, f))
    pos.only(g, (f, d))
    return {"c": c, "o": o, "d": d, "g": g, "f": f}


def bivalue_conflict(pos: Position) -> dict[str, Any] | None:
    """c = {o, d}, a = {d, f} in c's row, b = {d, h} in c's column, u1 = {f, g} in a's column, u2 = {h, g} in
    b's row, u1 and u2 in one box: if c were d, a = f and b = h, so u1 = g and u2 = g.  c is o."""
    n, s = pos.n, pos.s
    for r0 in range(n):
        for c0 in range(n):
            for c1 in range(n):
                for r1 in range(n):
                    if pos.stack(c1) == pos.stack(c0) or pos.band(r1) == pos.band(r0):
                        continue
                    c, a, b = pos.at(r0, c0), pos.at(r0, c1), pos.at(r1, c0)
                    if s(a) != s(b):
                        continue
                    r2 = next((r for r in range(n) if r != r1 and pos.band(r) == pos.band(r1)), None)
                    c2 = next((k for k in range(n) if k != c1 and pos.stack(k) == pos.stack(c1)), None)
                    if r2 is None or c2 is None:
                        continue
                    u1, u2 = pos.at(r2, c1), pos.at(r1, c2)
                    o, d, g, h = s(c), s(a), s(u1), s(u2)
                    spare = [k for k in range(n) if k not in {o, d, g, h}]
                    if len({o, d, g, h}) < 4 or not spare:
                        continue
                    f = spare[0]
                    pos.only(c, (o, d))
                    pos.only(a, (d, f))
                    pos.only(b, (d, h))
                    pos.only(u1, (f, g))
                    pos.only(u2, (h, g))
                    return {"c": c, "o": o, "ends": {u1, u2}, "u2": u2, "spare": spare[1:]}
    return None


# -- the bilocation rules ------------------------------------------------------------------------------


def test_rules_are_registered_in_the_papers_order_with_their_families() -> None:
    names = [rule.name for rule in RULES]
    assert names == [
        "bilocation-cycle",
        "bilocation-repetitive-cycle",
        "bilocation-conflicting-paths",
        "bivalue-cycle",
        "bivalue-repetitive-cycle",
        "bivalue-conflicting-paths",
    ]
    assert {rule.family for rule in RULES} == {"bilocation", "bivalue"}
    # table weights: the lightest chain each can be (a bivalue cycle is a loop of two-digit cells,
    # 6.5; every other one a mixed chain or loop, 7.0); each step weighs its own length
    by = {rule.name: rule.weight for rule in RULES}
    assert by == {name: 6.5 if name == "bivalue-cycle" else 7.0 for name in names}
    assert all(rule.local_id == -1 and not rule.uniqueness and rule.subsumed_by for rule in RULES)
    table = [rule.name for rule in ALL_RULES]
    assert set(names) <= set(table)
    assert {rule.name for rule in select_rules(["bilocation"])} == set(names[:3])
    assert {rule.name for rule in select_rules(["bivalue"])} == set(names[3:])


def test_bilocation_cycle_keeps_each_loop_cell_to_its_two_loop_digits(geometry: Geometry) -> None:
    pos, made = build(geometry, bilocation_loop)
    cells, x, y = made["cells"], made["x"], made["y"]
    board = pos.board
    step = find_bilocation_cycle(board)
    assert step is not None and step.rule == "bilocation-cycle"
    n = geometry.n
    expected = {(cell, k) for cell in cells for k in range(n) if k not in (x, y)}
    assert pairs(step.eliminations) == expected
    assert len(step.placements) == 0
    assert set(step.cells) == set(cells) and len(step.links) == 4
    check_links(board, step, closed=True)
    sound(step, pos.S)
    assert "loop" in step.note and step.describe(geometry).startswith("bilocation-cycle")


def test_bilocation_rules_stay_quiet_on_an_open_chain(geometry: Geometry) -> None:
    pos, made = build(geometry, bilocation_loop)
    # a third place for y in column c2 breaks the link B =y= C: the loop is an open chain
    c2, r1 = int(made["c2"]), int(made["r1"])
    y = int(made["y"])
    _, _, c, _ = made["cells"]
    spare = next(r for r in range(geometry.n) if r not in (r1, c // geometry.n))
    pos.board.cand[spare * geometry.n + c2, y] = 1
    for find in (find_bilocation_cycle, find_bilocation_repetitive_cycle, find_bilocation_conflicting_paths):
        assert find(pos.board) is None, find.__name__


def test_bilocation_cycle_intersects_loops_instead_of_calling_three_digits_a_contradiction(
    geometry: Geometry,
) -> None:
    """The paper's rule calls three loop digits at a cell a contradiction; two loops meeting at one cell,
    with {x, y} and {x, z}, only force x there (S is a solution of this position)."""
    pos, made = build(geometry, bilocation_two_loops)
    a, x = int(made["a"]), int(made["x"])
    graph = ChainGraph(BILOCATION, pos.board)
    cyclic = graph.nr.cyclic_edges()
    tr = graph.traversals
    at_a = {int(tr.in_label[t]) for t in np.flatnonzero(cyclic) if tr.target[t] == a}
    assert len(at_a) >= 3  # the paper's test would stop here with "no solution"
    steps = exhaust(pos.board, [find_bilocation_cycle], pos.S)
    assert steps and all(s.rule == "bilocation-cycle" for s in steps)
    assert np.flatnonzero(pos.board.cand[a]).tolist() == [x]


def test_bilocation_cycle_contradiction_three_digits_in_two_cells(geometry: Geometry) -> None:
    board = Position(geometry, 0).board
    row = [int(c) for c in geometry.units[0]]
    for digit in (0, 1, 2):
        for cell in row[2:]:
            board.cand[cell, digit] = 0
    with pytest.raises(Contradiction, match="bilocation loops pass"):
        find_bilocation_cycle(board)


def test_bilocation_repetitive_cycle_places_the_repeated_digit(geometry: Geometry) -> None:
    pos, made = build(geometry, bilocation_return)
    c, d = int(made["c"]), int(made["d"])
    step = find_bilocation_repetitive_cycle(pos.board)
    assert step is not None and step.rule == "bilocation-repetitive-cycle"
    assert pairs(step.placements) == {(c, d)} and len(step.eliminations) == 0
    assert step.links[0][0] == c and step.links[-1][1] == c
    assert step.links[0][2] == d and step.links[-1][2] == d
    assert len(step.links) == 3 and step.cells[0] == c
    check_links(pos.board, step, closed=False)
    sound(step, pos.S)
    assert find_bilocation_cycle(pos.board) is None  # the loop repeats d at c: no nonrepetitive cycle


def test_bilocation_repetitive_cycle_quiet_without_the_return_link(geometry: Geometry) -> None:
    pos, made = build(geometry, bilocation_return)
    a, b, e = int(made["a"]), int(made["b"]), int(made["e"])
    third = next(int(k) for k in geometry.units[pos.box(a)] if k not in (a, b))
    pos.board.cand[third, e] = 1  # e has three places in the box: no link a =e= b
    assert find_bilocation_repetitive_cycle(pos.board) is None
    assert find_bilocation_cycle(pos.board) is None


def test_bilocation_conflicting_paths_place_the_start_digit(geometry: Geometry) -> None:
    pos, made = build(geometry, bilocation_conflict)
    c, d, e = int(made["c"]), int(made["d"]), int(made["e"])
    assert find_bilocation_repetitive_cycle(pos.board) is None
    step = find_bilocation_conflicting_paths(pos.board)
    assert step is not None and step.rule == "bilocation-conflicting-paths"
    assert pairs(step.placements) == {(c, d)}
    assert step.digits == (d, e) and len(step.units) == 1
    ends = {link[1] for link in step.links} & made["ends"]
    assert ends == made["ends"]
    assert sum(1 for link in step.links if link[0] == c) == 2  # two walks from c, each leaving by d
    assert all(link[2] == d for link in step.links if link[0] == c)
    check_links(pos.board, step, closed=False)
    sound(step, pos.S)


def test_bilocation_conflicting_paths_quiet_when_one_path_breaks(geometry: Geometry) -> None:
    pos, made = build(geometry, bilocation_conflict)
    a, c1, r2, e = (int(made[k]) for k in ("a", "c1", "r2", "e"))
    n = geometry.n
    third = next(r * n + c1 for r in range(n) if r * n + c1 not in (a, r2 * n + c1))
    pos.board.cand[third, e] = 1  # e gets a third place in a's column: the link a =e= u1 is gone
    assert find_bilocation_conflicting_paths(pos.board) is None


# -- the bivalue rules ---------------------------------------------------------------------------------


def test_bivalue_cycle_removes_each_link_digit_from_the_rest_of_its_unit(geometry: Geometry) -> None:
    pos, made = build(geometry, bivalue_loop)
    cells = made["cells"]
    board = pos.board
    step = find_bivalue_cycle(board)
    assert step is not None and step.rule == "bivalue-cycle"
    g = geometry
    expected = set()
    for a, b in zip(cells, (*cells[1:], cells[0]), strict=True):
        digit = int(np.flatnonzero(board.cand[a] & board.cand[b])[0])
        (unit,) = shares_unit(g, a, b)
        expected |= {(int(k), digit) for k in g.units[unit] if k not in (a, b)}
    assert pairs(step.eliminations) == expected
    assert set(step.cells) == set(cells) and len(step.links) == 4
    assert len(step.units) == 4
    check_links(board, step, closed=True)
    sound(step, pos.S)


def test_bivalue_cycle_quiet_when_a_cell_has_three_digits(geometry: Geometry) -> None:
    pos, made = build(geometry, bivalue_loop)
    _, _, c, _ = made["cells"]
    third = next(k for k in range(geometry.n) if not pos.board.cand[c, k])
    pos.board.cand[c, third] = 1
    for find in (find_bivalue_cycle, find_bivalue_repetitive_cycle, find_bivalue_conflicting_paths):
        assert find(pos.board) is None, find.__name__


def test_bivalue_cycle_contradiction_three_cells_with_one_pair(geometry: Geometry) -> None:
    board = Position(geometry, 0).board
    for cell in geometry.units[0][:3]:
        board.cand[cell, :] = 0
        board.cand[cell, [0, 1]] = 1
    with pytest.raises(Contradiction, match="bivalue loops pass"):
        find_bivalue_cycle(board)


def test_bivalue_cycle_places_where_two_loops_meet() -> None:
    """At a (unit, digit) vertex, loops through cells {a, b} and {a, c} put the digit at a: no contradiction
    (the bivalue twin of the three-label case; random positions around a solution reach it often)."""
    rng = np.random.default_rng(5)
    met = 0
    for trial in range(400):
        p, q = SHAPES[trial % len(SHAPES)]
        g = geometry_for_size(p * q, (p, q))
        board, S = random_position(g, rng)
        graph = ChainGraph(BIVALUE, board)
        vertices, _, realizable = graph.pair_table
        n_pairs = realizable.sum(axis=(1, 2)) // 2
        if not np.any((vertices >= graph.n_cells) & (n_pairs >= 2)):
            continue
        met += 1
        exhaust(board, [find_bivalue_cycle], S)
        if met >= 5:
            break
    assert met >= 5


def test_bivalue_repetitive_cycle_takes_the_other_digit(geometry: Geometry) -> None:
    pos, made = build(geometry, bivalue_return)
    c, o, d = (int(made[k]) for k in ("c", "o", "d"))
    assert find_bivalue_cycle(pos.board) is None
    step = find_bivalue_repetitive_cycle(pos.board)
    assert step is not None and step.rule == "bivalue-repetitive-cycle"
    assert pairs(step.placements) == {(c, o)} and step.digits == (d, o)
    assert step.links[0][0] == c and step.links[-1][1] == c and len(step.links) == 4
    assert step.links[0][2] == d and step.links[-1][2] == d
    check_links(pos.board, step, closed=False)
    sound(step, pos.S)


def test_bivalue_repetitive_cycle_quiet_when_the_loop_opens(geometry: Geometry) -> None:
    pos, made = build(geometry, bivalue_return)
    g_cell, f, d = (int(made[k]) for k in ("g", "f", "d"))
    third = next(k for k in range(geometry.n) if k not in (f, d))
    pos.board.cand[g_cell, third] = 1
    assert find_bivalue_repetitive_cycle(pos.board) is None
    assert find_bivalue_conflicting_paths(pos.board) is None


def test_bivalue_conflicting_paths_take_the_other_digit(geometry: Geometry) -> None:
    pos, made = build(geometry, bivalue_conflict)
    c, o = int(made["c"]), int(made["o"])
    step = find_bivalue_conflicting_paths(pos.board)
    assert step is not None and step.rule == "bivalue-conflicting-paths"
    assert pairs(step.placements) == {(c, o)}
    assert {link[1] for link in step.links} >= made["ends"]
    assert sum(1 for link in step.links if link[0] == c) == 2
    check_links(pos.board, step, closed=False)
    sound(step, pos.S)


def test_bivalue_conflicting_paths_quiet_when_an_end_has_three_digits(geometry: Geometry) -> None:
    pos, made = build(geometry, bivalue_conflict)
    u2 = int(made["u2"])
    pos.board.cand[u2, made["spare"][0]] = 1
    assert find_bivalue_conflicting_paths(pos.board) is None
    assert find_bivalue_repetitive_cycle(pos.board) is None


# -- the graphs and their analyses against brute force ---------------------------------------------------


def random_position(g: Geometry, rng: np.random.Generator) -> tuple[Board, np.ndarray]:
    """A random candidate position around a random solution S (some cells placed with S's digit)."""
    n = g.n
    S = random_grid(g, rng)
    cand = (rng.random((n * n, n)) < rng.uniform(0.15, 0.5)).astype(np.uint8)
    cand[np.arange(n * n), S] = 1
    board = Board(g, np.zeros(n * n, np.int16), cand)
    placed = np.flatnonzero(rng.random(n * n) < rng.uniform(0.0, 0.5))
    board.apply(np.stack([placed, S[placed]], axis=1), np.zeros((0, 2), np.int64))
    return board, S


def brute_reach(graph: ChainGraph, sources: list[int]) -> set[int]:
    """Traversals on a nonrepetitive walk starting with one of ``sources`` (breadth-first over traversals)."""
    tr = graph.traversals
    seen = set(sources)
    queue = deque(sources)
    while queue:
        t = queue.popleft()
        nxt = np.flatnonzero((tr.source == tr.target[t]) & (tr.out_label != tr.in_label[t]))
        for u in nxt.tolist():
            if u not in seen:
                seen.add(u)
                queue.append(u)
    return seen


@pytest.mark.parametrize("kind", [BILOCATION, BIVALUE])
def test_pairs_and_walk_facts_match_brute_force(kind: GraphKind) -> None:
    rng = np.random.default_rng(11)
    for trial in range(24):
        p, q = [(2, 2), (2, 3), (3, 2)][trial % 3]
        g = geometry_for_size(p * q, (p, q))
        board, _ = random_position(g, rng)
        graph = ChainGraph(kind, board)
        tr = graph.traversals
        nr = graph.nr
        # Theorem 2.1 pairs: a walk leaving v by y that comes back into v by x
        vertices, labels, realizable = graph.pair_table
        for i, v in enumerate(vertices.tolist()):
            for xi, x in enumerate(labels[i].tolist()):
                for yi, y in enumerate(labels[i].tolist()):
                    if x < 0 or y < 0:
                        continue
                    leave = np.flatnonzero((tr.source == v) & (tr.out_label == y)).tolist()
                    reach = brute_reach(graph, leave)
                    back = any(tr.target[t] == v and tr.in_label[t] == x for t in reach)
                    assert bool(realizable[i, xi, yi]) == (back and x != y), (trial, v, x, y)
        # Theorem 2.2 facts: the repetitive return and whether some conflict exists
        repeats, conflicts = graph.walk_facts
        for i, port in enumerate(graph.cell_ports.tolist()):
            v, label = int(nr.port_vertex[port]), int(nr.port_label[port])
            reach = brute_reach(graph, np.flatnonzero((tr.source == v) & (tr.out_label == label)).tolist())
            arrivals = {(int(tr.target[t]), int(tr.in_label[t])) for t in reach}
            assert bool(repeats[i]) == ((v, label) in arrivals)
            if kind == BILOCATION:
                clash = any(
                    e1 == e2 and u1 != u2 and shares_unit(g, u1, u2)
                    for u1, e1 in arrivals
                    for u2, e2 in arrivals
                )
            else:
                ends = [(w, cell) for w, cell in arrivals if w >= graph.n_cells and cell != v]
                clash = any(w1 == w2 and c1 != c2 for w1, c1 in ends for w2, c2 in ends)
            assert (conflicts[i] is not None) == clash, (trial, v, label)


def reference_focus(graph: ChainGraph, board: Board) -> int | None:
    """The first vertex whose realizable pairs (``pair_table``, from strong components) keep fewer
    labels than it has room for, or none at all (the cycle rules' focus, spelled out in numpy)."""
    vertices, _, realizable = graph.pair_table
    for i, v in enumerate(vertices.tolist()):
        pairs = int(np.triu(realizable[i]).sum())
        if not pairs:
            continue
        kept = int((realizable[i].sum(axis=1) == pairs).sum())
        if v < graph.n_cells:
            room = int(board.cand[v].sum()) if graph.kind == BILOCATION else 0
        else:
            unit, digit = graph.unit_digit(v)
            cells = board.tables.units[unit]
            room = int(((board.values[cells] == 0) & (board.cand[cells, digit] == 1)).sum())
        if kept == 0 or room > kept:
            return v
    return None


@pytest.mark.parametrize("kind", [BILOCATION, BIVALUE])
def test_cycle_focus_matches_the_pair_table(kind: GraphKind) -> None:
    """The compiled focus (bilocation: from the port reach table, without strong components) picks
    the vertex the realizable pairs of Theorem 2.1 pick."""
    rng = np.random.default_rng(23)
    found = 0
    for trial in range(60):
        p, q = [(3, 3), (2, 3), (3, 2), (2, 4)][trial % 4]
        g = geometry_for_size(p * q, (p, q))
        board, _ = random_position(g, rng)
        graph = ChainGraph(kind, board)
        expected = reference_focus(graph, board)
        assert graph.cycle_focus() == expected, trial
        found += expected is not None
    assert found


# -- soundness on many boards --------------------------------------------------------------------------


def chain_steps_sound_on_puzzles(lines: list[str], box: tuple[int, int] | None = None) -> dict[str, int]:
    """Run the engine (local rules then chain rules) on each puzzle, every step checked against its solution;
    the chain rules are also called once on every stuck board.  Returns how often each chain rule fired."""
    rules = select_rules(CHAIN_FAMILIES)
    local = [rule for rule in rules if rule.family not in ("bilocation", "bivalue")]
    fired = {rule.name: 0 for rule in RULES}
    for line in lines:
        grid = parse_grid(line, box=box)
        solved = solve(grid)
        assert solved.solution is not None
        S = solved.solution.values.reshape(-1).astype(np.int64) - 1
        stuck = deduce(grid, local, record=False)
        if stuck.status.value == "stuck":
            for rule in RULES:
                step = rule.find(stuck.board)
                if step is not None:
                    sound(step, S)
                    check_links(
                        stuck.board,
                        step,
                        closed=step.rule.endswith("-cycle") and "repetitive" not in step.rule,
                    )
        result = deduce(grid, rules)
        assert result.status.value in ("solved", "stuck"), result.reason
        for step in result.steps:
            sound(step, S)
            if step.rule in fired:
                fired[step.rule] += 1
    return fired


def test_chain_steps_agree_with_the_solution_on_top95() -> None:
    fired = chain_steps_sound_on_puzzles(read_lines(DATA / "norvig_top95.txt"))
    assert fired["bilocation-repetitive-cycle"] > 0 and fired["bilocation-conflicting-paths"] > 0


def test_chain_steps_agree_with_the_solution_on_rectangular_generated_puzzles() -> None:
    rules = select_rules(CHAIN_FAMILIES)
    for p, q, count in ((2, 3, 40), (3, 2, 40), (2, 4, 20), (3, 4, 4)):
        g = geometry_for_size(p * q, (p, q))
        for attempt in range(count):
            made = generate_puzzle(g, 3, attempt)
            assert made is not None
            S = made.solution.values.reshape(-1).astype(np.int64) - 1
            result = deduce(made.puzzle, rules)
            assert result.status.value in ("solved", "stuck")
            for step in result.steps:
                sound(step, S)


def test_chain_rules_exhausted_on_random_positions_never_contradict_a_solution() -> None:
    rng = np.random.default_rng(3)
    finders = [rule.find for rule in RULES]
    fired: dict[str, int] = {}
    for trial in range(120):
        p, q = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)][trial % 5]
        board, S = random_position(geometry_for_size(p * q, (p, q)), rng)
        for step in exhaust(board, finders, S):
            fired[step.rule] = fired.get(step.rule, 0) + 1
    # bivalue conflicting paths never come after the repetitive cycle has been tried (see the next test)
    assert set(fired) == {rule.name for rule in RULES} - {"bivalue-conflicting-paths"}


def test_bivalue_conflicting_paths_always_close_into_a_repetitive_cycle() -> None:
    """Two bivalue walks from c ending at u1 = f and u2 = f in one unit join through the link u1 -f- u2
    (both are two-digit cells holding f) and the second walk backwards: a walk from c back into c by the
    start digit.  So every start with a conflict has a repetitive cycle too."""
    rng = np.random.default_rng(8)
    conflicts = 0
    for trial in range(60):
        p, q = [(2, 2), (2, 3), (3, 2), (3, 3)][trial % 4]
        board, _ = random_position(geometry_for_size(p * q, (p, q)), rng)
        repeats, found = ChainGraph(BIVALUE, board).walk_facts
        for repeat, conflict in zip(repeats.tolist(), found, strict=True):
            if conflict is not None:
                conflicts += 1
                assert repeat
    assert conflicts > 10


@pytest.mark.slow
def test_chain_rules_exhausted_on_many_random_positions() -> None:
    rng = np.random.default_rng(4)
    finders = [rule.find for rule in RULES]
    fired: dict[str, int] = {}
    for trial in range(1500):
        p, q = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3)][trial % 8]
        board, S = random_position(geometry_for_size(p * q, (p, q)), rng)
        for step in exhaust(board, finders, S):
            fired[step.rule] = fired.get(step.rule, 0) + 1
    assert set(fired) == {rule.name for rule in RULES} - {"bivalue-conflicting-paths"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, limit",
    [
        ("sudoku9/sudoku_exchange_diabolical_10k.txt", 3000),
        ("sudoku9/norvig_top95.txt", None),
        ("sudoku9/tdoku_forum_hardest_1905_11plus_every5th.txt", 500),
        ("sudoku9/tdoku_magictour_top1465.txt", 500),
    ],
)
def test_chain_steps_agree_with_the_solution_on_corpora(name: str, limit: int | None) -> None:
    chain_steps_sound_on_puzzles(read_lines(shared_file(name), limit))


def test_the_chain_rules_find_nothing_on_a_board_they_left_stuck() -> None:
    """Graphs built afresh find nothing either (``benchmarks/engine_costs.py`` times this round)."""
    line = read_lines(DATA / "norvig_top95.txt", 5)[4]
    stuck = deduce(parse_grid(line), select_rules(CHAIN_FAMILIES[:5]), record=False).board
    for _ in range(2):
        graphs_of_board.clear_cache()
        assert [rule.name for rule in RULES if rule.find(stuck) is not None] == []


# -- the bivalue cycle after the Y search (the rule skips what the y-cycle's search rules out) ----------


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{p}x{q}" for p, q in SHAPES])
def test_no_y_loop_means_no_bivalue_cycle(shape: tuple[int, int]) -> None:
    """Where the Y search (aic's y-cycle) ends with no loop, the bivalue cycle finds nothing and
    raises nothing: the rule answers None there without walking the bivalue graph.  Random
    positions around a solution and random candidates with none (contradictions)."""
    from sudoku_cp.deduction.rules.chain_search import LOOP, Y, chain_search

    g = geometry_for_size(shape[0] * shape[1], shape)
    rng = np.random.default_rng(7)
    quiet = spoke = 0
    for i in range(150):
        if i % 2:
            board, _ = random_position(g, rng)
        else:
            cand = (rng.random((g.n * g.n, g.n)) < rng.uniform(0.2, 0.4)).astype(np.uint8)
            cand[np.arange(g.n * g.n), rng.integers(0, g.n, g.n * g.n)] = 1
            board = Board(g, np.zeros(g.n * g.n, np.int16), cand)
        try:
            answer: object = find_bivalue_cycle(board)
        except Contradiction as exc:
            answer = exc
        if chain_search(board, Y).links[LOOP] < 0:
            quiet += 1
            assert answer is None
        elif answer is not None:
            spoke += 1
    assert quiet > 10 and spoke > 10  # both sides of the rule's skip are exercised


def test_the_bivalue_cycle_rule_skips_only_after_an_empty_y_search(geometry: Geometry) -> None:
    from sudoku_cp.deduction.rules.chain_search import LOOP, Y, chain_search

    rule = next(rule for rule in RULES if rule.name == "bivalue-cycle")
    pos, _ = build(geometry, bivalue_loop)
    step = rule.find(pos.board)
    assert step is not None and step.rule == "bivalue-cycle"
    assert chain_search(pos.board, Y).links[LOOP] >= 0  # the y-cycle sees the loop
    again = rule.find(pos.board)
    assert again is not None and pairs(again.eliminations) == pairs(step.eliminations)
    # an empty Y search on the board the rule is asked about: nothing to walk
    board = Position(geometry, 0).board
    board.cand[:, :] = 1
    assert chain_search(board, Y).links[LOOP] < 0
    assert rule.find(board) is None
