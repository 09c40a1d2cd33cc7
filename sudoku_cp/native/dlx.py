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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple, overload

import numba
import numpy as np

from ..limits import Deadline, watch_compilation
from . import NativeInputError
from .chunks import BUDGET, FLUSH, ChunkBudget

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["Covers", "ExactCoverResult", "solve_exact_cover"]

# Indices into the state vector.
_LEVEL, _MODE, _COUNT, _NODES, _NBUF, _ZEROS = range(6)
# Modes of the search loop.
_ENTER, _TRY, _BACKTRACK = 0, 1, 2
# Final statuses of the kernel (it also returns chunks.BUDGET and chunks.FLUSH).
_DONE, _LIMIT = 0, 1

# The output buffer holds at most this many solutions and option indices between two flushes.
_BUFFER_SOLUTIONS, _BUFFER_VALUES = 8192, 1 << 19
_MIN_BUDGET, _MAX_BUDGET = 500, 50_000_000
_CHUNK_SECONDS = 0.02
_FIRST_CHUNK_ENTRIES = 20_000_000  # first chunk: this many option entries / entries of the model


class Links(NamedTuple):
    """The dancing links, one int64 array each, passed to the kernel as one argument.

    Node 0 is the root, nodes 1..n_items the item headers, then one node per entry of an option.
    ``left``/``right`` link the headers of the items still to cover; ``up``/``down`` link every
    node in its item's column; ``col`` is a node's item header and ``row`` its option (-1 for
    headers); ``length[c]`` counts the options left in column c; the entries of option r are the
    nodes ``start[r]`` to ``start[r + 1] - 1``.
    """

    left: np.ndarray
    right: np.ndarray
    up: np.ndarray
    down: np.ndarray
    col: np.ndarray
    row: np.ndarray
    length: np.ndarray
    start: np.ndarray


