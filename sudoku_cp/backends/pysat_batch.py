"""The python-sat batch path: a whole batch of puzzles propagated at once, then a small model each.

``BatchPysat`` takes a (B, n*n) stack of puzzles (``solve_arrays``) and propagates it in numpy
(9x9: ``batch9``, singles, locked candidates and pairs on uint16
candidate sets; other sizes: ``propagation``, singles), then, a slice of puzzles at a time, gives
each puzzle left open a fresh solver (Minicard by default) holding only its open candidates:
exactly one per cell, row and column, at most one per box, "at most one" as native cardinality
constraints.  Variables are numbered so that the solver's first decisions fall on the cells with
fewest candidates (ties: most candidates among the peers).  Models are decoded for the whole batch at once
and the answers come back as arrays (``base.BatchAnswers``), to be checked in one pass by
``base.checked_answers``.  A fresh
small model beats one incremental solver under assumptions about twofold on hard 9x9 puzzles:
assumptions are re-propagated after every backjump below them and end up in every learnt clause.
On the small leftovers of easy puzzles the two are even (measured): loading a model costs about
0.4 us a constraint.
"""

from __future__ import annotations

import gc
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from pysat.solvers import Solver

from ..cnf.sudoku import AmoEncoding, CnfEncoding
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from ..propagation import propagate_batch
from .base import Backend, BackendError, BatchAnswers
from .batch9 import candidate_table, placed_digits, propagate_masks
from .confirm import confirm_no_more, confirmed_answers
from .pysat_backend import BATCH_SOLVER, BIG_SIDE, DEFAULT_SOLVER, PysatBackend, check_solver_name

__all__ = ["ARRAY_SIDE", "BatchPysat", "PysatBatchBackend"]


_PROPAGATION_CELLS = 1 << 22  # candidates (puzzles * n**3) propagated at once
_ENCODING_STEP = 256  # puzzles encoded at once (then solved) within a propagated part
#: The largest grid side whose batches ``BatchPysat`` answered as arrays before every backend did
#: (kept for the benchmarks that name it).
ARRAY_SIDE = 16


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


