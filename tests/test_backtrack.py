"""The bitset search (``backtrack``): counts equal DLX and SAT counts, batches equal single puzzles,
every answer is checked, a stopped search is unknown and never "no solution"; the 9x9 kernel makes
the general kernel's search, and runs from saved machine code without numba."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.api import BackendOptions, count_solutions, solve, solve_items
from sudoku_cp.backends.backtrack_backend import BacktrackBackend
from sudoku_cp.backends.base import BackendError, Status
from sudoku_cp.backends.dlx_backend import DlxBackend
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.checker import solution_problem
from sudoku_cp.formats import PuzzleItem, parse_grid
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.native import backtrack, bitset9, machine_code
from sudoku_cp.native.backtrack import BatchRun, backtrack_search, search_batch
from sudoku_cp.native.kernels import ENTRY9_ARGUMENTS, RULE_LOCKED, RULE_SCORE, RULES_ALL
from sudoku_cp.outcome import REASON_TIME_LIMIT
from sudoku_cp.random_grids import blank_cells, random_solution

#: Every box shape up to 5x5 (p rows by q columns).
SHAPES = [(p, q) for p in range(1, 6) for q in range(1, 6) if p * q >= 2]
NINE = Geometry(3, 3)
UNSAT = "..8....5.97.683....4....68...1.2.9...........69.5.4.2..1..4..7.8..1.....5........"
SAMPLES = ["norvig_top95.txt", "forum_hardest_200.txt", "clue17_100.txt", "magictour_100.txt"]


def _blanks(n: int) -> float:
    """The largest share of blank cells a random puzzle of side n gets (DLX must count it quickly)."""
    return 1.0 if n <= 4 else 0.8 if n <= 6 else 0.6 if n <= 9 else 0.45 if n <= 12 else 0.3


@st.composite
def puzzles(draw: st.DrawFn) -> Grid:
    p, q = draw(st.sampled_from(SHAPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return blank_cells(random_solution(Geometry(p, q), rng), draw(st.floats(0.2, _blanks(p * q))), rng)


def _sorted(grids: np.ndarray) -> list[bytes]:
    return sorted(grid.astype(np.int16).tobytes() for grid in grids)


def _assert_checked(puzzle: Grid, grids: np.ndarray) -> None:
    for grid in grids:
        assert solution_problem(puzzle, puzzle.with_values(grid)) is None


@settings(max_examples=80)
@given(puzzles())
def test_counts_to_two_equal_dlx_and_sat_on_every_box_shape(puzzle: Grid) -> None:
    ours = BacktrackBackend().search(puzzle, limit=2)
    dlx = DlxBackend().search(puzzle, limit=2)
    sat = make_backend("pysat").search(puzzle, limit=2)
    assert ours.count == dlx.count == sat.count
    assert ours.complete == dlx.complete
    _assert_checked(puzzle, ours.solutions)


@settings(max_examples=40)
@given(puzzles().filter(lambda grid: grid.n <= 8))
def test_full_counts_and_solution_sets_equal_dlx_on_small_grids(puzzle: Grid) -> None:
    ours = backtrack_search(puzzle, limit=10_000)
    theirs = DlxBackend().search(puzzle, limit=10_000)
    assert (ours.count, ours.complete) == (theirs.count, theirs.complete)
    if ours.complete:
        assert _sorted(ours.solutions) == _sorted(theirs.solutions)


@pytest.mark.parametrize("name", SAMPLES)
def test_nine_by_nine_samples_unique_and_equal_to_dlx_as_one_batch(name: str) -> None:
    grids = [parse_grid(line) for line in read_lines(DATA / name, 60)]
    results = BacktrackBackend().search_many(grids, limit=2)
    dlx = DlxBackend()
    for grid, found in zip(grids, results, strict=True):
        assert found.complete and found.count == 1 and found.reason is None
        assert found.seconds is not None and found.seconds >= 0
        assert np.array_equal(found.solutions[0], dlx.search(grid).solutions[0])


@pytest.mark.parametrize("general", [False, True], ids=["9x9 kernel", "general kernel"])
def test_every_rule_setting_gives_the_same_answers(general: bool) -> None:
    grids = [parse_grid(line) for line in read_lines(DATA / "forum_hardest_200.txt", 40)]
    givens = np.stack([grid.values.reshape(-1) for grid in grids])
    runs = [
        search_batch(grids[0].geometry, givens, limit=2, rules=rules, general=general) for rules in range(4)
    ]
    for run in runs[1:]:
        assert np.array_equal(run.counts, runs[0].counts) and np.array_equal(run.solutions, runs[0].solutions)
    # Each rule cuts the search: locked candidates and scored guesses need fewer nodes.
    assert runs[3].nodes.sum() < runs[2].nodes.sum() < runs[0].nodes.sum()
    assert runs[1].nodes.sum() < runs[0].nodes.sum()


def test_multiple_solution_counts_equal_dlx() -> None:
    """serg_100 puzzles all have several solutions: count every one."""
    dlx = DlxBackend()
    grids = [parse_grid(line) for line in read_lines(DATA / "serg_100.txt", 40)]
    givens = np.stack([grid.values.reshape(-1) for grid in grids])
    run = search_batch(grids[0].geometry, givens, limit=100_000, keep=False)
    assert run.complete.all() and len(run.solutions) == 0
    assert run.counts.tolist() == [dlx.search(grid, limit=100_000, keep=False).count for grid in grids]
    assert run.counts.min() >= 2
    found = BacktrackBackend().search_many(grids, limit=2)
    assert all(answer.count == 2 and not answer.complete and answer.reason is None for answer in found)
    for grid, answer in zip(grids, found, strict=True):
        _assert_checked(grid, answer.solutions)
        assert not np.array_equal(answer.solutions[0], answer.solutions[1])


def test_batch_equals_one_by_one_across_geometries() -> None:
    rng = np.random.default_rng(7)
    grids = [
        blank_cells(random_solution(Geometry(p, q), rng), share, rng)
        for (p, q), share in [((3, 3), 0.7), ((2, 3), 0.8), ((3, 3), 0.75), ((2, 2), 1.0), ((4, 4), 0.25)]
    ]
    grids += [parse_grid(UNSAT), *(parse_grid(line) for line in read_lines(DATA / "serg_100.txt", 2))]
    backend = BacktrackBackend()
    for limit in (1, 2, 50):
        batch = backend.search_many(grids, limit=limit)
        for grid, one in zip(grids, batch, strict=True):
            alone = backend.search(grid, limit=limit)
            assert (one.count, one.complete, one.reason) == (alone.count, alone.complete, alone.reason)
            assert np.array_equal(one.solutions, alone.solutions)


def test_array_answers_hold_first_solutions_and_the_rest_apart() -> None:
    grids = [parse_grid(line) for line in read_lines(DATA / "serg_100.txt", 3)]
    grids.insert(1, parse_grid(UNSAT))
    values = np.stack([grid.values.reshape(-1) for grid in grids])
    found = BacktrackBackend().search_arrays(grids[0].geometry, values, limit=2)
    assert found.counts.tolist() == [2, 0, 2, 2] and found.complete.tolist() == [False, True, False, False]
    assert not found.solutions[1].any() and sorted(found.more) == [0, 2, 3] and not found.reasons
    for k in (0, 2, 3):
        pair = np.stack([found.solutions[k], found.more[k][0]]).reshape(2, 9, 9)
        _assert_checked(grids[k], pair)
        assert not np.array_equal(pair[0], pair[1])


def test_unsat_and_clashing_givens_are_exhausted_without_solution() -> None:
    unsat = parse_grid(UNSAT)
    found = backtrack_search(unsat, limit=2)
    assert found.count == 0 and found.complete and not found.timed_out
    assert DlxBackend().search(unsat).count == 0
    clash = parse_grid("11" + "." * 79)
    batch = BacktrackBackend().search_many([clash, unsat], limit=2)
    assert [(answer.count, answer.complete) for answer in batch] == [(0, True), (0, True)]
    # Through the API a clash is an invalid puzzle, an unsatisfiable one is unsat.
    items = [PuzzleItem(0, 1, clash), PuzzleItem(1, 2, unsat)]
    statuses = [result.status for result in solve_items(items, BackendOptions("backtrack"), unique=True)]
    assert statuses == [Status.INVALID, Status.UNSAT]


def test_backend_is_a_batch_backend_and_solves_files_through_the_api() -> None:
    backend = make_backend("backtrack")
    assert backend.batch_name == "backtrack" and backend.batches  # solve_items hands it big chunks
    lines = [line.split("\t")[-1] for line in read_lines(DATA / "named_hard.txt")]
    items = [PuzzleItem(k, k + 1, parse_grid(line)) for k, line in enumerate(lines)]
    results = list(solve_items(items, BackendOptions("backtrack"), unique=True, chunk=4))
    assert [result.index for result in results] == list(range(len(items)))
    for item, result in zip(items, results, strict=True):
        assert result.status is Status.SOLVED and result.solution is not None
        assert item.grid is not None and solution_problem(item.grid, result.solution) is None


def test_time_limit_gives_unknown_never_no_solution() -> None:
    empty = Grid.empty(geometry_for_size(16))
    found = backtrack_search(empty, limit=10**15, time_limit=0.2, keep=False)
    assert found.timed_out and not found.complete and found.count > 0
    result = count_solutions(empty, make_backend("backtrack"), limit=10**15, time_limit=0.2)
    assert not result.exact and result.timed_out and result.seconds < 1.0


def test_batch_time_limits_per_puzzle_and_for_the_whole_call() -> None:
    """Counting empty 16x16 grids never ends: each puzzle, or the whole call, stops at its limit."""
    empties = [Grid.empty(geometry_for_size(16))] * 3
    backend = BacktrackBackend()
    each = backend.search_many(empties, limit=10**12, time_limit=0.05)
    assert all(answer.timed_out and not answer.complete and answer.count > 0 for answer in each)
    deadline = Deadline(0.1)
    whole = backend.search_many([parse_grid(UNSAT), *empties], limit=10**12, time_limit=deadline)
    assert deadline.elapsed() < 1.0
    # The unsat puzzle's search ends before the deadline, but its claim is confirmed (by SAT on the
    # extended CNF) after the batch: when the empty grids have spent the deadline it stays unknown.
    first = whole[0]
    assert first.count == 0
    assert (first.complete, first.reason) == (True, None) or (
        not first.complete and first.reason is not None and "confirming" in first.reason
    ), first
    assert all(answer.reason == REASON_TIME_LIMIT and not answer.complete for answer in whole[1:])
    assert whole[1].count > 0 and whole[2].count == whole[3].count == 0  # the last two never started


def test_resumes_across_budgets_flushes_and_a_growing_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny chunks, a one-row solution buffer and a one-level stack give the same answers."""
    grids = [parse_grid(line) for line in read_lines(DATA / "forum_hardest_200.txt", 8)]
    grids.append(parse_grid((DATA / "inst16x16_45_0.txt").read_text()))
    expected = [backtrack_search(grid, limit=3) for grid in grids]
    monkeypatch.setattr(backtrack, "_STACK_LEVELS", 1)
    monkeypatch.setattr(backtrack, "_BUFFER_CELLS", 1)
    monkeypatch.setattr(backtrack, "_MIN_BUDGET", 1)
    monkeypatch.setattr(backtrack, "_MAX_BUDGET", 3)
    monkeypatch.setattr(backtrack, "first_budget", lambda geometry: 1)
    for grid, before in zip(grids, expected, strict=True):
        after = backtrack_search(grid, limit=3)
        assert (after.count, after.complete, after.nodes) == (before.count, before.complete, before.nodes)
        assert np.array_equal(after.solutions, before.solutions)


