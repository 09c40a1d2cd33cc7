"""``sudoku-cp verify --steps``: a deduction engine's step log checked claim by claim (``audit.steps``).

Logs come from our own ``explain --json`` (which must pass as it is, on puzzles of every status
and several box shapes), and from it with one claim injected: a wrong placement, a wrong
elimination, a step that contradicts an earlier one.  Each must be caught at exactly that step,
with a solution that the independent checker accepts and that really contradicts the claim.
"""

from __future__ import annotations

import contextlib
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.audit.steplog import StepLogError, read_step_logs
from sudoku_cp.audit.steps import StepVerdict, check_step_logs
from sudoku_cp.checker import check_solution
from sudoku_cp.cli import main
from sudoku_cp.formats import format_line, parse_grid, parse_puzzles
from sudoku_cp.fuzz.cases import CaseKey, make_case
from sudoku_cp.grid import Grid

#: Statuses of ``fuzz.cases`` whose puzzles explain's logs are checked on: unique (minimal and
#: not), several solutions (two, many), no solution without a clash, a full grid less one cell.
STATUSES = ("unique_minimal", "unique", "two", "many", "unsat", "removed", "full_minus_one")


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _corpus(box: tuple[int, int], seed: int) -> list[Grid]:
    puzzles = []
    for k, status in enumerate(STATUSES):
        puzzle = make_case(CaseKey(box, status, "random", (seed, k)))
        if puzzle is not None:
            puzzles.append(puzzle)
    return puzzles


def _explained(tmp_path: Path, puzzles: list[Grid], box: str) -> tuple[Path, Path]:
    """The corpus file and explain's JSON Lines log of it (``-o``: a header line first)."""
    corpus, log = tmp_path / f"corpus{box}.txt", tmp_path / f"log{box}.jsonl"
    corpus.write_text("".join(format_line(p) + "\n" for p in puzzles))
    code, _, err = _run("explain", str(corpus), "--box", box, "--json", "-o", str(log), "--no-progress")
    assert code in (0, 1, 3), err  # solved, some unsat, some stuck
    return corpus, log


def _results(out: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    objs = [json.loads(line) for line in out.splitlines()]
    assert "summary" in objs[-1]
    return objs[:-1], objs[-1]["summary"]


def _self_contained(explained: dict[str, Any], puzzle: Grid) -> list[dict[str, Any]]:
    """An explain line as a log of its own: a puzzle line, then one line per step."""
    head = {"puzzle": format_line(puzzle), "box": puzzle.geometry.box_label}
    return [head, *explained["steps"]]


def _write(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(obj) + "\n" for obj in objs))
    return path


@cache
def _solution(puzzle: Grid) -> np.ndarray:
    from sudoku_cp.audit.truth import GroundTruth

    truth = GroundTruth()(puzzle)
    assert truth.count == 1
    return truth.solutions[0].values


def _candidates(puzzle: Grid, steps: list[dict[str, Any]]) -> list[list[set[int]]]:
    """Candidates (1-based digits) the givens and ``steps`` leave, by Sudoku's rules: written here
    on its own, not taken from the module under test."""
    n, p, q = puzzle.n, puzzle.geometry.p, puzzle.geometry.q
    cand = [[set(range(1, n + 1)) for _ in range(n)] for _ in range(n)]

    def place(r: int, c: int, d: int) -> None:
        for k in range(n):
            cand[r][k].discard(d)
            cand[k][c].discard(d)
        r0, c0 = r - r % p, c - c % q
        for rr in range(r0, r0 + p):
            for cc in range(c0, c0 + q):
                cand[rr][cc].discard(d)
        cand[r][c] = {d}

    for r in range(n):
        for c in range(n):
            if puzzle.values[r, c]:
                place(r, c, int(puzzle.values[r, c]))
    for step in steps:
        for r, c, d in step.get("placements", []):
            place(r - 1, c - 1, d)
        for r, c, d in step.get("eliminations", []):
            cand[r - 1][c - 1].discard(d)
    return cand


