"""The carving's block tests by SAT (``native.carve.BlockOracle``): one CaDiCaL formula per block of givens.

A block is a run of givens to test in the carving's order.  Its formula is the puzzle without
all of them (the other givens' propagation encoded away: ``encode_cnf``'s optimized encoding,
"at most one" pairwise), built once; each given is then tested by assumptions: the block's
other givens still in the puzzle held at their digits, this one's digit forbidden.  A solution
is its witness; none means it can go, and it is no longer held for the block's later tests
(removal one at a time, in order, as the per-test carving does).  On 25x25 the formula is
built once per 16 tests instead of once per test (``research/gen25.md``: 3-4x on the carving).

Every SAT call runs in rounds of a fixed number of conflicts, the deadline looked at between
rounds (an interrupted call is "unknown", never "no witness"), and the rounds are the same on
any machine, so the solver's answers and its cost in conflicts do not depend on its speed.  A
grid whose calls spend more conflicts than a head start plus a mean per call is given up
(``ABANDONED``), deterministically, for the carving's next attempt.

The known solution is given to the solver as its saved phases: a witness mostly keeps it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached
from ..native.carve import ABANDONED, ANSWERED, BLOCK_SIZE, STOPPED, BlockAnswers

__all__ = ["ROUND_CONFLICTS", "block_tests", "repair"]

#: Conflicts of one round of a SAT call (the deadline is looked at between rounds; CaDiCaL through
#: pysat cannot be interrupted).  On 25x25 a round lasts 0.05-0.3 s.
ROUND_CONFLICTS = 1000


def _solve_capped(
    solver: Any, assumptions: list[int], deadline: Deadline | None, cap: int | None
) -> tuple[bool | None, int]:
    """(answer, conflicts spent): True, False, or None when the deadline stopped the call or it
    spent ``cap`` conflicts first (looked at between rounds, so the same on every machine)."""
    before = solver.accum_stats()["conflicts"]
    spent = 0
    while True:
        if deadline is not None and deadline.expired():
            return None, spent
        if cap is not None and spent >= cap:
            return None, spent
        # The last round stops at the cap, not up to a round past it: a grid given up costs its
        # allowance only (25x25: ~8,000 conflicts, where a round of 1,000 more is ~0.1 s).
        solver.conf_budget(ROUND_CONFLICTS if cap is None else min(ROUND_CONFLICTS, cap - spent))
        answer = solver.solve_limited(assumptions=assumptions)
        spent = solver.accum_stats()["conflicts"] - before
        if answer is not None:
            return bool(answer), spent


def block_tests(
    geometry: Geometry,
    puzzle: np.ndarray,
    solution: np.ndarray,
    firsts: Sequence[int],
    symmetric: bool,
    *,
    deadline: Deadline | None,
    spent: int = 0,
    asked: int = 0,
    head_start: int | None = None,
    per_call: int = 0,
    window: int | None = None,
    call_cap: int | None = None,
    speculate: bool = True,
) -> BlockAnswers:
    """Test the givens (``symmetric``: pairs, by their first cell) ``firsts`` of ``puzzle`` (n*n,)
    int8, in order, on one formula (see the module): each answer a witness grid (n*n,) int8 or
    False (no witness: the given goes, and is no longer held).  Stops early at the deadline
    (``STOPPED``), or (``head_start`` not None) when the grid's conflicts, ``spent`` over
    ``asked`` calls before this block, would pass ``head_start + per_call`` a call
    (``ABANDONED``: its witnesses are too hard), within its first ``window`` calls (None: all);
    a grid past them is carved to its end (most of its cost is spent by then).  ``call_cap`` (not
    with ``symmetric``): a call that spends this many conflicts unanswered takes its given out
    on speculation (answered False like a proof; ``repair`` makes the puzzle unique again), or
    without ``speculate`` leaves it in, answered None.  The answer's ``spent`` and ``asked``:
    this block's conflicts and calls."""
    if call_cap is not None and symmetric:
        raise ValueError("speculative block tests take single givens, not symmetric pairs")
    cells = geometry.cells
    firsts = [int(f) for f in firsts]
    partner = {f: cells - 1 - f for f in firsts} if symmetric else {f: f for f in firsts}
    freed = sorted({c for f in firsts for c in (f, partner[f])})
    givens = puzzle.copy()
    givens[freed] = 0
    answers: list[np.ndarray | bool | None] = []
    # The pairwise "at most one": 25x25 seed 3, SAT 3.5 CPU s against 11.6 s with SEQCOUNTER.
    loaded = _formula(geometry, givens, solution, deadline)
    if loaded is None:
        return BlockAnswers(answers, STOPPED, 0, 0)
    solver, cnf, known = loaded

    def literal(cell: int) -> int:
        """The variable "cell holds its known digit", 0 when the other givens fix it there."""
        return int(known[cell])

    used = calls = 0  # this block's conflicts and SAT calls
    try:
        kept = set(freed)  # the block's cells still given
        for first in firsts:
            tests = [(first, [first, partner[first]])]  # (the cell changed, the cells not held)
            if partner[first] != first:
                tests.append((partner[first], [partner[first]]))  # the pair's second cell, the first held
            found: np.ndarray | bool | None = False
            for cell, free in tests:
                variable = literal(cell)
                if variable == 0:
                    continue  # the others fix it: no witness changes it
                held = [literal(c) for c in sorted(kept) if c not in free]
                assumptions = [v for v in held if v != 0] + [-variable]
                calls += 1
                cap = None  # the grid's conflicts left, while it is judged
                if head_start is not None and (window is None or asked + calls <= window):
                    cap = head_start + per_call * (asked + calls) - spent - used
                if call_cap is not None:
                    cap = call_cap if cap is None else min(cap, call_cap)
                answer, conflicts = _solve_capped(solver, assumptions, deadline, cap)
                used += conflicts
                stopped = deadline is not None and deadline.expired()
                if answer is None and call_cap is not None and not stopped and conflicts >= call_cap:
                    if not speculate:
                        found = None  # unanswered: the given stays, held for the later tests
                        break
                    answer = False  # out on speculation: the repair makes the puzzle unique again
                if answer is None:
                    return BlockAnswers(answers, STOPPED if stopped else ABANDONED, used, calls)
                if answer:
                    found = np.asarray(cnf.varmap.decode(solver.get_model()), np.int8).reshape(-1)
                    break
            answers.append(found)
            if found is False:
                kept -= {first, partner[first]}
        return BlockAnswers(answers, ANSWERED, used, calls)
    finally:
        solver.delete()


