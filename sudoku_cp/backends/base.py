"""What every backend shares: one search signature, its answers, and the one place they are checked.

Every backend answers one question for a (B, n*n) stack of puzzles of one geometry: find up to
``limit`` solutions of each within a time limit (``Backend.solve_arrays``; solving is
``limit=1``, deciding uniqueness ``limit=2``, counting a large limit).  That is the only method
an engine writes; a naturally one-puzzle-at-a-time engine writes ``OneByOne.search_one`` instead
and the adapter loops.  What an engine answers is *raw*: nothing it says reaches a user before it
passes ``checked_answers``, the choke point, which every public way in goes through
(``Backend.search_arrays``, ``search_many``, ``search``; a subclass may not redefine them):

* every solution is read as it came (no cast before the range check) and checked against the
  rules and the puzzle's givens by the independent checker (``sudoku_cp.checker``), and a puzzle
  given the same solution twice, or fewer or more grids than its count, is refused: it keeps no
  solution, is not complete, and the refusal is its ``error``;
* an answer of the wrong shape (a puzzle forgotten, arrays that do not match) is unknown for every
  puzzle of the call, never "searched, no solution";
* a failure raised by the engine (``BackendError``) is every puzzle's ``error``.

Statuses are decided from the checked answers by ``sudoku_cp.api``.  A failure on one puzzle of a
batch is that puzzle's answer (not complete, the failure as its ``reason``), not an exception
that loses the rest; ``search`` of one puzzle raises it as a ``BackendError``.
"""

from __future__ import annotations

import dataclasses
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np

from ..checker import solution_problem, valid_completions
from ..errors import SudokuCpError
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached
from ..outcome import REASON_TIME_LIMIT, Status

__all__ = [
    "Backend",
    "BackendError",
    "BatchAnswers",
    "BatchBackend",
    "OneByOne",
    "SearchResult",
    "Status",
    "checked_answers",
    "no_grids",
    "refusal",
    "stopped",
]


class BackendError(SudokuCpError, RuntimeError):
    """A backend failed: a missing or crashing solver program, or an answer that is not a solution."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Up to ``limit`` solutions of one puzzle, and whether the search covered the whole space.

    ``complete`` is True when the search space was exhausted, so ``count`` is exact.
    ``reason`` is None when the search decided what it was asked (it was exhaustive, or it found
    ``limit`` solutions); otherwise it says why it stopped first: ``outcome.REASON_TIME_LIMIT``,
    ``outcome.REASON_CAP``, ``outcome.REASON_INCOMPLETE`` or a solver failure in words.  Then the
    count is only a lower bound, and zero solutions means *unknown*, never *no solution*.
    ``seconds``: the time spent on this puzzle, when the backend measured it itself (batches).
    A result from ``Backend.search``/``search_many`` holds checked solutions; one an engine makes
    in ``OneByOne.search_one`` is raw until the choke point has read it.
    """

    solutions: np.ndarray
    complete: bool
    count: int = -1
    stats: dict[str, float | int] = field(default_factory=dict)
    reason: str | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.count < 0:
            object.__setattr__(self, "count", int(self.solutions.shape[0]))

    @property
    def timed_out(self) -> bool:
        """True when the time limit stopped the search (``reason`` says so)."""
        return self.reason is not None and self.reason.startswith(REASON_TIME_LIMIT)


