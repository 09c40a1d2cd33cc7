"""The compiled propagation shared by the backtrack kernel and the witness search
(``native.bitset.propagate``): naked singles, hidden singles and locked candidates reach the same
fixed point as a plain reference applying the three rules until nothing changes, or both find a
contradiction; with the changed units in one word (3n <= 64, the witness search's
``_w_settle_all``) and in several (25x25 and up)."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.geometry import Geometry
from sudoku_cp.native.backtrack import _tables, _work
from sudoku_cp.native.bitset import propagate
from sudoku_cp.native.witness import _w_settle_all, _witness_tables_of, _witness_work

pytestmark = pytest.mark.timeout(300)


def _reference(geometry: Geometry, masks: list[int]) -> list[int] | None:
    """The three rules applied one elimination at a time until none applies; None on a contradiction."""
    n, p, q = geometry.n, geometry.p, geometry.q
    units = [list(map(int, unit)) for unit in np.asarray(geometry.units)]
    peers = [list(map(int, row)) for row in np.asarray(geometry.peers())]
    cur = list(masks)
    changed = True
    while changed:
        changed = False
        if any(m == 0 for m in cur):
            return None
        for cell, m in enumerate(cur):  # naked singles
            if m & (m - 1) == 0:
                for peer in peers[cell]:
                    if cur[peer] & m:
                        cur[peer] &= ~m
                        changed = True
        if any(m == 0 for m in cur):
            return None
        for unit in units:  # hidden singles
            for d in range(n):
                bit = 1 << d
                places = [cell for cell in unit if cur[cell] & bit]
                if not places:
                    return None
                if len(places) == 1 and cur[places[0]] != bit:
                    cur[places[0]] = bit
                    changed = True
        for t in range(q):  # locked candidates, box (t, s) against its rows and columns
            for s in range(p):
                box = [(t * p + i) * n + s * q + j for i in range(p) for j in range(q)]
                lines = [[r * n + c for c in range(n)] for r in range(t * p, t * p + p)]
                lines += [[r * n + c for r in range(n)] for c in range(s * q, s * q + q)]
                for line in lines:
                    inside = set(line) & set(box)
                    for d in range(n):
                        bit = 1 << d
                        in_box = {cell for cell in box if cur[cell] & bit}
                        in_line = {cell for cell in line if cur[cell] & bit}
                        if in_box and in_box <= inside:  # pointing
                            for cell in in_line - inside:
                                cur[cell] &= ~bit
                                changed = True
                        if in_line and in_line <= inside:  # claiming
                            for cell in in_box - inside:
                                cur[cell] &= ~bit
                                changed = True
    return cur


def _grids(geometry: Geometry, count: int, seed: int) -> list[list[int]]:
    """Candidate grids from a valid solution: a random share of its cells given, sometimes one
    given wrong (a contradiction to find, or not), and a few random candidates taken out."""
    n, p, q = geometry.n, geometry.p, geometry.q
    rng = np.random.default_rng(seed)
    r, c = np.indices((n, n))
    pattern = ((q * (r % p) + r // p + c) % n).reshape(-1)
    full = (1 << n) - 1
    grids = []
    for k in range(count):
        solution = rng.permutation(n)[pattern]
        given = rng.random(n * n) < rng.uniform(0.08, 0.4)
        masks = [1 << int(v) if g else full for v, g in zip(solution, given, strict=True)]
        if k % 3 == 1:
            cell = int(rng.integers(n * n))
            masks[cell] = 1 << int((solution[cell] + 1 + rng.integers(n - 1)) % n)
        for cell in rng.integers(n * n, size=n):
            if masks[cell] & (masks[cell] - 1):
                masks[cell] &= ~(1 << int(rng.integers(n)))
        grids.append(masks)
    return grids


@pytest.mark.parametrize("box", [(2, 3), (3, 3), (3, 4), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_the_witness_search_reaches_the_rules_fixed_point(box: tuple[int, int]) -> None:
    geometry = Geometry(*box)
    tables, work = _witness_tables_of(geometry), _witness_work(geometry, 1)
    outcomes = {True: 0, False: 0}
    for masks in _grids(geometry, 40, seed=sum(box)):
        cur = np.array(masks, np.uint64)
        ok = bool(_w_settle_all(cur, tables, work))
        expected = _reference(geometry, masks)
        assert ok == (expected is not None)
        if expected is not None:
            assert cur.tolist() == expected
        outcomes[ok] += 1
    assert outcomes[True] >= 5 and outcomes[False] >= 5  # both kinds of grid were met


@pytest.mark.slow  # compiles the kernel's propagation on its own: about 25 s
@pytest.mark.parametrize("box", [(4, 4), (5, 5)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_the_backtrack_kernels_propagation_reaches_the_same_fixed_point(box: tuple[int, int]) -> None:
    """One word of changed units on 16x16, several on 25x25 (3n = 75 units)."""
    geometry = Geometry(*box)
    n, cells = geometry.n, geometry.cells
    tables, work = _tables(geometry), _work(geometry, 1)
    one_word = 3 * n <= 64
    outcomes = {True: 0, False: 0}
    for masks in _grids(geometry, 12, seed=sum(box) + 100):
        cur = np.array(masks, np.uint64)
        singles = [cell for cell in range(cells) if masks[cell] & (masks[cell] - 1) == 0]
        work.queue[: len(singles)] = singles
        work.dirty[:] = np.uint64(0xFFFFFFFFFFFFFFFF)  # every unit (bits past 3n are never read)
        if not one_word:
            work.dirty[-1] = np.uint64((1 << (3 * n - 64 * (work.dirty.size - 1))) - 1)
        d0 = np.uint64((1 << (3 * n)) - 1) if one_word else np.uint64(0)
        ok = bool(propagate(cur, len(singles), d0, one_word, True, tables, work))
        expected = _reference(geometry, masks)
        assert ok == (expected is not None)
        if expected is not None:
            assert cur.tolist() == expected
        outcomes[ok] += 1
    assert min(outcomes.values()) >= 2
