"""The native DAG method: graph sizes, placement counts, closures against brute force, the batch API."""

from __future__ import annotations

import itertools
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.dag import DagNishio, build_dag, closure_batch, count_batch
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.nishio.text import parse_instance

# (p, q): vertices, arcs (Eppstein 2012 section 4; NOTES.md section 1.4, computed two ways there).
GRAPH_SIZES = {
    (2, 2): (14, 24),
    (2, 3): (46, 108),
    (3, 2): (50, 120),
    (2, 4): (146, 432),
    (4, 2): (182, 560),
    (3, 3): (290, 936),
    (3, 4): (1_646, 6_720),
    (4, 3): (1_906, 7_800),
    (4, 4): (19_442, 100_000),
    (4, 5): (196_426, 1_225_000),
    (5, 4): (242_592, 1_508_640),
}

LAYERS = {
    (2, 2): [1, 4, 4, 4, 1],
    (2, 3): [1, 6, 12, 8, 12, 6, 1],
    (3, 2): [1, 6, 9, 18, 9, 6, 1],
    (3, 3): [1, 9, 27, 27, 81, 81, 27, 27, 9, 1],
    (4, 4): [1, 16, 96, 256, 256, 1536, 3456, 3456, 1296, 3456, 3456, 1536, 256, 256, 96, 16, 1],
}

SMALL_SHAPES = [(2, 2), (2, 3), (3, 2)]
ALL_SMALL = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]


