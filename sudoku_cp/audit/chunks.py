"""Audit work for the executor: (backend, puzzles, runs) chunks that run in worker processes.

A chunk names its backend by a small recipe (name, isolation, options) and carries its puzzles
as plain numbers, so it travels cheaply to a local worker process or a Dask worker.  A worker
makes each backend solver once and keeps it for the chunks that follow (with its helper process
and warm-ups; at most ``_KEPT_SOLVERS`` of them), and judges with its own ground truth, which
remembers the puzzles it decided.  The results come back with their places in the output, so
the parent writes them in order and counts them as if it had run them itself.

Chunk sizes: up to ``_CHUNK_RUNS`` runs on 9x9 puzzles (fewer on bigger grids, in proportion
to their cells), at most ``_CHUNK_SECONDS`` of time limits, and at most a ``_SPREAD``-th of the
corpus, so that a small corpus still spreads over the workers.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..executor import Work
from ..formats import PuzzleItem
from .answers import Claim, Verdict
from .judge import RunResult, pack_grid, unpack_grid
from .runs import item_runs, run_count, run_seed
from .solvers import BackendSolver
from .truth import GroundTruth

__all__ = ["AUDIT_WORK", "AuditChunk", "audit_chunks", "crashed_chunk", "run_chunk"]

_CHUNK_RUNS = 128  # runs per chunk on 9x9 puzzles: the scheduling cost stays small beside them
_CHUNK_SECONDS = 60.0  # time limits of the runs of one chunk, at most (unless one run has more)
_SPREAD = 16  # chunks per backend at least, when the corpus has that many puzzles
_KEPT_SOLVERS = 4  # backends a worker process keeps made (each may hold a helper process)

#: A backend solver as it travels: its name, whether runs are isolated, its options.
Recipe = tuple[str, bool, tuple[tuple[str, Any], ...]]
#: A puzzle as it travels: index, line, error (unreadable), box shape and digits (int16 bytes).
Packed = tuple[int, int, str | None, int, int, bytes]


@dataclass(frozen=True, slots=True)
class AuditChunk:
    """Runs of one backend on some puzzles: ``todo[k]`` the run numbers of puzzle ``k``,
    ``positions[k]`` the place in the output of its run 0."""

    recipe: Recipe
    truth: str
    seed: int
    time_limit: float | None
    unique: bool
    puzzles: tuple[Packed, ...]
    todo: tuple[tuple[int, ...], ...]
    positions: tuple[int, ...]


def recipe(solver: BackendSolver) -> Recipe:
    """What a worker needs to make the same backend solver."""
    return solver.spec, solver.isolate, tuple(sorted(solver.options.items()))


def _pack(item: PuzzleItem) -> Packed:
    grid = item.grid
    if grid is None:
        return item.index, item.line, item.error, 0, 0, b""
    return item.index, item.line, None, *pack_grid(grid)


def _unpack(packed: Packed) -> PuzzleItem:
    index, line, error, p, q, values = packed
    return PuzzleItem(index, line, None if not p else unpack_grid(p, q, values), error)


def audit_chunks(
    items: Sequence[PuzzleItem],
    solver: BackendSolver,
    position: int,
    *,
    runs: int,
    seed: int,
    time_limit: float | None,
    unique: bool,
    truth: str,
    skip: Container[int],
) -> Iterator[AuditChunk]:
    """The chunks of one backend's runs over the corpus, whose output starts at ``position``;
    runs whose places are in ``skip`` are left out (a chunk with nothing to do is not made)."""
    most_puzzles = max(1, math.ceil(len(items) / _SPREAD))
    most_runs = (
        _CHUNK_RUNS if time_limit is None else max(1, min(_CHUNK_RUNS, int(_CHUNK_SECONDS / time_limit)))
    )
    puzzles: list[Packed] = []
    todo: list[tuple[int, ...]] = []
    positions: list[int] = []
    load = 0.0

    def chunk() -> AuditChunk:
        made = AuditChunk(
            recipe(solver), truth, seed, time_limit, unique, tuple(puzzles), tuple(todo), tuple(positions)
        )
        for part in (puzzles, todo, positions):
            part.clear()
        return made

    for item in items:
        count = run_count(solver.repeatable, item, runs)
        left = tuple(run for run in range(count) if position + run not in skip)
        if left:
            cells = item.grid.n**2 / 81 if item.grid is not None else 0.0
            weight = len(left) * max(1.0, cells)
            if puzzles and (load + weight > most_runs or len(puzzles) >= most_puzzles):
                yield chunk()
                load = 0.0
            puzzles.append(_pack(item))
            todo.append(left)
            positions.append(position)
            load += weight
        position += count
    if puzzles:
        yield chunk()


# -------------------------------------------------------------------------------- in the worker

_solvers: OrderedDict[Recipe, BackendSolver] = OrderedDict()
_truths: dict[str, GroundTruth] = {}


def _solver(made: Recipe) -> BackendSolver:
    """The worker's solver for a recipe, made on first use; the least recently used one is
    closed (its helper process ended) when more than ``_KEPT_SOLVERS`` are kept."""
    solver = _solvers.get(made)
    if solver is None:
        spec, isolate, options = made
        solver = _solvers[made] = BackendSolver(spec, isolate=isolate, **dict(options))
        while len(_solvers) > _KEPT_SOLVERS:
            _solvers.popitem(last=False)[1].close()
    _solvers.move_to_end(made)
    return solver


def run_chunk(chunk: AuditChunk) -> list[RunResult]:
    """A chunk's runs, judged, in order."""
    solver = _solver(chunk.recipe)
    truth = _truths.setdefault(chunk.truth, GroundTruth(chunk.truth))
    results: list[RunResult] = []
    for packed, todo, position in zip(chunk.puzzles, chunk.todo, chunk.positions, strict=True):
        results += item_runs(
            solver,
            _unpack(packed),
            todo,
            position,
            seed=chunk.seed,
            time_limit=chunk.time_limit,
            unique=chunk.unique,
            truth=truth,
        )
    return results


def crashed_chunk(chunk: AuditChunk, why: str) -> list[RunResult]:
    """A crash result for every run of a chunk that could not be run (it killed its workers)."""
    name = chunk.recipe[0]
    detail = f"the worker running this chunk failed: {why}"
    results = []
    for (index, line, error, p, *_), todo, position in zip(
        chunk.puzzles, chunk.todo, chunk.positions, strict=True
    ):
        for run in todo:
            if not p:  # an unreadable puzzle needs no run: it stays invalid
                verdict, seed, text = Verdict.INVALID, None, error or ""
            else:
                verdict, seed, text = Verdict.CRASH, run_seed(chunk.seed, index, run), detail
            results.append(
                RunResult(name, index, line, run, seed, Claim.NONE, verdict, 0.0, text, None, position + run)
            )
    return results


AUDIT_WORK: Work[AuditChunk, RunResult] = Work(run_chunk, crashed_chunk)
