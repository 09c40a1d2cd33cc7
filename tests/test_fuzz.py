"""fuzz: buggy Python solvers, each wrong in one narrow way, are found and shrunk to 1-minimal
puzzles on the smallest failing shape; a correct one passes; seeds reproduce; cases have the
status they are made for."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from sudoku_cp.audit import GroundTruth, judge
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.checker import given_conflict
from sudoku_cp.executor import Executor
from sudoku_cp.fuzz import CaseKey, fuzz, make_case, plan, shapes
from sudoku_cp.fuzz.calls import CallableSolver, answer_of
from sudoku_cp.fuzz.shrink import failure_kind
from sudoku_cp.grid import Grid


@cache
def _engine() -> object:
    return make_backend("dlx")


def correct(puzzle: Grid) -> Grid | None:
    found = _engine().search(puzzle, 1)  # type: ignore[attr-defined]
    return puzzle.with_values(found.solutions[0]) if found.count else None


@pytest.fixture(autouse=True, scope="module")
def _compiled() -> None:
    """The test solvers' native kernels loaded (or compiled, after an edit) before any timed
    call: a first call doing it takes seconds, past a case's time limit (a timeout failure)."""
    puzzle = make_case(CaseKey((2, 2), "empty", "random", (0,)))
    assert puzzle is not None and correct(puzzle) is not None


def wrong_on_2x3(puzzle: Grid) -> object:
    """Right everywhere but on 2x3 boxes, where two cells of the first row are swapped."""
    solution = correct(puzzle)
    if solution is None or (puzzle.geometry.p, puzzle.geometry.q) != (2, 3):
        return solution
    values = solution.values.copy()
    values[0, [0, 1]] = values[0, [1, 0]]
    return values


def no_solution_when_several(puzzle: Grid) -> Grid | None:
    """Says "no solution" for every puzzle with more than one solution."""
    found = _engine().search(puzzle, 2)  # type: ignore[attr-defined]
    return puzzle.with_values(found.solutions[0]) if found.count == 1 else None


def crash_on_letters(puzzle: Grid) -> Grid | None:
    if puzzle.values.max() >= 10:
        raise RuntimeError("cannot read letters")
    return correct(puzzle)


def hang_on_side_4(puzzle: Grid) -> Grid | None:
    """Hangs on 4x4 grids (any box shape) with a given 4."""
    if puzzle.n == 4 and (puzzle.values == 4).any():
        while True:
            time.sleep(0.01)
    return correct(puzzle)


def _fails_same(
    function: Callable[[Grid], object], puzzle: Grid, kind: str, limit: float | None = None
) -> bool:
    """Whether ``function`` fails on ``puzzle`` in the kind ``kind`` (judged as fuzz judges)."""
    from sudoku_cp.fuzz.calls import Outcome

    answer = CallableSolver(function).answer(puzzle, 0, 0, limit, False)
    verdict, _ = judge(puzzle, answer, lambda: GroundTruth()(puzzle))
    return failure_kind(Outcome(None, verdict, answer.claim)) == kind


def _assert_one_minimal(
    function: Callable[[Grid], object], puzzle: Grid, kind: str, limit: float | None = None
) -> None:
    flat = puzzle.values.reshape(-1)
    for cell in np.flatnonzero(flat):
        values = flat.copy()
        values[cell] = 0
        assert not _fails_same(function, puzzle.with_values(values), kind, limit), f"given {cell} removable"


def test_a_bug_on_one_box_shape_is_shrunk_on_that_shape() -> None:
    report = fuzz(wrong_on_2x3, seed=1, budget=30)
    assert report.exit_code == 4
    [failure] = report.failures
    assert failure.kind == "wrong:solved" and failure.puzzle.geometry.box_label == "2x3"
    shrunk = failure.shrunk
    assert shrunk is not None and shrunk.minimal and shrunk.calls > 0
    assert shrunk.puzzle.geometry.box_label == "2x3"
    _assert_one_minimal(wrong_on_2x3, shrunk.puzzle, failure.kind)
    obj = failure.to_json()
    assert obj["box"] == "2x3" and obj["shrunk"]["box"] == "2x3"  # type: ignore[index]
    assert {"verdict", "box", "puzzle", "claimed", "truth", "seed", "shrunk"} <= set(obj)
    shrunk_obj = obj["shrunk"]
    assert isinstance(shrunk_obj, dict) and {"box", "puzzle", "claimed", "truth", "calls"} <= set(shrunk_obj)


