"""The iterated local search: solves every box shape with checked answers, keeps its state
invariants, scores moves exactly, repeats a run from its seed, and never turns a timeout, a cap
or a hopeless puzzle into an answer."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import DATA, read_lines, shared_file
from hypothesis import given
from hypothesis import strategies as st

import sudoku_cp as sc
from sudoku_cp.backends import ils_backend
from sudoku_cp.backends.base import BackendError, Status
from sudoku_cp.backends.ils_backend import IlsBackend, parse_ils_settings
from sudoku_cp.backends.registry import BACKEND_NAMES, backend_name, make_backend
from sudoku_cp.checker import check_solution
from sudoku_cp.cli import main
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.native.ils import (
    IlsModel,
    IlsParameters,
    Perturbation,
    build_model,
    cost,
    ils_solve,
    ils_states,
    initial_state,
)
from sudoku_cp.outcome import REASON_CAP
from sudoku_cp.random_grids import blank_cells, random_solution

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3), (4, 4)]
# Propagation-consistent and every box has a fill inside the domains, yet without solution.
UNSAT = "64.....8.....2.....5.8.146..73....4.4.6...2.81.8....9.....5..2.78......42.1...87."
# Givens that never clash, yet R1C1 has no candidate left (1-8 in its row, 9 in its box).
EMPTIED_CELL = ".12345678" + "9" + "." * 71
# Propagation-consistent, but one box's domains admit no fill of its missing digits.
NO_BOX_FILL = "...87..1.....9.............5......6.8.7.........16..491...3...6......1....84...3."
# The same, the ant colony tests' puzzle without solution (backtracking needs 78 nodes).
NO_BOX_FILL_ACS = "..8....5.97.683....4....68...1.2.9...........69.5.4.2..1..4..7.8..1.....5........"


def _puzzle(shape: tuple[int, int], seed: int, blanks: float = 0.55) -> Grid:
    rng = np.random.default_rng(seed)
    return blank_cells(random_solution(Geometry(*shape), rng), blanks, rng)


def _model(puzzle: Grid) -> IlsModel:
    model = build_model(puzzle)
    assert model is not None
    return model


def _invariants_hold(model: IlsModel, state: np.ndarray, domains: bool = True) -> bool:
    """Every box holds each digit once, fixed cells keep their digit (and every cell its domain)."""
    g = model.geometry
    digits = np.asarray(state, dtype=np.int64)
    boxes = np.sort(digits[g.units[2 * g.n :]], axis=1)
    fixed = model.fixed >= 0
    in_domain = (model.domains >> digits.astype(np.uint64)) & np.uint64(1)
    return bool(
        np.array_equal(boxes, np.tile(np.arange(g.n), (g.n, 1)))
        and np.array_equal(digits[fixed], model.fixed[fixed])
        and (in_domain.all() or not domains)
    )


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_solves_every_box_shape_with_checked_answers(shape: tuple[int, int]) -> None:
    # 55 % blanks: the hardest region for these sizes, where propagation alone rarely finishes.
    puzzles = [_puzzle(shape, seed) for seed in range(3)]
    results = [sc.solve(puzzle, IlsBackend(seed=7), time_limit=60) for puzzle in puzzles]
    assert [r.status for r in results] == [Status.SOLVED] * 3, [r.stats for r in results]
    for puzzle, result in zip(puzzles, results, strict=True):
        assert result.solution is not None
        check_solution(puzzle, result.solution)


def test_most_random_puzzles_need_the_search() -> None:
    """The test above is not trivial: on most of its puzzles propagation leaves open cells."""
    runs = [ils_solve(_puzzle(shape, seed), seed=seed) for shape in SHAPES for seed in range(3)]
    assert sum(run.open_cells > 0 and run.iterations > 0 for run in runs) >= len(runs) // 2


def test_solves_hard_9x9_and_agrees_with_sat() -> None:
    backend = IlsBackend(seed=1)
    for line in read_lines(DATA / "norvig_hardest.txt", 4):
        puzzle = sc.parse_grid(line)
        found = backend.search(puzzle, time_limit=60)
        assert found.count == 1 and not found.complete
        sat = sc.solve(puzzle, "pysat")
        assert sat.solution is not None
        assert np.array_equal(found.solutions[0], sat.solution.values)


def test_big_instance_solves() -> None:
    puzzle = sc.parse_grid((DATA / "inst16x16_45_0.txt").read_text())
    found = IlsBackend(seed=2).search(puzzle, time_limit=60)
    assert found.count == 1 and not found.complete
    check_solution(puzzle, puzzle.with_values(found.solutions[0]))


@st.composite
def puzzles_and_seeds(draw: st.DrawFn) -> tuple[Grid, int]:
    """A random puzzle of box shape 2 or 3 by 2 or 3 (40 % to all blank), and a seed."""
    shape = draw(st.tuples(st.integers(2, 3), st.integers(2, 3)))
    seed = draw(st.integers(0, 2**16))
    return _puzzle(shape, seed, draw(st.sampled_from([0.4, 0.6, 0.8, 1.0]))), seed


@given(
    puzzles_and_seeds(),
    st.sampled_from(["", "tenure=3,domain_swaps=1", "perturbation=swap,strength=3,domain_fill=0"]),
)
def test_invariants_and_cost_hold_after_every_step(case: tuple[Grid, int], settings: str) -> None:
    puzzle, seed = case
    model = _model(puzzle)
    params = dataclasses.replace(parse_ils_settings(settings), stall_limit=5, restart_after=3)
    states, costs = ils_states(model, params, seed=seed, steps=80)
    for state, kernel_cost in zip(states, costs, strict=True):
        # Domains hold throughout only when both the fills and the swaps keep them.
        assert _invariants_hold(model, state, params.domain_fill and params.domain_swaps)
        assert kernel_cost == cost(model, state)


def test_cost_counts_missing_digits_per_row_and_column() -> None:
    model = _model(sc.parse_grid("." * 16, box=(2, 2)))
    state = np.array([1, 2, 1, 3, 3, 4, 2, 4, 1, 2, 3, 4, 3, 4, 1, 2], dtype=np.int64) - 1
    # Missing per row: 1 + 1 + 0 + 0; per column: 2 + 2 + 1 + 1.
    assert cost(model, state) == 8
    solved = sc.parse_grid("1234341221434321", box=(2, 2))
    assert cost(model, solved.values.reshape(-1).astype(np.int64) - 1) == 0


def test_propagation_fixes_cells_and_narrows_domains() -> None:
    puzzle = sc.parse_grid(read_lines(DATA / "norvig_top95.txt")[0])
    model = _model(puzzle)
    givens = puzzle.values.reshape(-1) > 0
    assert (model.fixed[givens] == puzzle.values.reshape(-1)[givens] - 1).all()
    open_domains = model.domains[model.fixed < 0]
    sizes = np.array([bin(int(m)).count("1") for m in open_domains])
    assert (sizes >= 2).all() and sizes.mean() < 9
    state = initial_state(model, seed=3)
    assert state is not None and _invariants_hold(model, state)


def test_same_seed_same_run_whatever_the_chunking() -> None:
    puzzle = sc.parse_grid((DATA / "aiescargot.txt").read_text())
    model = _model(puzzle)
    for seed in (0, 5):
        first = ils_solve(puzzle, seed=seed)
        again = ils_solve(puzzle, seed=seed, time_limit=3600)
        assert first.solution is not None and again.solution is not None
        assert np.array_equal(first.solution, again.solution)
        assert (first.iterations, first.perturbations) == (again.iterations, again.perturbations)
        assert first.perturbations > 0
        steps = first.iterations + first.perturbations
        states, costs = ils_states(model, seed=seed, steps=steps + 5)
        assert len(states) == steps + 1 and costs[-1] == 0
        assert np.array_equal(states[-1].reshape(9, 9) + 1, first.solution)
    runs = {ils_solve(puzzle, seed=seed).iterations for seed in range(4)}
    assert len(runs) > 1, "different seeds should walk differently"


def test_backend_runs_repeat_from_the_seed() -> None:
    puzzle = _puzzle((3, 3), 4)
    first, again, other = (IlsBackend(seed=seed).search(puzzle) for seed in (3, 3, 4))
    assert first.stats["iterations"] == again.stats["iterations"] != other.stats["iterations"]
    assert first.stats["perturbations"] == again.stats["perturbations"]
    assert np.array_equal(first.solutions, again.solutions)


def test_time_limit_is_unknown_never_no_solution() -> None:
    puzzle = sc.parse_grid(UNSAT)
    assert sc.solve(puzzle, "pysat").status is Status.UNSAT
    assert initial_state(_model(puzzle)) is not None  # no proof before the search
    run = ils_solve(puzzle, seed=1, time_limit=0.3)
    assert run.solution is None and run.timed_out and not run.contradiction and run.iterations > 0
    assert run.seconds < 0.3 + 0.2  # chunks are ~20 ms: the limit is honoured closely
    found = IlsBackend(seed=1).search(puzzle, time_limit=0.3)
    assert (found.count, found.complete, found.timed_out) == (0, False, True)
    assert sc.solve(puzzle, IlsBackend(), time_limit=0.3).status is Status.UNKNOWN


def test_default_iteration_cap_applies_only_without_time_limit() -> None:
    puzzle = sc.parse_grid(UNSAT)
    assert IlsBackend().default_max_iterations == ils_backend.DEFAULT_MAX_ITERATIONS
    capped = IlsBackend(default_max_iterations=2000).search(puzzle)
    assert (capped.count, capped.complete, capped.timed_out) == (0, False, False)
    assert capped.stats["iterations"] == 2000 and capped.reason == REASON_CAP
    timed = IlsBackend(default_max_iterations=2000).search(puzzle, time_limit=0.3)
    assert timed.timed_out and timed.stats["iterations"] > 2000


def test_iteration_cap_is_unknown() -> None:
    puzzle = sc.parse_grid(UNSAT)
    run = ils_solve(puzzle, IlsParameters(max_iterations=500), seed=1)
    assert run.solution is None and run.iterations == 500 and not run.timed_out
    found = make_backend("ils:max_iterations=500").search(puzzle)
    assert found.count == 0 and not found.complete and not found.timed_out


def test_emptied_cell_is_proved_unsat() -> None:
    puzzle = sc.parse_grid(EMPTIED_CELL)
    run = ils_solve(puzzle)
    assert run.contradiction and run.solution is None
    assert sc.solve(puzzle, "ils").status is Status.UNSAT
    assert sc.solve(puzzle, "pysat").status is Status.UNSAT


@pytest.mark.parametrize("line", [NO_BOX_FILL, NO_BOX_FILL_ACS])
def test_box_without_a_fill_inside_the_domains_is_proved_unsat(line: str) -> None:
    puzzle = sc.parse_grid(line)
    model = _model(puzzle)  # propagation alone finds no contradiction
    assert initial_state(model) is None
    run = ils_solve(puzzle)
    assert run.contradiction and run.solution is None and run.iterations == 0
    assert sc.solve(puzzle, "ils").status is Status.UNSAT
    assert sc.solve(puzzle, "pysat").status is Status.UNSAT


def test_without_domains_the_same_box_is_searched_not_proved() -> None:
    puzzle = sc.parse_grid(NO_BOX_FILL)
    run = ils_solve(puzzle, IlsParameters(domain_fill=False, max_iterations=300), seed=2)
    assert not run.contradiction and run.solution is None and run.iterations == 300


def test_clashing_givens_are_invalid() -> None:
    assert sc.solve(sc.parse_grid("11" + "." * 79), "ils").status is Status.INVALID


def test_solved_by_propagation_is_complete_and_unique() -> None:
    puzzle = _puzzle((3, 3), 4, blanks=0.2)
    found = IlsBackend().search(puzzle, limit=2)
    assert found.complete and found.count == 1 and found.stats["iterations"] == 0
    assert sc.solve(puzzle, "ils", unique=True).status is Status.SOLVED
    solution = sc.parse_grid("1234341221434321", box=(2, 2))
    assert IlsBackend().search(solution, limit=2).complete


def test_uniqueness_is_unknown_for_a_local_search() -> None:
    puzzle = sc.parse_grid((DATA / "aiescargot.txt").read_text())
    assert sc.solve(puzzle, "ils", unique=True).status is Status.UNKNOWN


def test_grid_beyond_the_bitsets_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="ils: .*64x64"):
        IlsBackend().search(Grid.empty(Geometry(9, 9)))


@pytest.mark.parametrize(
    "params",
    [{"tenure": -1}, {"stall_limit": 0}, {"strength": 0}, {"restart_after": -1}, {"max_iterations": -1}],
)
def test_bad_parameters_are_rejected(params: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        IlsParameters(**params)  # type: ignore[arg-type]


def test_settings_text_sets_every_parameter() -> None:
    assert parse_ils_settings("") == IlsParameters()
    params = parse_ils_settings(
        "tenure=4, stall_limit=50,perturbation=swap,strength=3,restart_after=7,domain_fill=0,"
        "domain_swaps=1,max_iterations=9"
    )
    assert params == IlsParameters(4, 50, Perturbation.SWAP, 3, 7, False, True, 9)
    assert parse_ils_settings("max_iterations=none").max_iterations is None
    backend = make_backend("ils:strength=2", seed=9)
    assert isinstance(backend, IlsBackend) and backend.params.strength == 2 and backend.seed == 9


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo=1", "key=value with a key among"),
        ("tenure", "key=value"),
        ("tenure=x", "expected an integer"),
        ("perturbation=kick", "expected refill or swap"),
        ("domain_swaps=2", "expected 0 or 1"),
        ("domain_fill=maybe", "expected 0 or 1"),
        ("stall_limit=0", "stall_limit must be at least 1"),
    ],
)
def test_bad_settings_text_is_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        make_backend(f"ils:{text}")


def test_ils_is_a_registered_backend_and_cli_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert "ils" in BACKEND_NAMES and "ils:<settings>" in BACKEND_NAMES
    assert backend_name("ils:tenure=3") == "ils"
    puzzle = sc.format_line(_puzzle((3, 3), 2))
    assert main(["solve", "--backend", "ils", "--seed", "4", "--time-limit", "60", puzzle]) == 0
    assert "solved (ils" in capsys.readouterr().out
    assert main(["solve", "--backend", "ils:tenure=-1", puzzle]) == 2
    err = capsys.readouterr().err
    assert "tenure must be at least 0" in err and "Traceback" not in err
    assert main(["count", "--backend", "ils", puzzle]) == 2
    err = capsys.readouterr().err
    assert "incomplete search" in err and len(err.strip().splitlines()) == 1


def test_every_answer_on_every_box_shape_passes_the_audit() -> None:
    from collections import Counter

    from sudoku_cp.audit import BackendSolver, Claim, Verdict, audit
    from sudoku_cp.formats import PuzzleItem

    grids = [_puzzle(shape, seed) for shape in SHAPES for seed in range(2)] + [sc.parse_grid(NO_BOX_FILL)]
    items = [PuzzleItem(index, index + 1, grid) for index, grid in enumerate(grids)]
    tally = Counter(
        (r.verdict, r.claimed) for r in audit(items, [BackendSolver("ils")], runs=2, seed=3, time_limit=30)
    )
    solved = 2 * (len(items) - 1)
    assert tally == {(Verdict.CORRECT, Claim.SOLVED): solved, (Verdict.CORRECT, Claim.UNSAT): 2}


@pytest.mark.parametrize("corpus", ["sudoku9/euler96_easy50.txt", "sudoku9/norvig_hardest.txt"])
def test_every_answer_on_shared_corpora_is_the_sat_solution(corpus: str) -> None:
    lines = read_lines(shared_file(corpus))
    answers = [sc.solve(sc.parse_grid(line), IlsBackend(seed=5), time_limit=30) for line in lines]
    truths = [sc.solve(sc.parse_grid(line), "pysat") for line in lines]
    for line, answer, truth in zip(lines, answers, truths, strict=True):
        assert answer.status is Status.SOLVED, f"unsolved in 30 s: {line}"
        assert answer.solution == truth.solution


def _general_instances(pattern: str) -> list[tuple[str, Grid]]:
    folder = shared_file("acs/general/inst9x9_0_0.txt").parent
    return [(path.name, sc.parse_grid(path.read_text())) for path in sorted(folder.glob(pattern))]


def _solved_or_timed_out(instances: list[tuple[str, Grid]], time_limit: float) -> None:
    """Every answer checked (the backend checks it), and no run without an answer claims anything."""
    for index, (name, puzzle) in enumerate(instances):
        found = IlsBackend(seed=index).search(puzzle, time_limit=time_limit)
        assert found.count == 1 or (found.count == 0 and found.timed_out and not found.complete), name


def test_ant_colony_instances_of_every_size_are_solved_or_unknown() -> None:
    """The first instance of every tenth fixed-cell fraction, 9x9 to 25x25 (well under a second today)."""
    sample = [item for item in _general_instances("inst*_0.txt") if int(item[0].split("_")[1]) % 10 == 0]
    assert len(sample) == 33
    _solved_or_timed_out(sample, 10)


@pytest.mark.slow
def test_all_ant_colony_instances_are_solved_or_unknown() -> None:
    """All 315 general instances with the ant colony paper's timeouts for 9x9 and 16x16, 20 s on 25x25."""
    for size, limit in ((9, 5), (16, 20), (25, 20)):
        _solved_or_timed_out(_general_instances(f"inst{size}x{size}_*.txt"), limit)