def _placed(puzzle: Grid, steps: list[dict[str, Any]]) -> set[tuple[int, int]]:
    cells = {(r + 1, c + 1) for r, c in zip(*np.nonzero(puzzle.values), strict=True)}
    return cells | {(r, c) for step in steps for r, c, _ in step.get("placements", [])}


def _contradicts(obj: dict[str, Any], puzzle: Grid) -> None:
    """The reported solution is a solution of the puzzle, and it contradicts the reported claim."""
    solution = check_solution(puzzle, parse_grid(obj["solution"], box=(puzzle.geometry.p, puzzle.geometry.q)))
    r, c, d = obj["claim"]
    held = int(solution.values[r - 1, c - 1])
    assert held != d if obj["kind"] == "placement" else held == d


# ------------------------------------------------------------------------------ explain's logs pass


@pytest.mark.parametrize("box", [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)])
def test_explain_output_passes_as_it_is(tmp_path: Path, box: tuple[int, int]) -> None:
    label = f"{box[0]}x{box[1]}"
    puzzles = _corpus(box, 11)
    corpus, log = _explained(tmp_path, puzzles, label)
    code, out, err = _run("verify", "--steps", str(log), str(corpus), "--box", label, "--json")
    assert code == 0, out + err
    results, summary = _results(out)
    assert [r["verdict"] for r in results] == ["sound"] * len(puzzles)
    assert summary["puzzles"] == len(puzzles) and summary["sound"] == len(puzzles)
    assert {r["solutions"] for r in results} >= {1, 2}  # unique and several (none where the shape has it)
    assert sum(r["claims"] for r in results) > 0


@pytest.mark.slow
@pytest.mark.parametrize("box", [(4, 2), (3, 4), (4, 3), (4, 4)])
def test_explain_output_passes_on_larger_shapes(tmp_path: Path, box: tuple[int, int]) -> None:
    label = f"{box[0]}x{box[1]}"
    puzzles = _corpus(box, 5) + _corpus(box, 6)
    corpus, log = _explained(tmp_path, puzzles, label)
    code, out, err = _run("verify", "--steps", str(log), str(corpus), "--box", label)
    assert code == 0 and f"{len(puzzles)} sound" in out, out + err


@pytest.mark.slow
def test_explain_output_passes_on_hard_9x9(tmp_path: Path) -> None:
    puzzles = [parse_grid(line) for line in read_lines(DATA / "norvig_top95.txt", 95)]
    corpus, log = _explained(tmp_path, puzzles, "3x3")
    code, out, err = _run("verify", "--steps", str(log), str(corpus))
    assert code == 0 and "95 sound" in out, out + err


def test_self_contained_logs_pass_in_both_forms(tmp_path: Path) -> None:
    """A puzzle line with its steps inline, and a puzzle line followed by step lines."""
    puzzles = _corpus((2, 3), 3)
    _, log = _explained(tmp_path, puzzles, "2x3")
    explained = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    inline = [{"puzzle": format_line(p), "box": "2x3", **e} for p, e in zip(puzzles, explained, strict=True)]
    lines = [obj for p, e in zip(puzzles, explained, strict=True) for obj in _self_contained(e, p)]
    for objs in (inline, lines):
        path = _write(tmp_path / "own.jsonl", objs)
        code, out, err = _run("verify", "--steps", str(path))  # no corpus: the log names its puzzles
        assert code == 0 and f"{len(puzzles)} sound" in out, out + err


def test_a_puzzle_may_be_given_as_rows(tmp_path: Path) -> None:
    """The rows of integers ``grid_to_json`` writes (0 blank) serve as well as the one-line form."""
    from sudoku_cp.formats import grid_to_json

    puzzle = _corpus((2, 3), 9)[0]
    solution = _first_solution(puzzle)
    r, c = (int(x) for x in np.argwhere(puzzle.values == 0)[0])
    head = {"puzzle": grid_to_json(puzzle)["rows"], "box": "2x3"}
    right = _write(tmp_path / "right.jsonl", [head, {"placements": [[r + 1, c + 1, int(solution[r, c])]]}])
    assert _run("verify", "--steps", str(right))[0] == 0
    wrong = _write(tmp_path / "wrong.jsonl", [head, {"eliminations": [[r + 1, c + 1, int(solution[r, c])]]}])
    assert _run("verify", "--steps", str(wrong))[0] == 4


