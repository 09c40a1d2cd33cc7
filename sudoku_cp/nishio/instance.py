"""Nishio instances: one digit's open cells S in an n x n grid with p x q boxes.

A *valid placement* is a set of n cells, one in each row, column and box (``placement.py``).
The Nishio questions about S are: is there a placement inside S (decision), which cells of S lie
in at least one (the closure S'), and how many are there (count).  Cells of S outside S' are the
eliminations.  Instances come from a mask, from cells, from a puzzle state (``digit_instances``,
``digit_masks`` for many puzzles at once) or from text (``text.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..propagation import propagate_batch

__all__ = ["NishioInstance", "digit_instances", "digit_masks"]


@dataclass(frozen=True, slots=True, eq=False)
class NishioInstance:
    """One digit's open cells: ``mask[r, c]`` is True when cell (r, c) is in S (read-only bool)."""

    geometry: Geometry
    mask: np.ndarray

    def __post_init__(self) -> None:
        n = self.geometry.n
        mask = np.array(self.mask, dtype=bool)
        if mask.shape != (n, n):
            raise ValueError(f"a {n}x{n} instance needs an ({n}, {n}) mask, got {mask.shape}")
        mask.setflags(write=False)
        object.__setattr__(self, "mask", mask)

    @classmethod
    def from_cells(cls, geometry: Geometry, cells: Iterable[tuple[int, int]]) -> NishioInstance:
        """The instance whose S holds the given 0-based (row, column) cells."""
        mask = np.zeros((geometry.n, geometry.n), dtype=bool)
        for r, c in cells:
            mask[r, c] = True
        return cls(geometry, mask)

    @classmethod
    def full(cls, geometry: Geometry) -> NishioInstance:
        """The instance with every cell open (the empty grid)."""
        return cls(geometry, np.ones((geometry.n, geometry.n), dtype=bool))

    @property
    def n(self) -> int:
        """Side length of the grid."""
        return self.geometry.n

    @property
    def size(self) -> int:
        """Number of cells in S."""
        return int(self.mask.sum())

    def cells(self) -> list[tuple[int, int]]:
        """The 0-based (row, column) cells of S in reading order."""
        return [(int(r), int(c)) for r, c in zip(*np.nonzero(self.mask), strict=True)]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NishioInstance)
            and self.geometry == other.geometry
            and bool(np.array_equal(self.mask, other.mask))
        )

    def __hash__(self) -> int:
        return hash((self.geometry.p, self.geometry.q, np.packbits(self.mask).tobytes()))


def digit_masks(geometry: Geometry, values: np.ndarray) -> np.ndarray:
    """The sets S of every digit of many puzzle states at once: (B, n*n) values in, (B, n, n, n) bool out.

    ``out[b, d - 1]`` is S for digit d of puzzle b: the cells that still allow d after singles
    propagation (as ``digit_instances``), all puzzles propagated together.
    """
    n = geometry.n
    state = propagate_batch(geometry, np.asarray(values).reshape(-1, n * n))
    return np.ascontiguousarray(state.candidates.transpose(0, 2, 1)).reshape(-1, n, n, n)


def digit_instances(grid: Grid, digits: Iterable[int] | None = None) -> list[NishioInstance]:
    """The Nishio instances of a puzzle state, one per digit (1-based; all digits by default).

    S for digit d holds the cells that still allow d after singles propagation (the givens
    eliminate from their peers; naked and hidden singles are placed, to a fixpoint), cells
    already holding d included.  A contradictory puzzle still yields its (possibly empty) sets.
    """
    n = grid.n
    wanted = list(range(1, n + 1)) if digits is None else list(digits)
    for d in wanted:
        if not 1 <= d <= n:
            raise ValueError(f"digit {d} is out of range 1..{n}")
    masks = digit_masks(grid.geometry, grid.values.reshape(1, -1))[0]
    return [NishioInstance(grid.geometry, masks[d - 1]) for d in wanted]
