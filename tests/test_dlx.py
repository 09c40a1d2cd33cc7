"""Algorithm X (sudoku_cp.native.dlx) finds exactly the exact covers, honours limits and time limits."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import within_limit
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.native.dlx import ExactCoverResult, solve_exact_cover

# Knuth, "Dancing Links", section 2: items A..G, six options.
KNUTH_OPTIONS = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]


def is_exact_cover(options: list[list[int]], n_items: int, chosen: np.ndarray) -> bool:
    """Every item is covered by exactly one chosen option."""
    hits = np.zeros(n_items, dtype=np.int64)
    for option in chosen.tolist():
        hits[options[option]] += 1
    return bool((hits == 1).all())


def brute_force_count(options: list[list[int]], n_items: int) -> int:
    """The number of subsets of options that are exact covers, checking all 2**len(options) subsets."""
    subsets = np.arange(2 ** len(options), dtype=np.int64)
    union = np.zeros_like(subsets)
    size = np.zeros_like(subsets)
    for j, option in enumerate(options):
        chosen = (subsets >> j) & 1
        union |= chosen * sum(1 << item for item in option)
        size += chosen * len(option)
    return int(((union == (1 << n_items) - 1) & (size == n_items)).sum())


def sudoku_options(
    p: int, q: int, fixed: dict[tuple[int, int], int] | None = None
) -> tuple[list[list[int]], int]:
    """Exact-cover options of an n = p*q Sudoku with p-row, q-column boxes; fixed cells get one option."""
    n = p * q
    fixed = fixed or {}
    options = []
    for r in range(n):
        for c in range(n):
            box = (r // p) * p + c // q
            digits = [fixed[r, c]] if (r, c) in fixed else range(n)
            for d in digits:
                options.append([r * n + c, n * n + r * n + d, 2 * n * n + c * n + d, 3 * n * n + box * n + d])
    return options, 4 * n * n


def test_finds_the_unique_solution_of_knuths_example() -> None:
    result = solve_exact_cover(KNUTH_OPTIONS, 7, limit=10)
    assert result.complete and not result.timed_out
    assert result.count == 1
    assert [s.tolist() for s in result.solutions] == [[0, 3, 4]]  # {C,E,F}, {A,D}, {B,G}
    assert result.solutions[0].dtype == np.int64
    assert result.nodes > 0


@settings(max_examples=300)
@given(
    st.integers(1, 8).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.sets(st.integers(0, n - 1), min_size=1).map(sorted), max_size=12),
        )
    )
)
def test_counts_match_brute_force_on_random_small_instances(instance: tuple[int, list[list[int]]]) -> None:
    n_items, options = instance
    expected = brute_force_count(options, n_items)
    result = solve_exact_cover(options, n_items, limit=expected + 1)
    assert result.complete and not result.timed_out
    assert result.count == len(result.solutions) == expected
    assert len({tuple(s.tolist()) for s in result.solutions}) == expected
    for solution in result.solutions:
        assert (np.diff(solution) > 0).all()
        assert is_exact_cover(options, n_items, solution)


def test_uncovered_item_means_no_solution_and_a_complete_search() -> None:
    result = solve_exact_cover([*KNUTH_OPTIONS, [0, 1]], 8, limit=5)
    assert result == ExactCoverResult([], complete=True, timed_out=False, nodes=0, count=0)


def test_no_items_has_exactly_the_empty_cover() -> None:
    result = solve_exact_cover([], 0, limit=5)
    assert result.complete and result.count == 1
    assert result.solutions[0].size == 0


def test_stops_at_the_limit_and_reports_an_incomplete_search() -> None:
    options, n_items = sudoku_options(2, 2)
    for limit in (1, 7, 288):
        result = solve_exact_cover(options, n_items, limit=limit)
        assert result.count == len(result.solutions) == limit
        assert not result.complete and not result.timed_out
    assert solve_exact_cover(options, n_items, limit=289).complete


def test_counts_all_288_solutions_of_the_empty_4x4_sudoku() -> None:
    options, n_items = sudoku_options(2, 2)
    result = solve_exact_cover(options, n_items, limit=10**6)
    assert result.complete and result.count == 288
    assert len({tuple(s.tolist()) for s in result.solutions}) == 288
    assert all(is_exact_cover(options, n_items, s) for s in result.solutions)


def test_counts_the_6x6_sudokus_with_a_fixed_first_row() -> None:
    options, n_items = sudoku_options(2, 3, {(0, c): c for c in range(6)})
    counted = solve_exact_cover(options, n_items, limit=10**6, keep=False)
    assert counted.complete and counted.count == 39_168 and counted.solutions == []
    kept = solve_exact_cover(options, n_items, limit=10**6)
    assert kept.complete and len(kept.solutions) == kept.count == 39_168
    assert kept.nodes == counted.nodes
    assert len({s.tobytes() for s in kept.solutions}) == 39_168
    assert all(is_exact_cover(options, n_items, s) for s in kept.solutions[::997])


def test_time_limit_stops_an_endless_count() -> None:
    solve_exact_cover(KNUTH_OPTIONS, 7)  # compile (or load the cache) outside the timed call
    options, n_items = sudoku_options(4, 4)
    began = time.perf_counter()
    result = solve_exact_cover(options, n_items, limit=10**9, keep=False, time_limit=0.5)
    elapsed = time.perf_counter() - began
    assert result.timed_out and not result.complete
    assert result.nodes > 0
    assert elapsed >= 0.5 and within_limit(elapsed, 0.5)


def test_generous_time_limit_still_finishes_the_search() -> None:
    result = solve_exact_cover(KNUTH_OPTIONS, 7, limit=5, time_limit=60.0)
    assert result.complete and not result.timed_out and result.count == 1


def test_csr_and_array_inputs_give_the_same_solutions_as_lists() -> None:
    options, n_items = sudoku_options(2, 2)
    expected = solve_exact_cover(options, n_items, limit=1000)
    indptr = np.arange(len(options) + 1, dtype=np.int64) * 4
    items = np.array(options, dtype=np.int64).reshape(-1)
    for form in ((indptr, items), np.array(options, dtype=np.int64)):
        result = solve_exact_cover(form, n_items, limit=1000)
        assert result.count == expected.count == 288
        assert [s.tolist() for s in result.solutions] == [s.tolist() for s in expected.solutions]


@pytest.mark.parametrize(
    ("options", "n_items", "limit"),
    [
        ([[0], []], 1, 1),  # empty option
        ([[0, 2]], 2, 1),  # item out of range
        ([[0, 0]], 1, 1),  # repeated item
        ([[0]], 1, 0),  # limit below 1
    ],
)
def test_rejects_malformed_input(options: list[list[int]], n_items: int, limit: int) -> None:
    with pytest.raises(ValueError):
        solve_exact_cover(options, n_items, limit=limit)
