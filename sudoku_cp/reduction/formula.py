"""CNF formulas: the ``Formula`` type, a DIMACS reader that real files pass, 3-SAT splitting, solving.

Glossary: a *literal* is a nonzero integer, ``v`` for variable v true and ``-v`` for it false
(DIMACS convention, variables 1..num_vars); a *clause* is a tuple of literals; an *assignment*
is a sequence of booleans with ``assignment[v - 1]`` the value of variable v.

DIMACS text is read by ``parse_dimacs`` and written by ``Formula.to_dimacs``, both through
``sudoku_cp.cnf.dimacs`` (its docstring lists every case the reader accepts and every error it
names): a repeated literal is kept once, a tautology is dropped, an empty clause is kept.
A formula read may declare at most ``MAX_FORMULA_VARIABLES`` (10**7) variables, far beyond
any reduction: a larger header is refused before anything is built for it.

3-SAT splitting (``to_3sat``): a clause (l1 l2 ... lm) with m > 3 becomes the chain
(l1 l2 y1) (-y1 l3 y2) ... (-y(m-3) l(m-1) lm) of m - 2 clauses over m - 3 fresh variables,
numbered after ``num_vars`` in clause order.  A model of the chain satisfies the original
clause (if every li were false, y1 would be forced true, then y2, ..., and the last clause
fails), and any model of the original extends to the chain (make yj true exactly while the
first true literal lies beyond position j + 1).  An empty clause becomes (y) (-y) with one
fresh y, so every result clause has 1 to 3 distinct literals.  The original variables keep
their numbers: a model of the result truncated to ``num_vars`` values satisfies the input.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..cnf.dimacs import dimacs_text, normalize_clause, read_dimacs
from ..errors import SudokuCpError, excerpt
from ..formats import ParseError
from ..limits import Deadline, solve_limited
from .errors import ReductionError
from .memory import check_reduction_memory

if TYPE_CHECKING:
    from pysat.formula import CNF

__all__ = [
    "MAX_FORMULA_VARIABLES",
    "Formula",
    "FormulaCheckError",
    "FormulaInputError",
    "ReadFormula",
    "normalize_clause",
    "parse_dimacs",
    "read_formula",
    "solve_formula",
    "to_3sat",
]


#: The most variables a formula may declare: far beyond any reduction (``packing.MAX_BOX_SIDE``),
#: small enough that an array per variable stays tens of megabytes.
MAX_FORMULA_VARIABLES = 10_000_000


class FormulaInputError(ReductionError):
    """A formula file the reduction refuses: one line naming the file, the line and the problem."""


class FormulaCheckError(SudokuCpError, RuntimeError):
    """A solver's model that does not satisfy the formula it was given (a solver bug, never expected)."""


