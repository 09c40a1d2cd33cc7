"""Solving, counting and batch solving: the functions behind ``sudoku-cp solve`` and ``count``.

Time limits: ``time_limit`` is a number of seconds for each puzzle (``None``: no limit), or a
``limits.Deadline`` the caller started, one budget for the whole call: the command line starts
one when the process starts, so reading the input spends from it too.  Every phase of the work
(propagation, encoding, the search, the check) runs inside it; an answer stopped by it is
``unknown`` with the phase in its reason ("time limit reached during propagation"; a search
stopped by it says only "time limit reached").  A ``Deadline`` already spent when the call
begins gives "time limit reached during parsing".
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .backends.base import Backend, BackendError, BatchAnswers, SearchResult
from .backends.registry import backend_name, is_complete, make_backend
from .checker import given_conflict
from .errors import SudokuCpError
from .executor import Executor, Work, local_workers, run_ordered
from .formats import PuzzleItem, PuzzleRows, format_line, format_lines, grid_rows, json_dumps
from .geometry import Geometry
from .grid import Grid
from .limits import Deadline, TimeLimitReached
from .outcome import REASON_TIME_LIMIT, Status

if TYPE_CHECKING:
    from .cnf.sudoku import AmoEncoding, CnfEncoding

__all__ = [
    "BackendOptions",
    "CountResult",
    "IncompleteSearchError",
    "PuzzleResult",
    "certify_results",
    "claim_of",
    "count_solutions",
    "solve",
    "solve_items",
]


@dataclass(frozen=True, slots=True)
class BackendOptions:
    """Which backend to use and how: a name (see ``backends.registry``) and its options."""

    backend: str = "pysat"
    encoding: CnfEncoding | str | None = None
    amo: AmoEncoding | str | None = None
    workers: int = 1
    seed: int = 0
    solver_cmd: str | None = None
    trust_solver: bool = False  # take solver_cmd's UNSAT claims unconfirmed

    def make(self) -> Backend:
        """The backend these options describe."""
        return make_backend(
            self.backend,
            encoding=self.encoding,
            amo=self.amo,
            workers=self.workers,
            seed=self.seed,
            solver_cmd=self.solver_cmd,
            trust_solver=self.trust_solver,
        )

    @property
    def name(self) -> str:
        """The name of what solves a batch, e.g. 'pysat:minicard' or 'cpsat' (no backend is made)."""
        return self.name_for(())

    def name_for(self, items: Iterable[PuzzleItem]) -> str:
        """The name of what solves these puzzles (big grids may take another solver than a batch's)."""
        sides = [geometry.n for item in items if (geometry := item.geometry) is not None]
        return backend_name(
            self.backend,
            encoding=self.encoding,
            solver_cmd=self.solver_cmd,
            batch=True,
            side=min(sides) if sides else None,
        )


class PuzzleResult:
    """The outcome for one puzzle: status, the checked solution, and how long it took.

    Results of a batch hold their solution as a row of the batch's solutions and its one-line
    form, and make the ``Grid`` only when asked (``solution``).  Results are values: never
    changed once made, compared by their fields.
    """

    __slots__ = (
        *("index", "status", "seconds", "error", "line", "stats", "certificate"),
        *("_solution", "_geometry", "_values", "_text"),  # the solution as a Grid, or as a batch row
    )

    def __init__(
        self,
        index: int,
        status: Status,
        solution: Grid | None = None,
        seconds: float = 0.0,
        error: str | None = None,
        line: int | None = None,
        stats: dict[str, float | int] | None = None,
        certificate: str | None = None,
    ) -> None:
        self.index = index
        self.status = status
        self.seconds = float(seconds)
        self.error = error
        self.line = line
        self.stats: dict[str, float | int] = {} if stats is None else stats
        #: The path of the manifest of the certificate of this answer's claim (``--certify``).
        self.certificate = certificate
        self._solution = solution
        self._geometry: Geometry | None = None
        self._values: np.ndarray | None = None
        self._text: str | None = None

    @classmethod
    def of_row(
        cls,
        index: int,
        status: Status,
        geometry: Geometry,
        values: np.ndarray,
        text: str,
        seconds: float,
        line: int | None,
        error: str | None = None,
    ) -> PuzzleResult:
        """A result whose solution is ``values`` (n*n digits, checked) written as ``text`` (one line)."""
        result = cls(index, status, None, seconds, error, line)
        result._geometry, result._values, result._text = geometry, values, text
        return result

    @property
    def solution(self) -> Grid | None:
        """The checked solution, or None."""
        if self._solution is None and self._geometry is not None and self._values is not None:
            self._solution = Grid(self._geometry, self._values)
        return self._solution

    @property
    def solution_line(self) -> str | None:
        """The solution in one-line form (``formats.format_line``), or None."""
        if self._text is None and self.solution is not None:
            self._text = format_line(self.solution)
        return self._text

    def _key(self) -> tuple[object, ...]:
        return (self.index, self.status, self.solution, self.seconds, self.error, self.line, self.stats)

    def certified(self, path: str) -> PuzzleResult:
        """This result with the manifest of its certificate."""
        result = PuzzleResult(
            self.index, self.status, self._solution, self.seconds, self.error, self.line, self.stats, path
        )
        result._geometry, result._values, result._text = self._geometry, self._values, self._text
        return result

    def uncertified(self, why: str) -> PuzzleResult:
        """This result made unknown because its claim could not be certified (``why``)."""
        return PuzzleResult(self.index, Status.UNKNOWN, None, self.seconds, why, self.line, self.stats)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PuzzleResult) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # stats is a dict

    def __repr__(self) -> str:
        names = ("index", "status", "solution", "seconds", "error", "line", "stats")
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(names, self._key(), strict=True))
        return f"PuzzleResult({fields})"

    def to_json(self) -> dict[str, object]:
        """The JSON Lines object: index (0-based), status, solution, error, seconds, and more."""
        obj: dict[str, object] = {"index": self.index, "status": self.status.value}
        if self.line is not None:
            obj["line"] = self.line
        if self.solution_line is not None:
            obj["solution"] = self.solution_line
        if self.error is not None:
            obj["error"] = self.error
        obj["seconds"] = round(self.seconds, 6)
        if self.stats:
            obj["stats"] = self.stats
        if self.certificate is not None:
            obj["certificate"] = self.certificate
        return obj

    def json_line(self) -> str:
        """``formats.json_dumps(self.to_json())`` written directly (a batch prints one per puzzle)."""
        text = f'{{"index":{self.index},"status":"{self.status.value}"'
        if self.line is not None:
            text += f',"line":{self.line}'
        if self.solution_line is not None:
            text += f',"solution":"{self.solution_line}"'  # symbols, digits and spaces: nothing to escape
        if self.error is not None:
            text += ',"error":' + json_dumps(self.error)
        text += f',"seconds":{round(self.seconds, 6)!r}'
        if self.stats:
            text += ',"stats":' + json_dumps(self.stats)
        if self.certificate is not None:
            text += ',"certificate":' + json_dumps(self.certificate)
        return text + "}"


