"""The ``backtrack`` solver: a bitset search over a whole batch of puzzles, driven from Python.

The search itself is a compiled kernel (naked and hidden singles, locked candidates, scored
minimum-remaining-values guesses on an explicit stack): ``bitset9`` on 9x9 grids (per-digit band
words), ``bitset`` on every box shape (a candidate mask per cell).  It runs in chunks of a node
budget: between two chunks this driver checks the time limit, empties the solution buffer and
grows the stack of states when the kernel asks.  A search the time limit stopped is reported as
such (its count is a lower bound), never as "no solution".

Both kernels are called as machine code saved by an earlier process (``machine_code``), so a
command never imports numba to search; numba compiles them the first time, and serves them when
the saved code cannot be used.

``search_batch`` solves many puzzles of one geometry in one call (the kernel walks the whole
batch); ``backtrack_search`` is the one-puzzle form.  A complete search below the limit gives the
exact count, and zero then means no solution.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..lazy import numba_registries_without_blas_probe
from ..limits import Deadline
from . import NativeInputError, kernels, machine_code
from .chunks import ChunkBudget
from .kernels import (
    ENTRY9_ARGUMENTS,
    ENTRY_ARGUMENTS,
    LEVEL_WORDS,
    RULES_ALL,
    STATE_SIZE,
    WORDS,
    Tables,
    Work,
    Work9,
    tables9,
)

__all__ = ["MAX_SIDE", "BacktrackResult", "BatchRun", "backtrack_search", "search_batch"]

#: The largest grid side the solver takes (one uint64 of candidates per cell).
MAX_SIDE = 64
# The solution buffer holds this many cells (int16) between two flushes.
_BUFFER_CELLS = 1 << 20
_MIN_BUDGET, _MAX_BUDGET = 50, 50_000_000
_CHUNK_SECONDS = 0.02
# First chunk: about this many cell visits (a 9x9 node costs a few hundred), so that a big grid's
# first chunk stays short too; later chunks are sized from the measured pace.
_FIRST_CHUNK_CELLS = 2_000_000
_STACK_LEVELS = 128  # levels of the stack of states at first (it grows when a search needs more)


@dataclass(frozen=True, slots=True)
class BatchRun:
    """What a batch search found, puzzle by puzzle (B puzzles).

    ``counts`` (B,) solutions found; ``complete`` (B,) the search was exhausted, so the count is
    exact; ``timed_out`` (B,) the time limit stopped it; ``nodes`` (B,) propagations made;
    ``solutions`` (k, n*n) int16 (not yet checked; empty when not kept) and ``owner`` (k,) the
    puzzle of each, in order; ``seconds`` (B,) each puzzle's share of the search time (in
    proportion to its nodes); ``budget``: the last chunk's node budget (the pace to start from).
    """

    counts: np.ndarray
    complete: np.ndarray
    timed_out: np.ndarray
    nodes: np.ndarray
    solutions: np.ndarray
    owner: np.ndarray
    seconds: np.ndarray
    budget: int


@dataclass(frozen=True, slots=True)
class BacktrackResult:
    """Outcome of a one-puzzle search.

    ``solutions``: (k, n, n) int16 grids found (empty when ``keep=False``); ``count``: solutions
    found; ``complete``: the search space was exhausted, so ``count`` is exact; ``timed_out``:
    stopped by the time limit; ``nodes``: propagations made (the root, then one per branch).
    """

    solutions: np.ndarray
    count: int
    complete: bool
    timed_out: bool
    nodes: int


@cache
def _tables(geometry: Geometry) -> Tables:
    """The kernel's tables (cached); NativeInputError beyond 64 x 64."""
    n = geometry.n
    if n > MAX_SIDE:
        raise NativeInputError(f"the bitset search handles grids up to {MAX_SIDE}x{MAX_SIDE}, not {n}x{n}")
    peers, units, cell_units = (
        np.ascontiguousarray(table, dtype=np.uint16)
        for table in (geometry.peers(), geometry.units, geometry.cell_units)
    )
    unit_bits = np.zeros(n * n, np.uint64)
    if 3 * n <= 64:
        for which in range(3):
            unit_bits |= np.left_shift(np.uint64(1), cell_units[:, which].astype(np.uint64))
    for array in (peers, units, cell_units, unit_bits):
        array.setflags(write=False)
    return Tables(geometry.p, geometry.q, peers, units, cell_units, unit_bits)


