"""Candidates and propagation of one puzzle or a batch of one geometry, to a fixpoint of the chosen rules.

Rules: elimination (a placed digit leaves its peers), naked and hidden singles, and optionally
locked candidates (``locked=True``: pointing and claiming) and naked/hidden pairs
(``pairs=True``); the rules are described in ``vectorized``.  A contradiction (an open cell
without candidates, a missing digit without a place in a unit, two cells of a unit with one
digit) proves the puzzle has no solution; every solution keeps its digits among the candidates.

Two implementations reach the same fixpoint (same values, candidates and contradiction flag):

* ``vectorized``: numpy passes over the whole batch, every candidate recomputed each round.  No
  compiled code, so nothing heavy to import: the choice for small grids (``sudoku-cp solve`` of
  a 9x9 must not load numba), for pairs, and for the givens-only candidates.
* ``bitset``: a numba kernel with a work queue that touches only what each elimination changes,
  on bitsets of ceil(n/64) words per cell.  The choice from ``COMPILED_FROM_SIDE`` up (a 400x400
  grid: about a second instead of a quarter of an hour), and for batches of at least
  ``COMPILED_FROM_CANDIDATES`` candidates in all, where the kernel's speed repays loading numba.

The dispatch depends on the rules, the grid side and the batch size only, never on the
puzzles, and both implementations honour a ``limits.Deadline`` (``TimeLimitReached``,
"propagation").

The native searches (``sudoku_cp.native``) use their own one-word kernel,
``sudoku_cp.native.propagation``, inside their compiled loops.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline
from . import vectorized
from .result import Propagation

__all__ = [
    "COMPILED_FROM_CANDIDATES",
    "COMPILED_FROM_SIDE",
    "Propagation",
    "candidates",
    "propagate",
    "propagate_batch",
]

#: Grids from this side up propagate in the compiled kernel (measured in benchmarks/propagation.py).
COMPILED_FROM_SIDE = 16
#: Batches of at least this many candidates (puzzles * n**3) propagate in the compiled kernel.
COMPILED_FROM_CANDIDATES = 1 << 60


def uses_compiled(n: int, batch: int, *, singles: bool, pairs: bool) -> bool:
    """Whether ``propagate_batch`` takes the compiled kernel for ``batch`` puzzles of side ``n``."""
    if not singles or pairs:
        return False
    return n >= COMPILED_FROM_SIDE or batch * n**3 >= COMPILED_FROM_CANDIDATES


def propagate_batch(
    geometry: Geometry,
    values: np.ndarray,
    *,
    singles: bool = True,
    locked: bool = False,
    pairs: bool = False,
    deadline: Deadline | None = None,
) -> Propagation:
    """Propagate a (B, n*n) stack of puzzles to a fixpoint of the chosen rules.

    With ``singles=False`` only the givens eliminate (no other rule runs).  ``locked`` and
    ``pairs`` add locked candidates and naked/hidden pairs to the singles.  ``deadline`` is
    checked all along (between rounds, or between slices of the compiled kernel, a few
    milliseconds each): once spent, ``limits.TimeLimitReached`` ("propagation").  Tables that
    cannot fit in memory are refused first (``limits.ModelTooLarge``).
    """
    n = geometry.n
    values = np.asarray(values).reshape(-1, n * n)
    if uses_compiled(n, values.shape[0], singles=singles, pairs=pairs):
        from . import bitset  # numba: loaded only where it pays

        return bitset.propagate_batch(geometry, values, locked=locked, deadline=deadline)
    return vectorized.propagate_batch(
        geometry, values, singles=singles, locked=locked, pairs=pairs, deadline=deadline
    )


def propagate(
    grid: Grid,
    *,
    singles: bool = True,
    locked: bool = False,
    pairs: bool = False,
    deadline: Deadline | None = None,
) -> Propagation:
    """Propagate one puzzle (a batch of one)."""
    values = grid.values.reshape(1, -1)
    return propagate_batch(
        grid.geometry, values, singles=singles, locked=locked, pairs=pairs, deadline=deadline
    )


def candidates(grid: Grid, deadline: Deadline | None = None) -> np.ndarray:
    """(n*n, n) bool: the digits each cell may take given the givens alone (a given keeps only itself)."""
    return propagate(grid, singles=False, deadline=deadline).candidates[0]
