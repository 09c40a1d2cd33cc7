"""The ant colony solver: solves every box shape, answers checked, reproducible, timeouts are unknown."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.api import solve
from sudoku_cp.backends.acs_backend import AcsBackend, parse_acs_settings
from sudoku_cp.backends.base import BackendError, Status
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.checker import solution_problem
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.native.acs import AcsParameters, Q0Rule, acs_solve
from sudoku_cp.native.backtrack import backtrack_search
from sudoku_cp.random_grids import blank_cells, random_solution

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3)]
# Propagation-consistent, yet without solution (backtracking needs 78 nodes to show it).
UNSAT = "..8....5.97.683....4....68...1.2.9...........69.5.4.2..1..4..7.8..1.....5........"


def _puzzle(shape: tuple[int, int], seed: int, blanks: float) -> Grid:
    rng = np.random.default_rng(seed)
    return blank_cells(random_solution(Geometry(*shape), rng), blanks, rng)


@pytest.mark.parametrize("rule", list(Q0Rule))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_solves_every_box_shape_with_checked_answers(shape: tuple[int, int], rule: Q0Rule) -> None:
    parameters = AcsParameters(q0_rule=rule)
    for seed in range(4):
        # 55 % blanks: the hardest region for these sizes, where propagation alone rarely finishes.
        puzzle = _puzzle(shape, seed, 0.55)
        run = acs_solve(puzzle, parameters, seed=seed, time_limit=30)
        assert run.solution is not None, f"seed {seed}: not solved in {run.iterations} iterations"
        assert solution_problem(puzzle, puzzle.with_values(run.solution)) is None


def test_most_random_puzzles_need_the_colony() -> None:
    """The tests above are not trivial: on most of them the colony runs at least one iteration."""
    runs = [acs_solve(_puzzle(shape, seed, 0.55), seed=seed) for shape in SHAPES for seed in range(4)]
    assert sum(run.iterations > 0 for run in runs) >= len(runs) // 2


@pytest.mark.parametrize("settings", ["", "rule=code", "bve=0", "ants=3,q0=0.5,rho=0.5,xi=0.2,tau0=0.01"])
def test_backend_solves_hard_9x9_with_every_setting(settings: str) -> None:
    backend = make_backend(f"acs:{settings}" if settings else "acs", seed=5)
    for line in read_lines(DATA / "norvig_hardest.txt", 4):
        puzzle = parse_grid(line)
        result = solve(puzzle, backend)
        assert result.status is Status.SOLVED and result.solution is not None
        assert solution_problem(puzzle, result.solution) is None


def test_big_instances_solve() -> None:
    for name in ("inst16x16_45_0.txt", "inst25x25_45_0.txt"):
        puzzle = parse_grid((DATA / name).read_text())
        found = AcsBackend(seed=2).search(puzzle, time_limit=60)
        assert found.count == 1 and not found.complete
        assert solution_problem(puzzle, puzzle.with_values(found.solutions[0])) is None
        assert found.stats["iterations"] >= 1 and found.stats["cycles"] >= 1


def test_same_seed_same_result_and_iterations() -> None:
    puzzle = parse_grid((DATA / "aiescargot.txt").read_text())
    for seed in (0, 1, 7):
        first = acs_solve(puzzle, seed=seed)
        again = acs_solve(puzzle, seed=seed, time_limit=1000.0)
        assert first.solution is not None and again.solution is not None
        assert np.array_equal(first.solution, again.solution)
        assert (first.iterations, first.cycles) == (again.iterations, again.cycles)
    counts = {acs_solve(puzzle, seed=seed).cycles for seed in range(6)}
    assert len(counts) > 1, "different seeds should walk differently"


def test_time_limit_gives_unknown_never_no_solution() -> None:
    puzzle = parse_grid(UNSAT)
    assert backtrack_search(puzzle).count == 0 and backtrack_search(puzzle).complete
    run = acs_solve(puzzle, seed=3, time_limit=0.3)
    assert run.solution is None and run.timed_out and not run.contradiction and run.iterations > 0
    found = make_backend("acs", seed=3).search(puzzle, time_limit=0.3)
    assert found.count == 0 and not found.complete and found.timed_out
    assert solve(puzzle, make_backend("acs"), time_limit=0.3).status is Status.UNKNOWN


def test_iteration_cap_gives_unknown() -> None:
    puzzle = parse_grid(UNSAT)
    run = acs_solve(puzzle, AcsParameters(max_iterations=3), seed=1)
    assert run.solution is None and run.iterations == 3 and not run.timed_out
    found = AcsBackend(parse_acs_settings("iterations=3")).search(puzzle)
    assert found.count == 0 and not found.complete


def test_contradiction_from_propagation_is_no_solution() -> None:
    puzzle = parse_grid("123....4........")
    run = acs_solve(puzzle)
    assert run.contradiction and run.solution is None
    assert solve(puzzle, make_backend("acs")).status is Status.UNSAT


def test_solved_by_propagation_is_complete_and_unique() -> None:
    solution = random_solution(Geometry(3, 3), np.random.default_rng(4))
    puzzle = blank_cells(solution, 0.2, np.random.default_rng(4))
    found = AcsBackend().search(puzzle, limit=2)
    assert found.complete and found.count == 1 and found.stats["iterations"] == 0
    assert solve(puzzle, make_backend("acs"), unique=True).status is Status.SOLVED


def test_defaults_are_the_papers() -> None:
    params = AcsParameters()
    assert (params.ants, params.q0, params.rho, params.bve, params.xi) == (10, 0.9, 0.9, 0.005, 0.1)
    assert params.tau0 is None and params.q0_rule is Q0Rule.PAPER
    assert parse_acs_settings("") == params
    assert parse_acs_settings("rule=code, bve=0") == dataclasses.replace(params, q0_rule=Q0Rule.CODE, bve=0.0)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("ants=0", r"ants=.0.: expected an integer in 1\.\.10000"),
        ("q0=1.5", "q0 must lie in"),
        ("rule=greedy", "expected paper or code"),
        ("rho=x", "expected a number"),
        ("colour=red", "key=value with a key among"),
        ("bve", "key=value"),
        ("tau0=0", "tau0 must be positive"),
    ],
)
def test_bad_settings_are_named(settings: str, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        make_backend(f"acs:{settings}")
