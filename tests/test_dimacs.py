"""sudoku_cp.cnf.dimacs: the one DIMACS writer, the CNF reader, and the one reader of solver answers."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.cnf.dimacs import (
    MAX_VARIABLES,
    DimacsCnf,
    DimacsError,
    SolverAnswer,
    SolverProgramError,
    dimacs_text,
    parse_solver_output,
    read_dimacs,
    read_solver_answer,
    solver_answer_form,
    write_dimacs,
)
from sudoku_cp.errors import SudokuCpError
from sudoku_cp.formats import ParseError

CLAUSES = st.integers(1, 10**12).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.lists(st.integers(-n, n).filter(bool), max_size=8), max_size=40),
    )
)


def plain_text(clauses: list[list[int]], n_vars: int, comments: list[str]) -> str:
    """The DIMACS text written the slow, obvious way."""
    lines = [f"c {comment}".rstrip() for comment in comments] + [f"p cnf {n_vars} {len(clauses)}"]
    lines += [" ".join([*map(str, clause), "0"]) for clause in clauses]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------- writing


@given(CLAUSES)
def test_text_is_the_plain_rendering_of_every_clause(case: tuple[int, list[list[int]]]) -> None:
    n_vars, clauses = case
    assert dimacs_text(clauses, n_vars, ["model", ""]) == plain_text(clauses, n_vars, ["model", ""])


@given(CLAUSES)
def test_what_is_written_reads_back(case: tuple[int, list[list[int]]]) -> None:
    n_vars, clauses = case
    cnf = read_dimacs(dimacs_text(clauses, n_vars))
    assert cnf.n_vars == n_vars
    kept = [list(dict.fromkeys(clause)) for clause in clauses if not any(-lit in clause for lit in clause)]
    assert [list(clause) for clause in cnf.clauses] == kept


def test_blocks_of_any_width_and_a_generator_are_counted_for_the_header() -> None:
    blocks = (np.array(block) for block in ([[1, 2, 3]] * 3, [[-4, 5]], np.zeros((2, 0), np.int64)))
    assert dimacs_text(blocks, 5) == "p cnf 5 6\n" + "1 2 3 0\n" * 3 + "-4 5 0\n" + "0\n" * 2


def test_a_big_block_streams_in_chunks_to_a_path(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    block = rng.integers(1, 10**6, (1_500_000, 3)) * rng.choice([-1, 1], (1_500_000, 3))
    path = tmp_path / "big.cnf"
    assert write_dimacs(path, block, 10**6, ["big"]) == 1_500_000
    with path.open() as text:
        assert text.readline() == "c big\n" and text.readline() == "p cnf 1000000 1500000\n"
        lines = text.read().splitlines()
    assert len(lines) == 1_500_000 and lines[-1] == " ".join(map(str, block[-1].tolist())) + " 0"


def test_a_wrong_clause_count_is_refused_and_the_file_removed(tmp_path: Path) -> None:
    path = tmp_path / "f.cnf"
    with pytest.raises(DimacsError, match="header says 3 clauses but 2"):
        write_dimacs(path, [[1], [2]], 2, n_clauses=3)
    assert not path.exists()
    with pytest.raises(DimacsError, match="out of range") as caught:
        write_dimacs(path, [[1], [-7]], 2)
    assert isinstance(caught.value, SudokuCpError) and isinstance(caught.value, ValueError)
    assert not path.exists()


def test_binary_stream_gets_utf8_comments() -> None:
    out = io.BytesIO()
    write_dimacs(out, [[1]], 1, ["from café.cnf"])
    assert out.getvalue().decode("utf-8") == "c from café.cnf\np cnf 1 1\n1 0\n"


def test_read_dimacs_gives_counts_and_clauses() -> None:
    assert read_dimacs("c x\np cnf 3 2\n1 -2\n 0 3 0\n%\n0\n") == DimacsCnf(3, ((1, -2), (3,)))


# ---------------------------------------------------------------------------------- solver answers


@pytest.mark.parametrize(
    ("text", "satisfiable", "literals", "form"),
    [
        ("c hi\ns SATISFIABLE\nv 1 -2\nv 3 0\n", True, [1, -2, 3], "competition"),
        ("s UNSATISFIABLE\n", False, None, "competition"),
        ("s UNKNOWN\n", None, None, "competition"),
        ("SAT\n-1 2 0\n", True, [-1, 2], "result"),
        ("unsat\n", False, None, "result"),
        ("c a model\nINDET\n", None, None, "result"),
        ("1 -2\n\nc between\n3 0\n", True, [1, -2, 3], "literals"),
        ("1 -2 3\n", True, [1, -2, 3], "literals"),  # the final 0 may be left out
        ("+1 -2 0", True, [1, -2], "literals"),
    ],
)
def test_every_form_of_answer(
    text: str, satisfiable: bool | None, literals: list[int] | None, form: str
) -> None:
    answer = read_solver_answer(text, 3)
    assert isinstance(answer, SolverAnswer)
    assert answer.satisfiable is satisfiable and answer.form == form
    assert (answer.literals is None) == (literals is None)
    if literals is not None:
        assert answer.literals is not None and answer.literals.tolist() == literals


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("", "empty solver output: no 's' line, result or literals", None),
        ("c only\n\n", "empty solver output", None),
        ("hello world\n", "line 1: unrecognized solver output 'hello world': expected SAT competition", 1),
        ("c x\n\nmaybe\n", "line 3: unrecognized solver output 'maybe'", 3),
        ("s SATISFIABLE\n", "printed no 'v' lines (solver output line 1)", 1),
        ("s SATISFIABLE\nv 1 2 x 0\n", "non-integer token 'x' (solver output line 2)", 2),
        ("s SATISFIABLE\nv 1 0\ns UNSATISFIABLE\n", "conflicting status lines", 3),
        ("SAT\n1 9 0\n", "model literal 9 is out of range for 3 variables (result file line 2)", 2),
        ("1 2\n3 -1 0\n", "both true and false (solver output line 2)", 2),
        ("1 0\n2 0\n", "literal 2 after the terminating 0 (solver output line 2)", 2),
        ("1 " + "9" * 25 + " 0", "too large", 1),
        ("s SATISFIABLE\nv 1 " + "x" * 10**6 + " 0\n", "non-integer token 'xxxxxxxxxx", 2),
    ],
)
def test_unreadable_answers_name_their_line(text: str, message: str, line: int | None) -> None:
    with pytest.raises(SolverProgramError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        read_solver_answer(text, 3 if text.startswith("SAT") else None)
    assert caught.value.line == line and isinstance(caught.value, SudokuCpError)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_without_literal_lists_numbers_are_not_an_answer() -> None:
    # The reduction's decoder also reads placements, some of which are rows of numbers.
    assert solver_answer_form("1 3\n2 1\n", literals=False) is None
    assert solver_answer_form("1 3\n2 1\n") == "literals"
    assert solver_answer_form("x...\n.x..\n", literals=False) is None
    assert solver_answer_form("SAT\n1 0\n", literals=False) == "result"
    assert solver_answer_form("c x\ns SATISFIABLE\nv 1 0\n", literals=False) == "competition"
    assert solver_answer_form("   \n") is None
    with pytest.raises(
        SolverProgramError, match=r"'1 3': expected .* result file \(SAT, then literals ending in 0\)$"
    ):
        read_solver_answer("1 3\n", literals=False)


# ------------------------------------------------------------------------------ hostile input (issue 11)


@pytest.mark.parametrize(
    ("text", "max_vars", "column", "words"),
    [
        ("p cnf 3 99999999999\n1 0\n", MAX_VARIABLES, 9, "more than 2 (what the rest of the text can hold)"),
        ("p cnf 3 6\n1 0\n0\n", MAX_VARIABLES, 9, "6 clauses is more than 3"),
        ("p cnf 11 0\n", 10, 7, "11 variables is more than 10 (the cap)"),
        ("p cnf " + "9" * 5000 + " 1\n1 0\n", MAX_VARIABLES, 7, "99999... variables is more than"),
        ("p cnf \u00b2 1\n1 0\n", MAX_VARIABLES, 7, "must be a nonnegative integer"),
    ],
)
def test_a_header_beyond_the_cap_or_the_text_is_refused_before_any_clause(
    text: str, max_vars: int, column: int, words: str
) -> None:
    with pytest.raises(ParseError) as caught:
        read_dimacs(text, max_vars=max_vars)
    assert (caught.value.line, caught.value.column) == (1, column)
    assert words in caught.value.message and len(str(caught.value)) < 150


def test_a_literal_of_thousands_of_digits_is_out_of_range_not_a_value_error() -> None:
    with pytest.raises(ParseError, match="beyond the 3 variables") as caught:
        read_dimacs("p cnf 3 1\n1 -" + "9" * 5000 + " 0\n")
    assert (caught.value.line, caught.value.column) == (2, 3) and len(str(caught.value)) < 150


@pytest.mark.parametrize("literal", ["-9223372036854775808", "9223372036854775807", "2147483648", "9" * 5000])
def test_a_model_literal_beyond_32_bits_is_refused_not_wrapped(literal: str) -> None:
    # -2**63 passed the int64 checks (its absolute value overflows to itself) and became literal 0.
    for text in (f"s SATISFIABLE\nv 1 {literal} 0\n", f"SAT\n1 {literal} 0\n", f"1 {literal} 0\n"):
        with pytest.raises(SolverProgramError, match="too large for a 32-bit literal") as caught:
            read_solver_answer(text)
        assert caught.value.line is not None and len(str(caught.value)) < 150
    assert read_solver_answer("1 -2147483647 0").literals.tolist() == [1, -2147483647]  # type: ignore[union-attr]


def test_a_byte_order_mark_is_ignored_in_every_text_read() -> None:
    assert read_dimacs("\ufeffp cnf 2 1\n1 -2 0\n") == DimacsCnf(2, ((1, -2),))
    for text in ("s SATISFIABLE\nv 1 -2 0\n", "SAT\n1 -2 0\n", "1 -2 0\n"):
        answer = read_solver_answer("\ufeff" + text)
        assert answer.satisfiable is True and answer.literals is not None
        assert answer.literals.tolist() == [1, -2]
    assert parse_solver_output("", "\ufeffUNSAT\n") == (False, None)
    with pytest.raises(SolverProgramError, match="no 's' line and no result file"):
        parse_solver_output("", "\ufeff")
