"""Auditing solvers: run any solver over a corpus and check every answer against SAT ground truth.

A *solver* answers puzzles; three kinds are audited the same way:

* ``BackendSolver``: a backend of the registry (``pysat``, ``cpsat``, ``dlx``, the native ones),
  run in this process with the time limit passed on and a seed per run;
* ``ProgramSolver``: an external program that reads one puzzle line and prints one answer line
  (see ``parse_answer``), killed with its whole process group at the time limit;
* ``AnswerFileSolver``: answers produced elsewhere, one line per puzzle.

Each answer makes a *claim* (``Claim``): a solution, a solution said to be unique, more than one
solution, no solution, or nothing.  ``judge`` turns a claim into a ``Verdict``.  A claimed grid is
checked by the independent checker (complete, valid, keeps the givens), which needs no solver;
claims about the number of solutions ("no solution", "unique", "multiple") are decided by SAT
(python-sat, search limit 2).  ``GroundTruth`` makes that SAT call at most once per puzzle, only
when a claim needs it, and reuses it for every later run and solver.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

import numpy as np

from .backends.base import Backend, BackendError, SearchResult
from .backends.program import _kill_group, _last_line
from .backends.registry import make_backend
from .formats import GridFormat, PuzzleItem, format_line, parse_puzzles
from .generate import blank_cells, random_solution
from .geometry import Geometry
from .grid import Grid
from .verify import given_conflict, solution_problem

__all__ = [
    "AnswerFileSolver",
    "Answer",
    "AuditError",
    "BackendSolver",
    "Claim",
    "GroundTruth",
    "ProgramSolver",
    "RunResult",
    "Solver",
    "SolverTally",
    "Truth",
    "Verdict",
    "answer_from_search",
    "audit",
    "judge",
    "parse_answer",
    "read_answer_lines",
    "run_seed",
    "tally",
]

PLACEHOLDER = "{}"
SEED_PLACEHOLDER = "{seed}"
BOX_PLACEHOLDER = "{box}"
_UNSAT_WORDS = frozenset({"unsat", "unsatisfiable", "no solution", "none"})
_UNKNOWN_WORDS = frozenset({"unknown", "indeterminate", "timeout"})
# base.checked_solutions raises BackendError with these words when a backend's own answer fails
# the checker: that is a wrong answer the backend caught itself, not a crash.
_SELF_CHECK = re.compile(r"returned a wrong solution|returned the same solution twice")
_LATE_FACTOR, _LATE_GRACE = 1.2, 0.5  # an in-process answer later than this is counted as a timeout
_SHOWN_TEXT = 40
_WARM_SECONDS = 120.0  # limit of the untimed warm-up search (compilation included)
_KILL_FACTOR, _KILL_GRACE = 1.5, 2.0  # an isolated backend still busy this long is killed


class AuditError(ValueError):
    """An audit that cannot start: a bad solver command, or an answer file that does not match."""


class Claim(Enum):
    """What an answer says about its puzzle."""

    SOLVED = "solved"  # here is a solution (nothing said about others)
    UNIQUE = "unique"  # here is the only solution
    MULTIPLE = "multiple"  # more than one solution exists
    UNSAT = "unsat"  # no solution exists
    UNKNOWN = "unknown"  # the solver gave up without a claim
    NONE = "none"  # no answer at all (timeout, crash, unreadable output)


class Verdict(Enum):
    """The audit's judgement of one run."""

    CORRECT = "correct"
    WRONG = "wrong"
    TIMEOUT = "timeout"
    CRASH = "crash"
    UNKNOWN = "unknown"
    INVALID = "invalid"  # the corpus line is not a puzzle; no solver was run


@dataclass(frozen=True, slots=True)
class Answer:
    """One solver run's answer: the claim, the grids shown, or the failure that left no claim."""

    claim: Claim
    solutions: tuple[Grid, ...] = ()
    failure: Verdict | None = None  # TIMEOUT, CRASH, or WRONG when the solver rejected its own answer
    detail: str = ""
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Truth:
    """What SAT says about a puzzle: up to two of its solutions (two means 'more than one')."""

    solutions: tuple[Grid, ...]
    reason: str = ""  # why there is no solution when SAT was not needed (equal givens)

    @property
    def count(self) -> int:
        """0, 1 or 2 (two or more)."""
        return len(self.solutions)


