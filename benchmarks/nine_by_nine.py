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
from pathlib import Path

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


def _run(argv: list[str], repeat: int, out: Path) -> tuple[float, float, int]:
    """Best wall and CPU seconds of ``repeat`` runs of a whole process (the last run's output in
    ``out``), and its exit code."""
    walls, cpus, code = [], [], 0
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        with open(out, "w") as sink:
            code = subprocess.run(argv, stdout=sink, stderr=subprocess.DEVNULL, check=False).returncode
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
    return min(walls), min(cpus), code


def _naive_solutions(out: Path) -> list[str]:
    return out.read_text().split()


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
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for key in args.only.split(","):
            path, count = _corpus_file(key, args.clue17, tmp)
            name = f"{CORPORA[key][0]} ({count:,})"
            before = load_average()
            naive_out = tmp / "naive.txt"
            wall, cpu, code = _run([*pin, sys.executable, str(NAIVE), str(path)], args.repeat, naive_out)
            truth = _naive_solutions(naive_out)
            if code or len(truth) != count:
                raise SystemExit(f"nine_by_nine: the naive loop failed on {path} (exit {code})")
            base = cpu
            runs = [("naive loop (CaDiCaL, givens as assumptions)", wall, cpu, count)]
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
                out = tmp / "cli.txt"
                wall, cpu, code = _run([*program, *extra, str(path)], args.repeat, out)
                got = _cli_solutions(out)
                right = sum(a == b for a, b in zip(got, truth, strict=False))
                runs.append((label, wall, cpu, right))
            after = load_average()
            for label, wall, cpu, right in runs:
                rows.append(
                    {
                        "corpus": name,
                        "run": label,
                        "puzzles": count,
                        "right": right,
                        "wall_s": round(wall, 3),
                        "cpu_s": round(cpu, 3),
                        "ratio_cpu": round(base / cpu, 2) if cpu else None,
                        "load": f"{before} -> {after}",
                    }
                )
                print(
                    f"{name}: {label}: {right}/{count} right, {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True
                )
    lines = [
        "| corpus | whole process, one core | right | wall s | puzzles/s (wall) | CPU s | puzzles/s (CPU) "
        "| naive CPU / this CPU | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        puzzles, wall, cpu = int(row["puzzles"]), float(row["wall_s"]), float(row["cpu_s"])  # type: ignore[arg-type]
        lines.append(
            f"| {row['corpus']} | {row['run']} | {row['right']:,} | {wall:.2f} | {puzzles / wall:,.0f} "
            f"| {cpu:.2f} | {puzzles / cpu:,.0f} | {row['ratio_cpu']} | {row['load']} |"
        )
    print("\n".join(lines))
    out = ROOT / "benchmarks" / "results" / "nine_by_nine.json"
    out.write_text(json.dumps({"machine": machine(), "pinned": bool(pin), "rows": rows}, indent=1) + "\n")
    print(f"written {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
