"""Where batch work runs: in this process, in local worker processes, or on a Dask cluster.

Every batch command cuts its input into chunks (hundreds of 9x9 puzzles, one big puzzle, one run
of a sweep) and hands them, with a function that turns a chunk into its results, to
``run_ordered``.  The results come back in input order whatever finishes first, so a command
prints a batch the same way on one core, on ``--jobs N`` local processes and on a cluster:

* ``Executor()`` (the default) runs each chunk here, one after the other;
* ``Executor(jobs=N)`` runs them in N worker processes of this machine (forked, so the workers
  inherit what this process loaded);
* ``Executor(cluster="local")`` starts a Dask ``LocalCluster`` sized to the machine (one worker
  process per core, one thread each; "local:N" for N workers);
  ``Executor(cluster="tcp://host:8786")`` joins a running Dask scheduler.  Dask
  (``pip install 'sudoku_cp[dask]'``) is imported only then.

Nothing is lost: at most ``window`` chunks are out at once and a small reorder buffer holds the
ones that finish early, so memory does not grow with the input.  A chunk whose run kills its
worker is run again (Dask reschedules it; the local pool is restarted); a chunk that kills
workers ``attempts`` times, or whose function raises, gets the results of ``crashed`` (one per
item, naming the failure) instead of stopping the batch.  A worker setup function (the backend
made once per worker process) runs once per process on every executor.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import signal
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .errors import SudokuCpError
from .limits import sigint_held

__all__ = [
    "DEFAULT_ATTEMPTS",
    "WORKERS_PER_CORE",
    "ClusterError",
    "Executor",
    "Work",
    "local_workers",
    "run_ordered",
    "stop_pool",
    "submit_held",
    "usable_cores",
    "worker_wait",
]

C = TypeVar("C")  # a chunk
R = TypeVar("R")  # one item's result

#: Runs of one chunk that may end with its worker's death before its items are reported as crashes.
DEFAULT_ATTEMPTS = 3
#: Worker processes per CPU core at most (``--jobs`` has the same cap): more only compete for the
#: cores, and ``local:100000`` grew by 20 MB a second starting workers that could never all run.
WORKERS_PER_CORE = 4
#: Seconds a command waits for a scheduler with no worker to get one (``SUDOKU_CP_DASK_WAIT``).
WORKER_WAIT = 30.0


class ClusterError(SudokuCpError):
    """A cluster that cannot be used: Dask missing, a scheduler that does not answer."""


@dataclass(frozen=True)
class Work(Generic[C, R]):
    """A batch job: ``run(chunk)`` gives the chunk's results, ``crashed(chunk, why)`` one result per
    item of a chunk that could not be run; ``setup(*setup_args)`` prepares a worker process once.

    All three must be module-level functions (they travel to other processes by name).
    """

    run: Callable[[C], list[R]]
    crashed: Callable[[C, str], list[R]]
    setup: Callable[..., None] | None = None
    setup_args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Executor:
    """Where chunks run: ``jobs`` local processes (1: this process), or a Dask ``cluster``
    ("local" or a scheduler address), with at most ``window`` chunks out at once (default: two
    per worker, plus one) and ``attempts`` runs of a chunk that kills its worker."""

    jobs: int = 1
    cluster: str | None = None
    window: int | None = None
    attempts: int = DEFAULT_ATTEMPTS

    @property
    def parallel(self) -> bool:
        """True when chunks run outside this process."""
        return self.cluster is not None or self.jobs > 1

    def describe(self) -> str:
        """'this process', '4 local processes' or 'Dask cluster tcp://...'."""
        if self.cluster is not None:
            return f"Dask cluster {self.cluster}"
        return "this process" if self.jobs <= 1 else f"{self.jobs} local processes"


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity: ``taskset -c 0`` gives one), else all."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def run_ordered(
    work: Work[C, R],
    chunks: Iterable[C],
    executor: Executor | None = None,
    *,
    notice: Callable[[str], None] | None = None,
) -> Generator[R, None, None]:
    """Every chunk's results, in chunk order, run where ``executor`` says.

    ``notice`` receives one-line messages for the user (the Dask dashboard address).  Closing the
    iterator early (Ctrl-C, a consumer that stops) cancels what is still out and stops the workers.
    """
    executor = executor or Executor()
    if executor.cluster is not None:
        # Connect now: a missing Dask or a scheduler that does not answer is an error before any work.
        client, cluster = _client(executor, notice)
        return _run_dask(work, chunks, executor, client, cluster)
    if executor.jobs > 1:
        return _run_local(work, chunks, executor)
    return _run_here(work, chunks)


def _run_here(work: Work[C, R], chunks: Iterable[C]) -> Generator[R, None, None]:
    if work.setup is not None:
        _prepare(work.setup, work.setup_args)
    for chunk in chunks:
        yield from _guarded(work, chunk)


def _guarded(work: Work[C, R], chunk: C) -> list[R]:
    """The chunk's results, or its crash results when the function raised (not on interrupts)."""
    try:
        return work.run(chunk)
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as problem:  # a bug in one chunk must not lose the rest of the batch
        return work.crashed(chunk, f"{type(problem).__name__}: {problem}")