class GroundTruth:
    """SAT decisions per puzzle, made at most once each, with ``backend`` (python-sat by default)."""

    def __init__(self, backend: str = "pysat") -> None:
        self.backend = backend
        self._engine: Backend | None = None
        self._known: dict[Grid, Truth] = {}
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, puzzle: Grid) -> Truth:
        """The truth about ``puzzle``: a cached SAT search with limit 2."""
        known = self._known.get(puzzle)
        if known is None:
            known = self._decide(puzzle)
            self._known[puzzle] = known
        return known

    def _decide(self, puzzle: Grid) -> Truth:
        conflict = given_conflict(puzzle)
        if conflict is not None:
            return Truth((), f"equal givens: {conflict}")
        if self._engine is None:
            self._engine = make_backend(self.backend)
        start = time.perf_counter()
        found = self._engine.search(puzzle, 2)  # solutions already passed the checker (base.py)
        self.calls += 1
        self.seconds += time.perf_counter() - start
        if found.count < 2 and not found.complete:  # an incomplete search proves nothing
            raise BackendError(f"the ground truth ({self.backend}) did not finish its search")
        return Truth(tuple(puzzle.with_values(values) for values in found.solutions[:2]))


@dataclass(frozen=True, slots=True)
class RunResult:
    """One run of one solver on one puzzle, judged.  ``index`` and ``run`` are 0-based."""

    solver: str
    index: int
    line: int
    run: int
    seed: int | None
    claimed: Claim
    verdict: Verdict
    seconds: float
    detail: str = ""
    solution: Grid | None = None

    def to_json(self) -> dict[str, object]:
        """The JSON Lines object; puzzle and run are 1-based as users count them."""
        obj: dict[str, object] = {
            "solver": self.solver,
            "puzzle": self.index + 1,
            "line": self.line,
            "run": self.run + 1,
            "seed": self.seed,
            "claimed": self.claimed.value,
            "verdict": self.verdict.value,
            "seconds": round(self.seconds, 6),
            "detail": self.detail,
        }
        if self.solution is not None:
            obj["solution"] = format_line(self.solution)
        return obj


# --------------------------------------------------------------------------------------- judging


def judge(puzzle: Grid, answer: Answer, truth: Callable[[], Truth]) -> tuple[Verdict, str]:
    """The verdict on an answer and why; ``truth`` is called only when a claim needs SAT.

    Raises BackendError when the ground truth finds no solution where the checker passed one.
    """
    if answer.failure is not None:
        return answer.failure, answer.detail
    claim = answer.claim
    if claim in (Claim.UNKNOWN, Claim.NONE):
        return Verdict.UNKNOWN, answer.detail or "no claim"
    if claim is Claim.UNSAT:
        known = truth()
        if known.count:
            return Verdict.WRONG, f"claimed no solution, but SAT finds {format_line(known.solutions[0])}"
        return Verdict.CORRECT, known.reason or "no solution, confirmed by SAT"
    for number, solution in enumerate(answer.solutions, start=1):
        problem = solution_problem(puzzle, solution)
        if problem is not None:
            which = f"solution {number}" if len(answer.solutions) > 1 else "the solution"
            return Verdict.WRONG, f"{which} is not valid: {problem}"
    if len(answer.solutions) > 1 and answer.solutions[0] == answer.solutions[1]:
        return Verdict.WRONG, "the same solution shown twice"
    if claim is Claim.MULTIPLE:
        if len(answer.solutions) > 1:
            return Verdict.CORRECT, "two different valid solutions shown"
        known = truth()
        if len(set(known.solutions) | set(answer.solutions)) > 1:
            return Verdict.CORRECT, "more than one solution, confirmed by SAT"
        if known.count == 1:
            return Verdict.WRONG, "claimed more than one solution, but SAT proves the solution unique"
        if not answer.solutions:
            return Verdict.WRONG, "claimed more than one solution, but SAT proves there is none"
        raise _contradiction(answer)
    if not answer.solutions:
        return Verdict.WRONG, f"claimed {claim.value} but showed no solution"
    if claim is Claim.UNIQUE:
        known = truth()
        other = next((grid for grid in known.solutions if grid != answer.solutions[0]), None)
        if other is not None:
            return Verdict.WRONG, f"claimed unique, but SAT finds another solution {format_line(other)}"
        if known.count == 1:
            return Verdict.CORRECT, "unique, confirmed by SAT"
        raise _contradiction(answer)
    return Verdict.CORRECT, ""


