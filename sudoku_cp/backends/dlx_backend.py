"""The exact-cover backend: the native Algorithm X (numba) on the exact-cover model of a puzzle."""

from __future__ import annotations

import numpy as np

from ..exact_cover import ExactCoverModel, build_exact_cover
from ..grid import Grid
from ..limits import Deadline
from ..native.dlx import solve_exact_cover
from .base import no_grids
from .confirm import ConfirmedOneByOne
from .native_base import NativeBackend, NativeRun

__all__ = ["DlxBackend", "decode_covers"]


def decode_covers(model: ExactCoverModel, chosen: np.ndarray) -> np.ndarray:
    """The (k, n, n) grids of k covers given as a (k, size) array of option indices, all at once."""
    n = model.puzzle.n
    grids = np.repeat(model.puzzle.values.reshape(1, n * n), len(chosen), axis=0)
    places = model.option_cell[chosen] + (np.arange(len(chosen)) * (n * n))[:, None]
    grids.reshape(-1)[places] = model.option_digit[chosen] + 1
    return grids.reshape(-1, n, n)


class DlxBackend(ConfirmedOneByOne, NativeBackend):
    """Algorithm X with the fewest-options heuristic; counts without storing when asked."""

    name = "dlx"

    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Find up to ``limit`` solutions by exact cover."""
        deadline = Deadline(time_limit)  # building the model spends from the same budget
        model = build_exact_cover(puzzle, deadline=deadline, use="solve")
        found = solve_exact_cover(
            model.option_items, model.n_items, limit=limit, time_limit=deadline.remaining(), keep=keep
        )
        grids = decode_covers(model, found.solution_array()) if keep else no_grids(puzzle.n)
        return NativeRun(grids, found.count, found.complete, found.timed_out, {"nodes": found.nodes})