class IncompleteSearchError(SudokuCpError, ValueError):
    """Counting was asked of a backend that cannot exhaust the search space (ant colony, hill climbing)."""


@dataclass(frozen=True, slots=True)
class CountResult:
    """A solution count: exact when the search finished below the limit.

    ``reason`` is None when the count is exact or stopped at the limit; otherwise why the
    search stopped first (``outcome.REASON_TIME_LIMIT``, ...), as in ``SearchResult``.
    """

    count: int
    exact: bool
    reason: str | None
    seconds: float

    @property
    def timed_out(self) -> bool:
        """True when the time limit stopped the count."""
        return self.reason is not None and self.reason.startswith(REASON_TIME_LIMIT)


def _status(count: int, complete: bool, unique: bool) -> Status:
    """The status of one checked answer: the one place statuses are decided.

    It starts unknown; only a complete search makes "unsat", two checked solutions "multiple",
    and one checked solution "solved" (under ``unique`` only after a complete search).
    """
    status = Status.UNKNOWN
    if count == 0 and complete:
        status = Status.UNSAT
    elif count >= 2:
        status = Status.MULTIPLE
    elif count == 1 and (complete or not unique):
        status = Status.SOLVED
    return status


def _plainly_solved(found: BatchAnswers, unique: bool) -> np.ndarray:
    """(B,) bool: the answers ``_status`` calls solved, all at once (the batch's common case)."""
    return np.asarray((found.counts == 1) & (found.complete | (not unique)))