def _contradiction(answer: Answer) -> BackendError:
    """Ground truth that finds no solution where the checker passed one: never trust either."""
    shown = format_line(answer.solutions[0])
    return BackendError(f"the ground truth finds no solution, but the checker passed {shown}")


# --------------------------------------------------------------------------------------- answers


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN_TEXT else text[: _SHOWN_TEXT - 3] + "...")


def _read_grid(text: str, puzzle: Grid) -> Grid:
    """A grid of the puzzle's shape from one answer line; ValueError (with the column) if it is none."""
    g = puzzle.geometry
    fmt = GridFormat.LINE if g.n <= 61 else GridFormat.INTS
    item = parse_puzzles(text, box=(g.p, g.q), fmt=fmt)[0]
    if item.grid is None:
        raise ValueError(item.error or "not a grid")
    return item.grid


def parse_answer(text: str, puzzle: Grid) -> Answer:
    """Read a solver's answer text for ``puzzle``.

    Lines that are empty or start with '#' are skipped; the first other line is the answer:
    a solution in the one-line form (``.`` blanks, 1-9, A-Z, a-z; integers for grids over 61),
    optionally after a word ``solved`` or ``unique`` (the solution is the only one);
    ``multiple`` with optionally one solution, and a second solution on the next line;
    ``unsat`` / ``unsatisfiable`` / ``no solution`` / ``none``; ``unknown`` (or no line at all).
    Anything else is an unreadable answer (``Verdict.CRASH``), as is a further line.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines:
        return Answer(Claim.UNKNOWN, detail="no answer given")
    first = lines[0]
    word, _, rest = first.partition(" ")
    lowered = " ".join(first.lower().split())
    if lowered in _UNSAT_WORDS or lowered in _UNKNOWN_WORDS:
        if len(lines) > 1:
            return _unreadable(f"a further line {_shown(lines[1])} after {_shown(first)}")
        if lowered in _UNSAT_WORDS:
            return Answer(Claim.UNSAT)
        return Answer(Claim.UNKNOWN, detail=f"the solver answered {first!r}")
    claim = {"solved": Claim.SOLVED, "unique": Claim.UNIQUE, "multiple": Claim.MULTIPLE}.get(word.lower())
    grids_text = [rest.strip()] if claim is not None else [first]
    if claim is None:
        claim = Claim.SOLVED
    grids_text = [part for part in grids_text if part]
    extra = lines[1:]
    if claim is Claim.MULTIPLE and grids_text and extra:
        grids_text.append(extra.pop(0))
    if extra:
        return _unreadable(f"a further line {_shown(extra[0])} after the answer")
    if not grids_text and claim is not Claim.MULTIPLE:
        return _unreadable(f"{_shown(first)} has no solution after the word")
    solutions: list[Grid] = []
    for part in grids_text:
        try:
            solutions.append(_read_grid(part, puzzle))
        except ValueError as error:
            return _unreadable(f"{_shown(part)}: {error}")
    return Answer(claim, tuple(solutions))


def _unreadable(detail: str) -> Answer:
    return Answer(Claim.NONE, failure=Verdict.CRASH, detail=f"unreadable answer {detail}")


def _stats_text(stats: dict[str, float | int]) -> str:
    """' (iterations 5000, restarts 12)': a backend's counters, to show how far it got."""
    shown = [f"{key} {value}" for key, value in stats.items() if isinstance(value, int)]
    return f" ({', '.join(shown)})" if shown else ""


