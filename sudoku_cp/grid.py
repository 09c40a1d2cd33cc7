"""The Grid value type: a geometry and an n x n array of digits (0 = empty, 1..n = a digit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .geometry import Geometry

__all__ = ["Grid"]


@dataclass(frozen=True, slots=True, eq=False)
class Grid:
    """A Sudoku grid: ``values[r, c]`` is 0 for an empty cell or the digit 1..n (read-only int16)."""

    geometry: Geometry
    values: np.ndarray

    def __post_init__(self) -> None:
        n = self.geometry.n
        # The range is checked on the values as given: a cast first would turn 65537 into 1.
        raw = np.asarray(self.values)
        whole = raw.dtype.kind in "iub" or (raw.dtype.kind == "f" and np.array_equal(raw, np.floor(raw)))
        if raw.size and not whole:
            raise ValueError(f"grid values must be integers 0..{n}, not {raw.dtype}")
        if raw.size and (raw.min() < 0 or raw.max() > n):
            raise ValueError(f"grid values must lie in 0..{n}")
        values = np.array(raw, dtype=np.int16).reshape(n, n)
        values.setflags(write=False)
        object.__setattr__(self, "values", values)

    @classmethod
    def empty(cls, geometry: Geometry) -> Grid:
        """The grid with no givens."""
        return cls(geometry, np.zeros((geometry.n, geometry.n), dtype=np.int16))

    @property
    def n(self) -> int:
        """Side length of the grid."""
        return self.geometry.n

    @property
    def givens(self) -> int:
        """Number of filled cells."""
        return int(np.count_nonzero(self.values))

    @property
    def is_complete(self) -> bool:
        """True when no cell is empty."""
        return bool(np.all(self.values))

    def with_values(self, values: np.ndarray) -> Grid:
        """A grid of the same geometry holding other values."""
        return Grid(self.geometry, values)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Grid)
            and self.geometry == other.geometry
            and bool(np.array_equal(self.values, other.values))
        )

    def __hash__(self) -> int:
        return hash((self.geometry.p, self.geometry.q, self.values.tobytes()))
