"""The reduction is right: S has a placement iff the formula is satisfiable, decoding works both ways,
the DAG closure equals the SAT closure on small grids, and the Theorem 6.2 witness cells behave."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reduction_construction import formulas
from test_reduction_gadgets import all_placements

from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.decode import (
    assignment_from_placement,
    placement_from_assignment,
    witness_assignment,
)
from sudoku_cp.reduction.formula import Formula, solve_formula, to_3sat

FILLS = st.sampled_from(("full", "minimal"))


def _check_both_ways(reduction: Reduction, method: str) -> bool:
    """Decide S with one Nishio method, compare with pysat on the formula, decode both ways; the answer."""
    satisfiable, model = solve_formula(reduction.formula)
    found = make_method(method).find_placement(reduction.instance)
    assert (found is not None) == satisfiable, f"{method} and pysat disagree"
    if satisfiable:
        assert model is not None and found is not None
        cols = placement_from_assignment(reduction, model)
        assert placement_problem(reduction.instance, cols) is None
        decoded = assignment_from_placement(reduction, cols)
        assert all(decoded[v.variable - 1] == model[v.variable - 1] for v in reduction.layout.variables)
        assert reduction.formula.satisfied_by(assignment_from_placement(reduction, found))
    else:
        with pytest.raises(ValueError, match="falsifies"):
            placement_from_assignment(reduction, [False] * reduction.formula.num_vars)
    return bool(satisfiable)


@settings(max_examples=40)
@given(formulas(max_vars=6, max_clauses=16, min_clauses=1), FILLS)
def test_instance_has_a_placement_iff_formula_is_satisfiable_sat(formula: Formula, fill: str) -> None:
    _check_both_ways(reduce_formula(formula, fill=fill), "sat")


@settings(max_examples=20)
@given(formulas(max_vars=6, max_clauses=14, min_clauses=1), FILLS)
def test_instance_has_a_placement_iff_formula_is_satisfiable_cpsat(formula: Formula, fill: str) -> None:
    _check_both_ways(reduce_formula(formula, fill=fill), "cpsat")


def test_random_formulas_cover_both_answers() -> None:
    answers = {
        _check_both_ways(reduce_formula(Formula(3, clauses)), "sat")
        for clauses in [((1, 2, 3), (-1, 2)), tuple((a, b) for a in (1, -1) for b in (2, -2))]
    }
    assert answers == {True, False}


def test_every_satisfying_assignment_gives_a_valid_placement() -> None:
    formula = Formula(4, ((1, -2, 3), (-1, 2, 4), (-3, -4), (2, 3)))
    reduction = reduce_formula(formula)
    models = [values for values in itertools.product((False, True), repeat=4) if formula.satisfied_by(values)]
    assert models
    for values in models:
        cols = placement_from_assignment(reduction, values)
        assert assignment_from_placement(reduction, cols) == values


def _product_count(formula: Formula) -> int:
    """Placements of the minimal fill: over models, the product of the clauses' true-literal counts."""
    used = sorted({abs(lit) for clause in formula.clauses for lit in clause})
    total = 0
    for values in itertools.product((False, True), repeat=len(used)):
        value = dict(zip(used, values, strict=True))
        total += int(np.prod([sum(value[abs(lit)] == (lit > 0) for lit in c) for c in formula.clauses]))
    return total


@settings(max_examples=40)
@given(formulas(max_vars=5, max_clauses=2))
def test_placement_count_is_the_number_of_models_times_true_literal_choices(formula: Formula) -> None:
    reduction = reduce_formula(formula, fill="minimal")
    assert reduction.k <= 5
    counted = make_method("dag").count_placements(reduction.instance)
    assert counted.complete and counted.count == _product_count(reduction.formula)
    # Every placement (enumerated by SAT) decodes to a model.
    placements = all_placements(reduction.instance, limit=counted.count)
    assert len(placements) == counted.count
    for cols in placements:
        assert reduction.formula.satisfied_by(assignment_from_placement(reduction, cols))


