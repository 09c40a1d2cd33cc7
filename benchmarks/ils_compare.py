"""ILS (Musliu & Winter) against the other local searches, hill and ACS, on the ant colony instances.

    .venv/bin/python benchmarks/ils_compare.py [--named N] [--sizes 9,16] [--sample N] [--timeouts 5,20]
                                               [--sweep] [--skip-compare]

Part 0: the 16 named logic-solvable 9x9 instances of the ant colony paper's Table 1 and Figure 4
(``shared/data/acs/logic-solvable``), ``--named`` seeded runs per instance and solver, 5 s
timeout: runs solved, median and mean CPU ms of the solved runs.
Part 1: the general instances of Lloyd & Amos (``shared/data/acs/general``, 5 per size and
fixed-cell fraction), the first ``--sample`` of each fraction, one seeded run per instance and
solver (seed = instance index), with the ant colony paper's timeouts (5 s for 9x9, 20 s for
16x16; ``--timeouts`` for others).  Per fraction: how many runs solved, and the median CPU
seconds over all runs (a timeout counts as the time it ran).  Every solution is checked by the
backend; an unsolved run is *unknown*, never "no solution".
Part 2 (``--sweep``): the choices of ``sudoku_cp/native/ils.py`` that the paper does not fix
(tenure, stall limit, perturbation kind and strength, restarts, domains), one setting changed at
a time from the defaults, measured in iterations under an iteration cap, so the figures do not
depend on the machine's load: the six hard named 9x9 instances (10 seeds each), eight random
16x16 puzzles at 45 % fixed cells (3 seeds) and the 25x25 general instances at 40 and 45 % (one
seed).  Raw results go to ``benchmarks/results/ils_compare_<parts>.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from common import ROOT, SHARED, load_average, machine

from sudoku_cp.backends.ils_backend import parse_ils_settings
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.native.ils import ils_solve
from sudoku_cp.random_grids import blank_cells, random_solution

ACS = SHARED / "acs"
RESULTS = ROOT / "benchmarks" / "results"
SOLVERS = {"ILS": "ils", "hill": "hill", "ACS": "acs"}
PAPER_TIMEOUT = {9: 5.0, 16: 20.0, 25: 120.0}
HARD_NAMED = ("aiescargot", "platinumblond", "goldennugget", "reddwarf", "coly013", "tarx0134")
# Part 2: one change from the defaults per row.
SWEEP = (
    "",
    "tenure=0",
    "tenure=3",
    "tenure=10",
    "stall_limit=100",
    "stall_limit=300",
    "stall_limit=3000",
    "strength=2",
    "perturbation=swap,strength=5",
    "restart_after=20",
    "domain_swaps=1",
    "domain_fill=0",
)
SWEEP_CAP = 2_000_000


def _emit(*lines: str) -> None:
    print(*lines, sep="\n", flush=True)


def _header(title: str, first: str, groups: Sequence[str], columns: Sequence[str]) -> None:
    """A Markdown table's title and head: ``first``, then every column of every group."""
    heads = [f"{group} {column}" for group in groups for column in columns]
    _emit("", title, "", "| " + " | ".join([first, *heads]) + " |", "|---|" + "---:|" * len(heads))


def _instances(size: int, fraction: int, sample: int) -> list[Grid]:
    files = sorted(ACS.glob(f"general/inst{size}x{size}_{fraction}_*.txt"))[:sample]
    return [parse_grid(path.read_text()) for path in files]


def _run(spec: str, puzzle: Grid, seed: int, timeout: float) -> tuple[bool, float]:
    """Solved or not, and CPU seconds, of one backend search (its answer checked by the backend)."""
    backend = make_backend(spec, seed=seed)
    began = time.process_time()
    found = backend.search(puzzle, 1, timeout)
    return found.count == 1, time.process_time() - began


def compare(sizes: list[int], sample: int, timeouts: dict[int, float]) -> dict[str, object]:
    """Part 1: success and median CPU time per fixed-cell fraction, for every solver."""
    raw: dict[str, object] = {}
    for size in sizes:
        timeout = timeouts[size]
        _header(
            f"### {size}x{size}: {sample} instances per fraction, timeout {timeout:g} s, "
            f"median CPU s over all runs (load at start {load_average()})",
            "fixed %",
            list(SOLVERS),
            ("solved", "median s"),
        )
        totals = {name: [0, 0, 0.0] for name in SOLVERS}
        per_size: dict[str, object] = {}
        for fraction in range(0, 101, 5):
            puzzles = _instances(size, fraction, sample)
            if not puzzles:
                continue
            cells = [f"{fraction}"]
            per_fraction = {}
            for name, spec in SOLVERS.items():
                runs = [_run(spec, puzzle, index, timeout) for index, puzzle in enumerate(puzzles)]
                solved = sum(ok for ok, _ in runs)
                median = statistics.median(seconds for _, seconds in runs)
                cells += [f"{solved}/{len(runs)}", f"{median:.4f}" if median < 1 else f"{median:.2f}"]
                totals[name][0] += solved
                totals[name][1] += len(runs)
                totals[name][2] += sum(seconds for _, seconds in runs)
                per_fraction[name] = runs
            per_size[str(fraction)] = per_fraction
            _emit("| " + " | ".join(cells) + " |")
        raw[str(size)] = per_size
        _emit(
            "",
            *(
                f"* {size}x{size} {name}: {s}/{n} solved ({100 * s / n:.0f} %), {cpu:.1f} CPU s in all"
                for name, (s, n, cpu) in totals.items()
            ),
            f"* load at the end: {load_average()}",
        )
    return raw


