"""Hostile solver programs against the whole command line (issue 11): every fault bounded and named.

* defect 1: a program that floods its output costs a bounded amount of memory (measured on a real
  ``sudoku-cp`` process) and is judged unknown (solve) or crash (verify);
* defect 6: a descendant that left the program's group and session dies with the run;
* defect 8: a program's UNSAT claims are confirmed before ``solve`` or ``count`` report them;
* defect 9: a command that cannot run is a usage error (exit 2) of solve, count and verify alike;
* ``inf`` is no time limit for programs too.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DATA, ROOT, read_lines
from test_cli import assert_one_line_error, run

from sudoku_cp.process import EXIT_GRACE

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
EMPTY_4X4 = "." * 16  # 288 solutions
PEAK_LIMIT = 300 << 20  # bytes of resident memory a whole sudoku-cp process may reach on a flood

# A DIMACS solver built on python-sat: honest for its first HONEST runs (counted in a state file),
# then it answers UNSAT whatever the formula.  HONEST=-1: always honest.
DIMACS_SOLVER = """\
import sys
from pysat.formula import CNF
from pysat.solvers import Solver

honest, state, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    runs = int(open(state).read())
except FileNotFoundError:
    runs = 0
open(state, "w").write(str(runs + 1))
if 0 <= honest <= runs:
    print("s UNSATISFIABLE")
    sys.exit(20)
formula = CNF(from_file=path)
with Solver(name="minisat22", bootstrap_with=formula.clauses) as solver:
    if solver.solve():
        model = [lit for lit in solver.get_model() if abs(lit) <= formula.nv]
        print("s SATISFIABLE")
        print("v " + " ".join(map(str, model)) + " 0")
        sys.exit(10)
print("s UNSATISFIABLE")
sys.exit(20)
"""


def executable(tmp_path: Path, name: str, text: str) -> str:
    """An executable file in tmp_path; returns its path."""
    path = tmp_path / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def python_program(tmp_path: Path, name: str, body: str) -> str:
    """An executable Python script in tmp_path; returns its path."""
    return executable(tmp_path, name, f"#!{sys.executable}\n{body}\n")


def dimacs_solver(tmp_path: Path, honest: int) -> str:
    """The command of the python-sat DIMACS solver, honest for ``honest`` runs (-1: always)."""
    program = python_program(tmp_path, "pysat_solver.py", DIMACS_SOLVER)
    return f"{program} {honest} {tmp_path / f'runs-{honest}.txt'} {{cnf}}"


def alive(pid: int) -> bool:
    """Whether a process (not a zombie) with this pid exists."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


# ------------------------------------------------------------------------- defect 1: bounded memory

FLOOD = """\
import sys
sys.stdin.read()
line = "1" * (1 << 20) + "\\n"
for _ in range(256):
    sys.stdout.write(line)
"""


