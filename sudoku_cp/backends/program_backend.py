"""A DIMACS solver program as a backend: the puzzle's CNF is written out, the program's model read back.

Counting runs the program again with one more blocking clause per solution found (grid
variables only), so it suits small counts; the time limit covers all runs together.

Every answer is checked.  A model is decoded and checked as a grid like any backend's.  A
program's UNSAT claim (no solution, no second solution under uniqueness, no further solution
when counting) is confirmed by the built-in SAT solver (python-sat, ``CONFIRM_SOLVER``) on the
same CNF, blocking clauses included, within what is left of the time limit: a claim the
confirmation refutes is a BackendError naming the program's wrong claim (so ``solve`` says
unknown, never unsat).  ``trust=True`` skips the confirmation for speed; the result then says
so in its stats (``UNVERIFIED`` = 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ..cnf.dimacs import SolverProgramError
from ..cnf.sudoku import AmoEncoding, CnfEncoding, SudokuCnf, encode_cnf
from ..cnf.varmap import DecodeError
from ..grid import Grid
from ..limits import Deadline, solve_limited
from ..outcome import REASON_TIME_LIMIT
from .base import BackendError, SearchResult, checked_solutions
from .program import run_solver_program

__all__ = ["CONFIRM_SOLVER", "UNVERIFIED", "ProgramBackend"]

CONFIRM_SOLVER = "cadical195"
"""The python-sat solver that confirms a program's UNSAT claims."""
UNVERIFIED = "unverified_unsat"
"""Stats key, 1 when the search ended on a program's UNSAT claim taken unchecked (``trust``)."""


class ProgramBackend:
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

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions, one program run per solution.

        One more run proves there are no more; that UNSAT claim is confirmed unless ``trust``.
        """
        n = puzzle.n
        deadline = Deadline(time_limit)
        cnf = encode_cnf(puzzle, self.encoding, self.amo)
        empty = np.zeros((0, n, n), np.int16)
        if cnf.contradiction:  # our own propagation's proof: nothing to confirm
            return SearchResult(empty, True)
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
                    reason = self._confirm_unsat(puzzle, cnf, blocking, len(found), deadline)
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
                complete = True
                break
            blocking.append(block.reshape(1, -1))
        stack = checked_solutions(puzzle, np.stack(found) if found else empty, self.name)
        count = len(stack)
        return SearchResult(stack if keep else stack[:0], complete, count=count, stats=stats, reason=reason)

    def _confirm_unsat(
        self, puzzle: Grid, cnf: SudokuCnf, blocking: Sequence[np.ndarray], known: int, deadline: Deadline
    ) -> str | None:
        """Check the program's UNSAT claim with python-sat: None when confirmed, else why not.

        A time limit reached first is the unknown reason; a model found refutes the claim (a
        BackendError naming it, after the model is checked as a grid).
        """
        from pysat.solvers import Solver

        with Solver(name=CONFIRM_SOLVER) as solver:
            for block in itertools.chain(cnf.blocks(), blocking):
                rows = np.asarray(block).tolist()
                solver.append_formula([[lit for lit in row if lit] for row in rows])
            answer = solve_limited(solver, [], deadline)
            model = solver.get_model() if answer else None
        if answer is None:
            return f"{REASON_TIME_LIMIT} while confirming the UNSAT claim of solver program {self.command!r}"
        if model is None:
            return None
        try:
            values = cnf.varmap.decode(model)
        except DecodeError as error:  # our own encoding and solver disagree: a bug, said as such
            raise BackendError(f"confirming {self.command!r}: python-sat gave a bad model: {error}") from None
        checked_solutions(puzzle, values[None], f"pysat:{CONFIRM_SOLVER}")
        what = "no solution" if not known else f"no solution beyond the {known} found"
        raise BackendError(
            f"solver program {self.command!r} claimed UNSAT ({what}) but pysat:{CONFIRM_SOLVER} "
            "found a valid solution: the program's answer is wrong"
        )
