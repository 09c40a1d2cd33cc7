"""The compiled searches of the chain, fish and wing rules, and a cache of their answers per board.

- ``chain_search``: the shortest alternating chains of one mode: one digit (X), two-digit cells
  (Y) or all links (XY).  Literals are the open candidates; weak links (x true makes w false):
  same digit in a unit and (not in mode X) another digit of the same cell; strong links (w false
  makes y true): a digit's only two places in a unit (not in mode Y), a two-digit cell (not in
  mode X).  A breadth-first search from every literal at once over "double steps" (weak then
  strong), one bitset of reached literals per source, stops at the first level where it finds an
  elimination (x -> ... -> not x), a placement (not x -> ... -> x) or a loop (a cycle whose weak
  link has a candidate seeing both its ends); then one shortest walk of each is traced back.
- ``grouped_search``: one-digit chains whose nodes may be groups (the cells of a box and a line
  holding the digit, true when the digit is in one of them): empty rectangles, grouped kites.
- ``wing_search``: the lightest wing of an almost locked set of ``size`` cells (``size`` cells
  of one unit holding ``size`` + 1 digits) and a two-digit pivot {x, z} seeing every x of the set.

The one-digit searches (X and grouped) remember each digit's last search and its answer, given
again while the digit's open candidates are the same (``_digit_memory``).

Every deduction is a chain of one-link implications, so it is sound; the rule modules
(``fishes``, ``wings``, ``aic``) turn the answers into steps.  The searches grow with the square
of the candidates: the rules use them up to ``SEARCH_MAX_SIDE``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

import numba
import numpy as np

from ...geometry import Geometry
from ...limits import watch_compilation
from ..board import Board, tables

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "SEARCH_MAX_SIDE",
    "X",
    "XY",
    "Y",
    "ChainFound",
    "GroupedFound",
    "WingFound",
    "chain_search",
    "grouped_search",
    "no_xy_chain",
    "searched",
    "sees_table",
    "wing_search",
]

#: Modes of the chain search: one digit (X), two-digit cells (Y), all links (XY).
X, Y, XY = 0, 1, 2
#: The largest side the searches run on (their tables grow with the square of the candidates).
SEARCH_MAX_SIDE = 16


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


@numba.njit(cache=True, inline="always")
def _image(bits: np.ndarray, table: np.ndarray, words: int, into: np.ndarray) -> None:  # pragma: no cover
    """into |= table[q] for every q set in ``bits``: one step of a relation from a set of nodes."""
    one = np.uint64(1)
    for t in range(words):
        row = bits[t]
        while row:
            q = t * 64 + _lowest(row)
            row &= row - one
            for t2 in range(words):
                into[t2] |= table[q, t2]


@numba.njit(cache=True, inline="always")
def _advance(
    front: np.ndarray, reach: np.ndarray, step: np.ndarray, m: int, words: int, fresh: np.ndarray
) -> bool:  # pragma: no cover - compiled
    """One level of the breadth-first searches from every node at once: each source's frontier
    becomes what one ``step`` from it reaches that the source had not reached; whether any grew."""
    grew = False
    for v in range(m):
        for t in range(words):
            fresh[t] = 0
        _image(front[v], step, words, fresh)
        for t in range(words):
            new = fresh[t] & ~reach[v, t]
            front[v, t] = new
            reach[v, t] |= new
            if new:
                grew = True
    return grew


@numba.njit(cache=True, inline="always")
def _clear(work: np.ndarray, kinds: int, m: int, words: int) -> None:  # pragma: no cover - compiled
    """Zero the first ``kinds`` tables of ``work`` over m rows and ``words`` words (loops: a slice
    assignment of this strided view is slower in numba)."""
    for k in range(kinds):
        for v in range(m):
            for t in range(words):
                work[k, v, t] = 0


@numba.njit(cache=True, inline="always")
def _start(front: np.ndarray, reach: np.ndarray, m: int) -> None:  # pragma: no cover - compiled
    """Every source's search starts at itself."""
    one = np.uint64(1)
    for v in range(m):
        reach[v, v >> 6] |= one << np.uint64(v & 63)
        front[v, v >> 6] |= one << np.uint64(v & 63)


