"""sudoku_cp.testing: hypothesis strategies of puzzles with their truth, the check and the fixture,
and the README's example run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings

from sudoku_cp.grid import Grid
from sudoku_cp.testing import SudokuCase, check, puzzles, sudoku_check  # noqa: F401 - the fixture

README = Path(__file__).resolve().parents[1] / "README.md"


def _solve(puzzle: Grid) -> Grid | None:
    from sudoku_cp.backends.registry import make_backend

    found = make_backend("dlx").search(puzzle, 1)
    return puzzle.with_values(found.solutions[0]) if found.count else None


@settings(max_examples=25, deadline=None)
@given(puzzles(box=[(2, 3), (3, 2), (1, 4)]))
def test_cases_carry_their_truth(case: SudokuCase) -> None:
    assert (case.puzzle.geometry.p, case.puzzle.geometry.q) == case.box
    assert case.count == len(case.solutions)
    if case.status in ("unsat", "unsat_clash"):
        assert case.count == 0
    if case.status in ("full", "full_minus_one", "unique", "unique_minimal"):
        assert case.count == 1
    if case.status == "two":
        assert case.count == 2
    case.check(_solve(case.puzzle))  # a correct solver passes


@settings(max_examples=30, deadline=None)
@given(puzzles(box=(2, 2), status=["two", "empty", "many"]))
def test_saying_no_solution_to_several_fails(case: SudokuCase) -> None:
    with pytest.raises(AssertionError, match="wrong answer"):
        case.check(None)


@settings(max_examples=20, deadline=None)
@given(puzzles(box=(3, 3), status="unsat"))
def test_a_solution_to_no_solution_fails_and_none_passes(case: SudokuCase) -> None:
    case.check(None)
    with pytest.raises(AssertionError):
        case.check(Grid.empty(case.puzzle.geometry).values + 1)


@settings(max_examples=10, deadline=None)
@given(case=puzzles(box=(2, 3), status="full", symbols="edges"))
def test_the_fixture(case: SudokuCase, sudoku_check: Callable[[SudokuCase, object], None]) -> None:  # noqa: F811
    sudoku_check(case, case.puzzle)
    with pytest.raises(AssertionError):
        sudoku_check(case, "unsat")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown status"):
        puzzles(status="sometimes")


def test_the_readme_example_runs_and_catches_a_bug() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- testing example[^>]*-->\s*```python\n(.*?)```", text, re.S)
    assert block is not None
    code = block.group(1)
    scope: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), scope)  # noqa: S102 - the README's own example
    scope["test_my_solver"]()  # type: ignore[operator]
    buggy = code.replace("return puzzle.with_values", "return None and puzzle.with_values")
    scope = {}
    exec(compile(buggy, str(README), "exec"), scope)  # noqa: S102
    with pytest.raises(AssertionError):
        scope["test_my_solver"]()  # type: ignore[operator]


def test_hypothesis_is_imported_only_by_sudoku_cp_testing() -> None:
    probe = (
        "import sys, sudoku_cp, sudoku_cp.fuzz, sudoku_cp.audit, sudoku_cp.cli; "
        "import sudoku_cp.cli.fuzz; print('hypothesis' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
