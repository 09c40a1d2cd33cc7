"""sudoku_cp.audit: every claim judged against SAT ground truth; solvers wrapped; results tallied."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given, settings
from hypothesis import strategies as st

import sudoku_cp.audit.solvers as audit_module
from sudoku_cp.audit import (
    Answer,
    AnswerFileSolver,
    AuditError,
    BackendSolver,
    Claim,
    GroundTruth,
    ProgramSolver,
    RunResult,
    Solver,
    SolverTally,
    Truth,
    Verdict,
    answer_from_search,
    audit,
    judge,
    parse_answer,
    read_answer_lines,
    run_seed,
    tally,
)
from sudoku_cp.backends.base import BackendError, SearchResult
from sudoku_cp.checker import solution_problem
from sudoku_cp.formats import format_line, parse_grid, parse_puzzles
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import REASON_TIME_LIMIT
from sudoku_cp.random_grids import blank_cells, random_solution

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
# Singles propagation reaches a contradiction: no solution, although no two givens are equal.
UNSOLVABLE = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."
EQUAL_GIVENS = "44" + PUZZLE[2:]
MULTI = read_lines(DATA / "serg_100.txt", 1)[0]  # serg puzzles all have two or more solutions
PROGRAMS = Path(__file__).parent / "programs"


def grid(text: str, box: tuple[int, int] | None = None) -> Grid:
    return parse_grid(text, box=box)


def truth_of(puzzle: Grid, ground: GroundTruth | None = None) -> Any:
    ground = ground or GroundTruth()
    return lambda: ground(puzzle)


def no_truth() -> Any:
    raise AssertionError("this claim must be judged without SAT")


def changed(text: str, position: int) -> str:
    """The grid text with one cell's digit moved to the next digit (so a unit repeats it)."""
    digit = int(text[position]) % 9 + 1
    return text[:position] + str(digit) + text[position + 1 :]


# --------------------------------------------------------------------------------------- judge


def test_right_solution_is_correct_without_sat() -> None:
    answer = Answer(Claim.SOLVED, (grid(SOLUTION),))
    assert judge(grid(PUZZLE), answer, no_truth) == (Verdict.CORRECT, "")


def test_solution_with_a_repeated_digit_is_wrong() -> None:
    open_cell = PUZZLE.index(".")
    verdict, detail = judge(
        grid(PUZZLE), Answer(Claim.SOLVED, (grid(changed(SOLUTION, open_cell)),)), no_truth
    )
    assert verdict is Verdict.WRONG
    assert "both hold" in detail


def test_solution_that_changes_a_given_is_wrong() -> None:
    verdict, detail = judge(grid(PUZZLE), Answer(Claim.SOLVED, (grid(changed(SOLUTION, 0)),)), no_truth)
    assert verdict is Verdict.WRONG
    assert "R1C1 holds 5 but the given is 4" in detail


def test_incomplete_solution_is_wrong() -> None:
    holes = "." + SOLUTION[1:]
    verdict, detail = judge(grid(PUZZLE), Answer(Claim.SOLVED, (grid(holes),)), no_truth)
    assert verdict is Verdict.WRONG and "R1C1 is empty" in detail


def test_wrong_no_solution_claim_is_caught_with_a_checked_witness() -> None:
    puzzle = grid(PUZZLE)
    verdict, detail = judge(puzzle, Answer(Claim.UNSAT), truth_of(puzzle))
    assert verdict is Verdict.WRONG
    witness = grid(detail.rsplit(" ", 1)[1])
    assert solution_problem(puzzle, witness) is None


def test_no_solution_claim_on_contradictory_puzzle_is_confirmed_by_sat() -> None:
    ground = GroundTruth()
    verdict, detail = judge(grid(UNSOLVABLE), Answer(Claim.UNSAT), truth_of(grid(UNSOLVABLE), ground))
    assert verdict is Verdict.CORRECT and "confirmed by SAT" in detail
    assert ground.calls == 1


