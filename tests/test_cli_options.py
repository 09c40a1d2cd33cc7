"""Every numeric option of every subcommand goes through one set of checked converters."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sudoku_cp.cli import main
from sudoku_cp.cli.common import integer, seconds

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SMALL = "1.3.3.1.2.4.4.2."

BAD_VALUES = [
    (["nishio", "--puzzle", SMALL, "--digit", "1", "--count", "--count-limit", "-5"], "-5 is less than 1"),
    (["nishio", "--puzzle", SMALL, "--digit", "1", "--count-limit", "many"], "not an integer"),
    (["nishio", "--puzzle", SMALL, "--digit", "1", "--time-limit", "-1"], "not a positive number"),
    (["nishio", "--puzzle", SMALL, "--digit", "1", "--time-limit", "nan"], "not a positive number"),
    (["nishio", "--puzzle", SMALL, "--digit", "0"], "0 is less than 1"),
    (["solve", "--time-limit", "0", SMALL], "not a positive number"),
    (["solve", "--time-limit", "soon", SMALL], "not a number of seconds"),
    (["solve", "--jobs", "-2", SMALL], "-2 is less than 0"),
    (["solve", "--workers", "0", SMALL], "0 is less than 1"),
    (["solve", "--seed", "-1", SMALL], "-1 is less than 0"),
    (["count", "--limit", "0", SMALL], "0 is less than 1"),
    (["count", "--time-limit", "-3", SMALL], "not a positive number"),
    (["reduce", "--random-vars", "2", "--clauses", "1"], "2 is less than 3"),
    (["reduce", "--random-vars", "5", "--clauses", "-1"], "-1 is less than 0"),
    (
        ["reduce", "--verify", "--random-vars", "5", "--clauses", "3", "--time-limit", "-0.5"],
        "not a positive",
    ),
    (["verify", "--backend", "dlx", "--runs", "0", SMALL], "0 is less than 1"),
    (["verify", "--backend", "dlx", "--timeout", "nan", SMALL], "not a positive number"),
]


@pytest.mark.parametrize(
    ("argv", "message"), BAD_VALUES, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_a_bad_number_is_a_usage_error_naming_the_value(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "--time-limit", "inf", PUZZLE],
        ["count", "--time-limit", "inf", SMALL],
        ["nishio", "--puzzle", SMALL, "--digit", "1", "--time-limit", "inf"],
    ],
)
def test_inf_seconds_means_no_time_limit(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 0
    _, err = capsys.readouterr()
    assert err == ""


def test_converters_check_their_ranges() -> None:
    assert integer(1)("7") == 7
    assert integer(0, 9)("9") == 9
    with pytest.raises(argparse.ArgumentTypeError, match="more than 9"):
        integer(0, 9)("10")
    assert seconds("2.5") == 2.5
    assert seconds("inf") is None and seconds("none") is None
    for bad in ("0", "-1", "nan", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            seconds(bad)


@pytest.mark.parametrize("backend", ["acs", "hill", "acs:bve=0", "hill:shuffle_digits=0"])
def test_count_refuses_an_incomplete_backend(capsys: pytest.CaptureFixture[str], backend: str) -> None:
    """acs and hill find a solution or give up: 'at least 1 (limit reached)' with exit 0 was a false claim."""
    assert main(["count", "--backend", backend, SMALL]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "incomplete search" in err and "cannot count" in err
    assert len(err.strip().splitlines()) == 1


def test_jobs_are_capped_at_a_few_per_core_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:

    from sudoku_cp.cli.common import JOBS_PER_CORE
    from sudoku_cp.executor import usable_cores

    assert main(["solve", "--jobs", "1000", "--output", "line", PUZZLE]) == 0
    _, err = capsys.readouterr()
    most = JOBS_PER_CORE * usable_cores()
    assert f"--jobs 1000 is capped at {most}" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["rate", "explain"])
def test_jobs_left_out_use_every_core_for_big_batches_only(
    command: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """rate and explain --json without --jobs: one process per CPU from AUTO_JOBS_FROM puzzles on,
    this process below it; an explicit --jobs wins; explain with pictures stays here."""

    from sudoku_cp.cli import common
    from sudoku_cp.deduction import batch
    from sudoku_cp.executor import usable_cores

    asked: list[int] = []
    real = common.executor

    def recording(args: argparse.Namespace, count: int | None = None) -> object:
        made = real(args, count)
        asked.append(made.jobs)
        return real(argparse.Namespace(jobs=1), None)  # the test itself runs here

    monkeypatch.setattr(common, "executor", recording)
    nothing: list[object] = []  # no results: only the executor chosen matters here
    monkeypatch.setattr(common, "AUTO_JOBS_FROM", 3)
    if command == "rate":
        monkeypatch.setattr(batch, "rate_items", lambda *a, **k: (result for result in nothing))
    else:
        monkeypatch.setattr(batch, "explain_items", lambda *a, **k: (result for result in nothing))
    folder = tmp_path
    small, big = folder / "small.txt", folder / "big.txt"
    small.write_text(f"{PUZZLE}\n" * 2)
    big.write_text(f"{PUZZLE}\n" * 3)
    cores = usable_cores()
    for path, jobs, want in ((small, [], 1), (big, [], cores), (big, ["--jobs", "1"], 1)):
        asked.clear()
        main([command, str(path), "--json", "--no-progress", *jobs])
        assert asked == [want], (path.name, jobs)
    if command == "explain":
        asked.clear()
        main([command, str(big), "--json", "--no-progress", "--svg", str(folder / "svg")])
        assert asked == [1]
