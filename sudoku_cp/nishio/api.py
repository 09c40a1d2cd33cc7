"""Nishio questions answered by any method, and every method cross-checked against the others.

``solve_nishio`` runs one method and checks what it can: the witness placement passes the
placement validator, the closure lies inside S and holds the witness.  ``solve_nishio_many``
answers many instances, the DAG's in one compiled pass per geometry (``batch.py``).
``cross_check`` runs every applicable method on one instance and raises ``NishioDisagreement``
(naming both methods, both answers and the smallest differing cell) when two exact methods
differ or when the matching relaxation misses a cell of the exact closure.

Methods (``METHODS``): ``dag``, ``overlay``, ``matching``, ``sat``, ``cpsat``, ``dlx`` (the
native Algorithm X of the ``dlx`` backend; ``xc`` is accepted as its old name).  ``sat`` takes
a python-sat solver as its variant, ``sat:<solver>`` (``sat:cadical195``), like the
whole-puzzle backend ``pysat:<solver>``; plain ``sat`` is ``sat.DEFAULT_SAT_SOLVER``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial

import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, TimeLimitReached
from ..outcome import REASON_TIME_LIMIT, Status
from .batch import NishioBatch, solve_dag_batch
from .confirm import confirm_drops, confirming_solver, cover_kept, refuted_message, unconfirmed_reason
from .instance import NishioInstance
from .method import NO_PLACEMENT, Decision, NishioCount, NishioMethod
from .placement import placement_problem
from .result import REASON_RELAXATION, NishioDisagreement, NishioResult

__all__ = [
    "EXACT_METHODS",
    "METHODS",
    "METHOD_ALIASES",
    "CrossCheck",
    "NishioBatch",
    "NishioDisagreement",
    "NishioResult",
    "applicable_methods",
    "cross_check",
    "make_method",
    "method_name",
    "solve_dag_batch",
    "solve_nishio",
    "solve_nishio_many",
]

#: Every method name, in the order ``--method all`` runs them.
METHODS = ("dag", "overlay", "matching", "sat", "cpsat", "dlx")
#: Methods whose closure is exactly S' (matching is a relaxation: S' <= S'' <= S).
EXACT_METHODS = ("dag", "overlay", "sat", "cpsat", "dlx")
#: Old names still accepted: the exact-cover method was ``xc``.
METHOD_ALIASES = {"xc": "dlx"}

_OVERLAY_MAX_SIDE = 12  # 16x16 has 1.1e11 placements: pattern overlay is infeasible there


def _factories() -> dict[str, Callable[[], NishioMethod]]:
    def dag() -> NishioMethod:
        from .dag import DagNishio

        return DagNishio()

    def overlay() -> NishioMethod:
        from .overlay import OverlayNishio

        return OverlayNishio()

    def matching() -> NishioMethod:
        from .matching import MatchingNishio

        return MatchingNishio()

    def sat() -> NishioMethod:
        from .sat import SatNishio

        return SatNishio()

    def cpsat() -> NishioMethod:
        from .cpsat import CpsatNishio

        return CpsatNishio()

    def dlx() -> NishioMethod:
        from .exact_cover import DlxNishio

        return DlxNishio()

    return {"dag": dag, "overlay": overlay, "matching": matching, "sat": sat, "cpsat": cpsat, "dlx": dlx}


def method_name(name: str) -> str:
    """The method's one name: in ``METHODS``, or ``sat:<solver>`` (an alias resolved, the default
    solver's variant named ``sat``); ValueError for an unknown method or solver."""
    family, colon, variant = name.partition(":")
    if colon:
        if family != "sat":
            raise ValueError(f"unknown Nishio method {name!r}: only sat takes a variant (sat:<solver>)")
        from .sat import sat_method_name

        return sat_method_name(variant)
    name = METHOD_ALIASES.get(name, name)
    if name not in METHODS:
        raise ValueError(f"unknown Nishio method {name!r}; choose from {', '.join(METHODS)}, sat:<solver>")
    return name


@cache
def make_method(name: str) -> NishioMethod:
    """The Nishio method of that name (one of ``METHODS``, ``sat:<solver>``, or an alias), made
    once per process."""
    family, _, variant = method_name(name).partition(":")
    if variant:
        from .sat import SatNishio

        return SatNishio(variant)
    return _factories()[family]()


def applicable_methods(instance: NishioInstance) -> list[str]:
    """The methods that can answer this instance's geometry in reasonable time and memory."""
    from .dag import MAX_DAG_SIDE

    n = instance.n
    names = []
    for name in METHODS:
        if name == "dag" and n > MAX_DAG_SIDE:
            continue
        if name == "overlay" and n > _OVERLAY_MAX_SIDE:
            continue
        names.append(name)
    return names


