"""Generic exact cover by Knuth's Algorithm X with dancing links, compiled with numba.

Reference: D. E. Knuth, "Dancing Links", Millennial Perspectives in Computer Science (2000),
arXiv:cs/0011047.  The links live in flat int64 arrays: nodes ``0`` (root) and ``1..n_items``
(item headers) are linked left/right in the list of items still to cover, and every node is linked
up/down in its item's column.  The nodes of one option are contiguous, so moving left/right inside
an option is index arithmetic instead of another pair of link arrays.

The search is an explicit-stack iterative search (the chosen node per level plus a mode word) whose
whole state lives in numpy arrays.  It runs in chunks of a node budget; between chunks the Python
driver empties the solution buffer and checks the wall clock, then resumes exactly where it stopped.
Items are chosen by the MRV rule (fewest remaining options, first such item on ties); an item
with no option left ends the branch.  A running count of active items with no option left makes
that test O(1) and lets the MRV scan stop at the first item with a single option.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from .chunks import ChunkBudget

__all__ = ["ExactCoverResult", "solve_exact_cover"]

# Indices into the state vector.
_LEVEL, _MODE, _COUNT, _NODES, _NBUF, _ZEROS = range(6)
# Modes of the search loop.
_ENTER, _TRY, _BACKTRACK = 0, 1, 2
# Statuses returned by the kernel.
_DONE, _LIMIT, _BUDGET, _FLUSH = 0, 1, 2, 3

_BUFFER_SOLUTIONS = 256
_MIN_BUDGET, _MAX_BUDGET = 500, 50_000_000
_CHUNK_SECONDS = 0.02


@dataclass(frozen=True, slots=True)
class ExactCoverResult:
    """Outcome of an exact-cover search.

    ``solutions``: sorted int64 arrays of chosen option indices (empty when ``keep=False``);
    ``complete``: the search space was exhausted, so ``count`` is the exact number of solutions;
    ``timed_out``: stopped by the time limit (then ``complete`` is False);
    ``nodes``: search nodes visited; ``count``: solutions found.
    """

    solutions: list[np.ndarray]
    complete: bool
    timed_out: bool
    nodes: int
    count: int


@numba.njit(cache=True)
def _search(
    left: np.ndarray,
    right: np.ndarray,
    up: np.ndarray,
    down: np.ndarray,
    col: np.ndarray,
    row: np.ndarray,
    length: np.ndarray,
    start: np.ndarray,
    choice: np.ndarray,
    state: np.ndarray,
    limit: int,
    budget: int,
    keep: bool,
    out_vals: np.ndarray,
    out_ptr: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Run Algorithm X from ``state`` for at most ``budget`` nodes; return a status code."""
    n_headers = len(left)
    level = state[_LEVEL]
    mode = state[_MODE]
    zeros = state[_ZEROS]
    spent = 0
    status = _DONE
    while True:
        if mode == _ENTER:
            if spent >= budget:
                status = _BUDGET
                break
            if right[0] == 0:
                if keep:
                    nbuf = state[_NBUF]
                    if nbuf == len(out_ptr) - 1 or out_ptr[nbuf] + level > len(out_vals):
                        status = _FLUSH
                        break
                    base = out_ptr[nbuf]
                    for k in range(level):
                        out_vals[base + k] = row[choice[k]]
                    out_ptr[nbuf + 1] = base + level
                    state[_NBUF] = nbuf + 1
                spent += 1
                state[_COUNT] += 1
                mode = _BACKTRACK
                if state[_COUNT] >= limit:
                    status = _LIMIT
                    break
                continue
            spent += 1
            if zeros > 0:
                # Some item has no option left: the minimum is 0, so this branch is dead.
                mode = _BACKTRACK
                continue
            # MRV: the first item with the fewest remaining options (1 is the least possible now).
            best = right[0]
            best_len = length[best]
            c = right[best]
            while c != 0 and best_len > 1:
                if length[c] < best_len:
                    best = c
                    best_len = length[c]
                c = right[c]
            # cover(best)
            c = best
            right[left[c]] = right[c]
            left[right[c]] = left[c]
            i = down[c]
            while i != c:
                r = row[i]
                lo = start[r]
                hi = start[r + 1]
                j = i + 1
                while True:
                    if j == hi:
                        j = lo
                    if j == i:
                        break
                    down[up[j]] = down[j]
                    up[down[j]] = up[j]
                    length[col[j]] -= 1
                    if length[col[j]] == 0:
                        zeros += 1
                    j += 1
                i = down[i]
            choice[level] = down[c]
            mode = _TRY
        elif mode == _TRY:
            x = choice[level]
            if x < n_headers:
                # Options of this item exhausted: uncover(x).
                c = x
                i = up[c]
                while i != c:
                    r = row[i]
                    lo = start[r]
                    hi = start[r + 1]
                    j = i - 1
                    while True:
                        if j < lo:
                            j = hi - 1
                        if j == i:
                            break
                        if length[col[j]] == 0:
                            zeros -= 1
                        length[col[j]] += 1
                        down[up[j]] = j
                        up[down[j]] = j
                        j -= 1
                    i = up[i]
                right[left[c]] = c
                left[right[c]] = c
                mode = _BACKTRACK
                continue
            # Cover the other items of the option of x.
            r = row[x]
            lo = start[r]
            hi = start[r + 1]
            y = x + 1
            while True:
                if y == hi:
                    y = lo
                if y == x:
                    break
                c = col[y]
                right[left[c]] = right[c]
                left[right[c]] = left[c]
                if length[c] == 0:
                    zeros -= 1
                i = down[c]
                while i != c:
                    r2 = row[i]
                    lo2 = start[r2]
                    hi2 = start[r2 + 1]
                    j = i + 1
                    while True:
                        if j == hi2:
                            j = lo2
                        if j == i:
                            break
                        down[up[j]] = down[j]
                        up[down[j]] = up[j]
                        length[col[j]] -= 1
                        if length[col[j]] == 0:
                            zeros += 1
                        j += 1
                    i = down[i]
                y += 1
            level += 1
            mode = _ENTER
        else:  # _BACKTRACK
            if level == 0:
                status = _DONE
                break
            level -= 1
            x = choice[level]
            # Uncover the other items of the option of x, in reverse order.
            r = row[x]
            lo = start[r]
            hi = start[r + 1]
            y = x - 1
            while True:
                if y < lo:
                    y = hi - 1
                if y == x:
                    break
                c = col[y]
                i = up[c]
                while i != c:
                    r2 = row[i]
                    lo2 = start[r2]
                    hi2 = start[r2 + 1]
                    j = i - 1
                    while True:
                        if j < lo2:
                            j = hi2 - 1
                        if j == i:
                            break
                        if length[col[j]] == 0:
                            zeros -= 1
                        length[col[j]] += 1
                        down[up[j]] = j
                        up[down[j]] = j
                        j -= 1
                    i = up[i]
                right[left[c]] = c
                left[right[c]] = c
                if length[c] == 0:
                    zeros += 1
                y -= 1
            choice[level] = down[x]
            mode = _TRY
    state[_LEVEL] = level
    state[_MODE] = mode
    state[_ZEROS] = zeros
    state[_NODES] += spent
    return status


