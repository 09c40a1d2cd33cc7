"""CP-SAT models (sudoku_cp.cpsat) and the CP-SAT backend, over both model kinds."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from ortools.sat.python import cp_model

from sudoku_cp.backends import cpsat_backend
from sudoku_cp.backends.base import BackendError
from sudoku_cp.backends.cpsat_backend import CpsatBackend
from sudoku_cp.checker import check_solution
from sudoku_cp.cpsat import (
    CpsatModelKind,
    SudokuCpModel,
    build_cpsat_model,
    export_cpsat_model,
    new_solver,
    run_solver,
)
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
KINDS = [CpsatModelKind.BOOL, CpsatModelKind.ALLDIFF]
SPEC = Path(__file__).parents[1] / "encodings" / "cpsat.md"


def pattern_grid(p: int, q: int) -> np.ndarray:
    """A valid n x n solution for p x q boxes: value(r, c) = (q*(r % p) + r // p + c) % n + 1."""
    n = p * q
    r, c = np.indices((n, n))
    return ((q * (r % p) + r // p + c) % n + 1).astype(np.int16)


def random_puzzles(count: int, seed: int) -> list[Grid]:
    """Puzzles made by relabelling the digits of a pattern grid and blanking random cells."""
    rng = np.random.default_rng(seed)
    shapes = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)]
    puzzles = []
    for index in range(count):
        p, q = shapes[index % len(shapes)]
        n = p * q
        relabel = np.concatenate([[0], rng.permutation(n) + 1])
        solution = relabel[pattern_grid(p, q)]
        blank = rng.random((n, n)) < rng.uniform(0.3, 0.8)
        puzzles.append(Grid(Geometry(p, q), np.where(blank, 0, solution)))
    return puzzles


def proto_sizes(model: SudokuCpModel) -> dict[str, int]:
    """Variables, constraints and literal/term occurrences counted on the proto itself."""
    proto = model.model.proto
    occurrences = 0
    for c in proto.constraints:  # has_* first: reading an unset oneof member would set it
        if c.has_exactly_one():
            occurrences += len(c.exactly_one.literals)
        elif c.has_bool_and():
            occurrences += len(c.bool_and.literals)
        elif c.has_all_diff():
            occurrences += len(c.all_diff.exprs)
    return {
        "variables": len(proto.variables),
        "constraints": len(proto.constraints),
        "occurrences": occurrences,
    }


@pytest.fixture(scope="module")
def hard() -> Grid:
    return parse_grid(HARD)


@pytest.mark.parametrize("kind", KINDS)
def test_hard_puzzle_is_solved_and_the_solution_verifies(hard: Grid, kind: CpsatModelKind) -> None:
    result = CpsatBackend(kind).search(hard)
    assert result.count == 1 and result.solutions.shape == (1, 9, 9)
    assert not result.timed_out
    check_solution(hard, hard.with_values(result.solutions[0]))
    assert {"conflicts", "branches", "wall_time"} <= result.stats.keys()


@pytest.mark.parametrize("kind", KINDS)
def test_hard_puzzle_has_exactly_one_solution(hard: Grid, kind: CpsatModelKind) -> None:
    result = CpsatBackend(kind).search(hard, limit=2)
    assert result.count == 1
    assert result.complete and not result.timed_out


@pytest.mark.parametrize("kind", KINDS)
def test_model_decodes_the_solution_of_a_plain_solve(hard: Grid, kind: CpsatModelKind) -> None:
    model = build_cpsat_model(hard, kind)
    solver = new_solver()
    assert run_solver(solver, model.model) == cp_model.OPTIMAL
    grid = model.decode(solver)
    assert grid.dtype == np.int16 and grid.shape == (9, 9)
    check_solution(hard, hard.with_values(grid))


@pytest.mark.parametrize("kind", KINDS)
def test_empty_4x4_grid_has_288_solutions(kind: CpsatModelKind) -> None:
    result = CpsatBackend(kind).search(Grid.empty(Geometry(2, 2)), limit=1000)
    assert result.count == 288 and result.solutions.shape == (288, 4, 4)
    assert result.complete and not result.timed_out


@pytest.mark.slow  # seconds per model; the default run counts 39,168 solutions with dlx
@pytest.mark.parametrize("kind", KINDS)
def test_6x6_grid_with_first_row_fixed_has_39168_solutions(kind: CpsatModelKind) -> None:
    values = np.zeros((6, 6), dtype=np.int16)
    values[0] = [1, 2, 3, 4, 5, 6]
    result = CpsatBackend(kind).search(Grid(Geometry(2, 3), values), limit=10**6, keep=False)
    assert result.count == 39_168
    assert result.complete and not result.timed_out
    assert result.solutions.shape == (0, 6, 6)


@pytest.mark.parametrize("kind", KINDS)
def test_counting_stops_at_the_limit_without_claiming_completeness(kind: CpsatModelKind) -> None:
    result = CpsatBackend(kind).search(Grid.empty(Geometry(2, 2)), limit=10)
    assert result.count == 10 and len(result.solutions) == 10
    assert not result.complete and not result.timed_out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("limit", [1, 2])
def test_equal_givens_in_a_row_have_no_solution(kind: CpsatModelKind, limit: int) -> None:
    values = np.zeros((9, 9), dtype=np.int16)
    values[0, 0] = values[0, 5] = 7
    result = CpsatBackend(kind).search(Grid(Geometry(3, 3), values), limit=limit)
    assert result.count == 0
    assert result.complete and not result.timed_out


@pytest.mark.parametrize("kind", KINDS)
def test_counting_the_empty_9x9_grid_times_out_with_a_lower_bound(kind: CpsatModelKind) -> None:
    result = CpsatBackend(kind).search(Grid.empty(Geometry(3, 3)), limit=10**9, time_limit=0.5, keep=False)
    assert result.timed_out and not result.complete
    assert result.count >= 0
    assert result.stats["wall_time"] < 5


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("limit", [1, 2])
def test_tiny_time_limit_never_reports_no_solution(hard: Grid, kind: CpsatModelKind, limit: int) -> None:
    result = CpsatBackend(kind).search(hard, limit=limit, time_limit=1e-6)
    assert not (result.complete and result.count == 0)
    if result.count == 0:
        assert result.timed_out


@pytest.mark.parametrize("kind", KINDS)
def test_keep_false_counts_without_returning_solutions(hard: Grid, kind: CpsatModelKind) -> None:
    result = CpsatBackend(kind).search(hard, limit=1, keep=False)
    assert result.count == 1 and result.solutions.shape == (0, 9, 9)


def test_both_kinds_agree_on_random_puzzles() -> None:
    bool_backend, alldiff_backend = CpsatBackend("bool"), CpsatBackend("alldiff")
    for puzzle in random_puzzles(30, seed=20240611):
        by_bool = bool_backend.search(puzzle, limit=2)
        by_alldiff = alldiff_backend.search(puzzle, limit=2)
        assert by_bool.count == by_alldiff.count >= 1
        if by_bool.count == 1:
            assert by_bool.complete and by_alldiff.complete
            assert np.array_equal(by_bool.solutions, by_alldiff.solutions)
        assert not by_bool.timed_out and not by_alldiff.timed_out


@pytest.mark.parametrize("p,q", [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)])
def test_pattern_grid_is_a_valid_solution(p: int, q: int) -> None:
    grid = Grid(Geometry(p, q), pattern_grid(p, q))
    check_solution(Grid.empty(grid.geometry), grid)


