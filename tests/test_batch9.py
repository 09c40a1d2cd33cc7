"""The 9x9 bitset propagation of the SAT batch path reaches the general propagation's fixpoint."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.backends.batch9 import _pair_losses, propagate9
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.propagation import propagate_batch

NINE = geometry_for_size(9)
CORPORA = ["clue17_100.txt", "forum_hardest_200.txt", "magictour_100.txt", "norvig_hardest.txt"]


def _stack(name: str) -> np.ndarray:
    items = parse_puzzles("\n".join(read_lines(DATA / name)))
    return np.stack([item.grid.values.reshape(-1) for item in items if item.grid is not None])


def _same(values: np.ndarray, locked: bool, pairs: bool = False) -> None:
    expected = propagate_batch(NINE, values, locked=locked, pairs=pairs)
    found = propagate9(values, locked=locked, pairs=pairs)
    assert found.contradiction.tolist() == expected.contradiction.tolist()
    fine = ~expected.contradiction
    assert np.array_equal(found.values[fine], expected.values[fine])
    assert np.array_equal(found.candidates[fine], expected.candidates[fine])


@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.parametrize("locked", [False, True])
def test_corpora_reach_the_same_fixpoint(name: str, locked: bool) -> None:
    _same(_stack(name), locked)


@pytest.mark.parametrize("name", CORPORA)
def test_pairs_reach_the_same_fixpoint(name: str) -> None:
    _same(_stack(name), locked=True, pairs=True)


def test_pairs_solve_more_of_the_easy_corpus() -> None:
    values = _stack("clue17_100.txt")
    without = propagate9(values, locked=True)
    found = propagate9(values, locked=True, pairs=True)
    assert (found.values != 0).all(axis=1).sum() > (without.values != 0).all(axis=1).sum()


@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.1), st.booleans(), st.booleans())
def test_noisy_puzzles_reach_the_same_fixpoint_and_the_same_contradictions(
    seed: int, noise: float, locked: bool, pairs: bool
) -> None:
    rng = np.random.default_rng(seed)
    values = _stack("clue17_100.txt")[:40].copy()
    changed = rng.random(values.shape) < noise
    values[changed] = rng.integers(0, 10, int(changed.sum()))
    _same(values, locked, pairs and locked)


def _sets(first_row: list[set[int]]) -> np.ndarray:
    """(1, 81) candidate sets: the first row as given (digit sets), every other cell all nine."""
    masks = np.full((1, 81), 0x1FF, dtype=np.uint16)
    for cell, digits in enumerate(first_row):
        masks[0, cell] = sum(1 << (d - 1) for d in digits)
    return masks


def test_a_naked_pair_takes_its_digits_from_the_rest_of_the_unit() -> None:
    rest = set(range(1, 10))
    lose, bad = _pair_losses(_sets([{1, 2}, {1, 2}] + [rest] * 7))
    assert not bad[0]
    assert lose[0, 2:9].tolist() == [0b11] * 7 and lose[0, :2].tolist() == [0, 0]


def test_a_hidden_pair_leaves_its_cells_no_other_candidate() -> None:
    rest = set(range(3, 10))
    lose, bad = _pair_losses(_sets([set(range(1, 10))] * 2 + [rest] * 7))
    assert not bad[0]
    assert lose[0, :2].tolist() == [0x1FC, 0x1FC] and not lose[0, 2:9].any()


@pytest.mark.parametrize(
    "first_row",
    [
        [{1, 2}] * 3 + [set(range(3, 10))] * 6,  # three cells with the same two candidates
        [set(range(1, 10))] * 2 + [set(range(4, 10))] * 7,  # three digits held to two cells
        # cell 1 in two hidden pairs: digits 1-2 only on cells 0-1, digits 3-4 only on cells 1-2
        [{1, 2, 5, 6, 7, 8, 9}, set(range(1, 10)), {3, 4, 5, 6, 7, 8, 9}] + [set(range(5, 10))] * 6,
    ],
)
def test_impossible_pairs_make_the_puzzle_contradictory(first_row: list[set[int]]) -> None:
    assert _pair_losses(_sets(first_row))[1][0]


def test_a_spent_deadline_stops_propagation() -> None:
    with pytest.raises(TimeLimitReached, match="propagation"):
        propagate9(_stack("clue17_100.txt"), deadline=Deadline(0.0))


@pytest.mark.parametrize("pairs", [False, True])
def test_an_empty_batch_gives_empty_tables(pairs: bool) -> None:
    found = propagate9(np.zeros((0, 81), dtype=np.int16), pairs=pairs)
    assert found.values.shape == (0, 81) and found.candidates.shape == (0, 81, 9)
