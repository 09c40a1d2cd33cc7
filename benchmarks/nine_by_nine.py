"""9x9 batches, whole process: the naive SAT loop, ``sudoku-cp solve`` (SAT) and the native path.

    .venv/bin/python benchmarks/nine_by_nine.py [--repeat 3] [--clue17 10000] [--only forum,magic,17]
                                                [--skip-native] [--sat-unique]

Corpora (read from ``../shared/data/sudoku9``; the script stops with a message when one is
absent): the forum-hardest sample (9,754), magictour top1465, and the first ``--clue17`` lines of
the 17-clue corpus (written to a temporary file).  For each corpus, whole processes, each pinned
to one core (``taskset -c 0`` when it exists), the best of ``--repeat`` runs, wall clock and CPU
(user + system of the child):

* ``naive loop``: ``benchmarks/naive_sat_loop.py FILE``, the baseline: one CaDiCaL 1.9.5 on the
  extended encoding of the empty grid, each puzzle's givens as assumptions, solutions printed;
* ``solve --json``: ``sudoku-cp solve --json FILE``, the default SAT path;
* ``solve --unique --json`` (with ``--sat-unique``): the SAT path deciding uniqueness;
* ``backtrack --json`` and ``backtrack --unique --json``: ``sudoku-cp solve --backend backtrack``,
  the native complete solver (skipped with ``--skip-native``).

Every run's answers are checked against the naive loop's: each puzzle solved, the same solution
(every puzzle of these corpora has one).  Columns: puzzles/s on wall and CPU time, and the ratio
of the naive loop's CPU time to the row's (above 1: faster than the naive loop).  The load
average before and after each corpus is printed: other work on the machine shows in the wall
clock first, so the ratios use CPU time.  Results also go to ``benchmarks/results/nine_by_nine.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from common import ROOT, SHARED, load_average, machine

NINE = SHARED / "sudoku9"
CORPORA = {
    "forum": ("forum-hardest (every 5th, SE 11+)", "tdoku_forum_hardest_1905_11plus_every5th.txt"),
    "magic": ("magictour top1465", "tdoku_magictour_top1465.txt"),
    "17": ("17-clue", "tdoku_17_clue.txt"),
}
NAIVE = ROOT / "benchmarks" / "naive_sat_loop.py"


def _pin() -> list[str]:
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True, slots=True)
class Run:
    """Best wall and CPU seconds of the good runs, the right answers, and the runs left out."""

    wall: float
    cpu: float
    right: int
    failed: int


def _run(argv: list[str], repeat: int, out: Path, check: Callable[[Path], int], expected: int) -> Run:
    """``repeat`` runs of a whole process: the best wall and CPU seconds of the runs that answered
    every puzzle right (``check`` counts the right answers in the output), and how many did not.

    A run that fails (another change to the working tree half done, a crash) is left out, never
    taken as the fastest.
    """
    good: list[tuple[float, float]] = []
    right, failed = 0, 0
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        with open(out, "w") as sink:
            code = subprocess.run(argv, stdout=sink, stderr=subprocess.DEVNULL, check=False).returncode
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
        got = check(out)
        if code == 0 and got >= right:
            right = got
        if code == 0 and got == expected:
            good.append((wall, cpu))
        else:
            failed += 1
    if not good:
        return Run(float("nan"), float("nan"), right, failed)
    return Run(min(w for w, _ in good), min(c for _, c in good), right, failed)


def _naive_solutions(out: Path) -> list[str]:
    return out.read_text().split()


def _lines(out: Path) -> int:
    """The answers the naive loop printed."""
    return len(_naive_solutions(out))


def _right(truth: list[str], out: Path) -> int:
    """The puzzles ``solve --json`` answered with the naive loop's solution."""
    return sum(a == b for a, b in zip(_cli_solutions(out), truth, strict=False))


def _cli_solutions(out: Path) -> list[str | None]:
    """The solution of each puzzle line of ``solve --json`` output (None: not solved)."""
    found: list[str | None] = []
    for line in out.read_text().splitlines():
        obj = json.loads(line)
        if "summary" in obj:
            continue
        found.append(obj.get("solution") if obj["status"] == "solved" else None)
    return found


