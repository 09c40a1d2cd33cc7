"""Ant colony system with best value evaporation, after Lloyd & Amos (arXiv:1805.03545, IEEE ToG 2019).

The paper's Algorithm 1, for any p x q box shape up to 64 x 64 (``../shared/papers/NOTES.md`` §3
restores its equations, which the text copy lost):

* The puzzle is propagated once (``sudoku_cp.native.propagation``, the paper's §3.1 rules).
* A pheromone matrix tau (cells x values) starts at tau0 = 1/c (c = number of cells).
* Each iteration, every one of m ants takes a fresh copy of the propagated puzzle and a random
  start cell.  The colony then makes c steps; in each step every ant in turn visits its current
  cell and moves to the next one (wrapping around).  At an open cell the ant chooses a value:
  with a uniform q, greedily (the value of highest pheromone, eq. 1) or by roulette over the
  pheromone of the cell's values (eq. 2); sets it; propagates (an emptied cell counts as failed
  and the ant goes on); and applies the local update tau <- (1 - xi) tau + xi tau0 (eq. 4).
* The best ant fixed f cells; its reward is c / (c - f) (eq. 5; all cells fixed = solved).  If
  the reward beats the current best value, that ant's board becomes the best-so-far solution
  and the reward the best value.  Every cell fixed in the best-so-far solution then gets
  tau <- (1 - rho) tau + rho * best value (eq. 6), and the best value evaporates:
  best <- (1 - f_BVE) best (eq. 7; f_BVE = 0 disables best value evaporation).

Which branch of eq. 3 is greedy: standard ACS, and this module by default (``Q0Rule.PAPER``),
choose greedily when q < q0, so with q0 = 0.9 nine choices in ten are greedy.  The authors'
published program chooses greedily when q > q0 (one in ten); ``Q0Rule.CODE`` reproduces that.

The whole colony runs in numba, drawing from ``sudoku_cp.native.prng``, in chunks of iterations
between which the Python driver checks the clock; chunk boundaries do not change the random
stream, so one seed gives one result and one iteration count.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import partial

import numba
import numpy as np

from ..grid import Grid
from ..limits import Deadline, watch_compilation
from ..propagation.bitset import popcount
from . import NativeInputError
from .arrays import copy_into
from .chunks import BUDGET, ChunkBudget
from .prng import seed_state, uniform
from .propagation import (
    PropagationTables,
    Scratch,
    fix,
    fixed_count,
    masks_to_values,
    new_scratch,
    propagate_grid,
    propagation_tables,
)

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["AcsParameters", "AcsResult", "Q0Rule", "acs_solve"]

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
# Final statuses of the kernel (it also returns chunks.BUDGET).
_SOLVED, _EXHAUSTED = 0, 1
# Float-state slots and int-state slots of the kernel.
_BEST_VALUE = 0
_ITERATIONS, _CYCLES = 0, 1
_MIN_BUDGET, _MAX_BUDGET = 1, 1_000_000
_CHUNK_SECONDS = 0.05


class Q0Rule(Enum):
    """When eq. 3 chooses greedily: q < q0 (the paper, standard ACS) or q > q0 (the authors' code)."""

    PAPER = "paper"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class AcsParameters:
    """Ant colony settings; the defaults are the paper's (NOTES.md §3.2).

    ``ants`` m; ``q0`` greediness; ``rho`` global pheromone update rate; ``bve`` best value
    evaporation rate f_BVE (0 turns it off, as in the paper's Table 1); ``xi`` local update
    rate; ``tau0`` initial pheromone (None: 1 / number of cells); ``q0_rule`` which branch of
    eq. 3 is greedy; ``max_iterations`` stop after so many iterations (None: only the time limit).
    """

    ants: int = 10
    q0: float = 0.9
    rho: float = 0.9
    bve: float = 0.005
    xi: float = 0.1
    tau0: float | None = None
    q0_rule: Q0Rule = Q0Rule.PAPER
    max_iterations: int | None = None

    def __post_init__(self) -> None:
        if self.ants < 1:
            raise NativeInputError(f"ants must be at least 1, not {self.ants}")
        for name in ("q0", "rho", "bve", "xi"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise NativeInputError(f"{name} must lie in [0, 1], not {value}")
        if self.tau0 is not None and not self.tau0 > 0.0:
            raise NativeInputError(f"tau0 must be positive, not {self.tau0}")
        if self.max_iterations is not None and self.max_iterations < 1:
            raise NativeInputError(f"max_iterations must be at least 1, not {self.max_iterations}")
        if not isinstance(self.q0_rule, Q0Rule):
            object.__setattr__(self, "q0_rule", Q0Rule(self.q0_rule))


@dataclass(frozen=True, slots=True)
class AcsResult:
    """Outcome of one colony run.

    ``solution``: the (n, n) int16 grid when solved (not yet checked: callers check it), else
    None; ``contradiction``: the initial propagation proved there is no solution; ``timed_out``:
    the time limit stopped the colony; ``iterations``: colony iterations run; ``cycles``: value
    choices made by ants (each followed by propagation); ``seconds``: wall time.
    """

    solution: np.ndarray | None
    contradiction: bool
    timed_out: bool
    iterations: int
    cycles: int
    seconds: float

    @property
    def solved(self) -> bool:
        """True when the colony completed the grid."""
        return self.solution is not None


@numba.njit(cache=True, inline="always")
def _low_digit(m: np.uint64) -> int:  # pragma: no cover - compiled
    """The 0-based digit of the lowest set bit of a nonzero mask."""
    return popcount((m & (~m + _ONE)) - _ONE)


@numba.njit(cache=True, inline="always")
def _choose(
    tau: np.ndarray, cell: int, mask: np.uint64, greedy: bool, rng: np.ndarray
) -> int:  # pragma: no cover - compiled
    """Index of the chosen value of an open cell: highest pheromone (eq. 1) or roulette (eq. 2)."""
    best = -1
    best_tau = -1.0
    total = 0.0
    m = mask
    while m != _ZERO:
        d = _low_digit(m)
        m &= m - _ONE
        total += tau[cell, d]
        if tau[cell, d] > best_tau:
            best_tau = tau[cell, d]
            best = d
    if greedy:
        return best
    threshold = uniform(rng) * total
    running = 0.0
    last = -1
    m = mask
    while m != _ZERO:
        last = _low_digit(m)
        m &= m - _ONE
        running += tau[cell, last]
        if running > threshold:
            return last
    return last


@numba.njit(cache=True)
def _colony(
    root: np.ndarray,
    tau: np.ndarray,
    best_masks: np.ndarray,
    ant_masks: np.ndarray,
    position: np.ndarray,
    fstate: np.ndarray,
    istate: np.ndarray,
    rng: np.ndarray,
    solution: np.ndarray,
    work: Scratch,
    tables: PropagationTables,
    q0: float,
    greedy_below: bool,
    rho: float,
    bve: float,
    xi: float,
    tau0: float,
    max_iterations: int,
    budget: int,
) -> int:  # pragma: no cover - compiled
    """Run at most ``budget`` colony iterations; return _SOLVED, BUDGET or _EXHAUSTED."""
    cells = root.shape[0]
    ants = ant_masks.shape[0]
    for _ in range(budget):
        if istate[_ITERATIONS] >= max_iterations:
            return _EXHAUSTED
        for a in range(ants):
            copy_into(ant_masks[a], root)
            position[a] = min(int(uniform(rng) * cells), cells - 1)
        cycles = 0
        for _step in range(cells):
            for a in range(ants):
                cell = position[a]
                m = ant_masks[a, cell]
                if (m & (m - _ONE)) != _ZERO:
                    q = uniform(rng)
                    greedy = q < q0 if greedy_below else q > q0
                    d = _choose(tau, cell, m, greedy, rng)
                    fix(ant_masks[a], cell, _ONE << np.uint64(d), work, tables, np.bool_(False))
                    tau[cell, d] = (1.0 - xi) * tau[cell, d] + xi * tau0
                    cycles += 1
                position[a] = cell + 1 if cell + 1 < cells else 0
        istate[_CYCLES] += cycles
        istate[_ITERATIONS] += 1
        best_ant = 0
        best_fixed = -1
        for a in range(ants):
            fixed = fixed_count(ant_masks[a])
            if fixed > best_fixed:
                best_fixed = fixed
                best_ant = a
        if best_fixed == cells:
            copy_into(solution, ant_masks[best_ant])
            return _SOLVED
        reward = cells / (cells - best_fixed)
        if reward > fstate[_BEST_VALUE]:
            fstate[_BEST_VALUE] = reward
            copy_into(best_masks, ant_masks[best_ant])
        best_value = fstate[_BEST_VALUE]
        for cell in range(cells):
            m = best_masks[cell]
            if m != _ZERO and (m & (m - _ONE)) == _ZERO:
                d = popcount(m - _ONE)
                tau[cell, d] = (1.0 - rho) * tau[cell, d] + rho * best_value
        fstate[_BEST_VALUE] = best_value * (1.0 - bve)
    return BUDGET


def acs_solve(
    puzzle: Grid, parameters: AcsParameters | None = None, *, seed: int = 0, time_limit: float | None = None
) -> AcsResult:
    """Run the ant colony on ``puzzle`` until it is solved, the time limit or the iteration cap.

    ``time_limit`` is wall-clock seconds from the call (a first-call compile included), checked
    between chunks of iterations.  The same seed and parameters give the same result and the
    same iteration count, whatever the time limit (as long as it is not reached).
    """
    params = parameters or AcsParameters()
    deadline = Deadline(time_limit)
    n = puzzle.n
    cells = n * n
    start = propagate_grid(puzzle)
    if start.contradiction:
        return AcsResult(None, True, False, 0, 0, deadline.elapsed())
    root = start.masks
    # numpy, not fixed_count: root is read-only, and numba compiles a kernel again for such an array
    if np.count_nonzero((root != 0) & ((root & (root - _ONE)) == 0)) == cells:
        return AcsResult(masks_to_values(root, n), False, False, 0, 0, deadline.elapsed())
    tau0 = params.tau0 if params.tau0 is not None else 1.0 / cells
    tau = np.full((cells, n), tau0, dtype=np.float64)
    best_masks = np.zeros(cells, np.uint64)
    ant_masks = np.empty((params.ants, cells), np.uint64)
    position = np.zeros(params.ants, np.int64)
    fstate = np.zeros(1, np.float64)
    istate = np.zeros(2, np.int64)
    solution = np.zeros(cells, np.uint64)
    max_iterations = params.max_iterations if params.max_iterations is not None else np.iinfo(np.int64).max
    step = partial(
        _colony,
        root,
        tau,
        best_masks,
        ant_masks,
        position,
        fstate,
        istate,
        seed_state(seed),
        solution,
        new_scratch(n),
        propagation_tables(puzzle.geometry),
        params.q0,
        params.q0_rule is Q0Rule.PAPER,
        params.rho,
        params.bve,
        params.xi,
        tau0,
        max_iterations,
    )
    clock = ChunkBudget(deadline, 1, _MIN_BUDGET, _MAX_BUDGET, _CHUNK_SECONDS)
    status, timed_out = clock.run(step)
    grid = masks_to_values(solution, n) if status == _SOLVED else None
    return AcsResult(
        grid, False, timed_out, int(istate[_ITERATIONS]), int(istate[_CYCLES]), deadline.elapsed()
    )
