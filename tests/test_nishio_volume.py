"""Thousands of random Nishio instances per geometry, and the digit subproblems of the 9x9 corpora.

Every exact method agrees with the DAG (closure and count), the matching relaxation contains the
exact closure, planted placements stay in the closure and Hall-violating sets have none.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.dag import build_dag, closure_batch, count_batch
from sudoku_cp.nishio.instance import NishioInstance, digit_instances
from sudoku_cp.nishio.matching import matching_closure
from sudoku_cp.nishio.overlay import overlay_batch
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.nishio.random_instances import FAMILIES, random_masks, random_placement

SMALL = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]
LARGE = [(3, 4), (4, 3), (4, 4)]
#: The default run keeps one large shape; the others run in the slow stage (same checks, more volume).
SLOW = pytest.mark.slow


def _first_only(shapes: list[tuple[int, int]]) -> list[object]:
    return [shapes[0], *(pytest.param(shape, marks=SLOW) for shape in shapes[1:])]


PER_FAMILY = 500  # 2,000 instances per geometry


def family_stack(g: Geometry, seed: int, per_family: int = PER_FAMILY) -> tuple[np.ndarray, np.ndarray]:
    """(masks, family index of each mask) with ``per_family`` instances of every family."""
    rng = np.random.default_rng(seed)
    masks = np.concatenate([random_masks(g, family, per_family, rng) for family in FAMILIES])
    return masks, np.repeat(np.arange(len(FAMILIES)), per_family)


def check_family_properties(closures: np.ndarray, kinds: np.ndarray) -> None:
    empty = FAMILIES.index("empty")
    planted = FAMILIES.index("planted")
    assert not closures[kinds == empty].any(), "a Hall-violating set has a placement"
    assert closures[kinds == planted].any(axis=(1, 2)).all(), "a planted set lost its placement"


def check_matching_contains(masks: np.ndarray, closures: np.ndarray) -> None:
    for mask, closure in zip(masks, closures, strict=True):
        relaxed = matching_closure(mask)
        assert not (closure & ~relaxed).any(), "the matching closure misses a cell of S'"
        assert not (relaxed & ~mask).any()


@pytest.mark.parametrize("shape", SMALL, ids=lambda s: f"{s[0]}x{s[1]}")
def test_dag_overlay_and_matching_agree_on_2000_random_sets(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    masks, kinds = family_stack(g, seed=g.p * 10 + g.q)
    dag = build_dag(*shape)
    closures = closure_batch(dag, masks)
    counts = count_batch(dag, masks)
    overlay = overlay_batch(g, masks)
    assert np.array_equal(closures, overlay.closure)
    assert counts == overlay.counts.tolist()
    assert [c > 0 for c in counts] == closures.any(axis=(1, 2)).tolist()
    check_family_properties(closures, kinds)
    check_matching_contains(masks, closures)
    sat = make_method("sat")
    for k in range(0, len(masks), 10):  # the SAT covering loop on every tenth set
        assert np.array_equal(sat.closure(NishioInstance(g, masks[k])), closures[k]), k


# 40 s a shape: all in the slow stage (the default run checks the DAG against SAT on every
# shape and family by hypothesis, below, and against the overlay and matching on the small shapes).
@pytest.mark.slow
@pytest.mark.parametrize("shape", LARGE, ids=lambda s: f"{s[0]}x{s[1]}")
def test_dag_and_sat_agree_on_2000_random_sets(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    masks, kinds = family_stack(g, seed=g.p * 10 + g.q)
    closures = closure_batch(build_dag(*shape), masks)
    check_family_properties(closures, kinds)
    check_matching_contains(masks, closures)
    sat = make_method("sat")
    # The SAT covering loop on every second set: 1,000 a shape keep the comparison strong, and the
    # loop over all 2,000 16x16 sets was the default run's slowest test (20 s).
    for k in range(0, len(masks), 2):
        assert np.array_equal(sat.closure(NishioInstance(g, masks[k])), closures[k]), k


@pytest.mark.slow  # 40 s a shape; the small shapes' agreement runs by default
@pytest.mark.parametrize("shape", [(3, 4), (4, 3)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_dag_and_overlay_agree_on_12x12(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    masks, _ = family_stack(g, seed=7, per_family=25)
    dag = build_dag(*shape)
    overlay = overlay_batch(g, masks)
    assert np.array_equal(closure_batch(dag, masks), overlay.closure)
    assert count_batch(dag, masks) == overlay.counts.tolist()


@pytest.mark.parametrize("shape", _first_only([(3, 3), (4, 4)]), ids=lambda s: f"{s[0]}x{s[1]}")
def test_exact_models_agree_with_the_dag_on_every_family(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    masks, _ = family_stack(g, seed=3, per_family=6)
    closures = closure_batch(build_dag(*shape), masks)
    counts = count_batch(build_dag(*shape), masks)
    for name in ("cpsat", "xc"):
        method = make_method(name)
        for k, mask in enumerate(masks):
            instance = NishioInstance(g, mask)
            assert np.array_equal(method.closure(instance), closures[k]), (name, k)
            if counts[k] <= 5000:
                assert method.count_placements(instance).count == counts[k], (name, k)


@settings(max_examples=150)
@given(
    st.sampled_from(SMALL + LARGE),
    st.integers(0, 2**32 - 1),
    st.sampled_from(FAMILIES),
)
def test_dag_closure_equals_sat_closure_for_any_shape_and_family(
    shape: tuple[int, int], seed: int, family: str
) -> None:
    g = Geometry(*shape)
    mask = random_masks(g, family, 1, np.random.default_rng(seed))[0]
    closure = closure_batch(build_dag(*shape), mask[None])[0]
    instance = NishioInstance(g, mask)
    assert np.array_equal(make_method("sat").closure(instance), closure)
    witness = make_method("dag").find_placement(instance)
    assert (witness is None) == (not closure.any())
    if witness is not None:
        assert placement_problem(instance, witness) is None


@pytest.mark.parametrize("shape", SMALL + LARGE, ids=lambda s: f"{s[0]}x{s[1]}")
def test_random_placements_are_valid(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    rng = np.random.default_rng(5)
    full = NishioInstance.full(g)
    seen = {tuple(random_placement(g, rng)) for _ in range(50)}
    assert all(placement_problem(full, np.array(cols)) is None for cols in seen)
    assert len(seen) > 1


def corpus_masks(lines: list[str]) -> np.ndarray:
    return np.stack([i.mask for line in lines for i in digit_instances(parse_grid(line))])


def check_corpus(masks: np.ndarray) -> None:
    g = Geometry(3, 3)
    closures = closure_batch(build_dag(3, 3), masks)
    assert np.array_equal(closures, overlay_batch(g, masks).closure)
    assert closures.any(axis=(1, 2)).all()  # a solvable puzzle keeps a placement for every digit
    check_matching_contains(masks, closures)


@pytest.mark.parametrize("corpus", ["norvig_top95.txt", "serg_100.txt", "named_hard.txt"])
def test_digit_subproblems_of_the_sample_corpora(corpus: str) -> None:
    lines = [line.split("\t")[-1] for line in read_lines(DATA / corpus)]
    check_corpus(corpus_masks(lines))


@pytest.mark.slow
@pytest.mark.parametrize(
    "corpus",
    [
        "sudoku9/tdoku_magictour_top1465.txt",
        "sudoku9/tdoku_forum_hardest_1905_11plus_every5th.txt",
        "sudoku9/sudoku_exchange_diabolical_10k.txt",
        "sudoku9/euler96_easy50.txt",
    ],
)
def test_digit_subproblems_of_the_whole_9x9_corpora(corpus: str) -> None:
    lines = read_lines(shared_file(corpus))
    for start in range(0, len(lines), 2000):
        check_corpus(corpus_masks(lines[start : start + 2000]))


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (4, 4), (5, 5)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_matching_prune_keeps_every_placement(shape: tuple[int, int]) -> None:
    from sudoku_cp.nishio.matching import unit_pair_prune
    from sudoku_cp.nishio.random_instances import pigeonhole

    g = Geometry(*shape)
    masks, _ = family_stack(g, seed=11, per_family=60 if g.n < 25 else 2)
    masks = np.concatenate([masks, pigeonhole(g, (g.n + 1) // 2)[None]])
    dag = build_dag(*shape)
    closures = closure_batch(dag, masks)
    pruned = np.stack([unit_pair_prune(g, mask) for mask in masks])
    assert not (pruned & ~masks).any()
    assert not (closures & ~pruned).any(), "the prune removed a cell of S'"
    assert np.array_equal(closure_batch(dag, pruned), closures)
    assert count_batch(dag, pruned) == count_batch(dag, masks)
    assert not pruned[-1].any()  # the pigeonhole set is settled by the prune alone
