"""The array path of batch solving: results in order, every status, the same answers as one by one."""

from __future__ import annotations

import json

import numpy as np
from conftest import DATA, read_lines

from sudoku_cp.api import BackendOptions, PuzzleResult, solve, solve_items
from sudoku_cp.backends.base import BatchAnswers
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.formats import PuzzleItem, format_line, json_dumps, parse_grid, parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.outcome import Status

FORUM = read_lines(DATA / "forum_hardest_200.txt", 30)  # open after singles and locked candidates
CLUE17 = read_lines(DATA / "clue17_100.txt", 30)  # most of them solved by propagation
UNSAT = "12345678." + "........9" + "." * 63  # R1C9 can only hold 9, and R2C9 holds 9
CLASH = "44" + FORUM[0][2:]


def _mixed() -> list[str]:
    empty = "." * 81  # many solutions
    return [FORUM[0], CLASH, "x" * 81, CLUE17[0], empty, FORUM[1][:-1], FORUM[2], CLUE17[1]]


def test_every_status_comes_back_in_order_with_its_line() -> None:
    items = parse_puzzles("\n".join(_mixed()) + "\n")
    results = list(solve_items(items, BackendOptions(), unique=True))
    assert [r.status for r in results] == [
        Status.SOLVED,
        Status.INVALID,
        Status.INVALID,
        Status.SOLVED,
        Status.MULTIPLE,
        Status.INVALID,
        Status.SOLVED,
        Status.SOLVED,
    ]
    assert [r.index for r in results] == list(range(8)) and [r.line for r in results] == list(range(1, 9))
    assert "both hold 4 in row 1" in (results[1].error or "")
    assert results[4].solution is not None and results[0].solution is not None
    for result, text in zip(results, _mixed(), strict=True):
        if result.solution is not None:
            assert result.solution_line == format_line(result.solution)
            assert all(a == b or a == "." for a, b in zip(text, result.solution_line, strict=True))


def test_the_array_path_agrees_with_one_puzzle_at_a_time() -> None:
    lines = FORUM[:10] + CLUE17[:10]
    batch = list(solve_items(parse_puzzles("\n".join(lines)), BackendOptions(), unique=True))
    for line, result in zip(lines, batch, strict=True):
        alone = solve(parse_grid(line), "pysat:cadical195", unique=True)
        assert (result.status, result.solution) == (alone.status, alone.solution)


def test_json_lines_are_written_as_json_dumps_writes_them() -> None:
    items = parse_puzzles("\n".join(_mixed()) + "\n")
    for result in solve_items(items, BackendOptions(), unique=True):
        assert result.json_line() == json_dumps(result.to_json())
        json.loads(result.json_line())
    odd = PuzzleResult(3, Status.UNKNOWN, None, 1e-7, 'a "quoted"\nerror', 4, {"conflicts": 2})
    assert odd.json_line() == json_dumps(odd.to_json())


def test_a_time_limit_per_puzzle_gives_unknown_never_a_wrong_status() -> None:
    items = parse_puzzles("\n".join(FORUM[:5] + CLUE17[:5]))
    results = list(solve_items(items, BackendOptions(), unique=True, time_limit=1e-9))
    assert all(r.status in (Status.UNKNOWN, Status.SOLVED) for r in results)
    assert any(r.status is Status.UNKNOWN and "time limit" in (r.error or "") for r in results)
    spent = list(solve_items(items, BackendOptions(), time_limit=Deadline(0.0)))
    assert all(r.status is Status.UNKNOWN for r in spent)


def test_worker_processes_give_the_same_results() -> None:
    items = parse_puzzles("\n".join(_mixed() * 3) + "\n")
    alone = [(r.status, r.solution_line, r.error) for r in solve_items(items, BackendOptions(), unique=True)]
    shared = solve_items(items, BackendOptions(), unique=True, jobs=2, chunk=5)
    assert [(r.status, r.solution_line, r.error) for r in shared] == alone


def test_the_pysat_backend_answers_arrays_and_search_many_alike() -> None:
    backend = make_backend("pysat")
    assert backend.batches
    grids = [parse_grid(line) for line in FORUM[:3] + [CLASH, "." * 81]]
    values = np.stack([grid.values.reshape(-1) for grid in grids])
    found = backend.search_arrays(grids[0].geometry, values, 2)
    assert isinstance(found, BatchAnswers)
    assert found.counts.tolist() == [1, 1, 1, 0, 2] and found.complete.tolist() == [True] * 4 + [False]
    many = backend.search_many(grids, 2)
    assert [(r.count, r.complete, r.reason) for r in many] == [
        (r.count, r.complete, r.reason) for r in found.results()
    ]
    assert all(np.array_equal(a.solutions, b.solutions) for a, b in zip(many, found.results(), strict=True))


def test_an_unsatisfiable_puzzle_without_clashing_givens_is_unsat() -> None:
    results = list(solve_items(parse_puzzles(UNSAT + "\n" + FORUM[0] + "\n"), BackendOptions()))
    assert [r.status for r in results] == [Status.UNSAT, Status.SOLVED]


def test_the_batch_name_says_what_solves_the_grids() -> None:
    # Grids of side 25 and more go one by one to the single-puzzle solver, not to Minicard's batches.
    def items(side: int) -> list[PuzzleItem]:
        return [PuzzleItem(0, 1, Grid.empty(geometry_for_size(side))), PuzzleItem(1, 2, None, "unreadable")]

    assert BackendOptions().name_for(items(9)) == "pysat:minicard"
    assert BackendOptions().name_for(items(25)) == "pysat:cadical195"
    assert BackendOptions().name_for([]) == BackendOptions().name == "pysat:minicard"
    assert BackendOptions(backend="pysat:glucose4").name_for(items(25)) == "pysat:glucose4"
    assert BackendOptions(backend="cpsat").name_for(items(25)) == "cpsat"
