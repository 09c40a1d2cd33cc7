"""The two baseline Nishio methods: pattern overlay (exact) and the matching relaxation S''."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.matching import MatchingNishio, matching_closure, perfect_matching
from sudoku_cp.nishio.method import NishioCount
from sudoku_cp.nishio.overlay import (
    OverlayNishio,
    OverlayTooLarge,
    band_table,
    overlay_batch,
    overlay_batch_bits,
    placement_count,
    placement_table,
    row_bitmasks,
)
from sudoku_cp.nishio.placement import placement_problem

SMALL = [(2, 2), (2, 3), (3, 2)]
MEDIUM = [(2, 4), (4, 2), (3, 3)]
OVERLAY = OverlayNishio()
MATCHING = MatchingNishio()


# ---------------------------------------------------------------- independent references


@cache
def _permutations(n: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(n))), dtype=np.int64)


def brute_force(g: Geometry, mask: np.ndarray, *, boxes: bool = True) -> tuple[np.ndarray, int]:
    """Closure and count over all n! column permutations (boxes optional), for n <= 6."""
    n = g.n
    perms = _permutations(n)
    inside = mask[np.arange(n), perms].all(axis=1)
    if boxes:
        box = (np.arange(n)[None, :] // g.p) * g.p + perms // g.q
        inside &= np.array([len(set(row)) == n for row in box.tolist()])
    closure = np.zeros((n, n), dtype=bool)
    for cols in perms[inside]:
        closure[np.arange(n), cols] = True
    return closure, int(inside.sum())


def backtrack(g: Geometry, mask: np.ndarray) -> tuple[np.ndarray, int]:
    """Closure and count by a plain row-by-row backtracking search over the cells of S."""
    n = g.n
    closure = np.zeros((n, n), dtype=bool)
    options = [[c for c in range(n) if mask[r, c]] for r in range(n)]
    cols: list[int] = []
    count = 0

    def go(r: int, used_cols: int, used_boxes: int) -> None:
        nonlocal count
        if r == n:
            count += 1
            closure[np.arange(n), cols] = True
            return
        for c in options[r]:
            b = g.box_index(r, c)
            if not (used_cols >> c) & 1 and not (used_boxes >> b) & 1:
                cols.append(c)
                go(r + 1, used_cols | 1 << c, used_boxes | 1 << b)
                cols.pop()

    go(0, 0, 0)
    return closure, count


def random_placement(g: Geometry, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random valid placement (a random row of the overlay table)."""
    table = placement_table(g)
    return table[rng.integers(table.shape[0])].astype(np.int64)


