"""Ctrl-C (SIGINT sent to a real process) stops any command within a second: 'interrupted', exit 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pysat.card import CardEnc

from sudoku_cp.cnf.sudoku import card_template
from sudoku_cp.cpsat import build_cpsat_model, new_solver, run_solver
from sudoku_cp.executor import _quiet_worker, submit_held
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import sigint_held
from sudoku_cp.nishio import cnf as cnf_module
from sudoku_cp.nishio.cnf import encode_nishio_cnf
from sudoku_cp.nishio.instance import NishioInstance

EMPTY_9X9 = "." * 81  # 6.67e21 solutions: counting never ends by itself


DATA = Path(__file__).parent / "data"


def _interrupt(argv: list[str], *, twice: bool = False, wait: float = 3.0) -> tuple[int, str, str, float]:
    """Start ``sudoku-cp ARGV`` in its own process group, send SIGINT to the group as a terminal's Ctrl-C
    does (workers included), and return the exit code, stdout, stderr and seconds from signal to exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_cp", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(wait)  # past start-up and compilation: the work is running
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    if twice:
        time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=20)
    waited = time.monotonic() - sent
    with pytest.raises(ProcessLookupError):  # nothing of the group is left behind
        for _ in range(50):
            os.killpg(process.pid, 0)
            time.sleep(0.02)
    return process.returncode, out, err, waited


