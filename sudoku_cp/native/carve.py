"""Minimal puzzles carved out of random complete grids, a whole batch in one compiled search.

Each puzzle of a batch goes through three phases inside one resumable kernel (``carve_batch``):

1. **fill**: a random complete grid, by a depth-first search from the empty grid (the cell with
   the fewest candidates, a random digit first, naked and hidden singles after every digit,
   ``native.propagation.fix``); a fill that spends more than ``FILL_NODES_PER_CELL`` nodes a
   cell starts again (the search's heavy tail on big grids);
2. **seed** (the bulk removal): the cells in a random order, each added as a given unless the
   givens so far already fix it by singles; at the end singles solve the grid from these givens,
   so they have one solution, and most cells were never givens at all;
3. **carve**: the givens in the order they were added, each taken out when no second solution
   exists: a search for a solution of the other givens with that cell holding another digit
   (the known solution's digits tried first elsewhere, since a second solution mostly agrees
   with the first).  No solution: the given goes for good.  A solution: the given stays and that
   solution is kept as its **witness**.  Givens only go, so a witness found earlier still
   solves the final puzzle without its given: one pass leaves a puzzle from which no single
   given can be removed, each kept given with a witness that anyone can check.

From 16x16 on (``carve``'s ``by_count``) phase 3 runs in two steps instead: first each seeded
given goes, in order, when singles and locked candidates still solve the puzzle without it (one
propagation, no search; the puzzle stays solved by the rules); then the givens left, whose
searches start one given away from a grid the rules solve, are tested all at once, a batch in
one compiled call: up to 21x21 by the witness search (``native.witness``: the puzzle without the
given, its digit forbidden there, the known solution's digit first at every guess), above by a
count to two of the backtrack search (``native.backtrack``).  Another solution: the given stays
with it as its witness; none, the search exhausted, the first such given goes and the others of
its kind are tested again on the smaller puzzle.  On 16x16 about a quarter of the seeded givens
go by the rules and a few by the tests.  Up to 21x21 every propagation here (the fill, the
tests, the rules' pass) is the witness search's (``_w_propagate``: changed units in one word,
the backtrack search's way), which reaches the same fixed point as ``native.propagation`` with
``_settle`` at a third of the cost, so the same searches and puzzles.  From 25x25 on
(``REGION_SIDE``) each test first looks for a witness in a region (``region_rows``: the given's
band and stack, then one more band and stack, every other cell held at the known solution; a few
nodes each), since there a count of the whole puzzle can run for seconds: on a 25x25 seed they
settle 60 of its 266 tests in 0.15 s.

``symmetric=True`` works on the pairs of cells a half turn swaps (the centre of an odd grid
alone): pairs are added and taken out together, and a pair stays when a solution differs from
the known one in either cell (searched cell by cell, the earlier cells of the pair held fixed).

The kernel runs for a budget of nodes (a node: one propagation) and keeps its whole state in
arrays, so ``carve`` (the driver) checks the deadline between chunks and resumes.  Nothing here
proves uniqueness to the caller: that is the complete searches' and SAT's job (see
``deduction.generate``); the witnesses are checked there too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numba
import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, watch_compilation
from . import NativeInputError
from .bitset import guess_score, lowest_index, popcount, unit_digits
from .chunks import BUDGET, ChunkBudget
from .prng import uniform_below
from .propagation import (
    MAX_SIDE,
    PropagationTables,
    Scratch,
    fix,
    new_scratch,
    propagate_masks,
    propagation_tables,
)

# Kernel status (DONE, GROW), bit constants and stack depth are shared with the witness search.
from .witness import (
    _DONE,
    _GROW,
    _ONE,
    _STACK_LEVELS,
    _ZERO,
    WITNESS_MAX_SIDE,
    _all_single,
    _fast,
    _initial,
    _w_propagate,
    _w_settle_all,
    _w_solved,
    _witness_tables_of,
    _witness_work,
    _WitnessTables,
    _WitnessWork,
    witness_batch,
)

if TYPE_CHECKING:
    from .backtrack import BatchRun

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "BY_COUNT_SIDE",
    "FILL_NODES_PER_CELL",
    "HARD",
    "PRUNED",
    "ABANDONED",
    "ANSWERED",
    "BLOCK_SIZE",
    "REGION_NODES",
    "STOPPED",
    "BlockAnswers",
    "BlockOracle",
    "REGION_SECONDS",
    "REGION_SIDE",
    "RECOUNT_SECONDS",
    "TEST_SECONDS",
    "MAX_SIDE",
    "Carved",
    "Oracle",
    "carve",
    "check_witnesses",
    "rng_states",
]

#: A fill that spends more nodes than this per cell starts again from the empty grid.
FILL_NODES_PER_CELL = 20
#: Grids of this side and more are carved ``by_count`` by default (smaller: given by given).
BY_COUNT_SIDE = 16
#: Seconds the backtrack search spends on one test of ``by_count`` before the oracle takes it.
TEST_SECONDS = 1.0
#: Seconds the backtrack search spends on one region of a given's witness search (``by_count``):
#: these searches hold most cells at the known solution and settle in a few nodes; one that does
#: not is left to the count of the whole puzzle.
REGION_SECONDS = 0.05
#: Grids of this side and more look for region witnesses before counting (``by_count``): on
#: 16x16 the counts settle those tests in a few nodes anyway, and a region search costs about
#: as much as eight of them (its start propagates twice the givens).
REGION_SIDE = 25
#: From ``REGION_SIDE`` on, seconds of a count after the first round (a given counted again once
#: others went): on 25x25 none of 29 such counts finished in a second (each then went to SAT).
RECOUNT_SECONDS = 0.1
#: From ``REGION_SIDE`` on, a region search counts only when it settles within this many nodes
#: (a time limit alone would make which givens go to the oracle, and so a block oracle's
#: deterministic budget, depend on the machine's speed).  On 25x25 seeds 1 and 3 they settle in
#: 109 nodes at most.
REGION_NODES = 1000
#: Givens per formula of a ``block_oracle`` (``research/gen25.md``: 8 or 16, no clear difference).
BLOCK_SIZE = 16

#: ``BlockAnswers`` status: every test of the block answered.
ANSWERED = 0
#: ``BlockAnswers`` status: the deadline stopped a test (the answers before it stand).
STOPPED = 1
#: ``BlockAnswers`` status: the grid's witnesses are too hard (the oracle's deterministic
#: budget): the driver gives this attempt up for the next.
ABANDONED = 2

#: Kernel status: the test in hand spent its node cap; the caller answers it (``answer``) and resumes.
HARD = -4
#: Kernel status: a puzzle is seeded and pruned; the caller tests the givens left (``carve``, ``by_count``)
#: and resumes at the next puzzle.
PRUNED = -5
_STOPPED = 1  # the driver's own final status: the oracle was stopped by the deadline
# The resumable state: puzzle, mode, stack height, carve position, cell of the pair under test,
# nodes of the current fill.
_S_PUZZLE, _S_MODE, _S_TOP, _S_POS, _S_SUB, _S_FILL = range(6)
_STATE = 6
# Modes: start a puzzle, branch (pick a cell or see a solution), try the next digit, seed, test.
_START, _BRANCH, _TRY, _SEED, _TEST = range(5)
_SCORED = 8  # bivalue cells scored before a guess, at most


class _Stack(NamedTuple):
    """The search's states: ``masks`` (L, cells) before each guess, ``cell`` (L,) guessed,
    ``left`` (L,) digits of that cell not tried yet."""

    masks: np.ndarray
    cell: np.ndarray
    left: np.ndarray


class _Segments(NamedTuple):
    """Box-line intersections for locked candidates: ``cells`` (S, L) padded with -1, ``line``
    and ``box`` (S,) their units; ``of_box`` (n, p + q): a box's row segments, then its column
    segments; ``of_line`` (2n, max(p, q)) a line's segments, padded with -1."""

    cells: np.ndarray
    line: np.ndarray
    box: np.ndarray
    of_box: np.ndarray
    of_line: np.ndarray
    p: int


