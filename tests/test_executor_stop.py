"""Stopping batch work never hangs, and a cluster that cannot work is an error, not a wait.

* A worker killed while it wrote its result left half a message in the pool's result pipe; the
  pool's manager thread waited for the rest for ever, and ``concurrent.futures`` joins that
  thread at exit: ``solve --backend dlx --jobs 2 --json`` hung after Ctrl-C (issue 25).
* ``--cluster local:100000`` started workers without a cap (``--jobs`` has one).
* A ``tcp://`` scheduler with no worker: the command waited for ever after "Dask: 0 worker(s)";
  so did a batch whose every worker left on the way (its tasks waited on the scheduler).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sudoku_cp.executor import WORKERS_PER_CORE, ClusterError, Executor, Work, local_workers, run_ordered

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"

HALF_A_RESULT = textwrap.dedent(
    """
    import multiprocessing, os, struct, time
    from concurrent.futures import ProcessPoolExecutor
    from sudoku_cp.executor import _stop

    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"))
    pool.submit(time.sleep, 60)
    time.sleep(1.0)
    # What a worker killed in the middle of writing a big result leaves: a header announcing
    # 1 MiB, then 100 bytes.  The manager thread wakes, reads the header and waits for the rest.
    os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 100)
    time.sleep(1.0)
    _stop(pool)
    print("stopped", flush=True)
    """
)


@pytest.mark.timeout(120)
def test_a_pool_stopped_with_half_a_result_in_its_pipe_lets_the_process_exit() -> None:
    began = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", HALF_A_RESULT], capture_output=True, text=True, timeout=60, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the process hung at exit joining the pool's manager thread")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "stopped\n"
    assert time.monotonic() - began < 60


def test_a_local_cluster_is_capped_like_jobs() -> None:
    cores = os.cpu_count() or 1
    assert local_workers("local:100000") == WORKERS_PER_CORE * cores
    assert local_workers("local:1") == 1
    assert local_workers("local") == cores
    assert local_workers("tcp://127.0.0.1:8786") is None


@pytest.fixture(scope="module")
def empty_scheduler() -> Iterator[str]:
    """A Dask scheduler with no worker."""
    pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'sudoku_cp[dask]'")
    from distributed import LocalCluster

    cluster: Any = LocalCluster(n_workers=0, processes=True, dashboard_address=":0", silence_logs=50)
    with cluster:
        yield str(cluster.scheduler_address)


@pytest.mark.timeout(180)
def test_a_scheduler_without_workers_is_one_line_and_exit_2_after_the_wait(empty_scheduler: str) -> None:
    environment = {**os.environ, "SUDOKU_CP_DASK_WAIT": "2"}
    began = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sudoku_cp", "solve", "--json", "--cluster", empty_scheduler, PUZZLE],
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the command waited for ever for a worker")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = [line for line in done.stderr.splitlines() if not line.startswith("Dask:")]
    assert len(lines) == 1 and "has no worker after 2 s" in lines[0], done.stderr
    assert time.monotonic() - began < 100


def _slow_chunk(chunk: int) -> list[int]:
    time.sleep(0.3)
    return [chunk]


def _crashed_chunk(chunk: int, why: str) -> list[int]:
    return [-1]


@pytest.mark.timeout(180)
def test_every_worker_leaving_mid_batch_is_an_error_after_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'sudoku_cp[dask]'")
    from distributed import LocalCluster

    monkeypatch.setenv("SUDOKU_CP_DASK_WAIT", "2")
    cluster: Any = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
    )
    with cluster:
        # the scheduler's address, not "local": a cluster this command does not own (no nanny of ours)
        results = run_ordered(
            Work(_slow_chunk, _crashed_chunk), range(60), Executor(cluster=cluster.scheduler_address)
        )
        got = [next(results)]  # the batch is under way
        cluster.scale(0)  # every worker leaves
        began = time.monotonic()
        with pytest.raises(ClusterError, match="has had no worker for 2 s with [0-9]+ chunk"):
            got.extend(results)
        assert time.monotonic() - began < 60
    assert got == list(range(len(got))) and len(got) < 60  # in order, and not all of them
