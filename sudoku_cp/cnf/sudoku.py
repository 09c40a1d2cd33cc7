"""CNF encodings of whole puzzles (specified in ``encodings/cnf.md``).

Constraint families, over x(r, c, d) = "cell (r, c) holds digit d":

====================  =================================  ========  =========  ========  =========
family                meaning                            minimal   efficient  extended  optimized
====================  =================================  ========  =========  ========  =========
cell definedness      each cell holds at least one digit    x         x          x        x
cell uniqueness       each cell holds at most one digit               x          x        x
unit definedness      each digit at least once per unit                          x        x
unit uniqueness       each digit at most once per unit      x         x          x        x
givens                one unit clause per given             x         x          x
====================  =================================  ========  =========  ========  =========

Minimal, efficient and extended are those of Lynce & Ouaknine, "Sudoku as a SAT problem"
(AIMATH 2006), over all n**3 variables.  Optimized follows Kwon & Jain, "Optimized CNF encoding
for Sudoku puzzles" (LPAR 2006): givens and what singles propagation derives from them are
decided before encoding, and only the remaining candidates of open cells get variables.

"At most one" is encoded by ``AmoEncoding``: pairwise clauses (vectorized here) or any
encoding of ``pysat.card`` with auxiliary variables drawn from one ``IDPool``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

from ..formats import format_line
from ..grid import Grid
from ..propagation import propagate
from .varmap import GridVarMap

if TYPE_CHECKING:
    from pysat.formula import IDPool

__all__ = ["AmoEncoding", "CnfEncoding", "ClauseFamily", "SudokuCnf", "encode_cnf", "encode_geometry_cnf"]


class CnfEncoding(Enum):
    """Which constraint families a CNF model holds (see the module table)."""

    MINIMAL = "minimal"
    EFFICIENT = "efficient"
    EXTENDED = "extended"
    OPTIMIZED = "optimized"


class AmoEncoding(Enum):
    """How 'at most one' is written: pairwise clauses or a pysat.card encoding."""

    PAIRWISE = "pairwise"
    SEQCOUNTER = "seqcounter"
    LADDER = "ladder"
    BITWISE = "bitwise"
    TOTALIZER = "totalizer"
    SORTNETWRK = "sortnetwrk"
    CARDNETWRK = "cardnetwrk"
    MTOTALIZER = "mtotalizer"
    KMTOTALIZER = "kmtotalizer"


@dataclass(frozen=True, slots=True)
class ClauseFamily:
    """One constraint family: blocks of equal-width clauses (each block an (m, w) int array)."""

    name: str
    blocks: tuple[np.ndarray, ...]

    @property
    def size(self) -> int:
        """Number of clauses."""
        return sum(block.shape[0] for block in self.blocks)

    def literals(self) -> int:
        """Number of literal occurrences."""
        return sum(block.size for block in self.blocks)


@dataclass(frozen=True, slots=True, eq=False)
class SudokuCnf:
    """A CNF model of a puzzle: families of clauses, the number of variables, and the variable map."""

    puzzle: Grid
    encoding: CnfEncoding
    amo: AmoEncoding
    varmap: GridVarMap
    n_vars: int
    families: tuple[ClauseFamily, ...]
    contradiction: bool = False

    @property
    def n_clauses(self) -> int:
        """Number of clauses."""
        return sum(family.size for family in self.families)

    def clauses(self) -> Iterator[list[int]]:
        """Every clause as a list of ints, family by family."""
        for family in self.families:
            for block in family.blocks:
                yield from block.tolist()

    def sizes(self) -> dict[str, int]:
        """Variables, clauses and literals in all, and clauses per family."""
        result = {"variables": self.n_vars, "clauses": self.n_clauses}
        result["literals"] = sum(family.literals() for family in self.families)
        result.update({family.name: family.size for family in self.families})
        return result

    def comments(self) -> list[str]:
        """DIMACS header comments: geometry, encoding, variable rule, family sizes, map."""
        g = self.puzzle.geometry
        lines = [
            "sudoku_cp CNF model",
            f"n {g.n} p {g.p} q {g.q} box {g.box_label}",
            f"encoding {self.encoding.value} amo {self.amo.value}",
        ]
        if self.encoding is CnfEncoding.OPTIMIZED:
            lines.append(
                "variables: compact numbering of open candidates; map lines 'x <var> <row> <col> <digit>'"
            )
            lines.append("fixed " + format_line(self.puzzle.with_values(self.varmap.fixed)))
        else:
            lines.append("variables: x(row, col, digit) = (row-1)*n*n + (col-1)*n + digit, 1-based")
        if self.n_vars > self.varmap.n_grid_vars:
            lines.append(f"auxiliary variables {self.varmap.n_grid_vars + 1}..{self.n_vars}")
        lines.extend(f"family {family.name} {family.size}" for family in self.families)
        if self.encoding is CnfEncoding.OPTIMIZED:
            lines.extend(self.varmap.comment_lines())
        return lines


def _blocks_by_width(groups: np.ndarray) -> list[np.ndarray]:
    """Split an (m, k) literal table padded with zeros into blocks of equal width, dropping empty groups."""
    widths = (groups != 0).sum(axis=1)
    blocks = []
    for width in np.unique(widths):
        if width == 0:
            continue
        rows = groups[widths == width]
        blocks.append(rows[rows != 0].reshape(-1, int(width)))
    return blocks


def _at_least_one(groups: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(block.astype(np.int32) for block in _blocks_by_width(groups))


def _at_most_one(groups: np.ndarray, amo: AmoEncoding, pool: IDPool) -> tuple[np.ndarray, ...]:
    blocks = []
    for block in _blocks_by_width(groups):
        width = block.shape[1]
        if width < 2:
            continue
        if amo is AmoEncoding.PAIRWISE:
            i, j = np.triu_indices(width, 1)
            blocks.append(np.stack([-block[:, i], -block[:, j]], axis=2).reshape(-1, 2).astype(np.int32))
            continue
        from pysat.card import CardEnc, EncType  # imported on use: keeps python-sat out of `import sudoku_cp`

        kind = getattr(EncType, amo.value)
        clauses: list[list[int]] = []
        for row in block.tolist():
            clauses.extend(CardEnc.atmost(lits=row, bound=1, vpool=pool, encoding=kind).clauses)
        blocks.extend(_blocks_from_lists(clauses))
    return tuple(blocks)


def _blocks_from_lists(clauses: list[list[int]]) -> list[np.ndarray]:
    by_width: dict[int, list[list[int]]] = {}
    for clause in clauses:
        by_width.setdefault(len(clause), []).append(clause)
    return [np.array(group, dtype=np.int32).reshape(len(group), width) for width, group in by_width.items()]


def _families(
    grid: Grid, varmap: GridVarMap, encoding: CnfEncoding, amo: AmoEncoding, pool: IDPool
) -> list[ClauseFamily]:
    g = grid.geometry
    n = g.n
    open_cells = varmap.fixed == 0
    cell_groups = varmap.index[open_cells]  # (open, n)
    unit_groups = varmap.index[g.units].transpose(0, 2, 1)  # (3n, n digits, n cells)
    if encoding is CnfEncoding.OPTIMIZED:
        placed = np.zeros((3 * n, n), dtype=bool)
        fixed_units = varmap.fixed[g.units]
        rows_u, cols_u = np.nonzero(fixed_units)
        placed[rows_u, fixed_units[rows_u, cols_u] - 1] = True
        unit_groups = unit_groups.copy()
        unit_groups[placed] = 0
    kinds = ("row", "column", "box")
    families = [ClauseFamily("cell definedness", _at_least_one(cell_groups))]
    if encoding is not CnfEncoding.MINIMAL:
        families.append(ClauseFamily("cell uniqueness", _at_most_one(cell_groups, amo, pool)))
    for k, kind in enumerate(kinds):
        groups = unit_groups[k * n : (k + 1) * n].reshape(n * n, n)
        if encoding in (CnfEncoding.EXTENDED, CnfEncoding.OPTIMIZED):
            families.append(ClauseFamily(f"{kind} definedness", _at_least_one(groups)))
        families.append(ClauseFamily(f"{kind} uniqueness", _at_most_one(groups, amo, pool)))
    if encoding is not CnfEncoding.OPTIMIZED:
        flat = grid.values.reshape(-1).astype(np.int64)
        given = np.flatnonzero(flat)
        units = varmap.index[given, flat[given] - 1].reshape(-1, 1).astype(np.int32)
        families.append(ClauseFamily("givens", (units,) if units.size else ()))
    return families


def encode_cnf(
    puzzle: Grid,
    encoding: CnfEncoding | str = CnfEncoding.EXTENDED,
    amo: AmoEncoding | str = AmoEncoding.PAIRWISE,
) -> SudokuCnf:
    """The CNF model of a puzzle in the chosen encoding."""
    encoding = CnfEncoding(encoding)
    amo = AmoEncoding(amo)
    g = puzzle.geometry
    contradiction = False
    if encoding is CnfEncoding.OPTIMIZED:
        state = propagate(puzzle)
        contradiction = bool(state.contradiction[0])
        if contradiction:
            fixed = np.zeros(g.n * g.n, dtype=np.int16)
            varmap = GridVarMap.compact(g, np.zeros((g.n * g.n, g.n), dtype=bool), fixed)
        else:
            varmap = GridVarMap.compact(g, state.candidates[0], state.values[0])
    else:
        varmap = GridVarMap.full(g)
    from pysat.formula import IDPool

    pool = IDPool(start_from=varmap.n_grid_vars + 1)
    if contradiction:
        families = [ClauseFamily("contradiction found by propagation", (np.zeros((1, 0), dtype=np.int32),))]
    else:
        families = _families(puzzle, varmap, encoding, amo, pool)
    n_vars = max(varmap.n_grid_vars, pool.top)
    return SudokuCnf(puzzle, encoding, amo, varmap, n_vars, tuple(families), contradiction)


def encode_geometry_cnf(puzzle_or_empty: Grid, amo: AmoEncoding | str = AmoEncoding.PAIRWISE) -> SudokuCnf:
    """The extended encoding of the empty grid of a geometry, for incremental solving with assumptions."""
    return encode_cnf(Grid.empty(puzzle_or_empty.geometry), CnfEncoding.EXTENDED, amo)
