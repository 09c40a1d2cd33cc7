"""The sudoku-cp command line, run in-process through ``main`` (and once as ``python -m sudoku_cp``)."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sudoku_cp.cli import main, worst_exit
from sudoku_cp.cli.common import progress

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
WRONG_LENGTH = PUZZLE[:-1]
UNKNOWN_SYMBOL = PUZZLE[:31] + "?" + PUZZLE[32:]
EQUAL_GIVENS = "44" + PUZZLE[2:]  # R1C1 and R1C2 both hold 4
# A blanked solution with one given changed: no two equal givens, but singles propagation
# reaches a contradiction, so there is no solution.
UNSOLVABLE = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."
EMPTY_4X4 = "." * 16


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one in-process run."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("sudoku-cp: error: ")
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def batch_file(tmp_path: Path) -> Path:
    path = tmp_path / "batch.txt"
    lines = ["# five puzzles", PUZZLE, WRONG_LENGTH, UNKNOWN_SYMBOL, EQUAL_GIVENS, UNSOLVABLE]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_solve_literal_puzzle_prints_boxed_solution(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "solve", PUZZLE)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "4 1 7 | 3 6 9 | 8 2 5"
    assert lines[3] == "------+-------+------"
    assert lines[-1].startswith("solved (pysat")


@pytest.mark.parametrize("backend", ["pysat", "pysat:glucose4", "cpsat", "cpsat:alldiff", "dlx"])
def test_solve_line_output_is_the_solution_for_every_backend(
    capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    code, out, _ = run(capsys, "solve", "--backend", backend, "--unique", "--output", "line", PUZZLE)
    assert code == 0
    assert out.splitlines()[0] == SOLUTION
    assert out.splitlines()[1].startswith("solved, unique")


def test_solve_single_json_output_has_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--output", "json", PUZZLE)
    obj = json.loads(out)
    assert code == 0
    assert obj["status"] == "solved" and obj["solution"] == SOLUTION
    assert obj["rows"][0] == [4, 1, 7, 3, 6, 9, 8, 2, 5]


def test_solve_reads_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(PUZZLE + "\n"))
    code, out, _ = run(capsys, "solve", "--output", "line", "-")
    assert code == 0 and out.splitlines()[0] == SOLUTION


def test_batch_gives_one_line_per_puzzle_and_exit_2(
    capsys: pytest.CaptureFixture[str], batch_file: Path
) -> None:
    code, out, err = run(capsys, "solve", str(batch_file))
    lines = out.splitlines()
    assert code == 2 and err == ""
    assert len(lines) == 6
    assert lines[0] == f"#1 line 2: solved {SOLUTION}"
    assert lines[1].startswith("#2 line 3: invalid 80 symbols")
    assert lines[2].startswith("#3 line 4: invalid column 32: unknown symbol '?'")
    assert lines[3] == "#4 line 5: invalid R1C1 and R1C2 both hold 4 in row 1"
    assert lines[4] == "#5 line 6: unsat no solution"
    assert re.match(
        r"summary: 5 puzzles: 1 solved, 1 unsat, 3 invalid; .* ms/puzzle, .* puzzles/s$", lines[5]
    )


def test_batch_json_lines_parse_and_end_with_summary(
    capsys: pytest.CaptureFixture[str], batch_file: Path
) -> None:
    code, out, _ = run(capsys, "solve", "--json", "--backend", "cpsat", str(batch_file))
    objects = [json.loads(line) for line in out.splitlines()]
    assert code == 2
    results, summary = objects[:-1], objects[-1]["summary"]
    assert [obj["index"] for obj in results] == [0, 1, 2, 3, 4]
    assert [obj["status"] for obj in results] == ["solved", "invalid", "invalid", "invalid", "unsat"]
    assert all("seconds" in obj for obj in results)
    assert results[0]["solution"] == SOLUTION
    assert "column 32" in results[2]["error"]
    assert summary["puzzles"] == 5 and summary["solved"] == 1 and summary["invalid"] == 3
    assert summary["exit_code"] == 2


def test_batch_of_good_puzzles_with_jobs_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "good.txt"
    path.write_text("\n".join([PUZZLE] * 5) + "\n")
    code, out, _ = run(capsys, "solve", "--jobs", "2", "--no-progress", str(path))
    assert code == 0
    assert out.count(SOLUTION) == 5
    assert "5 solved" in out.splitlines()[-1]


def test_unsat_puzzle_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", UNSOLVABLE)
    assert code == 1
    assert out.startswith("unsat")


def test_not_unique_under_unique_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--unique", EMPTY_4X4)
    assert code == 1
    assert "multiple" in out.splitlines()[-1]


def test_single_invalid_puzzle_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "solve", EQUAL_GIVENS)
    assert code == 2 and out == ""
    assert "R1C1 and R1C2 both hold 4 in row 1" in assert_one_line_error(err)


def test_unknown_symbol_names_line_column_and_cell(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "one.txt"
    path.write_text(UNKNOWN_SYMBOL + "\n")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 2
    assert "line 1, column 32: unknown symbol '?' (R4C5)" in assert_one_line_error(err)


def test_empty_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 2
    assert "empty input" in assert_one_line_error(err)


@pytest.mark.parametrize("name", ["missing.txt", "no/such/dir/puzzle.txt"])
def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, _, err = run(capsys, "solve", name)
    assert code == 2
    assert assert_one_line_error(err) == f"sudoku-cp: error: no such file: {name}"


def test_unknown_backend_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "--backend", "nosuch", PUZZLE)
    assert code == 2
    assert "unknown backend 'nosuch'" in assert_one_line_error(err)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "solve", "--box", "2x", PUZZLE)[0] == 2
    assert run(capsys, "solve", "--time-limit", "-1", PUZZLE)[0] == 2
    assert run(capsys, "frobnicate")[0] == 2
    assert run(capsys, "--version")[0] == 0


def test_missing_solver_program_is_a_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 11, defect 9: checked once, before any puzzle is solved (it was 'unknown', exit 3).
    code, out, err = run(capsys, "solve", "--solver-cmd", "no-such-solver-program-xyz", PUZZLE)
    assert code == 2 and out == ""
    assert assert_one_line_error(err).endswith("program 'no-such-solver-program-xyz' not found")


def fake_solver(tmp_path: Path, name: str, body: str) -> str:
    """An executable Python script standing in for a solver program; returns its path."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_crashing_solver_program_is_unknown_exit_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command = fake_solver(tmp_path, "crasher", "sys.stderr.write('out of cheese\\n')\nsys.exit(3)")
    code, out, err = run(capsys, "solve", "--solver-cmd", command, PUZZLE)
    assert code == 3 and err == "" and "Traceback" not in out
    assert out.startswith(f"unknown: solver program '{command}' failed (exit code 3): out of cheese")


