"""``sudoku-cp generate`` end to end in-process: seeded, unique, minimal, by level, by rule."""

from __future__ import annotations

import json

import pytest
from test_deduction_generate import assert_symmetric_unique_minimal, assert_unique_and_minimal

from sudoku_cp.cli import main
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import RULES, select_rules
from sudoku_cp.formats import parse_grid


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("box", "count"), [((3, 3), 3), ((2, 3), 6), ((3, 2), 6), ((2, 4), 3)])
def test_puzzles_one_per_line_unique_and_minimal(
    capsys: pytest.CaptureFixture[str], box: tuple[int, int], count: int
) -> None:
    code, out, err = run(
        capsys, "generate", "--box", f"{box[0]}x{box[1]}", "--count", str(count), "--seed", "1"
    )
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == count and len(set(lines)) == count
    n = box[0] * box[1]
    for line in lines:
        assert len(line) == n * n
        puzzle = parse_grid(line, box=box)
        code, solved, _ = run(capsys, "solve", "--box", f"{box[0]}x{box[1]}", "--output", "line", line)
        solution = parse_grid(solved.splitlines()[0], box=box)
        assert_unique_and_minimal(puzzle, solution)


@pytest.mark.parametrize("box", [(3, 3), (2, 3)])
def test_symmetric_puzzles(capsys: pytest.CaptureFixture[str], box: tuple[int, int]) -> None:
    shape = f"{box[0]}x{box[1]}"
    code, out, err = run(capsys, "generate", "--box", shape, "--count", "3", "--seed", "1", "--symmetric")
    assert code == 0 and err == ""
    for line in out.splitlines():
        puzzle = parse_grid(line, box=box)
        code, solved, _ = run(capsys, "solve", "--box", shape, "--output", "line", line)
        assert_symmetric_unique_minimal(puzzle, parse_grid(solved.splitlines()[0], box=box))


def test_required_rules_and_their_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "generate",
        "--count",
        "2",
        "--seed",
        "3",
        "--require",
        "x-wing",
        "--require",
        "pointing",
        "--json",
    )
    assert code == 0
    for obj in (json.loads(line) for line in out.splitlines()):
        assert {"x-wing", "pointing"} <= set(obj["rules"])
        assert obj["proof"] == "backtrack"
        steps = deduce(parse_grid(obj["puzzle"]), select_rules(), record=True).steps
        assert {"x-wing", "pointing"} <= {step.rule for step in steps}


def test_an_unknown_required_rule_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "generate", "--require", "x-wing", "--require", "no-such-rule")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "unknown rule 'no-such-rule' for --require" in err
    assert "families: singles" in err and "Traceback" not in err


def test_a_rare_rule_gives_up_with_a_note_and_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "generate", "--box", "2x2", "--count", "2", "--require", "nishio", "--max-attempts", "20"
    )
    assert code == 3 and out == ""
    assert err == "sudoku-cp: note: 0 of 2 puzzles using nishio made: 20 attempts were spent\n"


def test_help_names_the_options_and_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "generate", "--help")
    assert code == 0
    assert (
        "--symmetric" in out
        and "--require RULE" in out
        and "sudoku-cp generate --box 3x3 --count 2 --require" in out
    )
    assert all(rule.name in out for rule in RULES)


def test_the_seed_reproduces_the_puzzles(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "generate", "--count", "3", "--seed", "7")[1]
    again = run(capsys, "generate", "--count", "3", "--seed", "7")[1]
    other = run(capsys, "generate", "--count", "3", "--seed", "8")[1]
    default = run(capsys, "generate", "--count", "3")[1]
    assert (
        first == again
        and first != other
        and default == run(capsys, "generate", "--count", "3", "--seed", "0")[1]
    )
    assert first.splitlines()[:2] == run(capsys, "generate", "--count", "2", "--seed", "7")[1].splitlines()


def test_json_objects_carry_the_solution_and_the_rating(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "generate", "--box", "2x3", "--count", "3", "--seed", "2", "--json")
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["index"] for o in objs] == [0, 1, 2]
    for obj in objs:
        puzzle = parse_grid(obj["puzzle"], box=(2, 3))
        assert obj["givens"] == puzzle.givens
        assert parse_grid(obj["solution"], box=(2, 3)).is_complete
        want = rate(puzzle)
        assert (obj["rating"], obj["level"], obj["hardest"]) == (want.rating, want.level, want.hardest)


@pytest.mark.parametrize(("box", "level"), [("3x3", "medium"), ("2x4", "easy")])
def test_a_target_level_by_rejection(capsys: pytest.CaptureFixture[str], box: str, level: str) -> None:
    code, out, _ = run(capsys, "generate", "--box", box, "--count", "2", "--seed", "4", "--level", level)
    assert code == 0
    p, q = (int(x) for x in box.split("x"))
    for line in out.splitlines():
        assert rate(parse_grid(line, box=(p, q))).level == level


def test_an_unreachable_level_gives_up_with_a_note_and_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "generate", "--box", "2x2", "--count", "2", "--level", "extreme", "--max-attempts", "30"
    )
    assert code == 3 and out == ""
    assert err == "sudoku-cp: note: 0 of 2 puzzles of level extreme made: 30 attempts were spent\n"


def test_a_time_limit_stops_with_what_was_made(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "generate", "--box", "4x4", "--count", "50", "--time-limit", "0.2")
    assert code == 3 and "the time limit was reached" in err
    assert len(out.splitlines()) < 50


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--level", "impossible"], "unknown level 'impossible'"),
        (["--box", "3x"], "box"),
        (["--count", "-1"], "-1"),
        (["--box", "9x9"], "up to 64x64"),
    ],
)
def test_bad_requests_are_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "generate", *argv)
    assert code == 2 and out == ""
    assert message in err.strip().splitlines()[-1] and "Traceback" not in err


@pytest.mark.slow
def test_a_big_grid_under_a_time_limit_ends_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "generate", "--box", "5x5", "--time-limit", "2")
    assert code == 3 and out == ""
    assert err == "sudoku-cp: note: 0 of 1 puzzles made: the time limit was reached\n"