def _segments(geometry: Geometry) -> _Segments:
    """The box-line intersections of a geometry."""
    n, p, q = geometry.n, geometry.p, geometry.q
    cell_units = np.asarray(geometry.cell_units)
    keys: dict[tuple[int, int], list[int]] = {}
    for side in (0, 1):  # row segments first, then column segments
        for cell in range(n * n):
            keys.setdefault((int(cell_units[cell, side]), int(cell_units[cell, 2])), []).append(cell)
    width = max(p, q)
    cells = np.full((len(keys), width), -1, np.int64)
    line = np.empty(len(keys), np.int64)
    box = np.empty(len(keys), np.int64)
    of_box: list[list[int]] = [[] for _ in range(n)]
    of_line = np.full((2 * n, width), -1, np.int64)
    filled = np.zeros(2 * n, np.int64)
    for s, ((u, b), members) in enumerate(keys.items()):
        cells[s, : len(members)] = members
        line[s], box[s] = u, b
        of_box[b - 2 * n].append(s)
        of_line[u, filled[u]] = s
        filled[u] += 1
    return _Segments(cells, line, box, np.array(of_box, np.int64), of_line, p)


@numba.njit(cache=True)
def _remove_outside(
    cur: np.ndarray,
    unit: int,
    bits: np.uint64,
    side: int,
    keep_unit: int,
    work: Scratch,
    tables: PropagationTables,
) -> int:  # pragma: no cover - compiled
    """Take ``bits`` out of the cells of ``unit`` not in ``keep_unit`` (their unit number ``side``),
    a cell left single propagated at once: -1 on a contradiction, else 1 if anything changed."""
    units, cell_units = tables.units, tables.cell_units
    changed = 0
    for k in range(units.shape[1]):
        cell = units[unit, k]
        if cell_units[cell, side] == keep_unit:
            continue
        m = cur[cell]
        if m & bits:
            m &= ~bits
            if m == _ZERO:
                return -1
            changed = 1
            if (m & (m - _ONE)) == _ZERO:
                if not fix(cur, cell, m, work, tables, True):
                    return -1
            else:
                cur[cell] = m
    return changed


@numba.njit(cache=True)
def _hidden(cur: np.ndarray, work: Scratch, tables: PropagationTables) -> bool:  # pragma: no cover - compiled
    """Hidden singles over every unit (each found one propagated by ``fix``); False on a contradiction."""
    units, full = tables.units, tables.full
    n = units.shape[1]
    for u in range(units.shape[0]):
        once, twice, fixed = unit_digits(cur, units, u)
        if once != full:
            return False
        hidden = once & ~twice & ~fixed
        if hidden == _ZERO:
            continue
        for k in range(n):
            cell = units[u, k]
            x = cur[cell] & hidden
            if x:
                if x & (x - _ONE):
                    return False
                if cur[cell] != x and not fix(cur, cell, x, work, tables, True):
                    return False
    return True


