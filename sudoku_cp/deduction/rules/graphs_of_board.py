"""The bilocation graph and the bipartite bivalue graph of a board, and what the chain rules ask of them.

Eppstein 2005, section 3 (arXiv cs/0507053):

- the *bilocation graph* (section 3.2) has a vertex per open cell and an edge labelled ``d``
  between two cells when they are the only two places of digit ``d`` in some row, column or box
  (one edge when a line and a box both give it; two cells may be joined under two labels).  An
  edge ``a -d- b`` means exactly one of ``a``, ``b`` holds ``d``;
- the *bipartite bivalue graph* (section 3.5) has a vertex per open cell with exactly two
  candidates and a vertex per (unit, digit) pair; a bivalued cell ``c`` is joined to ``(g, d)``
  for each of its three units ``g`` and each of its two digits ``d``.  The flag at ``c`` carries
  the digit ``d``, the flag at ``(g, d)`` carries the cell ``c``.  A nonrepetitive walk
  ``c1 - (g, d) - c2`` is an edge ``c1 -d- c2`` of the paper's bivalue graph (``c1 != c2``
  because the two flags at ``(g, d)`` differ), and at a cell the walk arrives by one digit and
  leaves by the other.

Both graphs go through ``sudoku_cp.graphs`` (nr(G), Theorems 2.1 and 2.2).  Vertex numbering:
cell ``c`` is vertex ``c`` in both graphs (placed and unused cells are isolated vertices); in the
bivalue graph ``(g, d)`` is vertex ``n*n + g*n + d``.

What a port means on a walk from a start port (the hypothesis the walk starts from):

- bilocation, start ``(c, d)`` = "c is not d"; reaching the in-port of ``(u, e)`` means "u is e";
- bivalue, start ``(c, d)`` = "c is d"; reaching the in-port of cell ``u`` at ``(g, f)`` means
  "u is f" (u arrived at by its other digit, so it holds f).

``ChainGraph`` holds a graph, its nr(G) and the analyses the rules need, each computed once:
``chain_graph(board, kind)`` keeps the last few by board content, so the three rules of a family
called on one board build the graph once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numba
import numpy as np
import numpy.typing as npt

from ...errors import SudokuCpError
from ...graphs import LabelledGraph, NrGraph, Traversals, is_nonrepetitive_walk
from ...limits import watch_compilation
from ..board import Board
from ..step import Link

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "BILOCATION",
    "BIVALUE",
    "ChainGraph",
    "ChainWitnessError",
    "Conflict",
    "GraphKind",
    "bilocation_graph",
    "bivalue_graph",
    "chain_graph",
    "clear_cache",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
GraphKind = Literal["bilocation", "bivalue"]
BILOCATION: GraphKind = "bilocation"
BIVALUE: GraphKind = "bivalue"
_CACHE_SIZE = 4  # both graphs of the current board and of the one before
_REACH_CELLS = 1 << 22  # (start port, port) entries of reachability computed at once


def bilocation_graph(board: Board) -> LabelledGraph:
    """The bilocation graph: cells as vertices, an edge ``a -d- b`` when a and b are d's only two places
    in a unit.

    Edges come sorted by (a, b, d) with ``a < b``, each (pair, digit) once.
    """
    n = board.n
    a, b, digit = _bilocation_edges(board.cand, board.values, board.tables.units)
    return LabelledGraph.edge_labelled(n * n, a, b, digit, directed=False)


def bivalue_graph(board: Board) -> LabelledGraph:
    """The bipartite bivalue graph: cell ``c`` (two candidates) joined
    to ``(g, d)``, vertex ``n*n + g*n + d``.

    The flag at the cell carries the digit, the flag at ``(g, d)`` carries the cell.  Edges come
    sorted by cell, then digit, then unit (row, column, box).
    """
    n = board.n
    cell, unit_vertex, digit = _bivalue_edges(board.cand, board.values, board.tables.cell_units)
    return LabelledGraph.flag_labelled(n * n + 3 * n * n, cell, unit_vertex, digit, cell, directed=False)


@numba.njit(cache=True)
def _bilocation_edges(
    cand: np.ndarray, values: np.ndarray, units: IntArray
) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover - compiled
    """The bilocation edges (a, b, digit), sorted by (a, b, digit), each once: for every unit and digit
    with exactly two open places a < b (a unit lists its cells in increasing order)."""
    n = cand.shape[1]
    keys = np.empty(units.shape[0] * n, np.int64)
    count = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    second = np.empty(n, np.int64)
    k = 0
    for u in range(units.shape[0]):
        count[:] = 0
        for i in range(n):
            c = units[u, i]
            if values[c] != 0:
                continue
            for d in range(n):
                if cand[c, d]:
                    count[d] += 1
                    if count[d] == 1:
                        first[d] = c
                    else:
                        second[d] = c
        for d in range(n):
            if count[d] == 2:
                keys[k] = (first[d] * (n * n) + second[d]) * n + d
                k += 1
    keys = np.unique(keys[:k])
    return keys // n // (n * n), keys // n % (n * n), keys % n


@numba.njit(cache=True)
def _bivalue_edges(
    cand: np.ndarray, values: np.ndarray, cell_units: IntArray
) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover - compiled
    """The bivalue graph's edges (cell, unit vertex, digit): per open two-digit cell (ascending), its
    lower digit with its row, column and box, then its higher digit likewise."""
    n = cand.shape[1]
    n_cells = cand.shape[0]
    cell = np.empty(6 * n_cells, np.int64)
    unit_vertex = np.empty(6 * n_cells, np.int64)
    digit = np.empty(6 * n_cells, np.int64)
    k = 0
    for c in range(n_cells):
        if values[c] != 0:
            continue
        count = 0
        for d in range(n):
            count += cand[c, d]
        if count != 2:
            continue
        for d in range(n):
            if cand[c, d]:
                for t in range(3):
                    cell[k] = c
                    unit_vertex[k] = n_cells + cell_units[c, t] * n + d
                    digit[k] = d
                    k += 1
    return cell[:k].copy(), unit_vertex[:k].copy(), digit[:k].copy()


class ChainWitnessError(SudokuCpError, RuntimeError):
    """A chain's witness walk is missing or fails its check: a bug in the chain rules or in
    sudoku_cp.graphs, never bad input (a step must not be explained by a walk that is not one)."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two walks from one start port that end in two places of one unit holding the same digit.

    ``ends`` are the two in-ports the walks arrive at (reached from ``start``); ``cells`` the two
    cells that would both hold ``digit`` in ``unit``.
    """

    start: int  # the start port
    unit: int
    digit: int
    cells: tuple[int, int]
    ends: tuple[int, int]


class ChainGraph:
    """A board's bilocation or bivalue graph with its nr(G), and the facts the chain rules read from it."""

    def __init__(self, kind: GraphKind, board: Board) -> None:
        self.kind = kind
        self.n = board.n
        self.cand = board.cand.copy()
        self.values = board.values.copy()
        self.cell_units = board.tables.cell_units
        self.units = board.tables.units
        n = board.n
        t = board.tables
        if kind == BILOCATION:
            a, b, digit = _bilocation_edges(board.cand, board.values, t.units)
            self.nr = NrGraph.of_edges(n * n, a, b, digit, digit, directed=False)
        else:
            cell, unit_vertex, digit = _bivalue_edges(board.cand, board.values, t.cell_units)
            self.nr = NrGraph.of_edges(n * n + 3 * n * n, cell, unit_vertex, digit, cell, directed=False)

    @property
    def graph(self) -> LabelledGraph:
        """The bilocation or bivalue graph (``bilocation_graph``, ``bivalue_graph``), made when a step
        first needs it."""
        return self.nr.graph

    @property
    def traversals(self) -> Traversals:
        """The graph's traversals (made when a step first needs them)."""
        return self.graph.traversals()

    # -- vertices and ports ----------------------------------------------------------------------

    @property
    def n_cells(self) -> int:
        """Number of cells (vertices below this are cells)."""
        return self.n * self.n

    def unit_digit(self, vertex: int) -> tuple[int, int]:
        """The (unit, digit) of a bivalue-graph vertex at or above ``n_cells``."""
        return divmod(vertex - self.n_cells, self.n)

    @cached_property
    def cell_ports(self) -> IntArray:
        """Ports at cell vertices, in (cell, label) order: the start ports of the path rules."""
        return np.flatnonzero(self.nr.port_vertex < self.n_cells).astype(np.int64)

    @property
    def components(self) -> IntArray:
        """Strongly connected component of every node of nr(G) (``NrGraph.strong_components``)."""
        return self.nr.strong_components()

    def cycle_focus(self) -> int | None:
        """The first vertex whose realizable pairs (``pair_table``) leave it fewer labels than it has
        room for (bilocation: its candidates; bivalue: the open cells of its unit holding its digit;
        a cell of the bivalue graph has none), or no label at all; None when there is none."""
        nr = self.nr
        if nr.n_ports == 0:
            return None
        reach = self._port_reach
        found = _focus_kernel(
            nr.port_vertex,
            self.components if reach is None else np.zeros(0, np.int64),
            np.zeros((0, 0), np.bool_) if reach is None else reach,
            nr.n_ports, self.kind == BILOCATION, self.n_cells, self.cand, self.values, self.units,
        )  # fmt: skip
        return None if found < 0 else int(found)

    @cached_property
    def _port_reach(self) -> BoolArray | None:
        """Bilocation, where every port is at a cell (a start port): which in-ports each port's walks
        reach, for every port at once when the table is small.  It answers both the cycle rule (in-port
        a and out-port b of a vertex share a strong component exactly when out-port b reaches in-port
        a, since in-port a reaches out-port b inside the gadget) and the path rules, so the bilocation
        graph needs no strong components unless a cycle step is built.  None for the bivalue graph."""
        nr = self.nr
        if self.kind != BILOCATION or nr.n_ports**2 > _REACH_CELLS:
            return None
        return nr.reached_in_ports(np.arange(nr.n_ports))

    # -- Theorem 2.1: pairs of labels a closed walk can pass a vertex with -------------------------

    @cached_property
    def pair_table(self) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_]]:
        """``(vertices, labels, realizable)`` for the vertices with two ports or more.

        ``labels[v]`` lists the vertex's labels by rank (-1 past the end); ``realizable[v, i, j]``: some
        nonrepetitive closed walk passes the vertex arriving by label ``i`` and leaving by label ``j``
        (Theorem 2.1: in-port i and out-port j lie in one strong component of nr(G)).
        """
        nr = self.nr
        pv = nr.port_vertex
        if nr.n_ports == 0:
            return np.zeros(0, np.int64), np.zeros((0, 0), np.int64), np.zeros((0, 0, 0), np.bool_)
        starts = np.flatnonzero(np.r_[True, pv[1:] != pv[:-1]])
        sizes = np.diff(np.r_[starts, len(pv)])
        group = np.repeat(np.arange(len(starts)), sizes)
        rank = np.arange(len(pv)) - starts[group]
        k = int(sizes.max())
        labels = np.full((len(starts), k), -1, np.int64)
        labels[group, rank] = nr.port_label
        comp = self.components
        into = np.full((len(starts), k), -1, np.int64)
        out = np.full((len(starts), k), -2, np.int64)
        into[group, rank] = comp[: nr.n_ports]
        out[group, rank] = comp[nr.n_ports : 2 * nr.n_ports]
        realizable = into[:, :, None] == out[:, None, :]
        realizable &= ~np.eye(k, dtype=np.bool_)[None]
        realizable |= realizable.transpose(0, 2, 1)  # a reversed closed walk is one too
        keep = sizes >= 2
        return pv[starts][keep], labels[keep], realizable[keep]

    @cached_property
    def loop_pairs(self) -> dict[int, list[tuple[int, int]]]:
        """Per vertex that some nonrepetitive closed walk passes: its realizable label pairs ``(x, y)``,
        ``x < y`` (each realizable both ways), in label order."""
        vertices, labels, realizable = self.pair_table
        out: dict[int, list[tuple[int, int]]] = {}
        if not len(vertices):
            return out
        # every realizable pair once (upper triangle), as (vertex row, lower label, higher label)
        upper = np.triu(np.ones(realizable.shape[1:], dtype=np.bool_))
        row, a, b = np.nonzero(realizable & upper)
        x, y = labels[row, a], labels[row, b]
        rows = np.unique(np.stack([row, np.minimum(x, y), np.maximum(x, y)], axis=1), axis=0)
        for i, low, high in rows.tolist():
            out.setdefault(int(vertices[i]), []).append((low, high))
        return out

    def reverse(self, walk: list[int]) -> list[int]:
        """The walk taken backwards (traversal ``t`` and ``m + t`` are one edge's two directions)."""
        m = self.graph.n_edges
        return [t + m if t < m else t - m for t in reversed(walk)]

    def closed_walk(self, vertex: int, arrive: int, leave: int) -> list[int]:
        """A nonrepetitive closed walk (traversals) leaving ``vertex`` by ``leave``, back by ``arrive``.

        The pair must be realizable (``pair_table``); the closing is nonrepetitive since the labels differ.
        """
        nr = self.nr
        tr = self.traversals
        port_in = nr.port(vertex, arrive)
        if port_in is None or arrive == leave:
            raise ChainWitnessError(
                f"no closed walk at vertex {vertex} arriving by {arrive} and leaving by {leave}: "
                "not a realizable pair"
            )
        comp = self.components
        # a traversal into (vertex, arrive) from inside the strong component: the walk's last step
        ends = np.flatnonzero((nr.in_node == port_in) & (comp[nr.out_node] == comp[port_in]))
        found = np.flatnonzero(nr.walk_lengths(vertex, leave, ends) > 0)  # the first end a walk reaches
        if not len(found):
            raise ChainWitnessError(
                f"no closed walk at vertex {vertex} arriving by {arrive} and leaving by {leave}"
            )
        walk = nr.nonrepetitive_walk(vertex, leave, int(ends[found[0]]))
        # a step's explanation is this walk: check it is what it claims before a player reads it
        if (
            walk is None
            or not is_nonrepetitive_walk(self.graph, walk, closed=True)
            or int(tr.source[walk[0]]) != vertex
        ):
            raise ChainWitnessError(
                f"the closed walk at vertex {vertex} (arriving by {arrive}, leaving by {leave}) "
                "is missing or fails its check"
            )
        return walk

    def passes(self, walk: list[int]) -> list[tuple[int, int, int]]:
        """Every pass of a closed walk through a vertex: (vertex, arriving label, leaving label), in walk
        order (the pass that closes the walk comes first)."""
        tr = self.traversals
        return [
            (int(tr.target[walk[i - 1]]), int(tr.in_label[walk[i - 1]]), int(tr.out_label[walk[i]]))
            for i in range(len(walk))
        ]

    # -- Theorem 2.2: what walks from each start port reach ------------------------------------------

    def reached(self, port: int) -> tuple[BoolArray, BoolArray]:
        """What nonrepetitive walks from start port ``port`` (its vertex, first label its label) reach:
        per traversal, whether such a walk ends with it (Theorem 2.2), and per port, whether such a walk
        arrives at its in-port (its last step enters the port's vertex by the port's label)."""
        nr = self.nr
        flags = nr.reachable_edges(int(nr.port_vertex[port]), int(nr.port_label[port]))
        hit = np.zeros(nr.n_ports, np.bool_)
        hit[nr.in_node[flags]] = True
        return flags, hit

    @cached_property
    def _fact_table(self) -> tuple[BoolArray, IntArray]:
        """Per start port: whether a walk returns by the start label, and (key, first end, second end) of
        its first conflict (-1 when none).  All start ports at once, in compiled chunks."""
        nr = self.nr
        starts = self.cell_ports
        repeats = np.zeros(len(starts), np.bool_)
        conflicts = np.full((len(starts), 3), -1, np.int64)
        chunk = max(1, _REACH_CELLS // max(nr.n_ports, 1))  # bounds the (starts, ports) table
        for lo in range(0, len(starts), chunk):
            reach = self._port_reach  # bilocation: starts are all the ports, one chunk
            hits = nr.reached_in_ports(starts[lo : lo + chunk]) if reach is None else reach
            repeats[lo : lo + chunk], conflicts[lo : lo + chunk] = _facts_kernel(
                hits, starts[lo : lo + chunk], nr.port_vertex, nr.port_label, self.cell_units, self.n,
                self.kind == BILOCATION, self.n_cells,
            )  # fmt: skip
        return repeats, conflicts

    def walk_fact(self, i: int) -> tuple[bool, Conflict | None]:
        """For start port ``cell_ports[i]``: whether a walk returns to the start by the start label (the
        repetitive cycle), and the first pair of conflicting walk ends (the conflicting paths), or None.

        Bilocation: a reached in-port ``(u, e)`` means u holds e; the conflict is the (unit, digit) of
        smallest ``unit * n + digit`` that two reached cells share, with its two smallest ports.
        Bivalue: a reached in-port of cell u at ``(g, f)`` means u holds f; the conflict is the first
        ``(g, f)`` vertex with two reached ports, the start cell's own ports left out (they restate the
        hypothesis or a repetitive cycle).  Every start port's facts come from one compiled pass.
        """
        repeats, conflicts = self._fact_table
        key, p1, p2 = (int(x) for x in conflicts[i])
        if p1 < 0:
            return bool(repeats[i]), None
        nr = self.nr
        if self.kind == BILOCATION:
            unit, digit = divmod(key, self.n)
            cells = (int(nr.port_vertex[p1]), int(nr.port_vertex[p2]))
        else:
            unit, digit = self.unit_digit(key)
            cells = (int(nr.port_label[p1]), int(nr.port_label[p2]))
        return bool(repeats[i]), Conflict(int(self.cell_ports[i]), unit, digit, cells, (p1, p2))

    def first_fact(self, which: int) -> int | None:
        """Index of the first start port whose ``walk_fact`` has item ``which`` set (0: a repetitive
        cycle, 1: a conflict), or None."""
        repeats, conflicts = self._fact_table
        hits = np.flatnonzero(repeats if which == 0 else conflicts[:, 1] >= 0)
        return int(hits[0]) if len(hits) else None

    @property
    def walk_facts(self) -> tuple[BoolArray, list[Conflict | None]]:
        """``walk_fact`` of every start port: (repeats, conflicts)."""
        facts = [self.walk_fact(i) for i in range(len(self.cell_ports))]
        return np.array([repeat for repeat, _ in facts], dtype=np.bool_), [conflict for _, conflict in facts]

    def walk_into(self, port: int, end: int) -> list[int]:
        """A shortest nonrepetitive walk from start port ``port`` whose last step enters port ``end``'s
        in-port (its vertex by its label); the port must be reached (``walk_fact``)."""
        nr = self.nr
        start, label = int(nr.port_vertex[port]), int(nr.port_label[port])
        entering = np.flatnonzero(nr.in_node == end)
        lengths = nr.walk_lengths(start, label, entering)
        if not (lengths > 0).any():
            raise ChainWitnessError(f"no walk from start port {port} enters port {end}")
        # the first of the shortest, as min() over the walks in traversal order would pick
        best = int(entering[np.argmin(np.where(lengths > 0, lengths, np.iinfo(np.int64).max))])
        walk = nr.nonrepetitive_walk(start, label, best)
        # nonrepetitive_walk checks the walk itself; here, that it is the walk asked for
        if walk is None or walk[-1] != best or int(self.traversals.source[walk[0]]) != start:
            raise ChainWitnessError(
                f"the walk from start port {port} into port {end} is missing or is another walk"
            )
        return walk

    # -- walks as a player sees them ------------------------------------------------------------

    def links(self, walk: list[int]) -> list[Link]:
        """The chain's links in walk order: bilocation traversals as they are; bivalue traversal pairs
        ``c1 -> (g, d) -> c2`` as one link ``(c1, c2, d)`` (a walk starting at ``(g, d)`` is read from its
        second step; a last half-link into a unit vertex is left out)."""
        tr = self.traversals
        if self.kind == BILOCATION:
            return [(int(tr.source[t]), int(tr.target[t]), int(tr.in_label[t]), BILOCATION) for t in walk]
        steps = list(walk)
        if steps and int(tr.source[steps[0]]) >= self.n_cells:
            steps = steps[1:] + steps[:1]  # a closed walk starting at a unit vertex: start at a cell
        out: list[Link] = []
        for first, second in zip(steps[0::2], steps[1::2], strict=False):
            out.append((int(tr.source[first]), int(tr.target[second]), int(tr.out_label[first]), BIVALUE))
        return out


@numba.njit(cache=True, inline="always")
def _realizable(
    comp: IntArray, reach: BoolArray, n_ports: int, a: int, b: int
) -> bool:  # pragma: no cover - compiled
    """Some closed walk passes the vertex of ports a and b by a and b (either way round): from the
    strong components, or (``reach`` not empty) from which in-ports each port's walks reach."""
    if reach.shape[0]:
        return reach[b, a] or reach[a, b]
    return comp[a] == comp[n_ports + b] or comp[b] == comp[n_ports + a]


@numba.njit(cache=True)
def _focus_kernel(
    port_vertex: IntArray,
    comp: IntArray,
    reach: BoolArray,
    n_ports: int,
    bilocation: bool,
    n_cells: int,
    cand: np.ndarray,
    values: np.ndarray,
    units: IntArray,
) -> int:  # pragma: no cover - compiled
    """``ChainGraph.cycle_focus`` over the strong components (or the port reach table): in-port a and
    out-port b of a vertex in one component make the pair {a, b} realizable."""
    n = cand.shape[1]
    i = 0
    while i < n_ports:
        j = i
        while j < n_ports and port_vertex[j] == port_vertex[i]:
            j += 1
        k = j - i
        if k >= 2:
            pairs = 0
            for a in range(k):
                for b in range(a + 1, k):
                    if _realizable(comp, reach, n_ports, i + a, i + b):
                        pairs += 1
            if pairs:
                kept = 0  # labels in every realizable pair
                for a in range(k):
                    degree = 0
                    for b in range(k):
                        if b != a and _realizable(comp, reach, n_ports, i + a, i + b):
                            degree += 1
                    if degree == pairs:
                        kept += 1
                v = port_vertex[i]
                room = 0
                if bilocation:
                    for d in range(n):
                        room += cand[v, d]
                elif v >= n_cells:
                    g = (v - n_cells) // n
                    d = (v - n_cells) % n
                    for t in range(n):
                        c = units[g, t]
                        if values[c] == 0 and cand[c, d]:
                            room += 1
                if kept == 0 or room > kept:
                    return v
        i = j
    return -1


@numba.njit(cache=True)
def _facts_kernel(
    hits: BoolArray,
    starts: IntArray,
    port_vertex: IntArray,
    port_label: IntArray,
    cell_units: IntArray,
    n: int,
    bilocation: bool,
    n_cells: int,
) -> tuple[BoolArray, IntArray]:  # pragma: no cover - compiled
    """``ChainGraph.walk_fact`` for each start port (row of ``hits``: the in-ports its walks reach)."""
    rows, n_ports = hits.shape
    repeats = np.zeros(rows, np.bool_)
    conflicts = np.full((rows, 3), -1, np.int64)
    first = np.empty(3 * n * n, np.int64)
    second = np.empty(3 * n * n, np.int64)
    stamp = np.full(3 * n * n, -1, np.int64)
    for s in range(rows):
        repeats[s] = hits[s, starts[s]]
        if bilocation:
            best = -1
            for q in range(n_ports):
                if not hits[s, q]:
                    continue
                for t in range(3):
                    key = cell_units[port_vertex[q], t] * n + port_label[q]
                    if stamp[key] != s:
                        stamp[key] = s
                        first[key] = q
                        second[key] = -1
                    elif second[key] < 0:
                        second[key] = q
                        if best < 0 or key < best:
                            best = key
            if best >= 0:
                conflicts[s, 0] = best
                conflicts[s, 1] = first[best]
                conflicts[s, 2] = second[best]
        else:
            start_cell = port_vertex[starts[s]]
            previous = -1
            for q in range(n_ports):
                if not hits[s, q] or port_vertex[q] < n_cells or port_label[q] == start_cell:
                    continue
                if previous >= 0 and port_vertex[previous] == port_vertex[q]:
                    conflicts[s, 0] = port_vertex[q]
                    conflicts[s, 1] = previous
                    conflicts[s, 2] = q
                    break
                previous = q
    return repeats, conflicts


_cache: dict[tuple[object, ...], ChainGraph] = {}


def chain_graph(board: Board, kind: GraphKind) -> ChainGraph:
    """The ``kind`` graph of ``board`` with its analyses, shared by the rules that look at one board state."""
    key = (kind, board.geometry, board.values.tobytes(), board.cand.tobytes())
    found = _cache.get(key)
    if found is None:
        found = ChainGraph(kind, board)
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = found
    return found


def clear_cache() -> None:
    """Forget the graphs kept for recent boards."""
    _cache.clear()
