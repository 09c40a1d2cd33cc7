"""Nonrepetitive walks and closed walks through the transformation nr(G) (Eppstein 2005, section 2.1).

nr(G) replaces every vertex ``v`` of a labelled graph by the label gadget of Lemma 1 over the
labels of the flags at ``v``: for each label ``x`` an *in-port* ``x`` and an *out-port* ``x̄``,
such that in-port ``x`` reaches out-port ``ȳ`` inside the gadget if and only if ``x != y``.  Each
traversal of an edge of G becomes one arc of nr(G), from the out-port of its out label at its
source to the in-port of its in label at its target.  Paths of nr(G) are then exactly nonrepetitive
walks of G (Lemma 2), so unlabelled reachability and strong connectivity answer the labelled
questions:

- :func:`cyclic_edges`: traversals on a nonrepetitive closed walk (Theorem 2.1, strongly
  connected components of nr(G));
- :func:`reachable_edges`: traversals on a nonrepetitive walk from a vertex with a given first
  label (Theorem 2.2, one search of nr(G));
- :func:`nonrepetitive_walk` and :func:`cycle_through`: shortest such walks as witnesses.

Callers with many queries on one graph build :class:`NrGraph` once and query it.  Traversal
indices follow :class:`~sudoku_cp.graphs.labelled.LabelledGraph`: ``t`` is edge ``t`` forwards, and
in an undirected graph ``m + t`` is edge ``t`` backwards.

References
----------
D. Eppstein, "Nonrepetitive paths and cycles in graphs with application to Sudoku",
arXiv cs/0507053 (2005), section 2.1: Lemma 1 (the gadget), Lemma 2, Theorems 2.1 and 2.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import numpy.typing as npt

from ..errors import SudokuCpError
from ..limits import watch_compilation
from .labelled import BoolArray, GraphInputError, IntArray, LabelledGraph, is_nonrepetitive_walk

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "GadgetGraph",
    "GraphInternalError",
    "NrGraph",
    "canonical_csr",
    "csr_strong_components",
    "cycle_through",
    "cyclic_edges",
    "label_gadget",
    "nonrepetitive_walk",
    "reachable_edges",
]


class GraphInternalError(SudokuCpError, RuntimeError):
    """A witness walk failed its own check: a bug in sudoku_cp.graphs, never bad input."""


@dataclass(frozen=True, eq=False)
class GadgetGraph:
    """The Lemma 1 gadget over ``k`` labels: arcs ``tails[i] -> heads[i]`` on ``n_nodes`` nodes.

    Label ``x`` (``0 <= x < k``) has in-port node ``in_ports[x]`` and out-port node
    ``out_ports[x]``; in-port ``x`` reaches out-port ``y`` if and only if ``x != y``.
    """

    n_nodes: int
    tails: IntArray
    heads: IntArray
    in_ports: IntArray
    out_ports: IntArray


def _gadget_arcs(
    owner: IntArray, ins: IntArray, outs: IntArray, next_node: int
) -> tuple[IntArray, IntArray, int]:
    """Arcs of the Lemma 1 gadgets of all vertices at once, grouping labels in triples (and pairs).

    ``owner`` (sorted) names the vertex of each port pair, ``ins`` and ``outs`` its in- and
    out-port nodes; new inner nodes are numbered from ``next_node``.  Returns ``(tails, heads,
    next_node)``.

    Each level splits a vertex's ``c >= 2`` items into groups of three, with one or two groups of
    two when ``c`` is not a multiple of three (Eppstein's implementation, Figure 1, groups triples;
    the proof of Lemma 1 pairs).  Inside a group, in-port ``x`` gets an arc to out-port ``ȳ`` for
    every other member ``y``.  When a vertex has two groups or more, each group ``g`` becomes one
    item ``z_g`` of the next level: every member's in-port has an arc to ``z_g``'s in-port and
    ``z_g``'s out-port one to every member's out-port.  By induction ``x`` reaches ``ȳ`` exactly
    when ``x != y``: within a group directly, across groups through ``z_g -> z̄_h`` with ``g != h``.
    A vertex with a single label gets no arc.  Items at least halve per level, so a vertex with ``k``
    labels gets at most ``2 k`` inner nodes and ``8 k`` arcs.
    """
    # the kernel reuses its arrays level by level: give it copies
    owner, ins, outs = (np.array(array, dtype=np.int64) for array in (owner, ins, outs))
    return _gadget_kernel(owner, ins, outs, next_node)  # type: ignore[no-any-return]


@numba.njit(cache=True)
def _gadget_kernel(
    owner: IntArray, ins: IntArray, outs: IntArray, next_node: int
) -> tuple[IntArray, IntArray, int]:  # pragma: no cover - compiled
    """``_gadget_arcs``, level by level: in each level the arcs inside the groups (each member to
    the next one, then to the one after), then the members' arcs up to their group's new item and
    down from it, items in order."""
    size = owner.shape[0]
    cap = 8 * size + 8
    tails = np.empty(cap, np.int64)
    heads = np.empty(cap, np.int64)
    k = 0
    count = np.empty(size, np.int64)
    while size:
        # the number of items of each item's vertex; a vertex with one item left gets no arc
        i = 0
        while i < size:
            j = i
            while j < size and owner[j] == owner[i]:
                j += 1
            for t in range(i, j):
                count[t] = j - i
            i = j
        kept = 0
        for i in range(size):
            if count[i] >= 2:
                owner[kept] = owner[i]
                ins[kept] = ins[i]
                outs[kept] = outs[i]
                count[kept] = count[i]
                kept += 1
        size = kept
        if not size:
            break
        # c = 3t: t triples; c = 3t + 1: t - 1 triples and two pairs; c = 3t + 2: t triples and a pair
        group_size = np.empty(size, np.int64)
        place = np.empty(size, np.int64)  # place inside the group
        groups = np.empty(size, np.int64)  # groups of the item's vertex
        i = 0
        while i < size:
            c = count[i]
            rem = c % 3
            triples = c // 3 if rem != 1 else (c - 4) // 3
            n_groups = triples + (0 if rem == 0 else (2 if rem == 1 else 1))
            for pos in range(c):
                if pos < 3 * triples:
                    group_size[i + pos] = 3
                    place[i + pos] = pos % 3
                else:
                    group_size[i + pos] = 2
                    place[i + pos] = (pos - 3 * triples) % 2
                groups[i + pos] = n_groups
            i += c
        for d in (1, 2):
            for x in range(size):
                if group_size[x] > d:
                    tails[k] = ins[x]
                    heads[k] = outs[x - place[x] + (place[x] + d) % group_size[x]]
                    k += 1
        n_new = 0
        for x in range(size):
            if groups[x] >= 2 and place[x] == 0:
                n_new += 1
        if not n_new:
            break
        new_in = np.empty(size, np.int64)  # per item, its group's new in-node (-1: none)
        gid = -1
        for x in range(size):
            if groups[x] >= 2:
                if place[x] == 0:
                    gid += 1
                new_in[x] = next_node + gid
                tails[k] = ins[x]
                heads[k] = new_in[x]
                k += 1
        for x in range(size):
            if groups[x] >= 2:
                tails[k] = new_in[x] + n_new
                heads[k] = outs[x]
                k += 1
        kept = 0
        for x in range(size):
            if groups[x] >= 2 and place[x] == 0:
                owner[kept] = owner[x]
                ins[kept] = new_in[x]
                outs[kept] = new_in[x] + n_new
                kept += 1
        next_node += 2 * n_new
        size = kept
    return tails[:k].copy(), heads[:k].copy(), next_node


def label_gadget(k: int) -> GadgetGraph:
    """The directed gadget of Lemma 1 for ``k`` labels (Eppstein 2005, section 2.1, Figure 1).

    Parameters
    ----------
    k : int
        Number of labels, at least 1.

    Returns
    -------
    GadgetGraph
        Nodes ``0 .. k-1`` are the in-ports, ``k .. 2k-1`` the out-ports, the rest inner nodes; it
        has O(k) nodes and arcs, and in-port ``x`` reaches out-port ``y`` if and only if ``x != y``.
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise GraphInputError(f"a gadget needs at least one label, got k = {k!r}")
    ins = np.arange(k, dtype=np.int64)
    tails, heads, n_nodes = _gadget_arcs(np.zeros(k, np.int64), ins, ins + k, 2 * int(k))
    return GadgetGraph(n_nodes, tails, heads, ins, ins + k)


