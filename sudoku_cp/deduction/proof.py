"""The SAT proof of every deduction step: each elimination and placement confirmed by a solver.

A ``StepProver`` loads one puzzle's CNF model (``sudoku_cp.cnf``: the extended encoding over
all n**3 candidate variables, the givens as unit clauses) into one incremental python-sat solver,
once, and proves steps against it under assumptions:

- an elimination (cell, digit) holds when the puzzle plus "digit in cell" is unsatisfiable;
- a placement (cell, digit) holds when the puzzle plus "not digit in cell" is unsatisfiable.

Each step is proved from the givens alone, never from the steps before it, so the check does not
trust the rules' own bookkeeping: a step that only follows from an earlier wrong step fails too.
The model takes no propagation either (the optimized encoding would decide candidates by
``sudoku_cp.propagation`` before the solver sees them), so the proof is independent of every
rule and of the propagation code.  On a puzzle with no solution every step is proved (anything
follows from a contradiction); what matters there is the engine's verdict, which
``confirm_unsat`` checks (a check the deadline stops leaves the verdict unknown, never unsat).

Uniqueness rules (``Rule.uniqueness``) assume the puzzle has exactly one solution.  Their steps
are proved the same way, and the proof holds exactly when the puzzle is unique: a uniqueness step
that fails on a puzzle with several solutions is reported unknown (its premise is false, which
is no bug of the rule); on a unique puzzle it fails like any other step.

Solves run through ``sudoku_cp.limits.solve_limited`` against the prover's deadline: a proof that
the deadline stops is unknown, never a failure.  CaDiCaL is the default solver: it refutes a 9x9
candidate in a few microseconds once loaded (the conflict-budget path of ``solve_limited`` needs
no timer thread, which costs the interruptible solvers about 0.1 ms a solve).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from ..errors import SudokuCpError
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, solve_limited
from ..outcome import REASON_TIME_LIMIT
from .step import Step

if TYPE_CHECKING:
    from types import TracebackType

__all__ = [
    "DEFAULT_PROOF_SOLVER",
    "Candidate",
    "ProofStatus",
    "StepNotProved",
    "StepProof",
    "StepProver",
]

#: The pysat solver a prover uses unless told otherwise.
DEFAULT_PROOF_SOLVER = "cadical195"
_PAIRWISE_SIDE = 16  # pairwise at-most-one up to 16x16; a sequential counter above keeps big models small
_LOAD_CHUNK = 1 << 15  # clauses handed to the solver between two looks at the deadline


class ProofStatus(Enum):
    """What the solver said about a step."""

    PROVED = "proved"  # every candidate confirmed
    FAILED = "failed"  # a candidate is not implied by the puzzle: the rule is wrong here
    UNKNOWN = "unknown"  # the deadline stopped a solve, or a uniqueness rule on a non-unique puzzle


@dataclass(frozen=True, slots=True)
class Candidate:
    """One claim of a step: ``placement`` (digit goes in cell) or not (digit leaves cell); 0-based."""

    placement: bool
    cell: int
    digit: int

    def describe(self, geometry: Geometry) -> str:
        """'places 4 at R1C3' or 'removes 4 from R1C3'."""
        where = geometry.cell_name(self.cell)
        return (
            f"places {self.digit + 1} at {where}"
            if self.placement
            else f"removes {self.digit + 1} from {where}"
        )


@dataclass(frozen=True, slots=True, eq=False)
class StepProof:
    """The proof of one step.

    ``proved``: candidates confirmed before the first one that was not (all of them when the
    status is proved); ``candidate``: that first unconfirmed candidate; ``solution``: when the
    step failed, a solution of the puzzle that contradicts it (a counterexample, (n, n) digits);
    ``reason``: why an unknown proof is unknown.
    """

    rule: str
    status: ProofStatus
    proved: int
    total: int
    candidate: Candidate | None = None
    solution: np.ndarray | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """True when every candidate of the step was confirmed."""
        return self.status is ProofStatus.PROVED

    def describe(self, geometry: Geometry) -> str:
        """One line: what was proved, or which candidate was not and why."""
        if self.candidate is None:
            if self.status is ProofStatus.FAILED:  # a claim about the whole puzzle (confirm_unsat)
                return f"{self.rule}: {self.reason}, but the puzzle has a solution"
            return f"{self.rule}: {self.status.value} ({self.proved} of {self.total} candidates)"
        claim = self.candidate.describe(geometry)
        if self.status is ProofStatus.FAILED:
            why = "a solution of the puzzle disagrees"
            if self.solution is not None:
                held = int(self.solution.reshape(-1)[self.candidate.cell])
                why = f"a solution of the puzzle has {held} at {geometry.cell_name(self.candidate.cell)}"
            return f"{self.rule} {claim}, but {why}"
        return f"{self.rule} {claim}: not proved ({self.reason})"


class StepNotProved(SudokuCpError, RuntimeError):
    """A deduction step that the SAT check refutes: a bug in the rule named by ``rule``."""

    def __init__(self, proof: StepProof, geometry: Geometry) -> None:
        super().__init__(f"step not proved: {proof.describe(geometry)}")
        self.rule = proof.rule
        self.proof = proof


class StepProver:
    """One puzzle's CNF in one incremental SAT solver, proving deduction steps under assumptions.

    Use it as a context manager (the native solver is freed on exit, or by ``close``).  Building
    it encodes and loads the model within ``deadline``: ``limits.TimeLimitReached`` when the
    deadline passes first, ``limits.ModelTooLarge`` for a model that cannot fit in memory.
    """

    def __init__(
        self, puzzle: Grid, *, deadline: Deadline | None = None, solver: str = DEFAULT_PROOF_SOLVER
    ) -> None:
        from pysat.solvers import Solver  # imported on use: keeps python-sat out of `import sudoku_cp`

        self.puzzle = puzzle
        self.deadline = deadline
        amo = AmoEncoding.PAIRWISE if puzzle.n <= _PAIRWISE_SIDE else AmoEncoding.SEQCOUNTER
        self._cnf = encode_cnf(puzzle, CnfEncoding.EXTENDED, amo, deadline=deadline, use="solve")
        self._index = self._cnf.varmap.index
        self._top = self._cnf.n_vars
        self._unique: bool | None = None
        self._guards: dict[bytes, int] = {}
        self._solver: Any = Solver(name=solver)
        try:
            clauses = self._cnf.clauses()
            while chunk := list(itertools.islice(clauses, _LOAD_CHUNK)):
                if deadline is not None:
                    deadline.check("loading the proof solver")
                self._solver.append_formula(chunk)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Free the native solver (idempotent)."""
        solver, self._solver = self._solver, None
        if solver is not None:
            solver.delete()

    def __enter__(self) -> StepProver:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _solve(self, assumptions: list[int]) -> bool | None:
        if self._solver is None:
            raise ValueError("the step prover is closed")
        return solve_limited(self._solver, assumptions, self.deadline)

    def _solution(self) -> np.ndarray | None:
        """The grid of the solver's last model (after a satisfiable answer)."""
        model = self._solver.get_model()
        return None if model is None else self._cnf.varmap.decode(model)

    def prove(self, step: Step, *, uniqueness: bool = False, strict: bool = False) -> StepProof:
        """Prove every placement and elimination of ``step``; stop at the first one not proved.

        ``uniqueness``: the step comes from a rule that assumes a unique solution (a failure on a
        puzzle with several solutions is then unknown, not failed).  ``strict``: raise
        ``StepNotProved`` instead of returning a failed proof.
        """
        claims = [Candidate(True, int(c), int(d)) for c, d in step.placements.tolist()]
        claims += [Candidate(False, int(c), int(d)) for c, d in step.eliminations.tolist()]
        for done, claim in enumerate(claims):
            var = int(self._index[claim.cell, claim.digit])
            answer = self._solve([-var if claim.placement else var])
            if answer is False:
                continue
            status, solution = ProofStatus.UNKNOWN, None
            reason: str | None = REASON_TIME_LIMIT
            if answer is True:
                solution = self._solution()
                unique = self.unique() if uniqueness else True
                if unique is True:
                    status, reason = ProofStatus.FAILED, None
                elif unique is False:
                    reason = "a uniqueness rule, and the puzzle has more than one solution"
            proof = StepProof(step.rule, status, done, len(claims), claim, solution, reason)
            if strict and status is ProofStatus.FAILED:
                raise StepNotProved(proof, self.puzzle.geometry)
            return proof
        return StepProof(step.rule, ProofStatus.PROVED, len(claims), len(claims))

    def unique(self) -> bool | None:
        """True when the puzzle has exactly one solution, False for none or several, None when the
        deadline stops the search (remembered once known)."""
        if self._unique is not None:
            return self._unique
        first = self._solve([])
        if first is not True:
            self._unique = False if first is False else None
            return self._unique
        solution = self._solver.get_model()[: self._cnf.varmap.n_grid_vars]
        # Block this solution under a fresh activation literal, retired afterwards, so the
        # formula keeps its meaning for the proofs that follow.
        self._top += 1
        guard = self._top
        self._solver.add_clause([-guard] + [-lit for lit in solution if lit > 0])
        second = self._solve([guard])
        self._solver.add_clause([-guard])
        self._unique = None if second is None else not second
        return self._unique

    def other_solution(self, givens: np.ndarray, solution: np.ndarray) -> bool | None:
        """Whether the puzzle's formula with ``givens`` (n x n, 0 = empty) as assumptions has a
        solution other than ``solution`` (n x n): SAT's answer to "are these givens still unique?"
        for a generator emptying cells of one solved grid.  None when the deadline stops it.

        ``solution`` is blocked under a guard literal made once per solution and kept, so a
        generator's many questions about one grid share it (and other proofs are unaffected).
        """
        if self._solver is None:
            raise ValueError("the step prover is closed")
        key = solution.tobytes()
        guard = self._guards.get(key)
        if guard is None:
            self._top += 1
            guard = self._guards[key] = self._top
            cells = np.arange(solution.size)
            lits = self._index[cells, solution.reshape(-1) - 1]
            self._solver.add_clause([-guard] + [-int(v) for v in lits if v > 0])
        flat = givens.reshape(-1)
        cells = np.flatnonzero(flat)
        lits = self._index[cells, flat[cells] - 1]
        return self._solve([guard] + [int(v) for v in lits if v > 0])

    def forget_solution(self, solution: np.ndarray) -> None:
        """Retire the guard ``other_solution`` made for ``solution`` (its blocking clause goes dead)."""
        guard = self._guards.pop(solution.tobytes(), None)
        if guard is not None and self._solver is not None:
            self._solver.add_clause([-guard])

    def confirm_unsat(self, reason: str) -> StepProof:
        """Check that the puzzle has no solution, as the rules concluded (``reason``: their
        contradiction): a proved proof when it has none, ``StepNotProved`` when it has one.

        A stopped search confirms nothing: the proof is then unknown (time limit), and the caller
        must not report the puzzle unsat on the rules' word alone.
        """
        answer = self._solve([])
        if answer is False:
            return StepProof("contradiction", ProofStatus.PROVED, 1, 1)
        if answer is None:
            return StepProof("contradiction", ProofStatus.UNKNOWN, 0, 1, reason=REASON_TIME_LIMIT)
        claim = f"the rules found a contradiction ({reason})"
        proof = StepProof("contradiction", ProofStatus.FAILED, 0, 1, None, self._solution(), claim)
        raise StepNotProved(proof, self.puzzle.geometry)
