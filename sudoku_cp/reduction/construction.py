"""The 3-SAT -> Nishio reduction of Eppstein 2012, Section 6 (Theorems 6.1 and 6.2), made executable.

``reduce_formula`` turns a CNF formula into a Nishio instance S on an n x n grid with k x k
boxes (n = k*k) such that S holds a valid placement iff the formula is satisfiable; the gadgets
are those of ``gadgets`` and the full specification is ``encodings/reduction.md``.

Packing (how the gadgets find their bands, stacks, rows and columns), for a given k:

1. a variable with m occurrences becomes a cycle of m blocks (two unlinked blocks for a
   variable with none, which only the Theorem 6.2 variable z can be); when m > k it is cut into
   a chain of pieces of at most k blocks, consecutive pieces joined by an equality gadget;
2. variable pieces go into *variable bands*, clause and equality gadgets into *clause bands*,
   each by first-fit decreasing with capacity k blocks (a gadget uses as many rows as blocks);
3. every link (a variable block and its partner term or equality block) must use one stack in
   two bands, and two blocks of one band must use different stacks: this is a proper edge
   colouring with k colours of the bipartite multigraph variable bands x clause bands, whose
   degrees are at most k, so it always exists (Koenig) and is found with alternating paths;
4. rows are dealt out in each band and columns in each stack, two per link and one per
   unlinked block.

When the two kinds of bands do not fit in k bands, a *mixed* packing puts any gadget in any band
that holds nothing it links to; its link multigraph is not bipartite and the same colouring may
give up.  k starts at the smallest value whose k*k boxes hold every gadget block and goes up
until a packing fits.  Theorem 6.2 (``nonempty=True``): z is added to every clause and each
resulting 4-clause (a b c z) is split into (a b y) (-y c z) with a fresh y.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..geometry import geometry_for_size
from ..nishio.instance import NishioInstance
from .formula import Formula, to_3sat
from .gadgets import FILLS, ClauseGadget, EqualityGadget, Layout, VariableGadget, layout_problems

__all__ = [
    "MAX_BOX_SIDE",
    "Reduction",
    "build_layout",
    "reduce_formula",
    "with_witness_variable",
]

#: The largest box side k (n = k*k = 4096): a grid's geometry tables grow like n^2 and beyond.
MAX_BOX_SIDE = 64

_METADATA_FORMAT = "sudoku-cp reduction"
_METADATA_VERSION = 1


def with_witness_variable(formula: Formula) -> tuple[Formula, int]:
    """Theorem 6.2: z added to every clause, (a b c z) split into (a b y) (-y c z); returns (formula, z).

    The result is satisfied by z = True (with every y True), and has a model with z = False iff
    the input has a model.  The input must be 3-SAT (clauses of at most 3 literals).
    """
    z = formula.num_vars + 1
    next_var = z + 1
    clauses: list[tuple[int, ...]] = []
    for index, clause in enumerate(formula.clauses, start=1):
        if len(clause) > 3:
            raise ValueError(f"clause {index} has {len(clause)} literals; split the formula to 3-SAT first")
        if len(clause) < 3:
            clauses.append((*clause, z))
        else:
            y = next_var
            next_var += 1
            clauses += [(clause[0], clause[1], y), (-y, clause[2], z)]
    return Formula(next_var - 1, tuple(clauses)), z


# ---------------------------------------------------------------- packing

_TERM, _EQUALITY, _FREE = "term", "equality", "free"
#: Packing strategies tried for each k: 0 = whole variables by first-fit decreasing; m >= 2 = next
#: fit, cutting a variable at a band's end when at least m blocks are left there; _MIXED and
#: _MIXED_CUT = any gadget in any band (``_plan_mixed`` with whole variables first, or all cut to
#: fill): links are no longer bipartite, so the colouring may give up; tried last.
_MIXED, _MIXED_CUT = -1, -2
_STRATEGIES = (0, 2, 3, 4, _MIXED, _MIXED_CUT)


@dataclass(slots=True)
class _Piece:
    """A variable piece before placement: its blocks' links in cycle order."""

    variable: int
    slots: list[tuple[str, int, int]]  # (_TERM, clause, position) | (_EQUALITY, gadget, side) | (_FREE, 0, 0)
    band: int = -1