def _first_solution(puzzle: Grid) -> np.ndarray:
    from sudoku_cp.audit.truth import GroundTruth

    return GroundTruth()(puzzle).solutions[0].values


# ------------------------------------------------------------------------------- injected faults


@pytest.fixture(scope="module")
def unique_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Grid, list[dict[str, Any]]]:
    """A unique 9x9 puzzle and explain's steps for it (many of them)."""
    tmp_path = tmp_path_factory.mktemp("unique")
    puzzle = parse_grid(read_lines(DATA / "norvig_top95.txt", 1)[0])
    _, log = _explained(tmp_path, [puzzle], "3x3")
    steps = json.loads(log.read_text().splitlines()[1])["steps"]
    assert len(steps) > 20
    return puzzle, steps


def _check(tmp_path: Path, puzzle: Grid, steps: list[dict[str, Any]]) -> tuple[int, dict[str, Any], str]:
    path = _write(tmp_path / "log.jsonl", [{"puzzle": format_line(puzzle)}, *steps])
    code, out, err = _run("verify", "--steps", str(path), "--json")
    results, _ = _results(out)
    assert len(results) == 1 and "Traceback" not in err
    return code, results[0], err


@pytest.mark.parametrize("at", [0, 7, 20])
def test_a_wrong_placement_is_caught_at_its_step(
    tmp_path: Path, unique_log: tuple[Grid, list[dict[str, Any]]], at: int
) -> None:
    puzzle, steps = unique_log
    solution = _solution(puzzle)
    cand, placed = _candidates(puzzle, steps[:at]), _placed(puzzle, steps[:at])
    r, c, d = next(
        (r + 1, c + 1, d)
        for r in range(9)
        for c in range(9)
        for d in sorted(cand[r][c])
        if (r + 1, c + 1) not in placed and d != solution[r, c]
    )
    wrong = {"rule": "made-up", "placements": [[r, c, d]], "eliminations": []}
    code, result, _ = _check(tmp_path, puzzle, [*steps[:at], wrong, *steps[at:]])
    assert code == 4 and result["verdict"] == "unsound"
    assert (result["step"], result["rule"], result["kind"], result["claim"]) == (
        at + 1,
        "made-up",
        "placement",
        [r, c, d],
    )
    assert result["step_line"] == at + 2  # the puzzle line, then one line per step
    _contradicts(result, puzzle)


@pytest.mark.parametrize("at", [0, 12])
def test_a_wrong_elimination_is_caught_at_its_step(
    tmp_path: Path, unique_log: tuple[Grid, list[dict[str, Any]]], at: int
) -> None:
    puzzle, steps = unique_log
    solution = _solution(puzzle)
    placed = _placed(puzzle, steps[:at])
    r, c = next((r + 1, c + 1) for r in range(9) for c in range(9) if (r + 1, c + 1) not in placed)
    d = int(solution[r - 1, c - 1])
    changed = [dict(step) for step in steps]
    changed[at] = {**changed[at], "eliminations": [*changed[at]["eliminations"], [r, c, d]]}
    code, result, _ = _check(tmp_path, puzzle, changed)
    assert code == 4 and result["verdict"] == "unsound"
    assert (result["step"], result["kind"], result["claim"]) == (at + 1, "elimination", [r, c, d])
    _contradicts(result, puzzle)