# ------------------------------------------------------------------------------ worker processes

_prepared: set[bytes] = set()  # the setups already run in this process


def _prepare(setup: Callable[..., None], args: tuple[Any, ...]) -> None:
    key = pickle.dumps((setup.__module__, setup.__qualname__, args))
    if key not in _prepared:
        setup(*args)
        _prepared.add(key)


def _remote(work: Work[C, R], chunk: C) -> list[R]:
    """What a worker runs: the setup once per process, then the chunk."""
    if work.setup is not None:
        _prepare(work.setup, work.setup_args)
    return _guarded(work, chunk)


class _Packed:
    """A chunk that travels as one pickle: Dask serialises a list or tuple item by item, so the
    arrays its items share would be copied once per item (4096 times for a 9x9 chunk)."""

    def __init__(self, value: Any) -> None:
        self.data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

    def unpack(self) -> Any:
        return pickle.loads(self.data)


def _remote_packed(work: Work[C, R], packed: _Packed) -> bytes:
    """What a Dask worker runs: the chunk unpacked, its results packed as one pickle (same reason)."""
    return pickle.dumps(_remote(work, packed.unpack()), protocol=pickle.HIGHEST_PROTOCOL)


def _quiet_worker() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers, they stay quiet.
    # The worker was forked with SIGINT blocked (``submit_held``): one sent meanwhile is dropped now.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def submit_held(pool: Any, function: Callable[..., Any], *arguments: Any) -> Any:
    """``pool.submit(function, *arguments)`` (a ``concurrent.futures`` process pool) with Ctrl-C
    held back meanwhile (``limits.sigint_held``), since a submission may fork the pool's workers.

    A Ctrl-C inside ``os.fork()`` lands in its at-fork hooks (logging's lock release in this
    process, the child's start in the new worker), where Python prints the KeyboardInterrupt as an
    ignored exception's traceback and drops it.  Held, it reaches this process after the fork; the
    workers start with it blocked and unblock it once their initializer has set what it does."""
    with sigint_held():
        return pool.submit(function, *arguments)


def _window(executor: Executor, workers: int) -> int:
    return max(1, executor.window if executor.window is not None else 2 * workers + 1)


class _Reorder(Generic[C, R]):
    """Chunks numbered as they go out; results released in number order."""

    def __init__(self, chunks: Iterable[C]) -> None:
        self.source = enumerate(chunks)
        self.sent = 0  # chunks handed out
        self.next = 0  # the next chunk whose results are due
        self.ready: dict[int, list[R]] = {}
        self.exhausted = False

    def take(self) -> tuple[int, C] | None:
        """The next chunk to send, or None when there is none left."""
        if self.exhausted:
            return None
        item = next(self.source, None)
        if item is None:
            self.exhausted = True
            return None
        self.sent += 1
        return item

    def release(self, number: int, results: list[R]) -> Iterator[R]:
        """Store a chunk's results; yield every result now due, in order."""
        self.ready[number] = results
        while self.next in self.ready:
            yield from self.ready.pop(self.next)
            self.next += 1

    @property
    def out(self) -> int:
        """Chunks handed out whose results have not been released yet."""
        return self.sent - self.next


