"""The executor layer: results in input order, one per item, whatever the workers do."""

from __future__ import annotations

import sys
from pathlib import Path

import executor_work as ew
import pytest

from sudoku_cp.executor import ClusterError, Executor, Work, run_ordered

WORK = Work(ew.double, ew.crashed, ew.setup_marker, ("t",))


def _expected(chunks: list[list[int]]) -> list[str]:
    return [f"t:{2 * x}" for chunk in chunks for x in chunk]


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_in_input_order_with_the_setup_run(jobs: int) -> None:
    chunks = [list(range(i, i + 3)) for i in range(0, 60, 3)]
    got = list(run_ordered(WORK, chunks, Executor(jobs=jobs, window=3)))
    assert got == _expected(chunks)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_chunk_that_raises_gives_crash_results_and_the_rest_goes_on(jobs: int) -> None:
    chunks = [[1, 2], [-2, 5], [3]]
    got = list(run_ordered(WORK, chunks, Executor(jobs=jobs)))
    assert got == ["t:2", "t:4", "crash(ValueError)", "crash(ValueError)", "t:6"]


@pytest.mark.timeout(120)
def test_a_chunk_that_kills_its_worker_is_a_crash_and_no_other_item_is_lost() -> None:
    chunks = [[1], [2], [-1, 7], [3], [4], [5]]
    got = list(run_ordered(WORK, chunks, Executor(jobs=2, attempts=2)))
    assert got[:2] == ["t:2", "t:4"] and got[4:] == ["t:6", "t:8", "t:10"]
    assert got[2] == got[3] and got[2].startswith("crash(worker process died 2 times")


@pytest.mark.timeout(120)
def test_a_chunk_whose_worker_died_once_runs_again(tmp_path: Path) -> None:
    marker = str(tmp_path / "died-once")
    chunks = [(marker, [1, 2]), (marker, [3])]
    work = Work(ew.until_marked, ew.crashed)
    assert list(run_ordered(work, chunks, Executor(jobs=2))) == ["1", "2", "3"]


def test_a_cluster_without_dask_or_scheduler_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    with pytest.raises(ClusterError, match=r"sudoku_cp\[dask\]"):
        list(run_ordered(WORK, [[1]], Executor(cluster="local")))


# ------------------------------------------------------------------------------------- Dask itself


def _needs_dask() -> None:
    pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'sudoku_cp[dask]'")


@pytest.mark.timeout(180)
def test_a_dask_local_cluster_gives_the_same_results_and_survives_a_killed_worker() -> None:
    _needs_dask()
    chunks = [[1, 2], [3], [-1], [4, 5], [-2], [6]]
    notes: list[str] = []
    got = list(run_ordered(WORK, chunks, Executor(cluster="local", attempts=2), notice=notes.append))
    assert got[:3] == ["t:2", "t:4", "t:6"] and got[4:6] == ["t:8", "t:10"] and got[7] == "t:12"
    assert got[3].startswith("crash(workers died") and got[6] == "crash(ValueError)"
    assert notes and "dashboard" in notes[0]


@pytest.mark.timeout(60)
def test_a_bad_scheduler_address_is_a_cluster_error() -> None:
    _needs_dask()
    with pytest.raises(ClusterError, match="cannot reach Dask scheduler"):
        list(run_ordered(WORK, [[1]], Executor(cluster="tcp://127.0.0.1:9")))


@pytest.mark.timeout(120)
def test_results_that_cannot_come_back_from_a_worker_are_crash_results() -> None:
    work = Work(ew.unpicklable, ew.crashed_any)
    got = list(run_ordered(work, [[1, 2], [3]], Executor(jobs=2)))
    assert len(got) == 3 and all(str(one).startswith("crash(") for one in got)