def test_no_solution_claim_on_equal_givens_needs_no_sat_call() -> None:
    ground = GroundTruth()
    verdict, detail = judge(grid(EQUAL_GIVENS), Answer(Claim.UNSAT), truth_of(grid(EQUAL_GIVENS), ground))
    assert verdict is Verdict.CORRECT and "R1C1 and R1C2 both hold 4" in detail
    assert ground.calls == 0


def test_solution_of_puzzle_with_equal_givens_is_wrong() -> None:
    fake = grid("44" + SOLUTION[2:])
    verdict, _ = judge(grid(EQUAL_GIVENS), Answer(Claim.SOLVED, (fake,)), no_truth)
    assert verdict is Verdict.WRONG


def test_wrong_unique_claim_on_multi_solution_puzzle_shows_another_solution() -> None:
    puzzle = grid(MULTI)
    ground = GroundTruth()
    mine = ground(puzzle).solutions[1]
    verdict, detail = judge(puzzle, Answer(Claim.UNIQUE, (mine,)), truth_of(puzzle, ground))
    assert verdict is Verdict.WRONG and "another solution" in detail
    other = grid(detail.rsplit(" ", 1)[1])
    assert other != mine and solution_problem(puzzle, other) is None


def test_right_unique_claim_is_confirmed_by_sat() -> None:
    verdict, detail = judge(grid(PUZZLE), Answer(Claim.UNIQUE, (grid(SOLUTION),)), truth_of(grid(PUZZLE)))
    assert verdict is Verdict.CORRECT and "unique" in detail


def test_multiple_claim_with_two_different_solutions_needs_no_sat() -> None:
    puzzle = grid(MULTI)
    two = GroundTruth()(puzzle).solutions
    assert judge(puzzle, Answer(Claim.MULTIPLE, two), no_truth)[0] is Verdict.CORRECT


def test_multiple_claim_showing_one_solution_twice_is_wrong() -> None:
    puzzle = grid(MULTI)
    one = GroundTruth()(puzzle).solutions[0]
    verdict, detail = judge(puzzle, Answer(Claim.MULTIPLE, (one, one)), no_truth)
    assert verdict is Verdict.WRONG and "twice" in detail


@pytest.mark.parametrize(
    ("puzzle", "expected", "words"),
    [
        (MULTI, Verdict.CORRECT, "confirmed by SAT"),
        (PUZZLE, Verdict.WRONG, "proves the solution unique"),
        (UNSOLVABLE, Verdict.WRONG, "proves there is none"),
    ],
)
def test_bare_multiple_claim_is_decided_by_sat(puzzle: str, expected: Verdict, words: str) -> None:
    verdict, detail = judge(grid(puzzle), Answer(Claim.MULTIPLE), truth_of(grid(puzzle)))
    assert verdict is expected and words in detail


def test_claims_hold_against_a_ground_truth_that_saw_only_another_solution() -> None:
    puzzle = grid(MULTI)
    first, second = GroundTruth()(puzzle).solutions
    partial = Truth((second,))  # as if SAT had wrongly called the puzzle unique
    assert judge(puzzle, Answer(Claim.MULTIPLE, (first,)), lambda: partial)[0] is Verdict.CORRECT
    verdict, detail = judge(puzzle, Answer(Claim.UNIQUE, (first,)), lambda: partial)
    assert verdict is Verdict.WRONG and format_line(second) in detail


def test_ground_truth_that_contradicts_the_checker_is_an_error_not_a_verdict() -> None:
    puzzle = grid(PUZZLE)
    for claim in (Claim.UNIQUE, Claim.MULTIPLE):
        with pytest.raises(BackendError, match="the checker passed"):
            judge(puzzle, Answer(claim, (grid(SOLUTION),)), lambda: Truth(()))


