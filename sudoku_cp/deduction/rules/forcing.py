"""Cell and region forcing chains over the 2-SAT implications (Sudoku Explainer's 8.0 and up).

Exactly one candidate of an open cell is true, and exactly one place of a digit in a unit.  If
every one of them implies the same conclusion (a candidate true, or false) through the bivalue,
bilocal and at-most-one implications of ``rules.twosat``, the conclusion holds whichever is true:

- ``region-forcing-chains``: every place of a digit in a unit implies it;
- ``cell-forcing-chains``: every candidate of a cell implies it.

A step weighs 8.0 plus the length bonus of its chains (``scale.length_bonus`` on the candidates
of all its shortest chains together, less two), as Sudoku Explainer weighs its multiple forcing
chains; of all cells and units the engine gets the lightest step.  What one literal implies, and
how far, comes from one unweighted shortest-path search per literal (scipy).  The rules weigh more
than every other rule, so they are tried only where nothing else applies; a branch that implies
its own negation would have been removed by the 2-SAT rule first, and is left out of the
intersection here (it implies everything).  The searches grow with the candidates times the
implications, and a call does not look at the clock: the rules run on grids up to
``FORCING_MAX_SIDE`` (9 x 9 and the smaller box shapes; about 10 ms a call there) and report
nothing above.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import shortest_path

from ..board import Board
from ..step import Step
from .base import Rule
from .scale import length_bonus
from .twosat import implication_graph

__all__ = [
    "CELL_BASE",
    "FORCING_MAX_SIDE",
    "REGION_BASE",
    "RULES",
    "cell_forcing_chains",
    "forcing_weight",
    "region_forcing_chains",
]

_NONE = np.zeros((0, 2), dtype=np.int64)
#: The largest side the forcing chains search (a breadth-first search per candidate).
FORCING_MAX_SIDE = 9
#: The weight of the shortest forcing chains, cell or region (longer ones: ``forcing_weight``).
REGION_BASE = CELL_BASE = 8.0


#: The last board state's implications: the region and the cell rule ask on the same state.
_last: list[object] = [None, None]


def _implied(board: Board) -> tuple[dict[tuple[int, int], int], np.ndarray, int, np.ndarray, np.ndarray]:
    """Per open candidate its literal, and per literal (true) the number of implications on the
    shortest way to every literal (inf: not implied)."""
    state = (board.geometry, board.values.tobytes(), board.cand.tobytes())
    if _last[0] == state:
        return _last[1]  # type: ignore[return-value]
    imp = implication_graph(board)
    size = imp.size
    dist = shortest_path(imp.graph, method="D", unweighted=True, indices=np.arange(size))
    index = {(int(c), int(d)): v for v, (c, d) in enumerate(zip(imp.cells, imp.digits, strict=True))}
    found = index, np.atleast_2d(dist), size, imp.cells, imp.digits
    _last[0], _last[1] = state, found
    return found


def _may_conclude(dist: np.ndarray, size: int, groups: np.ndarray) -> np.ndarray:
    """Per group of branch literals (rows of ``groups``, -1 padded): whether two or more of them are
    not contradictory and those imply some literal besides themselves.  One array pass over all
    the groups of a rule, before ``_conclude`` builds the steps of the few that may conclude."""
    reach = np.isfinite(dist)
    contradictory = reach[np.arange(size), np.arange(size) + size]
    # a contradictory branch implies everything: it drops out (a row of True), as padding does
    rows = np.vstack([reach, np.ones((1, 2 * size), dtype=bool)])
    rows[:size][contradictory] = True
    index = np.where(groups >= 0, groups, size)
    live = (groups >= 0) & ~contradictory[np.minimum(index, size - 1)]
    common = rows[index].all(axis=-2)
    # the branches reach themselves: a conclusion is a common literal that is not a live branch
    at_branches = np.take_along_axis(common, np.minimum(index, size - 1), axis=-1) & live
    return (live.sum(axis=-1) >= 2) & (common.sum(axis=-1) > at_branches.sum(axis=-1))


def forcing_weight(base: float, nodes: int) -> float:
    """A forcing chains step's weight: its rule's base plus the length bonus of all its chains'
    candidates together (Sudoku Explainer's length brackets, on ``nodes`` - 2)."""
    return round(base + length_bonus(nodes - 2), 1)


def _conclude(
    rule: str, board: Board, branches: list[int], dist: np.ndarray, size: int, cells: np.ndarray,
    digits: np.ndarray, what: str, units: tuple[int, ...], shown: tuple[int, ...], base: float,
) -> Step | None:  # fmt: skip
    """The step of what every branch implies through the shortest chains (contradictory branches
    left out), weighed by their candidates: only the conclusions of the least weight; or None."""
    live = [v for v in branches if not np.isfinite(dist[v, v + size])]
    if len(live) < 2:
        return None
    rows = dist[live]
    common = np.isfinite(rows).all(axis=0)
    common[live] = False  # a branch implies itself
    targets = np.flatnonzero(common)
    if not len(targets):
        return None
    # a chain of k implications has k + 1 candidates; the step's are those of all its chains
    nodes = (rows[:, targets] + 1).sum(axis=0).astype(np.int64)
    weight = forcing_weight(base, int(nodes.min()))
    chosen = targets[[forcing_weight(base, int(k)) == weight for k in nodes]]
    placed = chosen[chosen < size]
    removed = chosen[chosen >= size] - size
    name = board.geometry.cell_name
    placements = np.stack([cells[placed], digits[placed]], axis=1).astype(np.int64) if len(placed) else _NONE
    eliminations = (
        np.stack([cells[removed], digits[removed]], axis=1).astype(np.int64) if len(removed) else _NONE
    )
    said = [f"{digits[v] + 1} at {name(int(cells[v]))}" for v in placed[:3]]
    said += [f"not {digits[v] + 1} at {name(int(cells[v]))}" for v in removed[:3]]
    more = len(placed) + len(removed) - len(said)
    note = f"{what}: each of them implies {', '.join(said)}" + (f" and {more} more" if more > 0 else "")
    note += f" ({int(nodes.min())} candidates in the chains)"
    return Step(
        rule,
        placements,
        eliminations,
        shown,
        units,
        tuple(sorted({int(digits[v]) for v in live})),
        note=note,
        weight=weight,
    )


def _lighter(best: Step | None, step: Step | None) -> Step | None:
    """The lighter of two steps (the first on a tie)."""
    if step is None:
        return best
    if best is None or (step.weight or 0.0) < (best.weight or 0.0):
        return step
    return best


def cell_forcing_chains(board: Board) -> Step | None:
    """The lightest step (the first open cell in order on a tie) of a cell whose every candidate
    implies a common conclusion."""
    if board.n > FORCING_MAX_SIDE:
        return None
    index, dist, size, cells, digits = _implied(board)
    if size == 0:
        return None
    best: Step | None = None
    open_cells = np.flatnonzero(board.values == 0)
    groups = np.full((len(open_cells), board.n), -1, dtype=np.int64)
    for row, cell in enumerate(open_cells):
        for k, d in enumerate(np.flatnonzero(board.cand[cell])):
            groups[row, k] = index[(int(cell), int(d))]
    for at in np.flatnonzero(_may_conclude(dist, size, groups)):
        c = int(open_cells[at])
        branches = [int(v) for v in groups[at] if v >= 0]
        held = ",".join(str(digits[v] + 1) for v in branches)
        what = f"{board.geometry.cell_name(c)} holds one of {held}"
        step = _conclude(
            "cell-forcing-chains", board, branches, dist, size, cells, digits, what, (), (c,), CELL_BASE
        )
        best = _lighter(best, step)
        if best is not None and best.weight == CELL_BASE:
            return best  # nothing is lighter: the first of this weight is the step
    return best


def region_forcing_chains(board: Board) -> Step | None:
    """The lightest step (the first unit and digit in order on a tie) of a digit in a unit whose
    every place implies a common conclusion."""
    if board.n > FORCING_MAX_SIDE:
        return None
    index, dist, size, cells, digits = _implied(board)
    if size == 0:
        return None
    units = board.tables.units
    n = board.n
    literal = np.full((n * n, n), -1, dtype=np.int64)
    for (c, d), v in index.items():
        literal[c, d] = v
    # per unit and digit, the literals of its places (-1: not a place), in the units' cell order
    places = literal[units].transpose(0, 2, 1)  # (units, digits, cells of the unit)
    groups = np.sort(places, axis=-1)[:, :, ::-1]  # places first, the -1 padding after
    hits = _may_conclude(dist, size, groups.reshape(-1, n)).reshape(units.shape[0], n)
    hits &= ~(board.values[units][:, :, None] == np.arange(1, n + 1)).any(axis=1)  # digit placed there
    best: Step | None = None
    for u, d in zip(*np.nonzero(hits), strict=True):
        where = [int(c) for c in units[u] if literal[c, d] >= 0]
        branches = [int(literal[c, d]) for c in where]
        what = f"digit {d + 1} goes in one of {' '.join(board.geometry.cell_name(c) for c in where)}"
        rule = "region-forcing-chains"
        step = _conclude(
            rule, board, branches, dist, size, cells, digits, what, (int(u),), tuple(where), REGION_BASE
        )
        best = _lighter(best, step)
        if best is not None and best.weight == REGION_BASE:
            return best  # nothing is lighter: the first of this weight is the step
    return best


RULES: tuple[Rule, ...] = (
    Rule(
        "region-forcing-chains",
        "forcing",
        "every place of a digit in a unit implies the same candidate true or false: it is",
        REGION_BASE,
        region_forcing_chains,
    ),
    Rule(
        "cell-forcing-chains",
        "forcing",
        "every candidate of a cell implies the same candidate true or false: it is",
        CELL_BASE,
        cell_forcing_chains,
    ),
)
