"""Lloyd & Amos' ant colony experiments, reproduced with sudoku_cp's solvers side by side.

    .venv/bin/python benchmarks/acs_paper.py [--quick] [--runs N] [--sizes 9,16,25] [--skip-table1]
    .venv/bin/python benchmarks/acs_paper.py --full [--cluster local|tcp://...] [--jobs N] [-o FILE]
        [--resume] [--share F] [--sizes 9,16,25] [--workers N] [--plot-only]

Part 1 (the paper's Table 1 and Figure 4): the 16 named logic-solvable 9x9 instances of
``shared/data/acs/logic-solvable``, ``--runs`` colony runs each (the paper: 100) with a 5 s
timeout, with and without best value evaporation (bve = 0.005 / 0), under both readings of the
q0 test (paper: greedy when q < q0; code: greedy when q > q0, as the authors' program does).
The deterministic solvers (backtracking, DLX, SAT = the pysat backend, CP-SAT) run 3 times each
and give their median.  The paper's Table 1 figures (C++, Core i7-3770) stand next to ours.

Part 2 (Figures 5-7, 9): the general instances of ``shared/data/acs/general`` (5 per size and
fixed-cell fraction here; the paper had 100), one run per instance and solver, with the paper's
timeouts (5 s for 9x9, 20 s for 16x16, 120 s for 25x25).  Success rate and mean time of the
successful runs per fraction, as a table and as PNG plots in ``benchmarks/results/``.  Also the
share of instances solved by propagation alone and the mean value-set size (Figure 8).

``--full`` (the general instances at the paper's scale): one run per (solver, instance) of
every instance in the folder (or every round(1/F)-th per fraction with ``--share F``) for the four
ACS variants, ILS, BS, DLX and SAT, at the paper's timeouts, through ``sudoku_cp.executor``
(local processes with ``--jobs``, Dask with ``--cluster``); one flushed JSON line per run in the
results file (``--resume`` skips the runs it holds); then Figures 5-7 and 9 (mean time of the
successful runs and success rate per fraction, a panel per size) as
``results/acs_full_time.png`` / ``acs_full_success.png``, and the projected cost of the whole
campaign on ``--workers`` workers.

``--quick`` (15 minutes on a shared 2-core machine): 10 runs per named instance and a 20 s timeout on
25x25.  Every solution any solver returns is checked against the rules and the givens (the
backends do that); a wrong answer stops the script.  Times are wall-clock seconds of one
``search`` call, the first-call compile excluded by a warm-up.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sudoku_cp.backends.base import Backend
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.cli.results_file import open_results_file
from sudoku_cp.executor import ClusterError, Executor, Work, run_ordered
from sudoku_cp.formats import parse_grid
from sudoku_cp.grid import Grid
from sudoku_cp.native.propagation import propagate_grid
from sudoku_cp.propagation.bitset import popcount

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "acs"
RESULTS = Path(__file__).resolve().parent / "results"

# Table 1 of the paper: instance -> (no-BVE success %, no-BVE t/ms, BVE success %, BVE t/ms).
PAPER_TABLE1 = {
    "sabuncu1": (100, 0.029, 100, 0.031),
    "sabuncu2": (100, 0.020, 100, 0.022),
    "sabuncu3": (100, 0.642, 100, 0.627),
    "sabuncu4": (100, 0.238, 100, 0.235),
    "sabuncu5": (100, 0.017, 100, 0.017),
    "sabuncu6": (95, 640.0, 100, 5.921),
    "sabuncu7": (100, 4.07, 100, 0.456),
    "sabuncu8": (100, 0.310, 100, 0.361),
    "sabuncu9": (100, 0.634, 100, 0.923),
    "sabuncu10": (100, 0.021, 100, 0.027),
    "aiescargot": (64, 1223.2, 100, 11.11),
    "platinumblond": (14, 892.2, 100, 75.75),
    "goldennugget": (36, 866.7, 100, 22.95),
    "reddwarf": (34, 1020.7, 100, 23.14),
    "coly013": (25, 1320.2, 100, 37.95),
    "tarx0134": (42, 1086.8, 100, 16.40),
}
HARD = ("aiescargot", "platinumblond", "goldennugget", "reddwarf", "coly013", "tarx0134")
PAPER_TIMEOUT = {9: 5.0, 16: 20.0, 25: 120.0}
ACS_VARIANTS = {
    "ACS": "acs",
    "ACS no BVE": "acs:bve=0",
    "ACS code-q0": "acs:rule=code",
    "ACS code-q0 no BVE": "acs:rule=code,bve=0",
}
EXACT = {"BS": "backtrack", "DLX": "dlx", "SAT": "pysat", "CP-SAT": "cpsat"}
LOCAL = {"ILS": "ils"}  # Musliu & Winter's iterated local search, the paper's fourth algorithm
GENERAL_SOLVERS = ("ACS", "ACS no BVE", "ACS code-q0", "ILS", "BS", "DLX", "SAT", "CP-SAT")


@dataclass(frozen=True, slots=True)
class Run:
    """One solve: solved or not, wall seconds."""

    solved: bool
    seconds: float


def machine() -> str:
    """One line naming the machine this run measured."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def solve_once(backend: Backend, puzzle: Grid, time_limit: float) -> Run:
    """Time one search; a returned solution has been checked by the backend."""
    # Without this the first call after a CP-SAT solve pays ~10 ms of its clean-up; the price is
    # cold caches, a floor of about 0.4 ms under every time (see benchmarks/README.md).
    gc.collect()
    start = time.perf_counter()
    found = backend.search(puzzle, 1, time_limit)
    return Run(found.count >= 1, time.perf_counter() - start)