@numba.njit(cache=True)
def _locked(
    cur: np.ndarray, segs: _Segments, work: Scratch, tables: PropagationTables, masks: np.ndarray
) -> int:  # pragma: no cover - compiled
    """Locked candidates once over the grid (pointing, claiming): -1 contradiction, 1 some
    candidate removed, 0 none.  ``masks`` (S,): work space for the segments' candidates."""
    n_segs = segs.cells.shape[0]
    for s in range(n_segs):
        acc = _ZERO
        for k in range(segs.cells.shape[1]):
            c = segs.cells[s, k]
            if c < 0:
                break
            acc |= cur[c]
        masks[s] = acc
    changed = 0
    p = segs.p
    n = segs.of_box.shape[0]
    for b in range(n):  # pointing: a digit in one row (column) of a box leaves the rest of that line
        for side in range(2):
            lo = 0 if side == 0 else p
            hi = p if side == 0 else segs.of_box.shape[1]
            once = _ZERO
            twice = _ZERO
            for i in range(lo, hi):
                m = masks[segs.of_box[b, i]]
                twice |= once & m
                once |= m
            once &= ~twice
            if once == _ZERO:
                continue
            for i in range(lo, hi):
                sg = segs.of_box[b, i]
                bits = masks[sg] & once
                if bits:
                    line = segs.line[sg]
                    elsewhere = _ZERO  # the line's candidates outside this box
                    for j in range(segs.of_line.shape[1]):
                        other = segs.of_line[line, j]
                        if other < 0:
                            break
                        if other != sg:
                            elsewhere |= masks[other]
                    bits &= elsewhere
                if bits:
                    r = _remove_outside(cur, segs.line[sg], bits, 2, segs.box[sg], work, tables)
                    if r < 0:
                        return -1
                    changed |= r
    for u in range(2 * n):  # claiming: a digit of a line in one box leaves the rest of that box
        once = _ZERO
        twice = _ZERO
        for i in range(segs.of_line.shape[1]):
            sg = segs.of_line[u, i]
            if sg < 0:
                break
            m = masks[sg]
            twice |= once & m
            once |= m
        once &= ~twice
        if once == _ZERO:
            continue
        for i in range(segs.of_line.shape[1]):
            sg = segs.of_line[u, i]
            if sg < 0:
                break
            bits = masks[sg] & once
            if bits:
                box = segs.box[sg] - 2 * n
                side = 0 if u < n else 1
                lo = 0 if side == 0 else p
                hi = p if side == 0 else segs.of_box.shape[1]
                elsewhere = _ZERO  # the box's candidates outside this line
                for j in range(lo, hi):
                    other = segs.of_box[box, j]
                    if other != sg:
                        elsewhere |= masks[other]
                bits &= elsewhere
            if bits:
                r = _remove_outside(cur, segs.box[sg], bits, 0 if u < n else 1, u, work, tables)
                if r < 0:
                    return -1
                changed |= r
    return changed


@numba.njit(cache=True)
def _settle(
    cur: np.ndarray, work: Scratch, tables: PropagationTables, segs: _Segments, masks: np.ndarray
) -> bool:  # pragma: no cover - compiled
    """Locked candidates and singles (``cur`` already at the singles' fixed point) until neither
    removes anything; False on a contradiction."""
    while True:
        r = _locked(cur, segs, work, tables, masks)
        if r == 0:
            return True
        if r < 0 or not _hidden(cur, work, tables):
            return False


@numba.njit(cache=True)
def _choose(cur: np.ndarray, peers: np.ndarray, scored: bool) -> int:  # pragma: no cover - compiled
    """The cell to guess on (-1: every cell single): one with the fewest candidates; ``scored``:
    among the first ``_SCORED`` of them, the one whose candidates most peers share (a bivalue
    peer thrice), so that its guess propagates furthest."""
    best = -1
    fewest = 65
    for c in range(cur.shape[0]):
        m = cur[c]
        if m & (m - _ONE):
            k = popcount(m)
            if k < fewest:
                fewest = k
                best = c
                if k == 2:
                    break
    if best < 0 or not scored:
        return best
    top = -1
    seen = 0
    for c in range(best, cur.shape[0]):
        m = cur[c]
        if (m & (m - _ONE)) == _ZERO or popcount(m) != fewest:
            continue
        score = guess_score(cur, peers, c)
        if score > top:
            top = score
            best = c
        seen += 1
        if seen >= _SCORED:
            break
    return best


@numba.njit(cache=True)
def _solved_by_rules(
    puzzle: np.ndarray,
    cur: np.ndarray,
    work: Scratch,
    tables: PropagationTables,
    segs: _Segments,
    seg_masks: np.ndarray,
) -> bool:  # pragma: no cover - compiled
    """Whether singles and locked candidates alone solve ``puzzle`` (then it has one solution)."""
    _initial(puzzle, cur, tables.full)
    if not propagate_masks(cur, tables.peers, tables.units, tables.cell_units, tables.full, True):
        return False
    return _settle(cur, work, tables, segs, seg_masks) and _all_single(cur)


@numba.njit(cache=True)
def _prune(
    puzzle: np.ndarray,
    solution: np.ndarray,
    order: np.ndarray,
    count: int,
    symmetric: bool,
    cur: np.ndarray,
    work: Scratch,
    tables: PropagationTables,
    segs: _Segments,
    seg_masks: np.ndarray,
    wtables: _WitnessTables,
    wwork: _WitnessWork,
) -> int:  # pragma: no cover - compiled
    """Take out, in order, each seeded given (pair) of ``order[:count]`` whose puzzle the rules
    still solve; put those first in ``order`` (the rest after them, in their order) and return
    how many went.  Up to ``WITNESS_MAX_SIDE`` the rules run as in the witness search (the same
    fixed point, a third of the time).

    A removal the rules prove costs one propagation instead of a search, and the puzzle stays
    solved by the rules, so each search that follows starts one given away from a solved grid.
    """
    cells = puzzle.shape[0]
    kept = np.empty(count, order.dtype)
    n_kept = 0
    gone = 0
    for i in range(count):
        c = order[i]
        other = cells - 1 - c
        puzzle[c] = 0
        if symmetric:
            puzzle[other] = 0
        if _fast(wtables):
            solved = _w_solved(puzzle, wtables, wwork)
        else:
            solved = _solved_by_rules(puzzle, cur, work, tables, segs, seg_masks)
        if solved:
            order[gone] = c  # gone <= i: a slot already read
            gone += 1
        else:
            puzzle[c] = solution[c]
            if symmetric:
                puzzle[other] = solution[other]
            kept[n_kept] = c
            n_kept += 1
    order[gone:count] = kept[:n_kept]
    return gone