@numba.njit(cache=True)
def _trace(
    weak: np.ndarray, strong: np.ndarray, m: int, source: int, target: int, path: np.ndarray
) -> int:  # pragma: no cover - compiled
    """A shortest walk of double steps (weak then strong) from node ``source`` to node ``target``,
    written as source, w1, y1, ..., target into ``path``; returns its number of nodes (0: none).
    The searches stop at the level of their first find, so this walk is as short as theirs."""
    words = (m + 63) // 64
    one = np.uint64(1)
    parent = np.full(m, -1, np.int64)
    mid = np.full(m, -1, np.int64)
    queue = np.empty(m, np.int64)
    seen = np.zeros(m, np.bool_)
    seen[source] = True
    queue[0] = source
    head, tail = 0, 1
    while head < tail and not seen[target]:
        q = queue[head]
        head += 1
        for t in range(words):
            bits = weak[q, t]
            while bits:
                w = t * 64 + _lowest(bits)
                bits &= bits - one
                for t2 in range(words):
                    nxt = strong[w, t2]
                    while nxt:
                        y = t2 * 64 + _lowest(nxt)
                        nxt &= nxt - one
                        if not seen[y]:
                            seen[y] = True
                            parent[y] = q
                            mid[y] = w
                            queue[tail] = y
                            tail += 1
    if not seen[target]:
        return 0
    k = 0
    v = target
    while v != source:
        path[k] = v
        path[k + 1] = mid[v]
        k += 2
        v = parent[v]
    path[k] = source
    k += 1
    for i in range(k // 2):
        path[i], path[k - 1 - i] = path[k - 1 - i], path[i]
    return k


@numba.njit(cache=True, inline="always")
def _victim(cand: np.ndarray, values: np.ndarray, sees: np.ndarray, a: int, b: int, digit: int) -> int:
    """The first open cell other than a and b holding ``digit`` and seeing both (-1: none): in
    mode Y the one candidate weak-linked to both ends (a, digit), (b, digit) of a loop's weak
    link between two cells (a link inside one two-digit cell has none)."""
    if a == b:
        return -1
    one = np.uint64(1)
    for t in range(sees.shape[1]):
        both = sees[a, t] & sees[b, t]
        while both:
            e = t * 64 + _lowest(both)
            both &= both - one
            if values[e] == 0 and cand[e, digit]:
                return e
    return -1


@numba.njit(cache=True)
def _chain_search(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    sees: np.ndarray,
    mode: int,
    digit: int,
    chains: bool,
    lit: np.ndarray,
    work: np.ndarray,
    out: np.ndarray,
    paths: np.ndarray,
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
    n) and ``work`` (7, literals, words) are scratch space; ``sees`` (cells, words) which cells
    see which.

    Mode Y looks for loops only (its eliminations and placements stay -1), and its literals are
    the candidates of two-digit cells: every node of a Y loop is one (each has a strong link, and
    mode Y has those only in two-digit cells), and numbering them in the same (cell, digit) order
    keeps every search and trace in the order of all the literals, so the finds are the same; the
    one candidate a loop's answer names outside them, a victim seeing both ends of a weak link,
    is looked up among all the open candidates (``_victim``).  On the chain band's states that
    is a third of the literals (38 of 116 on average)."""
    ncell, n = cand.shape
    one = np.uint64(1)
    # one digit's search reads only that digit's column of ``lit`` (mode X never leaves it)
    low, high = (0, n) if digit < 0 else (digit, digit + 1)
    m = int(np.int64(0))  # not a literal 0: numba would compile the callees again for Literal[int](0)
    for c in range(ncell):
        usable = values[c] == 0
        if usable and mode == Y:
            count = 0
            for d in range(n):
                if cand[c, d]:
                    count += 1
            usable = count == 2
        for d in range(low, high):
            if usable and cand[c, d]:
                lit[c, d] = m
                m += 1
            else:
                lit[c, d] = -1
    for i in range(12):
        out[i] = -1
    if m == 0:
        return
    ends = np.full(7, -1, np.int64)  # the walks to trace: (source, end) of each kind, the loop's w
    words = (m + 63) // 64
    weak = work[0]
    strong = work[1]
    step = work[2]
    useful = work[3]
    reach = work[4]
    front = work[5]
    fresh = work[6, 0]
    _clear(work, 6, m, words)
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
                # step[v]: v -> not w -> y for the strong partners y of w (one pass with useful)
                for t2 in range(words):
                    step[v, t2] |= strong[w, t2]
                # useful[v]: weak partners w of v with a third literal seeing both (a victim)
                if mode == Y:
                    if _victim(cand, values, sees, cells[v], cells[w], digits[v]) >= 0:
                        useful[v, w >> 6] |= one << np.uint64(w & 63)
                    continue
                for t2 in range(words):
                    if weak[v, t2] & weak[w, t2]:
                        useful[v, w >> 6] |= one << np.uint64(w & 63)
                        break
    _start(front, reach, m)
    level = 0
    while True:
        found = False
        for v in range(m):
            for t in range(words if mode != Y else 0):  # mode Y: loops only
                # elimination: v -> ... -> y (level double steps), y weak v: 2 level + 1 links
                if out[0] < 0 and front[v, t] & weak[v, t]:
                    out[0] = 2 * level + 1
                    out[1] = cells[v]
                    out[2] = digits[v]
                    ends[0] = v
                    ends[1] = t * 64 + _lowest(front[v, t] & weak[v, t])
                # placement: not q -> v (strong) -> ... -> q: 2 level + 1 links
                hit = front[v, t] & strong[v, t]
                if out[3] < 0 and hit:
                    q = t * 64 + _lowest(hit)
                    out[3] = 2 * level + 1
                    out[4] = cells[q]
                    out[5] = digits[q]
                    ends[2] = v
                    ends[3] = q
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
                                if mode == Y:
                                    e = _victim(cand, values, sees, cells[w], cells[y], digits[w])
                                    out[6] = 2 * level + 2
                                    out[7] = e
                                    out[8] = digits[w]
                                    ends[4] = v
                                    ends[5] = y
                                    ends[6] = w
                                    break
                                for t2 in range(words):
                                    both = weak[w, t2] & weak[y, t2]
                                    if both:
                                        e = t2 * 64 + _lowest(both)
                                        out[6] = 2 * level + 2
                                        out[7] = cells[e]
                                        out[8] = digits[e]
                                        ends[4] = v
                                        ends[5] = y
                                        ends[6] = w
                                        break
                                break
            if out[6] >= 0 or (chains and (out[0] >= 0 or out[3] >= 0)):
                found = True
        if found:
            _trace_all(weak, strong, m, ends, cells, digits, out, paths)
            return
        if not _advance(front, reach, step, m, words, fresh):
            _trace_all(weak, strong, m, ends, cells, digits, out, paths)  # finds of earlier levels
            return
        level += 1


@numba.njit(cache=True)
def _trace_all(
    weak: np.ndarray,
    strong: np.ndarray,
    m: int,
    ends: np.ndarray,
    cells: np.ndarray,
    digits: np.ndarray,
    out: np.ndarray,
    paths: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Each find of ``_chain_search`` traced back: [source, ..., end] (the loop: then w, whose
    strong link closes it), as (cell, digit) rows in ``paths[k]``, its length in ``out[9 + k]``."""
    walk = np.empty(2 * m + 2, np.int64)
    for k in range(3):
        if ends[2 * k] < 0:
            continue
        size = _trace(weak, strong, m, ends[2 * k], ends[2 * k + 1], walk)
        if k == 2:
            walk[size] = ends[6]
            size += 1
        out[9 + k] = size
        for i in range(size):
            paths[k, i, 0] = cells[walk[i]]
            paths[k, i, 1] = digits[walk[i]]


@numba.njit(cache=True, inline="always")
def _digit_changed(
    known: np.ndarray, columns: np.ndarray, values: np.ndarray, cand: np.ndarray, d: int
) -> bool:  # pragma: no cover - compiled
    """Whether digit ``d``'s open candidates differ from those its last search saw (``columns[d]``,
    valid when ``known[d]``); when they do, ``columns[d]`` takes the new ones."""
    ncell = columns.shape[1]
    if known[d]:
        same = True
        for c in range(ncell):
            if columns[d, c] != (1 if values[c] == 0 and cand[c, d] else 0):
                same = False
                break
        if same:
            return False
    for c in range(ncell):
        columns[d, c] = 1 if values[c] == 0 and cand[c, d] else 0
    return True


@numba.njit(cache=True)
def _chains(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    sees: np.ndarray,
    mode: int,
    chains: bool,
    columns: np.ndarray,
    known: np.ndarray,
    parts: np.ndarray,
    walks: np.ndarray,
    out: np.ndarray,
    paths: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``_chain_search`` over the whole board, or digit by digit in mode X (one-digit chains
    never leave their digit, and small searches are much cheaper): the shortest of each kind.

    Mode X remembers each digit's last search: ``columns[d]`` its open candidates (0/1 per
    cell), ``parts[d]`` and ``walks[d]`` its answer, ``known[d]`` whether they are filled.  A
    digit's search reads nothing but its own open candidates (its literals are numbered in cell
    order among them), so while they are the same its answer is the one remembered; the engine's
    steps change one or two digits of a state, so most digits are not searched again."""
    ncell, n = cand.shape
    total = 0
    for c in range(ncell):
        if values[c] == 0:
            for d in range(n):
                if cand[c, d]:
                    total += 1
    lit = np.empty((ncell, n), np.int64)
    words = max(1, (total + 63) // 64)
    if mode != X:
        work = np.empty((7, max(total, 1), words), np.uint64)
        every = int(np.int64(-1))  # every digit; not a literal: one compiled _chain_search
        _chain_search(
            cand, values, units, cell_units, peers, sees, mode, every, chains, lit, work, out, paths
        )
        return
    for i in range(12):
        out[i] = -1
    work = np.empty((7, 1, 1), np.uint64)  # the scratch space, made when a digit is first searched
    made = False
    for d in range(n):
        if _digit_changed(known, columns, values, cand, d):
            if not made:
                work = np.empty((7, max(total, 1), words), np.uint64)
                made = True
            part, walk = parts[d], walks[d]
            _chain_search(
                cand, values, units, cell_units, peers, sees, mode, d, chains, lit, work, part, walk
            )
            known[d] = True
        part = parts[d]
        for k in (0, 3, 6):
            if part[k] >= 0 and (out[k] < 0 or part[k] < out[k]):
                out[k] = part[k]
                out[k + 1] = part[k + 1]
                out[k + 2] = part[k + 2]
                size = part[9 + k // 3]
                out[9 + k // 3] = size
                paths[k // 3, :size] = walks[d, k // 3, :size]


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
    paths: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The shortest one-digit chain of ``digit`` whose nodes may be groups: the cells of a box
    and a line holding the digit (two or more), true when the digit is in one of them.  Weak
    links join nodes whose cells all see each other; a unit whose places for the digit are
    exactly two disjoint nodes links them strongly.  out = [links, cell, digit] of an
    elimination, then of a placement (cells only), links -1 when none, then the number of nodes
    of each traced walk (``paths[k, i]``: the cells of node i of walk k, -1 after them; the
    elimination's walk from the removed cell, the placement's to the placed one).  ``cellbits``,
    ``node_cell``, ``sees_all`` (nodes, ...) and ``work`` (5, nodes, words) are scratch space."""
    ncell, n = cand.shape
    cw = seen.shape[1]
    one = np.uint64(1)
    for i in range(8):
        out[i] = -1
    ends = np.full(4, -1, np.int64)
    # nodes: open cells holding the digit, then box-line groups of two or more of them
    cellbits[:] = 0
    node_cell[:] = -1
    m = int(np.int64(0))
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
    _clear(work, work.shape[0], m, words)
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
        _image(weak[v], strong, words, step[v])
    fresh = np.zeros(words, np.uint64)
    _start(front, reach, m)
    level = 0
    while True:
        for v in range(m):
            for t in range(words):
                if out[0] < 0 and node_cell[v] >= 0 and front[v, t] & weak[v, t]:
                    out[0] = 2 * level + 1
                    out[1] = node_cell[v]
                    out[2] = digit
                    ends[0] = v
                    ends[1] = t * 64 + _lowest(front[v, t] & weak[v, t])
                hit = front[v, t] & strong[v, t]
                while out[3] < 0 and hit:
                    q = t * 64 + _lowest(hit)
                    hit &= hit - one
                    if node_cell[q] >= 0:
                        out[3] = 2 * level + 1
                        out[4] = node_cell[q]
                        out[5] = digit
                        ends[2] = v
                        ends[3] = q
        if out[0] >= 0 or out[3] >= 0:
            walk = np.empty(2 * m + 2, np.int64)
            for k in range(2):
                if ends[2 * k] < 0:
                    continue
                size = _trace(weak, strong, m, ends[2 * k], ends[2 * k + 1], walk)
                out[6 + k] = size
                for i in range(size):
                    j = 0
                    for t in range(cw):
                        bits = cellbits[walk[i], t]
                        while bits and j < paths.shape[2]:
                            paths[k, i, j] = t * 64 + _lowest(bits)
                            bits &= bits - one
                            j += 1
                    for r in range(j, paths.shape[2]):
                        paths[k, i, r] = -1
            return
        if not _advance(front, reach, step, m, words, fresh):
            return
        level += 1


