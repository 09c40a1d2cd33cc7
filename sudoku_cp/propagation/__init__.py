"""Candidates and propagation of one puzzle or a batch of one geometry, to a fixpoint of the chosen rules.

Rules: elimination (a placed digit leaves its peers), naked and hidden singles, and optionally
locked candidates (``locked=True``: pointing and claiming) and naked/hidden pairs
(``pairs=True``); the rules are described in ``vectorized``.  A contradiction (an open cell
without candidates, a missing digit without a place in a unit, two cells of a unit with one
digit) proves the puzzle has no solution; every solution keeps its digits among the candidates.

Two implementations reach the same fixpoint (same values, candidates and contradiction flag):

* ``vectorized``: numpy rounds over the whole batch, every candidate recomputed each round.  No
  compiled code, nothing heavy to import; a round costs about 2.5 ns per candidate on big grids
  (up to 20 on a 9x9 batch, where per-cell passes weigh more), and most puzzles need few
  rounds, but a big grid can need thousands (400x400: 2,764 rounds, 800 s).
* ``bitset``: a numba kernel with a work queue that touches only what each elimination changes,
  on bitsets of ceil(n/64) words per cell (400x400: under half a second).  Loading it costs a
  fresh process about 0.65 s (numba, then the kernel's cached machine code).

``propagate_batch`` dispatches like a rent-or-buy choice: singles (and locked candidates) run
numpy rounds while their estimated work (``vectorized.round_cost``) stays within
``VECTORIZED_WORK``, about what loading the kernel costs; the puzzles not finished by then go
on in the compiled kernel from the digits placed so far (the fixpoint is the same).  A batch
whose first round alone would pass the cap goes there at once.  So small grids and ordinary
batches never load numba (``sudoku-cp solve`` of a 9x9 stays light), and no input pays much
more than twice the better of the two.  Pairs (``pairs=True``) and the givens-only candidates
(``singles=False``) are numpy only.  Both implementations honour a ``limits.Deadline``
(``TimeLimitReached``, "propagation") and refuse tables that cannot fit in memory
(``limits.ModelTooLarge``; the numpy tables take 4-8 bytes per candidate, the kernel about 1).

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
    "VECTORIZED_WORK",
    "Propagation",
    "candidates",
    "propagate",
    "propagate_batch",
]

#: Work (``vectorized.round_cost`` units, about 2.5 ns each here) the numpy rounds may spend before
#: the puzzles left go to the compiled kernel: about 0.65 s, what loading numba and the kernel's
#: cached machine code costs a fresh process (benchmarks/propagation.py).
VECTORIZED_WORK = 1 << 28


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
    if not singles or pairs:
        only = vectorized.propagate_rounds(
            geometry, values, singles=singles, locked=locked, pairs=pairs, deadline=deadline
        )
        return only[0]
    rounds = _numpy_rounds(geometry, values, locked, deadline)
    if rounds is not None and rounds[1].size == 0:
        return rounds[0]
    from . import bitset  # numba: loaded only where it pays

    if rounds is None:
        return bitset.propagate_batch(geometry, values, locked=locked, deadline=deadline)
    state, left = rounds
    rest = bitset.propagate_batch(geometry, state.values[left], locked=locked, deadline=deadline)
    state.values[left] = rest.values
    state.candidates[left] = rest.candidates
    state.contradiction[left] = rest.contradiction
    return state


def _numpy_rounds(
    geometry: Geometry, values: np.ndarray, locked: bool, deadline: Deadline | None
) -> tuple[Propagation, np.ndarray] | None:
    """The numpy rounds within ``VECTORIZED_WORK`` (and the puzzles left); None when not even the
    first round fits in it."""
    if values.shape[0] * vectorized.round_cost(geometry.n, locked) > VECTORIZED_WORK:
        return None
    return vectorized.propagate_rounds(
        geometry, values, locked=locked, deadline=deadline, max_work=VECTORIZED_WORK
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
