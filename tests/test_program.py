"""External DIMACS solver programs: CNF writing, output parsing, real solvers and misbehaving fake ones."""

from __future__ import annotations

import io
import itertools
import shutil
import stat
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.backends.base import BackendError
from sudoku_cp.backends.program import ProgramAnswer, run_solver_program
from sudoku_cp.backends.program_backend import UNVERIFIED, ProgramBackend
from sudoku_cp.cnf.dimacs import SolverProgramError, parse_solver_output, write_dimacs
from sudoku_cp.formats import parse_grid
from sudoku_cp.outcome import REASON_TIME_LIMIT

PROGRAMS = ["cadical -q", "minisat", "picosat", "cryptominisat5 --verb 0"]


def needs(command: str) -> str:
    """The command, or skip the test when its program is not installed."""
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"solver program {program!r} is not installed (not on PATH)")
    return command


def pigeonhole(pigeons: int, holes: int) -> tuple[list[list[int]], int]:
    """Clauses saying every pigeon sits in a hole and no hole holds two: UNSAT when pigeons > holes."""

    def var(p: int, h: int) -> int:
        return p * holes + h + 1

    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    for h in range(holes):
        for p, q in itertools.combinations(range(pigeons), 2):
            clauses.append([-var(p, h), -var(q, h)])
    return clauses, pigeons * holes


def satisfies(model: np.ndarray, clauses: Sequence[Sequence[int]]) -> bool:
    """Whether the literals set true by the model satisfy every clause."""
    true = set(model.tolist())
    return all(any(lit in true for lit in clause) for clause in clauses)


