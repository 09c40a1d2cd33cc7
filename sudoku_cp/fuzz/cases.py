"""Fuzz cases: puzzles of every box shape and every status, made reproducibly from a seed.

A case is a puzzle of one box shape (``shapes``: every PxQ with 2 <= P*Q <= the largest side,
rectangular both ways, 1xQ and Px1 included), one *status* and one way of writing its symbols:

* ``full``, ``full_minus_one``: a solution grid, and one with a single cell emptied (unique);
* ``empty``: no givens (several solutions, one for the 1x2 / 2x1 grids' two);
* ``unsat_clash``: two equal givens in one unit (no solution, seen without search);
* ``many``: a solution with three quarters of its cells emptied (usually many solutions);
* ``two``: a solution with one rectangle of four cells emptied that can be swapped (exactly two);
* ``unique_minimal``: the generator's minimal puzzle (no single given removable; ``deduction.generate``);
* ``unique``: that puzzle with one given too many (unique, not minimal);
* ``removed``: that puzzle with givens removed until SAT finds a second solution;
* ``unsat``: that puzzle with one more given that clashes with no peer but with its one
  solution, so no solution exists although no unit repeats a digit.

The status says how the case was made; the verdict on an answer never rests on it: every claim
is decided by the ground truth (``audit.truth``), and every solution by the independent checker.

Symbols ``edges``: the digits are relabelled so that the givens show the edges of the alphabet
(the largest digit, 9 and 10 where ``9`` meets ``A``, 35 and 36 where ``Z`` meets ``a``, 61, 1);
``random`` keeps the generator's random labels.  Grids over 61 are written as integers by the
one-line form (``formats.format_line``).

``plan`` orders cases cheap and small first: pass after pass over the shapes up to a side that
grows (4, 6, 9, 12, 16, then every side up to the largest), each pass with fresh puzzles.
"""

from __future__ import annotations

import atexit
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ..geometry import Geometry, geometry_for_size
from ..grid import Grid

if TYPE_CHECKING:
    from ..deduction.proof import StepProver

__all__ = [
    "MINIMAL_SIDE",
    "STATUSES",
    "SYMBOLS_FORMS",
    "CaseKey",
    "make_case",
    "plan",
    "shapes",
]

#: The statuses, in the order a pass makes them for each shape (cheap ones first).
STATUSES: tuple[str, ...] = (
    "full",
    "full_minus_one",
    "empty",
    "unsat_clash",
    "many",
    "two",
    "unique_minimal",
    "unique",
    "removed",
    "unsat",
)
SYMBOLS_FORMS = ("random", "edges")
#: The largest side the minimal-puzzle generator serves in a fuzzing budget (16x16: about 0.3 s a
#: puzzle; 20x20 takes seconds to minutes).  Larger grids get near-full puzzles for those statuses.
MINIMAL_SIDE = 16
_SIDE_STEPS = (4, 6, 9, 12, 16)  # the largest side of the first passes: small grids first
_EMPTIED = 0.75  # the share of cells ``many`` empties
_SEARCH_TRIES = 20  # solutions tried for a swappable rectangle, puzzles for a hidden no-solution


@dataclass(frozen=True, slots=True)
class CaseKey:
    """What makes one case: box shape (p, q), status, symbols form and the seed of its random draws."""

    box: tuple[int, int]
    status: str
    symbols: str
    seed: tuple[int, ...]

    @property
    def label(self) -> str:
        """'2x3 two edges'."""
        return f"{self.box[0]}x{self.box[1]} {self.status} {self.symbols}"


