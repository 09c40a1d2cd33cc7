"""Random grids for tests and benchmarks: shuffled valid grids, and puzzles made by blanking them."""

from __future__ import annotations

import numpy as np

from .geometry import Geometry
from .grid import Grid

__all__ = ["blank_cells", "random_puzzle", "random_solution"]


def _pattern(geometry: Geometry) -> np.ndarray:
    """A valid grid: row r is the base row shifted by q*(r % p) + r // p."""
    p, q, n = geometry.p, geometry.q, geometry.n
    r = np.arange(n)[:, None]
    c = np.arange(n)[None, :]
    return ((q * (r % p) + r // p + c) % n + 1).astype(np.int16)


def _shuffled(sizes: int, block: int, rng: np.random.Generator) -> np.ndarray:
    """A permutation of range(sizes * block) that keeps blocks of ``block`` together."""
    outer = rng.permutation(sizes)
    return np.concatenate([b * block + rng.permutation(block) for b in outer])


def random_solution(geometry: Geometry, rng: np.random.Generator) -> Grid:
    """A valid complete grid: the pattern with digits relabelled and rows/columns shuffled within bands."""
    p, q, n = geometry.p, geometry.q, geometry.n
    grid = _pattern(geometry)
    grid = grid[_shuffled(q, p, rng)][:, _shuffled(p, q, rng)]
    relabel = np.concatenate([[0], rng.permutation(n) + 1]).astype(np.int16)
    return Grid(geometry, relabel[grid])


def blank_cells(grid: Grid, fraction: float, rng: np.random.Generator) -> Grid:
    """The grid with a random ``fraction`` of its cells emptied."""
    values = grid.values.reshape(-1).copy()
    count = int(round(fraction * values.size))
    values[rng.choice(values.size, size=count, replace=False)] = 0
    return grid.with_values(values)


def random_puzzle(geometry: Geometry, fraction: float, rng: np.random.Generator) -> Grid:
    """A solvable puzzle (not necessarily unique): a random solution with ``fraction`` of cells blanked."""
    return blank_cells(random_solution(geometry, rng), fraction, rng)
