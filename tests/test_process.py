"""sudoku_cp.process.run_program: its own process group, killed whole; bounded output; never a shell."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from sudoku_cp.errors import SudokuCpError
from sudoku_cp.process import (
    DEFAULT_MAX_OUTPUT,
    EXIT_GRACE,
    CommandError,
    ProgramStartError,
    check_command,
    ending,
    find_program,
    last_line,
    run_program,
)


def script(tmp_path: Path, name: str, body: str) -> str:
    """An executable Python script in tmp_path; returns its path."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport os, subprocess, sys, time\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def alive(pid: int) -> bool:
    """Whether a process (not a zombie) with this pid runs."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_dead(pid: int, seconds: float = 5.0) -> bool:
    """Whether the process is gone within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def test_exit_code_output_and_the_tail_of_standard_error(tmp_path: Path) -> None:
    command = script(
        tmp_path, "talk", "print('hello')\nsys.stderr.write('first\\nlast words\\n')\nsys.exit(3)"
    )
    run = run_program([command, "ignored argument"])
    assert run.exit_code == 3 and run.stdout == b"hello\n" and run.stdout_text == "hello\n"
    assert run.last_error_line == "last words" and run.ending == "exit code 3"
    assert not run.timed_out and not run.output_too_large and not run.killed


def test_input_is_fed_while_output_is_read(tmp_path: Path) -> None:
    # 4 MiB each way: writing all input before reading would deadlock on full pipes.
    command = script(tmp_path, "cat", "sys.stdout.buffer.write(sys.stdin.buffer.read())")
    data = os.urandom(4 << 20)
    run = run_program([command], data, 30)
    assert run.exit_code == 0 and run.stdout == data


def test_text_input_and_a_program_that_does_not_read_it(tmp_path: Path) -> None:
    assert run_program([script(tmp_path, "echo", "print(input().upper())")], "abc\n", 30).stdout == b"ABC\n"
    deaf = script(tmp_path, "deaf", "print('done')")
    run = run_program([deaf], b"x" * (1 << 20), 30)
    assert run.exit_code == 0 and run.stdout == b"done\n"


def test_argv_is_never_given_to_a_shell(tmp_path: Path) -> None:
    command = script(tmp_path, "args", "print(sys.argv[1:])")
    run = run_program([command, "$HOME", "a;b", "`x`"])
    assert run.stdout_text.strip() == "['$HOME', 'a;b', '`x`']"


def test_time_limit_kills_the_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    body = (
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)"
    )
    start = time.monotonic()
    run = run_program([script(tmp_path, "forker", body)], None, 0.5)
    assert time.monotonic() - start < 5
    assert run.timed_out and run.killed and run.exit_code == -signal.SIGKILL
    assert wait_dead(int(pid_file.read_text()))


@pytest.mark.parametrize("limit", [None, float("inf")])
def test_no_time_limit(tmp_path: Path, limit: float | None) -> None:
    run = run_program([script(tmp_path, "nap", "time.sleep(0.2)\nprint('awake')")], None, limit)
    assert run.stdout == b"awake\n" and not run.timed_out


def test_output_past_the_cap_kills_the_program_and_memory_stays_bounded(tmp_path: Path) -> None:
    # Issue 11, defect 1: a program that reads its input and writes 256 lines of 1 MiB of '1'.
    body = (
        "sys.stdin.read()\nline = '1' * (1 << 20) + '\\n'\nfor _ in range(256):\n    sys.stdout.write(line)"
    )
    command = script(tmp_path, "flood", body)
    tracemalloc.start()
    try:
        run = run_program([command], "puzzle\n", 60)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert run.output_too_large and run.killed and not run.timed_out
    assert len(run.stdout) == DEFAULT_MAX_OUTPUT and run.stdout[: (1 << 20) + 1] == b"1" * (1 << 20) + b"\n"
    assert peak < 3 * DEFAULT_MAX_OUTPUT


def test_a_small_cap(tmp_path: Path) -> None:
    command = script(tmp_path, "chatty", "print('x' * 5000)")
    run = run_program([command], None, 30, max_output=100)
    assert run.output_too_large and len(run.stdout) == 100


def test_the_answer_counts_when_an_escaped_grandchild_holds_the_pipes(tmp_path: Path) -> None:
    # A process in a new session is out of the group: once the program ends, its output is
    # awaited only a short grace, and the program's own answer counts (issue 11, defect 6).
    pid_file = tmp_path / "escaped.pid"
    body = (
        "escaped = subprocess.Popen(['setsid', 'sleep', '30'])\n"  # setsid execs: the same pid
        f"open({str(pid_file)!r}, 'w').write(str(escaped.pid))\n"
        "print('unknown')"
    )
    start = time.monotonic()
    try:
        run = run_program([script(tmp_path, "escaper", body)], None, 20)
        assert time.monotonic() - start < 10
        assert run.exit_code == 0 and run.stdout == b"unknown\n" and not run.timed_out
    finally:
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_interrupt_kills_the_group_and_is_raised_again(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    body = f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)"
    command = script(tmp_path, "sleeper", body)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_program([command], None, 30)
    finally:
        timer.cancel()
    assert wait_dead(int(pid_file.read_text()))