def _high_water(pid: int) -> int:
    """The peak resident bytes of a running process so far (VmHWM), or 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def run_measured(*argv: str) -> tuple[int, str, int, float]:
    """(exit code, stdout, peak resident bytes, seconds) of a real ``sudoku-cp`` process.

    The peak is the process's own high-water mark (VmHWM), sampled until it exits: ru_maxrss would
    also count the image of this test process, which a spawned child shares until its exec (over a
    GB late in a full run).
    """
    start = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "sudoku_cp", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(process.stdout.read() if process.stdout else b""))
    reader.start()
    peak = 0
    time.sleep(0.05)  # past the exec: the sample is of sudoku-cp's own memory
    while process.poll() is None:
        peak = max(peak, _high_water(process.pid))
        time.sleep(0.01)
    reader.join()
    return process.returncode, b"".join(chunks).decode(), peak, time.monotonic() - start


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB is Linux's")
def test_solve_with_a_flooding_program_is_unknown_in_bounded_memory(tmp_path: Path) -> None:
    flood = python_program(tmp_path, "flood.py", FLOOD)
    code, out, peak, seconds = run_measured("solve", "--solver-cmd", flood, "--time-limit", "30", PUZZLE)
    assert code == 3
    assert out.startswith(f"unknown: solver program {flood!r} wrote more than 64 MiB: stopped")
    assert peak < PEAK_LIMIT, f"peak {peak >> 20} MiB"
    assert seconds < 15


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB is Linux's")
def test_verify_with_a_flooding_program_is_a_crash_in_bounded_memory(tmp_path: Path) -> None:
    flood = python_program(tmp_path, "flood.py", FLOOD)
    code, out, peak, seconds = run_measured("verify", "--solver-cmd", flood, "--json", PUZZLE)
    assert code == 3
    result = json.loads(out.splitlines()[0])
    assert (
        result["verdict"] == "crash" and result["detail"] == "killed after writing more than 64 MiB of output"
    )
    assert peak < PEAK_LIMIT, f"peak {peak >> 20} MiB"
    assert seconds < 15


# ------------------------------------------------------------------- defect 6: escaping descendants


def escaper(tmp_path: Path, answer: str) -> tuple[str, Path]:
    """A program that starts ``setsid sleep 30`` in the background and prints ``answer``."""
    pid_file = tmp_path / "escaped.pid"
    script = f"#!/bin/sh\ncat > /dev/null\nsetsid sleep 30 &\necho $! > {pid_file}\necho '{answer}'\n"
    return executable(tmp_path, "escaper.sh", script), pid_file


@pytest.fixture
def kill_escaped() -> Iterator[list[Path]]:
    """Pid files of escaped sleeps, killed at the end of the test whatever it asserted."""
    files: list[Path] = []
    yield files
    for path in files:
        if path.exists() and alive(pid := int(path.read_text())):
            os.kill(pid, 9)


@pytest.mark.skipif(shutil.which("setsid") is None, reason="no setsid program")
@pytest.mark.parametrize(
    ("argv", "answer", "said"),
    [
        (
            ("verify", "--timeout", "5"),
            "unknown",
            ": unknown (claimed unknown): the solver answered 'unknown'",
        ),
        (("solve", "--time-limit", "5"), "s UNKNOWN", "unknown: solver program {command!r} answered UNKNOWN"),
    ],
)
def test_the_answer_counts_and_the_escaped_sleep_is_gone(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    kill_escaped: list[Path],
    argv: tuple[str, ...],
    answer: str,
    said: str,
) -> None:
    command, pid_file = escaper(tmp_path, answer)
    kill_escaped.append(pid_file)
    start = time.monotonic()
    code, out, _ = run(capsys, argv[0], "--solver-cmd", command, *argv[1:], PUZZLE)
    seconds = time.monotonic() - start
    assert not alive(int(pid_file.read_text()))  # right after the command returns
    assert code == 3 and said.format(command=command) in out.splitlines()[0]
    assert seconds < EXIT_GRACE  # the escaped sleep held the pipes: it was ended, not waited for


@pytest.mark.skipif(shutil.which("setsid") is None, reason="no setsid program")
def test_a_real_sudoku_cp_process_leaves_no_escaped_sleep(tmp_path: Path, kill_escaped: list[Path]) -> None:
    command, pid_file = escaper(tmp_path, "unknown")
    kill_escaped.append(pid_file)
    done = subprocess.run(
        [sys.executable, "-m", "sudoku_cp", "verify", "--solver-cmd", command, PUZZLE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3 and "unknown (claimed unknown)" in done.stdout
    assert not alive(int(pid_file.read_text()))


# --------------------------------------------------------------- defect 8: UNSAT claims are checked


def test_a_program_that_always_says_unsat_is_never_reported_unsat(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "twenty.txt"
    batch.write_text("\n".join(read_lines(DATA / "norvig_top95.txt", 20)) + "\n")
    command = dimacs_solver(tmp_path, 0)
    code, out, err = run(capsys, "solve", "--solver-cmd", command, str(batch))
    lines = out.splitlines()
    assert code == 3 and err == "" and len(lines) == 21
    assert all(
        " unknown solver program " in line and "claimed UNSAT (no solution)" in line for line in lines[:20]
    )
    assert all("found a valid solution: the program's answer is wrong" in line for line in lines[:20])
    assert lines[20].startswith("summary: 20 puzzles: 20 unknown")


def test_trust_solver_skips_the_check_and_says_unverified(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command = dimacs_solver(tmp_path, 0)
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--trust-solver", PUZZLE)
    assert code == 1 and out.startswith("unsat: no solution; unverified (--trust-solver)")
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--trust-solver", "--json", PUZZLE)
    first = json.loads(out.splitlines()[0])
    assert code == 1 and first["status"] == "unsat" and first["unverified"] is True
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--trust-solver", "--output", "json", PUZZLE)
    assert code == 1 and json.loads(out)["unverified"] is True


def test_an_honest_program_is_confirmed_and_not_marked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    command = dimacs_solver(tmp_path, -1)
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--unique", "--output", "line", PUZZLE)
    assert code == 0 and out.splitlines() == [SOLUTION, out.splitlines()[1]]
    assert out.splitlines()[1].startswith("solved, unique (program:")
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--unique", "--json", PUZZLE)
    assert code == 0 and "unverified" not in json.loads(out.splitlines()[0])


def test_a_false_no_second_solution_claim_is_caught(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Honest once (a first solution), then 'UNSAT' for the second: EMPTY_4X4 has 288 solutions.
    command = dimacs_solver(tmp_path, 1)
    code, out, _ = run(capsys, "solve", "--solver-cmd", command, "--unique", EMPTY_4X4)
    assert code == 3
    assert out.startswith("unknown: solver program ")
    assert "claimed UNSAT (no solution beyond the 1 found) but pysat:cadical195 found a valid solution" in out


def test_a_false_count_is_caught_and_trust_marks_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "count", "--solver-cmd", dimacs_solver(tmp_path, 3), EMPTY_4X4)
    assert code == 3 and out == ""
    assert "claimed UNSAT (no solution beyond the 3 found)" in assert_one_line_error(err)
    command = dimacs_solver(tmp_path, 2)
    code, out, _ = run(capsys, "count", "--solver-cmd", command, "--trust-solver", EMPTY_4X4)
    assert code == 0 and out.splitlines()[0] == "count: 2 (exact) unverified (--trust-solver)"


def test_trust_solver_needs_a_solver_program(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "solve", "--backend", "dlx", "--trust-solver", PUZZLE)
    assert code == 2 and out == ""
    assert "--trust-solver applies to --solver-cmd only" in assert_one_line_error(err)


# ------------------------------------------------------------ defect 9: commands that cannot run


@pytest.fixture
def bad_commands(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Case name: (command, the words the error line ends with)."""
    folder = tmp_path / "a folder"
    folder.mkdir()
    plain = tmp_path / "plain.sh"
    plain.write_text("#!/bin/sh\necho 's UNKNOWN'\n")
    plain.chmod(0o644)
    return {
        "missing": ("no-such-solver-xyz -q", "program 'no-such-solver-xyz' not found"),
        "empty": ("   ", "empty solver command"),
        "unbalanced quote": ("cadical 'unclosed", "No closing quotation"),
        "directory": (f"'{folder}' --flag", f"program '{folder}' is a directory"),
        "not executable": (str(plain), f"program '{plain}' is not executable"),
    }