def backend(name: str, seed: int = 0) -> Backend:
    """The backend of a column name (ACS variants, ILS or exact solvers)."""
    spec = ACS_VARIANTS.get(name) or LOCAL.get(name) or EXACT[name]
    return make_backend(spec, seed=seed)


def warm_up() -> None:
    """Compile the numba kernels and load the solvers before anything is timed."""
    puzzle = parse_grid((SHARED / "logic-solvable" / "aiescargot.txt").read_text())
    for name in (*ACS_VARIANTS, *LOCAL, *EXACT):
        solve_once(backend(name), puzzle, 30.0)


def summary(runs: Sequence[Run]) -> tuple[float, float | None, float | None]:
    """Success %, median and mean seconds of the successful runs (None without any)."""
    times = [run.seconds for run in runs if run.solved]
    rate = 100.0 * len(times) / len(runs) if runs else 0.0
    if not times:
        return rate, None, None
    return rate, statistics.median(times), statistics.fmean(times)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.3g}"


def _geomean(values: Sequence[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else float("nan")


# ----------------------------------------------------------------------------------------- Table 1


def table_one(runs: int) -> tuple[list[str], dict[str, dict[str, list[Run]]]]:
    """Named instances: ``runs`` seeded colony runs per variant, 3 runs of each exact solver."""
    results: dict[str, dict[str, list[Run]]] = {}
    for name in PAPER_TABLE1:
        puzzle = parse_grid((SHARED / "logic-solvable" / f"{name}.txt").read_text())
        per: dict[str, list[Run]] = {}
        for column in ACS_VARIANTS:
            per[column] = [solve_once(backend(column, seed), puzzle, 5.0) for seed in range(runs)]
        for column in EXACT:
            per[column] = [solve_once(backend(column), puzzle, 5.0) for _ in range(3)]
        results[name] = per
        print(f"  {name}: done", file=sys.stderr, flush=True)
    lines = [
        f"### Table 1: named instances, {runs} runs per ACS variant, 5 s timeout (ms; success %)",
        "",
        "| instance | paper noBVE % | paper noBVE ms | ACS noBVE % | median ms | paper BVE ms | ACS % "
        "| median ms | mean ms | code-q0 % | median ms | code-q0 noBVE % | median ms | BS ms | DLX ms "
        "| SAT ms | CP-SAT ms |",
        "|---|" + "---:|" * 16,
    ]
    for name, per in results.items():
        paper = PAPER_TABLE1[name]
        acs = summary(per["ACS"])
        cells = [name, f"{paper[0]}", f"{paper[1]:g}"]
        no_bve = summary(per["ACS no BVE"])
        cells += [
            f"{no_bve[0]:.0f}",
            _ms(no_bve[1]),
            f"{paper[3]:g}",
            f"{acs[0]:.0f}",
            _ms(acs[1]),
            _ms(acs[2]),
        ]
        for column in ("ACS code-q0", "ACS code-q0 no BVE"):
            rate, median, _ = summary(per[column])
            cells += [f"{rate:.0f}", _ms(median)]
        for column in EXACT:
            rate, median, _ = summary(per[column])
            cells.append(_ms(median) if rate == 100 else f"{rate:.0f}% solved")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *factor_lines(results)]
    return lines, results


def factor_lines(results: dict[str, dict[str, list[Run]]]) -> list[str]:
    """Our median over the paper's time, geometric mean over instances, per variant."""
    lines = []
    for column, paper_index in (("ACS", 3), ("ACS code-q0", 3), ("ACS no BVE", 1), ("ACS code-q0 no BVE", 1)):
        for label, names in (("all 16", list(PAPER_TABLE1)), ("6 hard", list(HARD))):
            ratios = []
            for name in names:
                median = summary(results[name][column])[1]
                if median is not None:
                    ratios.append(median * 1000 / PAPER_TABLE1[name][paper_index])
            lines.append(
                f"* {column} median / paper's {'BVE' if paper_index == 3 else 'no-BVE'} time, {label}: "
                f"geometric mean {_geomean(ratios):.3g} (< 1: faster than the paper's C++)"
            )
        sat = [summary(results[name]["SAT"])[1] for name in HARD]
        acs = [summary(results[name][column])[1] for name in HARD]
        pairs = [a / s for a, s in zip(acs, sat, strict=True) if a is not None and s is not None]
        lines.append(
            f"* {column} median / SAT median on the 6 hard instances: geometric mean {_geomean(pairs):.3g}"
        )
    return lines


def plot_table_one(results: dict[str, dict[str, list[Run]]], path: Path) -> None:
    """Figure 4 style: ACS run-time boxes per instance, exact solvers as markers, paper's ACS time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    fig, ax = plt.subplots(figsize=(12, 5))
    data = [[r.seconds * 1000 for r in results[name]["ACS"] if r.solved] or [float("nan")] for name in names]
    ax.boxplot(data, whis=(0, 100), positions=range(len(names)), widths=0.5)
    markers = {"BS": "s", "DLX": "^", "SAT": "o", "CP-SAT": "D"}
    for column, marker in markers.items():
        values = [summary(results[name][column])[1] for name in names]
        ax.scatter(
            range(len(names)), [v * 1000 if v else np.nan for v in values], marker=marker, label=column
        )
    ax.scatter(
        range(len(names)),
        [PAPER_TABLE1[name][3] for name in names],
        marker="x",
        c="k",
        label="paper ACS (C++)",
    )
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_ylabel("time (ms)")
    ax.set_title("Named instances: ACS run times (boxes: min, quartiles, max) and exact solvers")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------- general instances


def general(
    sizes: Sequence[int], timeouts: dict[int, float], mode: str
) -> tuple[list[str], dict[str, object]]:
    """One run per general instance and solver; success rate and mean time per fixed-cell fraction."""
    table: dict[str, object] = {}
    lines = [
        "### General instances: success % / mean s of successful runs (5 instances per row)",
        "",
        "| size | fixed % | trivial % | mean VS | " + " | ".join(GENERAL_SOLVERS) + " |",
        "|---|---:|---:|---:|" + "---|" * len(GENERAL_SOLVERS),
    ]
    for size in sizes:
        timeout = timeouts[size]
        per_fraction: dict[int, dict[str, list[Run]]] = {}
        for fraction in range(0, 101, 5):
            files = sorted((SHARED / "general").glob(f"inst{size}x{size}_{fraction}_*.txt"))
            if not files:
                continue
            puzzles = [parse_grid(path.read_text()) for path in files]
            trivial, mean_vs = _propagation_stats(puzzles)
            runs: dict[str, list[Run]] = {column: [] for column in GENERAL_SOLVERS}
            for index, puzzle in enumerate(puzzles):
                for column in GENERAL_SOLVERS:
                    runs[column].append(solve_once(backend(column, index), puzzle, timeout))
            per_fraction[fraction] = runs
            cells = [f"{size}x{size}", f"{fraction}", f"{trivial:.0f}", f"{mean_vs:.3f}"]
            for column in GENERAL_SOLVERS:
                rate, _, mean = summary(runs[column])
                cells.append(f"{rate:.0f} / {mean:.3g}" if mean is not None else f"{rate:.0f} / -")
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], file=sys.stderr, flush=True)
        plot_general(size, timeout, per_fraction, RESULTS / f"acs_general_{size}x{size}_{mode}.png")
        table[str(size)] = {
            str(f): {c: [(r.solved, r.seconds) for r in runs] for c, runs in per.items()}
            for f, per in per_fraction.items()
        }
    return lines, table


def _propagation_stats(puzzles: Sequence[Grid]) -> tuple[float, float]:
    """Share (%) solved by propagation alone, and mean value-set size over all cells (Figure 8)."""
    trivial = 0
    sizes = []
    for puzzle in puzzles:
        masks = propagate_grid(puzzle).masks
        counts = [popcount(np.uint64(m)) for m in masks]
        trivial += all(count == 1 for count in counts)
        sizes.append(statistics.fmean(counts))
    return 100.0 * trivial / len(puzzles), statistics.fmean(sizes)


def plot_general(
    size: int, timeout: float, per_fraction: dict[int, dict[str, list[Run]]], path: Path
) -> None:
    """Figures 5-7 style: mean time of successful runs and success rate against fixed-cell fraction."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fractions = sorted(per_fraction)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 8), sharex=True)
    for column in GENERAL_SOLVERS:
        stats = [summary(per_fraction[f][column]) for f in fractions]
        top.plot(fractions, [s[2] if s[2] is not None else np.nan for s in stats], marker="o", label=column)
        bottom.plot(fractions, [s[0] for s in stats], marker="o", label=column)
    top.set_yscale("log")
    top.set_ylabel("mean time of successful runs (s)")
    top.set_title(f"{size}x{size} general instances, timeout {timeout:g} s, one run per instance")
    top.legend(fontsize=8)
    bottom.set_ylabel("success rate (%)")
    bottom.set_xlabel("fixed cells (%)")
    bottom.set_ylim(-5, 105)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------------------- full scale (--full)

FULL_SOLVERS = {**ACS_VARIANTS, **LOCAL, "BS": "backtrack", "DLX": "dlx", "SAT": "pysat"}
FULL_SIZES = (9, 16, 25)
PAPER_PER_FRACTION = 100  # instances per size and fixed-cell fraction in the paper


@dataclass(frozen=True, slots=True)
class FullRun:
    """One chunk of the full experiment: one (solver, instance) run, numbered in the whole campaign."""

    index: int
    solver: str
    spec: str
    size: int
    fraction: int
    instance: str
    text: str  # the puzzle itself, so workers of a remote cluster need no copy of the corpus
    seed: int
    timeout: float


def full_instances(size: int) -> dict[int, list[Path]]:
    """The general instances of one size: fixed-cell fraction -> files in instance order."""
    found: dict[int, list[Path]] = {}
    for path in (SHARED / "general").glob(f"inst{size}x{size}_*_*.txt"):
        _, fraction, number = path.stem.split("_")
        found.setdefault(int(fraction), []).append(path)
    return {
        f: sorted(paths, key=lambda p: int(p.stem.rsplit("_", 1)[1])) for f, paths in sorted(found.items())
    }


def full_plan(sizes: Sequence[int], share: float, cap: float | None = None) -> list[FullRun]:
    """Every run of the campaign in the chosen sizes and share, in campaign order.

    The index numbers every (size, fraction, instance, solver) of the whole campaign, whatever
    the sizes and share chosen, so results files of different shares and sizes can be merged and
    resumed.  The share keeps every k-th instance of each fraction (k = round(1 / share)),
    starting with the first: a sample of the campaign a small machine can run.  ``cap`` lowers
    the paper's timeouts above it (the projection then charges a run stopped by the cap the
    paper's whole timeout).
    """
    step = max(1, round(1 / share))
    plan: list[FullRun] = []
    index = 0
    for size in FULL_SIZES:
        for fraction, paths in full_instances(size).items():
            for number, path in enumerate(paths):
                chosen = size in sizes and number % step == 0
                for solver, spec in FULL_SOLVERS.items():
                    if chosen:
                        run = FullRun(
                            index,
                            solver,
                            spec,
                            size,
                            fraction,
                            path.name,
                            path.read_text(),
                            number,
                            min(PAPER_TIMEOUT[size], cap or math.inf),
                        )
                        plan.append(run)
                    index += 1
    return plan


def _result(run: FullRun, status: str, seconds: float, cpu: float, why: str | None = None) -> str:
    line: dict[str, object] = {
        "index": run.index,
        "status": status,
        "solver": run.solver,
        "spec": run.spec,
        "size": run.size,
        "fraction": run.fraction,
        "instance": run.instance,
        "seed": run.seed,
        "timeout": run.timeout,
        "seconds": round(seconds, 6),
        "cpu": round(cpu, 6),
    }
    if why is not None:
        line["why"] = why
    return json.dumps(line)


def full_setup() -> None:
    """Compile the numba kernels and load the solvers once per worker, before anything is timed."""
    puzzle = parse_grid((SHARED / "general" / "inst9x9_40_0.txt").read_text())
    for spec in FULL_SOLVERS.values():
        make_backend(spec, seed=0).search(puzzle, 1, 30.0)


def full_run(chunk: FullRun) -> list[str]:
    """Run one chunk: its JSON line (status solved or unknown, wall and CPU seconds of the search)."""
    solver = make_backend(chunk.spec, seed=chunk.seed)
    puzzle = parse_grid(chunk.text)
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    found = solver.search(puzzle, 1, chunk.timeout)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return [_result(chunk, "solved" if found.count >= 1 else "unknown", wall, cpu)]


def full_crashed(chunk: FullRun, why: str) -> list[str]:
    """The line of a run that killed its workers or raised: status crash, charged the timeout."""
    return [_result(chunk, "crash", chunk.timeout, chunk.timeout, why)]


def run_full(plan: list[FullRun], path: Path, resume: bool, executor: Executor) -> int:
    """Run the plan's runs the results file does not hold yet; one flushed JSON line per run."""
    out = open_results_file(str(path), resume)
    todo = [run for run in plan if run.index not in out.done]
    print(
        f"{len(plan)} runs chosen, {len(plan) - len(todo)} already in {path}, {len(todo)} to run "
        f"on {executor.describe()}",
        file=sys.stderr,
        flush=True,
    )
    work: Work[FullRun, str] = Work(full_run, full_crashed, full_setup)
    began = time.perf_counter()
    try:
        results = run_ordered(work, todo, executor, notice=lambda text: print(text, file=sys.stderr))
        with contextlib.closing(results):
            for done, line in enumerate(results, start=1):
                out.write(line)
                if done % 50 == 0 or done == len(todo):
                    rate = done / (time.perf_counter() - began)
                    print(f"  {done}/{len(todo)} runs, {rate:.2f}/s", file=sys.stderr, flush=True)
    finally:
        out.close()
    return len(todo)


def read_full(path: Path) -> list[dict[str, object]]:
    """The whole lines of a results file (a cut last line is skipped)."""
    lines = []
    with path.open(encoding="utf-8") as stream:
        for line in stream:
            if line.endswith("\n"):
                lines.append(json.loads(line))
    return lines


Cell = tuple[str, int, int]  # (solver, size, fraction)


def full_cells(lines: Sequence[dict[str, object]]) -> dict[Cell, list[dict[str, object]]]:
    """Results grouped by (solver, size, fixed-cell fraction)."""
    cells: dict[Cell, list[dict[str, object]]] = {}
    for line in lines:
        key = (str(line["solver"]), int(str(line["size"])), int(str(line["fraction"])))
        cells.setdefault(key, []).append(line)
    return cells


def _seconds(line: dict[str, object]) -> float:
    return float(str(line["seconds"]))


def _cost(line: dict[str, object]) -> float:
    """What the run costs at the paper's timeout: its time, or that timeout when it was not solved
    (an upper bound for a run stopped earlier by ``--cap``)."""
    if line["status"] == "solved":
        return _seconds(line)
    return max(_seconds(line), PAPER_TIMEOUT[int(str(line["size"]))])


def plot_full(cells: dict[Cell, list[dict[str, object]]], stem: Path) -> list[Path]:
    """Figures 5-7 and 9: mean time of the successful runs and success rate against the fixed-cell
    fraction, one panel per size, one line per solver; two PNGs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({size for _, size, _ in cells})
    written = []
    for kind in ("time", "success"):
        fig, axes = plt.subplots(1, len(sizes), figsize=(5.5 * len(sizes), 4.5), squeeze=False)
        for ax, size in zip(axes[0], sizes, strict=True):
            for solver in FULL_SOLVERS:
                fractions = sorted(f for s, z, f in cells if s == solver and z == size)
                values = []
                for fraction in fractions:
                    runs = cells[(solver, size, fraction)]
                    solved = [_seconds(r) for r in runs if r["status"] == "solved"]
                    if kind == "time":
                        values.append(statistics.fmean(solved) if solved else np.nan)
                    else:
                        values.append(100.0 * len(solved) / len(runs))
                ax.plot(fractions, values, marker="o", markersize=3, label=solver)
            runs_per = max(len(v) for (_, z, _), v in cells.items() if z == size)
            limits = sorted(
                {float(str(r["timeout"])) for (_, z, _), v in cells.items() if z == size for r in v}
            )
            ax.set_title(
                f"{size}x{size}, timeout {'/'.join(f'{t:g}' for t in limits)} s, "
                f"{runs_per} instance(s) per point"
            )
            ax.set_xlabel("fixed cells (%)")
            if kind == "time":
                ax.set_yscale("log")
                ax.set_ylabel("mean time of successful runs (s)")
            else:
                ax.set_ylim(-5, 105)
                ax.set_ylabel("success rate (%)")
        axes[0][0].legend(fontsize=7, loc="best")
        fig.tight_layout()
        path = stem.with_name(f"{stem.name}_{kind}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 3600 else f"{seconds / 3600:.1f} h"


def projection(cells: dict[Cell, list[dict[str, object]]], workers: int) -> list[str]:
    """Projected cost of the whole campaign: measured mean seconds of every run (timeouts count
    their timeout) per (solver, size, fraction) x the instances of that fraction, for the corpus
    folder and for the paper's 100 per fraction; sizes without measurements at their timeout
    x instances (an upper bound)."""
    lines = []
    per_solver = dict.fromkeys(FULL_SOLVERS, 0.0)  # seconds at the paper's scale
    totals = {"folder": 0.0, "paper": 0.0}
    bound = {"folder": False, "paper": False}
    low = {"folder": 0.0, "paper": 0.0}  # capped runs at their cap, unmeasured cells at nothing
    capped = 0
    for size in FULL_SIZES:
        per_fraction = {f: len(p) for f, p in full_instances(size).items()}
        measured = {"folder": 0.0, "paper": 0.0}
        missing = 0
        for solver in FULL_SOLVERS:
            for fraction, count in per_fraction.items():
                runs = cells.get((solver, size, fraction))
                if runs:
                    mean = statistics.fmean(_cost(r) for r in runs)
                    least = statistics.fmean(_seconds(r) for r in runs)
                    low["folder"] += least * count
                    low["paper"] += least * PAPER_PER_FRACTION
                    capped += sum(_cost(r) > _seconds(r) for r in runs)
                else:
                    mean = PAPER_TIMEOUT[size]
                    missing += 1
                measured["folder"] += mean * count
                measured["paper"] += mean * PAPER_PER_FRACTION
                per_solver[solver] += mean * PAPER_PER_FRACTION
        for key in totals:
            totals[key] += measured[key]
            bound[key] |= missing > 0 or capped > 0
        note = f" ({missing} unmeasured cells at the timeout: upper bound)" if missing else ""
        lines.append(
            f"* {size}x{size}: {sum(per_fraction.values())} instances in the folder, "
            f"{len(FULL_SOLVERS)} solvers: {_duration(measured['folder'])}; at the paper's "
            f"{PAPER_PER_FRACTION} per fraction: {_duration(measured['paper'])}{note}"
        )
    lines.append(
        "* per solver, the paper's 6,300 instances: "
        + ", ".join(f"{solver} {_duration(seconds)}" for solver, seconds in per_solver.items())
    )
    for key, label in (("folder", "the folder's instances"), ("paper", "the paper's 6,300 instances")):
        upper = " (upper bound)" if bound[key] else ""
        lines.append(
            f"* whole campaign, {label}: {_duration(totals[key])} of one worker{upper}, "
            f"{_duration(totals[key] / workers)} on {workers} workers"
        )
        if bound[key]:
            lines.append(
                f"  (at least {_duration(low[key])} of one worker, "
                f"{_duration(low[key] / workers)} on {workers} workers: capped runs at their cap)"
            )
    if capped:
        lines.append(
            f"* {capped} measured runs stopped unsolved by --cap before the paper's timeout; the "
            "upper bound charges each the whole timeout"
        )
    return lines


def full(args: argparse.Namespace) -> int:
    """``--full``: run (a share of) the campaign into the results file, then plot and project."""
    if not 0 < args.share <= 1:
        print("--share must be in (0, 1]", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    path = Path(args.output) if args.output else RESULTS / "acs_full_results.jsonl"
    executor = Executor(jobs=args.jobs, cluster=args.cluster)
    print(f"machine: {machine()}; load {Path('/proc/loadavg').read_text().split()[:3]}")
    counts = {size: {f: len(p) for f, p in full_instances(size).items()} for size in FULL_SIZES}
    for size, per in counts.items():
        print(
            f"folder: {size}x{size}: {sum(per.values())} instances, {len(per)} fractions "
            f"({min(per.values())}-{max(per.values())} per fraction)"
        )
    if not args.plot_only:
        plan = full_plan(sizes, args.share, args.cap)
        try:
            run_full(plan, path, args.resume, executor)
        except ClusterError as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    cells = full_cells(read_full(path))
    if not cells:
        print(f"no results in {path}", file=sys.stderr)
        return 1
    stem = RESULTS / "acs_full"
    for figure in plot_full(cells, stem):
        print(f"figure: {figure}")
    workers = args.workers or max(1, executor.jobs)
    print(f"runs in {path}: {sum(len(v) for v in cells.values())}")
    print("projected cost (measured mean seconds per solver, size and fraction x instances):")
    print("\n".join(projection(cells, workers)))
    return 0


# -------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    """Run the experiments and print Markdown tables; plots and raw times go to benchmarks/results."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="10 runs per named instance, 20 s on 25x25")
    parser.add_argument("--runs", type=int, default=None, help="ACS runs per named instance (default 100)")
    parser.add_argument("--sizes", default="9,16,25", help="general instance sizes (default 9,16,25)")
    parser.add_argument("--skip-table1", action="store_true", help="only the general instances")
    parser.add_argument("--skip-general", action="store_true", help="only the named instances")
    full_options = parser.add_argument_group("the general instances at full scale (--full)")
    full_options.add_argument("--full", action="store_true", help="one run per instance and solver")
    full_options.add_argument("--cluster", help="'local', 'local:N' or a Dask scheduler address")
    full_options.add_argument("--jobs", type=int, default=1, help="local worker processes (default 1)")
    full_options.add_argument("-o", "--output", help="results file (default results/acs_full_results.jsonl)")
    full_options.add_argument("--resume", action="store_true", help="skip the runs the file holds")
    full_options.add_argument(
        "--share", type=float, default=1.0, help="every round(1/F)-th instance of each fraction"
    )
    full_options.add_argument(
        "--cap", type=float, default=None, help="lower the paper's timeouts above SECONDS (a sample)"
    )
    full_options.add_argument("--workers", type=int, default=None, help="N of the projection")
    full_options.add_argument("--plot-only", action="store_true", help="figures from the file only")
    args = parser.parse_args(argv)
    if not SHARED.exists():
        print(f"corpus absent: {SHARED} (this benchmark reads ../shared/data in place)", file=sys.stderr)
        return 2
    if args.full:
        return full(args)
    runs = args.runs or (10 if args.quick else 100)
    timeouts = dict(PAPER_TIMEOUT)
    if args.quick:
        timeouts[25] = 20.0
    RESULTS.mkdir(exist_ok=True)
    mode = "quick" if args.quick else "full"
    print(f"machine: {machine()}")
    print(f"mode: {mode}; runs per named instance: {runs}; timeouts: {timeouts}")
    began = time.perf_counter()
    warm_up()
    raw: dict[str, object] = {"machine": machine(), "mode": mode, "runs": runs, "timeouts": timeouts}
    if not args.skip_table1:
        lines, results = table_one(runs)
        print("\n".join(lines), flush=True)
        plot_table_one(results, RESULTS / f"acs_table1_{mode}.png")
        raw["table1"] = {
            n: {c: [(r.solved, r.seconds) for r in rs] for c, rs in p.items()} for n, p in results.items()
        }
    if not args.skip_general:
        sizes = [int(s) for s in args.sizes.split(",")]
        lines, table = general(sizes, timeouts, mode)
        print()
        print("\n".join(lines), flush=True)
        raw["general"] = table
    parts = ("" if args.skip_table1 else "_table1") + ("" if args.skip_general else "_general")
    (RESULTS / f"acs_paper_{mode}{parts}.json").write_text(json.dumps(raw))
    print(f"\ntotal {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