def test_several_workers_and_a_seed_solve_the_same_puzzle(hard: Grid) -> None:
    one = CpsatBackend("bool").search(hard)
    many = CpsatBackend("bool", workers=2, seed=7).search(hard)
    assert np.array_equal(one.solutions, many.solutions)


def test_backend_names_and_kinds() -> None:
    assert CpsatBackend().name == "cpsat"
    assert CpsatBackend("alldiff").name == "cpsat:alldiff"
    assert CpsatBackend(CpsatModelKind.ALLDIFF).kind is CpsatModelKind.ALLDIFF
    with pytest.raises(ValueError):
        CpsatBackend("table")
    with pytest.raises(ValueError):
        CpsatBackend(workers=0)


@pytest.mark.parametrize("kind", KINDS)
def test_invalid_model_raises_backend_error(
    hard: Grid, kind: CpsatModelKind, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(puzzle: Grid, kind: CpsatModelKind) -> SudokuCpModel:
        model = build_cpsat_model(puzzle, kind)
        domain = model.model.proto.variables[0].domain
        domain[0], domain[1] = 5, 1  # an empty interval: CP-SAT reports MODEL_INVALID
        return model

    monkeypatch.setattr(cpsat_backend, "build_cpsat_model", broken)
    with pytest.raises(BackendError, match="rejected the model"):
        CpsatBackend(kind).search(hard)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("limit,keep", [(1, True), (2, True), (1000, False)])
def test_a_wrong_decoding_is_caught_by_the_checker(
    kind: CpsatModelKind, limit: int, keep: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = SudokuCpModel.decode_vector

    def wrong(self: SudokuCpModel, values: np.ndarray) -> np.ndarray:
        grid = original(self, values).copy()
        grid[0, 0], grid[0, 1] = grid[0, 1], grid[0, 0]  # swapping two cells breaks two columns
        return grid

    monkeypatch.setattr(SudokuCpModel, "decode_vector", wrong)
    with pytest.raises(BackendError, match="wrong solution"):
        CpsatBackend(kind).search(Grid.empty(Geometry(2, 2)), limit=limit, keep=keep)


def test_bool_decoding_leaves_a_cell_without_one_digit_empty() -> None:
    model = build_cpsat_model(Grid.empty(Geometry(2, 2)), CpsatModelKind.BOOL)
    values = np.zeros(64, dtype=np.int64)
    values[model.indices[:, 0]] = 1  # digit 1 everywhere
    values[model.indices[1, 1]] = 1  # and a second digit in R1C2
    values[model.indices[2, 0]] = 0  # and none in R1C3
    grid = model.decode_vector(values)
    assert grid[0].tolist() == [1, 0, 0, 1]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("p,q", [(2, 2), (2, 3), (3, 3), (4, 4)])
def test_model_sizes_follow_the_formulas(kind: CpsatModelKind, p: int, q: int) -> None:
    n = p * q
    rng = np.random.default_rng(n)
    values = np.where(rng.random((n, n)) < 0.3, pattern_grid(p, q), 0)
    puzzle = Grid(Geometry(p, q), values)
    g = puzzle.givens
    model = build_cpsat_model(puzzle, kind)
    if kind is CpsatModelKind.BOOL:
        expected = {"variables": n**3, "constraints": 4 * n * n + g, "occurrences": 4 * n**3 + g}
        families = {"cell": n * n, "row": n * n, "column": n * n, "box": n * n, "given": g}
    else:
        expected = {"variables": n * n, "constraints": 3 * n, "occurrences": 3 * n * n}
        families = {"row": n, "column": n, "box": n}
    assert proto_sizes(model) == expected
    sizes = model.sizes()
    assert {key: sizes.get(key, 0) for key in families} == families


def test_measured_sizes_in_the_specification_match_the_proto() -> None:
    rows = re.findall(
        r"^\| (bool|alldiff) \| (empty|hard) \| (\d+)x(\d+) \| (\d+) \| (\d+) \| (\d+) \|$",
        SPEC.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    assert len(rows) == 6
    for kind, grid, p, q, givens, variables, constraints in rows:
        geometry = Geometry(int(p), int(q))
        puzzle = parse_grid(HARD) if grid == "hard" else Grid.empty(geometry)
        assert puzzle.geometry == geometry and puzzle.givens == int(givens)
        sizes = proto_sizes(build_cpsat_model(puzzle, kind))
        measured = (sizes["variables"], sizes["constraints"])
        assert measured == (int(variables), int(constraints)), f"{kind} {grid} {p}x{q}"


@pytest.mark.parametrize("kind", KINDS)
def test_export_is_deterministic_readable_and_parses_back(hard: Grid, kind: CpsatModelKind) -> None:
    model = build_cpsat_model(hard, kind)
    text = export_cpsat_model(model)
    assert text == export_cpsat_model(build_cpsat_model(parse_grid(HARD), kind))
    first = "x_r1c1d1" if kind is CpsatModelKind.BOOL else "v_r1c1"
    assert f'name: "{first}"' in text and 'name: "row1' in text
    parsed = type(model.model.proto)()
    assert parsed.parse_text_format(text)
    assert len(parsed.variables) == len(model.model.proto.variables)
    assert len(parsed.constraints) == len(model.model.proto.constraints)


def test_alldiff_givens_are_one_value_domains(hard: Grid) -> None:
    model = build_cpsat_model(hard, "alldiff")
    domains = [list(var.domain) for var in model.model.proto.variables]
    assert domains[0] == [4, 4] and domains[1] == [1, 9]
    assert sum(low == high for low, high in domains) == hard.givens
