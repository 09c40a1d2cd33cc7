"""Packing the reduction's gadgets into a grid with k x k boxes: the rows, columns and boxes of each.

``build_layout`` finds, for a 3-SAT formula, the smallest k whose grid holds every gadget
(``gadgets``) such that no two share a row, a column or a box; the result is a ``Layout``.
For a given k:

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
until a packing fits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ReductionError
from .formula import Formula
from .gadgets import ClauseGadget, EqualityGadget, Layout, VariableGadget

__all__ = ["MAX_BOX_SIDE", "build_layout"]

#: The largest box side k (n = k*k = 1,048,576, ``geometry.MAX_SPARSE_SIDE``).  The real limit is
#: memory, estimated before anything is built (``construction.check_reduction_memory``).
MAX_BOX_SIDE = 1024

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
        raise ReductionError(
            "the gadgets need clauses of at most 3 literals; split the formula to 3-SAT first"
        )
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
    raise ReductionError(
        f"the formula needs {blocks} gadget boxes, more than a grid with {MAX_BOX_SIDE}x{MAX_BOX_SIDE} "
        f"boxes (n = {MAX_BOX_SIDE**2}) holds; sudoku_cp builds no larger reduction"
    )