def _corpus_file(key: str, clue17: int, tmp: Path) -> tuple[Path, int]:
    path = NINE / CORPORA[key][1]
    if not path.exists():
        raise SystemExit(f"nine_by_nine: corpus absent: {path}")
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    if key == "17":
        lines = lines[:clue17]
        path = tmp / f"clue17_first{len(lines)}.txt"
        path.write_text("\n".join(lines) + "\n")
    return path, len(lines)


def main() -> int:
    """Run every row on every corpus; print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each process (best kept)")
    parser.add_argument("--clue17", type=int, default=10_000, help="17-clue puzzles (the first N)")
    parser.add_argument("--only", default="forum,magic,17", help="corpora: forum, magic, 17")
    parser.add_argument("--skip-native", action="store_true", help="no backtrack rows")
    parser.add_argument("--sat-unique", action="store_true", help="also solve --unique on the SAT path")
    args = parser.parse_args()
    pin = _pin()
    program = [*pin, sys.executable, "-m", "sudoku_cp", "solve", "--no-progress"]
    print(f"machine: {machine()}; {' '.join(pin) or 'not pinned'}; repeat {args.repeat} (best kept)")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for key in args.only.split(","):
            path, count = _corpus_file(key, args.clue17, tmp)
            name = f"{CORPORA[key][0]} ({count:,})"
            before = load_average()
            out = tmp / "out.txt"
            naive = _run([*pin, sys.executable, str(NAIVE), str(path)], args.repeat, out, _lines, count)
            truth = _naive_solutions(out)
            if naive.failed == args.repeat or len(truth) != count:
                raise SystemExit(f"nine_by_nine: the naive loop failed on {path}")
            runs = [("naive loop (CaDiCaL, givens as assumptions)", naive)]
            variants = [("solve --json (SAT, default)", ["--json"])]
            if args.sat_unique:
                variants.append(("solve --unique --json (SAT)", ["--unique", "--json"]))
            if not args.skip_native:
                variants += [
                    ("solve --backend backtrack --json", ["--backend", "backtrack", "--json"]),
                    (
                        "solve --backend backtrack --unique --json",
                        ["--backend", "backtrack", "--unique", "--json"],
                    ),
                ]
            for label, extra in variants:
                check = partial(_right, truth)
                runs.append((label, _run([*program, *extra, str(path)], args.repeat, out, check, count)))
            after = load_average()
            for label, run in runs:
                rows.append(
                    {
                        "corpus": name,
                        "run": label,
                        "puzzles": count,
                        "right": run.right,
                        "failed_runs": run.failed,
                        "wall_s": round(run.wall, 3),
                        "cpu_s": round(run.cpu, 3),
                        "ratio_cpu": round(naive.cpu / run.cpu, 2) if run.cpu > 0 else None,
                        "load": f"{before} -> {after}",
                    }
                )
                print(f"{name}: {label}: {run}", flush=True)
    lines = [
        "| corpus | whole process, one core | right | wall s | puzzles/s (wall) | CPU s | puzzles/s (CPU) "
        "| naive CPU / this CPU | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        puzzles, wall, cpu = int(row["puzzles"]), float(row["wall_s"]), float(row["cpu_s"])
        left_out = f" ({row['failed_runs']} failed runs left out)" if row["failed_runs"] else ""
        lines.append(
            f"| {row['corpus']} | {row['run']}{left_out} | {row['right']:,} | {wall:.2f} "
            f"| {puzzles / wall:,.0f} | {cpu:.2f} | {puzzles / cpu:,.0f} | {row['ratio_cpu']} "
            f"| {row['load']} |"
        )
    print("\n".join(lines))
    out = ROOT / "benchmarks" / "results" / "nine_by_nine.json"
    out.write_text(json.dumps({"machine": machine(), "pinned": bool(pin), "rows": rows}, indent=1) + "\n")
    print(f"written {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
