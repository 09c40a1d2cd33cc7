"""sudoku-cp verify, run in-process through ``main``: backends, external programs and answer files."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, read_lines
from test_cli import assert_one_line_error, run

from sudoku_cp.formats import format_line
from sudoku_cp.geometry import Geometry
from sudoku_cp.random_grids import blank_cells, random_solution

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
UNSOLVABLE = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."
PROGRAMS = Path(__file__).parent / "programs"
DLX_JSON = "verify --backend dlx --in-process --runs 2 --json"
RUN_KEYS = {"solver", "puzzle", "line", "run", "seed", "claimed", "verdict", "seconds", "detail"}


def program(name: str, *arguments: str) -> str:
    """The command that runs a test solver program with this Python."""
    return shlex.join([sys.executable, str(PROGRAMS / name), *arguments])


def json_lines(out: str) -> tuple[list[dict[str, object]], dict[str, object]]:
    objects = [json.loads(line) for line in out.splitlines()]
    summary = objects[-1]["summary"]
    assert isinstance(summary, dict)
    return objects[:-1], summary


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Three 9x9 puzzles: a unique one, a multi-solution one (serg), a contradictory one."""
    path = tmp_path / "corpus.txt"
    multi = read_lines(DATA / "serg_100.txt", 1)[0]
    path.write_text(f"# three puzzles\n{PUZZLE}\n{multi}\n{UNSOLVABLE}\n")
    return path


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """Four quick 6x6 (2x3) puzzles for runs of external programs."""
    rng = np.random.default_rng(6)
    lines = [format_line(blank_cells(random_solution(Geometry(2, 3), rng), 0.5, rng)) for _ in range(4)]
    path = tmp_path / "six.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


# -------------------------------------------------------------------------------------- backends


