"""A DIMACS solver program as a backend: the puzzle's CNF is written out, the program's model read back.

Counting runs the program again with one more blocking clause per solution found (grid
variables only), so it suits small counts; the time limit covers all runs together.
"""

from __future__ import annotations

import time

import numpy as np

from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from ..cnf.varmap import DecodeError
from ..grid import Grid
from .base import BackendError, SearchResult, checked_solutions
from .program import SolverProgramError, run_solver_program

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
        deadline = None if time_limit is None else time.monotonic() + time_limit
        cnf = encode_cnf(puzzle, self.encoding, self.amo)
        empty = np.zeros((0, n, n), np.int16)
        if cnf.contradiction:
            return SearchResult(empty, True)
        clauses = list(cnf.clauses())
        comments = cnf.comments()
        found: list[np.ndarray] = []
        complete = timed_out = False
        while len(found) < limit:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                timed_out = True
                break
            try:
                answer = run_solver_program(
                    self.command, clauses, cnf.n_vars, time_limit=remaining, comments=comments
                )
            except SolverProgramError as error:
                raise BackendError(str(error)) from None
            if answer.satisfiable is None:
                timed_out = True
                break
            if not answer.satisfiable:
                complete = True
                break
            assert answer.model is not None
            try:
                values = cnf.varmap.decode(answer.model)
            except DecodeError as error:
                raise BackendError(f"solver program {self.command!r} gave a bad model: {error}") from None
            found.append(values)
            block = (-cnf.varmap.solution_literals(values)).tolist()
            if not block:
                complete = True
                break
            clauses.append(block)
        stack = checked_solutions(puzzle, np.stack(found) if found else empty, self.name)
        count = len(stack)
        return SearchResult(
            stack if keep else stack[:0], complete, timed_out, count, {"runs": count + complete}
        )