def _formula(
    geometry: Geometry, puzzle: np.ndarray, solution: np.ndarray, deadline: Deadline | None
) -> tuple[Any, Any, np.ndarray] | None:
    """The puzzle's own formula (optimized, pairwise) loaded in a CaDiCaL whose saved phases are
    the known solution: (solver, its CNF, each cell's variable "holds its known digit", 0 where
    the givens fix it); None when the deadline passed first."""
    n, cells = geometry.n, geometry.cells
    try:
        cnf = encode_cnf(
            Grid(geometry, puzzle.reshape(n, n)),
            CnfEncoding.OPTIMIZED,
            AmoEncoding.PAIRWISE,
            deadline=deadline,
            use="solve",
        )
    except TimeLimitReached:
        return None
    if cnf.contradiction:  # the known solution solves it: never expected
        raise AssertionError("the carving's formula has no solution")
    fixed = np.asarray(cnf.varmap.fixed).reshape(-1)
    if np.any((fixed != 0) & (fixed != solution)):
        raise AssertionError("the carving's formula fixes a cell off the known solution")
    variables = np.asarray(cnf.varmap.index, np.int64).reshape(cells, n)
    digits = solution.astype(np.int64) - 1
    known = variables[np.arange(cells), digits]
    if np.any((fixed == 0) & (known <= 0)):
        raise AssertionError("the known digit is no candidate of the carving's formula")
    known = np.where(fixed == 0, known, 0)
    from pysat.solvers import Solver

    solver = Solver(name="cadical195")
    try:
        clauses = cnf.clauses()
        while chunk := list(itertools.islice(clauses, 1 << 15)):  # the deadline between chunks
            if deadline is not None and deadline.expired():
                solver.delete()
                return None
            solver.append_formula(chunk)
        at = np.arange(n)[None, :] == digits[:, None]
        solver.set_phases(np.where(at, variables, -variables)[variables > 0].tolist())
    except BaseException:
        solver.delete()
        raise
    return solver, cnf, known


