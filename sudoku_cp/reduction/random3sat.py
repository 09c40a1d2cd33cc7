"""Uniform random 3-SAT (the SATLIB "uf" model), optionally planted-satisfiable, reproducible from a seed.

Each clause picks 3 distinct variables uniformly from 1..num_vars and negates each with
probability 1/2, independently of the other clauses (clauses may repeat).  Near the ratio
clauses/variables = 4.26 about half of such formulas are satisfiable and they are hardest for
solvers (SATLIB's uf20-91 and uf50-218 sit there).

Planted: a hidden assignment is drawn first and a drawn clause is kept only when that
assignment satisfies it (rejection: 7 of 8 clauses pass), so the formula is satisfiable by
construction; the clauses follow the uniform model conditioned on the hidden assignment.

python-sat ships no random k-SAT generator (its ``examples.genhard`` holds structured
families only), so the generator is this short numpy function.
"""

from __future__ import annotations

import numpy as np

from .formula import Formula

__all__ = ["planted_3sat", "random_3sat"]


def _draw_clauses(rng: np.random.Generator, num_vars: int, count: int) -> np.ndarray:
    """A (count, 3) int64 array of clauses over distinct variables with random signs."""
    variables = rng.integers(1, num_vars + 1, size=(count, 3))
    while True:
        # Redraw the rows that repeat a variable; few rows repeat once num_vars is moderate.
        bad = np.flatnonzero(
            (variables[:, 0] == variables[:, 1])
            | (variables[:, 0] == variables[:, 2])
            | (variables[:, 1] == variables[:, 2])
        )
        if bad.size == 0:
            break
        variables[bad] = rng.integers(1, num_vars + 1, size=(bad.size, 3))
    signs = np.where(rng.random((count, 3)) < 0.5, -1, 1)
    return np.asarray(variables * signs, dtype=np.int64)


def _check_sizes(num_vars: int, num_clauses: int) -> None:
    if num_clauses < 0:
        raise ValueError(f"number of clauses must be at least 0, not {num_clauses}")
    if num_clauses > 0 and num_vars < 3:
        raise ValueError(f"3-SAT clauses need 3 distinct variables; {num_vars} variables given")


def _formula(num_vars: int, clauses: np.ndarray) -> Formula:
    return Formula(num_vars, tuple(tuple(row) for row in clauses.tolist()))


def planted_3sat(num_vars: int, num_clauses: int, seed: int) -> tuple[Formula, tuple[bool, ...]]:
    """A random 3-SAT formula satisfied by a hidden random assignment, and that assignment."""
    _check_sizes(num_vars, num_clauses)
    rng = np.random.default_rng(seed)
    hidden = rng.random(num_vars) < 0.5
    values = np.concatenate([[False], hidden])
    kept: list[np.ndarray] = []
    missing = num_clauses
    while missing > 0:
        batch = _draw_clauses(rng, num_vars, missing + missing // 4 + 8)
        satisfied = (values[np.abs(batch)] ^ (batch < 0)).any(axis=1)
        kept.append(batch[satisfied][:missing])
        missing -= len(kept[-1])
    clauses = np.concatenate(kept) if kept else np.zeros((0, 3), dtype=np.int64)
    return _formula(num_vars, clauses), tuple(bool(v) for v in hidden)


def random_3sat(num_vars: int, num_clauses: int, seed: int, *, planted: bool = False) -> Formula:
    """A uniform random 3-SAT formula (planted-satisfiable on request); one seed, one formula."""
    if planted:
        return planted_3sat(num_vars, num_clauses, seed)[0]
    _check_sizes(num_vars, num_clauses)
    rng = np.random.default_rng(seed)
    return _formula(num_vars, _draw_clauses(rng, num_vars, num_clauses))