@dataclass(frozen=True, slots=True)
class BatchAnswers:
    """What a search found for each of B puzzles of one geometry.

    ``solutions``: (B, n*n), each puzzle's first solution (zeros where it has none; int16 once
    checked); ``counts``: (B,) solutions found (up to the limit); ``complete``: (B,) bool, the
    search space was exhausted, so the count is exact; ``seconds``: (B,) float64 spent on each
    puzzle (its own search and a share of the batch's common work).  The few puzzles with more to
    say have it in dictionaries keyed by position: ``reasons`` (why the search stopped before it
    decided, as in ``SearchResult.reason``), ``errors`` (the search failed, or its answer was
    refused), ``more`` (the solutions after the first, (k, n*n)) and ``stats``.  With ``keep``
    an engine gives exactly ``counts[k]`` grids for puzzle k; without, none (only counts).
    """

    geometry: Geometry
    solutions: np.ndarray
    counts: np.ndarray
    complete: np.ndarray
    seconds: np.ndarray
    reasons: dict[int, str] = field(default_factory=dict)
    more: dict[int, np.ndarray] = field(default_factory=dict)
    stats: dict[int, dict[str, float | int]] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of_results(
        cls, geometry: Geometry, results: Sequence[SearchResult], errors: dict[int, str] | None = None
    ) -> BatchAnswers:
        """The answers holding one ``SearchResult`` per puzzle (their grids as they are, unchecked)."""
        size = geometry.n**2
        solutions = np.zeros((len(results), size), dtype=np.int64)
        more: dict[int, np.ndarray] = {}
        for k, found in enumerate(results):
            if len(found.solutions):
                solutions[k] = np.asarray(found.solutions[0]).reshape(-1)
            if len(found.solutions) > 1:
                more[k] = np.asarray(found.solutions[1:]).reshape(-1, size)
        return cls(
            geometry,
            solutions,
            np.array([found.count for found in results], dtype=np.int64),
            np.array([found.complete for found in results], dtype=bool),
            np.array([found.seconds or 0.0 for found in results], dtype=np.float64),
            {k: found.reason for k, found in enumerate(results) if found.reason is not None},
            more,
            {k: dict(found.stats) for k, found in enumerate(results) if found.stats},
            dict(errors or {}),
        )

    def __len__(self) -> int:
        return int(np.asarray(self.counts).shape[0])

    def result(self, k: int) -> SearchResult:
        """The ``SearchResult`` of puzzle ``k``: its solutions as a read-only (count, n, n) stack,
        its error (if any) as its reason."""
        n = self.geometry.n
        count = int(self.counts[k])
        # A solution fills every cell: a first row of zeros holds none (a count alone, keep=False).
        held = bool(count) and k not in self.errors and bool(self.solutions[k, 0])
        stack = self.solutions[k : k + 1] if held else self.solutions[:0]
        if held and k in self.more:
            stack = np.concatenate([stack, self.more[k]])
        grids = np.array(stack, dtype=np.int16).reshape(-1, n, n)
        grids.setflags(write=False)
        return SearchResult(
            grids,
            bool(self.complete[k]),
            count=count,
            stats=dict(self.stats.get(k, {})),
            reason=self.errors.get(k, self.reasons.get(k)),
            seconds=float(self.seconds[k]),
        )

    def results(self) -> list[SearchResult]:
        """One ``SearchResult`` per puzzle, in order."""
        return [self.result(k) for k in range(len(self))]


def no_grids(n: int) -> np.ndarray:
    """An empty (0, n, n) int16 stack of solutions."""
    return np.zeros((0, n, n), np.int16)


def stopped(n: int, reason: str, stats: dict[str, float | int] | None = None) -> SearchResult:
    """The answer of a search stopped before it found anything: no solution, not complete, and why
    (e.g. "time limit reached during propagation")."""
    return SearchResult(no_grids(n), False, stats=stats or {}, reason=reason)


_CHECKED = ("search", "search_many", "search_arrays")


