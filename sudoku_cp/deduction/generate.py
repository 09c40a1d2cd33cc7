"""Puzzles made the way Eppstein 2005 (section 3.6) made them: symmetric, unique, minimal.

Filling: repeatedly choose a random unfilled cell and its partner under a 180-degree rotation,
give each a digit still open to it, and propagate with the simplest rules (hidden and naked
singles, the incremental bitset propagation of ``native.propagation``, run after every digit);
a contradiction restarts the fill from the empty grid.  The fill ends when singles solve the
grid, so the chosen cells (the givens) have exactly one solution.

Emptying: in the order they were added, each pair of givens is taken out when SAT confirms the
puzzle still has one solution (one incremental solver per grid shape holds the empty grid's
formula; the known solution is blocked and the givens are assumptions, so "unsatisfiable" means
unique), and put back otherwise.  A solution count only grows as givens go, so one pass
leaves a puzzle that is minimal in the paper's sense: every remaining symmetric pair is needed for uniqueness.

Every puzzle comes from attempt ``k`` of a seed, drawn with ``numpy.random.default_rng((seed,
k))``, so a seed reproduces the same puzzles whatever else runs.  A target level is met by
rejection: attempts whose rating has another level are dropped.

Speed on one core: 6x6 about 2,600 puzzles/s, 9x9 630, 12x12 120, 16x16 5;
20x20 seconds to a minute each (thousands of restarted fills); 25x25 does not finish.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numba
import numpy as np

from ..errors import SudokuCpError
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached, watch_compilation
from ..native.propagation import (
    MAX_SIDE,
    PropagationTables,
    Scratch,
    fix,
    masks_to_values,
    new_scratch,
    propagation_tables,
)
from ..propagation.bitset import popcount
from .proof import StepProver
from .rate import LEVELS, Rating, rate
from .rules import Rule

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "LEVEL_NAMES",
    "GenerateError",
    "Generated",
    "fill_givens",
    "generate_puzzle",
    "generate_puzzles",
    "minimise",
]

#: The level names a target may name (``rate.LEVELS``).
LEVEL_NAMES: tuple[str, ...] = tuple(name for name, _ in LEVELS)


class GenerateError(SudokuCpError, ValueError):
    """A request the generator cannot meet: an unknown level, a bad count."""


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated puzzle, its solution, and how it was made.

    ``attempt``: the attempt number of the seed it came from (``rng((seed, attempt))``);
    ``restarts``: fills abandoned on a contradiction before the one that worked; ``filled``:
    givens before emptying; ``rating``: its rating when asked for (always with a target level).
    """

    puzzle: Grid
    solution: Grid
    attempt: int
    restarts: int
    filled: int
    rating: Rating | None = None


@numba.njit(cache=True)
def _fill_once(
    masks: np.ndarray, work: Scratch, tables: PropagationTables, draws: np.ndarray, pairs: np.ndarray
) -> tuple[int, int]:  # pragma: no cover - compiled
    """One fill from the empty grid's ``masks``: (1 solved or -1 contradiction, pairs added).

    ``draws`` holds uniform numbers in [0, 1) (three per pair at most: the cell and two digits);
    ``pairs[i]`` receives the i-th pair's cell and partner (-1 for the centre of an odd grid).
    Each digit placed is propagated at once by both singles (``native.propagation.fix``).
    """
    cells = masks.shape[0]
    open_cells = np.empty(cells, dtype=np.int64)
    k = 0
    added = 0
    while True:
        count = 0
        for c in range(cells):
            if popcount(masks[c]) > 1:
                open_cells[count] = c
                count += 1
        if count == 0:
            return 1, added
        cell = open_cells[int(draws[k] * count)]
        k += 1
        partner = cells - 1 - cell
        pairs[added, 0] = cell
        pairs[added, 1] = -1 if partner == cell else partner
        added += 1
        for one in (cell, partner):
            m = masks[one]
            options = popcount(m)
            if options == 1:
                continue  # the partner was already forced: it is a given as it stands
            chosen = int(draws[k] * options)
            k += 1
            bit = m & ~(m - np.uint64(1))  # the lowest candidate, then step up to the chosen one
            for _ in range(chosen):
                m &= ~bit
                bit = m & ~(m - np.uint64(1))
            if not fix(masks, one, bit, work, tables, True):
                return -1, added


