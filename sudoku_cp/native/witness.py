"""The witness search: whether a given of a puzzle with one solution can go, many givens in one call.

A test is the puzzle without one given (or a symmetric pair), that cell's digit forbidden: a
solution of it is a **witness** (the given stays, and anyone can check why), none means the given
can go.  ``witness_batch`` runs a batch of tests in one resumable compiled search: naked and
hidden singles and locked candidates to their fixed point at every node (``_w_propagate``, the
changed units in one 64-bit word, so grids of up to ``WITNESS_MAX_SIDE``), the known solution's
digit tried first at every guess (a witness mostly keeps it).  ``native.carve`` uses its
propagation for the fill and the rules' pass as well.
"""

from __future__ import annotations

import time
from functools import cache

import numba
import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, watch_compilation
from . import NativeInputError
from .bitset import guess_score, load_givens, lowest_index, pop_state, popcount, propagate, push_state
from .chunks import BUDGET, ChunkBudget
from .kernels import Tables, Work

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["WITNESS_MAX_SIDE", "witness_batch"]

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
# Kernel status besides BUDGET (call again): DONE, or GROW (a taller stack of states, then again).
_DONE = 0
_GROW = -3
_STACK_LEVELS = 64


@numba.njit(cache=True)
def _initial(puzzle: np.ndarray, cur: np.ndarray, full: np.uint64) -> None:  # pragma: no cover - compiled
    """Candidates before propagation: a given's digit, or every digit."""
    for c in range(puzzle.shape[0]):
        v = puzzle[c]
        cur[c] = (_ONE << np.uint64(v - 1)) if v > 0 else full


