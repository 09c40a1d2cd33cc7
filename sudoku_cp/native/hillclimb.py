"""Steepest-ascent hill climbing with greedy initialisation and random restarts, compiled with numba.

Reference: S. K. Jones, P. A. Roach, S. Perkins, "Construction of heuristics for a search-based
approach to solving Sudoku", Research and Development in Intelligent Systems XXIV (2007),
doi:10.1007/978-1-84800-094-0_4 (sections 3 to 4.5; ``../shared/papers/NOTES.md`` section 4).

* **State**: every box holds exactly the digits its givens leave out, one per empty cell, so box
  constraints always hold.  Every solution of the puzzle is such a state.
* **Move**: swap the digits of two non-given cells of one box; the neighbourhood is every such
  pair, sum over boxes of n_b (n_b - 1) / 2 moves.
* **Objective** (maximised): ``f = w1 * f1 + w2 * f2`` with w1 = 1, w2 = -1.  ``f1`` is the number of
  distinct digits in each row plus in each column (2 n^2 exactly at a solution); ``f2`` counts
  clashes between a given and a non-given cell holding the same digit in one row or column.
* **Initial state** (section 4.4): boxes in turn, each empty cell in reading order takes the first
  of the box's missing digits (in a random order, see ``HillParameters.shuffle_digits``) that
  clashes with no given of its row or column, or the first one left when every remaining digit
  clashes; then *post-swapping*: every non-given digit that clashes with a given is swapped with
  another non-given cell of its box, tried in random order, where neither digit clashes with a
  given after the swap (or stays when there is none).
* **Search** (sections 4.1, 4.5): each iteration evaluates every move by its score delta (kept
  incrementally from row and column digit counts, never recomputed) and makes the best one, ties
  broken uniformly at random.  The paper keeps a priority queue of visited states only to detect
  plateaus: a plateau is declared when its ``plateau_size`` (10) best states share one score and
  none has a better successor, and the climb then restarts from a fresh initial state.  A visited
  state with a better successor is always followed by that better successor, so the best-scoring
  states of the queue are exactly the visited states at the climb's best score whose whole
  neighbourhood has been scored without finding a better one; the rule therefore reduces to
  "``plateau_size`` such visits" (one queue entry per iteration, revisits included).  The paper's
  algorithm stops when no successor is better; to let the queue rule decide, the climber instead
  moves to the best successor even when it is level or worse, which walks plateaus.  One addition, needed to
  guarantee termination, not in the paper: a climb also restarts after ``stall_limit`` iterations
  without a new best score (a walk cycling below its best would otherwise never end).

Randomness comes from ``sudoku_cp.native.prng``, whose state is part of the search state, so a seed
fixes every decision, and the search runs in resumable chunks (the Python driver checks the clock
between chunks): the same seed gives the same result, iterations and restarts whatever the chunking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, watch_compilation
from . import NativeInputError
from .chunks import BUDGET, ChunkBudget
from .prng import seed_state, uniform_below

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "HillModel",
    "HillParameters",
    "HillResult",
    "MAX_MOVES",
    "build_model",
    "climb_states",
    "hill_climb",
    "initial_state",
    "objective",
    "swap_deltas",
]

# Indices into the int64 state vector of the kernel.
(
    _ITERATIONS,
    _RESTARTS,
    _F1,
    _F2,
    _BEST,
    _BEST_VISITS,
    _STALL,
    _FRESH,
    _INIT_F1,
    _INIT_F2,
    _STATE_SIZE,
) = range(11)
# Final statuses of the kernel (it also returns chunks.BUDGET).
_SOLVED, _GAVE_UP = 0, 1

_MIN_BUDGET, _MAX_BUDGET = 1, 10_000_000
_CHUNK_SECONDS = 0.02
_FIRST_CHUNK_MOVES = 1_000_000  # moves scored in a first chunk at most (about 10 ms)
MAX_MOVES = 20_000_000  # ~0.3 s per iteration; an empty 400x400 grid would have 32 million moves


@dataclass(frozen=True, slots=True)
class HillParameters:
    """Settings of the hill climber: the paper's values, plus what it leaves open (marked *ours*).

    ``w1``, ``w2``: weights of f1 (distinct digits per row and column) and f2 (given clashes);
    ``plateau_size``: visits of states at the climb's best score with no better successor that
    declare a plateau (paper: 10; 1 restarts at the first local maximum);
    ``stall_limit`` (ours): iterations without a new best score before a restart (0 = never);
    ``post_swap``: run the post-swapping repair after the greedy placement (paper: yes);
    ``shuffle_digits`` (ours): the greedy placement tries each box's missing digits in a fresh
    random order at every (re)start; False tries them in ascending order.  The paper does not say
    which order "the next available number" follows; in ascending order the greedy placement is
    the same at every restart and only post-swapping varies: it solved 80 % of 50 SE 7 puzzles
    in 10 s, against 100 % with shuffling (``benchmarks/hill_paper.py`` measures both);
    ``max_restarts`` / ``max_iterations`` (ours): give up (result *unknown*) after that many
    (None = no cap, as in the paper: then only a time limit ends a puzzle with no solution; the
    ``hill`` backend caps restarts when it is given no time limit).
    """

    w1: int = 1
    w2: int = -1
    plateau_size: int = 10
    stall_limit: int = 1000
    post_swap: bool = True
    shuffle_digits: bool = True
    max_restarts: int | None = None
    max_iterations: int | None = None

    def __post_init__(self) -> None:
        if self.plateau_size < 1:
            raise NativeInputError(f"plateau_size must be at least 1, not {self.plateau_size}")
        if self.stall_limit < 0:
            raise NativeInputError(f"stall_limit must be 0 or more, not {self.stall_limit}")
        for name in ("max_restarts", "max_iterations"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise NativeInputError(f"{name} must be 0 or more, not {value}")
        if self.w1 == 0 and self.w2 == 0:
            raise NativeInputError("w1 and w2 cannot both be 0")


@dataclass(frozen=True, slots=True)
class HillModel:
    """The search space of one puzzle: fixed cells, each box's empty cells and the swap moves.

    ``values``: flat 0-based digits, -1 for empty cells; ``box_cells`` with ``box_ptr``: the empty
    cells of box b are ``box_cells[box_ptr[b]:box_ptr[b + 1]]`` in reading order; ``box_digits``
    (same pointers): the digits box b misses, ascending; ``swap_a``/``swap_b``: the moves;
    ``clash[cell, d]``: how many givens equal to d share a row or column with ``cell`` (0 to 2);
    ``cell_row``/``cell_col``: row and column of every cell (lookups instead of divisions).
    """

    geometry: Geometry
    values: np.ndarray
    box_cells: np.ndarray
    box_digits: np.ndarray
    box_ptr: np.ndarray
    swap_a: np.ndarray
    swap_b: np.ndarray
    clash: np.ndarray
    cell_row: np.ndarray
    cell_col: np.ndarray

    @property
    def moves(self) -> int:
        """Size of the neighbourhood: swaps of two empty cells in one box."""
        return len(self.swap_a)


@dataclass(frozen=True, slots=True)
class HillResult:
    """Outcome of a climb: the solution grid (1-based digits) or None, and the search effort.

    ``timed_out``: the time limit stopped it; otherwise an unsolved result hit a restart or
    iteration cap.  ``initial_f1``/``initial_clashes``: f1 and f2 of the first initial state.
    """

    solution: np.ndarray | None
    iterations: int
    restarts: int
    timed_out: bool
    seconds: float
    initial_f1: int
    initial_clashes: int


def build_model(geometry: Geometry, values: np.ndarray, deadline: Deadline | None = None) -> HillModel:
    """The hill-climbing model of a puzzle (``values``: n x n, 0 = empty, givens 1..n, no clashes).

    ``deadline``: looked at between the steps (TimeLimitReached), each a fraction of a second on
    400x400, where the model takes about 0.1 GB (the n^3 clash table, one byte an entry).
    """
    phase = "building the hill-climbing model"
    n = geometry.n
    flat = np.asarray(values, dtype=np.int64).reshape(-1) - 1
    box = geometry.box_of_cell
    empty = flat < 0
    order = np.argsort(box[empty], kind="stable")
    box_cells = np.flatnonzero(empty)[order].astype(np.int64)
    counts = np.bincount(box[empty], minlength=n)
    box_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    present = np.zeros((n, n), dtype=bool)
    present[box[~empty], flat[~empty]] = True
    box_digits = np.nonzero(~present)[1].astype(np.int64)  # row-major: box by box, ascending
    if len(box_digits) != len(box_cells):
        raise NativeInputError("a box repeats a given digit")
    if deadline is not None:
        deadline.check(phase)
    moves = int((counts * (counts - 1) // 2).sum())
    if moves > MAX_MOVES:
        raise NativeInputError(
            f"{moves:,} swap moves per iteration: too many for hill climbing (max {MAX_MOVES:,})"
        )
    pairs = [
        np.array(np.triu_indices(int(k), 1), dtype=np.int64) + start
        for start, k in zip(box_ptr[:-1], counts, strict=True)
    ]
    joined = np.concatenate(pairs, axis=1) if pairs else np.zeros((2, 0), np.int64)
    if deadline is not None:
        deadline.check(phase)
    rows, cols = np.divmod(np.arange(n * n, dtype=np.int64), n)
    given_row = np.zeros((n, n), dtype=np.int8)
    given_col = np.zeros((n, n), dtype=np.int8)
    given_row[rows[~empty], flat[~empty]] = 1
    given_col[cols[~empty], flat[~empty]] = 1
    # n^3 entries: built as bytes in place (int64 temporaries took 1.2 GB on 400x400).
    clash = given_row[rows]
    if deadline is not None:
        deadline.check(phase)
    clash += given_col[cols]
    return HillModel(
        geometry,
        flat,
        box_cells,
        box_digits,
        box_ptr,
        box_cells[joined[0]],
        box_cells[joined[1]],
        clash,
        rows,
        cols,
    )


def objective(model: HillModel, state: np.ndarray) -> tuple[int, int]:
    """f1 and f2 of a complete state (flat 0-based digits), recomputed from scratch with numpy."""
    n = model.geometry.n
    grid = np.asarray(state, dtype=np.int64).reshape(n, n)
    f1 = 0
    for lines in (grid, grid.T):
        seen = np.zeros((n, n), dtype=bool)
        seen[np.arange(n)[:, None], lines] = True
        f1 += int(seen.sum())
    givens = np.where(model.values >= 0, model.values, -1).reshape(n, n)
    free = givens < 0
    f2 = 0
    for lines, fixed, open_ in ((grid, givens, free), (grid.T, givens.T, free.T)):
        # Pairs (given, non-given) in one line holding the same digit.
        same = fixed[:, :, None] == lines[:, None, :]
        f2 += int((same & open_[:, None, :]).sum())
    return f1, f2


# ------------------------------------------------------------------------------------------ kernel


@numba.njit(cache=True)
def _initialise(
    n: int,
    fixed: np.ndarray,
    box_cells: np.ndarray,
    box_digits: np.ndarray,
    box_ptr: np.ndarray,
    clash: np.ndarray,
    post_swap: bool,
    shuffle_digits: bool,
    rng: np.ndarray,
    grid: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Greedy placement box by box, then post-swapping; writes the state into ``grid``."""
    for i in range(n * n):
        grid[i] = fixed[i]
    digits = np.empty(n, dtype=np.int64)
    used = np.empty(n, dtype=np.bool_)
    for b in range(n):
        lo = box_ptr[b]
        k = box_ptr[b + 1] - lo
        for i in range(k):
            digits[i] = box_digits[lo + i]
            used[i] = False
        if shuffle_digits:
            for i in range(k - 1, 0, -1):
                j = uniform_below(rng, i + 1)
                digits[i], digits[j] = digits[j], digits[i]
        for i in range(k):
            cell = box_cells[lo + i]
            pick = -1
            for j in range(k):
                if not used[j]:
                    if pick < 0:
                        pick = j  # fallback: the first digit left, clashing or not
                    if clash[cell, digits[j]] == 0:
                        pick = j
                        break
            used[pick] = True
            grid[cell] = digits[pick]
    if not post_swap:
        return
    others = np.empty(n, dtype=np.int64)
    for b in range(n):
        lo = box_ptr[b]
        k = box_ptr[b + 1] - lo
        for i in range(k):
            a = box_cells[lo + i]
            if clash[a, grid[a]] == 0:
                continue
            m = 0
            for j in range(k):
                if j != i:
                    others[m] = box_cells[lo + j]
                    m += 1
            for j in range(m - 1, 0, -1):
                t = uniform_below(rng, j + 1)
                others[j], others[t] = others[t], others[j]
            for j in range(m):
                c = others[j]
                if clash[a, grid[c]] == 0 and clash[c, grid[a]] == 0:
                    grid[a], grid[c] = grid[c], grid[a]
                    break


