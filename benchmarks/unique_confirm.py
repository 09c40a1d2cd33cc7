"""What confirming the pysat batch path's "unique" claims costs, on 9x9 ``--unique`` batches.

    .venv/bin/python benchmarks/unique_confirm.py [--limit 2000] [--repeat 3] [--cnf-limit 300]

Under ``--unique`` the batch path (``backends.pysat_batch.BatchPysat``, Minicard on each
puzzle's compact model) says "unique" when its own search, the first solution blocked, finds no
second.  Since issue 24 that claim is counted again by another path (``confirm.confirm_counts``:
the native backtracking count of the whole batch, one compiled call).  Three variants of the same
batch path, run in this one process, interleaved, best of ``--repeat`` (CPU seconds):

* ``none``: the claims as the search made them (the path before the confirmation);
* ``native count``: the default, the batch counted again by ``native.backtrack.search_batch``;
* ``cnf per puzzle``: each claim solved again by CaDiCaL on the plain extended encoding
  (``confirm.confirm_no_more``), on the first ``--cnf-limit`` puzzles only (it is slow);
* ``dlx none`` and ``dlx native count``: the ``dlx`` backend without and with the same
  confirmation (its ratio is against ``dlx none``), on those puzzles too;
* ``backtrack none``, ``backtrack search``, ``backtrack cnf batch`` and ``backtrack cnf per
  puzzle``: the ``backtrack`` backend (the native count itself) on its own word, with its claims
  confirmed by the default (``confirm.confirm_search_counts``: the pysat batch path's raw
  complete search of the chunk, an independent implementation, the two counts compared), by
  ``confirm.confirm_cnf_counts`` (one incremental CaDiCaL per chunk, the extended CNF without
  givens loaded once, givens as assumptions; the default before), and with ``confirm_no_more``
  per puzzle (a solver built per puzzle); the ratios against ``backtrack none``, on all the
  puzzles and on those.

``--only backtrack`` runs the ``backtrack`` variants alone.

Each variant is ``search_arrays(..., limit=2)`` over chunks of 4,096 puzzles (``api.ARRAY_CHUNK``):
propagation, the search, the checker and the confirmation; parsing and output are left out, as
they are the same for all.  The ratios are against ``none`` (``dlx none``) on the same puzzles.  The script
pins itself to one CPU; the machine and the load average are printed.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from common import SHARED, load_average, machine

from sudoku_cp.backends.backtrack_backend import BacktrackBackend
from sudoku_cp.backends.base import Backend, BatchAnswers, OneByOne
from sudoku_cp.backends.confirm import confirm_no_more
from sudoku_cp.backends.dlx_backend import DlxBackend
from sudoku_cp.backends.pysat_batch import BatchPysat
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.native.backtrack import search_batch

CHUNK = 4096
CORPORA = {
    "forum-hardest": "tdoku_forum_hardest_1905_11plus_every5th.txt",
    "17-clue": "tdoku_17_clue.txt",
    "magictour": "tdoku_magictour_top1465.txt",
}
LOCAL = Path(__file__).resolve().parents[1] / "tests" / "data"
FALLBACK = {
    "forum-hardest": "forum_hardest_200.txt",
    "17-clue": "clue17_100.txt",
    "magictour": "magictour_100.txt",
}


class Unconfirmed(BatchPysat):
    """The batch path without the confirmation of its "exactly these solutions" claims."""

    def _counts_confirmed(
        self,
        answers: BatchAnswers,
        givens: np.ndarray,
        limit: int,
        time_limit: float | Deadline | None,
        seconds: np.ndarray,
    ) -> BatchAnswers:
        return replace(answers, complete=answers.complete & (answers.counts < limit), seconds=seconds)


class CnfPerPuzzle(BatchPysat):
    """The batch path with each claim solved again on the extended CNF, one puzzle at a time."""

    def _counts_confirmed(
        self,
        answers: BatchAnswers,
        givens: np.ndarray,
        limit: int,
        time_limit: float | Deadline | None,
        seconds: np.ndarray,
    ) -> BatchAnswers:
        complete = answers.complete & (answers.counts < limit)
        n = answers.geometry.n
        for b in np.flatnonzero(complete & (answers.counts == 1)).tolist():
            reason = confirm_no_more(
                Grid(answers.geometry, givens[b].reshape(n, n)),
                [answers.solutions[b]],
                Deadline(None),
                claimant=None,
                name=self.name,
                finder="benchmark",
            )
            complete[b] = reason is None
        return replace(answers, complete=complete, seconds=seconds)


class DlxUnconfirmed(DlxBackend):
    """``dlx`` without the confirmation of its claims (Algorithm X's word alone)."""

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        return OneByOne.solve_arrays(self, geometry, values, limit, time_limit, keep)


class BacktrackUnconfirmed(BacktrackBackend):
    """``backtrack`` without the confirmation of its claims (the native count's word alone)."""

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        return self._unconfirmed(geometry, values, limit, time_limit, keep)


class BacktrackCnfBatch(BacktrackBackend):
    """``backtrack`` with its claims confirmed on the extended CNF, one incremental CaDiCaL per chunk."""

    confirm_by = "cnf"


class BacktrackPerPuzzle(BacktrackBackend):
    """``backtrack`` with each claim solved again by ``confirm_no_more``, a solver per puzzle."""

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        answers = self._unconfirmed(geometry, values, limit, time_limit, keep)
        complete = answers.complete & (answers.counts < limit)
        n = geometry.n
        rows = np.asarray(values).reshape(-1, n * n)
        for b in np.flatnonzero(complete).tolist():
            found = [answers.solutions[b], *answers.more.get(b, [])][: int(answers.counts[b])]
            reason = confirm_no_more(
                Grid(geometry, rows[b].reshape(n, n)),
                found,
                Deadline(None),
                claimant=None,
                name=self.name,
                finder="benchmark",
            )
            complete[b] = reason is None
        return replace(answers, complete=complete)


def read(name: str, limit: int) -> tuple[str, np.ndarray]:
    """The first ``limit`` puzzles of a corpus as (B, 81) int16 rows, and where they came from."""
    path = SHARED / "sudoku9" / CORPORA[name]
    if not path.exists():
        path = LOCAL / FALLBACK[name]
    rows = []
    with path.open() as lines:
        for line in lines:
            text = line.strip()[:81]
            if len(text) == 81 and not text.startswith("#"):
                rows.append([0 if ch in ".0" else int(ch) for ch in text])
            if len(rows) == limit:
                break
    return str(path), np.array(rows, dtype=np.int16)


def run(engine: Backend, puzzles: np.ndarray) -> tuple[float, int]:
    """CPU seconds of the batch path over ``puzzles`` with ``limit=2``, and the puzzles answered unique."""
    geometry = Geometry(3, 3)
    unique = 0
    began = time.process_time()
    for lo in range(0, len(puzzles), CHUNK):
        found = engine.search_arrays(geometry, puzzles[lo : lo + CHUNK], limit=2)
        unique += int((found.complete & (found.counts == 1)).sum())
    return time.process_time() - began, unique


def main() -> None:
    """Measure the variants on each corpus and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=2000, help="puzzles per corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cnf-limit", type=int, default=300, help="puzzles for the CNF-per-puzzle variant")
    parser.add_argument("--only", choices=["all", "backtrack"], default="all", help="which variants")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"machine: {machine()}; one CPU; load average at start {load_average()}")
    engines: dict[str, Backend] = {
        "none": Unconfirmed(),
        "native count": BatchPysat(),
        "cnf per puzzle": CnfPerPuzzle(),
        "dlx none": DlxUnconfirmed(),
        "dlx native count": DlxBackend(),
        "backtrack none": BacktrackUnconfirmed(),
        "backtrack search": BacktrackBackend(),
        "backtrack cnf batch": BacktrackCnfBatch(),
        "backtrack cnf per puzzle": BacktrackPerPuzzle(),
    }
    # Warm up: the native kernel's load (or compile) and python-sat's first solver.
    _, warm = read("forum-hardest", 8)
    for label, engine in engines.items():
        if args.only == "backtrack" and not label.startswith("backtrack"):
            continue
        engine.search_arrays(Geometry(3, 3), warm, limit=2)
    search_batch(Geometry(3, 3), warm, limit=2)
    print("| corpus | puzzles | variant | unique | CPU s (best) | puzzles/s CPU | ratio to none | load |")
    print("|---|--:|---|--:|--:|--:|--:|--:|")
    for corpus in CORPORA:
        path, puzzles = read(corpus, args.limit)
        samples = {"none": puzzles, "native count": puzzles, "backtrack none": puzzles}
        samples["backtrack search"] = puzzles
        samples["backtrack cnf batch"] = puzzles
        best: dict[tuple[str, int], float] = {}
        answered: dict[tuple[str, int], int] = {}
        plan = [(variant, len(puzzles)) for variant in samples]
        few = puzzles[: args.cnf_limit]
        plan += [("none", len(few)), ("native count", len(few)), ("cnf per puzzle", len(few))]
        plan += [("dlx none", len(few)), ("dlx native count", len(few))]
        plan += [(f"backtrack {how}", len(few)) for how in ("none", "search", "cnf batch", "cnf per puzzle")]
        if args.only == "backtrack":
            plan = [(variant, size) for variant, size in plan if variant.startswith("backtrack")]
        for _ in range(args.repeat):
            for variant, size in plan:
                cpu, unique = run(engines[variant], puzzles[:size])
                key = (variant, size)
                best[key] = min(best.get(key, float("inf")), cpu)
                answered[key] = unique
        for variant, size in plan:
            family = variant.split()[0] if variant.startswith(("dlx", "backtrack")) else ""
            base = best[(f"{family} none".strip(), size)]
            cpu = best[(variant, size)]
            print(
                f"| {corpus} ({Path(path).name}) | {size:,} | {variant} | {answered[(variant, size)]:,} | "
                f"{cpu:.3f} | {size / cpu:,.0f} | {cpu / base:.3f} | {load_average()} |"
            )
    print(f"load average at end {load_average()}")


if __name__ == "__main__":
    main()
