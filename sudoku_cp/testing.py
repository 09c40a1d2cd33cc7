"""Testing a Python Sudoku solver with hypothesis: puzzles of any shape and status, each with its truth.

``puzzles(box=(2, 3))`` is a hypothesis strategy of ``SudokuCase`` values: a puzzle made as
``sudoku-cp fuzz`` makes its cases (``fuzz.cases``: full, one cell removed, empty, two equal
givens, many solutions, exactly two, minimal unique, one given too many, givens removed, no
solution without a repeated digit; symbols at the alphabet's edges every other case), with the
ground truth already decided by SAT (up to two solutions).  ``case.check(answer)`` judges what
your solver returned as ``verify`` judges a program's answer and raises AssertionError with the
reason unless it is correct.  A solver is tested in three lines::

    @given(puzzles(box=(2, 3)))
    def test_my_solver(case):
        case.check(my_solver(case.puzzle))

An answer is a solution (a ``Grid``, or digits as an array or nested lists), None for "no
solution", a tuple of two Grids for "more than one solution", or an answer line of the program
protocol ("unsat", "multiple", "unique SOLUTION").  Any valid solution is correct for a puzzle
with several; None is correct only when there is none.

The pytest fixture ``sudoku_check`` is ``check``: add ``pytest_plugins = ["sudoku_cp.testing"]``
to your conftest.py (or import the fixture into the test module) and take it as an argument.

hypothesis is a test extra (``pip install 'sudoku_cp[test]'``): it is imported here and nowhere
else in the package.  Hypothesis shrinks a failing example by its draws (box, status, symbols
form, seed); ``sudoku-cp fuzz`` shrinks the puzzle itself, givens and all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from .audit.answers import Verdict
from .audit.judge import judge
from .audit.truth import GroundTruth, Truth
from .formats import format_line
from .fuzz.calls import PuzzleAnswer, answer_of
from .fuzz.cases import STATUSES, SYMBOLS_FORMS, CaseKey, make_case, shapes
from .grid import Grid

__all__ = ["STATUSES", "SudokuCase", "check", "puzzles", "sudoku_check"]

_truth = GroundTruth()  # one per process: it remembers the puzzles it decided


@dataclass(frozen=True)
class SudokuCase:
    """A puzzle, how it was made (box, status, symbols form) and its truth (up to two solutions)."""

    puzzle: Grid
    box: tuple[int, int]
    status: str
    symbols: str
    truth: Truth

    @property
    def count(self) -> int:
        """0 (no solution), 1 (unique) or 2 (more than one)."""
        return self.truth.count

    @property
    def solutions(self) -> tuple[Grid, ...]:
        """Up to two of the puzzle's solutions."""
        return self.truth.solutions

    def check(self, answer: PuzzleAnswer) -> None:
        """Raise AssertionError (with why) unless ``answer`` is a correct answer to the puzzle."""
        check(self, answer)

    def __repr__(self) -> str:
        box = f"{self.box[0]}x{self.box[1]}"
        line = format_line(self.puzzle)
        return f"SudokuCase({box} {self.status} {self.symbols}: {line!r}, {self.count} solutions)"


def check(case: SudokuCase, answer: PuzzleAnswer) -> None:
    """Raise AssertionError unless ``answer`` (see the module docstring) is correct for ``case``."""
    verdict, why = judge(case.puzzle, answer_of(answer, case.puzzle), lambda: case.truth)
    if verdict is not Verdict.CORRECT:
        raise AssertionError(f"{verdict.value} answer to {case!r}: {why}")


def _as_list(value: Any, every: Sequence[Any]) -> list[Any]:
    if value is None:
        return list(every)
    if isinstance(value, (str, tuple)) and value in every:
        return [value]
    return list(value)


def puzzles(
    box: tuple[int, int] | Sequence[tuple[int, int]] | None = None,
    status: str | Sequence[str] | None = None,
    *,
    max_side: int = 9,
    symbols: str | Sequence[str] | None = None,
) -> st.SearchStrategy[SudokuCase]:
    """A hypothesis strategy of ``SudokuCase``: a puzzle of ``box`` (a (p, q) shape or several;
    default every shape up to side ``max_side``) and ``status`` (one of ``STATUSES`` or several;
    default all), with its truth.  ``symbols``: 'random', 'edges' or both (the default)."""
    boxes: list[tuple[int, int]]
    if box is None:
        boxes = shapes(max_side)
    elif isinstance(box, tuple) and box and isinstance(box[0], int):
        boxes = [(int(box[0]), int(box[1]))]  # type: ignore[arg-type]
    else:
        boxes = [tuple(shape) for shape in box]  # type: ignore[misc, arg-type]
    statuses = _as_list(status, STATUSES)
    forms = _as_list(symbols, SYMBOLS_FORMS)
    unknown = [name for name in statuses if name not in STATUSES] + [
        f for f in forms if f not in SYMBOLS_FORMS
    ]
    if unknown or not boxes:
        raise ValueError(f"puzzles(): unknown status or symbols {unknown} (statuses: {', '.join(STATUSES)})")

    @st.composite
    def draw(data: Callable[[st.SearchStrategy[Any]], Any]) -> SudokuCase:
        shape = data(st.sampled_from(boxes))
        made_status = data(st.sampled_from(statuses))
        form = data(st.sampled_from(forms))
        seed = data(st.integers(0, 2**32 - 1))
        puzzle = make_case(CaseKey(tuple(shape), made_status, form, (seed,)))  # type: ignore[arg-type]
        assume(puzzle is not None)  # a shape with no puzzle of that status (the 1x2 grid's hidden unsat)
        assert puzzle is not None
        return SudokuCase(puzzle, tuple(shape), made_status, form, _truth(puzzle))  # type: ignore[arg-type]

    return draw()  # type: ignore[no-any-return]


try:
    import pytest
except ImportError:  # pragma: no cover - the strategies work without pytest
    pass
else:

    @pytest.fixture(scope="session")  # stateless: one for every example hypothesis draws
    def sudoku_check() -> Callable[[SudokuCase, PuzzleAnswer], None]:
        """The pytest fixture: ``check(case, answer)``."""
        return check
