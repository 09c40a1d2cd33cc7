"""What confirming the deduction engine's contradictions costs (``rate``; ``explain`` without ``--check``).

    .venv/bin/python benchmarks/contradiction_confirm.py [--limit 300] [--repeat 3]

A contradiction the rules reach after unchecked steps is reported unsat only once CaDiCaL on the
plain extended CNF agrees (``engine._confirm_contradiction``: ``confirm.confirm_no_more``, one
SAT call).  The corpus: each puzzle of a unique corpus made contradictory by a wrong given (the
first open cell given a digit that is still a candidate there but not its solution's), so
that most reach their contradiction after steps.  Two variants of ``deduce(record=False)`` (what
``rate`` runs), interleaved in this one process, best of ``--repeat`` (CPU seconds): ``rules'
word`` (the confirmation replaced by the rules' verdict, the engine before) and ``confirmed``.
The same for the puzzles as given (no contradiction: the confirmation never runs).  The script
pins itself to one CPU; the machine and the load average are printed.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import SHARED, load_average, machine

from sudoku_cp.backends.registry import make_backend
from sudoku_cp.deduction import engine
from sudoku_cp.deduction.board import Board
from sudoku_cp.formats import parse_grid
from sudoku_cp.grid import Grid
from sudoku_cp.outcome import Status

LOCAL = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPORA = {"17-clue": "tdoku_17_clue.txt", "forum-hardest": "tdoku_forum_hardest_1905_11plus_every5th.txt"}
FALLBACK = {"17-clue": "clue17_100.txt", "forum-hardest": "forum_hardest_200.txt"}


def read(name: str, limit: int) -> list[Grid]:
    """The first ``limit`` puzzles of a corpus."""
    path = SHARED / "sudoku9" / CORPORA[name]
    if not path.exists():
        path = LOCAL / FALLBACK[name]
    grids = []
    with path.open() as lines:
        for line in lines:
            text = line.strip()[:81]
            if len(text) == 81 and not text.startswith("#"):
                grids.append(parse_grid(text))
            if len(grids) == limit:
                break
    return grids


def wrong_given(grid: Grid, solution: np.ndarray) -> Grid:
    """``grid`` with its first open cell given a candidate digit that is not its solution's."""
    board = Board.from_grid(grid)
    values = grid.values.reshape(-1).copy()
    for cell in np.flatnonzero(values == 0).tolist():
        wrong = [d for d in np.flatnonzero(board.cand[cell]).tolist() if d + 1 != solution[cell]]
        if wrong:
            values[cell] = wrong[0] + 1
            return grid.with_values(values.reshape(grid.values.shape))
    raise ValueError("no open cell with a wrong candidate")


def run(grids: list[Grid]) -> tuple[float, dict[str, int]]:
    """CPU seconds of ``deduce(record=False)`` over ``grids``, and the statuses."""
    statuses: dict[str, int] = {}
    began = time.process_time()
    for grid in grids:
        status = engine.deduce(grid, record=False).status.value
        statuses[status] = statuses.get(status, 0) + 1
    return time.process_time() - began, statuses


def main() -> None:
    """Measure both variants on each corpus and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=300, help="puzzles per corpus")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"machine: {machine()}; one CPU; load average at start {load_average()}")
    confirmed = engine._confirm_contradiction

    def trusting(grid: Grid, reason: str, suspect: str, deadline: object) -> tuple[Status, str]:
        """The engine before: the rules' contradiction taken as unsat on their word."""
        return Status.UNSAT, reason

    solver = make_backend("pysat")
    print(
        "| corpus | puzzles | variant | statuses | CPU s (best) | puzzles/s CPU | ratio to rules' word |",
        "load |",
    )
    print("|---|--:|---|---|--:|--:|--:|--:|")
    for corpus in CORPORA:
        given = read(corpus, args.limit)
        wrong = [wrong_given(grid, solver.search(grid, limit=1).solutions[0].reshape(-1)) for grid in given]
        run(wrong[:5])  # warm up: the kernels' load and python-sat's first solver
        for label, grids in (("wrong given", wrong), ("as given", given)):
            best: dict[str, float] = {}
            seen: dict[str, dict[str, int]] = {}
            for _ in range(args.repeat):
                for variant, confirm in (("rules' word", trusting), ("confirmed", confirmed)):
                    engine._confirm_contradiction = confirm  # type: ignore[assignment]
                    try:
                        cpu, statuses = run(grids)
                    finally:
                        engine._confirm_contradiction = confirmed  # type: ignore[assignment]
                    best[variant] = min(best.get(variant, float("inf")), cpu)
                    seen[variant] = statuses
            base = best["rules' word"]
            for variant in ("rules' word", "confirmed"):
                cpu = best[variant]
                print(
                    f"| {corpus}, {label} | {len(grids):,} | {variant} | {seen[variant]} | {cpu:.3f} | "
                    f"{len(grids) / cpu:,.0f} | {cpu / base:.3f} | {load_average()} |"
                )
    print(f"load average at end {load_average()}")


if __name__ == "__main__":
    main()