@numba.njit(cache=True)
def carve_batch(
    tables: PropagationTables,
    work: Scratch,
    rngs: np.ndarray,
    symmetric: bool,
    solutions: np.ndarray,
    puzzles: np.ndarray,
    order: np.ndarray,
    counts: np.ndarray,
    witness: np.ndarray,
    restarts: np.ndarray,
    nodes: np.ndarray,
    cur: np.ndarray,
    stack: _Stack,
    segs: _Segments,
    seg_masks: np.ndarray,
    state: np.ndarray,
    budget: int,
    cap: int,
    handoff: bool,
    wtables: _WitnessTables,
    wwork: _WitnessWork,
) -> int:  # pragma: no cover - compiled
    """Make the puzzles of the batch from ``state`` on, for at most ``budget`` nodes.

    ``rngs`` (B, 1) uint64: each puzzle's random state (``native.prng``); out: ``solutions`` and
    ``puzzles`` (B, cells) int8 (digits 1..n, 0 empty), ``order`` (B, cells) int32 and
    ``counts`` (B,): the seeded givens (the first cell of each pair) in the order added,
    ``witness`` (B, cells, cells) int8: the second solution kept for a given that stays (at its
    first cell), ``restarts`` (B,): fills started again, ``nodes`` (B, cells + 1): nodes per
    test (the fill's last).  Returns DONE, BUDGET, GROW, or HARD when a test spent ``cap`` nodes;
    with ``handoff`` the seeded givens the rules can spare go at once (``_prune``) and the kernel
    returns PRUNED with the tests left to the caller (``state``'s position: the first to test).
    """
    peers, units, cell_units, full = tables.peers, tables.units, tables.cell_units, tables.full
    cells = cur.shape[0]
    b = state[_S_PUZZLE]
    mode = state[_S_MODE]
    top = state[_S_TOP]
    pos = state[_S_POS]
    sub = state[_S_SUB]
    fill_nodes = state[_S_FILL]
    fill_cap = FILL_NODES_PER_CELL * cells
    levels = stack.masks.shape[0]
    spent = 0
    status = _DONE
    n_puzzles = puzzles.shape[0]
    while b < n_puzzles:
        rng = rngs[b]
        if mode == _START:
            for c in range(cells):
                cur[c] = full
                puzzles[b, c] = 0
            top = 0
            fill_nodes = 0
            pos = 0
            sub = 0
            mode = _BRANCH
        if mode == _BRANCH:
            best = _choose(cur, peers, counts[b] != 0)
            if best < 0:
                # Every cell single: a solution.
                if counts[b] == 0:  # the fill's
                    for c in range(cells):
                        solutions[b, c] = lowest_index(cur[c]) + 1
                    mode = _SEED
                else:  # a second solution: the given (pair) under test stays, with its witness
                    first = order[b, pos]
                    for c in range(cells):
                        witness[b, first, c] = lowest_index(cur[c]) + 1
                    puzzles[b, first] = solutions[b, first]
                    other = cells - 1 - first
                    if symmetric:
                        puzzles[b, other] = solutions[b, other]
                    pos += 1
                    sub = 0
                    top = 0
                    mode = _TEST
            else:
                if top == levels:
                    status = _GROW
                    break
                for c in range(cells):
                    stack.masks[top, c] = cur[c]
                stack.cell[top] = best
                stack.left[top] = cur[best]
                top += 1
                mode = _TRY
        if mode == _TRY:
            if top == 0:
                # Exhausted: the fill cannot be (the empty grid has solutions); a test: no
                # solution with this cell changed.
                if counts[b] == 0:
                    mode = _START
                    restarts[b] += 1
                    continue
                sub += 1
                first = order[b, pos]
                if sub == 1 and symmetric and cells - 1 - first != first:
                    mode = _TEST  # the pair's second cell next, the first held at its digit
                    continue
                pos += 1  # the given (pair) goes for good
                sub = 0
                mode = _TEST
                continue
            if spent >= budget:
                status = BUDGET
                break
            if counts[b] != 0 and nodes[b, pos] >= cap:
                status = HARD  # a heavy tail: the caller's complete solver takes this test
                break
            level = top - 1
            left = stack.left[level]
            cell = stack.cell[level]
            if counts[b] == 0:  # the fill: a random digit among those left
                pick = uniform_below(rng, popcount(left))
                bit = left & (~left + _ONE)
                for _ in range(pick):
                    left ^= bit
                    bit = left & (~left + _ONE)
                left = stack.left[level]
            else:  # a test: the known solution's digit first
                bit = _ONE << np.uint64(solutions[b, cell] - 1)
                if not left & bit:
                    bit = left & (~left + _ONE)
            left ^= bit
            stack.left[level] = left
            for c in range(cells):
                cur[c] = stack.masks[level, c]
            if left == _ZERO:
                top -= 1  # the last digit of this cell: no state to come back to
            spent += 1
            nodes[b, pos if counts[b] else cells] += 1
            if counts[b] == 0:
                fill_nodes += 1
                if fill_nodes > fill_cap:
                    mode = _START
                    restarts[b] += 1
                    continue
            if _fast(wtables):
                cur[cell] = bit
                wwork.queue[0] = cell
                ok = _w_propagate(cur, 1, wtables.unit_bits[cell], wtables, wwork)
            else:
                ok = fix(cur, cell, bit, work, tables, True) and _settle(cur, work, tables, segs, seg_masks)
            if ok:
                mode = _BRANCH
            continue
        if mode == _SEED:
            # A random order of the cells; each not yet fixed by singles becomes a given.
            perm = order[b]
            for c in range(cells):
                perm[c] = c
            for i in range(cells - 1, 0, -1):
                j = uniform_below(rng, i + 1)
                t = perm[i]
                perm[i] = perm[j]
                perm[j] = t
            for c in range(cells):
                cur[c] = full
            k = 0
            for i in range(cells):
                c = perm[i] + 0  # a plain integer of the kernel's int width (numba types tuples by it)
                other = cells - 1 - c
                if symmetric and other < c:
                    continue  # each pair once, by its first cell
                m = cur[c]
                open_here = (m & (m - _ONE)) != _ZERO
                if symmetric:
                    mo = cur[other]
                    open_here = open_here or (mo & (mo - _ONE)) != _ZERO
                if not open_here:
                    continue
                order[b, k] = c
                k += 1
                for twice in range(2 if symmetric and other != c else 1):
                    one = c if twice == 0 else other
                    puzzles[b, one] = solutions[b, one]
                    bit = _ONE << np.uint64(solutions[b, one] - 1)
                    if cur[one] != bit:
                        fix(cur, one, bit, work, tables, True)
            counts[b] = k
            pos = 0
            sub = 0
            top = 0
            mode = _TEST
            if handoff:
                pos = _prune(
                    puzzles[b], solutions[b], order[b], k, symmetric, cur, work, tables, segs, seg_masks,
                    wtables, wwork,
                )  # fmt: skip
                status = PRUNED
                break
        if mode == _TEST:
            if pos == counts[b]:
                b += 1
                mode = _START
                continue
            if spent >= budget:
                status = BUDGET
                break
            first = order[b, pos]
            other = cells - 1 - first
            puzzles[b, first] = 0
            if symmetric:
                puzzles[b, other] = 0
            _initial(puzzles[b], cur, full)
            tested = first
            if sub == 1:  # the pair's second cell, the first held
                cur[first] = _ONE << np.uint64(solutions[b, first] - 1)
                tested = other
            cur[tested] = full & ~(_ONE << np.uint64(solutions[b, tested] - 1))
            spent += 1
            nodes[b, pos] += 1
            top = 0
            if _fast(wtables):
                ok = _w_settle_all(cur, wtables, wwork)
            else:
                ok = propagate_masks(cur, peers, units, cell_units, full, True) and _settle(
                    cur, work, tables, segs, seg_masks
                )
            mode = _BRANCH if ok else _TRY  # _TRY at top == 0: no solution with this cell changed
    state[_S_PUZZLE] = b
    state[_S_MODE] = mode
    state[_S_TOP] = top
    state[_S_POS] = pos
    state[_S_SUB] = sub
    state[_S_FILL] = fill_nodes
    return status


