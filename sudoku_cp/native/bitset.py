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

``solve_batch`` takes any box shape (9x9 has a kernel of its own, ``bitset9``, on another
layout).  It runs a whole batch of puzzles in one call and counts each to a limit (1 solves, 2
decides uniqueness, more counts); it stops after a budget of nodes and keeps its whole state in
the arrays it was given (``kernels.Work``), so the Python driver (``sudoku_cp.native.backtrack``)
calls it again to resume, checking the clock in between.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.extending import intrinsic

from ..limits import watch_compilation
from .kernels import (
    BUDGET,
    DONE,
    ENTRY_ARGUMENTS,
    EXHAUSTED,
    FLUSH,
    GROW,
    LIMIT,
    MODE_START,
    RULE_LOCKED,
    RULE_SCORE,
    S_MODE,
    S_PUZZLE,
    S_QUEUED,
    S_SOLUTIONS,
    S_TOP,
    STATE_SIZE,
    Tables,
    Work,
)
from .machine_code import compile_entry

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "entry_object",
    "guess_score",
    "locked_jobs",
    "lowest_index",
    "pop_state",
    "popcount",
    "propagate",
    "push_state",
    "solve_batch",
    "unit_digits",
]

# Modes after MODE_START: propagate, branch (or record a solution), pop.
_PROPAGATE, _BRANCH, _BACKTRACK = 1, 2, 3

_SCORED = 8  # bivalue cells scored before a guess, at most: more finds hardly a better one
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


if TYPE_CHECKING:  # what the intrinsics are to the code that calls them

    def popcount(x: int) -> int:
        """Number of set bits."""

    def lowest_index(x: int) -> int:
        """Index of the lowest set bit."""

else:

    @intrinsic
    def popcount(typingctx, x):  # pragma: no cover - compiled
        """Number of set bits of an integer, in its own type (one popcnt instruction)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return x(x), codegen

    @intrinsic
    def lowest_index(typingctx, x):  # pragma: no cover - compiled
        """Index of the lowest set bit of a nonzero integer, in its own type (one tzcnt instruction)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

        return x(x), codegen


