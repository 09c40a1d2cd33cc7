"""Cell and region forcing chains over the 2-SAT implications (Sudoku Explainer's 8.2-8.3).

Exactly one candidate of an open cell is true, and exactly one place of a digit in a unit.  If
every one of them implies the same conclusion (a candidate true, or false) through the bivalue,
bilocal and at-most-one implications of ``rules.twosat``, the conclusion holds whichever is true:

- ``region-forcing-chains`` (8.2): every place of a digit in a unit implies it;
- ``cell-forcing-chains`` (8.3): every candidate of a cell implies it.

What one literal implies is every literal it reaches in the implication graph (a breadth-first
search per literal, scipy).  The rules weigh more than every other rule, so they are tried only
where nothing else applies; a branch that implies its own negation would have been removed by
the 2-SAT rule first, and is left out of the intersection here (it implies everything).  One
search per literal grows with the candidates times the implications, and a call does not look at
the clock: the rules run on grids up to ``FORCING_MAX_SIDE`` (9 x 9 and the smaller box shapes;
about 10 ms a call there) and report nothing above.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from ..board import Board
from ..step import Step
from .base import Rule
from .twosat import implication_graph

__all__ = ["FORCING_MAX_SIDE", "RULES", "cell_forcing_chains", "region_forcing_chains"]

_NONE = np.zeros((0, 2), dtype=np.int64)
#: The largest side the forcing chains search (a breadth-first search per candidate).
FORCING_MAX_SIDE = 9


def _implied(
    board: Board,
) -> tuple[dict[tuple[int, int], int], list[np.ndarray], int, np.ndarray, np.ndarray]:
    """Per open candidate its literal, and per literal the bool row of the literals it implies."""
    imp = implication_graph(board)
    size = imp.size
    rows = []
    for v in range(size):
        row = np.zeros(2 * size, dtype=bool)
        row[breadth_first_order(imp.graph, v, directed=True, return_predecessors=False)] = True
        rows.append(row)
    index = {(int(c), int(d)): v for v, (c, d) in enumerate(zip(imp.cells, imp.digits, strict=True))}
    return index, rows, size, imp.cells, imp.digits


def _conclude(
    rule: str, board: Board, branches: list[int], rows: list[np.ndarray], size: int, cells: np.ndarray,
    digits: np.ndarray, what: str, units: tuple[int, ...], shown: tuple[int, ...],
) -> Step | None:  # fmt: skip
    """The step of what every branch implies (contradictory branches left out), or None."""
    live = [v for v in branches if not rows[v][v + size]]
    if len(live) < 2:
        return None
    common = np.logical_and.reduce([rows[v] for v in live])
    common[live] = False  # a branch implies itself
    placed = np.flatnonzero(common[:size])
    removed = np.flatnonzero(common[size:])
    if not len(placed) and not len(removed):
        return None
    name = board.geometry.cell_name
    placements = np.stack([cells[placed], digits[placed]], axis=1).astype(np.int64) if len(placed) else _NONE
    eliminations = (
        np.stack([cells[removed], digits[removed]], axis=1).astype(np.int64) if len(removed) else _NONE
    )
    said = [f"{digits[v] + 1} at {name(int(cells[v]))}" for v in placed[:3]]
    said += [f"not {digits[v] + 1} at {name(int(cells[v]))}" for v in removed[:3]]
    more = len(placed) + len(removed) - len(said)
    note = f"{what}: each of them implies {', '.join(said)}" + (f" and {more} more" if more > 0 else "")
    return Step(
        rule, placements, eliminations, shown, units, tuple(sorted({int(digits[v]) for v in live})), note=note
    )


def cell_forcing_chains(board: Board) -> Step | None:
    """The first open cell (in order) whose every candidate implies a common conclusion."""
    if board.n > FORCING_MAX_SIDE:
        return None
    index, rows, size, cells, digits = _implied(board)
    for c in np.flatnonzero(board.values == 0):
        branches = [index[(int(c), int(d))] for d in np.flatnonzero(board.cand[c])]
        held = ",".join(str(digits[v] + 1) for v in branches)
        what = f"{board.geometry.cell_name(int(c))} holds one of {held}"
        step = _conclude(
            "cell-forcing-chains", board, branches, rows, size, cells, digits, what, (), (int(c),)
        )
        if step is not None:
            return step
    return None


def region_forcing_chains(board: Board) -> Step | None:
    """The first unit and digit (in order) whose every place implies a common conclusion."""
    if board.n > FORCING_MAX_SIDE:
        return None
    index, rows, size, cells, digits = _implied(board)
    units = board.tables.units
    for u in range(units.shape[0]):
        for d in range(board.n):
            places = [int(c) for c in units[u] if board.values[c] == 0 and board.cand[c, d]]
            if len(places) < 2 or (board.values[units[u]] == d + 1).any():
                continue
            branches = [index[(c, d)] for c in places]
            what = f"digit {d + 1} goes in one of {' '.join(board.geometry.cell_name(c) for c in places)}"
            step = _conclude(
                "region-forcing-chains", board, branches, rows, size, cells, digits, what, (u,), tuple(places)
            )
            if step is not None:
                return step
    return None


RULES: tuple[Rule, ...] = (
    Rule(
        "region-forcing-chains",
        "forcing",
        "every place of a digit in a unit implies the same candidate true or false: it is",
        8.2,
        region_forcing_chains,
    ),
    Rule(
        "cell-forcing-chains",
        "forcing",
        "every candidate of a cell implies the same candidate true or false: it is",
        8.3,
        cell_forcing_chains,
    ),
)
