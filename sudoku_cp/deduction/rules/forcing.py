"""Cell and region forcing chains over the 2-SAT implications (Sudoku Explainer's 8.0 and up).

Exactly one candidate of an open cell is true, and exactly one place of a digit in a unit.  If
every one of them implies the same conclusion (a candidate true, or false) through the bivalue,
bilocal and at-most-one implications of ``rules.twosat``, the conclusion holds whichever is true:

- ``region-forcing-chains``: every place of a digit in a unit implies it;
- ``cell-forcing-chains``: every candidate of a cell implies it.

A step weighs 8.0 plus the length bonus of its chains (``scale.length_bonus`` on the candidates
of all its shortest chains together, less two), as Sudoku Explainer weighs its multiple forcing
chains; of all cells and units the engine gets the lightest step.  What one literal implies, and
how far, comes from one breadth-first search per literal (compiled, over the CSR arrays of the
implications), and one compiled pass weighs every cell's or unit's branches at once.  The rules
weigh more than every other rule, so they are tried only where nothing else applies; a branch that implies
its own negation would have been removed by the 2-SAT rule first, and is left out of the
intersection here (it implies everything).  The searches grow with the candidates times the
implications, and a call does not look at the clock: the rules run on grids up to
``FORCING_MAX_SIDE`` (9 x 9 and the smaller box shapes; under 1 ms a call there) and report
nothing above.
"""

from __future__ import annotations

import threading

import numba
import numpy as np

from ...limits import watch_compilation
from ..board import Board
from ..step import Step
from .base import Rule
from .chain_search import _lowest
from .scale import bracket_end, length_bonus
from .twosat import implication_graph

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

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


# The last board state's implications, per thread (a Dask worker may rate on several threads):
# the region and the cell rule ask on the same state.
_here = threading.local()


