"""The two CNFs a certificate's proofs refute, exactly as ``encodings/certificates.md`` writes them.

*The Sudoku CNF* of a puzzle is the ``extended`` encoding with pairwise at-most-one in the fixed
numbering x(R, C, D) = (R-1)n^2 + (C-1)n + D, the givens as unit clauses and, for a ``unique``
claim, one clause blocking the solution.  *The Nishio CNF* of a set S and one of its cells says
"exactly one cell of S in every row, column and box" pairwise, cell (R, C) being variable
(R-1)n + C, and forces that cell.

These are the trusted base of every certificate, so they are built here from the specification
alone, in a few lines of numpy, rather than by the optimized encoders of ``sudoku_cp.cnf``: a
reader can hold this module against the specification line by line.  The tests compare it with
``encode_cnf(puzzle, "extended", amo="pairwise")`` clause for clause.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..cnf.dimacs import flat_dimacs_bytes
from ..geometry import Geometry
from ..grid import Grid

__all__ = ["CertificateCnf", "nishio_cnf", "sudoku_cnf"]


@dataclass(frozen=True, slots=True, eq=False)
class CertificateCnf:
    """A CNF as a flat int32 array of DIMACS literals, each clause ended by 0, and its variable count."""

    flat: np.ndarray
    n_vars: int

    @property
    def n_clauses(self) -> int:
        """Number of clauses."""
        return int(np.count_nonzero(self.flat == 0))

    def text(self) -> bytes:
        """The canonical DIMACS bytes (header, one clause per line, no comments)."""
        return flat_dimacs_bytes(self.flat, self.n_vars)

    def sha256(self) -> str:
        """SHA-256 (hex) of ``text()``."""
        return hashlib.sha256(self.text()).hexdigest()

    def clauses(self) -> list[list[int]]:
        """The clauses as lists of integers (for a solver)."""
        ends = np.flatnonzero(self.flat == 0)
        starts = np.concatenate([[0], ends[:-1] + 1])
        values = self.flat.tolist()
        return [values[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def _units(geometry: Geometry) -> np.ndarray:
    """(3n, n) cell indices r*n + c of every row, column and box, each unit's cells row-major."""
    n, p, q = geometry.n, geometry.p, geometry.q
    cells = np.arange(n * n).reshape(n, n)
    rows = cells
    columns = cells.T
    # Box b covers rows (b // p) * p ... and columns (b % p) * q ...; its cells in row-major order.
    boxes = cells.reshape(q, p, p, q).transpose(0, 2, 1, 3).reshape(n, n)
    return np.concatenate([rows, columns, boxes])


@cache
def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (i, j), i < j, of k items in lexicographic order."""
    i, j = np.triu_indices(k, 1)
    return i, j


def _with_ends(block: np.ndarray) -> np.ndarray:
    """A (clauses, width) block of literals as flat literals, each row ended by 0."""
    out = np.zeros((block.shape[0], block.shape[1] + 1), dtype=np.int32)
    out[:, :-1] = block
    return out.ravel()


@cache
def _sudoku_base(geometry: Geometry) -> np.ndarray:
    """The extended encoding without givens: families 1-8 of the specification (read-only)."""
    n = geometry.n
    digits = np.arange(1, n + 1, dtype=np.int32)
    cells = np.arange(n * n, dtype=np.int32)
    x = cells[:, None] * n + digits[None, :]  # x[cell, d - 1]: the cell's variable for digit d
    i, j = _pairs(n)
    parts = [_with_ends(x), _with_ends(np.stack([-x[:, i], -x[:, j]], axis=2).reshape(-1, 2))]
    units = _units(geometry)
    for family in range(3):  # rows, then columns, then boxes: definedness, then uniqueness
        groups = x[units[family * n : (family + 1) * n]]  # (unit, cell position, digit)
        by_digit = groups.transpose(0, 2, 1).reshape(n * n, n)  # (unit, digit) rows, cells in order
        parts.append(_with_ends(by_digit))
        parts.append(_with_ends(np.stack([-by_digit[:, i], -by_digit[:, j]], axis=2).reshape(-1, 2)))
    flat = np.concatenate(parts)
    flat.setflags(write=False)
    return flat


def sudoku_cnf(puzzle: Grid, solution: Grid | None = None) -> CertificateCnf:
    """The Sudoku CNF of ``puzzle`` (``unsat`` claims); with ``solution``, plus the clause blocking it
    (``unique`` claims)."""
    n = puzzle.n
    values = puzzle.values.reshape(-1).astype(np.int32)
    given = np.flatnonzero(values)
    givens = np.zeros(2 * given.size, dtype=np.int32)
    givens[0::2] = given * n + values[given]
    parts = [_sudoku_base(puzzle.geometry), givens]
    if solution is not None:
        chosen = solution.values.reshape(-1).astype(np.int32)
        parts.append(np.append(-(np.arange(n * n, dtype=np.int32) * n + chosen), 0).astype(np.int32))
    return CertificateCnf(np.concatenate(parts), n**3)


def nishio_cnf(geometry: Geometry, mask: np.ndarray, cell: tuple[int, int]) -> CertificateCnf:
    """The Nishio CNF of S (an (n, n) bool ``mask``) with the 0-based ``cell`` forced."""
    n = geometry.n
    inside = np.asarray(mask, dtype=bool).reshape(-1)
    parts = []
    for unit in _units(geometry):
        chosen = unit[inside[unit]].astype(np.int32) + 1  # variable (R-1)n + C = cell index + 1
        parts.append(np.append(chosen, 0).astype(np.int32))
        i, j = _pairs(chosen.size)
        parts.append(_with_ends(np.stack([-chosen[i], -chosen[j]], axis=1)))
    parts.append(np.array([cell[0] * n + cell[1] + 1, 0], dtype=np.int32))
    return CertificateCnf(np.concatenate(parts), n * n)