def _unknown_message(found: SearchResult) -> str:
    """Why an answer is unknown, in words, from the result's reason."""
    reason = found.reason or "the search stopped before it decided"
    if found.timed_out and found.count:
        reason += " before uniqueness was decided"
    return reason


#: The reason of an answer whose deadline, started by the caller, was spent before the call.
_SPENT_BEFORE = str(TimeLimitReached("parsing"))


def _spent(time_limit: float | Deadline | None) -> bool:
    """Whether the caller's deadline was spent before the call (reading the input)."""
    return isinstance(time_limit, Deadline) and time_limit.expired()


def _not_started(item: PuzzleItem) -> PuzzleResult:
    """The answer for an item when the caller's deadline was spent before the call."""
    if item.grid is None:
        return _invalid(item)
    return PuzzleResult(item.index, Status.UNKNOWN, None, 0.0, _SPENT_BEFORE, item.line)


def _answers(
    backend: Backend,
    geometry: Geometry,
    values: np.ndarray,
    limit: int,
    time_limit: float | Deadline | None,
    keep: bool = True,
) -> BatchAnswers:
    """The one way this module asks a backend: ``Backend.search_arrays``, whose answers have passed
    the checker (``backends.base.checked_answers``).  An object that is no ``Backend`` could skip
    that check, so it is refused."""
    if not isinstance(backend, Backend):
        raise BackendError(f"{type(backend).__name__} is not a sudoku_cp Backend (see backends.base)")
    return backend.search_arrays(geometry, values, limit, time_limit, keep)


def solve(
    puzzle: Grid,
    backend: Backend | str = "pysat",
    *,
    unique: bool = False,
    time_limit: float | Deadline | None = None,
) -> PuzzleResult:
    """Solve one puzzle; with ``unique`` also decide whether the solution is the only one."""
    engine = make_backend(backend) if isinstance(backend, str) else backend
    if _spent(time_limit):
        return PuzzleResult(0, Status.UNKNOWN, None, 0.0, _SPENT_BEFORE)
    start = time.perf_counter()
    (result,) = _solve_chunk([PuzzleItem(0, 0, puzzle)], engine, unique, time_limit)
    result.line = None  # one puzzle given as a grid: no input line (the result is new, not shared)
    result.seconds = time.perf_counter() - start
    return result


def count_solutions(
    puzzle: Grid,
    backend: Backend | str = "pysat",
    *,
    limit: int = 100_000,
    time_limit: float | Deadline | None = None,
) -> CountResult:
    """Count the solutions of a puzzle, exactly when fewer than ``limit`` exist.

    Raises ``IncompleteSearchError`` for a backend whose search cannot exhaust the space.
    """
    start = time.perf_counter()
    deadline = Deadline.of(time_limit)
    engine = make_backend(backend) if isinstance(backend, str) else backend
    if not is_complete(engine):
        raise IncompleteSearchError(
            f"backend {engine.name} is an incomplete search: it finds a solution or gives up, so it "
            "cannot count; count with dlx, backtrack, pysat or cpsat"
        )
    if given_conflict(puzzle) is not None:
        return CountResult(0, True, None, time.perf_counter() - start)
    if _spent(time_limit):
        return CountResult(0, False, _SPENT_BEFORE, time.perf_counter() - start)
    answers = _answers(
        engine, puzzle.geometry, puzzle.values.reshape(1, -1), limit, deadline.remaining(), False
    )
    if 0 in answers.errors:
        raise BackendError(answers.errors[0])
    found = answers.result(0)
    reason = None if found.complete else found.reason
    return CountResult(found.count, found.complete, reason, time.perf_counter() - start)