def test_a_step_contradicting_an_earlier_one_is_inconsistent(
    tmp_path: Path, unique_log: tuple[Grid, list[dict[str, Any]]]
) -> None:
    puzzle, steps = unique_log
    first = next(k for k, step in enumerate(steps) if step["eliminations"])
    r, c, d = steps[first]["eliminations"][0]
    at = first + 3
    back = {"rule": "forgetful", "placements": [[r, c, d]], "eliminations": []}
    code, result, _ = _check(tmp_path, puzzle, [*steps[:at], back, *steps[at:]])
    assert code == 4 and result["verdict"] == "inconsistent"
    assert (result["step"], result["kind"], result["claim"]) == (at + 1, "placement", [r, c, d])
    assert f"step {first + 1}" in result["detail"]  # names the step that removed it


def test_removing_a_given_or_a_placed_digit_is_inconsistent(
    tmp_path: Path, unique_log: tuple[Grid, list[dict[str, Any]]]
) -> None:
    puzzle, steps = unique_log
    r, c = (int(x) + 1 for x in np.argwhere(puzzle.values)[0])
    given = {"eliminations": [[r, c, int(puzzle.values[r - 1, c - 1])]]}
    code, result, _ = _check(tmp_path, puzzle, [given, *steps])
    assert code == 4 and result["verdict"] == "inconsistent" and result["step"] == 1
    assert "a given" in result["detail"]
    k = next(k for k, step in enumerate(steps) if step["placements"])
    again = {"eliminations": [steps[k]["placements"][0]]}
    code, result, _ = _check(tmp_path, puzzle, [*steps[: k + 1], again])
    assert (code, result["verdict"], result["step"]) == (4, "inconsistent", k + 2)


def test_candidates_before_a_step_are_checked(
    tmp_path: Path, unique_log: tuple[Grid, list[dict[str, Any]]]
) -> None:
    puzzle, steps = unique_log
    at = 10
    cand = _candidates(puzzle, steps[:at])
    right = [[sorted(cell) for cell in row] for row in cand]
    with_right = [*steps[:at], {**steps[at], "candidates": right}, *steps[at + 1 :]]
    assert _check(tmp_path, puzzle, with_right)[0] == 0
    placed, solution = _placed(puzzle, steps[:at]), _solution(puzzle)
    r, c = next((r, c) for r in range(9) for c in range(9) if (r + 1, c + 1) not in placed)
    # leaving out the solution's digit is an unsound elimination
    omitted = [[list(cell) for cell in row] for row in right]
    omitted[r][c].remove(int(solution[r, c]))
    code, result, _ = _check(tmp_path, puzzle, [*steps[:at], {**steps[at], "candidates": omitted}])
    assert (code, result["verdict"], result["step"], result["kind"]) == (4, "unsound", at + 1, "omitted")
    _contradicts({**result, "kind": "elimination"}, puzzle)
    # keeping a digit an earlier claim removed is inconsistent
    d = next(d for d in range(1, 10) if d not in cand[r][c])
    kept = [[list(cell) for cell in row] for row in right]
    kept[r][c].append(d)
    code, result, _ = _check(tmp_path, puzzle, [*steps[:at], {**steps[at], "candidates": kept}])
    assert (code, result["verdict"], result["step"], result["claim"]) == (
        4,
        "inconsistent",
        at + 1,
        [r + 1, c + 1, d],
    )


@settings(max_examples=40)  # about 40 ms each: the default run stays short
@given(
    at=st.integers(0, 200),
    cell=st.integers(0, 80),
    digit=st.integers(1, 9),
    placement=st.booleans(),
)
def test_any_injected_claim_is_judged_by_the_solution(
    unique_log: tuple[Grid, list[dict[str, Any]]], at: int, cell: int, digit: int, placement: bool
) -> None:
    """On a unique puzzle a claim true in the solution leaves the log sound; a false one is
    caught at exactly its step, unsound (with the solution) or inconsistent."""
    puzzle, steps = unique_log
    at = min(at, len(steps))
    solution = _solution(puzzle)
    r, c = divmod(cell, 9)
    claim = {"placements" if placement else "eliminations": [[r + 1, c + 1, digit]]}
    true = (solution[r, c] == digit) == placement
    objs = [{"puzzle": format_line(puzzle)}, *steps[:at], claim, *steps[at:]]
    logs, _ = read_step_logs("".join(json.dumps(obj) + "\n" for obj in objs))
    (result,) = check_step_logs(logs)
    if true:
        assert result.verdict is StepVerdict.SOUND, result.text()
        return
    assert result.verdict in (StepVerdict.UNSOUND, StepVerdict.INCONSISTENT), result.text()
    assert (result.step, result.claim) == (at + 1, (r + 1, c + 1, digit)), result.text()
    if result.verdict is StepVerdict.UNSOUND:
        assert result.solution is not None and np.array_equal(result.solution.values, solution)