def _count(flags: np.ndarray, axis: int = -1) -> np.ndarray:
    """Number of True along ``axis``, as int64.

    Short axes (up to 64) as a sum of slices viewed as uint8: numpy's reductions along a short
    axis pay per output element, the slices are a few passes over contiguous memory.
    """
    size = flags.shape[axis]
    if size > 64:
        return np.count_nonzero(flags, axis=axis).astype(np.int64, copy=False)
    moved = np.moveaxis(flags, axis, 0)
    total = np.zeros(moved.shape[1:], dtype=np.uint8)
    for part in moved:
        total += part.view(np.uint8)
    return total.astype(np.int64)


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
    p, q, n = geometry.p, geometry.q, geometry.n
    batch = values.shape[0]
    if batch == 0:
        nothing = np.zeros(0, dtype=np.int64)
        return _CompactBatch([], np.zeros(1, dtype=np.int64), nothing, nothing)
    clock = deadline or Deadline()
    open_cand = candidates & (values == 0)[:, :, None]
    counts = _count(open_cand)  # (B, n*n)
    if ranked:
        degree = _peer_sums(geometry, counts)
        peers = 3 * n - p - q - 1  # 2(n-1) on the lines, (p-1)(q-1) more in the box
        key = degree - counts * (n * peers + 1)
        order = np.argsort(key, axis=1, kind="stable")
    else:
        order = np.broadcast_to(np.arange(n * n), (batch, n * n))
    # Variables of a puzzle: cell by cell in ``order``, digits in order within a cell; a cell's
    # first variable follows the candidates of the cells before it in that order.
    in_order = np.take_along_axis(counts, order, axis=1)
    before = np.empty_like(in_order)
    np.put_along_axis(before, order, np.cumsum(in_order, axis=1) - in_order, axis=1)
    flat = np.flatnonzero(open_cand)  # every open candidate, puzzle by puzzle, cell by cell
    where = flat // n  # its (puzzle, cell)
    cell_first = np.cumsum(counts.ravel()) - counts.ravel()  # in ``flat``, each cell's first candidate
    numbers = before.ravel()[where] + np.arange(flat.size) - cell_first[where] + 1  # 1-based, per puzzle
    index = np.zeros(open_cand.size, dtype=np.int16 if n**3 < 2**15 else np.int64)
    index[flat] = numbers
    var_offset = np.zeros(batch + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=1), out=var_offset[1:])
    owner = where // (n * n)
    var_cell = np.empty(flat.size, dtype=np.int64)
    var_digit = np.empty(flat.size, dtype=np.int64)
    slot = var_offset[owner] + numbers - 1
    var_cell[slot], var_digit[slot] = where % (n * n), flat % n
    clock.check("encoding")
    grid = index.reshape(batch, n, n, n)  # [puzzle, row, column, digit]
    per_cell = open_cand.reshape(batch, n, n, n)
    by_box = per_cell.reshape(batch, q, p, p, q, n)  # [puzzle, band, row in band, stack, column, digit]
    # Groups by unit then digit (as geometry.units numbers units), each group's variables in its
    # unit's cell order; the width of each group.  Exactly one: cells, rows, columns (and boxes
    # with ``box_clauses``); at most one: boxes.
    kinds = 4 if box_clauses else 3
    table = np.empty((batch, kinds, n * n, n), dtype=index.dtype)
    table[:, 0] = index.reshape(batch, n * n, n)
    table[:, 1] = grid.transpose(0, 1, 3, 2).reshape(batch, n * n, n)
    table[:, 2] = grid.transpose(0, 2, 3, 1).reshape(batch, n * n, n)
    boxes = grid.reshape(by_box.shape).transpose(0, 1, 3, 5, 2, 4).reshape(batch, n * n, n)
    if box_clauses:
        table[:, 3] = boxes
    box_widths = _count(by_box, 2).sum(axis=3).reshape(batch, n * n)
    widths = [counts, _count(per_cell, 2).reshape(batch, n * n), _count(per_cell, 1).reshape(batch, n * n)]
    tables: list[tuple[bool, np.ndarray, np.ndarray]] = [
        (True, table, np.stack(widths + [box_widths] * box_clauses, axis=1))
    ]
    if not box_clauses:
        tables.append((False, boxes, box_widths))
    blocks = []
    for exactly, groups, group_widths in tables:
        clock.check("encoding")
        entries = np.ascontiguousarray(groups).ravel()
        # Every group's variables, puzzle by puzzle (``compress``: a third of the time of ``entries[mask]``).
        literals = np.compress(entries > 0, entries)
        per_puzzle = group_widths.reshape(batch, -1)
        flat_widths = per_puzzle.ravel()
        starts = np.cumsum(flat_widths) - flat_widths
        for width in range(1, n + 1):
            chosen = per_puzzle == width
            if (width == 1 and not exactly) or not chosen.any():
                continue
            clock.check("encoding")
            offsets = np.zeros(batch + 1, dtype=np.int64)
            np.cumsum(_count(chosen), out=offsets[1:])
            block = np.take(literals, np.compress(chosen.ravel(), starts)[:, None] + np.arange(width))
            blocks.append((width, exactly, block.tolist(), offsets))
    return _CompactBatch(blocks, var_offset, var_cell, var_digit)


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


