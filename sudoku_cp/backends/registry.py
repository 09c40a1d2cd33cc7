"""Backends by name, as users write them after ``--backend``.

* ``pysat`` or ``pysat:<solver>``: a python-sat solver (default CaDiCaL 1.9.5), e.g. ``pysat:glucose4``;
* ``cpsat`` or ``cpsat:alldiff``: OR-tools CP-SAT on the Boolean or the AllDifferent model;
* ``dlx``: the native Algorithm X on the exact-cover model;
* ``backtrack``: propagation and minimum-remaining-values backtracking (numba, complete);
* ``acs`` or ``acs:<settings>``: the ant colony system with best value evaporation (incomplete;
  seeded), e.g. ``acs:bve=0,ants=20`` (see ``acs_backend.parse_acs_settings``);
* ``hill`` or ``hill:<settings>``: hill climbing with greedy start and random restarts
  (incomplete; seeded), e.g. ``hill:shuffle_digits=0`` (see ``hill_backend.parse_hill_settings``);
* ``ils`` or ``ils:<settings>``: iterated local search with constraint programming (incomplete;
  seeded), e.g. ``ils:tenure=3,strength=2`` (see ``ils_backend.parse_ils_settings``);
* a DIMACS solver program is chosen with ``--solver-cmd`` (``program_backend``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Backend, BackendError

if TYPE_CHECKING:
    from ..cnf.sudoku import AmoEncoding, CnfEncoding

__all__ = ["BACKEND_NAMES", "backend_name", "make_backend"]

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
    "ils",
    "ils:<settings>",
)


def make_backend(
    spec: str = "pysat",
    *,
    encoding: CnfEncoding | str | None = None,
    amo: AmoEncoding | str | None = None,
    workers: int = 1,
    seed: int = 0,
    solver_cmd: str | None = None,
    trust_solver: bool = False,
) -> Backend:
    """The backend a name stands for, with its options; BackendError for an unknown name.

    ``encoding`` and ``amo`` (an enum or its value) choose the CNF model of the SAT backends;
    without ``encoding``, ``pysat`` and ``pysat:<solver>`` also solve batches all at once
    (``PysatBatchBackend``).  ``trust_solver`` takes a ``solver_cmd`` program's UNSAT claims
    unconfirmed (``ProgramBackend(trust=True)``).
    """
    family, _, variant = spec.partition(":")
    if solver_cmd is not None or family == "pysat":
        from ..cnf.sudoku import AmoEncoding, CnfEncoding

        cnf_encoding = CnfEncoding(encoding or CnfEncoding.OPTIMIZED)
        amo_encoding = AmoEncoding(amo or AmoEncoding.PAIRWISE)
        if solver_cmd is not None:
            from .program_backend import ProgramBackend

            return ProgramBackend(solver_cmd, encoding=cnf_encoding, amo=amo_encoding, trust=trust_solver)
        from .pysat_backend import BATCH_SOLVER, DEFAULT_SOLVER, PysatBackend
        from .pysat_batch import PysatBatchBackend

        if encoding is not None:  # a chosen CNF model: puzzle by puzzle
            return PysatBackend(variant or DEFAULT_SOLVER, cnf_encoding, amo_encoding)
        # Batches ignore the at-most-one encoding: their model uses native cardinality constraints.
        return PysatBatchBackend(variant or DEFAULT_SOLVER, variant or BATCH_SOLVER, amo=amo_encoding)
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
    if family == "ils":
        from .ils_backend import IlsBackend, parse_ils_settings

        return IlsBackend(parse_ils_settings(variant), seed=seed)
    raise BackendError(f"unknown backend {spec!r}: choose one of {', '.join(BACKEND_NAMES)}")


def backend_name(
    spec: str = "pysat",
    *,
    encoding: CnfEncoding | str | None = None,
    solver_cmd: str | None = None,
    batch: bool = False,
    side: int | None = None,
) -> str:
    """The name ``make_backend`` would give the backend, without making it (the name is not checked).

    With ``batch``, the name of what solves a batch (``BatchBackend.batch_name``): plain
    ``pysat`` batches are solved by Minicard, so their name is ``pysat:minicard``, unless every
    grid has ``side`` ``pysat_backend.BIG_SIDE`` or more (``side``: the smallest): those go one by
    one to the single-puzzle solver.
    """
    if solver_cmd is not None:
        return f"program:{solver_cmd}"
    family, _, variant = spec.partition(":")
    if family == "pysat":
        from .pysat_backend import BATCH_SOLVER, BIG_SIDE, DEFAULT_SOLVER

        arrays = batch and encoding is None and (side is None or side < BIG_SIDE)
        default = BATCH_SOLVER if arrays else DEFAULT_SOLVER
        return f"pysat:{variant or default}"
    if family == "cpsat":
        return "cpsat" if variant in ("", "bool") else f"cpsat:{variant}"
    return family
