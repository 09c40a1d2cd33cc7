"""Issue 25.1: every input read through one bounded reader, every sizing option checked first.

Before: `solve /dev/zero` read 7.4 GB then a MemoryError; `/dev/urandom` grew for ever; a file of
one 10 MB line took 14-40 s and 1.1 GB to be refused; a closed standard input was an
AttributeError; `-o /dev/full` and `/proc/self/mem` errors named no file; `acs:ants=10**12` and
`verify --runs 10**9` ended in numpy/Memory errors; `--workers 100000` gave "CP-SAT rejected the
model: " with no reason; and the smaller faults of the issue's list.  Each is one line, exit 2,
quickly and in bounded memory now.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from sudoku_cp.cli import main
from sudoku_cp.cli.common import MAX_ERROR_LINE

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
# Runs the command in a child and reports the child's peak resident memory (kB) on its last line.
_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "sys.stdout.write(done.stdout)\n"
    "sys.stderr.write(done.stderr)\n"
    "sys.stderr.write(f'\\n{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n')\n"
    "sys.exit(done.returncode)\n"
)


def measured(*argv: str) -> tuple[int, str, float, int]:
    """(exit code, standard error, seconds, peak memory in MB) of ``sudoku-cp argv`` in a process
    (a batch command's result lines on standard output come first in the text)."""
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "sudoku_cp", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    seconds = time.monotonic() - began
    err, _, peak = done.stderr.rstrip("\n").rpartition("\n")
    return done.returncode, (done.stdout + err).strip(), seconds, int(peak) // 1024


def one_line(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudoku-cp: error: "), err[-2000:]
    assert len(lines[0]) <= MAX_ERROR_LINE and "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_that_is_not_text_fails_at_its_first_bytes(device: str) -> None:
    code, err, seconds, peak = measured("solve", device)
    assert code == 2
    one_line(err, device, "is not")
    assert seconds < 20 and peak < 400  # was 7.4 GB and a MemoryError, or endless growth


@pytest.fixture(scope="module")
def long_line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "long.txt"
    path.write_text("123456789" * 1_111_112 + "\n")  # one line of 10 MB
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ("solve",),
        ("count",),
        ("encode",),
        ("explain",),
        ("rate",),
        ("nishio", "--digit", "1", "--puzzle"),
        ("verify", "--backend", "dlx"),
    ],
    ids=lambda argv: argv[0],
)
def test_a_line_longer_than_any_grid_is_refused_before_it_is_cut_into_tokens(
    argv: tuple[str, ...], long_line: Path
) -> None:
    code, err, seconds, peak = measured(*argv, str(long_line))
    assert code == 2, err
    assert "more than 3721 symbols" in err and "Traceback" not in err
    assert seconds < 20 and peak < 400, (seconds, peak)  # was 14-40 s and 1.1-1.2 GB


