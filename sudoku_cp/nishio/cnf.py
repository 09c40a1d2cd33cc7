"""CNF model of a single-digit (Nishio) instance (specified in ``encodings/nishio.md``).

One variable per cell of S, numbered 1, 2, ... in the reading order of S; for every row, column
and box, "exactly one" over the cells of S in that unit, written by ``pysat.card.CardEnc.equals``
with the ``EncType`` of the chosen ``AmoEncoding`` (the names of the grid models).  Auxiliary
variables are numbered on after the cell variables, unit by unit, so they never collide.  A
unit without a cell of S gives the empty clause.

Each unit's clauses are the template of its width (``cnf.sudoku.card_template``: pysat.card
asked once per encoding and width) with the unit's literals and auxiliaries put in: the same
clauses as a call per unit, without thousands of calls, each of which swapped in pysat.card's
own SIGINT handler (a Ctrl-C landing there never reached Python, or corrupted the heap).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..cnf.dimacs import dimacs_text
from ..cnf.sudoku import AmoEncoding, card_template
from .instance import NishioInstance

__all__ = [
    "NISHIO_CNF_ENCODINGS",
    "NishioCnf",
    "encode_nishio_cnf",
    "nishio_dimacs_text",
]

#: The encodings accepted for the exactly-one constraints (each is a ``pysat.card.EncType``).
NISHIO_CNF_ENCODINGS = tuple(AmoEncoding)

_FAMILIES = ("row", "column", "box")


@dataclass(frozen=True, slots=True)
class _Template:
    """Exactly one over the symbols 1..width, auxiliaries width+1, ...: every clause's symbols in
    one array (``symbols``, signs in ``signs``), clause k at ``spans[k]`` of it."""

    symbols: np.ndarray
    signs: np.ndarray
    spans: tuple[tuple[int, int], ...]
    aux: int

    def clauses(self, lits: list[int], top: int) -> list[list[int]]:
        """The clauses over ``lits``, auxiliaries ``top + 1``, ...."""
        variables = np.concatenate([[0], lits, np.arange(top + 1, top + self.aux + 1)])
        flat = (variables[self.symbols] * self.signs).tolist()
        return [flat[a:b] for a, b in self.spans]


@cache
def _equals_template(encoding: AmoEncoding, width: int) -> _Template:
    """The template of "exactly one" over ``width`` literals in ``encoding``."""
    clauses, aux = card_template(encoding, width, exactly=True)
    flat = np.array([x for clause in clauses for x in clause], dtype=np.int64)
    ends = np.cumsum([len(clause) for clause in clauses]).tolist()
    spans = tuple(zip([0, *ends[:-1]], ends, strict=True))
    return _Template(np.abs(flat), np.sign(flat), spans, aux)


@dataclass(frozen=True, slots=True, eq=False)
class NishioCnf:
    """The clauses of a Nishio instance and its variable map.

    ``cell_vars[r, c]`` is the variable of cell (r, c) of S (0 outside S); ``var_cells[v - 1]`` is the
    0-based (row, column) of variable v for v in 1..``n_cell_vars``; ``family_clauses`` counts the
    clauses of the row, column and box families, which appear in that order.
    """

    instance: NishioInstance
    encoding: AmoEncoding
    cell_vars: np.ndarray
    var_cells: np.ndarray
    clauses: list[list[int]]
    n_vars: int
    family_clauses: dict[str, int]

    @property
    def n_cell_vars(self) -> int:
        """Number of cell variables, |S|."""
        return len(self.var_cells)

    @property
    def n_clauses(self) -> int:
        """Number of clauses."""
        return len(self.clauses)

    def decode(self, model: list[int] | np.ndarray) -> np.ndarray:
        """The column per row of the cells whose variables are true in a model (-1 for a row without one).

        ``model`` is a list of literals as pysat returns it (any order, auxiliaries allowed).
        """
        n = self.instance.n
        lits = np.asarray(model, dtype=np.int64)
        true = lits[(lits > 0) & (lits <= self.n_cell_vars)]
        cols = np.full(n, -1, dtype=np.int64)
        for r, c in self.var_cells[true - 1].tolist():
            cols[r] = c if cols[r] == -1 else -2
        return cols

    def comments(self) -> list[str]:
        """The DIMACS header comments: geometry, encoding, families and the variable map."""
        g = self.instance.geometry
        lines = [
            "sudoku_cp Nishio CNF model (one digit)",
            f"n {g.n} p {g.p} q {g.q} box {g.box_label}",
            f"encoding exactly-one {self.encoding.value}",
            f"cells of S {self.n_cell_vars}: variables 1..{self.n_cell_vars} in reading order",
        ]
        if self.n_vars > self.n_cell_vars:
            lines.append(f"auxiliary variables {self.n_cell_vars + 1}..{self.n_vars}")
        lines.extend(f"family {name} {self.family_clauses[name]}" for name in _FAMILIES)
        lines.extend(f"x {v} {r + 1} {c + 1}" for v, (r, c) in enumerate(self.var_cells.tolist(), start=1))
        return lines


def encode_nishio_cnf(
    instance: NishioInstance, encoding: AmoEncoding | str = AmoEncoding.SEQCOUNTER
) -> NishioCnf:
    """The CNF model of a Nishio instance with the given exactly-one encoding."""
    encoding = AmoEncoding(encoding)
    g = instance.geometry
    n = g.n
    mask = instance.mask
    cell_vars = np.zeros((n, n), dtype=np.int64)
    rows, cols = np.nonzero(mask)
    cell_vars[rows, cols] = np.arange(1, len(rows) + 1)
    var_cells = np.stack([rows, cols], axis=1).astype(np.int64).reshape(-1, 2)
    flat_vars = cell_vars.reshape(-1)
    top = len(rows)  # the highest variable so far: auxiliaries follow
    clauses: list[list[int]] = []
    family_clauses: dict[str, int] = {}
    for kind_index, family in enumerate(_FAMILIES):
        before = len(clauses)
        for unit in range(kind_index * n, (kind_index + 1) * n):
            lits = [int(v) for v in flat_vars[g.units[unit]].tolist() if v]
            if not lits:
                clauses.append([])
                continue
            template = _equals_template(encoding, len(lits))
            clauses.extend(template.clauses(lits, top))
            top += template.aux
        family_clauses[family] = len(clauses) - before
    n_vars = top
    for array in (cell_vars, var_cells):
        array.setflags(write=False)
    return NishioCnf(instance, encoding, cell_vars, var_cells, clauses, n_vars, family_clauses)


def nishio_dimacs_text(cnf: NishioCnf) -> str:
    """The DIMACS text of a Nishio CNF model, with its header comments and variable map."""
    return dimacs_text(cnf.clauses, cnf.n_vars, cnf.comments())
