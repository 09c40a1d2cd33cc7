"""The backtracking backend: the bitset search of ``native.bitset``, a whole batch per call.

A batch (``solve_arrays``) is searched by one compiled kernel walk (``native.backtrack.search_batch``);
its answers then pass the checker in one vectorised pass (``base.checked_answers``) like every
backend's.  This search is the native count that confirms the other backends' claims, so its own
claims of exhaustion ("no solution", "unique", an exact count) are confirmed by another path: the
pysat batch path's raw complete search of the same batch (``confirm.confirmed_answers`` with
``by="search"``: its own propagation and Minicard on its own model, no code of this search's), two
independent searches agreeing; what it leaves undecided goes to the plain extended CNF.  One not
confirmed in time is unknown, one refuted (or a disagreement) an error naming both.  Measured
against the CNF confirmation (``by="cnf"``) in ``benchmarks/unique_confirm.py``.
"""

from __future__ import annotations

import functools
import time
from typing import Literal

import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, ModelTooLarge
from ..native import NativeInputError
from ..native.backtrack import BatchRun, search_batch
from ..outcome import REASON_TIME_LIMIT
from .base import Backend, BatchAnswers
from .confirm import Confirmed, confirm_search_counts, confirmed_answers
from .pysat_batch import BatchPysat

__all__ = ["BacktrackBackend"]


@functools.cache
def _raw_search() -> Backend:
    """The pysat batch path's raw search (its own propagation, Minicard on its compact model), the
    other complete search that confirms this one; made once: building one probes a solver."""
    return BatchPysat(confirmed=False)


class BacktrackBackend(Backend):
    """Complete bitset search (singles, locked candidates, scored guesses); counts without storing.

    It answers a batch in one compiled call per geometry and remembers the pace of its last run
    on each geometry to size its first chunk of work.
    """

    name = "backtrack"
    #: The path confirming this search's claims (``confirm.confirmed_answers``'s ``by``).
    confirm_by: Literal["cnf", "search"] = "search"

    def __init__(self) -> None:
        self._budget: dict[Geometry, int] = {}

    def _search(
        self,
        geometry: Geometry,
        givens: np.ndarray,
        limit: int,
        keep: bool,
        time_limit: float | Deadline | None,
    ) -> BatchRun:
        run = search_batch(
            geometry, givens, limit=limit, keep=keep, time_limit=time_limit, budget=self._budget.get(geometry)
        )
        self._budget[geometry] = run.budget
        return run

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """Up to ``limit`` solutions of each row of a (B, n*n) stack (``_unconfirmed``), every claim
        of exhaustion confirmed by the pysat batch path's raw search (``by="search"``): this
        search's own word is what confirms the other backends, so it cannot confirm itself."""
        began = time.monotonic()
        answers = self._unconfirmed(geometry, values, limit, time_limit, keep)
        by: Literal["cnf"] | functools.partial[Confirmed] = (
            "cnf"
            if self.confirm_by == "cnf"
            else functools.partial(confirm_search_counts, searcher=_raw_search())
        )
        return confirmed_answers(
            answers,
            values,
            limit,
            time_limit,
            name=self.name,
            finder=f"backend {self.name}",
            by=by,
            began=began,
        )

    def _unconfirmed(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int,
        time_limit: float | Deadline | None,
        keep: bool,
    ) -> BatchAnswers:
        """Raw: up to ``limit`` solutions of each row of a (B, n*n) stack of puzzles, in one kernel walk.

        ``time_limit`` in seconds applies to each puzzle, a ``Deadline`` is one budget for the
        whole call.  Clashing givens make a puzzle unsatisfiable (complete, no solution); a grid
        beyond 64x64 is every puzzle's failure.  Each answer's ``seconds`` is its share of the
        search (in proportion to its nodes) and of the batch's other work.
        """
        began = time.perf_counter()
        size = geometry.n**2
        givens = np.asarray(values, dtype=np.int16).reshape(-1, size)
        batch = len(givens)
        try:
            run = self._search(geometry, givens, limit, keep, time_limit)
        except (NativeInputError, ModelTooLarge) as error:
            failure = f"{self.name}: {error}"
            seconds = np.full(batch, (time.perf_counter() - began) / max(batch, 1))
            nothing = np.zeros(batch, dtype=np.int64)
            return BatchAnswers(
                geometry, np.zeros((batch, size), np.int16), nothing, nothing.astype(bool), seconds,
                errors=dict.fromkeys(range(batch), failure),
            )  # fmt: skip
        stack, counts = run.solutions, run.counts
        solutions = np.zeros((batch, size), stack.dtype)
        more: dict[int, np.ndarray] = {}
        stats: dict[int, dict[str, float | int]] = (
            {k: {"nodes": int(nodes)} for k, nodes in enumerate(run.nodes.tolist())} if batch == 1 else {}
        )
        if keep:
            ends = np.cumsum(counts)
            starts = ends - counts
            found = counts > 0
            solutions[found] = stack[starts[found]]
            more = {k: stack[starts[k] + 1 : ends[k]] for k in np.flatnonzero(counts > 1).tolist()}
        reasons = dict.fromkeys(np.flatnonzero(run.timed_out).tolist(), REASON_TIME_LIMIT)
        overhead = (time.perf_counter() - began - float(run.seconds.sum())) / max(batch, 1)
        return BatchAnswers(
            geometry,
            solutions,
            counts.copy(),
            run.complete.copy(),
            run.seconds + overhead,
            reasons,
            more,
            stats,
        )
