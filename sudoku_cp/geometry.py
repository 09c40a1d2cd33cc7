"""Geometry of an n x n Sudoku grid with p x q boxes (p rows by q columns, n = p * q).

Everything is 0-based inside the code: rows, columns and digits run from 0 to n - 1, and a
cell is the flat index ``r * n + c``.  Users see 1-based rows, columns and digits.

The units are numbered: rows 0..n-1, columns n..2n-1, boxes 2n..3n-1.  Boxes are numbered
row-major: box ``b`` covers rows ``(b // p) * p ...`` and columns ``(b % p) * q ...``
(a grid has n / p = q box bands down and n / q = p box stacks across).

``MAX_SIDE`` (4096) is the largest grid side sudoku_cp takes: the grid of the largest reduction
(64 x 64 boxes).  A larger size is refused before anything is allocated or enumerated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .errors import SudokuCpError, excerpt

__all__ = ["MAX_SIDE", "Geometry", "GeometryError", "geometry_for_size", "parse_box"]

#: The largest grid side: 64 x 64 boxes, the grid of the largest reduction (``reduction.packing``).
MAX_SIDE = 4096
_DIGITS = re.compile(r"[0-9]{1,9}")  # ASCII only: str.isdigit takes '²', which int() refuses
_SHOWN_SHAPES = 6  # box shapes named in an error; a highly composite n has dozens


class GeometryError(SudokuCpError, ValueError):
    """A grid size or box shape that cannot form a Sudoku."""


@dataclass(frozen=True, slots=True)
class Geometry:
    """An n x n grid with p x q boxes (p rows by q columns); precomputed units and peers."""

    p: int
    q: int
    n: int = field(init=False)
    box_of_cell: np.ndarray = field(init=False, repr=False, compare=False)
    units: np.ndarray = field(init=False, repr=False, compare=False)
    cell_units: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.p < 1 or self.q < 1 or self.p * self.q < 2:
            raise GeometryError(f"box {self.p}x{self.q} is not a Sudoku box shape")
        n = self.p * self.q
        if n > MAX_SIDE:
            raise GeometryError(
                f"box {self.p}x{self.q} makes a {n}x{n} grid, above the largest side {MAX_SIDE}"
            )
        rows = np.arange(n).repeat(n)
        cols = np.tile(np.arange(n), n)
        box = (rows // self.p) * self.p + cols // self.q
        cells = np.arange(n * n)
        units = np.concatenate(
            [
                cells.reshape(n, n),
                cells.reshape(n, n).T,
                # [band, row in band, stack, column in stack] -> one box per line, in reading order
                cells.reshape(self.q, self.p, self.p, self.q).transpose(0, 2, 1, 3).reshape(n, n),
            ]
        )
        cell_units = np.stack([rows, n + cols, 2 * n + box], axis=1)
        for name, value in (
            ("n", n),
            ("box_of_cell", box),
            ("units", units),
            ("cell_units", cell_units),
        ):
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
            object.__setattr__(self, name, value)

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

    def peers(self) -> np.ndarray:
        """Peers of every cell: an (n*n, 3n - p - q - 1) array of the other cells sharing a unit."""
        return _peers(self)

    def cell_name(self, cell: int) -> str:
        """1-based user name of a flat cell index, e.g. 'R9C5'."""
        return f"R{cell // self.n + 1}C{cell % self.n + 1}"

    def unit_name(self, unit: int) -> str:
        """1-based user name of a unit index, e.g. 'row 3', 'box 7'."""
        kind, index = divmod(unit, self.n)
        return f"{('row', 'column', 'box')[kind]} {index + 1}"


@cache
def _peers(geometry: Geometry) -> np.ndarray:
    n = geometry.n
    together = np.sort(geometry.units[geometry.cell_units].reshape(n * n, 3 * n), axis=1)
    keep = np.ones_like(together, dtype=bool)
    keep[:, 1:] = together[:, 1:] != together[:, :-1]
    keep &= together != np.arange(n * n)[:, None]
    peers = together[keep].reshape(n * n, -1)
    peers.setflags(write=False)
    return peers


@cache
def _geometry(p: int, q: int) -> Geometry:
    return Geometry(p, q)


def geometry_for_size(n: int, box: tuple[int, int] | None = None) -> Geometry:
    """The geometry of an n x n grid: the given box shape, or square boxes when n is a square.

    Raises GeometryError when n has no box shape, when the box does not fit n, or when n
    admits several shapes (6, 8, 12, ...) and none was given.
    """
    if not 2 <= n <= MAX_SIDE:
        size = str(n) if abs(n) < 10**12 else "a huge number"
        raise GeometryError(f"a grid side must lie in 2..{MAX_SIDE}, not {size}")
    if box is not None:
        p, q = box
        if p * q != n:
            raise GeometryError(f"box {p}x{q} does not fit a {n}x{n} grid ({p}*{q} != {n})")
        return _geometry(p, q)
    root = math.isqrt(n)
    if root * root == n and root >= 2:
        return _geometry(root, root)
    shapes = [f"{p}x{n // p}" for p in range(2, n // 2 + 1) if n % p == 0]
    if not shapes:
        raise GeometryError(f"a {n}x{n} grid has no box shape ({n} is not a product of two factors >= 2)")
    shown = ", ".join(shapes[:_SHOWN_SHAPES]) + (
        f", ... {len(shapes)} in all" if len(shapes) > _SHOWN_SHAPES else ""
    )
    raise GeometryError(f"a {n}x{n} grid has several box shapes ({shown}): give one with --box")


def parse_box(text: str) -> tuple[int, int]:
    """Parse a box shape 'PxQ' (P rows by Q columns), with P*Q at most ``MAX_SIDE``."""
    shown = excerpt(text, 20)  # the text can be any length
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(_DIGITS.fullmatch(part.strip()) for part in parts):
        raise GeometryError(f"box shape {shown} is not of the form PxQ, e.g. 2x3")
    p, q = int(parts[0]), int(parts[1])
    if p < 1 or q < 1 or p * q < 2:
        raise GeometryError(f"box shape {shown} is not a Sudoku box shape")
    if p * q > MAX_SIDE:
        raise GeometryError(f"box shape {shown} makes a grid side above the largest, {MAX_SIDE}")
    return p, q