def test_candidates_on_the_puzzle_line_come_before_the_next_step(
    tmp_path: Path, unique_log: tuple[Grid, list[dict[str, Any]]]
) -> None:
    puzzle, steps = unique_log
    cand = [[sorted(cell) for cell in row] for row in _candidates(puzzle, [])]
    r, c = (int(x) for x in np.argwhere(puzzle.values == 0)[0])
    cand[r][c].remove(int(_solution(puzzle)[r, c]))
    path = _write(tmp_path / "log.jsonl", [{"puzzle": format_line(puzzle), "candidates": cand}, *steps])
    code, out, _ = _run("verify", "--steps", str(path), "--json")
    (result,), _ = _results(out)
    assert (code, result["verdict"], result["kind"]) == (4, "unsound", "omitted")
    assert (result["step"], result["step_line"]) == (1, 1)  # said on line 1, before step 1


# --------------------------------------------------------------------- several solutions, or none


@cache
def _two_solutions() -> tuple[Grid, np.ndarray, np.ndarray]:
    from sudoku_cp.audit.truth import GroundTruth

    for k in range(20):
        puzzle = make_case(CaseKey((3, 3), "two", "random", (7, k)))
        if puzzle is None:
            continue
        truth = GroundTruth()(puzzle)
        if truth.count == 2:
            return puzzle, truth.solutions[0].values, truth.solutions[1].values
    raise AssertionError("no 9x9 case with two solutions")  # pragma: no cover


@settings(max_examples=25)
@given(cell=st.integers(0, 80), digit=st.integers(1, 9), placement=st.booleans())
def test_with_two_solutions_a_claim_is_sound_only_if_both_agree(
    cell: int, digit: int, placement: bool
) -> None:
    puzzle, one, other = _two_solutions()
    r, c = divmod(cell, 9)
    held = {int(one[r, c]), int(other[r, c])}
    true = held == {digit} if placement else digit not in held
    claim = {"placements" if placement else "eliminations": [[r + 1, c + 1, digit]]}
    objs = [{"puzzle": format_line(puzzle)}, {"eliminations": []}, claim]
    logs, _ = read_step_logs("".join(json.dumps(obj) + "\n" for obj in objs))
    (result,) = check_step_logs(logs)
    assert result.solutions == 2
    if true:
        assert result.verdict is StepVerdict.SOUND, result.text()
        return
    assert result.verdict in (StepVerdict.UNSOUND, StepVerdict.INCONSISTENT), result.text()
    assert (result.step, result.claim) == (2, (r + 1, c + 1, digit))
    if result.verdict is StepVerdict.UNSOUND:
        assert result.solution is not None
        shown = result.solution.values
        assert np.array_equal(shown, one) or np.array_equal(shown, other)


def test_a_claim_true_in_some_solutions_only_is_unsound(tmp_path: Path) -> None:
    puzzle, one, other = _two_solutions()
    differ = np.argwhere(one != other)
    same = np.argwhere((one == other) & (puzzle.values == 0))
    # true in every solution: an elimination of a digit neither has, a placement both agree on
    r, c = (int(x) for x in differ[0])
    never = next(d for d in range(1, 10) if d not in (one[r, c], other[r, c]) and d not in puzzle.values[r])
    steps: list[dict[str, Any]] = [{"eliminations": [[r + 1, c + 1, never]]}]
    if len(same):
        sr, sc = (int(x) for x in same[0])
        steps.append({"placements": [[sr + 1, sc + 1, int(one[sr, sc])]]})
    steps.append({"rule": "lucky guess", "placements": [[r + 1, c + 1, int(one[r, c])]]})
    code, result, _ = _check(tmp_path, puzzle, steps)
    assert code == 4 and result["verdict"] == "unsound" and result["solutions"] == 2
    assert (result["step"], result["rule"], result["claim"]) == (
        len(steps),
        "lucky guess",
        [r + 1, c + 1, int(one[r, c])],
    )
    _contradicts(result, puzzle)