def test_sleeping_solver_program_times_out_as_unknown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command = fake_solver(tmp_path, "sleeper", "time.sleep(30)\nprint('s UNSATISFIABLE')")
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--time-limit", "0.5", PUZZLE)
    assert code == 3
    assert out.startswith("unknown: time limit reached")


def test_batch_with_crashing_solver_program_reports_every_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, batch_file: Path
) -> None:
    command = fake_solver(tmp_path, "crasher", "sys.exit(3)")
    code, out, err = run(capsys, "solve", "--solver-cmd", command, "--jobs", "2", str(batch_file))
    lines = out.splitlines()
    assert code == 2 and err == ""
    assert len(lines) == 6
    assert lines[0].startswith("#1 line 2: unknown solver program") and "exit code 3" in lines[0]
    assert lines[1].startswith("#2 line 3: invalid")
    assert lines[4] == "#5 line 6: unsat no solution"  # propagation proves it before any program runs
    assert "1 unsat, 1 unknown, 3 invalid" in lines[5]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (WRONG_LENGTH, "line 1: 80 symbols is not a square grid"),
        (UNKNOWN_SYMBOL, "line 1, column 32: unknown symbol '?' (R4C5)"),
        (PUZZLE[:-1] + "A", "line 1, column 81: symbol 'A' stands for 10, out of range 1-9 (R9C9)"),
        ("1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 17\n", "line 4, column 7: digit 17 out of range 1-4 (R4C4)"),
        ("1" * 49, "line 1: a 7x7 grid has no box shape"),
        ("123456" + "." * 30, "several box shapes (2x3, 3x2)"),
        (EQUAL_GIVENS, "invalid puzzle: R1C1 and R1C2 both hold 4 in row 1"),
        ("", "empty input"),
    ],
)
@pytest.mark.parametrize("command", ["solve", "count", "encode"])
def test_bad_puzzle_file_is_one_line_naming_file_and_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str, command: str
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    code, out, err = run(capsys, command, str(path))
    assert code == 2 and out == ""
    assert assert_one_line_error(err).startswith(f"sudoku-cp: error: {path}: ")
    assert message in err


