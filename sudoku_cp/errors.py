"""The one base class of every error sudoku_cp raises on purpose.

Library code never prints or exits: it raises a subclass of ``SudokuCpError`` that says what is wrong
and where (a line, a cell, a file).  The command line turns any ``SudokuCpError`` into one line on
standard error and an exit code; anything else reaching it is a bug.  A time limit is never an
error: engines return an outcome whose status is ``unknown`` with a reason (``sudoku_cp.outcome``).
"""

from __future__ import annotations

__all__ = ["SudokuCpError"]


class SudokuCpError(Exception):
    """Something sudoku_cp was asked to do cannot be done: bad input, a failing solver, a wrong answer."""
