"""Another engine's deduction steps checked by SAT: every claim must hold in every solution.

A step log (``steplog``) claims placements ("R r C c = d") and eliminations ("d is not at R r C
c"), step by step, and may state the candidates left between steps.  Each claim is judged against
the puzzle's solutions, never against the steps before it: a placement is sound when no solution
has another digit in its cell, an elimination when no solution has its digit there, and a
candidate list that leaves out a digit the claims so far keep is an elimination claimed as well.
On a puzzle with no solution every claim holds (vacuously); on a unique one soundness is a
comparison with the solution; with several solutions a claim true in some but not all is unsound.

Two checks, in step order:

* **consistency** (no solver): a claim may not contradict the givens or an earlier claim, by
  the rules of Sudoku alone: no placement of a digit that an earlier claim (or a given, or a
  placement in a peer cell) removed, no second digit in a cell, no elimination of a placed digit,
  no candidate list that keeps a removed digit.  The first such claim makes the log
  ``inconsistent`` at its step;
* **soundness** (SAT): up to 16x16 one python-sat solver per box shape holds the extended
  encoding of the empty grid (``cnf.sudoku.encode_cnf``) and a puzzle is its givens as
  assumptions; larger puzzles get a solver each, givens as unit clauses.  Up to two solutions
  are found first (each passed through the independent checker), and every claim is compared
  with them at once (numpy); when the puzzle is unique (or has no solution) that decides all
  claims.  With several solutions, or when the search was cut short, the claims before the first
  one a known solution contradicts are searched in halves (``limits.solve_limited``): one solve
  asks whether a solution contradicts any claim of a range, so that all-sound takes one call and
  the first unsound claim about log2(claims); a satisfiable answer's model (checked) is the
  contradicting solution.

The first step that fails either check is reported, with its claim and, when unsound, the
solution it contradicts; a step that is inconsistent and unsound counts as inconsistent.  A
solve the time limit stops leaves its claim undecided: the log is ``unknown`` unless a later step
is shown unsound, never ``unsound`` for want of time.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

import numpy as np

from ..checker import check_solution, given_conflict
from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from ..cnf.varmap import GridVarMap
from ..errors import SudokuCpError
from ..formats import format_line
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, Sigint, TimeLimitReached, solve_limited
from ..outcome import REASON_TIME_LIMIT
from .steplog import StepLog

__all__ = ["PLACEMENT", "ELIMINATION", "OMITTED", "StepVerdict", "StepsResult", "check_step_logs"]

#: Claim kinds, as the JSON names them: a placement, an elimination, a digit a candidate list omits.
PLACEMENT, ELIMINATION, OMITTED = "placement", "elimination", "omitted"
_KINDS = (PLACEMENT, ELIMINATION, OMITTED)

_SOLVER = "cadical195"  # refutes a 9x9 candidate in microseconds once loaded (as deduction.proof)
_PAIRWISE_SIDE = 16  # pairwise at-most-one up to 16x16; a sequential counter above keeps models small
# Up to 16x16 one solver per box shape takes every puzzle's givens as assumptions (22 times less
# work than a model per puzzle on 9x9 corpora: encoding dominates); above, a model per puzzle with
# its givens as unit clauses (CaDiCaL solves a 25x25 puzzle in 0.5 s so, 7 s under assumptions).
_SHARED_SIDE = 16
_LOADING = "loading the SAT solver"


class StepVerdict(Enum):
    """What the check says about one puzzle's log."""

    SOUND = "sound"  # every claim holds in every solution, and none contradicts another
    UNSOUND = "unsound"  # a claim fails in a solution of the puzzle (shown)
    INCONSISTENT = "inconsistent"  # a claim contradicts the givens or an earlier claim
    UNKNOWN = "unknown"  # the time limit (or a model too big) left a claim undecided
    INVALID = "invalid"  # the puzzle's corpus line is unreadable


