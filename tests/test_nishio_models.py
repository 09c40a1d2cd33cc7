"""The SAT, CP-SAT and exact-cover Nishio methods agree with each other and with brute force."""

from __future__ import annotations

import itertools
import time
from functools import cache

import numpy as np
import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.cnf import NISHIO_CNF_ENCODINGS, encode_nishio_cnf, nishio_dimacs_text
from sudoku_cp.nishio.cpsat import CpsatNishio, build_nishio_cpsat, export_nishio_cpsat
from sudoku_cp.nishio.exact_cover import DlxNishio, build_nishio_exact_cover, export_nishio_dlx
from sudoku_cp.nishio.instance import NishioInstance, digit_instances
from sudoku_cp.nishio.method import NishioCount, NishioMethod
from sudoku_cp.nishio.placement import (
    WrongPlacementError,
    checked_placement,
    has_empty_unit,
    placement_problem,
)
from sudoku_cp.nishio.sat import SatNishio
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]
SMALL_SHAPES = [shape for shape in SHAPES if shape[0] * shape[1] <= 8]

METHODS: list[NishioMethod] = [
    SatNishio(),
    SatNishio(solver="glucose4", amo="pairwise", closure="enumerate"),
    SatNishio(solver="minisat22", amo="ladder"),
    CpsatNishio("bool"),
    CpsatNishio("alldiff"),
    DlxNishio(),
    DlxNishio(enumerate_cap=1),
]


# ---------------------------------------------------------------- brute-force reference


