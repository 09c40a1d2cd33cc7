"""reduction/decode.py's own checks: the tests its mutants must fail (``benchmarks/mutation.py``).

Decoding checks what it builds and what it reads, and raises ``ReductionDecodeError`` when the
reduction itself is wrong.  A right reduction never gets there, so these tests hand the decoder a
reduction whose S was changed after it was built: a cell the decoding needs taken out, or S
widened to the whole grid so that a valid placement may ignore the gadgets.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.decode import (
    ReductionDecodeError,
    assignment_from_placement,
    placement_from_assignment,
    witness_assignment,
)
from sudoku_cp.reduction.errors import ReductionError
from sudoku_cp.reduction.formula import Formula


def _with_mask(reduction: Reduction, mask: np.ndarray) -> Reduction:
    """The reduction with S replaced (the layout unchanged)."""
    return dataclasses.replace(reduction, instance=NishioInstance(reduction.instance.geometry, mask))


def _placement_with(reduction: Reduction, forced: dict[int, int]) -> np.ndarray:
    """A valid placement of the whole grid with row r in column ``forced[r]`` (found by SAT)."""
    n = reduction.n
    mask = np.ones((n, n), dtype=bool)
    for row, column in forced.items():
        mask[row, :] = False
        mask[row, column] = True
    cols = make_method("sat").find_placement(NishioInstance(reduction.instance.geometry, mask))
    assert cols is not None
    return cols


def test_a_built_placement_outside_s_is_a_decode_error() -> None:
    reduction = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2, 3))))
    values = (True, True, False)
    cols = placement_from_assignment(reduction, values)
    mask = reduction.instance.mask.copy()
    row = reduction.layout.variables[0].rows[0]
    mask[row, cols[row]] = False
    with pytest.raises(ReductionDecodeError, match="built from a satisfying assignment is not valid"):
        placement_from_assignment(_with_mask(reduction, mask), values)


def test_a_gadget_row_holding_neither_cell_is_a_decode_error() -> None:
    reduction = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2, 3))))
    gadget = reduction.layout.variables[0]
    first = gadget.rows[0]
    other = next(c for c in range(reduction.n) if c not in (gadget.true_columns[0], gadget.false_columns[-1]))
    cols = _placement_with(reduction, {first: other})
    whole = _with_mask(reduction, np.ones((reduction.n, reduction.n), dtype=bool))
    with pytest.raises(
        ReductionDecodeError, match=rf"^row {first + 1} of x{gadget.variable}'s gadget holds neither"
    ):
        assignment_from_placement(whole, cols)


def test_every_gadget_row_is_read_true_or_false() -> None:
    """Each variable's first row decides it: the true cell reads True, the last false cell False."""
    reduction = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2, 3))))
    whole = _with_mask(reduction, np.ones((reduction.n, reduction.n), dtype=bool))
    gadgets = reduction.layout.variables
    for chosen in [(True, True, True), (False, False, False), (True, False, True)]:
        forced = {
            g.rows[0]: g.true_columns[0] if chosen[g.variable - 1] else g.false_columns[-1] for g in gadgets
        }
        assert reduction.formula.satisfied_by(chosen)
        assert assignment_from_placement(whole, _placement_with(reduction, forced)) == chosen


def test_pieces_of_one_variable_that_disagree_are_a_decode_error() -> None:
    clauses = ((1, 2, 3), (1, 2, -3), (1, -2, 3), (1, -2, -3), (-1, 2, 3))
    reduction = reduce_formula(Formula(3, clauses))
    pieces = [g for g in reduction.layout.variables if g.variable == 3]
    assert len(pieces) >= 2  # a variable in many clauses is split into pieces
    # Every piece true, but the second piece of x3 false.
    forced = {g.rows[0]: g.true_columns[0] for g in reduction.layout.variables}
    forced[pieces[1].rows[0]] = pieces[1].false_columns[-1]
    cols = _placement_with(reduction, forced)
    whole = _with_mask(reduction, np.ones((reduction.n, reduction.n), dtype=bool))
    with pytest.raises(ReductionDecodeError, match="^the pieces of x3 disagree$"):
        assignment_from_placement(whole, cols)


def test_a_decoded_assignment_that_falsifies_the_formula_is_a_decode_error() -> None:
    reduction = reduce_formula(Formula(3, ((1, 2, 3),)))
    forced = {g.rows[0]: g.false_columns[-1] for g in reduction.layout.variables}  # every variable false
    whole = _with_mask(reduction, np.ones((reduction.n, reduction.n), dtype=bool))
    with pytest.raises(ReductionDecodeError, match="^the decoded assignment falsifies clause 1$"):
        assignment_from_placement(whole, _placement_with(reduction, forced))


def test_a_witness_needs_a_witness_variable_and_every_value() -> None:
    with pytest.raises(ReductionError, match="no witness variable"):
        witness_assignment(reduce_formula(Formula(2, ((1, 2),))), [True, True])
    reduction = reduce_formula(Formula(2, ((1, 2),)), nonempty=True)
    assert reduction.witness_variable == 3
    with pytest.raises(ReductionError, match="^the assignment has 1 values but the formula has 2 variables$"):
        witness_assignment(reduction, [True])
    assert witness_assignment(reduction, [True, False, True])[:3] == (
        True,
        False,
        False,
    )  # extra values ignored


def test_a_witness_keeps_z_as_chosen_and_splits_on_the_first_two_literals() -> None:
    # (1 2) is encoded as (1 2 z): z's own clause, which no split variable may overwrite.
    short = reduce_formula(Formula(2, ((1, 2),)), nonempty=True)
    assert short.formula.clauses == ((1, 2, 3),) and short.witness_variable == 3
    assert witness_assignment(short, [True, False], z=True) == (True, False, True)
    # (1 2 3) is split into (1 2 y) (-y 3 z), y = 5: y is true exactly when x1 and x2 are false.
    split = reduce_formula(Formula(3, ((1, 2, 3),)), nonempty=True)
    assert split.formula.clauses == ((1, 2, 5), (-5, 3, 4)) and split.witness_variable == 4
    for source in [(True, False, False), (False, True, False), (False, False, True)]:
        witness = witness_assignment(split, source)
        assert witness == (*source, False, not (source[0] or source[1]))
        assert split.formula.satisfied_by(witness)
