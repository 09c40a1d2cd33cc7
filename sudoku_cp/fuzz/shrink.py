"""Shrinking a failure to a small puzzle that fails the same way.

The *kind* of a failure (``failure_kind``) is what must stay: a wrong answer making the same
claim ("wrong:unsat", "wrong:solved", ...), a crash, or a timeout.  Three steps, each keeping
only changes that fail the same kind:

1. smaller box shapes first: cases of the same status and symbols form are made on every shape
   of a smaller side, smallest first, ``SHAPE_TRIES`` per shape; the first that fails is taken;
2. givens removed by delta debugging (ddmin): the givens cut into halves, then quarters, ...,
   then single givens, each part's removal tried; a removal that still fails is kept and the
   cut coarsened again;
3. symbols relabelled toward small ones: the digits used renamed 1, 2, ... in order, then each
   digit, largest first, swapped with the smallest one that still fails.

After a relabelling one more pass of single-given removals runs, so the result is 1-minimal: no
single given can be removed, and no smaller shape tried failed the same way (``minimal`` False
when the deadline cut the search short).  Candidates of one step go out together, so with
``--jobs`` they run in parallel; the first failing one in order is taken, as one at a time
would, so the result does not depend on the jobs.  The calls go to the run's one ``CallPool``
(``pool``): no step starts worker processes of its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from ..audit.answers import Verdict
from ..audit.judge import pack_grid
from ..executor import Executor
from ..grid import Grid
from ..limits import Deadline
from .calls import Call, Outcome
from .cases import CaseKey, shapes
from .pool import CallPool

__all__ = ["SHAPE_TRIES", "Shrunk", "failure_kind", "shrink"]

#: Cases made per smaller shape in step 1.  Of a 9x9 failure's shrinking calls, the 19 smaller
#: shapes' cases were 57 of about 80 with 3 (benchmarks/fuzz.py): 2 keep a fresh second puzzle
#: per shape for a bug that shows on some puzzles only.
SHAPE_TRIES = 2
#: Statuses that make one puzzle per shape, whatever the seed: tried once.
_ONE_PUZZLE = ("empty",)
_FAILING = (Verdict.WRONG, Verdict.CRASH, Verdict.TIMEOUT)


def failure_kind(outcome: Outcome) -> str | None:
    """'wrong:<claim>', 'crash' or 'timeout' for a failing call; None for any other verdict."""
    if outcome.verdict not in _FAILING:
        return None
    assert outcome.verdict is not None
    if outcome.verdict is Verdict.WRONG:
        return f"wrong:{outcome.claimed.value}"
    return outcome.verdict.value


@dataclass(frozen=True, slots=True)
class Shrunk:
    """The smallest failing puzzle found, the call that failed on it, and what it took: solver
    calls made, whether it is 1-minimal (False: the deadline stopped the search), wall seconds."""

    puzzle: Grid
    outcome: Outcome
    calls: int
    minimal: bool
    steps: tuple[str, ...]
    seconds: float = 0.0


class _Tester:
    """Runs candidate calls, in batches, counting them; stops at the deadline."""

    def __init__(self, template: Call, kind: str, pool: CallPool, deadline: Deadline) -> None:
        self.template = template
        self.kind = kind
        self.pool = pool
        self.deadline = deadline
        self.calls = 0
        self.cut = False

    def first(self, calls: Iterable[Call]) -> tuple[int, Outcome] | None:
        """The first call (its place, its outcome) that fails the same kind, or None."""
        if self.deadline.expired():
            self.cut = True
            return None
        # One call out per job: a candidate past the first failing one is work thrown away.
        stream = self.pool.outcomes(calls, window=self.pool.jobs)
        try:
            for place, outcome in enumerate(stream):
                if outcome.puzzle is not None:
                    self.calls += 1
                if failure_kind(outcome) == self.kind:
                    return place, outcome
                if self.deadline.expired():
                    self.cut = True
                    return None
        finally:
            stream.close()  # the calls not started are dropped
        return None

    def on(self, puzzle: Grid) -> Call:
        return replace(self.template, key=None, puzzle=pack_grid(puzzle))


def shrink(
    puzzle: Grid,
    key: CaseKey,
    outcome: Outcome,
    call: Call,
    *,
    executor: Executor | CallPool | None = None,
    deadline: Deadline | None = None,
    shape_tries: int = SHAPE_TRIES,
    square_only: bool = False,
) -> Shrunk:
    """Shrink the failing ``outcome`` of ``call`` on ``puzzle`` (made from ``key``) as the module
    says; ``deadline`` (none by default) cuts the search short, leaving ``minimal`` False;
    ``square_only``: smaller shapes are square ones only (a program not told the shape);
    ``executor``: where the calls run (a run's ``CallPool``, or an ``Executor`` for this shrink)."""
    kind = failure_kind(outcome)
    if kind is None:
        raise ValueError(f"nothing to shrink: the call's verdict is {outcome.verdict}")
    if not isinstance(executor, CallPool):
        with CallPool(executor, warm=call) as pool:
            return shrink(
                puzzle,
                key,
                outcome,
                call,
                executor=pool,
                deadline=deadline,
                shape_tries=shape_tries,
                square_only=square_only,
            )
    began = time.perf_counter()
    tester = _Tester(call, kind, executor, deadline or Deadline(None))
    steps: list[str] = []
    best, last = puzzle, outcome
    found = _smaller_shape(tester, key, best.n, shape_tries, square_only)
    if found is not None:
        best, last = found
        steps.append(f"box {best.geometry.box_label}")
    best, last = _ddmin(tester, best, last, steps)
    relabelled = _relabel(tester, best, last)
    if relabelled is not None:
        best, last = relabelled
        steps.append("relabelled")
        best, last = _ddmin(tester, best, last, steps, single=True)
    seconds = time.perf_counter() - began
    return Shrunk(best, last, tester.calls, not tester.cut, tuple(steps), seconds)


def _smaller_shape(
    tester: _Tester, key: CaseKey, side: int, tries: int, square_only: bool
) -> tuple[Grid, Outcome] | None:
    """The first failing case of ``key``'s status and symbols on a shape of side below ``side``."""

    def candidates() -> Iterator[Call]:
        for p, q in shapes(side - 1, square_only):
            for k in range(1 if key.status in _ONE_PUZZLE else tries):
                made = CaseKey((p, q), key.status, key.symbols, (*key.seed, p, q, k))
                yield replace(tester.template, key=made, puzzle=None)

    found = tester.first(candidates())
    if found is None:
        return None
    outcome = found[1]
    grid = outcome.grid
    assert grid is not None  # a call that failed was made on a puzzle
    return grid, outcome


def _without(puzzle: Grid, cells: Iterable[int]) -> Grid:
    values = puzzle.values.reshape(-1).copy()
    values[list(cells)] = 0
    return puzzle.with_values(values)


def _ddmin(
    tester: _Tester, puzzle: Grid, outcome: Outcome, steps: list[str], *, single: bool = False
) -> tuple[Grid, Outcome]:
    """Givens removed while the failure stays: ddmin over the given cells (``single``: only the
    last stage, one given at a time, until none can go)."""
    cells = [int(c) for c in np.flatnonzero(puzzle.values.reshape(-1))]
    before = len(cells)
    parts = len(cells) if single else 2
    while cells:
        parts = min(parts, len(cells))
        size = len(cells) / parts
        chunks = [cells[round(k * size) : round((k + 1) * size)] for k in range(parts)]
        chunks = [chunk for chunk in chunks if chunk]
        found = tester.first(tester.on(_without(puzzle, chunk)) for chunk in chunks)
        if found is not None:
            place, outcome = found
            gone = set(chunks[place])
            cells = [c for c in cells if c not in gone]
            puzzle = _without(puzzle, gone)
            parts = max(parts - 1, 2) if not single else len(cells)
            continue
        if tester.cut or parts >= len(cells):
            break
        parts = min(2 * parts, len(cells))
    if len(cells) < before:
        steps.append(f"givens {before} -> {len(cells)}")
    return puzzle, outcome


def _relabel(tester: _Tester, puzzle: Grid, outcome: Outcome) -> tuple[Grid, Outcome] | None:
    """The puzzle with its digits renamed toward small ones while the failure stays, or None
    when no renaming does (or none is smaller)."""
    n = puzzle.n
    changed: tuple[Grid, Outcome] | None = None
    used = sorted(int(d) for d in np.unique(puzzle.values) if d)
    if used != list(range(1, len(used) + 1)):  # first the used digits renamed 1, 2, ... in order
        compact = np.zeros(n + 1, dtype=np.int16)
        compact[used] = np.arange(1, len(used) + 1)
        compact[[d for d in range(1, n + 1) if d not in used]] = np.arange(len(used) + 1, n + 1)
        candidate = puzzle.with_values(compact[puzzle.values])
        found = tester.first([tester.on(candidate)])
        if found is not None:
            puzzle, outcome = candidate, found[1]
            changed = (puzzle, outcome)
    for digit in sorted((int(d) for d in np.unique(puzzle.values) if d), reverse=True):
        if tester.cut:
            break
        present = set(np.unique(puzzle.values).tolist())
        options: list[Grid] = []
        for smaller in range(1, digit):  # a swap with a used digit would only permute them
            if smaller not in present:
                swap = np.arange(n + 1, dtype=np.int16)
                swap[digit], swap[smaller] = smaller, digit
                options.append(puzzle.with_values(swap[puzzle.values]))
        found = tester.first(tester.on(option) for option in options)
        if found is not None:
            puzzle, outcome = options[found[0]], found[1]
            changed = (puzzle, outcome)
    return changed