def test_failures_and_unknown_claims_keep_their_verdict() -> None:
    puzzle = grid(PUZZLE)
    for failure in (Verdict.TIMEOUT, Verdict.CRASH, Verdict.WRONG):
        assert judge(puzzle, Answer(Claim.NONE, failure=failure, detail="x"), no_truth) == (failure, "x")
    assert judge(puzzle, Answer(Claim.UNKNOWN), no_truth)[0] is Verdict.UNKNOWN


def test_solution_claim_without_a_grid_is_wrong() -> None:
    assert judge(grid(PUZZLE), Answer(Claim.UNIQUE), no_truth)[0] is Verdict.WRONG


def test_ground_truth_is_computed_once_per_puzzle() -> None:
    ground = GroundTruth()
    puzzle = grid(MULTI)
    first = ground(puzzle)
    assert ground(grid(MULTI)) is first
    assert ground.calls == 1 and first.count == 2


# --------------------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("text", "claim", "grids"),
    [
        (SOLUTION, Claim.SOLVED, 1),
        (f"# comment\n\n{SOLUTION}\n", Claim.SOLVED, 1),
        (f"solved {SOLUTION}", Claim.SOLVED, 1),
        (f"unique {SOLUTION}", Claim.UNIQUE, 1),
        (f"Multiple {SOLUTION}\n{SOLUTION}", Claim.MULTIPLE, 2),
        ("multiple", Claim.MULTIPLE, 0),
        ("unsat", Claim.UNSAT, 0),
        ("No  Solution", Claim.UNSAT, 0),
        ("UNSATISFIABLE", Claim.UNSAT, 0),
        ("unknown", Claim.UNKNOWN, 0),
        ("", Claim.UNKNOWN, 0),
        (" ".join(SOLUTION), Claim.SOLVED, 1),
    ],
)
def test_answer_forms_are_read(text: str, claim: Claim, grids: int) -> None:
    answer = parse_answer(text, grid(PUZZLE))
    assert answer.failure is None
    assert answer.claim is claim and len(answer.solutions) == grids


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("solution: 12?", "not a square grid"),
        (SOLUTION[:-1], "80 symbols"),
        (SOLUTION[:40] + "?" + SOLUTION[41:], "column 41: unknown symbol '?' (R5C5)"),
        ("1234123412341234", "4x4"),
        (f"{SOLUTION}\ndebug output", "a further line 'debug output'"),
        ("unsat\nunsat", "a further line"),
        ("unique", "no solution after the word"),
    ],
)
def test_unreadable_answers_are_crashes_that_say_why(text: str, words: str) -> None:
    answer = parse_answer(text, grid(PUZZLE))
    assert answer.failure is Verdict.CRASH and answer.claim is Claim.NONE
    assert answer.detail.startswith("unreadable answer") and words in answer.detail


def test_answer_of_a_6x6_puzzle_uses_its_box_shape() -> None:
    geometry = Geometry(2, 3)
    solution = random_solution(geometry, np.random.default_rng(1))
    puzzle = blank_cells(solution, 0.5, np.random.default_rng(2))
    answer = parse_answer(format_line(solution), puzzle)
    assert answer.solutions == (solution,) and answer.solutions[0].geometry == geometry


def test_answer_lines_keep_blank_lines_as_unknown_and_drop_surplus_trailing_ones() -> None:
    lines = read_answer_lines(f"# header\n{SOLUTION}\n\nunsat\n\n\n", 3)
    assert lines == [(2, SOLUTION), (3, ""), (4, "unsat")]
    assert read_answer_lines("unsat\n\n\n", 3) == [(1, "unsat"), (2, ""), (3, "")]


def test_answer_lines_count_mismatch_is_an_error_naming_both_counts() -> None:
    with pytest.raises(AuditError, match=r"2 answer lines \(the last is line 2\) for 3 puzzles"):
        read_answer_lines("unsat\nunsat\n", 3)
    with pytest.raises(AuditError, match="4 answer lines"):
        read_answer_lines("a\nb\nc\nd\n", 3)