@numba.njit(cache=True, inline="always")
def unit_digits(
    cur: np.ndarray, units: np.ndarray, u: int | np.int64
) -> tuple[np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """The digits of unit ``u``'s cells: (in at least one, in two or more, in a solved cell).

    Hidden singles read it (a digit once and in no solved cell) and so does a contradiction (a
    digit nowhere); the carving search's propagation (``native.carve``) shares it.
    """
    once = _ZERO
    twice = _ZERO
    fixed = _ZERO
    for k in range(units.shape[1]):
        m = cur[units[u, k]]
        twice |= once & m
        once |= m
        if (m & (m - _ONE)) == _ZERO:
            fixed |= m
    return once, twice, fixed


@numba.njit(cache=True, inline="always")
def guess_score(cur: np.ndarray, peers: np.ndarray, cell: int) -> int:  # pragma: no cover - compiled
    """How far a guess on ``cell`` propagates: its peers sharing a candidate, a bivalue one thrice."""
    m = cur[cell]
    score = 0
    for k in range(peers.shape[1]):
        peer_m = cur[peers[cell, k]]
        if peer_m & m:
            score += 3 if popcount(peer_m) == 2 else 1
    return score


@numba.njit(cache=True, inline="always")
def locked_jobs(
    cur: np.ndarray, seg: np.ndarray, job_unit: np.ndarray, job_bits: np.ndarray, p: int, q: int
) -> int:  # pragma: no cover - compiled
    """Locked candidates' removals of the candidates ``cur`` of a p x q grid: the number of jobs
    written to ``job_unit`` / ``job_bits`` (the digits ``job_bits[j]`` leave unit
    ``job_unit[j, 0]`` except its cells whose unit number ``job_unit[j, 1]`` is ``job_unit[j, 2]``),
    pointing and claiming box by box; ``seg`` (n(p+q+4),) is scratch.  Shared by ``solve_batch``
    and the witness search through ``propagate`` (inlined: the same code in each)."""
    n = p * q
    cols = n * p  # seg: row r, stack s at r*p + s; column c, band t at cols + c*q + t
    lines = cols + n * q  # then per row and column: digits in one segment, in two or more
    # Segment masks of all cells: at the singles' fixed point a solved digit is in no other
    # segment of its box or lines, so only real eliminations come out.
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
    for side in range(2):
        width = p if side == 0 else q
        base = 0 if side == 0 else cols
        for line in range(n):
            once = _ZERO
            twice = _ZERO
            for s in range(width):
                m = seg[base + line * width + s]
                twice |= once & m
                once |= m
            seg[lines + 2 * side * n + line] = once & ~twice
            seg[lines + (2 * side + 1) * n + line] = twice
    n_jobs = 0
    for t in range(q):
        for s in range(p):
            box = 2 * n + t * p + s
            for side in range(2):  # the box's row segments, then its column segments
                width = p if side == 0 else q
                once = _ZERO
                twice = _ZERO
                for i in range(width):
                    m = seg[(t * p + i) * p + s] if side == 0 else seg[cols + (s * q + i) * q + t]
                    twice |= once & m
                    once |= m
                box_once = once & ~twice
                for i in range(width):
                    line = t * p + i if side == 0 else s * q + i
                    m = seg[line * p + s] if side == 0 else seg[cols + line * q + t]
                    pointing = m & box_once & seg[lines + (2 * side + 1) * n + line]
                    if pointing:  # out of the line, outside the box
                        job_unit[n_jobs, 0] = side * n + line
                        job_unit[n_jobs, 1] = 2
                        job_unit[n_jobs, 2] = box
                        job_bits[n_jobs] = pointing
                        n_jobs += 1
                    claiming = m & seg[lines + 2 * side * n + line] & twice
                    if claiming:  # out of the box, outside the line
                        job_unit[n_jobs, 0] = box
                        job_unit[n_jobs, 1] = side
                        job_unit[n_jobs, 2] = side * n + line
                        job_bits[n_jobs] = claiming
                        n_jobs += 1
    return n_jobs


@numba.njit(cache=True, inline="always")
def propagate(
    cur: np.ndarray,
    queued: int,
    d0: np.uint64,
    one_word: bool,
    locked: bool,
    tables: Tables,
    work: Work,
) -> bool:  # pragma: no cover - compiled
    """Rules 1-3 (3 with ``locked``) on ``cur`` to their fixed point; False on a contradiction.

    Rule 1 starts from the ``queued`` cells of ``work.queue``, rule 2 from the dirty units: ``d0``
    when ``one_word`` (3n <= 64), else the words of ``work.dirty``, cleared as read.  Shared by
    ``solve_batch`` and the witness search (``native.witness``, one word), inlined in each: a
    literal ``one_word`` leaves one branch.  Any order of the rules reaches the same fixed point
    (or a contradiction), so the order below is free to save reads: a hidden single's units are
    read again after its naked single has left its peers (they change again then), not before.
    """
    p = tables.p
    q = tables.q
    n = p * q
    n_units = 3 * n
    n_words = (n_units + 63) // 64
    peers, units, cell_units, unit_bits = tables.peers, tables.units, tables.cell_units, tables.unit_bits
    queue, dirty, seg, job_unit, job_bits = work.queue, work.dirty, work.seg, work.job_unit, work.job_bits
    n_peers = peers.shape[1]
    full = _ALL >> np.uint64(64 - n)
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
                        return False
                    if (m & (m - _ONE)) == _ZERO:
                        queue[queued] = peer
                        queued += 1
                    if one_word:
                        d0 |= unit_bits[peer]
                    else:
                        for which in range(3):
                            uv = cell_units[peer, which]
                            dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
        head = 0
        queued = 0
        # Rule 2: hidden singles in the changed units.
        placed = _ZERO  # one word: the units of the cells placed, read in the next round
        for w in range(n_words):
            if one_word:
                word = d0
                d0 = _ZERO
            else:
                word = dirty[w]
                dirty[w] = _ZERO
            while word:
                u = w * 64 + np.int64(lowest_index(word))  # type: ignore[arg-type]  # an integer to numba
                word &= word - _ONE
                once, twice, fixed = unit_digits(cur, units, u)
                if once != full:
                    return False  # a digit with no place left
                hidden = once & ~twice & ~fixed
                if hidden == _ZERO:
                    continue
                for k in range(n):
                    cell = units[u, k]
                    x = cur[cell] & hidden
                    if x:
                        if x & (x - _ONE):  # the one place of two digits
                            return False
                        cur[cell] = x
                        queue[queued] = cell
                        queued += 1
                        if one_word:
                            placed |= unit_bits[cell]
                        else:
                            for which in range(3):
                                uv = cell_units[cell, which]
                                dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)
        if queued:
            d0 = placed
            continue
        if not locked:
            return True
        # Rule 3: locked candidates (segment masks of all cells: see the notes).
        n_jobs = locked_jobs(cur, seg, job_unit, job_bits, p, q)
        if n_jobs == 0:
            return True
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
                    return False
                if (m & (m - _ONE)) == _ZERO:
                    queue[queued] = cell
                    queued += 1
                if one_word:
                    d0 |= unit_bits[cell]
                else:
                    for which in range(3):
                        uv = cell_units[cell, which]
                        dirty[uv >> 6] |= _ONE << np.uint64(uv & 63)