class Backend(ABC):
    """A solver of whole puzzles: an engine writes ``solve_arrays`` (or ``OneByOne.search_one``).

    ``name`` names the backend (its family first, as in the registry's table: ``pysat:glucose4``).
    Callers use ``search_arrays``, ``search_many`` or ``search``: all three pass the engine's
    answers through ``checked_answers`` first, and no subclass may redefine them.
    """

    name: str
    #: Whether a batch is answered faster all at once than puzzle by puzzle (big chunks pay off).
    batches: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The checked entry points are the choke point: an engine that redefined one could hand
        # out answers nobody checked.
        redefined = [attr for attr in _CHECKED if attr in vars(cls)]
        if redefined:
            raise TypeError(f"{cls.__name__} redefines {', '.join(redefined)}: write solve_arrays instead")

    @property
    def batch_name(self) -> str:
        """What solves a batch, when that differs from ``name`` (plain ``pysat``: Minicard)."""
        return self.name

    @abstractmethod
    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """Raw answers for every row of a (B, n*n) stack of puzzles, in order (not yet checked).

        ``time_limit`` in seconds applies to each puzzle, a ``Deadline`` is one budget for the
        whole call.  With ``keep=False`` only count (no grids).  A puzzle whose givens clash is
        unsatisfiable (complete, no solution); a failure on one puzzle is its ``errors`` entry.
        """

    def search_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """Checked answers for every row of a (B, n*n) stack of puzzles (see ``checked_answers``).

        The puzzles' digits are range-checked as they come, before any engine casts them (a
        ValueError names the first bad one).
        """
        stack = _puzzle_rows(geometry, values)
        try:
            found: object = self.solve_arrays(geometry, stack, limit, time_limit, keep)
        except BackendError as error:
            found = _failed(geometry, len(stack), str(error))
        return checked_answers(self.name, geometry, stack, found, keep)

    def search_many(
        self, puzzles: Sequence[Grid], limit: int = 1, time_limit: float | Deadline | None = None
    ) -> list[SearchResult]:
        """One checked result per puzzle (any geometries), in order: one ``search_arrays`` call
        per geometry; a failure on a puzzle is its ``reason``.  Each result carries its ``seconds``."""
        answers: list[SearchResult | None] = [None] * len(puzzles)
        by_geometry: dict[Geometry, list[int]] = {}
        for k, puzzle in enumerate(puzzles):
            by_geometry.setdefault(puzzle.geometry, []).append(k)
        for geometry, members in by_geometry.items():
            values = np.stack([puzzles[k].values.reshape(-1) for k in members])
            found = self.search_arrays(geometry, values, limit, time_limit)
            for k, answer in zip(members, found.results(), strict=True):
                answers[k] = answer
        return [answer for answer in answers if answer is not None]

    def search(
        self,
        puzzle: Grid,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> SearchResult:
        """Up to ``limit`` checked solutions of ``puzzle``; with ``keep=False`` only count them.

        A failure, or an answer the checker refused, is a ``BackendError``.
        """
        found = self.search_arrays(puzzle.geometry, puzzle.values.reshape(1, -1), limit, time_limit, keep)
        if 0 in found.errors:
            raise BackendError(found.errors[0])
        return found.result(0)


#: Deprecated name: every backend now answers batches.
BatchBackend = Backend


class OneByOne(Backend):
    """The adapter for engines that search one puzzle at a time: they write ``search_one``.

    A ``BackendError`` or a stop by the time limit is that puzzle's answer; each answer is timed.
    (Clashing givens are the engine's to answer: a solver program's UNSAT claim on them is
    confirmed like any other.)
    """

    batches: ClassVar[bool] = False

    @abstractmethod
    def search_one(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> SearchResult:
        """Raw: up to ``limit`` solutions of a puzzle (grids unchecked); ``keep=False``: the count alone."""

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """``search_one`` on each row in turn (see ``Backend.solve_arrays``)."""
        n = geometry.n
        results: list[SearchResult] = []
        errors: dict[int, str] = {}
        for k, row in enumerate(np.asarray(values).reshape(-1, n * n)):
            began = time.perf_counter()
            left = time_limit.remaining() if isinstance(time_limit, Deadline) else time_limit
            try:
                puzzle = Grid(geometry, row)
                if left is not None and left <= 0:
                    found = stopped(n, REASON_TIME_LIMIT)
                else:
                    found = self.search_one(puzzle, limit, left, keep)
            except TimeLimitReached as stop:
                found = stopped(n, str(stop))
            except (BackendError, ValueError) as error:  # ValueError: a row that is no grid
                found = stopped(n, str(error))
                errors[k] = str(error)
            if found.seconds is None:
                found = dataclasses.replace(found, seconds=time.perf_counter() - began)
            results.append(found)
        return BatchAnswers.of_results(geometry, results, errors)


def _puzzle_rows(geometry: Geometry, values: object) -> np.ndarray:
    """``values`` as (B, n*n) integer rows, each digit checked to be 0..n before anything casts it."""
    n = geometry.n
    stack = np.asarray(values)
    if (
        stack.dtype.kind not in "iu"
        or stack.size % (n * n)
        or (stack.ndim and stack.shape[-1] not in (n, n * n))
    ):
        raise ValueError(
            f"puzzles must be rows of {n * n} integer digits, not {stack.dtype} of shape {stack.shape}"
        )
    rows = stack.reshape(-1, n * n)
    if rows.size and (rows.min() < 0 or rows.max() > n):
        bad = np.argwhere((rows < 0) | (rows > n))[0]
        raise ValueError(f"puzzle {bad[0]} holds {rows[bad[0], bad[1]]} in a cell: digits are 0..{n}")
    return rows


def _failed(geometry: Geometry, size: int, why: str) -> BatchAnswers:
    """Answers for ``size`` puzzles that all failed with ``why``: no solution, not complete."""
    return BatchAnswers(
        geometry,
        np.zeros((size, geometry.n**2), np.int16),
        np.zeros(size, np.int64),
        np.zeros(size, bool),
        np.zeros(size),
        errors=dict.fromkeys(range(size), why),
    )


def refusal(geometry: Geometry, givens: np.ndarray, grids: np.ndarray, backend: str) -> str | None:
    """Why the checker refuses ``grids`` (k, n*n), claimed solutions of the puzzle ``givens``
    (n*n): the first wrong one in the checker's words, or the same solution twice; None when all hold.

    Values are read as they came (65537 is not 1).  Also for engines that count without
    returning grids (they check what they count with it).
    """
    n = geometry.n
    raw = np.asarray(grids).reshape(-1, n * n)
    ok = valid_completions(geometry, np.asarray(givens).reshape(1, -1), raw)
    if not ok.all():
        bad = raw[int(np.flatnonzero(~ok)[0])]
        problem = None
        if bad.dtype.kind in "iu" and bad.min() >= 0 and bad.max() <= n:
            puzzle = Grid(geometry, givens)
            problem = solution_problem(puzzle, puzzle.with_values(bad))
        return f"backend {backend} returned a wrong solution: {problem or 'values out of range'}"
    if len(raw) > 1 and _repeats(raw):
        return f"backend {backend} returned the same solution twice"
    return None


def _repeats(grids: np.ndarray) -> bool:
    """Whether a (k, n*n) stack holds the same grid twice.

    Rows are hashed to one integer each and only rows with equal hashes are compared: sorting
    whole rows (``np.unique(axis=0)``) takes seconds on the 100,000 grids of a long count.
    """
    flat = grids.reshape(len(grids), -1).astype(np.int64)
    weights = np.random.default_rng(0).integers(1, 2**62, flat.shape[1])
    keys = flat @ weights  # wraps around: a hash, equal for equal rows
    ordered = np.sort(keys)
    for key in np.unique(ordered[1:][ordered[1:] == ordered[:-1]]).tolist():
        same = flat[keys == key]
        if len(np.unique(same, axis=0)) < len(same):
            return True
    return False


def _malformed(found: object, geometry: Geometry, size: int) -> str | None:
    """What is wrong with the shape of an engine's answers for ``size`` puzzles, or None."""
    if not isinstance(found, BatchAnswers):
        return f"answered with {type(found).__name__}, not BatchAnswers"
    if found.geometry != geometry:
        return f"answered for {found.geometry.box_label} boxes, asked {geometry.box_label}"
    for what, array, shape in (
        ("counts", found.counts, (size,)),
        ("complete flags", found.complete, (size,)),
        ("times", found.seconds, (size,)),
        ("solutions", found.solutions, (size, geometry.n**2)),
    ):
        shape_seen = np.shape(array)
        if shape_seen != shape:
            held = shape_seen[0] if shape_seen else 0
            return f"answered {held} of {size} puzzles ({what} of shape {shape_seen})"
    if np.asarray(found.counts).dtype.kind not in "iu" or np.asarray(found.complete).dtype != bool:
        return "answered counts that are not integers or complete flags that are not booleans"
    if (np.asarray(found.counts) < 0).any():
        return "answered a negative count"
    return None


#: The reason of a puzzle an engine left undecided without saying why.
UNDECIDED = "the backend gave no answer for this puzzle: undecided"


def checked_answers(
    name: str, geometry: Geometry, values: np.ndarray, found: object, keep: bool
) -> BatchAnswers:
    """The choke point: ``found``, an engine's raw answers for the (B, n*n) puzzles ``values``,
    as the user may see them.

    Every grid is checked against the rules and its puzzle's givens (``verify``), before any cast;
    a puzzle with a wrong grid, the same grid twice, or (with ``keep``) not exactly ``counts[k]``
    grids keeps none, is not complete, and its ``errors`` entry says why.  Answers of the wrong
    shape make every puzzle unknown.  A puzzle neither complete nor holding ``limit`` solutions
    without a reason gets ``UNDECIDED``.  Solutions come out int16 and read-only.
    """
    n = geometry.n
    size = n * n
    givens = np.asarray(values).reshape(-1, size)
    batch = len(givens)
    problem = _malformed(found, geometry, batch)
    if problem is not None:
        return _failed(geometry, batch, f"backend {name} {problem}: undecided")
    found = cast(BatchAnswers, found)  # _malformed said so
    counts = np.asarray(found.counts).astype(np.int64)
    complete = np.asarray(found.complete).copy()
    errors = {k: why for k, why in found.errors.items() if 0 <= k < batch}
    raw = np.asarray(found.solutions)
    more: dict[int, np.ndarray] = {}
    solutions = np.zeros((batch, size), np.int16)
    if keep:
        held = counts > 0
        ok = np.ones(batch, dtype=bool)
        if held.any():
            ok[held] = valid_completions(geometry, givens[held], raw[held])
        for k, rest in found.more.items():
            if not (0 <= k < batch and held[k]):
                continue
            rest = np.asarray(rest).reshape(-1, size)
            more[k] = rest
            if ok[k] and (
                len(rest) + 1 != counts[k] or not valid_completions(geometry, givens[k : k + 1], rest).all()
            ):
                ok[k] = False
        # A count of c with fewer than c grids: the rest were not shown, so not checked.
        short = held & (counts > 1)
        short[list(more)] = False
        ok &= ~short
        for k in more:
            if ok[k] and _repeats(np.concatenate([raw[k : k + 1], more[k]]).astype(np.int64)):
                ok[k] = False
        refused = np.flatnonzero(held & ~ok).tolist()
        fine = held & ok
        solutions[fine] = raw[fine]  # every value checked 1..n: the cast is exact
        for k in refused:
            grids = np.concatenate([raw[k : k + 1], more.get(k, raw[:0])])
            why = refusal(geometry, givens[k], grids, name)
            errors[k] = why or f"backend {name} returned {len(grids)} grids for a count of {counts[k]}"
            more.pop(k, None)
        more = {k: rest.astype(np.int16) for k, rest in more.items()}
    for k in errors:
        counts[k], complete[k] = 0, False
        solutions[k] = 0
        more.pop(k, None)
    reasons = {k: why for k, why in found.reasons.items() if 0 <= k < batch and k not in errors}
    silent = ~complete & (counts == 0)
    for k in np.flatnonzero(silent).tolist():
        if k not in reasons and k not in errors:
            reasons[k] = f"backend {name}: {UNDECIDED}"
    solutions.setflags(write=False)
    for rest in more.values():
        rest.setflags(write=False)
    return BatchAnswers(
        geometry,
        solutions,
        counts,
        complete,
        np.asarray(found.seconds, dtype=np.float64),
        reasons,
        more,
        {k: dict(stats) for k, stats in found.stats.items() if 0 <= k < batch},
        errors,
    )
