"""Nishio questions answered by a SAT solver (pysat) on the CNF model of ``sudoku_cp.cnf.nishio``.

Decision is one solve.  The closure is a covering loop: after each placement, one more solve asks
for a placement using at least one cell of S not yet covered (a clause guarded by a fresh activation
literal, assumed for that solve only); the loop ends when that is unsatisfiable.  The ``enumerate``
strategy instead blocks every placement found until none is left, and takes the union.  Counting
blocks each placement on its cell variables only.  A count that reaches ``limit`` stops there and is
reported as incomplete (count = limit), even when no further placement exists.
"""

from __future__ import annotations

import threading
import time
from functools import cache

import numpy as np
from pysat.solvers import Solver

from ..cnf.nishio import NISHIO_CNF_ENCODINGS, NishioCnf, encode_nishio_cnf
from .instance import NishioInstance, SolveTimeout
from .method import NishioCount
from .model_support import Deadline, checked_placement

__all__ = ["SAT_CLOSURE_STRATEGIES", "SatNishio", "solver_interruptible"]

#: Closure strategies: the activation-literal covering loop, or enumeration of every placement.
SAT_CLOSURE_STRATEGIES = ("cover", "enumerate")


@cache
def solver_interruptible(name: str) -> bool:
    """True when the pysat solver ``name`` supports ``solve_limited`` with ``interrupt``."""
    with Solver(name=name, bootstrap_with=[[1]]) as probe:
        try:
            probe.interrupt()
            probe.clear_interrupt()
            probe.solve_limited(expect_interrupt=True)
        except NotImplementedError:
            return False
    return True


class _Session:
    """One incremental solver over a Nishio CNF, with the method's deadline."""

    def __init__(self, cnf: NishioCnf, solver: str, deadline: Deadline, interruptible: bool) -> None:
        self.cnf = cnf
        self.solver = Solver(name=solver, bootstrap_with=cnf.clauses)
        self.deadline = deadline
        self.interruptible = interruptible
        self.top = cnf.n_vars

    def close(self) -> None:
        self.solver.delete()

    def fresh(self) -> int:
        """A new variable, above every variable of the model."""
        self.top += 1
        return self.top

    def solve(self, assumptions: list[int], what: str) -> bool:
        """Satisfiable under the assumptions; SolveTimeout when the deadline stops the solve."""
        self.deadline.check(what)
        left = self.deadline.remaining()
        if left is None:
            return bool(self.solver.solve(assumptions=assumptions))
        if not self.interruptible:
            return self._solve_in_budgets(assumptions, what)
        timer = threading.Timer(left, self.solver.interrupt)
        timer.start()
        try:
            result = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            timer.join()
            self.solver.clear_interrupt()
        if result is None:
            raise SolveTimeout(f"{what}: time limit of {self.deadline.seconds} s reached")
        return bool(result)

    def _solve_in_budgets(self, assumptions: list[int], what: str) -> bool:
        """Solve in rounds of a growing conflict budget, checking the deadline between rounds.

        CaDiCaL cannot be interrupted through pysat, but it honours conflict budgets; learnt clauses
        are kept from one round to the next.
        """
        budget = 1000
        while True:
            began = time.perf_counter()
            self.solver.conf_budget(budget)
            result = self.solver.solve_limited(assumptions=assumptions)
            if result is not None:
                return bool(result)
            left = self.deadline.remaining()
            if not left:
                raise SolveTimeout(f"{what}: time limit of {self.deadline.seconds} s reached")
            # Grow the budget, but not past what the last round's pace fits into the time left.
            pace = budget / max(time.perf_counter() - began, 1e-6)
            budget = max(100, min(2 * budget, int(pace * left)))

    def placement(self, method: str) -> np.ndarray:
        """The checked placement of the current model."""
        model = self.solver.get_model()
        assert model is not None
        return checked_placement(self.cnf.instance, self.cnf.decode(model), method)

    def cell_literals(self, cols: np.ndarray) -> list[int]:
        """The cell variables of a placement."""
        return [int(self.cnf.cell_vars[r, c]) for r, c in enumerate(cols.tolist())]


class SatNishio:
    """Nishio by SAT: ``solver`` is a pysat solver name, ``amo`` the exactly-one ``EncType`` name,
    ``closure`` the closure strategy ('cover' or 'enumerate').

    ``time_limit`` stops a solve through pysat's interrupt; solvers without interrupts (CaDiCaL)
    solve in rounds of a conflict budget and check the time between rounds.
    """

    name = "sat"
    exact = True

    def __init__(self, solver: str = "cadical195", amo: str = "seqcounter", closure: str = "cover") -> None:
        if amo not in NISHIO_CNF_ENCODINGS:
            raise ValueError(f"unknown exactly-one encoding {amo!r}")
        if closure not in SAT_CLOSURE_STRATEGIES:
            raise ValueError(
                f"unknown closure strategy {closure!r} (one of {', '.join(SAT_CLOSURE_STRATEGIES)})"
            )
        self.solver = solver
        self.amo = amo
        self.closure_strategy = closure
        self.interruptible = solver_interruptible(solver)

    def __repr__(self) -> str:
        return f"SatNishio(solver={self.solver!r}, amo={self.amo!r}, closure={self.closure_strategy!r})"

    def _session(self, instance: NishioInstance, time_limit: float | None) -> _Session:
        deadline = Deadline(time_limit)
        return _Session(encode_nishio_cnf(instance, self.amo), self.solver, deadline, self.interruptible)

    def find_placement(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray | None:
        """A placement inside S as its column per row, or None when S holds none."""
        session = self._session(instance, time_limit)
        try:
            if not session.solve([], "SAT Nishio decision"):
                return None
            return session.placement(self.name)
        finally:
            session.close()

    def closure(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray:
        """The (n, n) bool mask of cells of S that lie in at least one placement inside S."""
        session = self._session(instance, time_limit)
        covered = np.zeros(instance.mask.shape, dtype=bool)
        try:
            if self.closure_strategy == "enumerate":
                while session.solve([], "SAT Nishio closure"):
                    cols = session.placement(self.name)
                    covered[np.arange(instance.n), cols] = True
                    session.solver.add_clause([-v for v in session.cell_literals(cols)])
                return covered
            if not session.solve([], "SAT Nishio closure"):
                return covered
            covered[np.arange(instance.n), session.placement(self.name)] = True
            while True:
                uncovered = session.cnf.cell_vars[instance.mask & ~covered].tolist()
                if not uncovered:
                    return covered
                act = session.fresh()
                session.solver.add_clause([-act, *uncovered])
                if not session.solve([act], "SAT Nishio closure"):
                    return covered
                # Read the model before adding a clause: CaDiCaL drops it on any change.
                covered[np.arange(instance.n), session.placement(self.name)] = True
                session.solver.add_clause([-act])
        finally:
            session.close()

    def count_placements(
        self, instance: NishioInstance, limit: int | None = None, time_limit: float | None = None
    ) -> NishioCount:
        """The number of placements inside S, stopping at ``limit`` when one is given."""
        if limit is not None and limit < 1:
            raise ValueError("limit must be at least 1")
        session = self._session(instance, time_limit)
        count = 0
        try:
            while limit is None or count < limit:
                if not session.solve([], "SAT Nishio count"):
                    return NishioCount(count, complete=True)
                cols = session.placement(self.name)
                count += 1
                session.solver.add_clause([-v for v in session.cell_literals(cols)])
            return NishioCount(count, complete=False)
        finally:
            session.close()