def named(runs: int) -> dict[str, object]:
    """Part 0: the named 9x9 instances, ``runs`` seeded runs per instance and solver."""
    began = load_average()
    results = {
        path.stem: {
            name: [_run(spec, parse_grid(path.read_text()), seed, 5.0) for seed in range(runs)]
            for name, spec in SOLVERS.items()
        }
        for path in sorted((ACS / "logic-solvable").glob("*.txt"))
    }
    _header(
        f"### Named 9x9 instances: {runs} runs each, 5 s timeout, CPU ms of the solved runs "
        f"(load at start {began}, at the end {load_average()})",
        "instance",
        list(SOLVERS),
        ("solved", "median ms", "mean ms"),
    )
    for stem, per in results.items():
        cells = [stem]
        for outcomes in per.values():
            times = [1000 * seconds for ok, seconds in outcomes if ok]
            middle = (
                [f"{statistics.median(times):.3g}", f"{statistics.fmean(times):.3g}"] if times else ["-"] * 2
            )
            cells += [f"{len(times)}/{runs}", *middle]
        _emit("| " + " | ".join(cells) + " |")
    return dict(results)


# ---------------------------------------------------------------------------------------- Part 2


def _sweep_sets() -> dict[str, list[tuple[Grid, int]]]:
    """(puzzle, seed) runs of each instance set of the sweep."""
    hard = [parse_grid((ACS / "logic-solvable" / f"{name}.txt").read_text()) for name in HARD_NAMED]
    rng = np.random.default_rng(2024)
    random16 = [blank_cells(random_solution(Geometry(4, 4), rng), 0.55, rng) for _ in range(8)]
    big = _instances(25, 40, 5) + _instances(25, 45, 5)
    return {
        "hard 9x9 (6 x 10 seeds)": [(p, s) for p in hard for s in range(10)],
        "random 16x16 45 % (8 x 3 seeds)": [(p, s) for p in random16 for s in range(3)],
        "25x25 40-45 % (10 x 1 seed)": [(p, 1) for p in big],
    }


def sweep() -> dict[str, object]:
    """Part 2: each setting's solved runs and median iterations under ``SWEEP_CAP``."""
    sets = _sweep_sets()
    _header(
        f"### ILS settings, one change from the defaults; iterations under a cap of {SWEEP_CAP:,} "
        f"(load at start {load_average()})",
        "settings",
        list(sets),
        ("solved", "median it", "3rd quartile it"),
    )
    raw: dict[str, object] = {}
    for text in SWEEP:
        params = dataclasses.replace(parse_ils_settings(text), max_iterations=SWEEP_CAP)
        cells = [text or "defaults"]
        raw[text or "defaults"] = per = {}
        for name, runs in sets.items():
            counts = []
            for puzzle, seed in runs:
                result = ils_solve(puzzle, params, seed=seed)
                counts.append(result.iterations if result.solved else math.inf)
            ordered = sorted(counts)
            solved = sum(c < math.inf for c in counts)
            cells += [
                f"{solved}/{len(counts)}",
                _it(statistics.median(ordered)),
                _it(ordered[3 * len(ordered) // 4]),
            ]
            per[name] = [c if c < math.inf else None for c in counts]
        _emit("| " + " | ".join(cells) + " |")
    _emit("", f"* load at the end: {load_average()}")
    return raw


def _it(value: float) -> str:
    return "cap" if value == math.inf else f"{value:,.0f}"


def _numbers(text: str) -> list[float]:
    return [float(part) for part in text.split(",")]


# Command-line switches, then options with their type and default.
SWITCHES = (("--sweep", "also measure the ILS settings (part 2)"), ("--skip-compare", "only part 2"))
OPTIONS: tuple[tuple[str, Callable[[str], object], object, str], ...] = (
    ("--named", int, 5, "runs per named instance (default 5; 0: skip)"),
    ("--sample", int, 5, "instances per fraction (default all 5; 0: skip)"),
    ("--sizes", _numbers, [9, 16], "general instance sizes (default 9,16)"),
    ("--timeouts", _numbers, [], "seconds per size, in the order of --sizes (default the paper's)"),
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for switch, text in SWITCHES:
        parser.add_argument(switch, action="store_true", help=text)
    for option, kind, default, text in OPTIONS:
        parser.add_argument(option, type=kind, default=default, help=text)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the parts asked for and print Markdown tables; raw results to benchmarks/results."""
    args = _parser().parse_args(argv)
    sizes = [int(size) for size in args.sizes]
    timeouts = PAPER_TIMEOUT | dict(zip(sizes, args.timeouts, strict=False))
    if not (ACS / "general").is_dir():
        _emit(f"the ant colony corpus is not at {ACS}: nothing to measure")
        return 2
    _emit(f"machine: {machine()}", f"load average at start: {load_average()}")
    began = time.perf_counter()
    raw: dict[str, object] = {"machine": machine(), "timeouts": timeouts, "sample": args.sample}
    if not args.skip_compare:
        for spec in SOLVERS.values():  # compile before anything is timed
            _run(spec, _instances(9, 45, 1)[0], 0, 30.0)
        if args.named:
            raw["named"] = named(args.named)
        if args.sample:
            raw["compare"] = compare(sizes, args.sample, timeouts)
    if args.sweep:
        raw["sweep"] = sweep()
    RESULTS.mkdir(exist_ok=True)
    parts = [key if key != "compare" else "-".join(map(str, sizes)) for key in ("named", "compare", "sweep")]
    name = "_".join(
        part for part, key in zip(parts, ("named", "compare", "sweep"), strict=True) if key in raw
    )
    (RESULTS / f"ils_compare_{name}.json").write_text(json.dumps(raw))
    _emit("", f"total {time.perf_counter() - began:.0f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
