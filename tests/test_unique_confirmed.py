"""The pysat batch path's "unique" claims are confirmed by another path than the one that made them.

Under ``--unique`` the batch path searches its own compact model (propagated, optimized) for a
second solution with the first one blocked; "none" made the answer unique on that search's word
alone.  A search that wrongly says "no more" must never become "unique": the claim is now counted
again by a different path (``backends.confirm.confirm_unique``), and a refuted claim is an error
naming it, an unconfirmed one unknown.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sudoku_cp as sc
from sudoku_cp.backends import confirm, pysat_batch
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import Status

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def two_solution_puzzle() -> Grid:
    """HARD's solution with the four cells of a unique rectangle (two rows of one band, two
    columns, digits a b / b a) blanked: exactly two solutions, the rectangle either way."""
    grid = sc.parse_grid(HARD)
    solved = sc.solve(grid, "dlx").solution
    assert solved is not None
    v = np.array(solved.values)
    for r1 in range(9):
        for r2 in range(r1 + 1, (r1 // 3 + 1) * 3):  # same band: the rectangle spans two boxes
            for c1 in range(9):
                for c2 in range(c1 + 1, 9):
                    if c1 // 3 != c2 // 3 and v[r1, c1] == v[r2, c2] and v[r1, c2] == v[r2, c1]:
                        holes = v.copy()
                        holes[[r1, r1, r2, r2], [c1, c2, c1, c2]] = 0
                        return grid.with_values(holes)
    raise AssertionError("no unique rectangle in HARD's solution")


def _lines(path: str, count: int) -> list[str]:
    """The first ``count`` puzzles of a corpus file, one per line."""
    with open(path) as lines:
        return [line.strip() for line in lines if line.strip()][:count]


def _forgetful(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the batch path's search stop after its first model and say "no more" (complete)."""
    real = pysat_batch.BatchPysat._solve_one

    def forgetful(self: Any, compact: Any, row: int, limit: int, deadline: Any) -> Any:
        found, _, _ = real(self, compact, row, 1, deadline)
        return found, True, None

    monkeypatch.setattr(pysat_batch.BatchPysat, "_solve_one", forgetful)


@pytest.mark.timeout(120)
def test_the_rectangle_puzzle_has_two_solutions() -> None:
    puzzle = two_solution_puzzle()
    assert sc.count_solutions(puzzle, "dlx").count == 2
    assert sc.solve(puzzle, "pysat", unique=True).status == Status.MULTIPLE


@pytest.mark.timeout(120)
def test_a_wrong_no_second_solution_is_never_unique(monkeypatch: pytest.MonkeyPatch) -> None:
    puzzle = two_solution_puzzle()
    _forgetful(monkeypatch)
    result = sc.solve(puzzle, "pysat", unique=True)
    assert result.status != Status.SOLVED, result
    assert result.status != Status.UNSAT, result
    assert "claimed" in (result.error or "") and "found" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_a_wrong_no_second_solution_in_a_batch_is_caught_and_the_rest_stay_unique(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Among unique puzzles, only the two-solution one is refused; the others stay unique."""
    corpus = _lines("tests/data/clue17_100.txt", 20)
    puzzles = [sc.parse_grid(text) for text in corpus]
    puzzles.insert(7, two_solution_puzzle())
    _forgetful(monkeypatch)
    backend = sc.make_backend("pysat")
    results = backend.search_many(puzzles, limit=2)
    for k, found in enumerate(results):
        if k == 7:
            assert not found.complete and found.count == 0, found
            assert "claimed" in (found.reason or ""), found
        else:
            assert found.complete and found.count == 1, (k, found)


@pytest.mark.timeout(120)
def test_an_unconfirmed_unique_claim_is_unknown_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """A confirmation that runs out of time leaves the answer unknown, never unique."""

    def out_of_time(*args: Any, **kwargs: Any) -> Any:
        raise confirm.TimeLimitReached("confirmation")

    monkeypatch.setattr(confirm, "search_batch", out_of_time)
    unconfirmed = "time limit reached while confirming"
    monkeypatch.setattr(confirm, "confirm_no_more", lambda *args, **kwargs: unconfirmed)
    result = sc.solve(sc.parse_grid(HARD), "pysat", unique=True)
    assert result.status == Status.UNKNOWN, result
    assert "confirming" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_true_unique_claims_stay_unique() -> None:
    corpus = _lines("tests/data/forum_hardest_200.txt", 60)
    results = list(sc.solve_items(sc.parse_puzzles("\n".join(corpus)), unique=True))
    assert all(result.status == Status.SOLVED for result in results), [
        result for result in results if result.status != Status.SOLVED
    ]
