"""The two matching rules of Eppstein 2005 (section 3.1): perfect matchings and strong components.

- ``digit-matching`` (a digit across rows and columns): the n copies of a digit form a perfect
  matching of the bipartite graph rows x columns whose edges are the cells still open to it.
- ``unit-matching`` (a unit across digits and cells): the digits of a row, column or box form a
  perfect matching of the graph digits x cells of that unit.

An edge in no perfect matching is a candidate no solution uses.  One maximum matching is found
for every graph at once (``scipy.sparse.csgraph.maximum_bipartite_matching`` on the block-diagonal
union); matched edges are oriented left to right, the others right to left, and an unmatched edge
between two strongly connected components (``connected_components(connection="strong")``) lies
in no perfect matching.  A graph with no perfect matching shows the puzzle has no solution.

A step explains one Hall set in a player's words (the paper's restatement through Hall's
theorem): "rows {2,5} hold 7 only in columns {3,8}: the other cells of those columns lose 7".
For a dead edge (i, j), the vertices that reach j are a left set L matched onto a right set C
with no edge from L leaving C; the vertices i reaches give the mirror statement.  The step takes
the smallest such set over all dead edges, and removes every candidate that set rules out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ...errors import SudokuCpError
from ...limits import watch_compilation
from ..board import Board, Contradiction
from ..step import Step
from .base import Rule

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["RULES", "HallSetMissing", "Matchings", "dead_edges", "digit_matching", "unit_matching"]


class HallSetMissing(SudokuCpError, RuntimeError):
    """A dead edge was found but no Hall set explains it: a bug in the matching analysis, never bad input."""


@dataclass(frozen=True, slots=True)
class Matchings:
    """The matching analysis of G bipartite graphs with k left and k right vertices each.

    ``adjacency`` (G, k, k) bool; ``match`` (G, k): the right vertex matched to each left one
    (-1 when free); ``perfect`` (G,): the graph has a perfect matching; ``dead`` (G, k, k): edges
    in no perfect matching (only meaningful where ``perfect``).
    """

    adjacency: np.ndarray
    match: np.ndarray
    perfect: np.ndarray
    dead: np.ndarray


def dead_edges(adjacency: np.ndarray) -> Matchings:
    """Match every graph of the (G, k, k) stack at once and find the edges in no perfect matching."""
    # Imported here: scipy.sparse costs 0.15-0.25 s of start-up, and the rules call this only when
    # the compiled check (_quiet) has found something to say.
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

    adjacency = np.asarray(adjacency, dtype=bool)
    graphs, k, _ = adjacency.shape
    g, i, j = np.nonzero(adjacency)
    left, right = g * k + i, g * k + j
    bi = csr_matrix((np.ones(len(g), dtype=np.int8), (left, right)), shape=(graphs * k, graphs * k))
    flat = maximum_bipartite_matching(bi, perm_type="column")
    match = np.where(flat >= 0, flat - np.arange(graphs * k) // k * k, -1).reshape(graphs, k)
    perfect = (match >= 0).all(axis=1)
    matched = flat[left] == right
    # Nodes: graph g's left vertex i is 2kg + i, its right vertex j is 2kg + k + j.
    lnode, rnode = 2 * k * g + i, 2 * k * g + k + j
    tails = np.where(matched, lnode, rnode)
    heads = np.where(matched, rnode, lnode)
    size = 2 * k * graphs
    oriented = csr_matrix((np.ones(len(g), dtype=np.int8), (tails, heads)), shape=(size, size))
    _, labels = connected_components(oriented, directed=True, connection="strong")
    dead = np.zeros_like(adjacency)
    dead[g, i, j] = ~matched & (labels[lnode] != labels[rnode])
    return Matchings(adjacency, match, np.asarray(perfect), dead)


@numba.njit(cache=True, inline="always")
def _low_index(x: np.uint64) -> int:  # pragma: no cover - compiled
    """Index of the lowest set bit of x != 0 (a bit count of the ones below it)."""
    y = (x & (~x + np.uint64(1))) - np.uint64(1)
    y = y - ((y >> np.uint64(1)) & np.uint64(0x5555555555555555))
    y = (y & np.uint64(0x3333333333333333)) + ((y >> np.uint64(2)) & np.uint64(0x3333333333333333))
    y = (y + (y >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((y * np.uint64(0x0101010101010101)) >> np.uint64(56))


@numba.njit(cache=True)
def _speaks(
    rows: np.ndarray, allowed: np.ndarray, k: int, work: np.ndarray, masks: np.ndarray
) -> bool:  # pragma: no cover - compiled
    """Whether the bipartite graph with k <= 64 left vertices (``rows[i]``: bitmask of the right
    neighbours of left vertex i) has no perfect matching, or an edge in ``allowed`` (bitmasks
    likewise) that no perfect matching uses: the matching rules' "something to say", without scipy.

    A maximum matching (greedy, then augmenting paths); with a perfect matching M, an edge (i, j)
    outside M lies in another perfect matching exactly when the left vertex matched to j is
    reachable from i along alternating paths (i -> i' when the edge (i', M(i)) exists), as
    ``dead_edges`` finds through strong components.  Neither answer depends on which maximum
    matching was found.  ``work`` is (4, k) int64 and ``masks`` (3, k) uint64 scratch space."""
    one = np.uint64(1)
    match_left, match_right, stack, chosen = work[0], work[1], work[2], work[3]
    options, reach, columns = masks[0], masks[1], masks[2]
    match_right[:k] = -1
    free = ~np.uint64(0)
    for i in range(k):
        avail = rows[i] & free
        match_left[i] = -1
        if avail:
            j = _low_index(avail)
            match_left[i] = j
            match_right[j] = i
            free &= ~(one << np.uint64(j))
    for root in range(k):
        if match_left[root] >= 0:
            continue
        # depth-first augmenting path from the free left vertex ``root``
        seen = np.uint64(0)
        top = 0
        stack[0] = root
        options[0] = rows[root]
        found = False
        while top >= 0:
            avail = options[top] & ~seen
            if not avail:
                top -= 1
                continue
            j = _low_index(avail)
            seen |= one << np.uint64(j)
            chosen[top] = j
            if match_right[j] < 0:
                found = True
                break
            top += 1
            stack[top] = match_right[j]
            options[top] = rows[stack[top]]
        if not found:
            return True  # no perfect matching
        for t in range(top, -1, -1):  # flip the path
            match_left[stack[t]] = chosen[t]
            match_right[chosen[t]] = stack[t]
    # alternating reachability between left vertices, then the edges outside the matching
    columns[:k] = 0
    for i in range(k):
        row = rows[i]
        while row:
            columns[_low_index(row)] |= one << np.uint64(i)
            row &= row - one
    for i in range(k):
        reach[i] = columns[match_left[i]] | (one << np.uint64(i))
    for x in range(k):  # transitive closure, Warshall's order: one pass over the middle vertex
        bit = one << np.uint64(x)
        for i in range(k):
            if reach[i] & bit:
                reach[i] |= reach[x]
    for i in range(k):
        outside = rows[i] & allowed[i] & ~(one << np.uint64(match_left[i]))
        while outside:
            j = _low_index(outside)
            if not (reach[i] >> np.uint64(match_right[j])) & one:
                return True
            outside &= outside - one
    return False


@numba.njit(cache=True)
def _any_hall(adjacency: np.ndarray, allowed: np.ndarray) -> bool:  # pragma: no cover - compiled
    """``_speaks`` for some graph of a (G, k, k) stack of adjacency and allowed edges (k <= 64)."""
    graphs, k, _ = adjacency.shape
    one = np.uint64(1)
    rows = np.zeros(k, np.uint64)
    keep = np.zeros(k, np.uint64)
    work = np.empty((4, k), np.int64)
    masks = np.empty((3, k), np.uint64)
    for g in range(graphs):
        for i in range(k):
            rows[i] = 0
            keep[i] = 0
            for j in range(k):
                if adjacency[g, i, j]:
                    rows[i] |= one << np.uint64(j)
                if allowed[g, i, j]:
                    keep[i] |= one << np.uint64(j)
        if _speaks(rows, keep, k, work, masks):
            return True
    return False


@numba.njit(cache=True)
def _board_speaks(
    cand: np.ndarray, values: np.ndarray, units: np.ndarray, digits: bool
) -> bool:  # pragma: no cover
    """``_any_hall`` on the board's digit graphs (rows x columns, ``digits``) or unit graphs (digits x
    the unit's cells), the edges at open cells allowed; built straight from the candidates."""
    n = cand.shape[1]
    one = np.uint64(1)
    work = np.empty((4, n), np.int64)
    masks = np.empty((3, n), np.uint64)
    if digits:
        # graph d: row r -> the columns c where cell (r, c) holds d; allowed: the open cells
        graphs = np.zeros((n, n), np.uint64)
        keep = np.zeros(n, np.uint64)
        for c in range(n * n):
            r, col = c // n, c % n
            bit = one << np.uint64(col)
            if values[c] == 0:
                keep[r] |= bit
            for d in range(n):
                if cand[c, d]:
                    graphs[d, r] |= bit
        for d in range(n):  # noqa: SIM110 - a generator does not compile in numba
            if _speaks(graphs[d], keep, n, work, masks):
                return True
        return False
    # unit graph u: digit d -> the unit's positions holding it; allowed: the open positions
    rows = np.zeros(n, np.uint64)
    keep = np.zeros(n, np.uint64)
    for u in range(units.shape[0]):
        rows[:] = 0
        opened = np.uint64(0)
        for i in range(n):
            c = units[u, i]
            bit = one << np.uint64(i)
            if values[c] == 0:
                opened |= bit
            for d in range(n):
                if cand[c, d]:
                    rows[d] |= bit
        keep[:] = opened
        if _speaks(rows, keep, n, work, masks):
            return True
    return False


