"""CNF formulas: the ``Formula`` type, a DIMACS reader that real files pass, 3-SAT splitting, solving.

Glossary: a *literal* is a nonzero integer, ``v`` for variable v true and ``-v`` for it false
(DIMACS convention, variables 1..num_vars); a *clause* is a tuple of literals; an *assignment*
is a sequence of booleans with ``assignment[v - 1]`` the value of variable v.

DIMACS reading (``parse_dimacs``), decisions for the cases real files contain:

* lines starting with ``c`` are comments wherever they occur; blank lines are skipped;
* the header is ``p cnf <vars> <clauses>`` with any white space between the fields; it must
  come before the first clause and appear once;
* a line starting with ``%`` ends the formula (the SATLIB tail ``%`` then a lone ``0`` would
  otherwise read as an empty clause);
* clauses are literal sequences ended by ``0``; they may span lines, and a line may hold
  several;
* a literal repeated in a clause is kept once; a clause holding ``v`` and ``-v`` is always
  true and is dropped (it still counts towards the header's clause count); an empty clause
  (a lone ``0``) is kept, so the formula is unsatisfiable;
* variables that occur in no clause still count: ``num_vars`` is the header's number;
* errors (``ParseError`` with line and column): no header, a malformed or repeated header, a
  token that is not an integer, a literal beyond the declared variables, a last clause with
  no terminating ``0`` (likely a truncated file, so it is not guessed), and a clause count
  different from the header's.

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

import numpy as np
from pysat.formula import CNF
from pysat.solvers import Solver

from ..backends.pysat_backend import DEFAULT_SOLVER
from ..formats import ParseError
from ..limits import Deadline, solve_limited

__all__ = [
    "Formula",
    "FormulaCheckError",
    "normalize_clause",
    "parse_dimacs",
    "solve_formula",
    "to_3sat",
]

_TOKEN = re.compile(r"\S+")
_INTEGER = re.compile(r"[+-]?\d+")


class FormulaCheckError(RuntimeError):
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
            raise ValueError(f"num_vars must be at least 0, not {self.num_vars}")
        try:
            flat = np.fromiter(itertools.chain.from_iterable(clauses), dtype=np.int64)
            bad = bool(((flat == 0) | (np.abs(flat) > self.num_vars)).any())
        except OverflowError:
            bad = True
        if bad:  # find and name the first bad literal
            for index, clause in enumerate(clauses, start=1):
                for lit in clause:
                    if lit == 0 or abs(lit) > self.num_vars:
                        raise ValueError(
                            f"clause {index}: literal {lit} is not in 1..{self.num_vars} or negated"
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
        cnf = CNF(from_clauses=[list(clause) for clause in self.clauses])
        cnf.nv = self.num_vars
        return cnf

    def to_dimacs(self, comments: Iterable[str] = ()) -> str:
        """DIMACS text: ``c`` comment lines, the header, one clause per line."""
        lines = [f"c {comment}".rstrip() for comment in comments]
        lines.append(f"p cnf {self.num_vars} {self.num_clauses}")
        lines.extend(" ".join([*map(str, clause), "0"]) for clause in self.clauses)
        return "\n".join(lines) + "\n"


def normalize_clause(literals: Iterable[int]) -> tuple[int, ...] | None:
    """Literals in first-seen order without repeats, or None for a tautology (v and -v both present)."""
    seen: dict[int, None] = {}
    for lit in literals:
        if -lit in seen:
            return None
        seen[lit] = None
    return tuple(seen)


def _header(fields: list[re.Match[str]], line_number: int) -> tuple[int, int]:
    """Variable and clause counts of a 'p cnf V C' line; ParseError naming the bad field."""
    texts = [field.group() for field in fields]
    if len(texts) < 2 or texts[1] != "cnf":
        column = fields[1].start() + 1 if len(fields) > 1 else fields[0].end() + 1
        raise ParseError("header must read 'p cnf <variables> <clauses>'", line_number, column)
    if len(texts) != 4:
        column = fields[4].start() + 1 if len(fields) > 4 else fields[-1].end() + 1
        raise ParseError(
            f"header must have 4 fields 'p cnf <variables> <clauses>', found {len(texts)}",
            line_number,
            column,
        )
    counts = []
    for field, what in zip(fields[2:], ("variables", "clauses"), strict=True):
        if not field.group().isdigit():
            raise ParseError(
                f"header: number of {what} must be a nonnegative integer, not {field.group()!r}",
                line_number,
                field.start() + 1,
            )
        counts.append(int(field.group()))
    return counts[0], counts[1]


def parse_dimacs(text: str) -> Formula:
    """Read DIMACS CNF text (see the module docstring for every case); ParseError with line and column."""
    header: tuple[int, int] | None = None
    header_line = 0
    clauses: list[tuple[int, ...]] = []
    read = 0  # clauses read, tautologies included
    current: list[int] = []
    current_line = 0
    for line_number, line in enumerate(text.splitlines(), start=1):
        fields = list(_TOKEN.finditer(line))
        if not fields:
            continue
        first = fields[0].group()
        if first.startswith("c"):
            continue
        if first.startswith("%"):
            break
        if first == "p":
            if header is not None:
                raise ParseError(
                    f"second header (the first is on line {header_line})", line_number, fields[0].start() + 1
                )
            header, header_line = _header(fields, line_number), line_number
            continue
        if header is None:
            raise ParseError("clause before the 'p cnf' header", line_number, fields[0].start() + 1)
        num_vars = header[0]
        for field in fields:
            token = field.group()
            if not _INTEGER.fullmatch(token):
                raise ParseError(f"literal must be an integer, not {token!r}", line_number, field.start() + 1)
            lit = int(token)
            if lit == 0:
                read += 1
                clause = normalize_clause(current)
                if clause is not None:
                    clauses.append(clause)
                current = []
                continue
            if abs(lit) > num_vars:
                raise ParseError(
                    f"literal {lit} is beyond the {num_vars} variables of the header",
                    line_number,
                    field.start() + 1,
                )
            if not current:
                current_line = line_number
            current.append(lit)
    if header is None:
        raise ParseError("no 'p cnf <variables> <clauses>' header", 1)
    if current:
        raise ParseError("last clause has no terminating 0 (truncated file?)", current_line)
    if read != header[1]:
        raise ParseError(f"header declares {header[1]} clauses but {read} were read", header_line)
    return Formula(header[0], tuple(clauses))


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
    formula: Formula, time_limit: float | None = None, solver: str = DEFAULT_SOLVER
) -> tuple[bool | None, tuple[bool, ...] | None]:
    """Decide with a pysat solver: (True, checked model), (False, None), or (None, None) on timeout."""
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
