"""Every propagation of the package reaches the reference fixpoint, on every box shape.

The reference is ``propagation.vectorized.propagate_rounds``: numpy rounds, each recomputing
every candidate from the rules as written.  The others are faster ways to the same fixpoint
(the rules only remove candidates, so the order of work does not change where they end):

* ``propagation.bitset`` (work queue on multiword bitsets, singles and locked candidates);
* ``native.propagation`` (one uint64 per cell, singles, for the native searches);
* ``backends.batch9`` (9x9 on uint16 sets, singles, locked candidates and pairs).

For each: the same contradiction flag, and on puzzles without a contradiction the same
candidates, cell for cell.  Puzzles: random solutions of every shape from 1x2 to 4x4 (both ways
round), with holes from a few to almost all, and the same with one given changed (often a
contradiction, sometimes found only after several rounds).
"""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.backends.batch9 import propagate9
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.native.propagation import initial_masks, propagation_tables
from sudoku_cp.native.propagation import propagate_masks as native_propagate_masks
from sudoku_cp.propagation import bitset, vectorized
from sudoku_cp.random_grids import random_puzzle

SHAPES = [(p, q) for p in range(1, 5) for q in range(1, 5) if p * q >= 2]
FRACTIONS = (0.2, 0.45, 0.6, 0.75, 0.95)


def _batch(geometry: Geometry, seed: int) -> np.ndarray:
    """(B, n*n) puzzles: random ones at several blank fractions, and each with one given changed."""
    rng = np.random.default_rng(seed)
    n = geometry.n
    rows = []
    for fraction in FRACTIONS:
        for _ in range(6):
            values = random_puzzle(geometry, fraction, rng).values.reshape(-1).copy()
            rows.append(values.copy())
            givens = np.flatnonzero(values)
            if givens.size and n > 1:
                cell = rng.choice(givens)
                values[cell] = (values[cell] + rng.integers(1, n)) % n or n  # another digit
                rows.append(values)
    return np.array(rows, dtype=np.int16)


def _reference(geometry: Geometry, values: np.ndarray, *, locked: bool = False, pairs: bool = False):
    state, left = vectorized.propagate_rounds(geometry, values, locked=locked, pairs=pairs)
    assert left.size == 0  # no work cap: every puzzle reached its fixpoint
    return state


def _same(reference_candidates, reference_bad, candidates, bad, what: str) -> None:
    assert np.array_equal(bad, reference_bad), f"{what}: contradiction flags differ"
    fine = ~reference_bad
    mismatch = np.flatnonzero((candidates[fine] != reference_candidates[fine]).any(axis=(1, 2)))
    assert mismatch.size == 0, f"{what}: candidates differ on puzzle(s) {np.flatnonzero(fine)[mismatch][:5]}"


@pytest.mark.parametrize("locked", [False, True])
@pytest.mark.parametrize(("p", "q"), SHAPES)
def test_the_queue_kernel_reaches_the_reference_fixpoint(p: int, q: int, locked: bool) -> None:
    geometry = geometry_for_size(p * q, (p, q))
    values = _batch(geometry, seed=1000 * p + q)
    reference = _reference(geometry, values, locked=locked)
    assert reference.contradiction.any() and not reference.contradiction.all()  # both kinds tested
    mine = bitset.propagate_batch(geometry, values, locked=locked)
    _same(reference.candidates, reference.contradiction, mine.candidates, mine.contradiction, "bitset")
    fine = ~reference.contradiction
    assert np.array_equal(mine.values[fine], reference.values[fine])


@pytest.mark.parametrize(("p", "q"), SHAPES)
def test_the_native_searches_propagation_reaches_the_reference_fixpoint(p: int, q: int) -> None:
    geometry = geometry_for_size(p * q, (p, q))
    n = geometry.n
    values = _batch(geometry, seed=2000 * p + q)
    reference = _reference(geometry, values)
    tables = propagation_tables(geometry)
    candidates = np.zeros((values.shape[0], n * n, n), dtype=bool)
    bad = np.zeros(values.shape[0], dtype=bool)
    for index, row in enumerate(values):
        masks = initial_masks(Grid(geometry, row.reshape(n, n)))
        ok = native_propagate_masks(masks, tables.peers, tables.units, tables.cell_units, tables.full, True)
        bad[index] = not ok
        candidates[index] = (masks[:, None] >> np.arange(n, dtype=np.uint64)) & np.uint64(1) == 1
    _same(reference.candidates, reference.contradiction, candidates, bad, "native.propagation")


@pytest.mark.parametrize(("locked", "pairs"), [(False, False), (True, False), (False, True), (True, True)])
def test_the_9x9_numpy_path_reaches_the_reference_fixpoint(locked: bool, pairs: bool) -> None:
    geometry = geometry_for_size(9)
    values = np.concatenate([_batch(geometry, seed=seed) for seed in range(5)])
    reference = _reference(geometry, values, locked=locked, pairs=pairs)
    mine = propagate9(values, locked=locked, pairs=pairs)
    _same(reference.candidates, reference.contradiction, mine.candidates, mine.contradiction, "batch9")
