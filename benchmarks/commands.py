"""Whole-process timings of ``sudoku-cp`` commands: start-up of every subcommand, and the Nishio command.

Start-up is what a user waits for before any work: ``sudoku-cp COMMAND --help`` parses the
arguments and imports what the command imports at the top (heavy modules load only when used).
The baseline is ``python -c pass`` in the same run.  The Nishio part runs
``sudoku-cp nishio --puzzle FILE --all-digits --json`` on the forum-hardest corpus with the DAG
(every puzzle) and with ``--method sat`` (the first ``--sat-puzzles`` puzzles), and reports the
cost per puzzle of each and their ratio.  Each command runs pinned to one core (``taskset -c 0``
when it exists), the median of ``--repeat`` runs.

The first-run part (``--first-run``) runs every command's first job after an install: cold, with
an empty numba cache (a fresh ``NUMBA_CACHE_DIR``, which also holds the saved machine code, and
``SUDOKU_CP_BACKGROUND_COMPILE=0`` so that no background warm-up competes), then warm (the same
job again on the cache the cold run filled, median of ``--repeat``), with the peak memory of the
cold run and the load average before each row.  Results: ``benchmarks/results/first_run.md``.

usage: python benchmarks/commands.py [--repeat 5] [--sat-puzzles 300] [--skip-nishio]
       python benchmarks/commands.py --first-run [--repeat 3] [--only rate,explain]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, SHARED, load_average, machine

COMMANDS = ("", "solve", "count", "encode", "decode", "nishio", "reduce", "verify")
FOREST = SHARED / "sudoku9" / "tdoku_forum_hardest_1905_11plus_every5th.txt"


def _program() -> list[str]:
    found = shutil.which("sudoku-cp") or str(Path(sys.executable).with_name("sudoku-cp"))
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    return [*pin, found]


def _timed(argv: list[str], repeat: int, stdin: bytes | None = None) -> float:
    """Median wall seconds of a whole process, output thrown away."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _smallest_jobs(tmp: Path) -> dict[str, list[str]]:
    """The smallest real job of each subcommand (a 4x4 grid), so lazy imports are counted too."""
    grid = "1.3.3.1.2.4.4.2."
    answer = tmp / "answer.txt"
    # x(R,C,D) = (R-1)*16 + (C-1)*4 + D of the extended encoding, for the solution 1234/3412/2143/4321
    solution = "1234341221434321"
    literals = [16 * r + 4 * c + int(solution[4 * r + c]) for r in range(4) for c in range(4)]
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, literals)) + " 0\n")
    return {
        "": [],
        "solve": ["solve", grid],
        "count": ["count", "." * 16],
        "encode": ["encode", grid],
        "decode": ["decode", grid, str(answer)],
        "nishio": ["nishio", "--puzzle", grid, "--digit", "1"],
        "reduce": ["reduce", "--random-vars", "3", "--clauses", "2", "--json", "-o", str(tmp / "i.txt")],
        "verify": ["verify", "--backend", "backtrack", "--in-process", grid],
    }


def startup(repeat: int, tmp: Path) -> None:
    """A table: seconds to start each subcommand (--help) and to run its smallest job."""
    pin = _program()[:-1]
    bare = _timed([*pin, sys.executable, "-c", "pass"], repeat)
    jobs = _smallest_jobs(tmp)
    print(f"bare interpreter (`python -c pass`): {bare:.3f} s\n")
    print("| command | `--help` s | smallest job s | smallest job |")
    print("|---|---:|---:|---|")
    for command in COMMANDS:
        program = _program()
        help_seconds = _timed([*program, *([command] if command else []), "--help"], repeat)
        job = jobs[command]
        job_seconds = _timed([*program, *job], repeat)
        shown = " ".join(job) if job else "(no arguments: the built-in example)"
        print(f"| `{command or '(none)'}` | {help_seconds:.3f} | {job_seconds:.3f} | `{shown}` |")


#: A hard 9x9 puzzle (the README's) for the first-run jobs.
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
#: Every command's first job after an install, as the README shows them.
FIRST_JOBS: dict[str, list[str]] = {
    "solve": ["solve", PUZZLE],
    "solve --backend backtrack": ["solve", "--backend", "backtrack", PUZZLE],
    "solve --backend dlx": ["solve", "--backend", "dlx", PUZZLE],
    "solve --backend acs --seed 1 --time-limit 10": [
        "solve",
        "--backend",
        "acs",
        "--seed",
        "1",
        "--time-limit",
        "10",
        PUZZLE,
    ],
    "solve --backend hill --seed 1 --time-limit 10": [
        "solve",
        "--backend",
        "hill",
        "--seed",
        "1",
        "--time-limit",
        "10",
        PUZZLE,
    ],
    "solve --backend ils --seed 1 --time-limit 10": [
        "solve",
        "--backend",
        "ils",
        "--seed",
        "1",
        "--time-limit",
        "10",
        PUZZLE,
    ],
    "count": ["count", PUZZLE],
    "rate": ["rate", PUZZLE],
    "explain": ["explain", PUZZLE],
    "nishio --puzzle --all-digits": ["nishio", "--puzzle", PUZZLE, "--all-digits"],
    "encode": ["encode", PUZZLE],
    "verify --backend backtrack": ["verify", "--backend", "backtrack", "--in-process", PUZZLE],
}


