"""The rating path: a second, easiest-first solve that measures how hard each step is.

The engine takes the first step of the first rule that applies, and its nonlocal rules make big
steps (a whole cycle's eliminations at once), so the states it passes through say little about
how hard the puzzle is for a player.  ``rating_path`` solves the puzzle again the way Sudoku
Explainer rates one: at every state it looks for techniques in a fixed order of difficulty,
applies the first one found (one deduction), lets the simple local rules finish what they can,
and keeps the difficulty of the hardest step.  Each technique is measured, not just named:

- *X-chains*: chains and loops on one digit alternating "only two places in a unit" (strong)
  and "same digit, same unit" (weak) links, found as the shortest walk from a candidate to its
  own negation (elimination) or back (placement) in the 2-SAT implication graph restricted to
  one digit (``rules.twosat``).  Two strong links are the turbot fish (skyscraper, kite), three
  to six the longer strong-link fishes; their weights grow with the number of strong links.  A
  second search lets a node be a *group*, the cells of a box and a line holding the digit (the
  digit is in one of them), which finds more chains (empty rectangles, grouped kites); a chain
  that needs a group weighs 0.2 more than a plain one of as many strong links.
- *wings*: an almost locked set (m cells that all see each other, holding m + 1 digits) and a
  two-digit cell {x, z} seeing every x of the set: z goes in the cell or in the set, so it
  leaves every cell seeing both.  m = 2 is the XYZ-wing, 3 the WXYZ-wing, 4 the VWXYZ-wing.
- *chains and cycles*: the shortest implication chain (or loop: a cycle whose weak links become
  strong, removing what sees both ends of a weak link) in three graphs: one digit (X), two-digit
  cells only (Y, loops only, as in Sudoku Explainer), and everything (XY).  A chain's weight is
  its base (loop 6.5, one-digit chain 6.6, mixed 7.0) plus 0.1 per length bracket passed.
- the uniqueness patterns (unique rectangle, BUG + 1) when the rule set includes them;
- the local rules with their own weights, and, when nothing above applies, the engine's own
  rules (matching, Nishio: their table weights).

The weights follow Sudoku Explainer's published scale (turbot fish 4.0 to 4.2, strong-link
fishes 5.4 / 5.8 / 6.2 / 6.6 plus 0.1 for mixed link kinds, WXYZ-wing 5.5, VWXYZ-wing 6.2 to
6.4, chains 6.5 / 6.6 / 7.0 plus length), measured on our own search.  The length brackets:
a chain of L links has length L - 1 (a loop of L links: L - 2); every bracket passed (4, 6, 8,
12, 16, 24, ...: alternately x 3/2 and x 4/3) adds 0.1.

Every deduction the path applies is sound (chains and loops are 2-SAT implications, wings are
locked-set arguments, the uniqueness patterns are used only when asked for).  The path never
decides the status: ``rate`` takes that from the engine and asks the path only for a number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numba
import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, watch_compilation
from .board import Board, Contradiction, apply_record, tables
from .rules import Rule
from .rules.local import LOCAL_RULES, MASK_SIDE, find_local, run_local

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["Path", "chain_weight", "length_bonus", "rating_path", "wing_weight"]

#: Modes of the chain search: one digit (X), two-digit cells (Y), all links (XY); the wing
#: search shares their per-state cache under its own key.
X, Y, XY, _GROUPED, _WINGS = 0, 1, 2, 3, 10
#: Strong-link fishes (one-digit chains and loops): base weight by number of strong links
#: (2: turbot fish, 3: 3-link fish ...); plain ones add 0.1 (the middle of Sudoku Explainer's
#: three link-kind variants, 0 to 0.2), those through a group (cells of a box and a line) 0.3.
FISH_BASE = {2: 4.0, 3: 5.4, 4: 5.8, 5: 6.2, 6: 6.6}
PLAIN_EXTRA, GROUPED_EXTRA = 0.1, 0.3
#: Wings by number of cells in the almost locked set (2: XYZ-wing, 3: WXYZ, 4: VWXYZ).
WING_WEIGHT = {2: 4.4, 3: 5.5, 4: 6.2}
#: Chain bases: loop on one digit or on two-digit cells, one-digit chain, anything mixed.
LOOP_BASE, X_CHAIN_BASE, XY_BASE = 6.5, 6.6, 7.0
UNIQUENESS_WEIGHT = {"unique-rectangle": 4.5, "bug-plus-one": 5.6}
#: Local rules the path lets run freely between techniques (up to the hidden triple, 4.0);
#: the XY-wing and the quads/jellyfish take their turn in the technique order.
_FREE_LOCAL = LOCAL_RULES[: LOCAL_RULES.index("hidden-triple") + 1]


def length_bonus(length: int) -> float:
    """0.1 per length bracket passed (4, 6, 8, 12, 16, 24, 32, ...)."""
    bonus, ceiling, odd = 0.0, 4, False
    while length > ceiling:
        bonus += 0.1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return round(bonus, 1)


def wing_weight(size: int, widest: int) -> float:
    """A wing's weight from its set's size and its widest cell: with three cells in all, the
    XY-wing (two-digit cells only) 4.2 and the XYZ-wing 4.4; larger wings weigh 0.1 more when the
    widest cell of the set is of middling size (Sudoku Explainer's rule)."""
    if size == 2:
        return 4.2 if widest == 2 else WING_WEIGHT[2]
    cells = size + 1
    middle = (cells + 2) // 2
    return round(WING_WEIGHT[size] + 0.1 * ((cells - middle) - abs(middle - widest)), 1)


def chain_weight(mode: int, kind: str, links: int) -> float:
    """The weight of a chain (kind "chain") or loop (kind "loop") of ``links`` links in a mode."""
    if kind == "loop":
        return round((LOOP_BASE if mode != XY else XY_BASE) + length_bonus(links - 2), 1)
    base = X_CHAIN_BASE if mode == X else XY_BASE
    return round(base + length_bonus(links - 1), 1)


# -- compiled searches -----------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _bitcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True, inline="always")
def _lowest(x: np.uint64) -> int:
    """Index of the lowest set bit (x != 0)."""
    return _bitcount((x & (~x + np.uint64(1))) - np.uint64(1))


@numba.njit(cache=True)
def _chain_search(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    mode: int,
    digit: int,
    chains: bool,
    lit: np.ndarray,
    work: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The shortest chains of one mode, on one digit's candidates when ``digit`` >= 0, as
    (links, cell, digit) triples in ``out``: [0:3] an elimination (x -> ... -> not x), [3:6] a
    placement (not x -> ... -> x), [6:9] a loop and one candidate it removes; links -1: none.

    Literals are the open candidates.  Weak links (x true makes w false): same digit in a unit,
    and (not in mode X) another digit of the same cell.  Strong links (w false makes y true): a
    digit's only two places in a unit (not in mode Y), a two-digit cell (not in mode X); they
    are symmetric.  The search is breadth-first from every literal at once over "double steps"
    (weak then strong), with one bitset of reached literals per source; it stops at the first
    level where anything is found (only loops count when ``chains`` is false).  ``lit`` (cells,
    n) and ``work`` (7, literals, words) are scratch space."""
    ncell, n = cand.shape
    one = np.uint64(1)
    # one digit's search reads only that digit's column of ``lit`` (mode X never leaves it)
    low, high = (0, n) if digit < 0 else (digit, digit + 1)
    m = 0
    for c in range(ncell):
        for d in range(low, high):
            if values[c] == 0 and cand[c, d]:
                lit[c, d] = m
                m += 1
            else:
                lit[c, d] = -1
    for i in range(9):
        out[i] = -1
    if m == 0:
        return
    words = (m + 63) // 64
    weak = work[0]
    strong = work[1]
    step = work[2]
    useful = work[3]
    reach = work[4]
    front = work[5]
    fresh = work[6, 0]
    for v in range(m):
        for t in range(words):
            weak[v, t] = 0
            strong[v, t] = 0
            step[v, t] = 0
            useful[v, t] = 0
            reach[v, t] = 0
            front[v, t] = 0
    cells = np.empty(m, np.int64)
    digits = np.empty(m, np.int64)
    for c in range(ncell):
        for d in range(low, high):
            v = lit[c, d]
            if v >= 0:
                cells[v] = c
                digits[v] = d
    for v in range(m):
        c = cells[v]
        d = digits[v]
        if mode != X:
            for e in range(n):
                w = lit[c, e]
                if w >= 0 and w != v:
                    weak[v, w >> 6] |= one << np.uint64(w & 63)
        for k in range(peers.shape[1]):
            w = lit[peers[c, k], d]
            if w >= 0:
                weak[v, w >> 6] |= one << np.uint64(w & 63)
        if mode != Y:
            for j in range(cell_units.shape[1]):
                u = cell_units[c, j]
                places = 0
                other = -1
                for i in range(n):
                    w = lit[units[u, i], d]
                    if w >= 0:
                        places += 1
                        if w != v:
                            other = w
                if places == 2:
                    strong[v, other >> 6] |= one << np.uint64(other & 63)
        if mode != X:
            left = 0
            other = -1
            for e in range(n):
                w = lit[c, e]
                if w >= 0:
                    left += 1
                    if w != v:
                        other = w
            if left == 2:
                strong[v, other >> 6] |= one << np.uint64(other & 63)
    for v in range(m):
        for t in range(words):
            bits = weak[v, t]
            while bits:
                w = t * 64 + _lowest(bits)
                bits &= bits - one
                # step[v]: v -> not w -> y for the strong partners y of w
                for t2 in range(words):
                    step[v, t2] |= strong[w, t2]
                # useful[v]: weak partners w of v with a third literal seeing both (a victim)
                for t2 in range(words):
                    if weak[v, t2] & weak[w, t2]:
                        useful[v, w >> 6] |= one << np.uint64(w & 63)
                        break
        reach[v, v >> 6] |= one << np.uint64(v & 63)
        front[v, v >> 6] |= one << np.uint64(v & 63)
    level = 0
    while True:
        found = False
        for v in range(m):
            for t in range(words):
                # elimination: v -> ... -> y (level double steps), y weak v: 2 level + 1 links
                if out[0] < 0 and front[v, t] & weak[v, t]:
                    out[0] = 2 * level + 1
                    out[1] = cells[v]
                    out[2] = digits[v]
                # placement: not q -> v (strong) -> ... -> q: 2 level + 1 links
                hit = front[v, t] & strong[v, t]
                if out[3] < 0 and hit:
                    q = t * 64 + _lowest(hit)
                    out[3] = 2 * level + 1
                    out[4] = cells[q]
                    out[5] = digits[q]
            # loop: v -> ... -> y, y weak w, w strong v, (y, w) has a victim: 2 level + 2 links
            if out[6] < 0 and level >= 1:
                for tw in range(words):
                    partners = strong[v, tw]
                    while partners and out[6] < 0:
                        w = tw * 64 + _lowest(partners)
                        partners &= partners - one
                        for t in range(words):
                            hit = front[v, t] & useful[w, t]
                            if hit:
                                y = t * 64 + _lowest(hit)
                                for t2 in range(words):
                                    both = weak[w, t2] & weak[y, t2]
                                    if both:
                                        e = t2 * 64 + _lowest(both)
                                        out[6] = 2 * level + 2
                                        out[7] = cells[e]
                                        out[8] = digits[e]
                                        break
                                break
            if out[6] >= 0 or (chains and (out[0] >= 0 or out[3] >= 0)):
                found = True
        if found:
            return
        grew = False
        for v in range(m):
            for t in range(words):
                fresh[t] = 0
            for t in range(words):
                bits = front[v, t]
                while bits:
                    q = t * 64 + _lowest(bits)
                    bits &= bits - one
                    for t2 in range(words):
                        fresh[t2] |= step[q, t2]
            for t in range(words):
                new = fresh[t] & ~reach[v, t]
                front[v, t] = new
                reach[v, t] |= new
                if new:
                    grew = True
        if not grew:
            return
        level += 1


@numba.njit(cache=True)
def _chains(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    mode: int,
    chains: bool,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``_chain_search`` over the whole board, or digit by digit in mode X (one-digit chains
    never leave their digit, and small searches are much cheaper): the shortest of each kind."""
    ncell, n = cand.shape
    total = 0
    for c in range(ncell):
        if values[c] == 0:
            for d in range(n):
                if cand[c, d]:
                    total += 1
    lit = np.empty((ncell, n), np.int64)
    words = max(1, (total + 63) // 64)
    work = np.empty((7, max(total, 1), words), np.uint64)
    if mode != X:
        _chain_search(cand, values, units, cell_units, peers, mode, -1, chains, lit, work, out)
        return
    for i in range(9):
        out[i] = -1
    part = np.empty(9, np.int64)
    for d in range(n):
        _chain_search(cand, values, units, cell_units, peers, mode, d, chains, lit, work, part)
        for k in (0, 3, 6):
            if part[k] >= 0 and (out[k] < 0 or part[k] < out[k]):
                out[k] = part[k]
                out[k + 1] = part[k + 1]
                out[k + 2] = part[k + 2]


@numba.njit(cache=True)
def _grouped_search(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    seen: np.ndarray,
    digit: int,
    cellbits: np.ndarray,
    node_cell: np.ndarray,
    sees_all: np.ndarray,
    work: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The shortest one-digit chain of ``digit`` whose nodes may be groups: the cells of a box
    and a line holding the digit (two or more), true when the digit is in one of them.  Weak
    links join nodes whose cells all see each other; a unit whose places for the digit are
    exactly two disjoint nodes links them strongly.  out = [links, cell, digit] of an
    elimination, then of a placement (cells only), links -1 when none.  ``cellbits``,
    ``node_cell``, ``sees_all`` (nodes, ...) and ``work`` (5, nodes, words) are scratch space."""
    ncell, n = cand.shape
    cw = seen.shape[1]
    one = np.uint64(1)
    for i in range(6):
        out[i] = -1
    # nodes: open cells holding the digit, then box-line groups of two or more of them
    cellbits[:] = 0
    node_cell[:] = -1
    m = 0
    places = np.zeros(cw, np.uint64)
    for c in range(ncell):
        if values[c] == 0 and cand[c, digit]:
            cellbits[m, c >> 6] |= one << np.uint64(c & 63)
            node_cell[m] = c
            places[c >> 6] |= one << np.uint64(c & 63)
            m += 1
    if m == 0:
        return
    count = np.zeros(2 * n, np.int64)
    for b in range(2 * n, 3 * n):
        count[:] = 0
        for i in range(n):
            c = units[b, i]
            if values[c] == 0 and cand[c, digit]:
                count[cell_units[c, 0]] += 1
                count[cell_units[c, 1]] += 1
        for line in range(2 * n):
            if count[line] < 2:
                continue
            side = 0 if line < n else 1
            for i in range(n):
                c = units[b, i]
                if values[c] == 0 and cand[c, digit] and cell_units[c, side] == line:
                    cellbits[m, c >> 6] |= one << np.uint64(c & 63)
            m += 1
    words = (m + 63) // 64
    weak = work[0]
    strong = work[1]
    step = work[2]
    reach = work[3]
    front = work[4]
    for v in range(m):
        for t in range(words):
            weak[v, t] = 0
            strong[v, t] = 0
            step[v, t] = 0
            reach[v, t] = 0
            front[v, t] = 0
    for v in range(m):
        for t in range(cw):
            sees_all[v, t] = ~np.uint64(0)
        for t in range(cw):
            bits = cellbits[v, t]
            while bits:
                c = t * 64 + _lowest(bits)
                bits &= bits - one
                for t2 in range(cw):
                    sees_all[v, t2] &= seen[c, t2]
    for v in range(m):
        for w in range(m):
            inside = True
            for t in range(cw):
                if cellbits[w, t] & ~sees_all[v, t]:
                    inside = False
                    break
            if inside:
                weak[v, w >> 6] |= one << np.uint64(w & 63)
    unitbits = np.zeros(cw, np.uint64)
    here = np.empty(m, np.int64)
    for u in range(units.shape[0]):
        for t in range(cw):
            unitbits[t] = 0
        for i in range(n):
            c = units[u, i]
            if (places[c >> 6] >> np.uint64(c & 63)) & one:
                unitbits[c >> 6] |= one << np.uint64(c & 63)
        nh = 0
        for v in range(m):
            inside = True
            for t in range(cw):
                if cellbits[v, t] & ~unitbits[t]:
                    inside = False
                    break
            if inside:
                here[nh] = v
                nh += 1
        for i in range(nh):
            a = here[i]
            for j in range(i + 1, nh):
                b = here[j]
                exact = True
                for t in range(cw):
                    both = cellbits[a, t] & cellbits[b, t]
                    if both or (cellbits[a, t] | cellbits[b, t]) != unitbits[t]:
                        exact = False
                        break
                if exact:
                    strong[a, b >> 6] |= one << np.uint64(b & 63)
                    strong[b, a >> 6] |= one << np.uint64(a & 63)
    for v in range(m):
        for t in range(words):
            bits = weak[v, t]
            while bits:
                w = t * 64 + _lowest(bits)
                bits &= bits - one
                for t2 in range(words):
                    step[v, t2] |= strong[w, t2]
    fresh = np.zeros(words, np.uint64)
    for v in range(m):
        reach[v, v >> 6] |= one << np.uint64(v & 63)
        front[v, v >> 6] |= one << np.uint64(v & 63)
    level = 0
    while True:
        for v in range(m):
            for t in range(words):
                if out[0] < 0 and node_cell[v] >= 0 and front[v, t] & weak[v, t]:
                    out[0] = 2 * level + 1
                    out[1] = node_cell[v]
                    out[2] = digit
                hit = front[v, t] & strong[v, t]
                while out[3] < 0 and hit:
                    q = t * 64 + _lowest(hit)
                    hit &= hit - one
                    if node_cell[q] >= 0:
                        out[3] = 2 * level + 1
                        out[4] = node_cell[q]
                        out[5] = digit
        if out[0] >= 0 or out[3] >= 0:
            return
        grew = False
        for v in range(m):
            for t in range(words):
                fresh[t] = 0
            for t in range(words):
                bits = front[v, t]
                while bits:
                    q = t * 64 + _lowest(bits)
                    bits &= bits - one
                    for t2 in range(words):
                        fresh[t2] |= step[q, t2]
            for t in range(words):
                new = fresh[t] & ~reach[v, t]
                front[v, t] = new
                reach[v, t] |= new
                if new:
                    grew = True
        if not grew:
            return
        level += 1


@numba.njit(cache=True)
def _grouped(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    seen: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``_grouped_search`` for every digit: the shortest elimination and placement."""
    ncell, n = cand.shape
    limit = ncell + 2 * n * n
    cellbits = np.empty((limit, seen.shape[1]), np.uint64)
    node_cell = np.empty(limit, np.int64)
    sees_all = np.empty((limit, seen.shape[1]), np.uint64)
    work = np.empty((5, limit, (limit + 63) // 64), np.uint64)
    part = np.empty(6, np.int64)
    for i in range(6):
        out[i] = -1
    for d in range(n):
        _grouped_search(cand, values, units, cell_units, seen, d, cellbits, node_cell, sees_all, work, part)
        for k in (0, 3):
            if part[k] >= 0 and (out[k] < 0 or part[k] < out[k]):
                out[k] = part[k]
                out[k + 1] = part[k + 1]
                out[k + 2] = part[k + 2]


@numba.njit(cache=True)
def _peer_bits(peers: np.ndarray, ncell: int) -> np.ndarray:  # pragma: no cover - compiled
    """(cells, words) uint64: the peers of each cell as a bitset over cells."""
    words = (ncell + 63) // 64
    bits = np.zeros((ncell, words), np.uint64)
    for c in range(ncell):
        for k in range(peers.shape[1]):
            p = peers[c, k]
            bits[c, p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    return bits


@numba.njit(cache=True, inline="always")
def _sees_cell(sees: np.ndarray, a: int, b: int) -> bool:
    return bool((sees[a, b >> 6] >> np.uint64(b & 63)) & np.uint64(1))


@numba.njit(cache=True, inline="always")
def _wing_rank(size: int, widest: int) -> int:
    """Lower is lighter among wings of one size (see ``wing_weight``)."""
    if size == 2:
        return 0 if widest == 2 else 1
    cells = size + 1
    middle = (cells + 2) // 2
    return (cells - middle) - abs(middle - widest)


@numba.njit(cache=True)
def _wings(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    sees: np.ndarray,
    size: int,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The lightest wing whose almost locked set has ``size`` cells: out = [found (0/1), cell,
    digit removed, most candidates in one cell of the set].

    The set: ``size`` open cells of one unit holding ``size`` + 1 digits (cells that all see each
    other always share a unit).  The pivot: a two-digit cell {x, z} outside it that sees every
    cell of the set holding x.  If the pivot is x, the set loses x and locks its other digits, z
    among them; else the pivot is z.  So a cell that sees the pivot and every z of the set loses z."""
    ncell, n = cand.shape
    words = sees.shape[1]
    one = np.uint64(1)
    masks = np.zeros(ncell, np.int64)
    holds = np.zeros((n, words), np.uint64)  # open cells holding each digit
    pivots = np.empty(ncell, np.int64)
    npivots = 0
    for c in range(ncell):
        if values[c] == 0:
            bits = 0
            for d in range(n):
                if cand[c, d]:
                    bits |= 1 << d
                    holds[d, c >> 6] |= one << np.uint64(c & 63)
            masks[c] = bits
            if _bitcount(np.uint64(bits)) == 2:
                pivots[npivots] = c
                npivots += 1
    out[0] = 0
    if npivots == 0:
        return
    best = 1 << 30
    room = np.empty(n, np.int64)
    pick = np.empty(size, np.int64)
    chosen = np.empty(size, np.int64)
    victims = np.empty(words, np.uint64)
    for u in range(units.shape[0]):
        nroom = 0
        for i in range(n):
            c = units[u, i]
            if values[c] == 0 and _bitcount(np.uint64(masks[c])) <= size + 1:
                room[nroom] = c
                nroom += 1
        if nroom < size:
            continue
        for i in range(size):
            pick[i] = i
        while True:
            union = 0
            widest = 0
            for i in range(size):
                chosen[i] = room[pick[i]]
                union |= masks[chosen[i]]
                widest = max(widest, _bitcount(np.uint64(masks[chosen[i]])))
            rank = _wing_rank(size, widest)
            if _bitcount(np.uint64(union)) == size + 1 and rank < best:
                for pi in range(npivots):
                    b = pivots[pi]
                    pair = masks[b]
                    if pair & union != pair:
                        continue
                    inside = False
                    for i in range(size):
                        if chosen[i] == b:
                            inside = True
                    if inside:
                        continue
                    first = _lowest(np.uint64(pair))
                    second = _lowest(np.uint64(pair & ~(1 << first)))
                    for side in range(2):
                        x = first if side == 0 else second
                        z = second if side == 0 else first
                        linked = True
                        for i in range(size):
                            a = chosen[i]
                            if (masks[a] >> x) & 1 and not _sees_cell(sees, a, b):
                                linked = False
                                break
                        if not linked:
                            continue
                        for t in range(words):
                            victims[t] = holds[z, t] & sees[b, t]
                        for i in range(size):
                            a = chosen[i]
                            if (masks[a] >> z) & 1:
                                for t in range(words):
                                    victims[t] &= sees[a, t]
                        for t in range(words):
                            if victims[t]:
                                best = rank
                                out[0] = 1
                                out[1] = t * 64 + _lowest(victims[t])
                                out[2] = z
                                out[3] = widest
                                if best == 0:
                                    return
                                break
                        if best == rank:
                            break
                    if best == rank:
                        break
            # next combination of ``size`` positions among ``nroom``
            i = size - 1
            while i >= 0 and pick[i] == nroom - size + i:
                i -= 1
            if i < 0:
                break
            pick[i] += 1
            for j in range(i + 1, size):
                pick[j] = pick[j - 1] + 1


@cache
def _sees(geometry: Geometry) -> np.ndarray:
    """(cells, words) uint64: which cells see which (one table per box shape)."""
    return _peer_bits(tables(geometry).peers, geometry.n * geometry.n)


# -- the path -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Path:
    """What the rating path found: the hardest step's ``weight`` and ``technique``, the number of
    technique steps it took (local rules not counted), and whether it finished (``solved``)."""

    weight: float
    technique: str | None
    steps: int
    solved: bool


class _State:
    """The board of the path and its per-state caches (the chain searches of this state)."""

    __slots__ = ("board", "chains", "counts", "local_ids", "rec", "sees", "weights")

    def __init__(self, board: Board, rules: Sequence[Rule]) -> None:
        self.board = board
        self.local_ids = {rule.name: rule.local_id for rule in rules if rule.local_id >= 0}
        self.weights = {rule.name: rule.weight for rule in rules if rule.local_id >= 0}
        n = board.n
        self.rec = np.empty((board.cand.size + board.cand.shape[0] + 4 * n, 3), dtype=np.int64)
        self.counts = np.zeros(len(LOCAL_RULES), dtype=np.int64)
        self.sees = _sees(board.geometry)
        self.chains: dict[int, np.ndarray] = {}

    def settle(self, names: Sequence[str]) -> int:
        """Run the named local rules (those chosen) to a fixed point: 1 solved, 0 stuck, -1 contradiction."""
        board = self.board
        t = board.tables
        enabled = np.zeros(len(LOCAL_RULES), dtype=np.uint8)
        for name in names:
            if name in self.local_ids:
                enabled[self.local_ids[name]] = 1
        self.chains.clear()
        while True:
            done = run_local(
                board.cand, board.values, t.units, t.cell_units, t.peers, enabled, self.counts, self.rec, 4096
            )
            if done != 2:
                return int(done)

    def wing(self, size: int) -> np.ndarray | None:
        """The wing search of one set size on this state (cached until the board changes);
        None past 64 x 64 (digit masks)."""
        found = self.chains.get(_WINGS + size)
        if found is None:
            board = self.board
            if board.n > MASK_SIDE:
                return None
            found = np.empty(4, dtype=np.int64)
            _wings(board.cand, board.values, board.tables.units, self.sees, size, found)
            self.chains[_WINGS + size] = found
        return found

    def grouped(self) -> np.ndarray:
        """The grouped one-digit search on this state (cached until the board changes)."""
        found = self.chains.get(_GROUPED)
        if found is None:
            board = self.board
            found = np.empty(6, dtype=np.int64)
            t = board.tables
            _grouped(board.cand, board.values, t.units, t.cell_units, self.sees, found)
            self.chains[_GROUPED] = found
        return found

    def chain(self, mode: int) -> np.ndarray:
        """The chain search of a mode on this state (cached until the board changes)."""
        found = self.chains.get(mode)
        if found is None:
            board = self.board
            t = board.tables
            found = np.empty(9, dtype=np.int64)
            _chains(board.cand, board.values, t.units, t.cell_units, t.peers, mode, mode != Y, found)
            self.chains[mode] = found
        return found

    def remove(self, cell: int, digit: int) -> None:
        self.board.apply(_NONE, np.array([[cell, digit]], dtype=np.int64))
        self.chains.clear()

    def place(self, cell: int, digit: int) -> None:
        self.board.apply(np.array([[cell, digit]], dtype=np.int64), _NONE)
        self.chains.clear()


_NONE = np.zeros((0, 2), dtype=np.int64)
#: Rule families the path falls back on; the chain families (bilocation, bivalue, 2-SAT) find
#: nothing once the XY search has found nothing, since all their steps are 2-SAT implications.
_LAST_RESORT = ("matching", "nishio")

#: A technique tries the state; it applies one deduction and returns (weight, name), or None.
Technique = Callable[[_State], tuple[float, str] | None]


def _x_fish(links: int) -> Technique:
    """The one-digit chains and loops with ``links`` strong links.  The search stops at the first
    level L (weak-then-strong double steps) where it finds anything: an elimination there has L
    strong links, a placement or a loop L + 1."""

    def find(state: _State) -> tuple[float, str] | None:
        found = state.chain(X)
        if found[0] >= 0:
            strong, action, at = (int(found[0]) - 1) // 2, state.remove, 1
        elif found[3] >= 0:
            strong, action, at = (int(found[3]) + 1) // 2, state.place, 4
        elif found[6] >= 0:
            strong, action, at = int(found[6]) // 2, state.remove, 7
        else:
            strong, action, at = 0, state.remove, 1
        name = "turbot-fish" if links == 2 else f"{links}-link-fish"
        if strong == links:
            action(int(found[at]), int(found[at + 1]))
            return round(FISH_BASE[links] + PLAIN_EXTRA, 1), name
        grouped = state.grouped()
        if grouped[0] >= 0:
            strong, action, at = (int(grouped[0]) - 1) // 2, state.remove, 1
        elif grouped[3] >= 0:
            strong, action, at = (int(grouped[3]) + 1) // 2, state.place, 4
        else:
            return None
        if strong != links:
            return None
        action(int(grouped[at]), int(grouped[at + 1]))
        return round(FISH_BASE[links] + GROUPED_EXTRA, 1), f"grouped-{name}"

    return find


def _wing(size: int) -> Technique:
    """The lightest wing whose almost locked set has ``size`` cells."""
    name = {2: "xyz-wing", 3: "wxyz-wing", 4: "vwxyz-wing"}[size]

    def find(state: _State) -> tuple[float, str] | None:
        found = state.wing(size)
        if found is None or not found[0]:
            return None
        widest = int(found[3])
        state.remove(int(found[1]), int(found[2]))
        weight = wing_weight(size, widest)
        return weight, "xy-wing" if size == 2 and widest == 2 else name

    return find


def _local(name: str) -> Technique:
    """One compiled local rule given its turn: one step of it (the free rules settle after)."""

    def find(state: _State) -> tuple[float, str] | None:
        rule_id = state.local_ids.get(name)
        if rule_id is None:
            return None
        board = state.board
        t = board.tables
        rows = find_local(rule_id, board.cand, board.values, t.units, t.cell_units, t.peers, state.rec)
        if not rows:
            return None
        apply_record(board.cand, board.values, t.peers, state.rec, rows)
        state.counts[rule_id] += 1
        state.chains.clear()
        return state.weights[name], name

    return find


def _chains_and_cycles(state: _State) -> tuple[float, str] | None:
    """The lightest chain or loop of the three modes (X chains and loops, Y loops, XY both)."""
    best: tuple[float, str, int, int, str] | None = None
    for mode, kinds in ((X, ("chain", "loop")), (Y, ("loop",)), (XY, ("chain", "loop"))):
        found = state.chain(mode)
        options = []
        if "chain" in kinds:
            if found[0] >= 0:
                options.append(("chain", int(found[0]), int(found[1]), int(found[2]), "remove"))
            if found[3] >= 0:
                options.append(("chain", int(found[3]), int(found[4]), int(found[5]), "place"))
        if "loop" in kinds and found[6] >= 0:
            options.append(("loop", int(found[6]), int(found[7]), int(found[8]), "remove"))
        for kind, links, cell, digit, action in options:
            weight = chain_weight(mode, kind, links)
            if best is None or weight < best[0]:
                label = ("x", "y", "xy")[mode] + ("-cycle" if kind == "loop" else "-chain")
                best = (weight, label, cell, digit, action)
    if best is None:
        return None
    weight, label, cell, digit, action = best
    if action == "remove":
        state.remove(cell, digit)
    else:
        state.place(cell, digit)
    return weight, label


def _rule(rule: Rule) -> Technique:
    """A rule of the engine (uniqueness patterns, matching, Nishio ...) applied as it finds itself."""

    def find(state: _State) -> tuple[float, str] | None:
        step = rule.find(state.board)
        if step is None:
            return None
        state.board.apply(step.placements, step.eliminations)
        state.chains.clear()
        return UNIQUENESS_WEIGHT.get(rule.name, rule.weight), rule.name

    return find


def _techniques(rules: Sequence[Rule]) -> list[Technique]:
    """The techniques in Sudoku Explainer's order of trial (roughly by weight)."""
    slow = {rule.name: rule for rule in rules if rule.local_id < 0}
    order: list[Technique] = [_x_fish(2), _local("xy-wing"), _wing(2), _wing(3)]
    if "unique-rectangle" in slow:
        order.append(_rule(slow["unique-rectangle"]))
    order += [_local(name) for name in ("naked-quad", "jellyfish", "hidden-quad")]
    order += [_x_fish(3), _wing(4)]
    if "bug-plus-one" in slow:
        order.append(_rule(slow["bug-plus-one"]))
    order += [_x_fish(links) for links in sorted(FISH_BASE) if links >= 4]
    order.append(_chains_and_cycles)
    # whatever the chains cannot do, the engine's own rules do (matching, Nishio ...)
    order += [_rule(rule) for rule in rules if rule.local_id < 0 and rule.family in _LAST_RESORT]
    return order


def rating_path(board: Board, rules: Sequence[Rule], *, deadline: Deadline | None = None) -> Path:
    """Solve ``board`` (changed in place) easiest technique first and measure the hardest step.

    ``rules`` are the engine's rules: their local rules run between techniques and weigh what
    their table says; uniqueness patterns are used only if among them; the other Python rules
    are the last resort.  A contradiction or a state no technique changes ends the path unsolved."""
    state = _State(board, rules)
    free = [name for name in _FREE_LOCAL if name in state.local_ids]
    techniques = _techniques(rules)
    weight, technique, steps = 0.0, None, 0
    # every technique removes a candidate or places a digit: the open candidates bound the steps
    budget = int(board.cand.sum()) + 1
    try:
        while steps < budget:
            if deadline is not None:
                deadline.check("rating")
            if state.settle(free) != 0:
                break
            for find in techniques:
                found = find(state)
                if found is not None:
                    steps += 1
                    if found[0] > weight:
                        weight, technique = found
                    break
            else:
                break
    except Contradiction:
        pass
    for rule_id, count in enumerate(state.counts):
        name = LOCAL_RULES[rule_id]
        if count and state.weights.get(name, 0.0) > weight:
            weight, technique = state.weights[name], name
    return Path(round(weight, 1), technique, steps, bool(board.solved))