@dataclass(frozen=True, slots=True, eq=False)
class StepsResult:
    """The check of one log.  ``step`` (1-based; steps + 1: the candidates after the last step),
    ``kind`` and ``claim`` ((row, column, digit), 1-based) name the first failing claim, or the
    first undecided one; ``solution``: the solution an unsound claim contradicts (checked);
    ``solutions``: 0, 1 or 2 (two or more), None when undecided."""

    index: int
    line: int
    verdict: StepVerdict
    box: str | None = None
    steps: int = 0
    claims: int = 0
    solutions: int | None = None
    step: int | None = None
    step_line: int | None = None
    rule: str | None = None
    kind: str | None = None
    claim: tuple[int, int, int] | None = None
    solution: Grid | None = None
    detail: str = ""
    sat_calls: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        """index (0-based), line (of the log), verdict, box, steps, claims, solutions, then the failing
        step (1-based), its line, rule, kind, claim [row, column, digit] and the solution (one line)."""
        obj: dict[str, object] = {
            "index": self.index,
            "line": self.line,
            "verdict": self.verdict.value,
            "box": self.box,
            "steps": self.steps,
            "claims": self.claims,
            "solutions": self.solutions,
        }
        if self.step is not None:
            obj.update(step=self.step, step_line=self.step_line, rule=self.rule or None, kind=self.kind)
            obj["claim"] = list(self.claim) if self.claim is not None else None
        if self.solution is not None:
            obj["solution"] = format_line(self.solution)
        obj.update(detail=self.detail, sat_calls=self.sat_calls, seconds=round(self.seconds, 6))
        return obj

    def text(self) -> str:
        """One line: '#1 line 3: sound: 57 steps, 312 claims (unique solution)' and the like."""
        head = f"#{self.index + 1} line {self.line}: {self.verdict.value}"
        if self.step is None:
            return f"{head}: {self.detail}"
        where = "after the last step" if self.step > self.steps else f"at step {self.step}"
        named = ", ".join(x for x in (self.rule or "", f"line {self.step_line}") if x)
        shown = f": {format_line(self.solution)}" if self.solution is not None else ""
        return f"{head} {where} ({named}): {self.detail}{shown}"


# ----------------------------------------------------------------------------------- consistency


@dataclass(frozen=True, slots=True)
class _Claims:
    """A log's claims in order as arrays: the step (0-based; steps: after the last), kind (index
    into ``_KINDS``), cell, digit; and the first inconsistency (its step, claim row, message)."""

    step: np.ndarray
    kind: np.ndarray
    cell: np.ndarray
    digit: np.ndarray
    inconsistent: tuple[int, tuple[int, int, int], str] | None


class _Inconsistent(Exception):
    def __init__(self, kind: int, cell: int, digit: int, message: str) -> None:
        super().__init__(message)
        self.claim = (kind, cell, digit)


_AROUND_SIDE = 64  # up to this side each cell's units are tabled once (6 MB at 64x64)


