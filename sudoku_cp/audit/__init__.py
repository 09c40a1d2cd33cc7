"""Auditing solvers: run any solver over a corpus and check every answer against SAT ground truth.

A *solver* answers puzzles; three kinds are audited the same way:

* ``BackendSolver``: a backend of the registry (``pysat``, ``cpsat``, ``dlx``, the native ones),
  run in this process with the time limit passed on and a seed per run;
* ``ProgramSolver``: an external program that reads one puzzle line and prints one answer line
  (see ``parse_answer``), killed with its whole process group at the time limit;
* ``AnswerFileSolver``: answers produced elsewhere, one line per puzzle.

Each answer makes a *claim* (``Claim``): a solution, a solution said to be unique, more than one
solution, no solution, or nothing.  ``judge`` turns a claim into a ``Verdict``.  A claimed grid is
checked by the independent checker (complete, valid, keeps the givens), which needs no solver;
claims about the number of solutions ("no solution", "unique", "multiple") are decided by SAT
(python-sat, search limit 2).  ``GroundTruth`` makes that SAT call at most once per puzzle, only
when a claim needs it, and reuses it for every later run and solver.

Backends can run on an executor (``sudoku_cp.executor``: local worker processes or a Dask
cluster) in chunks of (backend, puzzles, runs); programs and answer files run in this process
(a program must be found on this machine and killed from here at Ctrl-C; an answer file's
answers are here), in the same output order.

The package holds one module per concept: ``answers`` (claims, verdicts, reading answers),
``truth`` (SAT ground truth), ``judge`` (verdicts on answers), ``solvers`` (what is run),
``runs`` (one solver's runs on one puzzle), ``chunks`` (those runs as executor work),
``tally`` (per-solver summaries); ``audit`` here runs solvers over a corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Generator, Iterator, Sequence
from itertools import islice

from ..backends.registry import make_backend
from ..executor import Executor, run_ordered
from ..formats import PuzzleItem
from ..limits import Deadline, check_memory
from .answers import Answer, AuditError, Claim, Verdict, parse_answer, read_answer_lines
from .chunks import AUDIT_WORK, AuditChunk, audit_chunks
from .judge import RunResult, answer_from_search, judge
from .runs import item_runs, run_count, run_seed
from .solvers import (
    BOX_PLACEHOLDER,
    PLACEHOLDER,
    SEED_PLACEHOLDER,
    AnswerFileSolver,
    BackendSolver,
    ProgramSolver,
    Solver,
)
from .tally import SolverTally, tally
from .truth import GroundTruth, Truth, choose_truth

__all__ = [
    "BOX_PLACEHOLDER",
    "PLACEHOLDER",
    "SEED_PLACEHOLDER",
    "Answer",
    "AnswerFileSolver",
    "AuditError",
    "BackendSolver",
    "Claim",
    "GroundTruth",
    "ProgramSolver",
    "RunResult",
    "Solver",
    "SolverTally",
    "Truth",
    "Verdict",
    "answer_from_search",
    "audit",
    "audit_size",
    "check_audit_size",
    "judge",
    "make_backend",
    "parse_answer",
    "read_answer_lines",
    "run_seed",
    "tally",
]


def audit_size(items: Sequence[PuzzleItem], solvers: Sequence[Solver], runs: int) -> int:
    """The number of results an audit gives (one per run, one per invalid item and solver)."""
    return sum(run_count(solver.repeatable, item, runs) for solver in solvers for item in items)


#: Bytes an audit keeps per run: its result in the tally (seconds, verdict) and its place in the plan.
_BYTES_PER_RUN = 200


def check_audit_size(items: Sequence[PuzzleItem], solvers: Sequence[Solver], runs: int) -> int:
    """The number of results an audit gives; ``limits.ModelTooLarge`` first when keeping them
    cannot fit in memory (``--runs 1000000000`` once grew to 7 GB before a MemoryError)."""
    repeatable = sum(solver.repeatable for solver in solvers)
    readable = sum(item.grid is not None for item in items)
    most = len(items) * len(solvers) + repeatable * readable * max(runs - 1, 0)  # audit_size without the loop
    check_memory(f"an audit of {most} runs", most * _BYTES_PER_RUN, "use fewer --runs or a smaller corpus")
    return audit_size(items, solvers, runs)


def audit(
    items: Sequence[PuzzleItem],
    solvers: Sequence[Solver],
    *,
    runs: int = 1,
    seed: int = 0,
    time_limit: float | None = None,
    unique: bool = False,
    truth: GroundTruth | None = None,
    executor: Executor | None = None,
    skip: Container[int] = frozenset(),
    notice: Callable[[str], None] | None = None,
) -> Generator[RunResult, None, None]:
    """Run every solver on every puzzle (``runs`` times if its runs can differ) and judge each answer.

    Results come solver by solver, puzzle by puzzle, run by run, each with its place in that
    order (``RunResult.position``); an unreadable corpus item gives one INVALID result per
    solver.  With ``unique`` backends are asked to decide uniqueness.  ``time_limit`` None or
    ``inf`` means no limit.  ``skip``: places whose runs are not made (already answered).

    ``executor`` (a parallel one) runs the backends' runs in chunks on worker processes or a
    Dask cluster (``notice`` gets its dashboard line); the cluster is reached here, before any
    run, so a ClusterError comes from this call.  Results come in the same order either way.
    """
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    time_limit = Deadline(time_limit).seconds  # checked: >= 0, inf is no limit
    if truth is None:  # a truth that does not take an audited backend's own path
        audited = [solver.spec for solver in solvers if isinstance(solver, BackendSolver)]
        truth = GroundTruth(choose_truth(audited))
    starts = [0]
    for solver in solvers:
        starts.append(starts[-1] + sum(run_count(solver.repeatable, item, runs) for item in items))
    parallel = executor is not None and executor.parallel
    # the backends whose runs go out in chunks, by their place in ``solvers`` (in that order)
    spread_backends = {
        k: solver for k, solver in enumerate(solvers) if parallel and isinstance(solver, BackendSolver)
    }
    spread = [k in spread_backends for k in range(len(solvers))]
    remote: Generator[RunResult, None, None] | None = None
    if spread_backends:

        def chunks() -> Iterator[AuditChunk]:
            for k, solver in spread_backends.items():
                yield from audit_chunks(
                    items,
                    solver,
                    starts[k],
                    runs=runs,
                    seed=seed,
                    time_limit=time_limit,
                    unique=unique,
                    truth=truth.backend,
                    skip=skip,
                )

        remote = run_ordered(AUDIT_WORK, chunks(), executor, notice=notice)

    def results() -> Generator[RunResult, None, None]:
        try:
            for k, solver in enumerate(solvers):
                try:
                    if remote is not None and spread[k]:
                        done = sum(1 for place in range(starts[k], starts[k + 1]) if place in skip)
                        yield from islice(remote, starts[k + 1] - starts[k] - done)
                        continue
                    position = starts[k]
                    for item in items:
                        count = run_count(solver.repeatable, item, runs)
                        todo = [run for run in range(count) if position + run not in skip]
                        yield from item_runs(
                            solver,
                            item,
                            todo,
                            position,
                            seed=seed,
                            time_limit=time_limit,
                            unique=unique,
                            truth=truth,
                        )
                        position += count
                finally:
                    solver.close()
        finally:
            if remote is not None:
                remote.close()  # stops what is still out on the workers

    return results()
