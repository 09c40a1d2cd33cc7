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
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import IO

import numpy as np

from ..cnf.dimacs import write_flat_dimacs
from ..cnf.sudoku import AmoEncoding, card_template
from ..limits import check_memory
from .instance import NishioInstance

__all__ = [
    "NISHIO_CNF_ENCODINGS",
    "NishioCnf",
    "cnf_memory_estimate",
    "encode_nishio_cnf",
    "nishio_dimacs_text",
    "stream_nishio_dimacs",
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


def _equals_template(encoding: AmoEncoding, width: int) -> _Template:
    """The template of "exactly one" over ``width`` literals in ``encoding`` (width 0: the empty clause).

    Pairwise templates are made on each call (numpy, quick) and never kept: a wide unit's takes
    gigabytes; the others come from pysat.card once per width and are kept."""
    if encoding is AmoEncoding.PAIRWISE and width:
        return _pairwise_template(width)
    return _card_template(encoding, width)


def _template_size(encoding: AmoEncoding, width: int) -> tuple[int, int, int]:
    """(auxiliaries, literals with clause-ending zeros, clauses) of a unit of ``width`` cells,
    without building a pairwise template."""
    if encoding is AmoEncoding.PAIRWISE and width:
        pairs = width * (width - 1) // 2
        return 0, width + 1 + 3 * pairs, 1 + pairs
    template = _card_template(encoding, width)
    return template.aux, template.symbols.size, template.clauses


@cache
def _card_template(encoding: AmoEncoding, width: int) -> _Template:
    if width == 0:
        return _Template(np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int8), 1, 0)
    clauses, aux = card_template(encoding, width, exactly=True)
    flat = np.array([x for clause in clauses for x in (*clause, 0)], dtype=np.int64)
    return _Template(np.abs(flat), np.where(flat < 0, -1, 1).astype(np.int8), len(clauses), aux)


def _pairwise_template(width: int) -> _Template:
    """Pairwise exactly one, as pysat writes it: (1 .. w), then (-i -j) for i < j in row-major
    order; made by numpy, since pysat's w (w - 1) / 2 tuples take gigabytes for a wide unit."""
    first, second = np.triu_indices(width, 1)
    pairs = np.zeros((first.size, 3), dtype=np.int64)
    pairs[:, 0], pairs[:, 1] = first + 1, second + 1
    symbols = np.concatenate([np.arange(1, width + 1), [0], pairs.reshape(-1)])
    signs = np.ones(symbols.size, dtype=np.int8)
    signs[width + 1 :] = -1
    signs[width + 1 :][2::3] = 1  # the clause-ending 0s
    return _Template(symbols, signs, 1 + first.size, 0)


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


@dataclass(frozen=True, slots=True)
class _Family:
    """One family's units laid out for filling from templates: unit widths, where each unit's cells
    start in ``order``, its first auxiliary, its literal offset and length; sizes of the whole."""

    encoding: AmoEncoding
    order: np.ndarray
    widths: np.ndarray
    starts: np.ndarray
    aux_base: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray
    clauses: int
    top: int  # the highest variable after this family


def _plan_family(
    encoding: AmoEncoding, unit_of_cell: np.ndarray, order: np.ndarray, n: int, top: int
) -> _Family:
    """The layout of one family, auxiliaries from ``top + 1`` unit by unit."""
    widths = np.bincount(unit_of_cell, minlength=n)
    aux_of = np.zeros(int(widths.max()) + 1, dtype=np.int64)
    length_of = np.zeros_like(aux_of)
    clauses_of = np.zeros_like(aux_of)
    for width in np.unique(widths).tolist():
        aux_of[width], length_of[width], clauses_of[width] = _template_size(encoding, width)
    aux, lengths = aux_of[widths], length_of[widths]
    return _Family(
        encoding,
        order,
        widths,
        np.concatenate([[0], np.cumsum(widths)[:-1]]),
        top + np.concatenate([[0], np.cumsum(aux)[:-1]]),
        np.concatenate([[0], np.cumsum(lengths)[:-1]]),
        lengths,
        int(clauses_of[widths].sum()),
        top + int(aux.sum()),
    )


