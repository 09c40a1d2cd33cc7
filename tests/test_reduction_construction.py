"""The reduction's packing (gadgets never share a row, column or box), its size, and its metadata."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.reduction.construction import Reduction, reduce_formula, with_witness_variable
from sudoku_cp.reduction.decode import assignment_from_placement, placement_from_assignment
from sudoku_cp.reduction.formula import Formula, solve_formula
from sudoku_cp.reduction.gadgets import ClauseGadget, EqualityGadget, Layout, VariableGadget, layout_problems
from sudoku_cp.reduction.packing import build_layout


@st.composite
def formulas(
    draw: st.DrawFn, max_vars: int = 12, max_clauses: int = 40, max_length: int = 3, min_clauses: int = 0
) -> Formula:
    """Random CNF formulas: clauses of 1..max_length distinct variables with random signs."""
    num_vars = draw(st.integers(1, max_vars))
    count = draw(st.integers(min_clauses, max_clauses))
    clauses = []
    for _ in range(count):
        length = draw(st.integers(1, min(max_length, num_vars)))
        variables = draw(st.lists(st.integers(1, num_vars), min_size=length, max_size=length, unique=True))
        signs = draw(st.lists(st.sampled_from((1, -1)), min_size=length, max_size=length))
        clauses.append(tuple(v * s for v, s in zip(variables, signs, strict=True)))
    return Formula(num_vars, tuple(clauses))


def _gadgets(layout: Layout) -> list[VariableGadget | ClauseGadget | EqualityGadget]:
    return [*layout.variables, *layout.clauses, *layout.equalities]


def assert_packed(layout: Layout, formula: Formula) -> None:
    """Independent of ``layout_problems``: rows and boxes used once, columns only by linked pairs."""
    k = layout.k
    rows = Counter(r for g in _gadgets(layout) for r in g.rows)
    assert max(rows.values(), default=1) == 1, "two gadgets share a row"
    boxes = Counter(b for g in _gadgets(layout) for b in g.blocks(k))
    assert max(boxes.values(), default=1) == 1, "two gadgets share a box"
    users: dict[int, set[int]] = {}
    for index, g in enumerate(_gadgets(layout)):
        cells = g.cells()
        assert set(cells[:, 0].tolist()) <= set(g.rows)
        assert {(int(r) // k, int(c) // k) for r, c in cells} <= set(g.blocks(k))
        for c in set(cells[:, 1].tolist()):
            users.setdefault(c, set()).add(index)
    gadgets = _gadgets(layout)
    for column, who in users.items():
        assert len(who) <= 2, f"column {column + 1} is used by {len(who)} gadgets"
        if len(who) == 2:
            kinds = sorted(type(gadgets[i]).__name__ for i in who)
            assert "VariableGadget" in kinds and kinds.count("VariableGadget") == 1
    assert sorted(c.clause for c in layout.clauses) == list(range(formula.num_clauses))
    assert layout_problems(layout, formula.clauses, formula.num_vars) == []


def _block_count(formula: Formula) -> int:
    occurrences = sum(len(c) for c in formula.clauses)
    return occurrences + sum(len(c) + 1 for c in formula.clauses)


@settings(max_examples=100)
@given(formulas())
def test_packing_never_shares_a_row_column_or_box(formula: Formula) -> None:
    layout = build_layout(formula)
    assert_packed(layout, formula)
    rows, cols, blocks = layout.used()
    fill = layout.fill_mask("full")
    assert not fill[rows].any() and not fill[:, cols].any()
    assert not (np.repeat(np.repeat(blocks, layout.k, 0), layout.k, 1) & fill).any()


@settings(max_examples=40)
@given(formulas(max_vars=4, max_clauses=60))
def test_variables_with_more_occurrences_than_k_are_cut_into_joined_pieces(formula: Formula) -> None:
    layout = build_layout(formula)
    assert_packed(layout, formula)
    assert all(v.size <= layout.k for v in layout.variables)


def test_a_variable_longer_than_a_band_is_cut_into_pieces_joined_by_equalities() -> None:
    formula = Formula(31, tuple((1, v) for v in range(2, 32)))
    layout = build_layout(formula)
    assert layout.k < 30 and layout.equalities
    assert len([v for v in layout.variables if v.variable == 1]) == len(layout.equalities) + 1
    assert_packed(layout, formula)


@settings(max_examples=30)
@given(formulas(max_vars=40, max_clauses=120))
def test_k_is_near_the_square_root_of_the_blocks(formula: Formula) -> None:
    k = build_layout(formula).k
    lower = max(2, math.isqrt(max(_block_count(formula) - 1, 0)) + 1)
    assert k >= lower
    # Two kinds of bands and first-fit rounding cost a few bands at most.
    assert k <= lower + 3 or k <= 4


@settings(max_examples=60)
@given(formulas(max_vars=8, max_clauses=2))
def test_formulas_of_up_to_two_clauses_fit_a_25x25_grid(formula: Formula) -> None:
    assert reduce_formula(formula).k <= 4  # 6 variable blocks and 8 clause blocks at most


def test_theorem_62_split_adds_z_and_one_variable_per_three_literal_clause() -> None:
    formula = Formula(4, ((1, -2, 3), (-4,), (2, 4)))
    split, z = with_witness_variable(formula)
    assert z == 5
    assert split.clauses == ((1, -2, 6), (-6, 3, 5), (-4, 5), (2, 4, 5))
    assert split.num_vars == 6


def test_sizes_of_the_two_clause_example() -> None:
    formula = Formula(5, ((1, -2, 3), (-1, 4, -5)))
    full, minimal = reduce_formula(formula), reduce_formula(formula, fill="minimal")
    assert (full.k, minimal.k) == (4, 4)
    gadget_cells = len(full.layout.gadget_cells())
    assert minimal.instance.size == gadget_cells + (full.n - sum(len(g.rows) for g in _gadgets(full.layout)))
    assert full.instance.size >= minimal.instance.size


def _round_trip(reduction: Reduction) -> Reduction:
    return Reduction.from_metadata(json.loads(json.dumps(reduction.metadata())))


@pytest.mark.parametrize("nonempty", [False, True])
@pytest.mark.parametrize("fill", ["full", "minimal"])
def test_metadata_round_trip_rebuilds_the_same_instance_and_decodes(nonempty: bool, fill: str) -> None:
    formula = Formula(5, ((1, -2, 3), (-1, 4, -5), (2, 5), (-3,)))
    reduction = reduce_formula(formula, nonempty=nonempty, fill=fill)
    again = _round_trip(reduction)
    assert again.instance == reduction.instance
    assert again.formula == reduction.formula
    assert again.witness_cells == reduction.witness_cells
    assert (again.k, again.nonempty, again.fill) == (reduction.k, nonempty, fill)
    sat, model = solve_formula(reduction.formula)
    assert sat and model is not None
    cols = placement_from_assignment(again, model)
    assert reduction.formula.satisfied_by(assignment_from_placement(again, cols))


def _broken(change: str) -> dict:
    data = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2)))).metadata()
    data = copy.deepcopy(data)
    if change == "format":
        data["format"] = "something else"
    elif change == "missing k":
        del data["k"]
    elif change == "shared row":
        data["variables"][1]["rows"] = list(data["variables"][0]["rows"])
    elif change == "moved column":
        data["clauses"][0]["term_columns"][0].reverse()
    elif change == "literal":
        data["formula"]["clauses"][0] = [1, -2, 9]
    elif change == "cells":
        data["cells"] += 1
    elif change == "fill":
        data["fill"] = "some"
    elif change == "witness":
        data["witness_variable"] = 1
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("format", "'format'"),
        ("missing k", "missing 'k'"),
        ("shared row", "row"),
        ("moved column", "column"),
        ("literal", "literal 9"),
        ("cells", "'cells'"),
        ("fill", "'fill'"),
        ("witness", "witness_variable"),
    ],
)
def test_bad_metadata_is_refused_with_a_clear_message(change: str, message: str) -> None:
    with pytest.raises(ValueError, match="metadata") as error:
        Reduction.from_metadata(_broken(change))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70),
    st.text(max_size=3),
    st.lists(st.integers(-2, 40), max_size=4),
    st.dictionaries(st.sampled_from(["rows", "variable"]), st.integers(0, 9), max_size=2),
)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every key/index path into a JSON value."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


@settings(max_examples=100)
@given(st.data())
def test_damaged_metadata_gives_valueerror_or_a_sound_reduction(data: st.DataObject) -> None:
    metadata = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2), (2,))), nonempty=True).metadata()
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(metadata)))
        parent = metadata
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = data.draw(_JUNK)
    try:
        reduction = Reduction.from_metadata(metadata)
    except ValueError as error:
        assert str(error).startswith("metadata") and "\n" not in str(error)
        return
    assert layout_problems(reduction.layout, reduction.formula.clauses, reduction.formula.num_vars) == []


def test_reduce_refuses_an_unknown_fill() -> None:
    with pytest.raises(ValueError, match="fill"):
        reduce_formula(Formula(1, ((1,),)), fill="some")


def test_empty_formula_gives_a_grid_of_fill_only() -> None:
    reduction = reduce_formula(Formula(2, ()))
    assert reduction.k == 2 and reduction.instance.size == 16
    assert placement_from_assignment(reduction, (False, False)) is not None
    nonempty = reduce_formula(Formula(2, ()), nonempty=True)
    assert nonempty.witness_cells and nonempty.witness_variable == 3


def _two_clause_layout() -> tuple[Layout, Formula]:
    formula = Formula(4, ((1, -2, 3), (-1, 2, -4)))
    return build_layout(formula), formula


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("swap a term's columns", "link no variable block"),
        ("drop a clause gadget", "clause 2 needs exactly one gadget"),
        ("move a variable row out of its band", "not all in band"),
        ("second variable on the same row", "is used by"),
        ("unjoined pieces", "not all joined"),
    ],
)
def test_layout_problems_names_each_kind_of_damage(damage: str, message: str) -> None:
    layout, formula = _two_clause_layout()
    variables, clauses = list(layout.variables), list(layout.clauses)
    if damage == "swap a term's columns":
        c = clauses[0]
        clauses[0] = ClauseGadget(
            c.clause, c.band, c.literals, c.truth_row, c.conflict_rows,
            ((c.term_columns[0][1], c.term_columns[0][0]), *c.term_columns[1:]), c.terminal_column,
        )  # fmt: skip
    elif damage == "drop a clause gadget":
        clauses.pop()
    elif damage == "move a variable row out of its band":
        v = variables[0]
        variables[0] = VariableGadget(
            v.variable, v.band, (v.rows[0] + layout.k, *v.rows[1:]), v.true_columns, v.false_columns
        )
    elif damage == "second variable on the same row":
        v, w = variables[0], variables[1]
        assert v.size == w.size
        variables[1] = dataclasses.replace(w, band=v.band, rows=v.rows)
    elif damage == "unjoined pieces":
        variables.append(variables[0])  # a second piece of x1, joined to the first by no equality
    broken = Layout(layout.k, tuple(variables), tuple(clauses), layout.equalities)
    problems = layout_problems(broken, formula.clauses, formula.num_vars)
    assert any(message in p for p in problems), problems
