"""Ctrl-C (SIGINT sent to a real process) stops any command within a second: 'interrupted', exit 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from sudoku_cp.cpsat import build_cpsat_model, new_solver, run_solver
from sudoku_cp.formats import parse_grid

EMPTY_9X9 = "." * 81  # 6.67e21 solutions: counting never ends by itself


@pytest.mark.parametrize(
    "argv",
    [
        ["count", "--backend", "cpsat", "--limit", "1000000000", EMPTY_9X9],
        ["count", "--backend", "cpsat:alldiff", "--limit", "1000000000", EMPTY_9X9],
        ["count", "--backend", "dlx", "--limit", "1000000000", EMPTY_9X9],
        ["count", "--backend", "pysat", "--limit", "1000000000", EMPTY_9X9],
    ],
    ids=lambda argv: argv[2],
)
def test_sigint_stops_a_long_count_within_a_second(argv: list[str]) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_cp", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3.0)  # past start-up and compilation: the search is running
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    waited = time.monotonic() - sent
    assert process.returncode == 130, (out, err)
    assert err.strip().endswith("interrupted") and "Traceback" not in err, err
    assert "time limit" not in out and "count:" not in out
    assert waited < 1.0, f"stopped {waited:.2f} s after SIGINT"


def test_ctrl_c_still_interrupts_python_after_a_cpsat_solve() -> None:
    """CP-SAT's own SIGINT catching used to leave SIGINT at the default action: a later Ctrl-C killed
    the process instead of raising KeyboardInterrupt."""
    model = build_cpsat_model(parse_grid(EMPTY_9X9), "bool")
    run_solver(new_solver(), model.model)
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(2)