def _run_local(work: Work[C, R], chunks: Iterable[C], executor: Executor) -> Generator[R, None, None]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    )
    order: _Reorder[C, R] = _Reorder(chunks)
    limit = _window(executor, executor.jobs)
    pending: dict[Future[list[R]], tuple[int, C]] = {}
    # A dead worker breaks the whole pool and every chunk out with it: those chunks become
    # suspects and run again one at a time, so a death is charged to the chunk that caused it.
    suspects: list[tuple[int, C]] = []
    deaths: dict[int, int] = {}

    def start() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(executor.jobs, mp_context=context, initializer=_quiet_worker)

    pool = start()
    try:
        while True:
            if suspects:
                if not pending:
                    item = suspects.pop(0)
                    pending[submit_held(pool, _remote, work, item[1])] = item
            else:
                while len(pending) < limit and order.out < limit:
                    item = order.take()  # type: ignore[assignment]
                    if item is None:
                        break
                    pending[submit_held(pool, _remote, work, item[1])] = item
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken: list[tuple[int, C]] = []
            for future in done:
                number, chunk = pending.pop(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    broken.append((number, chunk))
                    continue
                except Exception as problem:  # e.g. a result that could not be pickled back
                    results = work.crashed(chunk, f"{type(problem).__name__}: {problem}")
                yield from order.release(number, results)
            if not broken:
                continue
            broken += list(pending.values())  # the rest of the pool's work is lost too
            pending.clear()
            _stop(pool)
            pool = start()
            if len(broken) == 1:  # alone in the pool: this chunk killed its worker
                number, chunk = broken[0]
                deaths[number] = deaths.get(number, 0) + 1
                if deaths[number] >= executor.attempts:
                    why = f"worker process died {deaths[number]} times running this chunk"
                    yield from order.release(number, work.crashed(chunk, why))
                    continue
            suspects[:0] = sorted(broken, key=lambda item: item[0])
    finally:
        _stop(pool)


def stop_pool(pool: Any) -> None:
    """Stop a ``concurrent.futures`` process pool now, its workers killed (see ``_stop``): for
    callers that keep one pool of their own across many batches (``fuzz``)."""
    _stop(pool)


def _stop(pool: Any) -> None:
    """Stop a process pool now: cancel what waits, kill the workers (they may be mid-chunk), and
    see its manager thread end.

    A worker killed while it wrote its result leaves half a message in the result pipe; the pool's
    manager thread, woken by it, then waits in ``recv`` for the rest, for ever, since this process
    holds the pipe's writing end too (the workers are forked): ``concurrent.futures`` joins that
    thread at exit and the command hung after Ctrl-C.  Closing our writing end once the workers
    are dead gives the reader an end of file: the manager sees a broken pool and ends.
    """
    processes = list(getattr(pool, "_processes", {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)  # shutdown forgets it
    wakeup = getattr(pool, "_executor_manager_thread_wakeup", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(1.0)
    if all(not process.is_alive() for process in processes):
        writer = getattr(results, "_writer", None)
        with contextlib.suppress(Exception):
            writer.close()  # type: ignore[union-attr]
    with contextlib.suppress(Exception):
        wakeup.wakeup()  # type: ignore[union-attr]
    if manager is not None:
        manager.join(2.0)


# ------------------------------------------------------------------------------------------ Dask


def _client(executor: Executor, notice: Callable[[str], None] | None) -> tuple[Any, Any]:
    """A Dask client (and the LocalCluster it owns, or None) for ``executor.cluster``."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "--cluster needs Dask: pip install 'sudoku_cp[dask]' (or dask[distributed])"
        ) from None
    dask.config.set(
        {
            "distributed.scheduler.allowed-failures": max(0, executor.attempts - 1),
            # Tasks wait on the scheduler, not queued on busy workers: a dying worker then takes
            # down only the chunk it runs, and no waiting chunk is charged with its death.
            "distributed.scheduler.worker-saturation": 1.0,
        }
    )
    cluster = None
    try:
        workers = local_workers(str(executor.cluster))
        asked = str(executor.cluster).partition(":")[2]
        if workers is not None and asked.isdigit() and int(asked) > workers and notice is not None:
            notice(
                f"note: --cluster {executor.cluster} is capped at {workers} workers "
                f"({WORKERS_PER_CORE} per CPU core): more only compete for the cores"
            )
        if workers is not None:
            cluster = _quietly(
                LocalCluster,
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=50,  # logging.CRITICAL: worker restarts are reported as results
            )
            client = Client(cluster)
        else:
            _knock(str(executor.cluster))
            client = Client(executor.cluster, timeout=10)
    except (OSError, TimeoutError, ValueError) as problem:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cannot reach Dask scheduler {executor.cluster}: {problem}") from None
    if cluster is None:
        _wait_for_a_worker(client, str(executor.cluster))
    if notice is not None:
        link = getattr(client, "dashboard_link", None)
        workers = len(client.scheduler_info().get("workers", {}))
        notice(f"Dask: {workers} worker(s); dashboard {link}" if link else f"Dask: {workers} worker(s)")
    return client, cluster


def _wait_for_a_worker(client: Any, address: str) -> None:
    """Return once the scheduler has a worker; ClusterError after ``worker_wait()`` seconds without.

    Tasks sent to a scheduler without workers wait there for ever: the command would hang after
    "Dask: 0 worker(s)".
    """
    seconds = worker_wait()
    try:
        client.wait_for_workers(1, timeout=seconds)
    except (OSError, TimeoutError) as problem:
        with contextlib.suppress(Exception):
            client.close(timeout=2)
        raise ClusterError(
            f"Dask scheduler {address} has no worker after {seconds:g} s: start one with "
            f"'dask worker {address}' ({type(problem).__name__})"
        ) from None


def local_workers(cluster: str) -> int | None:
    """The worker processes of a LocalCluster address: "local" (one per core) or "local:N", at most
    ``WORKERS_PER_CORE`` per core; None for a scheduler address.  Raises ValueError for "local:"
    followed by anything but N >= 1."""
    name, colon, count = cluster.partition(":")
    if name != "local":
        return None
    if not colon:
        return os.cpu_count() or 1
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"{cluster!r}: a local cluster is 'local' or 'local:N' with N >= 1 workers")
    return min(int(count), WORKERS_PER_CORE * (os.cpu_count() or 1))


def worker_wait() -> float:
    """Seconds to wait for a scheduler's first worker: ``$SUDOKU_CP_DASK_WAIT`` or ``WORKER_WAIT``."""
    chosen = os.environ.get("SUDOKU_CP_DASK_WAIT", "")
    try:
        seconds = float(chosen) if chosen else WORKER_WAIT
    except ValueError:
        return WORKER_WAIT
    return seconds if 0 < seconds < 86400 else WORKER_WAIT


def _run_dask(
    work: Work[C, R], chunks: Iterable[C], executor: Executor, client: Any, cluster: Any
) -> Generator[R, None, None]:
    from distributed import as_completed

    finished = False
    try:
        threads = sum(client.nthreads().values()) or 1
        limit = _window(executor, threads)
        order: _Reorder[C, R] = _Reorder(chunks)
        held: dict[int, C] = {}
        flow = as_completed()
        number_of: dict[str, int] = {}
        counter = itertools.count()

        def send() -> None:
            while order.out < limit:
                item = order.take()
                if item is None:
                    return
                number, chunk = item
                held[number] = chunk
                # pure=False: a chunk sent twice (a resumed run) is computed, not served from memory.
                future = client.submit(
                    _remote_packed, work, _Packed(chunk), pure=False, key=f"chunk-{number}-{next(counter)}"
                )
                number_of[future.key] = number
                flow.add(future)

        send()
        for future in _arrivals(flow, client, str(executor.cluster)):
            number = number_of.pop(future.key)
            chunk = held.pop(number)
            if future.status == "error":
                problem = future.exception()
                why = (
                    f"workers died {executor.attempts} times running this chunk"
                    if type(problem).__name__ == "KilledWorker"
                    else f"{type(problem).__name__}: {problem}"
                )
                results = work.crashed(chunk, why)
            else:
                results = pickle.loads(future.result())
            future.release()
            yield from order.release(number, results)
            send()
        finished = True
    finally:
        if cluster is not None:
            # Dask logs the closing of its own connections (tracebacks at INFO level), and the
            # LocalCluster's silence ends with its close, before the last of them.
            import logging  # only Dask runs get here: kept out of every command's start-up

            logging.getLogger("distributed").setLevel(logging.ERROR)
            if not finished:
                _kill_workers(cluster)  # stopped early: a worker busy in a chunk would hold the close
        with contextlib.suppress(Exception):
            client.close(timeout=2)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=2)


#: Seconds at most between two looks at the workers of a Dask batch that has no result ready.
_POLL = 0.2


def _arrivals(flow: Any, client: Any, address: str) -> Iterator[Any]:
    """The futures of ``flow`` (an ``as_completed``) as they finish, while more may be added.

    Tasks left on a scheduler whose every worker has gone wait there for ever: ClusterError once
    it has had no worker for ``worker_wait()`` seconds with work still out, as when it had none
    at the start.
    """
    seconds = worker_wait()
    alone_since: float | None = None
    while not flow.is_empty():
        if flow.has_ready():
            alone_since = None
            yield from flow.next_batch(block=False)
            continue
        with flow.thread_condition:  # notified when a future finishes
            flow.thread_condition.wait(timeout=_POLL)
        if flow.has_ready() or client.nthreads():
            alone_since = None
            continue
        now = time.monotonic()
        alone_since = now if alone_since is None else alone_since
        if now - alone_since >= seconds:
            raise ClusterError(
                f"Dask scheduler {address} has had no worker for {seconds:g} s with {flow.count()} "
                f"chunk(s) still to run: start one with 'dask worker {address}' (results so far are "
                "written; --resume goes on from them)"
            )


def _knock(address: str) -> None:
    """Fail at once on a TCP scheduler address where nothing listens (Dask would retry until its
    timeout); OSError names why."""
    scheme, _, rest = address.rpartition("://")
    host, _, port = rest.rpartition(":")
    if scheme not in ("", "tcp") or not host or not port.isdigit():
        return  # another transport, or no port: Dask's own connection says what is wrong
    import socket  # only Dask runs get here: kept out of every command's start-up

    with socket.create_connection((host.strip("[]"), int(port)), timeout=10):
        pass


def _kill_workers(cluster: Any) -> None:
    """Kill the worker processes of a LocalCluster (Dask cannot stop a task that is running)."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        with contextlib.suppress(Exception):
            nanny.close_gracefully()  # the nanny then closes instead of starting a new worker
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _quietly(make: Callable[..., Any], **options: Any) -> Any:
    """``make(**options)`` with Ctrl-C ignored meanwhile: the worker processes it starts inherit
    that, so a Ctrl-C meant for this command (sent to its whole process group) does not kill them
    mid-task with a traceback; this process stops them instead.  (A signal mask would keep a
    Ctrl-C made meanwhile, but the spawned workers do not inherit masks; one made during the
    cluster's start is lost.)"""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to change
        return make(**options)
    try:
        return make(**options)
    finally:
        signal.signal(signal.SIGINT, previous)