@numba.njit(cache=True)
def _distances(
    indptr: np.ndarray, indices: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Per literal v < size (true), the number of implications on the shortest way from it to every
    literal (-1: not implied; 0 to itself), by one breadth-first search per literal over the CSR
    arrays (the unweighted shortest paths); and the same reach as rows of 64-bit words."""
    total = 2 * size
    words = (total + 63) // 64
    dist = np.full((size, total), -1, np.int32)
    reach = np.zeros((size, words), np.uint64)
    queue = np.empty(total, np.int64)
    one = np.uint64(1)
    for start in range(size):
        row = dist[start]
        bits = reach[start]
        row[start] = 0
        bits[start >> 6] |= one << np.uint64(start & 63)
        queue[0] = start
        head, tail = 0, 1
        while head < tail:
            v = queue[head]
            head += 1
            step = row[v] + 1
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if row[u] < 0:
                    row[u] = step
                    bits[u >> 6] |= one << np.uint64(u & 63)
                    queue[tail] = u
                    tail += 1
    return dist, reach


@numba.njit(cache=True)
def _least_nodes(dist: np.ndarray, reach: np.ndarray, groups: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Per group of branch literals (rows of ``groups``, -1 padded): the fewest candidates of the
    chains by which its live branches (two or more; a branch that implies its own negation implies
    everything and drops out) all imply one literal that is not a live branch; -1 when they imply
    none in common.  A chain of k implications has k + 1 candidates.  The literals all live
    branches reach come from the AND of their reach rows; only those are weighed."""
    size = dist.shape[0]
    words = reach.shape[1]
    one = np.uint64(1)
    out = np.full(groups.shape[0], -1, np.int64)
    live = np.empty(groups.shape[1], np.int64)
    common = np.empty(words, np.uint64)
    for g in range(groups.shape[0]):
        k = 0
        for j in range(groups.shape[1]):
            v = groups[g, j]
            if v >= 0 and dist[v, v + size] < 0:
                live[k] = v
                k += 1
        if k < 2:
            continue
        for w in range(words):
            common[w] = reach[live[0], w]
        for i in range(1, k):
            for w in range(words):
                common[w] &= reach[live[i], w]
        for i in range(k):
            common[live[i] >> 6] &= ~(one << np.uint64(live[i] & 63))  # a branch implies itself
        best = -1
        for w in range(words):
            bits = common[w]
            while bits:
                t = w * 64 + _lowest(bits)
                bits &= bits - one
                nodes = 0
                for i in range(k):
                    nodes += dist[live[i], t] + 1
                if best < 0 or nodes < best:
                    best = nodes
        out[g] = best
    return out


def _implied(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]:
    """The literal of every candidate ((n * n, n), -1: none), and per literal (true) the number of
    implications on the shortest way to every literal (-1: not implied) and the same reach as
    bitsets; the number of literals, their cells and digits."""
    state = board.state_key()
    last = getattr(_here, "last", None)
    if last is not None and last[0] == state:
        return last[1]  # type: ignore[no-any-return]
    imp = implication_graph(board)
    size = imp.size
    dist, reach = _distances(imp.indptr, imp.indices, size)
    literal = np.full(board.cand.shape, -1, dtype=np.int64)
    literal[imp.cells, imp.digits] = np.arange(size)
    found = literal, dist, reach, size, imp.cells, imp.digits
    _here.last = (state, found)
    return found


def _first_lightest(nodes: np.ndarray) -> int:
    """The first group of the least weight among those that conclude (``nodes`` >= 0), or -1."""
    concluding = nodes >= 0
    if not concluding.any():
        return -1
    # the weight grows with the candidates: the lightest groups are those up to _same_weight's bound
    limit = _same_weight(int(nodes[concluding].min()))
    return int(np.flatnonzero(concluding & (nodes <= limit))[0])


def _same_weight(nodes: int) -> int:
    """The most candidates a forcing step may have and still weigh what one of ``nodes`` weighs
    (the weight is a step function of the candidates: the end of ``nodes``' length bracket)."""
    return bracket_end(nodes - 2) + 2


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
    live = [v for v in branches if dist[v, v + size] < 0]
    if len(live) < 2:
        return None
    rows = dist[live]
    common = np.asarray((rows >= 0).all(axis=0))
    common[live] = False  # a branch implies itself
    targets = np.flatnonzero(common)
    if not len(targets):
        return None
    # a chain of k implications has k + 1 candidates; the step's are those of all its chains
    nodes = (rows[:, targets].astype(np.int64) + 1).sum(axis=0)
    weight = forcing_weight(base, int(nodes.min()))
    chosen = targets[nodes <= _same_weight(int(nodes.min()))]
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


def cell_forcing_chains(board: Board) -> Step | None:
    """The lightest step (the first open cell in order on a tie) of a cell whose every candidate
    implies a common conclusion."""
    if board.n > FORCING_MAX_SIDE:
        return None
    literal, dist, reach, size, cells, digits = _implied(board)
    if size == 0:
        return None
    open_cells = np.flatnonzero(board.values == 0)
    groups = literal[open_cells]  # per open cell, its candidates' literals in digit order (-1: none)
    at = _first_lightest(_least_nodes(dist, reach, groups))
    if at < 0:
        return None
    c = int(open_cells[at])
    branches = [int(v) for v in groups[at] if v >= 0]
    held = ",".join(str(digits[v] + 1) for v in branches)
    what = f"{board.geometry.cell_name(c)} holds one of {held}"
    return _conclude(
        "cell-forcing-chains", board, branches, dist, size, cells, digits, what, (), (c,), CELL_BASE
    )


def region_forcing_chains(board: Board) -> Step | None:
    """The lightest step (the first unit and digit in order on a tie) of a digit in a unit whose
    every place implies a common conclusion."""
    if board.n > FORCING_MAX_SIDE:
        return None
    literal, dist, reach, size, cells, digits = _implied(board)
    if size == 0:
        return None
    units = board.tables.units
    n = board.n
    # per unit and digit, the literals of its places (-1: not a place), in the units' cell order
    places = literal[units].transpose(0, 2, 1)  # (units, digits, cells of the unit)
    nodes = _least_nodes(dist, reach, np.ascontiguousarray(places.reshape(-1, n))).reshape(units.shape[0], n)
    nodes[(board.values[units][:, :, None] == np.arange(1, n + 1)).any(axis=1)] = -1  # digit placed there
    at = _first_lightest(nodes.reshape(-1))
    if at < 0:
        return None
    u, d = divmod(at, n)
    where = [int(c) for c in units[u] if literal[c, d] >= 0]
    branches = [int(literal[c, d]) for c in where]
    what = f"digit {d + 1} goes in one of {' '.join(board.geometry.cell_name(c) for c in where)}"
    rule = "region-forcing-chains"
    return _conclude(rule, board, branches, dist, size, cells, digits, what, (u,), tuple(where), REGION_BASE)


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
