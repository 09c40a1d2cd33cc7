"""``sudoku-cp solve`` on the executor: --jobs and a real Dask LocalCluster give the same lines as
one process, a killed worker loses nothing, and -o FILE --resume continues an interrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
COMMAND = [sys.executable, "-m", "sudoku_cp", "solve", "--json", "--no-progress"]
TIMING = ("seconds", "ms_per_puzzle", "puzzles_per_second")


def _normal(text: str) -> list[dict[str, object]]:
    """The JSON lines without their timings (they differ from run to run) and a results file's header."""
    lines = []
    for line in text.splitlines():
        obj = json.loads(line)
        if "sudoku_cp_results" in obj:
            continue
        for part in (obj, obj.get("summary", {})):
            for key in TIMING:
                part.pop(key, None)
        lines.append(obj)
    return lines


def _mixed_batch(tmp_path: Path, copies: int = 1) -> Path:
    lines = (DATA / "forum_hardest_200.txt").read_text().splitlines()[:60]
    bad = ["12345", "11" + "." * 79, "# a comment"]
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join((lines[:30] + bad + lines[30:]) * copies) + "\n")
    return path


def _run(*options: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *options], capture_output=True, text=True, timeout=timeout)


def _needs_dask() -> None:
    pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'sudoku_cp[dask]'")


@pytest.mark.timeout(240)
def test_jobs_and_a_local_cluster_give_the_lines_of_one_process(tmp_path: Path) -> None:
    path = _mixed_batch(tmp_path)
    alone = _run(str(path))
    assert alone.returncode == 2, alone.stderr  # the invalid lines make it exit 2
    jobs = _run("--jobs", "2", str(path))
    assert _normal(jobs.stdout) == _normal(alone.stdout)
    _needs_dask()
    cluster = _run("--cluster", "local", str(path))
    assert cluster.returncode == 2 and _normal(cluster.stdout) == _normal(alone.stdout)
    assert "dashboard" in cluster.stderr and "Traceback" not in cluster.stderr


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@pytest.mark.timeout(300)
@pytest.mark.parametrize("where", ["jobs", "cluster"])
def test_a_worker_killed_mid_run_loses_no_result(tmp_path: Path, where: str) -> None:
    if where == "cluster":
        _needs_dask()
    path = _mixed_batch(tmp_path, copies=6)
    expected = _normal(_run(str(path)).stdout)
    place = ["--jobs", "2"] if where == "jobs" else ["--cluster", "local"]
    # CaDiCaL on the full CNF of every hard puzzle with --unique: seconds of work to interrupt.
    slow = ["--backend", "pysat:cadical195", "--encoding", "extended", "--unique"]
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen([*COMMAND, *place, *slow, "-o", str(out), str(path)], stderr=subprocess.PIPE)
    killed = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None and not killed:
        time.sleep(0.2)
        workers = [pid for pid in _descendants(process.pid) if not _descendants(pid)]  # the leaves
        if out.exists() and out.stat().st_size > 0 and workers:
            os.kill(workers[-1], signal.SIGKILL)
            killed = 1
    _, err = process.communicate(timeout=240)
    assert killed, "the run ended before a worker could be killed"
    got = _normal(out.read_text())
    assert [obj.get("index") for obj in got[:-1]] == list(range(len(expected) - 1)), err
    statuses = [obj["status"] for obj in got[:-1]]
    assert statuses == [obj["status"] for obj in expected[:-1]], err  # the killed chunk ran again
    assert b"Traceback" not in err


@pytest.mark.timeout(300)
def test_resume_after_an_interrupted_run_gives_the_uninterrupted_file(tmp_path: Path) -> None:
    path = _mixed_batch(tmp_path, copies=10)
    slow = ["--backend", "pysat:cadical195", "--encoding", "extended", "--unique"]
    whole = tmp_path / "whole.jsonl"
    assert _run(*slow, "-o", str(whole), str(path)).returncode == 2
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [*COMMAND, *slow, "--jobs", "2", "-o", str(out), str(path)],
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 40):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    written = out.read_text()
    assert 40 <= written.count("\n") < len(_normal(whole.read_text())) and "summary" not in written
    again = _run(*slow, "-o", str(out), "--resume", str(path))
    assert again.returncode == 2, again.stderr
    assert _normal(out.read_text()) == _normal(whole.read_text())


def test_resume_needs_a_file_and_json(tmp_path: Path) -> None:
    path = _mixed_batch(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "solve", "--resume", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--resume needs -o FILE" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.timeout(60)
def test_a_bad_cluster_address_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = _mixed_batch(tmp_path)
    for address, words in (
        ("tcp://127.0.0.1:9", "cannot reach Dask scheduler"),
        ("nowhere", "neither 'local'"),
    ):
        if address.startswith("tcp"):
            _needs_dask()
        began = time.monotonic()
        done = _run("--cluster", address, str(path))
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
        assert time.monotonic() - began < 20


def test_a_local_cluster_without_dask_names_the_extra(tmp_path: Path) -> None:
    path = _mixed_batch(tmp_path)
    code = (
        "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None\n"
        "from sudoku_cp.cli import main\n"
        f"sys.exit(main(['solve', '--json', '--cluster', 'local', {str(path)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "sudoku_cp[dask]" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""


@pytest.mark.timeout(240)
def test_certificates_made_on_a_local_cluster_are_written_here_and_hold(tmp_path: Path) -> None:
    _needs_dask()
    from sudoku_cp.certify.check import check_certificate

    path = _mixed_batch(tmp_path)
    certs = tmp_path / "certs"
    run = _run("--unique", "--certify", str(certs), "--cluster", "local:2", str(path))
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    answered = [line for line in lines if line.get("status") in ("solved", "unsat", "multiple")]
    assert len(answered) == 60, run.stderr  # the bad lines are invalid: they claim nothing
    assert all(check_certificate(line["certificate"]).holds for line in answered)