def fake_solver(tmp_path: Path, name: str, body: str) -> str:
    """An executable Python script in tmp_path; returns its path as a command."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport sys, time, subprocess\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


SAT_CLAUSES = [[1, 2, -3], [-1, 3], [-2, -3], [2, 3, 4], [-4, -1], [1, -2, 4]]


# ----------------------------------------------------------------------------------------- real solvers


@pytest.mark.parametrize("command", PROGRAMS)
def test_real_solver_finds_a_model_satisfying_every_clause(command: str) -> None:
    answer = run_solver_program(needs(command), SAT_CLAUSES, 4)
    assert answer.satisfiable is True
    assert answer.exit_code == 10
    assert answer.model is not None and answer.model.dtype == np.int32
    assert satisfies(answer.model, SAT_CLAUSES)


@pytest.mark.parametrize("command", PROGRAMS)
def test_real_solver_proves_pigeonhole_4_into_3_unsatisfiable(command: str) -> None:
    clauses, n_vars = pigeonhole(4, 3)
    answer = run_solver_program(needs(command), clauses, n_vars, comments=["pigeonhole 4 into 3"])
    assert answer == ProgramAnswer(False, None, answer.seconds, 20)


@pytest.mark.parametrize("command", PROGRAMS)
def test_real_solver_reads_numpy_blocks_with_zero_padding(command: str) -> None:
    clauses, n_vars = pigeonhole(3, 3)
    width = max(map(len, clauses))
    block = np.zeros((len(clauses), width), dtype=np.int32)
    for row, clause in enumerate(clauses):
        block[row, : len(clause)] = clause
    answer = run_solver_program(needs(command), block, n_vars)
    assert answer.satisfiable is True and answer.model is not None
    assert satisfies(answer.model, clauses)


def test_real_solvers_agree_on_random_3sat() -> None:
    rng = np.random.default_rng(7)
    available = [c for c in PROGRAMS if shutil.which(c.split()[0])]
    if len(available) < 2:
        pytest.skip("fewer than two solver programs installed")
    n_vars = 30
    for _ in range(8):
        variables = np.array([rng.choice(n_vars, 3, replace=False) + 1 for _ in range(130)])
        clauses = (variables * rng.choice([-1, 1], variables.shape)).tolist()
        answers = [run_solver_program(command, clauses, n_vars) for command in available]
        assert len({answer.satisfiable for answer in answers}) == 1
        for answer in answers:
            if answer.satisfiable:
                assert answer.model is not None and satisfies(answer.model, clauses)


def test_minisat_style_program_gets_cnf_and_result_file_paths(tmp_path: Path) -> None:
    command = fake_solver(
        tmp_path,
        "minisat-fake",
        "open(sys.argv[2], 'w').write('SAT\\n1 -2\\n0\\n')\nprint('SATISFIABLE')\nsys.exit(10)",
    )
    answer = run_solver_program(command, [[1], [-2]], 2)
    assert answer.satisfiable is True
    assert answer.model is not None and answer.model.tolist() == [1, -2]


def test_placeholders_put_the_paths_where_the_command_says(tmp_path: Path) -> None:
    command = fake_solver(
        tmp_path,
        "placeholders",
        "assert sys.argv[1] == '--in' and open(sys.argv[2]).read().startswith('c hi\\np cnf 1 1\\n')\n"
        "assert sys.argv[3].startswith('--result=')\n"
        "open(sys.argv[3][len('--result='):], 'w').write('UNSAT\\n')\nsys.exit(20)",
    )
    answer = run_solver_program(f"{command} --in {{cnf}} --result={{out}}", [[1]], 1, comments=["hi"])
    assert answer.satisfiable is False and answer.exit_code == 20


def test_cnf_path_is_appended_as_last_argument(tmp_path: Path) -> None:
    command = fake_solver(
        tmp_path,
        "lastarg",
        "assert sys.argv[1:-1] == ['--flag', 'a b']\n"
        "assert open(sys.argv[-1]).read() == 'p cnf 2 1\\n1 -2 0\\n'\n"
        "print('s SATISFIABLE\\nv 1 -2 0')\nsys.exit(10)",
    )
    answer = run_solver_program(f"{command} --flag 'a b'", [[1, -2]], 2)
    assert answer.satisfiable is True and answer.model is not None
    assert answer.model.tolist() == [1, -2]


# ----------------------------------------------------------------------------------------- fake solvers


def test_time_limit_kills_a_sleeping_solver_and_answers_unknown(tmp_path: Path) -> None:
    command = fake_solver(tmp_path, "sleeper", "time.sleep(30)\nprint('s UNSATISFIABLE')")
    start = time.monotonic()
    answer = run_solver_program(command, [[1]], 1, time_limit=0.5)
    assert time.monotonic() - start < 5
    assert answer.satisfiable is None and answer.model is None and answer.exit_code is None


def test_time_limit_also_kills_children_holding_the_output_pipe(tmp_path: Path) -> None:
    command = fake_solver(
        tmp_path,
        "forker",
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\ntime.sleep(30)",
    )
    start = time.monotonic()
    answer = run_solver_program(command, [[1]], 1, time_limit=0.5)
    assert time.monotonic() - start < 5
    assert answer.satisfiable is None


def test_crash_reports_exit_code_and_last_stderr_line(tmp_path: Path) -> None:
    command = fake_solver(
        tmp_path, "crasher", "sys.stderr.write('starting\\nout of cheese\\n')\nprint('c hello')\nsys.exit(3)"
    )
    with pytest.raises(SolverProgramError, match=r"exit code 3\): out of cheese$") as caught:
        run_solver_program(command, [[1]], 1)
    assert "\n" not in str(caught.value)


def test_killed_by_signal_reports_negative_exit_code(tmp_path: Path) -> None:
    command = fake_solver(tmp_path, "segv", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    with pytest.raises(SolverProgramError, match=r"crashed \(exit code -11, SIGSEGV\)"):
        run_solver_program(command, [[1]], 1)


@pytest.mark.parametrize(
    ("output", "code", "message"),
    [
        ("SATISFIABLE\\n1 2 0", 10, r"no 's' line and no result file"),
        ("s SATISFIABLE\\nv 1 two 0", 10, r"non-integer token 'two' \(solver output line 2\)"),
        ("s MAYBE", 0, r"unrecognized status line 's MAYBE' \(solver output line 1\)"),
        ("s UNSATISFIABLE", 10, r"exit code 10 \(SAT\) contradicts its answer UNSAT"),
        ("s SATISFIABLE\\nv 1 0", 20, r"exit code 20 \(UNSAT\) contradicts its answer SAT"),
        ("s SATISFIABLE\\nv 1 5 0", 10, r"literal 5 is out of range for 2 variables"),
        ("s SATISFIABLE", 10, r"printed no 'v' lines"),
    ],
)
def test_wrong_answer_format_is_an_error(tmp_path: Path, output: str, code: int, message: str) -> None:
    command = fake_solver(tmp_path, "liar", f"print('{output}')\nsys.exit({code})")
    with pytest.raises(SolverProgramError, match=message):
        run_solver_program(command, [[1, 2]], 2)


def test_unknown_answer_with_exit_code_0_is_unknown(tmp_path: Path) -> None:
    command = fake_solver(tmp_path, "unsure", "print('c thinking\\ns UNKNOWN')")
    answer = run_solver_program(command, [[1]], 1)
    assert answer.satisfiable is None and answer.exit_code == 0


def test_missing_program_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match=r"^solver program 'no-such-solver-xyz' not found$"):
        run_solver_program("no-such-solver-xyz -q", [[1]], 1)


def test_missing_program_path_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "absent" / "solver"
    with pytest.raises(SolverProgramError, match="not found"):
        run_solver_program(f"{missing} --flag", [[1]], 1)


def test_empty_command_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match="empty solver command"):
        run_solver_program("   ", [[1]], 1)


def test_no_time_limit_as_none_or_inf(tmp_path: Path) -> None:
    command = fake_solver(tmp_path, "quick", "print('s SATISFIABLE\\nv 1 0')\nsys.exit(10)")
    for limit in (None, float("inf")):
        answer = run_solver_program(command, [[1]], 1, time_limit=limit)
        assert answer.satisfiable is True and answer.reason is None


# ------------------------------------------------------------------- the program as a backend

PUZZLE_4X4 = "1..." + "." * 12  # one given: many solutions
LIAR = "print('s UNSATISFIABLE')\nsys.exit(20)"


def test_a_false_unsat_claim_is_refuted_by_python_sat(tmp_path: Path) -> None:
    backend = ProgramBackend(fake_solver(tmp_path, "liar", LIAR))
    with pytest.raises(
        BackendError, match=r"claimed UNSAT \(no solution\) but pysat:cadical195 found a valid"
    ):
        backend.search(parse_grid(PUZZLE_4X4), 1, float("inf"))


def test_trust_takes_the_claim_and_says_so_in_the_stats(tmp_path: Path) -> None:
    found = ProgramBackend(fake_solver(tmp_path, "liar", LIAR), trust=True).search(parse_grid(PUZZLE_4X4))
    assert found.complete and found.count == 0 and found.stats == {"runs": 1, UNVERIFIED: 1}


def test_a_true_unsat_claim_is_confirmed(tmp_path: Path) -> None:
    # Two equal givens in a row: no solution, and the encoding leaves it to the solver.
    puzzle = parse_grid("11" + "." * 14)
    found = ProgramBackend(fake_solver(tmp_path, "liar", LIAR), "minimal").search(puzzle)
    assert found.complete and found.count == 0 and found.reason is None
    assert found.stats == {"runs": 1}  # the program ran, its claim held, nothing is unverified


def test_a_confirmation_stopped_by_the_time_limit_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sudoku_cp.backends.confirm.solve_limited", lambda *args: None)
    command = fake_solver(tmp_path, "liar", LIAR)
    found = ProgramBackend(command).search(parse_grid(PUZZLE_4X4), 1, 5)
    assert not found.complete and found.count == 0 and found.timed_out
    assert (
        found.reason == f"{REASON_TIME_LIMIT} while confirming the UNSAT claim of solver program {command!r}"
    )


# ----------------------------------------------------------------------------------------- parsing


def test_parse_competition_output_with_multiline_model() -> None:
    text = "c comment\ns SATISFIABLE\nv 1 -2 3\nv -4 5\nc in between\nv -6 0\n"
    satisfiable, model = parse_solver_output(text, n_vars=6)
    assert satisfiable is True
    assert model is not None and model.dtype == np.int32
    assert model.tolist() == [1, -2, 3, -4, 5, -6]


def test_parse_terminating_zero_alone_on_last_v_line() -> None:
    satisfiable, model = parse_solver_output("s SATISFIABLE\nv 1 -2\nv 0\n")
    assert satisfiable is True and model is not None and model.tolist() == [1, -2]


def test_parse_unsatisfiable_has_no_model() -> None:
    assert parse_solver_output("c x\ns UNSATISFIABLE\n") == (False, None)


@pytest.mark.parametrize("word", ["UNKNOWN", "INDETERMINATE"])
def test_parse_unknown_is_none(word: str) -> None:
    assert parse_solver_output(f"s {word}\n") == (None, None)


def test_parse_minisat_result_file() -> None:
    stdout = "WARNING: noise\n|  Number of variables: 3 |\nSATISFIABLE\n"
    satisfiable, model = parse_solver_output(stdout, "SAT\n-1 2\n3 0\n", n_vars=3)
    assert satisfiable is True and model is not None and model.tolist() == [-1, 2, 3]
    assert parse_solver_output(stdout, "UNSAT\n") == (False, None)
    assert parse_solver_output("", "INDET\n") == (None, None)


def test_parse_empty_result_file_falls_back_to_stdout() -> None:
    assert parse_solver_output("s UNSATISFIABLE\n", "") == (False, None)


def test_parse_result_file_contradicting_stdout_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match="says UNSAT but its result file says SAT"):
        parse_solver_output("s UNSATISFIABLE\n", "SAT\n1 0\n")


def test_parse_malformed_v_line_names_the_line() -> None:
    text = "c a\nc b\ns SATISFIABLE\nv 1 2\nv 3 x4 0\n"
    with pytest.raises(
        SolverProgramError, match=r"^malformed model: non-integer token 'x4' \(solver output line 5\)$"
    ):
        parse_solver_output(text)


def test_parse_missing_final_zero_names_the_line() -> None:
    with pytest.raises(SolverProgramError, match=r"no terminating 0 \(solver output line 3\)"):
        parse_solver_output("s SATISFIABLE\nv 1 2\nv 3\n")


def test_parse_literal_after_final_zero_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match=r"after the terminating 0 \(solver output line 2\)"):
        parse_solver_output("s SATISFIABLE\nv 1 0 2\n")


def test_parse_out_of_range_literal_is_an_error() -> None:
    with pytest.raises(
        SolverProgramError, match=r"literal -9 is out of range for 4 variables \(solver output line 3\)"
    ):
        parse_solver_output("s SATISFIABLE\nv 1 2\nv -9 0\n", n_vars=4)
    with pytest.raises(
        SolverProgramError, match=r"literal 7 is out of range for 4 variables \(result file line 2\)"
    ):
        parse_solver_output("", "SAT\n1 7 0\n", n_vars=4)


def test_parse_variable_with_both_signs_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match=r"variable 2 both true and false \(solver output line 3\)"):
        parse_solver_output("s SATISFIABLE\nv 1 2\nv 3 -2 0\n")


def test_parse_without_any_answer_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match=r"^solver output has no 's' line and no result file$"):
        parse_solver_output("c only comments\n")


def test_parse_conflicting_status_lines_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match="conflicting status lines"):
        parse_solver_output("s SATISFIABLE\nv 1 0\ns UNSATISFIABLE\n")


def test_parse_model_for_unsat_is_an_error() -> None:
    with pytest.raises(SolverProgramError, match=r"said UNSATISFIABLE but printed 'v' lines"):
        parse_solver_output("s UNSATISFIABLE\nv 1 0\n")


# ----------------------------------------------------------------------------------------- writing


def test_write_dimacs_puts_comments_before_the_header() -> None:
    out = io.StringIO()
    write_dimacs(out, [[1, -2], [3]], 3, comments=["first", "", "two\nlines"])
    assert out.getvalue() == "c first\nc\nc two\nc lines\np cnf 3 2\n1 -2 0\n3 0\n"


def test_write_dimacs_drops_zero_padding_of_numpy_blocks() -> None:
    out = io.StringIO()
    block = np.array([[1, -2, 0], [3, 0, 0], [-1, 2, 3]], dtype=np.int16)
    mixed: list[Any] = [block, np.array([-3, 0]), [2]]
    write_dimacs(out, mixed, 3)
    assert out.getvalue() == "p cnf 3 5\n1 -2 0\n3 0\n-1 2 3 0\n-3 0\n2 0\n"


def test_write_dimacs_to_a_path_and_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "f.cnf"
    write_dimacs(path, np.array([[1, 2], [-1, -2]]), 2)
    binary = io.BytesIO()
    write_dimacs(binary, iter([[1, 2], [-1, -2]]), 2)
    assert path.read_text() == binary.getvalue().decode() == "p cnf 2 2\n1 2 0\n-1 -2 0\n"


@pytest.mark.parametrize(
    ("clauses", "message"),
    [([[1, 4]], "out of range"), ([[1, 0, 2]], "literal 0 inside a clause"), ([[1.5]], "integers")],
)
def test_write_dimacs_rejects_bad_literals(clauses: list[list[Any]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        write_dimacs(io.StringIO(), clauses, 3)


def test_write_dimacs_many_clauses_from_a_block() -> None:
    rng = np.random.default_rng(1)
    n_vars = 5000
    block = rng.integers(1, n_vars + 1, (200_000, 3)) * rng.choice([-1, 1], (200_000, 3))
    out = io.StringIO()
    write_dimacs(out, block, n_vars)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"p cnf {n_vars} 200000" and len(lines) == 200_001
    assert lines[-1] == " ".join(map(str, block[-1].tolist())) + " 0"


@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.lists(st.integers(1, n).map(int) | st.integers(-n, -1), max_size=6), max_size=30),
        )
    )
)
def test_write_dimacs_round_trips_through_pysat(case: tuple[int, list[list[int]]]) -> None:
    formula = pytest.importorskip("pysat.formula")
    n_vars, clauses = case
    out = io.StringIO()
    write_dimacs(out, clauses, n_vars, comments=["round trip"])
    parsed = formula.CNF(from_string=out.getvalue())
    assert parsed.clauses == clauses
    header = [line for line in out.getvalue().splitlines() if line.startswith("p ")]
    assert header == [f"p cnf {n_vars} {len(clauses)}"]
