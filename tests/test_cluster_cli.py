"""Batch commands on the executor: --jobs and --cluster give the --jobs 1 output, -o --resume goes on.

The commands run as real processes.  A Dask cluster (two worker processes) is started once for
the module and joined by address (--cluster tcp://...); one test lets a command start its own
(--cluster local).  Timing fields differ from run to run and are left out of comparisons, as is
the ground truth's SAT call count of verify (each worker decides the puzzles it judges).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, read_lines

#: Fields that measure the run rather than its answers.
TIMING = {"seconds", "ms_per_puzzle", "puzzles_per_second", "median_seconds", "mean_seconds", "max_seconds"}
NO_DASK = "Dask is an optional extra: pip install 'sudoku_cp[dask]'"


def _needs_dask() -> None:
    pytest.importorskip("distributed", reason=NO_DASK)


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[Any]:
    """A Dask cluster of two worker processes, for the module's tests."""
    _needs_dask()
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
    ) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def scheduler(local_cluster: Any) -> str:
    """The address of the module's Dask cluster."""
    return str(local_cluster.scheduler_address)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 hard 9x9 puzzles with an unreadable line and one with equal givens among them."""
    lines = read_lines(DATA / "forum_hardest_200.txt", 40)
    lines.insert(3, "12345")
    lines.insert(17, "11" + "." * 79)
    path = tmp_path_factory.mktemp("cluster") / "mixed.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def cli(*argv: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """``sudoku-cp ARGV`` in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "sudoku_cp", *argv], capture_output=True, text=True, timeout=timeout
    )


def _answers(obj: Any) -> Any:
    """A JSON value without its timing fields (and verify's SAT call count)."""
    if isinstance(obj, dict):
        return {
            key: _answers(value) for key, value in obj.items() if key not in TIMING and key != "sat_calls"
        }
    if isinstance(obj, list):
        return [_answers(value) for value in obj]
    return obj


def answers(text: str) -> list[Any]:
    """The JSON Lines of an output, timing left out."""
    return [_answers(json.loads(line)) for line in text.splitlines()]


# ------------------------------------------------------------------------------------------ verify

VERIFY = ("verify", "--backend", "dlx", "--backend", "pysat", "--runs", "2", "--json")


@pytest.mark.timeout(240)
def test_verify_on_a_local_cluster_and_local_processes_gives_the_one_process_output(mixed: Path) -> None:
    _needs_dask()
    alone = cli(*VERIFY, str(mixed), "--jobs", "1")
    assert alone.returncode == 2, alone.stderr  # the unreadable line
    expected = answers(alone.stdout)
    assert len(expected) == 2 * (41 * 2 + 1) + 1
    assert [obj["index"] for obj in expected[:-1]] == list(range(len(expected) - 1))
    for where in (("--jobs", "2"), ("--cluster", "local")):
        run = cli(*VERIFY, str(mixed), *where)
        assert (run.returncode, answers(run.stdout)) == (2, expected), (where, run.stderr[-2000:])
    assert "dashboard" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow  # resume on a cluster: nishio's test; verify's resume: after Ctrl-C below
@pytest.mark.timeout(240)
def test_verify_resumes_a_cut_file_on_a_cluster(mixed: Path, scheduler: str, tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    first = cli(*VERIFY, str(mixed), "--cluster", scheduler, "-o", str(whole))
    assert first.returncode == 2 and first.stdout == "", first.stderr[-2000:]
    text = whole.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) // 3 + 17])  # mid-line, a third of the way
    again = cli(*VERIFY, str(mixed), "--cluster", scheduler, "-o", str(cut), "--resume")
    assert again.returncode == 2, again.stderr[-2000:]
    assert answers(cut.read_text()) == answers(text)


@pytest.mark.timeout(240)
def test_verify_resumes_after_ctrl_c(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(read_lines(DATA / "forum_hardest_200.txt") * 5) + "\n")
    argv = ["verify", "--backend", "dlx", "--json", str(corpus), "--jobs", "2"]
    whole, part = tmp_path / "whole.jsonl", tmp_path / "part.jsonl"
    assert cli(*argv, "-o", str(whole)).returncode == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_cp", *argv, "-o", str(part)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    while process.poll() is None and (not part.exists() or "\n" not in part.read_text()):
        time.sleep(0.01)  # until the first results are written
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=30)
    written = part.read_text()
    if process.returncode == 130:
        assert err.strip().endswith("interrupted") and "Traceback" not in err
        assert '"summary"' not in written and written.endswith("\n")
    again = cli(*argv, "-o", str(part), "--resume")
    assert again.returncode == 0, again.stderr[-2000:]
    assert answers(part.read_text()) == answers(whole.read_text())


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_verify_gives_one_result_per_run_when_a_worker_is_killed_mid_run(
    local_cluster: Any, scheduler: str, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(read_lines(DATA / "forum_hardest_200.txt") * 3) + "\n")
    argv = ["verify", "--backend", "dlx", "--runs", "2", "--json", str(corpus)]
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_cp", *argv, "--cluster", scheduler, "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while process.poll() is None and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.01)  # until the first results follow the header line: the workers are busy
    assert process.poll() is None, "the run ended before a worker could be killed"
    victim = next(iter(local_cluster.workers.values())).pid
    os.kill(victim, signal.SIGKILL)
    _, err = process.communicate(timeout=200)
    assert process.returncode == 0, err[-2000:]
    runs = [json.loads(line) for line in out.read_text().splitlines()[1:-1]]  # header, runs, summary
    assert [obj["index"] for obj in runs] == list(range(3 * 200 * 2))  # each run once, in order
    assert {obj["verdict"] for obj in runs} == {"correct"}  # the lost chunks ran again elsewhere