@cache
def all_placements(p: int, q: int) -> np.ndarray:
    """Every placement of the empty grid (column per row), by filtering all column permutations."""
    n = p * q
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
    boxes = (np.arange(n)[None, :] // p) * p + perms // q
    ok = np.array([len(set(row)) == n for row in boxes.tolist()])
    return perms[ok]


def reference(instance: NishioInstance) -> np.ndarray:
    """The placements inside S, brute force."""
    g = instance.geometry
    placements = all_placements(g.p, g.q)
    inside = instance.mask[np.arange(g.n)[None, :], placements].all(axis=1)
    return placements[inside]


def reference_closure(instance: NishioInstance) -> np.ndarray:
    closure = np.zeros_like(instance.mask)
    for cols in reference(instance):
        closure[np.arange(instance.n), cols] = True
    return closure


# ---------------------------------------------------------------- instances


def random_instance(rng: np.random.Generator, p: int, q: int, density: float) -> NishioInstance:
    n = p * q
    return NishioInstance(Geometry(p, q), rng.random((n, n)) < density)


def planted_instance(rng: np.random.Generator, p: int, q: int, density: float) -> NishioInstance:
    """A random valid placement plus random extra cells."""
    n = p * q
    mask = rng.random((n, n)) < density
    if n <= 8:
        placements = all_placements(p, q)
        mask[np.arange(n), placements[rng.integers(len(placements))]] = True
        return NishioInstance(Geometry(p, q), mask)
    # A fixed placement of the empty grid moved by symmetries that keep bands and stacks.
    cols = np.array([(r % p) * q + r // p for r in range(n)])
    rows = np.concatenate([band * p + rng.permutation(p) for band in rng.permutation(q)])
    stack_of = np.concatenate([stack * q + rng.permutation(q) for stack in rng.permutation(p)])
    mask[rows, stack_of[cols]] = True
    instance = NishioInstance(Geometry(p, q), mask)
    assert placement_problem(instance, stack_of[cols][np.argsort(rows)]) is None
    return instance


def fixed_instances() -> list[tuple[str, NishioInstance]]:
    rng = np.random.default_rng(20240611)
    cases: list[tuple[str, NishioInstance]] = []
    for p, q in SMALL_SHAPES:
        g = Geometry(p, q)
        cases.append((f"{p}x{q}-empty-S", NishioInstance.from_cells(g, [])))
        cases.append((f"{p}x{q}-full", NishioInstance.full(g)))
        for k, density in enumerate((0.25, 0.45, 0.7)):
            cases.append((f"{p}x{q}-random{k}", random_instance(rng, p, q, density)))
        for k, density in enumerate((0.1, 0.3)):
            cases.append((f"{p}x{q}-planted{k}", planted_instance(rng, p, q, density)))
        row_gap = np.ones((g.n, g.n), dtype=bool)
        row_gap[1] = False
        cases.append((f"{p}x{q}-empty-row", NishioInstance(g, row_gap)))
    return cases


FIXED = fixed_instances()


def check_against_reference(method: NishioMethod, instance: NishioInstance) -> None:
    expected = reference(instance)
    found = method.find_placement(instance)
    if len(expected) == 0:
        assert found is None
    else:
        assert found is not None and placement_problem(instance, found) is None
    assert np.array_equal(method.closure(instance), reference_closure(instance))
    assert method.count_placements(instance) == NishioCount(len(expected), complete=True)
    limited = method.count_placements(instance, limit=3)
    assert limited == NishioCount(min(len(expected), 3), complete=len(expected) < 3)


# ---------------------------------------------------------------- agreement


def test_the_fixed_instances_include_empty_closures_and_planted_solutions() -> None:
    sizes = [len(reference(instance)) for _, instance in FIXED]
    assert 0 in sizes and any(size > 3 for size in sizes)
    assert all(len(reference(instance)) > 0 for name, instance in FIXED if "planted" in name)


#: Variants of a family (another solver, encoding or closure) and CP-SAT's AllDifferent model (35 s)
#: check the fixed instances in the slow stage; the random instances check every method by default.
@pytest.mark.parametrize(
    "method",
    [pytest.param(m, marks=pytest.mark.slow) if m in METHODS[1:5] else m for m in METHODS],
    ids=repr,
)
def test_method_matches_brute_force_on_fixed_instances(method: NishioMethod) -> None:
    for _, instance in FIXED:
        check_against_reference(method, instance)


@settings(max_examples=12)
@given(
    shape=st.sampled_from(SMALL_SHAPES),
    density=st.floats(0.15, 0.85),
    planted=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_all_methods_match_brute_force_on_random_instances(
    shape: tuple[int, int], density: float, planted: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    make = planted_instance if planted else random_instance
    instance = make(rng, shape[0], shape[1], density)
    for method in METHODS:
        check_against_reference(method, instance)


@pytest.mark.slow  # every method on many 9x9 sets; the default run cross-checks smaller ones
def test_methods_agree_with_each_other_on_9x9_instances() -> None:
    rng = np.random.default_rng(7)
    instances = [random_instance(rng, 3, 3, density) for density in (0.6, 0.7, 0.8, 0.9)]
    instances += [planted_instance(rng, 3, 3, density) for density in (0.15, 0.3)]
    grid = parse_grid((DATA / "aiescargot.txt").read_text())
    instances += digit_instances(grid)
    for instance in instances:
        closures = [method.closure(instance) for method in METHODS]
        counts = [method.count_placements(instance, limit=500) for method in METHODS]
        assert all(np.array_equal(closures[0], other) for other in closures[1:])
        assert all(count == counts[0] for count in counts[1:])
        decisions = [method.find_placement(instance) is not None for method in METHODS]
        assert all(decisions) or not any(decisions)
        assert decisions[0] == (counts[0].count > 0)


def test_closure_drops_the_cells_no_placement_uses() -> None:
    g = Geometry(2, 2)
    # Row 1 can only use R1C1, which excludes R2C1, R2C2 (box) and R3C1 (column).
    mask = np.ones((4, 4), dtype=bool)
    mask[0] = [True, False, False, False]
    instance = NishioInstance(g, mask)
    expected = reference_closure(instance)
    assert not expected[1, 0] and not expected[1, 1] and not expected[2, 0]
    for method in METHODS:
        assert np.array_equal(method.closure(instance), expected)


# ---------------------------------------------------------------- empty grids


@pytest.mark.parametrize(("p", "q", "count"), [(2, 2, 16), (2, 3, 288), (3, 2, 288)])
def test_empty_small_grids_have_the_known_number_of_placements(p: int, q: int, count: int) -> None:
    instance = NishioInstance.full(Geometry(p, q))
    assert len(reference(instance)) == count
    for method in METHODS:
        assert method.count_placements(instance) == NishioCount(count, complete=True)
        assert method.closure(instance).all()


@pytest.mark.parametrize(
    "method",  # enumerating 46,656 placements by SAT or CP-SAT: the slow stage
    [
        pytest.param(SatNishio(), marks=pytest.mark.slow),
        DlxNishio(),
        pytest.param(CpsatNishio("alldiff"), marks=pytest.mark.slow),
    ],
    ids=repr,
)
def test_empty_9x9_grid_has_46656_placements(method: NishioMethod) -> None:
    instance = NishioInstance.full(Geometry(3, 3))
    assert method.count_placements(instance) == NishioCount(46656, complete=True)


@pytest.mark.slow
def test_empty_9x9_grid_has_46656_placements_by_the_cpsat_bool_model() -> None:
    instance = NishioInstance.full(Geometry(3, 3))
    assert CpsatNishio("bool").count_placements(instance) == NishioCount(46656, complete=True)


@pytest.mark.parametrize("method", METHODS, ids=repr)
def test_empty_set_has_no_placement_empty_closure_and_count_zero(method: NishioMethod) -> None:
    for p, q in SHAPES:
        instance = NishioInstance.from_cells(Geometry(p, q), [])
        assert method.find_placement(instance) is None
        assert not method.closure(instance).any()
        assert method.count_placements(instance) == NishioCount(0, complete=True)


# ---------------------------------------------------------------- time limits


def hard_16x16() -> NishioInstance:
    rng = np.random.default_rng(16)
    return NishioInstance(Geometry(4, 4), rng.random((16, 16)) < 0.8)


@pytest.mark.parametrize("method", METHODS, ids=repr)
def test_tiny_time_limit_on_a_huge_count_gives_unknown(method: NishioMethod) -> None:
    began = time.perf_counter()
    assert method.count_placements(hard_16x16(), time_limit=0.05) is None
    assert time.perf_counter() - began < 5.0


@pytest.mark.parametrize("method", METHODS, ids=repr)
def test_time_limited_closure_is_unknown_or_right(method: NishioMethod) -> None:
    instance = hard_16x16()
    closure = method.closure(instance, time_limit=0.05)
    if closure is None:
        return
    assert np.array_equal(closure, SatNishio().closure(instance))


@pytest.mark.parametrize("method", METHODS, ids=repr)
def test_time_limited_limited_count_is_unknown_or_right(method: NishioMethod) -> None:
    instance = hard_16x16()
    count = method.count_placements(instance, limit=20, time_limit=0.5)
    if count is None:
        return
    assert count == NishioCount(20, complete=False)


@pytest.mark.parametrize("method", METHODS, ids=repr)
def test_zero_time_limit_gives_unknown_before_solving(method: NishioMethod) -> None:
    decision = method.decide(NishioInstance.full(Geometry(2, 2)), time_limit=0.0)
    assert decision.status is Status.UNKNOWN and decision.reason == REASON_TIME_LIMIT


# ---------------------------------------------------------------- checks and models


def test_an_invalid_placement_is_an_error_never_an_answer() -> None:
    instance = NishioInstance.full(Geometry(2, 2))
    with pytest.raises(WrongPlacementError, match="share box"):
        checked_placement(instance, np.array([0, 1, 2, 3]), "test")
    assert checked_placement(instance, np.array([0, 2, 1, 3]), "test").tolist() == [0, 2, 1, 3]


def test_empty_unit_detection_covers_rows_columns_and_boxes() -> None:
    g = Geometry(2, 3)
    assert not has_empty_unit(NishioInstance.full(g))
    for unit in (0, 6 + 2, 12 + 4):
        mask = np.ones(36, dtype=bool)
        mask[g.units[unit]] = False
        assert has_empty_unit(NishioInstance(g, mask.reshape(6, 6)))


def unit_sizes(instance: NishioInstance) -> list[int]:
    g = instance.geometry
    return instance.mask.reshape(-1)[g.units].sum(axis=1).tolist()


@pytest.mark.parametrize(("name", "instance"), FIXED[:16])
def test_pairwise_cnf_size_follows_the_specification_formula(name: str, instance: NishioInstance) -> None:
    cnf = encode_nishio_cnf(instance, "pairwise")
    assert cnf.n_vars == instance.size
    assert cnf.n_clauses == sum(1 + k * (k - 1) // 2 for k in unit_sizes(instance))


@pytest.mark.parametrize(("name", "instance"), FIXED[:16])
def test_seqcounter_cnf_size_follows_the_specification_formula(name: str, instance: NishioInstance) -> None:
    cnf = encode_nishio_cnf(instance, "seqcounter")
    sizes = unit_sizes(instance)
    # pysat writes a group of two pairwise; from three on, k - 1 counter bits and 3k - 4 clauses + ALO.
    assert cnf.n_vars == instance.size + sum(k - 1 for k in sizes if k >= 3)
    assert cnf.n_clauses == sum({0: 1, 1: 1, 2: 2}.get(k, 3 * k - 3) for k in sizes)


def test_empty_unit_gives_the_empty_clause_and_auxiliaries_follow_the_cells() -> None:
    mask = np.ones((4, 4), dtype=bool)
    mask[:, 2] = False
    cnf = encode_nishio_cnf(NishioInstance(Geometry(2, 2), mask), "seqcounter")
    assert [] in cnf.clauses
    assert "0" in nishio_dimacs_text(cnf).splitlines()
    aux = {abs(lit) for clause in cnf.clauses for lit in clause} - set(range(1, 13))
    assert aux and min(aux) == 13 and max(aux) == cnf.n_vars


def test_dimacs_names_the_geometry_encoding_and_every_variable() -> None:
    instance = NishioInstance.from_cells(Geometry(2, 3), [(0, 0), (1, 4), (5, 5)])
    text = nishio_dimacs_text(encode_nishio_cnf(instance, "pairwise"))
    lines = text.splitlines()
    assert "c n 6 p 2 q 3 box 2x3" in lines
    assert "c encoding exactly-one pairwise" in lines
    assert [line for line in lines if line.startswith("c x ")] == ["c x 1 1 1", "c x 2 2 5", "c x 3 6 6"]
    assert "p cnf 3 18" in lines


def test_every_encoding_type_gives_the_same_answers() -> None:
    rng = np.random.default_rng(3)
    instance = planted_instance(rng, 2, 3, 0.4)
    expected = reference_closure(instance)
    for amo in NISHIO_CNF_ENCODINGS:
        assert np.array_equal(SatNishio(amo=amo).closure(instance), expected), amo


def test_dlx_export_lists_3n_items_and_one_option_per_cell() -> None:
    instance = NishioInstance.from_cells(Geometry(2, 2), [(0, 0), (3, 3)])
    model = build_nishio_exact_cover(instance)
    lines = export_nishio_dlx(model).splitlines()
    assert lines[2] == "r1 r2 r3 r4 c1 c2 c3 c4 b1 b2 b3 b4"
    assert lines[3:] == ["r1 c1 b1", "r4 c4 b4"]


def test_cpsat_model_sizes_follow_the_specification() -> None:
    instance = NishioInstance.full(Geometry(3, 3))
    bool_sizes = build_nishio_cpsat(instance, "bool").sizes()
    assert bool_sizes == {"variables": 81, "constraints": 27, "row": 9, "column": 9, "box": 9}
    int_sizes = build_nishio_cpsat(instance, "alldiff").sizes()
    assert int_sizes == {
        "variables": 36,
        "constraints": 46,
        "columns": 1,
        "instack": 27,
        "stack": 9,
        "box": 9,
    }


def test_cpsat_int_model_of_an_empty_row_is_valid_and_infeasible() -> None:
    mask = np.ones((4, 4), dtype=bool)
    mask[2] = False
    model = build_nishio_cpsat(NishioInstance(Geometry(2, 2), mask), "alldiff")
    assert model.model.validate() == ""
    assert 'name: "empty_r3"' in export_nishio_cpsat(model)
    assert CpsatNishio("alldiff").find_placement(NishioInstance(Geometry(2, 2), mask)) is None


@pytest.mark.parametrize("solver", ["cadical195", "glucose4"])
def test_a_single_hard_sat_call_stops_at_the_time_limit(solver: str) -> None:
    """Pigeonhole: 13 rows in 12 columns at 25x25 takes CDCL far longer than the limit."""
    import time

    from sudoku_cp.nishio.random_instances import pigeonhole
    from sudoku_cp.nishio.sat import SatNishio

    instance = NishioInstance(Geometry(5, 5), pigeonhole(Geometry(5, 5), 13))
    start = time.perf_counter()
    decision = SatNishio(solver).decide(instance, time_limit=0.3)
    assert decision.status is Status.UNKNOWN and decision.reason == REASON_TIME_LIMIT
    assert time.perf_counter() - start < 5.0  # generous: the limit is checked between budget rounds


def test_pigeonhole_sets_have_no_placement_but_full_units() -> None:
    from sudoku_cp.nishio.dag import build_dag, closure_batch
    from sudoku_cp.nishio.matching import matching_closure
    from sudoku_cp.nishio.random_instances import pigeonhole

    for p, q, k in [(2, 2, 2), (2, 3, 3), (3, 3, 5), (4, 4, 8)]:
        g = Geometry(p, q)
        mask = pigeonhole(g, k)
        assert not closure_batch(build_dag(p, q), mask[None]).any()
        assert not matching_closure(mask).any()
        assert all(mask[g.units[u] // g.n, g.units[u] % g.n].any() for u in range(3 * g.n))
