"""The native complete solver (``backtrack``): its compiled call and whole processes, old and new, beside SAT.

    .venv/bin/python benchmarks/native_speed.py [--repeat 1] [--clue17 10000] [--only forum,magic,17]
                                                [--old c86a4a4] [--skip-old] [--skip-sat]

Corpora (``../shared/data/sudoku9``): the forum-hardest sample (9,754), magictour top1465 and the
first ``--clue17`` lines of the 17-clue corpus.  The old ``backtrack`` (one puzzle per call,
incremental singles, first-found MRV) is the package as of commit ``--old``, unpacked by
``git archive`` into a temporary directory and run from there.  Every measure runs in a fresh
process; CPU time (user + system) is what the ratios use, since other work on the machine shows
in the wall clock first (the load average is printed before and after each corpus).

* in-process, first solution (limit 1) and uniqueness (limit 2): the CPU time of
  ``native.backtrack.search_batch`` over the whole corpus in one call (the kernel and its
  driver: arrays in, counts and solutions out); for the old solver, ``backtrack_search`` puzzle
  by puzzle.  Puzzles are parsed before the clock starts.
* whole process: ``python -m sudoku_cp solve --backend backtrack --json FILE > /dev/null``,
  with and without ``--unique``, new and old, and ``solve --json`` (the SAT default) beside them;
  best of ``--repeat`` runs, wall and CPU, pinned to one core (``taskset -c 0``) when possible.
  The new runs' solutions are checked against the SAT run's (each corpus puzzle has one).
* start-up: the same command on a one-puzzle file (import, numba's first call, one solve), and
  in-process the seconds to import numba and to make the kernel's first call.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, SHARED, load_average, machine

NINE = SHARED / "sudoku9"
CORPORA = {
    "forum": ("forum-hardest (every 5th, SE 11+)", "tdoku_forum_hardest_1905_11plus_every5th.txt"),
    "magic": ("magictour top1465", "tdoku_magictour_top1465.txt"),
    "17": ("17-clue", "tdoku_17_clue.txt"),
}
OLD_COMMIT = "c86a4a4"  # the last commit with the one-puzzle backtracking search

# Run in a fresh interpreter: the in-process speed of a compiled batch call (the new solver).
_NEW_CALL = """
import sys, time, numpy as np
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.native.backtrack import search_batch
items = parse_puzzles(open(sys.argv[1]).read())
grids = [item.grid for item in items]
givens = np.stack([grid.values.reshape(-1) for grid in grids])
search_batch(grids[0].geometry, givens[:1], limit=2)  # numba's first call out of the way
out = []
for limit in (1, 2):
    began = time.process_time()
    run = search_batch(grids[0].geometry, givens, limit=limit)
    seconds = time.process_time() - began
    assert (run.counts >= 1).all() and run.complete.sum() + (run.counts >= limit).sum() >= len(grids)
    out.append((seconds, int(run.nodes.sum())))
print(out)
"""
# The old solver, one puzzle per call (it has no batch call).
_OLD_CALL = """
import sys, time
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.native.backtrack import backtrack_search
grids = [item.grid for item in parse_puzzles(open(sys.argv[1]).read())]
backtrack_search(grids[0], limit=2)
out = []
for limit in (1, 2):
    began = time.process_time()
    nodes = sum(backtrack_search(grid, limit=limit).nodes for grid in grids)
    out.append((time.process_time() - began, nodes))
