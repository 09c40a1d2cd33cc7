"""The map between CNF variables and grid candidates x(r, c, d).

Fixed numbering (minimal, efficient, extended encodings): with 0-based row r, column c and
digit d, ``x(r, c, d) = r*n*n + c*n + d + 1``; with the 1-based values users see,
``x(R, C, D) = (R-1)*n*n + (C-1)*n + D``.  Auxiliary variables of cardinality encodings follow
after n**3.

Compact numbering (optimized encoding): only the open candidates left by propagation get a
variable, numbered 1, 2, ... in cell-major, then digit order; the map is written into the DIMACS
comments (``c x <var> <row> <column> <digit>``, 1-based) and the placed digits are kept in
``fixed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SudokuCpError
from ..geometry import Geometry

__all__ = ["DecodeError", "GridVarMap"]


class DecodeError(SudokuCpError, ValueError):
    """A model that does not describe one digit per cell."""


@dataclass(frozen=True, slots=True, eq=False)
class GridVarMap:
    """Two-way map between grid candidates and CNF variables 1..n_grid_vars.

    ``index[cell, d]`` is the variable of digit d (0-based) in a flat cell, 0 for none;
    ``cell_of_var``/``digit_of_var`` invert it (entry 0 unused); ``fixed`` holds digits placed
    before encoding (0 = decided by the model).
    """

    geometry: Geometry
    index: np.ndarray
    cell_of_var: np.ndarray
    digit_of_var: np.ndarray
    fixed: np.ndarray

    @classmethod
    def full(cls, geometry: Geometry) -> GridVarMap:
        """The fixed numbering over all n**3 candidates."""
        n = geometry.n
        index = np.arange(1, n**3 + 1, dtype=np.int64).reshape(n * n, n)
        return cls.from_index(geometry, index, np.zeros(n * n, dtype=np.int16))

    @classmethod
    def compact(cls, geometry: Geometry, candidates: np.ndarray, fixed: np.ndarray) -> GridVarMap:
        """Variables for the candidates of the open cells only, numbered cell-major."""
        open_cands = candidates & (fixed == 0)[:, None]
        index = np.zeros(open_cands.shape, dtype=np.int64)
        index[open_cands] = np.arange(1, int(open_cands.sum()) + 1)
        return cls.from_index(geometry, index, np.asarray(fixed, dtype=np.int16))

    @classmethod
    def from_index(cls, geometry: Geometry, index: np.ndarray, fixed: np.ndarray) -> GridVarMap:
        """A map from an explicit (n*n, n) variable table."""
        cells, digits = np.nonzero(index)
        n_vars = int(index.max()) if index.size else 0
        cell_of_var = np.full(n_vars + 1, -1, dtype=np.int64)
        digit_of_var = np.full(n_vars + 1, -1, dtype=np.int64)
        cell_of_var[index[cells, digits]] = cells
        digit_of_var[index[cells, digits]] = digits
        for array in (index, cell_of_var, digit_of_var, fixed):
            array.setflags(write=False)
        return cls(geometry, index, cell_of_var, digit_of_var, fixed)

    @property
    def n_grid_vars(self) -> int:
        """Number of candidate variables (auxiliary variables come after them)."""
        return len(self.cell_of_var) - 1

    def x(self, r: int, c: int, d: int) -> int:
        """Variable of digit d in row r, column c (all 0-based); 0 when there is none."""
        return int(self.index[r * self.geometry.n + c, d])

    def decode(self, model: np.ndarray | list[int]) -> np.ndarray:
        """The (n, n) grid a model describes: true candidate variables plus the fixed digits."""
        g = self.geometry
        try:
            lits = np.asarray(model, dtype=np.int64).reshape(-1)
        except (OverflowError, ValueError, TypeError):
            raise DecodeError("the model holds a literal that is not a 64-bit integer") from None
        true_vars = lits[(lits > 0) & (lits <= self.n_grid_vars)]
        cells = self.cell_of_var[true_vars]
        values = self.fixed.astype(np.int16).copy()
        counts = np.bincount(cells, minlength=g.n * g.n)
        doubled = np.flatnonzero(counts > 1)
        if doubled.size:
            cell = int(doubled[0])
            digits = sorted(int(self.digit_of_var[v]) + 1 for v in true_vars[cells == cell])
            shown = ", ".join(map(str, digits[:8])) + (
                f", ... ({len(digits)} digits)" if len(digits) > 8 else ""
            )
            raise DecodeError(f"the model puts several digits ({shown}) in {g.cell_name(cell)}")
        clash = np.flatnonzero((counts > 0) & (values != 0))
        if clash.size:
            raise DecodeError(f"the model sets {g.cell_name(int(clash[0]))}, which was already fixed")
        values[cells] = (self.digit_of_var[true_vars] + 1).astype(np.int16)
        empty = np.flatnonzero(values == 0)
        if empty.size:
            raise DecodeError(f"the model leaves {g.cell_name(int(empty[0]))} without a digit")
        return values.reshape(g.n, g.n)

    def solution_literals(self, values: np.ndarray) -> np.ndarray:
        """The candidate variables a solution sets true (its open cells only)."""
        flat = np.asarray(values).reshape(-1).astype(np.int64)
        lits = self.index[np.arange(flat.size), np.clip(flat - 1, 0, None)]
        return lits[(self.fixed == 0) & (lits > 0)]

    def comment_lines(self) -> list[str]:
        """DIMACS comment lines 'x <var> <row> <column> <digit>' (1-based) for every variable."""
        n = self.geometry.n
        var = np.arange(1, self.n_grid_vars + 1)
        cells = self.cell_of_var[1:]
        table = np.stack([var, cells // n + 1, cells % n + 1, self.digit_of_var[1:] + 1], axis=1)
        return ["x " + " ".join(map(str, row)) for row in table.tolist()]
