"""The solvers an audit runs: registry backends, external programs, and answer files.

* ``BackendSolver``: a backend of the registry, run in this process with the time limit passed on
  and a seed per run, or isolated in a worker process that is killed when it ignores its limit;
* ``ProgramSolver``: an external program that reads one puzzle line and prints one answer line
  (``answers.parse_answer``), run by ``sudoku_cp.process.run_program``: killed with its whole
  process group at the time limit or when its output passes the cap;
* ``AnswerFileSolver``: answers produced elsewhere, one line per puzzle.

The slack a solver gets past its time limit is set here too: an in-process answer later than
``_LATE_FACTOR`` times the limit plus ``_LATE_GRACE`` seconds counts as a timeout (``answered_late``),
and an isolated backend still busy at ``_KILL_FACTOR`` times the limit plus ``_KILL_GRACE`` is killed.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

import numpy as np

from ..backends.base import BackendError
from ..backends.registry import make_backend
from ..formats import format_line
from ..geometry import Geometry, geometry_for_size
from ..grid import Grid
from ..limits import compile_seconds
from ..process import (
    DEFAULT_MAX_OUTPUT,
    CommandError,
    ProgramStartError,
    check_command,
    ending,
    run_program,
)
from ..random_grids import blank_cells, random_solution
from .answers import Answer, AuditError, Claim, Verdict, parse_answer
from .judge import answer_from_search, pack_grid, unpack_grid

__all__ = [
    "AnswerFileSolver",
    "BOX_PLACEHOLDER",
    "BackendSolver",
    "PLACEHOLDER",
    "ProgramSolver",
    "SEED_PLACEHOLDER",
    "Solver",
    "answered_late",
    "late_after",
]

PLACEHOLDER = "{}"
SEED_PLACEHOLDER = "{seed}"
BOX_PLACEHOLDER = "{box}"
# Backend.search raises BackendError with these words when a backend's answer fails
# the checker: that is a wrong answer the backend caught itself, not a crash.
_SELF_CHECK = re.compile(r"returned a wrong solution|returned the same solution twice")
_LATE_FACTOR, _LATE_GRACE = 1.2, 0.5  # an in-process answer later than this is counted as a timeout
_WARM_SECONDS = 120.0  # limit of the untimed warm-up search (compilation included)
_KILL_FACTOR, _KILL_GRACE = 1.5, 2.0  # an isolated backend still busy this long is killed
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def late_after(time_limit: float | None) -> float | None:
    """The seconds after which an answer counts as a timeout (None: no limit)."""
    return None if time_limit is None else time_limit * _LATE_FACTOR + _LATE_GRACE


def answered_late(seconds: float, time_limit: float | None) -> bool:
    """Whether an answer took so much longer than the time limit that it counts as a timeout."""
    late = late_after(time_limit)
    return late is not None and seconds > late


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


def _warm_up(spec: str, options: dict[str, Any], geometry: Geometry, seconds: float = _WARM_SECONDS) -> None:
    """Solve an easy puzzle of this shape once, so compilation and first calls are not in the first run.

    ``seconds``: the search's limit, the runs' own (compilation is not counted against it): an
    incomplete backend on a big grid may never finish it, and the warm-up must not outlast a run.
    """
    rng = np.random.default_rng(0)
    easy = blank_cells(random_solution(geometry, rng), 0.25, rng)
    with contextlib.suppress(Exception):  # a broken backend shows up in the timed runs
        make_backend(spec, **options).search(easy, 1, seconds)


def _warm_seconds(time_limit: float | None) -> float:
    """The warm-up's search limit for runs limited to ``time_limit``."""
    return _WARM_SECONDS if time_limit is None else min(_WARM_SECONDS, time_limit)


def _backend_answer(
    spec: str, options: dict[str, Any], puzzle: Grid, seed: int, limit: int, time_limit: float | None
) -> Answer:
    """One search by a fresh backend; a raised error is a crash (or a self-caught wrong answer)."""
    start = time.perf_counter()
    compiled = compile_seconds()
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
    # Compiling (a kernel the warm-up did not reach) is not the run's time, as it is not its limit's.
    seconds = time.perf_counter() - start - (compile_seconds() - compiled)
    return answer_from_search(puzzle, found, limit, max(seconds, 0.0))


