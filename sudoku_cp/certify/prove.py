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
    with Solver(name=PROVER, bootstrap_with=cnf.clauses(), with_proof=proof) as solver:
        answer = solve_limited(solver, [], deadline)
        if answer is None:
            raise TimeLimitReached("certification")
        if answer:
            model = np.asarray(solver.get_model() or [], dtype=np.int64)
            return Decision(np.sort(model[model > 0]), None, time.perf_counter() - began)
        lines = solver.get_proof() if proof else None
    text = None
    if lines is not None:
        text = ("\n".join(lines) + "\n").encode("ascii") if lines else b""
    return Decision(None, text, time.perf_counter() - began)