print(out)
"""
# Start-up pieces of the new solver, in a fresh interpreter.
_FIRST_CALL = """
import time
began = time.perf_counter()
import numba
imported = time.perf_counter()
from sudoku_cp.formats import parse_grid
from sudoku_cp.native.backtrack import backtrack_search
grid = parse_grid(open(__import__("sys").argv[1]).readline())
ready = time.perf_counter()
backtrack_search(grid, limit=2)
print([imported - began, time.perf_counter() - ready])
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process(argv: list[str], cwd: Path, stdout: Path | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds of one whole process, and its output (written to ``stdout`` when given)."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    cpu, wall = _children_cpu(), time.monotonic()
    with open(stdout or os.devnull, "w") as sink:
        run = subprocess.run(
            [*pin, *argv],
            cwd=cwd,
            stdout=sink if stdout else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    wall, cpu = time.monotonic() - wall, _children_cpu() - cpu
    if run.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(argv)} failed ({run.returncode}): {run.stderr[-2000:]}")
    return wall, cpu, run.stdout or ""


def _whole(argv: list[str], cwd: Path, repeat: int, out: Path) -> tuple[float, float]:
    """Best wall and CPU seconds of ``repeat`` runs, the last run's output in ``out``."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu, _ = _process(argv, cwd, out)
        walls.append(wall)
        cpus.append(cpu)
    return min(walls), min(cpus)


def _in_process(code: str, path: Path, cwd: Path) -> list[tuple[float, int]]:
    """The [(CPU seconds, nodes)] for limit 1 and 2 printed by ``code`` run on ``path``."""
    _, _, text = _process([sys.executable, "-c", code, str(path)], cwd)
    result: list[tuple[float, int]] = eval(text.strip().splitlines()[-1])  # our own literal list
    return result


def _solutions(path: Path) -> list[str | None]:
    """The solution of each puzzle of a ``solve --json`` output, by index."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.startswith('{"index"')]
    return [row.get("solution") for row in sorted(rows, key=lambda row: row["index"])]


def _old_tree(commit: str, into: Path) -> Path:
    """The package as of ``commit``, unpacked into ``into`` (git archive: the working tree is untouched)."""
    archive = subprocess.run(
        ["git", "archive", commit, "sudoku_cp"], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _row(label: str, puzzles: int, wall: float | None, cpu: float, ratios: str = "") -> str:
    shown = f"{puzzles / wall:,.0f}" if wall else "-"
    return f"| {label} | {shown} | {puzzles / cpu:,.0f} | {cpu:.2f} | {ratios} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="whole-process runs per measure (best kept)")
    parser.add_argument("--clue17", type=int, default=10_000, help="17-clue puzzles (from the first)")
    parser.add_argument("--only", default="forum,magic,17", help="corpora: forum, magic, 17")
    parser.add_argument("--old", default=OLD_COMMIT, help="commit of the old backtrack solver")
    parser.add_argument("--skip-old", action="store_true", help="no old solver runs")
    parser.add_argument("--skip-sat", action="store_true", help="no SAT runs")
    args = parser.parse_args()
    python = sys.executable
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        old = None if args.skip_old else _old_tree(args.old, tmp)
        one = tmp / "one.txt"
        one.write_text((NINE / CORPORA["forum"][1]).read_text().splitlines()[0] + "\n")
        for tree in [ROOT] + ([old] if old else []):  # compile or load numba's caches before timing
            _process(
                [python, "-m", "sudoku_cp", "solve", "--backend", "backtrack", "--unique", str(one)], tree
            )
        startup = [_process([python, "-m", "sudoku_cp", "solve", "--backend", "backtrack", str(one)], ROOT)]
        startup += [_process([python, "-m", "sudoku_cp", "solve", str(one)], ROOT)]
        _, _, text = _process([python, "-c", _FIRST_CALL, str(one)], ROOT)
        numba_import, first_call = eval(text.strip().splitlines()[-1])
        (native_wall, native_cpu, _), (sat_wall, sat_cpu, _) = startup
        print(
            f"start-up, one puzzle (wall / CPU): backtrack {native_wall:.2f} s / {native_cpu:.2f} s CPU, "
            f"SAT {sat_wall:.2f} s / {sat_cpu:.2f} s; in-process: import numba {numba_import:.2f} s, "
            f"first kernel call {first_call:.2f} s (cache load), load {load_average()}"
        )
        for key in args.only.split(","):
            title, name = CORPORA[key]
            path = NINE / name
            if key == "17":
                lines = path.read_text().splitlines()[: args.clue17]
                path = tmp / "clue17.txt"
                path.write_text("\n".join(lines) + "\n")
                title = f"{title} (first {len(lines):,})"
            puzzles = sum(1 for line in path.read_text().splitlines() if line.strip())
            print(f"\n### {title}: {puzzles:,} puzzles (load {load_average()} before)\n")
            print("| run | puzzles/s wall | puzzles/s CPU | CPU s | ratios (CPU) |")
            print("|---|---:|---:|---:|---|")
            new_call = _in_process(_NEW_CALL, path, ROOT)
            old_call = _in_process(_OLD_CALL, path, old) if old else None
            for k, mode in enumerate(("first solution", "uniqueness")):
                seconds, nodes = new_call[k]
                note = f"{nodes / puzzles:.0f} nodes/puzzle"
                if old_call:
                    note += (
                        f"; {old_call[k][0] / seconds:.2f}x old ({old_call[k][1] / puzzles:.0f} nodes/puzzle)"
                    )
                print(_row(f"in-process, new, {mode}", puzzles, None, seconds, note))
                if old_call:
                    print(_row(f"in-process, old, {mode}", puzzles, None, old_call[k][0]))
            for unique in (False, True):
                flags = ["--unique"] if unique else []
                mode = "--unique" if unique else "first solution"
                command = [python, "-m", "sudoku_cp", "solve", "--json", *flags, str(path)]
                new_out = tmp / "new.jsonl"
                new = _whole(
                    [*command[:4], "--backend", "backtrack", *command[4:]], ROOT, args.repeat, new_out
                )
                rows = [("whole process, new backtrack", new)]
                if old:
                    rows.append(
                        (
                            "whole process, old backtrack",
                            _whole(
                                [*command[:4], "--backend", "backtrack", *command[4:]],
                                old,
                                args.repeat,
                                tmp / "o",
                            ),
                        )
                    )
                if not args.skip_sat:
                    sat_out = tmp / "sat.jsonl"
                    rows.append(("whole process, SAT default", _whole(command, ROOT, args.repeat, sat_out)))
                    if _solutions(new_out) != _solutions(sat_out):
                        raise SystemExit(f"{title}: the backtrack solutions differ from SAT's")
                for label, (wall, cpu) in rows:
                    ratios = ""
                    if label.endswith("new backtrack"):
                        ratios = ", ".join(
                            f"{other[1] / cpu:.2f}x {name.split()[-2]}" for name, other in rows[1:]
                        )
                    print(_row(f"{label}, {mode}", puzzles, wall, cpu, ratios))
            print(f"\n(load {load_average()} after)")


if __name__ == "__main__":
    main()
