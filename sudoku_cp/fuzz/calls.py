"""One solver call on one puzzle, judged as ``verify`` judges it; the calls as executor work.

A call names its solver by a small recipe (``SolverSpec``: a backend, a program, or a Python
function registered here) and its puzzle either as a case to make (``cases.CaseKey``, made in
the worker, so that making a 16x16 minimal puzzle runs in parallel too) or as plain numbers.  A
worker makes each solver once and judges with its own ground truth
(``audit.runs.judged_answer``: the independent checker for grids, SAT for claims about the
number of solutions; a ground truth that fails makes the verdict unknown, never wrong).

A Python function runs in the process that makes the call: with ``--jobs`` in the forked
workers, which inherit the functions registered before they start.  A call that passes its time
limit is stopped by an alarm signal at the limit where one can be set (the main thread of a Unix
process), as a program is killed at it, and counts as a timeout; elsewhere an answer that comes
well past the limit counts as one (``audit.solvers.answered_late``).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..audit.answers import Answer, Claim, Verdict, parse_answer
from ..audit.judge import pack_grid, unpack_grid
from ..audit.runs import judged_answer
from ..audit.solvers import BackendSolver, ProgramSolver, Solver
from ..audit.truth import GroundTruth
from ..executor import Work
from ..grid import Grid
from .cases import CaseKey, make_case

__all__ = [
    "CALL_WORK",
    "Call",
    "CallableSolver",
    "Outcome",
    "PuzzleAnswer",
    "SolverSpec",
    "answer_of",
    "crashed",
    "register",
    "run_call",
    "warm_up",
]

#: What a Python solver may return: a solution (a Grid, or digits as an array or nested lists),
#: None for "no solution", a tuple of two or more Grids for "more than one solution", an answer
#: line of the program protocol (``"unsat"``, ``"multiple ..."``), or an ``audit.Answer``.
PuzzleAnswer = Any

_functions: dict[str, Callable[[Grid], PuzzleAnswer]] = {}


def register(function: Callable[[Grid], PuzzleAnswer]) -> str:
    """The key a Python solver travels by (to forked workers, which inherit the table)."""
    key = f"{getattr(function, '__qualname__', 'solver')}@{id(function):x}"
    _functions[key] = function
    return key


def answer_of(value: PuzzleAnswer, puzzle: Grid, seconds: float = 0.0) -> Answer:
    """The claim a Python solver's return value makes about ``puzzle`` (see ``PuzzleAnswer``);
    a value that is none of those forms is an unreadable answer (a crash), as for a program."""
    if isinstance(value, Answer):
        return value
    if value is None:
        return Answer(Claim.UNSAT, seconds=seconds)
    if isinstance(value, str):
        parsed = parse_answer(value, puzzle)
        return Answer(parsed.claim, parsed.solutions, parsed.failure, parsed.detail, seconds)
    if isinstance(value, tuple) and value and all(isinstance(part, Grid) for part in value):
        grids = tuple(value)
        claim = Claim.MULTIPLE if len(grids) > 1 else Claim.SOLVED
        return _grids_answer(claim, grids, puzzle, seconds)
    if isinstance(value, Grid):
        return _grids_answer(Claim.SOLVED, (value,), puzzle, seconds)
    try:
        digits = np.asarray(value)
        if digits.dtype.kind not in "iu" or digits.size != puzzle.n * puzzle.n:
            raise ValueError(f"not {puzzle.n * puzzle.n} integers")
        grid = puzzle.with_values(digits)
    except (ValueError, TypeError) as error:
        detail = f"unreadable answer {type(value).__name__}: {error}"
        return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=seconds)
    return Answer(Claim.SOLVED, (grid,), seconds=seconds)


def _grids_answer(claim: Claim, grids: tuple[Grid, ...], puzzle: Grid, seconds: float) -> Answer:
    if any(grid.geometry != puzzle.geometry for grid in grids):
        shape, wanted = grids[0].geometry.box_label, puzzle.geometry.box_label
        detail = f"unreadable answer: a grid of box {shape} for a {wanted} puzzle"
        return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=seconds)
    return Answer(claim, grids[:2], seconds=seconds)


class _Expired(BaseException):
    """Raised into a Python solver at its time limit (a BaseException: ``except Exception`` in
    the solver does not swallow it)."""


@contextlib.contextmanager
def _alarm(seconds: float | None) -> Iterator[None]:
    """Raise ``_Expired`` after ``seconds`` where an alarm can be set; elsewhere do nothing."""
    usable = (
        seconds is not None
        and math.isfinite(seconds)
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert seconds is not None

    def expire(signum: int, frame: object) -> None:
        raise _Expired

    # Another alarm already set (pytest-timeout's, say) is put back afterwards with the time it
    # has left; one due sooner than ours is left to fire.
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    if outer and outer <= seconds:
        yield
        return
    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3))


class CallableSolver:
    """A Python function puzzle -> answer (``PuzzleAnswer``), run in this process."""

    repeatable = True

    def __init__(self, function: Callable[[Grid], PuzzleAnswer], name: str | None = None) -> None:
        self.function = function
        self.name: str = name or str(getattr(function, "__name__", "solver"))

    def answer(self, puzzle: Grid, index: int, seed: int, time_limit: float | None, unique: bool) -> Answer:
        """Call the function once; an exception is a crash, passing the limit a timeout."""
        start = time.perf_counter()
        try:
            with _alarm(time_limit):  # stopped at the limit, as a program is killed at it
                value = self.function(puzzle)
        except _Expired:
            seconds = time.perf_counter() - start
            detail = f"stopped at the time limit ({seconds:.2f} s)"
            return Answer(Claim.NONE, failure=Verdict.TIMEOUT, detail=detail, seconds=seconds)
        except Exception as error:  # the audited function's bug is the finding, not ours
            seconds = time.perf_counter() - start
            detail = f"{type(error).__name__}: {error}"
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=seconds)
        return answer_of(value, puzzle, time.perf_counter() - start)

    def close(self) -> None:
        """Nothing to release."""


@dataclass(frozen=True, slots=True)
class SolverSpec:
    """A solver as it travels to a worker: ``kind`` 'backend' (``name`` the backend, ``isolate``,
    ``options``), 'program' (``name`` the command) or 'callable' (``name`` its ``register`` key)."""

    kind: str
    name: str
    isolate: bool = True
    options: tuple[tuple[str, Any], ...] = ()

    def make(self) -> Solver:
        """The solver this recipe names."""
        if self.kind == "backend":
            return BackendSolver(self.name, isolate=self.isolate, **dict(self.options))
        if self.kind == "program":
            return ProgramSolver(self.name)
        function = _functions.get(self.name)
        if function is None:  # a worker that did not inherit it (a Dask worker, say)
            raise LookupError(f"the Python solver {self.name} is not known in this process")
        return CallableSolver(function, self.name.partition("@")[0])


@dataclass(frozen=True, slots=True)
class Call:
    """One solver call: on the case ``key`` (made where the call runs) or on ``puzzle`` (packed)."""

    solver: SolverSpec
    truth: str
    seed: int
    time_limit: float | None
    unique: bool
    key: CaseKey | None = None
    puzzle: tuple[int, int, bytes] | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A call's result: the puzzle (packed; None when the case has no puzzle of its status),
    the verdict, the claim and the grids shown (packed), why, and the seconds it took."""

    puzzle: tuple[int, int, bytes] | None
    verdict: Verdict | None
    claimed: Claim = Claim.NONE
    detail: str = ""
    shown: tuple[tuple[int, int, bytes], ...] = ()
    seconds: float = 0.0

    @property
    def grid(self) -> Grid | None:
        """The puzzle the call was made on."""
        return None if self.puzzle is None else unpack_grid(*self.puzzle)

    @property
    def solutions(self) -> tuple[Grid, ...]:
        """The grids the answer showed."""
        return tuple(unpack_grid(*packed) for packed in self.shown)


