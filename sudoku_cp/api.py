"""Solving, counting and batch solving: the functions behind ``sudoku-cp solve`` and ``count``."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

from .backends.base import Backend, BackendError, SearchResult, Status
from .backends.registry import make_backend
from .formats import PuzzleItem, format_line
from .grid import Grid
from .verify import given_conflict

__all__ = ["BackendOptions", "CountResult", "PuzzleResult", "count_solutions", "solve", "solve_items"]


@dataclass(frozen=True, slots=True)
class BackendOptions:
    """Which backend to use and how: a name (see ``backends.registry``) and its options."""

    backend: str = "pysat"
    encoding: str | None = None
    amo: str | None = None
    workers: int = 1
    seed: int = 0
    solver_cmd: str | None = None

    def make(self) -> Backend:
        """The backend these options describe."""
        return make_backend(
            self.backend,
            encoding=self.encoding,
            amo=self.amo,
            workers=self.workers,
            seed=self.seed,
            solver_cmd=self.solver_cmd,
        )

    @property
    def batch_solver(self) -> str | None:
        """The python-sat solver that solves batches all at once (``BatchPysat``), or None.

        Plain ``pysat`` batches use Minicard on each puzzle's compact exactly-one model, the
        fastest configuration measured in ``benchmarks/batch_sat.py``; ``pysat:<name>`` names the
        solver.  With ``--encoding`` (or any other backend) puzzles are solved one by one.
        """
        if self.solver_cmd is not None or self.encoding is not None:
            return None
        if self.backend != "pysat" and not self.backend.startswith("pysat:"):
            return None
        from .backends.pysat_backend import BATCH_SOLVER

        return self.backend.partition(":")[2] or BATCH_SOLVER

    @property
    def name(self) -> str:
        """The name of what solves a batch, e.g. 'pysat:minicard' or 'cpsat'."""
        solver = self.batch_solver
        return f"pysat:{solver}" if solver is not None else self.make().name


@dataclass(frozen=True, slots=True)
class PuzzleResult:
    """The outcome for one puzzle: status, the checked solution, and how long it took."""

    index: int
    status: Status
    solution: Grid | None = None
    seconds: float = 0.0
    error: str | None = None
    line: int | None = None
    stats: dict[str, float | int] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """The JSON Lines object: index (0-based), status, solution, error, seconds, and more."""
        obj: dict[str, object] = {"index": self.index, "status": self.status.value}
        if self.line is not None:
            obj["line"] = self.line
        if self.solution is not None:
            obj["solution"] = format_line(self.solution)
        if self.error is not None:
            obj["error"] = self.error
        obj["seconds"] = round(self.seconds, 6)
        if self.stats:
            obj["stats"] = self.stats
        return obj


@dataclass(frozen=True, slots=True)
class CountResult:
    """A solution count: exact when the search finished below the limit."""

    count: int
    exact: bool
    timed_out: bool
    seconds: float


def _status(found: SearchResult, unique: bool) -> Status:
    if found.count == 0:
        return Status.UNSAT if found.complete else Status.UNKNOWN
    if found.count >= 2:
        return Status.MULTIPLE
    if unique and not found.complete:
        return Status.UNKNOWN
    return Status.SOLVED


def _finish(
    puzzle: Grid, index: int, line: int | None, unique: bool, start: float, run: Callable[[], SearchResult]
) -> PuzzleResult:
    conflict = given_conflict(puzzle)
    if conflict is not None:
        return PuzzleResult(index, Status.INVALID, None, time.perf_counter() - start, conflict, line)
    try:
        found = run()
    except BackendError as error:
        return PuzzleResult(index, Status.UNKNOWN, None, time.perf_counter() - start, str(error), line)
    return _result(puzzle, index, line, unique, time.perf_counter() - start, found)


def _result(
    puzzle: Grid, index: int, line: int | None, unique: bool, seconds: float, found: SearchResult
) -> PuzzleResult:
    status = _status(found, unique)
    solution = puzzle.with_values(found.solutions[0]) if found.count else None
    message: str | None = None
    if status is Status.UNKNOWN:
        if found.timed_out:
            message = "time limit reached" + (" before uniqueness was decided" if found.count else "")
        elif found.count:
            message = "this backend's search is incomplete: it cannot decide uniqueness"
        else:
            message = "the search gave up at its iteration or restart cap"
    return PuzzleResult(index, status, solution, seconds, message, line, found.stats)


def solve(
    puzzle: Grid,
    backend: Backend | str = "pysat",
    *,
    unique: bool = False,
    time_limit: float | None = None,
) -> PuzzleResult:
    """Solve one puzzle; with ``unique`` also decide whether the solution is the only one."""
    start = time.perf_counter()
    engine = make_backend(backend) if isinstance(backend, str) else backend
    limit = 2 if unique else 1
    return _finish(puzzle, 0, None, unique, start, lambda: engine.search(puzzle, limit, time_limit))


def count_solutions(
    puzzle: Grid, backend: Backend | str = "pysat", *, limit: int = 100_000, time_limit: float | None = None
) -> CountResult:
    """Count the solutions of a puzzle, exactly when fewer than ``limit`` exist."""
    start = time.perf_counter()
    engine = make_backend(backend) if isinstance(backend, str) else backend
    if given_conflict(puzzle) is not None:
        return CountResult(0, True, False, time.perf_counter() - start)
    found = engine.search(puzzle, limit, time_limit, keep=False)
    return CountResult(found.count, found.complete, found.timed_out, time.perf_counter() - start)


def _solve_chunk(
    items: Sequence[PuzzleItem], options: BackendOptions, unique: bool, time_limit: float | None
) -> list[PuzzleResult]:
    """Solve a chunk in this process: all at once with python-sat, else puzzle by puzzle."""
    solver = options.batch_solver
    if solver is not None:
        return _solve_batch_chunk(items, solver, unique, time_limit)
    results: list[PuzzleResult] = []
    engine = options.make()
    for item in items:
        start = time.perf_counter()
        if item.grid is None:
            results.append(PuzzleResult(item.index, Status.INVALID, None, 0.0, item.error, item.line))
            continue
        search = partial(engine.search, item.grid, 2 if unique else 1, time_limit)
        results.append(_finish(item.grid, item.index, item.line, unique, start, search))
    return results


def _solve_batch_chunk(
    items: Sequence[PuzzleItem], solver: str, unique: bool, time_limit: float | None
) -> list[PuzzleResult]:
    """Solve a chunk with ``BatchPysat``: singles propagation over the whole chunk at once, then one
    fresh solver per open puzzle on its compact exactly-one model, and one vectorized check."""
    from .backends.pysat_backend import BatchPysat

    engine = BatchPysat(solver)
    grids = [item.grid for item in items if item.grid is not None]
    answers = iter(engine.search_batch(grids, 2 if unique else 1, time_limit))
    results: list[PuzzleResult] = []
    for item in items:
        if item.grid is None:
            results.append(PuzzleResult(item.index, Status.INVALID, None, 0.0, item.error, item.line))
            continue
        answer = next(answers)
        conflict = given_conflict(item.grid) if answer.contradiction else None
        if conflict is not None:
            results.append(
                PuzzleResult(item.index, Status.INVALID, None, answer.seconds, conflict, item.line)
            )
        elif answer.found is None:
            error = str(answer.error or "no result")
            results.append(PuzzleResult(item.index, Status.UNKNOWN, None, answer.seconds, error, item.line))
        else:
            results.append(_result(item.grid, item.index, item.line, unique, answer.seconds, answer.found))
    return results


def _chunk_worker(
    args: tuple[Sequence[PuzzleItem], BackendOptions, bool, float | None],
) -> list[PuzzleResult]:
    return _solve_chunk(*args)


def solve_items(
    items: Sequence[PuzzleItem],
    options: BackendOptions | None = None,
    *,
    unique: bool = False,
    time_limit: float | None = None,
    jobs: int = 1,
    chunk: int = 64,
) -> Iterator[PuzzleResult]:
    """Solve a batch in order, one result per item (a bad item gives an 'invalid' result)."""
    options = options or BackendOptions()
    options.make()  # fail early on a bad backend name, before any work
    chunks = [items[i : i + chunk] for i in range(0, len(items), chunk)]
    if jobs <= 1 or len(chunks) <= 1:
        for part in chunks:
            yield from _solve_chunk(part, options, unique, time_limit)
        return
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    )
    with context.Pool(jobs) as pool:
        for results in pool.imap(_chunk_worker, [(part, options, unique, time_limit) for part in chunks]):
            yield from results
