"""Where a fuzzing run's calls run: one set of worker processes for the whole run.

A run alternates between judging cases and shrinking a failure, and shrinking is many small
batches (one per ddmin step, each a handful of candidate puzzles).  With worker processes
started per batch, a command-line run (whose own process makes nothing) had every batch's new
workers make their ground truth and case generator afresh, and ``--jobs 2`` was no faster than
one job (benchmarks/README.md, ``fuzz.py``); so ``CallPool`` starts ``jobs`` workers once
(forked, so they inherit the Python solvers registered before) and sends every batch to them.

Before the workers are forked, this process makes what their first calls would make
(``calls.warm_up``: the ground truth, the case generator's kernels), so they start warm.

``outcomes(calls)`` gives the calls' outcomes in call order, at most ``window`` out at once;
closing it early (the shrinker found its failing candidate) cancels the calls not started and
lets the running ones finish unseen: a program is killed at its time limit, so they are short.
A call whose worker dies is run again alone; one that kills its worker there is a crash of the
solver (it ran there; retried more often, every death would cost a fresh pool of cold workers,
whose solvers, truths and compiled kernels are made again).  With one job the calls run here;
on a Dask cluster each batch goes through ``executor.run_ordered``.
"""

from __future__ import annotations

import math
import os
import signal
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future
from types import TracebackType
from typing import Any

from ..executor import Executor, run_ordered, stop_pool, submit_held
from ..limits import Sigint
from .calls import CALL_WORK, Call, Outcome, crashed, run_call, warm_up

__all__ = ["CallPool"]

_LINGER = 5.0  # seconds a call left running gets to end at the close, beyond twice its time limit
_STOP_GRACE = 2.0  # seconds the calls running at a Ctrl-C get to kill their programs
_calling = False  # in a worker: whether a call is running
_stopped = False  # in a worker: a Ctrl-C came; the calls already queued to it are not run


def _guarded(call: Call) -> Outcome:
    """The call's outcome; a bug of ours while running it is the call's crash, not the run's end."""
    global _calling
    if _stopped:
        raise KeyboardInterrupt
    _calling = True
    try:
        return run_call(call)
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as problem:
        return crashed(call, f"{type(problem).__name__}: {problem}")
    finally:
        _calling = False


def _interrupted(signum: int, frame: object) -> None:
    # Ctrl-C reaches the whole process group.  A call running stops as it would in this process
    # (its program's process group killed: a worker killed meanwhile would leave the program
    # running); an idle worker ends quietly, the parent stops the pool.
    global _stopped
    _stopped = True
    if _calling:
        raise KeyboardInterrupt
    os._exit(130)


def _quiet_worker() -> None:
    signal.signal(signal.SIGINT, _interrupted)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # forked with it held (submit_held)


class CallPool:
    """The calls of one fuzzing run, run where ``executor`` says (see the module docstring)."""

    def __init__(self, executor: Executor | None = None, warm: Call | None = None) -> None:
        self.executor = executor or Executor()
        self.warm = warm  # a call like the run's: what to make before the workers are forked
        limit = warm.time_limit if warm is not None else None
        # How long a call left running may take to end: a program is killed at its time limit.
        self.linger = _LINGER if limit is None or not math.isfinite(limit) else 2 * limit + _LINGER
        self._pool: Any = None  # a ProcessPoolExecutor, started at the first batch
        self._running: set[Future[Outcome]] = set()

    @property
    def jobs(self) -> int:
        """Calls that can run at once (1 in this process; a cluster counts as 2 here)."""
        if self.executor.cluster is not None:
            return 2
        return max(1, self.executor.jobs)

    def outcomes(self, calls: Iterable[Call], window: int | None = None) -> Generator[Outcome, None, None]:
        """The outcomes of ``calls`` in order, at most ``window`` (default: two per job) out at once."""
        if self.executor.cluster is not None:
            return run_ordered(CALL_WORK, ([call] for call in calls), self.executor)
        if self.executor.jobs <= 1:
            return (_guarded(call) for call in calls)
        return self._local(iter(calls), max(1, window or 2 * self.jobs))

    def _start(self) -> Any:
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            if self.warm is not None and "fork" in methods:
                warm_up(self.warm)
                self.warm = None  # once: after a worker's death the new ones inherit it too
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_quiet_worker)
        return self._pool

    def _local(self, calls: Iterator[Call], window: int) -> Generator[Outcome, None, None]:
        from concurrent.futures.process import BrokenProcessPool

        out: deque[tuple[Call, Future[Outcome]]] = deque()
        try:
            while True:
                while len(out) < window:
                    call = next(calls, None)
                    if call is None:
                        break
                    out.append((call, self._submit(call)))
                if not out:
                    return
                call, future = out[0]
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    Sigint.check()  # an idle worker ends at a Ctrl-C: no new pool then
                    # Every call out was lost with the pool: each runs again alone, in order, so
                    # a death is charged to the call that caused it.
                    lost = [call for call, _ in out]
                    out.clear()
                    self._restart()
                    for call in lost:
                        yield self._alone(call)
                    continue
                out.popleft()
                yield outcome
        finally:
            for _, future in out:
                future.cancel()  # those not started; the running ones finish unseen

    def _alone(self, call: Call) -> Outcome:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self._submit(call).result()
        except BrokenProcessPool:
            self._restart()
        return crashed(call, "the worker process died running this call alone")

    def _submit(self, call: Call) -> Future[Outcome]:
        future: Future[Outcome] = submit_held(self._start(), _guarded, call)
        self._running = {f for f in self._running if not f.done()}
        self._running.add(future)
        return future

    def _restart(self) -> None:
        if self._pool is not None:
            stop_pool(self._pool)
            self._pool = None

    def close(self, wait: bool = True) -> None:
        """Stop the workers; the calls still running first get ``linger`` seconds to end (a worker
        killed mid-call cannot kill the program it runs, which would be left behind), or without
        ``wait`` (Ctrl-C, which stops them) a moment to kill their programs."""
        if self._pool is not None:
            from concurrent.futures import wait as wait_for

            left = [f for f in self._running if not f.cancel()]
            wait_for(left, timeout=self.linger if wait else _STOP_GRACE)
        self._running.clear()
        self._restart()

    def __enter__(self) -> CallPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close(wait=kind is None)