@numba.njit(cache=True, inline="always")
def load_givens(
    givens: np.ndarray, cur: np.ndarray, queue: np.ndarray, full: np.uint64
) -> int:  # pragma: no cover - compiled
    """Candidates of a puzzle's row ``givens`` into ``cur`` (a given's digit, else ``full``), the
    givens' cells queued for naked singles in ``queue``; returns how many were queued."""
    queued = 0
    for cell in range(givens.shape[0]):
        v = givens[cell]
        if v > 0:
            cur[cell] = _ONE << np.uint64(v - 1)
            queue[queued] = cell
            queued += 1
        else:
            cur[cell] = full
    return queued


@numba.njit(cache=True, inline="always")
def push_state(
    cur: np.ndarray, stack: np.ndarray, stack_cell: np.ndarray, top: int, cell: int, rest: np.uint64
) -> None:  # pragma: no cover - compiled
    """Push ``cur`` on level ``top`` of ``stack`` with ``cell`` left holding ``rest`` (the state
    without the digit guessed there), and the guessed cell in ``stack_cell``."""
    for c in range(cur.shape[0]):
        stack[top, c] = cur[c]
    stack[top, cell] = rest
    stack_cell[top] = cell


@numba.njit(cache=True, inline="always")
def pop_state(
    cur: np.ndarray, stack: np.ndarray, stack_cell: np.ndarray, top: int, queue: np.ndarray
) -> tuple[int, int]:  # pragma: no cover - compiled
    """Back to level ``top`` of ``stack``: ``cur`` as pushed; returns its guessed cell and how many
    cells are queued for the singles (that cell alone, in ``queue[0]``, when one digit is left)."""
    for c in range(cur.shape[0]):
        cur[c] = stack[top, c]
    cell = stack_cell[top]
    m = cur[cell]
    if (m & (m - _ONE)) == _ZERO:
        queue[0] = cell
        return cell, 1
    return cell, 0


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
    p = tables.p
    q = tables.q
    n = p * q
    cells = n * n
    n_units = 3 * n
    one_word = n_units <= 64
    peers, cell_units, unit_bits = tables.peers, tables.cell_units, tables.unit_bits
    cur, queue, dirty, stack, stack_cell, state = (
        work.cur,
        work.queue,
        work.dirty,
        work.stack,
        work.stack_cell,
        work.state,
    )
    n_words = (n_units + 63) // 64
    full = _ALL >> np.uint64(64 - n)
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
            queued = load_givens(givens[b], cur, queue, full)
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
            ok = propagate(cur, queued, d0, one_word, rules & RULE_LOCKED != 0, tables, work)
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
                size = int(popcount(m))
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
                score = guess_score(cur, peers, cell)
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
                push_state(cur, stack, stack_cell, top, best, m ^ bit)
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
                    out[n_out, cell] = lowest_index(cur[cell]) + _ONE
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
            cell, queued = pop_state(cur, stack, stack_cell, top, queue)
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


def _entry(
    givens,
    puzzles,
    p,
    q,
    peers,
    peer_count,
    units,
    cell_units,
    unit_bits,
    limit,
    keep,
    cur,
    queue,
    dirty,
    dirty_words,
    seg,
    seg_words,
    job_unit,
    job_bits,
    jobs,
    stack,
    stack_cell,
    levels,
    state,
    out,
    rows,
    owner,
    counts,
    done,
    nodes,
    budget,
    rules,
):  # type: ignore[no-untyped-def]  # pragma: no cover - compiled
    """``solve_batch`` on the arrays behind ``ENTRY_ARGUMENTS``'s pointers (shapes from the lengths given)."""
    n = p * q
    cells = n * n
    tables = Tables(
        p,
        q,
        carray(peers, (cells, peer_count)),
        carray(units, (3 * n, n)),
        carray(cell_units, (cells, 3)),
        carray(unit_bits, (cells,)),
    )
    work = Work(
        carray(cur, (cells,)),
        carray(queue, (cells,)),
        carray(dirty, (dirty_words,)),
        carray(seg, (seg_words,)),
        carray(job_unit, (jobs, 3)),
        carray(job_bits, (jobs,)),
        carray(stack, (levels, cells)),
        carray(stack_cell, (levels,)),
        carray(state, (STATE_SIZE,)),
    )
    return solve_batch(
        carray(givens, (puzzles, cells)),
        tables,
        limit,
        keep != 0,
        work,
        carray(out, (rows, cells)),
        carray(owner, (rows,)),
        carray(counts, (puzzles,)),
        carray(done, (puzzles,)),
        carray(nodes, (puzzles,)),
        budget,
        rules,
    )


def entry_object() -> tuple[bytes, str, list[str]]:
    """``solve_batch`` behind a C entry point taking ``ENTRY_ARGUMENTS``: object code, symbol, externals."""
    return compile_entry(_entry, ENTRY_ARGUMENTS)