def random_masks(g: Geometry, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Sparse, medium, dense and planted masks (planted: a valid placement plus random cells)."""
    n = g.n
    masks = []
    for k in range(count):
        kind = k % 4
        if kind == 3:
            mask = rng.random((n, n)) < rng.uniform(0.05, 0.5)
            mask[np.arange(n), random_placement(g, rng)] = True
        else:
            mask = rng.random((n, n)) < (0.25, 0.55, 0.8)[kind]
        masks.append(mask)
    return masks


def check_overlay(g: Geometry, mask: np.ndarray, reference: tuple[np.ndarray, int]) -> None:
    closure, count = reference
    instance = NishioInstance(g, mask)
    assert np.array_equal(OVERLAY.closure(instance), closure)
    assert OVERLAY.count_placements(instance) == NishioCount(count, True)
    found = OVERLAY.find_placement(instance)
    if count == 0:
        assert found is None
        assert not closure.any()
    else:
        assert found is not None
        assert placement_problem(instance, found) is None


def check_matching(g: Geometry, mask: np.ndarray, exact: np.ndarray) -> np.ndarray:
    relaxed = MATCHING.closure(NishioInstance(g, mask))
    assert relaxed.dtype == bool and relaxed.shape == mask.shape
    assert not (exact & ~relaxed).any(), "S' must be a subset of S''"
    assert not (relaxed & ~mask).any(), "S'' must be a subset of S"
    return relaxed


# ---------------------------------------------------------------- (a) counts, (b) table


@pytest.mark.parametrize(
    "p, q, expected", [(2, 2, 16), (2, 3, 288), (3, 2, 288), (2, 4, 9216), (4, 2, 9216), (3, 3, 46656)]
)
def test_placement_counts(p: int, q: int, expected: int) -> None:
    g = Geometry(p, q)
    assert placement_count(g) == expected == math.factorial(p) ** q * math.factorial(q) ** p
    table = placement_table(g)
    assert table.shape == (expected, g.n) and table.dtype == np.uint8
    assert OVERLAY.count_placements(NishioInstance.full(g)).count == expected


@pytest.mark.slow
@pytest.mark.parametrize(
    "p, q, expected", [(3, 4, 17_915_904), (4, 3, 17_915_904), (2, 6, 33_177_600), (6, 2, 33_177_600)]
)
def test_placement_counts_12x12(p: int, q: int, expected: int) -> None:
    g = Geometry(p, q)
    assert placement_count(g) == expected
    bands = band_table(g)
    assert len(bands) == expected and bands.bands.shape == (expected, q)
    for start in range(0, expected, 1 << 22):  # in blocks, to keep the memory down
        table = bands.patterns[bands.bands[start : start + (1 << 22)].astype(np.int64)].reshape(-1, 12)
        # Validity, vectorised: distinct columns and boxes in every placement.
        box = (np.arange(12)[None, :] // p) * p + table // q
        for values in (table, box):
            assert ((1 << values).sum(axis=1) == (1 << 12) - 1).all()
        # Strictly increasing in lexicographic order, hence distinct.
        diff = np.diff(table, axis=0)
        first_change = np.argmax(diff != 0, axis=1)
        assert (diff[np.arange(diff.shape[0]), first_change] > 0).all()
    assert OVERLAY.count_placements(NishioInstance.full(g), limit=1000) == NishioCount(1000, False)


@pytest.mark.parametrize("p, q", [(1, 4), (4, 1), (1, 5), (2, 1)])
def test_degenerate_box_shapes_are_permutations(p: int, q: int) -> None:
    g = Geometry(p, q)
    table = placement_table(g)
    assert table.tolist() == [list(perm) for perm in itertools.permutations(range(g.n))]


@pytest.mark.parametrize(
    "p, q", SMALL + [pytest.param(*s, marks=pytest.mark.slow) if s == (3, 3) else s for s in MEDIUM]
)
def test_table_valid_and_distinct(p: int, q: int) -> None:
    g = Geometry(p, q)
    table = placement_table(g)
    full = NishioInstance.full(g)
    for cols in table:
        assert placement_problem(full, cols) is None
    assert len({row.tobytes() for row in table}) == table.shape[0]
    assert [tuple(row) for row in table.tolist()] == sorted(tuple(row) for row in table.tolist())
    assert not table.flags.writeable
    assert placement_table(g) is table  # built once
    bands = band_table(g)
    assert band_table(g) is bands and len(bands) == table.shape[0]
    assert bands.patterns.shape == (math.factorial(p) * q**p, p)
    for k in range(0, len(bands), max(1, len(bands) // 50)):
        assert np.array_equal(bands.columns(k), table[k])


def test_refuses_large_geometries() -> None:
    with pytest.raises(OverlayTooLarge, match="110,075,314,176"):
        placement_table(Geometry(4, 4))
    with pytest.raises(OverlayTooLarge, match="1,651,129,712,640,000"):
        band_table(Geometry(4, 5))
    with pytest.raises(OverlayTooLarge, match="13,436,928,000"):
        OVERLAY.closure(NishioInstance.full(Geometry(3, 5)))
    with pytest.raises(OverlayTooLarge, match="17,915,904"):
        OverlayNishio(max_placements=1_000_000).closure(NishioInstance.full(Geometry(3, 4)))


# ---------------------------------------------------------------- (c) overlay against references


@settings(max_examples=80)
@given(st.data())
def test_overlay_matches_brute_force_hypothesis(data: st.DataObject) -> None:
    p, q = data.draw(st.sampled_from(SMALL))
    g = Geometry(p, q)
    bits = data.draw(st.lists(st.booleans(), min_size=g.n * g.n, max_size=g.n * g.n))
    mask = np.array(bits, dtype=bool).reshape(g.n, g.n)
    reference = brute_force(g, mask)
    check_overlay(g, mask, reference)
    check_matching(g, mask, reference[0])


@pytest.mark.parametrize("p, q", SMALL)
def test_overlay_matches_brute_force_seeded(p: int, q: int) -> None:
    g = Geometry(p, q)
    rng = np.random.default_rng(1000 * p + q)
    empty_closures = 0
    for mask in random_masks(g, rng, 120):
        reference = brute_force(g, mask)
        empty_closures += not reference[0].any()
        check_overlay(g, mask, reference)
    assert 0 < empty_closures < 120  # both kinds of instance were seen


@pytest.mark.parametrize("p, q", MEDIUM)
def test_overlay_matches_backtracking(p: int, q: int) -> None:
    g = Geometry(p, q)
    rng = np.random.default_rng(7 * p + q)
    seen = {"empty": 0, "nonempty": 0}
    for mask in random_masks(g, rng, 40):
        reference = backtrack(g, mask)
        seen["empty" if reference[1] == 0 else "nonempty"] += 1
        check_overlay(g, mask, reference)
        check_matching(g, mask, reference[0])
    assert seen["empty"] and seen["nonempty"]


@pytest.mark.parametrize("p, q", SMALL + MEDIUM)
def test_batch_agrees_with_single_queries(p: int, q: int) -> None:
    g = Geometry(p, q)
    rng = np.random.default_rng(99)
    masks = np.array(random_masks(g, rng, 24) + [np.zeros((g.n, g.n), bool), np.ones((g.n, g.n), bool)])
    result = overlay_batch(g, masks)
    bits = overlay_batch_bits(g, row_bitmasks(masks), chunk=1000)
    assert np.array_equal(bits.counts, result.counts) and np.array_equal(bits.first, result.first)
    assert np.array_equal(row_bitmasks(result.closure), bits.closure)
    table = placement_table(g)
    for b, mask in enumerate(masks):
        instance = NishioInstance(g, mask)
        assert np.array_equal(result.closure[b], OVERLAY.closure(instance))
        assert result.counts[b] == OVERLAY.count_placements(instance).count
        found = OVERLAY.find_placement(instance)
        if found is None:
            assert result.first[b] == -1
        else:
            assert np.array_equal(table[result.first[b]], found)
    assert result.counts[-1] == placement_count(g) and result.counts[-2] == 0


def test_count_limit_and_chunks() -> None:
    g = Geometry(3, 3)
    rng = np.random.default_rng(5)
    for mask in random_masks(g, rng, 12):
        instance = NishioInstance(g, mask)
        total = OVERLAY.count_placements(instance)
        assert total.complete
        small_chunks = OverlayNishio(chunk=777)
        assert small_chunks.count_placements(instance) == total
        assert np.array_equal(small_chunks.closure(instance), OVERLAY.closure(instance))
        for limit in {1, 2, 5, max(1, total.count), total.count + 1}:
            for method in (OVERLAY, small_chunks):
                got = method.count_placements(instance, limit=limit)
                assert got.count == min(limit, total.count)
                if total.count > limit:
                    assert not got.complete
                if total.count < limit:
                    assert got.complete
    full = NishioInstance.full(g)
    assert OVERLAY.count_placements(full, limit=46656) == NishioCount(46656, True)
    assert OVERLAY.count_placements(full, limit=46655) == NishioCount(46655, False)


def test_time_limit_gives_unknown() -> None:
    g = Geometry(3, 3)
    slow = OverlayNishio(chunk=1)
    assert slow.closure(NishioInstance.full(g), time_limit=1e-9) is None
    assert overlay_batch(g, np.ones((2, 9, 9), bool), time_limit=0.0) is None
    closure = OVERLAY.closure(NishioInstance.full(g), time_limit=60.0)
    assert closure is not None and closure.all()


# ---------------------------------------------------------------- (d) matching, (e) strictness


@pytest.mark.parametrize("p, q", SMALL)
def test_matching_equals_boxless_brute_force(p: int, q: int) -> None:
    g = Geometry(p, q)
    rng = np.random.default_rng(31 * p + q)
    strict = 0
    for mask in random_masks(g, rng, 150):
        rows_cols, _ = brute_force(g, mask, boxes=False)
        exact, _ = brute_force(g, mask)
        relaxed = check_matching(g, mask, exact)
        assert np.array_equal(relaxed, rows_cols)
        strict += bool((relaxed & ~exact).any())
        matching = perfect_matching(mask)
        assert (matching is None) == (not rows_cols.any())
        if matching is not None:
            assert sorted(matching.tolist()) == list(range(g.n)) and mask[np.arange(g.n), matching].all()
    assert strict > 0


def test_matching_strictly_larger_known_instance() -> None:
    # The main diagonal of a 4x4 grid with 2x2 boxes: the only row-column perfect matching puts
    # R1C1 and R2C2 in one box, so S'' = S while S' is empty.
    g = Geometry(2, 2)
    instance = NishioInstance.from_cells(g, [(i, i) for i in range(4)])
    assert OVERLAY.find_placement(instance) is None
    assert not OVERLAY.closure(instance).any()
    assert np.array_equal(MATCHING.closure(instance), instance.mask)
    # A valid placement plus the diagonal: the placement survives in both, the diagonal only in S''.
    cells = [(0, 0), (1, 2), (2, 1), (3, 3)] + [(i, i) for i in range(4)]
    instance = NishioInstance.from_cells(g, cells)
    exact = OVERLAY.closure(instance)
    relaxed = MATCHING.closure(instance)
    assert exact.sum() == 4 and exact[1, 2] and exact[2, 1]
    assert np.array_equal(relaxed, instance.mask) and (relaxed & ~exact).any()


def test_matching_edge_cases() -> None:
    g = Geometry(3, 3)
    assert not matching_closure(np.zeros((9, 9), bool)).any()
    assert matching_closure(np.ones((9, 9), bool)).all()
    mask = np.ones((9, 9), bool)
    mask[:, 4] = False  # an empty column: no perfect matching
    assert perfect_matching(mask) is None and not matching_closure(mask).any()
    mask = np.ones((9, 9), bool)
    mask[0:2, :] = False
    mask[0:2, 0] = True  # two rows need column 1: no perfect matching
    assert not matching_closure(mask).any()
    instance = NishioInstance.full(g)
    assert MATCHING.name == "matching" and not MATCHING.exact
    assert OVERLAY.name == "overlay" and OVERLAY.exact
    with pytest.raises(NotImplementedError, match="valid placement"):
        MATCHING.find_placement(instance)
    with pytest.raises(NotImplementedError, match="count"):
        MATCHING.count_placements(instance)


def test_matching_12x12_and_16x16_subset_of_mask() -> None:
    rng = np.random.default_rng(3)
    for p, q in [(3, 4), (4, 4), (5, 5)]:
        g = Geometry(p, q)
        for density in (0.1, 0.2, 0.4):
            mask = rng.random((g.n, g.n)) < density
            relaxed = matching_closure(mask)
            assert not (relaxed & ~mask).any()
            # Every row with a kept cell has all its kept cells matchable: re-running is a fixpoint.
            assert np.array_equal(matching_closure(relaxed), relaxed)
