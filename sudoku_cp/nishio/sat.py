"""Nishio questions answered by a SAT solver (pysat) on the CNF model of ``sudoku_cp.nishio.cnf``.

Decision is one solve.  The closure is a covering loop: after each placement, one more solve asks
for a placement using at least one cell of S not yet covered (a clause guarded by a fresh activation
literal, assumed for that solve only); the loop ends when that is unsatisfiable.  The ``enumerate``
strategy instead blocks every placement found until none is left, and takes the union.  Counting
blocks each placement on its cell variables only.  A count that reaches ``limit`` stops there and is
reported as incomplete (count = limit), even when no further placement exists.

Every solve runs through ``sudoku_cp.limits.solve_limited`` against the method's one deadline:
solvers with interrupts are stopped by a timer, CaDiCaL in rounds of a conflict budget paced to
the time left, so the limit holds inside one long solve too.  A stopped question answers unknown.

The solver is any python-sat solver, named as the method's variant: ``sat:glucose4``, as the
whole-puzzle backend's ``pysat:<solver>``; plain ``sat`` is ``DEFAULT_SAT_SOLVER``.
"""

from __future__ import annotations

import numpy as np
from pysat.solvers import Solver

from ..cnf.sudoku import AmoEncoding
from ..limits import Deadline, solve_limited
from ..outcome import REASON_TIME_LIMIT
from ..sat_solvers import canonical_solver, incremental
from .cnf import NishioCnf, encode_nishio_cnf
from .instance import NishioInstance
from .method import NO_PLACEMENT, Decision, NishioCount, NishioMethod
from .placement import checked_placement

__all__ = ["DEFAULT_SAT_SOLVER", "SAT_CLOSURE_STRATEGIES", "SatNishio", "sat_method_name"]

#: Closure strategies: the activation-literal covering loop, or enumeration of every placement.
SAT_CLOSURE_STRATEGIES = ("cover", "enumerate")

#: The python-sat solver of plain ``sat``: CaDiCaL 1.5.3, the version of Debian's ``cadical``
#: program, whose search it repeats conflict for conflict on the same CNF.  Over 14 family instances
#: CaDiCaL 1.9.5 took the same CPU time in geometric mean, but 0.3 to 4.5 times the program's
#: on single instances (benchmarks/README.md, "Nishio by SAT: which solver").
DEFAULT_SAT_SOLVER = "cadical153"


def sat_method_name(solver: str) -> str:
    """The method's one name for a python-sat solver: ``sat`` for the default, else
    ``sat:<solver>`` with python-sat's own name of the solver (aliases resolved); ValueError for
    an unknown solver or one that ignores assumptions."""
    solver = canonical_solver(solver)
    if not incremental(solver):
        raise ValueError(
            f"python-sat's {solver} ignores assumptions, which sat's closure needs; choose another"
        )
    return "sat" if solver == DEFAULT_SAT_SOLVER else f"sat:{solver}"


class _Session:
    """One incremental solver over a Nishio CNF, with the method's deadline."""

    def __init__(self, cnf: NishioCnf, solver: str, deadline: Deadline, method: str) -> None:
        self.cnf = cnf
        self.solver = Solver(name=solver, bootstrap_with=cnf.clauses)
        self.deadline = deadline
        self.method = method
        self.top = cnf.n_vars

    def close(self) -> None:
        self.solver.delete()

    def fresh(self) -> int:
        """A new variable, above every variable of the model."""
        self.top += 1
        return self.top

    def solve(self, assumptions: list[int]) -> bool | None:
        """Satisfiable under the assumptions: True, False, or None when the deadline stops it."""
        return solve_limited(self.solver, assumptions, self.deadline)

    def placement(self) -> np.ndarray:
        """The checked placement of the current model."""
        model = self.solver.get_model() or []  # no model decodes to no placement, which fails the check
        return checked_placement(self.cnf.instance, self.cnf.decode(model), self.method)

    def block(self, cols: np.ndarray) -> None:
        """Forbid this placement: a clause over its cell variables."""
        rows = np.arange(cols.size)
        self.solver.add_clause((-self.cnf.cell_var(rows, cols)).tolist())


