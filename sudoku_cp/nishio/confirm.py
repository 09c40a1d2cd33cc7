"""Every "no placement" claim of a Nishio method confirmed by a different path before it is reported.

A closure makes two kinds of claim: each cell it keeps lies in some placement, and each cell of S
it drops lies in none ("no placement inside S" is the claim that every cell is dropped).  A
wrong drop is the fail-open kind: an elimination, or an unsat, that is not true.  So before a
single method's closure is reported (``api.solve_nishio``, the DAG's batches), its dropped cells
are confirmed here by one SAT call per instance, on a path no method shares:

* the plain CNF written out in this module (variable = position of the cell in the universe
  plus one; for each row, column and box of the grid "at least one" over its cells and pairwise
  "at most one"; units wider than ``_PAIRWISE_MAX`` take python-sat's ladder encoding, so the
  sparse reduction instances of side 30,000 stay small), not ``nishio/cnf.py``'s encoder that
  the ``sat`` method uses;
* a python-sat solver other than the one under test (``confirming_solver``: Glucose 4, or
  MiniSat 2.2 to confirm ``sat:glucose4``);
* one clause, guarded by an activation literal, asking for a placement that uses *any* dropped
  cell: UNSAT confirms every drop at once; a model is decoded, checked by
  ``placement.placement_problem`` and reported as the refutation, naming the dropped cell it uses.

A batch shares one solver whose universe is the union of the batch's sets; each instance
assumes its cells outside S false, and its activation clause is retired after its call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from ..geometry import Geometry
from ..limits import Deadline, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from .instance import NishioInstance
from .placement import placement_problem
from .result import NishioDisagreement

__all__ = [
    "Confirmation",
    "DropConfirmer",
    "confirm_batch",
    "confirm_drops",
    "confirming_solver",
    "cover_kept",
    "refuted_message",
    "unconfirmed_reason",
]

#: Units with more cells than this take the ladder "at most one" instead of pairwise clauses.
_PAIRWISE_MAX = 64
_DEFAULT = "glucose4"
#: Calls of one batch's shared solver before a fresh one: 256 took 0.6x the time per call of
#: one solver for 11,917 instances of sudoku_exchange_diabolical (64: 0.76x), same run.
_RENEW = 256
_FALLBACK = "minisat22"


def confirming_solver(method: str) -> str:
    """The python-sat solver that confirms ``method``'s claims: never the one under test."""
    return _FALLBACK if method.partition(":")[2] in ("glucose4", "glucose41", "glucose42") else _DEFAULT


@dataclass(frozen=True, slots=True)
class Confirmation:
    """The confirming path's verdict on "no placement uses any of these cells".

    ``confirmed`` True: UNSAT, the drops hold; False: ``placement`` (checked, column per row) uses
    ``cell``, a dropped cell; None: stopped by the deadline (``reason`` says so).
    """

    confirmed: bool | None
    placement: np.ndarray | None = None
    cell: tuple[int, int] | None = None
    reason: str | None = None


def unconfirmed_reason(geometry: Geometry, dropped: np.ndarray, solver: str, why: str) -> str:
    """The reason of an unknown answer whose drops the confirming path did not settle."""
    cells = np.argwhere(dropped)
    first = geometry.cell_name(int(cells[0][0]) * geometry.n + int(cells[0][1]))
    return (
        f"unconfirmed: that no placement uses {first}"
        + (f" or {len(cells) - 1} other dropped cells" if len(cells) > 1 else "")
        + f" was not confirmed by plain SAT ({solver}): {why}"
    )


def refuted_message(geometry: Geometry, method: str, verdict: Confirmation, solver: str, unsat: bool) -> str:
    """The error naming a refuted claim: the dropped cell and the checked placement through it."""
    r, c = verdict.cell if verdict.cell is not None else (0, 0)
    name = geometry.cell_name(r * geometry.n + c)
    cols = [] if verdict.placement is None else [int(col) + 1 for col in verdict.placement]
    claim = (
        f"{method} says no placement inside S, but one uses {name}"
        if unsat
        else f"{method} drops {name}, but a placement uses it"
    )
    return f"{claim} (found by plain SAT, {solver}, and checked: columns {cols} by row)"


