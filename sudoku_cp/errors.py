"""The one base class of every error sudoku_cp raises on purpose.

Library code never prints or exits: it raises a subclass of ``SudokuCpError`` that says what is wrong
and where (a line, a cell, a file).  The command line turns any ``SudokuCpError`` into one line on
standard error and an exit code; anything else reaching it is a bug.  A time limit is never an
error: engines return an outcome whose status is ``unknown`` with a reason (``sudoku_cp.outcome``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["SudokuCpError", "excerpt", "is_interrupt", "naming_file"]


class SudokuCpError(Exception):
    """Something sudoku_cp was asked to do cannot be done: bad input, a failing solver, a wrong answer."""


def excerpt(value: object, limit: int = 40, *, quote: bool = True) -> str:
    """A value as an error message shows it, at most ``limit`` characters: text in quotes (bare
    without ``quote``), anything else as its repr.  A model line or a JSON value can be megabytes."""
    if isinstance(value, str):
        shown = value if len(value) <= limit else value[: max(limit - 3, 1)] + "..."
        return repr(shown) if quote else shown
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > 13_000:  # str() of more than 4300 digits raises
            return "an integer of thousands of digits"
        digits = str(value)
        return digits if len(digits) <= limit else f"an integer of {len(digits.lstrip('-'))} digits"
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested too deep, or holding an integer of thousands of digits
        return "a value too long to show"
    return text if len(text) <= limit else text[: max(limit - 3, 1)] + "..."


def is_interrupt(problem: BaseException) -> bool:
    """True for Ctrl-C, also where a C extension reports it as its own error (pysat's solvers and
    cardinality encoders raise 'Caught keyboard interrupt')."""
    return isinstance(problem, KeyboardInterrupt) or "keyboard interrupt" in str(problem).lower()


@contextmanager
def naming_file(path: str | os.PathLike[str]) -> Iterator[None]:
    """Make an ``OSError`` raised in the block name ``path`` when it names no file: a write to a full
    disk ('No space left on device') or a failed flush names none, and the message must say where."""
    try:
        yield
    except OSError as error:
        if error.filename is None and not isinstance(error, BrokenPipeError):
            error.filename = os.fspath(path)
        raise