@numba.njit(cache=True, inline="always")
def _all_single(cur: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether every cell of ``cur`` has one candidate (after a propagation without contradiction)."""
    for c in range(cur.shape[0]):
        m = cur[c]
        if m & (m - _ONE):
            return False
    return True


#: The witness search (``witness_batch``) keeps the changed units in one 64-bit word: grids of up
#: to 21x21 (3n units); larger ones count each test to two with the backtrack search instead.
WITNESS_MAX_SIDE = 21
# Its modes after _W_START (set a test up): propagate, branch (or take a witness), pop a state.
_W_START, _W_PROPAGATE, _W_BRANCH, _W_BACKTRACK = range(4)
# Its resumable state: test, mode, stack height, cells queued for rule 1, phase (1: a pair's second
# cell, the first held at its digit), whether the node to propagate is a root made beforehand.
_W_TEST, _W_MODE, _W_TOP, _W_QUEUED, _W_PHASE, _W_ROOTED = range(6)
_W_STATE = 6
# Tests of one call from which their roots are made beforehand (``_w_roots``).
_W_ROOTS_FROM = 16
# Bivalue cells the witness search scores before a guess, at most: on the 3,737 and 2,819 tests
# of 40 and 30 16x16 puzzles (seeds 1 and 7) 16 take 23 % and 30 % fewer nodes than 8, the
# heavy tail most (its longest test 5,061 -> 1,735 nodes), for 10-35 % less time; 24 hardly more.
_W_SCORED = 16


# The witness search reads the backtrack kernel's tables and state (``kernels.Tables``, ``Work``:
# the same fields), its queue and guessed cells int64; ``work.dirty`` is one word (3n <= 64).
_WitnessTables = Tables
_WitnessWork = Work


def _witness_tables(geometry: Geometry) -> _WitnessTables:
    """The witness search's tables of a geometry (side at most ``WITNESS_MAX_SIDE``)."""
    # uint16 indices, as the backtrack search's: a 16x16 peer table then fits the L1 cache.
    cell_units = np.ascontiguousarray(geometry.cell_units, dtype=np.uint16)
    unit_bits = np.zeros(geometry.cells, np.uint64)  # beyond WITNESS_MAX_SIDE unused (see _fast)
    for which in range(3 if geometry.n <= WITNESS_MAX_SIDE else 0):
        unit_bits |= np.left_shift(np.uint64(1), cell_units[:, which].astype(np.uint64))
    return _WitnessTables(
        geometry.p,
        geometry.q,
        np.ascontiguousarray(geometry.peers(), dtype=np.uint16),
        np.ascontiguousarray(geometry.units, dtype=np.uint16),
        cell_units,
        unit_bits,
    )


def _witness_work(geometry: Geometry, levels: int) -> _WitnessWork:
    """Fresh witness search state with a stack of ``levels`` states."""
    n, p, q, cells = geometry.n, geometry.p, geometry.q, geometry.cells
    jobs = 2 * n * (p + q)
    return _WitnessWork(
        np.empty(cells, np.uint64),
        np.empty(cells, np.int64),
        np.zeros(1, np.uint64),
        np.empty(n * (p + q + 4), np.uint64),
        np.empty((jobs, 3), np.int64),
        np.empty(jobs, np.uint64),
        np.empty((levels, cells), np.uint64),
        np.empty(levels, np.int64),
        np.zeros(_W_STATE, np.int64),
    )


@numba.njit(cache=True)
def _w_propagate(
    cur: np.ndarray, queued: int, d0: np.uint64, tables: _WitnessTables, work: _WitnessWork
) -> bool:  # pragma: no cover - compiled
    """Naked singles (from the ``queued`` cells of ``work.queue``), hidden singles (in the units of
    ``d0``) and locked candidates, to their fixed point; False on a contradiction.  The backtrack
    kernel's propagation (``bitset.propagate``), its changed units in one word."""
    return propagate(cur, queued, d0, True, True, tables, work)


@numba.njit(cache=True)
def _fast(tables: _WitnessTables) -> bool:  # pragma: no cover - compiled
    """Whether the witness search's propagation takes this geometry (its units fit one word)."""
    return 3 * tables.p * tables.q <= 64


@numba.njit(cache=True)
def _w_settle_all(
    cur: np.ndarray, tables: _WitnessTables, work: _WitnessWork
) -> bool:  # pragma: no cover - compiled
    """``cur`` to the fixed point of singles and locked candidates from scratch (every single
    cell, every unit); False on a contradiction.  As ``propagate_masks`` then ``_settle``."""
    queued = 0
    for cell in range(cur.shape[0]):
        m = cur[cell]
        if m == _ZERO:
            return False
        if (m & (m - _ONE)) == _ZERO:
            work.queue[queued] = cell
            queued += 1
    return _w_propagate(cur, queued, _ALL >> np.uint64(64 - 3 * tables.p * tables.q), tables, work)


@numba.njit(cache=True)
def _w_solved(
    puzzle: np.ndarray, tables: _WitnessTables, work: _WitnessWork
) -> bool:  # pragma: no cover - compiled
    """Whether singles and locked candidates alone solve ``puzzle`` (``_solved_by_rules``'s answer)."""
    cur = work.cur
    _initial(puzzle, cur, _ALL >> np.uint64(64 - tables.p * tables.q))
    return _w_settle_all(cur, tables, work) and _all_single(cur)


@numba.njit(cache=True)
def _w_roots(
    rows: np.ndarray,
    tested: np.ndarray,
    solution: np.ndarray,
    block: int,
    tables: _WitnessTables,
    work: _WitnessWork,
    roots: np.ndarray,
    root_ok: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """The first propagation of each test of ``rows`` (``_witness_batch``'s phase 0: the row, its
    tested cell without ``solution``'s digit): ``roots`` (k, cells), ``root_ok`` (k,) 0 on a
    contradiction.

    The tests go in blocks of ``block``; each block's givens in common (a row's givens but the
    block's tested ones) are propagated once, and each test adds its own few to that fixed
    point: the same fixed point as from its row alone (the rules are monotone), for a fraction
    of the work (the rows of one puzzle share all their givens but one).
    """
    k, cells = rows.shape
    n = tables.p * tables.q
    full = _ALL >> np.uint64(64 - n)
    cur, queue = work.cur, work.queue
    base = np.empty(cells, np.uint64)
    for start in range(0, k, block):
        end = min(k, start + block)
        queued = 0
        for cell in range(cells):
            common = True
            for t in range(start, end):
                if rows[t, cell] == 0:
                    common = False
                    break
            if common:
                base[cell] = _ONE << np.uint64(rows[start, cell] - 1)
                queue[queued] = cell
                queued += 1
            else:
                base[cell] = full
        base_ok = _w_propagate(base, queued, _ALL >> np.uint64(64 - 3 * n), tables, work)
        for t in range(start, end):
            root_ok[t] = 0
            if not base_ok:
                continue  # never expected (the rows have a solution): no solution from it
            queued = 0
            d0 = _ZERO
            for cell in range(cells):
                m = base[cell]
                v = rows[t, cell]
                if v > 0:
                    bit = _ONE << np.uint64(v - 1)
                    if m != bit:
                        m &= bit  # empty when the fixed point so far rules the digit out
                        queue[queued] = cell
                        queued += 1
                        d0 |= tables.unit_bits[cell]
                cur[cell] = m
            changed = tested[t]
            m = cur[changed] & ~(_ONE << np.uint64(solution[changed] - 1))
            if m != cur[changed]:
                cur[changed] = m
                if (m & (m - _ONE)) == _ZERO:
                    queue[queued] = changed
                    queued += 1
                d0 |= tables.unit_bits[changed]
            if _w_propagate(cur, queued, d0, tables, work):
                root_ok[t] = 1
            for cell in range(cells):
                roots[t, cell] = cur[cell]


@numba.njit(cache=True)
def _witness_batch(
    rows: np.ndarray,
    tested: np.ndarray,
    partner: np.ndarray,
    solution: np.ndarray,
    tables: _WitnessTables,
    work: _WitnessWork,
    out: np.ndarray,
    found: np.ndarray,
    nodes: np.ndarray,
    budget: int,
    roots: np.ndarray,
    root_ok: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Look for a witness of each test of ``rows`` (k, cells) from ``work.state`` on, for at most
    ``budget`` nodes: a solution of the row whose cell ``tested[t]`` (empty in the row) does not
    hold ``solution``'s digit; with ``partner[t] >= 0`` (a pair, also empty in the row), when
    there is none, one with that cell held at its digit and the partner changed.

    ``found[t]``: 1, a witness in ``out[t]``; 0, none (the search exhausted); left as it was when
    not reached.  ``solution``'s digit first at every guess, since a witness mostly keeps it.
    Returns DONE, BUDGET or GROW (a taller stack, then again), resumable like ``carve_batch``.
    ``roots`` (k, cells) and ``root_ok`` (k,): each test's first propagation made beforehand
    (``_w_roots``), or empty (0, cells) to make it here.
    """
    cur, queue, stack, stack_cell, state = work.cur, work.queue, work.stack, work.stack_cell, work.state
    n = tables.p * tables.q
    cells = n * n
    full = _ALL >> np.uint64(64 - n)
    everything = _ALL >> np.uint64(64 - 3 * n)
    t, mode, top = state[_W_TEST], state[_W_MODE], state[_W_TOP]
    queued, phase, rooted = state[_W_QUEUED], state[_W_PHASE], state[_W_ROOTED]
    d0 = work.dirty[0]
    spent = 0
    status = _DONE
    while t < rows.shape[0]:
        if mode == _W_START and phase == 0 and roots.shape[0] > 0:
            for cell in range(cells):
                cur[cell] = roots[t, cell]
            queued = 0
            d0 = _ZERO
            top = 0
            rooted = 1
            mode = _W_PROPAGATE
        if mode == _W_START:
            queued = load_givens(rows[t], cur, queue, full)
            changed = tested[t]
            if phase == 1:
                held = changed
                changed = partner[t]
                cur[held] = _ONE << np.uint64(solution[held] - 1)
                queue[queued] = held
                queued += 1
            m = full & ~(_ONE << np.uint64(solution[changed] - 1))
            cur[changed] = m
            if (m & (m - _ONE)) == _ZERO:
                queue[queued] = changed
                queued += 1
            d0 = everything
            top = 0
            mode = _W_PROPAGATE
        if mode == _W_PROPAGATE:
            if spent >= budget:
                status = BUDGET
                break
            spent += 1
            nodes[t] += 1
            if rooted:
                ok = root_ok[t] != 0
                rooted = 0
            else:
                ok = _w_propagate(cur, queued, d0, tables, work)
            mode = _W_BRANCH if ok else _W_BACKTRACK
            queued = 0
            d0 = _ZERO
        if mode == _W_BRANCH:
            best = _w_choose(cur, tables.peers)
            if best >= 0:
                if top == stack.shape[0]:
                    status = _GROW
                    break
                m = cur[best]
                bit = _ONE << np.uint64(solution[best] - 1)
                if not m & bit:
                    bit = m & (~m + _ONE)
                push_state(cur, stack, stack_cell, top, best, m ^ bit)
                top += 1
                cur[best] = bit
                queue[0] = best
                queued = 1
                d0 = tables.unit_bits[best]
                mode = _W_PROPAGATE
                continue
            for cell in range(cells):  # every cell single: a solution, and it changes the tested cell
                out[t, cell] = lowest_index(cur[cell]) + 1
            found[t] = 1
            t += 1
            phase = 0
            mode = _W_START
            continue
        if mode == _W_BACKTRACK:
            if top == 0:
                if phase == 0 and partner[t] >= 0:
                    phase = 1
                else:
                    found[t] = 0
                    t += 1
                    phase = 0
                mode = _W_START
                continue
            top -= 1
            cell, queued = pop_state(cur, stack, stack_cell, top, queue)
            d0 = tables.unit_bits[cell]
            mode = _W_PROPAGATE
    state[_W_TEST], state[_W_MODE], state[_W_TOP] = t, mode, top
    state[_W_QUEUED], state[_W_PHASE], state[_W_ROOTED] = queued, phase, rooted
    work.dirty[0] = d0
    return status


@numba.njit(cache=True)
def _w_choose(cur: np.ndarray, peers: np.ndarray) -> int:  # pragma: no cover - compiled
    """The cell to guess on (-1: every cell single): the fewest candidates, and among the first
    ``_W_SCORED`` bivalue cells the one whose guess propagates furthest (``guess_score``)."""
    cells = cur.shape[0]
    fewest = 65
    first = -1
    for cell in range(cells):  # the fewest candidates first, so that no larger cell is scored
        m = cur[cell]
        if (m & (m - _ONE)) == _ZERO:
            continue
        size = popcount(m)
        if size < fewest:
            fewest = size
            first = cell
            if size == 2:
                break
    if first < 0:
        return -1
    best = first
    top_score = -1
    scored = 0
    for cell in range(first, cells):
        if popcount(cur[cell]) != fewest:
            continue
        score = guess_score(cur, peers, cell)
        if score > top_score:
            top_score = score
            best = cell
        scored += 1
        if fewest == 2 and scored >= _W_SCORED:
            break
    return best


@cache
def _witness_tables_of(geometry: Geometry) -> _WitnessTables:
    """``_witness_tables``, once per geometry."""
    return _witness_tables(geometry)


def witness_batch(
    geometry: Geometry,
    rows: np.ndarray,
    tested: np.ndarray,
    partner: np.ndarray,
    solution: np.ndarray,
    *,
    seconds: float | None = None,
    deadline: Deadline | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Witnesses of the tests ``rows`` (k, n*n) of a puzzle with one solution, ``solution`` (n*n,).

    Row t is the puzzle without its given at ``tested[t]`` (and, ``partner[t] >= 0``, without the
    pair's other given there too).  Returns ``found`` (k,) int8: 1, a witness in ``grids[t]`` (a
    solution of row t with another digit at the tested cell, or the pair's other cell); 0, none:
    the given can go; -1, not settled within ``seconds`` a test or before the deadline.  And
    ``nodes`` (k,) per test.  Grids of side ``WITNESS_MAX_SIDE`` at most.

    A count to two of each row decides the same, but searches the known solution's branch too;
    this search forbids the given's digit and tries the known solution's digit first elsewhere
    (a witness mostly keeps it): on forty 16x16 puzzles half the count's nodes.
    """
    n, cells = geometry.n, geometry.cells
    if n > WITNESS_MAX_SIDE:
        raise NativeInputError(f"the witness search takes grids up to {WITNESS_MAX_SIDE}x{WITNESS_MAX_SIDE}")
    k = rows.shape[0]
    rows = np.ascontiguousarray(rows, dtype=np.int8).reshape(k, cells)
    tested = np.ascontiguousarray(tested, dtype=np.int64)
    partner = np.ascontiguousarray(partner, dtype=np.int64)
    solution = np.ascontiguousarray(solution, dtype=np.int8).reshape(cells)
    tables = _witness_tables_of(geometry)
    work = _witness_work(geometry, min(cells + 1, _STACK_LEVELS))
    grids = np.zeros((k, cells), np.int8)
    found = np.full(k, -1, np.int8)
    nodes = np.zeros(k, np.int64)
    roots = np.empty((0, cells), np.uint64)
    root_ok = np.empty(0, np.int8)
    if k >= _W_ROOTS_FROM:
        roots = np.empty((k, cells), np.uint64)
        root_ok = np.empty(k, np.int8)
        _w_roots(rows, tested, solution, int(np.sqrt(k)), tables, work, roots, root_ok)
    chunk = 0.02 if seconds is None else min(0.02, max(seconds / 4, 1e-3))
    clock = ChunkBudget(deadline or Deadline(None), max(50, 2_000_000 // cells), 50, 50_000_000, chunk)
    current, began = 0, time.monotonic()
    while True:
        status = _witness_batch(
            rows, tested, partner, solution, tables, work, grids, found, nodes, clock.start(), roots, root_ok
        )
        if status == _DONE:
            break
        if status == _GROW:
            levels = work.stack.shape[0]
            taller = min(2 * levels, cells + 1)
            stack = np.empty((taller, cells), np.uint64)
            stack[:levels] = work.stack
            stack_cell = np.empty(taller, np.int64)
            stack_cell[:levels] = work.stack_cell
            work = work._replace(stack=stack, stack_cell=stack_cell)
        if clock.out_of_time(resize=status == BUDGET):
            break
        now = time.monotonic()
        t = int(work.state[_W_TEST])
        if t != current:  # a new test began during the chunk: its time counts from now
            current, began = t, now
        elif seconds is not None and now - began >= seconds:
            work.state[_W_TEST], work.state[_W_MODE], work.state[_W_PHASE] = t + 1, _W_START, 0
            current, began = t + 1, now  # given up: left to the caller (found -1)
            if t + 1 == k:
                break
    return found, grids, nodes