def _family_flat(family: _Family, first: int, last: int) -> np.ndarray:
    """The flat clauses of units ``first`` .. ``last - 1`` of a family, in unit order.

    Units of equal width are filled from one template at once; each unit's block lands at its
    offset, so the order is exactly unit by unit, as with one encoder call per unit.
    """
    base = int(family.offsets[first]) if first < family.offsets.size else 0
    flat = np.zeros(int(family.lengths[first:last].sum()), dtype=np.int64)
    widths = family.widths[first:last]
    for width in np.unique(widths).tolist():
        template = _equals_template(family.encoding, width)
        units = first + np.flatnonzero(widths == width)
        columns = [np.zeros((units.size, 1), dtype=np.int64)]
        if width:
            positions = family.starts[units][:, None] + np.arange(width)[None, :]
            columns.append(family.order[positions] + 1)  # cell variables are 1-based positions in S
        if template.aux:
            columns.append(family.aux_base[units][:, None] + np.arange(1, template.aux + 1)[None, :])
        variables = np.concatenate(columns, axis=1)
        block = variables[:, template.symbols] * template.signs
        flat[(family.offsets[units] - base)[:, None] + np.arange(template.symbols.size)[None, :]] = block
    return flat


def _pairwise_pieces(family: _Family, unit: int, most: int) -> Iterator[np.ndarray]:
    """One pairwise unit's flat clauses in pieces of about ``most`` literals (whole clauses): the
    at-least-one clause, then (-v_i -v_j) for i < j in row-major order, as its template gives them,
    a block of consecutive i at a time (a wide unit's pairs never all exist at once)."""
    width = int(family.widths[unit])
    start = int(family.starts[unit])
    cells = family.order[start : start + width] + 1  # cell variables are 1-based positions in S
    yield np.concatenate([cells, [0]])
    per_row = width - 1 - np.arange(width, dtype=np.int64)  # pairs (i, j > i) of each i
    ends = np.cumsum(per_row)
    first = 0
    while first < width - 1:
        done = int(ends[first - 1]) if first else 0
        last = max(first + 1, int(np.searchsorted(ends, done + max(1, most // 3), side="right")))
        last = min(last, width - 1)
        counts = per_row[first:last]
        i = np.repeat(np.arange(first, last, dtype=np.int64), counts)
        # j runs i + 1 .. width - 1 within each i: position in the block minus the i's own start
        j = i + 1 + np.arange(i.size, dtype=np.int64) - np.repeat(ends[first:last] - counts - done, counts)
        block = np.zeros((i.size, 3), dtype=np.int64)
        block[:, 0], block[:, 1] = -cells[i], -cells[j]
        yield block.reshape(-1)
        first = last


def _plan(instance: NishioInstance, encoding: AmoEncoding) -> list[_Family]:
    """The three families of the model, auxiliaries numbered on after the |S| cell variables."""
    top = instance.size
    families = []
    units = (instance.rows, instance.cols, instance.boxes)
    for order, unit in zip(_unit_orders(instance), units, strict=True):
        family = _plan_family(encoding, unit[order], order, instance.n, top)
        families.append(family)
        top = family.top
    return families


def _widths(instance: NishioInstance) -> list[np.ndarray]:
    n = instance.n
    return [np.bincount(unit, minlength=n) for unit in (instance.rows, instance.cols, instance.boxes)]


def _literals(k: np.ndarray, encoding: AmoEncoding) -> np.ndarray:
    """Literals and clause-ending zeros per unit of width k (pairwise exact; the others a bound)."""
    k = k.astype(np.float64)
    if encoding is AmoEncoding.PAIRWISE:
        return 1.5 * k * (k - 1) + k + 1
    return 40 * k + 4  # pysat's linear encodings: a few clauses of 2-3 literals per literal


def cnf_memory_estimate(instance: NishioInstance, encoding: AmoEncoding, *, streamed: bool = False) -> int:
    """Bytes the CNF model is estimated to take while built (``streamed``: while written a chunk
    at a time), from the unit widths k_U alone, before anything is built.

    The whole model keeps 8 bytes per literal; the widest unit's template (9 bytes per entry) and
    its block of clauses with numpy's temporaries (about 32 bytes per literal) come on top.  Streamed,
    a pairwise unit wider than a chunk is written a piece at a time: no unit counts above a chunk.
    """
    per_unit = np.concatenate([_literals(k, encoding) for k in _widths(instance)])
    widest = float(per_unit.max()) if per_unit.size else 0.0
    if streamed and encoding is AmoEncoding.PAIRWISE:
        widest = min(widest, float(_CHUNK_LITERALS))
    total = float(per_unit.sum())
    chunk = max(widest, float(min(total, _CHUNK_LITERALS)))
    whole = 0.0 if streamed else 8 * total
    return int(whole + 9 * widest + 32 * chunk) + 64 * instance.size + (16 << 20)


#: Literals written per chunk when a model is streamed (a unit is never split).
_CHUNK_LITERALS = 1 << 22


def _check(instance: NishioInstance, encoding: AmoEncoding, streamed: bool) -> None:
    n = instance.n
    check_memory(
        f"the {encoding.value} CNF of a {n}x{n} Nishio instance with |S| = {instance.size}",
        cnf_memory_estimate(instance, encoding, streamed=streamed),
        "try --amo seqcounter (linear in the cells of S)" if encoding is AmoEncoding.PAIRWISE else "",
    )


def encode_nishio_cnf(
    instance: NishioInstance, encoding: AmoEncoding | str = AmoEncoding.SEQCOUNTER
) -> NishioCnf:
    """The CNF model of a Nishio instance with the given exactly-one encoding (from its cells);
    ``limits.ModelTooLarge`` first when the estimate does not fit in memory."""
    encoding = AmoEncoding(encoding)
    _check(instance, encoding, streamed=False)
    var_cells = np.stack([instance.rows, instance.cols], axis=1).reshape(-1, 2)
    families = _plan(instance, encoding)
    flat = np.concatenate([_family_flat(f, 0, instance.n) for f in families])
    family_clauses = {name: f.clauses for name, f in zip(_FAMILIES, families, strict=True)}
    for array in (var_cells, flat):
        array.setflags(write=False)
    n_clauses = sum(family_clauses.values())
    return NishioCnf(instance, encoding, var_cells, flat, families[-1].top, n_clauses, family_clauses)


def stream_nishio_dimacs(
    instance: NishioInstance,
    encoding: AmoEncoding | str,
    target: str | os.PathLike[str] | IO[str] | IO[bytes],
) -> tuple[int, int]:
    """Write the DIMACS text of the instance's CNF model, made and written a chunk of units at a
    time (the whole clause array never exists); returns (variables, clauses).  Same bytes as
    ``nishio_dimacs_text(encode_nishio_cnf(instance, encoding))``."""
    encoding = AmoEncoding(encoding)
    _check(instance, encoding, streamed=True)
    families = _plan(instance, encoding)
    family_clauses = {name: f.clauses for name, f in zip(_FAMILIES, families, strict=True)}
    n_vars = families[-1].top
    empty = np.zeros(0, dtype=np.int64)
    shell = NishioCnf(
        instance,
        encoding,
        np.stack([instance.rows, instance.cols], axis=1).reshape(-1, 2),
        empty,
        n_vars,
        sum(family_clauses.values()),
        family_clauses,
    )

    def chunks() -> Iterator[np.ndarray]:
        for family in families:
            ends = np.cumsum(family.lengths)
            first = 0
            while first < instance.n:
                start = int(ends[first - 1]) if first else 0
                last = max(first + 1, int(np.searchsorted(ends, start + _CHUNK_LITERALS, side="right")))
                wide = family.lengths[first] > _CHUNK_LITERALS  # then it is alone: last == first + 1
                if wide and encoding is AmoEncoding.PAIRWISE:
                    yield from _pairwise_pieces(family, first, _CHUNK_LITERALS)
                else:
                    yield _family_flat(family, first, min(last, instance.n))
                first = last

    write_flat_dimacs(target, chunks(), n_vars, shell.comments(), n_clauses=shell.n_clauses)
    return n_vars, shell.n_clauses


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
