"""Nishio questions answered by any method, and every method cross-checked against the others.

``solve_nishio`` runs one method and checks what it can: the witness placement passes the
placement validator, the closure lies inside S and holds the witness.  ``cross_check`` runs
every applicable method on one instance and raises ``NishioDisagreement`` (naming both
methods, both answers and the smallest differing cell) when two exact methods differ or when
the matching relaxation misses a cell of the exact closure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .instance import NishioInstance, SolveTimeout, placement_problem
from .method import NishioCount, NishioMethod

__all__ = [
    "EXACT_METHODS",
    "METHODS",
    "CrossCheck",
    "NishioDisagreement",
    "NishioResult",
    "applicable_methods",
    "cross_check",
    "make_method",
    "solve_nishio",
]

#: Every method name, in the order ``--method all`` runs them.
METHODS = ("dag", "overlay", "matching", "sat", "cpsat", "xc")
#: Methods whose closure is exactly S' (matching is a relaxation: S' <= S'' <= S).
EXACT_METHODS = ("dag", "overlay", "sat", "cpsat", "xc")

_OVERLAY_MAX_SIDE = 12  # 16x16 has 1.1e11 placements: pattern overlay is infeasible there


class NishioDisagreement(AssertionError):
    """Two Nishio methods gave different answers on one instance (a bug in one of them)."""


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

    def xc() -> NishioMethod:
        from .exact_cover import XcNishio

        return XcNishio()

    return {"dag": dag, "overlay": overlay, "matching": matching, "sat": sat, "cpsat": cpsat, "xc": xc}


@cache
def make_method(name: str) -> NishioMethod:
    """The Nishio method of that name (one of ``METHODS``)."""
    factories = _factories()
    if name not in factories:
        raise ValueError(f"unknown Nishio method {name!r}; choose from {', '.join(METHODS)}")
    return factories[name]()


def applicable_methods(instance: NishioInstance) -> list[str]:
    """The methods that can answer this instance's geometry in reasonable time and memory."""
    import importlib.util

    from .dag import MAX_DAG_SIDE

    n = instance.n
    names = []
    for name in METHODS:
        module = {"sat": "sat", "cpsat": "cpsat", "xc": "exact_cover"}.get(name, name)
        if importlib.util.find_spec(f"{__package__}.{module}") is None:
            continue
        if name == "dag" and n > MAX_DAG_SIDE:
            continue
        if name == "overlay" and n > _OVERLAY_MAX_SIDE:
            continue
        names.append(name)
    return names


@dataclass(frozen=True, slots=True, eq=False)
class NishioResult:
    """One method's answer about one instance.

    ``satisfiable``: S holds a placement (None when unknown, or for the matching relaxation,
    which does not decide); ``closure``: S' as an (n, n) bool mask (None when unknown);
    ``count``: the placement count when asked; ``witness``: a checked placement (column per row).
    """

    instance: NishioInstance
    method: str
    exact: bool
    satisfiable: bool | None
    closure: np.ndarray | None
    count: NishioCount | None = None
    witness: np.ndarray | None = None
    seconds: float = 0.0
    error: str | None = None

    @property
    def unknown(self) -> bool:
        """True when a time limit stopped the method before it answered."""
        return self.closure is None

    @property
    def eliminated(self) -> np.ndarray | None:
        """Cells of S outside the closure, as an (n, n) bool mask."""
        return None if self.closure is None else self.instance.mask & ~self.closure

    def to_json(self) -> dict[str, object]:
        """A JSON-ready object: n, box, method, satisfiable, closure, eliminated, count, seconds."""
        g = self.instance.geometry
        obj: dict[str, object] = {
            "n": g.n,
            "box": g.box_label,
            "method": self.method,
            "exact": self.exact,
            "status": "unknown" if self.unknown else "ok",
            "satisfiable": self.satisfiable,
            "cells": self.instance.size,
            "closure": _cell_list(self.closure),
            "eliminated": _cell_list(self.eliminated),
        }
        if self.count is not None:
            obj["count"] = self.count.count
            obj["count_exact"] = self.count.complete
        if self.error:
            obj["error"] = self.error
        obj["seconds"] = round(self.seconds, 6)
        return obj


