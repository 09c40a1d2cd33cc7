"""Whole-process speed of ``sudoku-cp rate`` on generated minimal puzzles, next to the SAT backend.

    .venv/bin/python benchmarks/rate_speed.py [--count 2000] [--large 10000] [--seed 1] [--count16 20]
                                              [--repeat 3] [--jobs 2] [--pads DIR [--pads-only]]
    .venv/bin/python benchmarks/rate_speed.py --by-rule [--count 2000] [--seed 1]

1. Generate ``--large`` minimal 9x9 puzzles (``deduction.generate``, seeded: the puzzles
   ``sudoku-cp generate --box 3x3 --count N --seed S`` prints) into a temporary file, and their
   first ``--count`` into another (the start-up weighs less on the larger file).
2. Time whole processes (with the bytecode of our modules kept, as an installed program keeps
   it, even where PYTHONDONTWRITEBYTECODE is set), each pinned to one core (``taskset -c 0``
   when it exists), the best of ``--repeat`` runs, wall clock and CPU (user + system of the child):
   - ``sudoku-cp rate FILE --json``: puzzles per second, the figure of issues 12 and 26 (at
     least 1,100), on both files;
   - ``sudoku-cp rate FILE --json --jobs J`` (``--jobs``, default 2; not pinned: both cores);
   - ``sudoku-cp explain FILE --json`` on the smaller file (issue 26: at least 300/s);
   - ``sudoku-cp solve FILE --json`` on the same files (the default SAT backend);
   - ``sudoku-cp rate ONE --json`` with the first puzzle alone: the start-up every run pays;
   - the same puzzles rated in this process (``deduction.batch.rate_items``, one core, after a
     warm-up of 20 puzzles): what the rules cost without start-up;
   - 16x16 (4x4 boxes): ``sudoku-cp generate --box 4x4 --count N16 --seed S`` (generation
     speed), then ``sudoku-cp rate`` on what it printed.
   - with ``--pads DIR`` (a checkout of https://github.com/jfinkels/PADS, Eppstein's pure-Python
     PADS ported to Python 3; default: ``$PADS_DIR``; left out when absent): PADS rating the
     larger file (``benchmarks/pads_rate.py``, one core: PADS is single-threaded) and
     ``sudoku-cp rate`` on it as a user runs it (every core, the default), the two alternated
     ``--repeat`` times, and the ratio of their best walls: issue 26 asks ``rate`` for at least
     10x PADS.
3. Print the machine line, the figures and a Markdown table (the one in benchmarks/README.md), and
   write ``benchmarks/results/rate_speed.json``.

``--by-rule`` instead profiles the rating of the ``--count`` puzzles in this process: CPU
seconds in each rule's finder (the rules the engine tries one at a time; the compiled local rules
of the fast path run inside one call and count in the engine's share), and per band of rating.

A busy machine shows in the wall clock first: the CPU column is what the process itself spent
(with its workers), and each row notes the load average (1 minute) just before its runs.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, load_average, machine

from sudoku_cp.deduction.batch import rate_items
from sudoku_cp.deduction.generate import generate_puzzles
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import Rule, select_rules
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import format_line, parse_puzzles
from sudoku_cp.geometry import geometry_for_size


def _program() -> list[str]:
    found = shutil.which("sudoku-cp") or str(Path(sys.executable).with_name("sudoku-cp"))
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    return [*pin, found]


def _in_process(path: Path, repeat: int) -> tuple[float, float]:
    """Best wall and CPU seconds of rating the file's puzzles here, kernels loaded beforehand."""
    items = parse_puzzles(path.read_text())
    list(rate_items(items[:20]))  # loads most kernels from numba's cache, as a long run would
    walls, cpus = [], []
    for _ in range(repeat):
        cpu = time.process_time()
        start = time.perf_counter()
        for _result in rate_items(items):
            pass
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: The programs run as an installed program runs: Python keeps the compiled bytecode of our
#: modules (``__pycache__``).  A sandbox that sets PYTHONDONTWRITEBYTECODE would charge every run
#: 0.1-0.25 s of compiling our sources, which no user's second run pays.
_ENVIRONMENT = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _run(argv: list[str], repeat: int, out: Path | None = None) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs of a whole process (output to ``out`` or
    thrown away)."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        with open(out, "w") if out is not None else open(os.devnull, "w") as sink:
            subprocess.run(argv, stdout=sink, stderr=subprocess.DEVNULL, check=False, env=_ENVIRONMENT)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
    return min(walls), min(cpus)