@settings(max_examples=30)
@given(formulas(max_vars=6, max_clauses=2), FILLS)
def test_dag_closure_equals_sat_closure_for_two_clauses(formula: Formula, fill: str) -> None:
    reduction = reduce_formula(formula, fill=fill)
    assert reduction.k <= 5
    dag = make_method("dag").closure(reduction.instance)
    sat = make_method("sat").closure(reduction.instance)
    assert np.array_equal(dag, sat)


def _witness_in_closure(reduction: Reduction, method: str) -> bool:
    """Does some placement inside S use the first witness cell?  (S with the rest of its row removed.)"""
    r, c = reduction.witness_cells[0]
    mask = reduction.instance.mask.copy()
    mask[r, :] = False
    mask[r, c] = True
    return make_method(method).find_placement(NishioInstance(reduction.instance.geometry, mask)) is not None


@settings(max_examples=25)
@given(formulas(max_vars=5, max_clauses=10, min_clauses=1), FILLS)
def test_theorem_62_witness_cells_are_in_the_closure_iff_satisfiable(formula: Formula, fill: str) -> None:
    reduction = reduce_formula(formula, nonempty=True, fill=fill)
    satisfiable, model = solve_formula(formula)
    # S always holds a placement: z true.
    source = [False] * (reduction.witness_variable - 1)  # type: ignore[operator]
    everywhere = placement_from_assignment(reduction, witness_assignment(reduction, source, z=True))
    assert placement_problem(reduction.instance, everywhere) is None
    assert make_method("sat").find_placement(reduction.instance) is not None
    assert _witness_in_closure(reduction, "sat") == satisfiable
    assert _witness_in_closure(reduction, "cpsat") == satisfiable
    if satisfiable:
        assert model is not None
        # Extend a model of the 3-SAT form of the formula with z false: it uses every witness cell.
        _, model3 = solve_formula(to_3sat(formula))
        assert model3 is not None
        cols = placement_from_assignment(reduction, witness_assignment(reduction, model3))
        assert all(cols[r] == c for r, c in reduction.witness_cells)


@settings(max_examples=15)
@given(formulas(max_vars=4, max_clauses=1, min_clauses=1), FILLS)
def test_theorem_62_dag_closure_holds_the_witness_cells_iff_satisfiable(formula: Formula, fill: str) -> None:
    reduction = reduce_formula(formula, nonempty=True, fill=fill)
    assert reduction.k <= 5
    closure = make_method("dag").closure(reduction.instance)
    satisfiable, _ = solve_formula(formula)
    assert closure.any()
    assert all(bool(closure[r, c]) == satisfiable for r, c in reduction.witness_cells)
    assert np.array_equal(closure, make_method("sat").closure(reduction.instance))


def test_theorem_62_on_an_unsatisfiable_formula() -> None:
    formula = Formula(2, tuple((a, b) for a in (1, -1) for b in (2, -2)))
    reduction = reduce_formula(formula, nonempty=True)
    assert make_method("sat").find_placement(reduction.instance) is not None
    assert not _witness_in_closure(reduction, "sat")
    with pytest.raises(ValueError, match="falsifies"):
        placement_from_assignment(reduction, witness_assignment(reduction, [True, True]))


def test_a_placement_outside_s_or_invalid_is_refused() -> None:
    reduction = reduce_formula(Formula(3, ((1, -2, 3),)))
    cols = placement_from_assignment(reduction, (True, True, True))
    with pytest.raises(ValueError, match="not a valid placement inside S"):
        assignment_from_placement(reduction, np.roll(cols, 1))
    with pytest.raises(ValueError, match="one column for each"):
        assignment_from_placement(reduction, cols[:-1])
    with pytest.raises(ValueError, match="values"):
        placement_from_assignment(reduction, (True,))
