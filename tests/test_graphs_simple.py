"""sudoku_cp.graphs.simple: Lemmas 3 and 4, r-reachability and Theorem 2.3 against brute force.

The oracles enumerate simple paths by depth-first search (graphs of at most seven vertices), written
independently of the library from the definitions: a simple path repeats no vertex, a nonrepetitive
one leaves each inner vertex by a flag whose label differs from the flag it arrived by.
"""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.graphs import GraphInputError, LabelledGraph, cyclic_edges, is_nonrepetitive_walk
from sudoku_cp.graphs import simple as sg
from sudoku_cp.graphs.simple import SkewSymmetricGraph

# -- oracles ---------------------------------------------------------------------------------------


def _steps(graph: LabelledGraph):
    m = graph.n_edges
    ends = list(zip(graph.tails.tolist(), graph.heads.tolist(), strict=True))
    flags = list(zip(graph.tail_labels.tolist(), graph.head_labels.tolist(), strict=True))
    forward = [(ends[e][0], ends[e][1], flags[e][0], flags[e][1]) for e in range(m)]
    return forward + [(ends[e][1], ends[e][0], flags[e][1], flags[e][0]) for e in range(m)]


def _simple_path_exists(steps, p, q, *, first=None, last=None, avoid=()) -> bool:
    """A nonrepetitive simple path p -> q with at least one edge, optional first/last labels."""

    def search(v, last_in, seen) -> bool:
        for source, target, out, inn in steps:
            if source != v or target in seen or target in avoid:
                continue
            if (last_in is None and first is not None and out != first) or out == last_in:
                continue
            if target == q and (last is None or inn == last):
                return True
            if target != q and search(target, inn, seen | {target}):
                return True
        return False

    return search(p, None, {p})


def _on_simple_cycle(steps, m: int, e: int) -> bool:
    u, v, a, b = steps[e]
    if u == v:
        return a != b

    def search(x, last_in, seen) -> bool:
        for t, (source, target, out, inn) in enumerate(steps):
            if source != x or out == last_in or t % m == e:
                continue
            if target == u and inn != a:
                return True
            if target not in seen and search(target, inn, seen | {target}):
                return True
        return False

    return search(v, b, {u, v})


def _random_undirected(rng: np.random.Generator, *, flags: bool, n_max: int = 7, m_max: int = 10):
    n = int(rng.integers(1, n_max + 1))
    m = int(rng.integers(0, m_max + 1))
    tails, heads = rng.integers(0, n, m), rng.integers(0, n, m)
    k = int(rng.integers(1, 4))
    tail_labels = rng.integers(0, k, m)
    head_labels = rng.integers(0, k, m) if flags else tail_labels
    return LabelledGraph.flag_labelled(n, tails, heads, tail_labels, head_labels, directed=False)


# -- Edmonds search --------------------------------------------------------------------------------


def _brute_augmenting(n, adjacency, match, root) -> bool:
    def search(x, seen) -> bool:  # x is even: leave by an unmatched edge
        for y in adjacency[x]:
            if y in seen or match[x] == y:
                continue
            if match[y] == -1:
                return True
            z = match[y]
            if z not in seen and search(z, seen | {y, z}):
                return True
        return False

    return search(root, {root})


def test_augmenting_path_search_matches_brute_force() -> None:
    rng = np.random.default_rng(1965)
    for trial in range(2000):
        n = int(rng.integers(2, 12))
        pairs = {
            tuple(sorted(rng.choice(n, 2, replace=False).tolist()))
            for _ in range(int(rng.integers(1, 3 * n)))
        }
        adjacency: list[list[int]] = [[] for _ in range(n)]
        for a, b in pairs:
            adjacency[a].append(b)
            adjacency[b].append(a)
        match = [-1] * n
        for a, b in sorted(pairs, key=lambda _: rng.random()):  # a random maximal matching, then drop some
            if match[a] == match[b] == -1 and rng.random() < 0.9:
                match[a], match[b] = b, a
        exposed = [v for v in range(n) if match[v] == -1]
        if len(exposed) < 2:
            continue
        root = exposed[int(rng.integers(len(exposed)))]
        path = sg._augmenting_path(n, adjacency, list(match), root)
        assert (path is not None) == _brute_augmenting(n, adjacency, match, root), (trial, pairs, match, root)
        if path is not None:
            assert path[0] == root and match[path[-1]] == -1 and path[-1] != root
            assert len(set(path)) == len(path) and len(path) % 2 == 0
            for i, (a, b) in enumerate(zip(path, path[1:], strict=False)):
                assert b in adjacency[a]
                assert (match[a] == b) == (i % 2 == 1)