def _open_and_forced(values: np.ndarray, dead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows left for the solver (open cells, no contradiction) and rows propagation finished."""
    todo = np.flatnonzero(~dead & (values == 0).any(axis=1))
    forced = np.flatnonzero(~dead & (values != 0).all(axis=1))  # propagation placed every digit
    return todo, forced


def _nothing(geometry: Geometry, size: int, seconds: float, reason: str) -> BatchAnswers:
    """The answers of a part stopped before any search: no solution, not complete, ``reason``."""
    return BatchAnswers(
        geometry,
        np.zeros((size, geometry.n**2), dtype=np.int16),
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=bool),
        np.full(size, seconds),
        dict.fromkeys(range(size), reason),
    )


def _joined(geometry: Geometry, parts: Sequence[BatchAnswers], size: int) -> BatchAnswers:
    """The answers of consecutive parts as one."""
    offsets = np.cumsum([0] + [len(part) for part in parts]).tolist()
    reasons, more, stats = {}, {}, {}
    for offset, part in zip(offsets, parts, strict=False):
        reasons.update({offset + k: reason for k, reason in part.reasons.items()})
        more.update({offset + k: rest for k, rest in part.more.items()})
        stats.update({offset + k: found for k, found in part.stats.items()})
    return BatchAnswers(
        geometry,
        np.concatenate([part.solutions for part in parts]),
        np.concatenate([part.counts for part in parts]),
        np.concatenate([part.complete for part in parts]),
        np.concatenate([part.seconds for part in parts]),
        reasons,
        more,
        stats,
    )


class BatchPysat(Backend):
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
        confirmed: bool = True,
    ) -> None:
        """``locked``/``pairs``: stronger propagation first on grids other than 9x9 (see
        ``propagation``; 9x9 always has both, see ``_propagate``); ``box_clauses``: also "at least
        one" per box and digit; ``ranked``: branching-friendly variable numbering (see ``_compact_batch``).
        ``confirmed=False``: the raw search, its claims of exhaustion not confirmed (only for
        ``confirm.confirm_search_counts``, where it is itself the other path confirming the
        ``backtrack`` backend's claims)."""
        self.confirmed = confirmed
        self.solver = check_solver_name(solver, incremental_only=True)
        self.rules = {"locked": locked, "pairs": pairs}
        self.box_clauses = box_clauses
        self.ranked = ranked
        self.name = f"pysat:{solver}"
        probe = Solver(name=solver)
        self._factory: Callable[[], Any] = type(probe.solver)
        self._native_amo = bool(probe.supports_atmost()) and hasattr(probe.solver, "add_atmost")
        probe.delete()
        self.stats: dict[str, int] = {"puzzles": 0, "solver_calls": 0, "conflicts": 0}

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """Raw: up to ``limit`` solutions of each row of a (B, n*n) stack of puzzles, in order
        (``keep=False``: the counts alone; the grids are found all the same).

        ``time_limit`` in seconds applies to each puzzle: its solve and its share of the batch's
        propagation and encoding (which may take the sum of the shares; past it, every puzzle of
        the batch is unknown, "time limit reached during propagation"); a ``Deadline`` is one
        budget for the whole call.  Each answer carries its ``seconds``: its solve time plus a
        share of the batch's propagation and encoding.  Propagation finds clashing givens: those
        puzzles are unsatisfiable.

        The cyclic garbage collector is paused meanwhile: loading allocates a few hundred
        short-lived lists per puzzle, all freed by reference counting, and the collector's
        passes over them would cost about a tenth of the batch time.
        """
        stack = np.asarray(values, dtype=np.int16).reshape(-1, geometry.n**2)
        step = max(1, _PROPAGATION_CELLS // geometry.n**3)
        collecting = gc.isenabled()
        gc.disable()
        try:
            parts = [
                self._search_part(geometry, stack[lo : lo + step], limit, time_limit)
                for lo in range(0, len(stack), step)
            ]
        finally:
            if collecting:
                gc.enable()
        joined = parts[0] if len(parts) == 1 else _joined(geometry, parts, len(stack))
        if keep:
            return joined
        return replace(joined, solutions=np.zeros_like(joined.solutions), more={})

    def _propagate(
        self, geometry: Geometry, givens: np.ndarray, deadline: Deadline
    ) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """Placed digits (B, n*n), contradictions (B,), and a function giving the candidates of some rows.

        9x9 batches of 3x3 boxes go to ``batch9`` (candidate sets in uint16) with locked candidates and pairs,
        whatever the rules asked: cheap there, and each puzzle they finish or shrink saves more
        in loading than they cost (of the first 10,000 17-clue puzzles, singles and locked
        candidates leave 1,956 open, pairs then 1,216, with 58% fewer candidates in all; on
        forum-hardest they find nothing and cost under 1%).  Other sizes go to ``propagation``
        with the rules asked.
        """
        if (geometry.p, geometry.q) == (3, 3):  # batch9's units are 3x3 boxes' (not 1x9, 9x1)
            masks, dead = propagate_masks(givens, locked=True, pairs=True, deadline=deadline)
            return placed_digits(masks), dead, lambda rows: candidate_table(masks[rows])
        state = propagate_batch(geometry, givens, **self.rules, deadline=deadline)
        return state.values, state.contradiction, lambda rows: state.candidates[rows]

    def _search_part(
        self,
        geometry: Geometry,
        givens: np.ndarray,
        limit: int,
        time_limit: float | Deadline | None,
    ) -> BatchAnswers:
        start = time.perf_counter()
        size = len(givens)
        if isinstance(time_limit, Deadline):
            shared = time_limit
        else:  # the shared phases may spend every puzzle's share
            shared = Deadline(None if time_limit is None else time_limit * size)
        try:
            values, dead, candidates_of = self._propagate(geometry, givens, shared)
        except TimeLimitReached as stop:
            share = (time.perf_counter() - start) / max(size, 1)
            return _nothing(geometry, size, share, str(stop))
        todo, forced = _open_and_forced(values, dead)
        share = (time.perf_counter() - start) / max(size, 1)
        seconds = np.full(size, share)
        models: list[list[list[int]]] = [[] for _ in range(size)]
        # Nothing is complete until something decided it: a contradiction propagation found, a
        # grid propagation filled (the checker still looks at it), or a finished search below.
        # A row no branch reaches stays unknown, never "searched, no solution" (unsat).
        complete = np.zeros(size, dtype=bool)
        complete[dead] = True
        complete[forced] = True
        handled = complete.copy()
        reasons: dict[int, str] = {}
        decoded: list[tuple[np.ndarray, np.ndarray]] = []
        # Encoded and solved a slice at a time: the arrays of a slice stay in the caches (on
        # forum-hardest, encoding slices of 256 takes a fifth less time than one of 4,096).
        for lo in range(0, len(todo), _ENCODING_STEP):
            rows = todo[lo : lo + _ENCODING_STEP]
            t0 = time.perf_counter()
            try:
                if isinstance(time_limit, Deadline):
                    budget = time_limit
                else:  # the shared phases may spend every puzzle's share
                    budget = Deadline(None if time_limit is None else time_limit * len(rows))
                budget.check("encoding")
                compact = _compact_batch(
                    geometry, values[rows], candidates_of(rows), self.box_clauses, self.ranked, budget
                )
            except TimeLimitReached as stop:
                rest = todo[lo:]
                complete[rest], handled[rest] = False, True
                reasons.update(dict.fromkeys(rest.tolist(), str(stop)))
                seconds[rest] += time.perf_counter() - t0
                break
            encoding = (time.perf_counter() - t0) / len(rows)
            for row, b in enumerate(rows.tolist()):
                t0 = time.perf_counter()
                if isinstance(time_limit, Deadline):
                    deadline = time_limit
                else:  # the puzzle's own budget, less its share of the shared phases
                    deadline = Deadline(time_limit, began=time.monotonic() - share - encoding)
                models[b], complete[b], reason = self._solve_one(compact, row, limit, deadline)
                handled[b] = True
                if reason is not None:
                    reasons[b] = reason
                seconds[b] += time.perf_counter() - t0 + encoding
            decoded.append(self._decode(compact, rows, values, models))
        for b in np.flatnonzero(~handled).tolist():
            reasons[b] = f"backend {self.name} ran no search on this puzzle (an internal error): undecided"
        t0 = time.perf_counter()
        stack = np.concatenate([values[:0]] + [grids for grids, _ in decoded])
        owner = np.concatenate([np.zeros(0, dtype=np.int64)] + [owners for _, owners in decoded])
        answers = self._gathered(geometry, givens, values, forced, stack, owner, complete, reasons)
        seconds += (time.perf_counter() - t0) / max(size, 1)
        self.stats["puzzles"] += size
        if not self.confirmed:  # the raw search: the caller compares it with another complete search
            return replace(answers, seconds=seconds)
        answers = self._unsat_confirmed(answers, givens, time_limit, seconds)
        return self._counts_confirmed(answers, givens, limit, time_limit, seconds)

    def _unsat_confirmed(
        self,
        answers: BatchAnswers,
        givens: np.ndarray,
        time_limit: float | Deadline | None,
        seconds: np.ndarray,
    ) -> BatchAnswers:
        """The answers with every "no solution" claim (propagation's contradiction, or a search on
        the optimized model) confirmed on the plain extended encoding (``confirm``): one not
        confirmed in time is unknown, one refuted an error (a bug, named).  Rare in practice
        (a corpus's puzzles have solutions), so each is solved on its own."""
        claimed = np.flatnonzero(answers.complete & (answers.counts == 0)).tolist()
        if not claimed:
            return answers
        geometry = answers.geometry
        n = geometry.n
        complete = answers.complete.copy()
        reasons, errors = dict(answers.reasons), dict(answers.errors)
        for b in claimed:
            t0 = time.perf_counter()
            deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(time_limit)
            puzzle = Grid(geometry, givens[b].reshape(n, n))
            try:
                reason = confirm_no_more(
                    puzzle, [], deadline, claimant=None, name=self.name, finder=f"{self.name}'s batch path"
                )
            except BackendError as error:
                complete[b] = False
                errors[b] = str(error)
            else:
                if reason is not None:
                    complete[b] = False
                    reasons[b] = reason
            seconds[b] += time.perf_counter() - t0
        return replace(answers, complete=complete, reasons=reasons, errors=errors)

    def _counts_confirmed(
        self,
        answers: BatchAnswers,
        givens: np.ndarray,
        limit: int,
        time_limit: float | Deadline | None,
        seconds: np.ndarray,
    ) -> BatchAnswers:
        """The answers with every "exactly these solutions" claim (under ``limit`` 2, "unique")
        confirmed by another path (``confirm.confirmed_answers``: the native count, a batch at
        once): one not confirmed in time is unknown, one refuted an error naming the claim.

        Such a claim comes from a search of our own compact model with the solutions found
        blocked, or from our propagation filling the grid; both are this path's own work, and a
        wrong "no more" has no grid for the checker to refuse.  "No solution" was confirmed on
        the extended CNF already (``_unsat_confirmed``).
        """
        return confirmed_answers(
            answers,
            givens,
            limit,
            time_limit,
            name=self.name,
            finder=f"{self.name}'s batch path",
            seconds=seconds,
            unsat=False,
        )

    def _gathered(
        self,
        geometry: Geometry,
        givens: np.ndarray,
        values: np.ndarray,
        forced: np.ndarray,
        decoded: np.ndarray,
        decoded_owner: np.ndarray,
        complete: np.ndarray,
        reasons: dict[int, str],
    ) -> BatchAnswers:
        """The answers of a part: the grids propagation filled and the decoded models, by puzzle."""
        size, cells = givens.shape
        owner = np.concatenate([forced, decoded_owner]).astype(np.int64)
        order = np.argsort(owner, kind="stable")
        stack = np.concatenate([values[forced], decoded]).astype(np.int16)[order]
        owner = owner[order]
        counts = np.bincount(owner, minlength=size)
        firsts = np.cumsum(counts) - counts  # the first solution of each puzzle in the stack
        solutions = np.zeros((size, cells), dtype=np.int16)
        has = np.flatnonzero(counts)
        solutions[has] = stack[firsts[has]]
        more = {b: stack[firsts[b] + 1 : firsts[b] + counts[b]] for b in np.flatnonzero(counts > 1).tolist()}
        return BatchAnswers(geometry, solutions, counts, complete, np.zeros(size), reasons, more)

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
    """``BatchPysat`` with ``batch_solver`` for batches; ``PysatBackend`` (``solver``) for the rest.

    Plain ``pysat`` batches use Minicard on each puzzle's compact exactly-one model, the fastest
    configuration measured in ``benchmarks/batch_sat.py``; ``pysat:<name>`` uses that solver for
    both.  Grids from ``pysat_backend.BIG_SIDE`` on (few puzzles, each a big model, searched by a
    portfolio) and counts (``keep=False``: CaDiCaL blocks models fastest) go puzzle by puzzle to
    ``PysatBackend``.  The batch engine is made on first use and kept.
    """

    batches = True

    def __init__(
        self,
        solver: str = DEFAULT_SOLVER,
        batch_solver: str = BATCH_SOLVER,
        amo: AmoEncoding = AmoEncoding.PAIRWISE,
    ) -> None:
        super().__init__(solver, CnfEncoding.OPTIMIZED, amo)
        self.batch_solver = check_solver_name(batch_solver, incremental_only=True)
        self._batch: BatchPysat | None = None

    @property
    def batch_name(self) -> str:
        """The batch solver's name, e.g. ``pysat:minicard``."""
        return f"pysat:{self.batch_solver}"

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """Raw answers for a (B, n*n) stack of puzzles: ``BatchPysat``, or one by one (see above)."""
        if geometry.n >= BIG_SIDE or not keep:
            return super().solve_arrays(geometry, values, limit, time_limit, keep)
        return self._engine().solve_arrays(geometry, values, limit, time_limit, keep)

    def _engine(self) -> BatchPysat:
        if self._batch is None:
            self._batch = BatchPysat(self.batch_solver)
        return self._batch
