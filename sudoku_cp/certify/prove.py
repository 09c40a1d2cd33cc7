"""The prover: CaDiCaL 1.9.5 through python-sat, with its DRAT proof logged.

Only CaDiCaL is used: python-sat's Maplesat writes proofs that checkers reject, and python-sat
before 1.9.dev16 truncated CaDiCaL's (the dependency floor).  The prover is not trusted: every
proof it writes is checked (``drat``) before a certificate is reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..limits import Deadline, TimeLimitReached, solve_limited
from .cnf import CertificateCnf

__all__ = ["PROVER", "Decision", "decide", "prover_info"]

#: python-sat's name of the prover.
PROVER = "cadical195"


@cache
def prover_info() -> dict[str, str]:
    """The prover's name and versions, as manifests record them."""
    import pysat

    return {"name": "CaDiCaL", "version": "1.9.5", "via": f"python-sat {pysat.__version__} ({PROVER})"}


@dataclass(frozen=True, slots=True)
class Decision:
    """What the prover found: a model (``model``: the true variables, 1-based, sorted) or a
    refutation (``proof``: DRAT text, ending with the empty clause), and its seconds."""

    model: np.ndarray | None
    proof: bytes | None
    seconds: float

    @property
    def satisfiable(self) -> bool:
        """True when the CNF has a model."""
        return self.model is not None


def decide(cnf: CertificateCnf, *, proof: bool = True, deadline: Deadline | None = None) -> Decision:
    """Decide ``cnf`` with CaDiCaL: a model, or (with ``proof``) a DRAT refutation.

    Raises ``TimeLimitReached("certification")`` when the deadline stops the solver: an unfinished
    search is never a refutation.
    """
    from pysat.solvers import Solver

    began = time.perf_counter()
    reduced = _reduced(cnf.flat, cnf.n_vars)
    clauses, derived = reduced if reduced is not None else (cnf.clauses(), [])
    with Solver(name=PROVER, bootstrap_with=clauses, with_proof=proof) as solver:
        answer = solve_limited(solver, [], deadline)
        if answer is None:
            raise TimeLimitReached("certification")
        if answer:
            model = np.asarray(solver.get_model() or [], dtype=np.int64)
            return Decision(np.sort(model[model > 0]), None, time.perf_counter() - began)
        lines = solver.get_proof() if proof else None
    text = None
    if lines is not None:
        # The literals set before the solver started are the proof's first lemmas (each is RUP:
        # unit propagation at the root of the full CNF sets it), then the solver's own proof.
        head = "".join(f"{literal} 0\n" for literal in derived)
        text = (head + "\n".join(lines) + ("\n" if lines else "")).encode("ascii")
    return Decision(None, text, time.perf_counter() - began)


def _reduced(flat: np.ndarray, n_vars: int) -> tuple[list[list[int]], list[int]] | None:
    """What the solver is given instead of the whole CNF, and the literals it takes as set.

    The CNF's unit clauses are propagated through its binary clauses (the givens exclude their
    peers: most of a Sudoku CNF); the clauses this assignment satisfies are left out and every
    assigned literal is given as a unit.  A model of what is left is a model of the CNF (each
    clause left out holds one of the assigned literals); a refutation of it becomes one of the CNF
    once the derived literals are its first lemmas.  None when the units clash (the full CNF is
    then refuted by propagation alone) or nothing would be left out.
    """
    ends = np.flatnonzero(flat == 0)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    lengths = ends - starts
    value = np.zeros(n_vars + 1, dtype=np.int8)
    units = flat[starts[lengths == 1]].astype(np.int64)
    value[np.abs(units)] = np.sign(units)
    if (value[np.abs(units)] != np.sign(units)).any():
        return None
    pairs = starts[lengths == 2]
    first, second = flat[pairs].astype(np.int64), flat[pairs + 1].astype(np.int64)
    derived: list[np.ndarray] = []
    while True:
        false_first = value[np.abs(first)] == -np.sign(first)
        false_second = value[np.abs(second)] == -np.sign(second)
        implied = np.concatenate([second[false_first], first[false_second]])
        implied = implied[value[np.abs(implied)] != np.sign(implied)]
        if implied.size == 0:
            break
        implied = np.unique(implied)
        if (value[np.abs(implied)] != 0).any() or np.intersect1d(implied, -implied).size:
            return None  # a clash: the full CNF is refuted by propagation, let the solver see it all
        value[np.abs(implied)] = np.sign(implied)
        derived.append(implied)
    if not derived:
        return None
    signs = np.sign(flat).astype(np.int8)
    true = (flat != 0) & (value[np.abs(flat)] == signs)
    satisfied = np.zeros(lengths.size, dtype=bool)
    nonempty = lengths > 0
    satisfied[nonempty] = np.add.reduceat(true, starts[nonempty]) > 0
    kept = np.repeat(~satisfied, lengths + 1)
    assigned = np.flatnonzero(value).astype(np.int64)
    literals = (assigned * value[assigned]).tolist()
    from .cnf import split_clauses

    clauses = [[literal] for literal in literals] + split_clauses(flat[kept])
    return clauses, np.concatenate(derived).tolist()
