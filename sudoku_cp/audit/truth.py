"""Ground truth: what SAT says about a puzzle, decided at most once per puzzle and only when asked.

Claims about the number of solutions ("no solution", "unique", "multiple") are decided by a
complete backend (python-sat by default) with search limit 2, or by ``EXTENDED``: CaDiCaL on the
plain extended encoding the certificates use (``certify.cnf.sudoku_cnf``, ``certify.prove.decide``),
asked for a solution and then for another one; ``GroundTruth`` caches the answer for every later
run and solver.

A truth that takes the same path as the backend it audits checks that backend against itself,
so ``choose_truth`` picks one no audited backend takes (``truth_path`` says which path a name is).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..backends.base import Backend, BackendError, refusal
from ..backends.registry import make_backend
from ..checker import given_conflict
from ..grid import Grid
from ..limits import ModelTooLarge

__all__ = ["DEFAULT_TRUTH", "EXTENDED", "REMEMBERED", "GroundTruth", "Truth", "choose_truth", "truth_path"]

#: The truth when no audited backend takes its path: python-sat's batches.
DEFAULT_TRUTH = "pysat"
#: The truth name of CaDiCaL on the plain extended encoding of the certificates (no backend's path).
EXTENDED = "extended"


def truth_path(name: str) -> str:
    """The path a backend or truth name decides puzzles by: its family (``pysat:glucose4`` and
    ``pysat`` are both the python-sat batch path, ``cpsat:alldiff`` is CP-SAT), or ``extended``."""
    return name.partition(":")[0]


def choose_truth(audited: Iterable[str]) -> str:
    """A truth whose path none of the ``audited`` backend names takes: python-sat, else CP-SAT,
    else CaDiCaL on the plain extended encoding."""
    taken = {truth_path(name) for name in audited}
    return next(name for name in (DEFAULT_TRUTH, "cpsat", EXTENDED) if truth_path(name) not in taken)


@dataclass(frozen=True, slots=True)
class Truth:
    """What SAT says about a puzzle: up to two of its solutions (two means 'more than one')."""

    solutions: tuple[Grid, ...]
    reason: str = ""  # why there is no solution when SAT was not needed (equal givens)

    @property
    def count(self) -> int:
        """0, 1 or 2 (two or more)."""
        return len(self.solutions)


#: Puzzles whose truth a ``GroundTruth`` remembers (the oldest is forgotten first): enough for
#: every solver and run of a chunk, bounded for a worker process that serves batch after batch.
REMEMBERED = 100_000


class GroundTruth:
    """SAT decisions per puzzle, made at most once each (of the last ``remembered`` puzzles), with
    ``backend`` (python-sat by default; ``EXTENDED``: CaDiCaL on the plain extended encoding)."""

    def __init__(self, backend: str = DEFAULT_TRUTH, *, remembered: int = REMEMBERED) -> None:
        self.backend = backend
        self.remembered = remembered
        self._engine: Backend | None = None
        self._known: dict[Grid, Truth] = {}
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, puzzle: Grid) -> Truth:
        """The truth about ``puzzle``: a cached SAT search with limit 2."""
        known = self._known.get(puzzle)
        if known is None:
            known = self._decide(puzzle)
            if len(self._known) >= self.remembered:
                del self._known[next(iter(self._known))]
            self._known[puzzle] = known
        return known

    def _decide(self, puzzle: Grid) -> Truth:
        conflict = given_conflict(puzzle)
        if conflict is not None:
            return Truth((), f"equal givens: {conflict}")
        start = time.perf_counter()
        if self.backend == EXTENDED:
            solutions = _extended_solutions(puzzle)
        else:
            if self._engine is None:
                self._engine = make_backend(self.backend)
            found = self._engine.search(puzzle, 2)  # solutions already passed the checker (base.py)
            if found.count < 2 and not found.complete:  # an incomplete search proves nothing
                self.calls += 1
                self.seconds += time.perf_counter() - start
                raise BackendError(f"the ground truth ({self.backend}) did not finish its search")
            solutions = found.solutions[:2]
        self.calls += 1
        self.seconds += time.perf_counter() - start
        return Truth(tuple(puzzle.with_values(values) for values in solutions))


def _extended_solutions(puzzle: Grid) -> np.ndarray:
    """Up to two solutions of ``puzzle`` by CaDiCaL on the plain extended encoding: a first one,
    then one more with the first blocked, each checked as a grid."""
    from ..certify.cnf import sudoku_cnf
    from ..certify.prove import PROVER, decide

    n = puzzle.n
    found: list[np.ndarray] = []
    try:
        while len(found) < 2:
            first = puzzle.with_values(found[0]) if found else None
            decision = decide(sudoku_cnf(puzzle, first), proof=False)
            if decision.model is None:
                break
            # x(R, C, D) = (R-1)n^2 + (C-1)n + D: variable v is cell (v-1) // n holding (v-1) % n + 1.
            true = decision.model[decision.model <= n**3] - 1
            values = np.zeros(n * n, dtype=np.int16)
            values[true // n] = true % n + 1
            found.append(values.reshape(n, n))
    except ModelTooLarge as error:  # a truth that cannot be built is no truth: the verdict is unknown
        raise BackendError(f"the ground truth ({EXTENDED}): {error}") from None
    stack = np.stack(found) if found else np.zeros((0, n, n), dtype=np.int16)
    problem = refusal(puzzle.geometry, puzzle.values.reshape(-1), stack, f"{EXTENDED} (pysat:{PROVER})")
    if problem is not None:
        raise BackendError(problem)
    return stack
