"""The gadgets of the 3-SAT -> Nishio reduction (Eppstein 2012, Section 6) and the cells they put in S.

The grid is n x n with k x k boxes (n = k*k).  A *band* is a row of boxes (k grid rows), a
*stack* a column of boxes (k grid columns); a block (box) is named by (band, stack).  Every
gadget lies in one band, owns some rows of that band and some blocks of it, and each of its
blocks uses one or two columns of the block's stack.  The specification with a picture is
``encodings/reduction.md``; in short (all indices 0-based):

* ``VariableGadget``: a cycle of M blocks on M rows r_0..r_{M-1}; block i holds the *true cell*
  (r_i, a_i) and the *false cell* (r_{i+1 mod M}, b_i).  Each row and block is used once, so a
  placement takes all true cells or all false cells.  A *linked* block (a_i != b_i) shares both
  its columns with one partner block elsewhere in its stack, which must use the column the
  variable leaves free; an *unlinked* block (a_i == b_i) keeps its column to itself.
* ``ClauseGadget``: a truth row T and conflict rows C_1..C_t; term block j holds (T, truth
  column) and (C_j, a_j), (C_j, b_j), where (a_j, b_j) are the columns of the linked block of
  its variable; the truth column is b_j (free when the variable is true) for a positive literal
  and a_j for a negative one.  The terminal block holds (C_j, terminal column) for every j.
* ``EqualityGadget``: two rows R_1, R_2 and two blocks linked to blocks of two gadgets of the
  same variable (a long variable is cut into pieces that fit a band); its cells (R_1, b1),
  (R_2, a1), (R_1, a2), (R_2, b2) force both pieces to the same value.

``Layout`` collects the gadgets, checks that they are disjoint and consistently linked
(``layout_problems``), and adds the cells outside every gadget row, column and block
(``fill_cells``, dense ``fill_mask``): all of them ("full") or one fixed completion ("minimal",
``completion``).  ``Layout.cells`` gives S as sorted coordinate arrays, O(|S|) memory whatever
the side; ``Layout.mask`` the same set as a dense grid (small grids, and to check ``cells``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ReductionError

__all__ = [
    "FILLS",
    "ClauseGadget",
    "EqualityGadget",
    "Layout",
    "VariableGadget",
    "layout_problems",
]

#: The fill modes: every cell outside the gadgets' rows, columns and blocks, or one completion.
FILLS = ("full", "minimal")

_Cells = np.ndarray  # (m, 2) int64 array of 0-based (row, column)


def _cells(pairs: Sequence[tuple[int, int]]) -> _Cells:
    return np.asarray(pairs, dtype=np.int64).reshape(-1, 2)


@dataclass(frozen=True, slots=True)
class VariableGadget:
    """One piece of a variable: a cycle of blocks in one band (true cells (r_i, a_i), false (r_i+1, b_i))."""

    variable: int
    band: int
    rows: tuple[int, ...]
    true_columns: tuple[int, ...]
    false_columns: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of blocks (= rows) of the cycle."""
        return len(self.rows)

    def false_rows(self) -> tuple[int, ...]:
        """The row of each block's false cell: the next row of the cycle."""
        return self.rows[1:] + self.rows[:1]

    def true_cells(self) -> _Cells:
        """The cells a placement uses when the variable is true."""
        return _cells(list(zip(self.rows, self.true_columns, strict=True)))

    def false_cells(self) -> _Cells:
        """The cells a placement uses when the variable is false."""
        return _cells(list(zip(self.false_rows(), self.false_columns, strict=True)))

    def cells(self) -> _Cells:
        """Every cell of the gadget (unlinked blocks give two cells in one column)."""
        return np.unique(np.concatenate([self.true_cells(), self.false_cells()]), axis=0)

    def blocks(self, k: int) -> list[tuple[int, int]]:
        """(band, stack) of each block."""
        return [(self.band, a // k) for a in self.true_columns]

    def columns_used(self) -> list[tuple[int, ...]]:
        """The columns of each block: (a, b) when linked, (a,) when unlinked."""
        return [
            (a,) if a == b else (a, b) for a, b in zip(self.true_columns, self.false_columns, strict=True)
        ]


@dataclass(frozen=True, slots=True)
class ClauseGadget:
    """A clause: truth row, one conflict row and term block per literal, and a terminal block."""

    clause: int  # 0-based index into the formula's clauses
    band: int
    literals: tuple[int, ...]
    truth_row: int
    conflict_rows: tuple[int, ...]
    term_columns: tuple[tuple[int, int], ...]  # (a, b) of the linked variable block, per literal
    terminal_column: int

    @property
    def size(self) -> int:
        """Number of blocks (= rows): one per literal plus the terminal."""
        return len(self.literals) + 1

    @property
    def rows(self) -> tuple[int, ...]:
        """Truth row, then the conflict rows."""
        return (self.truth_row, *self.conflict_rows)

    def truth_column(self, j: int) -> int:
        """Column of term j's truth cell: the column the variable leaves free when literal j is true."""
        a, b = self.term_columns[j]
        return b if self.literals[j] > 0 else a

    def cells(self) -> _Cells:
        """Every cell of the gadget."""
        pairs: list[tuple[int, int]] = []
        for j, (a, b) in enumerate(self.term_columns):
            c_row = self.conflict_rows[j]
            pairs += [(self.truth_row, self.truth_column(j)), (c_row, a), (c_row, b)]
            pairs.append((c_row, self.terminal_column))
        return _cells(pairs)

    def blocks(self, k: int) -> list[tuple[int, int]]:
        """(band, stack) of each term block, then of the terminal block."""
        stacks = [a // k for a, _ in self.term_columns] + [self.terminal_column // k]
        return [(self.band, s) for s in stacks]


@dataclass(frozen=True, slots=True)
class EqualityGadget:
    """Two blocks linked to blocks of two pieces of one variable, forcing them to equal values."""

    variable: int
    band: int
    rows: tuple[int, int]
    first: tuple[int, int]  # (a, b) of the first piece's linked block
    second: tuple[int, int]

    @property
    def size(self) -> int:
        """Number of blocks (= rows)."""
        return 2

    def cells(self) -> _Cells:
        """(R1, b1), (R2, a1) in the first block; (R1, a2), (R2, b2) in the second."""
        (r1, r2), (a1, b1), (a2, b2) = self.rows, self.first, self.second
        return _cells([(r1, b1), (r2, a1), (r1, a2), (r2, b2)])

    def blocks(self, k: int) -> list[tuple[int, int]]:
        """(band, stack) of the two blocks."""
        return [(self.band, self.first[0] // k), (self.band, self.second[0] // k)]


@dataclass(frozen=True, slots=True)
class Layout:
    """Every gadget of a reduction on the n x n grid with k x k boxes."""

    k: int
    variables: tuple[VariableGadget, ...]
    clauses: tuple[ClauseGadget, ...]
    equalities: tuple[EqualityGadget, ...]

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.k * self.k

    def _gadgets(self) -> list[VariableGadget | ClauseGadget | EqualityGadget]:
        return [*self.variables, *self.clauses, *self.equalities]

    def gadget_cells(self) -> _Cells:
        """All cells of all gadgets, (m, 2)."""
        parts = [g.cells() for g in self._gadgets()]
        return np.concatenate(parts) if parts else _cells([])

    def used(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bool masks of the gadget rows (n,), gadget columns (n,) and gadget blocks (k, k)."""
        n, k = self.n, self.k
        rows = np.zeros(n, dtype=bool)
        cols = np.zeros(n, dtype=bool)
        blocks = np.zeros((k, k), dtype=bool)
        for g in self._gadgets():
            rows[list(g.rows)] = True
            for band, stack in g.blocks(k):
                blocks[band, stack] = True
        for v in self.variables:
            cols[list(v.true_columns)] = True
            cols[list(v.false_columns)] = True
        for c in self.clauses:
            cols[c.terminal_column] = True
        return rows, cols, blocks

    def completion(self) -> np.ndarray:
        """One placement of the non-gadget rows, columns and blocks: column per row, -1 on gadget rows.

        In each band the free rows are matched in order to the free blocks, in each stack the
        free columns to the free blocks; a free block then gets the cell (its row, its column).
        """
        k = self.k
        rows, cols, blocks = self.used()
        free_rows = [np.flatnonzero(~rows[b * k : (b + 1) * k]) + b * k for b in range(k)]
        free_cols = [np.flatnonzero(~cols[s * k : (s + 1) * k]) + s * k for s in range(k)]
        placement = np.full(self.n, -1, dtype=np.int64)
        for b in range(k):
            stacks = np.flatnonzero(~blocks[b])
            if len(stacks) != len(free_rows[b]):
                raise ReductionError(
                    f"band {b + 1} has {len(free_rows[b])} free rows but {len(stacks)} free boxes"
                )
            for row, stack in zip(free_rows[b].tolist(), stacks.tolist(), strict=True):
                s = int(stack)
                # The rank of block (b, s) among the free blocks of stack s picks its column.
                index = int(np.count_nonzero(~blocks[:b, s]))
                if index >= len(free_cols[s]):
                    raise ReductionError(f"stack {s + 1} has fewer free columns than free boxes")
                placement[row] = free_cols[s][index]
        for s in range(k):
            if len(free_cols[s]) != int(np.count_nonzero(~blocks[:, s])):
                raise ReductionError(
                    f"stack {s + 1} has {len(free_cols[s])} free columns but a different number of free boxes"
                )
        return placement

    def fill_mask(self, fill: str) -> np.ndarray:
        """The (n, n) mask of the fill: all cells outside gadget rows, columns, boxes, or one completion."""
        if fill not in FILLS:
            raise ReductionError(f"unknown fill {fill!r}; choose from {', '.join(FILLS)}")
        n, k = self.n, self.k
        rows, cols, blocks = self.used()
        if fill == "full":
            free_blocks = np.repeat(np.repeat(~blocks, k, axis=0), k, axis=1)
            return (~rows)[:, None] & (~cols)[None, :] & free_blocks
        mask = np.zeros((n, n), dtype=bool)
        placement = self.completion()
        free = np.flatnonzero(placement >= 0)
        mask[free, placement[free]] = True
        return mask

    def fill_cells(self, fill: str) -> tuple[np.ndarray, np.ndarray]:
        """The fill as 0-based (rows, columns) arrays, unsorted: ``fill_mask``'s cells, no n x n array."""
        if fill not in FILLS:
            raise ReductionError(f"unknown fill {fill!r}; choose from {', '.join(FILLS)}")
        k = self.k
        rows, cols, blocks = self.used()
        if fill == "minimal":
            placement = self.completion()
            free = np.flatnonzero(placement >= 0)
            return free, placement[free]
        free_rows = np.flatnonzero(~rows)
        free_cols = np.flatnonzero(~cols)
        parts_r, parts_c = [], []
        for band in np.unique(free_rows // k).tolist():
            # In this band: every free row with every free column whose box (band, stack) is free.
            band_rows = free_rows[free_rows // k == band]
            band_cols = free_cols[~blocks[band, free_cols // k]]
            parts_r.append(np.repeat(band_rows, band_cols.size))
            parts_c.append(np.tile(band_cols, band_rows.size))
        if not parts_r:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(parts_r), np.concatenate(parts_c)

    def cells(self, fill: str) -> tuple[np.ndarray, np.ndarray]:
        """The set S as sorted 0-based (rows, columns) arrays: the gadget cells and the fill.

        Memory is O(|S| + n): the sparse twin of ``mask``, which gives the same cells.
        """
        fill_r, fill_c = self.fill_cells(fill)
        gadget = self.gadget_cells()
        n = self.n
        keys = np.unique(np.concatenate([fill_r * n + fill_c, gadget[:, 0] * n + gadget[:, 1]]))
        return keys // n, keys % n

    def witness_cells(self, z: int | None) -> tuple[tuple[int, int], ...]:
        """The cells of variable z's false state, sorted: Theorem 6.2's witness cells (none for None)."""
        if z is None:
            return ()
        cells = [(int(r), int(c)) for v in self.variables if v.variable == z for r, c in v.false_cells()]
        return tuple(sorted(cells))

    def mask(self, fill: str) -> np.ndarray:
        """The set S as an (n, n) bool mask: the gadget cells and the fill (the dense path, for
        small grids and for checking ``cells``)."""
        mask = self.fill_mask(fill)
        cells = self.gadget_cells()
        mask[cells[:, 0], cells[:, 1]] = True
        return mask


def _columns_of(g: VariableGadget | ClauseGadget | EqualityGadget) -> list[int]:
    if isinstance(g, VariableGadget):
        return [*g.true_columns, *g.false_columns]
    if isinstance(g, ClauseGadget):
        return [*(c for pair in g.term_columns for c in pair), g.terminal_column]
    return [*g.first, *g.second]


def _problems_of_gadget(g: VariableGadget | ClauseGadget | EqualityGadget, k: int) -> list[str]:
    n = k * k
    name = _gadget_name(g)
    if isinstance(g, VariableGadget) and not (g.size == len(g.true_columns) == len(g.false_columns) >= 1):
        return [f"{name}: needs as many true and false columns as rows, at least one"]
    if isinstance(g, ClauseGadget) and not (len(g.conflict_rows) == len(g.term_columns) == len(g.literals)):
        return [f"{name}: needs one conflict row and one column pair per literal"]
    if any(not 0 <= x < n for x in [*g.rows, *_columns_of(g)]):
        return [f"{name}: a row or column lies outside the {n}x{n} grid"]
    out = []
    if not 0 <= g.band < k or any(r // k != g.band for r in g.rows):
        out.append(f"{name}: its rows are not all in band {g.band + 1}")
    if len(set(g.rows)) != len(g.rows):
        out.append(f"{name}: uses a row twice")
    stacks = [s for _, s in g.blocks(k)]
    if len(set(stacks)) != len(stacks):
        out.append(f"{name}: two of its blocks are the same box")
    if isinstance(g, VariableGadget):
        if any(a // k != b // k for a, b in zip(g.true_columns, g.false_columns, strict=True)):
            out.append(f"{name}: a block's two columns lie in different stacks")
        elif g.size == 1 and g.true_columns[0] == g.false_columns[0]:
            out.append(f"{name}: a one-block cycle needs two columns")
    elif isinstance(g, ClauseGadget):
        if any(a == b or a // k != b // k for a, b in g.term_columns):
            out.append(f"{name}: a term block needs two columns of one stack")
    elif g.first[0] == g.first[1] or g.second[0] == g.second[1]:
        out.append(f"{name}: each block needs two columns")
    elif g.first[0] // k != g.first[1] // k or g.second[0] // k != g.second[1] // k:
        out.append(f"{name}: a block's two columns lie in different stacks")
    return out


def _gadget_name(g: VariableGadget | ClauseGadget | EqualityGadget) -> str:
    if isinstance(g, VariableGadget):
        return f"variable gadget of x{g.variable} (rows {', '.join(str(r + 1) for r in g.rows)})"
    if isinstance(g, ClauseGadget):
        return f"clause gadget {g.clause + 1}"
    return f"equality gadget of x{g.variable} (rows {g.rows[0] + 1}, {g.rows[1] + 1})"


def layout_problems(layout: Layout, clauses: Sequence[Sequence[int]], num_vars: int) -> list[str]:
    """Why the layout is not a sound reduction of these clauses (empty when it is one).

    Checked: coordinates inside the grid, each gadget inside one band with distinct rows and
    boxes; no two gadgets share a row or a box; each column is used by one unlinked block, or
    by one linked variable block and exactly one partner block on the same two columns; each
    clause of the formula has one gadget with its literals, linked to blocks of its variables;
    the pieces of a variable are joined by equality gadgets; and the free rows, columns and
    boxes can be completed (equal numbers per band and per stack).
    """
    k = layout.k
    if k < 2:
        return [f"box side k must be at least 2, not {k}"]
    problems = [p for g in layout._gadgets() for p in _problems_of_gadget(g, k)]
    named: list[VariableGadget | EqualityGadget] = [*layout.variables, *layout.equalities]
    problems += [
        f"{_gadget_name(g)}: x{g.variable} is not a variable of the formula (1..{num_vars})"
        for g in named
        if not 1 <= g.variable <= num_vars
    ]
    if problems:
        return problems
    row_owner: dict[int, str] = {}
    block_owner: dict[tuple[int, int], str] = {}
    for g in layout._gadgets():
        name = _gadget_name(g)
        for r in g.rows:
            if r in row_owner:
                problems.append(f"row {r + 1} is used by {row_owner[r]} and {name}")
            row_owner[r] = name
        for block in g.blocks(k):
            if block in block_owner:
                problems.append(
                    f"box {block[0] * k + block[1] + 1} is used by {block_owner[block]} and {name}"
                )
            block_owner[block] = name
    # Column links: a linked variable block (a, b) needs exactly one partner on (a, b).
    var_pairs: dict[tuple[int, int], int] = {}
    partners: dict[tuple[int, int], list[int]] = defaultdict(list)
    column_users: dict[int, list[str]] = defaultdict(list)
    for v in layout.variables:
        for a, b in zip(v.true_columns, v.false_columns, strict=True):
            column_users[a].append(_gadget_name(v))
            if a != b:
                column_users[b].append(_gadget_name(v))
                var_pairs[(a, b)] = v.variable
    for c in layout.clauses:
        for (a, b), lit in zip(c.term_columns, c.literals, strict=True):
            partners[(a, b)].append(abs(lit))
            column_users[a].append(_gadget_name(c))
            column_users[b].append(_gadget_name(c))
        column_users[c.terminal_column].append(_gadget_name(c))
    for e in layout.equalities:
        for pair in (e.first, e.second):
            partners[pair].append(e.variable)
            column_users[pair[0]].append(_gadget_name(e))
            column_users[pair[1]].append(_gadget_name(e))
    for pair, variable in var_pairs.items():
        found = partners.get(pair, [])
        if found != [variable]:
            problems.append(
                f"the block of x{variable} on columns {pair[0] + 1}, {pair[1] + 1} needs exactly one "
                f"partner block of x{variable}, found {len(found)}"
            )
    for pair in partners:
        if pair not in var_pairs:
            problems.append(f"columns {pair[0] + 1}, {pair[1] + 1} link no variable block")
    linked_columns = {c for pair in var_pairs for c in pair}
    for column, users in column_users.items():
        if len(users) > 2 or (len(users) == 2 and column not in linked_columns):
            problems.append(f"column {column + 1} is shared by {', '.join(sorted(set(users)))}")
    # The formula: one gadget per clause with its literals.
    by_clause = defaultdict(list)
    for c in layout.clauses:
        by_clause[c.clause].append(c)
    for index, clause in enumerate(clauses):
        found_gadgets = by_clause.get(index, [])
        if len(found_gadgets) != 1 or tuple(found_gadgets[0].literals) != tuple(clause):
            problems.append(f"clause {index + 1} needs exactly one gadget with literals {list(clause)}")
    if set(by_clause) - set(range(len(clauses))):
        problems.append("a clause gadget names a clause the formula does not have")
    problems += _piece_problems(layout)
    if not problems:
        try:
            layout.completion()
        except ValueError as error:  # a ReductionError, or numpy refusing a malformed layout
            problems.append(f"the free rows, columns and boxes cannot be completed: {error}")
    return problems


def _piece_problems(layout: Layout) -> list[str]:
    """The pieces of each variable must form one tree joined by its equality gadgets."""
    piece_of: dict[tuple[int, int], int] = {}
    pieces: dict[int, list[int]] = defaultdict(list)
    for index, v in enumerate(layout.variables):
        pieces[v.variable].append(index)
        for pair in zip(v.true_columns, v.false_columns, strict=True):
            piece_of[pair] = index
    parent = list(range(len(layout.variables)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    problems = []
    for e in layout.equalities:
        ends = [piece_of.get(e.first), piece_of.get(e.second)]
        if None in ends or any(layout.variables[i].variable != e.variable for i in ends if i is not None):
            problems.append(f"{_gadget_name(e)} does not join two pieces of x{e.variable}")
            continue
        a, b = (root(i) for i in ends if i is not None)
        parent[a] = b
    for variable, indices in pieces.items():
        if len({root(i) for i in indices}) != 1:
            problems.append(f"the pieces of x{variable} are not all joined by equality gadgets")
    return problems