def test_the_first_unsound_claim_among_many_is_found_in_few_solves() -> None:
    """Many claims true in both solutions, then two that fail in one: the earlier one is named,
    in far fewer solves than claims (ranges of claims are asked at once, in halves)."""
    puzzle, one, other = _two_solutions()
    sound = [
        [r + 1, c + 1, d]
        for r in range(9)
        for c in range(9)
        for d in range(1, 10)
        if d not in (one[r, c], other[r, c])
    ]
    differ = [(int(r), int(c)) for r, c in np.argwhere(one != other)]
    (r1, c1), (r2, c2) = differ[0], differ[-1]
    steps: list[dict[str, Any]] = [{"eliminations": sound[k : k + 7]} for k in range(0, len(sound), 7)]
    middle = len(steps) // 2
    steps.insert(middle, {"rule": "first", "placements": [[r1 + 1, c1 + 1, int(other[r1, c1])]]})
    steps.append({"rule": "second", "placements": [[r2 + 1, c2 + 1, int(one[r2, c2])]]})
    logs, _ = read_step_logs(
        "".join(json.dumps(obj) + "\n" for obj in [{"puzzle": format_line(puzzle)}, *steps])
    )
    (result,) = check_step_logs(logs)
    assert (result.verdict, result.step, result.rule) == (StepVerdict.UNSOUND, middle + 1, "first")
    assert result.solution is not None and np.array_equal(result.solution.values, one)
    assert result.claims > 300 and result.sat_calls < 30


def test_grids_above_16x16_get_a_solver_each() -> None:
    """17x17 (1x17 boxes): each puzzle its own model, givens as unit clauses; same verdicts."""
    full = make_case(CaseKey((1, 17), "full_minus_one", "random", (1, 0)))
    many = make_case(CaseKey((1, 17), "many", "random", (1, 0)))
    assert full is not None and many is not None
    r, c = (int(x) for x in np.argwhere(full.values == 0)[0])
    missing = next(d for d in range(1, 18) if d not in full.values[r])
    lines = [
        {"puzzle": format_line(full), "box": "1x17"},
        {"placements": [[r + 1, c + 1, missing]]},
        {"puzzle": format_line(many), "box": "1x17"},
        {"eliminations": [[r + 1, c + 1, d] for d in range(1, 18)]},
    ]
    logs, _ = read_step_logs("".join(json.dumps(obj) + "\n" for obj in lines))
    first, second = check_step_logs(logs)
    assert (first.verdict, first.solutions) == (StepVerdict.SOUND, 1)
    assert second.verdict in (StepVerdict.UNSOUND, StepVerdict.INCONSISTENT), second.text()
    if second.verdict is StepVerdict.UNSOUND:
        assert second.solution is not None and check_solution(many, second.solution)


def test_a_puzzle_with_no_solution(tmp_path: Path) -> None:
    """Every claim holds vacuously; contradictions between claims are still caught."""
    puzzle = make_case(CaseKey((3, 3), "unsat", "random", (3, 0)))
    assert puzzle is not None
    cand = _candidates(puzzle, [])
    r, c = next((r + 1, c + 1) for r in range(9) for c in range(9) if len(cand[r][c]) > 1)
    d, *others = sorted(cand[r - 1][c - 1])
    claims = [{"placements": [[r, c, d]]}, {"eliminations": [[r, c, e] for e in others]}]
    code, result, _ = _check(tmp_path, puzzle, claims)
    assert (code, result["verdict"], result["solutions"]) == (0, "sound", 0)
    assert "no solution" in result["detail"]
    code, result, _ = _check(tmp_path, puzzle, [*claims, {"eliminations": [[r, c, d]]}])
    assert (code, result["verdict"], result["step"]) == (4, "inconsistent", 3)


