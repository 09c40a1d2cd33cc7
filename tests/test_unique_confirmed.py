"""The pysat batch path's "unique" claims are confirmed by another path than the one that made them.

Under ``--unique`` the batch path searches its own compact model (propagated, optimized) for a
second solution with the first one blocked; "none" made the answer unique on that search's word
alone.  A search that wrongly says "no more" must never become "unique": the claim is now counted
again by a different path (``backends.confirm.confirm_unique``), and a refuted claim is an error
naming it, an unconfirmed one unknown.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_program import fake_solver

import sudoku_cp as sc
from sudoku_cp.backends import confirm, program_backend, pysat_backend, pysat_batch
from sudoku_cp.backends.base import BackendError, OneByOne
from sudoku_cp.backends.pysat_backend import PysatBackend
from sudoku_cp.checker import given_conflict
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


def no_solution_puzzle() -> Grid:
    """HARD with a wrong digit in its first empty cell that clashes with no given: no solution."""
    grid = sc.parse_grid(HARD)
    solved = sc.solve(grid, "dlx").solution
    assert solved is not None
    values = np.array(grid.values)
    for cell in map(int, np.flatnonzero(values.reshape(-1) == 0)):
        r, c = divmod(cell, 9)
        for digit in range(1, 10):
            values[r, c] = digit
            if digit != solved.values[r, c] and given_conflict(grid.with_values(values)) is None:
                return grid.with_values(values)
        values[r, c] = 0
    raise AssertionError("no such cell")


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


# ------------------------------------------------------------- the one-puzzle pysat path (counts, big grids)


def _forgetful_enumerate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``PysatBackend``'s search stop after its first model and say "no more" (complete)."""
    real = pysat_backend._enumerate

    def forgetful(solver: Any, varmap: Any, limit: int, deadline: Any, *args: Any) -> Any:
        found, _, reason = real(solver, varmap, 1, deadline, *args)
        return found, reason is None, reason

    monkeypatch.setattr(pysat_backend, "_enumerate", forgetful)


@pytest.mark.timeout(120)
def test_a_wrong_exact_count_of_the_cnf_path_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``count`` goes through ``PysatBackend``: a search that stops early must not be an exact count."""
    _forgetful_enumerate(monkeypatch)
    with pytest.raises(BackendError, match="claimed a unique solution but backtrack found another"):
        sc.count_solutions(two_solution_puzzle(), "pysat")


@pytest.mark.timeout(120)
def test_a_wrong_unique_of_the_cnf_path_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _forgetful_enumerate(monkeypatch)
    result = sc.solve(two_solution_puzzle(), PysatBackend(), unique=True)
    assert result.status not in (Status.SOLVED, Status.UNSAT), result
    assert "claimed a unique solution" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_a_false_contradiction_of_the_cnf_model_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = PysatBackend.encode

    def lying(self: PysatBackend, puzzle: Grid, deadline: Any = None) -> Any:
        return dataclasses.replace(real(self, puzzle, deadline), contradiction=True)

    monkeypatch.setattr(PysatBackend, "encode", lying)
    with pytest.raises(BackendError, match="claimed no solution but backtrack found a valid solution"):
        sc.count_solutions(sc.parse_grid(HARD), "pysat")
    result = sc.solve(sc.parse_grid(HARD), PysatBackend())
    assert result.status != Status.UNSAT, result


@pytest.mark.timeout(120)
def test_true_claims_of_the_cnf_path_stand() -> None:
    count = sc.count_solutions(two_solution_puzzle(), "pysat")
    assert (count.count, count.exact) == (2, True), count
    assert sc.solve(sc.parse_grid(HARD), PysatBackend(), unique=True).status == Status.SOLVED
    count = sc.count_solutions(sc.parse_grid(HARD), "pysat")
    assert (count.count, count.exact) == (1, True), count
    # HARD with a wrong digit in one empty cell (no clash among givens): no solution, and so said.
    wrong = no_solution_puzzle()
    assert sc.count_solutions(wrong, "dlx").count == 0
    count = sc.count_solutions(wrong, "pysat")
    assert (count.count, count.exact) == (0, True), count


@pytest.mark.timeout(120)
def test_an_unconfirmed_claim_of_the_cnf_path_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    def out_of_time(*args: Any, **kwargs: Any) -> Any:
        raise confirm.TimeLimitReached("confirmation")

    monkeypatch.setattr(confirm, "search_batch", out_of_time)
    unconfirmed = "time limit reached while confirming"
    monkeypatch.setattr(confirm, "confirm_no_more", lambda *args, **kwargs: unconfirmed)
    count = sc.count_solutions(sc.parse_grid(HARD), "pysat")
    assert not count.exact and "confirming" in (count.reason or ""), count


# ------------------------------------------------------------------------------ the solver-program path


@pytest.mark.timeout(120)
def test_a_grid_the_program_path_found_forced_is_not_unique_unconfirmed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A model with no open variable was taken as the only solution (our propagation's word)."""
    puzzle = two_solution_puzzle()
    solution = sc.solve(puzzle, "dlx").solution
    assert solution is not None
    real = program_backend.encode_cnf

    def placed_wrongly(grid: Grid, *args: Any, **kwargs: Any) -> Any:
        # A propagation that "placed" one of the two solutions: every variable fixed.
        return real(solution, *args, **kwargs)

    monkeypatch.setattr(program_backend, "encode_cnf", placed_wrongly)
    command = fake_solver(tmp_path, "sat.py", "print('s SATISFIABLE')\nprint('v 0')\nsys.exit(10)")
    backend = program_backend.ProgramBackend(command)
    result = sc.solve(puzzle, backend, unique=True)
    assert result.status != Status.SOLVED, result
    assert "claimed" in (result.error or ""), result


