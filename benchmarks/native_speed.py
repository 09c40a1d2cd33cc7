"""The native complete solver (``backtrack``): its compiled call and whole processes, old and new, beside SAT.

    .venv/bin/python benchmarks/native_speed.py [--repeat 1] [--clue17 10000]
                                                [--only forum,forum5,magic,17] [--old a468084]
                                                [--skip-old] [--skip-sat]

Corpora (``../shared/data/sudoku9``): the forum-hardest sample (9,754), the same file five times
over (``forum5``: 48,770 puzzles, where start-up weighs a fifth as much), magictour top1465 and
the first ``--clue17`` lines of the 17-clue corpus.  The old ``backtrack`` is the package as of
commit ``--old`` (by default the bitset kernel with a candidate mask per cell, before the 9x9
kernel on band words), unpacked by ``git archive`` into a temporary directory and run from
there.  Every measure runs in a fresh process; CPU time (user + system) is what the ratios use,
since other work on the machine shows in the wall clock first (the load average is printed
before and after each corpus).

* in-process, first solution (limit 1) and uniqueness (limit 2): the CPU time of
  ``native.backtrack.search_batch`` over the whole corpus in one call (the kernel and its
  driver: arrays in, counts and solutions out), best of three; a tree without ``search_batch``
  (c86a4a4 and older) runs ``backtrack_search`` puzzle by puzzle.  Puzzles are parsed before the
  clock starts.  Not for ``forum5``, whose puzzles are forum's.
* whole process: ``python -m sudoku_cp solve --backend backtrack --json FILE > /dev/null``,
  with and without ``--unique``, new and old, and ``solve --json`` (the SAT default) beside them;
  best of ``--repeat`` runs, wall and CPU, pinned to one core (``taskset -c 0``) when possible.
  The new runs' solutions are checked against the SAT run's (each corpus puzzle has one; not on
  ``forum5``, which has no SAT run).
* start-up: the same command on a one-puzzle file, new, old and SAT, and in-process the CPU
  seconds of each piece of the new path: numpy, the driver's import, the kernel's load (saved
  machine code, or numba), the first search.
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
    "forum5": ("forum-hardest, five times over", "tdoku_forum_hardest_1905_11plus_every5th.txt"),
    "magic": ("magictour top1465", "tdoku_magictour_top1465.txt"),
    "17": ("17-clue", "tdoku_17_clue.txt"),
}
OLD_COMMIT = "a468084"  # the last commit before the 9x9 kernel on band words

# Run in a fresh interpreter: the in-process speed of a compiled batch call, best of three (a
# tree without a batch call: one puzzle per call).
_CALL = """
import sys, time, numpy as np
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.native import backtrack
items = parse_puzzles(open(sys.argv[1]).read())
grids = [item.grid for item in items]
givens = np.stack([grid.values.reshape(-1) for grid in grids])
batch = getattr(backtrack, "search_batch", None)
def run(limit):
    if batch is not None:
        found = batch(grids[0].geometry, givens, limit=limit)
        assert (found.counts >= 1).all()
        return int(found.nodes.sum())
    return sum(backtrack.backtrack_search(grid, limit=limit).nodes for grid in grids)
backtrack.backtrack_search(grids[0], limit=2)  # the kernel's first call out of the way
out = []
for limit in (1, 2):
    best = None
    for _ in range(3):
        began = time.process_time()
        nodes = run(limit)
        seconds = time.process_time() - began
        best = seconds if best is None else min(best, seconds)
    out.append((best, nodes))
print(out)
"""
# Start-up pieces of the new solver, CPU seconds, in a fresh interpreter.
_FIRST_CALL = """
import sys, time
clock = [time.process_time()]
import numpy
clock.append(time.process_time())
from sudoku_cp.formats import parse_grid
from sudoku_cp.native import backtrack
clock.append(time.process_time())
backtrack._kernel(parse_grid("." * 81).geometry, False)
clock.append(time.process_time())
backtrack.backtrack_search(parse_grid(open(sys.argv[1]).readline()), limit=2)
clock.append(time.process_time())
print([b - a for a, b in zip(clock, clock[1:])] + ["numba" in sys.modules])
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
    parser.add_argument("--only", default="forum,forum5,magic,17", help="corpora: forum, forum5, magic, 17")
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
        native = [python, "-m", "sudoku_cp", "solve", "--backend", "backtrack", str(one)]
        startup = {"backtrack": _whole(native, ROOT, 3, tmp / "o")}
        if old:
            startup["old backtrack"] = _whole(native, old, 3, tmp / "o")
        startup["SAT"] = _whole([python, "-m", "sudoku_cp", "solve", str(one)], ROOT, 3, tmp / "o")
        _, _, text = _process([python, "-c", _FIRST_CALL, str(one)], ROOT)
        numpy_s, driver_s, kernel_s, search_s, numba_loaded = eval(text.strip().splitlines()[-1])
        print(
            "start-up, one puzzle, whole process (wall / CPU, best of 3): "
            + ", ".join(f"{label} {wall:.2f} s / {cpu:.2f} s" for label, (wall, cpu) in startup.items())
            + f"; in-process CPU: numpy {numpy_s:.3f} s, the driver's import {driver_s:.3f} s, the kernel's"
            f" load {kernel_s:.3f} s, first search {search_s:.3f} s, numba imported: {numba_loaded};"
            f" load {load_average()}"
        )
        for key in args.only.split(","):
            title, name = CORPORA[key]
            path = NINE / name
            if key == "17":
                lines = path.read_text().splitlines()[: args.clue17]
                path = tmp / "clue17.txt"
                path.write_text("\n".join(lines) + "\n")
                title = f"{title} (first {len(lines):,})"
            if key == "forum5":
                text = path.read_text()
                path = tmp / "forum5.txt"
                path.write_text(text * 5)
            puzzles = sum(1 for line in path.read_text().splitlines() if line.strip())
            print(f"\n### {title}: {puzzles:,} puzzles (load {load_average()} before)\n")
            print("| run | puzzles/s wall | puzzles/s CPU | CPU s | ratios (CPU) |")
            print("|---|---:|---:|---:|---|")
            repeated = key == "forum5"
            new_call = [] if repeated else _in_process(_CALL, path, ROOT)
            old_call = _in_process(_CALL, path, old) if old and not repeated else None
            for k, mode in enumerate(("first solution", "uniqueness") if new_call else ()):
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
                if not args.skip_sat and not repeated:
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
