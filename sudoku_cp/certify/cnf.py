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

import gzip
import hashlib
from collections.abc import Sequence
from functools import cache

import numpy as np

from ..cnf.dimacs import flat_dimacs_bytes
from ..geometry import Geometry
from ..grid import Grid
from ..limits import check_memory

__all__ = [
    "BYTES_PER_CLAUSE",
    "CertificateCnf",
    "compress",
    "formula_cnf",
    "nishio_cnf",
    "parse_canonical",
    "split_clauses",
    "sudoku_clauses",
    "sudoku_cnf",
]


class _Body:
    """Clauses as flat literals (each clause ended by 0) with their DIMACS text and, once asked,
    its gzip member: the clauses every puzzle of a geometry shares are one such body, cached."""

    __slots__ = ("_packed", "flat", "text")

    def __init__(self, flat: np.ndarray, n_vars: int) -> None:
        text = flat_dimacs_bytes(flat, n_vars)
        self.flat = flat
        self.text = text[text.index(b"\n") + 1 :]
        self._packed: bytes | None = None

    def gzip(self) -> bytes:
        """This body's text as one gzip member (made on the first call: a checker never asks)."""
        if self._packed is None:
            # The best level costs 0.04 s on the 9x9 clauses, seconds past a few MB for 1-2 %.
            self._packed = compress(self.text, 9 if len(self.text) < _BEST_LEVEL_BYTES else 6)
        return self._packed


_BEST_LEVEL_BYTES = 4 << 20


class CertificateCnf:
    """A CNF as flat int32 DIMACS literals (each clause ended by 0) and its variable count.

    It is made of bodies: a shared one (cached per geometry) and the clauses of this claim, so
    its text, hash and gzip file cost little more than the claim's own clauses.  The gzip file
    is one member per body (RFC 1952 allows several; ``gzip -d`` and every gzip reader join them).
    """

    __slots__ = ("_bodies", "_flat", "n_vars")

    def __init__(self, flat: np.ndarray | tuple[_Body, ...], n_vars: int) -> None:
        if isinstance(flat, np.ndarray):
            flat = (_Body(np.asarray(flat, dtype=np.int32), n_vars),)
        self._bodies = flat
        self._flat: np.ndarray | None = None
        self.n_vars = n_vars

    @property
    def flat(self) -> np.ndarray:
        """All clauses as one flat literal array."""
        if self._flat is None:
            parts = [body.flat for body in self._bodies]
            self._flat = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return self._flat

    @property
    def n_clauses(self) -> int:
        """Number of clauses."""
        return sum(int(np.count_nonzero(body.flat == 0)) for body in self._bodies)

    def _header(self) -> bytes:
        return f"p cnf {self.n_vars} {self.n_clauses}\n".encode("ascii")

    def text(self) -> bytes:
        """The canonical DIMACS bytes (header, one clause per line, no comments)."""
        return b"".join([self._header(), *(body.text for body in self._bodies)])

    def gzip(self) -> bytes:
        """``text()`` gzip-compressed (one member for the header, one per body)."""
        return b"".join([compress(self._header()), *(body.gzip() for body in self._bodies)])

    def sha256(self) -> str:
        """SHA-256 (hex) of ``text()``."""
        digest = hashlib.sha256(self._header())
        for body in self._bodies:
            digest.update(body.text)
        return digest.hexdigest()

    def clauses(self) -> list[list[int]]:
        """The clauses as lists of integers (for a solver)."""
        return split_clauses(self.flat)