def _consistency(log: StepLog) -> _Claims:
    """Walk the log's steps keeping the candidates its claims leave (Sudoku's rules applied to
    every given and placement); collect every claim, stop at the first contradiction."""
    puzzle = log.puzzle
    assert puzzle is not None
    g = puzzle.geometry
    n = g.n
    units, cell_units = g.units, g.cell_units
    around = units[cell_units].reshape(n * n, 3 * n) if n <= _AROUND_SIDE else None
    values = puzzle.values.reshape(-1).astype(np.int64)
    given = np.flatnonzero(values)
    digit = values[given] - 1
    seen = np.zeros((3 * n, n), dtype=bool)
    seen[cell_units[given], digit[:, None]] = True
    cand = ~(seen[cell_units[:, 0]] | seen[cell_units[:, 1]] | seen[cell_units[:, 2]])
    cand[given] = False
    cand[given, digit] = True
    placed = values - 1  # the digit of each filled cell, -1 for an open one
    placed_by = np.full(n * n, -1, dtype=np.int64)  # the step that placed it (-1: a given)
    checks = {check.position: check for check in log.checks}
    rows: list[tuple[int, int, np.ndarray, np.ndarray]] = []  # (step, kind, cells, digits) in order

    def who(step: int, by: int) -> str:
        return "the givens" if by < 0 else ("this step" if by == step else f"step {by + 1}")

    def remover(cell: int, d: int) -> int:
        """The first step whose claims removed candidate (cell, d), -1 for the givens (looked up
        only for a message: the walk itself keeps no such table)."""
        mates = units[cell_units[cell]].reshape(-1)
        for step, kind, cells, digits in rows:
            if kind == 0:
                hit = ((cells == cell) & (digits != d)) | (
                    (digits == d) & (cells != cell) & np.isin(cells, mates)
                )
            else:
                hit = (cells == cell) & (digits == d)
            if hit.any():
                return step
        return -1

    def holder(cell: int, step: int) -> str:
        return "a given" if placed_by[cell] < 0 else who(step, int(placed_by[cell]))

    def place(step: int, cell: int, d: int) -> None:
        if placed[cell] == d:
            return  # said again: nothing new
        name = g.cell_name(cell)
        if placed[cell] >= 0:
            held = f"{placed[cell] + 1} ({holder(cell, step)})"
            raise _Inconsistent(0, cell, d, f"places {d + 1} at {name}, which holds {held}")
        if not cand[cell, d]:
            by = who(step, remover(cell, d))
            raise _Inconsistent(0, cell, d, f"places {d + 1} at {name}, which {by} ruled out")
        cand[around[cell] if around is not None else units[cell_units[cell]].reshape(-1), d] = False
        cand[cell] = False
        cand[cell, d] = True
        placed[cell] = d
        placed_by[cell] = step

    def eliminate(step: int, cells: np.ndarray, digits: np.ndarray, kind: int) -> None:
        bad = np.flatnonzero(placed[cells] == digits)
        if bad.size:
            cell, d = int(cells[bad[0]]), int(digits[bad[0]])
            verb = "removes" if kind == 1 else "the candidates omit"
            message = f"{verb} {d + 1} from {g.cell_name(cell)}, which holds it ({holder(cell, step)})"
            raise _Inconsistent(kind, cell, d, message)
        cand[cells, digits] = False

    def stated(step: int, listed: np.ndarray) -> None:
        """A candidate list: keeps nothing removed; what it leaves out (open cells) is claimed."""
        open_ = placed < 0
        kept = listed & ~cand
        kept[~open_] &= np.arange(n)[None, :] != placed[~open_, None]  # a filled cell may list its digit
        bad = np.argwhere(kept)
        if bad.size:
            cell, d = int(bad[0, 0]), int(bad[0, 1])
            name = g.cell_name(cell)
            if placed[cell] >= 0:
                message = f"the candidates list {d + 1} at {name}, which holds {placed[cell] + 1}"
            else:
                message = (
                    f"the candidates keep {d + 1} at {name}, which {who(step, remover(cell, d))} removed"
                )
            raise _Inconsistent(2, cell, d, message)
        omitted = np.argwhere(cand & ~listed & open_[:, None])
        if omitted.size:
            rows.append((step, 2, omitted[:, 0], omitted[:, 1]))
            eliminate(step, omitted[:, 0], omitted[:, 1], 2)

    inconsistent = None
    by_step = log.step_claims()
    for position in range(log.steps + 1):
        try:
            if position in checks:
                stated(position, checks[position].candidates)
            if position == log.steps:
                break
            placements, eliminations = by_step[position]
            if len(placements):
                rows.append((position, 0, placements[:, 0], placements[:, 1]))
                for cell, d in placements.tolist():
                    place(position, cell, d)
            if len(eliminations):
                rows.append((position, 1, eliminations[:, 0], eliminations[:, 1]))
                eliminate(position, eliminations[:, 0], eliminations[:, 1], 1)
        except _Inconsistent as stop:
            kind, cell, d = stop.claim
            inconsistent = (position, (kind, cell, d), str(stop))
            break
    if rows:
        sizes = [len(c) for _, _, c, _ in rows]
        steps = np.repeat(np.array([s for s, _, _, _ in rows], dtype=np.int64), sizes)
        kinds = np.repeat(np.array([k for _, k, _, _ in rows], dtype=np.int64), sizes)
        cells = np.concatenate([c for _, _, c, _ in rows]).astype(np.int64)
        digits = np.concatenate([d for _, _, _, d in rows]).astype(np.int64)
    else:
        steps = kinds = cells = digits = np.zeros(0, dtype=np.int64)
    return _Claims(steps, kinds, cells, digits, inconsistent)


# ------------------------------------------------------------------------------------------- SAT