@pytest.mark.parametrize("case", ["missing", "empty", "unbalanced quote", "directory", "not executable"])
@pytest.mark.parametrize("command", ["solve", "verify", "count"])
def test_a_command_that_cannot_run_is_a_usage_error_before_any_puzzle(
    capsys: pytest.CaptureFixture[str], bad_commands: dict[str, tuple[str, str]], case: str, command: str
) -> None:
    solver, words = bad_commands[case]
    code, out, err = run(capsys, command, "--solver-cmd", solver, PUZZLE)
    assert code == 2 and out == ""
    line = assert_one_line_error(err)
    assert line.endswith(words)
    if solver.strip():
        assert repr(solver) in line or f'"{solver}"' in line  # the command is named


# ---------------------------------------------------------------------- 'inf' is no time limit


def test_inf_time_limits_with_programs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    command = dimacs_solver(tmp_path, -1)
    code, out, _ = run(
        capsys, "solve", "--solver-cmd", command, "--time-limit", "inf", "--output", "line", PUZZLE
    )
    assert code == 0 and out.splitlines()[0] == SOLUTION
    correct = f"{sys.executable} {ROOT / 'tests' / 'programs' / 'correct.py'}"
    code, out, _ = run(capsys, "verify", "--solver-cmd", correct, "--timeout", "inf", "--json", PUZZLE)
    assert code == 0 and json.loads(out.splitlines()[0])["verdict"] == "correct"
    assert json.loads(out.splitlines()[-1])["summary"]["timeout"] is None