def test_answer_file_solver_names_its_line_on_problems() -> None:
    solver = AnswerFileSolver("answers:x.txt", [(7, "garbage")])
    answer = solver.answer(grid(PUZZLE), 0, 0, None, False)
    assert answer.failure is Verdict.CRASH and answer.detail.startswith("answer file line 7: unreadable")


# ------------------------------------------------------------------------------ backend results


def _search(solutions: list[str], complete: bool, timed_out: bool = False) -> SearchResult:
    stack = np.array([grid(s).values for s in solutions], dtype=np.int16).reshape(-1, 9, 9)
    return SearchResult(stack, complete, reason=REASON_TIME_LIMIT if timed_out else None)


@pytest.mark.parametrize(
    ("found", "limit", "claim", "failure"),
    [
        (_search([], True), 1, Claim.UNSAT, None),
        (_search([], False, True), 1, Claim.NONE, Verdict.TIMEOUT),
        (_search([], False), 1, Claim.UNKNOWN, None),
        (_search([SOLUTION], False), 1, Claim.SOLVED, None),
        (_search([SOLUTION], True), 1, Claim.SOLVED, None),  # limit 1 asks nothing about uniqueness
        (_search([SOLUTION], True), 2, Claim.UNIQUE, None),
        (_search([SOLUTION], False, True), 2, Claim.SOLVED, None),
        (_search([SOLUTION, SOLUTION], False), 2, Claim.MULTIPLE, None),
    ],
)
def test_search_results_become_claims(
    found: SearchResult, limit: int, claim: Claim, failure: Verdict | None
) -> None:
    answer = answer_from_search(grid(PUZZLE), found, limit, 0.5)
    assert answer.claim is claim and answer.failure is failure and answer.seconds == 0.5


def test_search_result_with_out_of_range_values_is_wrong() -> None:
    bad = SearchResult(np.full((1, 9, 9), 12, dtype=np.int16), False)
    assert answer_from_search(grid(PUZZLE), bad, 1, 0.0).failure is Verdict.WRONG


class _FakeBackend:
    """A backend that does what a test tells it to."""

    name = "fake"

    def __init__(self, behave: Any) -> None:
        self.behave = behave

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        return self.behave(puzzle)


def _fake(monkeypatch: pytest.MonkeyPatch, behave: Any) -> BackendSolver:
    monkeypatch.setattr(audit_module, "make_backend", lambda spec, **options: _FakeBackend(behave))
    return BackendSolver("fake")


def _raise(error: Exception) -> Any:
    def behave(puzzle: Grid) -> SearchResult:
        raise error

    return behave


def _one(solver: Any, puzzle: str = PUZZLE, **options: Any) -> RunResult:
    items = parse_puzzles(puzzle)
    return next(iter(audit(items, [solver], **options)))


def test_backend_that_rejects_its_own_wrong_solution_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    solver = _fake(monkeypatch, _raise(BackendError("backend fake returned a wrong solution: R1C1 is empty")))
    assert _one(solver).verdict is Verdict.WRONG


def test_backend_that_returns_an_unchecked_wrong_grid_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    solver = _fake(monkeypatch, lambda puzzle: _search([changed(SOLUTION, 1)], False))
    result = _one(solver)
    assert result.verdict is Verdict.WRONG and result.claimed is Claim.SOLVED


def test_backend_errors_and_bugs_are_crashes_and_the_batch_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first call is the untimed warm-up on an easy puzzle.
    calls = iter([None, BackendError("solver program 'x' not found"), ZeroDivisionError("oops"), None])

    def behave(puzzle: Grid) -> SearchResult:
        error = next(calls)
        if error is not None:
            raise error
        return _search([SOLUTION], False)

    solver = _fake(monkeypatch, behave)
    items = parse_puzzles("\n".join([PUZZLE] * 3))
    results = list(audit(items, [solver]))
    assert [r.verdict for r in results] == [Verdict.CRASH, Verdict.CRASH, Verdict.CORRECT]
    assert results[1].detail == "ZeroDivisionError: oops"