class SatNishio(NishioMethod):
    """Nishio by SAT: ``solver`` is a pysat solver name (the method is named ``sat:<solver>``, or
    ``sat`` for the default), ``amo`` the exactly-one ``AmoEncoding``, ``closure`` the closure
    strategy ('cover' or 'enumerate').

    ``time_limit`` bounds each question (see the module docstring for how a solve is stopped).
    """

    exact = True

    def __init__(
        self,
        solver: str = DEFAULT_SAT_SOLVER,
        amo: AmoEncoding | str = AmoEncoding.SEQCOUNTER,
        closure: str = "cover",
    ) -> None:
        if closure not in SAT_CLOSURE_STRATEGIES:
            raise ValueError(
                f"unknown closure strategy {closure!r} (one of {', '.join(SAT_CLOSURE_STRATEGIES)})"
            )
        self.name = sat_method_name(solver)
        self.solver = canonical_solver(solver)
        self.amo = AmoEncoding(amo)
        self.closure_strategy = closure

    def __repr__(self) -> str:
        return f"SatNishio(solver={self.solver!r}, amo={self.amo.value!r}, closure={self.closure_strategy!r})"

    def _session(self, instance: NishioInstance, deadline: Deadline) -> _Session:
        return _Session(encode_nishio_cnf(instance, self.amo), self.solver, deadline, self.name)

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """A placement inside S as its column per row, or none; unknown when the limit stops the solve."""
        session = self._session(instance, deadline)
        try:
            answer = session.solve([])
            if answer is None:
                return Decision.unknown(REASON_TIME_LIMIT)
            return Decision.found(session.placement()) if answer else NO_PLACEMENT
        finally:
            session.close()

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        """The (n, n) bool mask of cells of S that lie in at least one placement inside S."""
        session = self._session(instance, deadline)
        try:
            if self.closure_strategy == "enumerate":
                return self._enumerated(session)
            return self._covered(session)
        finally:
            session.close()

    @staticmethod
    def _enumerated(session: _Session) -> np.ndarray | None:
        """The union of every placement, each blocked once found."""
        instance = session.cnf.instance
        covered = np.zeros(instance.mask.shape, dtype=bool)
        while (answer := session.solve([])) is True:
            cols = session.placement()
            covered[np.arange(instance.n), cols] = True
            session.block(cols)
        return None if answer is None else covered

    @staticmethod
    def _covered(session: _Session) -> np.ndarray | None:
        """The covering loop: each solve must use a cell of S not yet covered (an activation literal)."""
        instance = session.cnf.instance
        covered = np.zeros(instance.mask.shape, dtype=bool)
        answer = session.solve([])
        if not answer:
            return None if answer is None else covered
        covered[np.arange(instance.n), session.placement()] = True
        while True:
            # Cell variables are the positions in S plus one: the uncovered ones, read off the mask.
            uncovered = (np.flatnonzero(~covered[instance.rows, instance.cols]) + 1).tolist()
            if not uncovered:
                return covered
            act = session.fresh()
            session.solver.add_clause([-act, *uncovered])
            answer = session.solve([act])
            if not answer:
                return None if answer is None else covered
            # Read the model before adding a clause: CaDiCaL drops it on any change.
            covered[np.arange(instance.n), session.placement()] = True
            session.solver.add_clause([-act])

    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount | None:
        """The number of placements inside S, stopping at ``limit`` when one is given."""
        session = self._session(instance, deadline)
        count = 0
        try:
            while limit is None or count < limit:
                answer = session.solve([])
                if answer is None:
                    return None
                if not answer:
                    return NishioCount(count, complete=True)
                session.block(session.placement())
                count += 1
            return NishioCount(count, complete=False)
        finally:
            session.close()