class _Oracle:
    """One incremental solver holding the extended encoding of ``grid``: a box shape's empty grid
    (a puzzle is then its givens as assumptions) or one puzzle (givens as unit clauses).  A
    solution or a range of claims is asked about under a guard literal, retired after it."""

    def __init__(self, grid: Grid, deadline: Deadline) -> None:
        from pysat.solvers import Solver  # imported on use: keeps python-sat out of `import sudoku_cp`

        amo = AmoEncoding.PAIRWISE if grid.n <= _PAIRWISE_SIDE else AmoEncoding.SEQCOUNTER
        cnf = encode_cnf(grid, CnfEncoding.EXTENDED, amo, deadline=deadline, use="solve")
        self.varmap = cnf.varmap
        self._top = cnf.n_vars
        self.solver: Any = Solver(name=_SOLVER)
        self.calls = 0
        try:
            for block in cnf.blocks():
                deadline.check(_LOADING)
                self.solver.append_formula(block.tolist())
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Free the native solver (idempotent)."""
        solver, self.solver = self.solver, None
        if solver is not None:
            solver.delete()

    def solve(self, assumptions: list[int], deadline: Deadline) -> bool | None:
        """SAT under assumptions before the deadline: True, False or None (unknown)."""
        self.calls += 1
        return solve_limited(self.solver, assumptions, deadline)

    def model(self, puzzle: Grid) -> Grid:
        """The last model as a grid, passed through the independent checker."""
        values = self.varmap.decode(self.solver.get_model())
        return check_solution(puzzle, puzzle.with_values(values))

    def guard_clause(self, clause: list[int]) -> int:
        """A fresh literal that, assumed, makes ``clause`` hold; retire it with ``retire``."""
        self._top += 1
        self.solver.add_clause([-self._top, *clause])
        return self._top

    def guard(self, solution: Grid) -> int:
        """A fresh literal that, assumed, blocks ``solution``; retire it with ``retire``."""
        cells = np.arange(solution.n * solution.n)
        lits = self.varmap.index[cells, solution.values.reshape(-1).astype(np.int64) - 1]
        return self.guard_clause([-int(v) for v in lits])

    def retire(self, guard: int) -> None:
        """The guard's blocking clause goes dead: the formula keeps its meaning for later puzzles."""
        self.solver.add_clause([-guard])


def _literals(varmap: GridVarMap, cells: np.ndarray, digits: np.ndarray) -> np.ndarray:
    """The variables of candidates (cell, digit), 0-based."""
    return np.asarray(varmap.index[cells, digits], dtype=np.int64)


@dataclass(slots=True)
class _Truth:
    solutions: list[Grid]
    complete: bool  # no solution beyond these (0 or 1 of them): they decide every claim
    reason: str = ""


def _truth(oracle: _Oracle, puzzle: Grid, givens: list[int], deadline: Deadline) -> _Truth:
    """Up to two solutions of the puzzle; complete when it has none or exactly one."""
    first = oracle.solve(givens, deadline)
    if first is None:
        return _Truth([], False, REASON_TIME_LIMIT)
    if first is False:
        return _Truth([], True)
    one = oracle.model(puzzle)
    guard = oracle.guard(one)
    try:
        second = oracle.solve([*givens, guard], deadline)
        if second is True:
            return _Truth([one, oracle.model(puzzle)], False)
    finally:
        oracle.retire(guard)
    return _Truth([one], second is False, REASON_TIME_LIMIT if second is None else "")


# ----------------------------------------------------------------------------------------- check


def check_step_logs(
    logs: Iterable[StepLog], *, time_limit: float | None = None
) -> Generator[StepsResult, None, None]:
    """Check every log (consistency, then soundness by SAT), one result per log, in order.

    ``time_limit``: seconds per log (None or inf: none); a claim it leaves undecided makes the
    log unknown.  One SAT solver per box shape (up to 16x16) serves every log of that shape.
    """
    limit = Deadline(time_limit).seconds  # checked: >= 0, inf is no limit
    oracles: dict[Geometry, _Oracle] = {}
    refused: dict[Geometry, str] = {}
    try:
        for log in logs:
            Sigint.check()  # a Ctrl-C a solver's binding swallowed stops the batch here
            start = time.perf_counter()
            result = _check(log, Deadline(limit), oracles, refused)
            yield replace(result, seconds=time.perf_counter() - start)
    finally:
        for oracle in oracles.values():
            oracle.close()


