"""The ``backtrack`` backend's claims and the deduction engine's start contradiction, confirmed.

``backtrack`` is the native count every other backend's claims are confirmed by; its own "no
solution", "unique" and exact counts are confirmed by another path: by default the pysat batch
path's raw search (``confirm.confirm_search_counts``, an independent complete search), what it
leaves undecided by CaDiCaL on the plain extended encoding (``confirm.confirm_cnf_counts``, one
incremental solver per batch; also ``BacktrackBackend.confirm_by = "cnf"``).  A contradiction the
deduction engine's ``Board.check`` finds before any step is confirmed by the prover before it is
reported unsat.  Each test fakes a wrong claim and checks it is never reported as proved.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from test_unique_confirmed import HARD, no_solution_puzzle, two_solution_puzzle

import sudoku_cp as sc
from sudoku_cp.backends import backtrack_backend, confirm, pysat_batch
from sudoku_cp.backends.base import BackendError
from sudoku_cp.deduction import engine
from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.proof import StepNotProved
from sudoku_cp.outcome import Status

# forum-hardest, line 1: the batch search's propagation leaves it open (a SAT call decides it).
with open("tests/data/forum_hardest_200.txt") as _lines:
    OPEN = sc.parse_grid(_lines.readline().strip())


def _lying_search(monkeypatch: pytest.MonkeyPatch, *, nothing: bool = False) -> None:
    """The backend's batch search stops after its first solution (or finds none) and says it
    searched everything."""
    real = backtrack_backend.search_batch

    def lying(geometry: Any, givens: Any, *, limit: int, keep: bool, **kwargs: Any) -> Any:
        run = real(geometry, givens, limit=1, keep=keep, **kwargs)
        done = np.ones_like(run.complete)
        if nothing:
            return dataclasses.replace(
                run,
                counts=np.zeros_like(run.counts),
                complete=done,
                solutions=run.solutions[:0],
                owner=run.owner[:0],
            )
        return dataclasses.replace(run, complete=done)

    monkeypatch.setattr(backtrack_backend, "search_batch", lying)


@pytest.mark.timeout(120)
def test_a_wrong_unique_of_backtrack_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _lying_search(monkeypatch)
    result = sc.solve(two_solution_puzzle(), "backtrack", unique=True)
    assert result.status not in (Status.SOLVED, Status.UNSAT), result
    assert "claimed a unique solution" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_a_wrong_no_solution_of_backtrack_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _lying_search(monkeypatch, nothing=True)
    result = sc.solve(sc.parse_grid(HARD), "backtrack")
    assert result.status != Status.UNSAT, result
    assert "claimed no solution" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_a_wrong_count_of_backtrack_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``count`` keeps no grids: the CNF enumerates the solutions itself and finds one more."""
    _lying_search(monkeypatch)
    with pytest.raises(BackendError, match="claimed a unique solution"):
        sc.count_solutions(two_solution_puzzle(), "backtrack")


@pytest.mark.timeout(120)
def test_a_wrong_claim_in_a_backtrack_batch_is_caught_and_the_rest_stand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open("tests/data/clue17_100.txt") as lines:
        puzzles = [sc.parse_grid(line.strip()) for line in lines if line.strip()][:20]
    puzzles.insert(5, two_solution_puzzle())
    _lying_search(monkeypatch)
    results = sc.make_backend("backtrack").search_many(puzzles, limit=2)
    for k, found in enumerate(results):
        if k == 5:
            assert not found.complete and "claimed" in (found.reason or ""), found
        else:
            assert found.complete and found.count == 1, (k, found)


@pytest.fixture(params=["search", "cnf"])
def confirm_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test below runs with either confirming path of the backend's claims."""
    monkeypatch.setattr(backtrack_backend.BacktrackBackend, "confirm_by", request.param)
    return str(request.param)


@pytest.mark.timeout(120)
def test_a_count_over_claimed_by_backtrack_is_refused(
    monkeypatch: pytest.MonkeyPatch, confirm_by: str
) -> None:
    """A count higher than the solutions there are (3 claimed, 2 exist) is refused too."""
    real = backtrack_backend.search_batch

    def inflated(*args: Any, **kwargs: Any) -> Any:
        run = real(*args, **{**kwargs, "keep": False})
        return dataclasses.replace(run, counts=run.counts + 1)

    monkeypatch.setattr(backtrack_backend, "search_batch", inflated)
    message = {
        "search": "the pysat batch search counted 2 solutions where backend backtrack claimed exactly 3 sol",
        "cnf": "counted 2 solutions on the extended encoding where backend backtrack claimed exactly 3",
    }[confirm_by]
    with pytest.raises(BackendError, match=message):
        sc.count_solutions(two_solution_puzzle(), "backtrack")


@pytest.mark.timeout(120)
def test_an_unconfirmed_backtrack_claim_is_unknown(monkeypatch: pytest.MonkeyPatch, confirm_by: str) -> None:
    # Every confirming solve stopped: the batch search's and the extended CNF's after it.
    monkeypatch.setattr(confirm, "solve_limited", lambda *args, **kwargs: None)
    monkeypatch.setattr(pysat_batch, "solve_limited", lambda *args, **kwargs: None)
    result = sc.solve(OPEN, "backtrack", unique=True)
    assert result.status == Status.UNKNOWN, result
    assert "confirming" in (result.error or ""), result
    result = sc.solve(no_solution_puzzle(), "backtrack")
    # The batch search's propagation finds this puzzle's contradiction without a solve: a second
    # path that decided it; the CNF alone, stopped, decides nothing.
    assert result.status == (Status.UNSAT if confirm_by == "search" else Status.UNKNOWN), result