def _quiet(board: Board, digits: bool) -> bool:
    """True when the matching rule surely finds nothing and no contradiction (``_board_speaks`` says
    so); False for grids wider than 64, where the full analysis runs."""
    return board.n <= 64 and not _board_speaks(board.cand, board.values, board.tables.units, digits)


def _orientation(adjacency: np.ndarray, match: np.ndarray, *, matched_forward: bool) -> np.ndarray:
    """The (2k, 2k) bool digraph of one graph: matched edges left->right and the others
    right->left (``matched_forward``), or the reverse orientation (alternating paths from a
    free left vertex)."""
    k = adjacency.shape[0]
    is_match = np.zeros_like(adjacency)
    rows = np.flatnonzero(match >= 0)
    is_match[rows, match[rows]] = True
    forward = is_match if matched_forward else adjacency & ~is_match
    backward = adjacency & ~is_match if matched_forward else is_match
    arcs = np.zeros((2 * k, 2 * k), dtype=bool)
    arcs[:k, k:] = forward
    arcs[k:, :k] = backward.T
    return arcs


def _closure(arcs: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a stack of (m, m) bool digraphs (repeated squaring)."""
    reach = arcs | np.eye(arcs.shape[-1], dtype=bool)
    while True:
        # float32 goes through BLAS (integer matmul does not: 225x225 spent seconds here); the
        # path counts stay exact (at most the side m < 2**24), and only "> 0" is kept.
        step = (reach.astype(np.float32) @ reach.astype(np.float32)) > 0
        if np.array_equal(step, reach):
            return reach
        reach = step


@dataclass(frozen=True, slots=True)
class _Hall:
    """A Hall set of one graph: left set L matched onto right set C.

    ``forward``: no edge leaves L except into C, so the other left vertices lose C (the rule's
    first form); else no edge enters C except from L, so L loses every right vertex outside C.
    """

    graph: int
    left: np.ndarray
    right: np.ndarray
    forward: bool

    def removed(self, adjacency: np.ndarray) -> np.ndarray:
        """The (k, k) edges this Hall set rules out."""
        k = adjacency.shape[1]
        in_left = np.zeros(k, dtype=bool)
        in_left[self.left] = True
        in_right = np.zeros(k, dtype=bool)
        in_right[self.right] = True
        cut = ~in_left[:, None] & in_right[None, :] if self.forward else in_left[:, None] & ~in_right[None, :]
        return adjacency[self.graph] & cut


def _smallest_hall(m: Matchings, allowed: np.ndarray) -> _Hall | None:
    """The smallest Hall set explaining a dead edge that ``allowed`` (G, k, k) keeps; ties go to
    the first graph, the first form, the first edge."""
    dead = m.dead & allowed & m.perfect[:, None, None]
    graphs = np.flatnonzero(dead.any(axis=(1, 2)))
    if graphs.size == 0:
        return None
    k = m.adjacency.shape[1]
    arcs = np.stack([_orientation(m.adjacency[g], m.match[g], matched_forward=True) for g in graphs])
    reach = _closure(arcs)
    best: tuple[int, int, int, int, int] | None = None
    for slot, graph in enumerate(graphs):
        for i, j in zip(*np.nonzero(dead[graph]), strict=True):
            # Vertices reaching right j: a left set whose edges all stay in its matched columns.
            ancestors = int(reach[slot, k:, k + j].sum())
            # Vertices left i reaches: a right set whose edges all come from its matched rows.
            descendants = int(reach[slot, i, :k].sum())
            for size, form in ((ancestors, 0), (descendants, 1)):
                key = (size, slot, form, int(i), int(j))
                if best is None or key < best:
                    best = key
    if best is None:  # every graph kept above has a dead edge, and each gives a candidate
        raise HallSetMissing(f"dead edges in graphs {graphs.tolist()} but no Hall set explains one")
    _, slot, form, i, j = best
    g = int(graphs[slot])
    if form == 0:
        right = np.flatnonzero(reach[slot, k:, k + j])
        inverse = np.full(k, -1)
        inverse[m.match[g]] = np.arange(k)
        return _Hall(g, inverse[right], right, True)
    left = np.flatnonzero(reach[slot, i, :k])
    return _Hall(g, left, m.match[g, left], False)


def _violator(m: Matchings, g: int) -> tuple[np.ndarray, np.ndarray]:
    """A Hall violator of graph g (no perfect matching): left set L and its neighbours N, |N| < |L|."""
    k = m.adjacency.shape[1]
    reach = _closure(_orientation(m.adjacency[g], m.match[g], matched_forward=False)[None])[0]
    free = int(np.flatnonzero(m.match[g] < 0)[0])
    return np.flatnonzero(reach[free, :k]), np.flatnonzero(reach[free, k:])


def _numbers(values: np.ndarray) -> str:
    """A set of 0-based indices in the user's 1-based words: '{2,5,7}'."""
    return "{" + ",".join(str(int(v) + 1) for v in np.sort(values)) + "}"


def _digit_adjacency(board: Board) -> np.ndarray:
    """(n, n, n) bool: for digit d, row r and column c, cell (r, c) is open to d or holds it."""
    n = board.n
    return np.ascontiguousarray(board.cand.reshape(n, n, n).transpose(2, 0, 1)).astype(bool)


def digit_matching(board: Board) -> Step | None:
    """A set of rows holding a digit only in as many columns (or the mirror): the rest of those
    columns (rows) lose the digit.  Raises Contradiction when a digit has no placement covering
    every row and column."""
    n = board.n
    if _quiet(board, digits=True):
        return None
    m = dead_edges(_digit_adjacency(board))
    if not m.perfect.all():
        d = int(np.flatnonzero(~m.perfect)[0])
        rows, cols = _violator(m, d)
        raise Contradiction(
            f"digit {d + 1}: rows {_numbers(rows)} hold it only in columns {_numbers(cols)}, too few"
        )
    open_cells = (board.values == 0).reshape(1, n, n)
    hall = _smallest_hall(m, np.broadcast_to(open_cells, m.dead.shape))
    if hall is None:
        return None
    d = hall.graph
    removed = hall.removed(m.adjacency) & open_cells[0]
    r, c = np.nonzero(removed)
    eliminations = np.stack([r * n + c, np.full(len(r), d)], axis=1).astype(np.int64)
    base_cells = np.zeros((n, n), dtype=bool)
    if hall.forward:
        base_cells[hall.left, :] = True
        note = (
            f"rows {_numbers(hall.left)} hold {d + 1} only in columns {_numbers(hall.right)}: "
            f"the other cells of those columns lose {d + 1}"
        )
    else:
        base_cells[:, hall.right] = True
        note = (
            f"columns {_numbers(hall.right)} hold {d + 1} only in rows {_numbers(hall.left)}: "
            f"the other cells of those rows lose {d + 1}"
        )
    cells = np.flatnonzero((base_cells & m.adjacency[d]).reshape(-1))
    units = (*(int(x) for x in hall.left), *(n + int(x) for x in hall.right))
    return Step(
        "digit-matching",
        np.zeros((0, 2), dtype=np.int64),
        eliminations,
        tuple(int(x) for x in cells),
        units,
        (d,),
        note=note,
    )


def unit_matching(board: Board) -> Step | None:
    """A set of digits fitting only as many cells of a unit (hidden subset) or a set of cells
    holding only as many digits (naked subset), of any size.  Raises Contradiction when a unit's
    digits cannot all be placed in its cells."""
    if _quiet(board, digits=False):
        return None
    units = board.tables.units
    # Graph u: left = digits, right = the unit's cells in unit order.
    adjacency = np.ascontiguousarray(board.cand[units].transpose(0, 2, 1)).astype(bool)
    m = dead_edges(adjacency)
    geometry = board.geometry
    if not m.perfect.all():
        u = int(np.flatnonzero(~m.perfect)[0])
        digits, positions = _violator(m, u)
        room = " ".join(geometry.cell_name(int(c)) for c in units[u, positions])
        raise Contradiction(
            f"{geometry.unit_name(u)}: digits {_numbers(digits)} fit only in {room or 'no cell'}, too few"
        )
    open_cells = (board.values[units] == 0)[:, None, :]
    hall = _smallest_hall(m, np.broadcast_to(open_cells, m.dead.shape))
    if hall is None:
        return None
    u = hall.graph
    removed = hall.removed(m.adjacency) & open_cells[u]
    digit, position = np.nonzero(removed)
    order = np.lexsort((digit, position))
    eliminations = np.stack([units[u, position[order]], digit[order]], axis=1).astype(np.int64)
    cells = tuple(int(c) for c in units[u, np.sort(hall.right)])
    names = " ".join(geometry.cell_name(c) for c in cells)
    where = geometry.unit_name(u)
    if hall.forward:
        note = f"digits {_numbers(hall.left)} fit only {names} in {where}: those cells lose other digits"
    else:
        note = f"{names} in {where} hold only digits {_numbers(hall.left)}: the other cells lose them"
    return Step(
        "unit-matching",
        np.zeros((0, 2), dtype=np.int64),
        eliminations,
        cells,
        (u,),
        tuple(int(d) for d in np.sort(hall.left)),
        note=note,
    )


RULES: tuple[Rule, ...] = (
    Rule(
        "digit-matching",
        "matching",
        "some rows hold a digit only in as many columns: the rest of those columns lose it",
        5.6,
        digit_matching,
    ),
    Rule(
        "unit-matching",
        "matching",
        "some digits of a unit fit only as many cells (or cells hold only as many digits), any size",
        5.8,
        unit_matching,
    ),
)
