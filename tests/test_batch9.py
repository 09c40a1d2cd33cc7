"""The 9x9 bitset propagation of the SAT batch path reaches the general propagation's fixpoint."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.backends.batch9 import propagate9
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.propagation import propagate_batch

NINE = geometry_for_size(9)
CORPORA = ["clue17_100.txt", "forum_hardest_200.txt", "magictour_100.txt", "norvig_hardest.txt"]


def _stack(name: str) -> np.ndarray:
    items = parse_puzzles("\n".join(read_lines(DATA / name)))
    return np.stack([item.grid.values.reshape(-1) for item in items if item.grid is not None])


def _same(values: np.ndarray, locked: bool) -> None:
    expected = propagate_batch(NINE, values, locked=locked)
    found = propagate9(values, locked=locked)
    assert found.contradiction.tolist() == expected.contradiction.tolist()
    fine = ~expected.contradiction
    assert np.array_equal(found.values[fine], expected.values[fine])
    assert np.array_equal(found.candidates[fine], expected.candidates[fine])


@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.parametrize("locked", [False, True])
def test_corpora_reach_the_same_fixpoint(name: str, locked: bool) -> None:
    _same(_stack(name), locked)


@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.1), st.booleans())
def test_noisy_puzzles_reach_the_same_fixpoint_and_the_same_contradictions(
    seed: int, noise: float, locked: bool
) -> None:
    rng = np.random.default_rng(seed)
    values = _stack("clue17_100.txt")[:40].copy()
    changed = rng.random(values.shape) < noise
    values[changed] = rng.integers(0, 10, int(changed.sum()))
    _same(values, locked)


def test_a_spent_deadline_stops_propagation() -> None:
    with pytest.raises(TimeLimitReached, match="propagation"):
        propagate9(_stack("clue17_100.txt"), deadline=Deadline(0.0))


def test_an_empty_batch_gives_empty_tables() -> None:
    found = propagate9(np.zeros((0, 81), dtype=np.int16))
    assert found.values.shape == (0, 81) and found.candidates.shape == (0, 81, 9)
