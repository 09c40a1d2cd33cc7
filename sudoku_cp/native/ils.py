"""Iterated local search with constraint programming (ILS), after Musliu & Winter, compiled with numba.

Reference: N. Musliu, F. Winter, "A hybrid approach for the Sudoku problem: using constraint
programming in iterated local search", IEEE Intelligent Systems 32(2):52-62, 2017.  The fourth
solver of Lloyd & Amos' ant colony experiments (their reference [26]: "an iterated local search
algorithm with constraint programming which represents the state-of-the-art in stochastic search
algorithms for the Sudoku problem"; they ran the authors' program with the settings the paper
recommends).  The paper's text was not available here.  This module follows its published
outline as we know it (constraint propagation first; states where every box is a permutation;
swaps of two open cells inside a box; the number of row and column conflicts as the cost; a
tabu search with the min-conflicts heuristic as the local search; perturbation and acceptance
as in any ILS), recalled, not checked against the paper.  Every detail marked *ours* below is
a choice of this module, and its defaults come from the sweep in ``benchmarks/README.md``
(section "ILS", ``benchmarks/ils_compare.py --sweep``: iterations to solve under a cap).

* **Constraint programming** (once, before the search): the propagation of the other native
  solvers (``sudoku_cp.native.propagation``: naked and hidden singles to a fixed point, the rules
  of Lloyd & Amos' §3.1).  A contradiction proves there is no solution.  Every cell it fixes is
  fixed for the search, and every open cell keeps its *domain* (remaining candidates).
* **State**: every box holds exactly the digits its fixed cells leave out, one per open cell, so
  box constraints always hold; every solution of the puzzle is such a state.
* **Initial state and box re-fill** (*ours*: how a box is filled): a random matching of the box's
  open cells to its missing digits inside the domains (the box's AllDifferent with the CP
  domains; augmenting paths from cells and digits taken in random order).  A box whose domains
  admit no such matching proves the puzzle has no solution.  ``domain_fill=0`` fills boxes with
  a random permutation instead (no better in the sweep, and it loses that proof).
* **Cost** (minimised): the number of digits missing from each row plus from each column; 0
  exactly at a solution.  Kept incrementally from row and column digit counts.
* **Local search** (the selection rule, the tabu attribute and the tenure are *ours*): each
  iteration picks a cell uniformly among the open cells in conflict (its digit occurs twice in
  its row or column), scores the swap of its digit with every other open cell of its box and
  makes the best allowed swap, even when it worsens the cost, ties broken uniformly at random.
  A swap of two cells may not be made again for ``tenure`` iterations (default 1: a swap is
  never undone at once), unless it reaches a cost below the best of the current local search
  (aspiration); the tabu list is empty when a local search starts.  Longer tenures were slower
  (tenure 3: 5 of 60 hard 9x9 runs unsolved at the cap, tenure 10: 27 of 60 and no 25x25
  instance), as was a (cell, digit) tabu attribute in our tuning: the random choice of the
  conflicting cell already keeps the search from cycling.  Swaps may move digits out of their
  domains (``domain_swaps=0``, default): restricted to the domains, the swap neighbourhood falls
  apart into pieces no swap connects, and the search was 1.7 times slower on hard 9x9 puzzles
  and left 2 of 24 random 16x16 runs unsolved at the cap.
* **Stagnation and local optimum** (*ours*): a local search ends after ``stall_limit`` (1000)
  iterations without a cost below its best; its local optimum is the best state it visited.
  Limits from 100 to 3000 did equally well within the noise of 10 to 30 runs per 25x25 set.
* **Acceptance** (*ours*, the usual ILS "better or equal"): the local optimum replaces the
  incumbent when its cost is not higher; the next local search starts from a perturbation of
  the incumbent.
* **Perturbation** (*ours*, strength and kind): ``Perturbation.REFILL`` (default) re-fills
  ``strength`` (1) random boxes of at least two open cells by a fresh random matching inside the
  domains: the CP-based part of the loop.  ``Perturbation.SWAP`` makes ``strength`` random swaps
  inside random boxes instead (5 swaps left 3 of 60 hard 9x9 runs unsolved at the cap).
* **Restart** (*ours*): after ``restart_after`` local searches in a row that did not lower the
  incumbent's cost, the search starts over from a fresh initial state (default 0: never;
  restarting after 20 changed nothing measurable).

Randomness comes from ``sudoku_cp.native.prng``, whose state is part of the search state, and
the search runs in resumable chunks (the Python driver checks the clock between chunks): the
same seed gives the same result, iterations and perturbations whatever the chunking.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import numba
import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, watch_compilation
from . import NativeInputError
from .arrays import copy_into
from .chunks import BUDGET, ChunkBudget
from .hillclimb import HillModel, objective
from .hillclimb import build_model as box_layout
from .prng import seed_state, uniform_below
from .propagation import masks_to_values, propagate_grid

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "IlsModel",
    "IlsParameters",
    "IlsResult",
    "Perturbation",
    "build_model",
    "cost",
    "ils_solve",
    "ils_states",
    "initial_state",
]

_ONE = np.uint64(1)
# Indices into the int64 state vector of the kernel.
(
    _ITERATIONS,
    _PERTURBATIONS,
    _RESTARTS,
    _COST,
    _PHASE_BEST,
    _INCUMBENT,
    _STALL,
    _FRESH,
    _NO_GAIN,
    _LOWEST,
    _INIT_COST,
    _PHASE_START,
    _STATE_SIZE,
) = range(13)
# Values of state[_FRESH]: fill every box anew, start a local search, or go on.
_GOING, _NEW_FILL, _NEW_PHASE = 0, 1, 2
# Indices into the int64 settings vector of the kernel.
_TENURE, _STALL_LIMIT, _REFILL, _STRENGTH, _RESTART_AFTER, _FILL_DOMAINS, _SWAP_DOMAINS, _MAX_ITERATIONS = (
    range(8)
)
# Final statuses of the kernel (it also returns chunks.BUDGET).
_SOLVED, _GAVE_UP, _NO_FILL = 0, 1, 2
_MIN_BUDGET, _MAX_BUDGET = 1, 50_000_000
_CHUNK_SECONDS = 0.02
_DRAWS = 4  # random draws of a conflicting cell before a scan of all open cells


class Perturbation(Enum):
    """How a perturbation changes the incumbent: re-fill random boxes, or random swaps."""

    REFILL = "refill"
    SWAP = "swap"


@dataclass(frozen=True, slots=True)
class IlsParameters:
    """Settings of the iterated local search (all *ours*: the paper's values were not available;
    the defaults are the best of a sweep, ``benchmarks/README.md`` section "ILS").

    ``tenure``: for how many iterations a swap of two cells may not be made again (0: no tabu
    list); ``stall_limit``: iterations without a new best cost that end a local search;
    ``perturbation`` and ``strength``: what a perturbation does (re-fill that many boxes, or make
    that many random swaps); ``restart_after``: local searches in a row without a lower incumbent
    cost before a fresh start (0 = never); ``domain_fill``: fill boxes inside the propagated
    domains (initial state and re-fills); ``domain_swaps``: allow only swaps that keep both
    digits inside their domains; ``max_iterations``: give up (result *unknown*) after that many
    iterations (None: no cap, only a time limit ends a puzzle without solution; the ``ils``
    backend caps iterations when it is given no time limit).
    """

    tenure: int = 1
    stall_limit: int = 1000
    perturbation: Perturbation = Perturbation.REFILL
    strength: int = 1
    restart_after: int = 0
    domain_fill: bool = True
    domain_swaps: bool = False
    max_iterations: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.perturbation, Perturbation):
            object.__setattr__(self, "perturbation", Perturbation(self.perturbation))
        for name, low in (("tenure", 0), ("stall_limit", 1), ("strength", 1), ("restart_after", 0)):
            value = getattr(self, name)
            if value < low:
                raise NativeInputError(f"{name} must be at least {low}, not {value}")
        if self.max_iterations is not None and self.max_iterations < 0:
            raise NativeInputError(f"max_iterations must be 0 or more, not {self.max_iterations}")

    def vector(self) -> np.ndarray:
        """The settings as the kernel reads them (int64; no iteration cap is -1)."""
        values = [0] * 8
        values[_TENURE] = self.tenure
        values[_STALL_LIMIT] = self.stall_limit
        values[_REFILL] = self.perturbation is Perturbation.REFILL
        values[_STRENGTH] = self.strength
        values[_RESTART_AFTER] = self.restart_after
        values[_FILL_DOMAINS] = self.domain_fill
        values[_SWAP_DOMAINS] = self.domain_swaps
        values[_MAX_ITERATIONS] = -1 if self.max_iterations is None else self.max_iterations
        return np.array(values, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class IlsModel:
    """The search space of one propagated puzzle.

    ``fixed``: flat 0-based digits of the cells propagation fixed, -1 for open cells;
    ``domains``: uint64 candidate masks (bit d for digit d) of every cell after propagation;
    ``layout``: the hill climber's box-permutation model of the fixed cells (each box's open
    cells and missing digits, row and column lookups); ``movable``: the boxes with at least two
    open cells; ``cell_box``: box of every cell; ``cell_slot``: the index of an open cell among
    its box's open cells (-1 for fixed cells).
    """

    geometry: Geometry
    fixed: np.ndarray
    domains: np.ndarray
    layout: HillModel
    movable: np.ndarray
    cell_box: np.ndarray
    cell_slot: np.ndarray

    @property
    def open_cells(self) -> int:
        """How many cells the search fills (those propagation left open)."""
        return len(self.layout.box_cells)


@dataclass(frozen=True, slots=True)
class IlsResult:
    """Outcome of one search.

    ``solution``: the (n, n) int16 grid when solved (not yet checked: callers check it), else
    None; ``contradiction``: no solution is proven (propagation emptied a cell, or a box has no
    fill inside the domains); ``timed_out``: the time limit stopped it; ``iterations``: local
    search moves tried; ``perturbations``: local searches ended; ``restarts``: fresh starts;
    ``initial_cost``/``lowest_cost``: cost of the first state and lowest cost reached;
    ``open_cells``: cells propagation left to the search (0: propagation alone solved it, so the
    solution is the only one); ``seconds``: wall time.
    """

    solution: np.ndarray | None
    contradiction: bool
    timed_out: bool
    iterations: int
    perturbations: int
    restarts: int
    initial_cost: int
    lowest_cost: int
    open_cells: int
    seconds: float

    @property
    def solved(self) -> bool:
        """True when the search completed the grid."""
        return self.solution is not None


def build_model(puzzle: Grid) -> IlsModel | None:
    """The ILS model of a puzzle after propagation, or None when propagation proves no solution.

    The givens must not clash (callers check).  Grids up to 64 x 64 (the propagation's bitsets).
    """
    start = propagate_grid(puzzle)
    return None if start.contradiction else _model_of(puzzle.geometry, start.masks)


def _fixed_digits(masks: np.ndarray, n: int) -> np.ndarray:
    """Flat 0-based digits of the cells with one candidate, -1 elsewhere."""
    single = (masks & (masks - _ONE)) == 0
    return np.where(single, masks_to_values(masks, n).reshape(-1).astype(np.int64) - 1, -1)


def _model_of(geometry: Geometry, masks: np.ndarray) -> IlsModel:
    """The model of a puzzle whose propagated candidates are ``masks`` (no empty cell)."""
    n = geometry.n
    fixed = _fixed_digits(masks, n)
    layout = box_layout(geometry, (fixed + 1).reshape(n, n))
    box = np.asarray(geometry.box_of_cell, dtype=np.int64)
    ptr = layout.box_ptr
    slot = np.full(n * n, -1, dtype=np.int64)
    slot[layout.box_cells] = np.arange(layout.box_cells.size) - ptr[box[layout.box_cells]]
    return IlsModel(
        geometry,
        fixed,
        np.array(masks, dtype=np.uint64),  # a writable copy: numba compiles read-only arrays apart
        layout,
        np.flatnonzero(np.diff(ptr) >= 2).astype(np.int64),
        box,
        slot,
    )


def cost(model: IlsModel, state: np.ndarray) -> int:
    """Digits missing from each row plus from each column of a full state, recomputed with numpy."""
    n = model.geometry.n
    distinct, _ = objective(model.layout, state)
    return 2 * n * n - distinct


# ------------------------------------------------------------------------------------------ kernel


class _Tables(NamedTuple):
    """The model's arrays, one kernel argument (see ``IlsModel``)."""

    fixed: np.ndarray
    domains: np.ndarray
    box_cells: np.ndarray
    box_digits: np.ndarray
    box_ptr: np.ndarray
    movable: np.ndarray
    cell_box: np.ndarray
    cell_row: np.ndarray
    cell_col: np.ndarray
    cell_slot: np.ndarray


class _Work(NamedTuple):
    """The whole mutable search state, one kernel argument: grids, digit counts, tabu list, rng.

    ``grid``: the current state; ``best``: the best state of the current local search;
    ``incumbent``: the accepted local optimum; ``tabu[a, j]``: the last iteration cell a swapped
    with the j-th open cell of its box; ``conflicts``: scratch; ``state``: the counters above.
    """

    grid: np.ndarray
    best: np.ndarray
    incumbent: np.ndarray
    row_count: np.ndarray
    col_count: np.ndarray
    tabu: np.ndarray
    conflicts: np.ndarray
    rng: np.ndarray
    state: np.ndarray


@numba.njit(cache=True, inline="always")
def _fits(domains: np.ndarray, cell: int, digit: int) -> bool:  # pragma: no cover - compiled
    """True when ``digit`` is in the propagated domain of ``cell``."""
    return (domains[cell] >> np.uint64(digit)) & _ONE != 0


@numba.njit(cache=True)
def _fill_box(b: int, t: _Tables, in_domains: bool, rng: np.ndarray, grid: np.ndarray) -> bool:
    # pragma: no cover - compiled
    """Fill box ``b``'s open cells with its missing digits, a random matching inside the domains.

    Cells are matched one by one, in random order, by a breadth-first search for an augmenting
    path that tries digits in one random order.  Without ``in_domains`` every digit fits every
    cell.  Returns False (``grid`` unchanged) when the domains admit no complete fill.
    """
    lo = t.box_ptr[b]
    cells = t.box_cells[lo : t.box_ptr[b + 1]]
    digits = t.box_digits[lo : t.box_ptr[b + 1]]
    domains = t.domains
    k = len(cells)
    cell_order = np.arange(k)
    digit_order = np.arange(k)
    for i in range(k - 1, 0, -1):
        j = uniform_below(rng, i + 1)
        cell_order[i], cell_order[j] = cell_order[j], cell_order[i]
        j = uniform_below(rng, i + 1)
        digit_order[i], digit_order[j] = digit_order[j], digit_order[i]
    owner = np.full(k, -1, np.int64)  # local digit -> local cell holding it
    holds = np.full(k, -1, np.int64)  # local cell -> local digit
    parent = np.empty(k, np.int64)  # local digit -> cell it was reached from
    queue = np.empty(k, np.int64)
    for start in cell_order:
        parent[:] = -2
        head, tail, end = 0, 1, -1
        queue[0] = start
        while head < tail and end < 0:
            cell = queue[head]
            head += 1
            for d in digit_order:
                if parent[d] != -2 or (in_domains and not _fits(domains, cells[cell], digits[d])):
                    continue
                parent[d] = cell
                if owner[d] < 0:
                    end = int(d)
                    break
                queue[tail] = owner[d]
                tail += 1
        if end < 0:
            return False
        flip = end
        while flip >= 0:  # flip the path: each cell on it takes the digit it reached
            cell = parent[flip]
            previous = int(holds[cell])
            holds[cell] = flip
            owner[flip] = cell
            flip = previous
    for cell in range(k):
        grid[cells[cell]] = digits[holds[cell]]
    return True


@numba.njit(cache=True, inline="always")
def _move(
    row_count: np.ndarray, col_count: np.ndarray, row: int, col: int, digit: int, step: int
) -> None:  # pragma: no cover - compiled
    """Add ``step`` (+1 or -1) to the counts of ``digit`` in a row and a column."""
    row_count[row, digit] += step
    col_count[col, digit] += step


@numba.njit(cache=True)
def _recount(t: _Tables, w: _Work) -> int:  # pragma: no cover - compiled
    """Count the digits of every row and column of ``w.grid`` afresh; return its cost."""
    row_count = w.row_count
    col_count = w.col_count
    cell_row = t.cell_row
    cell_col = t.cell_col
    row_count[:, :] = 0
    col_count[:, :] = 0
    for cell, digit in enumerate(w.grid):
        _move(row_count, col_count, cell_row[cell], cell_col[cell], digit, 1)
    return int(np.sum(row_count == 0) + np.sum(col_count == 0))


@numba.njit(cache=True, inline="always")
def _line_delta(counts: np.ndarray, one: int, other: int, x: int, y: int) -> int:  # pragma: no cover
    """Change of the digits missing from two lines when line ``one`` trades x for y and ``other`` y for x."""
    if one == other:
        return 0
    lost = (counts[one, x] == 1) + (counts[other, y] == 1)
    gained = (counts[one, y] == 0) + (counts[other, x] == 0)
    return lost - gained


@numba.njit(cache=True, inline="always")
def _swap(
    grid: np.ndarray,
    row_count: np.ndarray,
    col_count: np.ndarray,
    cell_row: np.ndarray,
    cell_col: np.ndarray,
    a: int,
    b: int,
) -> None:  # pragma: no cover - compiled
    """Swap the digits of cells a and b, counts included."""
    x = grid[a]
    y = grid[b]
    _move(row_count, col_count, cell_row[a], cell_col[a], x, -1)
    _move(row_count, col_count, cell_row[b], cell_col[b], y, -1)
    _move(row_count, col_count, cell_row[a], cell_col[a], y, 1)
    _move(row_count, col_count, cell_row[b], cell_col[b], x, 1)
    grid[a] = y
    grid[b] = x


@numba.njit(cache=True)
def _perturb(t: _Tables, w: _Work, knobs: np.ndarray) -> None:  # pragma: no cover - compiled
    """Re-fill ``strength`` random movable boxes, or make ``strength`` random swaps (counts kept)."""
    movable, box_ptr, box_cells, domains = t.movable, t.box_ptr, t.box_cells, t.domains
    grid, row_count, col_count, rng = w.grid, w.row_count, w.col_count, w.rng
    boxes = len(movable)
    strength = knobs[_STRENGTH]
    if knobs[_REFILL] and boxes:
        chosen = movable.copy()
        for r in range(min(strength, boxes)):
            j = r + uniform_below(rng, boxes - r)  # a partial shuffle: distinct boxes
            chosen[r], chosen[j] = chosen[j], chosen[r]
            cells = box_cells[box_ptr[chosen[r]] : box_ptr[chosen[r] + 1]]
            for cell in cells:
                _move(row_count, col_count, t.cell_row[cell], t.cell_col[cell], grid[cell], -1)
            # The box's current fill proves a fill exists, so this always succeeds.
            _fill_box(chosen[r], t, knobs[_FILL_DOMAINS] != 0, rng, grid)
            for cell in cells:
                _move(row_count, col_count, t.cell_row[cell], t.cell_col[cell], grid[cell], 1)
        return
    for _ in range(strength if boxes else 0):
        for _draw in range(8):  # a few draws for a swap inside the domains; none is no swap
            b = movable[uniform_below(rng, boxes)]
            size = box_ptr[b + 1] - box_ptr[b]
            i = uniform_below(rng, size)
            j = uniform_below(rng, size - 1)
            j += 1 if j >= i else 0  # another cell of the box
            a = box_cells[box_ptr[b] + i]
            c = box_cells[box_ptr[b] + j]
            if knobs[_SWAP_DOMAINS] and not (_fits(domains, a, grid[c]) and _fits(domains, c, grid[a])):
                continue
            _swap(grid, row_count, col_count, t.cell_row, t.cell_col, a, c)
            break


@numba.njit(cache=True)
def _end_phase(t: _Tables, w: _Work, knobs: np.ndarray) -> None:  # pragma: no cover - compiled
    """After a stagnated local search: accept its optimum or not, then perturb or restart."""
    s = w.state
    s[_PERTURBATIONS] += 1
    s[_NO_GAIN] = 0 if s[_PHASE_BEST] < s[_INCUMBENT] else s[_NO_GAIN] + 1
    if s[_PHASE_BEST] <= s[_INCUMBENT]:  # better or equal: accepted
        s[_INCUMBENT] = s[_PHASE_BEST]
        copy_into(w.incumbent, w.best)
    if 0 < knobs[_RESTART_AFTER] <= s[_NO_GAIN]:
        s[_RESTARTS] += 1
        s[_FRESH] = _NEW_FILL
        return
    copy_into(w.grid, w.incumbent)
    _recount(t, w)
    _perturb(t, w, knobs)
    s[_COST] = int(np.sum(w.row_count == 0) + np.sum(w.col_count == 0))
    s[_FRESH] = _NEW_PHASE


@numba.njit(cache=True)
def _begin(t: _Tables, w: _Work, knobs: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Fill every box anew if asked (first state, restart), then start a local search if asked.

    Returns False when some box has no fill inside the domains.
    """
    s = w.state
    if s[_FRESH] == _NEW_FILL:
        copy_into(w.grid, t.fixed)
        for b in range(len(t.box_ptr) - 1):
            if not _fill_box(b, t, knobs[_FILL_DOMAINS] != 0, w.rng, w.grid):
                return False
        s[_COST] = _recount(t, w)
        s[_INCUMBENT] = s[_COST]
        copy_into(w.incumbent, w.grid)
        s[_NO_GAIN] = 0
        if s[_ITERATIONS] == 0 and s[_RESTARTS] == 0:
            s[_INIT_COST] = s[_COST]
            s[_LOWEST] = s[_COST]
        s[_FRESH] = _NEW_PHASE
    if s[_FRESH] == _NEW_PHASE:
        # A local search starts from ``grid``: its best so far is where it starts.
        s[_PHASE_BEST] = s[_COST]
        copy_into(w.best, w.grid)
        s[_STALL] = 0
        s[_PHASE_START] = s[_ITERATIONS]
        s[_LOWEST] = min(s[_LOWEST], s[_COST])
        s[_FRESH] = _GOING
    return True


@numba.njit(cache=True)
def _search(t: _Tables, w: _Work, knobs: np.ndarray, budget: int) -> int:  # pragma: no cover - compiled
    """Run up to ``budget`` steps from ``w``; return _SOLVED, BUDGET, _GAVE_UP or _NO_FILL.

    A step is one min-conflicts tabu iteration, or one perturbation or restart (so the driver
    regains control even when every local search is short).  The iteration is written out here,
    on local arrays: a call per iteration that passes the tuples would cost reference counting
    of every array in them.
    """
    s = w.state
    grid, best_grid, row_count, col_count, tabu, conflicts, rng = (
        w.grid,
        w.best,
        w.row_count,
        w.col_count,
        w.tabu,
        w.conflicts,
        w.rng,
    )
    box_cells, box_ptr, cell_box, cell_row, cell_col, cell_slot = (
        t.box_cells,
        t.box_ptr,
        t.cell_box,
        t.cell_row,
        t.cell_col,
        t.cell_slot,
    )
    open_cells = len(box_cells)
    tenure = knobs[_TENURE]
    in_domains = knobs[_SWAP_DOMAINS] != 0
    for step in range(budget + 1):
        if s[_FRESH] != _GOING and not _begin(t, w, knobs):
            return _NO_FILL
        if s[_COST] == 0:
            return _SOLVED
        if 0 <= knobs[_MAX_ITERATIONS] <= s[_ITERATIONS]:
            return _GAVE_UP
        if step == budget:
            break
        if s[_STALL] >= knobs[_STALL_LIMIT]:
            _end_phase(t, w, knobs)
            continue
        # A cell drawn uniformly among the open cells in conflict (one exists while the cost is
        # positive): a few draws of any open cell first, kept if in conflict, then a choice among
        # all of them; either way each conflicting cell is equally likely, and the draws save the
        # scan while conflicts are many.
        a = -1
        for _draw in range(_DRAWS):
            cell = box_cells[uniform_below(rng, open_cells)]
            if row_count[cell_row[cell], grid[cell]] > 1 or col_count[cell_col[cell], grid[cell]] > 1:
                a = cell
                break
        if a < 0:
            m = 0
            for cell in box_cells:
                if row_count[cell_row[cell], grid[cell]] > 1 or col_count[cell_col[cell], grid[cell]] > 1:
                    conflicts[m] = cell
                    m += 1
            a = conflicts[uniform_below(rng, m)]
        # Its best allowed swap in its box.  Swaps made in this local search within the last
        # ``tenure`` iterations are tabu (tabu[a, j]: the last iteration a swapped with the j-th
        # open cell of its box; entries older than the local search's start do not count).
        x = grid[a]
        b = cell_box[a]
        now = s[_ITERATIONS]
        since = max(s[_PHASE_START], now - tenure)
        chosen, chosen_delta, ties = -1, 1 << 30, 0
        for i in range(box_ptr[b], box_ptr[b + 1]):
            c = box_cells[i]
            y = grid[c]
            if c == a or (in_domains and not (_fits(t.domains, a, y) and _fits(t.domains, c, x))):
                continue
            delta = _line_delta(row_count, cell_row[a], cell_row[c], x, y) + _line_delta(
                col_count, cell_col[a], cell_col[c], x, y
            )
            if tabu[a, i - box_ptr[b]] >= since and s[_COST] + delta >= s[_PHASE_BEST]:
                continue  # tabu, and no aspiration
            if delta < chosen_delta:
                chosen, chosen_delta, ties = c, delta, 1
            elif delta == chosen_delta:
                ties += 1
                if uniform_below(rng, ties) == 0:
                    chosen = c
        s[_ITERATIONS] += 1
        s[_STALL] += 1
        if chosen < 0:
            continue
        tabu[a, cell_slot[chosen]] = now
        tabu[chosen, cell_slot[a]] = now
        _swap(grid, row_count, col_count, cell_row, cell_col, a, chosen)
        s[_COST] += chosen_delta
        if s[_COST] < s[_PHASE_BEST]:
            s[_PHASE_BEST] = s[_COST]
            copy_into(best_grid, grid)
            s[_STALL] = 0
            s[_LOWEST] = min(s[_LOWEST], s[_COST])
    return BUDGET


# ------------------------------------------------------------------------------------------ driver


class _Searcher:
    """The resumable search of one puzzle: its tables, its work arrays and a ``run(budget)`` step."""

    def __init__(self, model: IlsModel, params: IlsParameters, seed: int) -> None:
        cells = model.fixed.size
        n = model.geometry.n
        layout = model.layout
        self.tables = _Tables(
            model.fixed,
            model.domains,
            layout.box_cells,
            layout.box_digits,
            layout.box_ptr,
            model.movable,
            model.cell_box,
            layout.cell_row,
            layout.cell_col,
            model.cell_slot,
        )
        state = np.zeros(_STATE_SIZE, dtype=np.int64)
        state[_FRESH] = _NEW_FILL
        grids = np.empty((3, cells), dtype=np.int64)
        counts = np.zeros((2, n, n), dtype=np.int64)
        self.work = _Work(
            grids[0],
            grids[1],
            grids[2],
            counts[0],
            counts[1],
            np.full((cells, n), -1, dtype=np.int64),
            np.empty(cells, dtype=np.int64),
            seed_state(seed),
            state,
        )
        self.knobs = params.vector()
        self.status = BUDGET

    def run(self, budget: int) -> int:
        """Resume the search for at most ``budget`` steps; its status."""
        self.status = _search(self.tables, self.work, self.knobs, budget)
        return self.status

    def count(self, slot: int) -> int:
        """One counter of the search state."""
        return int(self.work.state[slot])


def ils_solve(
    puzzle: Grid, params: IlsParameters | None = None, *, seed: int = 0, time_limit: float | None = None
) -> IlsResult:
    """Search until a solution, the time limit (wall-clock seconds) or the iteration cap.

    The givens must not clash (callers check).  The returned solution has not been checked here;
    callers pass it through the checker.
    """
    params = params or IlsParameters()
    deadline = Deadline(time_limit)
    start = propagate_grid(puzzle)
    if start.contradiction:
        return IlsResult(None, True, False, 0, 0, 0, 0, 0, 0, deadline.elapsed())
    n = puzzle.n
    fixed = _fixed_digits(start.masks, n)
    if fixed.min() >= 0:  # propagation alone solved it: no model to build
        grid = (fixed.reshape(n, n) + 1).astype(np.int16)
        return IlsResult(grid, False, False, 0, 0, 0, 0, 0, 0, deadline.elapsed())
    model = _model_of(puzzle.geometry, start.masks)
    searcher = _Searcher(model, params, seed)
    status, timed_out = ChunkBudget(deadline, 64, _MIN_BUDGET, _MAX_BUDGET, _CHUNK_SECONDS).run(searcher.run)
    found = (searcher.work.grid.reshape(n, n) + 1).astype(np.int16) if status == _SOLVED else None
    return IlsResult(
        found,
        status == _NO_FILL,
        timed_out,
        searcher.count(_ITERATIONS),
        searcher.count(_PERTURBATIONS),
        searcher.count(_RESTARTS),
        searcher.count(_INIT_COST),
        searcher.count(_LOWEST),
        model.open_cells,
        deadline.elapsed(),
    )


def initial_state(model: IlsModel, params: IlsParameters | None = None, seed: int = 0) -> np.ndarray | None:
    """The first state a search with this seed starts from (flat 0-based digits); None: no fill."""
    searcher = _Searcher(model, params or IlsParameters(), seed)
    return searcher.work.grid.copy() if searcher.run(0) != _NO_FILL else None


def ils_states(
    model: IlsModel, params: IlsParameters | None = None, seed: int = 0, steps: int = 100
) -> tuple[np.ndarray, np.ndarray]:
    """The states and kernel costs after each of the first ``steps`` steps, one step per call.

    Row 0 is the first state; every further row follows one step (a local search move, a
    perturbation or a restart).  The walk ends early when it solves the puzzle or gives up.
    For tests: the invariants hold at every step and the same seed retraces a chunked search.
    """
    searcher = _Searcher(model, params or IlsParameters(), seed)
    trace: list[tuple[np.ndarray, int]] = []
    budget = 0
    while len(trace) <= steps:
        status = searcher.run(budget)
        trace.append((searcher.work.grid.copy(), searcher.count(_COST)))
        if status != BUDGET:
            break
        budget = 1
    return np.stack([grid for grid, _ in trace]), np.array([c for _, c in trace], dtype=np.int64)