def test_backends_all_correct_exit_0_with_a_table(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, err = run(capsys, "verify", "--backend", "dlx", "--backend", "pysat", "--unique", str(corpus))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["solver", "runs", "solved", "success"]
    assert lines[1].split()[:4] == ["dlx", "3", "3", "100.0%"]
    assert lines[2].split()[:4] == ["pysat", "3", "3", "100.0%"]
    assert lines[-1].startswith("verify: 3 puzzles, 6 runs, no wrong answer; ground truth: 2 SAT calls")


def test_runs_and_seeds_in_json_lines(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(capsys, *DLX_JSON.split(), "--seed", "5", str(corpus))
    assert code == 0
    runs, summary = json_lines(out)
    assert len(runs) == 6 and all(set(obj) >= RUN_KEYS for obj in runs)
    assert [(obj["puzzle"], obj["line"], obj["run"]) for obj in runs[:2]] == [(1, 2, 1), (1, 2, 2)]
    assert runs[0]["seed"] != runs[1]["seed"]
    assert runs[0]["solution"] == SOLUTION and runs[0]["verdict"] == "correct"
    assert runs[-1]["claimed"] == "unsat" and runs[-1]["verdict"] == "correct"
    solvers = summary["solvers"]
    assert isinstance(solvers, list) and solvers[0]["runs"] == 6 and solvers[0]["correct"] == 6
    assert summary["exit_code"] == 0 and summary["runs_per_puzzle"] == 2


def test_same_seed_same_json_seeds(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    seeds = []
    for _ in range(2):
        _, out, _ = run(capsys, *DLX_JSON.split(), "--seed", "9", str(corpus))
        seeds.append([obj["seed"] for obj in json_lines(out)[0]])
    assert seeds[0] == seeds[1]


# ------------------------------------------------------------------------------- external programs


def test_correct_program_passes(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(capsys, "verify", "--solver-cmd", program("correct.py", "--unique"), str(corpus))
    assert code == 0
    name = Path(sys.executable).name
    assert out.splitlines()[1].split()[:6] == [name, "correct.py", "--unique", "3", "3", "100.0%"]


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (("cell",), "both hold"),
        (("given",), "but the given is"),
        (("blank",), "is empty"),
        (("unique",), "claimed unique, but SAT finds another solution"),
    ],
)
def test_wrong_program_is_caught_exit_4(
    capsys: pytest.CaptureFixture[str], corpus: Path, arguments: tuple[str, ...], words: str
) -> None:
    code, out, _ = run(capsys, "verify", "--solver-cmd", program("wrong.py", *arguments), str(corpus))
    assert code == 4
    wrong = [line for line in out.splitlines() if ": wrong (" in line]
    assert wrong and all(words in line for line in wrong)
    first_wrong = "#2 line 3" if arguments == ("unique",) else "#1 line 2"
    assert wrong[0].split(": ")[1] == first_wrong
    assert f"wrong answers of {Path(sys.executable).name} wrong.py" in out


def test_false_no_solution_claims_are_caught(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(capsys, "verify", "--solver-cmd", program("false_unsat.py"), "--json", str(corpus))
    assert code == 4
    runs, summary = json_lines(out)
    assert [obj["verdict"] for obj in runs] == ["wrong", "wrong", "correct"]
    assert all(obj["claimed"] == "unsat" for obj in runs)
    assert summary["ground_truth"] == {"backend": "pysat", "sat_calls": 3, "seconds": pytest.approx(0, abs=5)}


def test_crashing_program_one_line_per_puzzle_exit_3(
    capsys: pytest.CaptureFixture[str], corpus: Path
) -> None:
    code, out, err = run(capsys, "verify", "--solver-cmd", program("crash.py"), str(corpus))
    assert code == 3 and err == ""
    crashes = [
        line
        for line in out.splitlines()
        if ": crash (claimed none): exit code 3: crash.py: out of cheese" in line
    ]
    assert len(crashes) == 3


def test_missing_program_is_a_usage_error_before_any_run(
    capsys: pytest.CaptureFixture[str], corpus: Path
) -> None:
    # Issue 11, defect 9: one rule for a command that cannot run, as in solve: exit 2, one line.
    code, out, err = run(capsys, "verify", "--solver-cmd", "no-such-solver-xyz --fast", str(corpus))
    assert code == 2 and out == ""
    line = assert_one_line_error(err)
    assert line.endswith("solver command 'no-such-solver-xyz --fast': program 'no-such-solver-xyz' not found")


def test_garbage_printing_program_is_unreadable(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(capsys, "verify", "--solver-cmd", program("garbage.py"), str(corpus))
    assert code == 3
    assert out.count("crash (claimed none): unreadable answer 'solution: ") == 3


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_hanging_program_is_killed_with_its_children(
    capsys: pytest.CaptureFixture[str], small_corpus: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids.txt"
    command = program("hang.py", str(pids))
    code, out, _ = run(
        capsys, "verify", "--solver-cmd", command, "--timeout", "0.5", "--box", "2x3", str(small_corpus)
    )
    assert code == 3
    assert out.count("timeout (claimed none): killed at the time limit") == 4
    children = [int(line) for line in pids.read_text().split()]
    assert len(children) == 4
    deadline = time.monotonic() + 10
    while not all(_dead(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_dead(pid) for pid in children)


def test_puzzle_as_argument_and_box_placeholders(
    capsys: pytest.CaptureFixture[str], small_corpus: Path
) -> None:
    command = program("correct.py", "--box", "{box}", "{}")
    code, out, _ = run(capsys, "verify", "--solver-cmd", command, "--box", "2x3", "--json", str(small_corpus))
    assert code == 0
    runs, _ = json_lines(out)
    assert [obj["verdict"] for obj in runs] == ["correct"] * 4


def test_solver_with_the_wrong_box_shape_is_caught(
    capsys: pytest.CaptureFixture[str], small_corpus: Path
) -> None:
    # Told 3x2 boxes for 2x3 puzzles, the program solves other rules: grids that break ours, or 'unsat'.
    code, _, _ = run(
        capsys,
        "verify",
        "--solver-cmd",
        program("correct.py", "--box", "3x2"),
        "--box",
        "2x3",
        str(small_corpus),
    )
    assert code == 4


# ---------------------------------------------------------------------------------- answer files


def test_answer_file_checked_line_by_line(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text(f"{SOLUTION}\n\nunsat\n")
    code, out, _ = run(capsys, "verify", "--answers", str(answers), str(corpus))
    assert code == 3  # the empty line is 'unknown'
    assert (
        f"answers:{answers}: #2 line 3: unknown (claimed unknown): answer file line 2: no answer given" in out
    )


def test_answer_file_with_a_wrong_line_exits_4(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text(f"{SOLUTION}\nunique {SOLUTION}\nunsat\n")
    code, out, _ = run(capsys, "verify", "--answers", str(answers), "--runs", "3", str(corpus))
    assert code == 4
    assert "#2 line 3: wrong (claimed unique): the solution is not valid" in out
    row = next(line for line in out.splitlines() if line.startswith("answers:") and " #" not in line)
    assert row.split()[1:3] == ["3", "2"]  # answer files run once, whatever --runs says


def test_answer_file_count_mismatch_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    answers = tmp_path / "short.txt"
    answers.write_text(f"{SOLUTION}\nunsat\n")
    code, out, err = run(capsys, "verify", "--answers", str(answers), str(corpus))
    assert code == 2 and out == ""
    assert f"{answers}: 2 answer lines (the last is line 2) for 3 puzzles" in assert_one_line_error(err)


# ------------------------------------------------------------------------------- bad input, codes


def test_invalid_corpus_line_exit_2_and_the_rest_is_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text(f"{PUZZLE}\n{PUZZLE[:40]}?{PUZZLE[41:]}\n{UNSOLVABLE}\n")
    code, out, _ = run(capsys, "verify", "--backend", "pysat", str(path))
    assert code == 2
    assert "pysat: #2 line 2: invalid puzzle: column 41: unknown symbol '?' (R5C5)" in out
    row = next(line for line in out.splitlines() if line.startswith("pysat "))
    assert row.split()[1:3] == ["2", "2"] and row.split()[-1] == "1"  # 2 runs, 2 solved, 1 invalid


def test_wrong_outweighs_invalid(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text(f"{PUZZLE}\n{PUZZLE}\n{PUZZLE[:40]}\n")
    code, _, _ = run(capsys, "verify", "--solver-cmd", program("false_unsat.py"), str(path))
    assert code == 4


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("verify", "no-such-corpus.txt", "--backend", "dlx"), "no such file: no-such-corpus.txt"),
        (("verify", PUZZLE), "name a solver"),
        (("verify", PUZZLE, "--backend", "nope"), "unknown backend 'nope'"),
        (("verify", PUZZLE, "--solver-cmd", "x 'open"), "cannot split solver command"),
        (("verify", PUZZLE, "--answers", "no-such-answers.txt"), "no such file: no-such-answers.txt"),
        (("verify", PUZZLE, "--backend", "dlx", "--backend", "dlx"), "solver 'dlx' is named twice"),
        (("verify", "-", "--answers", "-"), "cannot both be standard input"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert words in assert_one_line_error(err)


@pytest.mark.parametrize("option", [("--runs", "0"), ("--timeout", "-1"), ("--seed", "-3")])
def test_bad_numbers_are_usage_errors(capsys: pytest.CaptureFixture[str], option: tuple[str, str]) -> None:
    code, _, err = run(capsys, "verify", PUZZLE, "--backend", "dlx", *option)
    assert code == 2 and "Traceback" not in err and option[0] in err


def test_help_documents_protocol_and_exit_4(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", "--help")
    assert code == 0
    for words in (
        "standard input",
        "{seed}",
        "unsat | no solution",
        "4  some answer is wrong",
        "process group",
    ):
        assert words in out
    _, out, _ = run(capsys, "--help")
    assert "4  verify: some solver's answer is wrong" in out and "verify" in out


def test_single_literal_puzzle_is_a_corpus_of_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", "--backend", "dlx", PUZZLE)
    assert code == 0 and "verify: 1 puzzle, 1 run, no wrong answer" in out


def test_verify_runs_as_a_program(corpus: Path) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "verify", "--solver-cmd", program("false_unsat.py"), str(corpus)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
        timeout=120,
    )
    assert done.returncode == 4 and "Traceback" not in done.stderr


def test_another_backend_can_be_the_ground_truth(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    argv = ["verify", "--solver-cmd", program("false_unsat.py"), "--truth", "cpsat", "--json", str(corpus)]
    code, out, _ = run(capsys, *argv)
    runs, summary = json_lines(out)
    assert code == 4 and [obj["verdict"] for obj in runs] == ["wrong", "wrong", "correct"]
    ground = summary["ground_truth"]
    assert isinstance(ground, dict) and ground["backend"] == "cpsat" and ground["sat_calls"] == 3


def test_unknown_truth_backend_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "verify", PUZZLE, "--backend", "dlx", "--truth", "nope")
    assert code == 2 and "--truth: unknown backend 'nope'" in assert_one_line_error(err)


def test_corpus_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{PUZZLE}\n{UNSOLVABLE}\n"))
    code, out, _ = run(capsys, "verify", "--backend", "pysat", "--in-process", "-")
    assert code == 0 and "verify: 2 puzzles, 2 runs, no wrong answer" in out
