"""2-SAT over the bivalue and bilocal implications (Eppstein 2012, section 5: "a heuristic
reduction to 2-SAT").

A boolean variable x[c, d] stands for "digit d goes in cell c", one per open candidate.  The
2-clauses every solution satisfies:

- bilocal: a digit with exactly two places a, b in a unit: x[a, d] or x[b, d];
- bivalue: a cell with exactly two candidates: x[c, d1] or x[c, d2];
- at most one: not x[a, d] or not x[b, d] for peers a, b; not x[c, d1] or not x[c, d2].

Each clause (p or q) gives the implications not p -> q and not q -> p.  In that implication
graph a literal that implies its own negation is false: x[c, d] -> ... -> not x[c, d] removes
d from c, and not x[c, d] -> ... -> x[c, d] places it.  A variable whose two literals share a
strongly connected component makes the clauses unsatisfiable: the puzzle has no solution.

Strong components come from a compiled Tarjan search (so rating never loads scipy.sparse);
which literals reach their negation is decided for all literals at once by bitset reachability
over the condensation (compiled, in chunks of target components so big grids stay within
memory).  A step shows one
literal with its shortest chain (a compiled breadth-first search, the one ``breadth_first_order`` makes).

Links of a step are the chain's arcs ``(cell a, cell b, digit, "implication")``: the digit is
the one both literals speak of, or, for an arc inside one cell (a == b), the digit of its head.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numba
import numpy as np

from ...errors import SudokuCpError
from ...graphs import canonical_csr
from ...limits import watch_compilation
from ..board import Board, Contradiction
from ..step import Link, Step
from .base import Rule
from .chain_search import no_xy_chain
from .scale import chain_weight

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "RULES",
    "ImplicationChainError",
    "Implications",
    "failed_literals",
    "implication_graph",
    "two_sat",
]


class ImplicationChainError(SudokuCpError, RuntimeError):
    """A failed literal has no implication chain to its negation to show: a bug in the 2-SAT rule,
    never bad input (a step must not be explained by a chain that is not one)."""


#: Failed literals whose chains a step compares (the shortest is shown; the order breaks ties).
_CHAINS_COMPARED = 24
#: Words of reachability bitsets kept at once (32 MiB): bounds memory on 25x25 boards.
_BITSET_WORDS = 1 << 22


@dataclass(frozen=True, slots=True)
class Implications:
    """The implication graph of a board.

    Literal ``v`` (0 <= v < size) is x[cells[v], digits[v]], literal ``v + size`` its negation;
    ``indptr`` and ``indices`` are the canonical CSR arrays (int64) of the implications over the
    2 size literals (the compiled searches read them as they are: no sparse matrix is built);
    ``n`` the grid side.
    """

    n: int
    cells: np.ndarray
    digits: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray

    @property
    def size(self) -> int:
        """Number of variables."""
        return len(self.cells)

    def negation(self, literal: int) -> int:
        """The opposite literal."""
        return (literal + self.size) % (2 * self.size)

    def name(self, literal: int) -> str:
        """'R1C1=5' or 'R1C1!=5' (1-based)."""
        v = literal % self.size
        cell = int(self.cells[v])
        sign = "=" if literal < self.size else "!="
        return f"R{cell // self.n + 1}C{cell % self.n + 1}{sign}{int(self.digits[v]) + 1}"


def implication_graph(board: Board) -> Implications:
    """The literals and implications of the bilocal, bivalue and at-most-one 2-clauses."""
    t = board.tables
    cells, digits, indptr, indices = _implications(board.cand, board.values, t.units, t.peers)
    return Implications(board.n, cells, digits, indptr, indices)


@numba.njit(cache=True)
def _implications(
    cand: np.ndarray, values: np.ndarray, units: np.ndarray, peers: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Literals (cells, digits of the open candidates, cell by cell) and the implication graph as
    canonical CSR arrays (indptr, indices): each clause (p or q) gives not p -> q and not q -> p."""
    n = cand.shape[1]
    n_cells = cand.shape[0]
    var = np.full((n_cells, n), -1, np.int64)
    cells = np.empty(n_cells * n, np.int64)
    digits = np.empty(n_cells * n, np.int64)
    size = 0
    for c in range(n_cells):
        if values[c] == 0:
            for d in range(n):
                if cand[c, d]:
                    var[c, d] = size
                    cells[size] = c
                    digits[size] = d
                    size += 1
    total = 2 * size
    cap = 2 * (units.shape[0] * n + n_cells + size * peers.shape[1] + n_cells * n * (n - 1) // 2)
    tails = np.empty(cap, np.int64)
    heads = np.empty(cap, np.int64)
    k = 0
    # bilocal: a unit with exactly two places for a digit it does not hold yet
    for u in range(units.shape[0]):
        for d in range(n):
            first = second = -1
            count = 0
            held = False
            for i in range(n):
                c = units[u, i]
                if values[c] == d + 1:
                    held = True
                if var[c, d] >= 0:
                    count += 1
                    if count == 1:
                        first = var[c, d]
                    else:
                        second = var[c, d]
            if count == 2 and not held:
                k = _clause(tails, heads, k, first, second, size)
    for c in range(n_cells):
        live = 0
        for d in range(n):
            if var[c, d] >= 0:
                live += 1
        # bivalue: a cell with exactly two candidates
        if live == 2:
            first = second = -1
            for d in range(n):
                if var[c, d] >= 0:
                    if first < 0:
                        first = var[c, d]
                    else:
                        second = var[c, d]
            k = _clause(tails, heads, k, first, second, size)
        # at most one digit per cell
        for d1 in range(n):
            if var[c, d1] < 0:
                continue
            for d2 in range(d1 + 1, n):
                if var[c, d2] >= 0:
                    k = _clause(tails, heads, k, var[c, d1] + size, var[c, d2] + size, size)
    # at most one of a digit among peers (each pair once)
    for v in range(size):
        c, d = cells[v], digits[v]
        for j in range(peers.shape[1]):
            other = peers[c, j]
            if other > c and var[other, d] >= 0:
                k = _clause(tails, heads, k, v + size, var[other, d] + size, size)
    indptr, indices, _ = canonical_csr(total, tails[:k], heads[:k], np.ones(k))
    return cells[:size].copy(), digits[:size].copy(), indptr, indices


@numba.njit(cache=True, inline="always")
def _clause(
    tails: np.ndarray, heads: np.ndarray, k: int, p: int, q: int, size: int
) -> int:  # pragma: no cover
    """The two implications of the clause (p or q): not p -> q, not q -> p."""
    total = 2 * size
    tails[k] = (p + size) % total
    heads[k] = q
    tails[k + 1] = (q + size) % total
    heads[k + 1] = p
    return k + 2


@numba.njit(cache=True)
def _strong_components(indptr: np.ndarray, indices: np.ndarray) -> tuple[int, np.ndarray]:  # pragma: no cover
    """(number, label of every node) of the strongly connected components of the graph with CSR
    arrays ``indptr``, ``indices``: Tarjan's search with explicit stacks.  The labels number the
    components in the order they complete (reverse topological); callers use only the partition."""
    n = indptr.shape[0] - 1
    order = np.full(n, -1, np.int64)  # discovery index
    low = np.zeros(n, np.int64)
    held = np.zeros(n, np.bool_)  # on Tarjan's stack
    stack = np.empty(n, np.int64)
    frames = np.empty(n, np.int64)  # the depth-first path
    edges = np.empty(n, np.int64)  # each frame's next arc
    labels = np.full(n, -1, np.int64)
    top = counter = components = 0
    for root in range(n):
        if order[root] >= 0:
            continue
        order[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        held[root] = True
        depth = 0
        frames[0] = root
        edges[0] = indptr[root]
        while depth >= 0:
            v = frames[depth]
            e = edges[depth]
            if e < indptr[v + 1]:
                edges[depth] = e + 1
                u = indices[e]
                if order[u] < 0:
                    order[u] = low[u] = counter
                    counter += 1
                    stack[top] = u
                    top += 1
                    held[u] = True
                    depth += 1
                    frames[depth] = u
                    edges[depth] = indptr[u]
                elif held[u] and order[u] < low[v]:
                    low[v] = order[u]
                continue
            if low[v] == order[v]:  # v roots a component: pop it
                while True:
                    top -= 1
                    w = stack[top]
                    held[w] = False
                    labels[w] = components
                    if w == v:
                        break
                components += 1
            depth -= 1
            if depth >= 0 and low[v] < low[frames[depth]]:
                low[frames[depth]] = low[v]
    return components, labels


@numba.njit(cache=True)
def _reaches_negation(
    indptr: np.ndarray, indices: np.ndarray, labels: np.ndarray, components: int, budget: int
) -> np.ndarray:  # pragma: no cover - compiled
    """For every literal u of a skew graph (negation = u +- half), whether u reaches its negation:
    bitset reachability over the condensation, in reverse topological order, by chunks of
    target components (``budget`` 64-bit words of bitsets at once)."""
    size = labels.shape[0]
    half = size // 2
    # condensation arcs (duplicates kept: they only repeat an OR)
    start = np.zeros(components + 1, dtype=np.int64)
    for u in range(size):
        for e in range(indptr[u], indptr[u + 1]):
            if labels[indices[e]] != labels[u]:
                start[labels[u] + 1] += 1
    for c in range(components):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    heads = np.empty(start[components], dtype=np.int64)
    indegree = np.zeros(components, dtype=np.int64)
    for u in range(size):
        cu = labels[u]
        for e in range(indptr[u], indptr[u + 1]):
            cv = labels[indices[e]]
            if cv != cu:
                heads[fill[cu]] = cv
                fill[cu] += 1
                indegree[cv] += 1
    # topological order (Kahn)
    order = np.empty(components, dtype=np.int64)
    tail = 0
    for c in range(components):
        if indegree[c] == 0:
            order[tail] = c
            tail += 1
    head = 0
    while head < tail:
        c = order[head]
        head += 1
        for e in range(start[c], start[c + 1]):
            v = heads[e]
            indegree[v] -= 1
            if indegree[v] == 0:
                order[tail] = v
                tail += 1
    words = (components + 63) // 64
    width = max(1, min(words, budget // max(components, 1)))
    bits = np.zeros((components, width), dtype=np.uint64)
    out = np.zeros(size, dtype=np.bool_)
    one = np.uint64(1)
    for w0 in range(0, words, width):
        low = w0 * 64
        high = min(components, (w0 + width) * 64)
        bits[:] = 0
        for position in range(components - 1, -1, -1):
            c = order[position]
            if low <= c < high:
                bits[c, (c - low) >> 6] |= one << np.uint64((c - low) & 63)
            for e in range(start[c], start[c + 1]):
                v = heads[e]
                for w in range(width):
                    bits[c, w] |= bits[v, w]
        for u in range(size):
            target = labels[(u + half) % size]
            if low <= target < high:
                b = target - low
                if (bits[labels[u], b >> 6] >> np.uint64(b & 63)) & one:
                    out[u] = True
    return out


@numba.njit(cache=True)
def _shortest_chain(
    indptr: np.ndarray, indices: np.ndarray, starts: np.ndarray, half: int
) -> np.ndarray:  # pragma: no cover - compiled
    """The literals of the shortest of the chains from each start literal to its negation (the first
    start wins ties; empty when none reaches).  Each chain is the one a breadth-first search finds
    (neighbours in CSR order, first discovery kept), as ``breadth_first_order`` would; a search stops
    once it can only find chains as long as the best one so far."""
    size = indptr.shape[0] - 1
    pred = np.empty(size, np.int64)
    dist = np.empty(size, np.int64)
    queue = np.empty(size, np.int64)
    best = np.empty(0, np.int64)
    for start in starts:
        end = (start + half) % size
        pred[:] = -1
        dist[start] = 0
        queue[0] = start
        head, tail = 0, 1
        while head < tail and pred[end] < 0:
            v = queue[head]
            head += 1
            if best.shape[0] and dist[v] + 2 >= best.shape[0]:
                break  # whatever this search finds from here on is no shorter than the best chain
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if u != start and pred[u] < 0:
                    pred[u] = v
                    dist[u] = dist[v] + 1
                    queue[tail] = u
                    tail += 1
        if pred[end] < 0:
            continue
        length = dist[end] + 1
        if best.shape[0] == 0 or length < best.shape[0]:
            best = np.empty(length, np.int64)
            v = end
            for i in range(length - 1, -1, -1):
                best[i] = v
                v = pred[v]
    return best


def _link(imp: Implications, tail: int, head: int) -> Link:
    a, b = tail % imp.size, head % imp.size
    return (int(imp.cells[a]), int(imp.cells[b]), int(imp.digits[b]), "implication")


def failed_literals(board: Board) -> tuple[Implications, np.ndarray]:
    """The implication graph and, per literal, whether it implies its own negation ((2 size,) bool).
    Raises Contradiction when some literal and its negation imply each other (unsatisfiable)."""
    imp = implication_graph(board)
    size = imp.size
    if size == 0:
        return imp, np.zeros(0, dtype=bool)
    components, labels = _strong_components(imp.indptr, imp.indices)
    both = np.flatnonzero(labels[:size] == labels[size:])
    if both.size:
        v = int(both[0])
        raise Contradiction(f"the 2-SAT implications force both {imp.name(v)} and {imp.name(v + size)}")
    failed = _reaches_negation(imp.indptr, imp.indices, labels, components, _BITSET_WORDS)
    return imp, failed


def two_sat(board: Board) -> Step | None:
    """A candidate whose truth implies its own falsity (removed), or whose falsity implies its
    truth (placed), through bivalue, bilocal and at-most-one implications.  Raises Contradiction
    when the implications are unsatisfiable.

    None at once when the XY search already ran on this board state and found no chain (see
    ``chain_search.no_xy_chain``): a literal implying its own negation is such a chain (the
    implications alternate at-most-one links, which the search has as weak links, with bivalue
    and bilocal ones, its strong links), and so are both halves of an unsatisfiable pair."""
    if no_xy_chain(board):
        return None
    imp, failed = failed_literals(board)
    size = imp.size
    literals = np.flatnonzero(failed)
    if literals.size == 0:
        return None
    # Compare the first literals in (cell, digit) order, elimination before placement.
    literals = literals[np.lexsort((literals >= size, literals % size))][:_CHAINS_COMPARED]
    best = _shortest_chain(imp.indptr, imp.indices, literals.astype(np.int64), size).tolist()
    # every literal compared reaches its negation (_reaches_negation), so a chain exists
    if not best or best[-1] != (best[0] + size) % (2 * size):
        raise ImplicationChainError(
            f"no implication chain from a failed literal to its negation (got {len(best)} literals)"
        )
    start = best[0]
    v = start % size
    cell, digit = int(imp.cells[v]), int(imp.digits[v])
    pair = np.array([[cell, digit]], dtype=np.int64)
    none = np.zeros((0, 2), dtype=np.int64)
    placements, eliminations = (none, pair) if start < size else (pair, none)
    links = tuple(_link(imp, a, b) for a, b in itertools.pairwise(best))
    chain_cells = tuple(dict.fromkeys(int(imp.cells[x % size]) for x in best))
    where = board.geometry.cell_name(cell)
    verdict = f"{digit + 1} leaves {where}" if start < size else f"{digit + 1} goes in {where}"
    note = " -> ".join(imp.name(x) for x in best) + f": {imp.name(start)} refutes itself, so {verdict}"
    # weighed as the alternating chain it is: its arcs alternate weak (at most one) and strong
    one_digit = len({int(imp.digits[x % size]) for x in best}) == 1
    weight = chain_weight(one_digit, False, len(links))
    return Step("2-sat", placements, eliminations, chain_cells, (), (digit,), links, note, weight)


RULES: tuple[Rule, ...] = (
    Rule(
        "2-sat",
        "twosat",
        "a chain of pairs (two places or two candidates) shows a candidate implies its own opposite",
        7.0,
        two_sat,
        subsumed_by=("x-chain", "xy-chain"),  # a 2-SAT chain is an alternating chain: the searches find one
    ),
)