def test_no_solution_for_several_is_shrunk_to_the_smallest_shape() -> None:
    report = fuzz(no_solution_when_several, seed=2, budget=30)
    [failure] = report.failures
    assert failure.kind == "wrong:unsat"
    shrunk = failure.shrunk
    assert shrunk is not None and shrunk.minimal
    assert shrunk.puzzle.n == 2  # 1x2 or 2x1: the smallest grids
    _assert_one_minimal(no_solution_when_several, shrunk.puzzle, failure.kind)
    assert failure.shrunk_truth.startswith("multiple ")


def test_a_crash_on_letters_is_shrunk_to_one_letter_on_a_side_10_grid() -> None:
    report = fuzz(crash_on_letters, seed=3, start=600, cases=700, max_side=12)  # side 10 from about 640
    [failure] = report.failures
    assert failure.kind == "crash"
    shrunk = failure.shrunk
    assert shrunk is not None and shrunk.minimal
    assert shrunk.puzzle.n == 10  # the smallest side with a letter
    assert (
        shrunk.puzzle.givens == 1 and shrunk.puzzle.values.max() == 10
    )  # one 'A', as small as a letter goes
    assert report.exit_code == 3


def test_a_hang_is_a_timeout_shrunk_separately() -> None:
    report = fuzz(hang_on_side_4, seed=4, cases=80, time_limit=0.05, max_side=6)
    [failure] = report.failures
    assert failure.kind == "timeout"
    shrunk = failure.shrunk
    assert shrunk is not None and shrunk.minimal
    assert shrunk.puzzle.n == 4 and shrunk.puzzle.givens == 1
    assert shrunk.puzzle.geometry.box_label == "1x4"  # the first shape of side 4
    assert report.exit_code == 3


def test_keep_going_collects_distinct_kinds() -> None:
    def two_bugs(puzzle: Grid) -> object:
        if puzzle.n == 3:
            raise ValueError("three")
        return no_solution_when_several(puzzle)

    report = fuzz(two_bugs, seed=5, cases=80, keep_going=True, max_side=4, shrink_budget=20)
    kinds = {failure.kind for failure in report.failures}
    assert kinds == {"crash", "wrong:unsat"}
    assert all(failure.count >= 1 for failure in report.failures)
    assert sum(failure.count for failure in report.failures) > 2  # later cases of a kind are counted
    assert report.exit_code == 4


def test_a_correct_solver_passes_its_budget() -> None:
    report = fuzz(correct, seed=6, budget=3)
    assert report.failures == [] and report.exit_code == 0
    assert report.cases > 50 and set(report.verdicts) == {"correct"}


@pytest.mark.parametrize("jobs", [1, 2])
def test_seeds_reproduce_the_same_failure_on_any_number_of_jobs(jobs: int) -> None:
    first = fuzz(wrong_on_2x3, seed=7, cases=200)
    again = fuzz(wrong_on_2x3, seed=7, cases=200, executor=Executor(jobs=jobs))
    one, two = first.failures[0].to_json(), again.failures[0].to_json()
    for obj in (one, two):
        obj["shrunk"].pop("calls")  # type: ignore[attr-defined]  # parallel calls can run past the first hit
        obj["shrunk"].pop("seconds")  # type: ignore[attr-defined]
        obj.pop("spent")  # seconds: never the same twice
    assert one == two


def test_plan_is_small_first_and_covers_every_shape_and_status() -> None:
    keys = list(_take(plan(0, 16), 3000))
    sides = [key.box[0] * key.box[1] for key in keys[:200]]
    assert max(sides) <= 6
    assert {key.box for key in keys} == set(shapes(16))
    assert (2, 3) in shapes(6) and (3, 2) in shapes(6) and (1, 2) in shapes(2) and (2, 1) in shapes(2)
    assert shapes(9, square_only=True) == [(2, 2), (3, 3)]


