"""Limits: one ``Deadline`` type, one way to run a SAT solve that honours it, and the memory budget.

Public functions take ``time_limit`` in seconds (``None``: no limit); inside, the limit becomes a
``Deadline`` once, when the work starts, and is passed down as that object, so every phase spends
from the same budget.  A phase before the search (parsing, propagation, encoding) calls
``deadline.check(phase)``, which raises ``TimeLimitReached`` once the budget is spent; the engine
catches it and answers unknown with the phase in its reason ("time limit reached during
propagation").  The search itself stops with the plain reason ``outcome.REASON_TIME_LIMIT``.

Compilation (numba compiling a kernel on its first call after an install, or saved machine
code being rebuilt) is not the work a limit is for: the seconds it takes are counted apart
(``compiling``, ``compile_seconds``) and every ``Deadline`` moves its end by them, so a first run
answers as a later one would, only later.

Memory: a model is estimated before it is built, and one that cannot fit (``memory_budget``) is
refused with ``ModelTooLarge`` naming the estimate, instead of a MemoryError half-way.
"""

from __future__ import annotations

import bisect
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from .errors import SudokuCpError
from .outcome import REASON_TIME_LIMIT

__all__ = [
    "Deadline",
    "ModelTooLarge",
    "TimeLimitReached",
    "check_memory",
    "compile_seconds",
    "compile_seconds_since",
    "compiling",
    "on_first_compile",
    "format_bytes",
    "memory_budget",
    "process_started",
    "Sigint",
    "sigint_held",
    "solve_limited",
    "watch_compilation",
]

# Compilation in this process: seconds spent so far (finished), the nesting depth (numba compiles
# callees inside their caller's compile) and when the outermost one began.
_compile_lock = threading.RLock()
_compile_done = 0.0
_compile_depth = 0
_compile_began = 0.0
_compile_real = False  # the section under way compiles (not only loads numba's cache)
# Finished compiling sections, in time order: their starts, ends, and the running total of their
# seconds (``_compile_total[k]``: sections 0..k-1), so that a deadline's share is a bisection away.
_compile_starts: list[float] = []
_compile_ends: list[float] = []
_compile_total: list[float] = [0.0]
_first_compile_hooks: list[Callable[[], None]] = []
_first_compile_seen = False
_watching = False


def compile_seconds() -> float:
    """Seconds this process has spent compiling so far, the compile under way included."""
    with _compile_lock:
        running = time.monotonic() - _compile_began if _compile_depth and _compile_real else 0.0
        return _compile_done + running


def compile_seconds_since(began: float) -> float:
    """Seconds this process has spent compiling after the ``time.monotonic()`` reading ``began``."""
    if not _compile_depth and len(_compile_total) == 1:
        return 0.0  # nothing compiled yet: every deadline check of a warm run comes here
    with _compile_lock:
        first = bisect.bisect_right(_compile_ends, began)  # the sections that end after ``began``
        total = _compile_total[-1] - _compile_total[first]
        if first < len(_compile_starts):
            total -= max(0.0, began - _compile_starts[first])  # the part of it before ``began``
        if _compile_depth and _compile_real:
            total += max(0.0, time.monotonic() - max(_compile_began, began))
        return total


def _compile_enter() -> None:
    global _compile_depth, _compile_began, _compile_real
    with _compile_lock:
        if _compile_depth == 0:
            _compile_began = time.monotonic()
            _compile_real = False
        _compile_depth += 1


def _compiled_first() -> None:
    """A real compilation (not a cache load): its section counts; the first-compile hooks run once."""
    global _first_compile_seen, _compile_real
    with _compile_lock:
        _compile_real = True
        if _first_compile_seen:
            return
        _first_compile_seen = True
        hooks = list(_first_compile_hooks)
    for hook in hooks:  # outside the lock: a hook may start a process
        with suppress(Exception):  # a notice or a background job must never break a solve
            hook()


def _compile_exit() -> None:
    global _compile_depth, _compile_done
    with _compile_lock:
        _compile_depth = max(_compile_depth - 1, 0)
        if _compile_depth == 0 and _compile_real:
            ended = time.monotonic()
            _compile_done += ended - _compile_began
            _compile_starts.append(_compile_began)
            _compile_ends.append(ended)
            _compile_total.append(_compile_total[-1] + ended - _compile_began)


@contextmanager
def compiling() -> Iterator[None]:
    """Time spent in the block is compilation: no ``Deadline`` counts it (nested blocks count once)."""
    _compile_enter()
    _compiled_first()
    try:
        yield
    finally:
        _compile_exit()


def on_first_compile(hook: Callable[[], None]) -> None:
    """Call ``hook()`` when this process first compiles (a cold cache); at once if it already has."""
    with _compile_lock:
        _first_compile_hooks.append(hook)
        seen = _first_compile_seen
    if seen:
        hook()