def placements_formula(p: int, q: int) -> int:
    """(p!)^(n/p) * (q!)^(n/q): one row-to-box bijection per band, one column-to-box per stack."""
    n = p * q
    return math.factorial(p) ** (n // p) * math.factorial(q) ** (n // q)


@cache
def brute_placements(p: int, q: int) -> np.ndarray:
    """Every valid placement of a small geometry, by filtering all n! column permutations."""
    g = Geometry(p, q)
    n = g.n
    keep = [
        perm
        for perm in itertools.permutations(range(n))
        if len({g.box_index(r, c) for r, c in enumerate(perm)}) == n
    ]
    return np.array(keep, dtype=np.int64)


def brute_closure(instance: NishioInstance) -> tuple[np.ndarray, int]:
    g = instance.geometry
    table = brute_placements(g.p, g.q)
    rows = np.arange(g.n)
    inside = instance.mask[rows, table].all(axis=1)
    closure = np.zeros((g.n, g.n), dtype=bool)
    for perm in table[inside]:
        closure[rows, perm] = True
    return closure, int(inside.sum())


def random_instance(g: Geometry, rng: np.random.Generator, kind: str) -> NishioInstance:
    """Sparse, dense or planted (a random valid placement plus random extra cells) sets S."""
    n = g.n
    if kind == "sparse":
        return NishioInstance(g, rng.random((n, n)) < rng.uniform(0.1, 0.4))
    if kind == "dense":
        return NishioInstance(g, rng.random((n, n)) < rng.uniform(0.5, 0.95))
    closure = np.zeros((n, n), dtype=bool)
    dag = build_dag(g.p, g.q)
    mask = rng.random((n, n)) < rng.uniform(0.05, 0.5)
    # A planted placement: a random source-to-sink walk of the full DAG.
    v, cols = 0, np.empty(n, dtype=np.int64)
    for t in range(n):
        arcs = np.arange(dag.start[v], dag.start[v + 1])
        a = int(rng.choice(arcs))
        cols[int(dag.label[a]) // n] = t
        v = int(dag.head[a])
    closure[np.arange(n), cols] = True
    return NishioInstance(g, mask | closure)


@pytest.mark.parametrize("shape", sorted(GRAPH_SIZES))
def test_graph_has_the_vertex_and_arc_counts_of_the_table(shape: tuple[int, int]) -> None:
    dag = build_dag(*shape)
    assert (dag.vertices, dag.arcs) == GRAPH_SIZES[shape]
    assert dag.masks[0] == 0 and dag.masks[-1] == (1 << dag.n) - 1


@pytest.mark.parametrize("shape", sorted(LAYERS))
def test_layers_have_the_tabled_sizes(shape: tuple[int, int]) -> None:
    assert build_dag(*shape).layer_sizes() == LAYERS[shape]


@pytest.mark.parametrize("shape", sorted(GRAPH_SIZES))
def test_empty_grid_placement_count_matches_the_formula(shape: tuple[int, int]) -> None:
    dag = build_dag(*shape)
    assert count_batch(dag, np.ones((1, dag.n, dag.n), dtype=bool)) == [placements_formula(*shape)]


def test_25x25_graph_and_its_exact_placement_count() -> None:
    dag = build_dag(5, 5)
    assert (dag.vertices, dag.arcs) == (4_528_052, 34_189_800)
    full = np.ones((1, 25, 25), dtype=bool)
    assert count_batch(dag, full) == [619_173_642_240_000_000_000] == [placements_formula(5, 5)]
    assert placements_formula(5, 5) > 2**63
    assert closure_batch(dag, full).all()


def test_36x36_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="too large"):
        build_dag(6, 6)


@pytest.mark.parametrize("shape", SMALL_SHAPES)
def test_paths_of_the_full_graph_are_exactly_the_valid_placements(shape: tuple[int, int]) -> None:
    dag = build_dag(*shape)
    n = dag.n
    paths: set[tuple[int, ...]] = set()

    def walk(v: int, cols: list[int]) -> None:
        if v == dag.vertices - 1:
            paths.add(tuple(cols))
            return
        for a in range(dag.start[v], dag.start[v + 1]):
            row, col = divmod(int(dag.label[a]), n)
            assert col == dag.layer[v]  # the t-th arc of a path is the placement's cell in column t
            cols[row] = col
            walk(int(dag.head[a]), cols)
            cols[row] = -1

    walk(0, [-1] * n)
    assert paths == {tuple(int(c) for c in perm) for perm in brute_placements(*shape)}


@pytest.mark.parametrize("shape", SMALL_SHAPES)
def test_closure_count_and_witness_match_brute_force_on_random_sets(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    method = DagNishio()
    rng = np.random.default_rng(2012)
    for trial in range(600):
        instance = random_instance(g, rng, ("sparse", "dense", "planted")[trial % 3])
        expected, count = brute_closure(instance)
        assert np.array_equal(method.closure(instance), expected)
        assert method.count_placements(instance).count == count
        witness = method.find_placement(instance)
        assert (witness is None) == (count == 0)
        if witness is not None:
            assert placement_problem(instance, witness) is None


@settings(max_examples=150)
@given(st.sampled_from(SMALL_SHAPES), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_closure_equals_brute_force_for_any_density(
    shape: tuple[int, int], seed: int, density: float
) -> None:
    g = Geometry(*shape)
    instance = NishioInstance(g, np.random.default_rng(seed).random((g.n, g.n)) < density)
    expected, count = brute_closure(instance)
    assert np.array_equal(DagNishio().closure(instance), expected)
    assert count_batch(build_dag(*shape), instance.mask[None]) == [count]


@pytest.mark.parametrize("shape", [*ALL_SMALL, (4, 4)])
def test_batch_closure_equals_one_query_at_a_time_across_lane_boundaries(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(7)
    instances = [random_instance(g, rng, ("sparse", "dense", "planted")[k % 3]) for k in range(130)]
    masks = np.stack([i.mask for i in instances])
    batch = closure_batch(build_dag(*shape), masks)
    method = DagNishio()
    for k, instance in enumerate(instances):
        assert np.array_equal(batch[k], method.closure(instance))
        assert not (batch[k] & ~instance.mask).any()


@pytest.mark.parametrize("shape", ALL_SMALL)
def test_planted_placement_is_always_inside_the_closure(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(11)
    method = DagNishio()
    for _ in range(200):
        instance = random_instance(g, rng, "planted")
        closure = method.closure(instance)
        witness = method.find_placement(instance)
        assert witness is not None and placement_problem(instance, witness) is None
        assert closure[np.arange(g.n), witness].all()


def test_empty_set_and_a_set_missing_a_row_have_no_placement() -> None:
    g = Geometry(3, 3)
    method = DagNishio()
    empty = NishioInstance(g, np.zeros((9, 9), dtype=bool))
    no_row = NishioInstance(g, np.ones((9, 9), dtype=bool))
    mask = no_row.mask.copy()
    mask[4] = False
    for instance in (empty, NishioInstance(g, mask)):
        assert not method.closure(instance).any()
        assert method.find_placement(instance) is None
        assert method.count_placements(instance).count == 0


# The deduction of the paper's Figure 1 (positions of that puzzle were not recovered, so this is a
# state built with the same property): placing 7 in R9C5 forces R5C6, R4C1, R2C3, R1C7 and R9C9
# in turn, two 7s in row 9, so R9C5 is in no placement; S holds four placements.
FIGURE_1_LIKE = """\
x . . | . . . | x . .
. . x | . . . | . x .
. . . | x x . | . . .
------+-------+------
x . . | . x . | . x .
. x . | . . x | . . .
. . . | . . . | . x x
------+-------+------
x x . | . . . | x . .
. . x | x . x | . . .
x . x | . x x | . . x
"""


def test_nishio_removes_r9c5_as_in_the_papers_figure_1() -> None:
    instance = parse_instance(FIGURE_1_LIKE)
    method = DagNishio()
    closure = method.closure(instance)
    assert instance.mask[8, 4] and not closure[8, 4]
    assert method.count_placements(instance).count == 4
    # The forcing chain: with 7 in R9C5, each next cell is its box's only cell left.
    chain = [(8, 4), (4, 5), (3, 0), (1, 2), (0, 6), (8, 8)]
    g = instance.geometry
    for (r0, c0), (r1, c1) in itertools.pairwise(chain):
        box = g.box_index(r1, c1)
        left = [
            (r, c)
            for r, c in instance.cells()
            if g.box_index(r, c) == box and r != r0 and c != c0 and g.box_index(r, c) != g.box_index(r0, c0)
        ]
        assert left == [(r1, c1)]
    assert chain[0][0] == chain[-1][0]  # the chain ends on the row it started from


def test_large_graphs_are_kept_on_disk_and_read_back_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sudoku_cp.nishio import dag as dag_module

    monkeypatch.setenv("SUDOKU_CP_CACHE", str(tmp_path))
    monkeypatch.setattr(dag_module, "DISK_CACHE_MIN_SIDE", 6)
    built = dag_module._build.__wrapped__(2, 3)  # bypass the in-memory cache
    (folder,) = tmp_path.iterdir()
    loaded = dag_module._load_cached(2, 3)
    assert loaded is not None
    for name in ("masks", "layer", "start", "head", "label"):
        assert np.array_equal(getattr(loaded, name), getattr(built, name)), name
    np.save(folder / "head.npy", built.head[:-1])  # a damaged file is ignored and the graph rebuilt
    assert dag_module._load_cached(2, 3) is None
    assert not folder.exists()
    rebuilt = dag_module._build.__wrapped__(2, 3)
    assert np.array_equal(rebuilt.label, built.label)
    reloaded = dag_module._load_cached(2, 3)
    assert reloaded is not None and np.array_equal(reloaded.head, built.head)


def test_disk_cache_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.nishio.dag import cache_directory

    monkeypatch.setenv("SUDOKU_CP_CACHE", "off")
    assert cache_directory() is None
    monkeypatch.setenv("SUDOKU_CP_CACHE", "/some/where")
    assert cache_directory() == Path("/some/where")