def _alternated(runs: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """Best wall and CPU seconds of each whole process, the processes run in turn ``repeat`` times:
    this VM's speed swings within seconds, and a ratio must compare runs of the same moment."""
    walls: list[list[float]] = [[] for _ in runs]
    cpus: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for k, argv in enumerate(runs):
            wall, cpu = _run(argv, 1)
            walls[k].append(wall)
            cpus[k].append(cpu)
    return [(min(w), min(c)) for w, c in zip(walls, cpus, strict=True)]


#: Bands of rating for ``--by-rule`` (upper ends; singles and locked candidates first).
_BANDS = (
    (3.0, "< 3.0"),
    (4.1, "3.0-4.0"),
    (5.5, "4.1-5.4"),
    (7.0, "5.5-6.9"),
    (7.6, "7.0-7.5"),
    (99.0, ">= 7.6"),
)


def _by_rule(puzzles: list[str]) -> None:
    """Where the CPU time of rating goes: per rule finder, and per band of rating."""
    spent: dict[str, float] = collections.defaultdict(float)
    calls: collections.Counter[str] = collections.Counter()
    found: collections.Counter[str] = collections.Counter()

    def timed(rule: Rule) -> Rule:
        finder = rule.find

        def find(board: object) -> Step | None:
            start = time.process_time()
            try:
                step = finder(board)  # type: ignore[arg-type]
            finally:
                spent[rule.name] += time.process_time() - start
                calls[rule.name] += 1
            found[rule.name] += step is not None
            return step

        return dataclasses.replace(rule, find=find)

    rules = tuple(timed(rule) for rule in select_rules())
    grids = [item.grid for item in parse_puzzles("".join(puzzles)) if item.grid is not None]
    for grid in grids[:20]:  # kernels loaded from numba's cache first
        rate(grid, rules)
    spent.clear()
    calls.clear()
    found.clear()
    bands: collections.Counter[str] = collections.Counter()
    seconds: dict[str, float] = collections.defaultdict(float)
    total = time.process_time()
    for grid in grids:
        start = time.process_time()
        rating = rate(grid, rules).rating
        band = next(name for top, name in _BANDS if rating is None or rating < top)
        bands[band] += 1
        seconds[band] += time.process_time() - start
    total = time.process_time() - total
    print(f"{len(grids)} puzzles, {total:.2f} s CPU ({len(grids) / total:,.0f}/s); load {load_average()}")
    print(f"in the finders tried one at a time: {sum(spent.values()):.2f} s")
    for name, cpu in sorted(spent.items(), key=lambda pair: -pair[1])[:20]:
        share = f"{100 * cpu / total:5.1f} %"
        print(f"  {name:30} {cpu:6.2f} s {share}  calls {calls[name]:6}  steps {found[name]}")
    for _, band in _BANDS:
        if bands[band]:
            each = 1000 * seconds[band] / bands[band]
            print(f"  rating {band:8} {bands[band]:5} puzzles {seconds[band]:6.2f} s CPU, {each:.2f} ms each")


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="9x9 puzzles (default 2000)")
    parser.add_argument(
        "--large", type=int, default=10_000, help="a larger 9x9 file (default 10000; 0: none)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count16", type=int, default=20, help="16x16 puzzles (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each process (best kept)")
    parser.add_argument("--jobs", type=int, default=2, help="rate --jobs J rows (default 2; 1: none)")
    parser.add_argument("--by-rule", action="store_true", help="profile the rating per rule and band instead")
    parser.add_argument(
        "--pads",
        type=Path,
        default=os.environ.get("PADS_DIR"),
        metavar="DIR",
        help="a checkout of github.com/jfinkels/PADS: time PADS against rate (default: $PADS_DIR)",
    )
    parser.add_argument("--pads-only", action="store_true", help="only the PADS rows (with --pads)")
    args = parser.parse_args()
    if args.by_rule:
        sample = generate_puzzles(geometry_for_size(9, (3, 3)), args.count, args.seed)
        _by_rule([format_line(one.puzzle) + "\n" for one in sample])
        return
    program = _program()
    unpinned = program[-1:]
    load = load_average()  # at the start: the runs below add to it
    print(f"machine: {machine()}; load {load}; {' '.join(program[:-1]) or 'not pinned'}")
    rows: list[tuple[str, int, float, float, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        made9 = generate_puzzles(geometry_for_size(9, (3, 3)), max(args.count, args.large), args.seed)
        puzzles = [format_line(made.puzzle) + "\n" for made in made9]
        made = time.perf_counter() - start
        print(f"generated {len(puzzles)} minimal 9x9 puzzles (seed {args.seed}) in {made:.1f} s, in process")
        jobs = []
        for count in dict.fromkeys(c for c in (args.count, args.large) if c):
            nine = Path(tmp) / f"minimal9_{count}.txt"
            nine.write_text("".join(puzzles[:count]))
            jobs.append((f"rate, 9x9, {count:,} puzzles", [*program, "rate", str(nine), "--json"], count))
            if args.jobs > 1:
                both = [*unpinned, "rate", str(nine), "--json", "--jobs", str(args.jobs)]
                jobs.append((f"rate --jobs {args.jobs} (not pinned), the same {count:,}", both, count))
            if count == args.count:
                explain = [*program, "explain", str(nine), "--json"]
                jobs.append((f"explain --json, the same {count:,}", explain, count))
            jobs.append(
                (f"solve (SAT), 9x9, the same {count:,}", [*program, "solve", str(nine), "--json"], count)
            )
        one = Path(tmp) / "one.txt"
        one.write_text(puzzles[0])
        jobs.append(("rate, one 9x9 puzzle (start-up)", [*program, "rate", str(one), "--json"], 1))
        for warm in (["rate", str(one)], ["explain", str(one)], ["solve", str(one)]):  # bytecode written
            subprocess.run([*program, *warm], stdout=subprocess.DEVNULL, env=_ENVIRONMENT, check=False)
        if args.pads_only:
            jobs, args.count16 = [], 0
        for label, argv, count in jobs:
            now = load_average()
            wall, cpu = _run(argv, args.repeat)
            rows.append((label, count, wall, cpu, now))
        if not args.pads_only:
            now = load_average()
            wall, cpu = _in_process(Path(tmp) / f"minimal9_{args.count}.txt", args.repeat)
            rows.append(
                (f"rate in this process, the {args.count:,} (no start-up)", args.count, wall, cpu, now)
            )
        sixteen = Path(tmp) / "minimal16.txt"
        generate16 = [
            *program,
            "generate",
            "--box",
            "4x4",
            "--count",
            str(args.count16),
            "--seed",
            str(args.seed),
        ]
        if args.count16:
            now = load_average()
            wall, cpu = _run(generate16, 1, out=sixteen)  # one run: it takes seconds a puzzle
            rows.append(("generate, 16x16", args.count16, wall, cpu, now))
            got16 = len(sixteen.read_text().split())
            rate16 = [*program, "rate", str(sixteen), "--box", "4x4", "--json"]
            now = load_average()
            wall, cpu = _run(rate16, args.repeat)
            rows.append(("rate, 16x16 (the generated puzzles)", got16, wall, cpu, now))
        ratio = None
        if args.pads is not None and not (args.pads / "pads" / "sudoku.py").is_file():
            print(f"--pads {args.pads}: no pads/sudoku.py there; PADS left out")
        elif args.pads is not None:
            count = args.large or args.count
            nine = Path(tmp) / f"minimal9_{count}.txt"
            pads_argv = [*program[:-1], sys.executable, str(Path(__file__).with_name("pads_rate.py"))]
            now = load_average()
            (pads_wall, pads_cpu), (ours_wall, ours_cpu) = _alternated(
                [[*pads_argv, str(args.pads), str(nine)], [*unpinned, "rate", str(nine), "--json"]],
                args.repeat,
            )
            rows.append((f"PADS (pure Python), the same {count:,}", count, pads_wall, pads_cpu, now))
            rows.append(
                (f"rate (every core, the default), the same {count:,}", count, ours_wall, ours_cpu, now)
            )
            ratio = pads_wall / ours_wall if ours_wall > 0 else 0.0
    report = {"machine": machine(), "load": load, "seed": args.seed, "runs": []}
    if ratio is not None:
        report["rate_over_pads"] = round(ratio, 2)
    lines = [
        "| whole process, one core unless said | puzzles | wall s | puzzles/s (wall) | CPU s"
        " | puzzles/s (CPU) | load before |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for label, count, wall, cpu, now in rows:
        speeds = f"{wall:.2f} | {_rate(count, wall):,.1f} | {cpu:.2f} | {_rate(count, cpu):,.1f}"
        lines.append(f"| {label} | {count:,} | {speeds} | {now} |")
        report["runs"].append(  # type: ignore[attr-defined]
            {"run": label, "puzzles": count, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "load": now}
        )
    print("\n".join(lines))
    if ratio is not None:
        print(f"rate against PADS (best walls, alternated): {ratio:.1f}x (issue 26: at least 10x)")
    out = ROOT / "benchmarks" / "results" / "rate_speed.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