def solve_nishio(
    instance: NishioInstance,
    method: str = "dag",
    *,
    count: bool = False,
    count_limit: int | None = None,
    time_limit: float | None = None,
) -> NishioResult:
    """Closure, decision (with a checked witness) and, when asked, the count, by one method.

    One deadline of ``time_limit`` seconds covers the three questions and the confirmation of
    the closure's dropped cells ("no placement" drops every cell): they are confirmed by a plain
    CNF and another SAT solver (``confirm.py``); a deadline that stops either gives a result with
    status unknown and no closure, never "no placement"; a refuted drop is NishioDisagreement
    naming the cell and the checked placement through it.
    """
    solver = make_method(method)
    prepare = getattr(solver, "prepare", None)
    if prepare is not None:  # per-geometry tables and compiled code, built once, are not query time
        prepare(instance.geometry)
    deadline = Deadline(time_limit)
    answer = partial(NishioResult, instance, solver.name, solver.exact)

    def stopped(reason: str | None) -> NishioResult:
        return answer(Status.UNKNOWN, None, seconds=deadline.elapsed(), reason=reason)

    closure = solver.closure(instance, deadline.remaining())
    if closure is None:
        return stopped(REASON_TIME_LIMIT)
    closure = np.asarray(closure, dtype=bool)
    decision = Decision(Status.UNKNOWN, None, REASON_RELAXATION)
    if solver.exact:
        decision = solver.decide(instance, deadline.remaining()) if closure.any() else NO_PLACEMENT
        if decision.status is Status.UNKNOWN:
            return stopped(decision.reason)
    counted = None
    if count and solver.exact:
        counted = solver.count_placements(instance, count_limit, deadline.remaining())
        if counted is None:
            return stopped(REASON_TIME_LIMIT)
    _check_answer(instance, solver.name, closure, decision, counted)
    # The closure's drops (all of S for "no placement") are claims no method may make on its own
    # word: confirmed by plain SAT with another solver, else unknown; refuted, an error.
    verdict = confirm_drops(instance, closure, solver.name, deadline)
    if verdict.confirmed is not True:
        dropped = instance.mask & ~closure
        helper = confirming_solver(solver.name)
        if verdict.confirmed is None:
            return stopped(unconfirmed_reason(instance.geometry, dropped, helper, verdict.reason or ""))
        unsat = not closure.any()
        raise NishioDisagreement(refuted_message(instance.geometry, solver.name, verdict, helper, unsat))
    # Each kept cell of an exact closure gets a checked witness placement too (a few calls: each
    # covers n cells); the matching relaxation's S'' may keep cells no placement uses.
    covered = cover_kept(instance, closure, solver.name, deadline) if solver.exact else verdict
    if covered.confirmed is None:
        return stopped(f"unconfirmed: the witnesses of the kept cells: {covered.reason}")
    if covered.confirmed is False and covered.cell is not None:
        g = instance.geometry
        name = g.cell_name(covered.cell[0] * g.n + covered.cell[1])
        raise NishioDisagreement(
            f"{solver.name} keeps {name}, but no placement inside S uses it "
            f"(plain SAT, {confirming_solver(solver.name)})"
        )
    seconds = deadline.elapsed()
    return answer(decision.status, closure, counted, decision.placement, seconds, decision.reason)


def _check_answer(
    instance: NishioInstance,
    method: str,
    closure: np.ndarray,
    decision: Decision,
    counted: NishioCount | None,
) -> None:
    """Raise NishioDisagreement when a method contradicts itself or the instance."""
    g = instance.geometry
    outside = closure & ~instance.mask
    if outside.any():
        r, c = np.argwhere(outside)[0]
        raise NishioDisagreement(
            f"{method}: closure holds {g.cell_name(int(r) * g.n + int(c))}, which is not in S"
        )
    witness = decision.placement
    if witness is not None:
        problem = placement_problem(instance, witness)
        if problem is not None:
            raise NishioDisagreement(f"{method}: returned a placement that is not valid: {problem}")
        if not closure[np.arange(g.n), witness].all():
            raise NishioDisagreement(f"{method}: its own placement is not inside its closure")
    if decision.status is Status.UNKNOWN:
        return
    satisfiable = decision.status is Status.SOLVED
    if satisfiable != bool(closure.any()):
        raise NishioDisagreement(
            f"{method}: decision ({satisfiable}) and closure ({int(closure.sum())} cells) differ"
        )
    if counted is not None and counted.complete and (counted.count > 0) != satisfiable:
        raise NishioDisagreement(f"{method}: counted {counted.count} placements but decided {satisfiable}")