def watch_compilation() -> None:
    """Count the time numba holds its compiler lock as ``compiling`` blocks; idempotent.

    The lock covers compiling, loading from numba's cache and setting up numba's typing and target
    contexts on a first call (up to a second or two on a loaded machine).  A section that compiles
    (numba's ``numba:compile`` event, a cache miss) counts whole, set-up included; one that only
    loads from the cache counts against limits as any other work.  The first compile also runs
    the ``on_first_compile`` hooks.  Called by the modules that define numba kernels, after they
    import numba, and by deadlines once numba is loaded.
    """
    global _watching
    if _watching:
        return
    with _compile_lock:
        if _watching:
            return
        from numba.core import event

        from .lazy import numba_cache_loads_without_registries, numba_registries_without_blas_probe

        # Every module defining kernels comes here after importing numba, before any kernel
        # loads: loads from the cache skip numba's registries, and the first compile, which
        # installs them, does so without the scipy.linalg of numba's BLAS probe (0.25-0.5 s).
        numba_cache_loads_without_registries()
        _first_compile_hooks.insert(0, numba_registries_without_blas_probe)

        class _Locked(event.Listener):  # type: ignore[misc]
            def on_start(self, event: Any) -> None:
                _compile_enter()

            def on_end(self, event: Any) -> None:
                _compile_exit()

        class _Compiled(event.Listener):  # type: ignore[misc]
            def on_start(self, event: Any) -> None:
                _compiled_first()

            def on_end(self, event: Any) -> None:
                pass

        event.register("numba:compiler_lock", _Locked())
        event.register("numba:compile", _Compiled())
        _watching = True


class TimeLimitReached(SudokuCpError):
    """The deadline passed during a phase before or around the search: an unknown answer, not a failure.

    Engines catch it and answer unknown with its message as the reason.
    """

    def __init__(self, phase: str) -> None:
        super().__init__(f"{REASON_TIME_LIMIT} during {phase}")
        self.phase = phase


class ModelTooLarge(SudokuCpError):
    """A model (CNF, exact cover, CP-SAT) too large for memory, refused on an estimate before it is built."""


class Deadline:
    """A wall-clock budget that starts when the object is made; ``seconds=None`` means no limit.

    ``began`` (a ``time.monotonic()`` reading) starts it earlier, e.g. at ``process_started()``, so a
    command's budget covers its own start-up.  Compilation (``compiling``) after ``began`` moves
    the end later by its seconds.
    """

    __slots__ = ("_end", "began", "seconds")

    def __init__(self, seconds: float | None = None, *, began: float | None = None) -> None:
        if seconds is not None and (math.isnan(seconds) or seconds < 0):
            raise ValueError(f"a time limit must be a number of seconds >= 0, not {seconds}")
        if seconds is not None and math.isinf(seconds):
            seconds = None  # 'inf' is no limit
        self.seconds = seconds
        self.began = time.monotonic() if began is None else min(began, time.monotonic())
        self._end = None if seconds is None else self.began + seconds
        if "numba" in sys.modules and not _watching:
            watch_compilation()

    @classmethod
    def of(cls, time_limit: float | Deadline | None) -> Deadline:
        """The deadline of a public ``time_limit`` argument: the caller's own ``Deadline`` (shared,
        e.g. by a batch), or one of that many seconds starting now (None: no limit)."""
        return time_limit if isinstance(time_limit, Deadline) else cls(time_limit)

    @property
    def end(self) -> float | None:
        """The ``time.monotonic()`` reading at which the budget is spent (moved by compilation), or None."""
        if self._end is None:
            return None
        if not _watching and "numba" in sys.modules:
            watch_compilation()
        return self._end + compile_seconds_since(self.began)

    @classmethod
    def until(cls, end: float | None) -> Deadline | None:
        """The deadline that ends at wall-clock (``time.time()``) reading ``end``, None for None: a
        batch's deadline as a worker process or another machine gets it (``wall_end``)."""
        return None if end is None else cls(max(end - time.time(), 0.0))

    def wall_end(self) -> float | None:
        """The wall-clock (``time.time()``) reading at which the budget is spent, None without a limit."""
        remaining = self.remaining()
        return None if remaining is None else time.time() + remaining

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        end = self.end
        return None if end is None else max(end - time.monotonic(), 0.0)

    def expired(self) -> bool:
        """True once the budget is spent."""
        end = self.end
        return end is not None and time.monotonic() >= end

    def elapsed(self) -> float:
        """Seconds since the deadline was made (compilation included)."""
        return time.monotonic() - self.began

    def check(self, phase: str) -> None:
        """Raise ``TimeLimitReached(phase)`` once the budget is spent."""
        end = self.end
        if end is not None and time.monotonic() >= end:
            raise TimeLimitReached(phase)

    def __repr__(self) -> str:
        return f"Deadline({self.seconds})"


