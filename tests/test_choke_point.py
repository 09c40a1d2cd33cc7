"""Issue 24.7: one table of backends, one signature, one place where answers are checked and decided.

* the table (``backends.registry.TABLE``) yields the names, the command line's help and each
  backend's completeness; a backend registered in a test is made, named and helped like the others;
* every backend answers through ``Backend.solve_arrays``; what it answers passes the checker in
  one place (``Backend.search_arrays``) before ``api`` decides statuses: a wrong solution is never
  shown, a forgotten puzzle is unknown;
* digits are range-checked before any cast (65537 is not 1);
* the DAG's batch closures and counts honour a time limit (unknown, never a number).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from sudoku_cp.api import BackendOptions, IncompleteSearchError, count_solutions, solve, solve_items
from sudoku_cp.backends import registry
from sudoku_cp.backends.base import Backend, BackendError, BatchAnswers, OneByOne, SearchResult
from sudoku_cp.backends.registry import (
    BACKEND_NAMES,
    TABLE,
    BackendEntry,
    backend_name,
    backends_help,
    is_complete,
    make_backend,
)
from sudoku_cp.formats import parse_grid, parse_puzzles
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import Status

EXPECTED_NAMES = (
    "pysat",
    "pysat:<solver>",
    "cpsat",
    "cpsat:alldiff",
    "dlx",
    "backtrack",
    "acs",
    "acs:<settings>",
    "hill",
    "hill:<settings>",
    "ils",
    "ils:<settings>",
)


# --- the table -------------------------------------------------------------------------------


def test_the_table_yields_the_names_in_their_order() -> None:
    assert BACKEND_NAMES == EXPECTED_NAMES
    assert registry.backend_names() == EXPECTED_NAMES
    assert tuple(form for entry in TABLE.values() for form in entry.forms) == BACKEND_NAMES


def test_the_table_yields_completeness() -> None:
    assert {family for family, entry in TABLE.items() if not entry.complete} == {"acs", "hill", "ils"}
    for spec in ("acs", "hill", "ils"):
        assert not is_complete(make_backend(spec)) and not is_complete(spec)
    for spec in ("pysat", "pysat:glucose4", "cpsat", "cpsat:alldiff", "dlx", "backtrack"):
        assert is_complete(make_backend(spec)) and is_complete(spec)
    assert not is_complete("nosuch")  # unknown families prove nothing


def test_the_table_yields_the_help_of_solve_and_of_the_program() -> None:
    text = backends_help()
    for entry in TABLE.values():
        for form, _ in entry.help:
            assert f"\n  {form} " in text or f"\n  {form}\n" in text
    shown = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "solve", "--help"], capture_output=True, text=True, check=True
    ).stdout
    words = " ".join(shown.split())
    assert "backends (--backend):" in shown and "--solver-cmd CMD" in shown
    assert "ant colony system" in words and "iterated local search" in words
    assert ", ".join(BACKEND_NAMES) in words  # --backend's own help lists them
    assert words.count("[incomplete") == 3


def test_every_name_and_option_makes_its_backend() -> None:
    assert make_backend("pysat:glucose4").name == "pysat:glucose4"
    assert make_backend("acs:bve=0,ants=20").name == "acs"
    assert make_backend("cpsat:alldiff").name == "cpsat:alldiff"
    assert make_backend(solver_cmd="minisat", trust_solver=True).name == "program:minisat"
    assert backend_name("pysat", batch=True) == "pysat:minicard"
    assert backend_name("pysat", batch=True, side=25) == "pysat:cadical195"
    assert backend_name(solver_cmd="kissat") == "program:kissat"
    for bad in ("nosuch", "dlx:x", "cpsat:nosuch", "program"):
        with pytest.raises(BackendError):
            make_backend(bad)


# --- one signature, one choke point ----------------------------------------------------------

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"


def _row(text: str) -> np.ndarray:
    return np.array([int(c) if c != "." else 0 for c in text], dtype=np.int16)


class _Answering(Backend):
    """A fake batch engine: answers every puzzle with ``grid`` (a row of digits), complete."""

    name = "fake"

    def __init__(self, grid: np.ndarray, forget: bool = False, complete: bool = True) -> None:
        self.grid, self.forget, self.is_complete = grid, forget, complete

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: object = None,
        keep: bool = True,
    ) -> BatchAnswers:
        size = len(values) - self.forget  # a forgetful engine answers one puzzle fewer
        return BatchAnswers(
            geometry,
            np.repeat(self.grid.reshape(1, -1), size, axis=0),
            np.ones(size, np.int64),
            np.full(size, self.is_complete),
            np.zeros(size),
        )


@pytest.fixture
def fake_family() -> object:
    """The fake engine registered in the table as 'fake' (its grid: a wrong one by default)."""
    wrong = _row(SOLUTION)
    wrong[[1, 2]] = wrong[[2, 1]]  # two digits swapped: rows hold, columns do not
    entry = BackendEntry(
        "fake", ("fake",), True, (("fake", "a test's engine"),), lambda v, o: _Answering(wrong)
    )
    registry.register(entry)
    yield entry
    del TABLE["fake"]


def test_a_registered_backend_is_named_made_and_helped(fake_family: object) -> None:
    assert "fake" in registry.backend_names() and "fake" not in BACKEND_NAMES
    assert "a test's engine" in backends_help() and is_complete("fake")
    assert backend_name("fake") == "fake"


def test_a_wrong_solution_from_a_registered_backend_is_never_shown(fake_family: object) -> None:
    results = list(solve_items(parse_puzzles(PUZZLE + "\n" + PUZZLE + "\n"), BackendOptions("fake")))
    assert [r.status for r in results] == [Status.UNKNOWN, Status.UNKNOWN]
    assert all(r.solution is None and "wrong solution" in (r.error or "") for r in results)
    single = solve(parse_grid(PUZZLE), "fake", unique=True)
    assert single.status is Status.UNKNOWN and single.solution is None
    with pytest.raises(BackendError, match="wrong solution"):
        make_backend("fake").search(parse_grid(PUZZLE))


def test_a_solution_out_of_range_is_not_wrapped_into_a_digit() -> None:
    sneaky = _row(SOLUTION).astype(np.int64)
    sneaky[1] += 65536  # 1 + 65536 = 65537: an int16 cast would make it 1 again
    found = _Answering(sneaky).search_arrays(Geometry(3, 3), _row(PUZZLE).reshape(1, -1))
    assert found.counts.tolist() == [0] and not found.complete[0]
    assert "wrong solution" in found.errors[0]
    assert _Answering(_row(SOLUTION)).search_arrays(Geometry(3, 3), _row(PUZZLE)[None]).counts.tolist() == [1]


def test_a_batch_backend_that_forgets_a_puzzle_gives_unknown_never_unsat() -> None:
    backend = _Answering(_row(SOLUTION), forget=True)
    found = backend.search_arrays(Geometry(3, 3), np.stack([_row(PUZZLE)] * 3))
    assert found.counts.tolist() == [0, 0, 0] and not found.complete.any()
    assert "answered 2 of 3 puzzles" in found.errors[0]
    results = [
        r.status for r in solve_items(parse_puzzles((PUZZLE + "\n") * 3), BackendOptions(), unique=False)
    ]
    assert results == [Status.SOLVED] * 3  # the real one is fine
    from sudoku_cp import api

    chunk = api._solve_chunk(parse_puzzles((PUZZLE + "\n") * 3), backend, False, None)
    assert [r.status for r in chunk] == [Status.UNKNOWN] * 3


def test_an_engine_silent_on_a_puzzle_is_undecided_with_a_reason() -> None:
    class Silent(Backend):
        name = "silent"

        def solve_arrays(self, geometry, values, limit=1, time_limit=None, keep=True):  # type: ignore[no-untyped-def]
            size = len(values)
            return BatchAnswers(
                geometry, np.zeros((size, geometry.n**2), np.int16), np.zeros(size, np.int64),
                np.zeros(size, bool), np.zeros(size),
            )  # fmt: skip

    result = solve(parse_grid(PUZZLE), Silent())
    assert result.status is Status.UNKNOWN and "undecided" in (result.error or "")


def test_a_backend_may_not_redefine_the_checked_entry_points() -> None:
    with pytest.raises(TypeError, match="redefines search"):

        class Sneaky(OneByOne):  # noqa: F841
            name = "sneaky"

            def search_one(
                self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool
            ) -> SearchResult:
                raise NotImplementedError

            def search(self, *args: object, **kwargs: object) -> SearchResult:  # type: ignore[override]
                raise NotImplementedError


def test_an_object_that_is_no_backend_is_refused_by_the_api() -> None:
    class Duck:
        name = "duck"

        def search_arrays(self, *args: object) -> None:
            raise AssertionError("never called")

    with pytest.raises(BackendError, match="not a sudoku_cp Backend"):
        solve(parse_grid(PUZZLE), Duck())  # type: ignore[arg-type]


def test_counting_with_an_incomplete_family_is_refused_by_the_table() -> None:
    with pytest.raises(IncompleteSearchError):
        count_solutions(parse_grid(PUZZLE), "hill")


# --- digits range-checked before any cast ------------------------------------------------------


@pytest.mark.parametrize("bad", [65537, -1, 10, -65535])
def test_grid_and_search_arrays_check_the_range_before_the_cast(bad: int) -> None:
    values = _row(PUZZLE).astype(np.int64)
    values[1] = bad  # 65537 and -65535 are 1 as int16
    with pytest.raises(ValueError):
        Grid(Geometry(3, 3), values)
    with pytest.raises(ValueError):
        make_backend("dlx").search_arrays(Geometry(3, 3), values.reshape(1, -1))


# --- the DAG's batch closures and counts honour a time limit ------------------------------------


def test_closure_and_count_batches_stop_at_their_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.limits import Deadline, TimeLimitReached
    from sudoku_cp.nishio import dag

    graph = dag.build_dag(2, 2)
    masks = np.ones((5, 4, 4), dtype=bool)
    whole = dag.closure_batch(graph, masks)
    counts = dag.count_batch(graph, masks)
    assert counts == [counts[0]] * 5 and counts[0] > 0 and whole.all()
    with pytest.raises(TimeLimitReached, match="closure"):
        dag.closure_batch(graph, masks, Deadline(0.0))
    with pytest.raises(TimeLimitReached, match="counting"):
        dag.count_batch(graph, masks, Deadline(0.0))
    # Chunk by chunk: a deadline spent after the first chunk stops before the second, no number.
    monkeypatch.setattr(dag, "_BATCH_STEP", 2)
    assert dag.closure_batch(graph, masks, Deadline(60)).tolist() == whole.tolist()
    assert dag.count_batch(graph, masks, Deadline(60)) == counts
    clock = iter([False, True])

    class Spent(Deadline):
        def check(self, phase: str) -> None:
            if next(clock, True):
                raise TimeLimitReached(phase)

    with pytest.raises(TimeLimitReached):
        dag.count_batch(graph, masks, Spent(60))


def test_many_nishio_instances_on_the_dag_honour_a_time_limit() -> None:
    """``solve_nishio_many`` passes its limit to the DAG batch: spent, every instance is unknown."""
    from sudoku_cp.nishio.api import solve_nishio_many
    from sudoku_cp.nishio.instance import NishioInstance
    from sudoku_cp.outcome import REASON_TIME_LIMIT

    instances = [NishioInstance.full(Geometry(2, 2)), NishioInstance.full(Geometry(2, 3))]
    answered = solve_nishio_many(instances, "dag", count=True, time_limit=60)
    assert [result.status for result in answered] == [Status.SOLVED, Status.SOLVED]
    stopped = solve_nishio_many(instances, "dag", count=True, time_limit=0.0)
    assert [result.status for result in stopped] == [Status.UNKNOWN, Status.UNKNOWN]
    assert all(r.reason == REASON_TIME_LIMIT and r.closure is None and r.count is None for r in stopped)
