"""python-sat's solvers by name: one table of names and aliases, and what each solver can do.

Every place that lets a user pick a python-sat solver (``pysat:<solver>`` backends, the Nishio
``sat:<solver>`` method) resolves the name here, so an alias means the same solver everywhere
and an unknown name gets the same one-line answer.

Some python-sat solvers solve a formula once and nothing more: python-sat's kissat adds no
clause after a solve (the C library aborts the process) and ignores assumptions (python-sat
warns, then solves without them).  Enumerating solutions (blocking clauses) and solving under
assumptions need an incremental solver; ``incremental`` says which are.
"""

from __future__ import annotations

from pysat.solvers import SolverNames

__all__ = ["canonical_solver", "incremental", "solver_names"]

#: python-sat's own names of the solvers that neither take clauses after a solve nor honour
#: assumptions (python-sat 1.9: its kissat binding).
_ONCE_ONLY = frozenset({"kissat404"})


def _table() -> dict[str, tuple[str, ...]]:
    return {name: tuple(aliases) for name, aliases in vars(SolverNames).items() if not name.startswith("_")}


def solver_names() -> list[str]:
    """Every solver name and alias python-sat accepts, sorted."""
    return sorted({alias for aliases in _table().values() for alias in aliases})


def canonical_solver(name: str) -> str:
    """python-sat's own name of a solver given by any of its aliases (``cd15`` -> ``cadical153``);
    ValueError naming the choices when python-sat has no solver of that name."""
    for solver, aliases in _table().items():
        if name in aliases:
            return solver
    raise ValueError(f"unknown python-sat solver {name!r}; choose from {', '.join(sorted(_table()))}")


def incremental(name: str) -> bool:
    """Whether the solver (any alias) takes clauses after a solve and honours assumptions."""
    return canonical_solver(name) not in _ONCE_ONLY