@pytest.mark.parametrize(
    "name",
    ["inst16x16_45_0.txt", "sudoku-25-1.txt", pytest.param("inst25x25_45_0.txt", marks=pytest.mark.slow)],
)
def test_bigger_grids_solve(name: str) -> None:
    puzzle = parse_grid((DATA / name).read_text())
    found = BacktrackBackend().search(puzzle, limit=1, time_limit=60)
    assert found.count == 1
    _assert_checked(puzzle, found.solutions)


def test_grids_beyond_sixty_four_are_refused() -> None:
    backend = BacktrackBackend()
    huge = Grid.empty(Geometry(5, 13))  # 65 x 65: beyond one uint64 per cell
    with pytest.raises(BackendError, match="64x64"):
        backend.search(huge)
    (failed,) = backend.search_many([huge])
    assert not failed.complete and failed.count == 0 and "64x64" in (failed.reason or "")


def test_a_wrong_solution_is_caught_before_it_is_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    def corrupt(*args: object, **kwargs: object) -> BatchRun:
        run = search_batch(*args, **kwargs)  # type: ignore[arg-type]
        run.solutions[:, 0] = run.solutions[:, 1]  # two equal digits in row 1
        return run

    monkeypatch.setattr("sudoku_cp.backends.backtrack_backend.search_batch", corrupt)
    grids = [parse_grid(line) for line in read_lines(DATA / "norvig_top95.txt", 3)]
    backend = BacktrackBackend()
    with pytest.raises(BackendError, match="wrong solution"):
        backend.search(grids[0])
    for answer in backend.search_many(grids):
        assert not answer.complete and answer.count == 0 and "wrong solution" in (answer.reason or "")