@dataclass(frozen=True, slots=True)
class Formula:
    """A CNF formula over variables 1..num_vars; clauses hold DIMACS literals."""

    num_vars: int
    clauses: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        clauses = tuple(tuple(map(int, clause)) for clause in self.clauses)
        object.__setattr__(self, "clauses", clauses)
        if self.num_vars < 0:
            raise ReductionError(f"num_vars must be at least 0, not {excerpt(self.num_vars)}")
        try:
            flat = np.fromiter(itertools.chain.from_iterable(clauses), dtype=np.int64)
            bad = bool(((flat == 0) | (np.abs(flat) > self.num_vars)).any())
        except OverflowError:
            bad = True
        if bad:  # find and name the first bad literal
            for index, clause in enumerate(clauses, start=1):
                for lit in clause:
                    if lit == 0 or abs(lit) > self.num_vars:
                        raise ReductionError(
                            f"clause {index}: literal {excerpt(lit)} is not in 1..{self.num_vars} or negated"
                        )

    @property
    def num_clauses(self) -> int:
        """Number of clauses."""
        return len(self.clauses)

    @property
    def max_clause_length(self) -> int:
        """Length of the longest clause (0 for a formula without clauses)."""
        return max((len(clause) for clause in self.clauses), default=0)

    def literal_matrix(self) -> np.ndarray:
        """The clauses as an (m, w) int64 array padded with 0, w the longest clause length."""
        matrix = np.zeros((self.num_clauses, self.max_clause_length), dtype=np.int64)
        lengths = np.fromiter(map(len, self.clauses), dtype=np.int64, count=self.num_clauses)
        flat = np.fromiter(
            itertools.chain.from_iterable(self.clauses), dtype=np.int64, count=int(lengths.sum())
        )
        rows = np.repeat(np.arange(self.num_clauses), lengths)
        starts = np.cumsum(lengths) - lengths
        matrix[rows, np.arange(flat.size) - np.repeat(starts, lengths)] = flat
        return matrix

    def clause_values(self, assignment: Sequence[bool] | np.ndarray) -> np.ndarray:
        """Boolean per clause: is it satisfied by the assignment (``assignment[v - 1]`` is variable v)?"""
        if len(assignment) < self.num_vars:
            raise ValueError(f"assignment has {len(assignment)} values for {self.num_vars} variables")
        values = np.zeros(self.num_vars + 1, dtype=bool)
        values[1:] = np.asarray(assignment[: self.num_vars], dtype=bool)
        matrix = self.literal_matrix()
        true_literal = values[np.abs(matrix)] ^ (matrix < 0)
        return np.asarray((true_literal & (matrix != 0)).any(axis=1), dtype=bool)

    def satisfied_by(self, assignment: Sequence[bool] | np.ndarray) -> bool:
        """True when every clause has a true literal; values beyond num_vars are ignored."""
        return bool(self.clause_values(assignment).all())

    def unsatisfied_clauses(self, assignment: Sequence[bool] | np.ndarray) -> list[int]:
        """1-based numbers of the clauses the assignment falsifies."""
        return [int(i) + 1 for i in np.flatnonzero(~self.clause_values(assignment))]

    def to_cnf(self) -> CNF:
        """The formula as a pysat ``CNF`` (``nv`` = num_vars)."""
        from pysat.formula import CNF  # python-sat loads when a formula meets a solver, not at start-up

        cnf = CNF(from_clauses=[list(clause) for clause in self.clauses])
        cnf.nv = self.num_vars
        return cnf

    def to_dimacs(self, comments: Iterable[str] = ()) -> str:
        """DIMACS text: ``c`` comment lines, the header, one clause per line."""
        return dimacs_text(self.clauses, self.num_vars, comments)


