"""Each gadget of the 3-SAT -> Nishio reduction alone: placements counted by the DAG and SAT methods.

The variable and equality gadgets are built by hand on small grids (their linked columns closed
by an equality gadget, the rest completed by the minimal fill); the clause gadget is the one
``reduce_formula`` builds for a one-clause formula, with its variables forced by removing the
other state's cells from S.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pysat.solvers import Solver

from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.cnf import encode_nishio_cnf
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.formula import Formula
from sudoku_cp.reduction.gadgets import ClauseGadget, EqualityGadget, Layout, VariableGadget, layout_problems


def all_placements(instance: NishioInstance, limit: int = 10_000) -> list[tuple[int, ...]]:
    """Every valid placement inside S (column per row), by SAT with blocking clauses; checked."""
    cnf = encode_nishio_cnf(instance, "seqcounter")
    found = []
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as solver:
        while solver.solve():
            cols = cnf.decode(solver.get_model() or [])
            assert placement_problem(instance, cols) is None
            found.append(tuple(int(c) for c in cols))
            assert len(found) <= limit, "more placements than the test expects"
            solver.add_clause([-int(cnf.cell_vars[r, c]) for r, c in enumerate(cols.tolist())])
    return found


def dag_count(instance: NishioInstance) -> int:
    """The number of placements inside S, by the Nishio DAG."""
    counted = make_method("dag").count_placements(instance)
    assert counted.complete
    return counted.count


def _instance(layout: Layout) -> NishioInstance:
    return NishioInstance(geometry_for_size(layout.n, (layout.k, layout.k)), layout.mask("minimal"))


def _state_of(gadget: VariableGadget, cols: tuple[int, ...]) -> bool:
    """True or False: which of its two cell sets the placement uses (asserting it uses one wholly)."""
    used = {(r, c) for r, c in enumerate(cols)}
    true = {tuple(cell) for cell in gadget.true_cells().tolist()}
    false = {tuple(cell) for cell in gadget.false_cells().tolist()}
    assert true <= used or false <= used
    assert not (true <= used and false <= used)
    return true <= used


def _cycle(variable: int, band: int, k: int, stacks: list[int], linked: list[bool], first_column: int = 0):
    """A variable gadget on the first rows of ``band`` with one block per stack."""
    rows = tuple(band * k + i for i in range(len(stacks)))
    true_cols, false_cols = [], []
    for s, link in zip(stacks, linked, strict=True):
        a = s * k + first_column
        true_cols.append(a)
        false_cols.append(a + 1 if link else a)
    return VariableGadget(variable, band, rows, tuple(true_cols), tuple(false_cols))


@pytest.mark.parametrize(
    ("k", "linked"),
    [(3, [True, True]), (3, [False, False]), (3, [True, True, False]), (4, [True, True, True, True])],
    ids=["two-linked", "two-unlinked", "three", "four-linked"],
)
def test_variable_gadget_alone_has_exactly_two_placements(k: int, linked: list[bool]) -> None:
    stacks = list(range(len(linked)))
    gadget = _cycle(1, 0, k, stacks, linked)
    # Close each pair of linked blocks with an equality gadget in band 1 (same variable: always consistent).
    pairs = [
        (a, b) for a, b, link in zip(gadget.true_columns, gadget.false_columns, linked, strict=True) if link
    ]
    equalities = tuple(
        EqualityGadget(1, 1, (k + 2 * i, k + 2 * i + 1), pairs[2 * i], pairs[2 * i + 1])
        for i in range(len(pairs) // 2)
    )
    layout = Layout(k, (gadget,), (), equalities)
    assert layout_problems(layout, [], 1) == []
    instance = _instance(layout)
    assert dag_count(instance) == 2
    found = all_placements(instance)
    assert sorted(_state_of(gadget, cols) for cols in found) == [False, True]


def test_one_block_variable_gadget_uses_one_row_with_two_cells() -> None:
    k = 3
    gadget = VariableGadget(1, 0, (0,), (0,), (1,))
    other = VariableGadget(1, 0, (1,), (3,), (4,))
    join = EqualityGadget(1, 1, (3, 4), (0, 1), (3, 4))
    layout = Layout(k, (gadget, other), (), (join,))
    assert layout_problems(layout, [], 1) == []
    assert gadget.cells().tolist() == [[0, 0], [0, 1]]
    found = all_placements(_instance(layout))
    assert len(found) == 2 == dag_count(_instance(layout))
    assert {_state_of(gadget, cols) == _state_of(other, cols) for cols in found} == {True}


def test_equality_gadget_forces_both_pieces_to_one_value() -> None:
    k = 3
    # Pieces: first in band 0 (stacks 0, 1), second in band 1 (stacks 1, 2); the equality in band 2.
    first = VariableGadget(1, 0, (0, 1), (0, 3), (1, 3))
    second = VariableGadget(1, 1, (3, 4), (4, 6), (5, 6))
    join = EqualityGadget(1, 2, (6, 7), (0, 1), (4, 5))
    layout = Layout(k, (first, second), (), (join,))
    assert layout_problems(layout, [], 1) == []
    instance = _instance(layout)
    found = all_placements(instance)
    assert len(found) == 2 == dag_count(instance)
    assert all(_state_of(first, cols) == _state_of(second, cols) for cols in found)
    # Forcing the pieces to different values leaves no placement.
    mask = instance.mask.copy()
    mask[tuple(first.false_cells().T)] = False
    mask[tuple(second.true_cells().T)] = False
    assert dag_count(NishioInstance(instance.geometry, mask)) == 0


def _forced(reduction: Reduction, values: dict[int, bool]) -> NishioInstance:
    """S with each named variable's other-state cells removed."""
    mask = reduction.instance.mask.copy()
    for gadget in reduction.layout.variables:
        if gadget.variable in values:
            other = gadget.false_cells() if values[gadget.variable] else gadget.true_cells()
            mask[other[:, 0], other[:, 1]] = False
    return NishioInstance(reduction.instance.geometry, mask)