@dataclass(slots=True)
class _Item:
    """A clause or equality gadget before placement."""

    kind: str  # _TERM for a clause gadget, _EQUALITY for an equality gadget
    index: int
    size: int
    band: int = -1


def _occurrences(formula: Formula, always: Sequence[int]) -> dict[int, list[tuple[str, int, int]]]:
    """The term slots of each variable in clause order (empty for an ``always`` variable in no clause)."""
    occurrences: dict[int, list[tuple[str, int, int]]] = {}
    for index, clause in enumerate(formula.clauses):
        for position, lit in enumerate(clause):
            occurrences.setdefault(abs(lit), []).append((_TERM, index, position))
    for v in always:
        occurrences.setdefault(v, [])
    return dict(sorted(occurrences.items()))


def _chain(
    variable: int, occ: list[tuple[str, int, int]], rooms: list[int], equalities: list[int]
) -> list[_Piece] | None:
    """Cut a variable's slots into pieces of the given sizes (the last may be smaller), chained."""
    pieces = []
    rest = occ
    incoming: int | None = None
    for room in rooms:
        room -= incoming is not None
        if len(rest) <= room:
            take, outgoing = rest, None
        elif room >= 2:
            take, outgoing = rest[: room - 1], len(equalities)
            equalities.append(variable)
        else:
            return None
        slots = [] if incoming is None else [(_EQUALITY, incoming, 1)]
        slots += take
        if outgoing is not None:
            slots.append((_EQUALITY, outgoing, 0))
        pieces.append(_Piece(variable, slots))
        rest = rest[len(take) :]
        incoming = outgoing
        if not rest:
            return pieces
    return None


def _pack_whole(formula: Formula, k: int, always: Sequence[int]) -> tuple[list[_Piece], list[int]] | None:
    """Pieces by first-fit decreasing: a variable is cut only when it has more than k occurrences."""
    pieces: list[_Piece] = []
    equalities: list[int] = []
    for v, occ in _occurrences(formula, always).items():
        if not occ:
            pieces.append(_Piece(v, [(_FREE, 0, 0), (_FREE, 0, 0)]))
            continue
        chain = _chain(v, occ, [k] * len(occ), equalities)
        if chain is None:
            return None
        pieces += chain
    bins = _first_fit_decreasing([len(p.slots) for p in pieces], k)
    for piece, b in zip(pieces, bins, strict=True):
        piece.band = b
    return pieces, equalities


def _pack_cut(
    formula: Formula, k: int, always: Sequence[int], min_cut: int
) -> tuple[list[_Piece], list[int]] | None:
    """Pieces by next fit, cutting a variable at the end of a band when at least ``min_cut`` blocks are left.

    A cut costs two variable blocks (one in each piece) and an equality gadget (two blocks) in a
    clause band, where the slack of bands holding 4-block clauses often has room for it.
    """
    pieces: list[_Piece] = []
    equalities: list[int] = []
    band, room = 0, k
    by_size = sorted(_occurrences(formula, always).items(), key=lambda item: -len(item[1]))
    for v, occ in by_size:
        size = max(len(occ), 2)
        if size > room and (room < min_cut or not occ):
            band, room = band + 1, k
        if not occ:
            pieces.append(_Piece(v, [(_FREE, 0, 0), (_FREE, 0, 0)], band))
            room -= 2
            continue
        rooms = [room] + [k] * len(occ)
        chain = _chain(v, occ, rooms, equalities)
        if chain is None:
            return None
        pieces += chain
        for piece in chain:
            piece.band = band
            room -= len(piece.slots)
            if room == 0 or piece is not chain[-1]:
                band, room = band + 1, k
    return pieces, equalities