@dataclass(frozen=True, slots=True)
class Carved:
    """A carved batch: ``puzzles`` and ``solutions`` (B, n*n) int8; ``seeded`` (B,) givens
    before carving (pairs: first cells) and ``order`` (B, n*n) those cells in the order tested;
    ``restarts`` (B,) fills started again; ``witness`` (B, n*n, n*n) int8, the witness of a kept
    given at its cell (of a pair at its first cell); ``done`` (B,) made before the deadline;
    ``nodes`` (B, n*n + 1) the search's nodes per test (the fill's last); ``hard`` (B,) tests
    the oracle answered; ``abandoned`` (B,) given up (``carve``'s ``block_oracle``), not ``done``."""

    puzzles: np.ndarray
    solutions: np.ndarray
    seeded: np.ndarray
    order: np.ndarray
    restarts: np.ndarray
    witness: np.ndarray
    done: np.ndarray
    nodes: np.ndarray
    hard: np.ndarray
    abandoned: np.ndarray


def region_rows(
    geometry: Geometry,
    puzzle: np.ndarray,
    solution: np.ndarray,
    firsts: np.ndarray,
    shift: int,
    symmetric: bool,
) -> np.ndarray:
    """The puzzles (k, n*n) int8 of a region witness search, one for each given of ``firsts`` (k,):
    ``puzzle`` without that given (``symmetric``: its pair), the cells outside its region held at
    ``solution``.  Its region: its band and its stack, and (``shift`` > 0) the band and the stack
    ``shift`` further on (cyclically).

    ``puzzle`` has one solution, ``solution``; so any other solution of such a puzzle keeps every
    other given and changes the given left out (else it would solve ``puzzle``): a witness.  A
    witness mostly changes few cells of the known solution, and holding the rest makes its search
    a few nodes where the whole puzzle's count can take thousands.
    """
    n, cells = geometry.n, geometry.cells
    cell = np.arange(cells)
    band_of, stack_of = cell // n // geometry.p, cell % n // geometry.q
    bands, stacks = n // geometry.p, n // geometry.q
    band, stack = band_of[firsts][:, None], stack_of[firsts][:, None]
    free = (band_of[None, :] == band) | (stack_of[None, :] == stack)
    if shift:
        free |= (band_of[None, :] == (band + shift) % bands) | (stack_of[None, :] == (stack + shift) % stacks)
    rows = np.where(free, puzzle[None, :], solution[None, :]).astype(np.int8)
    at = np.arange(firsts.size)
    rows[at, firsts] = 0
    if symmetric:
        rows[at, cells - 1 - firsts] = 0
    return rows


def rng_states(seed: int, attempts: np.ndarray) -> np.ndarray:
    """(B, 1) uint64 random states of attempts ``attempts`` of ``seed``: each its own stream."""
    states = [np.random.SeedSequence((seed, int(a))).generate_state(1, np.uint64) for a in attempts]
    return np.array(states, dtype=np.uint64).reshape(-1, 1)


@dataclass(frozen=True, slots=True)
class BlockAnswers:
    """A block oracle's answers, in the block's order: a witness grid (n*n,) int8, or False (no
    witness: the given, or pair, went and was no longer held for the block's later tests), or
    None (unanswered within a cap, ``sat_oracle.repair`` only: the given stays, held);
    fewer than the block's givens when ``status`` is ``STOPPED`` or ``ABANDONED``.  ``spent``:
    the block's work in the oracle's own deterministic unit (SAT: conflicts), ``asked``: its
    calls."""

    answers: list[np.ndarray | bool | None]
    status: int
    spent: int
    asked: int


class BlockOracle(Protocol):
    """Tests a block of givens at once (``carve``'s ``block_oracle``, from ``REGION_SIDE`` on)."""

    def tests(
        self,
        puzzle: np.ndarray,
        solution: np.ndarray,
        firsts: Sequence[int],
        symmetric: bool,
        spent: int,
        asked: int,
    ) -> BlockAnswers:
        """Each given (``symmetric``: pair, by its first cell) of ``firsts`` of ``puzzle`` in order,
        removal one at a time: its witness, or False and it goes; ``spent`` and ``asked``: the
        grid's work and calls so far (the oracle gives the grid up, ``ABANDONED``, when they
        pass its budget)."""
        ...


