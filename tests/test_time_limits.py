"""Time limits and sizes on big grids: every phase inside the limit, big models refused up front.

Issue 11, defect 3: singles propagation ran outside the time limit (a 400x400 grid was still
propagating after ten minutes of a 5 s limit).  Defect 4: ``encode --to cnf`` of a 400x400 grid
tried to allocate 95 GiB, and a time limit of centuries printed a timer thread's traceback.  Here:
an answer stopped by the limit is ``unknown`` with the phase in its reason, within the limit plus
a little; a model that cannot fit in memory is refused, from an estimate, in one line.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import BIG_INPUT_SLACK, SHARED, within_limit
from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from sudoku_cp import limits
from sudoku_cp.api import BackendOptions, solve, solve_items
from sudoku_cp.backends.base import SearchResult
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.cli import main
from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.cpsat import build_cpsat_model
from sudoku_cp.exact_cover import build_exact_cover
from sudoku_cp.formats import PuzzleItem, format_ints, format_line
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline, ModelTooLarge, TimeLimitReached, process_started, solve_limited
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status
from sudoku_cp.propagation import propagate
from sudoku_cp.random_grids import random_puzzle

#: Half blank, no single anywhere: a long search for every backend.
HARD100 = random_puzzle(Geometry(10, 10), 0.5, np.random.default_rng(1))
HARD64 = random_puzzle(Geometry(8, 8), 0.5, np.random.default_rng(1))
#: A long chain of singles: propagation alone takes several rounds.
CHAIN100 = random_puzzle(Geometry(10, 10), 0.3, np.random.default_rng(1))
EASY9 = random_puzzle(Geometry(3, 3), 0.5, np.random.default_rng(1))


# ------------------------------------------------------------------------------------------ deadline


def test_a_phase_stopped_by_the_deadline_is_named_and_counts_as_timed_out() -> None:
    with pytest.raises(TimeLimitReached) as stop:
        Deadline(0.0).check("propagation")
    assert str(stop.value) == "time limit reached during propagation"
    assert stop.value.phase == "propagation"
    assert SearchResult(np.zeros((0, 9, 9), np.int16), False, reason=str(stop.value)).timed_out
    Deadline(None).check("propagation")  # no limit: never raises
    Deadline(60).check("propagation")


def test_a_deadline_can_start_when_the_process_started() -> None:
    started = process_started()
    assert started <= time.monotonic()
    clock = Deadline(3600, began=started)
    assert clock.elapsed() >= 0 and clock.began == started
    assert Deadline(1, began=time.monotonic() + 100).elapsed() < 1  # never starts in the future


# ------------------------------------------------------------------------------------------ phases


def test_propagation_stops_at_its_deadline() -> None:
    assert (propagate(CHAIN100).values == 0).sum() < (CHAIN100.values == 0).sum()  # it has work to do
    with pytest.raises(TimeLimitReached, match="during propagation"):
        propagate(CHAIN100, deadline=Deadline(0.0))
    began = time.monotonic()
    with pytest.raises(TimeLimitReached, match="during propagation"):
        propagate(CHAIN100, deadline=Deadline(0.005))
    assert within_limit(time.monotonic() - began, 0.005)


@pytest.mark.parametrize("path", ["batch", "one"])
def test_pysat_on_a_100x100_grid_says_unknown_during_propagation(path: str) -> None:
    limit = 0.02
    if path == "batch":
        solve_items([PuzzleItem(0, 1, EASY9)], BackendOptions())  # imports and first calls out of the way
        began = time.monotonic()
        result = next(iter(solve_items([PuzzleItem(0, 1, CHAIN100)], BackendOptions(), time_limit=limit)))
    else:
        backend = make_backend("pysat", encoding="optimized")
        solve(EASY9, backend)
        began = time.monotonic()
        result = solve(CHAIN100, backend, time_limit=limit)
    elapsed = time.monotonic() - began
    assert result.status is Status.UNKNOWN
    assert result.error == "time limit reached during propagation"
    assert within_limit(elapsed, limit), elapsed


BACKENDS = {
    "pysat": lambda: make_backend("pysat"),
    "pysat:optimized": lambda: make_backend("pysat", encoding="optimized"),
    "cpsat": lambda: make_backend("cpsat"),
    "cpsat:alldiff": lambda: make_backend("cpsat:alldiff"),
    "dlx": lambda: make_backend("dlx"),
    "backtrack": lambda: make_backend("backtrack"),
}


# Measured in a fresh interpreter, as a user's process runs it: late in a full test run (two
# thousand tests in this process) pysat:optimized overshot 1 s by 0.23-0.28 s, twice, where a
# fresh process answers in 1.0-1.07 s; the cause was not found (not the garbage collector).
_MEASURE = """
import sys, time
sys.path.insert(0, {tests!r})
import test_time_limits as t
from sudoku_cp.api import solve
backend = t.BACKENDS[{name!r}]()
solve(t.EASY9, backend)  # numba's and OR-tools' first calls out of the way
began = time.monotonic()
result = solve(t.HARD64 if {name!r} == "backtrack" else t.HARD100, backend, time_limit={limit})
print(time.monotonic() - began, result.status.value, result.error or "", sep="\\t")
"""


#: The variants of a backend (another encoding or model) check their limits in the slow stage.
@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if ":" in name else name for name in BACKENDS]
)
def test_every_backend_answers_unknown_within_a_short_limit_on_a_big_grid(name: str) -> None:
    limit = 1.0  # long enough that 10 % of it is more than a busy machine's pauses
    code = _MEASURE.format(tests=str(Path(__file__).parent), name=name, limit=limit)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    elapsed, status, error = run.stdout.strip().split("\t")
    assert status == Status.UNKNOWN.value, run.stdout
    assert error.startswith(REASON_TIME_LIMIT), error
    assert within_limit(float(elapsed), limit), elapsed


def test_a_shared_deadline_spent_before_the_call_is_reported_as_parsing() -> None:
    spent = Deadline(0.0)
    result = next(iter(solve_items([PuzzleItem(0, 1, EASY9)], BackendOptions(), time_limit=spent)))
    assert result.status is Status.UNKNOWN and result.error == "time limit reached during parsing"


def test_the_command_line_limit_covers_the_whole_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "chain100.txt"
    path.write_text(format_ints(CHAIN100))
    # The suite's heap is large by now: a full collection inside the measured 0.05 s took 0.2 s
    # (a command's own heap is small).  Collect first and keep the survivors out of later passes.
    gc.collect()
    gc.freeze()
    try:
        began = time.monotonic()
        code = main(["solve", "--time-limit", "0.05", str(path)])
        elapsed = time.monotonic() - began
    finally:
        gc.unfreeze()
    out = capsys.readouterr().out
    assert code == 3 and out.startswith("unknown: time limit reached during"), out
    assert within_limit(elapsed, 0.05), elapsed


# ------------------------------------------------------------------------------------------ memory

EMPTY400 = Grid.empty(geometry_for_size(400))


def _one_line(message: str) -> None:
    assert "\n" not in message and len(message) < 300, message


def test_a_400x400_cnf_is_refused_before_anything_is_allocated() -> None:
    began = time.monotonic()
    with pytest.raises(ModelTooLarge) as refused:
        encode_cnf(EMPTY400, "extended", "pairwise", use="write")
    assert time.monotonic() - began < 1.0
    message = str(refused.value)
    _one_line(message)
    assert "51,072,640,000 clauses" in message and "GiB" in message and "--encoding optimized" in message


def test_a_refusal_suggests_only_what_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "memory_budget", lambda: 8 << 30)
    import sudoku_cp.cnf.sudoku as cnf_sudoku

    monkeypatch.setattr(cnf_sudoku, "memory_budget", lambda: 8 << 30)
    with pytest.raises(ModelTooLarge) as pairwise:
        encode_cnf(EMPTY400, "extended", "pairwise")
    assert "--amo seqcounter" not in str(pairwise.value)  # 8.6 GiB: no better here
    monkeypatch.setattr(limits, "memory_budget", lambda: 64 << 30)
    monkeypatch.setattr(cnf_sudoku, "memory_budget", lambda: 64 << 30)
    with pytest.raises(ModelTooLarge) as wider:
        encode_cnf(EMPTY400, "extended", "pairwise")
    assert "--amo seqcounter" in str(wider.value)


def test_exact_cover_and_cpsat_models_of_400x400_are_refused() -> None:
    with pytest.raises(ModelTooLarge, match=r"exact cover model .*\(64,000,000 options\)"):
        build_exact_cover(EMPTY400, use="solve")
    with pytest.raises(ModelTooLarge, match="CP-SAT bool model") as refused:
        build_cpsat_model(EMPTY400, "bool", use="write")
    _one_line(str(refused.value))
    assert "--model alldiff" in str(refused.value)


def test_propagation_tables_that_cannot_fit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "memory_budget", lambda: 100 << 20)
    with pytest.raises(ModelTooLarge, match="propagating 1 puzzle"):
        propagate(EMPTY400)


@pytest.mark.parametrize(
    "backend,encoding", [("pysat", "extended"), ("pysat:minisat22", "minimal"), ("cpsat", None)]
)
def test_solve_answers_unknown_for_a_model_that_cannot_fit(backend: str, encoding: str | None) -> None:
    began = time.monotonic()
    result = solve(EMPTY400, make_backend(backend, encoding=encoding))
    assert result.status is Status.UNKNOWN
    assert "would need about" in (result.error or "") and "GiB" in (result.error or "")
    _one_line(result.error or "")
    assert time.monotonic() - began < 1.0


@pytest.fixture(scope="module")
def empty400_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "empty400.txt"
    path.write_text("\n".join(" ".join(["0"] * 400) for _ in range(400)) + "\n")
    return path


@pytest.mark.parametrize("to", ["cnf", "xc", "cpsat"])
def test_encode_refuses_a_400x400_model_in_one_line(
    capsys: pytest.CaptureFixture[str], empty400_file: Path, to: str
) -> None:
    code = main(["encode", "--format", "ints", "--to", to, str(empty400_file)])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert "would need about" in lines[0] and "GiB" in lines[0] and "Traceback" not in err


# ------------------------------------------------------------------------------------------ pysat timer


def test_a_limit_of_centuries_starts_no_timer_that_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_value))
    with Solver(name="minisat22", bootstrap_with=PHP(7).clauses) as solver:  # tenths of a second
        assert solve_limited(solver, [], Deadline(1e300)) is False
    time.sleep(0.05)
    assert failures == []  # was: OverflowError in the timer's thread, a traceback on stderr


def test_the_command_line_prints_no_thread_traceback_for_a_huge_limit(tmp_path: Path) -> None:
    puzzle = tmp_path / "hard25.txt"
    # Minisat takes about 20 ms on it: long enough for a timer's thread to start waiting.
    puzzle.write_text(format_line(random_puzzle(Geometry(5, 5), 0.7, np.random.default_rng(4))) + "\n")
    command = [sys.executable, "-m", "sudoku_cp", "solve", "--backend", "pysat:minisat22"]
    done = subprocess.run(
        [*command, "--encoding", "optimized", "--time-limit", "1e300", str(puzzle)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""


def test_the_count_limit_covers_reading_the_puzzle(tmp_path: Path) -> None:
    puzzle = tmp_path / "easy.txt"
    puzzle.write_text(format_line(random_puzzle(Geometry(3, 3), 0.5, np.random.default_rng(2))) + "\n")
    command = [sys.executable, "-m", "sudoku_cp", "count", "--time-limit", "0.05", "--json", str(puzzle)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    # The interpreter's start-up alone outlasts 0.05 s: the clock starts with the process (it
    # started at the count itself, so an easy puzzle was counted exactly).
    assert done.returncode == 3, done.stdout + done.stderr
    assert json.loads(done.stdout)["timed_out"] is True


# ------------------------------------------------------------------------------------------ whole runs

BIG_CASES = [
    (size, limit, backend)
    for size in (225, 400)
    for limit in (2.0, 5.0)
    for backend in ("pysat", "pysat --encoding optimized", "cpsat", "cpsat:alldiff", "dlx", "backtrack")
]


def _case_marks(size: int, limit: float, backend: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.slow, pytest.mark.timing]


@pytest.mark.parametrize(
    "size,limit,backend",
    [
        pytest.param(*case, marks=_case_marks(*case), id=f"{case[0]}-{case[1]:g}s-{case[2]}")
        for case in BIG_CASES
    ],
)
def test_whole_process_honours_the_limit_on_big_grids(size: int, limit: float, backend: str) -> None:
    path = SHARED / "big" / f"sudoku-{size}-1.txt"
    if not path.exists():
        pytest.skip(f"shared corpus file big/sudoku-{size}-1.txt is absent")
    name, *options = backend.split()
    began = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sudoku_cp",
            "solve",
            "--backend",
            name,
            *options,
            "--time-limit",
            str(limit),
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.monotonic() - began
    # Within the limit a faster path may solve it (exit 0, a checked grid); otherwise unknown.
    solved = done.returncode == 0 and not done.stdout.startswith("unknown")
    assert solved or (done.returncode == 3 and done.stdout.startswith("unknown: ")), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert within_limit(elapsed, limit, BIG_INPUT_SLACK), (
        f"{elapsed:.2f} s for a {limit} s limit: {done.stdout.strip()}"
    )
