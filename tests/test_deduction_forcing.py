"""Cell and region forcing chains weighed by their length: the weight formula, the lightest step of
a board, and Sudoku Exchange puzzles where the weight is Sukaku Explainer's rating, every step of
their solve proved by SAT as the engine takes it."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from test_deduction_matching import random_board

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import RULES, select_rules
from sudoku_cp.deduction.rules.forcing import (
    CELL_BASE,
    REGION_BASE,
    _distances,
    _least_nodes,
    _same_weight,
    cell_forcing_chains,
    forcing_weight,
    region_forcing_chains,
)
from sudoku_cp.deduction.rules.scale import bracket_end, length_bonus
from sudoku_cp.deduction.rules.twosat import implication_graph
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
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


def _bfs(indptr: np.ndarray, indices: np.ndarray, start: int) -> dict[int, int]:
    """Implications on the shortest way from ``start`` to each literal it reaches (plain Python)."""
    dist = {start: 0}
    queue = collections.deque([start])
    while queue:
        v = queue.popleft()
        for u in indices[indptr[v] : indptr[v + 1]].tolist():
            if u not in dist:
                dist[u] = dist[v] + 1
                queue.append(u)
    return dist


@pytest.mark.parametrize(
    ("geometry", "seed"), [(g, s) for g in (Geometry(2, 3), Geometry(3, 3)) for s in range(3)]
)
def test_the_compiled_searches_are_breadth_first_search_and_the_least_common_conclusion(
    geometry: Geometry, seed: int
) -> None:
    """``_distances`` is a breadth-first search from every true literal, and ``_least_nodes`` the
    fewest candidates over the literals every live branch of a group implies (plain Python)."""
    board, _ = random_board(geometry, seed, blank=0.7, drop=0.4)
    imp = implication_graph(board)
    size = imp.size
    dist, reach = _distances(imp.indptr, imp.indices, size)
    for v in range(size):
        expected = np.full(2 * size, -1)
        for u, d in _bfs(imp.indptr, imp.indices, v).items():
            expected[u] = d
        assert dist[v].tolist() == expected.tolist()
        bits = [(int(reach[v, u >> 6]) >> (u & 63)) & 1 for u in range(2 * size)]
        assert bits == (expected >= 0).astype(int).tolist()
    rng = np.random.default_rng(seed)
    groups = np.full((60, 4), -1, dtype=np.int64)
    for picked in groups:
        k = int(rng.integers(0, 5))
        picked[:k] = rng.choice(size, size=k, replace=False)
    least = _least_nodes(dist, reach, groups)
    for row, got in zip(groups.tolist(), least.tolist(), strict=True):
        live = [v for v in row if v >= 0 and dist[v, v + size] < 0]
        sums = [
            sum(int(dist[v, t]) + 1 for v in live)
            for t in range(2 * size)
            if t not in live and all(dist[v, t] >= 0 for v in live)
        ]
        assert got == (min(sums) if len(live) >= 2 and sums else -1)
    assert (least >= 0).any() or size == 0


def test_same_weight_is_the_end_of_the_length_bracket() -> None:
    """The lightest steps are picked by a bound on their candidates: every count up to the bound
    weighs what the least does, one more weighs more."""
    for nodes in range(2, 600):
        limit = _same_weight(nodes)
        assert limit >= nodes
        assert {forcing_weight(8.0, k) for k in range(nodes, limit + 1)} == {forcing_weight(8.0, nodes)}
        assert forcing_weight(8.0, limit + 1) > forcing_weight(8.0, nodes)
    for length in range(-2, 600):
        end = bracket_end(length)
        assert end >= length and length_bonus(end) == length_bonus(length) < length_bonus(end + 1)