def test_missing_or_unrunnable_program(tmp_path: Path) -> None:
    with pytest.raises(ProgramStartError, match="'no-such-program-xyz' not found") as caught:
        run_program(["no-such-program-xyz"])
    assert isinstance(caught.value, SudokuCpError) and caught.value.reason == "not found"
    with pytest.raises(ValueError):
        run_program([])


def test_endings_and_last_lines() -> None:
    assert ending(0) == "exit code 0" and ending(-11) == "killed by SIGSEGV"
    assert last_line("") == "no error output" and last_line("a\n\n b \n\n") == "b"
    assert last_line("x" * 300).endswith("...") and len(last_line("x" * 300)) == 200


# ------------------------------------------------------------------ descendants that left the group


def _no_subreaper() -> bool:
    return not sys.platform.startswith("linux")


def _is_subreaper() -> bool:
    """Whether this process is a child subreaper now (prctl PR_GET_CHILD_SUBREAPER)."""
    value = ctypes.c_int(0)
    ctypes.CDLL(None).prctl(37, ctypes.byref(value), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    return bool(value.value)


@pytest.fixture
def pid_file(tmp_path: Path) -> Iterator[Path]:
    """A file where test programs write the pids of what they start; those are killed at the end."""
    path = tmp_path / "escaped.pids"
    yield path
    for pid in [int(word) for word in path.read_text().split()] if path.exists() else []:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(_no_subreaper(), reason="child subreapers are Linux's")
@pytest.mark.parametrize("end", ["exit", "time limit"])
def test_descendants_that_left_group_and_session_die_with_the_run(
    tmp_path: Path, pid_file: Path, end: str
) -> None:
    # Issue 11, defect 6: a setsid grandchild, and one a level deeper whose parent is still alive
    # when the program ends (or is killed at the limit), are killed and reaped before run_program
    # returns.
    body = (
        "first = subprocess.Popen(['setsid', 'sleep', '30'])\n"
        f"middle = subprocess.Popen(['setsid', 'sh', '-c', 'sleep 31 & echo $! >> {pid_file}; sleep 32'])\n"
        "time.sleep(0.2)\n"
        f"open({str(pid_file)!r}, 'a').write(f'{{first.pid}}\\n{{middle.pid}}\\n')\n"
    )
    body += "print('unknown')" if end == "exit" else "sys.stdout.flush()\ntime.sleep(30)"
    start = time.monotonic()
    run = run_program([script(tmp_path, "escapers", body)], None, 20 if end == "exit" else 1.0)
    seconds = time.monotonic() - start
    pids = [int(word) for word in pid_file.read_text().split()]
    assert len(pids) == 3 and not any(alive(pid) for pid in pids)
    if end == "exit":
        assert run.exit_code == 0 and run.stdout == b"unknown\n" and not run.timed_out
        assert seconds < EXIT_GRACE + 0.2  # ended at once, not awaited
    else:
        assert run.timed_out and seconds < 3


def test_runs_in_threads_and_other_children_are_left_alone(tmp_path: Path) -> None:
    # The cleanup of one run kills only its own orphans: not a program another thread runs, not
    # a child started before, and the subreaper setting is off once no run goes on.
    before = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    escaper = script(tmp_path, "quick", "subprocess.Popen(['setsid', 'sleep', '30'])\nprint('quick')")
    slow = script(tmp_path, "slow", "time.sleep(1.0)\nprint('slow')")
    results: dict[str, bytes] = {}

    def go(name: str, command: str) -> None:
        results[name] = run_program([command], None, 20).stdout

    try:
        threads = [threading.Thread(target=go, args=("slow", slow))]
        threads += [threading.Thread(target=go, args=(f"quick{k}", escaper)) for k in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results == {"slow": b"slow\n", **{f"quick{k}": b"quick\n" for k in range(3)}}
        assert before.poll() is None
        assert _no_subreaper() or not _is_subreaper()
    finally:
        before.kill()
        before.wait()


@pytest.mark.parametrize(
    ("name", "reason"),
    [("no-such-program-xyz", "not found"), ("{dir}", "is a directory"), ("{plain}", "is not executable")],
)
def test_find_program_says_what_is_wrong(tmp_path: Path, name: str, reason: str) -> None:
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    name = name.format(dir=tmp_path, plain=plain)
    with pytest.raises(ProgramStartError) as caught:
        find_program(name)
    assert caught.value.reason == reason
    with pytest.raises(ProgramStartError, match=reason):
        run_program([name])
    with pytest.raises(CommandError, match=f"^solver command '{name} -q': program '{name}' {reason}$"):
        check_command(f"{name} -q", "solver command")


def test_check_command_gives_the_words_and_refuses_a_placeholder_program() -> None:
    assert check_command("sh -c 'echo a b'") == ["sh", "-c", "echo a b"]
    with pytest.raises(CommandError, match="its first word {solver} is a placeholder, not a program"):
        check_command("{solver} --fast")
    with pytest.raises(CommandError, match="empty command"):
        check_command("  ")
    with pytest.raises(CommandError, match="No closing quotation"):
        check_command("sh 'x")