def _cell_list(mask: np.ndarray | None) -> list[list[int]] | None:
    if mask is None:
        return None
    return [[int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(mask), strict=True)]


def solve_nishio(
    instance: NishioInstance,
    method: str = "dag",
    *,
    count: bool = False,
    count_limit: int | None = None,
    time_limit: float | None = None,
) -> NishioResult:
    """Closure, decision (with a checked witness) and, when asked, the count, by one method.

    A time limit that stops the method gives a result with ``unknown`` True, never "no placement".
    """
    solver = make_method(method)
    prepare = getattr(solver, "prepare", None)
    if prepare is not None:  # per-geometry tables and compiled code, built once, are not query time
        prepare(instance.geometry)
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit

    def left() -> float | None:
        return None if deadline is None else max(0.0, deadline - time.perf_counter())

    try:
        closure = np.asarray(solver.closure(instance, left()), dtype=bool)
        witness = None
        satisfiable: bool | None
        if solver.exact:
            witness = solver.find_placement(instance, left()) if closure.any() else None
            satisfiable = witness is not None
        else:
            satisfiable = None
        counted = solver.count_placements(instance, count_limit, left()) if count and solver.exact else None
    except SolveTimeout as stop:
        return NishioResult(
            instance, method, solver.exact, None, None, seconds=time.perf_counter() - start, error=str(stop)
        )
    seconds = time.perf_counter() - start
    _check_answer(instance, method, closure, witness, satisfiable, counted)
    return NishioResult(instance, method, solver.exact, satisfiable, closure, counted, witness, seconds)


def _check_answer(
    instance: NishioInstance,
    method: str,
    closure: np.ndarray,
    witness: np.ndarray | None,
    satisfiable: bool | None,
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
    if witness is not None:
        problem = placement_problem(instance, witness)
        if problem is not None:
            raise NishioDisagreement(f"{method}: returned a placement that is not valid: {problem}")
        if not closure[np.arange(g.n), witness].all():
            raise NishioDisagreement(f"{method}: its own placement is not inside its closure")
    if satisfiable is not None and satisfiable != bool(closure.any()):
        raise NishioDisagreement(
            f"{method}: decision ({satisfiable}) and closure ({int(closure.sum())} cells) differ"
        )
    if (
        counted is not None
        and counted.complete
        and satisfiable is not None
        and (counted.count > 0) != satisfiable
    ):
        raise NishioDisagreement(f"{method}: counted {counted.count} placements but decided {satisfiable}")


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
    names = list(methods) if methods is not None else applicable_methods(instance)
    results = {name: solve_nishio(instance, name, count=count, time_limit=time_limit) for name in names}
    exact = [r for r in results.values() if r.exact and not r.unknown]
    for other in exact[1:]:
        base = exact[0]
        assert base.closure is not None and other.closure is not None
        if not np.array_equal(base.closure, other.closure):
            rc = _first_difference(base.closure, other.closure)
            where = {True: "keeps", False: "drops"}
            raise NishioDisagreement(
                f"{base.method} and {other.method} disagree on the closure: {base.method} keeps "
                f"{int(base.closure.sum())} cells, {other.method} keeps {int(other.closure.sum())}; "
                f"smallest differing cell {_name(instance, rc)}: "
                f"{base.method} {where[bool(base.closure[rc])]}, "
                f"{other.method} {where[bool(other.closure[rc])]}"
            )
        a, b = base.count, other.count
        if a is not None and b is not None and a.complete and b.complete and a.count != b.count:
            raise NishioDisagreement(
                f"{base.method} counts {a.count} placements, {other.method} counts {b.count}"
            )
    if exact:
        reference = exact[0].closure
        assert reference is not None
        for result in results.values():
            if not result.exact and result.closure is not None:
                missed = reference & ~result.closure
                if missed.any():
                    rc = _first_difference(missed, np.zeros_like(missed))
                    raise NishioDisagreement(
                        f"{result.method} misses {_name(instance, rc)}, which {exact[0].method} keeps: "
                        f"a relaxation must keep every cell of the exact closure"
                    )
    return CrossCheck(instance, results)
