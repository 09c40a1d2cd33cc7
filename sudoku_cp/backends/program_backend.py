"""A DIMACS solver program as a backend: the puzzle's CNF is written out, the program's model read back.

Counting runs the program again with one more blocking clause per solution found (grid
variables only), so it suits small counts; the time limit covers all runs together.
"""

from __future__ import annotations

import numpy as np

from ..cnf.dimacs import SolverProgramError
from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from ..cnf.varmap import DecodeError
from ..grid import Grid
from ..limits import Deadline
from ..outcome import REASON_TIME_LIMIT
from .base import BackendError, SearchResult, checked_solutions
from .program import run_solver_program

__all__ = ["ProgramBackend"]


class ProgramBackend:
    """Any SAT solver program reading DIMACS and answering in the SAT competition or minisat format."""

    def __init__(
        self,
        command: str,
        encoding: CnfEncoding | str = CnfEncoding.OPTIMIZED,
        amo: AmoEncoding | str = AmoEncoding.PAIRWISE,
    ) -> None:
        self.command = command
        self.encoding = CnfEncoding(encoding)
        self.amo = AmoEncoding(amo)
        self.name = f"program:{command}"

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions, one program run per solution.

        One more run proves there are no more.
        """
        n = puzzle.n
        deadline = Deadline(time_limit)
        cnf = encode_cnf(puzzle, self.encoding, self.amo)
        empty = np.zeros((0, n, n), np.int16)
        if cnf.contradiction:
            return SearchResult(empty, True)
        # The clause blocks as they are (the writer takes them whole); one blocking clause per solution.
        clauses: list[np.ndarray] = [block for family in cnf.families for block in family.blocks]
        comments = cnf.comments()
        found: list[np.ndarray] = []
        complete = False
        reason: str | None = None
        while len(found) < limit:
            if deadline.expired():
                reason = REASON_TIME_LIMIT
                break
            try:
                answer = run_solver_program(
                    self.command, clauses, cnf.n_vars, time_limit=deadline.remaining(), comments=comments
                )
            except SolverProgramError as error:
                raise BackendError(str(error)) from None
            if answer.satisfiable is None:
                reason = answer.reason or f"solver program {self.command!r} answered UNKNOWN"
                break
            if not answer.satisfiable:
                complete = True
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
            clauses.append(block.reshape(1, -1))
        stack = checked_solutions(puzzle, np.stack(found) if found else empty, self.name)
        count = len(stack)
        return SearchResult(
            stack if keep else stack[:0],
            complete,
            count=count,
            stats={"runs": count + complete},
            reason=reason,
        )
