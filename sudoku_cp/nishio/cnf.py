"""CNF model of a single-digit (Nishio) instance (specified in ``encodings/nishio.md``).

One variable per cell of S, numbered 1, 2, ... in the reading order of S; for every row, column
and box, "exactly one" over the cells of S in that unit, written by ``pysat.card.CardEnc.equals``
with the ``EncType`` of the chosen ``AmoEncoding`` (the names of the grid models).  Auxiliary
variables are numbered on after the cell variables, unit by unit, so they never collide.  A
unit without a cell of S gives the empty clause.

The model is built from the cells of S (sorted coordinate arrays), never from a dense grid.
Each unit's clauses are the template of its width (``cnf.sudoku.card_template``: pysat.card
asked once per encoding and width) with the unit's literals and auxiliaries put in, all units
of one width at once (numpy): the same clauses as a call per unit, without thousands of calls,
each of which swapped in pysat.card's own SIGINT handler (a Ctrl-C landing there never reached
Python, or corrupted the heap).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from functools import cache
from typing import IO

import numpy as np

from ..cnf.dimacs import write_flat_dimacs
from ..cnf.sudoku import AmoEncoding, card_template
from .instance import NishioInstance

__all__ = [
    "NISHIO_CNF_ENCODINGS",
    "NishioCnf",
    "encode_nishio_cnf",
    "nishio_dimacs_text",
    "write_nishio_dimacs",
]

#: The encodings accepted for the exactly-one constraints (each is a ``pysat.card.EncType``).
NISHIO_CNF_ENCODINGS = tuple(AmoEncoding)

_FAMILIES = ("row", "column", "box")


@dataclass(frozen=True, slots=True)
class _Template:
    """Exactly one over the symbols 1..width, auxiliaries width+1, ...: the clauses as one flat symbol
    array with 0 ending each clause (``symbols``; signs in ``signs``) and the number of auxiliaries."""

    symbols: np.ndarray
    signs: np.ndarray
    clauses: int
    aux: int


@cache
def _equals_template(encoding: AmoEncoding, width: int) -> _Template:
    """The template of "exactly one" over ``width`` literals in ``encoding`` (width 0: the empty clause)."""
    if width == 0:
        return _Template(np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), 1, 0)
    clauses, aux = card_template(encoding, width, exactly=True)
    flat = np.array([x for clause in clauses for x in (*clause, 0)], dtype=np.int64)
    return _Template(np.abs(flat), np.where(flat < 0, -1, 1), len(clauses), aux)


@dataclass(frozen=True, slots=True, eq=False)
class NishioCnf:
    """The clauses of a Nishio instance and its variable map, built from the cells of S.

    ``flat`` holds every clause's literals, each clause ended by 0 (DIMACS order); ``clauses`` gives
    them as lists.  Variable v in 1..``n_cell_vars`` is cell ``var_cells[v - 1]`` (0-based row,
    column; reading order); ``cell_var(rows, cols)`` maps cells back.  ``family_clauses`` counts
    the clauses of the row, column and box families, which appear in that order.
    """

    instance: NishioInstance
    encoding: AmoEncoding
    var_cells: np.ndarray
    flat: np.ndarray
    n_vars: int
    n_clauses: int
    family_clauses: dict[str, int]

    @property
    def n_cell_vars(self) -> int:
        """Number of cell variables, |S|."""
        return len(self.var_cells)

    @property
    def clauses(self) -> list[list[int]]:
        """The clauses as lists of literals (built on each call: ``flat`` is the stored form)."""
        ends = np.flatnonzero(self.flat == 0)
        values = self.flat.tolist()
        starts = [0, *(ends[:-1] + 1).tolist()]
        return [values[a:b] for a, b in zip(starts, ends.tolist(), strict=True)]

    @property
    def cell_vars(self) -> np.ndarray:
        """The dense (n, n) map: variable of cell (r, c), 0 outside S (only for grids a mask fits)."""
        mask = self.instance.mask  # refuses a grid too large for a dense array
        out = np.zeros(mask.shape, dtype=np.int64)
        out[self.var_cells[:, 0], self.var_cells[:, 1]] = np.arange(1, self.n_cell_vars + 1)
        return out

    def cell_var(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The variable of each given 0-based cell (0 for a cell not in S)."""
        return self.instance.index_of(rows, cols) + 1

    def decode(self, model: list[int] | np.ndarray) -> np.ndarray:
        """The column per row of the cells whose variables are true in a model (-1 for a row without
        one, -2 for a row with two or more).

        ``model`` is a list of literals as pysat returns it (any order, auxiliaries allowed).
        """
        n = self.instance.n
        lits = np.asarray(model, dtype=np.int64).reshape(-1)
        true = np.unique(lits[(lits > 0) & (lits <= self.n_cell_vars)])
        rows, cols = self.var_cells[true - 1, 0], self.var_cells[true - 1, 1]
        out = np.full(n, -1, dtype=np.int64)
        out[rows] = cols
        per_row = np.bincount(rows, minlength=n)
        out[per_row > 1] = -2
        return out

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
        rows = (self.var_cells[:, 0] + 1).tolist()
        cols = (self.var_cells[:, 1] + 1).tolist()
        lines.extend(f"x {v} {r} {c}" for v, r, c in zip(range(1, len(rows) + 1), rows, cols, strict=True))
        return lines


