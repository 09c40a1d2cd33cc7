"""Cell and region forcing chains weighed by their length: the weight formula, the lightest step of
a board, and Sudoku Exchange puzzles where the weight is Sukaku Explainer's rating, every step of
their solve proved by SAT as the engine takes it."""

from __future__ import annotations

import pytest

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import RULES, select_rules
from sudoku_cp.deduction.rules.forcing import (
    CELL_BASE,
    REGION_BASE,
    cell_forcing_chains,
    forcing_weight,
    region_forcing_chains,
)
from sudoku_cp.formats import parse_grid
from sudoku_cp.outcome import Status


def test_forcing_weight_is_the_base_plus_the_length_bonus_of_all_the_chains() -> None:
    assert REGION_BASE == CELL_BASE == 8.0
    assert forcing_weight(8.0, 6) == 8.0  # length 4: no bonus
    assert forcing_weight(8.0, 7) == 8.1
    assert forcing_weight(8.0, 10) == 8.2
    assert forcing_weight(8.0, 14) == 8.3
    assert forcing_weight(8.0, 18) == 8.4
    weights = {rule.name: rule.weight for rule in RULES}
    assert weights["region-forcing-chains"] == weights["cell-forcing-chains"] == 8.0


# Sudoku Exchange diabolical puzzles (lines 4, 15, 90, 314 of ../shared/data/sudoku9) whose
# hardest step is a region forcing chain, with their Sukaku Explainer ratings.
EXPLAINER = [
    ("006000200900000004243000896000591000002080300400203001300000007000907000010408020", 8.2),
    ("700000810040008200000206003000320900200804007003067000800602000009500080051000002", 8.3),
    ("500000009760000052004000300080010060000709000600000001050000080400502007030070010", 8.4),
    ("090060005800005000004900160000003600207040903005700000041009500000300001700020030", 8.5),
]


@pytest.mark.parametrize(("line", "explainer"), EXPLAINER)
def test_forcing_chains_rate_as_explainer_and_are_proved_by_sat(line: str, explainer: float) -> None:
    grid = parse_grid(line)
    deduction = deduce(grid, check=True)  # every step proved by SAT as it is taken
    assert deduction.status is Status.SOLVED
    assert deduction.hardest == "region-forcing-chains"
    assert deduction.weight == explainer
    assert rate(grid).rating == explainer
    forcing = [step for step in deduction.steps if step.rule.endswith("forcing-chains")]
    assert forcing and all(step.weight is not None and step.weight >= 8.0 for step in forcing)
    assert all("candidates in the chains" in step.note for step in forcing)


def test_the_forcing_rules_offer_their_lightest_step() -> None:
    """Where the lighter rules are stuck, the engine's first forcing step weighs the least of what
    the region and the cell rule offer on that board."""
    grid = parse_grid(EXPLAINER[3][0])
    rules = select_rules()
    before = [rule for rule in rules if rule.weight < 8.0]
    board = Board.from_grid(grid)
    stuck = deduce(grid, before)
    assert stuck.status is Status.STUCK
    for step in stuck.steps:
        board.apply(step.placements, step.eliminations)
    region = region_forcing_chains(board)
    cell = cell_forcing_chains(board)
    assert region is not None and region.weight is not None
    taken = deduce(grid, rules).steps
    first = next(step for step in taken if step.rule.endswith("forcing-chains"))
    assert first.weight == min(w for w in (region.weight, cell.weight if cell else None) if w is not None)
