"""What single deduction-engine calls cost: the speed figures unit tests used to assert.

    .venv/bin/python benchmarks/engine_costs.py [--repeat 5]

Unit tests check behaviour, never speed (a timed test fails on a loaded machine and proves
nothing on a quiet one).  The figures they once asserted are measured here instead, each as a
ratio against a baseline timed in the same run on the same boards: singles propagation of the
board (``deduce`` with the ``singles`` rules only), so a slower machine moves both sides.

1. ``two_sat`` on three stuck 9x9 boards (Sudoku Exchange diabolical lines 1, 4, 5, stuck after
   singles .. wings): ms per call; the old test's bound was 50 ms.
2. ``StepProver.prove``: the SAT proof of every step of a 17-clue puzzle's explanation, in
   microseconds per candidate proved; the old bound was 1 ms (measured about 6 us).
3. The chain rules (``deduction.rules.chains.RULES``) on a stuck board of Norvig's top95 (line 5),
   their graphs built afresh each round: ms per round; the old bound was 500 ms.

The medians of ``--repeat`` rounds are printed with the machine and its load average.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from common import ROOT, load_average, machine

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.proof import StepProver
from sudoku_cp.deduction.rules import graphs_of_board, select_rules
from sudoku_cp.deduction.rules.chains import RULES as CHAIN_RULES
from sudoku_cp.deduction.rules.twosat import two_sat
from sudoku_cp.formats import parse_grid

DATA = ROOT / "tests" / "data"
STUCK_LINES = [  # sudoku_exchange_diabolical_10k.txt lines 1, 4 and 5 (../shared/data/sudoku9)
    "083020090000800100029300008000098700070000060006740000300006980002005000010030540",
    "006000200900000004243000896000591000002080300400203001300000007000907000010408020",
    "850000031000070000000809000003000600970301052000020000100407006205000307000080000",
]
CHAIN_FAMILIES = ["singles", "locked", "subsets", "fish", "wings"]


def _lines(name: str, count: int) -> list[str]:
    return [line.strip() for line in (DATA / name).read_text().splitlines() if line.strip()][:count]


def _median_seconds(action: Callable[[], object], repeat: int) -> float:
    spent = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        spent.append(time.perf_counter() - began)
    return statistics.median(spent)


def _singles(lines: list[str]) -> Callable[[], object]:
    rules = select_rules(["singles"])
    grids = [parse_grid(line) for line in lines]
    return lambda: [deduce(grid, rules, record=False) for grid in grids]


def _stuck(lines: list[str], families: list[str]) -> list[Board]:
    rules = select_rules(families)
    return [deduce(parse_grid(line), rules, record=False).board for line in lines]


def main() -> None:
    """Print each figure and its ratio against singles propagation of the same boards."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds per figure (median)")
    args = parser.parse_args()
    print(f"machine: {machine()}; load {load_average()}")

    boards = _stuck(STUCK_LINES, CHAIN_FAMILIES)
    two_sat(boards[0])  # compiled and warm before timing
    spent = _median_seconds(lambda: [two_sat(board) for board in boards], args.repeat) / len(boards)
    base = _median_seconds(_singles(STUCK_LINES), args.repeat) / len(boards)
    print(
        f"two_sat: {spent * 1e3:.2f} ms a stuck 9x9 board; singles {base * 1e3:.2f} ms; x{spent / base:.1f}"
    )

    line = _lines("clue17_100.txt", 1)[0]
    grid = parse_grid(line)
    steps = deduce(grid).steps
    with StepProver(grid) as prover:
        prover.prove(steps[0])  # the first solve warms the solver up
        candidates = 0

        def prove_all() -> None:
            nonlocal candidates
            candidates = sum(prover.prove(step).total for step in steps[1:])

        spent = _median_seconds(prove_all, args.repeat)
    base = _median_seconds(_singles([line]), args.repeat)
    print(
        f"step proofs: {spent / candidates * 1e6:.1f} us a candidate ({candidates} candidates, "
        f"{len(steps) - 1} steps); singles of the puzzle {base * 1e3:.2f} ms; whole proof x{spent / base:.1f}"
    )

    line = _lines("norvig_top95.txt", 5)[4]
    stuck = _stuck([line], CHAIN_FAMILIES)[0]

    def chain_round() -> None:
        graphs_of_board.clear_cache()  # every round builds both graphs again
        for rule in CHAIN_RULES:
            rule.find(stuck)

    chain_round()
    spent = _median_seconds(chain_round, args.repeat)
    base = _median_seconds(_singles([line]), args.repeat)
    print(
        f"chain rules: {spent * 1e3:.1f} ms a round on a stuck 9x9 board; "
        f"singles {base * 1e3:.2f} ms; x{spent / base:.1f}"
    )


if __name__ == "__main__":
    main()
