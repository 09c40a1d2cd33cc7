"""Solving, counting and batch solving: the functions behind ``sudoku-cp solve`` and ``count``."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .backends.base import Backend, BackendError, SearchResult, Status
from .backends.registry import make_backend
from .formats import PuzzleItem, format_line
from .geometry import Geometry
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
    def incremental(self) -> bool:
        """True when batches can share one python-sat solver per geometry."""
        return self.solver_cmd is None and self.backend.startswith("pysat") and self.encoding is None


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
    status = _status(found, unique)
    solution = puzzle.with_values(found.solutions[0]) if found.count else None
    message: str | None = None
    if status is Status.UNKNOWN:
        message = "time limit reached" + (" before uniqueness was decided" if found.count else "")
    return PuzzleResult(index, status, solution, time.perf_counter() - start, message, line, found.stats)


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
    """Solve a chunk in this process, sharing one incremental solver per geometry where possible."""
    from .backends.pysat_backend import IncrementalPysat
    from .propagation import propagate_batch

    results: list[PuzzleResult] = []
    engine: Backend | None = None
    incremental: dict[Geometry, IncrementalPysat] = {}
    placed: dict[int, np.ndarray] = {}
    if options.incremental:
        by_geometry: dict[Geometry, list[Grid]] = {}
        members: dict[Geometry, list[int]] = {}
        for k, item in enumerate(items):
            if item.grid is not None:
                by_geometry.setdefault(item.grid.geometry, []).append(item.grid)
                members.setdefault(item.grid.geometry, []).append(k)
        for geometry, grids in by_geometry.items():
            state = propagate_batch(geometry, np.stack([grid.values.reshape(-1) for grid in grids]))
            for row, k in enumerate(members[geometry]):
                placed[k] = state.values[row] if not state.contradiction[row] else np.zeros(0, np.int16)
    try:
        for k, item in enumerate(items):
            start = time.perf_counter()
            if item.grid is None:
                results.append(PuzzleResult(item.index, Status.INVALID, None, 0.0, item.error, item.line))
                continue
            puzzle = item.grid
            if options.incremental:
                solver_name = options.backend.partition(":")[2] or "cadical195"
                if puzzle.geometry not in incremental:
                    incremental[puzzle.geometry] = IncrementalPysat(puzzle.geometry, solver_name)
                inc = incremental[puzzle.geometry]
                state_values = placed[k]

                def run(
                    inc: IncrementalPysat = inc, puzzle: Grid = puzzle, v: np.ndarray = state_values
                ) -> SearchResult:
                    if v.size == 0:  # propagation found a contradiction
                        return SearchResult(np.zeros((0, puzzle.n, puzzle.n), np.int16), True)
                    return inc.search(puzzle, 2 if unique else 1, time_limit, placed=v)

                results.append(_finish(puzzle, item.index, item.line, unique, start, run))
            else:
                if engine is None:
                    engine = options.make()
                results.append(
                    _finish(
                        puzzle,
                        item.index,
                        item.line,
                        unique,
                        start,
                        partial(engine.search, puzzle, 2 if unique else 1, time_limit),
                    )
                )
    finally:
        for inc in incremental.values():
            inc.close()
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