def answer_from_search(puzzle: Grid, found: SearchResult, limit: int, seconds: float) -> Answer:
    """The claim a backend's search result makes (``limit`` is the limit it was asked for)."""
    if found.count == 0:
        if found.complete:
            return Answer(Claim.UNSAT, seconds=seconds)
        if found.timed_out:
            detail = "time limit reached" + _stats_text(found.stats)
            return Answer(Claim.NONE, failure=Verdict.TIMEOUT, detail=detail, seconds=seconds)
        return Answer(Claim.UNKNOWN, detail="the solver gave up" + _stats_text(found.stats), seconds=seconds)
    try:
        solutions = tuple(puzzle.with_values(values) for values in np.asarray(found.solutions)[:2])
    except ValueError as error:
        return Answer(Claim.SOLVED, failure=Verdict.WRONG, detail=f"bad solution: {error}", seconds=seconds)
    if found.count >= 2:
        claim = Claim.MULTIPLE
    elif limit >= 2 and found.complete:
        claim = Claim.UNIQUE
    else:
        claim = Claim.SOLVED
    return Answer(claim, solutions, seconds=seconds)


def read_answer_lines(text: str, puzzles: int) -> list[tuple[int, str]]:
    """(line number, answer) for each puzzle of an answer file: one line per puzzle, in order.

    '#' lines are skipped; an empty line is an 'unknown' answer.  Surplus empty lines at the end
    are dropped; any other count mismatch raises AuditError.
    """
    lines = [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if not line.lstrip().startswith("#")
    ]
    while len(lines) > puzzles and not lines[-1][1]:
        lines.pop()
    if len(lines) != puzzles:
        last = f" (the last is line {lines[-1][0]})" if lines else ""
        raise AuditError(
            f"{len(lines)} answer lines{last} for {puzzles} puzzles: "
            "give one line per puzzle, in corpus order (empty for unknown)"
        )
    return lines


# --------------------------------------------------------------------------------------- solvers


class Solver(Protocol):
    """Anything the audit can run: a name, whether runs differ, and one answer per call."""

    name: str
    repeatable: bool  # False when every run would give the same answer (an answer file)

    def answer(self, puzzle: Grid, index: int, seed: int, time_limit: float | None, unique: bool) -> Answer:
        """Answer puzzle number ``index`` (0-based) of the corpus."""
        ...

    def close(self) -> None:
        """Release what the solver holds (a worker process); it may be used again after."""
        ...


def _warm_up(spec: str, options: dict[str, Any], geometry: Geometry) -> None:
    """Solve an easy puzzle of this shape once, untimed, so compilation is not in the first run."""
    rng = np.random.default_rng(0)
    easy = blank_cells(random_solution(geometry, rng), 0.25, rng)
    with contextlib.suppress(Exception):  # a broken backend shows up in the timed runs
        make_backend(spec, **options).search(easy, 1, _WARM_SECONDS)


def _backend_answer(
    spec: str, options: dict[str, Any], puzzle: Grid, seed: int, limit: int, time_limit: float | None
) -> Answer:
    """One search by a fresh backend; a raised error is a crash (or a self-caught wrong answer)."""
    start = time.perf_counter()
    try:
        engine = make_backend(spec, **{**options, "seed": seed})
        found = engine.search(puzzle, limit, time_limit)
    except BackendError as error:
        seconds = time.perf_counter() - start
        if _SELF_CHECK.search(str(error)):
            return Answer(Claim.SOLVED, failure=Verdict.WRONG, detail=str(error), seconds=seconds)
        return Answer(Claim.NONE, failure=Verdict.CRASH, detail=str(error), seconds=seconds)
    except Exception as error:  # an audited solver's bug is counted, and the batch goes on
        seconds = time.perf_counter() - start
        detail = f"{type(error).__name__}: {error}"
        return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=seconds)
    return answer_from_search(puzzle, found, limit, time.perf_counter() - start)


