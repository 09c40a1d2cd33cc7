"""Propagation with a work queue on candidate bitsets, compiled with numba: any size up to 4096x4096.

Each cell holds its candidates as ``W = ceil(n / 64)`` uint64 words (digit d-1 is bit (d-1) % 64
of word (d-1) // 64).  Beside the bitsets the kernel keeps two counters, updated on every
elimination: the number of candidates of each cell and the number of cells of each unit that
still allow each digit.  An elimination is the only event, and it touches only what it changes:

* a cell whose count drops to 1 is queued as fixed; a fixed cell removes its digit from the
  cells of its row, column and box (naked singles; the givens' eliminations are done in bulk
  when a puzzle starts, from the digits each unit's givens hold);
* a (unit, digit) whose count drops to 1 is queued; its one cell loses every other digit
  (hidden single);
* with ``locked=True`` a (unit, digit) whose count drops to a box segment's size or below is
  queued for locked candidates: a box's digit confined to one row (column) leaves the rest of
  that line (pointing); a line's digit confined to one box leaves the rest of that box
  (claiming);
* a count that drops to 0 is a contradiction (a cell without candidates, a digit without a
  place in a unit, which includes two cells of a unit fixed to the same digit).

The queues run in that order (fixed cells, hidden singles, locked candidates), so the work of a
round of ``vectorized`` (a pass over all n**3 candidates) becomes work proportional to the
eliminations: every (cell, digit) is eliminated at most once.  The rules only remove
candidates and never undo, so the fixpoint is the same whatever the order: same values, same
candidates and same contradiction flag as ``vectorized`` (for a contradictory puzzle, the
values and candidates at the stop depend on the order; only the flag is the answer).

A batch is one compiled call that runs its puzzles one after the other in one set of work
arrays.  The call stops after a budget of steps (about a candidate looked at or removed each)
and resumes where it left off, so the Python driver can check the deadline between slices (the
start of a puzzle, one pass over its cells, is not cut: tens of milliseconds on 400x400).
"""

from __future__ import annotations

import sys

import numba
import numpy as np

from ..errors import SudokuCpError
from ..geometry import Geometry
from ..limits import Deadline, check_memory, watch_compilation
from .result import Propagation

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["SLICE_STEPS", "BitsetInputError", "popcount", "propagate_batch", "words"]

#: Steps (about one candidate looked at or removed each) of one compiled slice between two
#: deadline checks: a few milliseconds.
SLICE_STEPS = 1 << 22

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
# Slots of the int64 state array that carries a run from one slice to the next.
_FIX, _HIDDEN, _LOCK, _BAD, _PUZZLE, _STARTED = range(6)
_STATE = 6
_NO_BUDGET = np.iinfo(np.int64).max


class BitsetInputError(SudokuCpError, ValueError):
    """Values the kernel cannot take: a digit outside 0..n (the kernel does not check its indices)."""


def words(n: int) -> int:
    """uint64 words per candidate set of an n x n grid."""
    return (n + 63) // 64