def _first_fit_decreasing(sizes: Sequence[int], capacity: int) -> list[int]:
    """Bin of each item (first-fit decreasing); bins are numbered in order of opening."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    room: list[int] = []
    bins = [-1] * len(sizes)
    for i in order:
        for b, left in enumerate(room):
            if left >= sizes[i]:
                bins[i] = b
                room[b] -= sizes[i]
                break
        else:
            bins[i] = len(room)
            room.append(capacity - sizes[i])
    return bins


def _edge_colouring(ends: Sequence[tuple[int, int]], vertices: int, colours: int) -> list[int] | None:
    """A proper edge colouring with ``colours`` colours of a loopless multigraph, or None when not found.

    Each edge takes a colour missing at both ends, after swapping two colours on an alternating
    path when needed.  On a bipartite multigraph of maximum degree <= colours this always
    succeeds (the path from one end never reaches the other); otherwise it may give up.
    """
    at: list[dict[int, int]] = [{} for _ in range(vertices)]
    colour = [-1] * len(ends)

    def missing(x: int) -> list[int]:
        return [c for c in range(colours) if c not in at[x]]

    def other(e: int, x: int) -> int:
        u, v = ends[e]
        return v if x == u else u

    def alternating_path(start: int, first: int, second: int) -> tuple[list[int], int]:
        path, x, c = [], start, first
        while c in at[x]:
            f = at[x][c]
            path.append(f)
            x = other(f, x)
            c = second if c == first else first
        return path, x

    for e, (u, v) in enumerate(ends):
        free_u, free_v = missing(u), missing(v)
        if not free_u or not free_v:
            return None
        common = set(free_u) & set(free_v)
        if common:
            alpha = min(common)
        else:
            for alpha, beta in ((a, b) for a in free_u for b in free_v):
                path, end = alternating_path(v, alpha, beta)
                if end != u:  # swapping alpha and beta on the path frees alpha at v, keeps it free at u
                    break
            else:
                return None
            for f in path:
                for y in ends[f]:
                    del at[y][colour[f]]
            for f in path:
                colour[f] = beta if colour[f] == alpha else alpha
                for y in ends[f]:
                    at[y][colour[f]] = f
        colour[e] = alpha
        at[u][alpha] = e
        at[v][alpha] = e
    return colour


def _bands_apart(pieces: list[_Piece], items: list[_Item], k: int) -> bool:
    """Variable pieces in the first bands, clause and equality gadgets after them (bipartite links)."""
    clause_bins = _first_fit_decreasing([item.size for item in items], k)
    var_bands = max((p.band for p in pieces), default=-1) + 1
    if var_bands + max(clause_bins, default=-1) + 1 > k:
        return False
    for item, b in zip(items, clause_bins, strict=True):
        item.band = var_bands + b
    return True


def _plan_mixed(
    formula: Formula, k: int, always: Sequence[int], whole: bool
) -> tuple[list[_Piece], list[int], list[_Item]] | None:
    """Pieces, equality variables and gadgets with bands, every band open to every kind of gadget.

    Clause gadgets first (first-fit decreasing), then (with ``whole``) whole variables where they
    fit beside no clause they link to, then the remaining variables cut to fill the largest rooms
    left, and last the equality gadgets, each in a band apart from both pieces it joins.
    """
    items = [_Item(_TERM, i, len(c) + 1) for i, c in enumerate(formula.clauses)]
    bins = _first_fit_decreasing([item.size for item in items], k)
    if any(item.size > k for item in items) or max(bins, default=0) >= k:
        return None
    room = [k] * k
    for item, b in zip(items, bins, strict=True):
        item.band = b
        room[b] -= item.size
    pieces: list[_Piece] = []
    equality_vars: list[int] = []
    leftovers = []
    by_size = sorted(_occurrences(formula, always).items(), key=lambda item: (-max(len(item[1]), 2), item[0]))
    for v, occ in by_size:
        slots = occ or [(_FREE, 0, 0), (_FREE, 0, 0)]
        beside = {items[clause].band for _, clause, _ in occ}
        fits = (b for b in range(k) if room[b] >= len(slots) and b not in beside)
        band = next(fits, None) if whole or not occ else None
        if band is not None:
            pieces.append(_Piece(v, slots, band))
            room[band] -= len(slots)
        elif occ:
            leftovers.append((v, occ))
        else:
            return None
    for v, occ in leftovers:
        rest = list(occ)
        incoming: int | None = None
        while rest:
            linked = incoming is not None
            # The tightest band that takes the rest whole, else a cut in the band with most room.
            whole_fits = [
                b
                for b in range(k)
                if len(rest) + linked <= room[b] and all(items[c].band != b for _, c, _ in rest)
            ]
            if whole_fits:
                b = min(whole_fits, key=lambda b: (room[b], b))
                take, cut = rest, False
            else:
                cuts = [
                    b
                    for b in range(k)
                    if room[b] - linked >= 2 and any(items[c].band != b for _, c, _ in rest)
                ]
                if not cuts:
                    return None
                b = max(cuts, key=lambda b: (room[b], -b))
                take = [slot for slot in rest if items[slot[1]].band != b][: room[b] - linked - 1]
                cut = True
            outgoing = len(equality_vars) if cut else None
            if cut:
                equality_vars.append(v)
            slots = [(_EQUALITY, incoming, 1)] if incoming is not None else []
            slots += take
            if outgoing is not None:
                slots.append((_EQUALITY, outgoing, 0))
            pieces.append(_Piece(v, slots, b))
            room[b] -= len(slots)
            taken = set(take)
            rest = [slot for slot in rest if slot not in taken]
            incoming = outgoing
    piece_bands: dict[int, set[int]] = {e: set() for e in range(len(equality_vars))}
    for piece in pieces:
        for kind, index, _ in piece.slots:
            if kind == _EQUALITY:
                piece_bands[index].add(piece.band)
    for e in range(len(equality_vars)):
        band = next((b for b in range(k) if room[b] >= 2 and b not in piece_bands[e]), None)
        if band is None:
            return None
        items.append(_Item(_EQUALITY, e, 2, band))
        room[band] -= 2
    return pieces, equality_vars, items


def _try_layout(formula: Formula, k: int, always: Sequence[int], strategy: int) -> Layout | None:
    """The layout for box side k by one packing strategy, or None when the gadgets do not fit."""
    if strategy in (_MIXED, _MIXED_CUT):
        mixed = _plan_mixed(formula, k, always, whole=strategy == _MIXED)
        if mixed is None:
            return None
        pieces, equality_vars, items = mixed
    else:
        planned = (
            _pack_whole(formula, k, always) if strategy == 0 else _pack_cut(formula, k, always, strategy)
        )
        if planned is None:
            return None
        pieces, equality_vars = planned
        items = [_Item(_TERM, i, len(c) + 1) for i, c in enumerate(formula.clauses)]
        items += [_Item(_EQUALITY, e, 2) for e in range(len(equality_vars))]
        if any(item.size > k for item in items) or not _bands_apart(pieces, items, k):
            return None
    clause_item = {(item.kind, item.index): item for item in items}

    # Links: a variable block (piece, slot) and its partner block in a clause band.
    links: list[tuple[int, int]] = []
    ends: list[tuple[int, int]] = []
    for p, piece in enumerate(pieces):
        for s, (kind, index, _) in enumerate(piece.slots):
            if kind != _FREE:
                links.append((p, s))
                ends.append((piece.band, clause_item[(kind, index)].band))
    colouring = _edge_colouring(ends, k, k)
    if colouring is None:
        return None
    stack_of_link = colouring

    used_stacks: list[set[int]] = [set() for _ in range(k)]
    for (u, v), s in zip(ends, stack_of_link, strict=True):
        used_stacks[u].add(s)
        used_stacks[v].add(s)

    def free_stack(band: int) -> int:
        s = next(s for s in range(k) if s not in used_stacks[band])
        used_stacks[band].add(s)
        return s

    next_column = [s * k for s in range(k)]

    def take_columns(stack: int, count: int) -> list[int]:
        first = next_column[stack]
        next_column[stack] += count
        return list(range(first, first + count))

    next_row = [b * k for b in range(k)]

    def take_rows(band: int, count: int) -> list[int]:
        first = next_row[band]
        next_row[band] += count
        return list(range(first, first + count))

    # Columns of each linked variable block: (a, b) = (true column, false column).
    pair: dict[tuple[int, int], tuple[int, int]] = {}
    for (p, s), stack in zip(links, stack_of_link, strict=True):
        a, b = take_columns(stack, 2)
        pair[(p, s)] = (a, b)
    partner_pair: dict[tuple[str, int, int], tuple[int, int]] = {}
    variables = []
    for p, piece in enumerate(pieces):
        true_cols, false_cols = [], []
        for s, slot in enumerate(piece.slots):
            if slot[0] == _FREE:
                (a,) = take_columns(free_stack(piece.band), 1)
                true_cols.append(a)
                false_cols.append(a)
            else:
                a, b = pair[(p, s)]
                partner_pair[slot] = (a, b)
                true_cols.append(a)
                false_cols.append(b)
        rows = take_rows(piece.band, len(piece.slots))
        variables.append(
            VariableGadget(piece.variable, piece.band, tuple(rows), tuple(true_cols), tuple(false_cols))
        )
    clauses, equalities = [], []
    for item in items:
        rows = take_rows(item.band, item.size)
        if item.kind == _TERM:
            literals = formula.clauses[item.index]
            (terminal,) = take_columns(free_stack(item.band), 1)
            term_columns = tuple(partner_pair[(_TERM, item.index, j)] for j in range(len(literals)))
            clauses.append(
                ClauseGadget(
                    item.index, item.band, literals, rows[0], tuple(rows[1:]), term_columns, terminal
                )
            )
        else:
            first, second = partner_pair[(_EQUALITY, item.index, 0)], partner_pair[(_EQUALITY, item.index, 1)]
            variable = equality_vars[item.index]
            equalities.append(EqualityGadget(variable, item.band, (rows[0], rows[1]), first, second))
    clauses.sort(key=lambda c: c.clause)
    return Layout(k, tuple(variables), tuple(clauses), tuple(equalities))


def build_layout(formula: Formula, *, always: Sequence[int] = ()) -> Layout:
    """The most compact layout the packing finds for a formula with clauses of at most 3 literals.

    ``always`` names variables that get a gadget even without occurrences (z of Theorem 6.2).
    """
    if formula.max_clause_length > 3:
        raise ValueError("the gadgets need clauses of at most 3 literals; split the formula to 3-SAT first")
    counts = np.zeros(formula.num_vars + 1, dtype=np.int64)
    for clause in formula.clauses:
        counts[[abs(lit) for lit in clause]] += 1
    counts[list(always)] = np.maximum(counts[list(always)], 2)
    blocks = int(counts.sum()) + sum(len(c) + 1 for c in formula.clauses)
    k = max(2, math.isqrt(max(blocks - 1, 0)) + 1, formula.max_clause_length + 1)
    while k <= MAX_BOX_SIDE:
        for strategy in _STRATEGIES:
            layout = _try_layout(formula, k, always, strategy)
            if layout is not None:
                return layout
        k += 1
    raise ValueError(
        f"the formula needs {blocks} gadget boxes, more than a grid with {MAX_BOX_SIDE}x{MAX_BOX_SIDE} "
        f"boxes (n = {MAX_BOX_SIDE**2}) holds; sudoku_cp builds no larger reduction"
    )


# ---------------------------------------------------------------- the reduction


@dataclass(frozen=True)
class Reduction:
    """A formula, the Nishio instance it reduces to, and where each gadget lies.

    ``formula`` is the 3-SAT formula actually encoded (with z and the split variables when
    ``nonempty``); ``source_vars`` the number of variables of the formula given, whose values
    are the first of any assignment of ``formula``; ``witness_variable`` is z (Theorem 6.2) and
    ``witness_cells`` the 0-based cells of z's false state: they lie in S' iff the formula given
    is satisfiable, while S always holds a placement.
    """

    formula: Formula
    instance: NishioInstance
    k: int
    nonempty: bool
    witness_cells: tuple[tuple[int, int], ...]
    layout: Layout = field(repr=False)
    fill: str = "full"
    source_vars: int = 0
    witness_variable: int | None = None

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.k * self.k

    def metadata(self) -> dict[str, Any]:
        """A JSON-ready description (1-based rows, columns, cells): enough to decode without rebuilding."""
        layout = self.layout

        def one(values: Sequence[int]) -> list[int]:
            return [int(v) + 1 for v in values]

        return {
            "format": _METADATA_FORMAT,
            "version": _METADATA_VERSION,
            "k": self.k,
            "n": self.n,
            "box": f"{self.k}x{self.k}",
            "fill": self.fill,
            "nonempty": self.nonempty,
            "cells": self.instance.size,
            "source_vars": self.source_vars,
            "witness_variable": self.witness_variable,
            "witness_cells": [one(cell) for cell in self.witness_cells],
            "formula": {
                "num_vars": self.formula.num_vars,
                "clauses": [list(c) for c in self.formula.clauses],
            },
            "variables": [
                {
                    "variable": v.variable,
                    "rows": one(v.rows),
                    "true_columns": one(v.true_columns),
                    "false_columns": one(v.false_columns),
                }
                for v in layout.variables
            ],
            "clauses": [
                {
                    "clause": c.clause + 1,
                    "truth_row": c.truth_row + 1,
                    "conflict_rows": one(c.conflict_rows),
                    "term_columns": [one(pair) for pair in c.term_columns],
                    "terminal_column": c.terminal_column + 1,
                }
                for c in layout.clauses
            ],
            "equalities": [
                {"variable": e.variable, "rows": one(e.rows), "first": one(e.first), "second": one(e.second)}
                for e in layout.equalities
            ],
        }

    def metadata_json(self) -> str:
        """``metadata()`` as JSON text: one key per line, one gadget per line."""
        lines = []
        for key, value in self.metadata().items():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                items = ",\n  ".join(json.dumps(item) for item in value)
                lines.append(f" {json.dumps(key)}: [\n  {items}\n ]")
            else:
                lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @classmethod
    def from_metadata(cls, data: dict[str, Any]) -> Reduction:
        """The reduction a ``metadata()`` object describes, checked; ValueError naming the first problem."""
        return _from_metadata(data)


def _witness_cells(layout: Layout, z: int | None) -> tuple[tuple[int, int], ...]:
    if z is None:
        return ()
    cells = [
        tuple(int(x) for x in cell) for v in layout.variables if v.variable == z for cell in v.false_cells()
    ]
    return tuple(sorted((r, c) for r, c in cells))


def _assemble(
    formula: Formula, layout: Layout, *, nonempty: bool, fill: str, source_vars: int, z: int | None
) -> Reduction:
    instance = NishioInstance(geometry_for_size(layout.n, (layout.k, layout.k)), layout.mask(fill))
    return Reduction(
        formula,
        instance,
        layout.k,
        nonempty,
        _witness_cells(layout, z),
        layout,
        fill,
        source_vars,
        z,
    )


def reduce_formula(formula: Formula, *, nonempty: bool = False, fill: str = "full") -> Reduction:
    """The Nishio instance of a formula (Theorem 6.1), or with ``nonempty`` the Theorem 6.2 variant.

    The formula is first split to 3-SAT (``to_3sat``).  ``fill`` is 'full' (every cell outside
    the gadgets' rows, columns and boxes) or 'minimal' (one fixed completion of them).
    """
    if fill not in FILLS:
        raise ValueError(f"unknown fill {fill!r}; choose from {', '.join(FILLS)}")
    encoded = to_3sat(formula)
    z = None
    if nonempty:
        encoded, z = with_witness_variable(encoded)
    layout = build_layout(encoded, always=() if z is None else (z,))
    return _assemble(encoded, layout, nonempty=nonempty, fill=fill, source_vars=formula.num_vars, z=z)


# ---------------------------------------------------------------- metadata


def _need(data: Any, key: str, kind: type | tuple[type, ...], where: str = "metadata") -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if key not in data:
        raise ValueError(f"{where}: missing {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ValueError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _ints(values: Any, where: str, *, one_based: bool = True) -> tuple[int, ...]:
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise ValueError(f"{where}: expected a list of integers")
    return tuple(v - 1 for v in values) if one_based else tuple(values)


def _pair(values: Any, where: str) -> tuple[int, int]:
    got = _ints(values, where)
    if len(got) != 2:
        raise ValueError(f"{where}: expected two columns")
    return got[0], got[1]


def _from_metadata(data: dict[str, Any]) -> Reduction:
    if not isinstance(data, dict):
        raise ValueError("metadata: expected a JSON object")
    if data.get("format") != _METADATA_FORMAT:
        raise ValueError(f"metadata: 'format' must be {_METADATA_FORMAT!r}")
    if data.get("version") != _METADATA_VERSION:
        raise ValueError(
            f"metadata: unsupported version {data.get('version')!r} (expected {_METADATA_VERSION})"
        )
    k = _need(data, "k", int)
    if not 2 <= k <= MAX_BOX_SIDE:
        raise ValueError(f"metadata: 'k' must lie in 2..{MAX_BOX_SIDE}, not {k}")
    fill = _need(data, "fill", str)
    if fill not in FILLS:
        raise ValueError(f"metadata: 'fill' must be one of {', '.join(FILLS)}, not {fill!r}")
    nonempty = _need(data, "nonempty", bool)
    source_vars = _need(data, "source_vars", int)
    raw = _need(data, "formula", dict)
    num_vars = _need(raw, "num_vars", int, "metadata formula")
    if num_vars > 10_000_000:
        raise ValueError(f"metadata formula: {num_vars} variables is beyond any grid sudoku_cp builds")
    clauses = _need(raw, "clauses", list, "metadata formula")
    try:
        formula = Formula(
            num_vars,
            tuple(_ints(c, f"formula clause {i + 1}", one_based=False) for i, c in enumerate(clauses)),
        )
    except ValueError as error:
        raise ValueError(f"metadata formula: {error}") from None
    z = data.get("witness_variable")
    named = isinstance(z, int) and not isinstance(z, bool) and 1 <= z <= num_vars
    if nonempty != (z is not None) or (z is not None and not named):
        raise ValueError("metadata: 'witness_variable' must name a variable exactly when 'nonempty' is true")
    variables = []
    for i, v in enumerate(_need(data, "variables", list)):
        where = f"metadata variable gadget {i + 1}"
        rows = _ints(_need(v, "rows", list, where), where)
        if not rows:
            raise ValueError(f"{where}: no rows")
        variables.append(
            VariableGadget(
                _need(v, "variable", int, where),
                rows[0] // k,
                rows,
                _ints(_need(v, "true_columns", list, where), where),
                _ints(_need(v, "false_columns", list, where), where),
            )
        )
    gadgets = []
    for i, c in enumerate(_need(data, "clauses", list)):
        where = f"metadata clause gadget {i + 1}"
        index = _need(c, "clause", int, where) - 1
        if not 0 <= index < len(formula.clauses):
            raise ValueError(f"{where}: clause {index + 1} is not in the formula")
        truth = _need(c, "truth_row", int, where) - 1
        gadgets.append(
            ClauseGadget(
                index,
                truth // k,
                formula.clauses[index],
                truth,
                _ints(_need(c, "conflict_rows", list, where), where),
                tuple(_pair(p, where) for p in _need(c, "term_columns", list, where)),
                _need(c, "terminal_column", int, where) - 1,
            )
        )
    equalities = []
    for i, e in enumerate(_need(data, "equalities", list)):
        where = f"metadata equality gadget {i + 1}"
        rows = _pair(_need(e, "rows", list, where), where)
        equalities.append(
            EqualityGadget(
                _need(e, "variable", int, where),
                rows[0] // k,
                rows,
                _pair(_need(e, "first", list, where), where),
                _pair(_need(e, "second", list, where), where),
            )
        )
    layout = Layout(k, tuple(variables), tuple(gadgets), tuple(equalities))
    if z is not None and not any(v.variable == z for v in variables):
        raise ValueError(f"metadata: the witness variable x{z} has no gadget")
    problems = layout_problems(layout, formula.clauses, formula.num_vars)
    if problems:
        raise ValueError(f"metadata: {problems[0]}")
    reduction = _assemble(formula, layout, nonempty=nonempty, fill=fill, source_vars=source_vars, z=z)
    cells = data.get("cells")
    if cells is not None and cells != reduction.instance.size:
        raise ValueError(
            f"metadata: 'cells' says {cells} but the gadgets and fill give {reduction.instance.size}"
        )
    return reduction
