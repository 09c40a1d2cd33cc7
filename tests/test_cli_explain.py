"""``sudoku-cp explain``, end to end in-process: steps, JSON, pictures, batches, rule sets, exit codes."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from sudoku_cp.cli import main
from sudoku_cp.deduction.rules import FAMILIES, RULES
from sudoku_cp.formats import parse_grid

# Needs chains after the local rules: its hardest step is an xy-chain (sudoku exchange, diabolical).
CHAINS = "083020090000800100029300008000098700070000060006740000300006980002005000010030540"
CHAINS_SOLUTION = "183524697547869123629317458235698714471253869896741235354176982962485371718932546"
EASY = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
# No two equal givens, but singles reach a contradiction: no solution.
UNSOLVABLE = ".1.3.982.632157.4..5...4.1.8254..169.....64323469.........4.57..7..9.68.1.487.2.."
SIX = "6..5..1...3.....4121.....6...3..1..5"  # a generated 2x3 puzzle
TWELVE = (  # a generated 3x4 puzzle
    ".....7.A.9.5..6....B.A...C..2.314..8...4..B5.....15..8.....49..8.C6.5.7..6.9.45.2..A7....."
    "1..56.....63..1...6..271.8..C...7.B....8..4.8.C.9....."
)
SVG = "{http://www.w3.org/2000/svg}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudoku-cp: error: ") and "Traceback" not in err
    return lines[0]


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    path = tmp_path / "batch.txt"
    lines = [
        "# six lines",
        CHAINS,
        CHAINS[:80],
        "44" + CHAINS[2:],
        UNSOLVABLE,
        EASY.replace(".", "0"),
        CHAINS,
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_one_puzzle_prints_numbered_steps_the_grid_and_a_headline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", CHAINS)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("1. hidden-single") or lines[0].startswith(" 1. hidden-single")
    assert any("xy-chain" in line for line in lines)
    assert lines[-12] == "1 8 3 | 5 2 4 | 6 9 7"
    assert lines[-1].startswith("solved in ") and "rating" in lines[-1]


def test_json_steps_are_one_based_and_agree_with_the_solution(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "--json", CHAINS)
    assert code == 0
    (obj,) = [json.loads(line) for line in out.splitlines()]
    assert obj["index"] == 0 and obj["status"] == "solved"
    assert obj["level"] in ("diabolical", "extreme") and obj["rating"] >= 5.5
    assert obj["grid"] == CHAINS_SOLUTION
    solution = np.array([int(c) for c in CHAINS_SOLUTION]).reshape(9, 9)
    placed = 0
    for step in obj["steps"]:
        assert set(step) >= {"rule", "placements", "eliminations", "cells"}
        for r, c, d in step["placements"]:
            assert solution[r - 1, c - 1] == d
            placed += 1
        for r, c, d in step["eliminations"]:
            assert solution[r - 1, c - 1] != d
    assert placed == CHAINS.count("0")
    chains = [step for step in obj["steps"] if "links" in step]
    assert chains, "a chain step carries its links"
    link = chains[0]["links"][0]
    assert set(link) == {"from", "to", "digit", "graph"}
    assert link["graph"] in ("bilocation", "bivalue", "weak")


def test_a_batch_gives_every_line_one_result_and_goes_on(
    capsys: pytest.CaptureFixture[str], batch: Path
) -> None:
    code, out, _ = run(capsys, "explain", "--json", str(batch))
    objs = [json.loads(line) for line in out.splitlines()]
    assert [o["index"] for o in objs] == list(range(6))
    assert [o["line"] for o in objs] == list(range(2, 8))
    assert [o["status"] for o in objs] == ["solved", "invalid", "invalid", "unsat", "solved", "solved"]
    assert "80 symbols" in objs[1]["error"] and "both hold 4" in objs[2]["error"]
    assert objs[3]["rating"] is None and objs[3]["level"] == "none"
    assert code == 2  # invalid lines are the most severe outcome


def test_a_batch_in_words_heads_each_puzzle_and_ends_with_a_summary(
    capsys: pytest.CaptureFixture[str], batch: Path
) -> None:
    code, out, _ = run(capsys, "explain", str(batch))
    heads = [line for line in out.splitlines() if line.startswith("#")]
    assert [h.split(":")[0] for h in heads] == [f"#{k} line {k + 1}" for k in range(1, 7)]
    assert heads[1] == "#2 line 3: invalid: 80 symbols is not a square grid (n*n cells, e.g. 81)"
    assert heads[3].startswith("#4 line 5: unsat")
    assert out.splitlines()[-1].startswith("summary: 6 puzzles: 3 solved, 1 unsat, 2 invalid")
    assert code == 2


def test_a_stuck_puzzle_shows_its_pencil_marks_and_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "--rules", "singles,locked", CHAINS)
    assert code == 3
    lines = out.splitlines()
    assert lines[-1].startswith("stuck after") and "no rule applies" in lines[-1]
    marks = lines[-12:-1]
    assert len(marks) == 11 and marks[3].startswith("-") and "+" in marks[3]
    assert max(len(word) for word in marks[0].split()) >= 2  # cells with several candidates
    code, out, _ = run(capsys, "explain", "--rules", "singles,locked", "--json", CHAINS)
    obj = json.loads(out)
    assert obj["status"] == "stuck" and obj["level"] == "unsolved"
    assert len(obj["candidates"]) == 9 and all(len(row) == 9 for row in obj["candidates"])
    assert obj["candidates"][0][1] == [8]  # a given keeps only its digit


def test_no_solution_exits_1_and_an_invalid_single_puzzle_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "explain", UNSOLVABLE)
    assert code == 1 and out.splitlines()[-1].startswith("unsat")
    code, out, err = run(capsys, "explain", "44" + CHAINS[2:])
    assert code == 2 and out == ""
    assert "invalid puzzle: R1C1 and R1C2 both hold 4" in one_line_error(err)
    code, _, err = run(capsys, "explain", CHAINS[:80])
    assert code == 2 and "80 symbols" in one_line_error(err)


def test_an_unknown_rule_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "explain", "--rules", "singles,nonsense", EASY)
    assert code == 2 and "nonsense" in one_line_error(err)


def test_help_lists_every_family_and_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "--help")
    assert code == 0
    for family in FAMILIES:
        assert f"\n  {family} " in out
    for rule in RULES:
        assert rule.name in out


@pytest.mark.parametrize(("puzzle", "box"), [(SIX, (2, 3)), (TWELVE, (3, 4))])
def test_rectangular_boxes(capsys: pytest.CaptureFixture[str], puzzle: str, box: tuple[int, int]) -> None:
    code, out, _ = run(capsys, "explain", "--box", f"{box[0]}x{box[1]}", "--json", "--check", puzzle)
    obj = json.loads(out)
    assert code == 0 and obj["status"] == "solved"
    assert parse_grid(obj["grid"], box=box).is_complete
    code, out, _ = run(capsys, "explain", "--box", f"{box[0]}x{box[1]}", puzzle)
    assert code == 0 and out.splitlines()[-1].startswith("solved in")


def test_check_proves_every_step_of_a_chain_puzzle(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "--check", "--json", CHAINS)
    assert code == 0 and json.loads(out)["status"] == "solved"


def test_svg_writes_one_valid_picture_per_step_that_is_not_a_single(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "steps"
    code, out, _ = run(capsys, "explain", "--json", "--svg", str(folder), CHAINS)
    assert code == 0
    steps = json.loads(out)["steps"]
    expected = {
        f"puzzle1-step{k:02d}-{step['rule']}.svg"
        for k, step in enumerate(steps, 1)
        if step["rule"] not in ("hidden-single", "naked-single")
    }
    assert {path.name for path in folder.iterdir()} == expected
    for path in folder.iterdir():
        root = ET.fromstring(path.read_text())
        assert root.tag == f"{SVG}svg"
        assert root.findall(f"{SVG}circle"), "placements and eliminations are marked"
        assert root.findall(f"{SVG}text")
    chain = next(p for p in folder.iterdir() if "chain" in p.name)
    paths = ET.fromstring(chain.read_text()).findall(f"{SVG}path")
    assert any((p.findtext(f"{SVG}title") or "").startswith("bilocation: ") for p in paths)


def test_svg_draws_a_stuck_board(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, _ = run(capsys, "explain", "--rules", "singles", "--svg", str(tmp_path), CHAINS)
    assert code == 3
    assert [p.name for p in tmp_path.iterdir()] == ["puzzle1-stuck.svg"]


def test_a_spent_time_limit_makes_every_puzzle_unknown(
    capsys: pytest.CaptureFixture[str], batch: Path
) -> None:
    code, out, _ = run(capsys, "explain", "--json", "--time-limit", "0.000001", str(batch))
    statuses = [json.loads(line)["status"] for line in out.splitlines()]
    assert statuses == ["unknown", "invalid", "invalid", "unknown", "unknown", "unknown"]
    assert code == 2
    code, out, _ = run(capsys, "explain", "--time-limit", "0.000001", CHAINS)
    assert code == 3 and "time limit" in out


def test_standard_input_is_read_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(EASY + "\n"))
    code, out, _ = run(capsys, "explain", "-")
    assert code == 0 and out.splitlines()[-1].startswith("solved")


def test_check_names_a_rule_whose_step_is_false_and_exits_4(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sudoku_cp.deduction.rules as rules_module
    from sudoku_cp.deduction.rules import Rule, select_rules
    from sudoku_cp.deduction.step import Step

    solution = [int(c) for c in CHAINS_SOLUTION]

    def wrong(board: object) -> Step:  # removes the solution's digit from the first open cell
        cell = CHAINS.index("0")
        return Step("wrong-rule", np.empty((0, 2), np.int64), np.array([[cell, solution[cell] - 1]]))

    bad = Rule("wrong-rule", "wrong", "removes a true candidate", 0.0, wrong)  # the easiest: tried first
    monkeypatch.setattr(rules_module, "select_rules", lambda *a, **k: (bad, *select_rules()))
    code, out, err = run(capsys, "explain", "--check", CHAINS)
    assert code == 4 and out == ""
    assert "step not proved" in one_line_error(err) and "wrong-rule" in err
    code, _, _ = run(capsys, "explain", CHAINS)  # unchecked, the false step goes through
    assert code != 4


def _without_seconds(text: str) -> list[object]:
    objects = [json.loads(line) for line in text.splitlines()]
    for obj in objects:
        obj.pop("seconds", None)
    return objects


def test_worker_processes_give_the_same_lines_and_pictures(
    capsys: pytest.CaptureFixture[str], batch: Path, tmp_path: Path
) -> None:
    one = run(capsys, "explain", "--json", "--svg", str(tmp_path / "one"), str(batch))
    two = run(capsys, "explain", "--json", "--svg", str(tmp_path / "two"), "--jobs", "2", str(batch))
    assert one[0] == two[0] == 2
    assert _without_seconds(one[1]) == _without_seconds(two[1]) and len(one[1].splitlines()) == 6
    pictures = sorted(path.name for path in (tmp_path / "one").iterdir())
    assert pictures and pictures == sorted(path.name for path in (tmp_path / "two").iterdir())
    words = [run(capsys, "explain", str(batch), *jobs)[1].splitlines()[:-1] for jobs in ([], ["--jobs", "2"])]
    assert words[0] == words[1]  # all but the summary's time


def test_resume_of_a_cut_file_gives_the_whole_file(
    capsys: pytest.CaptureFixture[str], batch: Path, tmp_path: Path
) -> None:
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert run(capsys, "explain", "--json", str(batch), "-o", str(whole))[:2] == (2, "")
    text = whole.read_text()
    cut.write_text(text[: len(text) // 2])
    assert run(capsys, "explain", "--json", str(batch), "-o", str(cut), "--resume")[:2] == (2, "")
    assert _without_seconds(cut.read_text()) == _without_seconds(text)
    code, out, err = run(capsys, "explain", str(batch), "-o", str(cut), "--resume")
    assert code == 2 and "--resume needs --json" in one_line_error(err)


def test_the_json_line_is_the_json_of_the_result() -> None:
    """``Explained.json_line`` (what --json prints) is ``json_dumps(to_json())`` byte for byte:
    solved, stuck, unsat, invalid and unknown results, chain steps with links, notes, non-9x9."""
    from sudoku_cp.deduction.batch import explain_items
    from sudoku_cp.deduction.rules import select_rules
    from sudoku_cp.formats import json_dumps, parse_puzzles
    from sudoku_cp.limits import Deadline

    lines = [CHAINS, EASY, UNSOLVABLE, "11" + "." * 79, "not a puzzle", *read_top95()]
    results = list(explain_items(parse_puzzles("\n".join(lines) + "\n")))
    results += list(explain_items(parse_puzzles(EASY + "\n"), select_rules(["singles"])))  # stuck
    results += list(explain_items(parse_puzzles(EASY + "\n"), time_limit=Deadline(0)))  # unknown
    results += list(explain_items(parse_puzzles(SIX + "\n", box=(2, 3))))
    results += list(explain_items(parse_puzzles(TWELVE + "\n", box=(3, 4))))
    statuses = {result.status.value for result in results}
    assert statuses >= {"solved", "stuck", "unsat", "invalid", "unknown"}
    steps = [step for result in results if result.deduction for step in result.deduction.steps]
    assert any(step.links for step in steps) and any(step.note for step in steps)
    for result in results:
        assert result.json_line() == json_dumps(result.to_json()), result.index


def read_top95() -> list[str]:
    """The first 30 puzzles of Norvig's top95 (chains, forcing chains, notes)."""
    from conftest import DATA, read_lines

    return read_lines(DATA / "norvig_top95.txt", 30)


