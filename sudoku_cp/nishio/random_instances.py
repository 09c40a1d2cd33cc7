"""Random Nishio instances for tests and benchmarks, in four families.

* ``sparse``: each cell in S with probability 0.15-0.35 (often no placement, many eliminations);
* ``dense``: probability 0.6-0.95 (many placements, few eliminations);
* ``planted``: the union of 1-3 random valid placements plus 0-15 % noise (always satisfiable, and the
  planted cells are in S');
* ``empty``: a planted set in which k rows are then confined to k - 1 columns, so Hall's condition
  fails and S has no placement although every row keeps cells (the closure is empty by construction).

Two structured kinds complete them: ``digit_union``, the cells of m digits of one random complete
grid (a dense S with few placements), and ``pigeonhole``, every row and column open except that k
spread-out rows share only k - 1 spread-out columns (no placement, yet every unit keeps many
cells: the pigeonhole principle, which resolution-based SAT solvers need exponential time to
refute, while the DAG answers in one pass).

Every generator takes a ``numpy.random.Generator``, so a seed reproduces the instances.
"""

from __future__ import annotations

import numpy as np

from ..geometry import Geometry
from ..random_grids import random_solution

__all__ = ["FAMILIES", "digit_union", "pigeonhole", "random_masks", "random_placement"]

#: The instance families ``random_masks`` draws from.
FAMILIES = ("sparse", "dense", "planted", "empty")


def random_placement(geometry: Geometry, rng: np.random.Generator) -> np.ndarray:
    """A uniformly shuffled valid placement (column per row, 0-based): one digit of a random grid."""
    values = random_solution(geometry, rng).values
    return np.argmax(values == 1, axis=1)


def digit_union(geometry: Geometry, digits: int, rng: np.random.Generator) -> np.ndarray:
    """The cells of ``digits`` digits of a random complete grid, as an (n, n) bool mask."""
    values = random_solution(geometry, rng).values
    return (values >= 1) & (values <= digits)


def pigeonhole(geometry: Geometry, k: int) -> np.ndarray:
    """Every cell except: rows 1, 3, 5, ... (k of them) only in columns 1, 3, 5, ... (k - 1 of them)."""
    n = geometry.n
    if not 2 <= k <= (n + 1) // 2:
        raise ValueError(f"k must be between 2 and {(n + 1) // 2} for a {n}x{n} grid")
    mask = np.ones((n, n), dtype=bool)
    keep = np.zeros(n, dtype=bool)
    keep[np.arange(0, 2 * (k - 1), 2)] = True
    mask[np.arange(0, 2 * k, 2)] &= keep
    return mask


def _planted(geometry: Geometry, rng: np.random.Generator) -> np.ndarray:
    n = geometry.n
    mask = rng.random((n, n)) < rng.uniform(0.0, 0.15)
    for _ in range(int(rng.integers(1, 4))):
        mask[np.arange(n), random_placement(geometry, rng)] = True
    return mask


def _hall_violation(geometry: Geometry, rng: np.random.Generator) -> np.ndarray:
    """A planted set with k rows confined to k - 1 columns (no placement; every row non-empty)."""
    n = geometry.n
    mask = _planted(geometry, rng)
    k = int(rng.integers(2, n + 1))
    rows = rng.choice(n, size=k, replace=False)
    allowed = np.zeros(n, dtype=bool)
    allowed[rng.choice(n, size=k - 1, replace=False)] = True
    for r in rows:
        mask[r] &= allowed
        if not mask[r].any():
            mask[r, rng.choice(np.flatnonzero(allowed))] = True
    return mask


def random_masks(geometry: Geometry, family: str, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random sets S of one family (see the module docstring) as a (count, n, n) bool stack."""
    n = geometry.n
    if family == "sparse" or family == "dense":
        low, high = (0.15, 0.35) if family == "sparse" else (0.6, 0.95)
        density = rng.uniform(low, high, size=(count, 1, 1))
        return rng.random((count, n, n)) < density
    if family == "planted":
        make = _planted
    elif family == "empty":
        make = _hall_violation
    else:
        raise ValueError(f"unknown instance family {family!r}; choose from {', '.join(FAMILIES)}")
    if count == 0:
        return np.zeros((0, n, n), dtype=bool)
    return np.stack([make(geometry, rng) for _ in range(count)])
