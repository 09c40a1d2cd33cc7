"""Backends by name, as users write them after ``--backend``.

* ``pysat`` or ``pysat:<solver>``: a python-sat solver (default CaDiCaL 1.9.5), e.g. ``pysat:glucose4``;
* ``cpsat`` or ``cpsat:alldiff``: OR-tools CP-SAT on the Boolean or the AllDifferent model;
* ``dlx``: the native Algorithm X on the exact-cover model;
* ``backtrack``: propagation and minimum-remaining-values backtracking (numba, complete);
* ``acs`` or ``acs:<settings>``: the ant colony system with best value evaporation (incomplete;
  seeded), e.g. ``acs:bve=0,ants=20`` (see ``acs_backend.parse_acs_settings``);
* ``hill`` or ``hill:<settings>``: hill climbing with greedy start and random restarts
  (incomplete; seeded), e.g. ``hill:shuffle_digits=0`` (see ``hill_backend.parse_hill_settings``);
* a DIMACS solver program is chosen with ``--solver-cmd`` (``program_backend``).
"""

from __future__ import annotations

from .base import Backend, BackendError

__all__ = ["BACKEND_NAMES", "make_backend"]

BACKEND_NAMES = (
    "pysat",
    "pysat:<solver>",
    "cpsat",
    "cpsat:alldiff",
    "dlx",
    "backtrack",
    "acs",
    "acs:<settings>",
    "hill",
    "hill:<settings>",
)


def make_backend(
    spec: str = "pysat",
    *,
    encoding: str | None = None,
    amo: str | None = None,
    workers: int = 1,
    seed: int = 0,
    solver_cmd: str | None = None,
) -> Backend:
    """The backend a name stands for, with its options; BackendError for an unknown name."""
    if solver_cmd is not None:
        from .program_backend import ProgramBackend

        return ProgramBackend(solver_cmd, encoding=encoding or "optimized", amo=amo or "pairwise")
    family, _, variant = spec.partition(":")
    if family == "pysat":
        from .pysat_backend import DEFAULT_SOLVER, PysatBackend

        return PysatBackend(
            variant or DEFAULT_SOLVER, encoding=encoding or "optimized", amo=amo or "pairwise"
        )
    if family == "cpsat":
        from .cpsat_backend import CpsatBackend

        if variant not in ("", "bool", "alldiff"):
            raise BackendError(f"unknown CP-SAT model {variant!r}: use cpsat or cpsat:alldiff")
        return CpsatBackend(variant or "bool", workers=workers, seed=seed)
    if family == "dlx" and not variant:
        from .dlx_backend import DlxBackend

        return DlxBackend()
    if family == "backtrack" and not variant:
        from .backtrack_backend import BacktrackBackend

        return BacktrackBackend()
    if family == "acs":
        from .acs_backend import AcsBackend, parse_acs_settings

        return AcsBackend(parse_acs_settings(variant), seed=seed)
    if family == "hill":
        from .hill_backend import HillBackend, parse_hill_settings

        return HillBackend(parse_hill_settings(variant), seed=seed)
    raise BackendError(f"unknown backend {spec!r}: choose one of {', '.join(BACKEND_NAMES)}")