def fill_givens(
    geometry: Geometry, rng: np.random.Generator, deadline: Deadline | None = None
) -> tuple[list[tuple[int, ...]], Grid, int] | None:
    """The paper's fill: symmetric pairs of givens until singles solve the grid.

    Returns (pairs in the order they were added, each the cells of one pair: one cell for the
    centre of an odd grid, the solution, restarts), or None when the deadline passed first.
    """
    n = geometry.n
    cells = n * n
    tables = propagation_tables(geometry)
    work = new_scratch(n)
    pairs = np.empty((cells, 2), dtype=np.int64)
    restarts = 0
    while True:
        if deadline is not None and deadline.expired():
            return None
        masks = np.full(cells, tables.full, dtype=np.uint64)
        status, added = _fill_once(masks, work, tables, rng.random(3 * cells), pairs)
        if status == 1:
            chosen = [tuple(int(c) for c in pair if c >= 0) for pair in pairs[:added]]
            return chosen, Grid(geometry, masks_to_values(masks, n)), restarts
        restarts += 1  # a contradiction: the paper starts the fill again


def minimise(
    solution: Grid,
    pairs: Sequence[tuple[int, ...]],
    deadline: Deadline | None = None,
    prover: StepProver | None = None,
) -> Grid | None:
    """The givens ``pairs`` of ``solution``, each pair emptied in order when SAT confirms that one
    solution remains (``prover``: an incremental solver of the empty grid, made here if None).

    None when the deadline passed first.
    """
    n = solution.n
    flat = solution.values.reshape(-1)
    values = np.zeros(n * n, dtype=np.int16)
    for pair in pairs:
        values[list(pair)] = flat[list(pair)]
    own = prover is None
    sat = StepProver(Grid.empty(solution.geometry), deadline=deadline) if prover is None else prover
    try:
        for pair in pairs:
            values[list(pair)] = 0
            other = sat.other_solution(values, solution.values)
            if other is None:
                return None
            if other:
                values[list(pair)] = flat[list(pair)]
    finally:
        if own:
            sat.close()
    # Not in ``finally``: after Ctrl-C inside a solve the native solver takes no more clauses.
    if not own:
        sat.forget_solution(solution.values)
    return Grid(solution.geometry, values.reshape(n, n))


def generate_puzzle(
    geometry: Geometry,
    seed: int,
    attempt: int = 0,
    *,
    deadline: Deadline | None = None,
    prover: StepProver | None = None,
) -> Generated | None:
    """Attempt ``attempt`` of ``seed``: one minimal symmetric puzzle with a unique solution.

    ``prover``: the SAT solver of the empty grid to reuse (a batch shares one).  None when the
    deadline passed first.
    """
    rng = np.random.default_rng((seed, attempt))
    filled = fill_givens(geometry, rng, deadline)
    if filled is None:
        return None
    pairs, solution, restarts = filled
    puzzle = minimise(solution, pairs, deadline, prover)
    if puzzle is None:
        return None
    return Generated(puzzle, solution, attempt, restarts, sum(len(pair) for pair in pairs))


def _check_request(geometry: Geometry, count: int, seed: int, level: str | None) -> None:
    if geometry.n > MAX_SIDE:
        raise GenerateError(
            f"the generator's uniqueness search takes grids up to {MAX_SIDE}x{MAX_SIDE}, "
            f"not {geometry.n}x{geometry.n}"
        )
    if count < 0:
        raise GenerateError(f"the count must be at least 0, not {count}")
    if seed < 0:
        raise GenerateError(f"the seed must be at least 0, not {seed}")
    if level is not None and level not in LEVEL_NAMES:
        raise GenerateError(f"unknown level {level!r} (levels: {', '.join(LEVEL_NAMES)})")


def generate_puzzles(
    geometry: Geometry,
    count: int,
    seed: int = 0,
    level: str | None = None,
    *,
    rules: Sequence[Rule] | None = None,
    rated: bool = False,
    max_attempts: int | None = None,
    deadline: Deadline | None = None,
) -> Iterator[Generated]:
    """Up to ``count`` puzzles from ``seed``, attempt after attempt, optionally of one ``level``.

    A target level keeps only the attempts the rating (with ``rules``: all non-uniqueness rules
    by default) puts at that level; ``rated`` rates every puzzle without filtering.  The iterator
    stops early, with fewer puzzles, when ``max_attempts`` attempts are spent or the deadline passes.
    """
    _check_request(geometry, count, seed, level)
    if count == 0:
        return
    try:
        prover = StepProver(Grid.empty(geometry), deadline=deadline)
    except TimeLimitReached:
        return
    with prover:  # one SAT solver for every uniqueness question of the batch; freed when it ends
        made = 0
        attempt = 0
        while made < count and (max_attempts is None or attempt < max_attempts):
            generated = generate_puzzle(geometry, seed, attempt, deadline=deadline, prover=prover)
            attempt += 1
            if generated is None:
                return
            if level is not None or rated:
                rating = rate(generated.puzzle, rules, deadline=deadline)
                if level is not None and rating.level != level:
                    if deadline is not None and deadline.expired():
                        return
                    continue
                generated = Generated(
                    generated.puzzle,
                    generated.solution,
                    generated.attempt,
                    generated.restarts,
                    generated.filled,
                    rating,
                )
            made += 1
            yield generated
