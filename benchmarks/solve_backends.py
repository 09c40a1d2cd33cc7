"""Every backend on the same puzzles, side by side in one run, with the machine noted.

    .venv/bin/python benchmarks/solve_backends.py [--limit N] [--time-limit S] [--plot out.png]

Part 1: the forum-hardest 9x9 sample (9,754 puzzles, Sudoku Explainer 11+) with every backend:
puzzles/s, median and max ms per puzzle, conflicts per puzzle where the backend reports them.
The pysat batch row is what ``sudoku-cp solve FILE`` does (``BatchPysat``, Minicard).
Part 2: per-size times on the ant-colony 16x16 and 25x25 instances (45 % fixed cells) and on the
large square-box grids of ``shared/data/big`` (encode and solve times of the optimized CNF).
Ratios are against the pysat batch row of the same run. Corpora are read in place from
``../shared/data`` and the script says so and stops when they are absent.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from common import machine

from sudoku_cp.api import BackendOptions, solve_items
from sudoku_cp.backends.base import Backend
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.formats import PuzzleItem, parse_grid, parse_puzzles

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HARDEST = SHARED / "sudoku9" / "tdoku_forum_hardest_1905_11plus_every5th.txt"


def _row(name: str, times: list[float], conflicts: list[float], baseline: float | None) -> str:
    total = sum(times)
    rate = len(times) / total if total else float("inf")
    ms = [t * 1000 for t in times]
    ratio = f"{rate / baseline:.2f}" if baseline else "1.00"
    conf = f"{statistics.mean(conflicts):.1f}" if conflicts else "-"
    median = statistics.median(ms)
    return f"| {name} | {len(times)} | {rate:,.0f} | {median:.2f} | {max(ms):.1f} | {conf} | {ratio} |"


def _per_puzzle(
    backend: Backend, items: list[PuzzleItem], time_limit: float
) -> tuple[list[float], list[float]]:
    times, conflicts = [], []
    for item in items:
        assert item.grid is not None
        start = time.perf_counter()
        found = backend.search(item.grid, 1, time_limit)
        times.append(time.perf_counter() - start)
        assert found.count == 1, "a unique puzzle was not solved"
        if "conflicts" in found.stats:
            conflicts.append(float(found.stats["conflicts"]))
    return times, conflicts


def part_one(limit: int, time_limit: float) -> list[str]:
    """The hardest 9x9 corpus with every backend."""
    items = parse_puzzles(HARDEST.read_text())[:limit]
    lines = [
        f"### {HARDEST.name}: {len(items)} puzzles",
        "",
        "| backend | puzzles | puzzles/s | median ms | max ms | conflicts/puzzle | rate vs pysat batch |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    start = time.perf_counter()
    results = list(solve_items(items, BackendOptions()))
    batch_total = time.perf_counter() - start
    assert all(r.status.value == "solved" for r in results)
    batch_times = [r.seconds for r in results]
    scale = batch_total / sum(batch_times)  # spread chunk-level work (propagation) over the puzzles
    batch_times = [t * scale for t in batch_times]
    baseline = len(items) / batch_total
    lines.append(_row("pysat batch (solve_items, default)", batch_times, [], None))
    for spec in ("pysat", "pysat:minisat22", "cpsat", "cpsat:alldiff", "dlx"):
        backend = make_backend(spec)
        backend.search(items[0].grid, 1, time_limit)  # type: ignore[arg-type]  # warm-up (numba compile)
        times, conflicts = _per_puzzle(backend, items, time_limit)
        lines.append(_row(f"{spec} (per puzzle)", times, conflicts, baseline))
    return lines


def part_two(time_limit: float, max_n: int) -> Iterator[str]:
    """Per-size times: ant-colony 16x16 and 25x25, and the large grids up to ``max_n``, row by row."""
    yield from [
        "### Larger grids (optimized CNF, pysat CaDiCaL; CP-SAT and DLX for comparison up to 25x25)",
        "",
        "| instance | n | givens | CNF vars | CNF clauses | encode s | pysat s | cpsat s | dlx s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    files = sorted((SHARED / "acs" / "general").glob("inst16x16_45_*.txt"))[:3]
    files += sorted((SHARED / "acs" / "general").glob("inst25x25_45_*.txt"))[:3]
    files += sorted((SHARED / "big").glob("sudoku-*.txt"), key=lambda p: int(p.stem.split("-")[1]))
    for path in files:
        grid = parse_grid(path.read_text())
        if grid.n > max_n:
            continue
        start = time.perf_counter()
        cnf = encode_cnf(grid, "optimized")
        encode = time.perf_counter() - start
        cells = [f"{cnf.n_vars}", f"{cnf.n_clauses}", f"{encode:.2f}"]
        backends = ["pysat"] + (["cpsat", "dlx"] if grid.n <= 25 else [])
        for spec in ("pysat", "cpsat", "dlx"):
            if spec not in backends:
                cells.append("-")
                continue
            start = time.perf_counter()
            found = make_backend(spec).search(grid, 1, time_limit)
            elapsed = time.perf_counter() - start
            cells.append(f"{elapsed:.2f}" if found.count else ("timeout" if found.timed_out else "unsat"))
        yield f"| {path.name} | {grid.n} | {grid.givens} | " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print Markdown tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N puzzles of the 9x9 corpus")
    parser.add_argument("--time-limit", type=float, default=60.0, help="per-solve time limit for part 2 (s)")
    parser.add_argument("--skip-large", action="store_true", help="only part 1")
    parser.add_argument("--skip-9x9", action="store_true", help="only part 2")
    parser.add_argument("--max-n", type=int, default=400, help="largest grid size in part 2 (default: 400)")
    args = parser.parse_args(argv)
    if not HARDEST.exists():
        print(f"corpus absent: {HARDEST} (this benchmark reads ../shared/data in place)", file=sys.stderr)
        return 2
    np.random.seed(0)
    print(f"machine: {machine()}")
    if not args.skip_9x9:
        print("\n".join(part_one(args.limit or 10**9, args.time_limit)))
        print()
    if not args.skip_large:
        for line in part_two(args.time_limit, args.max_n):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