def _answer(solver: Any, cnf: Any, cap: int | None, deadline: Deadline | None) -> np.ndarray | bool | None:
    """The solver's solution as a grid (n*n,) int8, False for none, None for unknown."""
    answer, _ = _solve_capped(solver, [], deadline, cap)
    if answer is None:
        return None
    if not answer:
        return False
    return np.asarray(cnf.varmap.decode(solver.get_model()), np.int8).reshape(-1)


def repair(
    geometry: Geometry,
    puzzle: np.ndarray,
    solution: np.ndarray,
    witness: np.ndarray,
    *,
    deadline: Deadline | None,
    call_cap: int,
) -> bool:
    """Make a puzzle carved on speculation (``block_tests``' ``call_cap``) unique again and keep
    it minimal, in place: ``puzzle`` (n*n,) int8, ``witness`` (n*n, n*n) int8, a witness row for
    each given.  False when the deadline stopped it (the puzzle is then neither).

    While another solution exists, one of the cells where it differs becomes a given again: the
    one the fewest valid witnesses change (that solution is its witness; a given whose witness
    changed it has none now).  Once no other solution exists, each given left without a witness
    is tested again, in order, ``BLOCK_SIZE`` to a formula, within ``call_cap`` conflicts: a new
    witness, or no other solution (a proof: it goes, and the puzzle stays unique), or unknown;
    the unknown ones are tested again the same way with 4x the cap, until each is answered.
    Every choice is a count of conflicts or a cell number: a seed makes the same puzzle on any
    machine."""
    has = puzzle != 0  # the givens whose witness row holds
    # "Another solution" on one incremental formula: a given put back is a unit clause.
    loaded = _formula(geometry, puzzle, solution, deadline)
    if loaded is None:
        return False
    check, check_cnf, known = loaded
    try:
        change = [-int(v) for v in known[known > 0]]  # some cell off its known digit
        if change:
            check.add_clause(change)
        while change:  # (no open cell: the givens alone fix the grid)
            other = _answer(check, check_cnf, None, deadline)
            if other is None:
                return False
            if not isinstance(other, np.ndarray):
                break  # no other solution: unique
            changed = np.flatnonzero(other != solution)
            holders = np.flatnonzero(has & (puzzle != 0))
            cover = np.count_nonzero(witness[holders] != solution, axis=0)
            cell = int(changed[np.argmin(cover[changed])])  # the first of the least covered
            has[holders[witness[holders, cell] != solution[cell]]] = False
            puzzle[cell] = solution[cell]
            witness[cell] = other
            has[cell] = True
            check.add_clause([int(known[cell])])
    finally:
        check.delete()
    # Taking out a given with no other solution keeps the puzzle unique, so these tests only go.
    again = [int(given) for given in np.flatnonzero((puzzle != 0) & ~has)]
    cap = call_cap
    while again:  # the unknown ones again, with 4x the cap, until each is answered
        unknown: list[int] = []
        for at in range(0, len(again), BLOCK_SIZE):
            block = again[at : at + BLOCK_SIZE]
            got = block_tests(
                geometry, puzzle, solution, block, False, deadline=deadline, call_cap=cap, speculate=False
            )
            if got.status != ANSWERED:
                return False
            for given, found in zip(block, got.answers, strict=True):
                if found is None:
                    unknown.append(given)
                elif found is False:
                    puzzle[given] = 0
                else:
                    witness[given] = found
        again, cap = unknown, cap * 4
    return True
