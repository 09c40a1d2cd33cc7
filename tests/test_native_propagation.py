"""The native bitset propagation: sound, a true fixed point, incremental = from scratch, any box shape."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.backends.dlx_backend import DlxBackend
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.native.propagation import (
    fix_and_propagate,
    fixed_count,
    initial_masks,
    masks_to_values,
    propagate_grid,
    propagate_masks,
    propagation_tables,
)
from sudoku_cp.propagation import propagate
from sudoku_cp.random_grids import blank_cells, random_solution

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4)]
shapes = st.sampled_from(SHAPES)


def _candidate_sets(masks: np.ndarray, n: int) -> np.ndarray:
    """(cells, n) bool: digit d-1 is a candidate of the cell."""
    return ((masks[:, None] >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(bool)


def _is_fixed_point(geometry: Geometry, masks: np.ndarray) -> bool:
    """Neither rule changes anything: written cell by cell, independently of the kernel."""
    n = geometry.n
    sets = _candidate_sets(masks, n)
    peers = geometry.peers()
    for cell in range(n * n):
        if sets[cell].sum() == 1 and sets[peers[cell]][:, sets[cell]].any():
            return False
    for unit in geometry.units:
        places = sets[unit].sum(axis=0)
        for digit in np.flatnonzero(places == 1):
            cell = unit[np.flatnonzero(sets[unit][:, digit])[0]]
            if sets[cell].sum() > 1:
                return False
    return True


def _puzzle(shape: tuple[int, int], seed: int, blanks: float) -> tuple[Grid, Grid]:
    rng = np.random.default_rng(seed)
    solution = random_solution(Geometry(*shape), rng)
    return blank_cells(solution, blanks, rng), solution


@given(shapes, st.integers(0, 2**32 - 1), st.floats(0.3, 0.95))
def test_fixed_point_keeps_the_solution_and_the_givens(
    shape: tuple[int, int], seed: int, blanks: float
) -> None:
    puzzle, solution = _puzzle(shape, seed, blanks)
    result = propagate_grid(puzzle)
    assert not result.contradiction
    n = puzzle.n
    sets = _candidate_sets(result.masks, n)
    truth = solution.values.reshape(-1).astype(int) - 1
    assert sets[np.arange(n * n), truth].all()
    filled = masks_to_values(result.masks, n)
    assert np.array_equal(filled[puzzle.values > 0], puzzle.values[puzzle.values > 0])
    assert _is_fixed_point(puzzle.geometry, result.masks)


@given(shapes, st.integers(0, 2**32 - 1), st.floats(0.3, 0.9))
def test_same_candidates_as_the_batch_singles_propagation(
    shape: tuple[int, int], seed: int, blanks: float
) -> None:
    puzzle, _ = _puzzle(shape, seed, blanks)
    batch = propagate(puzzle)
    native = propagate_grid(puzzle)
    assert not batch.contradiction[0] and not native.contradiction
    assert np.array_equal(_candidate_sets(native.masks, puzzle.n), batch.candidates[0])


@given(shapes, st.integers(0, 2**32 - 1), st.floats(0.4, 0.9), st.integers(0, 10**6))
def test_incremental_fix_equals_propagation_from_scratch(
    shape: tuple[int, int], seed: int, blanks: float, pick: int
) -> None:
    puzzle, _ = _puzzle(shape, seed, blanks)
    tables = propagation_tables(puzzle.geometry)
    masks = propagate_grid(puzzle).masks.copy()
    open_cells = np.flatnonzero(masks & (masks - np.uint64(1)))
    if open_cells.size == 0:
        return
    cell = int(open_cells[pick % open_cells.size])
    choices = np.flatnonzero(_candidate_sets(masks[cell : cell + 1], puzzle.n)[0])
    bit = np.uint64(1) << np.uint64(choices[pick % choices.size])
    scratch = masks.copy()
    scratch[cell] = bit
    ok_scratch = propagate_masks(scratch, tables.peers, tables.units, tables.cell_units, tables.full, True)
    n = puzzle.n
    dirty = np.zeros(3 * n, np.bool_)
    args = (np.empty(n * n, np.int64), dirty, np.empty(3 * n, np.int64))
    ok = fix_and_propagate(
        masks, cell, bit, *args, tables.peers, tables.units, tables.cell_units, tables.full, True
    )
    assert ok == ok_scratch
    assert not dirty.any()
    if ok:
        assert np.array_equal(masks, scratch)


@given(shapes, st.integers(0, 2**32 - 1))
def test_a_contradiction_means_no_solution(shape: tuple[int, int], seed: int) -> None:
    """Random givens placed without a direct clash: whenever propagation fails, DLX finds nothing."""
    geometry = Geometry(*shape)
    n = geometry.n
    rng = np.random.default_rng(seed)
    values = np.zeros(n * n, np.int16)
    for cell in rng.permutation(n * n)[: n * n // 3]:
        values[cell] = rng.integers(1, n + 1)
        if propagate_grid(Grid(geometry, values)).contradiction and not _clashes(geometry, values):
            break
    puzzle = Grid(geometry, values)
    if _clashes(geometry, values):
        return
    if propagate_grid(puzzle).contradiction:
        assert DlxBackend().search(puzzle, limit=1).count == 0


def _clashes(geometry: Geometry, values: np.ndarray) -> bool:
    table = values[geometry.units]
    return any(len(row[row > 0]) != len(set(row[row > 0].tolist())) for row in table)


def test_cell_without_candidates_is_a_contradiction() -> None:
    puzzle = parse_grid("123. ...4 .... ....")
    assert propagate_grid(puzzle).contradiction


def test_value_without_a_place_in_a_unit_is_a_contradiction() -> None:
    # Row 1 needs a 4, but columns 1-3 hold a 4 and R1C4 is a 3.
    puzzle = parse_grid("...3 .4.. .... 4...".replace(" ", ""), box=(2, 2))
    values = puzzle.values.copy()
    values[2, 2] = 4
    puzzle = puzzle.with_values(values)
    assert propagate_grid(puzzle).contradiction


def test_lenient_mode_empties_cells_and_goes_on() -> None:
    tables = propagation_tables(geometry_for_size(4))
    masks = initial_masks(parse_grid("123. ...4 .... ....".replace(" ", "")))
    assert propagate_masks(masks, tables.peers, tables.units, tables.cell_units, tables.full, False)
    # Which cell of the clash ends empty depends on the order of work; some cell does.
    assert (masks == 0).sum() >= 1
    assert fixed_count(masks) >= 3


def test_ai_escargot_propagation_fixes_only_the_givens_and_a_few_more() -> None:
    puzzle = parse_grid((DATA / "aiescargot.txt").read_text())
    result = propagate_grid(puzzle)
    assert not result.contradiction
    assert puzzle.givens <= fixed_count(result.masks) < 81


def test_64x64_fits_and_65x65_is_refused() -> None:
    puzzle, solution = _puzzle((8, 8), 7, 0.5)
    result = propagate_grid(puzzle)
    assert not result.contradiction
    assert np.array_equal(
        masks_to_values(result.masks, 64)[puzzle.values > 0], puzzle.values[puzzle.values > 0]
    )
    sets = _candidate_sets(result.masks, 64)
    assert sets[np.arange(64 * 64), solution.values.reshape(-1).astype(int) - 1].all()
    with pytest.raises(ValueError, match="up to 64x64"):
        propagation_tables(Geometry(5, 13))
