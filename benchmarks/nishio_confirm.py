"""What confirming the DAG's "no placement" claims costs its batches (``nishio/confirm.py``).

    .venv/bin/python benchmarks/nishio_confirm.py [--repeats 3] [--most 20000] [FILE ...]

The digit subproblems of 9x9 corpora (every digit of every puzzle after singles propagation, as
``sudoku-cp nishio --puzzle FILE --all-digits --json`` asks them) are answered by
``solve_dag_batch`` three ways in the same run, alternated: without confirmation, with it (one
call of plain SAT with another solver per instance that drops a cell, all its dropped cells as
one disjunction), and, as the alternative judged too costly, one call per dropped cell.  Times
are medians of the repeats; ratios are against the unconfirmed batch of the same run; the load
average is printed before and after.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from common import SHARED, load_average, machine

from sudoku_cp.formats import parse_puzzles
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.batch import solve_dag_batch
from sudoku_cp.nishio.confirm import _RENEW as RENEW
from sudoku_cp.nishio.confirm import DropConfirmer
from sudoku_cp.nishio.dag import build_dag, closure_batch
from sudoku_cp.nishio.instance import digit_masks

CORPORA = (
    "sudoku9/tdoku_forum_hardest_1905_11plus_every5th.txt",
    "sudoku9/sudoku_exchange_diabolical_10k.txt",
    "sudoku9/tdoku_17_clue.txt",
)


def corpus_masks(path: Path, most: int) -> np.ndarray:
    """The (B, 9, 9) sets S of every digit of the first ``most`` 9x9 puzzles of a file."""
    items = parse_puzzles(path.read_text(encoding="utf-8"))
    values = np.stack([item.grid.values.reshape(-1) for item in items[:most] if item.grid is not None])
    return digit_masks(Geometry(3, 3), values).reshape(-1, 9, 9)


def per_cell(geometry: Geometry, masks: np.ndarray, closures: np.ndarray) -> tuple[float, int]:
    """Seconds and calls of confirming every dropped cell by its own call (one shared solver)."""
    flat = masks.reshape(len(masks), -1)
    dropped = flat & ~closures.reshape(len(masks), -1)
    universe = np.flatnonzero(flat.any(axis=0))
    began = time.perf_counter()
    confirmer = DropConfirmer(geometry, universe // 9, universe % 9)
    calls = 0
    try:
        for k in np.flatnonzero(dropped.any(axis=1)).tolist():
            keys = np.flatnonzero(flat[k])
            for cell in np.flatnonzero(dropped[k]).tolist():
                if calls and calls % RENEW == 0:  # as confirm_batch does
                    confirmer.close()
                    confirmer = DropConfirmer(geometry, universe // 9, universe % 9)
                if confirmer.confirm(keys, np.array([cell])).confirmed is not True:
                    raise SystemExit(f"instance {k}: cell {cell} not confirmed")
                calls += 1
    finally:
        confirmer.close()
    return time.perf_counter() - began, calls


def main() -> None:
    """Time the three ways on each corpus and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--most", type=int, default=20000, help="puzzles per corpus at most")
    args = parser.parse_args()
    files = args.files or [SHARED / name for name in CORPORA if (SHARED / name).exists()]
    g = Geometry(3, 3)
    dag = build_dag(3, 3)
    closure_batch(dag, np.ones((1, 9, 9), dtype=bool))  # compiled code loaded before any clock
    solve_dag_batch(g, np.ones((2, 9, 9), dtype=bool) & (np.arange(2)[:, None, None] == 0))
    print(f"machine: {machine()}")
    print(f"load before: {load_average()}")
    print()
    print(
        "| corpus | instances | with drops | dropped cells | batch s | confirmed s | ratio "
        "| us per confirmed instance | per-cell s | per-cell ratio |"
    )
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for path in files:
        masks = corpus_masks(path, args.most)
        plain: list[float] = []
        confirmed: list[float] = []
        cells: list[float] = []
        closures = np.zeros(masks.shape, dtype=bool)
        calls = 0
        for _ in range(args.repeats):
            began = time.perf_counter()
            closures = solve_dag_batch(g, masks, confirm=False).closures
            plain.append(time.perf_counter() - began)
            began = time.perf_counter()
            solve_dag_batch(g, masks)
            confirmed.append(time.perf_counter() - began)
            seconds, calls = per_cell(g, masks, closures)
            cells.append(plain[-1] + seconds)
        flat = masks.reshape(len(masks), -1) & ~closures.reshape(len(masks), -1)
        with_drops = int(flat.any(axis=1).sum())
        base, conf, cell = (statistics.median(x) for x in (plain, confirmed, cells))
        extra_us = (conf - base) / max(with_drops, 1) * 1e6
        print(
            f"| {path.name} | {len(masks):,} | {with_drops:,} | {calls:,} | {base:.3f} | {conf:.3f} "
            f"| {conf / base:.1f} | {extra_us:.0f} | {cell:.3f} | {cell / base:.1f} |"
        )
    print()
    print(f"load after: {load_average()}")


if __name__ == "__main__":
    main()