# --------------------------------------------------------------------- confirm_counts, verdict by verdict


def _claim(puzzle: Grid, *grids: Grid) -> Any:
    """``confirm_counts`` on one puzzle claimed to have exactly ``grids``."""
    rows = np.stack([grid.values.reshape(-1) for grid in grids]) if grids else np.zeros((0, 81), np.int16)
    return confirm.confirm_counts(
        puzzle.geometry, puzzle.values.reshape(1, -1), [rows], None, name="test", finder="the test"
    )


def _solutions(puzzle: Grid) -> list[Grid]:
    found = sc.make_backend("dlx").search(puzzle, limit=10)
    return [puzzle.with_values(grid) for grid in found.solutions]


@pytest.mark.timeout(120)
def test_confirm_counts_confirms_true_claims_and_refutes_short_ones() -> None:
    puzzle = two_solution_puzzle()
    first, second = _solutions(puzzle)
    both = _claim(puzzle, first, second)
    assert not both.unknown and not both.refuted, both
    for one in (first, second):
        verdict = _claim(puzzle, one)
        assert "claimed a unique solution but backtrack found another" in verdict.refuted[0], verdict
    verdict = _claim(puzzle)
    assert "claimed no solution but backtrack found a valid solution" in verdict.refuted[0], verdict
    hard = sc.parse_grid(HARD)
    verdict = _claim(hard, *_solutions(hard))
    assert not verdict.unknown and not verdict.refuted, verdict


@pytest.mark.timeout(120)
def test_confirm_counts_never_confirms_on_a_wrong_confirmer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A count that returns a wrong grid, or misses a checked one, confirms nothing."""
    hard = sc.parse_grid(HARD)
    (solution,) = _solutions(hard)
    real = confirm.search_batch

    def garbage(*args: Any, **kwargs: Any) -> Any:
        run = real(*args, **kwargs)
        return dataclasses.replace(run, solutions=np.ones_like(run.solutions))

    monkeypatch.setattr(confirm, "search_batch", garbage)
    verdict = _claim(hard, solution)
    assert "backtrack returned a wrong solution" in verdict.refuted[0], verdict

    def short(*args: Any, **kwargs: Any) -> Any:
        run = real(*args, **kwargs)
        return dataclasses.replace(run, counts=np.zeros_like(run.counts), solutions=run.solutions[:0])

    monkeypatch.setattr(confirm, "search_batch", short)
    verdict = _claim(hard, solution)
    assert "backtrack counted 0 solutions where the test claimed a unique solution" in verdict.refuted[0], (
        verdict
    )


# ---------------------------------------- one-puzzle engines: Algorithm X and CP-SAT, each on its own word


def _engine_class(name: str) -> type[OneByOne]:
    from sudoku_cp.backends.cpsat_backend import CpsatBackend
    from sudoku_cp.backends.dlx_backend import DlxBackend

    engines: dict[str, type[OneByOne]] = {"dlx": DlxBackend, "cpsat": CpsatBackend}
    return engines[name]


def _lying_engine(monkeypatch: pytest.MonkeyPatch, name: str, *, nothing: bool = False) -> None:
    """The engine stops after its first solution (or finds none) and says it searched everything."""
    engine = _engine_class(name)
    real = engine.search_one

    def lying(self: Any, puzzle: Grid, limit: int, time_limit: Any, keep: bool) -> Any:
        found = real(self, puzzle, 1, time_limit, keep)
        if nothing:
            return dataclasses.replace(
                found, solutions=found.solutions[:0], count=0, complete=True, reason=None
            )
        return dataclasses.replace(found, complete=True, reason=None)

    monkeypatch.setattr(engine, "search_one", lying)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["dlx", "cpsat"])
def test_a_wrong_unique_of_a_one_puzzle_engine_is_refused(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    _lying_engine(monkeypatch, name)
    result = sc.solve(two_solution_puzzle(), name, unique=True)
    assert result.status not in (Status.SOLVED, Status.UNSAT), result
    assert "claimed a unique solution but backtrack found another" in (result.error or ""), result


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["dlx", "cpsat"])
def test_a_wrong_no_solution_of_a_one_puzzle_engine_is_refused(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _lying_engine(monkeypatch, name, nothing=True)
    result = sc.solve(sc.parse_grid(HARD), name)
    assert result.status != Status.UNSAT, result
    assert "claimed no solution but backtrack found a valid solution" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_a_wrong_count_of_dlx_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``count`` (dlx by default) counts without keeping grids: the count alone is compared."""
    _lying_engine(monkeypatch, "dlx")
    with pytest.raises(BackendError, match="claimed a unique solution but backtrack found another"):
        sc.count_solutions(two_solution_puzzle(), "dlx")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["dlx", "cpsat"])