def test_equal_givens_need_no_solver(tmp_path: Path) -> None:
    path = _write(tmp_path / "clash.jsonl", [{"puzzle": "11" + "." * 79}, {"placements": [[9, 9, 9]]}])
    code, out, _ = _run("verify", "--steps", str(path), "--json")
    results, summary = _results(out)
    assert code == 0 and results[0]["solutions"] == 0 and "equal givens" in results[0]["detail"]
    assert summary["sat_calls"] == 0


def test_a_time_limit_leaves_claims_unknown_never_unsound(tmp_path: Path) -> None:
    puzzle, one, _ = _two_solutions()
    r, c = (int(x) for x in np.argwhere(puzzle.values == 0)[0])
    path = _write(
        tmp_path / "log.jsonl",
        [{"puzzle": format_line(puzzle)}, {"placements": [[r + 1, c + 1, int(one[r, c])]]}],
    )
    code, out, _ = _run("verify", "--steps", str(path), "--time-limit", "0.000001", "--json")
    results, _ = _results(out)
    assert (code, results[0]["verdict"], results[0]["step"]) == (3, "unknown", 1)
    assert "solution" not in results[0]


def test_the_library_checks_a_batch_with_one_solver_per_shape() -> None:
    """Many puzzles of two shapes: one result each, in order, the SAT solver built once per shape."""
    lines = [json.dumps({"puzzle": format_line(p), "box": "2x3"}) for p in _corpus((2, 3), 21)]
    lines += [json.dumps({"puzzle": format_line(p), "box": "2x2"}) for p in _corpus((2, 2), 21)]
    logs, headers = read_step_logs("\n".join(lines))
    assert headers == [] and [log.index for log in logs] == list(range(len(lines)))
    results = list(check_step_logs(logs))
    assert [r.index for r in results] == list(range(len(lines)))
    assert all(r.verdict is StepVerdict.SOUND for r in results)


# ------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("lines", "where", "words"),
    [
        (['{"puzzle": "' + "." * 81 + '"}', "{not json"], 2, "not JSON"),
        (['["a list"]'], 1, "JSON object"),
        (['{"placements": [[1, 1, 1]]}'], 1, "before any puzzle"),
        (['{"puzzle": "' + "." * 81 + '"}', '{"placements": [[10, 1, 1]]}'], 2, "row 10 is outside 1..9"),
        (['{"puzzle": "' + "." * 81 + '"}', '{"eliminations": [[1, 1]]}'], 2, "not [row, column, digit]"),
        (['{"puzzle": "' + "." * 81 + '"}', '{"placements": [[1, 1, true]]}'], 2, "not [row, column, digit]"),
        (['{"puzzle": "' + "." * 81 + '"}', '{"candidates": [[1]]}'], 2, "9 rows"),
        (['{"puzzle": "' + "." * 36 + '", "box": "2-3"}'], 1, "PxQ"),
        (['{"puzzle": "12x"}'], 1, "puzzle"),
        (['{"puzzle": 7}'], 1, "puzzle text"),
        (['{"puzzle": [[1, 0], [0, 3]]}'], 1, "integers 0..2"),
        (['{"rule": "x"}'], 1, "neither a puzzle"),
        (['{"index": 0, "steps": []}'], 1, "pass the corpus"),
    ],
)
def test_malformed_lines_are_one_line_errors(
    tmp_path: Path, lines: list[str], where: int, words: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = _run("verify", "--steps", str(path))
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and f"bad.jsonl: line {where}: " in err and words in err, err


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)
_KEYS = ("puzzle", "box", "steps", "placements", "eliminations", "candidates", "rule", "index", "line")