def _check(
    log: StepLog, deadline: Deadline, oracles: dict[Geometry, _Oracle], refused: dict[Geometry, str]
) -> StepsResult:
    puzzle = log.puzzle
    if puzzle is None:
        return StepsResult(log.index, log.line, StepVerdict.INVALID, detail=log.error or "unreadable puzzle")
    g = puzzle.geometry
    base = StepsResult(log.index, log.line, StepVerdict.SOUND, g.box_label, log.steps, log.claims)
    claims = _consistency(log)
    total = len(claims.kind)
    limit = total  # the claims that soundness judges: those before an inconsistent step's
    if claims.inconsistent is not None:
        limit = int(np.searchsorted(claims.step, claims.inconsistent[0], side="left"))
    conflict = given_conflict(puzzle)
    if conflict is not None:  # no solution, and no solver needed to say so
        truth = _Truth([], True, f"equal givens: {conflict}")
        return _report(log, base, truth, claims, limit, (limit, None, None))
    shared = g.n <= _SHARED_SIDE
    try:
        oracle = oracles.get(g) if shared else None
        if oracle is None:
            if g in refused:
                raise ModelTooLarge(refused[g])
            oracle = _Oracle(Grid.empty(g) if shared else puzzle, deadline)
            if shared:
                oracles[g] = oracle
    except (TimeLimitReached, ModelTooLarge) as stop:
        if isinstance(stop, ModelTooLarge):
            refused[g] = str(stop)
        truth = _Truth([], False, str(stop))
        return _report(log, base, truth, claims, limit, (limit, None, 0 if limit else None))
    givens: list[int] = []
    if shared:
        cells = np.flatnonzero(puzzle.values.reshape(-1))
        digits = puzzle.values.reshape(-1)[cells].astype(np.int64) - 1
        givens = _literals(oracle.varmap, cells, digits).tolist()
    calls = oracle.calls
    found: tuple[int, Grid | None, int | None] | None
    try:
        truth = _truth(oracle, puzzle, givens, deadline)
        found = _sound(oracle, puzzle, givens, truth, claims, limit, deadline)
    except SudokuCpError as error:  # a model the checker refuses decides nothing: unknown
        truth, found = _Truth([], False, f"the SAT model failed the checker: {error}"), None
    finally:
        if not shared:
            oracle.close()
    return _report(log, replace(base, sat_calls=oracle.calls - calls), truth, claims, limit, found)


def _violated(solution: Grid, claims: _Claims, start: int, stop: int) -> np.ndarray:
    """Which claims of ``start:stop`` ``solution`` contradicts (a bool array of that length)."""
    held = solution.values.reshape(-1).astype(np.int64)[claims.cell[start:stop]] - 1
    digit = claims.digit[start:stop]
    return np.where(claims.kind[start:stop] == 0, held != digit, held == digit)


def _sound(
    oracle: _Oracle,
    puzzle: Grid,
    givens: list[int],
    truth: _Truth,
    claims: _Claims,
    limit: int,
    deadline: Deadline,
) -> tuple[int, Grid | None, int | None]:
    """(first unsound claim or ``limit``, the solution it contradicts, first undecided claim or None).

    The known solutions give a first unsound claim at once.  When they do not decide the rest
    (several solutions, or a search cut short), the claims before it are searched in halves:
    one solve asks whether some solution contradicts any claim of a range (their violations as
    one clause under a guard, retired after), so that all-sound takes one call and the first
    unsound claim about log2(claims) calls, each satisfiable answer's model (checked) the witness.
    """
    best, witness = limit, None
    for solution in truth.solutions:
        hits = np.flatnonzero(_violated(solution, claims, 0, best))
        if hits.size:
            best, witness = int(hits[0]), solution
    if truth.complete:
        return best, witness, None
    # A claim's violation as a literal: a placement fails where its variable is false.
    lits = _literals(oracle.varmap, claims.cell[:limit], claims.digit[:limit])
    lits = np.where(claims.kind[:limit] == 0, -lits, lits)
    sound = 0  # claims [0, sound) hold in every solution
    stop = best  # the first range asked is all of [0, best): one call when every claim holds
    while sound < best:
        guard = oracle.guard_clause([int(v) for v in lits[sound:stop]])
        try:
            answer = oracle.solve([*givens, guard], deadline)
            model = oracle.model(puzzle) if answer is True else None
        finally:
            oracle.retire(guard)
        if answer is None:
            return best, witness, sound
        if model is None:  # no solution contradicts any claim of [sound, stop)
            sound = stop
        else:
            best, witness = sound + int(np.flatnonzero(_violated(model, claims, sound, stop))[0]), model
        stop = (sound + best + 1) // 2 if sound < best else best
    return best, witness, None


