"""``verify --steps`` against the work it checks, measured in one run on one machine.

    .venv/bin/python benchmarks/verify_steps.py [--rounds 3] [--write]

Corpora: the 395 9x9 puzzles of ``tests/data`` (norvig_top95, magictour_100, serg_100,
clue17_100), and ``fuzz.cases`` puzzles of every status for 2x3, 3x4 and 4x4 boxes.  For each,
best of ``--rounds`` (after one warm-up round that compiles the native kernels):

* explain: ``deduction.batch.explain_items`` making the logs (the baseline);
* explain --check: the same, each step proved by SAT as it is found (``deduction.proof``, one
  solver per puzzle, every claim one solve): what an engine's own SAT check costs;
* verify --steps: reading explain's JSON Lines (``audit.steplog``) and checking them
  (``audit.steps``: one solver per box shape, claims of a unique puzzle compared with its
  solution at once, the others searched in halves).

Ratios are to the explain time measured in the same round; the machine and its load are noted.
``--write`` writes the table to ``benchmarks/results/verify_steps.md``.
"""

from __future__ import annotations

import argparse
import json
import time

from common import ROOT, load_average, machine

from sudoku_cp.audit.steplog import read_step_logs
from sudoku_cp.audit.steps import check_step_logs
from sudoku_cp.deduction.batch import explain_items
from sudoku_cp.formats import PuzzleItem, format_line, parse_puzzles
from sudoku_cp.fuzz.cases import STATUSES, CaseKey, make_case

DATA = ROOT / "tests" / "data"
FILES = ("norvig_top95.txt", "magictour_100.txt", "serg_100.txt", "clue17_100.txt")


def _nine() -> tuple[str, list[PuzzleItem]]:
    lines = [
        line.strip()
        for name in FILES
        for line in (DATA / name).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return "9x9 tests/data", parse_puzzles("\n".join(lines) + "\n")


def _cases(box: tuple[int, int], seeds: int) -> tuple[str, list[PuzzleItem]]:
    puzzles = [
        make_case(CaseKey(box, status, "random", (seed, k)))
        for seed in range(seeds)
        for k, status in enumerate(STATUSES)
    ]
    text = "".join(format_line(p) + "\n" for p in puzzles if p is not None)
    return f"{box[0]}x{box[1]} fuzz cases", parse_puzzles(text, box=box)


def _round(items: list[PuzzleItem]) -> dict[str, float]:
    start = time.perf_counter()
    explained = list(explain_items(items))
    explain = time.perf_counter() - start
    start = time.perf_counter()
    checked = list(explain_items(items, check=True))
    check = time.perf_counter() - start
    assert all(result.refuted is None for result in checked)
    text = "".join(json.dumps(result.to_json()) + "\n" for result in explained)
    start = time.perf_counter()
    logs, _ = read_step_logs(text, corpus=items, box=(items[0].geometry.p, items[0].geometry.q))  # type: ignore[union-attr]
    read = time.perf_counter() - start
    start = time.perf_counter()
    results = list(check_step_logs(logs))
    verify = time.perf_counter() - start
    assert all(result.verdict.value == "sound" for result in results), [r.text() for r in results][:3]
    return {
        "explain": explain,
        "check": check,
        "read": read,
        "verify": verify,
        "claims": sum(log.claims for log in logs),
        "sat_calls": sum(result.sat_calls for result in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    corpora = [_nine(), _cases((2, 3), 6), _cases((3, 4), 3), _cases((4, 4), 2)]
    loads = [load_average()]
    rows = []
    for name, items in corpora:
        _round(items[:5])  # warm-up: compiles what a first call compiles
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            measured = _round(items)
            best = {k: min(v, best.get(k, v)) for k, v in measured.items()}
        loads.append(load_average())
        rows.append((name, len(items), best))
    header = (
        "| corpus | puzzles | claims | SAT calls | explain s | explain --check s | verify --steps s "
        "(read + check) | verify / explain | verify / the check's extra time |"
    )
    lines = [
        f"Machine: {machine()}; load average (1 min) {', '.join(loads)} during the run (2 cores shared).",
        f"Best of {args.rounds} rounds after a warm-up.",
        "",
        header,
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, count, b in rows:
        total = b["read"] + b["verify"]
        extra = max(b["check"] - b["explain"], 1e-9)
        lines.append(
            f"| {name} | {count} | {int(b['claims'])} | {int(b['sat_calls'])} | {b['explain']:.2f} | "
            f"{b['check']:.2f} | {total:.2f} ({b['read']:.2f} + {b['verify']:.2f}) | "
            f"{total / b['explain']:.2f} | {total / extra:.2f} |"
        )
    print("\n".join(lines))
    if args.write:
        out = ROOT / "benchmarks" / "results" / "verify_steps.md"
        out.write_text(
            "# verify --steps: speed\n\n" + __doc__.split("\n\n", 1)[1] + "\n" + "\n".join(lines) + "\n"
        )


if __name__ == "__main__":
    main()
