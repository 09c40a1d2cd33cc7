"""audit/judge.py branch by branch, with exact verdicts and details: the tests its mutants must fail.

Small 4x4 grids and ground truths written by hand, so no test here needs SAT; a truth that must not
be asked for raises.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np
import pytest

from sudoku_cp.audit import Answer, Claim, RunResult, Truth, Verdict, answer_from_search, judge
from sudoku_cp.audit.judge import pack_grid, unpack_grid
from sudoku_cp.backends.base import BackendError, SearchResult
from sudoku_cp.formats import format_line
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import REASON_TIME_LIMIT

G = Geometry(2, 2)
ONE = Grid(G, np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]))
TWO = Grid(G, np.array([[1, 2, 3, 4], [3, 4, 1, 2], [4, 3, 2, 1], [2, 1, 4, 3]]))  # bands' rows swapped
PUZZLE = Grid(G, np.array([[1, 2, 3, 4], [3, 4, 1, 2], [0, 0, 0, 0], [0, 0, 0, 0]]))  # ONE and TWO fit
BROKEN = Grid(G, np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 1, 2]]))  # column 3 holds 1 twice


def never() -> Truth:
    raise AssertionError("this claim must be judged without the ground truth")


def known(*solutions: Grid, reason: str = "") -> Callable[[], Truth]:
    return lambda: Truth(solutions, reason)


def test_the_fixtures_are_what_they_say() -> None:
    from sudoku_cp.checker import solution_problem

    assert solution_problem(PUZZLE, ONE) is None and solution_problem(PUZZLE, TWO) is None
    assert ONE != TWO and solution_problem(PUZZLE, BROKEN) is not None


# ------------------------------------------------------------------------------------ judge


def test_a_failure_keeps_its_verdict_and_detail() -> None:
    answer = Answer(Claim.SOLVED, (ONE,), failure=Verdict.CRASH, detail="exit code 3")
    assert judge(PUZZLE, answer, never) == (Verdict.CRASH, "exit code 3")


@pytest.mark.parametrize("claim", [Claim.UNKNOWN, Claim.NONE])
def test_no_claim_is_unknown(claim: Claim) -> None:
    assert judge(PUZZLE, Answer(claim), never) == (Verdict.UNKNOWN, "no claim")
    assert judge(PUZZLE, Answer(claim, detail="gave up"), never) == (Verdict.UNKNOWN, "gave up")


def test_no_solution_claims() -> None:
    assert judge(PUZZLE, Answer(Claim.UNSAT), known(ONE)) == (
        Verdict.WRONG,
        f"claimed no solution, but SAT finds {format_line(ONE)}",
    )
    assert judge(PUZZLE, Answer(Claim.UNSAT), known()) == (Verdict.CORRECT, "no solution, confirmed by SAT")
    assert judge(PUZZLE, Answer(Claim.UNSAT), known(reason="R1C1 and R1C2 both hold 1")) == (
        Verdict.CORRECT,
        "R1C1 and R1C2 both hold 1",
    )


def test_an_invalid_grid_is_wrong_and_named_by_its_place() -> None:
    verdict, detail = judge(PUZZLE, Answer(Claim.SOLVED, (BROKEN,)), never)
    assert verdict is Verdict.WRONG and detail.startswith("the solution is not valid: ")
    verdict, detail = judge(PUZZLE, Answer(Claim.MULTIPLE, (ONE, BROKEN)), never)
    assert verdict is Verdict.WRONG and detail.startswith("solution 2 is not valid: ")
    verdict, detail = judge(PUZZLE, Answer(Claim.MULTIPLE, (BROKEN, ONE)), never)
    assert verdict is Verdict.WRONG and detail.startswith("solution 1 is not valid: ")


@pytest.mark.parametrize("claim", [Claim.MULTIPLE, Claim.SOLVED, Claim.UNIQUE])
def test_one_grid_shown_twice_is_wrong(claim: Claim) -> None:
    assert judge(PUZZLE, Answer(claim, (ONE, ONE)), never) == (Verdict.WRONG, "the same solution shown twice")


def test_multiple_claims() -> None:
    assert judge(PUZZLE, Answer(Claim.MULTIPLE, (ONE, TWO)), never) == (
        Verdict.CORRECT,
        "two different valid solutions shown",
    )
    confirmed = (Verdict.CORRECT, "more than one solution, confirmed by SAT")
    assert judge(PUZZLE, Answer(Claim.MULTIPLE, (ONE,)), known(ONE, TWO)) == confirmed
    assert judge(PUZZLE, Answer(Claim.MULTIPLE, (ONE,)), known(TWO)) == confirmed  # truth saw another
    assert judge(PUZZLE, Answer(Claim.MULTIPLE), known(ONE, TWO)) == confirmed
    unique = (Verdict.WRONG, "claimed more than one solution, but SAT proves the solution unique")
    assert judge(PUZZLE, Answer(Claim.MULTIPLE, (ONE,)), known(ONE)) == unique
    assert judge(PUZZLE, Answer(Claim.MULTIPLE), known(TWO)) == unique
    none = (Verdict.WRONG, "claimed more than one solution, but SAT proves there is none")
    assert judge(PUZZLE, Answer(Claim.MULTIPLE), known()) == none
    with pytest.raises(BackendError, match="the ground truth finds no solution, but the checker passed"):
        judge(PUZZLE, Answer(Claim.MULTIPLE, (ONE,)), known())


@pytest.mark.parametrize("claim", [Claim.SOLVED, Claim.UNIQUE])
def test_a_solution_claim_needs_a_grid(claim: Claim) -> None:
    assert judge(PUZZLE, Answer(claim), never) == (
        Verdict.WRONG,
        f"claimed {claim.value} but showed no solution",
    )


def test_unique_claims() -> None:
    assert judge(PUZZLE, Answer(Claim.UNIQUE, (ONE,)), known(ONE)) == (
        Verdict.CORRECT,
        "unique, confirmed by SAT",
    )
    another = (Verdict.WRONG, f"claimed unique, but SAT finds another solution {format_line(TWO)}")
    assert judge(PUZZLE, Answer(Claim.UNIQUE, (ONE,)), known(ONE, TWO)) == another
    assert judge(PUZZLE, Answer(Claim.UNIQUE, (ONE,)), known(TWO, ONE)) == another
    assert judge(PUZZLE, Answer(Claim.UNIQUE, (ONE,)), known(TWO)) == another
    with pytest.raises(BackendError, match=format_line(ONE)):
        judge(PUZZLE, Answer(Claim.UNIQUE, (ONE,)), known())


def test_a_valid_solution_is_correct_without_the_truth() -> None:
    assert judge(PUZZLE, Answer(Claim.SOLVED, (ONE,)), never) == (Verdict.CORRECT, "")
    assert judge(PUZZLE, Answer(Claim.SOLVED, (ONE, TWO)), never) == (Verdict.CORRECT, "")


# ------------------------------------------------------------------------- answer_from_search


def _found(grids: list[Grid], complete: bool, **rest: object) -> SearchResult:
    stack = np.array([g.values.reshape(-1) for g in grids], dtype=np.int16).reshape(-1, 16)
    return SearchResult(stack, complete, **rest)  # type: ignore[arg-type]


def test_no_grid_found() -> None:
    assert answer_from_search(PUZZLE, _found([], True), 2, 0.5) == Answer(Claim.UNSAT, seconds=0.5)
    stats = {"iterations": 5000, "rate": 0.25, "restarts": 12}
    timed_out = _found([], False, reason=REASON_TIME_LIMIT, stats=stats)
    assert answer_from_search(PUZZLE, timed_out, 2, 1.5) == Answer(
        Claim.NONE,
        failure=Verdict.TIMEOUT,
        detail="time limit reached (iterations 5000, restarts 12)",
        seconds=1.5,
    )
    gave_up = _found([], False, reason="cap", stats={"rate": 0.5})
    assert answer_from_search(PUZZLE, gave_up, 2, 2.0) == Answer(
        Claim.UNKNOWN, detail="the solver gave up", seconds=2.0
    )


@pytest.mark.parametrize(
    ("grids", "limit", "complete", "claim"),
    [
        ([ONE, TWO], 2, False, Claim.MULTIPLE),
        ([ONE, TWO, ONE], 3, True, Claim.MULTIPLE),
        ([ONE], 2, True, Claim.UNIQUE),
        ([ONE], 3, True, Claim.UNIQUE),
        ([ONE], 1, True, Claim.SOLVED),
        ([ONE], 2, False, Claim.SOLVED),
    ],
)
def test_grids_found_make_their_claim(grids: list[Grid], limit: int, complete: bool, claim: Claim) -> None:
    answer = answer_from_search(PUZZLE, _found(grids, complete), limit, 0.25)
    assert answer == Answer(claim, tuple(grids[:2]), seconds=0.25)


def test_a_grid_holding_no_digits_is_a_wrong_answer() -> None:
    bad = SearchResult(np.full((1, 16), 7, dtype=np.int16), True)
    answer = answer_from_search(PUZZLE, bad, 2, 0.5)
    assert (answer.claim, answer.failure, answer.seconds) == (Claim.SOLVED, Verdict.WRONG, 0.5)
    assert answer.detail.startswith("bad solution: ")


# ------------------------------------------------------------------------------ RunResult


def _result(**changes: object) -> RunResult:
    fields: dict[str, object] = {
        "solver": "sat",
        "index": 4,
        "line": 7,
        "run": 1,
        "seed": 99,
        "claimed": Claim.UNIQUE,
        "verdict": Verdict.CORRECT,
        "seconds": 1.23456789,
        "detail": "unique, confirmed by SAT",
        "solution": ONE,
        "position": 12,
        "truth_seconds": 0.5,
        "certificate": "cert/5.json",
    }
    fields.update(changes)
    return RunResult(**fields)  # type: ignore[arg-type]


def test_a_result_as_json() -> None:
    assert _result().to_json() == {
        "index": 12,
        "solver": "sat",
        "puzzle": 5,
        "line": 7,
        "run": 2,
        "seed": 99,
        "claimed": "unique",
        "verdict": "correct",
        "seconds": 1.234568,
        "detail": "unique, confirmed by SAT",
        "solution": format_line(ONE),
        "certificate": "cert/5.json",
    }
    bare = _result(solution=None, certificate=None).to_json()
    assert "solution" not in bare and "certificate" not in bare


def test_a_json_line_reads_back_without_its_solution() -> None:
    for result in (_result(), _result(seed=None, certificate=None)):
        back = RunResult.from_json(result.to_json())
        assert back == _result(
            seed=result.seed,
            certificate=result.certificate,
            seconds=1.234568,
            solution=None,
            truth_seconds=None,
        )
    assert RunResult.from_json({**_result().to_json(), "seed": None}).seed is None


def test_a_result_travels_by_pickle_with_its_solution() -> None:
    for result in (_result(), _result(solution=None)):
        back = pickle.loads(pickle.dumps(result))
        assert back == result
        assert back.solution is None or back.solution.geometry is Geometry(2, 2) or back.solution == ONE


def test_a_grid_packs_to_numbers_and_back() -> None:
    p, q, values = pack_grid(TWO)
    assert (p, q) == (2, 2) and isinstance(values, bytes)
    back = unpack_grid(p, q, values)
    assert back == TWO and not back.values.flags.writeable
    six = Grid(Geometry(2, 3), np.zeros((6, 6), dtype=np.int16))
    assert unpack_grid(*pack_grid(six)).geometry.box_label == "2x3"


def test_a_result_is_a_frozen_slotted_value_placed_first_by_default() -> None:
    """Results are hashed and shipped by the thousand: no field changes after judging, no __dict__."""
    result = RunResult("sat", 0, 1, 0, None, Claim.SOLVED, Verdict.CORRECT, 0.5)
    assert result.position == 0 and result.to_json()["index"] == 0
    with pytest.raises(AttributeError):
        result.verdict = Verdict.WRONG  # type: ignore[misc]
    assert not hasattr(result, "__dict__")