def _to_csr(
    option_items: Sequence[Sequence[int]] | np.ndarray | tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, items)`` int64 arrays of the options, in any accepted input form."""
    if (
        isinstance(option_items, tuple)
        and len(option_items) == 2
        and all(isinstance(a, np.ndarray) and a.ndim == 1 for a in option_items)
    ):
        indptr = np.asarray(option_items[0], dtype=np.int64)
        items = np.asarray(option_items[1], dtype=np.int64)
        if len(indptr) == 0 or indptr[0] != 0 or indptr[-1] != len(items) or (np.diff(indptr) < 0).any():
            raise ValueError("indptr must start at 0, never decrease and end at len(items)")
        return indptr, items
    if isinstance(option_items, np.ndarray) and option_items.ndim == 2:
        n_options, width = option_items.shape
        return np.arange(n_options + 1, dtype=np.int64) * width, option_items.astype(np.int64).reshape(-1)
    sizes = np.fromiter((len(option) for option in option_items), dtype=np.int64, count=len(option_items))
    indptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    items = np.fromiter(itertools.chain.from_iterable(option_items), dtype=np.int64, count=int(indptr[-1]))
    return indptr, items


def _validate(indptr: np.ndarray, items: np.ndarray, n_items: int) -> np.ndarray:
    """The option index of every entry, after checking items, empty options and repeats."""
    sizes = np.diff(indptr)
    if (sizes == 0).any():
        raise ValueError(f"option {int(np.argmax(sizes == 0))} covers no item")
    if items.size and (items.min() < 0 or items.max() >= n_items):
        raise ValueError(f"item indices must lie in [0, {n_items})")
    owner = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    key = owner * max(n_items, 1) + items
    if np.unique(key).size != key.size:
        raise ValueError("an option lists the same item twice")
    return owner


def solve_exact_cover(
    option_items: Sequence[Sequence[int]] | np.ndarray | tuple[np.ndarray, np.ndarray],
    n_items: int,
    *,
    limit: int = 1,
    time_limit: float | None = None,
    keep: bool = True,
) -> ExactCoverResult:
    """Find up to ``limit`` exact covers of items ``0..n_items-1`` by the given options.

    ``option_items``: one list of item indices per option, a 2-D integer array (one row per option),
    or CSR ``(indptr, items)`` as a tuple of two 1-D numpy arrays (option i covers
    ``items[indptr[i]:indptr[i+1]]``).  Every item must be covered exactly once; options must be
    non-empty and may not repeat an item.  ``time_limit`` is wall-clock seconds from the call
    (including a first-call numba compile) and is checked between chunks of search nodes.  With
    ``keep=False`` solutions are only counted.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    if n_items < 0:
        raise ValueError("n_items must be non-negative")
    limit = min(int(limit), int(np.iinfo(np.int64).max))
    began = time.perf_counter()
    indptr, items = _to_csr(option_items)
    owner = _validate(indptr, items, n_items)
    counts = np.bincount(items, minlength=n_items).astype(np.int64)
    if (counts == 0).any():
        return ExactCoverResult([], complete=True, timed_out=False, nodes=0, count=0)

    n_headers = n_items + 1
    n_entries = len(items)
    nodes = n_headers + np.arange(n_entries, dtype=np.int64)
    headers = np.arange(n_headers, dtype=np.int64)
    left = np.roll(headers, 1)
    right = np.roll(headers, -1)
    col = np.concatenate([headers, items + 1])
    row = np.concatenate([np.full(n_headers, -1, dtype=np.int64), owner])
    start = indptr + n_headers
    length = np.concatenate([[0], counts]).astype(np.int64)
    up = np.concatenate([headers, np.empty(n_entries, dtype=np.int64)])
    down = up.copy()
    if n_entries:
        order = np.argsort(items, kind="stable")
        seq = nodes[order]
        head = items[order] + 1
        first = np.ones(n_entries, dtype=bool)
        first[1:] = head[1:] != head[:-1]
        last = np.ones(n_entries, dtype=bool)
        last[:-1] = first[1:]
        down[seq] = np.where(last, head, np.roll(seq, -1))
        up[seq] = np.where(first, head, np.roll(seq, 1))
        down[head[first]] = seq[first]
        up[head[last]] = seq[last]

    choice = np.zeros(max(n_items, 1), dtype=np.int64)
    state = np.zeros(6, dtype=np.int64)
    width = max(n_items, 1)
    out_vals = np.empty(width * _BUFFER_SOLUTIONS if keep else 1, dtype=np.int64)
    out_ptr = np.zeros(_BUFFER_SOLUTIONS + 1 if keep else 2, dtype=np.int64)
    solutions: list[np.ndarray] = []
    clock = ChunkBudget(time_limit, 2_000, _MIN_BUDGET, _MAX_BUDGET, _CHUNK_SECONDS, began)
    timed_out = False
    while True:
        budget = clock.start()
        status = _search(
            left,
            right,
            up,
            down,
            col,
            row,
            length,
            start,
            choice,
            state,
            limit,
            budget,
            keep,
            out_vals,
            out_ptr,
        )
        if keep:
            for k in range(int(state[_NBUF])):
                solutions.append(np.sort(out_vals[out_ptr[k] : out_ptr[k + 1]]))
            state[_NBUF] = 0
        if status in (_DONE, _LIMIT):
            break
        if clock.out_of_time(resize=status == _BUDGET):
            timed_out = True
            break
    return ExactCoverResult(
        solutions,
        complete=status == _DONE,
        timed_out=timed_out,
        nodes=int(state[_NODES]),
        count=int(state[_COUNT]),
    )