def test_batch_of_mixed_sizes_and_bad_lines_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mixed.txt"
    lines = [PUZZLE, "1" * 49, "....12....13....", PUZZLE[:-1] + "A", "1 2", PUZZLE]
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "solve", str(path))
    got = out.splitlines()
    assert code == 2 and err == ""
    assert len(got) == len(lines) + 1
    assert got[0] == f"#1 line 1: solved {SOLUTION}"
    assert got[1] == "#2 line 2: invalid a 7x7 grid has no box shape (7 is not a product of two factors >= 2)"
    assert got[2] == "#3 line 3: solved 4321123424133142"
    assert got[3].startswith("#4 line 4: invalid column 81: symbol 'A' stands for 10, out of range 1-9")
    assert got[4].startswith("#5 line 5: invalid")
    assert got[5] == f"#6 line 6: solved {SOLUTION}"
    assert got[6].startswith("summary: 6 puzzles: 3 solved, 3 invalid")


@pytest.mark.skipif(shutil.which("cadical") is None, reason="no cadical program on PATH")
def test_solver_program_solves(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "--solver-cmd", "cadical -q", "--output", "line", PUZZLE)
    assert code == 0 and out.splitlines()[0] == SOLUTION


def test_worst_exit_orders_2_3_1_0() -> None:
    assert worst_exit([]) == 0
    assert worst_exit([0, 1]) == 1
    assert worst_exit([1, 3, 0]) == 3
    assert worst_exit([3, 2, 1]) == 2


def test_count_empty_4x4_is_288_exact(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "count", EMPTY_4X4)
    assert code == 0
    assert out.splitlines()[0] == "count: 288 (exact)"


def test_count_6x6_with_one_row_given(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "count", "--box", "2x3", "123456" + "." * 30)
    assert code == 0
    assert out.splitlines()[0] == "count: 39168 (exact)"


def test_count_json_at_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "count", "--limit", "10", "--json", EMPTY_4X4)
    obj = json.loads(out)
    assert code == 0
    assert obj["count"] == 10 and obj["exact"] is False and obj["timed_out"] is False
    assert obj["seconds"] >= 0


def test_count_of_unsolvable_puzzle_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "count", "--backend", "pysat", UNSOLVABLE)
    assert code == 1 and out.startswith("count: 0 (exact)")


def test_count_takes_one_puzzle(capsys: pytest.CaptureFixture[str], batch_file: Path) -> None:
    code, _, err = run(capsys, "count", str(batch_file))
    assert code == 2
    assert "holds 5 puzzles; count takes one" in assert_one_line_error(err)


def dimacs_header_and_clauses(path: Path) -> tuple[int, int, list[list[int]]]:
    n_vars = n_clauses = -1
    clauses = []
    for line in path.read_text().splitlines():
        if line.startswith("c"):
            continue
        if line.startswith("p cnf"):
            n_vars, n_clauses = map(int, line.split()[2:])
            continue
        literals = list(map(int, line.split()))
        assert literals[-1] == 0
        clauses.append(literals[:-1])
    return n_vars, n_clauses, clauses


@pytest.mark.parametrize(
    ("encoding", "amo"), [("extended", "pairwise"), ("minimal", "seqcounter"), ("optimized", "ladder")]
)
def test_encode_cnf_header_matches_clauses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, encoding: str, amo: str
) -> None:
    path = tmp_path / "puzzle.cnf"
    code, out, _ = run(
        capsys, "encode", "--to", "cnf", "--encoding", encoding, "--amo", amo, PUZZLE, "-o", str(path)
    )
    assert code == 0 and out.startswith(f"wrote {path}")
    n_vars, n_clauses, clauses = dimacs_header_and_clauses(path)
    assert n_clauses == len(clauses) > 0
    assert max(abs(lit) for clause in clauses for lit in clause) <= n_vars
    assert f"c encoding {encoding} amo {amo}" in path.read_text()