@pytest.fixture(scope="module")
def long_batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 hard 9x9 puzzles: no backend finishes them in the few seconds a test waits."""
    lines = [line for line in (DATA / "forum_hardest_200.txt").read_text().splitlines() if line.strip()]
    path = tmp_path_factory.mktemp("interrupt") / "batch.txt"
    path.write_text("\n".join(lines * 50) + "\n")
    return path


@pytest.fixture(scope="module")
def formulas(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """40 copies of a SATLIB formula for reduce --verify."""
    folder = tmp_path_factory.mktemp("formulas")
    text = (DATA / "satlib" / "uf50-01.cnf").read_text()
    paths = [folder / f"f{k}.cnf" for k in range(40)]
    for path in paths:
        path.write_text(text)
    return [str(path) for path in paths]


SLOW = pytest.mark.slow  # the same paths as a default case, through another backend

COUNTS = [
    pytest.param(["count", "--backend", backend, "--limit", "1000000000", EMPTY_9X9], marks=marks)
    for backend, marks in (
        ("cpsat", ()),
        ("cpsat:alldiff", SLOW),
        ("dlx", ()),
        ("backtrack", SLOW),
        ("pysat", ()),
    )
]
BATCHES = [
    pytest.param(["solve", "--backend", "cpsat", "{batch}"]),
    pytest.param(["solve", "--backend", "cpsat:alldiff", "--jobs", "2", "{batch}"]),
    pytest.param(["solve", "--jobs", "2", "{batch}"], marks=SLOW),
    pytest.param(["solve", "--backend", "dlx", "--jobs", "2", "--json", "{batch}"]),
    pytest.param(["verify", "--backend", "cpsat", "{batch}"]),
    pytest.param(["verify", "--backend", "hill", "--runs", "3", "{batch}"], marks=SLOW),
    pytest.param(["nishio", "--puzzle", "{batch}", "--all-digits", "--method", "cpsat"]),
    pytest.param(["generate", "--box", "4x4", "--count", "100000", "--jobs", "2"]),
    pytest.param(["nishio", "--puzzle", "{batch}", "--all-digits", "--method", "sat", "--json"], marks=SLOW),
]


def _check(code: int, out: str, err: str, waited: float) -> None:
    assert code == 130, (out[-500:], err[-2000:])
    assert err.strip().endswith("interrupted") and "Traceback" not in err, err[-2000:]
    assert "time limit" not in out and "count:" not in out and "summary" not in out
    assert waited < 1.0, f"stopped {waited:.2f} s after SIGINT"


@pytest.mark.parametrize(
    "argv", COUNTS, ids=lambda argv: f"count {argv[2]}" if isinstance(argv, list) else ""
)
def test_sigint_stops_a_long_count_within_a_second(argv: list[str]) -> None:
    _check(*_interrupt(argv))


@pytest.mark.parametrize("argv", BATCHES, ids=lambda argv: " ".join(a for a in argv if a != "{batch}"))
def test_sigint_stops_every_batch_command_within_a_second(argv: list[str], long_batch: Path) -> None:
    _check(*_interrupt([str(long_batch) if a == "{batch}" else a for a in argv]))


@pytest.mark.parametrize("nonempty", [False, pytest.param(True, marks=SLOW)])
def test_sigint_stops_reduce_verify_over_many_formulas(formulas: list[str], nonempty: bool) -> None:
    _check(*_interrupt(["reduce", "--verify", *(["--nonempty"] if nonempty else []), *formulas]))


def test_a_second_sigint_while_stopping_still_exits_130() -> None:
    _check(*_interrupt(["count", "--backend", "cpsat", "--limit", "1000000000", EMPTY_9X9], twice=True))


def test_lines_written_before_sigint_stay_whole(long_batch: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_cp", "solve", "--backend", "cpsat", "--json", str(long_batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()  # blocks until the first block of results reaches the pipe
    os.killpg(process.pid, signal.SIGINT)
    # Wait, then read through the same text stream: communicate() would read the pipe underneath the
    # stream's buffer and drop what readline had already buffered.
    assert process.wait(timeout=20) == 130
    rest = process.stdout.read()
    err = process.stderr.read() if process.stderr is not None else ""
    assert first.endswith("\n"), (first, err[-2000:])
    lines = [first, *rest.splitlines()]
    for line in lines:  # every line written is a whole JSON object
        assert json.loads(line)["status"] == "solved"


def test_ctrl_c_still_interrupts_python_after_a_cpsat_solve() -> None:
    """CP-SAT's own SIGINT catching used to leave SIGINT at the default action: a later Ctrl-C killed
    the process instead of raising KeyboardInterrupt."""
    model = build_cpsat_model(parse_grid(EMPTY_9X9), "bool")
    run_solver(new_solver(), model.model)
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(2)


def _interrupted_count(wait: float, environment: dict[str, str] | None = None) -> tuple[int, str, float]:
    """``count --backend cpsat`` on the empty grid (never ends by itself), Ctrl-C after ``wait``
    seconds: its exit code, standard error and the seconds it took to end after the Ctrl-C."""
    command = [sys.executable, "-m", "sudoku_cp", "count", "--backend", "cpsat", "--limit", "1000000000"]
    process = subprocess.Popen(
        [*command, EMPTY_9X9],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=environment,
    )
    time.sleep(wait)
    os.killpg(process.pid, signal.SIGINT)
    began = time.monotonic()
    _, err = process.communicate(timeout=20)
    return process.returncode, err, time.monotonic() - began


@pytest.mark.parametrize("wait", [0.3, 0.6, 0.9])
def test_sigint_during_start_up_and_imports_is_still_interrupted(wait: float) -> None:
    """Ctrl-C while OR-tools loads used to surface as 'ImportError: initialization failed', exit 1."""
    code, err, _ = _interrupted_count(wait)
    assert code == 130, err[-2000:]
    assert err.strip().endswith("interrupted") and "Traceback" not in err, err[-2000:]


def test_sigint_held_arrives_when_the_block_ends() -> None:
    reached = False
    # Sent to this thread, the signal waits (a process's signal could go to another thread).
    with pytest.raises(KeyboardInterrupt), sigint_held():
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        time.sleep(0.05)
        reached = True  # not interrupted inside the block
    assert reached


def test_the_nishio_cnf_calls_pysat_card_once_per_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """pysat.card installs its own SIGINT handler inside every call: with a call per unit (thousands
    per formula), a Ctrl-C during reduce --verify never reached Python (the command went on) or
    jumped out of the C++ encoder and corrupted the heap.  Templates, one call per width, leave
    that window to a few calls, each with SIGINT held."""
    calls: list[int] = []
    real = CardEnc.equals

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(len(kwargs["lits"]))  # type: ignore[arg-type]
        return real(*args, **kwargs)

    monkeypatch.setattr(CardEnc, "equals", counted)
    cnf_module._card_template.cache_clear()
    card_template.cache_clear()
    instance = NishioInstance.from_cells(
        geometry_for_size(25), [(r, c) for r in range(25) for c in range(25) if (r * 7 + c * 3) % 5]
    )
    encode_nishio_cnf(instance)
    assert len(calls) == len(set(calls)) <= 25
    cnf_module._card_template.cache_clear()
    card_template.cache_clear()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigint_at_any_moment_of_start_up_exits_130() -> None:
    """A sweep over the start-up: each moment a Ctrl-C can land (imports, the handler's installation,
    OR-tools loading, the first CP-SAT wait) ends in exit 130 within a second.

    Bytecode is not written, so the imports are as slow as on a fresh clone.  A Ctrl-C before any
    of the entry point runs (Python's own start-up, ``python -m`` importing the package first) is
    Python's to report and is let through.
    """
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for step in range(14):
        wait = 0.06 + 0.03 * step
        code, err, took = _interrupted_count(wait, environment)
        if "Traceback" in err and "sudoku_cp/__main__.py" not in err:
            continue  # interrupted before the entry point ran (Python's start-up, the package import)
        assert code == 130, f"Ctrl-C after {wait:.2f} s: {err[-1500:]}"
        assert "Traceback" not in err, err[-1500:]
        assert took < 5.0, f"Ctrl-C after {wait:.2f} s took {took:.1f} s to end the command"


def _worker_sigint() -> tuple[bool, bool]:
    """In a pool worker: whether SIGINT is ignored, and whether it is blocked."""
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN, signal.SIGINT in signal.pthread_sigmask(
        signal.SIG_BLOCK, set()
    )


def test_pool_workers_are_forked_with_ctrl_c_held_then_ignore_it() -> None:
    # 'rate --jobs 2' once printed "Exception ignored in: <function _releaseLock>" and a traceback
    # at Ctrl-C: the signal came inside os.fork() (the pool forks its workers at a submission), where
    # the at-fork hooks run and Python drops the KeyboardInterrupt after printing it.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    held = []

    class Pool:
        def submit(self, function: Callable[..., int], *arguments: int) -> int:
            held.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))
            return function(*arguments)

    assert submit_held(Pool(), abs, -3) == 3
    assert held == [True]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # given back after
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork start method here")
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(1, mp_context=context, initializer=_quiet_worker) as pool:
        assert submit_held(pool, _worker_sigint).result(timeout=60) == (True, False)


def test_an_object_the_interrupt_left_half_built_prints_no_traceback() -> None:
    """A pysat Solver stopped by Ctrl-C inside its __init__ fails in __del__ (it has no ``solver`` yet):
    after 'interrupted' that finaliser's error is not shown (fresh-clone CI, reduce --verify)."""
    script = """
import sys
from sudoku_cp.cli import _exit_code

class HalfBuilt:
    def __init__(self) -> None:
        raise KeyboardInterrupt  # Ctrl-C before the attribute below is set
    def __del__(self) -> None:
        self.solver

try:
    HalfBuilt()
except BaseException as problem:
    code = _exit_code(problem, entry=True)
sys.exit(code)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr.strip() == "sudoku-cp: error: interrupted", done.stderr