def test_augmenting_path_through_a_nested_blossom() -> None:
    # found by the sweep above: re-basing a blossom before both of its sides were walked stopped the
    # walk inside an inner blossom, and the path 5 3 4 8 0 2 1 6 9 7 was missed
    pairs = [(0, 2), (0, 8), (1, 2), (1, 5), (1, 6), (1, 9), (2, 3), (2, 8), (3, 4), (3, 5), (3, 9)]
    pairs += [(4, 8), (5, 9), (6, 9), (7, 9)]
    adjacency: list[list[int]] = [[] for _ in range(10)]
    for a, b in pairs:
        adjacency[a].append(b)
        adjacency[b].append(a)
    match = [8, 2, 1, 4, 3, -1, 9, -1, 0, 6]
    path = sg._augmenting_path(10, adjacency, list(match), 5)
    assert path is not None and path[0] == 5 and path[-1] == 7


# -- r-reachability --------------------------------------------------------------------------------


def _random_skew(rng: np.random.Generator):
    pairs = int(rng.integers(1, 7))
    n = 2 * pairs
    sigma = np.arange(n) ^ 1
    k = int(rng.integers(0, 3 * n))
    a, b = rng.integers(0, n, k), rng.integers(0, n, k)
    tails = np.concatenate([a, sigma[b]])
    heads = np.concatenate([b, sigma[a]])
    return SkewSymmetricGraph(n, tails, heads, sigma)


def _brute_regular(graph: SkewSymmetricGraph, s: int) -> bool:
    sigma = graph.sigma.tolist()
    arcs = list(zip(graph.tails.tolist(), graph.heads.tolist(), strict=True))
    goal = sigma[s]

    def search(x, used) -> bool:
        for a, b in arcs:
            if a != x:
                continue
            if b == goal:
                return True
            if b != s and b not in used and sigma[b] not in used and search(b, used | {b}):
                return True
        return False

    return search(s, {s, goal})


def test_r_reachability_matches_brute_force() -> None:
    rng = np.random.default_rng(1996)
    for trial in range(2000):
        graph = _random_skew(rng)
        s = int(rng.integers(graph.n_nodes))
        path = sg.r_reachable(graph, s)
        assert (path is not None) == _brute_regular(graph, s), (trial, graph.tails, graph.heads, s)
        if path is not None:  # r_reachable checks its path itself; check the ends here
            assert path[0] == s and path[-1] == graph.sigma[s]


# -- Lemmas 3 and 4 --------------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [False, True], ids=["edge", "flag"])
def test_usp_keeps_simple_nonrepetitive_paths(flags: bool) -> None:
    rng = np.random.default_rng(3 + flags)
    for trial in range(150):
        graph = _random_undirected(rng, flags=flags, n_max=5, m_max=6)
        reduced = sg.usp(graph)
        binary = reduced.graph
        assert binary.is_edge_labelled and set(binary.tail_labels.tolist()) <= {0, 1}
        assert (
            binary.n_edges <= 7 * graph.n_edges and binary.n_vertices <= graph.n_vertices + 4 * graph.n_edges
        )
        steps, usp_steps = _steps(graph), _steps(binary)
        for p in range(graph.n_vertices):
            for q in range(graph.n_vertices):
                if p != q:
                    expected = _simple_path_exists(steps, p, q)
                    assert _simple_path_exists(usp_steps, p, q) == expected, (trial, p, q)


def test_lemma4_regular_paths_are_labelled_simple_paths() -> None:
    rng = np.random.default_rng(4)
    for trial in range(300):
        n = int(rng.integers(2, 7))
        m = int(rng.integers(0, 10))
        binary = LabelledGraph.edge_labelled(
            n, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 2, m), directed=False
        )
        p, q = (int(x) for x in rng.choice(n, 2, replace=False))
        steps = _steps(binary)
        for first in (0, 1):
            for last in (0, 1):
                reduction = sg.skew_symmetric_graph(binary, p, q, first, last)
                expected = _simple_path_exists(steps, p, q, first=first, last=last)
                assert _brute_regular(reduction.graph, reduction.source) == expected, (trial, first, last)
                assert (sg.r_reachable(reduction.graph, reduction.source) is not None) == expected


# -- Theorem 2.3 and simple cycles -----------------------------------------------------------------


