"""Array helpers for the compiled kernels that numba's own operations would make slow to compile."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["copy_into"]


@numba.njit(cache=True, inline="always")
def copy_into(target: np.ndarray, source: np.ndarray) -> None:  # pragma: no cover - compiled
    """``target[:] = source`` for two one-dimensional arrays of one length."""
    # A loop, not a slice assignment: numba's message for a shape mismatch in the latter compiles
    # its whole string formatting into the kernel (about 5 s of a first run's compilation).
    for i in range(source.shape[0]):
        target[i] = source[i]
