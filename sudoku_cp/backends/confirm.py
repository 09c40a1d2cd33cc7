"""Claims of "no (more) solution" confirmed by another path than the one that made them.

A solver program's UNSAT claim, or our own propagation's contradiction and our own model's
search, could be wrong in ways the solution checker never sees (there is no grid to check).  So
such a claim is solved again by python-sat's CaDiCaL (``CONFIRM_SOLVER``, the certificates'
prover) on the plain ``extended`` encoding of ``certify.cnf.sudoku_cnf`` (the givens as unit
clauses, no propagation, no optimized model), with the solutions already found blocked.  A
solution found there refutes the claim (a ``BackendError`` naming it, after the grid itself is
checked); a time limit or a model too big leaves the answer unknown (the reason is returned).

Claims that come by the thousand ("exactly these k >= 1 solutions", e.g. "unique" under
``--unique`` from the pysat batch path's search of its own compact model) are counted again by
``confirm_counts``: the native bitset backtracking search (``native.backtrack``, a compiled search
with its own propagation, no CNF, no solver of ours), a whole batch in one call, each of its
grids checked by the checker.  Only what it leaves undecided (a time limit, a grid too big for it)
goes to ``confirm_no_more`` one puzzle at a time.  Solving the extended CNF per puzzle costs about
the batch path's own time again (``benchmarks/unique_confirm.py``); the count, a few percent.

The native count's own claims (the ``backtrack`` backend) cannot be confirmed by itself:
``confirm_search_counts`` searches the batch again with the pysat batch path's raw complete
search (its own propagation, Minicard on its own compact model: an independent implementation),
the two searches' counts and grids compared; what it leaves undecided goes to
``confirm_cnf_counts``, which solves them again on the extended CNF, one incremental CaDiCaL for
the whole batch (the CNF without givens loaded once, each puzzle's givens as assumptions, its
found solutions blocked by clauses guarded by an activation literal assumed for that puzzle
only).  The search is 1.8-3.7x faster than the CNF batch (``benchmarks/unique_confirm.py``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from ..certify.cnf import sudoku_cnf
from ..certify.prove import PROVER
from ..checker import valid_completions, valid_solutions_mask
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, TimeLimitReached, compile_seconds_since, solve_limited
from ..native import NativeInputError
from ..native.backtrack import search_batch
from ..outcome import REASON_TIME_LIMIT
from .base import Backend, BackendError, BatchAnswers, OneByOne, refusal

__all__ = [
    "CONFIRM_SOLVER",
    "COUNT_CONFIRMER",
    "Confirmed",
    "ConfirmedOneByOne",
    "confirm_cnf_counts",
    "confirm_counts",
    "confirm_no_more",
    "confirm_search_counts",
    "confirmed_answers",
]

CONFIRM_SOLVER = PROVER
"""The python-sat solver that confirms UNSAT claims (the certificates' prover, CaDiCaL 1.9.5)."""

#: Without a time limit, the native count's seconds per puzzle: at least this, ...
_COUNT_FLOOR = 2.0
#: ... or this many times the most any claim's own search took.
_COUNT_FACTOR = 4.0

COUNT_CONFIRMER = "backtrack"
"""What counts again the solutions of a batch of claims (``confirm_counts``): the native search."""

SEARCH_CONFIRMER = "the pysat batch search"
"""What counts again the ``backtrack`` backend's claims (``confirm_search_counts``)."""


def confirm_no_more(
    puzzle: Grid,
    found: Sequence[np.ndarray],
    deadline: Deadline,
    *,
    claimant: str | None,
    name: str,
    finder: str = "our propagation",
) -> str | None:
    """Check an UNSAT claim (no solution beyond ``found``) on the plain extended encoding:
    None when confirmed, else the unknown reason.

    ``claimant`` is the program that made the claim, None for our own work (``finder``: what of
    ours found the puzzle contradictory); ``name`` the backend answering.  A time
    limit reached first, or an extended CNF too large for memory, is the unknown reason; a
    model found refutes the claim (a BackendError naming it, after the model is checked as
    a grid).
    """
    from pysat.solvers import Solver

    known = np.stack(found) if found else None
    count = 0 if known is None else len(known)
    what = "no solution" if not count else f"no solution beyond the {count} found"
    if claimant:
        who = f"the UNSAT claim of solver program {claimant!r}"
    elif count:
        who = f"{finder}'s claim of {what}"
    else:
        who = f"{finder}'s contradiction"
    if known is not None:  # a wrong grid blocked here would make the confirmation meaningless
        problem = refusal(puzzle.geometry, puzzle.values.reshape(-1), known, name)
        if problem is not None:
            raise BackendError(problem)
    try:
        # The first solution found is blocked by sudoku_cnf itself; any further ones (counting)
        # by the same clause in the same numbering.
        first = None if known is None else puzzle.with_values(known[0])
        clauses = sudoku_cnf(puzzle, first).clauses()
    except ModelTooLarge as error:
        return f"cannot confirm {who}: {error}"
    n = puzzle.n
    cells = np.arange(n * n, dtype=np.int64) * n
    for values in [] if known is None else known[1:]:
        clauses.append((-(cells + values.reshape(-1).astype(np.int64))).tolist())
    with Solver(name=CONFIRM_SOLVER, bootstrap_with=clauses) as solver:
        answer = solve_limited(solver, [], deadline)
        model = solver.get_model() if answer else None
    if answer is None:
        return f"{REASON_TIME_LIMIT} while confirming {who}"
    if model is None:
        return None
    # x(R, C, D) = (R-1)n^2 + (C-1)n + D: variable v is cell (v-1) // n holding (v-1) % n + 1.
    true = np.asarray([lit for lit in model if 0 < lit <= n**3], dtype=np.int64) - 1
    values = np.zeros(n * n, dtype=np.int16)
    values[true // n] = true % n + 1
    if not valid_solutions_mask(puzzle, values.reshape(1, n, n))[0]:  # the confirmer's own grid
        raise BackendError(f"pysat:{CONFIRM_SOLVER} returned a wrong solution while confirming {who}")
    if claimant is None and count:
        raise BackendError(
            f"{finder} claimed {what} but pysat:{CONFIRM_SOLVER} found another valid solution on the "
            "extended encoding: the claim is wrong"
        )
    if claimant is None:
        raise BackendError(
            f"{finder} found the puzzle contradictory but pysat:{CONFIRM_SOLVER} found a valid "
            f"solution on the extended encoding: a bug in {finder}"
        )
    raise BackendError(
        f"solver program {claimant!r} claimed UNSAT ({what}) but pysat:{CONFIRM_SOLVER} "
        "found a valid solution: the program's answer is wrong"
    )


@dataclass(frozen=True, slots=True)
class Confirmed:
    """What ``confirm_counts`` made of B claims: ``unknown`` (position: why not confirmed),
    ``refuted`` (position: the error naming the claim, or the confirmer, that is wrong) and
    ``seconds`` (B,) spent on each.  A position in neither is confirmed."""

    unknown: dict[int, str]
    refuted: dict[int, str]
    seconds: np.ndarray


def _claim_words(count: int) -> str:
    """A claim of exactly ``count`` solutions, in words."""
    return {0: "no solution", 1: "a unique solution"}.get(count, f"exactly {count} solutions")


def _rows(grids: np.ndarray) -> set[bytes]:
    """Each row of a (k, n*n) stack as bytes (a solution's identity), in int16."""
    return {row.tobytes() for row in np.asarray(grids, dtype=np.int16)}


def _wrong_grid(confirmer: str, finder: str, claimed: int) -> str:
    """The error of a confirmer that returned a grid the checker refuses (its bug: no verdict)."""
    return (
        f"{confirmer} returned a wrong solution while confirming {finder}'s claim of "
        f"{_claim_words(claimed)}: not confirmed"
    )


@dataclass
class _Claims:
    """B claims as every confirmer reads them: the (B, n*n) givens, each claim's held grids,
    their number (``held``), the count claimed (``claimed``: more than held for a count without
    its grids) and the seconds already spent on each (``used``)."""

    stack: np.ndarray
    claims: list[np.ndarray]
    held: np.ndarray
    claimed: np.ndarray
    used: np.ndarray

    @classmethod
    def of(
        cls,
        geometry: Geometry,
        givens: np.ndarray,
        found: Sequence[np.ndarray],
        spent: np.ndarray | None,
        sizes: np.ndarray | None,
        confirmer: str,
    ) -> _Claims:
        """The claims of ``found`` for ``givens``; ``confirmer`` names the caller when their
        numbers differ (one claim per puzzle)."""
        n2 = geometry.n**2
        stack = np.asarray(givens).reshape(-1, n2)
        claims = [np.asarray(grids).reshape(-1, n2) for grids in found]
        if len(claims) != len(stack):
            raise ValueError(f"{confirmer} confirms one claim per puzzle")
        held = np.array([len(claim) for claim in claims], dtype=np.int64)
        claimed = held if sizes is None else np.maximum(np.asarray(sizes, dtype=np.int64), held)
        used = np.zeros(len(stack)) if spent is None else np.asarray(spent, dtype=np.float64)
        return cls(stack, claims, held, claimed, used)


def _verdict(
    claims: _Claims, k: int, theirs: np.ndarray, count: int, complete: bool, finder: str, confirmer: str
) -> str | None:
    """Claim k against a confirmer's checked grids ``theirs`` (of ``count`` it counted, the search
    ``complete`` or not): the error naming what is wrong, "" when the confirmer left it undecided,
    None when confirmed."""
    claimed = int(claims.claimed[k])
    what = _claim_words(claimed)
    found_rows = _rows(theirs)
    if int(claims.held[k]) == claimed:
        beyond = bool(found_rows - _rows(claims.claims[k]))
    else:  # a count without its grids: more distinct grids than it counts
        beyond = len(found_rows) > claimed
    if beyond:
        return (
            f"{finder} claimed {what} but {confirmer} found "
            f"{'a' if not claimed else 'another'} valid solution: the claim is wrong"
        )
    if not complete:
        return ""
    if len(found_rows) != claimed or count != claimed:
        return (
            f"{confirmer} counted {count} solutions where {finder} claimed {what}: "
            "they disagree, neither is taken"
        )
    return None


def confirm_counts(
    geometry: Geometry,
    givens: np.ndarray,
    found: Sequence[np.ndarray],
    time_limit: float | Deadline | None,
    *,
    name: str,
    finder: str,
    spent: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
) -> Confirmed:
    """Confirm B claims "puzzle k (``givens[k]``) has exactly the solutions ``found[k]``" (each a
    (c, n*n) stack of checked grids; c = 0 is "no solution", c = 1 "unique") by another path.

    First the native backtracking count (``COUNT_CONFIRMER``) of the whole batch, up to one more
    than the largest claim: a valid grid it finds beyond a claim refutes the claim; its count
    equal to the claim, the same grids, confirms it; a grid of its that the checker refuses, or a
    count short of the checked grids, is the confirmer's bug (refuted too: the answer cannot
    stand unconfirmed).  What it leaves undecided goes to ``confirm_no_more`` with what is left
    of the puzzle's time.  ``time_limit``: seconds for each puzzle, of which ``spent`` (B,) are
    already spent (the claim's own search), or one ``Deadline`` for all.  ``finder`` names the
    claimant in the messages; ``name`` the backend answering.

    ``sizes`` (B,): the claimed counts, when a claim holds fewer grids than it counts (a count
    without its grids): such a claim is confirmed by an equal count alone, refuted by more
    distinct valid grids, and left unknown when the count is stopped (no grids to block).
    """
    n = geometry.n
    batch = _Claims.of(geometry, givens, found, spent, sizes, "confirm_counts")
    stack, claims, held, claimed, used = batch.stack, batch.claims, batch.held, batch.claimed, batch.used
    size = len(stack)
    seconds = np.zeros(size)
    unknown: dict[int, str] = {}
    refuted: dict[int, str] = {}
    if not size:
        return Confirmed(unknown, refuted, seconds)
    count_limit: float | Deadline | None
    if time_limit is None:
        # No limit: a backtracking count can take far longer than SAT on a hard big grid, so it
        # gets a slice in proportion to the claims' own searches; what it leaves goes to the
        # CNF below, unbounded, a search like the claim's own.
        count_limit = max(_COUNT_FLOOR, _COUNT_FACTOR * float(used.max()))
    elif isinstance(time_limit, Deadline):
        count_limit = time_limit
    else:  # one limit for every puzzle of the count: the most any has left (a 9x9 count takes microseconds)
        count_limit = max(time_limit - float(used.min()), 0.0)
    began = time.perf_counter()
    undecided: list[int] = []
    stop = REASON_TIME_LIMIT  # why the count left a puzzle undecided
    try:
        run = search_batch(geometry, stack, limit=int(claimed.max()) + 1, keep=True, time_limit=count_limit)
    except (NativeInputError, ModelTooLarge, TimeLimitReached) as error:
        stop = f"{COUNT_CONFIRMER}: {error}"
        undecided = list(range(size))  # the extended CNF below, one by one
    else:
        seconds += run.seconds
        counts = run.counts.astype(np.int64)
        starts = np.cumsum(counts) - counts
        # Every grid of the count checked in one pass (the owner's givens kept, the rules held).
        sound = np.ones(size, dtype=bool)
        if len(run.solutions):
            ok = valid_completions(geometry, stack[run.owner], run.solutions)
            sound[np.unique(run.owner[~ok])] = False
        # The common case, a claim of one grid and a count of one: the same grid, all at once.
        single = sound & run.complete & (counts == 1) & (claimed == 1) & (held == 1)
        if single.any():
            blank = np.zeros(n * n, dtype=np.int16)
            firsts = np.stack([claim[0] if len(claim) else blank for claim in claims]).astype(np.int16)
            same = (run.solutions[starts[single]] == firsts[single]).all(axis=1)
            single[np.flatnonzero(single)[~same]] = False
        for k in np.flatnonzero(~single).tolist():
            if not sound[k]:
                refuted[k] = _wrong_grid(COUNT_CONFIRMER, finder, int(claimed[k]))
                continue
            theirs = run.solutions[starts[k] : starts[k] + counts[k]]
            verdict = _verdict(
                batch, k, theirs, int(counts[k]), bool(run.complete[k]), finder, COUNT_CONFIRMER
            )
            if verdict == "":
                undecided.append(k)
            elif verdict is not None:
                refuted[k] = verdict
    overhead = (time.perf_counter() - began - float(seconds.sum())) / size
    seconds += max(overhead, 0.0)
    for k in undecided:
        if held[k] < claimed[k]:  # a count without its grids: nothing to block on the CNF
            what = _claim_words(int(claimed[k]))
            unknown[k] = f"{stop} while confirming {finder}'s claim of {what} (a count without its grids)"
            continue
        t0 = time.perf_counter()
        if isinstance(time_limit, Deadline):
            deadline = time_limit
        else:  # the puzzle's own budget, less what the batch count spent on it
            deadline = Deadline(None if time_limit is None else max(time_limit - used[k] - seconds[k], 0.0))
        try:
            reason = confirm_no_more(
                Grid(geometry, stack[k].reshape(n, n)),
                list(claims[k]),
                deadline,
                claimant=None,
                name=name,
                finder=finder,
            )
        except BackendError as error:
            refuted[k] = str(error)
        else:
            if reason is not None:
                unknown[k] = reason
        seconds[k] += time.perf_counter() - t0
    return Confirmed(unknown, refuted, seconds)


#: Sides whose CNF without givens is kept in memory between calls (9x9: 12k clauses, 30 ms to build).
_CACHED_SIDE = 16


@functools.lru_cache(maxsize=4)
def _blank_clauses(geometry: Geometry) -> list[list[int]]:
    """The extended CNF of ``geometry`` without givens (read only: callers never change it)."""
    n = geometry.n
    return sudoku_cnf(Grid(geometry, np.zeros((n, n), dtype=np.int16))).clauses()


def confirm_cnf_counts(
    geometry: Geometry,
    givens: np.ndarray,
    found: Sequence[np.ndarray],
    time_limit: float | Deadline | None,
    *,
    name: str,
    finder: str,
    spent: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
) -> Confirmed:
    """Confirm B claims "puzzle k has exactly the solutions ``found[k]``" (as ``confirm_counts``;
    ``sizes``: the claimed counts where fewer grids are held) on the plain extended encoding.

    One incremental solver (``CONFIRM_SOLVER``) holds the CNF without givens; puzzle k is solved
    under its givens and a fresh activation literal as assumptions, its held grids blocked by
    clauses guarded by that literal, then each further model is checked, counted and blocked the
    same way until the solver says no more.  More distinct valid grids than claimed refutes the
    claim; fewer is a disagreement (refuted: neither count is taken); a wrong model of the
    solver refutes too (the confirmer's bug); a time limit or a CNF too large leaves it unknown.
    ``time_limit``: seconds for each puzzle, less its ``spent`` ones, or one ``Deadline`` for all.
    """
    from pysat.solvers import Solver  # imported on use: keeps python-sat out of `import sudoku_cp`

    n = geometry.n
    batch = _Claims.of(geometry, givens, found, spent, sizes, "confirm_cnf_counts")
    stack, claims, held, claimed, used = batch.stack, batch.claims, batch.held, batch.claimed, batch.used
    claims = [claim.astype(np.int64) for claim in claims]  # blocking clauses add to variable numbers
    size = len(stack)
    seconds = np.zeros(size)
    unknown: dict[int, str] = {}
    refuted: dict[int, str] = {}
    if not size:
        return Confirmed(unknown, refuted, seconds)
    began = time.perf_counter()
    try:
        if n <= _CACHED_SIDE:  # a one-puzzle solve would build it again every call
            clauses = _blank_clauses(geometry)
        else:
            clauses = sudoku_cnf(Grid(geometry, np.zeros((n, n), dtype=np.int16))).clauses()
    except ModelTooLarge as error:
        for k in range(size):
            unknown[k] = f"cannot confirm {finder}'s claim of {_claim_words(int(claimed[k]))}: {error}"
        return Confirmed(unknown, refuted, seconds + (time.perf_counter() - began) / size)
    cells = np.arange(n * n, dtype=np.int64) * n  # x(cell, digit) = cell * n + digit
    with Solver(name=CONFIRM_SOLVER, bootstrap_with=clauses) as solver:
        seconds += (time.perf_counter() - began) / size  # the shared load, in equal shares
        for k in range(size):
            t0 = time.perf_counter()
            if isinstance(time_limit, Deadline):
                deadline = time_limit
            else:  # the puzzle's own budget, less its claim's search and its share of the load
                left = None if time_limit is None else max(time_limit - used[k] - seconds[k], 0.0)
                deadline = Deadline(left)
            what = _claim_words(int(claimed[k]))
            row = stack[k].astype(np.int64)
            given = np.flatnonzero(row)
            blank = np.flatnonzero(row == 0)
            guard = n**3 + 1 + k  # fresh: no clause of the CNF or of another puzzle mentions it
            assumptions = (cells[given] + row[given]).tolist() + [guard]
            for grid in claims[k]:
                # Only open cells: the givens are assumed, so their literals add nothing.
                solver.add_clause([-guard, *(-(cells[blank] + grid[blank])).tolist()])
            extra = 0  # distinct models beyond the held grids
            while True:
                answer = solve_limited(solver, assumptions, deadline)
                if answer is None:
                    unknown[k] = f"{REASON_TIME_LIMIT} while confirming {finder}'s claim of {what}"
                    break
                if not answer:
                    if held[k] + extra != claimed[k]:
                        refuted[k] = (
                            f"pysat:{CONFIRM_SOLVER} counted {int(held[k]) + extra} solutions on the "
                            f"extended encoding where {finder} claimed {what}: they disagree, neither is "
                            "taken"
                        )
                    break
                model = np.asarray(solver.get_model(), dtype=np.int64)
                true = model[(model > 0) & (model <= n**3)] - 1
                values = np.zeros(n * n, dtype=np.int64)
                values[true // n] = true % n + 1
                grid = values.reshape(1, -1).astype(np.int16)
                if not valid_completions(geometry, stack[k : k + 1], grid)[0]:
                    refuted[k] = (
                        f"pysat:{CONFIRM_SOLVER} returned a wrong solution while confirming {finder}'s "
                        f"claim of {what}: not confirmed"
                    )
                    break
                extra += 1
                if held[k] + extra > claimed[k]:
                    refuted[k] = (
                        f"{finder} claimed {what} but pysat:{CONFIRM_SOLVER} found "
                        f"{'a' if not claimed[k] else 'another'} valid solution on the extended "
                        "encoding: the claim is wrong"
                    )
                    break
                solver.add_clause([-guard, *(-(cells[blank] + values[blank])).tolist()])
            solver.add_clause([-guard])  # retires this puzzle's blocking clauses for the rest
            seconds[k] += time.perf_counter() - t0
    return Confirmed(unknown, refuted, seconds)


def confirm_search_counts(
    geometry: Geometry,
    givens: np.ndarray,
    found: Sequence[np.ndarray],
    time_limit: float | Deadline | None,
    *,
    name: str,
    finder: str,
    spent: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
    searcher: Backend,
) -> Confirmed:
    """Confirm B claims "puzzle k has exactly the solutions ``found[k]``" (as ``confirm_counts``;
    ``sizes``: the claimed counts where fewer grids are held) by a second complete search of
    another implementation, ``searcher`` (the backtrack backend passes the pysat batch path's
    raw search; passed in, as pysat_batch itself imports this module) (``SEARCH_CONFIRMER``: numpy
    propagation of its own, then Minicard on a compact model; no code of the native count's).

    The whole batch is searched once, up to one more solution than the largest claim, each of its
    grids checked.  The same count and the same grids confirm a claim (two independent complete
    searches agree); a valid grid beyond the claim refutes it; another count is a disagreement
    naming both (refuted: neither is taken); a wrong grid of the confirmer's refutes too.  What it
    leaves undecided (a time limit, an error) goes to ``confirm_cnf_counts`` with what is left.
    ``time_limit``: seconds for each puzzle, less its ``spent`` ones, or one ``Deadline`` for all.
    """
    n = geometry.n
    batch = _Claims.of(geometry, givens, found, spent, sizes, "confirm_search_counts")
    stack, claims, held, claimed, used = batch.stack, batch.claims, batch.held, batch.claimed, batch.used
    size = len(stack)
    seconds = np.zeros(size)
    unknown: dict[int, str] = {}
    refuted: dict[int, str] = {}
    if not size:
        return Confirmed(unknown, refuted, seconds)
    search_limit: float | Deadline | None
    if time_limit is None or isinstance(time_limit, Deadline):
        search_limit = time_limit
    else:  # one limit for every puzzle of the search: the most any has left
        search_limit = max(time_limit - float(used.min()), 0.0)
    began = time.perf_counter()
    undecided: list[int] = []
    try:
        run = searcher.solve_arrays(
            geometry, stack, limit=int(claimed.max()) + 1, time_limit=search_limit, keep=True
        )
    except (ModelTooLarge, TimeLimitReached, BackendError):
        undecided = list(range(size))  # the extended CNF below
    else:
        seconds += np.asarray(run.seconds, dtype=np.float64)
        counts = np.asarray(run.counts, dtype=np.int64)
        # Every grid of the confirmer checked in one pass (the owner's givens kept, the rules held).
        sound = np.ones(size, dtype=bool)
        has = np.flatnonzero(counts > 0)
        if has.size:
            firsts = np.asarray(run.solutions)[has].astype(np.int16)
            ok = valid_completions(geometry, stack[has], firsts)
            sound[has[~ok]] = False
        for k, extra in run.more.items():
            if len(extra):
                sound[k] &= bool(
                    valid_completions(geometry, np.repeat(stack[k : k + 1], len(extra), 0), extra).all()
                )
        # The common case, one grid claimed and the same one grid found, all at once.
        single = sound & np.asarray(run.complete) & (counts == 1) & (claimed == 1) & (held == 1)
        if single.any():
            blank = np.zeros(n * n, dtype=np.int16)
            mine = np.stack([claim[0] if len(claim) else blank for claim in claims]).astype(np.int16)
            same = (np.asarray(run.solutions)[single] == mine[single]).all(axis=1)
            single[np.flatnonzero(single)[~same]] = False
        for k in np.flatnonzero(~single).tolist():
            if k in run.errors:
                undecided.append(k)
                continue
            if not sound[k]:
                refuted[k] = _wrong_grid(SEARCH_CONFIRMER, finder, int(claimed[k]))
                continue
            theirs = np.zeros((0, n * n), dtype=np.int16)
            if counts[k]:
                theirs = np.concatenate(
                    [np.asarray(run.solutions[k : k + 1]), np.asarray(run.more.get(k, theirs))]
                ).astype(np.int16)
            verdict = _verdict(
                batch, k, theirs, int(counts[k]), bool(run.complete[k]), finder, SEARCH_CONFIRMER
            )
            if verdict == "":
                undecided.append(k)
            elif verdict is not None:
                refuted[k] = verdict
    overhead = (time.perf_counter() - began - float(seconds.sum())) / size
    seconds += max(overhead, 0.0)
    if undecided:  # a third path for what the second left open, with what is left of the time
        rest = np.asarray(undecided, dtype=np.int64)
        later = confirm_cnf_counts(
            geometry,
            stack[rest],
            [claims[k] for k in undecided],
            time_limit,
            name=name,
            finder=finder,
            spent=used[rest] + seconds[rest],
            sizes=claimed[rest],
        )
        seconds[rest] += later.seconds
        unknown.update({int(rest[k]): why for k, why in later.unknown.items()})
        refuted.update({int(rest[k]): why for k, why in later.refuted.items()})
    return Confirmed(unknown, refuted, seconds)


def confirmed_answers(
    answers: BatchAnswers,
    givens: np.ndarray,
    limit: int,
    time_limit: float | Deadline | None,
    *,
    name: str,
    finder: str,
    seconds: np.ndarray | None = None,
    began: float | None = None,
    unsat: bool = True,
    by: Literal["count", "cnf"] | Callable[..., Confirmed] = "count",
) -> BatchAnswers:
    """An engine's raw ``answers`` for the (B, n*n) ``givens`` with every claim of exhaustion
    confirmed by ``confirm_counts``: "exactly these solutions" (unique under ``limit`` 2, an
    exact count below it) and, with ``unsat``, "no solution".  One not confirmed is unknown (its
    reason), one refuted an ``errors`` entry naming it; a puzzle that reached ``limit`` claims
    nothing beyond it (not complete).  ``seconds`` (B,), the time spent on each puzzle (default:
    the answers'), grows by the confirmation's and is the answers' seconds after; ``began``: when
    the claims' search started (its compiling is not charged to the confirmation's budget).  ``by``: the
    confirming path, ``count`` (``confirm_counts``, the native count), ``search``
    (``confirm_search_counts`` with its searcher bound, e.g. the pysat batch path's raw search
    for the native count's own claims) or ``cnf`` (``confirm_cnf_counts``, the extended CNF).
    """
    complete = np.asarray(answers.complete) & (np.asarray(answers.counts) < limit)
    spent = np.asarray(answers.seconds, dtype=np.float64).copy() if seconds is None else seconds
    # Compiling never counts against a time limit: what the claim's own search spent compiling
    # since ``began`` (its start, a time.monotonic() reading) is not taken from the confirmation's.
    compiled = 0.0 if began is None else compile_seconds_since(began)
    chosen = complete & (np.asarray(answers.counts) > 0 if not unsat else True)
    chosen[list(answers.errors)] = False
    claimed = np.flatnonzero(chosen)
    if not claimed.size:
        return replace(answers, complete=complete, seconds=spent)
    n2 = answers.geometry.n**2
    found = []
    for b in claimed.tolist():
        first = np.asarray(answers.solutions[b : b + 1]).reshape(-1, n2)
        held = bool(answers.counts[b]) and bool(first[0, 0])  # a count alone leaves zeros
        grids = first if held else first[:0]
        if held and b in answers.more:
            grids = np.concatenate([grids, np.asarray(answers.more[b]).reshape(-1, n2)])
        found.append(grids)
    confirm = by if callable(by) else {"cnf": confirm_cnf_counts, "count": confirm_counts}[by]
    verdicts = confirm(
        answers.geometry,
        np.asarray(givens).reshape(-1, n2)[claimed],
        found,
        time_limit,
        name=name,
        finder=finder,
        spent=np.maximum(spent[claimed] - compiled, 0.0),
        sizes=np.asarray(answers.counts)[claimed],
    )
    spent[claimed] += verdicts.seconds
    reasons, errors = dict(answers.reasons), dict(answers.errors)
    for k, why in verdicts.unknown.items():
        complete[claimed[k]] = False
        reasons[int(claimed[k])] = why
    rows = np.asarray(givens).reshape(-1, n2)
    for k, why in verdicts.refuted.items():
        b = int(claimed[k])
        complete[b] = False
        # A claim whose own grid is wrong is refuted for that: the choke point names the grid.
        if not len(found[k]) or refusal(answers.geometry, rows[b], found[k], name) is None:
            errors[b] = why
    return replace(answers, complete=complete, reasons=reasons, errors=errors, seconds=spent)


class ConfirmedOneByOne(OneByOne):
    """A one-puzzle-at-a-time backend whose claims of exhaustion ("no solution", "unique", an
    exact count) are confirmed by the native count (``confirmed_answers``): put first among the
    bases of a backend whose complete search is its own engine's word on its own model."""

    def solve_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
        keep: bool = True,
    ) -> BatchAnswers:
        """Raw answers of the next base, every claim of exhaustion confirmed by another path: a
        wrong "no more" leaves no grid for the checker to refuse."""
        began = time.monotonic()
        answers = super().solve_arrays(geometry, values, limit, time_limit, keep)
        return confirmed_answers(
            answers, values, limit, time_limit, name=self.name, finder=f"backend {self.name}", began=began
        )