#: Random graphs per brute-force comparison: a quarter in the default run, all in the slow stage.
VOLUME = [
    pytest.param(False, 4, id="edge"),
    pytest.param(True, 4, id="flag"),
    pytest.param(False, 1, id="edge-all", marks=pytest.mark.slow),
    pytest.param(True, 1, id="flag-all", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("flags", "share"), VOLUME)
def test_simple_paths_match_brute_force(flags: bool, share: int) -> None:
    rng = np.random.default_rng(23 + flags)
    for trial in range(250 // share):
        graph = _random_undirected(rng, flags=flags)
        steps = _steps(graph)
        for p in range(graph.n_vertices):
            for q in range(graph.n_vertices):
                path = sg.simple_nonrepetitive_path(graph, p, q)
                if p == q:
                    assert path == [] and sg.has_simple_nonrepetitive_path(graph, p, q)
                    continue
                assert (path is not None) == _simple_path_exists(steps, p, q), (trial, p, q, steps)
                if path is not None:
                    visited = [steps[t][0] for t in path] + [q]
                    assert visited[0] == p and len(set(visited)) == len(visited)
                    assert is_nonrepetitive_walk(graph, path)


@pytest.mark.parametrize(("flags", "share"), VOLUME)
def test_simple_cyclic_edges_match_brute_force(flags: bool, share: int) -> None:
    rng = np.random.default_rng(42 + flags)
    for trial in range(300 // share):
        graph = _random_undirected(rng, flags=flags)
        steps, m = _steps(graph), graph.n_edges
        expected = [_on_simple_cycle(steps, m, e) for e in range(m)]
        got = sg.simple_cyclic_edges(graph)
        assert got.shape == (2 * m,)
        assert got[:m].tolist() == expected == got[m:].tolist(), (trial, steps)
        for e in range(m):
            cycle = sg.simple_cycle_through(graph, e)
            assert (cycle is not None) == expected[e]
            if cycle is not None:
                assert cycle[0] == e and is_nonrepetitive_walk(graph, cycle, closed=True)
                sources = [steps[t][0] for t in cycle]
                assert len(set(sources)) == len(sources)


def test_simple_versus_non_simple() -> None:
    # a figure eight: triangles 0-1-2 (labels 0, 1, 0) and 0-3-4 (2, 1, 2) meeting at 0; each
    # triangle repeats a label where it closes, the eight through both does not
    graph = LabelledGraph.edge_labelled(
        5, [0, 1, 2, 0, 3, 4], [1, 2, 0, 3, 4, 0], [0, 1, 0, 2, 1, 2], directed=False
    )
    assert not sg.simple_cyclic_edges(graph).any()
    assert cyclic_edges(graph).all()
    parallel = LabelledGraph.edge_labelled(2, [0, 0], [1, 1], [3, 4], directed=False)
    assert sg.simple_cycle_through(parallel, 0) == [0, 3]  # edge 0 forwards, edge 1 backwards


def test_simple_rejects_directed_and_bad_input() -> None:
    directed = LabelledGraph.edge_labelled(2, [0], [1], [0], directed=True)
    with pytest.raises(GraphInputError, match="NP-complete"):
        sg.has_simple_nonrepetitive_path(directed, 0, 1)
    with pytest.raises(GraphInputError, match="NP-complete"):
        sg.simple_cyclic_edges(directed)
    graph = LabelledGraph.edge_labelled(2, [0], [1], [2], directed=False)
    with pytest.raises(GraphInputError, match="vertex 5"):
        sg.simple_nonrepetitive_path(graph, 0, 5)
    with pytest.raises(GraphInputError, match="edge 1"):
        sg.simple_cycle_through(graph, 1)
    with pytest.raises(GraphInputError, match="labels 0 and 1"):
        sg.skew_symmetric_graph(graph, 0, 1, 0, 0)
    binary = sg.usp(graph).graph
    with pytest.raises(GraphInputError, match="distinct"):
        sg.skew_symmetric_graph(binary, 0, 0, 0, 0)
    with pytest.raises(GraphInputError, match="first_label"):
        sg.skew_symmetric_graph(binary, 0, 1, 2, 0)
    with pytest.raises(GraphInputError, match="involution"):
        SkewSymmetricGraph(2, np.array([0]), np.array([1]), np.array([0, 1]))
    with pytest.raises(GraphInputError, match="skew-symmetric"):
        SkewSymmetricGraph(4, np.array([0]), np.array([2]), np.array([1, 0, 3, 2]))
    with pytest.raises(GraphInputError, match="source"):
        sg.r_reachable(SkewSymmetricGraph(2, np.array([0]), np.array([1]), np.array([1, 0])), 2)


@pytest.mark.slow
@pytest.mark.parametrize("flags", [False, True], ids=["edge", "flag"])
def test_bigger_simple_sweep(flags: bool) -> None:
    rng = np.random.default_rng(77 + flags)
    for trial in range(1500):
        graph = _random_undirected(rng, flags=flags, n_max=8, m_max=14)
        steps, m = _steps(graph), graph.n_edges
        for p in range(graph.n_vertices):
            q = int(rng.integers(graph.n_vertices))
            if p != q:
                assert sg.has_simple_nonrepetitive_path(graph, p, q) == _simple_path_exists(steps, p, q), (
                    trial
                )
        got = sg.simple_cyclic_edges(graph)[:m].tolist()
        assert got == [_on_simple_cycle(steps, m, e) for e in range(m)], trial