def _serve(conn: Connection, spec: str, options: dict[str, Any], parent: int) -> None:
    """The worker process of an isolated backend: warm-ups and runs, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends this process
    _die_with(parent)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        # Grids travel as plain numbers and are rebuilt here: an unpickled Grid would skip its
        # checks and read-only flags, and numba would compile the backend again for it.
        kind, p, q, values, *rest = task
        if kind == "warm":
            _warm_up(spec, options, geometry_for_size(p * q, (p, q)), *rest)
            conn.send(None)
        else:
            conn.send(_backend_answer(spec, options, unpack_grid(p, q, values), *rest))


def _die_with(parent: int) -> None:
    """Linux: end this process when its parent ends, even mid-search.

    A parent killed outright (a worker process stopped by Ctrl-C or by its pool) cannot end its
    helper, and a helper busy in a search would not notice the closed pipe until the search ends.
    """
    prctl = _libc_prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(0)


def _libc_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _start_helper(context: Any, target: Any, args: tuple[Any, ...]) -> BaseProcess:
    """Start a daemonic helper process, also from a daemonic process (a Dask worker is one).

    multiprocessing refuses children to a daemonic process because it could not end them when
    it exits; the helper ends by itself when this process ends (``_die_with``, a closed pipe),
    so the refusal is lifted for the moment of the start.
    """
    process: BaseProcess = context.Process(target=target, args=args, daemon=True)
    me = multiprocessing.current_process()
    daemonic = bool(me._config.get("daemon"))  # type: ignore[attr-defined]
    if daemonic:
        me._config["daemon"] = False  # type: ignore[attr-defined]
    try:
        process.start()
    finally:
        if daemonic:
            me._config["daemon"] = True  # type: ignore[attr-defined]
    return process


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
        """Search with limit 1 (2 with ``unique``); ``time_limit`` None or inf: no limit."""
        limit = 2 if unique else 1
        if time_limit is not None and math.isinf(time_limit):
            time_limit = None  # the worker's kill deadline must stay a finite number or None
        if not self.isolate:
            if puzzle.geometry not in self._warm:
                self._warm.add(puzzle.geometry)
                _warm_up(self.spec, self.options, puzzle.geometry, _warm_seconds(time_limit))
            return _backend_answer(self.spec, self.options, puzzle, seed, limit, time_limit)
        if puzzle.geometry not in self._warm:
            self._warm.add(puzzle.geometry)
            warm = _warm_seconds(time_limit)
            # Compiling is untimed, but a warm-up that outlasts the slowest compile is killed.
            self._call(("warm", puzzle.geometry.p, puzzle.geometry.q, None, warm), warm + _WARM_SECONDS)
        deadline = None if time_limit is None else time_limit * _KILL_FACTOR + _KILL_GRACE
        start = time.perf_counter()
        reply = self._call(("run", *pack_grid(puzzle), seed, limit, time_limit), deadline)
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
            self._worker = _start_helper(context, _serve, (child, self.spec, self.options, os.getpid()))
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
    return "stopped answering" if code is None else f"died ({ending(code)})"


class ProgramSolver:
    """An external program: the puzzle line on stdin (or in place of ``{}`` in the command).

    ``{seed}`` in the command is replaced by the run's seed, ``{box}`` by the box shape (``2x3``).
    Exit status nonzero is a crash; at the time limit the program's process group is killed and
    the run is a timeout.  A command that cannot run at all (empty, an unclosed quote, a program
    missing, a directory or not executable) is an AuditError when the solver is made.
    """

    repeatable = True

    def __init__(self, command: str) -> None:
        try:
            words = check_command(command, "solver command")
        except CommandError as error:
            raise AuditError(str(error)) from None
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
        try:
            run = run_program(argv, None if self.in_argument else text + "\n", time_limit)
        except ProgramStartError as error:
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=f"solver program {name!r} {error.reason}")
        if run.timed_out:
            detail = f"killed at the time limit ({run.seconds:.2f} s)"
            return Answer(Claim.NONE, failure=Verdict.TIMEOUT, detail=detail, seconds=run.seconds)
        if run.output_too_large:
            detail = f"killed after writing more than {DEFAULT_MAX_OUTPUT >> 20} MiB of output"
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=run.seconds)
        if run.exit_code != 0:
            detail = f"{run.ending}: {run.last_error_line}"
            return Answer(Claim.NONE, failure=Verdict.CRASH, detail=detail, seconds=run.seconds)
        answer = parse_answer(run.stdout_text, puzzle)
        detail = answer.detail
        if answer.failure is not None and run.stderr_tail.strip():
            detail += f" (stderr: {run.last_error_line})"
        return Answer(answer.claim, answer.solutions, answer.failure, detail, run.seconds)

    def close(self) -> None:
        """Nothing to release: every run is its own process."""


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
