"""Decoding the 3-SAT -> Nishio reduction both ways, with no solver.

``placement_from_assignment``: a satisfying assignment of the encoded formula gives a placement
inside S, built gadget by gadget (each variable gadget in its state, each clause gadget on its
first true literal, each equality gadget in the variable's state, the fixed completion
elsewhere) and then checked by ``placement_problem``.  ``assignment_from_placement``: a valid
placement inside S gives the assignment read from the variable gadgets (a gadget's first row
holds its true cell or its last block's false cell), checked against the formula.
``witness_assignment`` extends an assignment of the formula given (Theorem 6.2) to the encoded
one: z as chosen and each split variable y of (a b y) (-y c z) set to "neither a nor b".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import SudokuCpError
from ..nishio.placement import placement_problem
from .construction import Reduction
from .errors import ReductionError

__all__ = [
    "ReductionDecodeError",
    "assignment_from_placement",
    "placement_from_assignment",
    "witness_assignment",
]


class ReductionDecodeError(SudokuCpError, RuntimeError):
    """Decoding produced something the other side rejects: a bug in the reduction, never expected."""


def _values(reduction: Reduction, assignment: Sequence[bool] | np.ndarray) -> np.ndarray:
    """values[v] for v in 1..num_vars (index 0 unused); ReductionError if short or falsifying."""
    formula = reduction.formula
    if len(assignment) < formula.num_vars:
        raise ReductionError(
            f"the assignment has {len(assignment)} values but the formula has {formula.num_vars} variables"
        )
    values = np.zeros(formula.num_vars + 1, dtype=bool)
    values[1:] = np.asarray(assignment[: formula.num_vars], dtype=bool)
    falsified = formula.unsatisfied_clauses(values[1:])
    if falsified:
        clause = formula.clauses[falsified[0] - 1]
        literals = " ".join(map(str, clause))
        raise ReductionError(f"the assignment falsifies clause {falsified[0]} ({literals} 0)")
    return values


def placement_from_assignment(reduction: Reduction, assignment: Sequence[bool] | np.ndarray) -> np.ndarray:
    """The placement (column per row, 0-based) of a satisfying assignment of ``reduction.formula``."""
    values = _values(reduction, assignment)
    layout = reduction.layout
    cols = layout.completion()
    for v in layout.variables:
        cells = v.true_cells() if values[v.variable] else v.false_cells()
        cols[cells[:, 0]] = cells[:, 1]
    for e in layout.equalities:
        (r1, r2), (a1, b1), (a2, b2) = e.rows, e.first, e.second
        if values[e.variable]:
            cols[r1], cols[r2] = b1, b2
        else:
            cols[r2], cols[r1] = a1, a2
    for c in layout.clauses:
        true_terms = [j for j, lit in enumerate(c.literals) if values[abs(lit)] == (lit > 0)]
        chosen = true_terms[0]  # exists: _values checked every clause
        cols[c.truth_row] = c.truth_column(chosen)
        for j, (lit, (a, b), row) in enumerate(zip(c.literals, c.term_columns, c.conflict_rows, strict=True)):
            # The terminal takes the chosen term's conflict row; the others use their free column.
            cols[row] = c.terminal_column if j == chosen else (b if values[abs(lit)] else a)
    problem = placement_problem(reduction.instance, cols)
    if problem is not None:
        raise ReductionDecodeError(
            f"the placement built from a satisfying assignment is not valid: {problem}"
        )
    return cols


def assignment_from_placement(reduction: Reduction, cols: Sequence[int] | np.ndarray) -> tuple[bool, ...]:
    """The assignment of ``reduction.formula`` that a valid placement inside S encodes (checked).

    Variables without a gadget (in no clause) are False.  ReductionError when ``cols`` is not a
    valid placement inside S.
    """
    cols = np.asarray(cols)
    problem = placement_problem(reduction.instance, cols)
    if problem is not None:
        raise ReductionError(f"not a valid placement inside S: {problem}")
    formula = reduction.formula
    values = np.zeros(formula.num_vars + 1, dtype=bool)
    seen: dict[int, bool] = {}
    for v in reduction.layout.variables:
        first = v.rows[0]
        if cols[first] == v.true_columns[0]:
            value = True
        elif cols[first] == v.false_columns[-1]:
            value = False
        else:
            raise ReductionDecodeError(
                f"row {first + 1} of x{v.variable}'s gadget holds neither of its cells"
            )
        if seen.setdefault(v.variable, value) != value:
            raise ReductionDecodeError(f"the pieces of x{v.variable} disagree")
        values[v.variable] = value
    assignment = tuple(bool(x) for x in values[1:])
    falsified = formula.unsatisfied_clauses(assignment)
    if falsified:
        raise ReductionDecodeError(f"the decoded assignment falsifies clause {falsified[0]}")
    return assignment


def witness_assignment(
    reduction: Reduction, assignment: Sequence[bool] | np.ndarray, *, z: bool = False
) -> tuple[bool, ...]:
    """Theorem 6.2: an assignment of the 3-SAT formula given (variables before z) extended to the encoded one.

    With ``z`` True any values work; with ``z`` False the assignment must satisfy the formula given.
    """
    witness = reduction.witness_variable
    if witness is None:
        raise ReductionError("this reduction has no witness variable (build it with nonempty=True)")
    formula = reduction.formula
    if len(assignment) < witness - 1:
        raise ReductionError(
            f"the assignment has {len(assignment)} values but the formula has {witness - 1} variables"
        )
    values = np.zeros(formula.num_vars + 1, dtype=bool)
    values[1:witness] = np.asarray(assignment[: witness - 1], dtype=bool)
    values[witness] = z
    for clause in formula.clauses:
        y = clause[-1]
        if y > witness:  # (a b y): y is needed exactly when a and b are false
            values[y] = not any(values[abs(lit)] == (lit > 0) for lit in clause[:-1])
    return tuple(bool(x) for x in values[1:])
