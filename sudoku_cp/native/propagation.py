"""Bitset candidate propagation for one puzzle at a time, compiled with numba for the native solvers.

Each cell holds a uint64 mask of its candidate digits (bit d for digit d + 1), so grids up to
64 x 64 of any p x q box shape fit.  Two rules, those of Lloyd & Amos' ant colony paper (§3.1),
run to a fixed point:

1. a fixed value (a cell with one candidate left) is eliminated from all the cell's peers;
2. a value with only one possible place in a unit is fixed there (hidden single).

The propagation is incremental: a work stack of newly fixed cells drives rule 1, and only the
units whose cells changed are rescanned for rule 2, so fixing one cell inside a search costs
work near that cell, not a pass over the grid.  In strict mode (backtracking) it stops at the
first contradiction: a cell with no candidate, or a unit where a value has no place left.  In
lenient mode (the ant colony) an emptied cell is simply a failed cell and propagation goes on,
because an ant keeps walking and is scored by the number of cells it managed to fix.

How this differs from ``sudoku_cp.propagation``: that package propagates whole puzzles and
batches once, before a model is built (numpy rounds, or its compiled work-queue kernel
``propagation.bitset`` on bitsets of any width, with counters per cell and per unit digit, for
grids up to 4096x4096).  This kernel stays at one uint64 word per cell (so 64x64 at most) on
purpose: its callers (the ant colony, the generator's search) keep one mask per cell in their
own compiled loops, copy the whole mask array for every ant or branch, and read and write masks
as single words (popcount, lowest bit, ``fix`` of one bit).  A multiword layout would change
every one of those loops and make each copy W words per cell plus the counters; a single word
and a unit rescan keep a branch's state to 8 bytes per cell, which is what those searches
copy most.  The bit primitive they share with the package, ``popcount``, lives in
``propagation.bitset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numba
import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..limits import watch_compilation
from . import NativeInputError

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "MAX_SIDE",
    "MaskPropagation",
    "PropagationTables",
    "Scratch",
    "fix",
    "fix_and_propagate",
    "fixed_count",
    "initial_masks",
    "masks_to_values",
    "new_scratch",
    "propagate_grid",
    "propagate_masks",
    "propagation_tables",
]

MAX_SIDE = 64
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


class PropagationTables(NamedTuple):
    """Geometry as int64 arrays for the kernels: peers (c, k), units (3n, n), cell_units (c, 3).

    A named tuple, so that a kernel takes the tables as one argument.
    """

    n: int
    peers: np.ndarray
    units: np.ndarray
    cell_units: np.ndarray
    full: np.uint64


class Scratch(NamedTuple):
    """Work space of incremental propagation: a cell stack, unit flags (all False) and a unit stack."""

    stack: np.ndarray
    unit_dirty: np.ndarray
    unit_stack: np.ndarray


def new_scratch(n: int) -> Scratch:
    """Fresh work space for the propagation of an n x n grid (one per search: kernels reuse it)."""
    return Scratch(np.empty(n * n, np.int64), np.zeros(3 * n, np.bool_), np.empty(3 * n, np.int64))


@dataclass(frozen=True, slots=True)
class MaskPropagation:
    """The fixed point of the two rules: ``masks`` (n*n,) uint64 candidates; ``contradiction``."""

    masks: np.ndarray
    contradiction: bool


@cache
def propagation_tables(geometry: Geometry) -> PropagationTables:
    """The kernel tables of a geometry (cached); ValueError beyond 64 x 64."""
    n = geometry.n
    if n > MAX_SIDE:
        raise NativeInputError(f"bitset propagation handles grids up to {MAX_SIDE}x{MAX_SIDE}, not {n}x{n}")
    full = np.uint64((1 << n) - 1)
    return PropagationTables(
        n,
        np.ascontiguousarray(geometry.peers(), dtype=np.int64),
        np.ascontiguousarray(geometry.units, dtype=np.int64),
        np.ascontiguousarray(geometry.cell_units, dtype=np.int64),
        full,
    )


@numba.njit(cache=True, inline="always")
def _clear_dirty(
    unit_dirty: np.ndarray, unit_stack: np.ndarray, unit_top: int | np.int64
) -> None:  # pragma: no cover
    """Reset the dirty flags of the units still waiting on the stack."""
    for k in range(unit_top):
        unit_dirty[unit_stack[k]] = False


@numba.njit(cache=True, inline="always")
def _mark_units(
    cell: int,
    cell_units: np.ndarray,
    unit_dirty: np.ndarray,
    unit_stack: np.ndarray,
    unit_top: int | np.int64,
) -> int | np.int64:  # pragma: no cover - compiled
    """Queue the row, column and box of ``cell`` for rule 2 (once each); return the new stack top."""
    for j in range(3):
        u = cell_units[cell, j]
        if not unit_dirty[u]:
            unit_dirty[u] = True
            unit_stack[unit_top] = u
            unit_top += 1
    return unit_top


@numba.njit(cache=True)
def _propagate(
    masks: np.ndarray,
    top: int | np.int64,
    unit_top: int | np.int64,
    work: Scratch,
    tables: PropagationTables,
    strict: bool | np.bool_,
) -> bool:  # pragma: no cover - compiled
    """Run both rules from the queued cells and units: ``work.stack[:top]``, ``work.unit_stack[:unit_top]``.

    Return False on a contradiction in strict mode (masks are then partly updated); lenient
    mode always returns True and leaves emptied cells at 0.  Leaves ``unit_dirty`` all False.
    """
    stack, unit_dirty, unit_stack = work
    peers, units, cell_units, full = tables.peers, tables.units, tables.cell_units, tables.full
    n_peers = peers.shape[1]
    n = units.shape[1]
    while True:
        # Rule 1: every newly fixed cell removes its value from its peers.
        while top > 0:
            top -= 1
            cell = stack[top]
            value = masks[cell]
            if value == _ZERO:
                continue
            for k in range(n_peers):
                peer = peers[cell, k]
                m = masks[peer]
                if m & value:
                    m &= ~value
                    masks[peer] = m
                    if m == _ZERO:
                        if strict:
                            _clear_dirty(unit_dirty, unit_stack, unit_top)
                            return False
                    elif (m & (m - _ONE)) == _ZERO:
                        stack[top] = peer
                        top += 1
                    unit_top = _mark_units(peer, cell_units, unit_dirty, unit_stack, unit_top)
        if unit_top == 0:
            return True
        # Rule 2 on one changed unit: values with exactly one place get fixed there.
        unit_top -= 1
        u = unit_stack[unit_top]
        unit_dirty[u] = False
        once = _ZERO
        twice = _ZERO
        for k in range(n):
            m = masks[units[u, k]]
            twice |= once & m
            once |= m
        if strict and once != full:
            _clear_dirty(unit_dirty, unit_stack, unit_top)
            return False
        singles = once & ~twice
        if singles == _ZERO:
            continue
        for k in range(n):
            cell = units[u, k]
            m = masks[cell]
            hit = m & singles
            if hit == _ZERO or (m & (m - _ONE)) == _ZERO:
                continue
            if (hit & (hit - _ONE)) != _ZERO:
                # One cell is the only place of two values: no solution.
                if strict:
                    _clear_dirty(unit_dirty, unit_stack, unit_top)
                    return False
                hit &= ~hit + _ONE  # keep the lowest value
            masks[cell] = hit
            stack[top] = cell
            top += 1
            unit_top = _mark_units(cell, cell_units, unit_dirty, unit_stack, unit_top)


@numba.njit(cache=True)
def propagate_masks(
    masks: np.ndarray,
    peers: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    full: np.uint64,
    strict: bool,
) -> bool:  # pragma: no cover - compiled
    """Propagate ``masks`` in place from scratch (every fixed cell, every unit); False on contradiction."""
    cells = masks.shape[0]
    n_units = units.shape[0]
    work = Scratch(np.empty(cells, np.int64), np.ones(n_units, np.bool_), np.arange(n_units).astype(np.int64))
    # np.int64(0), not 0: a literal would make numba compile _propagate once more for Literal[int](0)
    top = np.int64(0)
    for cell in range(cells):
        m = masks[cell]
        if m == _ZERO:
            if strict:
                return False
        elif (m & (m - _ONE)) == _ZERO:
            work.stack[top] = cell
            top += 1
    tables = PropagationTables(units.shape[1], peers, units, cell_units, full)
    return _propagate(masks, top, n_units, work, tables, strict)


@numba.njit(cache=True)
def fix(
    masks: np.ndarray,
    cell: int,
    value_bit: np.uint64,
    work: Scratch,
    tables: PropagationTables,
    strict: bool | np.bool_,
) -> bool:  # pragma: no cover - compiled
    """Fix ``cell`` to ``value_bit`` and propagate incrementally; False on contradiction (strict).

    ``work`` is reused from call to call (its ``unit_dirty`` is all False between calls).
    """
    masks[cell] = value_bit
    work.stack[0] = cell
    # typed constants: a literal argument is a numba specialisation of its own (1-2 s to compile)
    unit_top = _mark_units(cell, tables.cell_units, work.unit_dirty, work.unit_stack, np.int64(0))
    return _propagate(masks, np.int64(1), unit_top, work, tables, strict)


@numba.njit(cache=True)
def fix_and_propagate(
    masks: np.ndarray,
    cell: int,
    value_bit: np.uint64,
    stack: np.ndarray,
    unit_dirty: np.ndarray,
    unit_stack: np.ndarray,
    peers: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    full: np.uint64,
    strict: bool,
) -> bool:  # pragma: no cover - compiled
    """``fix`` with the work space and the tables as separate arrays."""
    tables = PropagationTables(units.shape[1], peers, units, cell_units, full)
    return fix(masks, cell, value_bit, Scratch(stack, unit_dirty, unit_stack), tables, strict)


@numba.njit(cache=True)
def fixed_count(masks: np.ndarray) -> int:  # pragma: no cover - compiled
    """Number of cells with exactly one candidate."""
    count = 0
    for cell in range(masks.shape[0]):
        m = masks[cell]
        if m != _ZERO and (m & (m - _ONE)) == _ZERO:
            count += 1
    return count


def initial_masks(puzzle: Grid) -> np.ndarray:
    """(n*n,) uint64 candidate masks before propagation: a given keeps its digit, an empty cell all."""
    tables = propagation_tables(puzzle.geometry)
    values = puzzle.values.reshape(-1).astype(np.uint64)
    bits = np.left_shift(np.uint64(1), np.maximum(values, np.uint64(1)) - np.uint64(1))
    return np.where(values > 0, bits, tables.full).astype(np.uint64)


def masks_to_values(masks: np.ndarray, n: int) -> np.ndarray:
    """(n, n) int16 digits of the fixed cells, 0 where a cell has none or several candidates."""
    masks = np.asarray(masks, dtype=np.uint64)
    single = (masks != 0) & ((masks & (masks - np.uint64(1))) == 0)
    digits = np.zeros(masks.shape, dtype=np.int16)
    if single.any():
        digits[single] = np.log2(masks[single].astype(np.float64)).round().astype(np.int16) + 1
    return digits.reshape(n, n)


def propagate_grid(puzzle: Grid) -> MaskPropagation:
    """The fixed point of the two rules from a puzzle's givens (strict: stops at a contradiction)."""
    tables = propagation_tables(puzzle.geometry)
    masks = initial_masks(puzzle)
    ok = propagate_masks(masks, tables.peers, tables.units, tables.cell_units, tables.full, True)
    masks.setflags(write=False)
    return MaskPropagation(masks, not ok)