@settings(max_examples=60)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(_KEYS), _JSON | st.just("1..." + "." * 12) | st.just("2x2"), max_size=4
        ),
        max_size=4,
    )
)
def test_any_json_is_read_or_refused_with_its_line(objs: list[dict[str, Any]]) -> None:
    """Whatever the lines hold, reading gives logs or one StepLogError, and checking never fails."""
    text = "".join(json.dumps(obj) + "\n" for obj in objs)
    try:
        logs, _ = read_step_logs(text, corpus=parse_puzzles("1...\n" + "." * 16 + "\n", box=(2, 2)))
    except StepLogError as error:
        assert str(error).startswith("line ") and "\n" not in str(error)
        return
    for result in check_step_logs(logs):
        assert result.verdict in StepVerdict


def test_an_explain_log_read_against_another_corpus_is_refused(tmp_path: Path) -> None:
    puzzles = _corpus((2, 2), 4)
    corpus, log = _explained(tmp_path, puzzles, "2x2")
    other = tmp_path / "other.txt"
    other.write_text("".join(format_line(p) + "\n" for p in reversed(puzzles)))
    code, _, err = _run("verify", "--steps", str(log), str(other), "--box", "2x2")
    assert code == 2 and "line 1: the log was made from another input" in err
    body = tmp_path / "body.jsonl"  # without its header: the lines' own numbers still tell
    body.write_text("".join(log.read_text().splitlines(keepends=True)[1:]))
    shorter = tmp_path / "shorter.txt"
    shorter.write_text("\n" + corpus.read_text())
    code, _, err = _run("verify", "--steps", str(body), str(shorter), "--box", "2x2")
    assert code == 2 and "another input" in err
    code, _, err = _run("verify", "--steps", str(body), str(tmp_path / "missing.txt"))
    assert code == 2 and "missing.txt" in err


def test_an_interrupted_results_file_is_resumed(tmp_path: Path) -> None:
    puzzles = _corpus((2, 3), 5)
    corpus, log = _explained(tmp_path, puzzles, "2x3")
    out = tmp_path / "out.jsonl"
    argv = ("verify", "--steps", str(log), str(corpus), "--box", "2x3", "--json", "-o", str(out))
    assert _run(*argv)[0] == 0
    lines = out.read_text().splitlines()
    assert len(lines) == len(puzzles) + 2  # the header, one line per puzzle, the summary
    out.write_text("\n".join(lines[:3]) + "\n")  # killed after two puzzles
    assert _run(*argv, "--resume")[0] == 0
    objs = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert [obj["index"] for obj in objs[:-1]] == list(range(len(puzzles)))
    assert objs[-1]["summary"]["sound"] == len(puzzles)


def test_steps_take_no_solver_and_verify_still_needs_a_corpus(tmp_path: Path) -> None:
    path = _write(tmp_path / "log.jsonl", [{"puzzle": "." * 16}])
    code, _, err = _run("verify", "--steps", str(path), "--backend", "dlx")
    assert code == 2 and "--steps" in err
    code, _, err = _run("verify", "--steps", str(path), "--runs", "3")
    assert code == 2 and "--runs" in err
    code, _, err = _run("verify", "--backend", "dlx")
    assert code == 2 and "CORPUS" in err


def test_an_unreadable_corpus_line_is_invalid(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    puzzles = _corpus((2, 2), 8)[:2]
    corpus.write_text(
        format_line(puzzles[0]) + "\n" + "12x4" + "." * 12 + "\n" + format_line(puzzles[1]) + "\n"
    )
    items = parse_puzzles(corpus.read_text(), box=(2, 2))
    assert items[1].grid is None
    log = tmp_path / "log.jsonl"
    code, _, _ = _run("explain", str(corpus), "--box", "2x2", "--json", "-o", str(log))
    code, out, _ = _run("verify", "--steps", str(log), str(corpus), "--box", "2x2", "--json")
    results, summary = _results(out)
    assert code == 2 and [r["verdict"] for r in results] == ["sound", "invalid", "sound"]


def test_library_errors_name_the_line() -> None:
    with pytest.raises(StepLogError, match=r"^line 3: "):
        read_step_logs('{"puzzle": "' + "." * 16 + '"}\n\n{"placements": [[5, 1, 1]]}\n')