@pytest.mark.parametrize("signs", list(itertools.product((1, -1), repeat=3)))
def test_clause_gadget_accepts_exactly_the_satisfying_assignments(signs: tuple[int, ...]) -> None:
    clause = tuple(s * v for s, v in zip(signs, (1, 2, 3), strict=True))
    reduction = reduce_formula(Formula(3, (clause,)), fill="minimal")
    assert reduction.k <= 5
    dag, sat = make_method("dag"), make_method("sat")
    for values in itertools.product((False, True), repeat=3):
        instance = _forced(reduction, dict(zip((1, 2, 3), values, strict=True)))
        true_literals = sum((lit > 0) == values[abs(lit) - 1] for lit in clause)
        # One placement per true literal: the terminal picks which term uses the truth row.
        assert dag_count(instance) == true_literals
        assert (dag.find_placement(instance) is not None) == (true_literals > 0)
        assert (sat.find_placement(instance) is not None) == (true_literals > 0)


@pytest.mark.parametrize("clause", [(1,), (-1,), (1, 2), (-1, 2), (-1, -2)])
def test_short_clause_gadgets_accept_exactly_the_satisfying_assignments(clause: tuple[int, ...]) -> None:
    num_vars = max(abs(lit) for lit in clause)
    reduction = reduce_formula(Formula(num_vars, (clause,)), fill="minimal")
    for values in itertools.product((False, True), repeat=num_vars):
        instance = _forced(reduction, dict(enumerate(values, start=1)))
        true_literals = sum((lit > 0) == values[abs(lit) - 1] for lit in clause)
        assert dag_count(instance) == true_literals


def test_empty_clause_gadget_leaves_no_placement() -> None:
    from sudoku_cp.reduction.packing import build_layout

    layout = build_layout(Formula(1, ((1,), ())))
    assert layout_problems(layout, [(1,), ()], 1) == []
    for fill in ("full", "minimal"):
        instance = NishioInstance(geometry_for_size(layout.n, (layout.k, layout.k)), layout.mask(fill))
        assert make_method("sat").find_placement(instance) is None
        assert dag_count(instance) == 0


def test_gadget_cells_lie_in_their_own_rows_columns_and_boxes() -> None:
    reduction = reduce_formula(Formula(4, ((1, -2, 3), (-1, 4), (2, 3, -4))), fill="minimal")
    k = reduction.k
    layout = reduction.layout
    gadgets: list[VariableGadget | ClauseGadget | EqualityGadget] = [
        *layout.variables,
        *layout.clauses,
        *layout.equalities,
    ]
    for gadget in gadgets:
        cells = gadget.cells()
        assert set(cells[:, 0].tolist()) <= set(gadget.rows)
        boxes = {(int(r) // k, int(c) // k) for r, c in cells}
        assert boxes <= set(gadget.blocks(k))
    assert np.array_equal(reduction.instance.mask, reduction.layout.mask("minimal"))