def test_late_correct_answer_counts_as_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_module, "_LATE_GRACE", 0.0)

    def slow(puzzle: Grid) -> SearchResult:
        time.sleep(0.05)
        return _search([SOLUTION], False)

    result = _one(_fake(monkeypatch, slow), time_limit=0.01)
    assert result.verdict is Verdict.TIMEOUT and "past the 0.01 s limit" in result.detail


def test_backend_timeout_is_counted_never_unsat(monkeypatch: pytest.MonkeyPatch) -> None:
    result = _one(_fake(monkeypatch, lambda puzzle: _search([], False, True)), time_limit=1.0)
    assert result.verdict is Verdict.TIMEOUT and result.claimed is Claim.NONE


def test_unknown_backend_name_fails_at_once() -> None:
    with pytest.raises(BackendError, match="unknown backend"):
        BackendSolver("no-such-backend")


def test_program_command_that_cannot_be_split_is_an_error() -> None:
    with pytest.raises(AuditError, match="cannot split"):
        ProgramSolver('mysolver "unclosed')
    with pytest.raises(AuditError, match="empty"):
        ProgramSolver("  ")


def test_program_that_cannot_run_is_an_error_when_the_solver_is_made(tmp_path: Path) -> None:
    # Issue 11, defect 9: named at once, not once per puzzle as a crash.
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    cases = [
        ("no-such-solver-xyz", "not found"),
        (str(tmp_path), "is a directory"),
        (str(plain), "is not executable"),
    ]
    for program, reason in cases:
        with pytest.raises(
            AuditError, match=f"^solver command '{program} {{}}': program '{program}' {reason}$"
        ):
            ProgramSolver(f"{program} {{}}")
    with pytest.raises(AuditError, match="its first word {} is a placeholder, not a program"):
        ProgramSolver("{} --check")  # refused before any puzzle, not run per puzzle


def test_inf_time_limit_is_no_limit_for_every_solver() -> None:
    puzzle = grid(PUZZLE)
    backend = BackendSolver("dlx", isolate=True)
    try:
        answer = backend.answer(puzzle, 0, 0, float("inf"), False)
    finally:
        backend.close()
    assert answer.failure is None and answer.claim is Claim.SOLVED
    program = ProgramSolver(f"{sys.executable} {PROGRAMS / 'correct.py'}")
    answer = program.answer(puzzle, 0, 0, float("inf"), False)
    assert answer.failure is None and answer.claim is Claim.SOLVED


def test_program_name_drops_directories() -> None:
    assert (
        ProgramSolver(f"/usr/bin/python3 {PROGRAMS}/correct.py --unique").name
        == "python3 correct.py --unique"
    )


# ----------------------------------------------------------------------------------------- audit


def test_invalid_item_gives_one_result_per_solver_and_answer_files_run_once() -> None:
    items = parse_puzzles("\n".join([PUZZLE, "12345", UNSOLVABLE]))
    answers = AnswerFileSolver("answers:a", [(1, SOLUTION), (2, ""), (3, "unsat")])
    results = list(audit(items, [BackendSolver("dlx"), answers], runs=3))
    by_solver = tally(results)
    assert [t.solver for t in by_solver] == ["dlx", "answers:a"]
    assert by_solver[0].runs == 6 and by_solver[0].verdicts[Verdict.INVALID] == 1
    assert by_solver[1].runs == 2 and by_solver[1].verdicts[Verdict.CORRECT] == 2
    assert all(r.seed is None for r in results if r.solver == "answers:a")
    assert {r.seed for r in results if r.solver == "dlx" and r.index == 0} == {
        run_seed(0, 0, k) for k in range(3)
    }


def test_run_seeds_are_distinct_and_reproducible() -> None:
    seeds = {run_seed(7, index, run) for index in range(50) for run in range(10)}
    assert len(seeds) == 500
    assert run_seed(7, 3, 2) == run_seed(7, 3, 2) != run_seed(8, 3, 2)
    assert all(0 <= seed < 2**31 for seed in seeds)
    with pytest.raises(ValueError, match="seed"):
        run_seed(-1, 0, 0)