def split_clauses(flat: np.ndarray) -> list[list[int]]:
    """Flat literals (each clause ended by 0) as lists of integers."""
    ends = np.flatnonzero(flat == 0)
    starts = np.concatenate([[0], ends[:-1] + 1])
    values = flat.tolist()
    return [values[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def compress(data: bytes, level: int = 6) -> bytes:
    """gzip bytes, reproducible (no time stamp)."""
    return gzip.compress(data, compresslevel=level, mtime=0)


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
def _sudoku_base(geometry: Geometry) -> _Body:
    """The extended encoding without givens: families 1-8 of the specification, text and gzip made."""
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
    return _Body(flat, n**3)


#: Bytes a certificate costs per clause of its CNF, all copies together: the literals, the text,
#: the gzip member, the prover's share and the checker's arrays (measured on 9x9 to 25x25: 60-90).
BYTES_PER_CLAUSE = 100


def sudoku_clauses(n: int) -> int:
    """Clauses of the Sudoku CNF of an n x n grid without givens: 4n^2 ALO, 4n^2 * n(n-1)/2 AMO."""
    return 4 * n * n + 2 * n**3 * (n - 1)


def sudoku_cnf(puzzle: Grid, solution: Grid | None = None) -> CertificateCnf:
    """The Sudoku CNF of ``puzzle`` (``unsat`` claims); with ``solution``, plus the clause blocking it
    (``unique`` claims).  Raises ModelTooLarge, before building, when it cannot fit in memory."""
    n = puzzle.n
    check_memory(f"the certificate CNF of a {n}x{n} grid", BYTES_PER_CLAUSE * sudoku_clauses(n))
    values = puzzle.values.reshape(-1).astype(np.int32)
    given = np.flatnonzero(values)
    givens = np.zeros(2 * given.size, dtype=np.int32)
    givens[0::2] = given * n + values[given]
    parts = [givens]
    if solution is not None:
        chosen = solution.values.reshape(-1).astype(np.int32)
        parts.append(np.append(-(np.arange(n * n, dtype=np.int32) * n + chosen), 0).astype(np.int32))
    own = _Body(np.concatenate(parts), n**3)
    return CertificateCnf((_sudoku_base(puzzle.geometry), own), n**3)


def nishio_cnf(geometry: Geometry, mask: np.ndarray, cell: tuple[int, int]) -> CertificateCnf:
    """The Nishio CNF of S (an (n, n) bool ``mask``) with the 0-based ``cell`` forced.  Raises
    ModelTooLarge, before building, when it cannot fit in memory."""
    n = geometry.n
    inside = np.asarray(mask, dtype=bool).reshape(-1)
    per_unit = inside[_units(geometry)].sum(axis=1).astype(np.int64)
    clauses = int((per_unit * (per_unit - 1) // 2).sum()) + per_unit.size + 1
    check_memory(f"the Nishio certificate CNF of a {n}x{n} grid", BYTES_PER_CLAUSE * clauses)
    parts = []
    for unit in _units(geometry):
        chosen = unit[inside[unit]].astype(np.int32) + 1  # variable (R-1)n + C = cell index + 1
        parts.append(np.append(chosen, 0).astype(np.int32))
        i, j = _pairs(chosen.size)
        parts.append(_with_ends(np.stack([-chosen[i], -chosen[j]], axis=1)))
    parts.append(np.array([cell[0] * n + cell[1] + 1, 0], dtype=np.int32))
    return CertificateCnf(np.concatenate(parts), n * n)


def formula_cnf(num_vars: int, clauses: Sequence[Sequence[int]]) -> CertificateCnf:
    """The certificate CNF of a formula: its clauses in order, each ended by 0."""
    if any(literal == 0 or abs(literal) > num_vars for clause in clauses for literal in clause):
        raise ValueError(f"a literal is outside 1..{num_vars} or negated")
    parts = [np.asarray([*clause, 0], dtype=np.int32) for clause in clauses]
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    return CertificateCnf(flat, num_vars)


def parse_canonical(text: bytes) -> tuple[int, list[list[int]]]:
    """(V, clauses) of canonical DIMACS text; ValueError when it is not canonical."""
    try:
        lines = text.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise ValueError("the CNF is not ASCII text") from None
    if not lines or lines[-1] != "":
        raise ValueError("the CNF does not end with a newline")
    head = lines[0].split(" ")
    if len(head) != 4 or head[:2] != ["p", "cnf"] or not all(part.isdigit() for part in head[2:]):
        raise ValueError("the CNF's first line is not 'p cnf V M'")
    variables, count = int(head[2]), int(head[3])
    clauses = []
    for number, line in enumerate(lines[1:-1], start=2):
        words = line.split(" ")
        if words[-1] != "0" or not all(w.lstrip("-").isdigit() and w not in ("-0", "0") for w in words[:-1]):
            raise ValueError(f"the CNF's line {number} is not a clause ended by ' 0'")
        clause = [int(w) for w in words[:-1]]
        if any(abs(literal) > variables for literal in clause):
            raise ValueError(f"the CNF's line {number} has a literal outside 1..{variables}")
        clauses.append(clause)
    if len(clauses) != count:
        raise ValueError(f"the CNF's header says {count} clauses, it holds {len(clauses)}")
    return variables, clauses