def process_started() -> float:
    """The ``time.monotonic()`` reading at which this process started (Linux), else the current one."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
        ticks = int(fields[19])  # field 22, 'starttime': clock ticks from boot to the process start
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - min(max(age, 0.0), now)


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


_ALWAYS_FITS = 64 << 20


def memory_budget() -> int:
    """Bytes a model may take: three quarters of the memory available now (Linux ``MemAvailable``,
    else the physical memory), less under a lower address-space limit (``ulimit -v``)."""
    available = _meminfo_available()
    if available is None:
        try:
            available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (OSError, ValueError, AttributeError):
            available = 8 << 30
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            available = min(available, soft)
    except (ImportError, OSError, ValueError):
        pass
    return available * 3 // 4


def format_bytes(count: float) -> str:
    """A byte count for people: '512 B', '3.2 MiB', '95.0 GiB'."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if count < 1024 or unit == "TiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def check_memory(what: str, estimate: int, alternative: str = "") -> None:
    """Raise ``ModelTooLarge`` when ``what`` (e.g. 'building the exact cover model') would need
    ``estimate`` bytes, more than ``memory_budget()``.

    The message, one line, gives the estimate, the budget and ``alternative`` (what to try instead).
    Estimates under ``_ALWAYS_FITS`` pass without asking the system (this runs on every batch).
    """
    if estimate <= _ALWAYS_FITS:
        return
    budget = memory_budget()
    if estimate > budget:
        hint = f"; {alternative}" if alternative else ""
        raise ModelTooLarge(
            f"{what} would need about {format_bytes(estimate)} of memory, "
            f"more than the {format_bytes(budget)} available{hint}"
        )


class Sigint:
    """Ctrl-C seen by ``sudoku-cp``'s handler.  A C extension may swallow the KeyboardInterrupt the
    handler raises (while OR-tools loads or builds a model, say), so batch loops and the waits on
    a solver thread also check the flag."""

    received = False

    @classmethod
    def handle(cls, signum: int, frame: object) -> None:
        """The SIGINT handler: remember, then interrupt."""
        cls.received = True
        raise KeyboardInterrupt

    @classmethod
    def check(cls) -> None:
        """Raise KeyboardInterrupt if Ctrl-C came and its exception was lost on the way."""
        if cls.received:
            raise KeyboardInterrupt


@contextmanager
def sigint_held() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) back from this thread for the block; it arrives when the block ends.

    For the few calls into ``pysat.card`` left (templates, one per width): each call installs a C
    handler of its own for SIGINT and restores Python's after it, so a Ctrl-C inside the call never
    reached Python (the command went on working) or jumped out of the C++ encoder and corrupted
    the heap ("free(): invalid pointer").  Held, the signal waits and is handed to Python's handler
    when the block ends.  Only this thread holds it: keep such calls out of loops, as a process's
    signal may go to another thread, under whatever handler is installed then.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if signal.SIGINT not in held:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _interruptible(solver: Any) -> bool:
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        return False
    return True


def solve_limited(solver: Any, assumptions: Sequence[int], deadline: Deadline | None) -> bool | None:
    """Solve a python-sat solver under assumptions before the deadline: True, False, or None (unknown).

    Solvers that can be interrupted are stopped by a timer; the others (CaDiCaL through pysat)
    run in rounds of a conflict budget paced to the time left, keeping their learnt clauses.
    Ctrl-C during the solve is a KeyboardInterrupt, whatever the solver's binding makes of it.
    """
    try:
        return _solve_limited(solver, assumptions, deadline)
    except Exception as problem:
        # pysat's C extension turns SIGINT inside a solve into its own error type.
        if "keyboard interrupt" in str(problem).lower():
            raise KeyboardInterrupt from None
        raise


def _solve_limited(solver: Any, assumptions: Sequence[int], deadline: Deadline | None) -> bool | None:
    if deadline is None or deadline.end is None:
        return bool(solver.solve(assumptions=assumptions))
    left = deadline.remaining()
    if not left:
        return None
    if left >= threading.TIMEOUT_MAX:  # centuries: no timer can wait that long (it would raise in its thread)
        return bool(solver.solve(assumptions=assumptions))
    if _interruptible(solver):
        timer = threading.Timer(left, solver.interrupt)
        timer.start()
        try:
            answer = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            timer.join()
            solver.clear_interrupt()
        return None if answer is None else bool(answer)
    budget = 1000
    pace = math.inf  # conflicts per second: the slowest round seen (on big models it varies tenfold)
    while True:
        began = time.monotonic()
        solver.conf_budget(budget)
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return bool(answer)
        left = deadline.remaining()
        if not left:
            return None
        # Grow the budget, but not past what the slowest pace fits into half the time left:
        # rounds shrink towards the deadline, so a round slower than its pace overshoots little.
        pace = min(pace, budget / max(time.monotonic() - began, 1e-6))
        budget = max(100, min(2 * budget, int(pace * left / 2)))
