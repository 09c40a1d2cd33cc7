"""The hill climber: solves every box shape, keeps its state invariants, scores moves exactly,
reproduces a run from its seed, and never turns a timeout or a hopeless puzzle into an answer."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines, shared_file
from hypothesis import given
from hypothesis import strategies as st

import sudoku_cp as sc
from sudoku_cp.backends import hill_backend
from sudoku_cp.backends.base import BackendError, Status
from sudoku_cp.backends.hill_backend import HillBackend, parse_hill_settings
from sudoku_cp.backends.registry import BACKEND_NAMES, make_backend
from sudoku_cp.checker import check_solution
from sudoku_cp.cli import main
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.native.hillclimb import (
    HillParameters,
    build_model,
    climb_states,
    hill_climb,
    initial_state,
    objective,
    swap_deltas,
)
from sudoku_cp.random_grids import random_puzzle

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3)]
# Blanked fraction per shape: 4x4 to 9x9 half blank, 12x12 "easy" (a third blank).
BLANKS = {4: 0.6, 6: 0.55, 8: 0.5, 9: 0.5, 12: 0.35}
# Givens that never clash, yet no solution: 4x4 with one blank per box, so no move exists.
NO_MOVE_NO_SOLUTION = "2431.34.3.1241.3"
# Givens that never clash, yet R1C1 has no candidate left (1-8 in its row, 9 in its box).
NO_SOLUTION_9X9 = ".12345678" + "9" + "." * 71


def _puzzle(shape: tuple[int, int], seed: int) -> Grid:
    geometry = Geometry(*shape)
    return random_puzzle(geometry, BLANKS[geometry.n], np.random.default_rng(seed))


def _box_invariant_holds(puzzle: Grid, state: np.ndarray) -> bool:
    """Every box holds each digit once, and every given is where it was."""
    g = puzzle.geometry
    digits = state.reshape(-1) + 1
    givens = puzzle.values.reshape(-1)
    boxes = np.sort(digits[g.units[2 * g.n :]], axis=1)
    return bool(
        np.array_equal(boxes, np.tile(np.arange(1, g.n + 1), (g.n, 1)))
        and np.array_equal(digits[givens > 0], givens[givens > 0])
    )


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_solves_small_grids_of_every_box_shape(shape: tuple[int, int]) -> None:
    backend = make_backend("hill", seed=7)
    for seed in range(3):
        puzzle = _puzzle(shape, seed)
        found = backend.search(puzzle, time_limit=60)
        assert found.count == 1, f"{shape} puzzle {seed}: {found.stats}"
        check_solution(puzzle, puzzle.with_values(found.solutions[0]))
        assert found.stats["iterations"] >= 0 and found.stats["restarts"] >= 0


def test_solves_easy_9x9_puzzles_and_agrees_with_sat() -> None:
    backend = HillBackend(seed=1)
    for line in read_lines(DATA / "euler96_easy10.txt"):
        puzzle = sc.parse_grid(line)
        found = backend.search(puzzle, time_limit=60)
        assert found.count == 1
        sat = sc.solve(puzzle, "pysat")
        assert sat.solution is not None
        assert np.array_equal(found.solutions[0], sat.solution.values)


def test_solves_ai_escargot() -> None:
    puzzle = sc.parse_grid(read_lines(DATA / "norvig_hardest.txt")[5])
    result = sc.solve(puzzle, HillBackend(seed=2), time_limit=60)
    assert result.status is Status.SOLVED and result.solution is not None
    check_solution(puzzle, result.solution)


@st.composite
def puzzles_and_seeds(draw: st.DrawFn) -> tuple[Grid, int]:
    p = draw(st.integers(2, 3))
    q = draw(st.integers(2, 3))
    fraction = draw(st.sampled_from([0.3, 0.5, 0.7, 1.0]))
    seed = draw(st.integers(0, 2**16))
    return random_puzzle(Geometry(p, q), fraction, np.random.default_rng(seed)), seed


@given(puzzles_and_seeds())
def test_every_move_delta_equals_full_recomputation(case: tuple[Grid, int]) -> None:
    puzzle, seed = case
    model = build_model(puzzle.geometry, puzzle.values)
    rng = np.random.default_rng(seed)
    state = initial_state(model, seed=seed)
    for _ in range(10):
        if model.moves == 0:
            break
        before = np.array(objective(model, state))
        deltas = swap_deltas(model, state)
        for k in range(model.moves):
            moved = state.copy()
            a, b = model.swap_a[k], model.swap_b[k]
            moved[a], moved[b] = moved[b], moved[a]
            assert tuple(before + deltas[k]) == objective(model, moved)
        k = int(rng.integers(model.moves))
        state[model.swap_a[k]], state[model.swap_b[k]] = state[model.swap_b[k]], state[model.swap_a[k]]


def test_objective_counts_distinct_digits_and_given_clashes() -> None:
    puzzle = sc.parse_grid("..1." + "." * 12, box=(2, 2))
    model = build_model(puzzle.geometry, puzzle.values)
    state = np.array([1, 2, 1, 3, 3, 4, 2, 4, 1, 2, 3, 4, 3, 4, 1, 2], dtype=np.int64) - 1
    # Distinct per row: 3 + 3 + 4 + 4; per column: 2 + 2 + 3 + 3.  The given 1 at R1C3 meets a
    # placed 1 in its row (R1C1) and in its column (R4C3).
    assert objective(model, state) == (24, 2)
    solved = sc.parse_grid("1234341221434321", box=(2, 2))
    empty = build_model(solved.geometry, np.zeros((4, 4), np.int16))
    assert objective(empty, solved.values.astype(np.int64) - 1) == (32, 0)


@given(puzzles_and_seeds())
def test_box_permutation_holds_and_givens_stay_after_every_move(case: tuple[Grid, int]) -> None:
    puzzle, seed = case
    model = build_model(puzzle.geometry, puzzle.values)
    for state in climb_states(model, HillParameters(plateau_size=3), seed=seed, steps=60):
        assert _box_invariant_holds(puzzle, state)


@given(puzzles_and_seeds())
def test_post_swapping_never_adds_a_given_clash(case: tuple[Grid, int]) -> None:
    puzzle, seed = case
    model = build_model(puzzle.geometry, puzzle.values)
    # The same seed shuffles the digits alike, so both start from the same greedy placement.
    greedy = initial_state(model, HillParameters(post_swap=False), seed)
    swapped = initial_state(model, HillParameters(), seed)
    assert _box_invariant_holds(puzzle, greedy) and _box_invariant_holds(puzzle, swapped)
    assert objective(model, swapped)[1] <= objective(model, greedy)[1]


@given(puzzles_and_seeds())
def test_runs_repeat_from_their_seed_on_every_shape(case: tuple[Grid, int]) -> None:
    puzzle, seed = case
    model = build_model(puzzle.geometry, puzzle.values)
    first = hill_climb(model, seed=seed, time_limit=30)
    again = hill_climb(model, seed=seed, time_limit=30)
    assert first.solution is not None and again.solution is not None
    assert np.array_equal(first.solution, again.solution)
    assert (first.iterations, first.restarts) == (again.iterations, again.restarts)
    check_solution(puzzle, puzzle.with_values(first.solution))
    assert len(climb_states(model, seed=seed, steps=first.iterations + 1)) == first.iterations + 1


def test_greedy_start_and_post_swapping_keep_the_invariant_and_reduce_clashes() -> None:
    puzzle = sc.parse_grid(read_lines(DATA / "norvig_top95.txt")[0])
    model = build_model(puzzle.geometry, puzzle.values)
    greedy = [
        objective(model, initial_state(model, HillParameters(post_swap=False), s))[1] for s in range(20)
    ]
    swapped = [objective(model, initial_state(model, HillParameters(), s))[1] for s in range(20)]
    for s in range(20):
        assert _box_invariant_holds(puzzle, initial_state(model, seed=s))
    assert all(b <= a for a, b in zip(greedy, swapped, strict=True))
    assert sum(swapped) < sum(greedy)


def test_same_seed_same_run_whatever_the_chunking() -> None:
    puzzle = sc.parse_grid(read_lines(DATA / "norvig_hardest.txt")[2])
    model = build_model(puzzle.geometry, puzzle.values)
    params = HillParameters(max_restarts=3000)
    first = hill_climb(model, params, seed=11)
    second = hill_climb(model, params, seed=11, time_limit=3600)
    assert first.solution is not None and first.restarts > 10
    assert (first.iterations, first.restarts) == (second.iterations, second.restarts)
    assert second.solution is not None and np.array_equal(first.solution, second.solution)
    stepped = climb_states(model, params, seed=11, steps=first.iterations + 5)
    assert len(stepped) == first.iterations + 1
    other = hill_climb(model, params, seed=12)
    assert (other.iterations, other.restarts) != (first.iterations, first.restarts)


def test_backend_seed_reproduces_stats() -> None:
    puzzle = _puzzle((3, 3), 4)
    runs = [make_backend("hill", seed=3).search(puzzle) for _ in range(2)]
    assert runs[0].stats["iterations"] == runs[1].stats["iterations"]
    assert runs[0].stats["restarts"] == runs[1].stats["restarts"]
    assert np.array_equal(runs[0].solutions, runs[1].solutions)


def test_time_limit_is_unknown_never_no_solution() -> None:
    puzzle = sc.parse_grid(NO_SOLUTION_9X9)
    found = HillBackend(seed=1).search(puzzle, time_limit=0.3)
    assert (found.count, found.complete, found.timed_out) == (0, False, True)
    assert found.stats["restarts"] > 0
    result = sc.solve(puzzle, HillBackend(), time_limit=0.3)
    assert result.status is Status.UNKNOWN and result.solution is None


def test_default_restart_cap_applies_only_without_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hill_backend, "DEFAULT_MAX_RESTARTS", 20)
    puzzle = sc.parse_grid(NO_SOLUTION_9X9)
    capped = HillBackend().search(puzzle)
    assert (capped.count, capped.complete, capped.timed_out) == (0, False, False)
    assert capped.stats["restarts"] == 20
    timed = HillBackend().search(puzzle, time_limit=0.3)
    assert timed.timed_out and timed.stats["restarts"] > 20


def test_restart_cap_is_unknown_without_timeout() -> None:
    puzzle = sc.parse_grid(NO_SOLUTION_9X9)
    found = HillBackend(HillParameters(max_restarts=5)).search(puzzle)
    assert (found.count, found.complete, found.timed_out) == (0, False, False)
    assert found.stats["restarts"] == 5


def test_single_state_space_without_solution_is_proved_unsat() -> None:
    puzzle = sc.parse_grid(NO_MOVE_NO_SOLUTION, box=(2, 2))
    assert build_model(puzzle.geometry, puzzle.values).moves == 0
    assert sc.solve(puzzle, "hill").status is Status.UNSAT
    assert sc.solve(puzzle, "pysat").status is Status.UNSAT


def test_clashing_givens_are_invalid() -> None:
    puzzle = sc.parse_grid("11" + "." * 79)
    assert sc.solve(puzzle, "hill").status is Status.INVALID


def test_complete_grid_is_its_own_solution() -> None:
    solution = sc.parse_grid("1234341221434321", box=(2, 2))
    found = HillBackend().search(solution, limit=2)
    assert found.count == 1 and found.complete
    assert np.array_equal(found.solutions[0], solution.values)


def test_too_large_neighbourhood_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="too many for hill climbing"):
        HillBackend().search(Grid.empty(Geometry(20, 20)))


def test_uniqueness_is_unknown_for_a_local_search() -> None:
    puzzle = _puzzle((2, 2), 1)
    assert sc.solve(puzzle, "hill", unique=True).status is Status.UNKNOWN


@pytest.mark.parametrize(
    "params",
    [
        {"plateau_size": 0},
        {"stall_limit": -1},
        {"max_restarts": -2},
        {"max_iterations": -1},
        {"w1": 0, "w2": 0},
    ],
)
def test_bad_parameters_are_rejected(params: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        HillParameters(**params)  # type: ignore[arg-type]


def test_settings_text_sets_every_parameter() -> None:
    assert parse_hill_settings("") == HillParameters()
    params = parse_hill_settings("w1=2, w2=-3,plateau_size=20,stall_limit=0,post_swap=0,shuffle_digits=false")
    assert params == HillParameters(2, -3, 20, 0, False, False)
    assert parse_hill_settings("max_restarts=none,max_iterations=7") == HillParameters(
        max_restarts=None, max_iterations=7
    )
    backend = make_backend("hill:max_restarts=4", seed=9)
    assert isinstance(backend, HillBackend) and backend.params.max_restarts == 4 and backend.seed == 9


@pytest.mark.parametrize("text", ["foo=1", "plateau_size", "plateau_size=x", "post_swap=2", "plateau_size=0"])
def test_bad_settings_text_is_one_clear_error(text: str) -> None:
    with pytest.raises(BackendError, match="hill setting"):
        parse_hill_settings(text)


def test_bad_setting_on_the_command_line_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--backend", "hill:plateau=3", "1" + "." * 80]) == 2
    err = capsys.readouterr().err
    assert "hill setting 'plateau=3'" in err and "Traceback" not in err


def test_hill_is_a_registered_backend_and_cli_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert "hill" in BACKEND_NAMES
    puzzle = sc.format_line(_puzzle((3, 3), 2))
    assert main(["solve", "--backend", "hill", "--seed", "4", "--time-limit", "60", puzzle]) == 0
    assert "solved (hill" in capsys.readouterr().out


def test_every_answer_on_every_box_shape_passes_the_audit() -> None:
    from sudoku_cp.audit import BackendSolver, Claim, Verdict, audit
    from sudoku_cp.formats import PuzzleItem

    grids = [_puzzle(shape, seed) for shape in SHAPES for seed in range(2)]
    grids.append(sc.parse_grid(NO_MOVE_NO_SOLUTION, box=(2, 2)))
    items = [PuzzleItem(i, i + 1, grid) for i, grid in enumerate(grids)]
    results = list(audit(items, [BackendSolver("hill")], runs=2, seed=3, time_limit=30))
    assert len(results) == 2 * len(items)
    assert all(r.verdict is Verdict.CORRECT for r in results), [r.detail for r in results]
    assert [r.claimed for r in results[-2:]] == [Claim.UNSAT, Claim.UNSAT]
    assert all(r.claimed is Claim.SOLVED for r in results[:-2])


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["sudoku9/euler96_easy50.txt", "sudoku9/norvig_hardest.txt"])
def test_every_answer_on_shared_corpora_matches_sat(corpus: str) -> None:
    backend = HillBackend(seed=5)
    unknown = 0
    for line in read_lines(shared_file(corpus)):
        puzzle = sc.parse_grid(line)
        found = backend.search(puzzle, time_limit=30)
        sat = sc.solve(puzzle, "pysat")
        assert sat.solution is not None
        if found.count == 0:
            assert not found.complete
            unknown += 1
            continue
        assert np.array_equal(found.solutions[0], sat.solution.values)
    assert unknown == 0, f"{unknown} puzzles of {corpus} unsolved in 30 s"