def test_solves_and_counts_through_the_api() -> None:
    backend = make_backend("backtrack")
    puzzle = parse_grid((DATA / "aiescargot.txt").read_text())
    result = solve(puzzle, backend, unique=True)
    assert result.status is Status.SOLVED and result.solution is not None
    assert solution_problem(puzzle, result.solution) is None
    assert count_solutions(parse_grid("123456" + "." * 30, box=(2, 3)), backend).count == 39168
    counted = backend.search(parse_grid("." * 16), limit=1000, keep=False)
    assert counted.count == 288 and counted.complete and counted.solutions.shape[0] == 0


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="limit"):
        backtrack_search(parse_grid("." * 16), limit=0)


def _givens(name: str, count: int | None = None) -> np.ndarray:
    """The first ``count`` puzzles of a sample file as a (B, 81) stack (a tab-separated name is dropped)."""
    lines = [line.split("\t")[-1] for line in read_lines(DATA / name, count)]
    return np.stack([parse_grid(line).values.reshape(-1) for line in lines])


def _both_kernels(givens: np.ndarray, limit: int, rules: int = RULES_ALL) -> tuple[BatchRun, BatchRun]:
    """The 9x9 kernel's run and the general kernel's on the same 9x9 puzzles."""
    nine, general = (
        search_batch(Geometry(3, 3), givens, limit=limit, rules=rules, general=flag) for flag in (False, True)
    )
    return nine, general