#: A 'p cnf V C' header line (comment lines start with 'c', so they never match).
_HEADER = re.compile(r"^[ \t]*(p)[ \t]+cnf[ \t]+([0-9]+)[ \t]+([0-9]+)[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ReadFormula:
    """A formula read for the reduction, with the warnings about what the reader changed."""

    formula: Formula
    warnings: tuple[str, ...]


def read_formula(text: str, name: str = "<formula>") -> ReadFormula:
    """Read DIMACS text for the reduction, strictly: ``FormulaInputError`` (one line naming ``name``
    and the line) for anything it cannot take, warnings for what it normalises.

    * a header whose reduction would not fit in memory is refused at the header, before any clause
      is read (``construction.check_reduction_memory``: the estimate and the memory available);
    * an empty clause is refused (the formula is unsatisfiable as written, and the reduction of
      an empty clause is no instance anyone wants; write (x) (-x) to keep such a formula);
    * a literal repeated in a clause is kept once, and a clause holding v and -v (always true) is
      dropped: both with a warning naming the clause and line;
    * everything ``parse_dimacs`` refuses (variables past the header, a wrong clause count, ...).
    """

    def header(variables: int, clauses: int, line: int) -> None:
        # Literals: at most three per clause before splitting, and never more than the text holds.
        literals = min(3 * clauses, len(text) // 2) if clauses else 0
        try:
            check_reduction_memory(variables, clauses, max(literals, clauses))
        except ReductionError as error:
            raise FormulaInputError(f"{name}: line {line}: {error}") from None

    found = _HEADER.search(text)  # before the reader splits the text into lines (10^7 lines: gigabytes)
    if found is not None and len(found.group(2)) <= 12 and len(found.group(3)) <= 12:
        variables, clauses = int(found.group(2)), int(found.group(3))
        # Sizes the reader refuses anyway (the variable cap, more clauses than the text holds) are
        # left to its own message; the estimate is for what it would otherwise go on to read.
        if variables <= MAX_FORMULA_VARIABLES and clauses <= (len(text) - found.end()) // 2 + 1:
            header(variables, clauses, text.count("\n", 0, found.start()) + 1)
    notes: list[tuple[str, int, int]] = []
    try:
        cnf = read_dimacs(text, max_vars=MAX_FORMULA_VARIABLES, notes=notes, on_header=header)
    except ParseError as error:  # its message names the line and column
        raise FormulaInputError(f"{name}: {error}") from None
    warnings = []
    for kind, clause, line in notes:
        if kind == "empty":
            raise FormulaInputError(
                f"{name}: line {line}: clause {clause} is empty, so the formula is unsatisfiable as written; "
                "the reduction takes clauses with literals (write (x) (-x) for a false clause)"
            )
        if kind == "repeat":
            warnings.append(f"{name}: line {line}: clause {clause} repeats a literal; kept once")
        else:
            warnings.append(
                f"{name}: line {line}: clause {clause} holds a variable and its negation; dropped"
            )
    return ReadFormula(Formula(cnf.n_vars, cnf.clauses), tuple(warnings))


def parse_dimacs(text: str) -> Formula:
    """Read DIMACS CNF text (see ``sudoku_cp.cnf.dimacs.read_dimacs``), at most
    ``MAX_FORMULA_VARIABLES`` variables; ParseError with line and column."""
    cnf = read_dimacs(text, max_vars=MAX_FORMULA_VARIABLES)
    return Formula(cnf.n_vars, cnf.clauses)


def to_3sat(formula: Formula) -> Formula:
    """An equisatisfiable formula whose clauses have 1 to 3 literals; fresh variables after num_vars."""
    if all(1 <= len(clause) <= 3 for clause in formula.clauses):
        return formula
    next_var = formula.num_vars + 1
    clauses: list[tuple[int, ...]] = []
    for clause in formula.clauses:
        if not clause:
            clauses += [(next_var,), (-next_var,)]
            next_var += 1
        elif len(clause) <= 3:
            clauses.append(clause)
        else:
            chain = range(next_var, next_var + len(clause) - 3)
            next_var += len(chain)
            clauses.append((clause[0], clause[1], chain[0]))
            clauses += [(-chain[j - 1], clause[j + 1], chain[j]) for j in range(1, len(chain))]
            clauses.append((-chain[-1], clause[-2], clause[-1]))
    return Formula(next_var - 1, tuple(clauses))


def solve_formula(
    formula: Formula, time_limit: float | None = None, solver: str | None = None
) -> tuple[bool | None, tuple[bool, ...] | None]:
    """Decide with a pysat solver (default: the pysat backend's): (True, checked model), (False, None),
    or (None, None) on timeout."""
    from pysat.solvers import Solver

    from ..backends.pysat_backend import DEFAULT_SOLVER

    solver = solver or DEFAULT_SOLVER
    if any(not clause for clause in formula.clauses):
        return False, None
    deadline = Deadline(time_limit)
    with Solver(name=solver, bootstrap_with=[list(clause) for clause in formula.clauses]) as oracle:
        answer = solve_limited(oracle, [], deadline)
        if answer is not True:
            return answer, None
        values = np.zeros(formula.num_vars + 1, dtype=bool)
        model = np.asarray(oracle.get_model() or [], dtype=np.int64)
        model = model[np.abs(model) <= formula.num_vars]
        values[np.abs(model)] = model > 0
    assignment = tuple(bool(v) for v in values[1:])
    if not formula.satisfied_by(assignment):
        raise FormulaCheckError(
            f"solver {solver}'s model falsifies clauses {formula.unsatisfied_clauses(assignment)[:5]}"
        )
    return True, assignment
