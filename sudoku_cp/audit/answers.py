"""What a solver's answer claims, and the verdicts a run can get; reading answer text and answer files.

An answer line (``parse_answer``) is a solution in the one-line form, optionally after ``solved``
or ``unique``; ``multiple`` with up to two solutions; ``unsat`` (or ``unsatisfiable``, ``no
solution``, ``none``); ``unknown`` (or ``indeterminate``, ``timeout``), or nothing.  An answer file
(``read_answer_lines``) has one such line per puzzle, in corpus order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..errors import SudokuCpError
from ..formats import GridFormat, parse_puzzles
from ..grid import Grid

__all__ = ["Answer", "AuditError", "Claim", "Verdict", "parse_answer", "read_answer_lines"]

_UNSAT_WORDS = frozenset({"unsat", "unsatisfiable", "no solution", "none"})
_UNKNOWN_WORDS = frozenset({"unknown", "indeterminate", "timeout"})
_SHOWN_TEXT = 40


class AuditError(SudokuCpError, ValueError):
    """An audit that cannot start: a bad solver command, or an answer file that does not match."""


class Claim(Enum):
    """What an answer says about its puzzle."""

    SOLVED = "solved"  # here is a solution (nothing said about others)
    UNIQUE = "unique"  # here is the only solution
    MULTIPLE = "multiple"  # more than one solution exists
    UNSAT = "unsat"  # no solution exists
    UNKNOWN = "unknown"  # the solver gave up without a claim
    NONE = "none"  # no answer at all (timeout, crash, unreadable output)


class Verdict(Enum):
    """The audit's judgement of one run."""

    CORRECT = "correct"
    WRONG = "wrong"
    TIMEOUT = "timeout"
    CRASH = "crash"
    UNKNOWN = "unknown"
    INVALID = "invalid"  # the corpus line is not a puzzle; no solver was run


@dataclass(frozen=True, slots=True)
class Answer:
    """One solver run's answer: the claim, the grids shown, or the failure that left no claim."""

    claim: Claim
    solutions: tuple[Grid, ...] = ()
    failure: Verdict | None = None  # TIMEOUT, CRASH, or WRONG when the solver rejected its own answer
    detail: str = ""
    seconds: float = 0.0


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN_TEXT else text[: _SHOWN_TEXT - 3] + "...")


def _read_grid(text: str, puzzle: Grid) -> Grid:
    """A grid of the puzzle's shape from one answer line; ValueError (with the column) if it is none."""
    g = puzzle.geometry
    fmt = GridFormat.LINE if g.n <= 61 else GridFormat.INTS
    item = parse_puzzles(text, box=(g.p, g.q), fmt=fmt)[0]
    if item.grid is None:
        raise ValueError(item.error or "not a grid")
    return item.grid


def parse_answer(text: str, puzzle: Grid) -> Answer:
    """Read a solver's answer text for ``puzzle``.

    Lines that are empty or start with '#' are skipped; the first other line is the answer:
    a solution in the one-line form (``.`` blanks, 1-9, A-Z, a-z; integers for grids over 61),
    optionally after a word ``solved`` or ``unique`` (the solution is the only one);
    ``multiple`` with optionally one solution, and a second solution on the next line;
    ``unsat`` / ``unsatisfiable`` / ``no solution`` / ``none``; ``unknown`` (or no line at all).
    Anything else is an unreadable answer (``Verdict.CRASH``), as is a further line.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines:
        return Answer(Claim.UNKNOWN, detail="no answer given")
    first = lines[0]
    word, _, rest = first.partition(" ")
    lowered = " ".join(first.lower().split())
    if lowered in _UNSAT_WORDS or lowered in _UNKNOWN_WORDS:
        if len(lines) > 1:
            return _unreadable(f"a further line {_shown(lines[1])} after {_shown(first)}")
        if lowered in _UNSAT_WORDS:
            return Answer(Claim.UNSAT)
        return Answer(Claim.UNKNOWN, detail=f"the solver answered {first!r}")
    claim = {"solved": Claim.SOLVED, "unique": Claim.UNIQUE, "multiple": Claim.MULTIPLE}.get(word.lower())
    grids_text = [rest.strip()] if claim is not None else [first]
    if claim is None:
        claim = Claim.SOLVED
    grids_text = [part for part in grids_text if part]
    extra = lines[1:]
    if claim is Claim.MULTIPLE and grids_text and extra:
        grids_text.append(extra.pop(0))
    if extra:
        return _unreadable(f"a further line {_shown(extra[0])} after the answer")
    if not grids_text and claim is not Claim.MULTIPLE:
        return _unreadable(f"{_shown(first)} has no solution after the word")
    solutions: list[Grid] = []
    for part in grids_text:
        try:
            solutions.append(_read_grid(part, puzzle))
        except ValueError as error:
            return _unreadable(f"{_shown(part)}: {error}")
    return Answer(claim, tuple(solutions))


def _unreadable(detail: str) -> Answer:
    return Answer(Claim.NONE, failure=Verdict.CRASH, detail=f"unreadable answer {detail}")


def read_answer_lines(text: str, puzzles: int) -> list[tuple[int, str]]:
    """(line number, answer) for each puzzle of an answer file: one line per puzzle, in order.

    '#' lines are skipped; an empty line is an 'unknown' answer.  Surplus empty lines at the end
    are dropped; any other count mismatch raises AuditError.
    """
    lines = [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if not line.lstrip().startswith("#")
    ]
    while len(lines) > puzzles and not lines[-1][1]:
        lines.pop()
    if len(lines) != puzzles:
        last = f" (the last is line {lines[-1][0]})" if lines else ""
        raise AuditError(
            f"{len(lines)} answer lines{last} for {puzzles} puzzles: "
            "give one line per puzzle, in corpus order (empty for unknown)"
        )
    return lines