def _assert_same_search(nine: BatchRun, general: BatchRun) -> None:
    """Same counts, completeness and solutions in the same order: the same search (and the same nodes)."""
    assert np.array_equal(nine.counts, general.counts) and np.array_equal(nine.complete, general.complete)
    assert np.array_equal(nine.owner, general.owner) and np.array_equal(nine.solutions, general.solutions)
    assert np.array_equal(nine.nodes, general.nodes)


@pytest.mark.parametrize("name", [*SAMPLES, "serg_100.txt", "named_hard.txt"])
def test_nine_by_nine_kernel_makes_the_general_kernels_search_on_the_samples(name: str) -> None:
    """Both kernels reach the same fixed points and guess alike: equal answers and equal node counts."""
    givens = _givens(name, 60)
    for limit in (1, 2):
        _assert_same_search(*_both_kernels(givens, limit))


@st.composite
def nine_by_nine(draw: st.DrawFn) -> np.ndarray:
    """A 9x9 puzzle: a random solution's cells kept at random (from none to most), maybe spoiled."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    solution = random_solution(Geometry(3, 3), rng)
    puzzle = blank_cells(solution, draw(st.floats(0.3, 1.0)), rng).values.reshape(-1).copy()
    if draw(st.booleans()):  # a wrong digit in a given: often unsatisfiable, sometimes clashing
        given = np.flatnonzero(puzzle)
        if len(given):
            puzzle[rng.choice(given)] = rng.integers(1, 10)
    return puzzle


@settings(max_examples=60)
@given(st.lists(nine_by_nine(), min_size=1, max_size=6), st.sampled_from([1, 2, 7, 300]))
def test_nine_by_nine_kernel_agrees_with_the_general_kernel_on_random_puzzles(
    puzzles: list[np.ndarray], limit: int
) -> None:
    """Unique, multi-solution, unsatisfiable and clashing puzzles, counted to 1, 2 and further."""
    _assert_same_search(*_both_kernels(np.stack(puzzles), limit))


def test_nine_by_nine_kernel_counts_many_solutions_like_the_general_kernel() -> None:
    """Fewer givens: hundreds of solutions, each found once, in the same order by both kernels."""
    givens = _givens("serg_100.txt", 3)
    givens[:, 40:] = 0
    nine, general = _both_kernels(givens, 5000)
    _assert_same_search(nine, general)
    assert (nine.counts > 100).all()
    for k, puzzle in enumerate(givens):
        grids = nine.solutions[nine.owner == k]
        _assert_checked(Grid(Geometry(3, 3), puzzle.reshape(9, 9)), grids.reshape(-1, 9, 9))
        assert len({grid.tobytes() for grid in grids}) == len(grids)


@pytest.mark.parametrize("rules", [0, RULE_LOCKED, RULE_SCORE])
def test_nine_by_nine_kernel_follows_the_rule_flags_to_the_same_answers(rules: int) -> None:
    """Without some rule the 9x9 kernel still counts right (its search differs from the general one's)."""
    nine, general = _both_kernels(_givens("norvig_top95.txt", 30), 2, rules)
    assert np.array_equal(nine.counts, general.counts) and np.array_equal(nine.complete, general.complete)
    assert np.array_equal(nine.solutions, general.solutions)  # unique puzzles: the one solution each


def _run_with(
    kernel: Callable[..., int],
    givens: np.ndarray,
    limit: int,
    geometry: Geometry = NINE,
    general: bool = False,
) -> BatchRun:
    """``search_batch`` with the given kernel: the 9x9 one, or with ``general`` the general one."""
    tables = backtrack._tables(geometry) if general else backtrack._tables9()
    work = (lambda levels: backtrack._work(geometry, levels)) if general else backtrack._work9
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(backtrack, "_kernel", lambda geometry, general: (kernel, tables, work))
        return search_batch(geometry, givens, limit=limit)


def test_nine_by_nine_kernel_from_machine_code_equals_numbas() -> None:
    """The saved machine code and numba's compiled kernel are the same kernel."""
    saved, compiled = backtrack._kernel9(), backtrack._kernel9(saved=False)
    assert saved is not compiled
    givens = _givens("forum_hardest_200.txt", 30)
    for limit in (1, 2):
        _assert_same_search(_run_with(saved, givens, limit), _run_with(compiled, givens, limit))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3), (4, 4), (1, 4), (3, 5)])