def test_ground_truth_is_shared_across_runs_and_solvers() -> None:
    items = parse_puzzles("\n".join([MULTI, PUZZLE]))
    ground = GroundTruth()
    solvers = [BackendSolver("dlx"), BackendSolver("pysat")]
    results = list(audit(items, solvers, runs=3, unique=True, truth=ground))
    assert all(r.verdict is Verdict.CORRECT for r in results)
    assert ground.calls == 1  # only PUZZLE's 'unique' claim needs SAT; MULTI shows two solutions


def test_tally_counts_and_times() -> None:
    t = SolverTally("s")
    for verdict, seconds in [(Verdict.CORRECT, 1.0), (Verdict.CORRECT, 3.0), (Verdict.WRONG, 2.0)]:
        t.add(RunResult("s", 0, 1, 0, 0, Claim.SOLVED, verdict, seconds))
    t.add(RunResult("s", 1, 2, 0, None, Claim.NONE, Verdict.INVALID, 0.0))
    assert t.runs == 3 and t.success_rate == pytest.approx(2 / 3)
    assert t.time_stats() == (2.0, 2.0, 3.0)
    summary = t.to_json()
    assert summary["wrong_answers"] == [{"puzzle": 1, "line": 1, "run": 1}] and summary["invalid"] == 1


@settings(max_examples=25)
@given(
    shape=st.sampled_from([(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)]),
    seed=st.integers(0, 2**32 - 1),
    fraction=st.floats(0.2, 0.8),
)
def test_true_solutions_pass_and_any_changed_cell_fails(
    shape: tuple[int, int], seed: int, fraction: float
) -> None:
    rng = np.random.default_rng(seed)
    solution = random_solution(Geometry(*shape), rng)
    puzzle = blank_cells(solution, fraction, rng)
    assert judge(puzzle, Answer(Claim.SOLVED, (solution,)), no_truth)[0] is Verdict.CORRECT
    values = solution.values.copy()
    cell = divmod(int(rng.integers(solution.n**2)), solution.n)
    values[cell] = values[cell] % solution.n + 1
    assert judge(puzzle, Answer(Claim.SOLVED, (solution.with_values(values),)), no_truth)[0] is Verdict.WRONG


