"""Counting solutions: the default count backend (``dlx``) against ``backtrack``, in one run.

    .venv/bin/python benchmarks/count.py [--limit 100000] [--repeat 3]

The puzzle is the empty 6x6 grid (2x3 boxes, 28,200,960 solutions), counted up to ``--limit``.
For each backend:

1. the whole process ``sudoku-cp count --limit N --box 2x3 --backend B --json PUZZLE``: wall
   seconds and peak resident memory (``os.wait4``), median of ``--repeat`` runs with the numba
   cache warm, and once more with an empty cache (``NUMBA_CACHE_DIR`` in a fresh temporary
   folder): the difference is the JIT compile time;
2. ``api.count_solutions(puzzle, B, limit=N)`` in this process, warm (best of ``--repeat``);
3. the native search alone (``solve_exact_cover`` / ``backtrack_search`` with ``keep=False``).

Each measure gives the ratio dlx / backtrack.  Last, the 6x6 grid with first row 123456 must count
39,168 with both (exact), and how long that takes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from common import load_average, machine

from sudoku_cp.api import count_solutions
from sudoku_cp.exact_cover import build_exact_cover
from sudoku_cp.formats import parse_grid
from sudoku_cp.native.backtrack import backtrack_search
from sudoku_cp.native.dlx import solve_exact_cover

EMPTY = "." * 36
FIRST_ROW = "123456" + "." * 30
BACKENDS = ("dlx", "backtrack")


def _program() -> str:
    return shutil.which("sudoku-cp") or str(Path(sys.executable).with_name("sudoku-cp"))


def _process(backend: str, limit: int, cache: str | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one whole ``sudoku-cp count`` process."""
    argv = [_program(), "count", "--limit", str(limit), "--box", "2x3", "--backend", backend, "--json", EMPTY]
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {child.returncode}")
    return wall, usage.ru_maxrss / 1024


def _best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def _native(backend: str, limit: int) -> Callable[[], object]:
    puzzle = parse_grid(EMPTY, box=(2, 3))
    if backend == "dlx":
        model = build_exact_cover(puzzle)
        return lambda: solve_exact_cover(model.option_items, model.n_items, limit=limit, keep=False)
    return lambda: backtrack_search(puzzle, limit=limit, keep=False)


def main() -> None:
    """Measure and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    puzzle = parse_grid(EMPTY, box=(2, 3))
    rows: dict[str, list[float]] = {}
    for backend in BACKENDS:
        with tempfile.TemporaryDirectory() as cache:
            cold, _ = _process(backend, args.limit, cache)
        _process(backend, args.limit)  # fill the project's own cache
        runs = [_process(backend, args.limit) for _ in range(args.repeat)]
        wall = statistics.median(run[0] for run in runs)
        rss = max(run[1] for run in runs)
        count_solutions(puzzle, backend, limit=10)  # load the compiled code once
        api = _best(partial(count_solutions, puzzle, backend, limit=args.limit), args.repeat)
        native = _best(_native(backend, args.limit), args.repeat)
        rows[backend] = [wall, rss, cold - wall, api, native]

    print(f"machine: {machine()}; load average {load_average()}")
    print(f"counting {args.limit:,} solutions of the empty 6x6 grid (2x3 boxes)\n")
    print("| backend | whole process s | peak RSS MB | JIT compile s | count_solutions s | native search s |")
    print("|---|---|---|---|---|---|")
    for backend, (wall, rss, jit, api, native) in rows.items():
        print(f"| {backend} | {wall:.2f} | {rss:.0f} | {jit:.2f} | {api:.3f} | {native:.3f} |")
    dlx, backtrack = rows["dlx"], rows["backtrack"]
    ratios = [dlx[k] / backtrack[k] for k in (0, 1, 3, 4)]
    print(f"| dlx / backtrack | {ratios[0]:.2f} | {ratios[1]:.2f} | - | {ratios[2]:.2f} | {ratios[3]:.2f} |")

    first_row = parse_grid(FIRST_ROW, box=(2, 3))
    for backend in BACKENDS:
        start = time.perf_counter()
        result = count_solutions(first_row, backend)
        seconds = time.perf_counter() - start
        assert result.count == 39_168 and result.exact, result
        print(f"\n123456 + 30 empty cells, {backend}: {result.count:,} (exact) in {seconds:.3f} s", end="")
    print()


if __name__ == "__main__":
    main()