def test_general_kernel_from_machine_code_equals_numbas(shape: tuple[int, int]) -> None:
    saved, compiled = backtrack._general_kernel(), backtrack._general_kernel(saved=False)
    assert saved is not compiled
    geometry = Geometry(*shape)
    rng = np.random.default_rng(5)
    share = {9: 0.6, 6: 0.7, 16: 0.3, 4: 1.0, 15: 0.35}[geometry.n]
    puzzles = [blank_cells(random_solution(geometry, rng), share, rng) for _ in range(6)]
    givens = np.stack([puzzle.values.reshape(-1) for puzzle in puzzles])
    for limit in (1, 2, 40):
        one, other = (
            _run_with(kernel, givens, limit, geometry, general=True) for kernel in (saved, compiled)
        )
        _assert_same_search(one, other)


def test_unusable_machine_code_falls_back_to_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object) -> None:
        raise machine_code.MachineCodeError("for another processor")

    monkeypatch.setattr(machine_code, "load", fail)
    assert backtrack._kernel9.__wrapped__() is backtrack._kernel9(saved=False)
    assert backtrack._general_kernel.__wrapped__() is backtrack._general_kernel(saved=False)


def test_a_search_imports_no_numba() -> None:
    """Start-up: a batch runs the saved machine code, 9x9 or not; numba is never imported."""
    backtrack._kernel9(), backtrack._general_kernel()  # saved by now, if they were not
    code = (
        "import sys, numpy as np\n"
        "from sudoku_cp.geometry import Geometry\n"
        "from sudoku_cp.native.backtrack import search_batch\n"
        f"givens = np.array([{parse_grid(UNSAT).values.reshape(-1).tolist()}])\n"
        "run = search_batch(Geometry(3, 3), givens, limit=2)\n"
        "assert run.complete[0] and run.counts[0] == 0\n"
        "run = search_batch(Geometry(4, 4), np.zeros((1, 256), np.int8), limit=3)\n"
        "assert run.counts[0] == 3\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('numba', 'scipy')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_damaged_or_missing_machine_code_is_built_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(machine_code, "_loaded", {})
    givens = _givens("norvig_top95.txt", 5)
    expected = search_batch(Geometry(3, 3), givens, limit=2)
    builds = []

    def build() -> tuple[bytes, str, list[str]]:
        builds.append(1)
        return bitset9.entry_object()

    def load() -> int:
        """Load (or build) the kernel and search with it; the builds so far."""
        sources = [Path(backtrack.__file__).with_name("kernels.py")]
        entry = machine_code.load("test", sources, build, ENTRY9_ARGUMENTS)
        machine_code._loaded.clear()
        _assert_same_search(_run_with(backtrack._through(entry, ENTRY9_ARGUMENTS), givens, 2), expected)
        return len(builds)

    assert load() == 1
    (saved,) = tmp_path.glob("test-*.o")
    assert load() == 1  # read back, not built
    saved.write_bytes(saved.read_bytes()[:-100])
    assert load() == 2  # damaged: built again
    assert load() == 2
