"""The compiled 9x9 kernel of the ``backtrack`` solver: per-digit band words, a whole batch per call.

A 9x9 grid is three bands of three rows.  The state is 27 words, one per digit and band: word
``3d + b`` holds the cells of band b (bit 9r + c for row r of the band, column c) where digit
d + 1 may still go, so a digit's whole board is three words and most reasoning about one digit
is a few shifts, ORs and lookups in tables of 512 entries.  Three more words hold each band's
placed cells (a cell is placed when its digit's row, box and column mates are gone and the other
digits have left it).  A node propagates to a fixed point:

1. a band step, on each digit-band word that changed: its 3 rows x 3 boxes segments (a row's
   9 bits shrink to 3, one per box) must allow a perfect matching (each row of the band holds
   the digit in one box, each box in one row); segments in no perfect matching leave (one
   table lookup: row-box locked candidates and more).  A row left with one cell places the
   digit there (a box left with one cell has its row reduced to it by the matching): the cell
   leaves the other digits and the digit leaves its column in the other bands;
2. a stack step, on each digit some of whose words changed: the same matching on each stack's
   3 bands x 3 columns (a band's word folded to its 9 columns) removes column-box locked
   candidates; a column left with one cell then has a box left with one cell, which the band
   step places (hidden singles in columns);
3. naked singles, band by band: the digits seen once, twice and thrice over the nine words (OR
   masks); a cell seen nowhere is a contradiction, a cell seen once and not placed yet is placed.

A node that ends with every cell placed is a solution; otherwise it guesses, as the general
kernel (``sudoku_cp.native.bitset``) does: among the first few bivalue cells (from the same
masks), the one with the most peers sharing a candidate, bivalue peers counting thrice (a cell
with more candidates when there is no bivalue cell), lowest digit first; the state without that
digit goes on an explicit stack of 31 words a level.

``solve_batch9`` takes the same batch, limit, budget and outputs as the general kernel and keeps
the whole search in the arrays it is given (``kernels.Work9``), so ``sudoku_cp.native.backtrack``
drives both alike.  ``entry_object`` compiles it behind a C entry point taking pointers and
returns the machine code, which later processes load without numba (``machine_code``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
from numba import carray

from ..limits import watch_compilation
from .bitset import lowest_index as _lowest
from .bitset import popcount as _popcount
from .kernels import (
    BUDGET,
    DONE,
    ENTRY9_ARGUMENTS,
    EXHAUSTED,
    FLUSH,
    GROW,
    LEVEL_WORDS,
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
    T_COLUMNS,
    T_PEERS,
    T_SEGMENTS,
    T_SHRINK,
    T_SINGLE,
    TABLE9_SIZE,
    WORDS,
    Work9,
)
from .machine_code import compile_entry

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["entry_object", "solve_batch9"]

if TYPE_CHECKING:  # to the type checker a word read as int64 is an int

    def _int(x: object) -> int:
        """The value as int64."""

else:
    _int = np.int64

_BAND = (1 << 27) - 1  # the 27 cells of a band
_COLUMN = 0x40201  # column 0 in each row of a band: bits 0, 9, 18
_PLACED = 27  # words 27..29: placed cells of each band
_BIVALUE = 30  # words 30..32: cells with two candidates, at the last naked-singles pass
_STABLE = 33  # words 33..41: for each digit, its columns of each band the stack step last kept
_SCORED = 8  # bivalue cells scored before a guess, at most (as in the general kernel)
_MODE_PROPAGATE, _MODE_BRANCH, _MODE_BACKTRACK = 1, 2, 3


@numba.njit(cache=True)
def solve_batch9(
    givens: np.ndarray,
    table: np.ndarray,
    limit: int,
    keep: bool,
    work: Work9,
    out: np.ndarray,
    owner: np.ndarray,
    counts: np.ndarray,
    done: np.ndarray,
    nodes: np.ndarray,
    budget: int,
    rules: int,
) -> int:  # pragma: no cover - compiled
    """Search the 9x9 puzzles ``givens`` (B, 81) from ``work.state`` on, for at most ``budget`` nodes.

    The same contract as the general kernel's ``solve_batch``: each puzzle counted to ``limit``
    (``counts``, ``done``, ``nodes``), solutions to ``out`` / ``owner`` with ``keep``; returns
    DONE, or BUDGET / FLUSH / GROW to be called again with the same arrays.
    """
    words, stack, state = work.words, work.stack, work.state
    n_puzzles = givens.shape[0]
    locked = (rules & RULE_LOCKED) != 0
    score = (rules & RULE_SCORE) != 0
    b = state[S_PUZZLE]
    mode = state[S_MODE]
    top = state[S_TOP]
    n_out = state[S_SOLUTIONS]
    band_due = state[S_QUEUED] & _BAND  # digit-band words to run the band step on
    stack_due = state[S_QUEUED] >> 27  # digits to run the stack step on
    spent = 0
    status = DONE
    while b < n_puzzles:
        if mode == MODE_START:
            for i in range(_PLACED):
                words[i] = _BAND
            for band in range(3):
                words[_PLACED + band] = 0
            for cell in range(81):
                v = _int(givens[b, cell])
                if v <= 0:
                    continue
                d = v - 1
                band = cell // 27
                j = cell - 27 * band
                x = _int(1) << j
                for e in range(9):
                    if e != d:
                        words[3 * e + band] &= ~x
                words[3 * d + band] &= ~_int(table[T_PEERS + j])
                column = _COLUMN << (j % 9)
                for other in range(3):
                    if other != band:
                        words[3 * d + other] &= ~column
                words[_PLACED + band] |= x
            band_due = _BAND
            stack_due = 511
            top = 0
            mode = _MODE_PROPAGATE
        if mode == _MODE_PROPAGATE:
            if spent >= budget:
                status = BUDGET
                break
            spent += 1
            nodes[b] += 1
            ok = True
            while True:
                # 1. Band steps, a batch at a time: the next word to read does not wait for this one's
                # outcome, so the processor overlaps consecutive steps.
                todo = band_due
                band_due = 0
                while todo:
                    i = _lowest(todo)
                    todo &= todo - 1
                    d = i // 3
                    band = i - 3 * d
                    f = _int(words[i])
                    pattern = (
                        table[T_SHRINK + (f & 511)]
                        | table[T_SHRINK + ((f >> 9) & 511)] << 3
                        | table[T_SHRINK + (f >> 18)] << 6
                    )
                    kept = table[T_SEGMENTS + pattern]  # the cells of the segments kept (0: none)
                    if kept == 0:
                        ok = False
                        break
                    g = f & kept
                    if g != f:
                        words[i] = g
                        stack_due |= 1 << d
                    solo = (
                        table[T_SINGLE + (g & 511)]
                        | table[T_SINGLE + ((g >> 9) & 511)] << 9
                        | table[T_SINGLE + (g >> 18)] << 18
                    )
                    new = solo & ~_int(words[_PLACED + band])
                    if new == 0:
                        continue
                    words[_PLACED + band] |= new
                    # The new cells leave the other digits (stores without branches: cheaper than
                    # mispredicted tests), then the digit leaves their columns in the other bands.
                    for e in range(9):
                        k = 3 * e + band
                        w = _int(words[k])
                        hit = (w & new) if e != d else 0
                        words[k] = w ^ hit
                        band_due |= _int(hit != 0) << k
                        stack_due |= _int(hit != 0) << e
                    column = ((new | new >> 9 | new >> 18) & 511) * _COLUMN
                    for other in range(3):
                        k = 3 * d + other
                        w = _int(words[k])
                        hit = (w & column) if other != band else 0
                        words[k] = w ^ hit
                        band_due |= _int(hit != 0) << k
                        stack_due |= _int(hit != 0) << d
                if not ok:
                    break
                if band_due:
                    continue
                # 2. Stack steps.
                if locked and stack_due:
                    d = _lowest(stack_due)
                    stack_due &= stack_due - 1
                    folded = 0
                    for band in range(3):
                        w = _int(words[3 * d + band])
                        folded |= ((w | w >> 9 | w >> 18) & 511) << (9 * band)
                    if folded == words[_STABLE + d]:
                        continue
                    kept = 0
                    for s in range(3):
                        x = (folded >> (3 * s)) & 0x1C0E07  # columns 3s..3s+2 of each band
                        allowed = table[T_COLUMNS + ((x | x >> 6 | x >> 12) & 511)]
                        if allowed == 0:
                            ok = False
                            break
                        kept |= allowed << (3 * s)
                    if not ok:
                        break
                    words[_STABLE + d] = folded & kept
                    for band in range(3):
                        k = 3 * d + band
                        w = _int(words[k])
                        g = w & (((kept >> (9 * band)) & 511) * _COLUMN)
                        if g != w:
                            words[k] = g
                            band_due |= 1 << k
                    continue
                # 3. Naked singles, band by band.
                for band in range(3):
                    once = 0
                    twice = 0
                    thrice = 0
                    for d in range(9):
                        w = _int(words[3 * d + band])
                        thrice |= twice & w
                        twice |= once & w
                        once |= w
                    if once != _BAND:
                        ok = False
                        break
                    words[_BIVALUE + band] = twice & ~thrice
                    naked = _BAND & ~twice & ~_int(words[_PLACED + band])
                    if naked == 0:
                        continue
                    words[_PLACED + band] |= naked
                    for d in range(9):
                        k = 3 * d + band
                        w = _int(words[k])
                        x = w & naked
                        if x == 0:
                            continue
                        gone = 0
                        y = x
                        while y:
                            gone |= table[T_PEERS + _lowest(y)]
                            y &= y - 1
                        if w & gone:
                            words[k] = w & ~gone
                            band_due |= 1 << k
                            stack_due |= 1 << d
                        column = ((x | x >> 9 | x >> 18) & 511) * _COLUMN
                        for other in range(3):
                            k = 3 * d + other
                            w = _int(words[k])
                            if other != band and w & column:
                                words[k] = w & ~column
                                band_due |= 1 << k
                                stack_due |= 1 << d
                if not ok or not (band_due or (locked and stack_due)):
                    break
            band_due = 0
            stack_due = 0
            mode = _MODE_BRANCH if ok else _MODE_BACKTRACK
        if mode == _MODE_BRANCH:
            if words[_PLACED] & words[_PLACED + 1] & words[_PLACED + 2] == _BAND:
                # Every cell placed: a solution.
                if keep:
                    if n_out == out.shape[0]:
                        status = FLUSH
                        break
                    for i in range(27):
                        w = _int(words[i])
                        base = 27 * (i % 3)
                        while w:
                            out[n_out, base + _lowest(w)] = i // 3 + 1
                            w &= w - 1
                    owner[n_out] = b
                    n_out += 1
                counts[b] += 1
                if counts[b] >= limit:
                    done[b] = LIMIT
                    b += 1
                    mode = MODE_START
                    continue
                mode = _MODE_BACKTRACK
            else:
                best_band = -1
                best_j = 0
                top_score = -1
                fewest = 10
                scored = 0
                bivalue = (words[_BIVALUE] | words[_BIVALUE + 1] | words[_BIVALUE + 2]) != 0
                for band in range(3 if bivalue and score else 0):  # the common case, written out
                    open_cells = _int(words[_BIVALUE + band])
                    while open_cells and scored < _SCORED:
                        j = _lowest(open_cells)
                        open_cells &= open_cells - 1
                        digits = 0
                        for d in range(9):
                            digits |= ((_int(words[3 * d + band]) >> j) & 1) << d
                        first = 3 * _lowest(digits)
                        second = 3 * _lowest(digits & (digits - 1))
                        points = 0
                        for other in range(3):
                            near = table[T_PEERS + j] if other == band else _COLUMN << (j % 9)
                            shared = (words[first + other] | words[second + other]) & near
                            points += _popcount(shared) + 2 * _popcount(shared & words[_BIVALUE + other])
                        if points > top_score:
                            top_score = points
                            best_band = band
                            best_j = j
                        scored += 1
                for band in range(0 if bivalue and score else 3):
                    if bivalue:
                        open_cells = _int(words[_BIVALUE + band])
                    else:
                        open_cells = _BAND & ~_int(words[_PLACED + band])
                    while open_cells:
                        j = _lowest(open_cells)
                        open_cells &= open_cells - 1
                        x = _int(1) << j
                        digits = 0
                        for d in range(9):
                            digits |= ((_int(words[3 * d + band]) >> j) & 1) << d
                        size = _popcount(digits)
                        if size > fewest:
                            continue
                        if size < fewest:
                            fewest = size
                            best_band = band
                            best_j = j
                            top_score = -1
                            if not score:
                                if bivalue:
                                    break
                                continue
                        elif not score:
                            continue
                        points = 0
                        for other in range(3):
                            near = table[T_PEERS + j] if other == band else _COLUMN << (j % 9)
                            shared = 0
                            ds = digits
                            while ds:
                                shared |= words[3 * _lowest(ds) + other]
                                ds &= ds - 1
                            shared &= near
                            points += _popcount(shared) + 2 * _popcount(shared & words[_BIVALUE + other])
                        if points > top_score:
                            top_score = points
                            best_band = band
                            best_j = j
                        scored += 1
                        if bivalue and scored >= _SCORED:
                            break
                    if bivalue and (scored >= _SCORED or (not score and best_band >= 0)):
                        break
                if top == stack.shape[0]:
                    status = GROW
                    break
                x = _int(1) << best_j
                d = 0
                while not words[3 * d + best_band] & x:
                    d += 1
                for k in range(_PLACED + 3):
                    stack[top, k] = words[k]
                i = 3 * d + best_band
                stack[top, i] &= ~x
                stack[top, _PLACED + 3] = i
                top += 1
                # The digit leaves the rest of the cell's row: the band step then places it there.
                words[i] &= ~((511 << (best_j - best_j % 9)) ^ x)
                band_due = _int(1) << i
                stack_due = _int(1) << d
                mode = _MODE_PROPAGATE
                continue
        if mode == _MODE_BACKTRACK:
            if top == 0:
                done[b] = EXHAUSTED
                b += 1
                mode = MODE_START
                continue
            # The state under the last guess: the guessed cell without the guessed digit.
            top -= 1
            for k in range(_PLACED + 3):
                words[k] = stack[top, k]
            i = _int(stack[top, _PLACED + 3])
            band_due = _int(1) << i
            stack_due = _int(1) << (i // 3)
            mode = _MODE_PROPAGATE
    state[S_PUZZLE] = b
    state[S_MODE] = mode
    state[S_TOP] = top
    state[S_QUEUED] = band_due | stack_due << 27
    state[S_SOLUTIONS] = n_out
    return status


def _entry9(
    givens,
    puzzles,
    table,
    limit,
    keep,
    words,
    stack,
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
    """``solve_batch9`` on the arrays behind ``ENTRY9_ARGUMENTS``'s pointers."""
    work = Work9(carray(words, (WORDS,)), carray(stack, (levels, LEVEL_WORDS)), carray(state, (STATE_SIZE,)))
    return solve_batch9(
        carray(givens, (puzzles, 81)),
        carray(table, (TABLE9_SIZE,)),
        limit,
        keep != 0,
        work,
        carray(out, (rows, 81)),
        carray(owner, (rows,)),
        carray(counts, (puzzles,)),
        carray(done, (puzzles,)),
        carray(nodes, (puzzles,)),
        budget,
        rules,
    )


def entry_object() -> tuple[bytes, str, list[str]]:
    """``solve_batch9`` behind a C entry point taking ``ENTRY9_ARGUMENTS``: object code, symbol, externals."""
    return compile_entry(_entry9, ENTRY9_ARGUMENTS)