def _serve(conn: Connection, spec: str, options: dict[str, Any]) -> None:
    """The worker process of an isolated backend: warm-ups and runs, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends this process
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        # Grids travel as plain numbers and are rebuilt here: an unpickled Grid would skip its
        # checks and read-only flags, and numba would compile the backend again for it.
        kind, p, q, values, *rest = task
        geometry = Geometry(p, q)
        if kind == "warm":
            _warm_up(spec, options, geometry)
            conn.send(None)
        else:
            conn.send(_backend_answer(spec, options, Grid(geometry, values), *rest))


class BackendSolver:
    """A registry backend, made afresh for every run with that run's seed.

    With ``isolate`` the backend runs in a worker process: one that ignores its time limit is
    killed (a timeout), one that dies (a segfault in native code) is a crash, and the next run
    gets a fresh worker.  Without it the backend runs here and must honour its time limit.
    """

    repeatable = True

    def __init__(self, spec: str, *, isolate: bool = False, **options: Any) -> None:
        make_backend(spec, **options)  # BackendError now for an unknown name
        self.spec = spec
        self.name = spec
        self.options = options
        self.isolate = isolate
        self._warm: set[Geometry] = set()
        self._worker: BaseProcess | None = None
        self._conn: Connection | None = None

    def answer(self, puzzle: Grid, index: int, seed: int, time_limit: float | None, unique: bool) -> Answer:
        """Search with limit 1 (2 with ``unique``)."""
        limit = 2 if unique else 1
        if not self.isolate:
            if puzzle.geometry not in self._warm:
                self._warm.add(puzzle.geometry)
                _warm_up(self.spec, self.options, puzzle.geometry)
            return _backend_answer(self.spec, self.options, puzzle, seed, limit, time_limit)
        if puzzle.geometry not in self._warm:
            self._warm.add(puzzle.geometry)
            self._call(("warm", puzzle.geometry.p, puzzle.geometry.q, None), _WARM_SECONDS)
        deadline = None if time_limit is None else time_limit * _KILL_FACTOR + _KILL_GRACE
        start = time.perf_counter()
        g = puzzle.geometry
        reply = self._call(("run", g.p, g.q, puzzle.values, seed, limit, time_limit), deadline)
        if isinstance(reply, Answer):
            return reply
        seconds = time.perf_counter() - start
        if reply == "killed":
            detail = f"killed after {seconds:.2f} s: the backend ignored its {time_limit:g} s time limit"
            return Answer(Claim.NONE, failure=Verdict.TIMEOUT, detail=detail, seconds=seconds)
        return Answer(
            Claim.NONE, failure=Verdict.CRASH, detail=f"the backend's process {reply}", seconds=seconds
        )

    def _call(self, task: tuple[Any, ...], deadline: float | None) -> Answer | str | None:
        """Send a task to the worker (started if needed); its reply, 'killed', or how it died."""
        if self._conn is None or self._worker is None:
            context = multiprocessing.get_context("fork")
            self._conn, child = context.Pipe()
            self._worker = context.Process(target=_serve, args=(child, self.spec, self.options), daemon=True)
            self._worker.start()
            child.close()
        conn, worker = self._conn, self._worker
        try:
            conn.send(task)
            if conn.poll(deadline):
                reply: Answer | None = conn.recv()
                return reply
        except (EOFError, BrokenPipeError, ConnectionResetError):
            pass
        else:
            self.close()
            return "killed"
        worker.join(5.0)
        code = worker.exitcode
        self.close()
        return _died(code)

    def close(self) -> None:
        """End the worker process, if any (the next run starts a fresh one, warmed up again)."""
        if self._worker is not None:
            if self._worker.is_alive():
                self._worker.kill()
            self._worker.join()
        if self._conn is not None:
            self._conn.close()
        self._worker, self._conn = None, None
        if self.isolate:
            self._warm.clear()


def _died(code: int | None) -> str:
    """'died (killed by SIGSEGV)' for a worker process that ended, or that it stopped answering."""
    return "stopped answering" if code is None else f"died ({_ending(code)})"


class ProgramSolver:
    """An external program: the puzzle line on stdin (or in place of ``{}`` in the command).

    ``{seed}`` in the command is replaced by the run's seed, ``{box}`` by the box shape (``2x3``).
    Exit status nonzero is a crash; at the time limit the program's process group is killed and
    the run is a timeout.
    """

    repeatable = True

    def __init__(self, command: str) -> None:
        try:
            words = shlex.split(command)
        except ValueError as error:
            raise AuditError(f"cannot split solver command {command!r}: {error}") from None
        if not words:
            raise AuditError("empty solver command")
        self.words = words
        self.command = command
        # Named by the command with directories dropped ('python correct.py'), as tables show it.
        self.name = " ".join(os.path.basename(word) if os.sep in word else word for word in words)
        self.in_argument = any(PLACEHOLDER in word for word in words)

    def answer(self, puzzle: Grid, index: int, seed: int, time_limit: float | None, unique: bool) -> Answer:
        """Run the program once on ``puzzle`` and read its answer."""
        text = format_line(puzzle)
        fill = {PLACEHOLDER: text, SEED_PLACEHOLDER: str(seed), BOX_PLACEHOLDER: puzzle.geometry.box_label}
        argv = []
        for word in self.words:
            for key, value in fill.items():
                word = word.replace(key, value)
            argv.append(word)
        name = argv[0]
        executable = shutil.which(name)
        if executable is None:
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=f"solver program {name!r} not found")
        start = time.perf_counter()
        try:
            process = subprocess.Popen(
                [executable, *argv[1:]],
                stdin=subprocess.DEVNULL if self.in_argument else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # so a time-out kills everything it started
            )
        except OSError as error:
            detail = f"solver program {name!r} could not be started: {error.strerror or error}"
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail)
        stdin = None if self.in_argument else (text + "\n").encode("ascii")
        try:
            try:
                out, err = process.communicate(stdin, timeout=time_limit)
            except subprocess.TimeoutExpired:
                seconds = time.perf_counter() - start
                _kill_group(process)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.communicate(timeout=5.0)
                for pipe in (process.stdin, process.stdout, process.stderr):
                    if pipe is not None:  # a child outside the group may still hold them open
                        pipe.close()
                detail = f"killed at the time limit ({seconds:.2f} s)"
                return Answer(Claim.NONE, failure=Verdict.TIMEOUT, detail=detail, seconds=seconds)
        finally:
            _kill_group(process)  # whatever the program left behind, also on an interrupt
            if process.returncode is None:
                process.wait()
        seconds = time.perf_counter() - start
        if process.returncode != 0:
            detail = _exit_problem(process.returncode, err.decode("utf-8", errors="replace"))
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=seconds)
        answer = parse_answer(out.decode("utf-8", errors="replace"), puzzle)
        detail = answer.detail
        if answer.failure is not None and err.strip():
            detail += f" (stderr: {_last_line(err.decode('utf-8', errors='replace'))})"
        return Answer(answer.claim, answer.solutions, answer.failure, detail, seconds)

    def close(self) -> None:
        """Nothing to release: every run is its own process."""


def _ending(code: int) -> str:
    """How a process ended: 'exit code 3' or 'killed by SIGSEGV'."""
    if code >= 0:
        return f"exit code {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def _exit_problem(code: int, stderr: str) -> str:
    """'exit code 3: <last stderr line>' for a program that failed."""
    return f"{_ending(code)}: {_last_line(stderr)}"


class AnswerFileSolver:
    """Answers produced elsewhere: (line number, answer text) per puzzle, from ``read_answer_lines``."""

    repeatable = False

    def __init__(self, name: str, lines: Sequence[tuple[int, str]]) -> None:
        self.name = name
        self.lines = list(lines)

    def answer(self, puzzle: Grid, index: int, seed: int, time_limit: float | None, unique: bool) -> Answer:
        """The answer on the file's line for puzzle ``index``; problems name that line."""
        number, text = self.lines[index]
        answer = parse_answer(text, puzzle)
        if answer.failure is not None or answer.claim is Claim.UNKNOWN:
            where = f"answer file line {number}: {answer.detail}"
            return Answer(answer.claim, answer.solutions, answer.failure, where)
        return answer

    def close(self) -> None:
        """Nothing to release."""