def solve_nishio_many(
    instances: Iterable[NishioInstance],
    method: str = "dag",
    *,
    count: bool = False,
    count_limit: int | None = None,
    time_limit: float | None = None,
) -> list[NishioResult]:
    """``solve_nishio`` for many instances, in their order: the DAG answers each geometry in one batch.

    Other methods answer one instance at a time, each within its own ``time_limit``; the DAG's
    batch of a geometry gets ``time_limit`` for the whole batch, and when it runs out every
    instance of that geometry is unknown.  For the DAG's answers without a Python object per
    instance (and their JSON Lines), stack the masks and call ``solve_dag_batch``.
    """
    instances = list(instances)
    name = method_name(method)
    if name != "dag":
        return [
            solve_nishio(i, name, count=count, count_limit=count_limit, time_limit=time_limit)
            for i in instances
        ]
    by_geometry: dict[Geometry, list[int]] = {}
    for k, instance in enumerate(instances):
        by_geometry.setdefault(instance.geometry, []).append(k)
    results: list[NishioResult | None] = [None] * len(instances)
    for geometry, indices in by_geometry.items():
        masks = np.stack([instances[k].mask for k in indices])
        deadline = Deadline(time_limit)
        try:
            batch = solve_dag_batch(geometry, masks, count=count, count_limit=count_limit, deadline=deadline)
        except TimeLimitReached:
            for k in indices:  # stopped: an answer for none of them, never a partial closure
                results[k] = NishioResult(
                    instances[k],
                    "dag",
                    True,
                    Status.UNKNOWN,
                    None,
                    seconds=deadline.elapsed(),
                    reason=REASON_TIME_LIMIT,
                )
            continue
        for j, k in enumerate(indices):
            results[k] = batch.result(j, instances[k])
    return [result for result in results if result is not None]


@dataclass(frozen=True, slots=True, eq=False)
class CrossCheck:
    """The answers of several methods on one instance, which agree (else NishioDisagreement was raised)."""

    instance: NishioInstance
    results: dict[str, NishioResult] = field(default_factory=dict)

    @property
    def reference(self) -> NishioResult:
        """The first exact method that answered."""
        for result in self.results.values():
            if result.exact and not result.unknown:
                return result
        raise LookupError("no exact method answered")


def _first_difference(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """The first (row, column) in reading order where two masks differ."""
    r, c = np.argwhere(a != b)[0]
    return int(r), int(c)


def _name(instance: NishioInstance, rc: tuple[int, int]) -> str:
    return instance.geometry.cell_name(rc[0] * instance.n + rc[1])


def cross_check(
    instance: NishioInstance,
    methods: Sequence[str] | None = None,
    *,
    count: bool = False,
    time_limit: float | None = None,
) -> CrossCheck:
    """Run the methods (default: every applicable one) and raise NishioDisagreement unless they agree.

    Exact methods must give equal closures, decisions and complete counts; the matching closure
    must contain the exact closure.  A method stopped by its time limit is left out of the
    comparison (its result says unknown).
    """
    names = [method_name(m) for m in methods] if methods is not None else applicable_methods(instance)
    results = {name: solve_nishio(instance, name, count=count, time_limit=time_limit) for name in names}
    exact = [(r, r.closure) for r in results.values() if r.exact and r.closure is not None]
    for other, other_closure in exact[1:]:
        base, base_closure = exact[0]
        if not np.array_equal(base_closure, other_closure):
            rc = _first_difference(base_closure, other_closure)
            where = {True: "keeps", False: "drops"}
            raise NishioDisagreement(
                f"{base.method} and {other.method} disagree on the closure: {base.method} keeps "
                f"{int(base_closure.sum())} cells, {other.method} keeps {int(other_closure.sum())}; "
                f"smallest differing cell {_name(instance, rc)}: "
                f"{base.method} {where[bool(base_closure[rc])]}, "
                f"{other.method} {where[bool(other_closure[rc])]}"
            )
        a, b = base.count, other.count
        if a is not None and b is not None and a.complete and b.complete and a.count != b.count:
            raise NishioDisagreement(
                f"{base.method} counts {a.count} placements, {other.method} counts {b.count}"
            )
    if exact:
        reference_result, reference = exact[0]
        for result in results.values():
            if not result.exact and result.closure is not None:
                missed = reference & ~result.closure
                if missed.any():
                    rc = _first_difference(missed, np.zeros_like(missed))
                    raise NishioDisagreement(
                        f"{result.method} misses {_name(instance, rc)}, which {reference_result.method} "
                        "keeps: a relaxation must keep every cell of the exact closure"
                    )
    return CrossCheck(instance, results)
