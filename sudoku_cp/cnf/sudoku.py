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

Size first: ``cnf_size`` counts the variables, clauses and literals a model will have (exactly,
from the group widths: the formulas of ``encodings/cnf.md``) and estimates the bytes that
building it takes, before any clause exists.  ``encode_cnf`` refuses a model that cannot fit in
memory (``limits.ModelTooLarge``, naming the estimate and what to try instead), and checks its
deadline between propagation rounds and between chunks of clauses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from functools import cache

import numpy as np

from ..formats import format_line
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, check_memory, format_bytes, memory_budget, sigint_held
from ..propagation import propagate
from .varmap import GridVarMap

__all__ = [
    "AmoEncoding",
    "ClauseFamily",
    "CnfEncoding",
    "CnfSize",
    "SudokuCnf",
    "card_template",
    "cnf_size",
    "encode_cnf",
    "encode_geometry_cnf",
]

_CHUNK_CLAUSES = 1 << 16  # clauses made, or handed to a solver as Python lists, at a time
_ENCODING = "encoding"  # the phase named when the time limit stops the encoder


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


@cache
def card_template(
    encoding: AmoEncoding, width: int, exactly: bool = False
) -> tuple[tuple[tuple[int, ...], ...], int]:
    """At most one (``exactly``: exactly one) over the symbols 1..width as ``pysat.card`` writes it
    in ``encoding``: its clauses, auxiliaries numbered width+1, ..., and how many auxiliaries.

    ``pysat.card`` encodes a constraint the same way whatever its literals, fresh auxiliaries
    numbered on from the pool's top, so every group of this width gets these clauses with its own
    literals and auxiliaries put in.  One call per encoding and width, SIGINT held: pysat.card
    installs a SIGINT handler of its own inside every call, and a Ctrl-C landing there never
    reached Python or jumped out of the C++ encoder.
    """
    from pysat.card import CardEnc, EncType  # imported on use: keeps python-sat out of `import sudoku_cp`
    from pysat.formula import IDPool

    pool = IDPool(start_from=width + 1)
    make = CardEnc.equals if exactly else CardEnc.atmost
    with sigint_held():
        made = make(
            lits=list(range(1, width + 1)), bound=1, vpool=pool, encoding=getattr(EncType, encoding.value)
        )
    return tuple(tuple(clause) for clause in made.clauses), max(pool.top - width, 0)


@cache
def _amo_template(amo: AmoEncoding, width: int) -> tuple[tuple[np.ndarray, ...], int]:
    """One at-most-one over the symbols 1..width, auxiliaries width+1, ...: its clauses as int32
    blocks of equal width (in order of first appearance), and its number of auxiliary variables
    (symbol i stands for a group's i-th literal, auxiliary j for ``aux_start + j``)."""
    if width < 2:
        return (), 0
    if amo is AmoEncoding.PAIRWISE:
        first, second = np.triu_indices(width, 1)
        return (np.stack([-(first + 1), -(second + 1)], axis=1).astype(np.int32),), 0
    clauses, aux = card_template(amo, width)
    blocks = tuple(block for _, block in _blocks_from_lists([list(clause) for clause in clauses]))
    return blocks, aux


def _amo_size(amo: AmoEncoding, width: int) -> tuple[int, int, int]:
    """(clauses, literals, auxiliary variables) of one at-most-one over ``width`` literals."""
    blocks, aux = _amo_template(amo, width)
    return sum(block.shape[0] for block in blocks), sum(block.size for block in blocks), aux


