"""Batch SAT solving of the forum-hardest 9x9 corpus: every candidate configuration side by side.

    .venv/bin/python benchmarks/batch_sat.py [--limit N] [--only NAME,...] [--unique] [--chunk 4096]

The corpus (9,754 puzzles, Sudoku Explainer 11+, all unique) is read in place from
``../shared/data/sudoku9``; the script stops with a message when it is absent.  The process
pins itself to one CPU (where the OS allows) so every rate is a one-core rate.

Rows (each solves every puzzle, checks every solution, and must find each puzzle's solution):

* ``incremental givens``: the naive loop, the baseline: one CaDiCaL 1.9.5 on the extended
  encoding of the empty grid, each puzzle's givens as assumptions, no propagation;
* ``incremental singles``: the same with the digits placed by singles propagation as
  assumptions (the batch driver before ``BatchPysat``), with CaDiCaL and MiniSat;
* ``batch ...``: ``BatchPysat``: propagation of each chunk (9x9: ``batch9``, singles, locked
  candidates and pairs, whatever the engine's rules), then a fresh solver per puzzle left open
  on its compact exactly-one model, variations of solver, numbering and box clauses;
* ``api solve_items``: ``sudoku_cp.api.solve_items`` in this process, whatever path it takes;
* ``cli end to end``: ``python -m sudoku_cp solve FILE --jobs 1`` in a fresh process, output to
  /dev/null, start-up included (the figure the 1,500 puzzles/s goal is about).

``benchmarks/nine_by_nine.py`` compares whole processes (the naive loop included) on three corpora.

Columns: puzzles/s over the whole run of the row (chunk-level work included), median and max
ms per puzzle, solver conflicts per puzzle.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from common import machine

from sudoku_cp.api import BackendOptions, solve_items
from sudoku_cp.backends.pysat_backend import IncrementalPysat
from sudoku_cp.backends.pysat_batch import BatchPysat
from sudoku_cp.formats import PuzzleItem, parse_puzzles
from sudoku_cp.grid import Grid
from sudoku_cp.propagation import propagate_batch

CORPUS = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "data"
    / "sudoku9"
    / "tdoku_forum_hardest_1905_11plus_every5th.txt"
)


@dataclass(frozen=True, slots=True)
class Run:
    """One row: wall time of the whole run, per-puzzle seconds, total conflicts (-1: not reported)."""

    wall: float
    seconds: list[float]
    conflicts: int
    solved: int


def _pin_one_core() -> None:
    """Run this process (and its children) on one CPU where the OS allows it."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _chunks(grids: Sequence[Grid], size: int) -> list[Sequence[Grid]]:
    return [grids[i : i + size] for i in range(0, len(grids), size)]


def incremental(solver: str, singles: bool) -> Callable[[Sequence[Grid], int, int], Run]:
    """One incremental solver for the corpus; assumptions: the givens, or the singles' digits."""

    def run(grids: Sequence[Grid], limit: int, chunk: int) -> Run:
        start = time.perf_counter()
        seconds: list[float] = []
        solved = 0
        with IncrementalPysat(grids[0].geometry, solver) as inc:
            for part in _chunks(grids, chunk):
                t0 = time.perf_counter()
                givens = np.stack([g.values.reshape(-1) for g in part])
                placed = propagate_batch(part[0].geometry, givens).values if singles else givens
                shared = (time.perf_counter() - t0) / len(part)
                for grid, values in zip(part, placed, strict=True):
                    t1 = time.perf_counter()
                    found = inc.search(grid, limit, placed=values)
                    seconds.append(time.perf_counter() - t1 + shared)
                    solved += found.count == 1
            conflicts = int(inc.accum_stats().get("conflicts", -1))
        return Run(time.perf_counter() - start, seconds, conflicts, solved)

    return run


def batch(solver: str, **options: bool) -> Callable[[Sequence[Grid], int, int], Run]:
    """``BatchPysat`` with the given solver and options, one call per chunk."""

    def run(grids: Sequence[Grid], limit: int, chunk: int) -> Run:
        start = time.perf_counter()
        engine = BatchPysat(solver, **options)
        answers = [a for part in _chunks(grids, chunk) for a in engine.search_many(part, limit)]
        wall = time.perf_counter() - start
        solved = sum(a.count == 1 for a in answers)
        return Run(wall, [a.seconds or 0.0 for a in answers], engine.stats["conflicts"], solved)

    return run