def _work(geometry: Geometry, levels: int) -> Work:
    """Fresh search state for a geometry, with a stack of ``levels`` states."""
    n, p, q = geometry.n, geometry.p, geometry.q
    cells = n * n
    jobs = 2 * n * (p + q)
    return Work(
        np.empty(cells, np.uint64),
        np.empty(cells, np.int32),
        np.zeros((3 * n + 63) // 64, np.uint64),
        np.empty(n * (p + q + 4), np.uint64),
        np.empty((jobs, 3), np.int64),
        np.empty(jobs, np.uint64),
        np.empty((levels, cells), np.uint64),
        np.empty(levels, np.int32),
        np.zeros(STATE_SIZE, np.int64),
    )


def _work9(levels: int) -> Work9:
    """Fresh 9x9 search state, with a stack of ``levels`` states."""
    return Work9(
        np.full(WORDS, 0xFFFFFFFF, np.uint32),  # the folded boards' memo: nothing known yet
        np.empty((levels, LEVEL_WORDS), np.uint32),
        np.zeros(STATE_SIZE, np.int64),
    )


@cache
def _tables9() -> np.ndarray:
    """The 9x9 kernel's lookup tables (cached)."""
    return tables9()


_Kernel = Callable[..., int]


@cache
def _kernel9(saved: bool = True) -> _Kernel:
    """The 9x9 kernel: its saved machine code when it can be used (``saved``), else numba's."""
    if saved:
        entry = _saved("bitset9", ("bitset9.py", "bitset.py", "kernels.py"), ENTRY9_ARGUMENTS)
        if entry is not None:
            return _through(entry, ENTRY9_ARGUMENTS)
    numba_registries_without_blas_probe()
    from .bitset9 import solve_batch9

    return solve_batch9  # type: ignore[no-any-return]


@cache
def _general_kernel(saved: bool = True) -> _Kernel:
    """The kernel of every box shape: its saved machine code when it can be used (``saved``), else numba's."""
    if saved:
        entry = _saved("bitset", ("bitset.py", "kernels.py"), ENTRY_ARGUMENTS)
        if entry is not None:
            return _through(entry, ENTRY_ARGUMENTS)
    numba_registries_without_blas_probe()
    from .bitset import solve_batch

    return solve_batch  # type: ignore[no-any-return]


def _saved(name: str, sources: tuple[str, ...], arguments: tuple[tuple[str, str], ...]) -> _Kernel | None:
    """The C entry point of kernel module ``name`` from saved machine code (built if need be), or None."""

    def build() -> tuple[bytes, str, list[str]]:
        numba_registries_without_blas_probe()
        module = importlib.import_module(f".{name}", __package__)
        return module.entry_object()  # type: ignore[no-any-return]

    try:
        return machine_code.load(
            name, [Path(__file__).with_name(source) for source in sources], build, arguments
        )
    except (ImportError, OSError, RuntimeError):  # MachineCodeError, or llvmlite's own
        return None


def _through(entry: _Kernel, spec: tuple[tuple[str, str], ...]) -> _Kernel:
    """A kernel with ``solve_batch``'s arguments (either kernel's) that calls the C entry point ``entry``.

    Each of the entry's arguments (``spec``) is read by name from the kernel's arguments, their
    tables and work arrays (a pointer to an array's data, checked for its type and layout: the
    entry trusts them), or is a length the entry needs to see the arrays' shapes.
    """

    def solve(*arguments: Any) -> int:
        givens, tables, limit, keep, work, out, owner, counts, done, nodes, budget, rules = arguments
        named = {**work._asdict(), "givens": givens, "limit": limit, "keep": int(keep), "out": out}
        named |= {"owner": owner, "counts": counts, "done": done, "nodes": nodes, "budget": budget}
        named |= {"rules": rules, "puzzles": len(givens), "rows": len(out), "levels": len(work.stack)}
        if isinstance(tables, Tables):
            named |= tables._asdict()
            named |= {"peer_count": tables.peers.shape[1], "dirty_words": len(named["dirty"])}
            named |= {"seg_words": len(named["seg"]), "jobs": len(named["job_bits"])}
        else:
            named["table"] = tables
        values = []
        for name, kind in spec:
            value = named[name]
            if kind.endswith("*"):
                if value.dtype != np.dtype(kind[:-1]) or not value.flags.c_contiguous:
                    raise TypeError(f"{name}: a C-ordered {kind[:-1]} array is needed, not {value.dtype}")
                value = value.ctypes.data
            values.append(int(value))
        return int(entry(*values))

    return solve


def _kernel(
    geometry: Geometry, general: bool
) -> tuple[_Kernel, Tables | np.ndarray, Callable[[int], Work | Work9]]:
    """The kernel for a geometry, its tables and a maker of its work arrays (given stack levels)."""
    if (geometry.p, geometry.q) == (3, 3) and not general:
        return _kernel9(), _tables9(), _work9
    tables = _tables(geometry)  # NativeInputError beyond 64x64, before any kernel is loaded
    return _general_kernel(), tables, lambda levels: _work(geometry, levels)


def _taller(work: Work | Work9, cells: int) -> Work | Work9:
    """The same state with a stack twice as tall (at most one level per cell, plus one)."""
    levels = work.stack.shape[0]
    taller = min(2 * levels, cells + 1)
    stack = np.empty((taller, *work.stack.shape[1:]), work.stack.dtype)
    stack[:levels] = work.stack
    if isinstance(work, Work9):
        return work._replace(stack=stack)
    stack_cell = np.empty(taller, np.int32)
    stack_cell[:levels] = work.stack_cell
    return work._replace(stack=stack, stack_cell=stack_cell)


def first_budget(geometry: Geometry) -> int:
    """The node budget of a first chunk on this geometry."""
    return max(_MIN_BUDGET, _FIRST_CHUNK_CELLS // geometry.n**2)


def search_batch(
    geometry: Geometry,
    givens: np.ndarray,
    *,
    limit: int = 1,
    keep: bool = True,
    time_limit: float | Deadline | None = None,
    budget: int | None = None,
    rules: int = RULES_ALL,
    general: bool = False,
) -> BatchRun:
    """Count the solutions of each puzzle of ``givens`` (B, n*n) up to ``limit``, in one kernel walk.

    ``time_limit``: seconds for each puzzle, or a ``Deadline`` for the whole call; a puzzle the
    limit stops is ``timed_out`` (with a Deadline, every puzzle not finished by then).  Each
    chunk of the kernel lasts about 20 ms, so the limit is overshot by about that much at most.
    ``budget``: the first chunk's node budget (a previous run's ``budget``); ``rules``: the
    ``kernels.RULE_*`` flags (all by default; fewer only to measure what each rule buys);
    ``general``: the general kernel even on 9x9 (which has a kernel of its own), to compare them.
    """
    if limit < 1:
        raise NativeInputError("limit must be at least 1")
    n_puzzles = givens.shape[0]
    cells = geometry.n**2
    board = np.ascontiguousarray(givens, dtype=np.int8).reshape(n_puzzles, cells)
    limit = min(int(limit), int(np.iinfo(np.int64).max))
    per_puzzle = None if isinstance(time_limit, Deadline) else time_limit
    deadline = time_limit if isinstance(time_limit, Deadline) else Deadline(None)
    chunk_seconds = _CHUNK_SECONDS if per_puzzle is None else min(_CHUNK_SECONDS, max(per_puzzle / 4, 1e-3))
    clock = ChunkBudget(deadline, budget or first_budget(geometry), _MIN_BUDGET, _MAX_BUDGET, chunk_seconds)

    solve, tables, make_work = _kernel(geometry, general)
    work = make_work(min(cells + 1, _STACK_LEVELS))
    rows = min(n_puzzles * limit, max(1, _BUFFER_CELLS // cells)) if keep else 1
    out = np.empty((rows, cells), np.int16)
    owner = np.empty(rows, np.int64)
    counts = np.zeros(n_puzzles, np.int64)
    done = np.zeros(n_puzzles, np.int8)
    nodes = np.zeros(n_puzzles, np.int64)
    timed_out = np.zeros(n_puzzles, np.bool_)
    found: list[np.ndarray] = []
    found_owner: list[np.ndarray] = []

    began = time.monotonic()
    current, current_began = 0, began
    while True:
        status = solve(
            board, tables, limit, keep, work, out, owner, counts, done, nodes, clock.start(), rules
        )
        if work.state[kernels.S_SOLUTIONS]:
            kept = int(work.state[kernels.S_SOLUTIONS])
            found.append(out[:kept].copy())
            found_owner.append(owner[:kept].copy())
            work.state[kernels.S_SOLUTIONS] = 0
        if status == kernels.DONE:
            break
        if status == kernels.GROW:
            work = _taller(work, cells)
        if clock.out_of_time(resize=status == kernels.BUDGET):
            timed_out[int(work.state[kernels.S_PUZZLE]) :] = True
            break
        now = time.monotonic()
        b = int(work.state[kernels.S_PUZZLE])
        if b != current:  # a new puzzle began during the chunk: its time counts from now
            current, current_began = b, now
        elif per_puzzle is not None and now - current_began >= per_puzzle:
            timed_out[b] = True  # give up this puzzle, go on with the next
            work.state[kernels.S_PUZZLE] = b + 1
            work.state[kernels.S_MODE] = kernels.MODE_START
            current, current_began = b + 1, now
            if b + 1 == n_puzzles:
                break
    spent = time.monotonic() - began
    seconds = spent * nodes / max(int(nodes.sum()), 1)
    solutions = np.concatenate(found) if found else np.zeros((0, cells), np.int16)
    owners = np.concatenate(found_owner) if found_owner else np.zeros(0, np.int64)
    return BatchRun(
        counts,
        (done == kernels.EXHAUSTED) & ~timed_out,
        timed_out,
        nodes,
        solutions,
        owners,
        seconds,
        clock.budget,
    )


def backtrack_search(
    puzzle: Grid, *, limit: int = 1, time_limit: float | None = None, keep: bool = True
) -> BacktrackResult:
    """Find up to ``limit`` solutions of ``puzzle`` by the bitset search.

    ``time_limit`` is wall-clock seconds from the call (a first-call compile included), checked
    between chunks of nodes; with ``keep=False`` solutions are only counted.
    """
    deadline = Deadline(time_limit)
    run = search_batch(
        puzzle.geometry, puzzle.values.reshape(1, -1), limit=limit, keep=keep, time_limit=deadline
    )
    n = puzzle.n
    return BacktrackResult(
        run.solutions.reshape(-1, n, n),
        int(run.counts[0]),
        bool(run.complete[0]),
        bool(run.timed_out[0]),
        int(run.nodes[0]),
    )