@dataclass(frozen=True, slots=True, eq=False)
class ClausePart:
    """Clauses made on demand from equal-width literal groups (an (m, w) int32 array).

    ``amo`` None: each group is one clause ("at least one").  Otherwise each group gets an
    at-most-one in that encoding, group k's auxiliary variables numbered from
    ``aux_start + k * aux`` on.  Clauses come out a chunk at a time (``chunks``): a dense
    at-most-one never exists as one array.
    """

    groups: np.ndarray
    amo: AmoEncoding | None = None
    aux_start: int = 0

    def _template(self) -> tuple[tuple[np.ndarray, ...], int]:
        if self.amo is None:
            return (), 0
        return _amo_template(self.amo, self.groups.shape[1])

    @property
    def size(self) -> int:
        """Number of clauses."""
        if self.amo is None:
            return int(self.groups.shape[0])
        blocks, _ = self._template()
        return self.groups.shape[0] * sum(block.shape[0] for block in blocks)

    def literals(self) -> int:
        """Number of literal occurrences."""
        if self.amo is None:
            return int(self.groups.size)
        blocks, _ = self._template()
        return self.groups.shape[0] * sum(block.size for block in blocks)

    def aux(self) -> int:
        """Auxiliary variables the part uses (numbered ``aux_start`` on)."""
        return self.groups.shape[0] * self._template()[1]

    def chunks(self, max_clauses: int = _CHUNK_CLAUSES) -> Iterator[np.ndarray]:
        """The clauses as int32 blocks of equal width, at most about ``max_clauses`` each.

        At-most-one clauses come group by group, each group's clauses in template order and by
        width (all groups of a chunk for one width, then the next width).
        """
        groups = self.groups
        if self.amo is None:
            for start in range(0, groups.shape[0], max_clauses):
                yield groups[start : start + max_clauses]
            return
        blocks, aux = self._template()
        per_group = sum(block.shape[0] for block in blocks)
        if not per_group:
            return
        width = groups.shape[1]
        step = max(1, max_clauses // per_group)
        for start in range(0, groups.shape[0], step):
            part = groups[start : start + step]
            base = self.aux_start + (start + np.arange(part.shape[0], dtype=np.int64)) * aux
            for block in blocks:
                yield _instantiate(block, part, base, width)


def _instantiate(template: np.ndarray, groups: np.ndarray, base: np.ndarray, width: int) -> np.ndarray:
    """A template's clauses for each group: symbol i is the group's literal i, width + j its auxiliary
    ``base + j - 1``, signs kept; (groups * template clauses, clause width) int32."""
    magnitude = np.abs(template)
    negative = template < 0
    if int(magnitude.max()) <= width:  # no auxiliary: a gather (pairwise clauses)
        out = groups[:, magnitude - 1]
        np.negative(out, out=out, where=negative)
        return out.reshape(-1, template.shape[1])
    literal = groups[:, np.minimum(magnitude, width) - 1].astype(np.int64)
    auxiliary = base[:, None, None] + (magnitude - width - 1)
    out = np.where(magnitude <= width, literal, auxiliary)
    np.negative(out, out=out, where=negative)
    return out.astype(np.int32).reshape(-1, template.shape[1])


@dataclass(frozen=True, slots=True, eq=False)
class ClauseFamily:
    """One constraint family: parts whose clauses are made on demand, a chunk at a time."""

    name: str
    parts: tuple[ClausePart, ...]

    @property
    def size(self) -> int:
        """Number of clauses."""
        return sum(part.size for part in self.parts)

    def literals(self) -> int:
        """Number of literal occurrences."""
        return sum(part.literals() for part in self.parts)

    @property
    def blocks(self) -> Iterator[np.ndarray]:
        """Every clause, as (m, w) int32 blocks of equal-width clauses made a chunk at a time."""
        for part in self.parts:
            yield from part.chunks()


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
        """Every clause as a list of ints, family by family.

        Lists are made a chunk at a time: they cost about 100 bytes a clause.
        """
        for block in self.blocks():
            yield from block.tolist()

    def blocks(self) -> Iterator[np.ndarray]:
        """Every clause, family by family, as int32 blocks of equal-width clauses made a chunk
        (at most about 65,536 clauses) at a time: what ``write_dimacs`` streams."""
        for family in self.families:
            yield from family.blocks

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


_STREAM_BYTES = 256 << 20  # a chunk of clauses and its DIMACS text, with numpy's temporaries


@dataclass(frozen=True, slots=True)
class CnfSize:
    """The size of a CNF model, known before it is built: variables, clauses, literals.

    ``map_lines``: variables listed in the DIMACS comments (the optimized map); ``table_bytes``:
    the candidate tables and literal groups the encoder keeps whatever the clauses (clauses
    themselves are made from the groups a chunk at a time).
    """

    variables: int
    clauses: int
    literals: int
    map_lines: int = field(default=0)
    table_bytes: int = field(default=0)

    def build_bytes(self) -> int:
        """Bytes to hold every clause at once: tables, int32 literals, chunk buffers."""
        return self.table_bytes + 4 * self.literals + (16 << 20)

    def stream_bytes(self) -> int:
        """Bytes to make the clauses a chunk at a time: tables and one chunk."""
        return self.table_bytes + _STREAM_BYTES

    def write_bytes(self) -> int:
        """Bytes to write it as DIMACS: the map comments made as text first, then a chunk of
        clauses at a time."""
        return self.stream_bytes() + 160 * self.map_lines

    def solver_bytes(self) -> int:
        """Bytes to stream it into a python-sat solver (about 120 bytes a clause there)."""
        return self.stream_bytes() + 120 * self.clauses + 4 * self.literals

    def reader_bytes(self) -> int:
        """The least memory a SAT solver needs to read its DIMACS text: 4 bytes a literal, 8 a clause."""
        return 4 * self.literals + 8 * self.clauses

    def text_bytes(self) -> int:
        """The length of its DIMACS clause lines, about: each literal's digits, sign and space,
        half of them negative, and each clause's final '0' and newline."""
        digits = len(str(max(self.variables, 1)))
        return self.literals * (digits + 1) + self.clauses * 2 + self.literals // 2

    def describe(self) -> str:
        """'12,777 variables, 232,079 clauses, 476,012 literals'."""
        return f"{self.variables:,} variables, {self.clauses:,} clauses, {self.literals:,} literals"


def _group_widths(geometry: Geometry, open_cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Histograms (index: width) of the cell groups and of the (unit, digit) groups of open candidates."""
    p, q, n = geometry.p, geometry.q, geometry.n
    cells = np.count_nonzero(open_cand, axis=1)
    grid = open_cand.reshape(n, n, n)
    units = np.concatenate(
        [
            np.count_nonzero(grid, axis=1).ravel(),  # row, digit
            np.count_nonzero(grid, axis=0).ravel(),  # column, digit
            np.count_nonzero(grid.reshape(q, p, p, q, n), axis=(1, 3)).ravel(),  # box, digit
        ]
    )
    return np.bincount(cells, minlength=n + 1), np.bincount(units, minlength=n + 1)


def _size_from_widths(
    encoding: CnfEncoding,
    amo: AmoEncoding,
    cell_widths: np.ndarray,
    unit_widths: np.ndarray,
    grid_vars: int,
    givens: int,
) -> tuple[int, int, int]:
    """(variables, clauses, literals) of a model whose groups have these width histograms."""
    variables, clauses, literals = grid_vars, 0, 0
    definedness = (True, encoding in (CnfEncoding.EXTENDED, CnfEncoding.OPTIMIZED))
    uniqueness = (encoding is not CnfEncoding.MINIMAL, True)
    for histogram, alo, amo_on in zip((cell_widths, unit_widths), definedness, uniqueness, strict=True):
        for width in np.flatnonzero(histogram[1:]) + 1:
            count = int(histogram[width])
            if alo:
                clauses += count
                literals += count * int(width)
            if amo_on:
                c, lits, aux = _amo_size(amo, int(width))
                clauses += count * c
                literals += count * lits
                variables += count * aux
    return variables, clauses + givens, literals + givens


def cnf_size(
    puzzle: Grid, encoding: CnfEncoding | str, amo: AmoEncoding | str = AmoEncoding.PAIRWISE
) -> CnfSize:
    """The exact size of ``encode_cnf(puzzle, encoding, amo)``, without building it.

    Minimal, efficient and extended follow from the formulas; optimized needs the puzzle's
    propagation first (not time-limited here: ``encode_cnf`` takes a deadline).
    """
    encoding, amo = CnfEncoding(encoding), AmoEncoding(amo)
    if encoding is CnfEncoding.OPTIMIZED:
        state = propagate(puzzle)
        if state.contradiction[0]:
            return CnfSize(0, 1, 0)
        open_cand = state.candidates[0] & (state.values[0] == 0)[:, None]
        return _optimized_size(puzzle.geometry, amo, open_cand)
    return _fixed_size(puzzle, encoding, amo)


def _fixed_size(puzzle: Grid, encoding: CnfEncoding, amo: AmoEncoding) -> CnfSize:
    """Size of a minimal, efficient or extended model: every group has all n candidates."""
    n = puzzle.n
    cells = np.zeros(n + 1, dtype=np.int64)
    cells[n] = n * n
    variables, clauses, literals = _size_from_widths(encoding, amo, cells, 3 * cells, n**3, puzzle.givens)
    return CnfSize(variables, clauses, literals, 0, 48 * n**3)


def _optimized_size(geometry: Geometry, amo: AmoEncoding, open_cand: np.ndarray) -> CnfSize:
    """Size of an optimized model over these open candidates ((n*n, n) bool)."""
    cell_widths, unit_widths = _group_widths(geometry, open_cand)
    grid_vars = int(np.count_nonzero(open_cand))
    cell_widths[0] = unit_widths[0] = 0
    variables, clauses, literals = _size_from_widths(
        CnfEncoding.OPTIMIZED, amo, cell_widths, unit_widths, grid_vars, 0
    )
    return CnfSize(variables, clauses, literals, grid_vars, 16 * geometry.n**3 + 40 * grid_vars)


_DOING = {"build": "building", "write": "writing", "solve": "solving"}


def _need(size: CnfSize, use: str) -> int:
    """Bytes a model of this size needs for ``use`` (writing: also what a solver needs to read it)."""
    if use == "write":
        return max(size.write_bytes(), size.reader_bytes())
    return {"build": size.build_bytes, "solve": size.solver_bytes}[use]()


def _alternatives(puzzle: Grid, encoding: CnfEncoding, amo: AmoEncoding, use: str, budget_bytes: int) -> str:
    """What to try instead of a model too large: optimized, or a linear at-most-one when it fits."""
    tries = []
    if encoding is not CnfEncoding.OPTIMIZED:
        tries.append("--encoding optimized")
    if amo is AmoEncoding.PAIRWISE and (
        encoding is CnfEncoding.OPTIMIZED
        or _need(_fixed_size(puzzle, encoding, AmoEncoding.SEQCOUNTER), use) <= budget_bytes
    ):
        tries.append("--amo seqcounter")
    if not tries:
        return "no CNF model of this grid fits (the exact cover or CP-SAT alldiff model may)"
    return "try " + " or ".join(tries)


def check_cnf_memory(
    puzzle: Grid, encoding: CnfEncoding, amo: AmoEncoding, size: CnfSize, use: str = "build"
) -> None:
    """Refuse (``limits.ModelTooLarge``) a model that cannot fit in memory for ``use`` ('build',
    'write', 'solve'), or with more variables than 32-bit literals hold, naming its size and what
    to try instead."""
    need = _need(size, use)
    budget = memory_budget()
    if need <= budget and size.variables < 2**31:
        return
    grid = f"{puzzle.n}x{puzzle.n}"
    model = f"the {encoding.value} CNF model ({amo.value}, {size.clauses:,} clauses) of this {grid} grid"
    alternative = _alternatives(puzzle, encoding, amo, use, budget)
    if size.variables >= 2**31:
        raise ModelTooLarge(
            f"{model} has {size.variables:,} variables, beyond 32-bit literals; {alternative}"
        )
    if use == "write" and size.reader_bytes() > size.write_bytes():
        # Writing streams in bounded memory; what cannot fit is any solver reading the text.
        raise ModelTooLarge(
            f"writing {model}: a SAT solver reading its DIMACS text (about "
            f"{format_bytes(size.text_bytes())}) would need about {format_bytes(size.reader_bytes())} "
            f"of memory at least, more than the {format_bytes(budget)} available; {alternative}"
        )
    check_memory(f"{_DOING[use]} {model}", need, alternative)


def _blocks_by_width(groups: np.ndarray) -> list[np.ndarray]:
    """Split an (m, k) literal table padded with zeros into blocks of equal width, dropping empty groups."""
    widths = np.count_nonzero(groups, axis=1)
    blocks = []
    for width in np.unique(widths):
        if width == 0:
            continue
        rows = groups[widths == width]
        blocks.append(rows if width == groups.shape[1] else rows[rows != 0].reshape(-1, int(width)))
    return blocks


class _AuxCounter:
    """The next free auxiliary variable, handed out to at-most-one parts in encoding order."""

    def __init__(self, first: int) -> None:
        self.next = first

    def take(self, part: ClausePart) -> ClausePart:
        """``part`` with its auxiliaries numbered from the next free one on."""
        placed = ClausePart(part.groups, part.amo, self.next)
        self.next += placed.aux()
        return placed


def _at_least_one(blocks: list[np.ndarray]) -> tuple[ClausePart, ...]:
    """One clause per group (blocks of equal-width groups)."""
    return tuple(ClausePart(block) for block in blocks)


def _at_most_one(blocks: list[np.ndarray], amo: AmoEncoding, aux: _AuxCounter) -> tuple[ClausePart, ...]:
    """An at-most-one per group of two literals or more, auxiliaries numbered on in order."""
    return tuple(aux.take(ClausePart(block, amo)) for block in blocks if block.shape[1] >= 2)


def _blocks_from_lists(clauses: list[list[int]]) -> list[tuple[int, np.ndarray]]:
    """(width, block) of the clauses of each width, widths in order of first appearance."""
    by_width: dict[int, list[list[int]]] = {}
    for clause in clauses:
        by_width.setdefault(len(clause), []).append(clause)
    return [
        (width, np.array(group, dtype=np.int32).reshape(len(group), width))
        for width, group in by_width.items()
    ]


def _unit_blocks(varmap: GridVarMap, placed: np.ndarray | None) -> list[list[np.ndarray]]:
    """For rows, columns and boxes: the variables of each (unit, digit) group, as int32 blocks of
    groups of equal width (widths increasing; in a block, units in order, then digits; in a group,
    the unit's cells in order).  Groups of the digits ``placed`` in their unit ((3n, n) bool) are left
    out, as are empty ones.

    Made from the variables alone (a sort per kind), never from dense (n*n, n) tables: a big
    grid's model has far fewer candidates than n**3.
    """
    g = varmap.geometry
    n = g.n
    cells, digits = np.nonzero(varmap.index)  # cell-major, digits increasing
    variables = varmap.index[cells, digits].astype(np.int32)  # refused beyond 2**31 - 1 variables
    rows, columns = np.divmod(cells, n)
    box_of = np.empty(n * n, dtype=np.int64)
    place_in_box = np.empty(n * n, dtype=np.int64)
    for box, members in enumerate(g.units[2 * n :]):
        box_of[members] = box
        place_in_box[members] = np.arange(n)
    kinds = ((rows, columns), (columns, rows), (box_of[cells], place_in_box[cells]))
    result = []
    for k, (unit, place) in enumerate(kinds):
        key = unit * n + digits
        if placed is not None:  # a placed digit's group is decided
            keep = ~placed[k * n : (k + 1) * n].reshape(-1)[key]
            key, place, chosen = key[keep], place[keep], variables[keep]
        else:
            chosen = variables
        order = np.lexsort((place, key))
        key, chosen = key[order], chosen[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else key[:0]
        widths = np.diff(np.r_[starts, key.size])
        blocks = []
        for width in np.unique(widths):
            first = starts[widths == width]
            blocks.append(chosen[first[:, None] + np.arange(width)])
        result.append(blocks)
    return result


def _families(
    grid: Grid,
    varmap: GridVarMap,
    encoding: CnfEncoding,
    amo: AmoEncoding,
    aux: _AuxCounter,
    deadline: Deadline | None,
) -> list[ClauseFamily]:
    g = grid.geometry
    n = g.n

    def check() -> None:
        if deadline is not None:
            deadline.check(_ENCODING)

    open_cells = varmap.fixed == 0
    cell_blocks = _blocks_by_width(varmap.index[open_cells].astype(np.int32))  # refused beyond 2**31 - 1
    families = [ClauseFamily("cell definedness", _at_least_one(cell_blocks))]
    check()
    if encoding is not CnfEncoding.MINIMAL:
        families.append(ClauseFamily("cell uniqueness", _at_most_one(cell_blocks, amo, aux)))
    del cell_blocks
    placed = None
    if encoding is CnfEncoding.OPTIMIZED:
        fixed_units = varmap.fixed[g.units]  # (3n, n cells): digits placed before encoding
        rows_u, cols_u = np.nonzero(fixed_units)
        placed = np.zeros((3 * n, n), dtype=bool)
        placed[rows_u, fixed_units[rows_u, cols_u] - 1] = True
    check()
    for kind, blocks in zip(("row", "column", "box"), _unit_blocks(varmap, placed), strict=True):
        check()
        if encoding in (CnfEncoding.EXTENDED, CnfEncoding.OPTIMIZED):
            families.append(ClauseFamily(f"{kind} definedness", _at_least_one(blocks)))
        families.append(ClauseFamily(f"{kind} uniqueness", _at_most_one(blocks, amo, aux)))
    if encoding is not CnfEncoding.OPTIMIZED:
        flat = grid.values.reshape(-1).astype(np.int64)
        given = np.flatnonzero(flat)
        units = varmap.index[given, flat[given] - 1].reshape(-1, 1).astype(np.int32)
        families.append(ClauseFamily("givens", (ClausePart(units),) if units.size else ()))
    return families


def encode_cnf(
    puzzle: Grid,
    encoding: CnfEncoding | str = CnfEncoding.EXTENDED,
    amo: AmoEncoding | str = AmoEncoding.PAIRWISE,
    *,
    deadline: Deadline | None = None,
    use: str = "build",
) -> SudokuCnf:
    """The CNF model of a puzzle in the chosen encoding.

    Its size is known first (``cnf_size``): a model that cannot fit in memory for ``use``
    ('build', 'write' as DIMACS with its comments, or 'solve' with a python-sat solver) is refused
    with ``limits.ModelTooLarge`` before anything is allocated.  ``deadline`` is checked during
    propagation (optimized) and encoding: ``limits.TimeLimitReached`` once it is spent.
    """
    encoding = CnfEncoding(encoding)
    amo = AmoEncoding(amo)
    if use not in _DOING:
        raise ValueError(f"use must be one of {', '.join(_DOING)}, not {use!r}")
    g = puzzle.geometry
    if encoding is CnfEncoding.OPTIMIZED:
        state = propagate(puzzle, deadline=deadline)
        if state.contradiction[0]:
            fixed = np.zeros(g.n * g.n, dtype=np.int16)
            varmap = GridVarMap.compact(g, np.zeros((g.n * g.n, g.n), dtype=bool), fixed)
            nothing = ClausePart(np.zeros((1, 0), dtype=np.int32))
            empty = ClauseFamily("contradiction found by propagation", (nothing,))
            return SudokuCnf(puzzle, encoding, amo, varmap, 0, (empty,), True)
        size = _optimized_size(g, amo, state.candidates[0] & (state.values[0] == 0)[:, None])
    else:
        size = _fixed_size(puzzle, encoding, amo)
    check_cnf_memory(puzzle, encoding, amo, size, use)
    if deadline is not None:
        deadline.check(_ENCODING)
    if encoding is CnfEncoding.OPTIMIZED:
        varmap = GridVarMap.compact(g, state.candidates[0], state.values[0])
    else:
        varmap = GridVarMap.full(g)
    aux = _AuxCounter(varmap.n_grid_vars + 1)
    families = _families(puzzle, varmap, encoding, amo, aux, deadline)
    n_vars = aux.next - 1
    return SudokuCnf(puzzle, encoding, amo, varmap, n_vars, tuple(families), False)


def encode_geometry_cnf(puzzle_or_empty: Grid, amo: AmoEncoding | str = AmoEncoding.PAIRWISE) -> SudokuCnf:
    """The extended encoding of the empty grid of a geometry, for incremental solving with assumptions."""
    return encode_cnf(Grid.empty(puzzle_or_empty.geometry), CnfEncoding.EXTENDED, amo)