class Covers(Sequence[np.ndarray]):
    """The exact covers found, stored end to end: cover i is ``options[starts[i]:starts[i + 1]]``.

    A read-only sequence of int64 arrays of option indices, each ascending (views, not copies);
    ``as_array()`` gives all covers as one 2-D array when they have the same size.
    """

    __slots__ = ("options", "starts")

    def __init__(self, options: np.ndarray, starts: np.ndarray) -> None:
        self.options = np.asarray(options, dtype=np.int64)
        self.starts = np.asarray(starts, dtype=np.int64)
        self.options.setflags(write=False)
        self.starts.setflags(write=False)

    @classmethod
    def empty(cls) -> Covers:
        """No cover at all."""
        return cls(np.zeros(0, np.int64), np.zeros(1, np.int64))

    def __len__(self) -> int:
        return len(self.starts) - 1

    @overload
    def __getitem__(self, index: int) -> np.ndarray: ...

    @overload
    def __getitem__(self, index: slice) -> list[np.ndarray]: ...

    def __getitem__(self, index: int | slice) -> np.ndarray | list[np.ndarray]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]  # IndexError and negative indices as for a list
        return self.options[self.starts[i] : self.starts[i + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self.options[lo:hi] for lo, hi in zip(self.starts[:-1], self.starts[1:], strict=True))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(np.array_equal(a, b) for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Covers({len(self)} covers, {len(self.options)} options)"

    def as_array(self) -> np.ndarray:
        """The covers as one (count, size) int64 array; ValueError when their sizes differ."""
        sizes = np.diff(self.starts)
        if len(sizes) and (sizes != sizes[0]).any():
            raise NativeInputError("the covers have different sizes")
        return self.options.reshape(len(sizes), int(sizes[0]) if len(sizes) else 0)


@dataclass(frozen=True, slots=True)
class ExactCoverResult:
    """Outcome of an exact-cover search.

    ``solutions``: the covers found, each a sorted int64 array of option indices (a ``Covers``;
    empty when ``keep=False``); ``complete``: the search space was exhausted, so ``count`` is the
    exact number of solutions; ``timed_out``: stopped by the time limit (then ``complete`` is
    False); ``nodes``: search nodes visited; ``count``: solutions found.
    """

    solutions: Sequence[np.ndarray]
    complete: bool
    timed_out: bool
    nodes: int
    count: int

    def solution_array(self) -> np.ndarray:
        """The solutions as one (k, size) int64 array, when they all have the same size."""
        if isinstance(self.solutions, Covers):
            return self.solutions.as_array()
        return np.array(self.solutions, dtype=np.int64).reshape(len(self.solutions), -1)


@numba.njit(cache=True, inline="always")
def _hide(j: int, links: Links, zeros: int) -> int:  # pragma: no cover - compiled
    """Take node ``j`` out of its column; return the new count of active items with no option."""
    up, down, col, length = links.up, links.down, links.col, links.length
    down[up[j]] = down[j]
    up[down[j]] = up[j]
    length[col[j]] -= 1
    if length[col[j]] == 0:
        zeros += 1
    return zeros


@numba.njit(cache=True, inline="always")
def _unhide(j: int, links: Links, zeros: int) -> int:  # pragma: no cover - compiled
    """Put node ``j`` back into its column (undoes ``_hide``)."""
    up, down, col, length = links.up, links.down, links.col, links.length
    if length[col[j]] == 0:
        zeros -= 1
    length[col[j]] += 1
    down[up[j]] = j
    up[down[j]] = j
    return zeros


@numba.njit(cache=True, inline="always")
def _cover(c: int, links: Links, zeros: int) -> int:  # pragma: no cover - compiled
    """Cover item ``c``: unlink its header and hide every other entry of its options.

    The other entries of the option of node i are visited from i rightwards, wrapping around.
    """
    left, right, down, row, start = links.left, links.right, links.down, links.row, links.start
    right[left[c]] = right[c]
    left[right[c]] = left[c]
    if links.length[c] == 0:
        zeros -= 1  # an item with no option left is no longer active
    i = down[c]
    while i != c:
        r = row[i]
        for j in range(i + 1, start[r + 1]):
            zeros = _hide(j, links, zeros)
        for j in range(start[r], i):
            zeros = _hide(j, links, zeros)
        i = down[i]
    return zeros


@numba.njit(cache=True, inline="always")
def _uncover(c: int, links: Links, zeros: int) -> int:  # pragma: no cover - compiled
    """Undo ``_cover(c)``, in exactly the reverse order."""
    left, right, up, row, start = links.left, links.right, links.up, links.row, links.start
    i = up[c]
    while i != c:
        r = row[i]
        for j in range(i - 1, start[r] - 1, -1):
            zeros = _unhide(j, links, zeros)
        for j in range(start[r + 1] - 1, i, -1):
            zeros = _unhide(j, links, zeros)
        i = up[i]
    right[left[c]] = c
    left[right[c]] = c
    if links.length[c] == 0:
        zeros += 1
    return zeros


@numba.njit(cache=True)
def _search(
    links: Links,
    choice: np.ndarray,
    state: np.ndarray,
    limit: int,
    keep: bool,
    out_vals: np.ndarray,
    out_ptr: np.ndarray,
    budget: int,
) -> int:  # pragma: no cover - compiled
    """Run Algorithm X from ``state`` for at most ``budget`` nodes; return a status code.

    With ``keep``, each solution's option indices are written to ``out_vals`` (ascending), its end
    to ``out_ptr``; a full buffer returns ``FLUSH``.
    """
    right, down, col, row = links.right, links.down, links.col, links.row
    length, start = links.length, links.start
    n_headers = len(right)
    level = state[_LEVEL]
    mode = state[_MODE]
    zeros = state[_ZEROS]
    spent = 0
    status = _DONE
    while True:
        if mode == _ENTER:
            if spent >= budget:
                status = BUDGET
                break
            if right[0] == 0:
                if keep:
                    nbuf = state[_NBUF]
                    if nbuf == len(out_ptr) - 1 or out_ptr[nbuf] + level > len(out_vals):
                        status = FLUSH
                        break
                    base = out_ptr[nbuf]
                    for k in range(level):
                        # Insertion sort: a solution has few options, already partly in order.
                        value = row[choice[k]]
                        at = base + k
                        while at > base and out_vals[at - 1] > value:
                            out_vals[at] = out_vals[at - 1]
                            at -= 1
                        out_vals[at] = value
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
            zeros = _cover(best, links, zeros)
            choice[level] = down[best]
            mode = _TRY
        elif mode == _TRY:
            x = choice[level]
            if x < n_headers:
                # Options of this item exhausted.
                zeros = _uncover(x, links, zeros)
                mode = _BACKTRACK
                continue
            # Cover the other items of the option of x, rightwards from x.
            r = row[x]
            for y in range(x + 1, start[r + 1]):
                zeros = _cover(col[y], links, zeros)
            for y in range(start[r], x):
                zeros = _cover(col[y], links, zeros)
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
            for y in range(x - 1, start[r] - 1, -1):
                zeros = _uncover(col[y], links, zeros)
            for y in range(start[r + 1] - 1, x, -1):
                zeros = _uncover(col[y], links, zeros)
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
            raise NativeInputError("indptr must start at 0, never decrease and end at len(items)")
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
        raise NativeInputError(f"option {int(np.argmax(sizes == 0))} covers no item")
    if items.size and (items.min() < 0 or items.max() >= n_items):
        raise NativeInputError(f"item indices must lie in [0, {n_items})")
    owner = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    key = np.sort(owner * max(n_items, 1) + items)  # a sort and a neighbour compare: np.unique is far slower
    if key.size > 1 and bool((key[1:] == key[:-1]).any()):
        raise NativeInputError("an option lists the same item twice")
    return owner


def _links(indptr: np.ndarray, items: np.ndarray, owner: np.ndarray, counts: np.ndarray) -> Links:
    """The dancing links of the options (``owner``: the option of every entry; ``counts``: per item)."""
    n_headers = len(counts) + 1
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
    return Links(left, right, up, down, col, row, length, start)


class _Output:
    """The kernel's solution buffer, and the covers moved out of it after every chunk."""

    def __init__(self, keep: bool, limit: int, width: int, state: np.ndarray) -> None:
        solutions = min(limit, _BUFFER_SOLUTIONS) if keep else 1
        self.vals = np.empty(max(width, min(solutions * width, _BUFFER_VALUES)) if keep else 1, np.int64)
        self.ptr = np.zeros(solutions + 1, np.int64)
        self.state = state
        self.parts: list[np.ndarray] = []
        self.sizes: list[np.ndarray] = []

    def drain(self) -> None:
        """Move the buffered covers out, so that the kernel can go on."""
        nbuf = int(self.state[_NBUF])
        if nbuf:
            self.parts.append(self.vals[: self.ptr[nbuf]].copy())
            self.sizes.append(np.diff(self.ptr[: nbuf + 1]))
            self.state[_NBUF] = 0

    def covers(self) -> Covers:
        """Every cover moved out so far."""
        if not self.parts:
            return Covers.empty()
        starts = np.zeros(sum(len(s) for s in self.sizes) + 1, np.int64)
        np.cumsum(np.concatenate(self.sizes), out=starts[1:])
        return Covers(np.concatenate(self.parts), starts)


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
    ``keep=False`` solutions are only counted: nothing is stored, whatever the count.
    """
    if limit < 1:
        raise NativeInputError("limit must be at least 1")
    if n_items < 0:
        raise NativeInputError("n_items must be non-negative")
    limit = min(int(limit), int(np.iinfo(np.int64).max))
    deadline = Deadline(time_limit)
    indptr, items = _to_csr(option_items)
    owner = _validate(indptr, items, n_items)
    counts = np.bincount(items, minlength=n_items).astype(np.int64)
    if (counts == 0).any():
        return ExactCoverResult(Covers.empty(), complete=True, timed_out=False, nodes=0, count=0)
    if deadline.expired():  # the time went on building the model: do not load the search at all
        return ExactCoverResult(Covers.empty(), complete=False, timed_out=True, nodes=0, count=0)
    links = _links(indptr, items, owner, counts)
    choice = np.zeros(max(n_items, 1), dtype=np.int64)
    state = np.zeros(6, dtype=np.int64)
    out = _Output(keep, limit, max(n_items, 1), state)
    step = partial(_search, links, choice, state, limit, keep, out.vals, out.ptr)
    # A node costs about the size of the columns it covers: on a 400x400 grid 2,000 nodes take a
    # second, so the first chunk (and the smallest) shrink with the model before the pace is known.
    first = int(min(2_000, max(8, _FIRST_CHUNK_ENTRIES // max(len(items), 1))))
    clock = ChunkBudget(deadline, first, min(_MIN_BUDGET, first), _MAX_BUDGET, _CHUNK_SECONDS)
    status, timed_out = clock.run(step, out.drain if keep else None)
    return ExactCoverResult(
        out.covers(),
        complete=status == _DONE,
        timed_out=timed_out,
        nodes=int(state[_NODES]),
        count=int(state[_COUNT]),
    )