def _report(
    log: StepLog,
    base: StepsResult,
    truth: _Truth,
    claims: _Claims,
    limit: int,
    found: tuple[int, Grid | None, int | None] | None,
) -> StepsResult:
    """The result from what the checks found."""
    count = len(truth.solutions) if truth.complete or len(truth.solutions) == 2 else None
    base = replace(base, solutions=count)
    if found is None:  # a checker failure: decide nothing
        return replace(base, verdict=StepVerdict.UNKNOWN, detail=truth.reason)
    first, solution, undecided = found
    g = log.puzzle.geometry if log.puzzle is not None else None
    assert g is not None

    def at(
        k: int, kind: int, cell: int, digit: int, verdict: StepVerdict, detail: str, shown: Grid | None = None
    ) -> StepsResult:
        line = log.step_lines[k] if k < log.steps and kind != 2 else _check_line(log, k)
        rule = log.rules[k] if k < log.steps else "candidates after the last step"
        return replace(
            base,
            verdict=verdict,
            step=k + 1,
            step_line=line,
            rule=rule,
            kind=_KINDS[kind],
            claim=(cell // g.n + 1, cell % g.n + 1, digit + 1),
            solution=shown,
            detail=detail,
        )

    if first < limit and solution is not None:
        kind, cell, digit = int(claims.kind[first]), int(claims.cell[first]), int(claims.digit[first])
        held = int(solution.values.reshape(-1)[cell])
        what = _describe(kind, cell, digit, g)
        if undecided is not None and undecided < first:  # shown unsound; an earlier step may be too
            what = f"(earlier claims undecided: {truth.reason or REASON_TIME_LIMIT}) {what}"
        return at(
            int(claims.step[first]),
            kind,
            cell,
            digit,
            StepVerdict.UNSOUND,
            f"{what}, but a solution has {held} at {g.cell_name(cell)}",
            solution,
        )
    if claims.inconsistent is not None:
        k, (kind, cell, digit), message = claims.inconsistent
        return at(k, kind, cell, digit, StepVerdict.INCONSISTENT, message)
    if undecided is not None:
        k = undecided
        kind, cell, digit = int(claims.kind[k]), int(claims.cell[k]), int(claims.digit[k])
        reason = truth.reason or REASON_TIME_LIMIT
        return at(
            int(claims.step[k]),
            kind,
            cell,
            digit,
            StepVerdict.UNKNOWN,
            f"{_describe(kind, cell, digit, g)}: not decided ({reason})",
        )
    if truth.complete and not truth.solutions:
        why = f" ({truth.reason})" if truth.reason else ""
        detail = f"the puzzle has no solution{why}: every claim holds vacuously"
    elif truth.complete:
        detail = "unique solution"
    elif len(truth.solutions) == 2:
        detail = "more than one solution"
    else:  # no claim needed the truth the time limit (or a model too big) kept from us
        detail = f"the number of solutions undecided ({truth.reason or REASON_TIME_LIMIT})"
    return replace(base, detail=f"{log.steps} steps, {limit} claims checked; {detail}")


def _check_line(log: StepLog, position: int) -> int:
    """The line of the candidate list stated after ``position`` steps."""
    return next((check.line for check in log.checks if check.position == position), log.line)


def _describe(kind: int, cell: int, digit: int, g: Geometry) -> str:
    if kind == 0:
        return f"places {digit + 1} at {g.cell_name(cell)}"
    if kind == 1:
        return f"removes {digit + 1} from {g.cell_name(cell)}"
    return f"the candidates omit {digit + 1} at {g.cell_name(cell)}"
