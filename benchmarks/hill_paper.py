"""The hill climber on the measures of Jones, Roach & Perkins (2007), next to their figures and SAT.

    .venv/bin/python benchmarks/hill_paper.py [--quick] [--per-group N] [--timeout S] [--plot PNG]

Part 0: the kernel's speed (move evaluations per second) on one instance per size.
Part 1 (the paper's Figure 5 and 6): 9x9 puzzles grouped by difficulty: Project Euler's easy
puzzles, the sudoku-exchange "diabolical" bank split by its Sukaku Explainer rating, and the named
hardest puzzles.  One seeded hill-climbing run per puzzle (seed = puzzle index) with a time limit;
per group: givens, success rate, iterations, restarts and time (mean and median), then the
pysat backend (CaDiCaL 1.9.5, one ``search`` per puzzle) on the same puzzles in the same run, and
the ratio of the medians.  Every hill answer is checked and must equal SAT's (unique puzzles).
The same runs are then grouped by number of givens as in Figure 6.
Part 2 (Figure 4 and our defaults): the initial state with and without post-swapping (time,
f1, clashes with givens), and success rates of the paper-literal variant (ascending greedy
order, so every restart starts alike up to post-swapping) against the default shuffled order.
Part 3: the ant-colony general instances (Lloyd & Amos; 5 per size and fixed-cell fraction in
``shared/data/acs/general``): success rate and mean time against the fraction of fixed cells for
9x9, 16x16 and 25x25, with SAT beside.  Timeouts default to the ant-colony paper's 5 / 20 / 120 s;
``--quick`` uses fewer puzzles, fractions and shorter timeouts (under ~10 minutes in all).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from common import ROOT, SHARED, load_average, machine

from sudoku_cp.backends.hill_backend import HillBackend
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.formats import parse_grid, parse_puzzles
from sudoku_cp.grid import Grid
from sudoku_cp.native.hillclimb import HillParameters, build_model, hill_climb, initial_state, objective

SUDOKU9 = SHARED / "sudoku9"
ACS = SHARED / "acs" / "general"

# The paper's Figure 5 (Java, Pentium 4 3.4 GHz): average givens, iterations, restarts, time (ms).
PAPER_FIG5 = {
    "Easy": (31.12, 233.96, 0.12, 1443996.56),
    "Medium": (25.84, 392.08, 1.08, 1256019.20),
    "Hard": (23.44, 724.60, 2.80, 3110608.32),
    "Hardest": (20.33, 3587.58, 3.39, 34921304.31),
}
# Figure 6: by number of givens: iterations, restarts, time (ms).
PAPER_FIG6 = {
    "16-23": (1571.652, 3.086957, 12419636),
    "24-30": (548.3182, 1.386364, 2357723),
    "31-36": (64.56522, 0.130435, 46220.17),
    "37+": (1, 1.333333, 10.33333),
}
GIVEN_BANDS = (("16-23", 16, 23), ("24-30", 24, 30), ("31-36", 31, 36), ("37+", 37, 81))
# Figure 4: greedy alone vs greedy + post-swapping: init ms, iterations, "f1", remaining clashes.
PAPER_FIG4 = {"greedy": (2, 71, 164, 59), "greedy + post-swap": (5, 66, 173, 26)}


@dataclass(frozen=True, slots=True)
class Run:
    """One hill-climbing run and the SAT solve of the same puzzle."""

    givens: int
    solved: bool
    iterations: int
    restarts: int
    seconds: float
    sat_seconds: float


def _groups(per_group: int) -> list[tuple[str, list[Grid]]]:
    """9x9 difficulty groups: easy, four rating bands of the diabolical bank, named hardest."""
    easy = [parse_grid(line) for line in _lines(SUDOKU9 / "euler96_easy50.txt")[:per_group]]
    bank = _lines(SUDOKU9 / "sudoku_exchange_diabolical_10k.txt")
    ratings = [float(r) for r in _lines(SUDOKU9 / "sudoku_exchange_diabolical_10k_ratings.txt")]
    groups = [("easy (Euler 96)", easy)]
    for label, low, high in (("SE 5.0-5.9", 5.0, 6.0), ("SE 6.0-6.9", 6.0, 7.0), ("SE 7.0-7.9", 7.0, 8.0)):
        chosen = [line for line, r in zip(bank, ratings, strict=True) if low <= r < high][:per_group]
        groups.append((label, [parse_grid(line) for line in chosen]))
    hardest = [line for line, r in zip(bank, ratings, strict=True) if r >= 8.0][:per_group]
    groups.append(("SE 8.0-9.1", [parse_grid(line) for line in hardest]))
    named = [line.split("\t")[1] for line in _lines(SUDOKU9 / "named_hard.txt")][:per_group]
    groups.append(("named hardest", [parse_grid(line) for line in named]))
    return groups


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def _solve(puzzle: Grid, seed: int, timeout: float, params: HillParameters | None = None) -> Run:
    """One hill run and one timed SAT solve (limit 1) of the same puzzle.

    Both answers are checked grids; where they differ, SAT must find a second solution.
    """
    sat = make_backend("pysat")
    start = time.perf_counter()
    truth = sat.search(puzzle, 1, None)
    sat_seconds = time.perf_counter() - start
    start = time.perf_counter()
    found = HillBackend(params, seed=seed).search(puzzle, 1, timeout)
    seconds = time.perf_counter() - start
    assert truth.count == 1, "SAT found no solution of a solvable instance"
    if found.count and not np.array_equal(found.solutions[0], truth.solutions[0]):
        assert sat.search(puzzle, 2, None).count == 2, "hill and SAT disagree on a unique puzzle"
    return Run(
        puzzle.givens,
        found.count == 1,
        int(found.stats["iterations"]),
        int(found.stats["restarts"]),
        seconds,
        sat_seconds,
    )


def _emit(*lines: str) -> None:
    """Print report lines as they are ready (a long run shows its rows one by one)."""
    print("\n".join(lines), flush=True)


def _mean(values: Sequence[float]) -> float:
    return statistics.mean(values) if values else float("nan")


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _summary(label: str, runs: list[Run]) -> str:
    ok = [r for r in runs if r.solved]
    hill_ms = _median([r.seconds * 1000 for r in runs])
    sat_ms = _median([r.sat_seconds * 1000 for r in runs])
    return (
        f"| {label} | {len(runs)} | {_mean([r.givens for r in runs]):.2f} "
        f"| {100 * len(ok) / len(runs):.0f} % "
        f"| {_mean([r.iterations for r in ok]):,.0f} | {_median([r.iterations for r in ok]):,.0f} "
        f"| {_mean([r.restarts for r in ok]):,.1f} | {_mean([r.seconds * 1000 for r in ok]):,.1f} "
        f"| {hill_ms:,.1f} | {sat_ms:.2f} | {hill_ms / sat_ms:,.2f} |"
    )


HEADER = (
    "| group | puzzles | givens | solved | mean iterations | median iterations | mean restarts "
    "| mean ms (solved) | median ms (all) | SAT median ms | hill/SAT |"
)
RULE = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"


def part_zero() -> None:
    """Kernel speed: iterations and move evaluations per second, one instance per size."""
    _emit(
        "### Kernel speed (20,000 iterations from a fixed seed, after a warm-up)",
        "",
        "| instance | moves per iteration | iterations/s | move evaluations/s | ns per evaluation |",
        "|---|---:|---:|---:|---:|",
    )
    cases = [("9x9 top95 #1", parse_grid(_lines(SUDOKU9 / "norvig_top95.txt")[0]))]
    for n in (16, 25):
        grid = parse_puzzles((ACS / f"inst{n}x{n}_45_0.txt").read_text())[0].grid
        assert grid is not None
        cases.append((f"{n}x{n} ant-colony 45 % #0", grid))
    for label, puzzle in cases:
        model = build_model(puzzle.geometry, puzzle.values)
        hill_climb(model, HillParameters(max_iterations=2_000), seed=1)
        start = time.perf_counter()
        result = hill_climb(model, HillParameters(max_iterations=20_000), seed=1)
        seconds = time.perf_counter() - start
        rate = result.iterations / seconds
        evals = rate * model.moves
        _emit(f"| {label} | {model.moves:,} | {rate:,.0f} | {evals / 1e6:,.1f} M | {1e9 / evals:.1f} |")


def part_one(per_group: int, timeout: float) -> dict[str, list[Run]]:
    """Figure 5 and 6 measures on 9x9 difficulty groups, with SAT beside."""
    _emit(
        f"### Part 1: 9x9 by difficulty ({per_group} per group, one run each, {timeout:g} s limit)",
        "",
        HEADER,
        RULE,
    )
    results: dict[str, list[Run]] = {}
    for label, puzzles in _groups(per_group):
        runs = [_solve(puzzle, seed, timeout) for seed, puzzle in enumerate(puzzles)]
        results[label] = runs
        _emit(_summary(label, runs))
    _emit(
        "",
        "The paper's Figure 5 (100 puzzles, Java on a Pentium 4, 3.4 GHz; its times as printed):",
        "",
        "| level | givens | mean iterations | mean restarts | mean ms |",
        "|---|---:|---:|---:|---:|",
    )
    _emit(*[f"| {k} | {g} | {i} | {r} | {t:,.2f} |" for k, (g, i, r, t) in PAPER_FIG5.items()])
    everything = [run for runs in results.values() for run in runs]
    _emit("", "The same runs by number of givens (Figure 6), paper's figures in brackets:", "")
    _emit(HEADER.replace("| group |", "| givens |"), RULE)
    for band, low, high in GIVEN_BANDS:
        runs = [r for r in everything if low <= r.givens <= high]
        if runs:
            paper = PAPER_FIG6[band]
            _emit(_summary(f"{band} [{paper[0]:,.0f} it, {paper[1]:.2f} restarts]", runs))
    return results


def part_two(label: str, puzzles: list[Grid], timeout: float) -> None:
    """Figure 4 (the initial state with and without post-swapping) and the greedy digit order."""
    _emit(
        f"### Part 2: initial state and variants (the {len(puzzles)} {label} puzzles, {timeout:g} s limit)",
        "",
        "| initial state | init ms | f1 (max 162) | clashes with givens | paper: ms, f1, clashes |",
        "|---|---:|---:|---:|---:|",
    )
    for label, params, paper in (
        ("greedy", HillParameters(post_swap=False, shuffle_digits=False), PAPER_FIG4["greedy"]),
        ("greedy + post-swap", HillParameters(shuffle_digits=False), PAPER_FIG4["greedy + post-swap"]),
        ("shuffled greedy + post-swap", HillParameters(), None),
    ):
        f1s, clashes, ms = [], [], []
        for seed, puzzle in enumerate(puzzles):
            model = build_model(puzzle.geometry, puzzle.values)
            initial_state(model, params, seed)  # compiled and warm
            start = time.perf_counter()
            state = initial_state(model, params, seed)
            ms.append((time.perf_counter() - start) * 1000)
            f1, f2 = objective(model, state)
            f1s.append(f1)
            clashes.append(f2)
        note = f"{paper[0]}, {paper[2]}, {paper[3]}" if paper else "-"
        _emit(f"| {label} | {_mean(ms):.3f} | {_mean(f1s):.1f} | {_mean(clashes):.1f} | {note} |")
    _emit("", HEADER.replace("| group |", "| variant |"), RULE)
    for label, params in (
        ("paper-literal: ascending greedy order", HillParameters(shuffle_digits=False)),
        ("ascending, no post-swap", HillParameters(shuffle_digits=False, post_swap=False)),
        ("default: shuffled greedy order", HillParameters()),
        ("shuffled, no post-swap", HillParameters(post_swap=False)),
        ("shuffled, plateau_size 50", HillParameters(plateau_size=50)),
    ):
        runs = [_solve(puzzle, seed, timeout, params) for seed, puzzle in enumerate(puzzles)]
        _emit(_summary(label, runs))


def part_three(
    sizes: dict[int, float], fractions: Sequence[int], instances: int
) -> dict[int, list[tuple[int, float, float, float]]]:
    """Success rate and time against the fixed-cell fraction on the ant-colony instances."""
    _emit(
        f"### Part 3: ant-colony general instances ({instances} per size and fraction, one run each)",
        "",
        "| size | fixed % | instances | solved | mean iterations | mean restarts | mean s (solved) "
        "| median s (all) | SAT median s | timeout s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    )
    curves: dict[int, list[tuple[int, float, float, float]]] = {}
    for n, timeout in sizes.items():
        for fraction in fractions:
            runs = []
            for index in range(instances):
                path = ACS / f"inst{n}x{n}_{fraction}_{index}.txt"
                if not path.exists():
                    continue
                puzzle = parse_puzzles(path.read_text())[0].grid
                assert puzzle is not None
                runs.append(_solve(puzzle, index, timeout))
            if not runs:
                continue
            ok = [r for r in runs if r.solved]
            rate = len(ok) / len(runs)
            hill_median = _median([r.seconds for r in runs])
            sat_median = _median([r.sat_seconds for r in runs])
            curves.setdefault(n, []).append((fraction, rate, hill_median, sat_median))
            _emit(
                f"| {n}x{n} | {fraction} | {len(runs)} | {100 * rate:.0f} % "
                f"| {_mean([r.iterations for r in ok]):,.0f} | {_mean([r.restarts for r in ok]):,.1f} "
                f"| {_mean([r.seconds for r in ok]):.3f} | {hill_median:.3f} | {sat_median:.4f} "
                f"| {timeout:g} |"
            )
    return curves


def plot(
    path: Path, groups: dict[str, list[Run]], curves: dict[int, list[tuple[int, float, float, float]]]
) -> None:
    """Median time by difficulty group (hill vs SAT); success rate and time vs fixed cells."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 4.8))
    labels = list(groups)
    x = np.arange(len(labels))
    hill = [_median([r.seconds * 1000 for r in groups[k]]) for k in labels]
    sat = [_median([r.sat_seconds * 1000 for r in groups[k]]) for k in labels]
    left.bar(x - 0.2, hill, 0.4, label="hill climbing (median)")
    left.bar(x + 0.2, sat, 0.4, label="SAT, pysat CaDiCaL (median)")
    for i, k in enumerate(labels):
        rate = 100 * sum(r.solved for r in groups[k]) / len(groups[k])
        left.annotate(f"{rate:.0f}%", (x[i] - 0.2, hill[i]), ha="center", va="bottom", fontsize=8)
    left.set_yscale("log")
    left.set_xticks(x, labels, rotation=20, ha="right", fontsize=8)
    left.set_ylabel("ms per puzzle (log)")
    left.set_title("9x9 by difficulty (labels: hill success rate)")
    left.legend(fontsize=8)
    for n, points in sorted(curves.items()):
        fr = [p[0] for p in points]
        line = middle.plot(fr, [100 * p[1] for p in points], marker="o", label=f"{n}x{n}")[0]
        colour = line.get_color()
        right.plot(fr, [max(p[2], 1e-4) for p in points], marker="o", color=colour, label=f"{n}x{n} hill")
        right.plot(fr, [max(p[3], 1e-4) for p in points], ls=":", color=colour, label=f"{n}x{n} SAT")
    middle.set_xlabel("fixed cells (%)")
    middle.set_ylabel("hill success rate (%)")
    middle.set_title("Ant-colony instances: hill success rate")
    middle.legend(fontsize=8)
    right.set_xlabel("fixed cells (%)")
    right.set_ylabel("median seconds per instance (log; timeouts count)")
    right.set_yscale("log")
    right.set_title("Ant-colony instances: median time, hill vs SAT")
    right.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer puzzles and shorter timeouts (~10 min)")
    parser.add_argument(
        "--per-group", type=int, help="9x9 puzzles per difficulty group (default 50; quick 8)"
    )
    parser.add_argument("--timeout", type=float, help="9x9 time limit per run, s (default 60; quick 5)")
    parser.add_argument(
        "--plot", type=Path, help="PNG path (default benchmarks/results/hill_paper[_quick].png)"
    )
    parser.add_argument("--fractions", help="fixed-cell percentages of part 3, e.g. 40,45,50")
    parser.add_argument("--acs-timeouts", help="part 3 limits for 9x9,16x16,25x25 (default 5,20,120)")
    parser.add_argument("--instances", type=int, help="part 3 instances per size and fraction (max 5)")
    args = parser.parse_args(argv)
    if not SUDOKU9.exists() or not ACS.exists():
        print(f"corpora not found under {SHARED}; nothing measured", file=sys.stderr)
        return 2
    per_group = args.per_group or (8 if args.quick else 50)
    timeout = args.timeout or (5.0 if args.quick else 60.0)
    fractions = [30, 40, 45, 50, 60, 70] if args.quick else list(range(0, 101, 5))
    if args.fractions:
        fractions = [int(f) for f in args.fractions.split(",")]
    limits = [5.0, 5.0, 10.0] if args.quick else [5.0, 20.0, 120.0]
    if args.acs_timeouts:
        limits = [float(t) for t in args.acs_timeouts.split(",")]
    sizes = dict(zip((9, 16, 25), limits, strict=True))
    instances = args.instances or (2 if args.quick else 5)
    plot_path = (
        args.plot or ROOT / "benchmarks" / "results" / f"hill_paper{'_quick' if args.quick else ''}.png"
    )
    print(f"machine: {machine()}; load average {load_average()} at start", flush=True)
    _solve(parse_grid(_lines(SUDOKU9 / "euler96_easy50.txt")[0]), 0, 60.0)  # compile and load first
    began = time.perf_counter()
    part_zero()
    groups = part_one(per_group, timeout)
    variants = dict(_groups(per_group))["SE 7.0-7.9"]
    part_two("SE 7.0-7.9", variants, 2.0 if args.quick else 10.0)
    curves = part_three(sizes, fractions, instances)
    plot(plot_path, groups, curves)
    print(
        f"\nplot: {plot_path.relative_to(ROOT)}; {time.perf_counter() - began:.0f} s in all; "
        f"load average {load_average()} at the end",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
