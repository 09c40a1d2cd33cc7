"""sudoku-cp fuzz on external programs and backends: exit codes, the JSON Lines a re-judge reads,
usage errors in one line, --resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, run
from test_cli_verify import program

from sudoku_cp.audit import GroundTruth, judge, parse_answer
from sudoku_cp.formats import parse_line

CORRECT = program("correct.py", "--box", "{box}")


def _lines(path: Path) -> tuple[list[dict[str, object]], dict[str, object]]:
    objects = [json.loads(line) for line in path.read_text().splitlines()]
    assert "sudoku_cp_results" in objects[0]  # the header line (cli.results_file)
    return objects[1:-1], objects[-1]["summary"]


def test_a_wrong_program_exits_4_and_its_shrunk_puzzle_fails_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fuzz.jsonl"
    command = program("wrong.py", "given", "--box", "{box}")
    code, _, err = run(
        capsys, "fuzz", "--solver-cmd", command, "--seed", "1", "--budget", "60", "--json", "-o", str(out)
    )
    assert code == 4, err
    failures, summary = _lines(out)
    assert summary["exit_code"] == 4 and summary["seed"] == 1
    [failure] = failures
    assert failure["verdict"] == "wrong"
    shrunk = failure["shrunk"]
    assert isinstance(shrunk, dict) and shrunk["minimal"] is True and shrunk["calls"] > 0
    # the re-judge: run the program on the shrunk puzzle by the reported command, judge its answer
    p, q = (int(part) for part in str(shrunk["box"]).split("x"))
    puzzle = parse_line(str(shrunk["puzzle"]), (p, q))
    answer = subprocess.run(str(failure["reproduce"]), shell=True, capture_output=True, text=True, check=True)
    verdict, _ = judge(puzzle, parse_answer(answer.stdout, puzzle), lambda: GroundTruth()(puzzle))
    assert verdict.value == "wrong"


def test_human_report_shows_both_grids_and_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "fuzz", "--solver-cmd", program("wrong.py", "cell", "--box", "{box}"), "--seed", "2"
    )
    assert code == 4
    assert "original puzzle" in out and "shrunk in" in out and "reproduce: " in out
    assert " | " in out  # the grids, boxes apart
    assert out.strip().splitlines()[-1].startswith("fuzz: ")


def test_a_correct_program_and_a_correct_backend_pass(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "fuzz", "--solver-cmd", CORRECT, "--budget", "3", "--max-side", "9")
    assert code == 0, out + err
    assert "no failure" in out
    code, out, _ = run(capsys, "fuzz", "--backend", "dlx", "--in-process", "--budget", "2")
    assert code == 0 and "no failure" in out


def test_crashes_and_timeouts_alone_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fuzz", "--solver-cmd", program("crash.py"), "--cases", "3", "--json")
    assert code == 3
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["verdict"] == "crash" and lines[-1]["summary"]["exit_code"] == 3
    code, out, _ = run(
        capsys,
        "fuzz",
        "--solver-cmd",
        program("hang.py"),
        "--cases",
        "1",
        "--timeout",
        "0.3",
        "--no-shrink",
        "--json",
    )
    assert code == 3
    assert json.loads(out.splitlines()[0])["verdict"] == "timeout"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ((), "name one solver"),
        (("--backend", "dlx", "--solver-cmd", "true"), "name one solver"),
        (("--backend", "nosuch"), "nosuch"),
        (("--solver-cmd", "/no/such/program"), "/no/such/program"),
        (("--solver-cmd", sys.executable, "--max-side", "3"), "square boxes"),
        (("--backend", "dlx", "--resume"), "--resume"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str
) -> None:
    code, _, err = run(capsys, "fuzz", *argv)
    assert code == 2
    assert words in assert_one_line_error(err)


def test_resume_goes_on_after_the_last_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fuzz.jsonl"
    argv = [
        "fuzz",
        "--solver-cmd",
        program("crash.py"),
        "--keep-going",
        "--no-shrink",
        "--json",
        "-o",
        str(out),
    ]
    assert run(capsys, *argv, "--cases", "4")[0] == 3
    failures, summary = _lines(out)
    assert summary["next_case"] == 4 and len(failures) == 1
    assert run(capsys, *argv, "--cases", "8", "--resume")[0] == 3
    failures, summary = _lines(out)
    assert len(failures) == 1  # the crash kind was found before: only counted
    assert summary["next_case"] == 8 and summary["cases"] == 4
    code, _, err = run(capsys, *argv, "--cases", "9", "--resume", "--seed", "5")
    assert code == 2 and "--seed" in err


def test_resume_spends_only_what_remains_of_the_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fuzz.jsonl"
    argv = ["fuzz", "--backend", "dlx", "--in-process", "--json", "-o", str(out)]
    assert run(capsys, *argv, "--budget", "1")[0] == 0
    _, first = _lines(out)
    assert isinstance(first["spent"], float) and first["spent"] >= 0.99 and first["cases"] > 0  # type: ignore[operator]
    # the budget of 1 s is spent: a resumed run with the same budget judges no case
    assert run(capsys, *argv, "--budget", "1", "--resume")[0] == 0
    _, again = _lines(out)
    assert again["cases"] == 0 and again["next_case"] == first["next_case"]
    assert again["spent"] >= first["spent"]  # type: ignore[operator]
    # a larger budget: the resumed run goes on for what remains, from the next case
    assert run(capsys, *argv, "--budget", "2", "--resume")[0] == 0
    _, last = _lines(out)
    assert last["cases"] > 0 and last["next_case"] > first["next_case"]  # type: ignore[operator]
    assert last["spent"] >= 1.99 and last["seconds"] < last["spent"]  # type: ignore[operator]


def test_a_run_cut_before_its_summary_counts_up_to_its_last_failure() -> None:
    from sudoku_cp.fuzz.report import spent_seconds

    failures: list[dict[str, object]] = [{"index": 3, "spent": 4.5}, {"index": 9, "spent": 7.25}]
    assert spent_seconds(failures, None) == 7.25
    assert spent_seconds(failures, {"spent": 30.0, "seconds": 10.0}) == 30.0
    assert spent_seconds([], {"seconds": 12.0}) == 12.0  # a file from before "spent" was recorded
    assert spent_seconds([{"index": 1, "spent": "soon"}], None) == 0.0
    assert spent_seconds([], None) == 0.0


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to see which processes are left")
def test_calls_left_running_when_a_run_stops_leave_no_program_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pids = tmp_path / "pids"
    pids.touch()
    # case 0, a full 2x2 grid, is answered wrong at once; cases 1-3, out on the two workers
    # meanwhile, hang until their time limit: the run stops at case 0 with them still running.
    command = program("full_wrong.py", str(pids))
    code, _, _ = run(
        capsys, "fuzz", "--solver-cmd", command, "--jobs", "2", "--timeout", "2", "--no-shrink", "--json"
    )
    assert code == 4
    started = [int(pid) for pid in pids.read_text().split()]
    assert started  # the calls left running did start their programs
    for _ in range(50):  # a killed program's process group ends a moment later
        if not any(_alive(pid) for pid in started):
            break
        time.sleep(0.1)
    assert not [pid for pid in started if _alive(pid)]


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to see which processes are left")
def test_ctrl_c_stops_the_workers_programs_too(tmp_path: Path) -> None:
    import signal

    pids = tmp_path / "pids"
    pids.touch()
    argv = [sys.executable, "-m", "sudoku_cp", "fuzz", "--solver-cmd", program("hang.py", str(pids))]
    argv += ["--jobs", "2", "--timeout", "60", "--cases", "20"]
    # its own session: the Ctrl-C goes to its process group (the command and its workers) only
    command = subprocess.Popen(argv, start_new_session=True, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # both workers running a program (each writes its child's pid)
            if len(pids.read_text().split()) >= 2 or command.poll() is not None:
                break
            time.sleep(0.1)
        os.killpg(command.pid, signal.SIGINT)
        _, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
    assert command.returncode == 130, err
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) >= 2
    for _ in range(50):
        if not any(_alive(pid) for pid in started):
            break
        time.sleep(0.1)
    assert not [pid for pid in started if _alive(pid)]