@pytest.mark.parametrize("side", [(2, 2), (5, 5), (6, 6)])
def test_a_step_s_json_text_is_its_json_with_or_without_the_tables(side: tuple[int, int]) -> None:
    """``Step.json_text`` looks numbers up in tables up to side 25 and writes them above: both
    give ``json_dumps(to_json())``, links, note and weight included."""
    from sudoku_cp.deduction.step import Step, steps_json
    from sudoku_cp.formats import json_dumps
    from sudoku_cp.geometry import geometry_for_size

    g = geometry_for_size(side[0] * side[1], side)
    n = g.n
    last = n * n - 1
    pairs = np.array([[0, 0], [last, n - 1], [n + 1, 1]], dtype=np.int64)
    links = ((0, last, n - 1, "bilocation"), (last, 1, 0, "implication"))
    step = Step(
        'a "rule"', pairs[:1], pairs[1:], (0, last), (0, n, 3 * n - 1), (0, n - 1), links, "why ✓", 7.25
    )
    assert step.json_text(g) == json_dumps(step.to_json(g))
    bare = Step("naked-single", pairs[:0], pairs[:0])
    assert bare.json_text(g) == json_dumps(bare.to_json(g))
    assert steps_json((step, bare, step), g) == json_dumps(
        [step.to_json(g), bare.to_json(g), step.to_json(g)]
    )
    assert steps_json((), g) == "[]"
