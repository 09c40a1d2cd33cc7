"""Every backend agrees with every other: counts of known grids, real corpora, random puzzles."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import numpy as np
import pytest
from conftest import DATA, corpus_sample, read_lines, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.api import BackendOptions, count_solutions, solve, solve_items
from sudoku_cp.backends.base import Backend, BackendError, OneByOne, SearchResult, Status
from sudoku_cp.backends.pysat_backend import IncrementalPysat
from sudoku_cp.backends.registry import backend_name, make_backend
from sudoku_cp.formats import format_line, parse_grid, parse_puzzles
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import REASON_TIME_LIMIT
from sudoku_cp.random_grids import random_puzzle

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _program(command: str) -> Callable[[], Backend]:
    def make() -> Backend:
        if shutil.which(command.split()[0]) is None:
            pytest.skip(f"solver program {command.split()[0]} is not installed")
        return make_backend(solver_cmd=command)

    return make


FAST_BACKENDS: dict[str, Callable[[], Backend]] = {
    "pysat:cadical195": lambda: make_backend("pysat"),
    "pysat:minisat22": lambda: make_backend("pysat:minisat22"),
    "pysat:glucose4:extended": lambda: make_backend("pysat:glucose4", encoding="extended"),
    "pysat:minimal:seqcounter": lambda: make_backend(
        "pysat:cadical153", encoding="minimal", amo="seqcounter"
    ),
    "cpsat": lambda: make_backend("cpsat"),
    "cpsat:alldiff": lambda: make_backend("cpsat:alldiff"),
    "dlx": lambda: make_backend("dlx"),
}
PROGRAMS: dict[str, Callable[[], Backend]] = {
    "program:cadical": _program("cadical -q"),
    "program:minisat": _program("minisat"),
}
ALL_BACKENDS = {**FAST_BACKENDS, **PROGRAMS}


@pytest.mark.parametrize("name", ALL_BACKENDS)
def test_empty_4x4_grid_has_288_solutions(name: str) -> None:
    backend = ALL_BACKENDS[name]()
    found = backend.search(Grid.empty(Geometry(2, 2)), limit=1000, keep=True)
    assert found.complete and found.count == 288
    assert len({s.tobytes() for s in found.solutions}) == 288


# Counting 39,168 solutions takes seconds on every backend but dlx: those cases run with -m slow.
@pytest.mark.parametrize(
    "name", [name if name == "dlx" else pytest.param(name, marks=pytest.mark.slow) for name in FAST_BACKENDS]
)
def test_6x6_grid_with_first_row_fixed_has_39168_solutions(name: str) -> None:
    puzzle = parse_grid("123456" + "." * 30, box=(2, 3))
    result = count_solutions(puzzle, FAST_BACKENDS[name](), limit=100_000)
    assert result.exact and result.count == 39_168


@pytest.mark.slow
@pytest.mark.parametrize("name", PROGRAMS)
def test_solver_programs_count_6x6_too(name: str) -> None:
    # A solver program runs once per solution, each run on the CNF plus one blocking clause per
    # solution found so far: 39,168 runs with up to 39,168 blocking clauses do not finish in any
    # reasonable time, so the programs count a 6x6 grid with 13 cells given (352 solutions).
    puzzle = parse_grid("1234564561232" + "." * 23, box=(2, 3))
    assert count_solutions(puzzle, "dlx", limit=100_000).count == 352
    assert count_solutions(puzzle, PROGRAMS[name](), limit=100_000).count == 352


@pytest.mark.parametrize("name", ALL_BACKENDS)
def test_hard_puzzle_is_solved_uniquely(name: str) -> None:
    result = solve(parse_grid(HARD), ALL_BACKENDS[name](), unique=True)
    assert result.status is Status.SOLVED
    assert result.solution is not None and result.solution.is_complete


def _counts(backend: Backend, puzzles: list[Grid], limit: int = 2) -> list[int]:
    return [backend.search(p, limit=limit, keep=False).count for p in puzzles]


CORPORA = {
    "top95": ("norvig_top95.txt", 1),
    "hardest": ("norvig_hardest.txt", 1),
    "forum_hardest_200": ("forum_hardest_200.txt", 1),
    "serg_100": ("serg_100.txt", 2),
    "clue17_100": ("clue17_100.txt", 1),
}


@pytest.mark.parametrize(
    "corpus",  # the 200 forum-hardest puzzles on every backend: the slow stage
    [pytest.param(c, marks=pytest.mark.slow) if c == "forum_hardest_200" else c for c in CORPORA],
)
@pytest.mark.parametrize("name", FAST_BACKENDS)
def test_backends_agree_on_9x9_corpora(corpus: str, name: str) -> None:
    file, expected = CORPORA[corpus]
    puzzles = [parse_grid(line) for line in read_lines(DATA / file)]
    counts = _counts(FAST_BACKENDS[name](), puzzles)
    assert counts == [expected] * len(puzzles)


@pytest.mark.parametrize("name", PROGRAMS)
def test_solver_programs_agree_on_hardest(name: str) -> None:
    puzzles = [parse_grid(line) for line in read_lines(DATA / "norvig_hardest.txt")]
    assert _counts(PROGRAMS[name](), puzzles) == [1] * len(puzzles)


def test_incremental_batch_agrees_with_fresh_solvers_on_multi_solution_puzzles() -> None:
    lines = read_lines(DATA / "serg_100.txt", 40) + read_lines(DATA / "norvig_top95.txt", 40)
    puzzles = [parse_grid(line) for line in lines]
    fresh = _counts(make_backend("pysat"), puzzles, limit=5)
    with IncrementalPysat(geometry_for_size(9)) as inc:
        shared = [inc.search(p, limit=5, keep=False).count for p in puzzles]
    assert shared == fresh
    assert sum(c > 1 for c in fresh) == 40


@pytest.mark.parametrize("name", ["pysat:cadical195", "cpsat", "dlx"])
def test_backends_agree_on_ant_colony_16x16_and_25x25_instances(name: str) -> None:
    backend = FAST_BACKENDS[name]()
    for file in ("inst16x16_45_0.txt", "inst25x25_45_0.txt", "sudoku-25-1.txt"):
        puzzle = parse_grid((DATA / file).read_text())
        reference = make_backend("pysat").search(puzzle, limit=2, time_limit=60)
        assert reference.count >= 1
        if name == "dlx" and file == "sudoku-25-1.txt":
            # Plain Algorithm X needs far more than a test's budget here (SAT needs 69 conflicts):
            # it must then say unknown, never "no solution" and never a wrong count.
            found = backend.search(puzzle, limit=2, time_limit=3)
            assert found.count == reference.count or (found.timed_out and not found.complete)
            continue
        found = backend.search(puzzle, limit=2, time_limit=60)
        assert found.count == reference.count


SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)]


@settings(max_examples=25)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.floats(0.35, 0.85))
def test_backends_agree_on_random_puzzles_of_every_box_shape(
    shape: tuple[int, int], seed: int, blank: float
) -> None:
    puzzle = random_puzzle(Geometry(*shape), blank, np.random.default_rng(seed))
    counts = {name: make().search(puzzle, limit=3, keep=False).count for name, make in FAST_BACKENDS.items()}
    assert len(set(counts.values())) == 1, counts


def test_batch_result_statuses_cover_invalid_unsat_multiple_and_solved() -> None:
    solved = HARD
    clash = "44" + HARD[2:]
    # No equal givens in a unit, yet R1C9 must be 9 by its row while column 9 already has a 9.
    unsat = "12345678." + "........9" + "." * 63
    multiple = "." * 81
    text = "\n".join([solved, clash, unsat, multiple, HARD[:-1]]) + "\n"
    items = parse_puzzles(text)
    results = list(solve_items(items, BackendOptions(), unique=True))
    assert [r.status for r in results] == [
        Status.SOLVED,
        Status.INVALID,
        Status.UNSAT,
        Status.MULTIPLE,
        Status.INVALID,
    ]
    assert results[1].error == "R1C1 and R1C2 both hold 4 in row 1"


@pytest.mark.parametrize("jobs", [1, 2])
def test_batch_keeps_order_and_loses_no_item(jobs: int) -> None:
    lines = read_lines(DATA / "forum_hardest_200.txt", 150)
    lines[17] = "bad line"
    items = parse_puzzles("\n".join(lines) + "\n")
    results = list(
        solve_items(items, BackendOptions("cpsat") if jobs == 1 else BackendOptions(), jobs=jobs, chunk=16)
    )
    assert [r.index for r in results] == list(range(150))
    assert results[17].status is Status.INVALID
    assert sum(r.status is Status.SOLVED for r in results) == 149


@pytest.mark.parametrize("backend", ["pysat", "pysat:cadical195", "pysat:glucose4"])
def test_batch_engine_agrees_with_fresh_solvers(backend: str) -> None:
    lines = read_lines(DATA / "serg_100.txt", 30) + read_lines(DATA / "forum_hardest_200.txt", 30)
    lines += [format_line(parse_grid((DATA / "inst16x16_45_0.txt").read_text()))]
    items = parse_puzzles("\n".join(lines) + "\n")
    puzzles = [item.grid for item in items if item.grid is not None]
    assert len(puzzles) == 61
    results = list(solve_items(items, BackendOptions(backend), unique=True, chunk=16))
    expected = _counts(make_backend("pysat"), puzzles)
    got = [{Status.SOLVED: 1, Status.MULTIPLE: 2}[r.status] for r in results]
    assert got == expected
    for result, puzzle in zip(results, puzzles, strict=True):
        assert result.solution is not None and result.solution.geometry == puzzle.geometry


def test_batch_engine_names_the_solver_it_uses() -> None:
    assert BackendOptions().name == "pysat:minicard"
    assert BackendOptions("pysat:glucose4").name == "pysat:glucose4"
    assert BackendOptions(encoding="extended").name == "pysat:cadical195"
    assert BackendOptions("cpsat").name == "cpsat"


@pytest.mark.parametrize(
    "spec",
    [
        "pysat",
        "pysat:glucose4",
        "cpsat",
        "cpsat:bool",
        "cpsat:alldiff",
        "dlx",
        "backtrack",
        "acs",
        "hill",
        "ils",
    ],
)
@pytest.mark.parametrize("encoding", [None, "extended"])
def test_backend_names_are_known_without_making_the_backend(spec: str, encoding: str | None) -> None:
    backend = make_backend(spec, encoding=encoding)
    assert backend_name(spec, encoding=encoding) == backend.name
    assert backend_name(spec, encoding=encoding, batch=True) == backend.batch_name
    assert backend_name(solver_cmd="minisat") == make_backend(solver_cmd="minisat").name


def test_plain_pysat_solves_batches_and_chosen_encodings_solve_one_by_one() -> None:
    assert make_backend("pysat").batches
    assert make_backend("pysat:glucose4", amo="seqcounter").batches
    assert not make_backend("pysat", encoding="extended").batches
    assert not make_backend("cpsat").batches


def test_search_many_answers_each_puzzle_in_order_with_its_time() -> None:
    clash = parse_grid("44" + HARD[2:])
    backend = make_backend("pysat")
    found = backend.search_many([parse_grid(HARD), clash, parse_grid("." * 81)], limit=2)
    assert [(r.count, r.complete, r.reason) for r in found] == [
        (1, True, None),
        (0, True, None),
        (2, False, None),
    ]
    assert all(r.seconds is not None and r.seconds >= 0 for r in found)


def test_a_batch_makes_its_backend_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    make = BackendOptions.make

    def counted(self: BackendOptions) -> Backend:
        made.append(self.backend)
        return make(self)

    monkeypatch.setattr(BackendOptions, "make", counted)
    items = parse_puzzles("\n".join(read_lines(DATA / "forum_hardest_200.txt", 40)) + "\n")
    for options in (BackendOptions(), BackendOptions("cpsat")):
        made.clear()
        assert BackendOptions().name == "pysat:minicard" and not made
        results = list(solve_items(items, options, chunk=8))
        assert len(results) == 40 and made == [options.backend]


def test_count_result_says_why_it_stopped() -> None:
    empty16 = Grid.empty(geometry_for_size(16))
    timed = count_solutions(empty16, "dlx", limit=10**9, time_limit=0.05)
    assert timed.reason == REASON_TIME_LIMIT and timed.timed_out and not timed.exact
    capped = count_solutions(Grid.empty(Geometry(2, 2)), "dlx", limit=10)
    assert (capped.count, capped.exact, capped.reason, capped.timed_out) == (10, False, None, False)


def test_batch_engine_time_limit_gives_unknown_never_unsat() -> None:
    hard25 = format_line(parse_grid((DATA / "sudoku-25-1.txt").read_text()))  # not solved by propagation
    items = parse_puzzles(hard25 + "\n" + HARD + "\n")
    results = list(solve_items(items, BackendOptions(), unique=True, time_limit=1e-6))
    assert results[0].status is Status.UNKNOWN and "time limit" in (results[0].error or "")
    assert results[1].status in (Status.SOLVED, Status.UNKNOWN)


def test_batch_engine_reports_a_wrong_answer_as_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.backends.pysat_batch import BatchPysat

    def liar(
        compact: object, todo: np.ndarray, values: np.ndarray, models: object
    ) -> tuple[np.ndarray, np.ndarray]:
        stack = np.where(values[todo] == 0, 1, values[todo])
        return stack, todo.astype(np.int64)

    monkeypatch.setattr(BatchPysat, "_decode", staticmethod(liar))
    # A puzzle that singles and locked candidates leave open, so the batch calls the solver.
    open_puzzle = "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6"
    results = list(solve_items(parse_puzzles(open_puzzle + "\n" + open_puzzle + "\n"), BackendOptions()))
    assert [r.status for r in results] == [Status.UNKNOWN, Status.UNKNOWN]
    assert "wrong solution" in (results[0].error or "")


@pytest.mark.parametrize("name", ["pysat:cadical195", "pysat:minisat22", "cpsat", "dlx"])
def test_time_limit_gives_unknown_never_no_solution(name: str) -> None:
    backend = FAST_BACKENDS[name]()
    found = backend.search(Grid.empty(geometry_for_size(16)), limit=10**9, time_limit=0.3, keep=False)
    assert found.timed_out and not found.complete and found.count >= 0
    result = count_solutions(Grid.empty(geometry_for_size(16)), backend, limit=10**9, time_limit=0.3)
    assert not result.exact


class _LyingBackend(OneByOne):
    """Returns the givens' grid with every empty cell set to 1: never a solution."""

    name = "liar"

    def search_one(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> SearchResult:
        values = np.where(puzzle.values == 0, 1, puzzle.values)[None]
        return SearchResult(values, True)


def test_a_wrong_answer_is_caught_before_it_is_returned() -> None:
    with pytest.raises(BackendError, match="liar returned a wrong solution"):
        _LyingBackend().search(parse_grid(HARD))
    result = solve(parse_grid(HARD), _LyingBackend())
    assert result.status is Status.UNKNOWN and "wrong solution" in (result.error or "")


def test_unknown_backend_names_are_rejected() -> None:
    with pytest.raises(BackendError, match="unknown backend"):
        make_backend("nosuch")
    with pytest.raises(BackendError, match="unknown pysat solver"):
        make_backend("pysat:nosuch")


@pytest.mark.slow
@pytest.mark.parametrize(
    "file",
    [
        "sudoku9/norvig_top95.txt",
        "sudoku9/euler96_easy50.txt",
        "sudoku9/plb_hard20.txt",
        "sudoku9/tdoku_magictour_top1465.txt",
        "sudoku9/tdoku_forum_hardest_1905_11plus_every5th.txt",
        "sudoku9/sudoku_exchange_diabolical_10k.txt",
        "sudoku9/tdoku_serg_benchmark.txt",
    ],
)
def test_all_backends_agree_on_whole_shared_9x9_corpora(file: str) -> None:
    items = corpus_sample(parse_puzzles(shared_file(file).read_text()))
    puzzles = [item.grid for item in items if item.grid is not None]
    assert len(puzzles) == len(items)
    reference = _counts(make_backend("pysat"), puzzles)
    for name in ("pysat:minisat22", "cpsat", "dlx"):
        assert _counts(FAST_BACKENDS[name](), puzzles) == reference, name


def test_peer_sums_equal_the_sums_over_the_peer_table() -> None:
    from sudoku_cp.backends.pysat_batch import _peer_sums

    rng = np.random.default_rng(0)
    for shape in [(2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (2, 5), (5, 5)]:
        g = Geometry(*shape)
        counts = rng.integers(0, g.n + 1, size=(4, g.n * g.n))
        peers = g.peers()
        assert peers.shape[1] == 3 * g.n - g.p - g.q - 1
        assert (_peer_sums(g, counts) == counts[:, peers].sum(axis=2)).all()


def test_a_shared_deadline_is_one_budget_for_a_whole_batch() -> None:
    from sudoku_cp.limits import Deadline

    hard25 = format_line(parse_grid((DATA / "sudoku-25-1.txt").read_text()))
    items = parse_puzzles("\n".join([hard25] * 3) + "\n")
    results = list(solve_items(items, BackendOptions(), time_limit=Deadline(0.0)))
    assert [r.status for r in results] == [Status.UNKNOWN] * 3
    results = list(solve_items(items, BackendOptions(), time_limit=Deadline(60)))
    assert [r.status for r in results] == [Status.SOLVED] * 3