# ----------------------------------------------------------------------------------------- audit


def run_seed(seed: int, index: int, run: int) -> int:
    """The seed of run ``run`` on puzzle ``index``: distinct per pair, reproducible from ``seed``."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return int(np.random.SeedSequence([seed, index, run]).generate_state(1, np.uint32)[0] >> 1)


def audit(
    items: Sequence[PuzzleItem],
    solvers: Sequence[Solver],
    *,
    runs: int = 1,
    seed: int = 0,
    time_limit: float | None = None,
    unique: bool = False,
    truth: GroundTruth | None = None,
) -> Iterator[RunResult]:
    """Run every solver on every puzzle (``runs`` times if its runs can differ) and judge each answer.

    Results come solver by solver, puzzle by puzzle, run by run; an unreadable corpus item gives
    one INVALID result per solver.  With ``unique`` backends are asked to decide uniqueness.
    """
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    truth = truth if truth is not None else GroundTruth()
    for solver in solvers:
        try:
            yield from _audit_solver(solver, items, runs, seed, time_limit, unique, truth)
        finally:
            solver.close()


def _audit_solver(
    solver: Solver,
    items: Sequence[PuzzleItem],
    runs: int,
    seed: int,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> Iterator[RunResult]:
    """One solver's results over the corpus."""
    for item in items:
        if item.grid is None:
            error = item.error or ""
            yield RunResult(
                solver.name, item.index, item.line, 0, None, Claim.NONE, Verdict.INVALID, 0.0, error
            )
            continue
        if not solver.repeatable:
            yield _one_run(solver, item, item.grid, 0, None, time_limit, unique, truth)
            continue
        for run in range(runs):
            seed_of_run = run_seed(seed, item.index, run)
            yield _one_run(solver, item, item.grid, run, seed_of_run, time_limit, unique, truth)


