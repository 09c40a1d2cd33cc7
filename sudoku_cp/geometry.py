"""Geometry of an n x n Sudoku grid with p x q boxes (p rows by q columns, n = p * q).

Everything is 0-based inside the code: rows, columns and digits run from 0 to n - 1, and a
cell is the flat index ``r * n + c``.  Users see 1-based rows, columns and digits.

The units are numbered: rows 0..n-1, columns n..2n-1, boxes 2n..3n-1.  Boxes are numbered
row-major: box ``b`` covers rows ``(b // p) * p ...`` and columns ``(b % p) * q ...``
(a grid has n / p = q box bands down and n / q = p box stacks across).

``MAX_SIDE`` (4096) is the largest grid side sudoku_cp takes for a dense grid (n x n arrays:
puzzles, masks, the unit and peer tables).  A larger size is refused before anything is allocated
or enumerated.  A *sparse* geometry (``Geometry(p, q, sparse=True)``, ``geometry_for_size(...,
sparse=True)``) goes up to ``MAX_SPARSE_SIDE``: it is for sets of cells held as coordinates (the
Nishio instances of large reductions), and its n x n tables are refused above ``MAX_SIDE`` when
asked for.  The tables are built on first use, never by the constructor.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .errors import SudokuCpError, excerpt
from .limits import Deadline, check_memory

__all__ = ["MAX_SIDE", "MAX_SPARSE_SIDE", "Geometry", "GeometryError", "geometry_for_size", "parse_box"]

#: The largest side of a dense grid (its n x n tables take n^2 entries each).
MAX_SIDE = 4096
#: The largest side of a sparse geometry: a flat cell index r * n + c stays far inside int64.
MAX_SPARSE_SIDE = 1 << 20
_DIGITS = re.compile(r"[0-9]{1,9}")  # ASCII only: str.isdigit takes '²', which int() refuses
_SHOWN_SHAPES = 6  # box shapes named in an error; a highly composite n has dozens


class GeometryError(SudokuCpError, ValueError):
    """A grid size or box shape that cannot form a Sudoku."""


@dataclass(frozen=True, slots=True)
class Geometry:
    """An n x n grid with p x q boxes (p rows by q columns); precomputed units and peers."""

    p: int
    q: int
    sparse: bool = field(default=False, compare=False)
    n: int = field(init=False)

    def __post_init__(self) -> None:
        if self.p < 1 or self.q < 1 or self.p * self.q < 2:
            raise GeometryError(f"box {self.p}x{self.q} is not a Sudoku box shape")
        n = self.p * self.q
        largest = MAX_SPARSE_SIDE if self.sparse else MAX_SIDE
        if n > largest:
            raise GeometryError(
                f"box {self.p}x{self.q} makes a {n}x{n} grid, above the largest side {largest}"
            )
        object.__setattr__(self, "n", n)

    @property
    def box_of_cell(self) -> np.ndarray:
        """Box index of every flat cell, (n*n,) (built on first use; refused above ``MAX_SIDE``)."""
        return _tables(self.p, self.q)[0]

    @property
    def units(self) -> np.ndarray:
        """The flat cells of every unit, (3n, n): rows, columns, boxes (built on first use)."""
        return _tables(self.p, self.q)[1]

    @property
    def cell_units(self) -> np.ndarray:
        """The three units of every flat cell, (n*n, 3) (built on first use)."""
        return _tables(self.p, self.q)[2]

    @property
    def box_label(self) -> str:
        """The box shape as users write it, e.g. '2x3'."""
        return f"{self.p}x{self.q}"

    @property
    def cells(self) -> int:
        """Number of cells, n * n."""
        return self.n * self.n

    def box_index(self, r: int, c: int) -> int:
        """Index of the box holding row r, column c (0-based)."""
        return (r // self.p) * self.p + c // self.q

    def peers(self, deadline: Deadline | None = None) -> np.ndarray:
        """Peers of every cell: an (n*n, 3n - p - q - 1) array of the other cells sharing a unit.

        Made once per shape (1.5 GB and seconds on 400x400): ``deadline`` is looked at while it is
        made (TimeLimitReached, nothing kept).
        """
        made = _PEERS.get(self)
        if made is None:
            made = _peers(self, deadline)
            _PEERS[self] = made
        return made

    def cell_name(self, cell: int) -> str:
        """1-based user name of a flat cell index, e.g. 'R9C5'."""
        return f"R{cell // self.n + 1}C{cell % self.n + 1}"

    def unit_name(self, unit: int) -> str:
        """1-based user name of a unit index, e.g. 'row 3', 'box 7'."""
        kind, index = divmod(unit, self.n)
        return f"{('row', 'column', 'box')[kind]} {index + 1}"


@cache
def _tables(p: int, q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(box_of_cell, units, cell_units) of the p x q box geometry; GeometryError above ``MAX_SIDE``."""
    n = p * q
    if n > MAX_SIDE:
        raise GeometryError(
            f"a {n}x{n} grid is too large for n x n tables (at most {MAX_SIDE}); "
            "this operation needs them, the sparse ones do not"
        )
    rows = np.arange(n).repeat(n)
    cols = np.tile(np.arange(n), n)
    box = (rows // p) * p + cols // q
    cells = np.arange(n * n)
    units = np.concatenate(
        [
            cells.reshape(n, n),
            cells.reshape(n, n).T,
            # [band, row in band, stack, column in stack] -> one box per line, in reading order
            cells.reshape(q, p, p, q).transpose(0, 2, 1, 3).reshape(n, n),
        ]
    )
    cell_units = np.stack([rows, n + cols, 2 * n + box], axis=1)
    for value in (box, units, cell_units):
        value.setflags(write=False)
    return box, units, cell_units


_PEERS: dict[Geometry, np.ndarray] = {}


def _peers(geometry: Geometry, deadline: Deadline | None = None) -> np.ndarray:
    """Each cell's peers in ascending order, written row block by row block (no sort).

    For a cell in row r and column c, ascending cells are: column c in the rows above r's band,
    then per row of the band its box's q cells (row r itself: every column but c), then column c
    in the rows below.  The layout depends on r only, so each row's n cells are written together:
    n * (p + 2) array writes.  (Sorting the n*n x 3n table of units took 12 s and 3 GB on 400x400.)
    """
    n, p, q = geometry.n, geometry.p, geometry.q
    width = 3 * n - p - q - 1
    check_memory(f"the peer table of a {n}x{n} grid", n * n * width * 8)
    peers = np.empty((n * n, width), dtype=np.int64)
    cols = np.arange(n, dtype=np.int64)
    box_cols = (cols // q * q)[:, None] + np.arange(q, dtype=np.int64)  # (n, q): each column's box
    row_mates = np.broadcast_to(cols, (n, n))[~np.eye(n, dtype=bool)].reshape(n, n - 1)
    rows = np.arange(n, dtype=np.int64)
    for r in range(n):
        if deadline is not None and r % 16 == 0:
            deadline.check("building the peer table")
        band = r // p * p
        block = peers[r * n : (r + 1) * n]
        block[:, :band] = rows[:band] * n + cols[:, None]
        k = band
        for r2 in range(band, band + p):
            if r2 == r:
                block[:, k : k + n - 1] = r * n + row_mates
                k += n - 1
            else:
                block[:, k : k + q] = r2 * n + box_cols
                k += q
        block[:, k:] = rows[band + p :] * n + cols[:, None]
    peers.setflags(write=False)
    return peers


@cache
def _geometry(p: int, q: int, sparse: bool = False) -> Geometry:
    return Geometry(p, q, sparse or p * q > MAX_SIDE)


def geometry_for_size(n: int, box: tuple[int, int] | None = None, *, sparse: bool = False) -> Geometry:
    """The geometry of an n x n grid: the given box shape, or square boxes when n is a square.

    Sides up to ``MAX_SIDE``, or ``MAX_SPARSE_SIDE`` with ``sparse`` (a geometry for cells held as
    coordinates).  Raises GeometryError when n has no box shape, when the box does not fit n, or
    when n admits several shapes (6, 8, 12, ...) and none was given.
    """
    largest = MAX_SPARSE_SIDE if sparse else MAX_SIDE
    if not 2 <= n <= largest:
        size = str(n) if abs(n) < 10**12 else "a huge number"
        raise GeometryError(f"a grid side must lie in 2..{largest}, not {size}")
    if box is not None:
        p, q = box
        if p * q != n:
            raise GeometryError(f"box {p}x{q} does not fit a {n}x{n} grid ({p}*{q} != {n})")
        return _geometry(p, q, sparse)
    root = math.isqrt(n)
    if root * root == n and root >= 2:
        return _geometry(root, root, sparse)
    shapes = [f"{p}x{n // p}" for p in range(2, n // 2 + 1) if n % p == 0]
    if not shapes:
        raise GeometryError(f"a {n}x{n} grid has no box shape ({n} is not a product of two factors >= 2)")
    shown = ", ".join(shapes[:_SHOWN_SHAPES]) + (
        f", ... {len(shapes)} in all" if len(shapes) > _SHOWN_SHAPES else ""
    )
    raise GeometryError(f"a {n}x{n} grid has several box shapes ({shown}): give one with --box")


def parse_box(text: str, *, largest: int = MAX_SIDE) -> tuple[int, int]:
    """Parse a box shape 'PxQ' (P rows by Q columns), with P*Q at most ``largest``."""
    shown = excerpt(text, 20)  # the text can be any length
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(_DIGITS.fullmatch(part.strip()) for part in parts):
        raise GeometryError(f"box shape {shown} is not of the form PxQ, e.g. 2x3")
    p, q = int(parts[0]), int(parts[1])
    if p < 1 or q < 1 or p * q < 2:
        raise GeometryError(f"box shape {shown} is not a Sudoku box shape")
    if p * q > largest:
        raise GeometryError(f"box shape {shown} makes a grid side above the largest, {largest}")
    return p, q
