"""The paper's experiment (Eppstein 2005, section 3.6) at this machine's scale, then again with
Nishio and 2-SAT.

    .venv/bin/python benchmarks/deduction.py [--count 10000] [--seed 1] [--box 3x3]

1. Generate ``--count`` puzzles with the paper's generator (``deduction.generate``: symmetric
   pairs filled with singles propagation, then emptied while the puzzle stays unique), seeded.
2. Solve each with three rule sets, never guessing:
   - *local*: singles, locked candidates, subsets, fish and the two matching rules (the paper's
     section 3.1 rules; subsets and fish are special cases of the matching rules that explain
     better);
   - *paper*: local plus the nonlocal rules: the bilocation and bivalue rules (sections
     3.2-3.5) and the XY-wing (a short bivalue cycle pattern): the paper's rule set, without
     Nishio, 2-SAT or uniqueness rules;
   - *full*: paper plus 2-SAT and Nishio.
3. Report, next to the paper's figures (33,302 puzzles): the share unsolvable without
   backtracking (4.4 %), the share that needs the nonlocal rules (11.6 %), and the share of the
   locally unsolvable puzzles that the nonlocal rules rescue (72.5 %); then the same with *full*.

The generated puzzles are written to ``benchmarks/results/generated_<box>_seed<seed>.txt`` (one
line each) so other benchmarks (rate speed) reuse them.
"""

from __future__ import annotations

import argparse
import json
import time

from common import ROOT, load_average, machine

from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.generate import generate_puzzles
from sudoku_cp.deduction.rules import FAMILIES, select_rules
from sudoku_cp.formats import format_line
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.outcome import Status

# The XY-wing is a three-cell cycle pattern of the bivalue graph: nonlocal in the paper's terms.
LOCAL = ("singles", "locked", "subsets", "fish", "matching")
PAPER = (*LOCAL, "wings", "bilocation", "bivalue")
FULL = (*PAPER, "twosat", "nishio")
PAPER_FIGURES = {"unsolvable": 4.4, "needs_nonlocal": 11.6, "rescued": 72.5}


def _families(names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in FAMILIES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--box", default="3x3")
    args = parser.parse_args()
    p, q = (int(x) for x in args.box.split("x"))
    geometry = geometry_for_size(p * q, (p, q))
    print(f"machine: {machine()}; load {load_average()}")
    start = time.perf_counter()
    made_puzzles = generate_puzzles(geometry, args.count, args.seed, symmetric=True)  # the paper's kind
    puzzles = [made.puzzle for made in made_puzzles]
    made = time.perf_counter() - start
    print(f"generated {len(puzzles)} {args.box} puzzles in {made:.1f} s ({len(puzzles) / made:.0f}/s)")
    out = ROOT / "benchmarks" / "results" / f"generated_{args.box}_seed{args.seed}.txt"
    out.write_text("".join(format_line(grid) + "\n" for grid in puzzles))
    solved: dict[str, list[bool]] = {}
    for label, names in (("local", LOCAL), ("paper", PAPER), ("full", FULL)):
        rules = select_rules(_families(names))
        start = time.perf_counter()
        solved[label] = [deduce(grid, rules, record=False).status is Status.SOLVED for grid in puzzles]
        seconds = time.perf_counter() - start
        print(f"{label:>5}: {', '.join(_families(names))}: {sum(solved[label])} solved, {seconds:.1f} s")
    total = len(puzzles)
    report: dict[str, object] = {"puzzles": total, "seed": args.seed, "box": args.box, "machine": machine()}
    for label in ("paper", "full"):
        unsolvable = sum(not s for s in solved[label])
        needs = sum(s and not loc for s, loc in zip(solved[label], solved["local"], strict=True))
        rescued = 100 * needs / (needs + unsolvable) if needs + unsolvable else 0.0
        figures = {
            "unsolvable": round(100 * unsolvable / total, 2),
            "needs_nonlocal": round(100 * needs / total, 2),
            "rescued": round(rescued, 1),
        }
        report[label] = figures
        print(
            f"{label:>5}: unsolvable {figures['unsolvable']} % (paper 4.4), needs the nonlocal rules "
            f"{figures['needs_nonlocal']} % (paper 11.6), rescued {figures['rescued']} % (paper 72.5)"
        )
    results = ROOT / "benchmarks" / "results" / "deduction_experiment.json"
    results.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