def test_true_claims_of_the_one_puzzle_engines_stand(name: str) -> None:
    assert sc.solve(sc.parse_grid(HARD), name, unique=True).status == Status.SOLVED
    assert sc.solve(two_solution_puzzle(), name, unique=True).status == Status.MULTIPLE
    assert sc.solve(no_solution_puzzle(), name).status == Status.UNSAT
    count = sc.count_solutions(two_solution_puzzle(), name)
    assert (count.count, count.exact) == (2, True), count


@pytest.mark.timeout(120)
def test_a_claim_on_a_wrong_grid_is_refused_for_the_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine claiming its wrong grid unique: the error names the wrong grid, not the count."""
    engine = _engine_class("dlx")
    real = engine.search_one

    def wrong(self: Any, puzzle: Grid, limit: int, time_limit: Any, keep: bool) -> Any:
        found = real(self, puzzle, 1, time_limit, keep)
        bad = np.array(found.solutions)
        bad[0, 0, 1], bad[0, 0, 2] = bad[0, 0, 2], bad[0, 0, 1]  # two open cells of row 1 swapped
        return dataclasses.replace(found, solutions=bad, complete=True, reason=None)

    monkeypatch.setattr(engine, "search_one", wrong)
    result = sc.solve(sc.parse_grid(HARD), "dlx", unique=True)
    assert result.status not in (Status.SOLVED, Status.UNSAT), result
    assert "returned a wrong solution" in (result.error or ""), result


@pytest.mark.timeout(120)
def test_without_a_limit_a_stopped_native_count_falls_back_to_the_cnf(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No time limit: the native count gets a bounded slice (a backtracking count can take far
    longer than SAT on a hard big grid); what it leaves, the extended CNF decides."""
    limits: list[Any] = []
    cnf_calls: list[int] = []
    real_count, real_cnf = confirm.search_batch, confirm.confirm_no_more

    def stopped_count(*args: Any, **kwargs: Any) -> Any:
        limits.append(kwargs["time_limit"])
        run = real_count(*args, **kwargs)
        stopped = np.ones_like(run.timed_out)  # stopped before it found anything
        return dataclasses.replace(
            run,
            complete=~stopped,
            timed_out=stopped,
            counts=np.zeros_like(run.counts),
            solutions=run.solutions[:0],
            owner=run.owner[:0],
        )

    def cnf(*args: Any, **kwargs: Any) -> Any:
        cnf_calls.append(1)
        return real_cnf(*args, **kwargs)

    monkeypatch.setattr(confirm, "search_batch", stopped_count)
    monkeypatch.setattr(confirm, "confirm_no_more", cnf)
    assert sc.solve(sc.parse_grid(HARD), "pysat", unique=True).status == Status.SOLVED
    assert limits and all(isinstance(limit, float) for limit in limits), limits
    assert min(limits) >= confirm._COUNT_FLOOR, limits
    assert cnf_calls, "the CNF was not asked"
    _forgetful(monkeypatch)
    result = sc.solve(two_solution_puzzle(), "pysat", unique=True)
    assert "claimed no solution beyond the 1 found but pysat:cadical195 found another" in (
        result.error or ""
    ), result


# ------------------------------------------------------------- the incremental pysat solver (library)


@pytest.mark.timeout(120)
def test_a_wrong_unique_of_the_incremental_solver_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``IncrementalPysat`` (one solver per geometry, puzzles under assumptions) searched its own
    model and took its "no more" as the answer: now confirmed as every backend's claims are."""
    _forgetful_enumerate(monkeypatch)
    with (
        pysat_backend.IncrementalPysat(sc.geometry_for_size(9)) as solver,
        pytest.raises(BackendError, match="claimed a unique solution"),
    ):
        solver.search(two_solution_puzzle(), limit=2)


@pytest.mark.timeout(120)
def test_true_claims_of_the_incremental_solver_stand() -> None:
    with pysat_backend.IncrementalPysat(sc.geometry_for_size(9)) as solver:
        assert solver.search(two_solution_puzzle(), limit=5).count == 2
        unique = solver.search(sc.parse_grid(HARD), limit=2)
        assert (unique.count, unique.complete) == (1, True)
        none = solver.search(no_solution_puzzle(), limit=2)
        assert (none.count, none.complete) == (0, True)
