"""Fuzzing any solver: generated cases of every shape and status, failures shrunk to small puzzles.

``fuzz(solver)`` runs a solver (a Python function puzzle -> answer, a backend by name, or an
external program as ``verify`` runs it) on cases made from a seed (``cases``: every box shape up
to ``max_side``, every status, symbols at the alphabet's edges), cheap and small ones first,
until the budget of seconds or cases is spent.  Every answer is judged as ``verify`` judges it
(``audit.runs.judged_answer``: the independent checker, SAT ground truth for claims about the
number of solutions): correct, wrong, timeout, crash or unknown.

The first case of each failure kind (a wrong answer making one claim, a crash, a timeout) is
shrunk (``shrink``) to a 1-minimal puzzle on the smallest shape that fails the same way; later
cases of a kind only count.  The run stops at the first wrong answer unless ``keep_going``.
Calls run on ``executor`` (``--jobs``) through one ``CallPool`` for the whole run (workers
started once): the cases of the run and each shrinking step's candidates go out together and
come back in order, so a seed gives the same failures and the same shrunk puzzles on one core
or many.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import islice
from typing import Any

from ..audit.answers import Verdict
from ..audit.runs import run_seed
from ..audit.solvers import BOX_PLACEHOLDER, BackendSolver, ProgramSolver
from ..audit.truth import DEFAULT_TRUTH, GroundTruth, choose_truth
from ..backends.base import BackendError
from ..executor import Executor
from ..grid import Grid
from ..limits import Deadline
from .calls import Call, Outcome, PuzzleAnswer, SolverSpec, answer_of, close_solvers, register
from .cases import STATUSES, CaseKey, make_case, plan, shapes
from .pool import CallPool
from .report import Failure, FuzzReport, claim_text, reproduce_command, truth_text
from .shrink import Shrunk, failure_kind, shrink

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_MAX_SIDE",
    "DEFAULT_SHRINK_BUDGET",
    "DEFAULT_TIME_LIMIT",
    "STATUSES",
    "CaseKey",
    "Failure",
    "FuzzReport",
    "PuzzleAnswer",
    "Shrunk",
    "SolverSpec",
    "answer_of",
    "check_shapes",
    "claim_text",
    "fuzz",
    "make_case",
    "plan",
    "shapes",
    "shrink",
    "solver_spec",
    "square_only",
]

DEFAULT_MAX_SIDE = 16
DEFAULT_BUDGET = 60.0  # seconds of cases when neither a budget nor a number of cases is given
DEFAULT_SHRINK_BUDGET = 60.0  # seconds to shrink one failure
DEFAULT_TIME_LIMIT = 5.0  # seconds per call: a solver that hangs is a finding, not a stall


def solver_spec(solver: Any) -> SolverSpec:
    """The recipe of a solver: a ``SolverSpec``, a ``BackendSolver``, a ``ProgramSolver``, a
    backend name as 'backend:NAME', a command as 'program:CMD', or a Python function."""
    if isinstance(solver, SolverSpec):
        return solver
    if isinstance(solver, BackendSolver):
        return SolverSpec("backend", solver.spec, solver.isolate, tuple(sorted(solver.options.items())))
    if isinstance(solver, ProgramSolver):
        return SolverSpec("program", solver.command)
    if isinstance(solver, str):
        kind, _, name = solver.partition(":")
        if kind == "backend":
            return solver_spec(BackendSolver(name, isolate=True))
        if kind == "program":
            return solver_spec(ProgramSolver(name))
        raise ValueError(f"name a solver as 'backend:NAME' or 'program:CMD', not {solver!r}")
    if callable(solver):
        return SolverSpec("callable", register(solver))
    raise TypeError(f"not a solver: {solver!r}")


def square_only(spec: SolverSpec) -> bool:
    """Whether only square boxes can be fuzzed: a program whose command has no ``{box}`` is not
    told the shape, and a side such as 6 (2x3 or 3x2) or 5 (1x5 or 5x1) does not say it."""
    return spec.kind == "program" and BOX_PLACEHOLDER not in spec.name


def check_shapes(spec: SolverSpec, max_side: int) -> None:
    """Raise ValueError when no box shape up to ``max_side`` can be fuzzed for this solver."""
    if not shapes(max_side, square_only(spec)):
        raise ValueError(
            f"no box shape to fuzz up to side {max_side}: a program not told the shape ({{box}} in "
            "its command) gets square boxes only, the smallest 2x2"
        )


def _solver_name(spec: SolverSpec) -> str:
    return spec.name.partition("@")[0] if spec.kind == "callable" else spec.name


def fuzz(
    solver: Any,
    *,
    seed: int = 0,
    budget: float | None = None,
    cases: int | None = None,
    max_side: int = DEFAULT_MAX_SIDE,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    unique: bool = False,
    keep_going: bool = False,
    shrink_failures: bool = True,
    shrink_budget: float | None = DEFAULT_SHRINK_BUDGET,
    truth: str | None = None,
    executor: Executor | None = None,
    start: int = 0,
    resumed: Sequence[Mapping[str, Any]] = (),
    spent: float = 0.0,
    certify: Callable[[Failure], Failure] | None = None,
    on_failure: Callable[[Failure], None] | None = None,
    on_case: Callable[[int], None] | None = None,
) -> FuzzReport:
    """Fuzz ``solver`` (see ``solver_spec``; a Python function takes a ``Grid`` and returns a
    ``PuzzleAnswer``) and return what was found.

    ``budget`` seconds and ``cases`` bound the cases judged (``DEFAULT_BUDGET`` seconds when both
    are None); ``start``: the first case number (a resumed run), ``resumed`` the failures an
    earlier run found (their kinds are not looked for again), ``spent`` the seconds of the budget
    the runs it resumes used (this run has what remains).  ``time_limit`` per call (None: no
    limit); ``unique``: backends asked to decide uniqueness.  Each new failure kind is shrunk
    (within ``shrink_budget`` seconds), passed to ``certify`` (which may turn it unknown), then
    to ``on_failure``; ``on_case`` gets the number of each case judged.
    """
    if max_side < 2:
        raise ValueError(f"the largest side must be at least 2, not {max_side}")
    if seed < 0:
        raise ValueError(f"the seed must be at least 0, not {seed}")
    if not spent >= 0:
        raise ValueError(f"the seconds already spent must be at least 0, not {spent}")
    spec = solver_spec(solver)
    check_shapes(spec, max_side)
    if budget is None and cases is None:
        budget = DEFAULT_BUDGET
    truth_name = truth or (choose_truth([spec.name]) if spec.kind == "backend" else DEFAULT_TRUTH)
    template = Call(spec, truth_name, 0, time_limit, unique)
    report = FuzzReport(_solver_name(spec), seed, next_case=start, resumed=list(resumed), spent_before=spent)
    deadline = Deadline(None if budget is None else max(budget - spent, 0.0))
    began = time.perf_counter()
    ground = GroundTruth(truth_name)
    pool = CallPool(executor, warm=template)
    try:
        number = start
        while True:
            found = _first_failure(report, template, number, seed, max_side, cases, deadline, pool, on_case)
            if found is None:
                break
            number, key, outcome = found
            failure = _failure(
                number, key, outcome, template, seed, ground, pool, shrink_failures, shrink_budget
            )
            failure.spent = spent + time.perf_counter() - began
            report.calls += failure.shrunk.calls if failure.shrunk is not None else 0
            if certify is not None:
                failure = certify(failure)
            report.failures.append(failure)
            if on_failure is not None:
                on_failure(failure)
            number += 1
            if failure.verdict is Verdict.WRONG and not keep_going:
                break
    finally:
        report.seconds = time.perf_counter() - began
        pool.close(wait=sys.exc_info()[0] is None)  # stopped by Ctrl-C: at once
        close_solvers()
    return report


def _first_failure(
    report: FuzzReport,
    template: Call,
    number: int,
    seed: int,
    max_side: int,
    cases: int | None,
    deadline: Deadline,
    pool: CallPool,
    on_case: Callable[[int], None] | None,
) -> tuple[int, CaseKey, Outcome] | None:
    """Judge cases from number ``number`` on until one fails in a kind not seen yet (its number,
    key and outcome) or the budget is spent (None); counts go into ``report``."""
    keys: list[tuple[int, CaseKey]] = []

    def calls() -> Iterator[Call]:
        every = plan(seed, max_side, square_only(template.solver))
        for k, key in enumerate(islice(every, number, None), start=number):
            if deadline.expired() or (cases is not None and k >= cases):
                return
            keys.append((k, key))
            yield replace(template, key=key, seed=run_seed(seed, k, 0))

    stream = pool.outcomes(calls())
    try:
        for place, outcome in enumerate(stream):
            k, key = keys[place]
            report.next_case = k + 1
            if deadline.expired():  # the calls still out when the budget ran out are dropped
                return None
            if outcome.verdict is None:  # no puzzle of this status on this shape
                continue
            report.cases += 1
            report.calls += 1
            report.verdicts[outcome.verdict.value] += 1
            if on_case is not None:
                on_case(k)
            kind = failure_kind(outcome)
            if kind is None:
                continue
            seen = next((f for f in report.failures if f.kind == kind), None)
            if seen is not None:
                seen.count += 1
                continue
            if kind in report.kinds:  # found by the run this one resumes
                continue
            if outcome.puzzle is None:  # the worker died before it said which puzzle
                made = make_case(key)
                if made is None:
                    continue
                outcome = replace(outcome, puzzle=(made.geometry.p, made.geometry.q, made.values.tobytes()))
            return k, key, outcome
    finally:
        stream.close()
    return None


def _failure(
    number: int,
    key: CaseKey,
    outcome: Outcome,
    template: Call,
    seed: int,
    ground: GroundTruth,
    pool: CallPool,
    shrink_failures: bool,
    shrink_budget: float | None,
) -> Failure:
    """The failure of case ``number``, shrunk (unless not asked), with both truths."""
    puzzle = outcome.grid
    assert puzzle is not None
    call = replace(template, key=None, puzzle=outcome.puzzle, seed=run_seed(seed, number, 0))
    shrunk = None
    if shrink_failures:
        shrunk = shrink(
            puzzle,
            key,
            outcome,
            call,
            executor=pool,
            deadline=Deadline(shrink_budget),
            square_only=square_only(template.solver),
        )
    failure = Failure(number, key, puzzle, outcome, failure_kind(outcome) or "", call.seed)
    failure.truth = truth_text(_truth(ground, puzzle))
    small = shrunk.puzzle if shrunk is not None else puzzle
    failure.shrunk = shrunk
    failure.shrunk_truth = truth_text(_truth(ground, small))
    failure.reproduce = reproduce_command(template.solver, small, call.seed)
    return failure


def _truth(ground: GroundTruth, puzzle: Grid) -> Any:
    try:
        return ground(puzzle)
    except BackendError:  # shown as unknown: the report never guesses a truth
        return None