def api_run(items: list[PuzzleItem]) -> Callable[[Sequence[Grid], int, int], Run]:
    """``solve_items`` as the CLI calls it with ``--jobs 1``."""

    def run(grids: Sequence[Grid], limit: int, chunk: int) -> Run:
        start = time.perf_counter()
        results = list(solve_items(items, BackendOptions(), unique=limit > 1, chunk=chunk))
        wall = time.perf_counter() - start
        solved = sum(r.status.value == "solved" for r in results)
        return Run(wall, [r.seconds for r in results], -1, solved)

    return run


def cli_run(path: Path, count: int, unique: bool) -> Run:
    """``python -m sudoku_cp solve FILE --jobs 1`` in a fresh process, output discarded."""
    args = [sys.executable, "-m", "sudoku_cp", "solve", str(path), "--jobs", "1", "--no-progress"]
    start = time.perf_counter()
    done = subprocess.run(args + (["--unique"] if unique else []), stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    return Run(wall, [wall / count] * count, -1, count if done.returncode == 0 else 0)


def startup() -> float:
    """Seconds for a fresh interpreter to import what the batch path needs."""
    code = "import sudoku_cp.api, sudoku_cp.formats, sudoku_cp.backends.pysat_backend"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def row(name: str, result: Run, count: int) -> str:
    """One table row."""
    ms = [s * 1000 for s in result.seconds]
    conflicts = f"{result.conflicts / count:.1f}" if result.conflicts >= 0 else "-"
    return (
        f"| {name} | {count / result.wall:,.0f} | {statistics.median(ms):.3f} | {max(ms):.1f} "
        f"| {conflicts} | {result.solved}/{count} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rows and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="first N puzzles only (0: all)")
    parser.add_argument("--only", default="", help="comma-separated row names (substrings) to run")
    parser.add_argument("--unique", action="store_true", help="also prove uniqueness (limit 2)")
    parser.add_argument("--chunk", type=int, default=4096, help="puzzles per batch call (as solve_items)")
    args = parser.parse_args(argv)
    if not CORPUS.exists():
        print(f"batch_sat: the corpus is absent (expected at {CORPUS}); nothing to measure", file=sys.stderr)
        return 2
    _pin_one_core()
    text = CORPUS.read_text()
    items = parse_puzzles(text)[: args.limit or None]
    grids = [item.grid for item in items if item.grid is not None]
    limit = 2 if args.unique else 1
    rows: dict[str, Callable[[Sequence[Grid], int, int], Run]] = {
        "incremental givens, cadical195 (baseline)": incremental("cadical195", singles=False),
        "incremental singles, cadical195": incremental("cadical195", singles=True),
        "incremental singles, minisat22": incremental("minisat22", singles=True),
        "batch minisat22 (pairwise)": batch("minisat22"),
        "batch cadical195 (pairwise)": batch("cadical195"),
        "batch gluecard4": batch("gluecard4"),
        "batch minicard, cell-order numbering": batch("minicard", ranked=False),
        "batch minicard, box clauses too": batch("minicard", box_clauses=True),
        "batch minicard (default)": batch("minicard"),
        "api solve_items": api_run(items),
    }
    wanted = [w for w in args.only.split(",") if w]
    print(f"{CORPUS.name}: {len(grids)} puzzles, {'unique' if args.unique else 'first solution'}")
    print(f"machine: {machine()} (pinned to one core)")
    print(f"start-up (imports of the batch path): {startup():.3f} s")
    print()
    print("| configuration | puzzles/s | median ms | max ms | conflicts/puzzle | solved |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, run in rows.items():
        if wanted and not any(w in name for w in wanted):
            continue
        print(row(name, run(grids, limit, args.chunk), len(grids)), flush=True)
    if (not wanted or any(w in "cli end to end" for w in wanted)) and not args.limit:
        print(row("cli end to end (start-up included)", cli_run(CORPUS, len(grids), args.unique), len(grids)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