@numba.njit(cache=True)
def _grouped(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    seen: np.ndarray,
    columns: np.ndarray,
    known: np.ndarray,
    parts: np.ndarray,
    walks: np.ndarray,
    out: np.ndarray,
    paths: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``_grouped_search`` for every digit: the shortest elimination and placement, traced.  As
    the X search of ``_chains``, each digit's last search is remembered (``columns``, ``known``,
    ``parts``, ``walks``) and its answer given again while its open candidates are the same."""
    ncell, n = cand.shape
    limit = ncell + 2 * n * n
    cellbits = np.empty((limit, seen.shape[1]), np.uint64)
    node_cell = np.empty(limit, np.int64)
    sees_all = np.empty((limit, seen.shape[1]), np.uint64)
    work = np.empty((5, 1, 1), np.uint64)  # the scratch space, made when a digit is first searched
    made = False
    for i in range(8):
        out[i] = -1
    for d in range(n):
        if _digit_changed(known, columns, values, cand, d):
            if not made:
                work = np.empty((5, limit, (limit + 63) // 64), np.uint64)
                made = True
            part, walk = parts[d], walks[d]
            _grouped_search(
                cand, values, units, cell_units, seen, d, cellbits, node_cell, sees_all, work, part, walk
            )
            known[d] = True
        part = parts[d]
        for k in (0, 3):
            if part[k] >= 0 and (out[k] < 0 or part[k] < out[k]):
                out[k] = part[k]
                out[k + 1] = part[k + 1]
                out[k + 2] = part[k + 2]
                size = part[6 + k // 3]
                out[6 + k // 3] = size
                paths[k // 3, :size] = walks[d, k // 3, :size]


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
    digit removed (z), most candidates in one cell of the set, the pivot, its digit x, the cells
    of the set].

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
                                out[4] = b
                                out[5] = x
                                for i in range(size):
                                    out[6 + i] = chosen[i]
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
def sees_table(geometry: Geometry) -> np.ndarray:
    """(cells, words) uint64: which cells see which (one table per box shape)."""
    return _peer_bits(tables(geometry).peers, geometry.n * geometry.n)


# -- answers per board state ---------------------------------------------------------------------------

#: Kinds of a chain search's finds, in the order of its answers.
ELIMINATION, PLACEMENT, LOOP = 0, 1, 2


@dataclass(frozen=True, slots=True)
class ChainFound:
    """The shortest finds of a chain search, per kind (elimination, placement, loop): ``links``
    (-1 when none), ``target`` (the (cell, digit) removed or placed; the loop's: one candidate
    seeing both ends of its closing weak link) and ``walk`` ((k, 2) rows of (cell, digit): the
    elimination's from the removed candidate, then weak, strong, ... to a candidate seeing it;
    the placement's from a strong partner of the placed candidate to it; the loop's round to a
    strong partner of its first)."""

    links: tuple[int, int, int]
    target: tuple[tuple[int, int], ...]
    walk: tuple[np.ndarray, ...]


@dataclass(frozen=True, slots=True, eq=False)
class GroupedFound:
    """The shortest grouped one-digit finds (elimination, placement): ``links`` (-1 when none),
    ``target`` (cell, digit), ``paths``: per kind the traced nodes as the kernel writes them (a
    node's cells, -1 after the last), read as ``walk``."""

    links: tuple[int, int]
    target: tuple[tuple[int, int], ...]
    paths: tuple[np.ndarray, ...]

    @property
    def walk(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Per kind, per node its cells (a group has several); () for a kind not found.  Made
        when asked: only a step is drawn from it, and most searches make none."""
        return tuple(tuple(tuple(c for c in node if c >= 0) for node in rows.tolist()) for rows in self.paths)


@dataclass(frozen=True, slots=True)
class WingFound:
    """A wing: the candidate removed (``cell``, ``digit`` z), the widest cell of its set, the
    ``pivot`` {x, z} and its digit ``x``, and the ``cells`` of the almost locked set."""

    cell: int
    digit: int
    widest: int
    pivot: int
    x: int
    cells: tuple[int, ...]


#: The walk of a kind not found (read only: shared by every answer).
_NO_WALK = np.zeros((0, 2), np.int64)
_NO_WALK.flags.writeable = False

# Per thread (a Dask worker may rate on several threads): the board state the answers belong to.
_here = threading.local()


def _answers_of(board: Board) -> dict[object, object]:
    """The searches' answers made on this board state in this thread, by search key (the rules of
    one family ask for the same search several times per state); emptied when the state changes."""
    state = board.state_key()
    if getattr(_here, "state", None) != state:
        _here.state = state
        _here.answers = {}
    answers: dict[object, object] = _here.answers
    return answers


@dataclass(frozen=True, slots=True)
class _DigitMemory:
    """Each digit's last one-digit search (see ``_chains``): its open candidates and answer."""

    columns: np.ndarray  # (n, cells) uint8
    known: np.ndarray  # (n,) bool
    parts: np.ndarray  # (n, answer size) int64
    walks: np.ndarray  # (n, kinds, walk length, node size) int64


#: One memory per search and box shape (a digit's answer depends on the units too, not only on n).
_digit_memory: dict[tuple[str, Geometry], _DigitMemory] = {}


def _memory(search: str, geometry: Geometry, answer: int, walks: tuple[int, int, int]) -> _DigitMemory:
    """The memory of a one-digit search (``search``: its name) for this box shape, made empty on
    first use: answers of ``answer`` numbers and walks of shape ``walks`` per digit."""
    memory = _digit_memory.get((search, geometry))
    if memory is None:
        n = geometry.n
        memory = _DigitMemory(
            np.zeros((n, n * n), np.uint8),
            np.zeros(n, np.bool_),
            np.full((n, answer), -1, np.int64),
            np.zeros((n, *walks), np.int64),
        )
        _digit_memory[(search, geometry)] = memory
    return memory


def searched(board: Board, mode: int) -> ChainFound | None:
    """The answer of ``chain_search(board, mode)`` if it was already made on this board state,
    else None (nothing is searched): a rule that another's search subsumes reads it here."""
    found = _answers_of(board).get(("chain", mode))
    return found if isinstance(found, ChainFound) else None


def no_xy_chain(board: Board) -> bool:
    """Whether the XY search (every link) already ran on this board state and found nothing:
    no elimination, placement or loop of any length (it stops empty only once its breadth-first
    search reaches no new literal).  A rule whose every step is such a chain or loop (the
    ``subsumed_by`` rules of the XY chains and 2-SAT) has no step there and need not search."""
    found = _answers_of(board).get(("chain", XY))
    return isinstance(found, ChainFound) and max(found.links) < 0


@dataclass(frozen=True, slots=True)
class _Scratch:
    """What the searches of one thread need on one box shape besides the board, made once: the
    kernel tables, the shapes of the digit memories' walks (the memories themselves are
    ``_digit_memory``'s), and the output buffers the kernels fill (what an answer keeps is
    copied out of them).  A kernel call with arrays made for it costs more than one
    with arrays it saw before, and the searches run 20,000 times in rating 2,000 puzzles."""

    geometry: Geometry
    units: np.ndarray
    cell_units: np.ndarray
    peers: np.ndarray
    sees: np.ndarray
    chain_walks: tuple[int, int, int]
    chain_out: np.ndarray  # (12,)
    chain_paths: np.ndarray  # (3, walk length, 2)
    grouped_out: np.ndarray  # (8,)
    grouped_paths: np.ndarray  # (2, walk length, node size)
    wing_out: np.ndarray  # (6 + largest size,)


def _scratch(board: Board) -> _Scratch:
    """This thread's ``_Scratch`` for the board's box shape (made when the shape changes)."""
    scratch: _Scratch | None = getattr(_here, "scratch", None)
    geometry = board.geometry
    if scratch is not None and (scratch.geometry is geometry or scratch.geometry == geometry):
        return scratch
    t = board.tables
    n = geometry.n
    cells = n * n
    # room for the longest walk: two nodes per literal (a bound, not counted: counting costs more)
    chain_walks = (3, 2 * cells * n + 4, 2)
    limit = cells + 2 * n * n
    grouped_walks = (2, 2 * limit + 2, max(geometry.p, geometry.q))
    scratch = _Scratch(
        geometry,
        t.units,
        t.cell_units,
        t.peers,
        sees_table(geometry),
        (3, 2 * cells + 4, 2),
        np.empty(12, np.int64),
        np.empty(chain_walks, np.int64),
        np.empty(8, np.int64),
        np.empty(grouped_walks, np.int64),
        np.zeros(6 + max(n, 4), np.int64),  # the largest wing has 4 cells (wings.RULES)
    )
    _here.scratch = scratch
    return scratch


def chain_search(board: Board, mode: int) -> ChainFound:
    """The shortest chains of a mode (X, Y: loops only, XY) on the board, traced (mode Y's
    eliminations and placements: none, -1)."""
    answers = _answers_of(board)
    found = answers.get(("chain", mode))
    if isinstance(found, ChainFound):
        return found
    s = _scratch(board)
    memory = _memory("chain", s.geometry, 12, s.chain_walks)
    out, paths = s.chain_out, s.chain_paths
    _chains(
        board.cand,
        board.values,
        s.units,
        s.cell_units,
        s.peers,
        s.sees,
        mode,
        mode != Y,
        memory.columns,
        memory.known,
        memory.parts,
        memory.walks,
        out,
        paths,
    )
    # one tolist, not a numpy scalar per number: the scalars cost twice the search of a state
    # whose digits are all remembered
    o = out.tolist()
    found = ChainFound(
        (o[0], o[3], o[6]),
        ((o[1], o[2]), (o[4], o[5]), (o[7], o[8])),
        tuple(paths[k, : o[9 + k]].copy() if o[9 + k] > 0 else _NO_WALK for k in range(3)),
    )
    answers[("chain", mode)] = found
    return found


def grouped_search(board: Board) -> GroupedFound:
    """The shortest grouped one-digit chains on the board (elimination, placement), traced."""
    answers = _answers_of(board)
    found = answers.get("grouped")
    if isinstance(found, GroupedFound):
        return found
    s = _scratch(board)
    memory = _memory("grouped", s.geometry, 8, s.grouped_paths.shape)
    out, paths = s.grouped_out, s.grouped_paths
    _grouped(
        board.cand,
        board.values,
        s.units,
        s.cell_units,
        s.sees,
        memory.columns,
        memory.known,
        memory.parts,
        memory.walks,
        out,
        paths,
    )
    o = out.tolist()
    walks = (
        paths[0, : o[6]].copy() if o[6] > 0 else paths[0, :0].copy(),
        paths[1, : o[7]].copy() if o[7] > 0 else paths[1, :0].copy(),
    )
    found = GroupedFound((o[0], o[3]), ((o[1], o[2]), (o[4], o[5])), walks)
    answers["grouped"] = found
    return found


def wing_search(board: Board, size: int) -> WingFound | None:
    """The lightest wing whose almost locked set has ``size`` cells, or None."""
    key = ("wing", size)
    answers = _answers_of(board)
    found = answers.get(key)
    if found is None and key not in answers:
        s = _scratch(board)
        out = s.wing_out[: 6 + size] if 6 + size <= len(s.wing_out) else np.zeros(6 + size, np.int64)
        _wings(board.cand, board.values, s.units, s.sees, size, out)
        o = out.tolist()
        found = WingFound(o[1], o[2], o[3], o[4], o[5], tuple(o[6:])) if o[0] else None
        answers[key] = found
    return found if isinstance(found, WingFound) else None