@settings(max_examples=10)
@given(shape=st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3)]), seed=st.integers(0, 2**32 - 1))
def test_sat_and_exact_cover_backends_pass_their_own_audit(shape: tuple[int, int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    items = parse_puzzles(
        "\n".join(
            format_line(blank_cells(random_solution(Geometry(*shape), rng), 0.7, rng)) for _ in range(3)
        ),
        box=shape,
    )
    results = list(audit(items, [BackendSolver("pysat"), BackendSolver("dlx")], unique=True))
    assert [r.verdict for r in results] == [Verdict.CORRECT] * 6


# ------------------------------------------------------------------------------------- isolation


def _misbehave_on_puzzle(action: Any) -> Any:
    """A fake search that does ``action`` on PUZZLE and answers 'no solution' on anything else."""
    target = grid(PUZZLE)

    def behave(puzzle: Grid) -> SearchResult:
        if puzzle == target:
            action()
        return SearchResult(np.zeros((0, puzzle.n, puzzle.n), np.int16), True)

    return behave


def test_isolated_backend_that_ignores_its_time_limit_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_module, "_KILL_FACTOR", 1.0)
    monkeypatch.setattr(audit_module, "_KILL_GRACE", 0.3)
    behave = _misbehave_on_puzzle(lambda: time.sleep(60))
    monkeypatch.setattr(audit_module, "make_backend", lambda spec, **options: _FakeBackend(behave))
    solver = BackendSolver("fake", isolate=True)
    items = parse_puzzles("\n".join([PUZZLE, UNSOLVABLE]))
    results = list(audit(items, [solver], time_limit=0.1))
    assert [r.verdict for r in results] == [Verdict.TIMEOUT, Verdict.CORRECT]
    assert "the backend ignored its 0.1 s time limit" in results[0].detail
    assert results[0].seconds < 30 and solver._worker is None  # closed at the end of the audit


def test_isolated_backend_that_dies_is_a_crash_and_the_next_run_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def segfault() -> None:
        faulthandler.disable()  # pytest's fault handler would print the worker's stack
        os.kill(os.getpid(), signal.SIGSEGV)

    behave = _misbehave_on_puzzle(segfault)
    monkeypatch.setattr(audit_module, "make_backend", lambda spec, **options: _FakeBackend(behave))
    items = parse_puzzles("\n".join([PUZZLE, UNSOLVABLE, PUZZLE]))
    results = list(audit(items, [BackendSolver("fake", isolate=True)]))
    assert [r.verdict for r in results] == [Verdict.CRASH, Verdict.CORRECT, Verdict.CRASH]
    assert results[0].detail == "the backend's process died (killed by SIGSEGV)"


def test_isolated_backends_give_the_same_verdicts() -> None:
    items = parse_puzzles("\n".join([PUZZLE, MULTI, UNSOLVABLE, EQUAL_GIVENS]))
    for name in ("pysat", "dlx"):
        here = [(r.claimed, r.verdict) for r in audit(items, [BackendSolver(name)], unique=True)]
        isolated = [
            (r.claimed, r.verdict) for r in audit(items, [BackendSolver(name, isolate=True)], unique=True)
        ]
        assert here == isolated
        assert [verdict for _, verdict in here] == [Verdict.CORRECT] * 4


def test_answers_for_grids_over_61_are_integers() -> None:
    rng = np.random.default_rng(64)
    solution = random_solution(Geometry(8, 8), rng)
    puzzle = blank_cells(solution, 0.5, rng)
    text = format_line(solution)
    assert " " in text  # 64x64: the one-line form is integers
    answer = parse_answer(f"unique {text}", puzzle)
    assert answer.claim is Claim.UNIQUE and answer.solutions == (solution,)
    assert judge(puzzle, answer, lambda: Truth((solution,)))[0] is Verdict.CORRECT


def test_incomplete_ground_truth_decides_nothing() -> None:
    puzzle = grid(PUZZLE)
    ground = GroundTruth("acs")  # a colony finds a solution but cannot prove it the only one
    with pytest.raises(BackendError, match="did not finish"):
        judge(puzzle, Answer(Claim.UNIQUE, (grid(SOLUTION),)), lambda: ground(puzzle))
    result = _one(AnswerFileSolver("a", [(1, f"unique {SOLUTION}")]), truth=ground)
    assert result.verdict is Verdict.UNKNOWN and "no ground truth" in result.detail


def test_isolated_backend_gets_puzzles_built_as_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # An unpickled Grid would be writeable, and numba would compile the backend again for it.
    def behave(puzzle: Grid) -> SearchResult:
        if puzzle.values.flags.writeable:
            raise BackendError("the puzzle reached the backend writeable")
        return _search([SOLUTION], False)

    monkeypatch.setattr(audit_module, "make_backend", lambda spec, **options: _FakeBackend(behave))
    result = _one(BackendSolver("fake", isolate=True))
    assert result.verdict is Verdict.CORRECT, result.detail


# ------------------------------------------------------------------------------ on an executor


def _daemonic_isolated_answer(queue: Any) -> None:
    solver = BackendSolver("dlx", isolate=True)
    try:
        queue.put(solver.answer(grid(PUZZLE), 0, 0, 5.0, False).claim)
    finally:
        solver.close()


def test_an_isolated_backend_runs_in_a_daemonic_process_as_a_dask_worker_is() -> None:
    """multiprocessing refuses children to daemonic processes; the backend's helper starts anyway."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worker = context.Process(target=_daemonic_isolated_answer, args=(queue,), daemon=True)
    worker.start()
    try:
        assert queue.get(timeout=60) is Claim.SOLVED
    finally:
        worker.join(10)
    assert worker.exitcode == 0


def test_run_results_travel_without_their_geometry_and_come_back_equal() -> None:
    import pickle

    result = RunResult("dlx", 3, 4, 1, 7, Claim.SOLVED, Verdict.CORRECT, 0.5, "", grid(SOLUTION), 12, 0.25)
    assert pickle.loads(pickle.dumps(result)) == result
    assert len(pickle.dumps(result)) < len(pickle.dumps(grid(SOLUTION)))


def test_a_json_line_reads_back_as_its_result() -> None:
    result = RunResult("hill", 3, 4, 1, 7, Claim.UNSAT, Verdict.WRONG, 0.5, "why", None, 12)
    assert RunResult.from_json(result.to_json()) == result
    assert result.to_json()["index"] == 12


def test_ground_truth_forgets_the_oldest_puzzle_past_its_bound() -> None:
    ground = GroundTruth(remembered=1)
    first, second = grid(PUZZLE), grid(UNSOLVABLE)
    ground(first), ground(second), ground(first)
    assert ground.calls == 3  # the first was forgotten when the second came
    ground(first)
    assert ground.calls == 3


def _mixed_items() -> list[Any]:
    lines = read_lines(DATA / "forum_hardest_200.txt", 12)
    return parse_puzzles("\n".join([*lines[:4], "12345", MULTI, UNSOLVABLE, EQUAL_GIVENS, *lines[4:]]))


def _shown(results: Any) -> list[tuple[Any, ...]]:
    return [(r.solver, r.index, r.run, r.seed, r.claimed, r.verdict, r.position, r.solution) for r in results]


@pytest.mark.timeout(120)
def test_local_worker_processes_give_the_results_made_here_in_the_same_order() -> None:
    from sudoku_cp.executor import Executor

    items = _mixed_items()
    solvers: list[Solver] = [
        BackendSolver("dlx"),
        BackendSolver("pysat", isolate=True),
        AnswerFileSolver("a", [(1, "")] * 16),
    ]
    here = list(audit(items, solvers, runs=2, unique=True))
    spread = list(audit(items, solvers, runs=2, unique=True, executor=Executor(jobs=2, window=2)))
    assert _shown(spread) == _shown(here)
    assert [r.position for r in here] == list(range(len(here))) == list(range(16 * 2 * 2 - 2 + 16))


@pytest.mark.parametrize("jobs", [1, 2])
def test_skipped_places_are_not_run_and_the_rest_keep_their_places(jobs: int) -> None:
    from sudoku_cp.executor import Executor

    items = _mixed_items()
    solvers = [BackendSolver("dlx"), BackendSolver("pysat")]
    every = _shown(audit(items, solvers, runs=3))
    skip = set(range(0, 20)) | {31, 32, 70}
    rest = _shown(audit(items, solvers, runs=3, skip=skip, executor=Executor(jobs=jobs)))
    assert rest == [shown for shown in every if shown[6] not in skip]


def test_audit_chunks_cover_each_run_once_in_order_and_stay_small() -> None:
    from sudoku_cp.audit.chunks import audit_chunks

    items = parse_puzzles("\n".join([PUZZLE] * 100 + ["12345"]))
    chunks = list(
        audit_chunks(
            items,
            BackendSolver("dlx"),
            1000,
            runs=10,
            seed=0,
            time_limit=2.0,
            unique=False,
            truth="pysat",
            skip={1000},
        )
    )
    places = [
        p + run
        for chunk in chunks
        for p, todo in zip(chunk.positions, chunk.todo, strict=True)
        for run in todo
    ]
    assert places == list(range(1001, 2001))  # 2000: the invalid item, one place and no run
    assert all(sum(map(len, chunk.todo)) <= 30 for chunk in chunks)  # 60 s of 2 s limits
    assert len(chunks) >= 16