def _take(iterator: object, count: int) -> list[CaseKey]:
    from itertools import islice

    return list(islice(iterator, count))  # type: ignore[call-overload]


@pytest.mark.parametrize("box", [(1, 2), (2, 1), (2, 3), (3, 2), (3, 3), (2, 5)])
def test_cases_have_the_status_they_are_made_for(box: tuple[int, int]) -> None:
    engine = make_backend("pysat")
    for status, expected in [
        ("full", 1),
        ("full_minus_one", 1),
        ("two", 2),
        ("unique_minimal", 1),
        ("unique", 1),
        ("removed", None),
        ("unsat", 0),
        ("unsat_clash", 0),
        ("empty", None),
    ]:
        for symbols in ("random", "edges"):
            puzzle = make_case(CaseKey(box, status, symbols, (9, 1)))
            if puzzle is None:
                assert status == "unsat" and box[0] * box[1] == 2 or status == "two", (box, status)
                continue
            assert puzzle == make_case(CaseKey(box, status, symbols, (9, 1)))  # reproducible
            clash = given_conflict(puzzle)
            assert (clash is not None) == (status == "unsat_clash"), (box, status, clash)
            count = 0 if clash else engine.search(puzzle, 3).count
            if expected is None:
                assert count >= 2 or box[0] * box[1] == 2
            else:
                assert count == expected, (box, status, symbols)
            if status == "full" and symbols == "edges" and puzzle.n >= 10:
                assert {9, 10, puzzle.n} <= set(puzzle.values.reshape(-1).tolist())


def test_answers_of_python_solvers() -> None:
    puzzle = make_case(CaseKey((2, 2), "empty", "random", (0,)))
    assert puzzle is not None
    solution = correct(puzzle)
    assert solution is not None
    assert answer_of(None, puzzle).claim.value == "unsat"
    assert answer_of(solution, puzzle).claim.value == "solved"
    assert answer_of(solution.values.tolist(), puzzle).claim.value == "solved"
    assert answer_of("multiple", puzzle).claim.value == "multiple"
    assert answer_of(3.5, puzzle).failure is not None  # unreadable: a crash
    other = Grid.empty(make_case(CaseKey((1, 2), "empty", "random", (0,))).geometry)  # type: ignore[union-attr]
    assert answer_of(other, puzzle).failure is not None


def _pid_crash(puzzle: Grid) -> object:
    import os

    raise RuntimeError(f"pid {os.getpid()}")


def _dies_on_side_3(puzzle: Grid) -> object:
    import os
    import signal

    if puzzle.n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return correct(puzzle)


def test_one_pool_of_workers_serves_every_batch_of_a_run() -> None:
    from dataclasses import replace

    from sudoku_cp.audit.judge import pack_grid
    from sudoku_cp.fuzz import solver_spec
    from sudoku_cp.fuzz.calls import Call
    from sudoku_cp.fuzz.pool import CallPool

    template = Call(solver_spec(_pid_crash), "pysat", 0, 5.0, False)
    puzzle = make_case(CaseKey((2, 2), "full", "random", (0,)))
    assert puzzle is not None
    calls = [replace(template, puzzle=pack_grid(puzzle))] * 6
    pids: set[str] = set()
    with CallPool(Executor(jobs=2)) as pool:
        for _ in range(3):  # three batches, as shrinking steps send them
            pids |= {outcome.detail.rpartition("pid ")[2] for outcome in pool.outcomes(calls)}
    assert len(pids) <= 2  # the same two workers: none started per batch


@pytest.mark.slow  # each death starts a pool of cold workers: seconds each on a loaded machine
def test_a_call_that_kills_its_worker_is_a_crash_and_the_run_goes_on() -> None:
    # cases 38-39 are side 3, 40-43 side 4; every death starts two cold workers: no time limit
    report = fuzz(
        _dies_on_side_3,
        seed=8,
        start=38,
        cases=44,
        max_side=4,
        shrink_failures=False,
        time_limit=None,
        executor=Executor(jobs=2),
    )
    [failure] = report.failures
    assert failure.kind == "crash" and failure.puzzle.n == 3 and failure.count == 2
    assert "died" in failure.outcome.detail
    assert report.verdicts["correct"] >= 3  # the cases after them were judged too