#: An answer to a test the search gave up on (``carve``'s ``oracle``): a complete grid keeping
#: ``givens`` whose cell ``cell`` does not hold ``digit``, False when there is none, None when
#: the deadline stopped it.
Oracle = Callable[[np.ndarray, int, int], "np.ndarray | bool | None"]


def carve(
    geometry: Geometry,
    rngs: np.ndarray,
    *,
    symmetric: bool = False,
    deadline: Deadline | None = None,
    oracle: Oracle | None = None,
    cap: int | None = None,
    by_count: bool | None = None,
    test_seconds: float = TEST_SECONDS,
    block_oracle: BlockOracle | None = None,
) -> Carved:
    """One minimal puzzle per random state of ``rngs`` (B, 1) uint64, with its solution and witnesses.

    Minimal: no single given (``symmetric``: no pair) can go without a second solution.  A test
    that spends ``cap`` nodes (default 40 a cell up to 16x16, 10 above) goes to ``oracle`` (a complete solver:
    the search's heavy tail on big grids); without an oracle the search runs to the end.  Stops
    at the deadline; ``done`` says which puzzles were finished.

    ``by_count`` (default: grids of side 16 and more): the givens the rules can spare go first,
    one propagation each; the rest are tested together, each counted to two by the backtrack
    search (``test_seconds`` each before the oracle takes it) instead of searched one by one.

    ``block_oracle`` (``by_count``, from ``REGION_SIDE`` on): after the region searches, every
    test goes to it, ``BLOCK_SIZE`` givens at a time, no count first; an attempt whose witnesses
    finds too hard (its answer ``ABANDONED``) is given up: ``abandoned``, not ``done``.
    """
    if by_count is None:
        by_count = geometry.n >= BY_COUNT_SIDE
    n = geometry.n
    if n > MAX_SIDE:
        raise NativeInputError(f"the carving search takes grids up to {MAX_SIDE}x{MAX_SIDE}, not {n}x{n}")
    cells = n * n
    tables = propagation_tables(geometry)
    work = new_scratch(n)
    batch = rngs.shape[0]
    rngs = np.ascontiguousarray(rngs, dtype=np.uint64).copy()
    solutions = np.zeros((batch, cells), np.int8)
    puzzles = np.zeros((batch, cells), np.int8)
    order = np.zeros((batch, cells), np.int32)
    counts = np.zeros(batch, np.int64)
    witness = np.zeros((batch, cells, cells), np.int8)
    restarts = np.zeros(batch, np.int64)
    nodes = np.zeros((batch, cells + 1), np.int64)
    hard = np.zeros(batch, np.int64)
    abandoned = np.zeros(batch, np.bool_)
    cur = np.empty(cells, np.uint64)
    levels = min(_STACK_LEVELS, cells + 1)
    stack = _Stack(
        np.empty((levels, cells), np.uint64), np.empty(levels, np.int64), np.empty(levels, np.uint64)
    )
    state = np.zeros(_STATE, np.int64)
    wtables, wwork = _witness_tables_of(geometry), _witness_work(geometry, 1)  # its propagation only
    segs = _segments(geometry)
    seg_masks = np.empty(segs.cells.shape[0], np.uint64)
    clock = ChunkBudget(deadline or Deadline(None), max(50, 2_000_000 // cells), 50, 50_000_000)
    if cap is None:  # up to 16x16 a long search still beats opening a SAT solver (1 s on 16x16)
        cap = (40 if n <= 16 else 10) * cells
    node_cap = cap if oracle is not None else np.iinfo(np.int64).max

    def answer() -> bool:
        """Hand the test in hand to the oracle and record its answer; False when it was stopped."""
        assert oracle is not None
        b, pos, sub = int(state[_S_PUZZLE]), int(state[_S_POS]), int(state[_S_SUB])
        sol = solutions[b]
        first = int(order[b, pos])
        other = cells - 1 - first
        givens = puzzles[b].copy()
        tested = first
        if sub == 1:
            givens[first] = sol[first]
            tested = other
        found = oracle(givens, tested, int(sol[tested]))
        if found is None:
            return False
        hard[b] += 1
        if found is not False:
            witness[b, first] = np.asarray(found, np.int8).reshape(-1)
            puzzles[b, first] = sol[first]
            if symmetric:
                puzzles[b, other] = sol[other]
            pos, sub = pos + 1, 0
        elif symmetric and sub == 0 and other != first:
            sub = 1
        else:
            pos, sub = pos + 1, 0
        state[_S_POS], state[_S_SUB], state[_S_TOP], state[_S_MODE] = pos, sub, 0, _TEST
        return True

    def count_tests() -> bool:
        """The tests the kernel handed over (PRUNED): each given left, all at once, counted to two
        by the backtrack search (``native.backtrack``) on the puzzle without it.  Two solutions:
        it stays, the other one its witness (still valid as givens only go).  One, exhausted:
        the first such given goes for good, and the others of its kind are counted again one
        by one on the puzzle as it then is (a round of them all would count each again after
        every removal: a search to the end each time).  A count the test's time stops goes to
        ``oracle``.  False when the deadline stopped it."""
        b, pos = int(state[_S_PUZZLE]), int(state[_S_POS])
        pending = [int(c) for c in order[b, pos : counts[b]]]
        if block_oracle is not None and n >= REGION_SIDE:
            return block_tests(b, pending)
        whole = True  # the first round counts every given left; later ones, one at a time
        while pending:
            if clock.deadline.expired():
                return False
            batch = pending if whole else pending[:1]
            if test_seconds != 0 and n >= REGION_SIDE:
                # The cheap witnesses first: most givens that stay have one a region search finds.
                local = region_witnesses(b, batch)
                if local is None:
                    return False
                for first, grid in local.items():
                    witness[b, first] = grid
                batch = [first for first in batch if first not in local]
            firsts = np.array(batch, np.int64)
            rows = np.repeat(puzzles[b][None, :], firsts.size, axis=0)
            at = np.arange(firsts.size)
            rows[at, firsts] = 0
            if symmetric:
                rows[at, cells - 1 - firsts] = 0
            others: dict[int, np.ndarray] = {}
            complete = np.zeros(firsts.size, np.bool_)
            # No time for counts (test_seconds=0): the oracle answers every test.
            seconds = test_seconds if whole or n < REGION_SIDE else min(test_seconds, RECOUNT_SECONDS)
            if (test_seconds != 0 or oracle is None) and not counted(rows, firsts, complete, others, seconds):
                return False
            removable = []
            for i, first in enumerate(batch):
                if i in others:
                    witness[b, first] = np.asarray(others[i], np.int8)
                    continue
                if complete[i]:
                    removable.append(first)  # no other solution: it can go
                    continue
                if removable:
                    removable.append(first)  # counted again after the first removal anyway
                    continue
                if oracle is None:
                    return False  # the deadline stopped the search
                found = _ask(b, first)
                if found is None:
                    return False
                if found is False:
                    removable.append(first)
            if whole:
                pending = removable[1:]
                whole = False
            else:
                pending = pending[1:]
            if removable:
                first = removable[0]
                puzzles[b, first] = 0
                if symmetric:
                    puzzles[b, cells - 1 - first] = 0
        state[_S_PUZZLE], state[_S_MODE], state[_S_TOP] = b + 1, _START, 0
        return True

    def block_tests(b: int, pending: list[int]) -> bool:
        """The tests the kernel handed over (PRUNED), by ``block_oracle``: region witnesses
        first (each stays valid as givens only go), then the rest in order, ``BLOCK_SIZE`` at a
        time.  False when the deadline stopped it; an attempt given up is ``abandoned``."""
        assert block_oracle is not None
        local = region_witnesses(b, pending, REGION_NODES)
        if local is None:
            return False
        for first, grid in local.items():
            witness[b, first] = grid
        todo = [first for first in pending if first not in local]
        spent = asked = 0
        for at in range(0, len(todo), BLOCK_SIZE):
            block = todo[at : at + BLOCK_SIZE]
            got = block_oracle.tests(puzzles[b].copy(), solutions[b].copy(), block, symmetric, spent, asked)
            spent, asked = spent + got.spent, asked + got.asked
            hard[b] += len(got.answers)
            for first, found in zip(block, got.answers, strict=False):
                if found is False:
                    puzzles[b, first] = 0
                    if symmetric:
                        puzzles[b, cells - 1 - first] = 0
                else:
                    witness[b, first] = np.asarray(found, np.int8).reshape(-1)
            if got.status == STOPPED:
                return False
            if got.status == ABANDONED:
                abandoned[b] = True
                break
        state[_S_PUZZLE], state[_S_MODE], state[_S_TOP] = b + 1, _START, 0
        return True

    def counted(
        rows: np.ndarray,
        firsts: np.ndarray,
        complete: np.ndarray,
        others: dict[int, np.ndarray],
        seconds: float,
    ) -> bool:
        """Count each puzzle of ``rows`` (without the given, or pair, at ``firsts``) to two
        (``complete``: exhausted; ``others``: a solution other than the known one, by row); False
        when the deadline stopped the counts.  Up to ``WITNESS_MAX_SIDE`` the witness search
        decides the same (a witness, or none) in half the nodes.

        Each count gets ``seconds`` (the oracle takes it then); under a deadline never more
        than the time left, and the rows go in slices that fit it, so that one hard test does not
        hold the others until the deadline."""
        from .backtrack import search_batch

        sol = solutions[int(state[_S_PUZZLE])]
        partner = cells - 1 - firsts if symmetric else np.full(firsts.size, -1, np.int64)
        partner[partner == firsts] = -1  # the centre of an odd grid: a pair of one cell
        start = 0
        while start < rows.shape[0]:
            remaining = clock.deadline.remaining()
            if remaining is None:
                limit: float | Deadline | None = seconds if oracle is not None else None
                stop = rows.shape[0]
            elif oracle is None:  # nothing takes over a test: each runs to the deadline
                limit, stop = clock.deadline, rows.shape[0]
            else:
                if remaining <= 0:
                    return False
                limit = min(seconds, remaining)
                stop = start + max(1, int(remaining // limit))
            if n <= WITNESS_MAX_SIDE:
                found, grids, _ = witness_batch(
                    geometry,
                    rows[start:stop],
                    firsts[start:stop],
                    partner[start:stop],
                    sol,
                    seconds=limit if not isinstance(limit, Deadline) else None,
                    deadline=limit if isinstance(limit, Deadline) else None,
                )
                complete[start:stop] = found == 0
                for i in np.flatnonzero(found == 1):
                    others[start + int(i)] = grids[i]
                start = stop
                continue
            run = search_batch(geometry, rows[start:stop], limit=2, keep=True, time_limit=limit)
            complete[start:stop] = run.complete
            other = (run.solutions != sol).any(axis=1)  # the known solution is not a witness
            for owner, grid in zip(run.owner[other], run.solutions[other], strict=True):
                others[start + int(owner)] = grid
            start = stop
        return True

    def region_witnesses(b: int, firsts: list[int], nodes: int = 0) -> dict[int, np.ndarray] | None:
        """The witnesses region searches find for givens ``firsts`` of puzzle ``b`` (``region_rows``:
        each given's band and stack, then with one more band and stack, each shift in turn, for
        the givens still without one); None when the deadline stopped them.  ``nodes`` > 0: only
        searches settled within that many nodes count, whatever the machine's speed (a search
        the time stopped earlier runs again with more time)."""
        from .backtrack import search_batch

        sol = solutions[b]
        found: dict[int, np.ndarray] = {}
        for shift in range(max(n // geometry.p, n // geometry.q)):
            todo = np.array([first for first in firsts if first not in found], np.int64)
            if todo.size == 0:
                break
            remaining = clock.deadline.remaining()
            if remaining is not None and remaining <= 0:
                return None
            seconds = REGION_SECONDS if remaining is None else min(REGION_SECONDS, remaining)
            rows = region_rows(geometry, puzzles[b], sol, todo, shift, symmetric)
            run = search_batch(geometry, rows, limit=2, keep=True, time_limit=seconds)
            if nodes:
                checked = settled(rows, run, seconds, nodes)
                if checked is None:
                    return None
                run = checked
            other = (run.solutions != sol).any(axis=1)
            for owner, grid in zip(run.owner[other], run.solutions[other], strict=True):
                if not nodes or not run.timed_out[owner]:
                    found.setdefault(int(todo[owner]), np.asarray(grid, np.int8))
        return found

    def settled(rows: np.ndarray, run: BatchRun, seconds: float, nodes: int) -> BatchRun | None:
        """``run`` with the searches of ``rows`` the time stopped before ``nodes`` nodes run again
        with twice the time, until each is settled or past ``nodes`` (those: ``timed_out``, and
        so not counted); None when the deadline stopped them."""
        from .backtrack import search_batch

        while True:
            again = np.flatnonzero(run.timed_out & (run.nodes < nodes))
            if again.size == 0:
                break
            seconds *= 2
            remaining = clock.deadline.remaining()
            if remaining is not None and remaining <= 0:
                return None
            rerun = search_batch(
                geometry, rows[again], limit=2, keep=True,
                time_limit=seconds if remaining is None else min(seconds, remaining),
            )  # fmt: skip
            keep = ~np.isin(run.owner, again)
            timed_out, counted_nodes = run.timed_out.copy(), run.nodes.copy()
            timed_out[again], counted_nodes[again] = rerun.timed_out, rerun.nodes
            run = replace(
                run,
                owner=np.concatenate([run.owner[keep], again[rerun.owner]]),
                solutions=np.concatenate([run.solutions[keep], rerun.solutions]),
                timed_out=timed_out,
                nodes=counted_nodes,
            )
        over = run.nodes > nodes  # settled, but past the node limit: a faster machine's time stops it
        return replace(run, timed_out=run.timed_out | over)

    def _ask(b: int, first: int) -> np.ndarray | bool | None:
        """The oracle on the puzzle without the given (pair) at ``first``: a witness (recorded),
        False when there is none, None when stopped."""
        assert oracle is not None
        sol = solutions[b]
        other = cells - 1 - first
        givens = puzzles[b].copy()
        givens[first] = 0
        if symmetric:
            givens[other] = 0
        found = oracle(givens, first, int(sol[first]))
        if found is False and symmetric and other != first:
            givens[first] = sol[first]  # the pair's second cell, the first held
            found = oracle(givens, other, int(sol[other]))
        if found is None:
            return None
        hard[b] += 1
        if found is not False:
            witness[b, first] = np.asarray(found, np.int8).reshape(-1)
        return found

    def step(budget: int) -> int:
        nonlocal stack
        status = carve_batch(
            tables, work, rngs, symmetric, solutions, puzzles, order, counts, witness, restarts, nodes, cur,
            stack, segs, seg_masks, state, budget, node_cap, by_count, wtables, wwork,
        )  # fmt: skip
        if status == _GROW:
            taller = min(2 * stack.masks.shape[0], cells + 1)
            grown = _Stack(
                np.empty((taller, cells), np.uint64), np.empty(taller, np.int64), np.empty(taller, np.uint64)
            )
            height = stack.masks.shape[0]
            grown.masks[:height] = stack.masks
            grown.cell[:height] = stack.cell
            grown.left[:height] = stack.left
            stack = grown
            return BUDGET
        if status == HARD:
            return BUDGET if answer() else _STOPPED
        if status == PRUNED:
            return BUDGET if count_tests() else _STOPPED
        return status

    clock.run(step)
    done = (np.arange(batch) < int(state[_S_PUZZLE])) & ~abandoned
    return Carved(puzzles, solutions, counts, order, restarts, witness, done, nodes, hard, abandoned)


def check_witnesses(
    geometry: Geometry, puzzle: np.ndarray, witness: np.ndarray, *, symmetric: bool = False
) -> str | None:
    """Why the witnesses do not show ``puzzle`` (n*n,) minimal, or None when they do.

    Each given (``symmetric``: each pair, by its first cell) needs a witness (``witness[cell]``,
    (n*n, n*n)): a valid complete grid that keeps every other given and changes this one (the
    pair: at least one of its cells).  Checked with numpy, apart from the search that found them.
    """
    n = geometry.n
    cells = n * n
    given = np.flatnonzero(puzzle)
    if symmetric:
        given = given[given <= cells - 1 - given]
    if given.size == 0:
        return None
    grids = witness[given].astype(np.int64)  # (k, cells)
    if grids.min() < 1 or grids.max() > n:
        return "a witness is not a complete grid"
    # A valid grid: every row, column and box holds the digits 1..n, each once (its n cells hold
    # n digits, so all n digits present is each once).
    bits = np.left_shift(np.uint64(1), (grids - 1).astype(np.uint64))
    seen = np.bitwise_or.reduce(bits[:, np.asarray(geometry.units)], axis=2)
    if not (seen == np.uint64((1 << n) - 1)).all():
        return "a witness breaks a row, column or box"
    keep = np.broadcast_to(puzzle != 0, grids.shape).copy()
    keep[np.arange(given.size), given] = False
    changed = grids[np.arange(given.size), given] != puzzle[given]
    if symmetric:
        partner = cells - 1 - given
        keep[np.arange(given.size), partner] = False
        changed |= grids[np.arange(given.size), partner] != puzzle[partner]
    agrees = np.where(keep, grids == puzzle[None, :], True).all(axis=1)
    if not agrees.all():
        return f"the witness of the given at cell {int(given[np.argmin(agrees)])} breaks another given"
    if not changed.all():
        return f"the witness of the given at cell {int(given[np.argmin(changed)])} does not change it"
    return None
