"""python-sat backends: any of its solvers by name, on a per-puzzle CNF, incrementally, or in batches.

* ``PysatBackend``: one puzzle, one solver on its CNF model (CaDiCaL 1.9.5 and the optimized
  encoding by default).
* ``IncrementalPysat``: one solver per geometry on the empty grid, puzzles under assumptions.
* The batch path (``PysatBatchBackend``, ``BatchPysat``) lives in ``pysat_batch``.

Time limits: one ``limits.Deadline`` per puzzle covers propagation, encoding, loading the
solver and the search.  The phases before the search check it as they go and stop with
``limits.TimeLimitReached`` (unknown, "time limit reached during propagation"); the search runs
through ``limits.solve_limited`` (a timer interrupts the solvers that can be interrupted; the
others, CaDiCaL 1.9.5 among them, run in slices of a conflict budget paced to the time left).
Either way an unfinished search is unknown (``outcome.REASON_TIME_LIMIT``), never unsatisfiable.
A CNF model too large for memory is refused before it is built (a ``BackendError`` naming its
estimated size), never a MemoryError.

Counting adds, after each model, a clause that blocks that model's grid variables only (not
auxiliary variables), so each grid is counted once whatever the at-most-one encoding.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from pysat.solvers import Solver

from ..cnf.sudoku import AmoEncoding, CnfEncoding, SudokuCnf, encode_cnf, encode_geometry_cnf
from ..cnf.varmap import GridVarMap
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from ..propagation import propagate
from ..sat_solvers import incremental, solver_names
from .base import BackendError, BatchAnswers, OneByOne, SearchResult, checked_answers, refusal, stopped
from .confirm import confirm_counts, confirmed_answers

if TYPE_CHECKING:  # multiprocessing is imported when a portfolio starts, not with the backend
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = [
    "BATCH_SOLVER",
    "BIG_OPTIONS",
    "BIG_SIDE",
    "DEFAULT_SOLVER",
    "IncrementalPysat",
    "PysatBackend",
    "pysat_solver_names",
    "solver_options",
]

DEFAULT_SOLVER = "cadical195"
BATCH_SOLVER = "minicard"


def pysat_solver_names() -> list[str]:
    """Every solver name (and alias) python-sat accepts."""
    return solver_names()


def check_solver_name(name: str, *, incremental_only: bool = False) -> str:
    """``name`` when python-sat has that solver (and, with ``incremental_only``, when it can take
    clauses after a solve and assumptions); BackendError otherwise."""
    if name not in solver_names():
        raise BackendError(f"unknown pysat solver {name!r}; choose from {', '.join(solver_names())}")
    if incremental_only and not incremental(name):
        raise BackendError(
            f"pysat:{name} solves a formula once (no clauses after a solve, no assumptions), which "
            "this batch path needs; use it one puzzle at a time, or choose another solver"
        )
    return name


def _stats(solver: Solver) -> dict[str, int]:
    """The solver's running totals where it reports them (python-sat's kissat does not)."""
    try:
        return dict(solver.accum_stats() or {})
    except NotImplementedError:
        return {}


def _enumerate_anew(
    name: str, options: dict[str, int], cnf: SudokuCnf, limit: int, deadline: Deadline
) -> tuple[list[np.ndarray], bool, str | None, dict[str, int]]:
    """``_enumerate`` for a solver that solves once: a new solver per model, given the model's
    clauses and every blocking clause so far: (solutions, complete, reason, stats)."""
    solutions: list[np.ndarray] = []
    blocks: list[list[int]] = []
    stats: dict[str, int] = {}
    while True:
        with Solver(name=name) as solver:
            _configure(solver, options)
            try:
                _load_clauses(solver, cnf, deadline)
            except TimeLimitReached:
                return solutions, False, REASON_TIME_LIMIT, stats
            solver.append_formula(blocks)
            found, complete, reason = _enumerate(solver, cnf.varmap, 1, deadline)
            for key, value in _stats(solver).items():
                stats[key] = stats.get(key, 0) + value
        if not found:
            return solutions, complete, reason, stats
        solutions.append(found[0])
        block = (-cnf.varmap.solution_literals(found[0])).tolist()
        if len(solutions) >= limit:
            return solutions, False, None, stats
        if not block:  # no open variable: this was the only model
            return solutions, True, None, stats
        blocks.append(block)


def _enumerate(
    solver: Solver,
    varmap: GridVarMap,
    limit: int,
    deadline: Deadline,
    assumptions: Sequence[int] = (),
    activation: int = 0,
) -> tuple[list[np.ndarray], bool, str | None]:
    """Models of the grid variables, blocked one by one: (solutions, complete, reason)."""
    solutions: list[np.ndarray] = []
    while len(solutions) < limit:
        answer = solve_limited(solver, list(assumptions) + ([activation] if activation else []), deadline)
        if answer is None:
            return solutions, False, REASON_TIME_LIMIT
        if not answer:
            return solutions, True, None
        values = varmap.decode(solver.get_model())
        solutions.append(values)
        if len(solutions) >= limit:  # no block: in a shared solver it would hide this grid for good
            break
        block = (-varmap.solution_literals(values)).tolist()
        if not block:  # no open variable: this was the only model
            return solutions, True, None
        solver.add_clause(block + ([-activation] if activation else []))
    return solutions, False, None


class PysatBackend(OneByOne):
    """A python-sat solver on the CNF model of each puzzle (optimized encoding by default).

    Grids of side ``BIG_SIDE`` and more are searched by a portfolio (``_portfolio``): one child
    process per core (two at most), each the same solver with its ``BIG_OPTIONS`` on the same model,
    its grid variables numbered differently; the first to finish answers, the others are
    stopped.  Their run times vary several-fold with the numbering alone on hard big grids.
    """

    def __init__(
        self,
        solver: str = DEFAULT_SOLVER,
        encoding: CnfEncoding = CnfEncoding.OPTIMIZED,
        amo: AmoEncoding = AmoEncoding.PAIRWISE,
        *,
        workers: int | None = None,
    ) -> None:
        """``workers``: processes of the big-grid portfolio (None: one per core, two at most)."""
        self.solver = check_solver_name(solver)
        self.encoding = encoding
        self.amo = amo
        self.workers = workers
        self.name = f"pysat:{solver}"

    def encode(self, puzzle: Grid, deadline: Deadline | None = None) -> SudokuCnf:
        """The CNF model this backend solves (``BackendError`` when it cannot fit in memory)."""
        try:
            return encode_cnf(puzzle, self.encoding, self.amo, deadline=deadline, use="solve")
        except ModelTooLarge as error:
            raise BackendError(f"{self.name}: {error}") from None

    def search_one(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> SearchResult:
        """Raw: up to ``limit`` solutions with the chosen solver."""
        deadline = Deadline(time_limit)
        try:
            cnf = self.encode(puzzle, deadline)
        except TimeLimitReached as stop:
            return stopped(puzzle.n, str(stop))
        stats: dict[str, float | int] = {"variables": cnf.n_vars, "clauses": cnf.n_clauses}
        found: list[np.ndarray] = []
        complete, reason = True, None
        if not cnf.contradiction:
            found, complete, reason = self._searched(puzzle, cnf, limit, deadline, stats)
        if complete:
            complete, reason = self._confirmed(
                puzzle, found, deadline, "the propagation of its model" if cnf.contradiction else "its search"
            )
        return _result(puzzle, found, complete, reason, keep, self.name, stats)

    def _searched(
        self, puzzle: Grid, cnf: SudokuCnf, limit: int, deadline: Deadline, stats: dict[str, float | int]
    ) -> tuple[list[np.ndarray], bool, str | None]:
        """Up to ``limit`` solutions of ``cnf`` (raw): (solutions, complete, reason); ``stats`` updated."""
        options = [solver_options(self.solver, puzzle.n, worker) for worker in range(2)]
        workers = _portfolio_size(self.workers) if puzzle.n >= BIG_SIDE and cnf.n_vars else 1
        if not incremental(self.solver):
            found, complete, reason, totals = _enumerate_anew(self.solver, options[0], cnf, limit, deadline)
            stats.update(totals)
            return found, complete, reason
        if workers > 1:
            found, complete, reason, solver_stats = _portfolio(
                cnf, self.solver, options, limit, deadline, workers
            )
            stats.update(solver_stats)
            return found, complete, reason
        with Solver(name=self.solver) as solver:
            _configure(solver, options[0])
            try:
                _load_clauses(solver, cnf, deadline)
            except TimeLimitReached as stop:
                return [], False, str(stop)
            found, complete, reason = _enumerate(solver, cnf.varmap, limit, deadline)
            stats.update(_stats(solver))
        return found, complete, reason

    def _confirmed(
        self, puzzle: Grid, found: list[np.ndarray], deadline: Deadline, what: str
    ) -> tuple[bool, str | None]:
        """(complete, reason) once the claim "exactly the solutions ``found``" (none: no solution;
        one: unique) of ``what`` of ours is confirmed by another path (``confirm.confirm_counts``:
        the native count, else the extended CNF); a refuted claim is a BackendError naming it.

        The claim rests on this model (our encoding, its propagation) and this solver alone, and a
        wrong "no more" leaves no grid for the checker to refuse.  Solutions that are not valid
        are the checker's to refuse: they are not confirmed here (the choke point reports them).
        """
        n = puzzle.n
        stack = np.stack(found).reshape(-1, n * n) if found else np.zeros((0, n * n), np.int16)
        if len(stack) and refusal(puzzle.geometry, puzzle.values.reshape(-1), stack, self.name) is not None:
            return True, None
        verdict = confirm_counts(
            puzzle.geometry,
            puzzle.values.reshape(1, -1),
            [stack],
            deadline,
            name=self.name,
            finder=f"{self.name} ({what} on the {self.encoding.value} model)",
        )
        if 0 in verdict.refuted:
            raise BackendError(verdict.refuted[0])
        if 0 in verdict.unknown:
            return False, verdict.unknown[0]
        return True, None


BIG_SIDE = 25
"""Grids of this side and more are searched by the portfolio, with ``BIG_OPTIONS``."""
BIG_OPTIONS: dict[str, tuple[dict[str, int], ...]] = {
    "cadical195": ({"stabilizeonly": 1}, {"stabilizeonly": 1, "phase": 0}),
}
"""Solver options on big grids, by solver, for the portfolio's workers in turn: CaDiCaL only in
stable mode (target phases, reluctant restarts), the second worker also deciding 'false' first.