def _solve_chunk(
    items: Sequence[PuzzleItem], backend: Backend, unique: bool, time_limit: float | Deadline | None
) -> list[PuzzleResult]:
    """Solve a chunk in this process: one ``_answers`` call per geometry, every backend alike.

    Results are made from the checked answers as arrays: solutions written in one pass, their
    ``Grid`` made only when asked; an item the answers do not cover is unknown.
    """
    limit = 2 if unique else 1
    results: list[PuzzleResult | None] = [None] * len(items)
    for geometry, positions, values in grid_rows(items):
        found = _answers(backend, geometry, values, limit, time_limit)
        texts = iter(format_lines(geometry, found.solutions[found.counts > 0]))
        solved = _plainly_solved(found, unique)
        columns = [column.tolist() for column in (positions, found.counts, found.seconds, solved)]
        for k, (position, count, seconds, fine) in enumerate(zip(*columns, strict=True)):
            item = items[position]
            text = next(texts) if count else ""
            if fine:  # the common case, without a SearchResult
                result = PuzzleResult.of_row(
                    item.index, Status.SOLVED, geometry, found.solutions[k], text, seconds, item.line
                )
                if k in found.stats:
                    result.stats.update(found.stats[k])
                results[position] = result
            else:
                results[position] = _array_result(item, found, k, values[k], text, unique)
    return [_invalid(items[k]) if result is None else result for k, result in enumerate(results)]


def _array_result(
    item: PuzzleItem, found: BatchAnswers, k: int, givens: np.ndarray, text: str, unique: bool
) -> PuzzleResult:
    """The result of answer ``k`` of a batch that is not a plain solve: unsat, invalid, unknown, multiple."""
    answer = found.result(k)
    seconds = answer.seconds or 0.0
    if answer.complete and not answer.count:
        conflict = given_conflict(Grid(found.geometry, givens))
        if conflict is not None:
            return PuzzleResult(item.index, Status.INVALID, None, seconds, conflict, item.line)
    status = _status(answer.count, answer.complete, unique)
    message = _unknown_message(answer) if status is Status.UNKNOWN else None
    if not answer.count:
        return PuzzleResult(item.index, status, None, seconds, message, item.line, answer.stats)
    result = PuzzleResult.of_row(
        item.index, status, found.geometry, found.solutions[k], text, seconds, item.line, message
    )
    result.stats.update(answer.stats)
    return result


def _invalid(item: PuzzleItem) -> PuzzleResult:
    return PuzzleResult(item.index, Status.INVALID, None, 0.0, item.error, item.line)


_worker_backends: dict[BackendOptions, Backend] = {}  # a worker process's backends, made once each


def _start_worker(options: BackendOptions) -> None:
    """Worker setup: make the backend once per process (the executor runs this once per worker)."""
    if options not in _worker_backends:
        _worker_backends[options] = options.make()


_Chunk = tuple[Sequence[PuzzleItem], BackendOptions, bool, float | Deadline | None]


def _chunk_worker(chunk: _Chunk) -> list[PuzzleResult]:
    """Solve one chunk in a worker with the backend its setup made."""
    items, options, unique, time_limit = chunk
    _start_worker(options)
    return _solve_chunk(items, _worker_backends[options], unique, time_limit)


def _chunk_crashed(chunk: _Chunk, why: str) -> list[PuzzleResult]:
    """A crash result for each item of a chunk whose work killed its workers (or raised)."""
    return [PuzzleResult(item.index, Status.CRASH, None, 0.0, why, item.line) for item in chunk[0]]