@numba.njit(cache=True)
def _count(
    n: int,
    grid: np.ndarray,
    cell_row: np.ndarray,
    cell_col: np.ndarray,
    row_count: np.ndarray,
    col_count: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Fill the row/column digit counts of ``grid``; return f1."""
    row_count[:, :] = 0
    col_count[:, :] = 0
    for cell in range(n * n):
        row_count[cell_row[cell], grid[cell]] += 1
        col_count[cell_col[cell], grid[cell]] += 1
    f1 = 0
    for i in range(n):
        for d in range(n):
            f1 += (row_count[i, d] > 0) + (col_count[i, d] > 0)
    return f1


@numba.njit(cache=True)
def _given_clashes(grid: np.ndarray, box_cells: np.ndarray, clash: np.ndarray) -> int:
    # pragma: no cover - compiled
    """f2 of ``grid``: given clashes summed over the non-given cells."""
    f2 = 0
    for i in range(len(box_cells)):
        f2 += clash[box_cells[i], grid[box_cells[i]]]
    return f2


@numba.njit(cache=True)
def _score_moves(
    grid: np.ndarray,
    swap_a: np.ndarray,
    swap_b: np.ndarray,
    cell_row: np.ndarray,
    cell_col: np.ndarray,
    row_count: np.ndarray,
    col_count: np.ndarray,
    clash: np.ndarray,
    out_f1: np.ndarray,
    out_f2: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The change of f1 and of f2 that every move (swap of two cells of one box) would make.

    Both cells hold different digits x and y; only their rows and columns change, and only
    through the counts of x and y there.  One loop over all moves, no calls inside: a call that
    passes arrays costs reference counting per move.
    """
    for k in range(len(swap_a)):
        a = swap_a[k]
        b = swap_b[k]
        x = grid[a]
        y = grid[b]
        d1 = 0
        ra = cell_row[a]
        rb = cell_row[b]
        if ra != rb:
            # Row ra trades x for y and row rb trades y for x.
            d1 += (row_count[ra, y] == 0) - (row_count[ra, x] == 1)
            d1 += (row_count[rb, x] == 0) - (row_count[rb, y] == 1)
        ca = cell_col[a]
        cb = cell_col[b]
        if ca != cb:
            d1 += (col_count[ca, y] == 0) - (col_count[ca, x] == 1)
            d1 += (col_count[cb, x] == 0) - (col_count[cb, y] == 1)
        out_f1[k] = d1
        out_f2[k] = clash[a, y] + clash[b, x] - clash[a, x] - clash[b, y]


@numba.njit(cache=True)
def _all_deltas(
    n: int,
    grid: np.ndarray,
    swap_a: np.ndarray,
    swap_b: np.ndarray,
    cell_row: np.ndarray,
    cell_col: np.ndarray,
    clash: np.ndarray,
    out_f1: np.ndarray,
    out_f2: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Counts of ``grid`` from scratch, then the (d1, d2) of every move."""
    row_count = np.zeros((n, n), dtype=np.int64)
    col_count = np.zeros((n, n), dtype=np.int64)
    _count(n, grid, cell_row, cell_col, row_count, col_count)
    _score_moves(grid, swap_a, swap_b, cell_row, cell_col, row_count, col_count, clash, out_f1, out_f2)


@numba.njit(cache=True)
def _climb(
    n: int,
    fixed: np.ndarray,
    box_cells: np.ndarray,
    box_digits: np.ndarray,
    box_ptr: np.ndarray,
    swap_a: np.ndarray,
    swap_b: np.ndarray,
    clash: np.ndarray,
    cell_row: np.ndarray,
    cell_col: np.ndarray,
    w1: int,
    w2: int,
    plateau_size: int,
    stall_limit: int,
    post_swap: bool,
    shuffle_digits: bool,
    max_restarts: int,
    max_iterations: int,
    grid: np.ndarray,
    row_count: np.ndarray,
    col_count: np.ndarray,
    rng: np.ndarray,
    state: np.ndarray,
    budget: int,
) -> int:  # pragma: no cover - compiled
    """Run up to ``budget`` iterations from ``state``; return _SOLVED, BUDGET or _GAVE_UP.

    ``max_restarts``/``max_iterations`` < 0 mean no cap.
    """
    goal = 2 * n * n
    moves = len(swap_a)
    ties = np.empty(max(moves, 1), dtype=np.int64)
    delta_f1 = np.empty(moves, dtype=np.int64)
    delta_f2 = np.empty(moves, dtype=np.int64)
    spent = 0
    while True:
        if state[_FRESH] == 1:
            # A new climb: fresh initial state (the first one, or a random restart).
            _initialise(n, fixed, box_cells, box_digits, box_ptr, clash, post_swap, shuffle_digits, rng, grid)
            state[_F1] = _count(n, grid, cell_row, cell_col, row_count, col_count)
            state[_F2] = _given_clashes(grid, box_cells, clash)
            state[_BEST] = w1 * state[_F1] + w2 * state[_F2]
            state[_BEST_VISITS] = 0
            state[_STALL] = 0
            state[_FRESH] = 0
            if state[_ITERATIONS] == 0 and state[_RESTARTS] == 0:
                state[_INIT_F1] = state[_F1]
                state[_INIT_F2] = state[_F2]
        if state[_F1] == goal:
            return _SOLVED
        if moves == 0 or (max_iterations >= 0 and state[_ITERATIONS] >= max_iterations):
            return _GAVE_UP
        if spent >= budget:
            return BUDGET
        # Steepest ascent: the best move of the whole neighbourhood, ties broken at random.
        _score_moves(
            grid, swap_a, swap_b, cell_row, cell_col, row_count, col_count, clash, delta_f1, delta_f2
        )
        best = -(1 << 62)
        n_ties = 0
        for k in range(moves):
            delta = w1 * delta_f1[k] + w2 * delta_f2[k]
            if delta > best:
                best = delta
                n_ties = 0
            if delta == best:
                ties[n_ties] = k
                n_ties += 1
        # Plateau detection (the paper's queue rule, see the module docstring): count the states at
        # the climb's best score that have no better successor.
        score = w1 * state[_F1] + w2 * state[_F2]
        if score > state[_BEST]:
            state[_BEST] = score
            state[_BEST_VISITS] = 0
            state[_STALL] = 0
        if score == state[_BEST] and best <= 0:
            state[_BEST_VISITS] += 1
        if state[_BEST_VISITS] >= plateau_size or (stall_limit > 0 and state[_STALL] >= stall_limit):
            if max_restarts >= 0 and state[_RESTARTS] >= max_restarts:
                return _GAVE_UP
            state[_RESTARTS] += 1
            state[_FRESH] = 1
            spent += 1  # a restart uses budget too, so the driver regains control
            continue
        choice = ties[uniform_below(rng, n_ties)] if n_ties > 1 else ties[0]
        a = swap_a[choice]
        b = swap_b[choice]
        x = grid[a]
        y = grid[b]
        row_count[cell_row[a], x] -= 1
        row_count[cell_row[a], y] += 1
        row_count[cell_row[b], y] -= 1
        row_count[cell_row[b], x] += 1
        col_count[cell_col[a], x] -= 1
        col_count[cell_col[a], y] += 1
        col_count[cell_col[b], y] -= 1
        col_count[cell_col[b], x] += 1
        grid[a] = y
        grid[b] = x
        state[_F1] += delta_f1[choice]
        state[_F2] += delta_f2[choice]
        state[_ITERATIONS] += 1
        state[_STALL] += 1
        spent += 1
        if state[_F1] == goal:
            return _SOLVED


# ------------------------------------------------------------------------------------------ driver


class _Climber:
    """The resumable search of one puzzle: kernel arrays plus a ``run(budget)`` step."""

    def __init__(self, model: HillModel, params: HillParameters, seed: int) -> None:
        n = model.geometry.n
        self.model = model
        self.params = params
        self.grid = np.empty(n * n, dtype=np.int64)
        self.row_count = np.zeros((n, n), dtype=np.int64)
        self.col_count = np.zeros((n, n), dtype=np.int64)
        self.rng = seed_state(seed)
        self.state = np.zeros(_STATE_SIZE, dtype=np.int64)
        self.state[_FRESH] = 1
        self.status = BUDGET

    def run(self, budget: int) -> int:
        m, p = self.model, self.params
        self.status = _climb(
            m.geometry.n,
            m.values,
            m.box_cells,
            m.box_digits,
            m.box_ptr,
            m.swap_a,
            m.swap_b,
            m.clash,
            m.cell_row,
            m.cell_col,
            p.w1,
            p.w2,
            p.plateau_size,
            p.stall_limit,
            p.post_swap,
            p.shuffle_digits,
            -1 if p.max_restarts is None else p.max_restarts,
            -1 if p.max_iterations is None else p.max_iterations,
            self.grid,
            self.row_count,
            self.col_count,
            self.rng,
            self.state,
            budget,
        )
        return self.status


def hill_climb(
    model: HillModel,
    params: HillParameters | None = None,
    seed: int = 0,
    time_limit: float | Deadline | None = None,
) -> HillResult:
    """Climb until a solution, the time limit (wall-clock seconds, or a Deadline) or a restart/iteration cap.

    The returned solution has not been checked here; callers pass it through the checker.
    """
    params = params or HillParameters()
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
    climber = _Climber(model, params, seed)
    # An iteration scores every move (2.5 million on 400x400: tens of milliseconds): the first chunk
    # is sized by them, else 64 iterations overshot a 1 s limit by seconds before the pace was known.
    first = max(_MIN_BUDGET, min(64, _FIRST_CHUNK_MOVES // max(model.moves, 1)))
    clock = ChunkBudget(deadline, first, _MIN_BUDGET, _MAX_BUDGET, _CHUNK_SECONDS)
    status, timed_out = clock.run(climber.run)
    solution = climber.grid.reshape(model.geometry.n, -1) + 1 if status == _SOLVED else None
    state = climber.state
    return HillResult(
        solution.astype(np.int16) if solution is not None else None,
        int(state[_ITERATIONS]),
        int(state[_RESTARTS]),
        timed_out,
        deadline.elapsed(),
        int(state[_INIT_F1]),
        int(state[_INIT_F2]),
    )


def initial_state(model: HillModel, params: HillParameters | None = None, seed: int = 0) -> np.ndarray:
    """The first initial state a climb with this seed starts from (flat 0-based digits)."""
    climber = _Climber(model, params or HillParameters(), seed)
    climber.run(0)
    return climber.grid.copy()


def climb_states(
    model: HillModel, params: HillParameters | None = None, seed: int = 0, steps: int = 100
) -> np.ndarray:
    """The states after each of the first ``steps`` iterations, one move per kernel call.

    Row 0 is the first initial state; every further row is the state after one move (after a
    restart, a move of the new climb).  The walk ends early when it solves the puzzle or gives up.
    For tests: the same seed must retrace the path a chunked ``hill_climb`` takes.
    """
    climber = _Climber(model, params or HillParameters(), seed)
    climber.run(0)
    states = [climber.grid.copy()]
    while len(states) <= steps and climber.status == BUDGET:
        done = int(climber.state[_ITERATIONS])
        climber.run(1)
        if int(climber.state[_ITERATIONS]) > done:
            states.append(climber.grid.copy())
    return np.stack(states)


def swap_deltas(model: HillModel, state: np.ndarray) -> np.ndarray:
    """(moves, 2) array: the change of f1 and of f2 each move would make from ``state``."""
    out = np.zeros((2, model.moves), dtype=np.int64)
    _all_deltas(
        model.geometry.n,
        np.ascontiguousarray(state, dtype=np.int64),
        model.swap_a,
        model.swap_b,
        model.cell_row,
        model.cell_col,
        model.clash,
        out[0],
        out[1],
    )
    return out.T