@pytest.mark.timeout(60)
def test_a_bad_cluster_address_is_one_line_and_exit_2_at_once(mixed: Path, tmp_path: Path) -> None:
    _needs_dask()
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    began = time.monotonic()
    run = cli(*VERIFY, str(mixed), "--cluster", "tcp://127.0.0.1:9", "-o", str(out))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "cannot reach Dask scheduler tcp://127.0.0.1:9" in run.stderr
    assert time.monotonic() - began < 20
    assert out.read_text() == "kept\n"  # the error comes before the output file is opened


WITHOUT_DASK = (
    "import sys; sys.modules['distributed'] = None; from sudoku_cp.cli import main; sys.exit(main())"
)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "--backend", "dlx"],
        ["nishio", "--all-digits", "--json", "--puzzle"],
        ["rate"],
        ["explain"],
        ["reduce", "--verify"],
    ],
    ids=lambda argv: argv[0],
)
def test_cluster_local_without_dask_is_one_line_naming_the_extra(mixed: Path, argv: list[str]) -> None:
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_DASK, *argv, str(mixed), "--cluster", "local"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "sudoku_cp[dask]" in run.stderr, run.stderr


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["verify", "--backend", "dlx", "--resume", "-o", "x.jsonl"], "--resume needs --json"),
        (["verify", "--backend", "dlx", "--resume", "--json"], "--resume needs -o FILE"),
        (["nishio", "--all-digits", "--resume", "-o", "x.jsonl", "--puzzle"], "--resume needs --json"),
        (
            ["nishio", "--all-digits", "--method", "all", "--json", "--resume", "-o", "x", "--puzzle"],
            "one method",
        ),
    ],
)
def test_resume_needs_json_a_file_and_one_line_per_input(
    mixed: Path, argv: list[str], words: str, tmp_path: Path
) -> None:
    argv = [str(tmp_path / word) if word in ("x", "x.jsonl") else word for word in argv]
    run = cli(*argv, str(mixed))
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and words in run.stderr, run.stderr
    assert not list(tmp_path.iterdir())  # refused before any file is written


# ------------------------------------------------------------------------------------------ nishio

NISHIO = ("nishio", "--all-digits", "--json", "--puzzle")


@pytest.mark.timeout(240)
@pytest.mark.parametrize("method", ["dag", pytest.param("sat", marks=pytest.mark.slow)])
def test_nishio_on_a_cluster_gives_the_one_process_output(mixed: Path, scheduler: str, method: str) -> None:
    argv = (*NISHIO, str(mixed), "--method", method, "--count")
    alone = cli(*argv, "--jobs", "1")
    assert alone.returncode == 2, alone.stderr  # the unreadable line
    expected = answers(alone.stdout)
    assert len(expected) == 40 * 9 + 2 and [obj["index"] for obj in expected] == list(range(len(expected)))
    spread = cli(*argv, "--cluster", scheduler)
    assert (spread.returncode, answers(spread.stdout)) == (2, expected), spread.stderr[-2000:]


@pytest.mark.timeout(240)
def test_nishio_resumes_a_cut_file_on_a_cluster(mixed: Path, scheduler: str, tmp_path: Path) -> None:
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert cli(*NISHIO, str(mixed), "-o", str(whole)).returncode == 2
    text = whole.read_text()
    for share in (0.0, 0.5, 1.0):
        cut.write_text(text[: int(len(text) * share) + 9])
        again = cli(*NISHIO, str(mixed), "--cluster", scheduler, "-o", str(cut), "--resume")
        assert again.returncode == 2, again.stderr[-2000:]
        assert cut.read_text() == text if share == 1.0 else answers(cut.read_text()) == answers(text)


# ---------------------------------------------------------------------------------- rate, explain


@pytest.mark.timeout(240)
@pytest.mark.parametrize("command", ["rate", pytest.param("explain", marks=pytest.mark.slow)])
def test_rate_and_explain_on_a_cluster_give_the_one_process_output(
    mixed: Path, scheduler: str, command: str
) -> None:
    alone = cli(command, "--json", str(mixed))
    assert alone.returncode == 2, alone.stderr
    expected = answers(alone.stdout)
    assert [obj["index"] for obj in expected if "index" in obj] == list(range(42))
    spread = cli(command, "--json", str(mixed), "--cluster", scheduler)
    assert (spread.returncode, answers(spread.stdout)) == (2, expected), spread.stderr[-2000:]
