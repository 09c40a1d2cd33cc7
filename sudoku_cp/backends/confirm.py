"""Claims of "no (more) solution" confirmed by another path than the one that made them.

A solver program's UNSAT claim, or our own propagation's contradiction and our own model's
search, could be wrong in ways the solution checker never sees (there is no grid to check).  So
such a claim is solved again by python-sat's CaDiCaL (``CONFIRM_SOLVER``, the certificates'
prover) on the plain ``extended`` encoding of ``certify.cnf.sudoku_cnf`` (the givens as unit
clauses, no propagation, no optimized model), with the solutions already found blocked.  A
solution found there refutes the claim (a ``BackendError`` naming it, after the grid itself is
checked); a time limit or a model too big leaves the answer unknown (the reason is returned).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..certify.cnf import sudoku_cnf
from ..certify.prove import PROVER
from ..checker import valid_solutions_mask
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, solve_limited
from ..outcome import REASON_TIME_LIMIT
from .base import BackendError, refusal

__all__ = ["CONFIRM_SOLVER", "confirm_no_more"]

CONFIRM_SOLVER = PROVER
"""The python-sat solver that confirms UNSAT claims (the certificates' prover, CaDiCaL 1.9.5)."""


def confirm_no_more(
    puzzle: Grid,
    found: Sequence[np.ndarray],
    deadline: Deadline,
    *,
    claimant: str | None,
    name: str,
    finder: str = "our propagation",
) -> str | None:
    """Check an UNSAT claim (no solution beyond ``found``) on the plain extended encoding:
    None when confirmed, else the unknown reason.

    ``claimant`` is the program that made the claim, None for our own work (``finder``: what of
    ours found the puzzle contradictory); ``name`` the backend answering.  A time
    limit reached first, or an extended CNF too large for memory, is the unknown reason; a
    model found refutes the claim (a BackendError naming it, after the model is checked as
    a grid).
    """
    from pysat.solvers import Solver

    who = f"the UNSAT claim of solver program {claimant!r}" if claimant else f"{finder}'s contradiction"
    known = np.stack(found) if found else None
    if known is not None:  # a wrong grid blocked here would make the confirmation meaningless
        problem = refusal(puzzle.geometry, puzzle.values.reshape(-1), known, name)
        if problem is not None:
            raise BackendError(problem)
    try:
        # The first solution found is blocked by sudoku_cnf itself; any further ones (counting)
        # by the same clause in the same numbering.
        first = None if known is None else puzzle.with_values(known[0])
        clauses = sudoku_cnf(puzzle, first).clauses()
    except ModelTooLarge as error:
        return f"cannot confirm {who}: {error}"
    n = puzzle.n
    cells = np.arange(n * n, dtype=np.int64) * n
    for values in [] if known is None else known[1:]:
        clauses.append((-(cells + values.reshape(-1).astype(np.int64))).tolist())
    with Solver(name=CONFIRM_SOLVER, bootstrap_with=clauses) as solver:
        answer = solve_limited(solver, [], deadline)
        model = solver.get_model() if answer else None
    if answer is None:
        return f"{REASON_TIME_LIMIT} while confirming {who}"
    if model is None:
        return None
    # x(R, C, D) = (R-1)n^2 + (C-1)n + D: variable v is cell (v-1) // n holding (v-1) % n + 1.
    true = np.asarray([lit for lit in model if 0 < lit <= n**3], dtype=np.int64) - 1
    values = np.zeros(n * n, dtype=np.int16)
    values[true // n] = true % n + 1
    if not valid_solutions_mask(puzzle, values.reshape(1, n, n))[0]:  # the confirmer's own grid
        raise BackendError(f"pysat:{CONFIRM_SOLVER} returned a wrong solution while confirming {who}")
    count = 0 if known is None else len(known)
    what = "no solution" if not count else f"no solution beyond the {count} found"
    if claimant is None:
        raise BackendError(
            f"{finder} found the puzzle contradictory but pysat:{CONFIRM_SOLVER} found a valid "
            "solution on the extended encoding: a bug in the propagation"
        )
    raise BackendError(
        f"solver program {claimant!r} claimed UNSAT ({what}) but pysat:{CONFIRM_SOLVER} "
        "found a valid solution: the program's answer is wrong"
    )
