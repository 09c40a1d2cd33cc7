"""Our rating against Sudoku Explainer's: Spearman rank correlation on 10,000 rated puzzles.

    .venv/bin/python benchmarks/rating.py [--limit N] [--jobs 1] [--speed 3000] [--no-plot]

1. Rates ``sudoku9/sudoku_exchange_diabolical_10k.txt`` (Sudoku Exchange "diabolical" puzzles,
   QQWing-made, Sukaku Explainer rating 5.0-9.1 on line i of the ``_ratings.txt`` beside it)
   with ``deduction.rate`` twice: the default rules, then the default rules with the uniqueness
   rules (unique rectangle, BUG + 1), which Sudoku Explainer applies since it assumes one
   solution.  A puzzle the rules leave stuck gets ``STUCK_RATING`` (10.0).
2. Prints Spearman's rank correlation with Explainer's ratings on the first 5,000 puzzles (the
   ones every choice of the scale was judged on), the last 5,000 and all of them, and a table
   of our rating against theirs.
3. Compares with the ratings the two-engine ``rate`` gave the same puzzles before the one engine
   (``results/rating_two_engines.json.gz``: status, rating, hardest step per puzzle): how many
   keep their rating (and hardest step), how many were solved and are stuck now, and back.
4. Where the ranks disagree, on the first 5,000: the share of the squared rank differences
   (Spearman's 1 - rho is proportional to their sum) per technique of our hardest step, and the
   ceiling of the default rules: Spearman on the first 5,000 if every puzzle whose rating the
   uniqueness rules do not lower were rated exactly as Explainer rates it, the others keeping
   their default rating (no sound rule without the one-solution assumption lowers those).
5. Draws ``results/rating_vs_explainer.png`` (one panel per rule set; each disc is a pair of
   ratings, its area the number of puzzles) and writes ``results/rating_sudoku_exchange.json``.
6. Speed: ``rate`` on ``--speed`` generated minimal 9x9 puzzles (``results/generated_3x3_seed1.txt``
   from ``deduction.py``, made here when absent), in CPU seconds of this process, and the share
   of them whose solve needs a rule beyond the compiled local ones.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from common import ROOT, SHARED, load_average, machine
from scipy.stats import rankdata, spearmanr

from sudoku_cp.deduction.generate import generate_puzzles
from sudoku_cp.deduction.rate import STUCK_RATING, rate
from sudoku_cp.deduction.rules import select_rules
from sudoku_cp.formats import format_line, parse_grid
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.outcome import Status

PUZZLES = SHARED / "sudoku9" / "sudoku_exchange_diabolical_10k.txt"
RATINGS = SHARED / "sudoku9" / "sudoku_exchange_diabolical_10k_ratings.txt"
RESULTS = ROOT / "benchmarks" / "results"
GENERATED = RESULTS / "generated_3x3_seed1.txt"
BEFORE = RESULTS / "rating_two_engines.json.gz"
TRAIN = 5_000  # the first puzzles: where the scale's choices were judged
SETS = {"default": False, "uniqueness": True}
TITLES = {"default": "default rules", "uniqueness": "default + uniqueness rules"}


def _rate_chunk(args: tuple[list[str], bool]) -> list[tuple[float, str | None, str]]:
    """(rating, hardest step, status) of each puzzle line, with or without the uniqueness rules."""
    lines, uniqueness = args
    rules = select_rules(uniqueness=uniqueness)
    out = []
    for line in lines:
        rating = rate(parse_grid(line), rules)
        value = rating.rating if rating.rating is not None else float("nan")
        out.append((value, rating.hardest, rating.status.value))
    return out


def _rate_all(lines: list[str], uniqueness: bool, jobs: int) -> list[tuple[float, str | None, str]]:
    chunks = [(lines[i : i + 250], uniqueness) for i in range(0, len(lines), 250)]
    if jobs <= 1:
        return [row for chunk in chunks for row in _rate_chunk(chunk)]
    with Pool(jobs) as pool:
        return [row for part in pool.imap(_rate_chunk, chunks) for row in part]


def _spearman(ours: np.ndarray, theirs: np.ndarray) -> float:
    return round(float(spearmanr(ours, theirs)[0]), 4)


def _table(ours: np.ndarray, theirs: np.ndarray) -> dict[str, dict[str, int]]:
    """Count of puzzles per (our rating, Explainer's rating)."""
    pairs = Counter(zip(np.round(ours, 1).tolist(), theirs.tolist(), strict=True))
    table: dict[str, dict[str, int]] = {}
    for (mine, explainer), count in sorted(pairs.items()):
        table.setdefault(f"{mine:.1f}", {})[f"{explainer:.1f}"] = count
    return table


def _print_table(table: dict[str, dict[str, int]]) -> None:
    print("| ours | puzzles | Explainer's ratings (rating: count) |")
    print("|---:|---:|---|")
    for mine, row in table.items():
        cells = " ".join(f"{theirs}:{count}" for theirs, count in row.items())
        print(f"| {mine} | {sum(row.values())} | {cells} |")


def _plot(results: dict[str, dict[str, object]], theirs: np.ndarray, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6.2 * len(results), 5.6), sharey=True)
    for ax, (label, result) in zip(np.atleast_1d(axes), results.items(), strict=True):
        ours = np.asarray(result["ratings"], dtype=float)
        pairs = Counter(zip(theirs.tolist(), np.round(ours, 1).tolist(), strict=True))
        xs, ys, counts = (np.array(v) for v in zip(*((x, y, c) for (x, y), c in pairs.items()), strict=True))
        ax.scatter(xs, ys, s=6 + 900 * counts / counts.max(), alpha=0.55, color="tab:blue", edgecolors="none")
        low, high = 4.8, 10.2
        ax.plot([low, high], [low, high], color="grey", linewidth=0.8, linestyle="--")
        spearman = result["spearman"]
        assert isinstance(spearman, dict)
        ax.set_title(
            f"{TITLES[label]}: Spearman {spearman['all']:.3f} "
            f"(first 5,000 {spearman['train']:.3f}, last 5,000 {spearman['test']:.3f})",
            fontsize=10,
        )
        ax.set_xlabel("Sukaku Explainer rating")
        ax.set_xlim(low, 9.4)
        ax.set_ylim(low, high)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel(f"sudoku-cp rating (stuck = {STUCK_RATING:g})")
    fig.suptitle(
        f"{len(theirs):,} Sudoku Exchange diabolical puzzles: disc area = number of puzzles", fontsize=11
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _speed(count: int) -> dict[str, float]:
    """CPU seconds of ``rate`` on generated minimal 9x9 puzzles."""
    if GENERATED.exists():
        lines = [line for line in GENERATED.read_text().splitlines() if line.strip()][:count]
    else:
        geometry = geometry_for_size(9)
        lines = [format_line(made.puzzle) for made in generate_puzzles(geometry, count, 1)]
    grids = [parse_grid(line) for line in lines]
    rules = select_rules()
    compiled = {rule.name for rule in rules if rule.local_id >= 0}
    for grid in grids[:50]:  # warm the compiled kernels
        rate(grid, rules)
    start = time.process_time()
    ratings = [rate(grid, rules) for grid in grids]
    rated = time.process_time() - start
    beyond = sum(any(count and name not in compiled for name, count in r.counts.items()) for r in ratings)
    return {
        "puzzles": len(grids),
        "need_nonlocal_percent": round(100 * beyond / len(grids), 1),
        "rate_per_s": round(len(grids) / rated),
    }


def _disagreements(rows: list[tuple[float, str | None, str]], theirs: np.ndarray) -> dict[str, float]:
    """Per technique of our hardest step ("stuck" for a stuck puzzle), its share of the squared
    differences between our ranks and Explainer's (1 - Spearman is proportional to their sum)."""
    ours = np.array([value for value, _, _ in rows])
    squared = (rankdata(ours) - rankdata(theirs)) ** 2
    shares: dict[str, float] = {}
    for (_, hardest, status), part in zip(rows, squared, strict=True):
        name = hardest if status == Status.SOLVED.value and hardest else "stuck"
        shares[name] = shares.get(name, 0.0) + float(part)
    total = float(squared.sum()) or 1.0
    return {name: round(part / total, 3) for name, part in sorted(shares.items(), key=lambda kv: -kv[1])}


def _ceiling(default: np.ndarray, unique: np.ndarray, theirs: np.ndarray) -> dict[str, float | int]:
    """Spearman of the default rules if every puzzle the uniqueness rules do not lower were rated
    as Explainer rates it, the lowered ones keeping their default rating."""
    lowered = np.round(unique, 1) < np.round(default, 1)
    best = np.where(lowered, default, theirs)
    return {"lowered_by_uniqueness": int(lowered.sum()), "spearman_ceiling": _spearman(best, theirs)}


def _before(label: str, rows: list[tuple[float, str | None, str]]) -> dict[str, int] | None:
    """The ratings of the two-engine rate on the same puzzles against these: kept, changed, stuck."""
    if not BEFORE.exists():
        return None
    with gzip.open(BEFORE, "rt") as f:
        before = json.load(f)[label][: len(rows)]
    pairs = list(zip(before, rows, strict=True))
    return {
        "same_rating": sum(old[1] == new[0] for old, new in pairs),
        "same_rating_and_hardest": sum(old[1] == new[0] and old[2] == new[1] for old, new in pairs),
        "same_hardest_other_rating": sum(old[1] != new[0] and old[2] == new[1] for old, new in pairs),
        "lower": sum(old[1] is not None and new[0] < old[1] for old, new in pairs),
        "higher": sum(old[1] is not None and new[0] > old[1] for old, new in pairs),
        "solved_then_stuck_now": sum(old[0] == "solved" and new[2] != "solved" for old, new in pairs),
        "stuck_then_solved_now": sum(old[0] != "solved" and new[2] == "solved" for old, new in pairs),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="rate only the first N puzzles")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--speed", type=int, default=3000, help="generated puzzles for the speed part (0: skip)"
    )
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    if not PUZZLES.exists() or not RATINGS.exists():
        raise SystemExit(f"missing corpus: {PUZZLES} and {RATINGS} (../shared/data)")
    lines = [line.strip() for line in PUZZLES.read_text().splitlines()][: args.limit]
    theirs = np.array([float(x) for x in RATINGS.read_text().split()][: len(lines)])
    print(f"machine: {machine()}; load {load_average()}")
    train, test = slice(0, min(TRAIN, len(lines))), slice(min(TRAIN, len(lines)), len(lines))
    results: dict[str, dict[str, object]] = {}
    for label, uniqueness in SETS.items():
        start = time.perf_counter()
        rows = _rate_all(lines, uniqueness, args.jobs)
        seconds = time.perf_counter() - start
        ours = np.array([value for value, _, _ in rows])
        spearman = {"train": _spearman(ours[train], theirs[train]), "all": _spearman(ours, theirs)}
        spearman["test"] = _spearman(ours[test], theirs[test]) if test.stop > test.start else float("nan")
        stuck = sum(status == Status.STUCK.value for _, _, status in rows)
        hardest = Counter(name for _, name, _ in rows).most_common(12)
        print(
            f"\n{TITLES[label]}: {len(lines)} puzzles in {seconds:.0f} s ({len(lines) / seconds:.0f}/s, "
            f"{args.jobs} job(s)); stuck {stuck}"
        )
        first, rest, every = spearman["train"], spearman["test"], spearman["all"]
        print(f"Spearman: first {train.stop} {first}, rest {rest}, all {every}")
        print("hardest steps:", ", ".join(f"{name} {count}" for name, count in hardest))
        table = _table(ours, theirs)
        _print_table(table)
        before = _before(label, rows)
        if before is not None:
            print("against the two-engine rate:", ", ".join(f"{k} {v}" for k, v in before.items()))
        shares = _disagreements(rows[train], theirs[train])
        print(
            f"squared rank differences on the first {train.stop}, by our hardest step:",
            ", ".join(f"{name} {share}" for name, share in list(shares.items())[:8]),
        )
        results[label] = {
            "spearman": spearman,
            "disagreements_first_5000": shares,
            "before": before,
            "seconds": round(seconds, 1),
            "stuck": stuck,
            "hardest": dict(hardest),
            "table": table,
            "ratings": ours.round(1).tolist(),
        }
    ceiling = _ceiling(
        np.asarray(results["default"]["ratings"])[train],
        np.asarray(results["uniqueness"]["ratings"])[train],
        theirs[train],
    )
    results["default"]["ceiling_first_5000"] = ceiling
    print(
        f"\ndefault rules: {ceiling['lowered_by_uniqueness']} of the first {train.stop} rate lower with the "
        f"uniqueness rules; rating every other puzzle as Explainer does would give at most "
        f"{ceiling['spearman_ceiling']} there"
    )
    speed = _speed(args.speed) if args.speed else {}
    if speed:
        print(
            f"\nspeed on {speed['puzzles']} generated 9x9 ({speed['need_nonlocal_percent']} % need "
            f"rules beyond the compiled local ones): rate {speed['rate_per_s']}/s (CPU time)"
        )
    RESULTS.mkdir(exist_ok=True)
    if not args.no_plot:
        plot = RESULTS / "rating_vs_explainer.png"
        _plot(results, theirs, plot)
        print(f"plot: {plot.relative_to(ROOT)}")
    report = {
        "puzzles": len(lines),
        "machine": machine(),
        "load": load_average(),
        "speed": speed,
        **{label: {k: v for k, v in result.items() if k != "ratings"} for label, result in results.items()},
    }
    out = RESULTS / (
        "rating_sudoku_exchange.json" if args.limit is None else "rating_sudoku_exchange_limited.json"
    )
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"results: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
