"""The python-sat batch path: a whole batch of puzzles propagated at once, then a small model each.

``BatchPysat`` propagates the batch in numpy (singles), then gives each puzzle a fresh solver
(Minicard by default) holding only its open candidates: exactly one per cell, row and column, at
most one per box, "at most one" as native cardinality constraints.  Variables are numbered so
that the solver's first decisions fall on the cells with fewest candidates (ties: most candidates
among the peers).  Models are decoded and checked for the whole batch at once.  A fresh small
model beats one incremental solver under assumptions about twofold on hard 9x9 puzzles:
assumptions are re-propagated after every backjump below them and end up in every learnt clause.
"""

from __future__ import annotations

import gc
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pysat.solvers import Solver

from ..cnf.sudoku import AmoEncoding, CnfEncoding
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from ..propagation import propagate_batch
from ..verify import valid_solutions_mask
from .base import BackendError, SearchResult, checked_solutions, no_grids
from .pysat_backend import BATCH_SOLVER, DEFAULT_SOLVER, PysatBackend, check_solver_name

__all__ = ["BatchPysat", "PysatBatchBackend"]


_PROPAGATION_CELLS = 1 << 21  # candidates (puzzles * n**3) propagated and encoded at once


@dataclass(frozen=True, slots=True)
class _CompactBatch:
    """Exactly-one groups over the open candidates of a batch, variables numbered per puzzle.

    ``blocks``: for each group width w and kind (exactly one: cells, rows, columns; at most one:
    boxes), the groups of every puzzle as lists of w variables and the (B+1,) offsets of each
    puzzle's groups.  Boxes need no "at least one": their open cells hold one candidate each, the
    box's missing digits, all different, so every missing digit is there (dropping those
    clauses costs a few conflicts and saves more loading time).  Variable v of puzzle b is candidate
    ``var_digit[var_offset[b] + v - 1]`` of cell ``var_cell[...]``.
    """

    blocks: list[tuple[int, bool, list[list[int]], np.ndarray]]
    var_offset: np.ndarray
    var_cell: np.ndarray
    var_digit: np.ndarray


def _count_last(flags: np.ndarray) -> np.ndarray:
    """Number of True along the last axis, as int64.

    A matrix product for short axes (numpy's sum is slow there); ``count_nonzero`` for long ones,
    where the int64 copy the product needs would cost more than the count.
    """
    if flags.shape[-1] > 64:
        return np.count_nonzero(flags, axis=-1).astype(np.int64, copy=False)
    return np.asarray(flags.astype(np.int64) @ np.ones(flags.shape[-1], dtype=np.int64))


def _peer_sums(geometry: Geometry, counts: np.ndarray) -> np.ndarray:
    """(B, n*n) int64: for each cell, the sum of ``counts`` over its peers (row, column and box).

    Over the union of the three units: row + column + box, less the row's and the column's
    segments in the box (counted twice), less the cell itself.  Reshaped sums, no peer table.
    """
    p, q, n = geometry.p, geometry.q, geometry.n
    batch = counts.shape[0]
    grid = counts.reshape(batch, n, n).astype(np.int64)  # (B, row, column)
    bands = grid.reshape(batch, q, p, p, q)  # [band, row in band, stack, column in stack]
    box = bands.sum(axis=(2, 4), keepdims=True)
    row_segment = bands.sum(axis=4, keepdims=True)
    column_segment = bands.sum(axis=2, keepdims=True)
    inside = box - row_segment - column_segment  # the box's other cells, less the cell once
    total = grid.sum(axis=2, keepdims=True) + grid.sum(axis=1, keepdims=True) + inside.reshape(batch, n, n)
    return (total - grid).reshape(batch, n * n)