def test_encode_cnf_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "encode", EMPTY_4X4)
    assert code == 0
    assert "p cnf 64 " in out and out.startswith("c sudoku_cp CNF model")


def test_encode_exact_cover_in_dlx_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "puzzle.dlx"
    code, _, _ = run(capsys, "encode", "--to", "xc", PUZZLE, "-o", str(path))
    lines = [line for line in path.read_text().splitlines() if not line.startswith("|")]
    items = set(lines[0].split())
    assert code == 0
    assert all(len(option.split()) == 4 and set(option.split()) <= items for option in lines[1:])


def test_encode_cpsat_model_as_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "puzzle.pb.txt"
    code, _, _ = run(capsys, "encode", "--to", "cpsat", "--model", "alldiff", PUZZLE, "-o", str(path))
    text = path.read_text()
    assert code == 0
    assert text.count("variables {") == 81 and 'name: "v_r1c1"' in text


def test_encode_refuses_invalid_puzzle(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "encode", "--to", "xc", EQUAL_GIVENS)
    assert code == 2
    assert "both hold 4" in assert_one_line_error(err)


@pytest.fixture
def solved_cnf(tmp_path: Path) -> tuple[Path, list[int]]:
    """The puzzle file and a satisfying model of its extended seqcounter CNF, found by python-sat."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    puzzle = tmp_path / "puzzle.txt"
    puzzle.write_text(PUZZLE + "\n")
    cnf_path = tmp_path / "puzzle.cnf"
    assert main(["encode", "--to", "cnf", "--amo", "seqcounter", str(puzzle), "-o", str(cnf_path)]) == 0
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    assert model is not None
    return puzzle, model


def test_decode_round_trip_competition_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, solved_cnf: tuple[Path, list[int]]
) -> None:
    puzzle, model = solved_cnf
    answer = tmp_path / "solver-output.txt"
    answer.write_text("c a comment\ns SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    capsys.readouterr()
    code, out, _ = run(capsys, "decode", "--amo", "seqcounter", "--output", "line", str(puzzle), str(answer))
    assert code == 0
    assert out.splitlines()[0] == SOLUTION


@pytest.mark.parametrize("form", ["minisat", "bare"])
def test_decode_minisat_result_and_bare_literals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, solved_cnf: tuple[Path, list[int]], form: str
) -> None:
    puzzle, model = solved_cnf
    literals = " ".join(map(str, model))
    answer = tmp_path / "answer.txt"
    answer.write_text(f"SAT\n{literals} 0\n" if form == "minisat" else f"{literals}\n")
    capsys.readouterr()
    code, out, _ = run(capsys, "decode", "--amo", "seqcounter", "--output", "json", str(puzzle), str(answer))
    assert code == 0
    assert json.loads(out)["solution"] == SOLUTION


def test_decode_without_amo_ignores_auxiliary_variables(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, solved_cnf: tuple[Path, list[int]]
) -> None:
    puzzle, model = solved_cnf  # extended seqcounter: auxiliary variables past 729
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    capsys.readouterr()
    code, out, _ = run(capsys, "decode", "--output", "line", str(puzzle), str(answer))
    assert code == 0 and out.splitlines()[0] == SOLUTION


def test_decode_with_other_amo_names_the_mismatch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, solved_cnf: tuple[Path, list[int]]
) -> None:
    puzzle, model = solved_cnf
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    capsys.readouterr()
    code, _, err = run(capsys, "decode", "--amo", "pairwise", str(puzzle), str(answer))  # no auxiliaries
    assert code == 2
    assert "out of range" in assert_one_line_error(err)


def test_decode_with_other_encoding_names_the_mismatch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, solved_cnf: tuple[Path, list[int]]
) -> None:
    puzzle, model = solved_cnf
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    capsys.readouterr()
    code, _, err = run(capsys, "decode", "--encoding", "optimized", str(puzzle), str(answer))
    assert code == 2
    assert "another --encoding" in assert_one_line_error(err)


@pytest.mark.skipif(shutil.which("cadical") is None, reason="no cadical program on PATH")
def test_readme_encode_solve_decode_round_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    puzzle = tmp_path / "puzzle.txt"
    puzzle.write_text(PUZZLE + "\n")
    cnf = tmp_path / "puzzle.cnf"
    argv = [
        "encode",
        "--to",
        "cnf",
        "--encoding",
        "extended",
        "--amo",
        "seqcounter",
        str(puzzle),
        "-o",
        str(cnf),
    ]
    assert run(capsys, *argv)[0] == 0
    answer = tmp_path / "solver-output.txt"
    with answer.open("w") as stream:
        done = subprocess.run(["cadical", "-q", str(cnf)], stdout=stream, timeout=60, check=False)
    assert done.returncode == 10
    code, out, _ = run(capsys, "decode", "--output", "line", str(puzzle), str(answer))
    assert code == 0 and out.splitlines()[0] == SOLUTION


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("s SATISFIABLE\nv 1 2 x 0\n", "non-integer token 'x' (solver output line 2)"),
        ("hello world\n", "line 1: unrecognized solver output"),
        ("s SATISFIABLE\n", "printed no 'v' lines"),
        ("", "empty solver output"),
    ],
)
def test_decode_malformed_output_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(text)
    code, out, err = run(capsys, "decode", PUZZLE, str(answer))
    assert code == 2 and out == ""
    assert message in assert_one_line_error(err)


def test_decode_wrong_model_is_rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("s SATISFIABLE\nv 1 -2 0\n")  # R1C1 = 1 contradicts the given 4
    code, _, err = run(capsys, "decode", PUZZLE, str(answer))
    assert code == 2
    assert "not a solution" in assert_one_line_error(err)


@pytest.mark.parametrize(("text", "code"), [("s UNSATISFIABLE\n", 1), ("UNSAT\n", 1), ("s UNKNOWN\n", 3)])
def test_decode_unsat_and_unknown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, code: int
) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(text)
    got, out, _ = run(capsys, "decode", UNSOLVABLE, str(answer))
    assert got == code
    assert out.strip() == ("unsat (confirmed by python-sat)" if code == 1 else "unknown")


@pytest.mark.parametrize("text", ["s UNSATISFIABLE\n", "UNSAT\n"])
def test_decode_refuses_a_false_unsat_claim(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    """An UNSAT answer is a claim: for a solvable puzzle it is an error, never 'unsat' (defect 8)."""
    answer = tmp_path / "answer.txt"
    answer.write_text(text)
    got, out, err = run(capsys, "decode", PUZZLE, str(answer))
    assert got == 2 and out == ""
    assert "claims UNSAT, but the puzzle has a solution" in assert_one_line_error(err)


def test_no_arguments_solves_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys)
    assert code == 0
    assert "AI Escargot" in out
    assert "1 . . | . . 7 | . 9 .    1 6 2 | 8 5 7 | 4 9 3" in out
    assert "solved, unique, checked" in out
    assert out.splitlines()[-1] == "try: sudoku-cp --help"


@pytest.mark.parametrize("command", [[], ["solve"], ["count"], ["encode"], ["decode"]])
def test_help_works_for_every_command(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run(capsys, *command, "--help")
    assert code == 0
    assert out.startswith("usage: sudoku-cp")
    assert "exit codes:" in out
    if not command:
        assert "a-z for 36-61" in out and "cpsat:alldiff" in out


def test_progress_bar_draws_counts_and_clears() -> None:
    stream = io.StringIO()
    with progress(4, "solving", enabled=True, stream=stream, delay=0) as bar:
        assert bar is not None
        for _ in range(4):
            bar.update()
            bar.refresh()
    text = stream.getvalue()
    assert "solving" in text and "4/4" in text and "100%" in text
    assert text.rstrip(" ").endswith("\r")  # erased at the end (leave=False)


def test_progress_bar_is_silent_off_a_terminal() -> None:
    stream = io.StringIO()
    with progress(3, "solving", stream=stream) as bar:
        assert bar is None
    assert stream.getvalue() == ""


def test_module_entry_point_solves(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "solve", "--output", "line", PUZZLE],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == SOLUTION
