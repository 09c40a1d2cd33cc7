"""The compiled kernel of the ``backtrack`` solver: a bitset Sudoku search over a whole batch.

Each cell holds a uint64 mask of its candidate digits (bit d for digit d + 1), so any p x q box
shape up to 64 x 64 fits.  A node propagates three rules to a fixed point, cheapest first:

1. naked singles: a cell left with one candidate takes it from its peers (a queue of the cells
   that became single, so only their peers are touched);
2. hidden singles: in each unit changed since it was last read (a bitset of dirty units), the
   digits seen once and seen twice are two OR-accumulated masks; a digit seen once, in an open
   cell, goes there; a digit seen nowhere is a contradiction;
3. locked candidates, when the singles are done: the candidates of each box-line intersection
   (a segment) are OR-ed once; a digit that in its box lies in one segment leaves the rest of
   that segment's line (pointing), a digit that in its line lies in one segment leaves the rest
   of the box (claiming).  Solved cells may stay in the segments: at the singles' fixed point a
   solved digit is in no other segment of its box or lines, so only real eliminations remain.

A node that ends open guesses: on a cell with the fewest candidates and, among the first few
bivalue cells, the one with the most peers sharing a candidate, bivalue peers counting thrice
(its guess propagates furthest), lowest digit first.  The state without that digit is pushed
on an explicit stack (no recursion); a dead end pops it.  A leaf with every cell single is a
solution.

``kernel(p, q)`` is ``solve_batch`` compiled for one box shape (constants let the compiler unroll
the small loops; 9x9 has its own) or for any shape.  It runs a whole batch of puzzles in one call
and counts each to a limit (1 solves, 2 decides uniqueness, more counts); it stops after a budget
of nodes and keeps its whole state in the arrays it was given, so the Python driver
(``sudoku_cp.native.backtrack``) calls it again to resume, checking the clock in between.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = [
    "BUDGET",
    "DONE",
    "EXHAUSTED",
    "FLUSH",
    "GROW",
    "LIMIT",
    "MODE_START",
    "RULES_ALL",
    "RULE_LOCKED",
    "RULE_SCORE",
    "STATE_SIZE",
    "S_MODE",
    "S_PUZZLE",
    "S_SOLUTIONS",
    "Tables",
    "Work",
    "kernel",
]

# Statuses of a kernel call: DONE (every puzzle answered) or why it returned early.
DONE = 0
BUDGET = -1  # the node budget is spent
FLUSH = -2  # the solution buffer is full
GROW = -3  # the stack of states is full

# Per-puzzle outcome (``done``): still searching, exhausted (the count is exact), limit reached.
PENDING, EXHAUSTED, LIMIT = 0, 1, 2

#: Rule flags: locked candidates; scored guesses (else the first cell with fewest candidates).
RULE_LOCKED = 1
RULE_SCORE = 2
RULES_ALL = RULE_LOCKED | RULE_SCORE

# The resumable state vector: puzzle being searched, search mode, stack height, cells queued for
# rule 1, solutions in the buffer.
S_PUZZLE, S_MODE, S_TOP, S_QUEUED, S_SOLUTIONS = range(5)
STATE_SIZE = 5
# Modes: set up the puzzle, propagate, branch (or record a solution), pop.
MODE_START, _PROPAGATE, _BRANCH, _BACKTRACK = range(4)

_SCORED = 8  # bivalue cells scored before a guess, at most: more finds hardly a better one
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


class Tables(NamedTuple):
    """A geometry as the kernel reads it (unsigned indices: no negative-index checks).

    ``peers`` (n*n, 3n-p-q-1) uint16: the other cells of each cell's units; ``units`` (3n, n)
    uint16: rows, columns, boxes; ``cell_units`` (n*n, 3) uint16: each cell's row r, column
    n + c and box 2n + b; ``unit_bits`` (n*n,) uint64: those three units as bits of one word
    (zero when 3n > 64, where the dirty units take several words).
    """

    p: int
    q: int
    peers: np.ndarray
    units: np.ndarray
    cell_units: np.ndarray
    unit_bits: np.ndarray


class Work(NamedTuple):
    """The search's state, all of it resumable.

    ``cur`` (n*n,) uint64 candidates; ``queue`` (n*n,) int32 cells queued for rule 1; ``dirty``
    (ceil(3n/64),) uint64 units to read for rule 2; ``seg`` (n(p+q) + 4n,) uint64 and
    ``job_unit`` (2n(p+q), 3) int64 / ``job_bits`` (2n(p+q),) uint64: rule 3's segments and its
    eliminations (the digits ``job_bits`` leave unit ``job_unit[0]`` except its cells whose unit
    number ``job_unit[1]`` is ``job_unit[2]``); ``stack`` (L, n*n) uint64 and ``stack_cell`` (L,)
    int32: the states pushed under the guesses (without the guessed digit) and the guessed cells;
    ``state`` (STATE_SIZE,) int64.
    """

    cur: np.ndarray
    queue: np.ndarray
    dirty: np.ndarray
    seg: np.ndarray
    job_unit: np.ndarray
    job_bits: np.ndarray
    stack: np.ndarray
    stack_cell: np.ndarray
    state: np.ndarray


if TYPE_CHECKING:  # what the intrinsics are to the code that calls them

    def _popcount(x: np.uint64) -> np.uint64:
        """Number of set bits."""

    def _lowest_index(x: np.uint64) -> np.uint64:
        """Index of the lowest set bit."""

else:

    @intrinsic
    def _popcount(typingctx, x):  # pragma: no cover - compiled
        """Number of set bits of a uint64 (one popcnt instruction)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return types.uint64(types.uint64), codegen

    @intrinsic
    def _lowest_index(typingctx, x):  # pragma: no cover - compiled
        """Index of the lowest set bit of a nonzero uint64 (one tzcnt instruction)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

        return types.uint64(types.uint64), codegen


def _compile(box_p: int, box_q: int) -> Callable[..., int]:
    """``solve_batch`` for p x q boxes (box_p, box_q > 0: compile-time constants) or any (0, 0).

    One function on purpose: a call to a compiled helper taking arrays pays for reference
    counting on every array, more than the helper's own work.
    """

    @numba.njit(cache=True)
    def solve_batch(
        givens: np.ndarray,
        tables: Tables,
        limit: int,
        keep: bool,
        work: Work,
        out: np.ndarray,
        owner: np.ndarray,
        counts: np.ndarray,
        done: np.ndarray,
        nodes: np.ndarray,
        budget: int,
        rules: int,
    ) -> int:  # pragma: no cover - compiled
        """Search the puzzles ``givens`` (B, n*n) from ``work.state`` on, for at most ``budget`` nodes.

        Each puzzle is counted to ``limit`` (``counts``, ``done``: EXHAUSTED or LIMIT, ``nodes``);
        with ``keep`` each solution goes to ``out`` (digits 1..n) with its puzzle in ``owner``.
        Returns DONE, or BUDGET / FLUSH (empty the buffer) / GROW (a taller stack) to be called
        again with the same arrays.  A node is one propagation (the root, a guess, a popped state).
        """
        p = box_p if box_p > 0 else tables.p
        q = box_q if box_q > 0 else tables.q
        n = p * q
        cells = n * n
        n_units = 3 * n
        n_peers = 3 * n - p - q - 1
        one_word = n_units <= 64
        peers, units, cell_units, unit_bits = tables.peers, tables.units, tables.cell_units, tables.unit_bits
        cur, queue, dirty, seg, stack, stack_cell = (
            work.cur, work.queue, work.dirty, work.seg, work.stack, work.stack_cell
        )  # fmt: skip
        job_unit, job_bits, state = work.job_unit, work.job_bits, work.state
        n_words = (n_units + 63) // 64
        full = _ALL >> np.uint64(64 - n)
        cols = n * p  # seg: row r, stack s at r*p + s; column c, band t at cols + c*q + t
        lines = cols + n * q  # seg: per row and column, digits in one segment / in two or more
        n_puzzles = givens.shape[0]
        b = state[S_PUZZLE]
        mode = state[S_MODE]
        top = state[S_TOP]
        queued = state[S_QUEUED]
        n_out = state[S_SOLUTIONS]
        d0 = dirty[0]  # the dirty units when they fit one word
        spent = 0
        status = DONE
        while b < n_puzzles:
            if mode == MODE_START:
                queued = 0
                for cell in range(cells):
                    v = givens[b, cell]
                    if v > 0:
                        cur[cell] = _ONE << np.uint64(v - 1)
                        queue[queued] = cell
                        queued += 1
                    else:
                        cur[cell] = full
                for w in range(n_words):
                    dirty[w] = _ALL >> np.uint64(max(0, 64 * (w + 1) - n_units))
                d0 = dirty[0]
                top = 0
                mode = _PROPAGATE
            if mode == _PROPAGATE:
                if spent >= budget:
                    status = BUDGET
                    break
                spent += 1
                nodes[b] += 1
                ok = True
                head = 0
                while True:
                    # Rule 1: each new single leaves its peers.
                    while head < queued:
                        cell = queue[head]
                        head += 1
                        bit = cur[cell]
                        for k in range(n_peers):
                            peer = peers[cell, k]
                            m = cur[peer]
                            if m & bit:
                                m ^= bit
                                cur[peer] = m
                                if m == _ZERO:
                                    ok = False
                                    break
                                if (m & (m - _ONE)) == _ZERO:
                                    queue[queued] = peer
                                    queued += 1
                                if one_word:
                                    d0 |= unit_bits[peer]
                                else:
                                    for which in range(3):
                                        uv = cell_units[peer, which]
                                        dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
                        if not ok:
                            break
                    if not ok:
                        break
                    head = 0
                    queued = 0
                    # Rule 2: hidden singles in the changed units.
                    for w in range(n_words):
                        if one_word:
                            word = d0
                            d0 = _ZERO
                        else:
                            word = dirty[w]
                            dirty[w] = _ZERO
                        while word:
                            u = w * 64 + np.int64(_lowest_index(word))
                            word &= word - _ONE
                            once = _ZERO
                            twice = _ZERO
                            fixed = _ZERO
                            for k in range(n):
                                m = cur[units[u, k]]
                                twice |= once & m
                                once |= m
                                if (m & (m - _ONE)) == _ZERO:
                                    fixed |= m
                            if once != full:
                                ok = False
                                break
                            hidden = once & ~twice & ~fixed
                            if hidden == _ZERO:
                                continue
                            for k in range(n):
                                cell = units[u, k]
                                x = cur[cell] & hidden
                                if x:
                                    if x & (x - _ONE):  # the one place of two digits
                                        ok = False
                                        break
                                    cur[cell] = x
                                    queue[queued] = cell
                                    queued += 1
                                    if one_word:
                                        d0 |= unit_bits[cell]
                                    else:
                                        for which in range(3):
                                            uv = cell_units[cell, which]
                                            dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
                            if not ok:
                                break
                        if not ok:
                            break
                    if not ok:
                        break
                    if queued:
                        continue
                    if not rules & RULE_LOCKED:
                        break
                    # Rule 3: locked candidates.  Segment masks first (all cells: see the notes).
                    for r in range(n):
                        for s in range(p):
                            acc = _ZERO
                            base = r * n + s * q
                            for j in range(q):
                                acc |= cur[base + j]
                            seg[r * p + s] = acc
                    for c in range(n):
                        for t in range(q):
                            acc = _ZERO
                            for i in range(p):
                                acc |= cur[(t * p + i) * n + c]
                            seg[cols + c * q + t] = acc
                    for r in range(n):
                        once = _ZERO
                        twice = _ZERO
                        for s in range(p):
                            m = seg[r * p + s]
                            twice |= once & m
                            once |= m
                        seg[lines + r] = once & ~twice
                        seg[lines + n + r] = twice
                    for c in range(n):
                        once = _ZERO
                        twice = _ZERO
                        for t in range(q):
                            m = seg[cols + c * q + t]
                            twice |= once & m
                            once |= m
                        seg[lines + 2 * n + c] = once & ~twice
                        seg[lines + 3 * n + c] = twice
                    n_jobs = 0
                    for t in range(q):
                        for s in range(p):
                            box = 2 * n + t * p + s
                            for side in range(2):  # the box's row segments, then its column segments
                                width = p if side == 0 else q
                                once = _ZERO
                                twice = _ZERO
                                for i in range(width):
                                    if side == 0:
                                        m = seg[(t * p + i) * p + s]
                                    else:
                                        m = seg[cols + (s * q + i) * q + t]
                                    twice |= once & m
                                    once |= m
                                box_once = once & ~twice
                                for i in range(width):
                                    if side == 0:
                                        line = t * p + i
                                        m = seg[line * p + s]
                                    else:
                                        line = s * q + i
                                        m = seg[cols + line * q + t]
                                    line_once = seg[lines + 2 * side * n + line]
                                    line_twice = seg[lines + (2 * side + 1) * n + line]
                                    pointing = m & box_once & line_twice
                                    if pointing:  # out of the line, outside the box
                                        job_unit[n_jobs, 0] = side * n + line
                                        job_unit[n_jobs, 1] = 2
                                        job_unit[n_jobs, 2] = box
                                        job_bits[n_jobs] = pointing
                                        n_jobs += 1
                                    claiming = m & line_once & twice
                                    if claiming:  # out of the box, outside the line
                                        job_unit[n_jobs, 0] = box
                                        job_unit[n_jobs, 1] = side
                                        job_unit[n_jobs, 2] = side * n + line
                                        job_bits[n_jobs] = claiming
                                        n_jobs += 1
                    if n_jobs == 0:
                        break
                    # The same removal as rule 1's, written out again: one loop for both costs 4%.
                    for job in range(n_jobs):
                        target = job_unit[job, 0]
                        kind = job_unit[job, 1]
                        outside = job_unit[job, 2]
                        bits = job_bits[job]
                        for k in range(n):
                            cell = units[target, k]
                            if cell_units[cell, kind] == outside:
                                continue
                            m = cur[cell]
                            x = m & bits
                            if x == _ZERO:
                                continue
                            m ^= x
                            cur[cell] = m
                            if m == _ZERO:
                                ok = False
                                break
                            if (m & (m - _ONE)) == _ZERO:
                                queue[queued] = cell
                                queued += 1
                            if one_word:
                                d0 |= unit_bits[cell]
                            else:
                                for which in range(3):
                                    uv = cell_units[cell, which]
                                    dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
                        if not ok:
                            break
                    if not ok:
                        break
                mode = _BRANCH if ok else _BACKTRACK
                queued = 0
            if mode == _BRANCH:
                best = -1
                fewest = 65
                top_score = -1
                scored = 0
                for cell in range(cells):
                    m = cur[cell]
                    if (m & (m - _ONE)) == _ZERO:
                        continue
                    size = int(_popcount(m))
                    if size > fewest:
                        continue
                    if size < fewest:
                        fewest = size
                        best = cell
                        top_score = -1
                        scored = 0
                        if not rules & RULE_SCORE:
                            if size == 2:
                                break
                            continue
                    elif not rules & RULE_SCORE:
                        continue
                    score = 0
                    for k in range(n_peers):
                        peer_m = cur[peers[cell, k]]
                        if peer_m & m:  # a peer the guess touches; a bivalue one counts thrice
                            score += 3 if _popcount(peer_m) == 2 else 1
                    if score > top_score:
                        top_score = score
                        best = cell
                    scored += 1
                    if size == 2 and scored >= _SCORED:
                        break
                if best >= 0:
                    if top == stack.shape[0]:
                        status = GROW
                        break
                    m = cur[best]
                    bit = m & (~m + _ONE)
                    for cell in range(cells):
                        stack[top, cell] = cur[cell]
                    stack[top, best] = m ^ bit
                    stack_cell[top] = best
                    top += 1
                    cur[best] = bit
                    queue[0] = best
                    queued = 1
                    if one_word:
                        d0 = unit_bits[best]
                    else:
                        for w in range(n_words):
                            dirty[w] = _ZERO
                        for which in range(3):
                            uv = cell_units[best, which]
                            dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
                    mode = _PROPAGATE
                    continue
                # Every cell single: a solution.
                if keep:
                    if n_out == out.shape[0]:
                        status = FLUSH
                        break
                    for cell in range(cells):
                        out[n_out, cell] = _lowest_index(cur[cell]) + _ONE
                    owner[n_out] = b
                    n_out += 1
                counts[b] += 1
                if counts[b] >= limit:
                    done[b] = LIMIT
                    b += 1
                    mode = MODE_START
                    continue
                mode = _BACKTRACK
            if mode == _BACKTRACK:
                if top == 0:
                    done[b] = EXHAUSTED
                    b += 1
                    mode = MODE_START
                    continue
                # The state under the last guess: the guessed cell without the guessed digit.
                top -= 1
                for cell in range(cells):
                    cur[cell] = stack[top, cell]
                cell = stack_cell[top]
                m = cur[cell]
                queued = 0
                if (m & (m - _ONE)) == _ZERO:
                    queue[0] = cell
                    queued = 1
                if one_word:
                    d0 = unit_bits[cell]
                else:
                    for w in range(n_words):
                        dirty[w] = _ZERO
                    for which in range(3):
                        uv = cell_units[cell, which]
                        dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
                mode = _PROPAGATE
        if one_word:
            dirty[0] = d0
        state[S_PUZZLE] = b
        state[S_MODE] = mode
        state[S_TOP] = top
        state[S_QUEUED] = queued
        state[S_SOLUTIONS] = n_out
        return status

    return solve_batch  # type: ignore[no-any-return]


def kernel(p: int, q: int) -> Callable[..., int]:
    """The search kernel for p x q boxes: 3x3 has one of its own, every other shape the general one."""
    return _SUDOKU if (p, q) == (3, 3) else _ANY


_SUDOKU = _compile(3, 3)
_ANY = _compile(0, 0)