On the hard 64x64 grid of the shared corpus, over eight variable numberings each, stable mode
takes 17-18 CPU seconds on average (median 16, 4 to 36) where CaDiCaL's defaults take 27
(benchmarks/README.md, "Big grids"); deciding 'false' first changes the spread, not the mean."""


def solver_options(solver: str, side: int, worker: int = 0) -> dict[str, int]:
    """The options ``solver`` gets on a grid of this side in the portfolio's worker ``worker``
    (none below ``BIG_SIDE``)."""
    choices = BIG_OPTIONS.get(solver, ()) if side >= BIG_SIDE else ()
    return dict(choices[worker % len(choices)]) if choices else {}


def _configure(solver: Solver, options: dict[str, int]) -> None:
    """Set solver options (CaDiCaL's, by name) before any clause is added."""
    if options:
        solver.solver.configure(options)


_FREE_SECONDS = 1.2e-7
"""Seconds to free one loaded clause when the solver is deleted (CaDiCaL 1.9.5; others take less)."""


def _load_clauses(solver: Solver, cnf: SudokuCnf, deadline: Deadline) -> None:
    """Give a solver every clause of ``cnf``, a chunk at a time, within the deadline ("encoding").

    Loading stops while there is still time to free what was loaded (a few million clauses take
    a few tenths of a second to delete).
    """
    clauses = cnf.clauses()
    loaded = 0
    while chunk := list(itertools.islice(clauses, 1 << 16)):
        left = deadline.remaining()
        if left is not None and left <= loaded * _FREE_SECONDS:
            raise TimeLimitReached("encoding")
        solver.append_formula(chunk)
        loaded += len(chunk)


def _portfolio_size(workers: int | None) -> int:
    """Processes for the portfolio: as asked, else one per core (two at most); one inside a
    process that multiprocessing started (a worker of ``--jobs`` or of a cluster): the batch's
    processes already share the cores."""
    import multiprocessing

    if multiprocessing.parent_process() is not None or multiprocessing.current_process().daemon:
        return 1
    if workers is not None:
        return max(1, workers)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return min(2, cores)


def _numbering(cnf: SudokuCnf, seed: int) -> np.ndarray | None:
    """A renumbering of the grid variables (index: old variable, value: new; auxiliaries kept),
    random for ``seed`` > 0, None (as encoded) for 0."""
    if seed == 0:
        return None
    grid_vars = cnf.varmap.n_grid_vars
    mapping = np.arange(cnf.n_vars + 1, dtype=np.int64)
    mapping[1 : grid_vars + 1] = np.random.default_rng(seed).permutation(grid_vars) + 1
    return mapping


def _renumber(block: np.ndarray, mapping: np.ndarray | None) -> np.ndarray:
    """Clauses with each literal's variable renumbered, signs kept."""
    if mapping is None:
        return block
    return np.sign(block) * mapping[np.abs(block)]


def _worker(
    conn: Connection, cnf: SudokuCnf, name: str, options: dict[str, int], seed: int, limit: int
) -> None:
    """A portfolio member: solve ``cnf`` (renumbered by ``seed``) and send each solution grid as it is
    found, then ('done', complete, stats); ('error', text) when something fails."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C and stops its workers
    try:
        mapping = _numbering(cnf, seed)
        back = None
        if mapping is not None:
            back = np.empty_like(mapping)
            back[mapping] = np.arange(mapping.size)
        with Solver(name=name) as solver:
            _configure(solver, options)
            for block in cnf.blocks():
                solver.append_formula(_renumber(block, mapping).tolist())
            found = 0
            complete = False
            while found < limit:
                if not solver.solve():
                    complete = True
                    break
                model = np.asarray(solver.get_model(), dtype=np.int64)
                values = cnf.varmap.decode(_renumber(model, back))
                conn.send(("solution", values))
                found += 1
                block = -cnf.varmap.solution_literals(values)
                if not block.size:  # no open variable: this was the only model
                    complete = True
                    break
                if found < limit:
                    solver.add_clause(_renumber(block, mapping).tolist())
            conn.send(("done", complete, _stats(solver)))
    except Exception as error:  # reported to the parent, which names the solver
        conn.send(("error", f"{type(error).__name__}: {error}"))
    finally:
        conn.close()


_LONGEST_WAIT = 86400.0
"""Seconds waited for a worker at a time (a limit of centuries would overflow the wait's timer)."""


def _portfolio(
    cnf: SudokuCnf,
    name: str,
    options: Sequence[dict[str, int]],
    limit: int,
    deadline: Deadline,
    workers: int,
) -> tuple[list[np.ndarray], bool, str | None, dict[str, float | int]]:
    """Solve ``cnf`` in ``workers`` child processes at once: (solutions, complete, reason, stats) of
    the first to finish; at the deadline, the solutions of the one that found most, unknown.

    Children are forked (they share the model's arrays), and killed as soon as one answers, at the
    deadline, or when the caller is interrupted.
    """
    import multiprocessing
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")
    members: dict[Connection, tuple[int, BaseProcess]] = {}
    found: dict[int, list[np.ndarray]] = {}
    failures: list[str] = []
    try:
        for seed in range(workers):
            receive, send = context.Pipe(duplex=False)
            process = context.Process(
                target=_worker,
                args=(send, cnf, name, options[seed % len(options)], seed, limit),
                daemon=True,
            )
            process.start()
            send.close()
            members[receive] = (seed, process)
            found[seed] = []
        live = list(members)
        while live:
            left = deadline.remaining()
            ready = wait(live, timeout=None if left is None or left > _LONGEST_WAIT else left)
            if not ready and deadline.expired():
                best = max(found.values(), key=len)
                return best, False, REASON_TIME_LIMIT, {"portfolio": workers}
            for item in ready:
                conn = cast("Connection", item)
                seed = members[conn][0]
                try:
                    message: Any = conn.recv()
                except EOFError:  # the child died without a word (killed, out of memory)
                    live.remove(conn)
                    failures.append(f"worker {seed} ended with exit code {members[conn][1].exitcode}")
                    continue
                if message[0] == "solution":
                    found[seed].append(message[1])
                elif message[0] == "done":
                    stats = {"portfolio": workers, "winner": seed, **message[2]}
                    return found[seed], bool(message[1]), None, stats
                else:
                    live.remove(conn)
                    failures.append(f"worker {seed}: {message[1]}")
        raise BackendError(f"pysat:{name} portfolio failed: {'; '.join(failures)}")
    finally:
        for conn, (_, member) in members.items():
            if member.is_alive():
                member.kill()
            member.join()
            conn.close()


def _result(
    puzzle: Grid,
    found: list[np.ndarray],
    complete: bool,
    reason: str | None,
    keep: bool,
    name: str,
    stats: dict[str, float | int],
) -> SearchResult:
    """Raw: the grids found (all of them with ``keep``); a count alone is checked here, since its
    grids are not returned to be checked by ``base.checked_answers``."""
    n = puzzle.n
    stack = np.stack(found) if found else np.zeros((0, n, n), dtype=np.int16)
    if keep:
        return SearchResult(stack, complete, stats=stats, reason=reason)
    if len(stack):
        problem = refusal(puzzle.geometry, puzzle.values.reshape(-1), stack, name)
        if problem is not None:
            raise BackendError(problem)
    return SearchResult(stack[:0], complete, count=len(stack), stats=stats, reason=reason)


class IncrementalPysat:
    """One solver per geometry holding the extended encoding of the empty grid.

    Each puzzle is solved under assumptions: the digits that singles propagation placed.
    Blocking clauses carry a per-puzzle activation literal, retired after the puzzle, so the
    shared formula never changes meaning.
    """

    def __init__(self, geometry: Geometry, solver: str = DEFAULT_SOLVER) -> None:
        self.geometry = geometry
        self.name = f"pysat:{check_solver_name(solver, incremental_only=True)}"
        self._cnf = encode_geometry_cnf(Grid.empty(geometry))
        self._solver = Solver(name=solver, bootstrap_with=self._cnf.clauses())
        self._next_var = self._cnf.n_vars + 1

    def close(self) -> None:
        """Free the native solver."""
        self._solver.delete()

    def accum_stats(self) -> dict[str, int]:
        """The solver's running totals (conflicts, decisions, ...) where it reports them."""
        return _stats(self._solver)

    def __enter__(self) -> IncrementalPysat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(
        self,
        puzzle: Grid,
        limit: int = 1,
        time_limit: float | None = None,
        keep: bool = True,
        placed: np.ndarray | None = None,
    ) -> SearchResult:
        """Up to ``limit`` checked solutions (``base.checked_answers``); ``placed`` may carry an earlier
        propagation of the puzzle.  Its "no solution", "unique" and exact-count claims are this
        solver's word on its own formula: confirmed as every backend's (``confirm.confirmed_answers``,
        the native count, else the extended CNF), refuted an error, unconfirmed unknown."""
        deadline = Deadline(time_limit)  # the search and its confirmation share the budget
        found = self._search(puzzle, limit, deadline.remaining(), keep, placed)
        values = puzzle.values.reshape(1, -1)
        answers = confirmed_answers(
            BatchAnswers.of_results(self.geometry, [found]),
            values,
            limit,
            deadline,
            name=self.name,
            finder=f"the incremental solver {self.name}",
        )
        answers = checked_answers(self.name, self.geometry, values, answers, keep)
        if 0 in answers.errors:
            raise BackendError(answers.errors[0])
        return answers.result(0)

    def _search(
        self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool, placed: np.ndarray | None
    ) -> SearchResult:
        if puzzle.geometry != self.geometry:
            raise BackendError(f"incremental solver is for {self.geometry.box_label} boxes")
        deadline = Deadline(time_limit)
        if placed is None:
            try:
                state = propagate(puzzle, deadline=deadline)
            except TimeLimitReached as stop:
                return stopped(puzzle.n, str(stop))
            if state.contradiction[0]:
                return _result(puzzle, [], True, None, keep, self.name, {})
            placed = state.values[0]
        cells = np.flatnonzero(placed)
        assumptions = self._cnf.varmap.index[cells, placed[cells].astype(np.int64) - 1].tolist()
        if len(cells) == placed.size:  # propagation alone solved it: the solution is forced
            return _result(puzzle, [placed.reshape(puzzle.n, puzzle.n)], True, None, keep, self.name, {})
        activation = 0
        if limit > 1:
            activation = self._next_var
            self._next_var += 1
        found, complete, reason = _enumerate(
            self._solver, self._cnf.varmap, limit, deadline, assumptions, activation
        )
        if activation:
            self._solver.add_clause([-activation])
        return _result(puzzle, found, complete, reason, keep, self.name, {})