@pytest.mark.timeout(120)
def test_true_claims_of_backtrack_stand(confirm_by: str) -> None:
    assert sc.solve(sc.parse_grid(HARD), "backtrack", unique=True).status == Status.SOLVED
    assert sc.solve(two_solution_puzzle(), "backtrack", unique=True).status == Status.MULTIPLE
    assert sc.solve(no_solution_puzzle(), "backtrack").status == Status.UNSAT
    count = sc.count_solutions(two_solution_puzzle(), "backtrack")
    assert (count.count, count.exact) == (2, True), count
    count = sc.count_solutions(no_solution_puzzle(), "backtrack")
    assert (count.count, count.exact) == (0, True), count


@pytest.mark.timeout(120)
def test_confirm_cnf_counts_verdicts() -> None:
    puzzle = two_solution_puzzle()
    grids = sc.make_backend("dlx").search(puzzle, limit=10).solutions
    rows = np.asarray(grids).reshape(-1, 81)
    g = puzzle.geometry
    givens = puzzle.values.reshape(1, -1)
    both = confirm.confirm_cnf_counts(g, givens, [rows], None, name="t", finder="the test")
    assert not both.unknown and not both.refuted, both
    one = confirm.confirm_cnf_counts(g, givens, [rows[:1]], None, name="t", finder="the test")
    assert "claimed a unique solution but pysat:cadical195 found another" in one.refuted[0], one
    counted = confirm.confirm_cnf_counts(
        g, givens, [rows[:0]], None, name="t", finder="t", sizes=np.array([2])
    )
    assert not counted.unknown and not counted.refuted, counted
    stale = confirm.confirm_cnf_counts(
        g, givens, [rows[:1]], 0.0, name="t", finder="the test", spent=np.ones(1)
    )
    assert "time limit" in stale.unknown[0], stale


def _lying_confirmer(monkeypatch: pytest.MonkeyPatch, *, fewer: bool) -> None:
    """The confirming batch search says complete after its first solution (``fewer``), or
    claims every puzzle has no solution."""
    real = backtrack_backend._raw_search()

    class Lying:
        def solve_arrays(self, *args: Any, **kwargs: Any) -> Any:
            run = real.solve_arrays(*args, **kwargs)
            if fewer:
                return dataclasses.replace(
                    run, counts=np.minimum(run.counts, 1), more={}, complete=run.complete | True
                )
            return dataclasses.replace(run, counts=run.counts * 0, more={}, complete=run.complete | True)

    monkeypatch.setattr(backtrack_backend, "_raw_search", Lying)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fewer", [True, False])
def test_a_disagreement_of_the_two_searches_is_an_error_naming_both(
    monkeypatch: pytest.MonkeyPatch, fewer: bool
) -> None:
    _lying_confirmer(monkeypatch, fewer=fewer)
    puzzle = two_solution_puzzle() if fewer else sc.parse_grid(HARD)
    with pytest.raises(
        BackendError, match="the pysat batch search counted .* where backend backtrack claimed"
    ):
        sc.count_solutions(puzzle, "backtrack")


@pytest.mark.timeout(120)
def test_the_batch_search_confirms_without_the_cnf(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default path: the CNF is only for what the batch search leaves undecided."""

    def no_cnf(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the extended CNF was asked although the batch search decided everything")

    monkeypatch.setattr(confirm, "confirm_cnf_counts", no_cnf)
    assert sc.solve(sc.parse_grid(HARD), "backtrack", unique=True).status == Status.SOLVED
    assert sc.solve(two_solution_puzzle(), "backtrack", unique=True).status == Status.MULTIPLE
    assert sc.solve(no_solution_puzzle(), "backtrack").status == Status.UNSAT


@pytest.mark.timeout(120)
def test_what_the_batch_search_leaves_undecided_goes_to_the_cnf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pysat_batch, "solve_limited", lambda *args, **kwargs: None)  # the search stopped
    assert sc.solve(OPEN, "backtrack", unique=True).status == Status.SOLVED
    assert sc.solve(two_solution_puzzle(), "backtrack", unique=True).status == Status.MULTIPLE


# ------------------------------------------------------------ the deduction engine's start contradiction


def _false_start_contradiction(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Board.check`` finds a contradiction at the start that is not there (then behaves)."""
    real = Board.check
    calls = [0]

    def lying(self: Board) -> None:
        calls[0] += 1
        if calls[0] == 1:
            raise Contradiction("r1c1 has no candidate left (a fake)")
        real(self)

    monkeypatch.setattr(Board, "check", lying)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("check", [False, True])
def test_a_false_start_contradiction_is_never_unsat(monkeypatch: pytest.MonkeyPatch, check: bool) -> None:
    _false_start_contradiction(monkeypatch)
    with pytest.raises(StepNotProved, match="a fake"):
        engine.deduce(sc.parse_grid(HARD), check=check)


@pytest.mark.timeout(120)
def test_an_unconfirmed_start_contradiction_is_unknown() -> None:
    clash = sc.parse_grid("11" + "." * 79)
    result = engine.deduce(clash, time_limit=0.0)
    assert result.status == Status.UNKNOWN and "confirming" in (result.reason or ""), result


@pytest.mark.timeout(120)
@pytest.mark.parametrize("check", [False, True])
def test_a_true_start_contradiction_is_unsat(check: bool) -> None:
    clash = sc.parse_grid("11" + "." * 79)
    result = engine.deduce(clash, check=check)
    assert result.status == Status.UNSAT, result
