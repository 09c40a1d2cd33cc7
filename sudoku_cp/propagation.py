"""Candidates and singles propagation, vectorized over a batch of puzzles of one geometry.

Rules, applied to a fixpoint:

* elimination: a digit placed in a cell is no longer a candidate of any peer;
* naked single: a cell with one candidate left takes it;
* hidden single: a digit with one candidate cell left in a unit goes there.

A contradiction is an empty cell without candidates, a unit where a missing digit has no cell
left, or two cells of one unit taking the same digit.  Propagation never guesses, so a puzzle
it contradicts has no solution, and every solution of a puzzle keeps its candidates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import Geometry
from .grid import Grid

__all__ = ["Propagation", "candidates", "propagate", "propagate_batch"]


@dataclass(frozen=True, slots=True)
class Propagation:
    """Placed digits and remaining candidates of a batch after singles propagation.

    ``values``: (B, n*n) int16, 0 = still open; ``candidates``: (B, n*n, n) bool, digit d-1 in
    column d-1 (a placed cell keeps exactly its digit); ``contradiction``: (B,) bool.
    """

    values: np.ndarray
    candidates: np.ndarray
    contradiction: np.ndarray


def _unit_digit_counts(geometry: Geometry, onehot: np.ndarray) -> np.ndarray:
    """(B, 3n, n) number of cells of each unit holding (or allowing) each digit."""
    return onehot[:, geometry.units, :].sum(axis=2, dtype=np.int16)


def propagate_batch(geometry: Geometry, values: np.ndarray, *, singles: bool = True) -> Propagation:
    """Propagate a (B, n*n) stack of puzzles; with ``singles=False`` only eliminate by the givens."""
    n = geometry.n
    values = np.array(values, dtype=np.int16).reshape(-1, n * n)
    batch = values.shape[0]
    digits = np.arange(1, n + 1, dtype=np.int16)
    cand = np.ones((batch, n * n, n), dtype=bool)
    contradiction = np.zeros(batch, dtype=bool)
    active = np.arange(batch)
    while active.size:
        vals = values[active]
        placed = (vals[:, :, None] == digits).astype(np.int16)  # (A, N, n)
        unit_has = _unit_digit_counts(geometry, placed)  # (A, 3n, n)
        bad = (unit_has > 1).any(axis=(1, 2))
        seen = (unit_has > 0)[:, geometry.cell_units, :].any(axis=2)  # (A, N, n)
        c = cand[active] & ~seen
        c |= placed.astype(bool)
        open_cells = vals == 0
        c[~open_cells] = placed[~open_cells].astype(bool)
        counts = c.sum(axis=2)
        bad |= (open_cells & (counts == 0)).any(axis=1)
        cand[active] = c
        if not singles:
            contradiction[active] |= bad
            break
        new_vals = vals.copy()
        naked = open_cells & (counts == 1)
        new_vals[naked] = (np.argmax(c, axis=2)[naked] + 1).astype(np.int16)
        open_c = c & open_cells[:, :, None]
        unit_cand = _unit_digit_counts(geometry, open_c.astype(np.int16))  # (A, 3n, n)
        missing = unit_has == 0
        bad |= (missing & (unit_cand == 0)).any(axis=(1, 2))
        hidden_units = missing & (unit_cand == 1)  # (A, 3n, n)
        if hidden_units.any():
            a_idx, u_idx, d_idx = np.nonzero(hidden_units)
            cells_of_unit = geometry.units[u_idx]  # (H, n)
            holder = open_c[a_idx[:, None], cells_of_unit, d_idx[:, None]]  # (H, n)
            cell = cells_of_unit[np.arange(len(u_idx)), np.argmax(holder, axis=1)]
            new_vals[a_idx, cell] = (d_idx + 1).astype(np.int16)
        bad_rows = active[bad]
        contradiction[bad_rows] = True
        changed = (new_vals != vals).any(axis=1) & ~bad
        values[active] = np.where(bad[:, None], vals, new_vals)
        active = active[changed]
    return Propagation(values, cand, contradiction)


def propagate(grid: Grid, *, singles: bool = True) -> Propagation:
    """Propagate one puzzle (a batch of one)."""
    return propagate_batch(grid.geometry, grid.values.reshape(1, -1), singles=singles)


def candidates(grid: Grid) -> np.ndarray:
    """(n*n, n) bool: the digits each cell may take given the givens alone (a given keeps only itself)."""
    return propagate(grid, singles=False).candidates[0]