@numba.njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:  # pragma: no cover - compiled
    """Number of set bits of a uint64 (SWAR, no branches)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int(np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56)))


@numba.njit(cache=True, inline="always")
def _first_digit(cand: np.ndarray, cell: int) -> int:  # pragma: no cover - compiled
    """The lowest candidate digit (0-based) of ``cell``, -1 if it has none."""
    for w in range(cand.shape[1]):
        m = cand[cell, w]
        if m != _ZERO:
            return w * 64 + popcount((m & (~m + _ONE)) - _ONE)
    return -1


@numba.njit(cache=True)
def _start(
    values: np.ndarray,
    cand: np.ndarray,
    ncand: np.ndarray,
    ucount: np.ndarray,
    seen: np.ndarray,
    cell_units: np.ndarray,
    limits: np.ndarray,
    queues: np.ndarray,
    lock_flag: np.ndarray,
    state: np.ndarray,
    locked: bool,
) -> None:  # pragma: no cover - compiled
    """Set one puzzle's bitsets and counters from its givens and queue the first work.

    The givens' eliminations are done here in bulk (an open cell keeps the digits that no given
    of its row, column or box holds), not one peer at a time: a 400x400 puzzle has 100,000
    givens and 1,159 peers per cell.
    """
    cells, width = cand.shape
    n = ucount.shape[1]
    bad = 0
    fix_top = 0
    ucount[:, :] = 0
    seen[:, :] = _ZERO
    for cell in range(cells):  # the digits each unit's givens hold; a digit given twice fails
        v = values[cell]
        if v != 0:
            w = (v - 1) >> 6
            bit = _ONE << np.uint64((v - 1) & 63)
            for j in range(3):
                u = cell_units[cell, j]
                if seen[u, w] & bit:
                    bad = 1
                seen[u, w] |= bit
    for cell in range(cells):
        v = values[cell]
        r, c, x = cell_units[cell, 0], cell_units[cell, 1], cell_units[cell, 2]
        if v != 0:
            for w in range(width):
                cand[cell, w] = _ZERO
            cand[cell, (v - 1) >> 6] = _ONE << np.uint64((v - 1) & 63)
            ncand[cell] = 1
            ucount[r, v - 1] += 1
            ucount[c, v - 1] += 1
            ucount[x, v - 1] += 1
            continue
        count = 0
        for w in range(width):
            bits = min(64, n - 64 * w)
            full = ~_ZERO if bits == 64 else (_ONE << np.uint64(bits)) - _ONE
            m = full & ~(seen[r, w] | seen[c, w] | seen[x, w])
            cand[cell, w] = m
            while m != _ZERO:
                low = m & (~m + _ONE)
                m ^= low
                d = w * 64 + popcount(low - _ONE)
                ucount[r, d] += 1
                ucount[c, d] += 1
                ucount[x, d] += 1
                count += 1
        ncand[cell] = count
        if count == 0:
            bad = 1
        elif count == 1:
            queues[_FIX, fix_top] = cell
            fix_top += 1
    hidden_top = 0
    lock_top = 0
    for u in range(3 * n):
        for d in range(n):
            count = ucount[u, d]
            if count == 0:
                bad = 1
            elif count == 1:
                queues[_HIDDEN, hidden_top] = u * n + d
                hidden_top += 1
            elif locked and count <= limits[u // n]:
                lock_flag[u * n + d] = True
                queues[_LOCK, lock_top] = u * n + d
                lock_top += 1
    state[_FIX], state[_HIDDEN], state[_LOCK], state[_BAD] = fix_top, hidden_top, lock_top, bad


@numba.njit(cache=True)
def _run(
    values: np.ndarray,
    cand: np.ndarray,
    out_values: np.ndarray,
    contradiction: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    limits: np.ndarray,
    ncand: np.ndarray,
    ucount: np.ndarray,
    seen: np.ndarray,
    queues: np.ndarray,
    lock_flag: np.ndarray,
    todo: np.ndarray,
    state: np.ndarray,
    locked: bool,
    budget: int,
) -> bool:  # pragma: no cover - compiled
    """Propagate the batch from puzzle ``state[_PUZZLE]`` on; False when ``budget`` steps ran out first.

    ``values`` (B, cells) givens; ``cand`` (B, cells, W) bitsets, filled here; ``out_values``
    (B, cells) a copy of the givens that receives the placed digits; ``contradiction`` (B,).
    The scratch arrays (counters, queues, ``state``) carry an unfinished puzzle to the next call.

    One event at a time (a fixed cell, then a hidden single, then a locked-candidates look)
    lists the (cell, digit) eliminations it implies in ``todo``; one loop below applies them.
    That loop is written once, in this function: a helper taking the arrays would cost numba's
    reference counting on every call, far more than the elimination itself.
    """
    batch, cells = values.shape
    n = units.shape[1]
    width = cand.shape[2]
    steps = 0
    while state[_PUZZLE] < batch:
        b = state[_PUZZLE]
        cb = cand[b]
        if state[_STARTED] == 0:
            _start(values[b], cb, ncand, ucount, seen, cell_units, limits, queues, lock_flag, state, locked)
            state[_STARTED] = 1
            steps += cells * width + 3 * n * n
        fix_top, hidden_top, lock_top, bad = state[_FIX], state[_HIDDEN], state[_LOCK], state[_BAD]
        while bad == 0:
            if steps >= budget:
                state[_FIX], state[_HIDDEN], state[_LOCK] = fix_top, hidden_top, lock_top
                return False
            t = 0  # eliminations listed in todo: (cell, digit) rows
            if fix_top > 0:  # a fixed cell: its digit leaves its row, column and box
                fix_top -= 1
                cell = queues[_FIX, fix_top]
                d = _first_digit(cb, cell)
                w = d >> 6
                bit = _ONE << np.uint64(d & 63)
                for j in range(3):
                    u = cell_units[cell, j]
                    for k in range(n):
                        peer = units[u, k]
                        if peer != cell and cb[peer, w] & bit:
                            todo[t, 0] = peer
                            todo[t, 1] = d
                            t += 1
                steps += 3 * n
            elif hidden_top > 0:  # a digit with one place left in a unit: that cell takes it
                hidden_top -= 1
                key = queues[_HIDDEN, hidden_top]
                u = key // n
                d = key - u * n
                steps += n
                if ucount[u, d] != 1:
                    continue
                w = d >> 6
                bit = _ONE << np.uint64(d & 63)
                cell = -1
                for k in range(n):
                    if cb[units[u, k], w] & bit:
                        cell = units[u, k]
                        break
                if ncand[cell] == 1:
                    continue
                for x in range(width):
                    m = cb[cell, x]
                    if x == w:
                        m &= ~bit
                    while m != _ZERO:
                        low = m & (~m + _ONE)
                        m ^= low
                        todo[t, 0] = cell
                        todo[t, 1] = x * 64 + popcount(low - _ONE)
                        t += 1
            elif lock_top > 0:  # locked candidates of one (unit, digit)
                lock_top -= 1
                key = queues[_LOCK, lock_top]
                lock_flag[key] = False
                u = key // n
                d = key - u * n
                steps += 2 * n
                if ucount[u, d] < 2:
                    continue
                w = d >> 6
                bit = _ONE << np.uint64(d & 63)
                kind = u // n
                if kind == 2:  # a box: are its cells for d on one row, or on one column?
                    row = -1
                    col = -1
                    one_row = True
                    one_col = True
                    for k in range(n):
                        cell = units[u, k]
                        if cb[cell, w] & bit:
                            r = cell // n
                            c = cell - r * n
                            if row < 0:
                                row = r
                                col = c
                            else:
                                one_row &= r == row
                                one_col &= c == col
                    for line in range(2):
                        if (one_row, one_col)[line]:
                            target = row if line == 0 else n + col
                            for k in range(n):
                                cell = units[target, k]
                                if cell_units[cell, 2] != u and cb[cell, w] & bit:
                                    todo[t, 0] = cell
                                    todo[t, 1] = d
                                    t += 1
                else:  # a line: are its cells for d in one box?
                    box = -1
                    for k in range(n):
                        cell = units[u, k]
                        if cb[cell, w] & bit:
                            if box < 0:
                                box = cell_units[cell, 2]
                            elif cell_units[cell, 2] != box:
                                box = -2
                                break
                    if box >= 0:
                        for k in range(n):
                            cell = units[box, k]
                            if cell_units[cell, kind] != u and cb[cell, w] & bit:
                                todo[t, 0] = cell
                                todo[t, 1] = d
                                t += 1
            else:
                break
            # Apply the eliminations: counters down, and what reaches 1 (or 0) is queued (or fails).
            for i in range(t):
                cell = todo[i, 0]
                d = todo[i, 1]
                w = d >> 6
                bit = _ONE << np.uint64(d & 63)
                m = cb[cell, w]
                if (m & bit) == _ZERO:  # listed twice (a peer in the row and the box)
                    continue
                cb[cell, w] = m & ~bit
                left = ncand[cell] - 1
                ncand[cell] = left
                if left == 1:
                    queues[_FIX, fix_top] = cell
                    fix_top += 1
                elif left == 0:
                    bad = 1
                for j in range(3):
                    u = cell_units[cell, j]
                    c = ucount[u, d] - 1
                    ucount[u, d] = c
                    if c == 1:
                        queues[_HIDDEN, hidden_top] = u * n + d
                        hidden_top += 1
                    elif c == 0:
                        bad = 1
                    elif locked and c <= limits[j] and not lock_flag[u * n + d]:
                        lock_flag[u * n + d] = True
                        queues[_LOCK, lock_top] = u * n + d
                        lock_top += 1
            steps += t
        # The puzzle is done (fixpoint or contradiction): its digits out, the work arrays reset.
        contradiction[b] = bad != 0
        for cell in range(cells):
            if values[b, cell] == 0 and ncand[cell] == 1:
                out_values[b, cell] = _first_digit(cb, cell) + 1
        for k in range(lock_top):
            lock_flag[queues[_LOCK, k]] = False
        state[_PUZZLE] = b + 1
        state[_STARTED] = 0
    return True


def _to_bool(cand: np.ndarray, n: int) -> np.ndarray:
    """(B, cells, W) uint64 bitsets as (B, cells, n) bool, digit d-1 in column d-1."""
    little = cand if sys.byteorder == "little" else cand.astype("<u8")
    return np.unpackbits(little.view(np.uint8), axis=-1, count=n, bitorder="little").view(bool)


def propagate_batch(
    geometry: Geometry,
    values: np.ndarray,
    *,
    locked: bool = False,
    deadline: Deadline | None = None,
    slice_steps: int = SLICE_STEPS,
) -> Propagation:
    """Singles (and locked candidates) to a fixpoint on a (B, n*n) stack of puzzles, by the queue kernel.

    The compiled call runs ``slice_steps`` steps at a time; ``deadline`` is checked before the
    first and between two slices (``limits.TimeLimitReached``, "propagation").  Tables that cannot
    fit in memory are refused first (``limits.ModelTooLarge``).
    """
    n = geometry.n
    cells = n * n
    width = words(n)
    givens = np.array(values, dtype=np.int16).reshape(-1, cells)
    batch = givens.shape[0]
    if givens.size and (givens.min() < 0 or givens.max() > n):
        raise BitsetInputError(f"grid values must lie in 0..{n}, not {givens.min()}..{givens.max()}")
    # The bitsets, the bool candidates of the answer and the bytes they are unpacked through.
    check_memory(f"propagating {batch} puzzle(s) of {n}x{n}", batch * cells * (16 * width + n + 4))
    units = np.ascontiguousarray(geometry.units, dtype=np.int64)
    cell_units = np.ascontiguousarray(geometry.cell_units, dtype=np.int64)
    # A (unit, digit) is worth a locked-candidates look once its cells fit one segment: q cells of a
    # row in a box, p cells of a column, the larger of the two for a box.
    limits = np.array([geometry.q, geometry.p, max(geometry.p, geometry.q)], dtype=np.int64)
    cand = np.empty((batch, cells, width), dtype=np.uint64)
    out_values = givens.copy()
    contradiction = np.zeros(batch, dtype=bool)
    scratch = (
        np.empty(cells, np.int64),  # candidates per cell
        np.empty((3 * n, n), np.int64),  # cells per (unit, digit)
        np.empty((3 * n, width), np.uint64),  # digits given in each unit
        np.empty((3, max(cells, 3 * n * n)), np.int64),  # the three queues
        np.zeros(3 * n * n, np.bool_),  # (unit, digit) waiting for locked candidates
        np.empty((3 * n, 2), np.int64),  # the eliminations of one event
        np.zeros(_STATE, np.int64),
    )
    budget = _NO_BUDGET if deadline is None else slice_steps
    if deadline is not None:
        deadline.check("propagation")
    args = (givens, cand, out_values, contradiction, units, cell_units, limits, *scratch, locked)
    while not _run(*args, budget):
        if deadline is not None:
            deadline.check("propagation")
    return Propagation(out_values, _to_bool(cand, n), contradiction)
