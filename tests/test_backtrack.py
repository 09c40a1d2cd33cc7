"""Backtracking search: counts equal DLX counts, time limits say unknown, the backend checks answers."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.api import count_solutions, solve
from sudoku_cp.backends.base import Status
from sudoku_cp.backends.dlx_backend import DlxBackend
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.formats import parse_grid
from sudoku_cp.generate import blank_cells, random_solution
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.native.backtrack import backtrack_search
from sudoku_cp.verify import solution_problem

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4)]
# Fewer blanks on bigger grids keep the counts (and DLX's time) small.
BLANKS = {4: (0.3, 1.0), 6: (0.3, 0.8), 8: (0.3, 0.65), 9: (0.3, 0.6), 12: (0.3, 0.5)}


@st.composite
def puzzles(draw: st.DrawFn) -> Grid:
    p, q = draw(st.sampled_from(SHAPES))
    low, high = BLANKS[p * q]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return blank_cells(random_solution(Geometry(p, q), rng), draw(st.floats(low, high)), rng)


def _sorted(grids: np.ndarray) -> list[bytes]:
    return sorted(grid.astype(np.int16).tobytes() for grid in grids)


@given(puzzles())
def test_counts_and_solutions_equal_dlx_on_random_puzzles(puzzle: Grid) -> None:
    ours = backtrack_search(puzzle, limit=200)
    theirs = DlxBackend().search(puzzle, limit=200)
    assert ours.count == theirs.count
    assert ours.complete == theirs.complete
    for grid in ours.solutions:
        assert solution_problem(puzzle, puzzle.with_values(grid)) is None
    if ours.complete:
        assert _sorted(ours.solutions) == _sorted(theirs.solutions)


def test_serg_counts_equal_dlx() -> None:
    """serg_100 puzzles all have several solutions: count every one."""
    dlx = DlxBackend()
    counts = []
    for line in read_lines(DATA / "serg_100.txt"):
        puzzle = parse_grid(line)
        ours = backtrack_search(puzzle, limit=100_000, keep=False)
        assert ours.complete
        assert ours.count == dlx.search(puzzle, limit=100_000, keep=False).count
        counts.append(ours.count)
    assert min(counts) >= 2


@pytest.mark.parametrize("name", ["norvig_top95.txt", "forum_hardest_200.txt", "clue17_100.txt"])
def test_unique_puzzles_have_one_solution_equal_to_dlx(name: str) -> None:
    dlx = DlxBackend()
    for line in read_lines(DATA / name, 60):
        puzzle = parse_grid(line)
        ours = backtrack_search(puzzle, limit=2)
        assert ours.complete and ours.count == 1
        assert np.array_equal(ours.solutions[0], dlx.search(puzzle).solutions[0])


def test_unsat_puzzle_undetected_by_propagation_is_exhausted() -> None:
    puzzle = parse_grid("..8....5.97.683....4....68...1.2.9...........69.5.4.2..1..4..7.8..1.....5........")
    found = backtrack_search(puzzle, limit=1)
    assert found.count == 0 and found.complete and found.nodes > 1
    assert DlxBackend().search(puzzle).count == 0


def test_time_limit_gives_unknown_never_no_solution() -> None:
    empty = Grid.empty(geometry_for_size(16))
    found = backtrack_search(empty, limit=10**15, time_limit=0.2, keep=False)
    assert found.timed_out and not found.complete and found.count > 0
    result = count_solutions(empty, make_backend("backtrack"), limit=10**15, time_limit=0.2)
    assert not result.exact and result.timed_out


def test_backend_solves_and_counts_through_the_api() -> None:
    backend = make_backend("backtrack")
    puzzle = parse_grid((DATA / "aiescargot.txt").read_text())
    result = solve(puzzle, backend, unique=True)
    assert result.status is Status.SOLVED and result.solution is not None
    assert solution_problem(puzzle, result.solution) is None
    assert count_solutions(parse_grid("123456" + "." * 30, box=(2, 3)), backend).count == 39168
    counted = backend.search(parse_grid("." * 16), limit=1000, keep=False)
    assert counted.count == 288 and counted.complete and counted.solutions.shape[0] == 0


def test_bigger_grids_solve() -> None:
    for name in ("inst16x16_45_0.txt", "inst25x25_45_0.txt"):
        puzzle = parse_grid((DATA / name).read_text())
        found = make_backend("backtrack").search(puzzle, limit=1, time_limit=60)
        assert found.count == 1
        assert solution_problem(puzzle, puzzle.with_values(found.solutions[0])) is None


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="limit"):
        backtrack_search(parse_grid("." * 16), limit=0)
