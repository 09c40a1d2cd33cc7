"""Formulas: the DIMACS reader on real and malformed files, 3-SAT splitting, solving, random 3-SAT."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest
from conftest import DATA
from hypothesis import given
from hypothesis import strategies as st
from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from sudoku_cp.formats import ParseError
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.errors import MetadataError, ReductionError
from sudoku_cp.reduction.formula import MAX_FORMULA_VARIABLES, Formula, parse_dimacs, solve_formula, to_3sat
from sudoku_cp.reduction.random3sat import planted_3sat, random_3sat

SATLIB = DATA / "satlib"


def _brute_force_satisfiable(formula: Formula) -> bool:
    return any(
        formula.satisfied_by(values) for values in itertools.product((False, True), repeat=formula.num_vars)
    )


# --------------------------------------------------------------------------------- real files


@pytest.mark.parametrize(
    ("name", "num_vars", "num_clauses", "satisfiable"),
    [("uf20-01.cnf", 20, 91, True), ("uf50-01.cnf", 50, 218, True), ("uuf50-01.cnf", 50, 218, False)],
)
def test_satlib_files_read_with_their_tail_and_solve_as_labelled(
    name: str, num_vars: int, num_clauses: int, satisfiable: bool
) -> None:
    formula = parse_dimacs((SATLIB / name).read_text())
    assert (formula.num_vars, formula.num_clauses) == (num_vars, num_clauses)
    assert all(len(clause) == 3 for clause in formula.clauses)  # the '%' / '0' tail is no empty clause
    answer, model = solve_formula(formula)
    assert answer is satisfiable
    if satisfiable:
        assert model is not None and len(model) == num_vars and formula.satisfied_by(model)


def test_first_clause_of_satlib_file_has_leading_space_and_is_read() -> None:
    formula = parse_dimacs((SATLIB / "uf20-01.cnf").read_text())
    assert formula.clauses[0] == (4, -18, 19)
    assert formula.clauses[-1] == (4, -16, -5)


def test_comments_anywhere_spanning_clauses_and_several_per_line() -> None:
    text = "c head\n\np   cnf\t4  3 \n1 -2\nc inside a clause\n 3 0 -1 0\n\n2 4\n0\nc tail comment\n"
    assert parse_dimacs(text) == Formula(4, ((1, -2, 3), (-1,), (2, 4)))


def test_percent_line_ends_the_formula() -> None:
    text = "p cnf 2 1\n1 -2 0\n%\n0\n\n"
    assert parse_dimacs(text).clauses == ((1, -2),)


def test_repeated_literals_are_merged_in_first_seen_order() -> None:
    assert parse_dimacs("p cnf 3 1\n2 1 2 1 -3 0\n").clauses == ((2, 1, -3),)


def test_tautologies_are_dropped_but_count_towards_the_header() -> None:
    formula = parse_dimacs("p cnf 3 2\n1 -1 2 0\n3 0\n")
    assert formula.clauses == ((3,),)


def test_empty_clause_is_kept_and_makes_the_formula_unsatisfiable() -> None:
    formula = parse_dimacs("p cnf 2 2\n1 2 0\n0\n")
    assert formula.clauses == ((1, 2), ())
    assert solve_formula(formula) == (False, None)


def test_variables_absent_from_every_clause_still_count() -> None:
    formula = parse_dimacs("p cnf 7 1\n-2 0\n")
    answer, model = solve_formula(formula)
    assert formula.num_vars == 7 and answer is True
    assert model is not None and len(model) == 7 and model[1] is False


def test_formula_without_clauses_is_satisfiable() -> None:
    assert solve_formula(parse_dimacs("p cnf 3 0\n")) == (True, (False, False, False))


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("", 1, None, "no 'p cnf"),
        ("c only a comment\n", 1, None, "no 'p cnf"),
        ("1 2 0\np cnf 2 1\n", 1, 1, "before the 'p cnf' header"),
        ("c\np cnf 3\n1 0\n", 2, 8, "4 fields"),
        ("p cnf 3 1 7\n1 0\n", 1, 11, "4 fields"),
        ("p dnf 3 1\n1 0\n", 1, 3, "p cnf <variables> <clauses>"),
        ("p\n", 1, 2, "p cnf <variables> <clauses>"),
        ("p cnf x 1\n1 0\n", 1, 7, "number of variables"),
        ("p cnf 3 -1\n", 1, 9, "number of clauses"),
        ("p cnf 3 1\np cnf 3 1\n1 0\n", 2, 1, "second header (the first is on line 1)"),
        ("p cnf 3 1\n1 a 0\n", 2, 3, "not 'a'"),
        ("p cnf 3 1\n1\n2.5 0\n", 3, 1, "not '2.5'"),
        ("p cnf 3 1\n\n1 -4 0\n", 3, 3, "literal -4 is beyond the 3 variables"),
        ("p cnf 3 2\n1 2 0\n3 -1\n", 3, None, "no terminating 0"),
        ("c\np cnf 3 3\n1 2 0\n3 0\n", 2, None, "declares 3 clauses but 2 were read"),
        ("p cnf 3 1\n1 2 0\n3 0\n", 1, None, "declares 1 clauses but 2 were read"),
    ],
)
def test_malformed_dimacs_names_line_and_column(text: str, line: int, column: int | None, words: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_dimacs(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert words in caught.value.message
    assert "\n" not in str(caught.value)


def test_formula_rejects_literals_outside_its_variables() -> None:
    with pytest.raises(ValueError, match="literal 4"):
        Formula(3, ((1, 4),))
    with pytest.raises(ValueError, match="literal 0"):
        Formula(3, ((0,),))
    with pytest.raises(ValueError, match="clause 2: literal -100000000000000000000"):
        Formula(3, ((1,), (-(10**20),)))


def test_literal_matrix_pads_clauses_with_zeros() -> None:
    matrix = Formula(5, ((1, -2, 3, 4), (), (5,), (-1, 2))).literal_matrix()
    assert matrix.tolist() == [[1, -2, 3, 4], [0, 0, 0, 0], [5, 0, 0, 0], [-1, 2, 0, 0]]
    assert Formula(0, ()).literal_matrix().shape == (0, 0)


def test_satisfied_by_needs_a_value_for_every_variable() -> None:
    with pytest.raises(ValueError, match="2 values for 3 variables"):
        Formula(3, ((1,),)).satisfied_by([True, False])


def test_unsatisfied_clauses_are_numbered_from_one() -> None:
    formula = Formula(2, ((1,), (-1, 2), (-2,)))
    assert formula.unsatisfied_clauses([True, True]) == [3]
    assert formula.unsatisfied_clauses([False, False]) == [1]


# ------------------------------------------------------------------------------------ to_3sat

_clauses = st.lists(
    st.lists(st.integers(1, 6).flatmap(lambda v: st.sampled_from((v, -v))), min_size=0, max_size=9),
    max_size=10,
)


def _formula_of(clauses: list[list[int]]) -> Formula:
    normalized = []
    for clause in clauses:
        if any(-lit in clause for lit in clause):
            continue  # keep the formula free of tautologies, as the reader makes it
        normalized.append(tuple(dict.fromkeys(clause)))
    return Formula(6, tuple(normalized))


@given(_clauses)
def test_to_3sat_is_equisatisfiable_per_assignment_of_original_variables(clauses: list[list[int]]) -> None:
    formula = _formula_of(clauses)
    split = to_3sat(formula)
    for clause in split.clauses:
        assert 1 <= len(clause) <= 3 and len(set(map(abs, clause))) == len(clause)
    assert split.num_vars >= formula.num_vars
    with Solver(name="cadical195", bootstrap_with=[list(c) for c in split.clauses]) as oracle:
        for values in itertools.product((False, True), repeat=formula.num_vars):
            assumptions = [v + 1 if value else -(v + 1) for v, value in enumerate(values)]
            # some extension of the assignment satisfies the split formula iff it satisfies the input
            assert oracle.solve(assumptions=assumptions) == formula.satisfied_by(values)
    answer, model = solve_formula(split)
    assert answer == _brute_force_satisfiable(formula)
    if model is not None:
        assert formula.satisfied_by(model[: formula.num_vars])


@given(_clauses)
def test_every_model_of_the_split_formula_truncates_to_a_model_of_the_input(clauses: list[list[int]]) -> None:
    formula = _formula_of(clauses)
    split = to_3sat(formula)
    with Solver(name="glucose4", bootstrap_with=[list(c) for c in split.clauses]) as oracle:
        for count, model in enumerate(oracle.enum_models()):
            literals = np.asarray(model, dtype=np.int64)
            values = np.zeros(split.num_vars + 1, dtype=bool)
            values[np.abs(literals)] = literals > 0
            assert formula.satisfied_by(values[1 : formula.num_vars + 1])
            if count == 200:
                break


def test_to_3sat_splits_a_long_clause_into_the_standard_chain() -> None:
    formula = Formula(6, ((1, -2, 3, -4, 5, 6), (2, 3)))
    assert to_3sat(formula) == Formula(9, ((1, -2, 7), (-7, 3, 8), (-8, -4, 9), (-9, 5, 6), (2, 3)))


def test_to_3sat_turns_an_empty_clause_into_a_contradiction_on_a_fresh_variable() -> None:
    assert to_3sat(Formula(1, ((1,), ()))) == Formula(2, ((1,), (2,), (-2,)))


def test_to_3sat_keeps_a_3cnf_formula_as_it_is() -> None:
    formula = parse_dimacs((SATLIB / "uf20-01.cnf").read_text())
    assert to_3sat(formula) is formula


@given(_clauses)
def test_dimacs_text_reads_back_to_the_same_formula(clauses: list[list[int]]) -> None:
    formula = _formula_of(clauses)
    assert parse_dimacs(formula.to_dimacs(["a comment", ""])) == formula


def test_time_limit_gives_unknown_never_unsatisfiable() -> None:
    hard = PHP(11)  # pigeonhole: far beyond a 0.05 s budget for CDCL
    formula = Formula(hard.nv, tuple(tuple(c) for c in hard.clauses))
    assert solve_formula(formula, time_limit=0.05) == (None, None)


# ---------------------------------------------------------------------------------- random 3-SAT


def test_random_3sat_is_reproducible_from_its_seed() -> None:
    assert random_3sat(20, 91, seed=7) == random_3sat(20, 91, seed=7)
    assert random_3sat(20, 91, seed=7) != random_3sat(20, 91, seed=8)
    assert planted_3sat(20, 91, seed=7) == planted_3sat(20, 91, seed=7)


@pytest.mark.parametrize("planted", [False, True])
def test_random_3sat_clauses_use_three_distinct_variables(planted: bool) -> None:
    formula = random_3sat(5, 2000, seed=1, planted=planted)
    assert formula.num_vars == 5 and formula.num_clauses == 2000
    assert all(len({abs(lit) for lit in clause}) == 3 for clause in formula.clauses)


def test_random_3sat_is_uniform_over_variables_and_signs() -> None:
    matrix = random_3sat(10, 20_000, seed=3).literal_matrix()
    counts = np.bincount(np.abs(matrix).ravel(), minlength=11)[1:]
    assert np.all(np.abs(counts - 6000) < 6 * np.sqrt(6000))  # 60,000 literals over 10 variables
    assert abs(int((matrix > 0).sum()) - 30_000) < 6 * np.sqrt(15_000)


def test_random_3sat_at_the_threshold_is_satisfiable_about_half_the_time() -> None:
    answers = [solve_formula(random_3sat(20, 91, seed=seed))[0] for seed in range(100)]
    assert None not in answers
    assert 25 <= sum(bool(a) for a in answers) <= 75


def test_planted_formulas_are_satisfied_by_their_hidden_assignment() -> None:
    for seed in range(30):
        formula, hidden = planted_3sat(20, 200, seed)  # ratio 10: uniform formulas would be unsatisfiable
        assert formula.satisfied_by(hidden)
        assert solve_formula(formula)[0] is True
        assert random_3sat(20, 200, seed, planted=True) == formula


def test_random_3sat_rejects_too_few_variables() -> None:
    with pytest.raises(ValueError, match="3 distinct variables"):
        random_3sat(2, 1, seed=0)
    assert random_3sat(2, 0, seed=0) == Formula(2, ())


# ------------------------------------------------------------------------------ hostile input (issue 11)


def test_a_header_beyond_the_formula_cap_is_refused_before_anything_is_built() -> None:
    # 'reduce' allocated an array per declared variable: 745 GiB for this header, and a traceback.
    with pytest.raises(
        ParseError, match=f"99999999999 variables is more than {MAX_FORMULA_VARIABLES}"
    ) as caught:
        parse_dimacs("p cnf 99999999999 1\n1 0\n")
    assert (caught.value.line, caught.value.column) == (1, 7)
    assert parse_dimacs(f"p cnf {MAX_FORMULA_VARIABLES} 1\n1 0\n").num_vars == MAX_FORMULA_VARIABLES


def test_formula_errors_are_sudoku_cp_errors_with_cut_values() -> None:
    with pytest.raises(ReductionError, match="literal an integer of 401 digits") as caught:
        Formula(3, ((1,), (10**400,)))
    assert isinstance(caught.value, ValueError) and len(str(caught.value)) < 100


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 3000, "nesting too deep"),
        ('{"k": ' + "9" * 5000 + "}", "a number too long"),
        ("{not json", "line 1, column 2: not JSON"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_metadata_text_that_is_not_a_json_object_is_a_metadata_error(text: str, words: str) -> None:
    with pytest.raises(MetadataError, match=words) as caught:
        Reduction.from_metadata_text(text)
    assert len(str(caught.value)) < 150


def test_metadata_values_are_checked_and_cut_in_messages() -> None:
    reduction = reduce_formula(Formula(3, ((1, -2, 3), (-1, 2))))
    text = reduction.metadata_json()
    assert Reduction.from_metadata_text("\ufeff" + text).instance == reduction.instance
    for key, value, words in (
        ("cells", 10**50, "'cells' must lie in 0..256, not an integer of 51 digits"),
        ("k", 10**100, "'k' must lie in 2..1024, not an integer of 101 digits"),
        ("fill", "f" * 1000, "not 'ffffff"),
        ("version", ["v"] * 1000, "unsupported version ['v', "),
    ):
        data = json.loads(text)
        data[key] = value
        with pytest.raises(MetadataError, match=re.escape(words)) as caught:
            Reduction.from_metadata(data)
        assert len(str(caught.value)) < 150