#: Runs a command and prints its peak resident memory (KiB): a grandchild of this process, so the
#: figure is that command's alone (RUSAGE_CHILDREN of this process is the peak of all of them).
_MEASURED = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
    "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
    "sys.exit(done.returncode)"
)


def _child_run(argv: list[str], environment: dict[str, str]) -> tuple[float, int, int]:
    """Wall seconds, exit code and peak memory (MiB) of one run (output thrown away)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *argv], capture_output=True, text=True, env=environment, check=False
    )
    seconds = time.perf_counter() - start
    peak = int(done.stdout.strip() or 0) // 1024
    return seconds, done.returncode, peak


def first_run(repeat: int, tmp: Path, only: list[str] | None) -> list[dict[str, object]]:
    """A table: each command's first job with empty caches (cold) and again (warm)."""
    program = _program()
    rows: list[dict[str, object]] = []
    print("| command | cold s | exit | warm s (median) | cold peak MiB | load |")
    print("|---|---:|---:|---:|---:|---:|")
    for number, (name, job) in enumerate(FIRST_JOBS.items()):
        if only and not any(name.startswith(word) for word in only):
            continue
        cache = tmp / f"cache-{number}"
        cache.mkdir()
        environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "SUDOKU_CP_BACKGROUND_COMPILE": "0"}
        load = load_average()
        cold, code, peak = _child_run([*program, *job], environment)
        warm = statistics.median(_child_run([*program, *job], environment)[0] for _ in range(repeat))
        rows.append(
            {"command": name, "cold": cold, "exit": code, "warm": warm, "peak_mib": peak, "load": load}
        )
        print(f"| `{name}` | {cold:.2f} | {code} | {warm:.2f} | {peak} | {load} |", flush=True)
    return rows


def nishio(repeat: int, sat_puzzles: int, tmp: Path) -> None:
    """Per-puzzle cost of the Nishio command, DAG over the whole corpus against SAT on a prefix."""
    if not FOREST.exists():
        print(f"skipped: {FOREST} is absent")
        return
    lines = [line for line in FOREST.read_text().splitlines() if line.strip() and not line.startswith("#")]
    prefix = tmp / "prefix.txt"
    prefix.write_text("\n".join(lines[:sat_puzzles]) + "\n")
    program = _program()
    dag = _timed([*program, "nishio", "--puzzle", str(FOREST), "--all-digits", "--json"], repeat)
    dag_prefix = _timed([*program, "nishio", "--puzzle", str(prefix), "--all-digits", "--json"], repeat)
    sat = _timed(
        [*program, "nishio", "--puzzle", str(prefix), "--all-digits", "--json", "--method", "sat"],
        max(1, repeat // 2),
    )
    per_dag, per_sat = dag / len(lines), sat / sat_puzzles
    print("| command | puzzles | whole process s | ms per puzzle |")
    print("|---|---:|---:|---:|")
    print(f"| `nishio --all-digits --json` (dag) | {len(lines):,} | {dag:.2f} | {1000 * per_dag:.3f} |")
    print(
        f"| `nishio --all-digits --json` (dag) | {sat_puzzles:,} | {dag_prefix:.2f} | "
        f"{1000 * dag_prefix / sat_puzzles:.3f} |"
    )
    print(
        f"| `nishio --all-digits --json --method sat` | {sat_puzzles:,} | {sat:.2f} | {1000 * per_sat:.3f} |"
    )
    print(f"\nper puzzle, dag over the whole corpus is {per_sat / per_dag:.1f}x faster than sat")


def main() -> None:
    """Run the benchmark and print Markdown tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sat-puzzles", type=int, default=300)
    parser.add_argument("--skip-nishio", action="store_true")
    parser.add_argument("--first-run", action="store_true", help="cold (empty caches) and warm first runs")
    parser.add_argument("--only", default="", help="with --first-run: commands starting with these words")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {load_average()}; one core (taskset -c 0)\n")
    import tempfile

    if args.first_run:
        with tempfile.TemporaryDirectory() as tmp:
            first_run(args.repeat, Path(tmp), [w.strip() for w in args.only.split(",") if w.strip()] or None)
        return
    with tempfile.TemporaryDirectory() as tmp:
        startup(args.repeat, Path(tmp))
        if not args.skip_nishio:
            print()
            nishio(args.repeat, args.sat_puzzles, Path(tmp))
    print(f"\nroot: {ROOT}")


if __name__ == "__main__":
    main()