@numba.njit(cache=True)
def _sorted_ids(values: IntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover - compiled
    """``np.unique(values, return_inverse=True)``: the distinct values ascending, each value's rank.

    Values within a small range (cells, digits, port keys of a board's graphs) are ranked by
    counting, in linear time; others by a sort."""
    size = values.shape[0]
    rank = np.empty(size, np.int64)
    if size == 0:
        return np.empty(0, np.int64), rank
    low, high = values.min(), values.max()
    if high - low <= 4 * size + 256:
        seen = np.full(high - low + 1, -1, np.int64)
        for i in range(size):
            seen[values[i] - low] = 0
        k = 0
        for v in range(high - low + 1):
            if seen[v] == 0:
                seen[v] = k
                k += 1
        distinct = np.empty(k, np.int64)
        for v in range(high - low + 1):
            if seen[v] >= 0:
                distinct[seen[v]] = v + low
        for i in range(size):
            rank[i] = seen[values[i] - low]
        return distinct, rank
    order = np.argsort(values)  # ties need no order: equal values share their rank
    distinct = np.empty(size, np.int64)
    k = -1
    for i in range(size):
        v = values[order[i]]
        if k < 0 or distinct[k] != v:
            k += 1
            distinct[k] = v
        rank[order[i]] = k
    return distinct[: k + 1].copy(), rank


@numba.njit(cache=True)
def _pair_ids(major: IntArray, minor: IntArray, width: int) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """``_sorted_ids(major * width + minor)`` for ``0 <= minor < width`` and non-negative ``major``:
    two stable counting sorts (by minor, then by major) when the majors span a small range."""
    size = major.shape[0]
    if size == 0 or major.max() > 4 * size + 256:
        return _sorted_ids(major * width + minor)
    order = _counting_order(major, major.max() + 1, _counting_order(minor, width, np.arange(size)))
    keys = np.empty(size, np.int64)
    rank = np.empty(size, np.int64)
    k = -1
    for j in range(size):
        i = order[j]
        key = major[i] * width + minor[i]
        if k < 0 or keys[k] != key:
            k += 1
            keys[k] = key
        rank[i] = k
    return keys[: k + 1].copy(), rank


@numba.njit(cache=True)
def _counting_order(keys: IntArray, bound: int, items: IntArray) -> IntArray:  # pragma: no cover
    """``items`` (indices into ``keys``, values below ``bound``) stably sorted by key."""
    start = np.zeros(bound + 1, np.int64)
    for i in items:
        start[keys[i] + 1] += 1
    for v in range(bound):
        start[v + 1] += start[v]
    out = np.empty(items.shape[0], np.int64)
    for i in items:
        out[start[keys[i]]] = i
        start[keys[i]] += 1
    return out


@numba.njit(cache=True)
def _nr_kernel(
    tails: IntArray, heads: IntArray, tail_labels: IntArray, head_labels: IntArray, directed: bool
) -> tuple[
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    npt.NDArray[np.float64],
    int,
    int,
]:  # pragma: no cover - compiled
    """The arrays of ``NrGraph``: port vertex and label, out and in node per traversal, the distinct
    labels, the port keys (vertex * width + label rank), CSR indptr, indices and weights, the number
    of nodes and the key width."""
    m = tails.shape[0]
    labels = np.concatenate((tail_labels, head_labels))
    distinct, label_id = _sorted_ids(labels)
    width = max(distinct.shape[0], 1)
    keys, pair = _pair_ids(np.concatenate((tails, heads)), label_id, width)
    n_ports = keys.shape[0]
    port_vertex = keys // width
    port_label = distinct[keys % width]
    if directed:
        out_pair, in_pair = pair[:m], pair[m:]
    else:
        out_pair = np.concatenate((pair[:m], pair[m:]))
        in_pair = np.concatenate((pair[m:], pair[:m]))
    out_node = out_pair + n_ports
    ports = np.arange(n_ports)
    g_tails, g_heads, n_nodes = _gadget_kernel(port_vertex.copy(), ports, ports + n_ports, 2 * n_ports)
    # traversal arcs weigh one and gadget arcs zero (the two never coincide: a gadget arc never
    # leaves an out-port); parallel edges with equal flags give one arc
    arc_weights = np.zeros(out_node.shape[0] + g_tails.shape[0])
    arc_weights[: out_node.shape[0]] = 1.0
    indptr, indices, weights = canonical_csr(
        n_nodes, np.concatenate((out_node, g_tails)), np.concatenate((in_pair, g_heads)), arc_weights
    )
    return (
        port_vertex,
        port_label,
        out_node,
        in_pair.copy(),
        distinct,
        keys,
        indptr,
        indices,
        weights,
        n_nodes,
        width,
    )


# scipy's own strong-components routine, without the sparse-matrix checks around it: looked up on
# first use (False: not yet; None: missing, the public function instead), since importing
# scipy.sparse costs 0.15-0.25 s of every command's start-up and most runs never get here.
_scipy_scc: Any = False


def _private_scc() -> Any:
    """scipy's private strong-components routine, or None when this scipy has no such name."""
    global _scipy_scc
    if _scipy_scc is False:
        try:
            from scipy.sparse.csgraph._traversal import _connected_components_directed
        except ImportError:  # pragma: no cover - another scipy: the public function instead
            _scipy_scc = None
        else:
            _scipy_scc = _connected_components_directed
    return _scipy_scc


def csr_strong_components(indptr: npt.ArrayLike, indices: npt.ArrayLike) -> tuple[int, IntArray]:
    """The strongly connected components of the directed graph with CSR arrays ``indptr``,
    ``indices``: (number, label of every node), as ``scipy.sparse.csgraph.connected_components``
    (``connection="strong"``) gives them.

    The solver asks this for a small graph per board state, where building and checking a sparse
    matrix costs more than the search; scipy's routine is then called directly, with the public
    function as the fallback should scipy's private name or signature change."""
    global _scipy_scc
    pointers = np.asarray(indptr)
    columns = np.asarray(indices)
    n_nodes = len(pointers) - 1
    if n_nodes <= 0:
        return 0, np.zeros(0, np.int64)
    private = _private_scc()
    if private is not None and len(columns) < 2**31 - 1:
        labels = np.full(n_nodes, -9999, np.int32)  # scipy's "no label yet"
        try:
            count = private(columns.astype(np.int32), pointers.astype(np.int32), labels)
            return int(count), labels.astype(np.int64)
        except (TypeError, ValueError):  # pragma: no cover - a changed private routine
            _scipy_scc = None
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    structure = csr_matrix((np.ones(len(columns)), columns, pointers), shape=(n_nodes, n_nodes))
    count, labels = connected_components(structure, directed=True, connection="strong")
    return int(count), labels.astype(np.int64)


@numba.njit(cache=True)
def canonical_csr(
    n_nodes: int, rows: IntArray, cols: IntArray, weights: npt.NDArray[np.float64]
) -> tuple[IntArray, IntArray, npt.NDArray[np.float64]]:  # pragma: no cover - compiled
    """CSR arrays (indptr, indices, data) of the arcs ``rows[i] -> cols[i]``: each row's columns in
    increasing order and each arc once (with its largest weight), the canonical order scipy's sparse
    constructors give, in linear time, for callers that build a graph per query."""
    n_arcs = rows.shape[0]
    # two stable counting sorts, by column and then by row: (row, column) order in linear time
    by_col = np.empty(n_arcs, np.int64)
    start = np.zeros(n_nodes + 1, np.int64)
    for a in range(n_arcs):
        start[cols[a] + 1] += 1
    for v in range(n_nodes):
        start[v + 1] += start[v]
    for a in range(n_arcs):
        by_col[start[cols[a]]] = a
        start[cols[a]] += 1
    indptr = np.zeros(n_nodes + 1, np.int64)
    for a in range(n_arcs):
        indptr[rows[a] + 1] += 1
    for v in range(n_nodes):
        indptr[v + 1] += indptr[v]
    fill = indptr[:-1].copy()
    slot_col = np.empty(n_arcs, np.int64)
    slot_weight = np.empty(n_arcs, np.float64)
    for i in range(n_arcs):
        arc = by_col[i]
        slot_col[fill[rows[arc]]] = cols[arc]
        slot_weight[fill[rows[arc]]] = weights[arc]
        fill[rows[arc]] += 1
    indices = np.empty(n_arcs, np.int64)
    data = np.empty(n_arcs, np.float64)
    out = np.zeros(n_nodes + 1, np.int64)
    k = 0
    for v in range(n_nodes):
        for i in range(indptr[v], indptr[v + 1]):
            if i > indptr[v] and slot_col[i] == slot_col[i - 1]:
                data[k - 1] = max(data[k - 1], slot_weight[i])
                continue
            indices[k] = slot_col[i]
            data[k] = slot_weight[i]
            k += 1
        out[v + 1] = k
    return out, indices[:k].copy(), data[:k].copy()


@numba.njit(cache=True)
def _reach(
    indptr: IntArray, indices: IntArray, sources: IntArray, width: int
) -> BoolArray:  # pragma: no cover - compiled
    """Per source node, the nodes below ``width`` that a search from it reaches (itself included)."""
    n_nodes = indptr.shape[0] - 1
    out = np.zeros((sources.shape[0], width), np.bool_)
    seen = np.zeros(n_nodes, np.int64)  # the row + 1 of the last search that reached the node
    stack = np.empty(n_nodes, np.int64)
    for row in range(sources.shape[0]):
        mark = row + 1
        top = 0
        stack[top] = sources[row]
        top += 1
        seen[sources[row]] = mark
        while top:
            top -= 1
            v = stack[top]
            if v < width:
                out[row, v] = True
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if seen[u] != mark:
                    seen[u] = mark
                    stack[top] = u
                    top += 1
    return out


@numba.njit(cache=True)
def _first_bad_edge(
    n_vertices: int, tails: IntArray, heads: IntArray, tail_labels: IntArray, head_labels: IntArray
) -> int:  # pragma: no cover - compiled
    """The first edge with an end outside ``[0, n_vertices)`` or a negative label, or -1."""
    for e in range(tails.shape[0]):
        if not (0 <= tails[e] < n_vertices and 0 <= heads[e] < n_vertices):
            return e
        if tail_labels[e] < 0 or head_labels[e] < 0:
            return e
    return -1


@numba.njit(cache=True)
def _path_traversals(
    pred: np.ndarray,
    source: int,
    target: int,
    n_ports: int,
    width: int,
    arc_sorted: IntArray,
    arc_order: IntArray,
) -> IntArray:  # pragma: no cover - compiled
    """The traversals along the search's path from node ``source`` to node ``target`` (``pred``:
    each node's predecessor): an arc from an out-port to an in-port is a traversal of G, found by
    its key ``out * width + in`` among the sorted keys; every other arc is a gadget's."""
    length = 1
    v = target
    while v != source:
        v = pred[v]
        length += 1
    nodes = np.empty(length, np.int64)
    v = target
    for i in range(length - 1, -1, -1):
        nodes[i] = v
        if i:
            v = pred[v]
    walk = np.empty(length, np.int64)
    k = 0
    for i in range(length - 1):
        a, b = nodes[i], nodes[i + 1]
        if n_ports <= a < 2 * n_ports and b < n_ports:
            walk[k] = arc_order[np.searchsorted(arc_sorted, a * width + b)]
            k += 1
    return walk[:k].copy()


class NrGraph:
    """nr(G) for one labelled graph, built once (linear size) for many path and cycle queries.

    Parameters
    ----------
    graph : LabelledGraph
        Directed or undirected, edge- or flag-labelled.

    Attributes
    ----------
    graph : LabelledGraph
    n_traversals, n_ports : int
    n_nodes : int
        Nodes of nr(G): ``n_ports`` in-ports, then ``n_ports`` out-ports, then gadget inner nodes.
    port_vertex, port_label : ndarray of int, shape (n_ports,)
        The (vertex, label) pair of each port, one per distinct label among the flags at a
        vertex, sorted by vertex then label.  In-port ``i`` is node ``i``, out-port ``i`` is node
        ``n_ports + i``.
    out_node, in_node : ndarray of int, shape (n_traversals,)
        For each traversal, the nr(G) arc ``out_node[t] -> in_node[t]`` it becomes.
    adjacency : scipy.sparse.csr_matrix, shape (n_nodes, n_nodes)
        The arcs of nr(G) (value 1 for a traversal, explicit 0 for a gadget arc, so that path
        weight counts edges of G).

    Notes
    -----
    Construction is O(m log m) (a sort groups the flags by vertex and label, where the paper
    assumes them grouped or hashed); each query is one search of nr(G), O(m).
    """

    def __init__(self, graph: LabelledGraph) -> None:
        if not isinstance(graph, LabelledGraph):
            raise GraphInputError(f"expected a LabelledGraph, got {type(graph).__name__}")
        self._graph: LabelledGraph | None = graph
        self._edges: tuple[int, IntArray, IntArray, IntArray, IntArray, bool] | None = None
        self._build(graph.tails, graph.heads, graph.tail_labels, graph.head_labels, graph.directed)

    @classmethod
    def of_edges(
        cls,
        n_vertices: int,
        tails: IntArray,
        heads: IntArray,
        tail_labels: IntArray,
        head_labels: IntArray,
        *,
        directed: bool,
    ) -> NrGraph:
        """nr(G) of the graph ``LabelledGraph.flag_labelled(n_vertices, tails, ...)`` without making
        that graph first: for callers that build many graphs.  The arrays must be one-dimensional
        int64 arrays of one length (no conversion here); vertices and labels are checked as
        ``LabelledGraph`` checks them, in one compiled pass.  The graph itself is made, from these
        arrays, when first asked for (``graph``; the witnesses use it)."""
        arrays = (tails, heads, tail_labels, head_labels)
        if not all(
            isinstance(a, np.ndarray) and a.dtype == np.int64 and a.ndim == 1 and len(a) == len(tails)
            for a in arrays
        ):
            raise GraphInputError("NrGraph.of_edges takes one-dimensional int64 arrays of one length")
        if isinstance(n_vertices, bool) or not isinstance(n_vertices, int | np.integer) or n_vertices < 0:
            raise GraphInputError(f"n_vertices must be a non-negative integer, got {n_vertices!r}")
        tails, heads, tail_labels, head_labels = copies = tuple(a.copy() for a in arrays)
        for copy in copies:  # kept: later writes to the caller's arrays cannot reach the graph
            copy.flags.writeable = False
        bad = _first_bad_edge(int(n_vertices), tails, heads, tail_labels, head_labels)
        if bad >= 0:
            ends = f"{int(tails[bad])} -> {int(heads[bad])}"
            raise GraphInputError(
                f"edge {bad} ({ends}, labels {int(tail_labels[bad])}, {int(head_labels[bad])}) has a "
                f"vertex outside [0, {int(n_vertices)}) or a negative label"
            )
        nr = cls.__new__(cls)
        nr._graph = None
        nr._edges = (int(n_vertices), tails, heads, tail_labels, head_labels, bool(directed))
        nr._build(tails, heads, tail_labels, head_labels, directed)
        return nr

    @property
    def graph(self) -> LabelledGraph:
        """The labelled graph G."""
        if self._graph is None:
            if self._edges is None:  # every constructor sets one of the two
                raise GraphInternalError("an NrGraph holds neither its graph nor its edges")
            self._graph = LabelledGraph._checked_elsewhere(self._edges)
        return self._graph

    def _build(
        self, tails: IntArray, heads: IntArray, tail_labels: IntArray, head_labels: IntArray, directed: bool
    ) -> None:
        self.n_traversals = len(tails) if directed else 2 * len(tails)
        # one compiled pass: ports (a sort of the flags by vertex and label), the gadgets' arcs and the
        # arcs in canonical CSR form (by row, then column; parallel edges with equal flags give one
        # arc), as scipy's constructor would store them; the solver builds an nr(G) per board state
        built = _nr_kernel(tails, heads, tail_labels, head_labels, directed)
        (
            self.port_vertex,
            self.port_label,
            self.out_node,
            self.in_node,
            self._distinct,
            self._port_keys,
            self._indptr,
            self._indices,
            self._weights,
        ) = built[:9]
        self.n_nodes: int = built[9]
        self._width: int = built[10]
        self.n_ports = len(self.port_vertex)
        self._adjacency: csr_matrix | None = None
        self._arc_index: tuple[IntArray, IntArray] | None = None
        self._searches: dict[int, tuple[npt.NDArray[np.float64], IntArray]] = {}  # by source node
        self._scc: IntArray | None = None

    @property
    def adjacency(self) -> csr_matrix:
        """The arcs of nr(G), shape (n_nodes, n_nodes): 1 for a traversal, an explicit 0 for a gadget
        arc (so that path weight counts edges of G).  Made on first use."""
        if self._adjacency is None:
            from scipy.sparse import csr_matrix

            index = np.int32 if len(self._indices) < 2**31 - 1 else np.int64  # what scipy's searches take
            self._adjacency = csr_matrix(
                (self._weights, self._indices.astype(index), self._indptr.astype(index)),
                shape=(self.n_nodes, self.n_nodes),
            )
        return self._adjacency

    # -- ports -----------------------------------------------------------------------------------

    def port(self, vertex: int, label: int) -> int | None:
        """Port index of ``label`` at ``vertex`` (= its in-port node; out-port ``n_ports`` more), or None."""
        vertex = self.graph.check_vertex(vertex)
        label = self.graph.check_label(label)
        where = int(np.searchsorted(self._distinct, label))
        if where == len(self._distinct) or self._distinct[where] != label:
            return None
        key = vertex * self._width + where
        index = int(np.searchsorted(self._port_keys, key))
        if index == self.n_ports or self._port_keys[index] != key:
            return None
        return index

    # -- Theorem 2.1 -----------------------------------------------------------------------------

    def strong_components(self) -> IntArray:
        """The strongly connected component of every node of nr(G) (scipy), computed once; shape
        (n_nodes,).  Only equality of labels means anything."""
        if self._scc is None:
            self._scc = csr_strong_components(self._indptr, self._indices)[1]
        return self._scc

    def cyclic_edges(self) -> BoolArray:
        """Per traversal, whether it lies on a nonrepetitive closed walk (Theorem 2.1); shape (T,)."""
        scc = self.strong_components()
        return np.asarray(scc[self.out_node] == scc[self.in_node], dtype=np.bool_)

    # -- Theorem 2.2 -----------------------------------------------------------------------------

    def reachable_edges(self, start: int, first_label: int) -> BoolArray:
        """Per traversal, whether it lies on a nonrepetitive walk from ``start`` leaving by ``first_label``.

        Theorem 2.2: one breadth-first search of nr(G) from the out-port of ``first_label`` at
        ``start``.  A label that no edge leaving ``start`` carries gives all False.  Shape
        ``(n_traversals,)``.
        """
        port = self.port(start, first_label)
        if port is None:
            return np.zeros(self.n_traversals, dtype=np.bool_)
        seen = _reach(self._indptr, self._indices, np.array([self.n_ports + port], np.int64), self.n_nodes)
        return seen[0, self.out_node]

    def reachable_many(self, starts: npt.ArrayLike, first_labels: npt.ArrayLike) -> BoolArray:
        """:meth:`reachable_edges` for many (start, first label) queries at once; shape (q, n_traversals)."""
        starts_a = np.asarray(starts, dtype=np.int64).reshape(-1)
        labels_a = np.asarray(first_labels, dtype=np.int64).reshape(-1)
        if starts_a.shape != labels_a.shape:
            raise GraphInputError(
                f"starts and first_labels differ in length: {starts_a.size} != {labels_a.size}"
            )
        result = np.zeros((starts_a.size, self.n_traversals), dtype=np.bool_)
        for row, (start, label) in enumerate(zip(starts_a.tolist(), labels_a.tolist(), strict=True)):
            result[row] = self.reachable_edges(start, label)
        return result

    def reached_in_ports(self, ports: npt.ArrayLike) -> BoolArray:
        """Per start port (row) and port (column): whether a nonrepetitive walk from the start port's
        vertex, leaving by its label, ends entering the column port's vertex by that port's label.

        Theorem 2.2 for many starts in one compiled pass: the column's in-port is reached from the
        row's out-port in nr(G) (only traversal arcs enter an in-port).  Shape (q, n_ports).
        """
        sources = np.asarray(ports, dtype=np.int64).reshape(-1)
        if sources.size and (int(sources.min()) < 0 or int(sources.max()) >= self.n_ports):
            raise GraphInputError(f"a port index is out of range [0, {self.n_ports})")
        return _reach(self._indptr, self._indices, sources + self.n_ports, self.n_ports)

    # -- witnesses -------------------------------------------------------------------------------

    def _search(self, source: int) -> tuple[npt.NDArray[np.float64], IntArray]:
        """Dijkstra from node ``source`` (distances in G-edges, predecessors), kept: witnesses often
        start where the last one did."""
        if source not in self._searches:
            from scipy.sparse.csgraph import dijkstra

            self._searches[source] = dijkstra(
                self.adjacency, directed=True, indices=source, return_predecessors=True
            )
        return self._searches[source]

    def walk_lengths(self, start: int, first_label: int, traversals: npt.ArrayLike) -> IntArray:
        """Per traversal, the length (in traversals) of the walk ``nonrepetitive_walk`` would return for
        it, or -1 where it returns None; from one search, without building the walks."""
        targets = np.asarray(traversals, dtype=np.int64).reshape(-1)
        for target in targets.tolist():
            self.graph.check_traversal(target)
        port = self.port(start, first_label)
        if port is None:
            return np.full(len(targets), -1, np.int64)
        # the path's weight counts its traversal arcs (gadget arcs weigh 0): the walk's prefix
        dist = self._search(self.n_ports + port)[0][self.out_node[targets]]
        finite = np.isfinite(dist)
        return np.where(finite, np.where(finite, dist, 0).astype(np.int64) + 1, -1)

    def _shortest_traversals(self, source: int, target: int) -> list[int] | None:
        """Traversals along a path of nr(G) from node ``source`` to node ``target`` with fewest G-edges."""
        if self._arc_index is None:  # an arc back to its first traversal
            keys = self.out_node * max(self.n_nodes, 1) + self.in_node
            order = np.argsort(keys, kind="stable")
            self._arc_index = (keys[order], order)
        arc_sorted, arc_order = self._arc_index
        dist, pred = self._search(source)
        if not np.isfinite(dist[target]):
            return None
        path = _path_traversals(
            pred, source, target, self.n_ports, max(self.n_nodes, 1), arc_sorted, arc_order
        )
        return list(path.tolist())

    def nonrepetitive_walk(self, start: int, first_label: int, target_traversal: int) -> list[int] | None:
        """A shortest nonrepetitive walk from ``start`` leaving by ``first_label``, ending with a traversal.

        Returns traversal indices (the last one is ``target_traversal``), or None when no such walk
        exists.  Shortest counts edges of G: Dijkstra on nr(G) with gadget arcs weighing 0 (Lemma 2
        makes paths of nr(G) and nonrepetitive walks correspond).  The walk is checked before it
        is returned.
        """
        target = self.graph.check_traversal(target_traversal)
        port = self.port(start, first_label)
        if port is None:
            return None
        prefix = self._shortest_traversals(self.n_ports + port, int(self.out_node[target]))
        if prefix is None:
            return None
        walk = prefix + [target]
        tr = self.graph.traversals()
        if not (
            is_nonrepetitive_walk(self.graph, walk)
            and tr.source[walk[0]] == start
            and tr.out_label[walk[0]] == first_label
        ):
            raise GraphInternalError(
                f"witness walk {walk} from ({start}, {first_label}) is not nonrepetitive"
            )
        return walk

    def cycle_through(self, traversal: int) -> list[int] | None:
        """A shortest nonrepetitive closed walk starting with ``traversal`` (traversal indices), or None.

        The label condition also holds where the walk closes.  Theorem 2.1's witness: a shortest
        path of nr(G) from the traversal's in-port back to its out-port.  Checked before returned.
        """
        t = self.graph.check_traversal(traversal)
        rest = self._shortest_traversals(int(self.in_node[t]), int(self.out_node[t]))
        if rest is None:
            return None
        walk = [t] + rest
        if not is_nonrepetitive_walk(self.graph, walk, closed=True):
            raise GraphInternalError(f"witness closed walk {walk} is not nonrepetitive")
        return walk


def cyclic_edges(graph: LabelledGraph) -> BoolArray:
    """Per traversal, whether it lies on a nonrepetitive closed walk of ``graph`` (Theorem 2.1).

    Returns
    -------
    ndarray of bool, shape (n_traversals,)
        In traversal order: edge ``t`` forwards at ``t``; for an undirected graph, edge ``t``
        backwards at ``m + t`` (reshape to ``(2, m)``; both rows are equal, since a reversed
        nonrepetitive closed walk is one too).  Closed walks need not be simple.
    """
    return NrGraph(graph).cyclic_edges()


def reachable_edges(graph: LabelledGraph, start: int, first_label: int) -> BoolArray:
    """Per traversal, whether a nonrepetitive walk from ``start`` leaving by ``first_label`` uses it.

    Theorem 2.2 (Eppstein 2005, section 2.1): one search of nr(G).

    Returns
    -------
    ndarray of bool, shape (n_traversals,)
        In traversal order (see :func:`cyclic_edges`).  Build :class:`NrGraph` once for many queries.
    """
    return NrGraph(graph).reachable_edges(start, first_label)


def nonrepetitive_walk(
    graph: LabelledGraph, start: int, first_label: int, target_traversal: int
) -> list[int] | None:
    """A shortest nonrepetitive walk from ``start`` leaving by ``first_label``, ending with a traversal.

    Traversal indices, or None when there is none; see :meth:`NrGraph.nonrepetitive_walk`.
    """
    return NrGraph(graph).nonrepetitive_walk(start, first_label, target_traversal)


def cycle_through(graph: LabelledGraph, traversal: int) -> list[int] | None:
    """A shortest nonrepetitive closed walk starting with ``traversal``, or None (Theorem 2.1's witness)."""
    return NrGraph(graph).cycle_through(traversal)