_solvers: dict[SolverSpec, Solver] = {}
_truths: dict[str, GroundTruth] = {}


def _solver(spec: SolverSpec) -> Solver:
    solver = _solvers.get(spec)
    if solver is None:
        solver = _solvers[spec] = spec.make()
    return solver


def close_solvers() -> None:
    """Release the solvers this process made (their helper processes end)."""
    while _solvers:
        _solvers.popitem()[1].close()


def run_call(call: Call) -> Outcome:
    """Make the call's puzzle if needed, run the solver once, and judge the answer."""
    if call.puzzle is not None:
        puzzle: Grid | None = unpack_grid(*call.puzzle)
    else:
        assert call.key is not None
        puzzle = make_case(call.key)
    if puzzle is None:
        return Outcome(None, None, detail="no puzzle of this status on this shape")
    try:
        solver = _solver(call.solver)
    except LookupError as error:
        return Outcome(pack_grid(puzzle), Verdict.UNKNOWN, detail=str(error))
    truth = _truths.setdefault(call.truth, GroundTruth(call.truth))
    answer, verdict, detail = judged_answer(
        solver, puzzle, 0, call.seed, time_limit=call.time_limit, unique=call.unique, truth=truth
    )
    shown = tuple(pack_grid(grid) for grid in answer.solutions)
    return Outcome(pack_grid(puzzle), verdict, answer.claim, detail, shown, answer.seconds)


def warm_up(call: Call) -> None:
    """Make here what a worker's first calls make (the solver object, the ground truth, the case
    generator's modules, provers and compiled kernels, on the smallest grids), without running
    the solver: workers forked afterwards inherit them instead of each making its own, which on
    a busy machine took seconds of every worker's first calls (and again after a worker died)."""
    from .cases import STATUSES

    with contextlib.suppress(LookupError):
        _solver(call.solver)
    truth = _truths.setdefault(call.truth, GroundTruth(call.truth))
    for status in STATUSES:
        puzzle = make_case(CaseKey((2, 2), status, "edges", (0,)))
        if puzzle is not None:
            with contextlib.suppress(Exception):  # a truth that fails here fails in the call too
                truth(puzzle)


def _run_calls(chunk: list[Call]) -> list[Outcome]:
    return [run_call(call) for call in chunk]


def crashed(call: Call, why: str) -> Outcome:
    """A call whose worker died every time it ran: a crash of the solver (it ran in that worker)."""
    return Outcome(call.puzzle, Verdict.CRASH, detail=f"the worker running this call failed: {why}")


def _crashed(chunk: list[Call], why: str) -> list[Outcome]:
    return [crashed(call, why) for call in chunk]


CALL_WORK: Work[list[Call], Outcome] = Work(_run_calls, _crashed)