def solve_items(
    items: Sequence[PuzzleItem],
    options: BackendOptions | None = None,
    *,
    unique: bool = False,
    time_limit: float | Deadline | None = None,
    jobs: int = 1,
    chunk: int | None = None,
    executor: Executor | None = None,
    notice: Callable[[str], None] | None = None,
) -> Iterator[PuzzleResult]:
    """Solve a batch in order, one result per item (a bad item gives an 'invalid' result).

    ``time_limit``: seconds for each puzzle, or a ``Deadline`` shared by the whole batch (see the
    module notes).  ``chunk``: puzzles per call of the backend (or per job); by default
    ``ARRAY_CHUNK`` for a backend that answers arrays, ``CHUNK`` for the others, and on several
    workers small enough for every worker to get several.  ``executor`` says where the chunks
    run (``sudoku_cp.executor``: this process, local processes, a Dask cluster); ``jobs`` is
    short for ``Executor(jobs=jobs)``.  ``notice`` receives the executor's notes for the user.

    The backend is made once, here, so a bad backend name fails before any work; each worker
    process makes its own once, from ``options``.  Results stream in input order; an item whose
    chunk kills its workers again and again is a ``crash`` result, and the batch goes on.
    """
    options = options or BackendOptions()
    backend = options.make()
    if _spent(time_limit):
        return iter([_not_started(item) for item in items])
    executor = executor if executor is not None else Executor(jobs=jobs)
    if chunk is None:
        chunk = ARRAY_CHUNK if backend.batches else CHUNK
        if executor.parallel:
            # A remote cluster's size is not known here: chunks of hundreds of 9x9 puzzles keep
            # any number of workers fed at a small scheduling cost.
            workers = executor.jobs if executor.cluster is None else local_workers(executor.cluster)
            share = -(-len(items) // (4 * workers)) if workers else CLUSTER_CHUNK
            chunk = max(CHUNK, min(chunk, share))
    chunks = [items[i : i + chunk] for i in range(0, len(items), chunk)]
    if not executor.parallel or (executor.cluster is None and len(chunks) <= 1):
        return (result for part in chunks for result in _solve_chunk(part, backend, unique, time_limit))
    if executor.cluster is not None and isinstance(time_limit, Deadline):
        # Another machine's monotonic clock is not ours: what is left of the budget travels instead.
        time_limit = time_limit.remaining()
    work = Work(_chunk_worker, _chunk_crashed, _start_worker, (options,))
    tasks = ((_rebased(part), options, unique, time_limit) for part in chunks)
    return run_ordered(work, tasks, executor, notice=notice)


#: Puzzles per backend call by default: small chunks keep the output flowing and the jobs busy.
CHUNK = 64
#: Puzzles per chunk at most on a remote Dask cluster.
CLUSTER_CHUNK = 512
#: Puzzles per call of a backend that answers arrays: its per-call work (propagation, checking,
#: formatting) runs over the whole chunk in numpy, so bigger is faster, up to a few thousand.
ARRAY_CHUNK = 4096


def _rebased(part: Sequence[PuzzleItem]) -> list[PuzzleItem]:
    """The items of a chunk sent to a worker, pointing at rows of their own (not the whole file's)."""
    rebased = list(part)
    for geometry, positions, values in grid_rows(part):
        rows = PuzzleRows(geometry, values)
        for row, position in enumerate(positions.tolist()):
            item = part[position]
            rebased[position] = PuzzleItem(item.index, item.line, None, None, rows, row)
    return rebased


def claim_of(status: Status, unique: bool) -> str | None:
    """The claim an answer makes that a certificate can back: 'unsat', 'multiple', 'unique' (a
    solution under ``unique``), or None (a solution alone is checked, nothing else is claimed)."""
    if status is Status.UNSAT:
        return "unsat"
    if status is Status.MULTIPLE:
        return "multiple"
    if status is Status.SOLVED and unique:
        return "unique"
    return None


def certify_results(
    items: Iterable[PuzzleItem],
    results: Iterable[PuzzleResult],
    directory: str,
    *,
    unique: bool = False,
    checker: str = "sudoku_cp",
    time_limit: float | None = None,
    executor: Executor | None = None,
    prover: str | None = None,
) -> Iterator[PuzzleResult]:
    """Each result (in the order of ``items``) with the certificate of its claim written into
    ``directory`` (``PuzzleResult.certificate``); a claim that cannot be certified makes the
    result unknown, naming the claim and why.  Results without a claim pass unchanged."""
    from .certify.batch import ClaimItem, certify_claims

    # Results wait here until the answer of their claim comes back (those without one pass in order).
    pending: deque[tuple[PuzzleResult, bool]] = deque()

    def claims() -> Iterator[ClaimItem]:
        for item, result in zip(items, results, strict=True):
            claim = claim_of(result.status, unique)
            grid = item.grid
            pending.append((result, claim is not None and grid is not None))
            if claim is None or grid is None:
                continue
            box = (grid.geometry.p, grid.geometry.q)
            solution = result.solution_line if claim == "unique" else None
            yield ClaimItem(claim, box, format_line(grid), solution)

    for answer in certify_claims(
        claims(), directory, checker=checker, time_limit=time_limit, executor=executor, prover=prover
    ):
        while not pending[0][1]:
            yield pending.popleft()[0]
        result, _ = pending.popleft()
        yield (
            result.certified(answer.path)
            if answer.path is not None
            else result.uncertified(answer.error or "not certified")
        )
    while pending:  # every claim is answered: what is left has none
        yield pending.popleft()[0]