def shapes(max_side: int, square_only: bool = False) -> list[tuple[int, int]]:
    """Every box shape (p, q) with 2 <= p*q <= ``max_side``, by side, then p (``square_only``:
    the square ones, for a solver that is not told the shape and must read it from the side)."""
    every = [(p, n // p) for n in range(2, max_side + 1) for p in range(1, n + 1) if n % p == 0]
    return [(p, q) for p, q in every if p == q] if square_only else every


def _caps(max_side: int) -> list[int]:
    caps = [side for side in _SIDE_STEPS if side < max_side]
    return [*caps, max_side]


def plan(seed: int, max_side: int, square_only: bool = False) -> Iterator[CaseKey]:
    """The cases of a fuzzing run, endlessly: pass after pass over shapes and statuses, the
    largest side of a pass growing to ``max_side``; case number k draws from seed (``seed``, k)."""
    caps = _caps(max_side)
    every = shapes(max_side, square_only)
    if not every:
        raise ValueError(f"no box shape up to side {max_side}{' with square boxes' * square_only}")
    number = 0
    for round_ in itertools.count():
        cap = caps[min(round_, len(caps) - 1)]
        for box in every:
            if box[0] * box[1] > cap:
                break
            for status in STATUSES:
                symbols = SYMBOLS_FORMS[(number + round_) % 2]
                yield CaseKey(box, status, symbols, (seed, number))
                number += 1


@cache
def _sat_engine() -> object:
    from ..backends.registry import make_backend

    return make_backend("pysat")


def _count(puzzle: Grid, limit: int) -> int:
    """Solutions of ``puzzle`` found by SAT up to ``limit``: how a case is made, not judged."""
    found = _sat_engine().search(puzzle, limit)  # type: ignore[attr-defined]
    return int(found.count)


@cache
def _prover(geometry: Geometry) -> StepProver:
    """One incremental SAT solver of the empty grid per shape, shared by the cases made here
    (the generator's uniqueness checks; made afresh for every puzzle it costs more than the puzzle)."""
    from ..deduction.proof import StepProver

    if not _provers_made:  # closed before the interpreter tears down the SAT library's module
        atexit.register(_close_provers)
    prover = StepProver(Grid.empty(geometry))
    _provers_made.append(prover)
    return prover


_provers_made: list[StepProver] = []


def _close_provers() -> None:
    while _provers_made:
        _provers_made.pop().close()
    _prover.cache_clear()


def _solutions(puzzle: Grid, limit: int) -> list[np.ndarray]:
    """Up to ``limit`` solutions of ``puzzle`` by SAT, each flat."""
    found = _sat_engine().search(puzzle, limit)  # type: ignore[attr-defined]
    return [np.asarray(values).reshape(-1) for values in found.solutions]


def _solution(geometry: Geometry, rng: np.random.Generator) -> Grid:
    from ..random_grids import random_solution

    return random_solution(geometry, rng)


def _minimal(geometry: Geometry, rng: np.random.Generator) -> tuple[Grid, Grid, bool]:
    """(puzzle, its solution, whether it is known unique): the generator's minimal puzzle, or a
    solution with a tenth of its cells emptied on grids the generator does not serve here."""
    if geometry.n <= MINIMAL_SIDE:
        from ..deduction.generate import generate_puzzle

        seed, attempt = int(rng.integers(2**31)), int(rng.integers(2**31))
        made = generate_puzzle(geometry, seed, attempt, prover=_prover(geometry))
        assert made is not None  # no deadline given
        return made.puzzle, made.solution, True
    solution = _solution(geometry, rng)
    return _emptied(solution, 0.1, rng), solution, False


def _emptied(grid: Grid, fraction: float, rng: np.random.Generator) -> Grid:
    from ..random_grids import blank_cells

    return blank_cells(grid, fraction, rng)


def _swap_rectangle(solution: Grid, rng: np.random.Generator) -> list[int] | None:
    """Four cells (r1,c1), (r1,c2), (r2,c1), (r2,c2) holding a b / b a within at most two boxes:
    emptied in a full grid they leave exactly two solutions (the digits either way round)."""
    g = solution.geometry
    n = g.n
    values = solution.values
    where = np.argsort(values, axis=1)  # where[r, d - 1]: the column of digit d in row r
    pairs = [(r1, r2) for r1 in range(n) for r2 in range(r1 + 1, n)]
    for k in rng.permutation(len(pairs)):
        r1, r2 = pairs[k]
        c2 = where[r1, values[r2] - 1]  # for each column c1: the column of row r2's digit in row r1
        hits = np.flatnonzero((values[r2, c2] == values[r1]) & (c2 != np.arange(n)))
        for c1 in rng.permutation(hits):
            c = int(c2[c1])
            cells = [r1 * n + int(c1), r1 * n + c, r2 * n + int(c1), r2 * n + c]
            if len({int(g.box_of_cell[cell]) for cell in cells}) <= 2:
                return cells
    return None


def _two_by_sat(solution: Grid, rng: np.random.Generator) -> Grid | None:
    """The solution with the cells emptied where it differs from another solution, narrowed by SAT
    until exactly two solutions remain (None when a narrowing step finds no smaller difference)."""
    flat = solution.values.reshape(-1)
    found = _solutions(_emptied(solution, _EMPTIED, rng), 3)
    others = [other for other in found if not np.array_equal(other, flat)]
    if not others:
        return None
    differ = np.flatnonzero(others[0] != flat)
    for _ in range(_SEARCH_TRIES):
        values = flat.copy()
        values[differ] = 0
        found = _solutions(solution.with_values(values), 3)
        if len(found) == 2:
            return solution.with_values(values)
        sizes = [int(np.count_nonzero(other != flat)) for other in found]
        smaller = [size for size in sizes if 0 < size < differ.size]
        if not smaller:
            return None
        differ = np.flatnonzero(found[sizes.index(min(smaller))] != flat)
    return None


def _hidden_unsat(puzzle: Grid, solution: Grid | None, rng: np.random.Generator) -> Grid | None:
    """``puzzle`` with one more given that no peer repeats and that the solution does not hold:
    no solution when ``puzzle`` has only that one (``solution`` given); else checked by SAT."""
    g = puzzle.geometry
    flat = puzzle.values.reshape(-1)
    peers = g.peers()
    for cell in rng.permutation(np.flatnonzero(flat == 0)):
        seen = set(flat[peers[cell]].tolist())
        options = [d for d in range(1, g.n + 1) if d not in seen]
        if solution is not None:
            options = [d for d in options if d != int(solution.values.reshape(-1)[cell])]
        for d in rng.permutation(options) if options else ():
            values = flat.copy()
            values[cell] = d
            candidate = puzzle.with_values(values)
            if solution is not None or _count(candidate, 1) == 0:
                return candidate
    return None


def _relabelled(puzzle: Grid, rng: np.random.Generator) -> Grid:
    """The puzzle with digits renamed so that its commonest given digits become the alphabet's edges."""
    n = puzzle.n
    edges = list(dict.fromkeys(d for d in (n, 10, 9, 36, 35, 62, 61, 1) if d <= n))
    used = np.bincount(puzzle.values.reshape(-1), minlength=n + 1)[1:]
    order = [int(d) + 1 for d in np.argsort(-used, kind="stable") if used[d]]
    mapping = np.zeros(n + 1, dtype=np.int16)
    free = [d for d in range(1, n + 1) if d not in edges[: len(order)]]
    free = [int(d) for d in rng.permutation(free)]
    for k, digit in enumerate(order):
        mapping[digit] = edges[k] if k < len(edges) else free.pop()
    for digit in range(1, n + 1):
        if digit not in order:
            mapping[digit] = free.pop()
    return puzzle.with_values(mapping[puzzle.values])


def make_case(key: CaseKey) -> Grid | None:
    """The puzzle of ``key`` (always the same for the same key), or None when its shape has no
    puzzle of that status (a grid too small for a hidden no-solution, say)."""
    p, q = key.box
    geometry = geometry_for_size(p * q, (p, q))
    rng = np.random.default_rng(key.seed)
    puzzle = _make(geometry, key.status, rng)
    if puzzle is not None and key.symbols == "edges":
        puzzle = _relabelled(puzzle, rng)
    return puzzle


def _make(geometry: Geometry, status: str, rng: np.random.Generator) -> Grid | None:
    n = geometry.n
    if status == "empty":
        return Grid.empty(geometry)
    if status in ("full", "full_minus_one", "many"):
        solution = _solution(geometry, rng)
        if status == "full":
            return solution
        if status == "many":
            return _emptied(solution, _EMPTIED, rng)
        values = solution.values.reshape(-1).copy()
        values[rng.integers(n * n)] = 0
        return solution.with_values(values)
    if status == "unsat_clash":
        puzzle = _emptied(_solution(geometry, rng), 0.5, rng)
        flat = puzzle.values.reshape(-1).copy()
        peers = geometry.peers()
        for cell in rng.permutation(np.flatnonzero(flat)):
            empty = peers[cell][flat[peers[cell]] == 0]
            if empty.size:
                flat[rng.choice(empty)] = flat[cell]
                return puzzle.with_values(flat)
        return None
    if status == "two":
        for _ in range(_SEARCH_TRIES):
            solution = _solution(geometry, rng)
            cells = _swap_rectangle(solution, rng)
            if cells is None:
                return _two_by_sat(solution, rng)
            values = solution.values.reshape(-1).copy()
            values[cells] = 0
            return solution.with_values(values)
        return None
    puzzle, solution, unique = _minimal(geometry, rng)
    if status == "unique_minimal":
        return puzzle
    flat = puzzle.values.reshape(-1)
    if status == "unique":
        values = flat.copy()
        empty = np.flatnonzero(values == 0)
        if empty.size:
            cell = rng.choice(empty)
            values[cell] = solution.values.reshape(-1)[cell]
        return puzzle.with_values(values)
    if status == "removed":
        values = flat.copy()
        for cell in rng.permutation(np.flatnonzero(values)):
            values[cell] = 0
            if _count(puzzle.with_values(values), 2) >= 2:
                break
        return puzzle.with_values(values)
    if status == "unsat":
        found = _hidden_unsat(puzzle, solution if unique else None, rng)
        for _ in range(_SEARCH_TRIES if found is None else 0):
            found = _hidden_unsat(_emptied(_solution(geometry, rng), 0.6, rng), None, rng)
            if found is not None:
                break
        return found
    raise ValueError(f"unknown case status {status!r} (statuses: {', '.join(STATUSES)})")