def _one_run(
    solver: Solver,
    item: PuzzleItem,
    puzzle: Grid,
    run: int,
    seed: int | None,
    time_limit: float | None,
    unique: bool,
    truth: GroundTruth,
) -> RunResult:
    answer = solver.answer(puzzle, item.index, seed or 0, time_limit, unique)
    try:
        verdict, detail = judge(puzzle, answer, lambda: truth(puzzle))
    except BackendError as error:
        verdict, detail = Verdict.UNKNOWN, f"no ground truth: {error}"
    limit = None if time_limit is None else time_limit * _LATE_FACTOR + _LATE_GRACE
    if verdict is Verdict.CORRECT and limit is not None and answer.seconds > limit:
        verdict = Verdict.TIMEOUT
        detail = f"a correct answer after {answer.seconds:.2f} s, past the {time_limit:g} s limit"
    shown = answer.solutions[0] if answer.solutions else None
    return RunResult(
        solver.name, item.index, item.line, run, seed, answer.claim, verdict, answer.seconds, detail, shown
    )


# ----------------------------------------------------------------------------------------- tally


@dataclass(slots=True)
class SolverTally:
    """Counts and times of one solver's runs; the wrong ones kept to be listed."""

    solver: str
    verdicts: Counter[Verdict] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    wrong: list[RunResult] = field(default_factory=list)

    def add(self, result: RunResult) -> None:
        """Count one result (invalid corpus items are counted but not timed)."""
        self.verdicts[result.verdict] += 1
        if result.verdict is not Verdict.INVALID:
            self.seconds.append(result.seconds)
        if result.verdict is Verdict.WRONG:
            self.wrong.append(result)

    @property
    def runs(self) -> int:
        """Runs made (invalid corpus items excluded)."""
        return len(self.seconds)

    @property
    def success_rate(self) -> float:
        """The fraction of runs judged correct (0 without runs)."""
        return self.verdicts[Verdict.CORRECT] / self.runs if self.runs else 0.0

    def time_stats(self) -> tuple[float, float, float]:
        """(median, mean, max) seconds over all runs, whatever their verdict."""
        if not self.seconds:
            return 0.0, 0.0, 0.0
        return statistics.median(self.seconds), statistics.fmean(self.seconds), max(self.seconds)

    def to_json(self) -> dict[str, object]:
        """The summary object of this solver."""
        median, mean, most = self.time_stats()
        obj: dict[str, object] = {"solver": self.solver, "runs": self.runs}
        obj.update({verdict.value: self.verdicts[verdict] for verdict in Verdict})
        obj.update(
            {
                "success_rate": round(self.success_rate, 6),
                "median_seconds": round(median, 6),
                "mean_seconds": round(mean, 6),
                "max_seconds": round(most, 6),
                "wrong_answers": [
                    {"puzzle": r.index + 1, "line": r.line, "run": r.run + 1} for r in self.wrong
                ],
            }
        )
        return obj


def tally(results: Iterable[RunResult]) -> list[SolverTally]:
    """One tally per solver, in the order solvers first appear."""
    tallies: dict[str, SolverTally] = {}
    for result in results:
        tallies.setdefault(result.solver, SolverTally(result.solver)).add(result)
    return list(tallies.values())
