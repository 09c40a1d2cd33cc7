"""Nishio instances: one digit's open cells S in an n x n grid with p x q boxes.

A *valid placement* is a set of n cells, one in each row, column and box (``placement.py``).
The Nishio questions about S are: is there a placement inside S (decision), which cells of S lie
in at least one (the closure S'), and how many are there (count).  Cells of S outside S' are the
eliminations.  An instance is its cells (sorted coordinate arrays), never a dense grid unless a
method asks for its ``mask``.  Instances come from a mask, from cells, from a puzzle state
(``digit_instances``, ``digit_masks`` for many puzzles at once) or from text (``text.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..errors import SudokuCpError
from ..geometry import MAX_SIDE, Geometry
from ..grid import Grid
from ..propagation import propagate_batch

__all__ = ["MAX_MASK_SIDE", "InstanceTooLargeError", "NishioInstance", "digit_instances", "digit_masks"]


class InstanceTooLargeError(SudokuCpError, ValueError):
    """An operation that needs the dense n x n mask, asked of an instance too large for one."""


#: The largest side whose dense (n, n) mask ``NishioInstance.mask`` builds (n^2 bytes).
MAX_MASK_SIDE = MAX_SIDE


class NishioInstance:
    """One digit's open cells S of an n x n grid with p x q boxes, held as coordinates.

    ``rows`` and ``cols`` are read-only int64 arrays of the 0-based cells of S in reading order
    (sorted by row, then column, no repeats), so memory is O(|S|) whatever the side.  ``mask`` is
    the dense (n, n) bool view, built on first use for the algorithms that need one, and refused
    (``InstanceTooLargeError``) above ``MAX_MASK_SIDE``.  ``NishioInstance(geometry, mask)`` still
    makes an instance from a mask; ``from_cells`` and ``from_coordinates`` from cells.
    """

    __slots__ = ("_mask", "cols", "geometry", "rows")

    geometry: Geometry
    rows: np.ndarray
    cols: np.ndarray
    _mask: np.ndarray | None

    def __init__(self, geometry: Geometry, mask: np.ndarray | None = None) -> None:
        n = geometry.n
        if mask is None:
            raise TypeError("NishioInstance needs a mask; use from_coordinates for cells")
        dense = np.array(mask, dtype=bool)
        if dense.shape != (n, n):
            raise ValueError(f"a {n}x{n} instance needs an ({n}, {n}) mask, got {dense.shape}")
        rows, cols = np.nonzero(dense)
        dense.setflags(write=False)
        self._set(geometry, rows, cols, dense)

    def _set(self, geometry: Geometry, rows: np.ndarray, cols: np.ndarray, mask: np.ndarray | None) -> None:
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        rows.setflags(write=False)
        cols.setflags(write=False)
        object.__setattr__(self, "geometry", geometry)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "cols", cols)
        object.__setattr__(self, "_mask", mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"NishioInstance is read-only ({name})")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_rebuild, (self.geometry, self.rows, self.cols))

    @classmethod
    def from_coordinates(
        cls, geometry: Geometry, rows: np.ndarray | Iterable[int], cols: np.ndarray | Iterable[int]
    ) -> NishioInstance:
        """The instance whose S holds the 0-based cells (rows[i], cols[i]), in any order, repeats merged.

        ValueError for a cell outside the grid or arrays of different lengths.
        """
        n = geometry.n
        r = np.asarray(rows if isinstance(rows, np.ndarray) else list(rows), dtype=np.int64).reshape(-1)
        c = np.asarray(cols if isinstance(cols, np.ndarray) else list(cols), dtype=np.int64).reshape(-1)
        if r.shape != c.shape:
            raise ValueError(f"{r.size} rows but {c.size} columns")
        if r.size and (r.min() < 0 or c.min() < 0 or r.max() >= n or c.max() >= n):
            raise ValueError(f"a cell lies outside the {n}x{n} grid")
        keys = np.unique(r * n + c)  # sorted reading order, repeats merged
        instance = cls.__new__(cls)
        instance._set(geometry, keys // n, keys % n, None)
        return instance

    @classmethod
    def from_cells(cls, geometry: Geometry, cells: Iterable[tuple[int, int]]) -> NishioInstance:
        """The instance whose S holds the given 0-based (row, column) cells."""
        pairs = np.asarray(list(cells), dtype=np.int64).reshape(-1, 2)
        return cls.from_coordinates(geometry, pairs[:, 0], pairs[:, 1])

    @classmethod
    def full(cls, geometry: Geometry) -> NishioInstance:
        """The instance with every cell open (the empty grid)."""
        n = geometry.n
        return cls.from_coordinates(geometry, np.arange(n).repeat(n), np.tile(np.arange(n), n))

    @property
    def n(self) -> int:
        """Side length of the grid."""
        return self.geometry.n

    @property
    def size(self) -> int:
        """Number of cells in S."""
        return int(self.rows.size)

    @property
    def keys(self) -> np.ndarray:
        """The flat index r * n + c of each cell of S, sorted (int64)."""
        return self.rows * self.n + self.cols

    @property
    def boxes(self) -> np.ndarray:
        """The 0-based box of each cell of S (row-major box numbering)."""
        g = self.geometry
        return (self.rows // g.p) * g.p + self.cols // g.q

    @property
    def mask(self) -> np.ndarray:
        """The (n, n) read-only bool mask of S (built once, on first use; refused above ``MAX_MASK_SIDE``)."""
        mask = self._mask
        if mask is None:
            n = self.n
            if n > MAX_MASK_SIDE:
                raise InstanceTooLargeError(
                    f"a {n}x{n} instance is too large for a dense mask (at most {MAX_MASK_SIDE}x"
                    f"{MAX_MASK_SIDE}), which a closure S' needs; decide it instead: sudoku-cp encode "
                    "--nishio --to cnf and a SAT solver, or a sat, cpsat or dlx method's decide() from Python"
                )
            mask = np.zeros((n, n), dtype=bool)
            mask[self.rows, self.cols] = True
            mask.setflags(write=False)
            object.__setattr__(self, "_mask", mask)
        return mask

    def contains(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Bool per (rows[i], cols[i]): is that cell in S (0-based; cells off the grid are not)."""
        r = np.asarray(rows, dtype=np.int64)
        c = np.asarray(cols, dtype=np.int64)
        n = self.n
        inside = (r >= 0) & (r < n) & (c >= 0) & (c < n)
        keys = self.keys
        wanted = np.where(inside, r * n + c, -1)
        at = np.minimum(np.searchsorted(keys, wanted), max(keys.size - 1, 0))
        return inside & (keys.size > 0) & (keys[at] == wanted) if keys.size else np.zeros(r.shape, bool)

    def index_of(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The position in reading order of S of each given cell, -1 for a cell not in S."""
        r = np.asarray(rows, dtype=np.int64)
        c = np.asarray(cols, dtype=np.int64)
        found = self.contains(r, c)
        at = np.searchsorted(self.keys, r * self.n + c)
        return np.where(found, at, -1)

    def restricted(self, row: int, col: int) -> NishioInstance:
        """S with row ``row`` cut down to the one cell (row, col) (kept even when not in S)."""
        keep = self.rows != row
        rows = np.append(self.rows[keep], row)
        cols = np.append(self.cols[keep], col)
        return NishioInstance.from_coordinates(self.geometry, rows, cols)

    def cells(self) -> list[tuple[int, int]]:
        """The 0-based (row, column) cells of S in reading order."""
        return list(zip(self.rows.tolist(), self.cols.tolist(), strict=True))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NishioInstance)
            and self.geometry == other.geometry
            and bool(np.array_equal(self.rows, other.rows))
            and bool(np.array_equal(self.cols, other.cols))
        )

    def __hash__(self) -> int:
        return hash((self.geometry.p, self.geometry.q, self.keys.tobytes()))

    def __repr__(self) -> str:
        return f"NishioInstance({self.n}x{self.n}, box {self.geometry.box_label}, |S| = {self.size})"


def _rebuild(geometry: Geometry, rows: np.ndarray, cols: np.ndarray) -> NishioInstance:
    return NishioInstance.from_coordinates(geometry, rows, cols)


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
