"""generate on an executor (``generate_puzzles(executor=...)``, ``sudoku-cp generate --jobs N``):
the same puzzles in the same order as one process makes, whatever the runs' sizes."""

from __future__ import annotations

import argparse
import time

import pytest

from sudoku_cp.cli import main
from sudoku_cp.deduction import generate
from sudoku_cp.deduction.generate import Generated, generate_puzzles
from sudoku_cp.errors import SudokuCpError
from sudoku_cp.executor import Executor, Work, usable_cores
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid

TWO = Executor(jobs=2)


def _lines(made: list[Generated]) -> list[tuple[str, str, int, str]]:  # fmt: skip
    return [
        (g.puzzle.values.tobytes().hex(), g.solution.values.tobytes().hex(), g.attempt, g.proof) for g in made
    ]


@pytest.mark.parametrize(
    ("box", "count", "symmetric"),
    [((3, 3), 70, False), ((2, 3), 150, True), ((3, 4), 6, False)],
    ids=["9x9 across runs", "6x6 symmetric", "12x12"],
)
def test_two_processes_make_the_puzzles_one_makes(box: tuple[int, int], count: int, symmetric: bool) -> None:
    geometry = Geometry(*box)
    here = list(generate_puzzles(geometry, count, seed=7, symmetric=symmetric))
    there = list(generate_puzzles(geometry, count, seed=7, symmetric=symmetric, executor=TWO))
    assert len(here) == count
    assert _lines(there) == _lines(here)
    assert [g.attempt for g in there] == list(range(count))  # without a target every attempt makes one


def test_a_target_keeps_the_same_attempts_and_stops_at_max_attempts() -> None:
    geometry = Geometry(3, 3)
    options = {"seed": 3, "level": "hard", "max_attempts": 150}
    here = list(generate_puzzles(geometry, 4, **options))  # type: ignore[arg-type]
    there = list(generate_puzzles(geometry, 4, executor=TWO, **options))  # type: ignore[arg-type]
    assert _lines(there) == _lines(here) and here
    assert all(g.rating is not None and g.rating.level == "hard" for g in there)
    few = list(generate_puzzles(geometry, 50, seed=3, level="hard", max_attempts=30, executor=TWO))
    assert all(g.attempt < 30 for g in few) and len(few) < 50


def test_the_time_limit_stops_the_workers_with_the_puzzles_made_before_it() -> None:
    geometry = Geometry(4, 4)
    began = time.monotonic()
    made = list(generate_puzzles(geometry, 100_000, seed=1, time_limit=1.5, executor=TWO))
    assert time.monotonic() - began < 15
    assert 0 < len(made) < 100_000
    assert [g.attempt for g in made] == list(range(len(made)))  # in order, nothing skipped


def _boom(chunk: generate._Attempts) -> list[generate._Outcome]:
    if chunk.start > 0:  # the warm-up run here passes; a worker's run fails
        raise RuntimeError("a bug in the carving")
    return generate._run_attempts(chunk)


def test_a_run_failing_in_a_worker_is_an_error_not_a_shorter_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generate, "_ATTEMPTS_WORK", Work(_boom, generate._crashed_attempts))
    with pytest.raises(SudokuCpError, match="failed in a worker: RuntimeError: a bug in the carving"):
        list(generate_puzzles(Geometry(3, 3), 200, seed=1, executor=TWO))


def test_cli_jobs_gives_the_lines_of_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for jobs in ("1", "2"):
        argv = ["generate", "--box", "3x3", "--count", "90", "--seed", "5", "--json", "--jobs", jobs]
        assert main(argv) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) == 90


def test_cli_jobs_left_out_use_every_core_for_big_batches_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --jobs: one process per core from AUTO_JOBS_FROM puzzles' worth of work (a 16x16
    attempt weighs 32 9x9 ones; a target counts its attempts), else here."""
    from sudoku_cp.cli import common

    asked: list[int] = []
    real = common.executor

    def recording(args: argparse.Namespace, count: int | None = None) -> Executor:
        asked.append(real(args, count).jobs)
        return Executor()  # the test itself runs here

    monkeypatch.setattr(common, "executor", recording)
    monkeypatch.setattr(common, "AUTO_JOBS_FROM", 100)
    cores = usable_cores()
    cases = [
        (["--box", "3x3", "--count", "5"], 1),
        (["--box", "3x3", "--count", "100"], cores),
        (["--box", "4x4", "--count", "4"], cores),
        (["--box", "4x4", "--count", "3"], 1),
        (["--box", "3x3", "--count", "1", "--level", "easy"], cores),  # 1,000 attempts at most
        (["--box", "3x3", "--count", "100", "--jobs", "1"], 1),
    ]
    for argv, want in cases:
        asked.clear()
        assert main(["generate", *argv, "--no-progress"]) == 0
        assert asked == [want], argv


def test_generate_help_names_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--jobs N" in text and "--cluster ADDRESS" in text and "same puzzles" in text


def _fake_big(chunk: generate._Attempts) -> list[generate._Outcome]:
    """A stand-in carving of one 25x25 attempt: every grid is given up while it may be."""
    if chunk.give_up:
        return [(generate._GIVEN_UP, None)]
    empty = Grid.empty(Geometry(chunk.p, chunk.q))
    return [(generate._MADE, Generated(empty, empty, chunk.start, 0, 0))]


def test_from_25x25_attempts_go_side_by_side_and_the_first_allowed_to_end_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One 25x25 puzzle: attempt k may be given up while k < GIVE_UP_MAX, as in one process, so
    the attempt that wins is the same however many run at once."""
    monkeypatch.setattr(generate, "_ATTEMPTS_WORK", Work(_fake_big, generate._crashed_attempts))
    monkeypatch.setattr(generate, "GIVE_UP_MAX", 5)
    (made,) = generate_puzzles(Geometry(5, 5), 1, seed=3, executor=TWO)
    assert made.attempt == 5


@pytest.mark.slow
def test_a_25x25_puzzle_made_side_by_side_is_the_one_of_one_process() -> None:
    """Seed 2 gives its first grid up (session 11): the second core tries the next one meanwhile."""
    alone = generate.generate_puzzle(Geometry(5, 5), 2)
    assert alone is not None and alone.attempt >= 1
    (both,) = generate_puzzles(Geometry(5, 5), 1, seed=2, executor=TWO)
    assert both.attempt == alone.attempt and both.puzzle == alone.puzzle and both.solution == alone.solution


def test_one_25x25_puzzle_is_worth_every_core_and_a_few_12x12_are_not() -> None:
    from sudoku_cp.cli import common
    from sudoku_cp.cli.generate import _work

    assert _work(Geometry(5, 5), 1) >= common.AUTO_JOBS_FROM
    assert _work(Geometry(3, 4), 10) < common.AUTO_JOBS_FROM <= _work(Geometry(3, 4), 100)


def test_the_help_states_the_proof_budgets_the_generator_uses() -> None:
    from sudoku_cp.cli import generate as cli_generate

    assert cli_generate.PROOF_SECONDS == generate.PROOF_SECONDS
    assert cli_generate.PROOF_SECONDS_SAT_SIDE == generate.PROOF_SECONDS_SAT_SIDE


def test_the_cli_knows_the_side_where_attempts_go_side_by_side() -> None:
    from sudoku_cp.cli import generate as cli_generate
    from sudoku_cp.native import carve

    assert cli_generate.REGION_SIDE == carve.REGION_SIDE
