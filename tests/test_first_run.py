"""A first run after an install: compilation is not counted against a time limit, and it is said.

numba compiles a kernel on its first call; with an empty cache (``NUMBA_CACHE_DIR`` pointing at
an empty folder) a command used to spend its whole ``--time-limit`` compiling and answer unknown
(``solve --backend acs --seed 1 --time-limit 10``: unknown after 13.5 s).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sudoku_cp import limits
from sudoku_cp.limits import Deadline, compiling

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def test_time_spent_compiling_is_not_counted_by_a_deadline() -> None:
    deadline = Deadline(0.3)
    with compiling():
        time.sleep(0.6)
        with compiling():  # numba compiles callees inside their caller: counted once
            time.sleep(0.1)
    assert not deadline.expired()
    left = deadline.remaining()
    assert left is not None and left > 0.05
    deadline.check("search")  # no TimeLimitReached
    time.sleep(0.4)
    assert deadline.expired()


def test_a_deadline_made_later_does_not_count_earlier_compilation_as_its_own() -> None:
    with compiling():
        time.sleep(0.05)
    deadline = Deadline(0.2)
    assert deadline.end is not None and deadline.end <= time.monotonic() + 0.2


def test_a_deadline_started_at_a_given_time_counts_no_compilation_before_it() -> None:
    # An in-process command (``main(argv)``) starts its deadline at its own start: the seconds a
    # long-lived process compiled before it must not lengthen it (they made spent limits pass).
    with compiling():
        time.sleep(0.3)
    deadline = Deadline(0.05, began=time.monotonic())
    time.sleep(0.1)
    assert deadline.expired()


def test_the_first_compile_hook_runs_once_on_the_first_compilation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "_first_compile_seen", False)
    monkeypatch.setattr(limits, "_first_compile_hooks", [])
    calls: list[int] = []
    limits.on_first_compile(lambda: calls.append(1))
    with compiling():
        pass
    with compiling():
        pass
    assert calls == [1]
    limits.on_first_compile(lambda: calls.append(2))  # registered after: called at once
    assert calls == [1, 2]


def test_the_first_compile_says_so_once_and_starts_the_warm_up_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from sudoku_cp.native import warmup

    monkeypatch.setenv("SUDOKU_CP_BACKGROUND_COMPILE", "1")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup, "_notified", False)
    started: list[list[str]] = []

    class _Child:
        pid = 4242

    def popen(argv: list[str], **_: object) -> _Child:
        started.append(argv)
        return _Child()

    monkeypatch.setattr(warmup.subprocess, "Popen", popen)
    warmup.first_compile_notice()
    warmup.first_compile_notice()
    assert capsys.readouterr().err.count("compiling native code") == 1
    assert len(started) == 1 and started[0][1:3] == ["-m", "sudoku_cp.native.warmup"]
    lock, done = warmup.paths()
    assert lock.read_text() == "4242"  # the warm-up's own id: a later first run sees it alive or dead
    monkeypatch.setattr(warmup, "_notified", False)
    done.write_text("done")
    warmup.first_compile_notice()  # warmed up already: the notice, no second warm-up
    assert len(started) == 1


def _fresh_run(tmp_path: Path, *arguments: str) -> tuple[subprocess.CompletedProcess[str], float]:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "SUDOKU_CP_BACKGROUND_COMPILE": "0"}
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", *arguments],
        capture_output=True,
        text=True,
        env=environment,
        timeout=900,
        check=False,
    )
    return done, time.monotonic() - began


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_an_empty_numba_cache_does_not_eat_the_time_limit(tmp_path: Path) -> None:
    # Compiling acs and propagation takes 5-40 s here; the search itself well under a second.
    done, _ = _fresh_run(tmp_path, "solve", "--backend", "acs", "--seed", "1", "--time-limit", "5", PUZZLE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "solved (acs" in done.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_saved_machine_code_rebuilt_on_a_fresh_cache_is_not_counted_either(tmp_path: Path) -> None:
    done, _ = _fresh_run(tmp_path, "count", "--backend", "backtrack", "--time-limit", "5", PUZZLE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "count: 1" in done.stdout


#: Propagates a 4x4 grid from scratch and after fixing a cell, as the ant colony does, on an empty
#: numba cache, and prints how many specialisations of the shared kernel were compiled.
_SPECIALISATIONS = """
import numpy as np
from sudoku_cp.formats import parse_grid
from sudoku_cp.native import propagation as p
grid = parse_grid("1...............")
start = p.propagate_grid(grid)
t = p.propagation_tables(grid.geometry)
w = p.new_scratch(4)
p.fix_and_propagate(start.masks.copy(), 5, np.uint64(2), *w, t.peers, t.units, t.cell_units, t.full, True)
print(len(p._propagate.signatures))
"""


@pytest.mark.slow  # compiles on an empty cache: 5-40 s
@pytest.mark.timeout(300)
def test_propagation_compiles_its_shared_kernel_once(tmp_path: Path) -> None:
    # A literal argument (``_propagate(masks, 1, ...)``, or a counter still typed Literal[int](0)
    # while numba infers its loop) is a specialisation of its own: the ant colony compiled
    # _propagate four times (57 compiles in all; 16 now).
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "SUDOKU_CP_BACKGROUND_COMPILE": "0"}
    done = subprocess.run(
        [sys.executable, "-c", _SPECIALISATIONS],
        capture_output=True,
        text=True,
        timeout=280,
        env=environment,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1"], done.stdout