def _compact_batch(
    geometry: Geometry,
    values: np.ndarray,
    candidates: np.ndarray,
    box_clauses: bool = False,
    ranked: bool = True,
    deadline: Deadline | None = None,
) -> _CompactBatch:
    """Number the open candidates of each puzzle and list its cell and unit groups, all puzzles at once.

    ``deadline`` is checked between steps ("encoding").

    Numbering (``ranked``): cells by decreasing candidate count, ties by increasing sum of the
    peers' counts, then by index; digits in order (else plain cell order).  Minisat-family
    solvers, all activities equal, branch first on variable 1 and then downwards from the last
    variable, negated: so their first decisions fall on the cells with fewest candidates and
    most candidates among their peers.  On the forum-hardest corpus this cuts Minicard's
    conflicts from about 59 to 39 per puzzle.
    """
    n = geometry.n
    batch = values.shape[0]
    if batch == 0:
        nothing = np.zeros(0, dtype=np.int64)
        return _CompactBatch([], np.zeros(1, dtype=np.int64), nothing, nothing)
    clock = deadline or Deadline()
    open_cand = candidates & (values == 0)[:, :, None]
    counts = _count_last(open_cand)
    if ranked:
        degree = _peer_sums(geometry, counts)
        peers = 3 * n - geometry.p - geometry.q - 1  # 2(n-1) on the lines, (p-1)(q-1) more in the box
        key = degree - counts.astype(np.int64) * (n * peers + 1)
        order = np.argsort(key, axis=1, kind="stable")
    else:
        order = np.broadcast_to(np.arange(n * n), (batch, n * n))
    in_order = np.take_along_axis(open_cand, order[:, :, None], axis=1).reshape(batch, -1)
    ids = (np.cumsum(in_order, axis=1, dtype=np.int32) * in_order).reshape(batch, -1, n)
    index = np.zeros_like(ids)
    np.put_along_axis(index, order[:, :, None], ids, axis=1)
    rows, pos = np.nonzero(in_order)
    var_offset = np.zeros(batch + 1, dtype=np.int64)
    np.cumsum(in_order.sum(axis=1), out=var_offset[1:])
    clock.check("encoding")
    by_unit = index[:, geometry.units].transpose(0, 1, 3, 2).reshape(batch, 3, n * n, n)
    if box_clauses:
        tables = [(True, np.concatenate([index, by_unit.reshape(batch, -1, n)], axis=1))]
    else:
        lines = np.concatenate([index, by_unit[:, 0], by_unit[:, 1]], axis=1)
        tables = [(True, lines), (False, by_unit[:, 2])]
    blocks = []
    for exactly, table in tables:
        clock.check("encoding")
        present = table > 0
        widths = _count_last(present).ravel()
        literals = np.compress(present.ravel(), table)  # every group's variables, puzzle by puzzle
        starts = np.cumsum(widths) - widths
        per_puzzle = widths.reshape(batch, -1)
        for width in range(1, n + 1):
            chosen = per_puzzle == width
            if (width == 1 and not exactly) or not chosen.any():
                continue
            clock.check("encoding")
            offsets = np.zeros(batch + 1, dtype=np.int64)
            np.cumsum(chosen.sum(axis=1), out=offsets[1:])
            block = literals[starts[chosen.ravel()][:, None] + np.arange(width)]
            blocks.append((width, exactly, block.tolist(), offsets))
    return _CompactBatch(blocks, var_offset, order[rows, pos // n], pos % n)


def _load(oracle: Any, compact: _CompactBatch, row: int, native_amo: bool, deadline: Deadline) -> None:
    """Give a fresh solver the groups of puzzle ``row``: a clause (exactly-one groups) and an at-most-one.

    At most one is a native cardinality constraint when the solver has them, else pairwise
    clauses.  For Minicard the constraints go straight to pysat's own C functions, sparing two
    Python wrapper calls per constraint (about 5% of the batch time).  The deadline is checked
    between blocks ("encoding").
    """
    handle = getattr(oracle, "minicard", None) if native_amo else None
    if handle is not None:
        import pysolvers

        add_cl, add_am = pysolvers.minicard_add_cl, pysolvers.minicard_add_am
        for width, exactly, groups, offsets in compact.blocks:
            deadline.check("encoding")
            part = groups[offsets[row] : offsets[row + 1]]
            if width == 1:
                for group in part:
                    add_cl(handle, group)
            elif exactly:
                for group in part:
                    add_cl(handle, group)
                    add_am(handle, group, 1)
            else:
                for group in part:
                    add_am(handle, group, 1)
        return
    add_clause = oracle.add_clause
    for width, exactly, groups, offsets in compact.blocks:
        deadline.check("encoding")
        part = groups[offsets[row] : offsets[row + 1]]
        if exactly:
            for group in part:
                add_clause(group)
        if width == 1:
            continue
        if native_amo:
            add_atmost = oracle.add_atmost
            for group in part:
                add_atmost(group, 1)
            continue
        pairs = [(i, j) for i in range(width) for j in range(i + 1, width)]
        for group in part:
            for i, j in pairs:
                add_clause([-group[i], -group[j]])


class BatchPysat:
    """Batch solving: one fresh python-sat solver per puzzle on its compact exactly-one model.

    With a solver that has native cardinality constraints (Minicard, Gluecard) every group is
    one clause plus one at-most-one constraint; other solvers get pairwise clauses.  Counting
    blocks each model by its true literals, all of them grid variables.  Totals of solver
    calls and conflicts are kept in ``stats``.
    """

    def __init__(
        self,
        solver: str = BATCH_SOLVER,
        *,
        locked: bool = False,
        pairs: bool = False,
        box_clauses: bool = False,
        ranked: bool = True,
    ) -> None:
        """``locked``/``pairs``: stronger propagation first (see ``propagation``; off by default, as
        it finds nothing on the hardest puzzles); ``box_clauses``: also "at least one" per box
        and digit; ``ranked``: branching-friendly variable numbering (see ``_compact_batch``)."""
        self.solver = check_solver_name(solver)
        self.rules = {"locked": locked, "pairs": pairs}
        self.box_clauses = box_clauses
        self.ranked = ranked
        self.name = f"pysat:{solver}"
        probe = Solver(name=solver)
        self._factory: Callable[[], Any] = type(probe.solver)
        self._native_amo = bool(probe.supports_atmost()) and hasattr(probe.solver, "add_atmost")
        probe.delete()
        self.stats: dict[str, int] = {"puzzles": 0, "solver_calls": 0, "conflicts": 0}

    def search_many(
        self, puzzles: Sequence[Grid], limit: int = 1, time_limit: float | Deadline | None = None
    ) -> list[SearchResult]:
        """Up to ``limit`` checked solutions of each puzzle (any geometries), in order.

        ``time_limit`` in seconds applies to each puzzle: its solve and its share of the batch's
        propagation and encoding (which may take the sum of the shares; past it, every puzzle of
        the batch is unknown, "time limit reached during propagation"); a ``Deadline`` is one
        budget for the whole call.  Each result carries its ``seconds``: its solve time plus a
        share of the batch's propagation, encoding and checking.  Propagation finds clashing
        givens: those puzzles are unsatisfiable.  A puzzle whose solution fails the checker gets a
        result without solutions, not complete, the checker's verdict as reason.

        The cyclic garbage collector is paused meanwhile: loading allocates a few hundred
        short-lived lists per puzzle, all freed by reference counting, and the collector's
        passes over them would cost about a tenth of the batch time.
        """
        answers: list[SearchResult | None] = [None] * len(puzzles)
        by_geometry: dict[Geometry, list[int]] = {}
        for k, puzzle in enumerate(puzzles):
            by_geometry.setdefault(puzzle.geometry, []).append(k)
        collecting = gc.isenabled()
        gc.disable()
        try:
            for geometry, members in by_geometry.items():
                step = max(1, _PROPAGATION_CELLS // geometry.n**3)
                for lo in range(0, len(members), step):
                    part = members[lo : lo + step]
                    found = self._search_part(geometry, [puzzles[k] for k in part], limit, time_limit)
                    for k, answer in zip(part, found, strict=True):
                        answers[k] = answer
        finally:
            if collecting:
                gc.enable()
        return [answer for answer in answers if answer is not None]

    def _search_part(
        self,
        geometry: Geometry,
        puzzles: Sequence[Grid],
        limit: int,
        time_limit: float | Deadline | None,
    ) -> list[SearchResult]:
        start = time.perf_counter()
        n = geometry.n
        if isinstance(time_limit, Deadline):
            shared = time_limit
        else:  # the shared phases may spend every puzzle's share
            shared = Deadline(None if time_limit is None else time_limit * len(puzzles))
        givens = np.stack([p.values.reshape(-1) for p in puzzles])
        try:
            state = propagate_batch(geometry, givens, **self.rules, deadline=shared)
            values, dead = state.values, state.contradiction
            todo = np.flatnonzero(~dead & (values == 0).any(axis=1))
            forced = np.flatnonzero(~dead & (values != 0).all(axis=1))  # propagation placed every digit
            shared.check("encoding")
            compact = _compact_batch(
                geometry, values[todo], state.candidates[todo], self.box_clauses, self.ranked, shared
            )
        except TimeLimitReached as stop:
            share = (time.perf_counter() - start) / len(puzzles)
            return [SearchResult(no_grids(n), False, reason=str(stop), seconds=share) for _ in puzzles]
        share = (time.perf_counter() - start) / len(puzzles)
        seconds = np.full(len(puzzles), share)
        models: list[list[list[int]]] = [[] for _ in puzzles]
        complete = np.ones(len(puzzles), dtype=bool)
        reasons: list[str | None] = [None] * len(puzzles)
        for row, b in enumerate(todo.tolist()):
            t0 = time.perf_counter()
            if isinstance(time_limit, Deadline):
                deadline = time_limit
            else:  # the puzzle's own budget, less its share of the shared phases
                deadline = Deadline(time_limit, began=time.monotonic() - share)
            models[b], complete[b], reasons[b] = self._solve_one(compact, row, limit, deadline)
            seconds[b] += time.perf_counter() - t0
        t0 = time.perf_counter()
        decoded, decoded_owner = self._decode(compact, todo, values, models)
        owner = np.concatenate([forced, decoded_owner])
        order = np.argsort(owner, kind="stable")
        stack = np.concatenate([values[forced], decoded])[order]
        owner = owner[order]
        ok = valid_solutions_mask(Grid.empty(geometry), stack) & (
            (stack == givens[owner]) | (givens[owner] == 0)
        ).all(axis=1)
        counts = np.bincount(owner, minlength=len(puzzles))
        ends = np.cumsum(counts).tolist()
        seconds += (time.perf_counter() - t0) / len(puzzles)
        answers: list[SearchResult] = []
        for b, puzzle in enumerate(puzzles):
            count = int(counts[b])
            mine = stack[ends[b] - count : ends[b]].reshape(count, n, n)
            if not ok[ends[b] - count : ends[b]].all() or (
                count > 1 and len(np.unique(mine.reshape(count, -1), axis=0)) < count
            ):
                try:  # the independent checker's verdict, with its explanation
                    checked_solutions(puzzle, mine, self.name)
                except BackendError as error:
                    empty = stack[:0].reshape(0, n, n)
                    answers.append(SearchResult(empty, False, reason=str(error), seconds=float(seconds[b])))
                    continue
            mine.setflags(write=False)
            answers.append(
                SearchResult(
                    mine, bool(complete[b]), count=count, reason=reasons[b], seconds=float(seconds[b])
                )
            )
        self.stats["puzzles"] += len(puzzles)
        return answers

    def _solve_one(
        self, compact: _CompactBatch, row: int, limit: int, deadline: Deadline
    ) -> tuple[list[list[int]], bool, str | None]:
        """Models (true literals only) of one puzzle of the batch: (models, complete, reason)."""
        oracle = self._factory()
        try:
            try:
                _load(oracle, compact, row, self._native_amo, deadline)
            except TimeLimitReached as stop:
                return [], False, str(stop)
            found: list[list[int]] = []
            while len(found) < limit:
                self.stats["solver_calls"] += 1
                answer = solve_limited(oracle, (), deadline)
                if answer is None:
                    return found, False, REASON_TIME_LIMIT
                if not answer:
                    return found, True, None
                true = [lit for lit in oracle.get_model() if lit > 0]
                found.append(true)
                if len(found) < limit:
                    oracle.add_clause([-lit for lit in true])
            return found, False, None
        finally:
            self.stats["conflicts"] += int((oracle.accum_stats() or {}).get("conflicts", 0))
            oracle.delete()

    @staticmethod
    def _decode(
        compact: _CompactBatch, todo: np.ndarray, values: np.ndarray, models: list[list[list[int]]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The grids of all models and the puzzle of each: propagated digits plus the true candidates."""
        rows = [(row, b) for row, b in enumerate(todo.tolist()) for _ in models[b]]
        owner = np.array([b for _, b in rows], dtype=np.int64)
        stack = values[owner].copy()
        if rows:
            flat = [model for b in todo.tolist() for model in models[b]]
            lengths = np.array([len(model) for model in flat])
            lits = np.fromiter(itertools.chain.from_iterable(flat), dtype=np.int64, count=int(lengths.sum()))
            which = np.repeat(np.arange(len(flat)), lengths)
            var = compact.var_offset[np.array([row for row, _ in rows])][which] + lits - 1
            stack[which, compact.var_cell[var]] = (compact.var_digit[var] + 1).astype(stack.dtype)
        return stack, owner


class PysatBatchBackend(PysatBackend):
    """``PysatBackend`` for one puzzle; batches go to ``BatchPysat`` with ``batch_solver``.

    Plain ``pysat`` batches use Minicard on each puzzle's compact exactly-one model, the fastest
    configuration measured in ``benchmarks/batch_sat.py``; ``pysat:<name>`` uses that solver for
    both.  The batch engine is made on first use and kept.
    """

    def __init__(
        self,
        solver: str = DEFAULT_SOLVER,
        batch_solver: str = BATCH_SOLVER,
        amo: AmoEncoding = AmoEncoding.PAIRWISE,
    ) -> None:
        super().__init__(solver, CnfEncoding.OPTIMIZED, amo)
        self.batch_solver = check_solver_name(batch_solver)
        self.batch_name = f"pysat:{batch_solver}"
        self._batch: BatchPysat | None = None

    def search_many(
        self, puzzles: Sequence[Grid], limit: int = 1, time_limit: float | Deadline | None = None
    ) -> list[SearchResult]:
        """One checked result per puzzle, in order (see ``BatchPysat.search_many``)."""
        if self._batch is None:
            self._batch = BatchPysat(self.batch_solver)
        return self._batch.search_many(puzzles, limit, time_limit)
