"""A DIMACS solver program as a backend: the puzzle's CNF is written out, the program's model read back.

Counting runs the program again with one more blocking clause per solution found (grid
variables only), so it suits small counts; the time limit covers all runs together.

Every answer is checked.  A model is decoded and checked as a grid like any backend's.  A
program's UNSAT claim (no solution, no second solution under uniqueness, no further solution
when counting), and a contradiction our own propagation finds while encoding (no program runs
then), are confirmed by another path than the one that produced them: python-sat's CaDiCaL
(``CONFIRM_SOLVER``) on the plain ``extended`` encoding of ``certify.cnf.sudoku_cnf`` (the
certificates' trusted CNF, built from the specification, not by the optimized encoders the
program's CNF comes from), the solutions found blocked, within what is left of the time limit.
A claim the confirmation refutes is a BackendError naming the wrong claim (so ``solve`` says
unknown, never unsat); a confirmation the time limit stops leaves the answer unknown.
``trust=True`` skips the confirmation of the program's claims for speed; the result then says
so in its stats (``UNVERIFIED`` = 1).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..cnf.dimacs import SolverProgramError
from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from ..cnf.varmap import DecodeError
from ..grid import Grid
from ..limits import Deadline
from ..outcome import REASON_TIME_LIMIT
from .base import BackendError, OneByOne, SearchResult, refusal
from .confirm import CONFIRM_SOLVER, confirm_no_more
from .program import run_solver_program

__all__ = ["CONFIRM_SOLVER", "UNVERIFIED", "ProgramBackend"]

UNVERIFIED = "unverified_unsat"
"""Stats key, 1 when the search ended on a program's UNSAT claim taken unchecked (``trust``)."""


class ProgramBackend(OneByOne):
    """Any SAT solver program reading DIMACS and answering in the SAT competition or minisat format.

    ``trust`` takes the program's UNSAT claims as they are, without confirming them.
    """

    def __init__(
        self,
        command: str,
        encoding: CnfEncoding | str = CnfEncoding.OPTIMIZED,
        amo: AmoEncoding | str = AmoEncoding.PAIRWISE,
        *,
        trust: bool = False,
    ) -> None:
        self.command = command
        self.encoding = CnfEncoding(encoding)
        self.amo = AmoEncoding(amo)
        self.trust = trust
        self.name = f"program:{command}"

    def search_one(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> SearchResult:
        """Raw: up to ``limit`` solutions, one program run per solution (checked by the choke point,
        ``base.checked_answers``; counted ones here, since they are not returned).

        One more run proves there are no more; that UNSAT claim is confirmed unless ``trust``.
        """
        n = puzzle.n
        deadline = Deadline(time_limit)
        cnf = encode_cnf(puzzle, self.encoding, self.amo)
        empty = np.zeros((0, n, n), np.int16)
        if cnf.contradiction:
            # Our propagation's contradiction is a claim like any other: a bug there must not
            # become "no solution", so the extended encoding has to agree before we say it.
            unconfirmed = confirm_no_more(puzzle, [], deadline, claimant=None, name=self.name)
            return SearchResult(empty, unconfirmed is None, reason=unconfirmed)
        # The model's clauses are made again, a chunk at a time, for each run; then one blocking
        # clause per solution found.
        blocking: list[np.ndarray] = []
        comments = cnf.comments()
        found: list[np.ndarray] = []
        complete = False
        reason: str | None = None
        stats: dict[str, float | int] = {"runs": 0}
        while len(found) < limit:
            if deadline.expired():
                reason = REASON_TIME_LIMIT
                break
            try:
                answer = run_solver_program(
                    self.command,
                    itertools.chain(cnf.blocks(), blocking),
                    cnf.n_vars,
                    time_limit=deadline.remaining(),
                    comments=comments,
                    n_clauses=cnf.n_clauses + len(blocking),
                )
            except SolverProgramError as error:
                raise BackendError(str(error)) from None
            stats["runs"] += 1
            if answer.satisfiable is None:
                reason = answer.reason or f"solver program {self.command!r} answered UNKNOWN"
                break
            if not answer.satisfiable:
                if self.trust:
                    stats[UNVERIFIED] = 1
                    complete = True
                else:
                    reason = confirm_no_more(puzzle, found, deadline, claimant=self.command, name=self.name)
                    complete = reason is None
                break
            if answer.model is None:  # parse_solver_output gives a model with every SAT answer
                raise BackendError(f"solver program {self.command!r} said SAT without a model")
            try:
                values = cnf.varmap.decode(answer.model)
            except DecodeError as error:
                raise BackendError(f"solver program {self.command!r} gave a bad model: {error}") from None
            found.append(values)
            block = -cnf.varmap.solution_literals(values)
            if not block.size:
                # No open variable: our propagation placed every digit, and "the only solution"
                # rests on it alone (the program only agreed the placed grid holds).
                if refusal(puzzle.geometry, puzzle.values.reshape(-1), np.stack(found), self.name) is None:
                    reason = confirm_no_more(
                        puzzle, found, deadline, claimant=None, name=self.name, finder="our propagation"
                    )
                    complete = reason is None
                break
            blocking.append(block.reshape(1, -1))
        stack = np.stack(found) if found else empty
        if keep:
            return SearchResult(stack, complete, stats=stats, reason=reason)
        problem = refusal(puzzle.geometry, puzzle.values.reshape(-1), stack, self.name) if found else None
        if problem is not None:
            raise BackendError(problem)
        return SearchResult(stack[:0], complete, count=len(stack), stats=stats, reason=reason)