def test_the_symbol_count_is_checked_in_milliseconds(
    long_line: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    began = time.monotonic()
    code, _, err = run(capsys, "solve", str(long_line))
    assert code == 2 and "more than 3721 symbols" in err
    assert time.monotonic() - began < 5  # reading and refusing 10 MB: well under a second when quiet


def test_the_input_cap_is_settable_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "batch.txt"
    path.write_text((HARD + "\n") * 30)  # 2460 bytes
    monkeypatch.setenv("SUDOKU_CP_MAX_INPUT", "1K")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 2
    one_line(err, str(path), "larger than the input cap of 1K", "SUDOKU_CP_MAX_INPUT")
    monkeypatch.setenv("SUDOKU_CP_MAX_INPUT", "lots")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 2
    one_line(err, "SUDOKU_CP_MAX_INPUT='lots' is not a size")
    monkeypatch.setenv("SUDOKU_CP_MAX_INPUT", "4K")
    assert run(capsys, "solve", "--output", "line", str(path))[0] == 0


@pytest.mark.parametrize(
    "argv",
    [
        ("solve", "-"),
        ("count", "-"),
        ("encode", "-"),
        ("explain", "-"),
        ("rate", "-"),
        ("nishio", "-"),
        ("nishio", "--digit", "1", "--puzzle", "-"),
        ("verify", "--backend", "dlx", "-"),
        ("reduce", "-"),
        ("decode", HARD, "-"),
    ],
    ids=lambda argv: "-".join(argv[:2]),
)
def test_a_closed_standard_input_is_one_line_naming_it(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of `<&-`
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert "standard input is closed" in err and "Traceback" not in err


def test_the_real_process_with_its_standard_input_closed() -> None:
    done = subprocess.run(
        f"exec '{sys.executable}' -m sudoku_cp solve - <&-",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        executable="/bin/bash",
    )
    assert done.returncode == 2
    one_line(done.stderr, "<stdin>: standard input is closed")


def test_an_unreadable_file_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "/proc/self/mem")
    assert code == 2
    one_line(err, "/proc/self/mem", "Input/output error")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv",
    [("solve", HARD, "--json", "-o", "/dev/full"), ("encode", HARD, "-o", "/dev/full")],
    ids=["solve", "encode"],
)
def test_a_full_disk_names_the_output_file(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    one_line(err, "/dev/full", "No space left on device")


# ------------------------------------------------------------------------------- numeric options


def test_a_colony_too_large_is_refused_as_a_setting(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "--backend", "acs:ants=1000000000000", HARD)
    assert code == 2
    one_line(err, "ants='1000000000000'", "an integer in 1..10000")


def test_an_audit_too_large_for_memory_is_refused_before_it_is_planned() -> None:
    code, err, seconds, peak = measured("verify", "--backend", "dlx", "--runs", "1000000000", HARD)
    assert code == 2
    one_line(err, "an audit of 1000000000 runs would need about")
    assert peak < 600  # was 7.3 GB, then a MemoryError


def test_workers_beyond_what_cp_sat_takes_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "--backend", "cpsat", "--workers", "100000", HARD)
    assert code == 2 and "100000 is more than 1024" in err  # was: "CP-SAT rejected the model: "


# ---------------------------------------------------------------------------------------- smaller


def test_a_grid_mixing_integers_and_letters_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [["."] * 16 for _ in range(16)]
    rows[0][0], rows[1][0] = "10", "A"
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join(" ".join(row) for row in rows) + "\n")
    code, _, err = run(capsys, "solve", str(path))
    assert code == 2
    one_line(err, "mixes integers ('10', line 1) with letter symbols ('A', line 2)")


def test_an_error_line_is_at_most_500_characters(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "--backend", "pysat:nope", HARD)
    assert code == 2 and len(err.rstrip("\n")) <= 500, len(err)  # was 518


def test_explain_refuses_an_svg_folder_that_is_a_file_before_explaining(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "pictures"
    taken.write_text("a file, not a folder\n")
    code, out, err = run(capsys, "explain", HARD, "--svg", str(taken))
    assert code == 2 and out == ""  # nothing explained first
    one_line(err, "--svg: cannot make the folder")
    assert taken.read_text() == "a file, not a folder\n"


def test_encode_nishio_names_the_encoding_by_its_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    instance = tmp_path / "instance.txt"
    instance.write_text("n=4\nR1C1 R2C3\n")
    code, out, err = run(capsys, "encode", "--nishio", str(instance), "-o", str(tmp_path / "out.cnf"))
    assert code == 0, err
    assert "exactly-one: pairwise" in out and "AmoEncoding" not in out


def test_a_solver_command_whose_program_is_a_placeholder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "batch.txt"
    batch.write_text((HARD + "\n") * 3)
    code, out, err = run(capsys, "solve", "--solver-cmd", "{cnf}", str(batch))
    assert code == 2 and out == ""  # before any puzzle (was: exit 3 on each)
    one_line(err, "is a placeholder, not a program")