class DropConfirmer:
    """One incremental solver over the plain CNF of a universe of cells of one geometry."""

    def __init__(
        self, geometry: Geometry, rows: np.ndarray, cols: np.ndarray, solver: str = _DEFAULT
    ) -> None:
        n = geometry.n
        self.geometry = geometry
        self.solver_name = solver
        self.keys = np.unique(np.asarray(rows, dtype=np.int64) * n + np.asarray(cols, dtype=np.int64))
        self.solver = Solver(name=solver)
        top = len(self.keys)
        r, c = self.keys // n, self.keys % n
        # Units computed here from (p, q), not read from Geometry.units as every encoder does.
        unit_ids = (r, c, (r // geometry.p) * geometry.p + c // geometry.q)
        self.empty_unit = False
        for ids in unit_ids:
            order = np.argsort(ids, kind="stable")
            bounds = np.searchsorted(ids[order], np.arange(n + 1))
            for u in range(n):
                members = (order[bounds[u] : bounds[u + 1]] + 1).tolist()
                if not members:
                    self.empty_unit = True  # no placement at all; nothing to solve
                    continue
                self.solver.add_clause(members)
                if len(members) <= _PAIRWISE_MAX:
                    for i, a in enumerate(members):
                        for b in members[i + 1 :]:
                            self.solver.add_clause([-a, -b])
                else:
                    amo = CardEnc.atmost(members, 1, top_id=top, encoding=EncType.ladder)
                    top = max(top, amo.nv)
                    self.solver.append_formula(amo.clauses)
        self.top = top

    def close(self) -> None:
        """Free the solver."""
        self.solver.delete()

    def confirm(
        self, keys: np.ndarray, dropped: np.ndarray, deadline: Deadline | None = None
    ) -> Confirmation:
        """Is there a placement inside S (flat ``keys`` r*n+c, sorted, within the universe) using a
        cell of ``dropped`` (flat keys)?  UNSAT confirms the drops."""
        inside = np.zeros(len(self.keys), dtype=bool)
        inside[np.searchsorted(self.keys, keys)] = True
        chosen = np.zeros(len(self.keys), dtype=bool)
        chosen[np.searchsorted(self.keys, dropped)] = True
        return self.confirm_positions(inside, chosen, deadline)

    def confirm_positions(
        self, inside: np.ndarray, dropped: np.ndarray, deadline: Deadline | None = None
    ) -> Confirmation:
        """``confirm`` with S and the dropped cells as bool vectors over the universe's cells."""
        if self.empty_unit:
            return Confirmation(True)
        outside = (-(np.flatnonzero(~inside) + 1)).tolist()
        wanted = (np.flatnonzero(dropped) + 1).tolist()
        self.top += 1
        act = self.top
        self.solver.add_clause([-act, *wanted])
        answer = solve_limited(self.solver, [*outside, act], deadline)
        model = self.solver.get_model() if answer else None  # read before the next clause
        self.solver.add_clause([-act])  # retired: the next instance's calls never see it
        if answer is None:
            return Confirmation(None, reason=REASON_TIME_LIMIT)
        if not answer:
            return Confirmation(True)
        return self._refutation(self.keys[inside], self.keys[dropped], model or [])

    def cover(self, inside: np.ndarray, kept: np.ndarray, deadline: Deadline | None = None) -> Confirmation:
        """Witnesses for the kept cells (bool vectors over the universe): placements inside S, each
        checked, until every kept cell lies in one.  ``confirmed`` True: all covered; False:
        ``cell`` is kept but no placement inside S uses it; None: stopped by the deadline."""
        n = self.geometry.n
        uncovered = np.array(kept, dtype=bool)
        while uncovered.any():
            # The same call as a drop's: "a placement through any of these cells?"
            verdict = self.confirm_positions(inside, uncovered, deadline)
            if verdict.confirmed is None:
                return verdict
            if verdict.confirmed or verdict.placement is None:  # none uses a cell left: kept wrongly
                first = int(self.keys[np.flatnonzero(uncovered)[0]])
                return Confirmation(False, None, (first // n, first % n))
            uncovered &= ~np.isin(self.keys, np.arange(n) * n + verdict.placement)
        return Confirmation(True)

    def _refutation(self, keys: np.ndarray, dropped: np.ndarray, model: Sequence[int]) -> Confirmation:
        """The model as a checked placement through a dropped cell (else the confirming path is wrong)."""
        g = self.geometry
        n = g.n
        lits = np.asarray(model, dtype=np.int64)
        true = self.keys[lits[(lits > 0) & (lits <= len(self.keys))] - 1]
        instance = NishioInstance.from_coordinates(g, keys // n, keys % n)
        cols = np.full(n, -1, dtype=np.int64)
        cols[true // n] = true % n
        problem = placement_problem(instance, cols) if len(true) == n else "not one cell per row"
        used = np.intersect1d(true, dropped)
        if problem is not None or not used.size:
            raise NishioDisagreement(
                f"the confirming SAT path ({self.solver_name}) returned a model that is no placement "
                f"through a dropped cell: {problem or 'it uses none'}"
            )
        return Confirmation(False, cols, (int(used[0]) // n, int(used[0]) % n))


def confirm_drops(
    instance: NishioInstance, closure: np.ndarray, method: str, deadline: Deadline | None = None
) -> Confirmation:
    """Confirm that no placement inside S uses a cell of S outside ``closure`` (True when none is dropped)."""
    dropped = np.flatnonzero(instance.mask.reshape(-1) & ~np.asarray(closure, dtype=bool).reshape(-1))
    if not dropped.size:
        return Confirmation(True)
    confirmer = DropConfirmer(instance.geometry, instance.rows, instance.cols, confirming_solver(method))
    try:
        return confirmer.confirm(instance.keys, dropped, deadline)
    finally:
        confirmer.close()


def cover_kept(
    instance: NishioInstance, closure: np.ndarray, method: str, deadline: Deadline | None = None
) -> Confirmation:
    """A checked witness placement for every cell ``closure`` keeps, by the confirming path
    (``DropConfirmer.cover``): ``confirmed`` False names a kept cell no placement uses."""
    kept = np.asarray(closure, dtype=bool).reshape(-1)[instance.keys]
    if not kept.any():
        return Confirmation(True)
    confirmer = DropConfirmer(instance.geometry, instance.rows, instance.cols, confirming_solver(method))
    try:
        return confirmer.cover(np.ones(instance.size, dtype=bool), kept, deadline)
    finally:
        confirmer.close()


def confirm_batch(
    geometry: Geometry,
    masks: np.ndarray,
    closures: np.ndarray,
    method: str,
    deadline: Deadline | None = None,
) -> int:
    """Confirm the drops of a batch's closures ((B, n, n) bool each), one SAT call per instance
    that drops a cell, on one solver shared by the batch; returns the number of calls.

    Raises ``TimeLimitReached`` when the deadline stops a call (the whole batch is then unknown,
    as the DAG's batches are), ``NishioDisagreement`` naming the instance and the cell when a
    drop is refuted.
    """
    n = geometry.n
    flat = np.asarray(masks, dtype=bool).reshape(-1, n * n)
    dropped = flat & ~np.asarray(closures, dtype=bool).reshape(-1, n * n)
    todo = np.flatnonzero(dropped.any(axis=1))
    if not todo.size:
        return 0
    universe = np.flatnonzero(flat[todo].any(axis=0))
    solver = confirming_solver(method)
    confirmer = DropConfirmer(geometry, universe // n, universe % n, solver)
    inside, chosen = flat[:, universe], dropped[:, universe]  # over the universe's cells
    try:
        for done, k in enumerate(todo.tolist()):
            if done and done % _RENEW == 0:  # retired activation literals slow every later call
                confirmer.close()
                confirmer = DropConfirmer(geometry, universe // n, universe % n, solver)
            verdict = confirmer.confirm_positions(inside[k], chosen[k], deadline)
            if verdict.confirmed is None:
                raise TimeLimitReached(f"the confirmation of {method}'s eliminations")
            if verdict.confirmed is False:
                unsat = not closures.reshape(-1, n * n)[k].any()
                raise NishioDisagreement(
                    f"instance {k}: " + refuted_message(geometry, method, verdict, solver, unsat)
                )
    finally:
        confirmer.close()
    return int(todo.size)