def _unit_orders(instance: NishioInstance) -> list[np.ndarray]:
    """Per family (rows, columns, boxes): the cell positions of S sorted by unit, then in the unit's
    own order (a row left to right, a column top to bottom, a box in reading order)."""
    rows, cols = instance.rows, instance.cols
    by_row = np.arange(rows.size, dtype=np.int64)  # reading order already
    by_col = np.lexsort((rows, cols))
    by_box = np.argsort(instance.boxes, kind="stable")
    return [by_row, by_col, by_box]


def _family_flat(
    encoding: AmoEncoding, unit_of_cell: np.ndarray, order: np.ndarray, n: int, top: int
) -> tuple[np.ndarray, int, int]:
    """The flat clauses of one family, unit by unit, auxiliaries from ``top + 1``: (flat, clauses, top).

    Units of equal width are filled from one template at once; each unit's block lands at its
    offset, so the order is exactly unit by unit, as with one encoder call per unit.
    """
    widths = np.bincount(unit_of_cell, minlength=n)
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    templates = {int(w): _equals_template(encoding, int(w)) for w in np.unique(widths)}
    aux_of = np.zeros(int(widths.max()) + 1, dtype=np.int64)
    length_of = np.zeros_like(aux_of)
    for width, template in templates.items():
        aux_of[width], length_of[width] = template.aux, template.symbols.size
    aux, lengths = aux_of[widths], length_of[widths]
    aux_base = top + np.concatenate([[0], np.cumsum(aux)[:-1]])
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    flat = np.zeros(int(lengths.sum()), dtype=np.int64)
    clauses = 0
    for width, template in templates.items():
        units = np.flatnonzero(widths == width)
        clauses += template.clauses * units.size
        columns = [np.zeros((units.size, 1), dtype=np.int64)]
        if width:
            positions = starts[units][:, None] + np.arange(width)[None, :]
            columns.append(order[positions] + 1)  # cell variables are 1-based positions in S
        if template.aux:
            columns.append(aux_base[units][:, None] + np.arange(1, template.aux + 1)[None, :])
        variables = np.concatenate(columns, axis=1)
        block = variables[:, template.symbols] * template.signs
        flat[offsets[units][:, None] + np.arange(template.symbols.size)[None, :]] = block
    return flat, clauses, top + int(aux.sum())


def encode_nishio_cnf(
    instance: NishioInstance, encoding: AmoEncoding | str = AmoEncoding.SEQCOUNTER
) -> NishioCnf:
    """The CNF model of a Nishio instance with the given exactly-one encoding (from its cells)."""
    encoding = AmoEncoding(encoding)
    n = instance.n
    var_cells = np.stack([instance.rows, instance.cols], axis=1).reshape(-1, 2)
    top = instance.size  # the highest variable so far: auxiliaries follow
    pieces = []
    family_clauses: dict[str, int] = {}
    units = (instance.rows, instance.cols, instance.boxes)
    for family, order, unit in zip(_FAMILIES, _unit_orders(instance), units, strict=True):
        flat, count, top = _family_flat(encoding, unit[order], order, n, top)
        pieces.append(flat)
        family_clauses[family] = count
    flat = np.concatenate(pieces)
    for array in (var_cells, flat):
        array.setflags(write=False)
    n_clauses = sum(family_clauses.values())
    return NishioCnf(instance, encoding, var_cells, flat, top, n_clauses, family_clauses)


def write_nishio_dimacs(cnf: NishioCnf, target: str | os.PathLike[str] | IO[str] | IO[bytes]) -> int:
    """Stream the DIMACS text of a Nishio CNF model to a path or stream (never one string); returns
    the number of clauses.  Same bytes as ``nishio_dimacs_text``."""
    return write_flat_dimacs(target, cnf.flat, cnf.n_vars, cnf.comments())


def nishio_dimacs_text(cnf: NishioCnf) -> str:
    """The DIMACS text of a Nishio CNF model, with its header comments and variable map (small models;
    ``write_nishio_dimacs`` streams)."""
    out = io.StringIO()
    write_nishio_dimacs(cnf, out)
    return out.getvalue()
