"""The ``sudoku-cp`` command line: parse, call one library function, print.

``main`` builds the parser from the subcommand modules (``solve``, ``count``, ``encode``,
``decode``, ``nishio``, ``reduce``, ``benchset``, ``verify``, ``explain``, ``rate``, ``generate``,
``check-certificate``), each of
which imports only ``common`` and the library, and turns errors into one line and an exit
code: ``CliError`` with its own code, ``SudokuCpError`` and ``OSError`` (bad input) with 2,
Ctrl-C with 130.  Anything else is a bug and keeps its traceback.  Solvers, OR-tools and
numba are imported inside the subcommands, so ``sudoku-cp --help`` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from types import ModuleType

from ..errors import SudokuCpError, is_interrupt
from ..formats import SYMBOLS
from ..limits import Sigint, on_first_compile, process_started
from . import common
from .common import EXIT_BAD_INPUT, EXIT_CODES_HELP, CliError, worst_exit

__all__ = ["build_parser", "main", "worst_exit"]

PUZZLES_HELP = f"""\
puzzles:
  A PUZZLE argument is a file, '-' for standard input, or the puzzle itself as one
  word of grid symbols.  Symbols: 1-9, then A-Z for 10-35 and a-z for 36-61 ({len(SYMBOLS)} at
  most); '.' or '0' is a blank.  Larger grids use the ints form.
  Forms, detected unless --format names one:
    line   one puzzle, n*n symbols on one line (the 81-character form)
    lines  a batch: one puzzle per line; blank lines and '#' comments skipped
    grid   one puzzle over several lines; '|', '+', '-', '=' and spaces ignored
    ints   n*n whitespace-separated integers, 0 or '.' blank (any size)
    acs    instance files of Lloyd & Amos' ant-colony solver (order, 1, cells, -1 blank)
  Boxes are square by default; other shapes need --box PxQ (P rows by Q columns),
  e.g. --box 2x3 for 6x6 grids.  Cells are named 1-based as users read them: R9C5."""

# The subcommands in the order --help lists them.  Each module is imported only when its parser
# is needed: a command line naming one command loads that one alone (the verify and reduce
# modules pull in the audit and reduction packages, a tenth of a second of start-up).
_COMMANDS = (
    "solve",
    "count",
    "encode",
    "decode",
    "nishio",
    "reduce",
    "benchset",
    "verify",
    "fuzz",
    "explain",
    "rate",
    "generate",
    "check-certificate",
)


def _command(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``sudoku-cp`` and its subcommands (``only``: that subcommand alone)."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog=common.PROG,
        formatter_class=common.Formatter,
        description=(
            "Sudoku puzzles of any box shape (4x4, 6x6, 9x9, 16x16, 25x25, ...) as CNF, exact-cover and\n"
            "CP-SAT models, solved by real solvers; every answer is checked before it is printed.\n"
            "Without arguments: solve a hard example.  'sudoku-cp COMMAND --help' explains a command."
        ),
        epilog="\n\n".join([PUZZLES_HELP, common.BACKENDS_HELP, EXIT_CODES_HELP]),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in _COMMANDS if only is None else (only,):
        _command(name).add_parser(commands)
    return parser


def _os_message(problem: OSError) -> str:
    if problem.filename is not None:
        return f"{problem.filename}: {problem.strerror or problem}"
    return str(problem.strerror or problem)


def _quiet_broken_pipe() -> None:
    """After a closed pipe (e.g. '| head'), keep Python from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sudoku-cp`` with ``argv`` (default: the process arguments) and return the exit code."""
    started = process_started() if argv is None else time.monotonic()  # where a time limit counts from
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:  # a Ctrl-C may come while the handler is being installed
        if argv is None:
            signal.signal(signal.SIGINT, Sigint.handle)
            on_first_compile(_first_compile)  # a first run after an install: say so, warm the rest up
        if not arguments:
            return _command("example").run()  # type: ignore[no-any-return]
        parser = build_parser(arguments[0] if arguments[0] in _COMMANDS else None)
        try:
            args = parser.parse_args(arguments)
        except SystemExit as stop:  # --help, --version and usage errors
            return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
        if args.command is None:
            parser.print_usage(sys.stderr)
            common.error(f"choose a command: {', '.join(_COMMANDS)}")
            return EXIT_BAD_INPUT
        args.started = started
        code: int = args.run(args)
        sys.stdout.flush()
        return code
    except BaseException as problem:
        return _exit_code(problem, entry=argv is None)


def _first_compile() -> None:
    from ..native.warmup import first_compile_notice  # only when this process compiles

    first_compile_notice()


def _ignore_unraisable(unraisable: object) -> None:
    """Drop an exception raised in a finaliser once the command is interrupted."""


def _exit_code(problem: BaseException, *, entry: bool) -> int:
    """The one line and exit code for what stopped a command; anything else is a bug and goes on up."""
    if is_interrupt(problem) or (Sigint.received and isinstance(problem, Exception)):
        if entry:  # the process itself: a second Ctrl-C must not break the orderly exit
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            # An object the interrupt left half-built (a pysat Solver stopped inside its __init__)
            # fails in its finaliser; that is not news after "interrupted" and must not print a traceback.
            sys.unraisablehook = _ignore_unraisable
        common.error("interrupted")
        return 130
    if isinstance(problem, CliError):
        common.error(problem.message)
        return problem.code
    if isinstance(problem, (SudokuCpError, ValueError)):
        common.error(str(problem))
        return EXIT_BAD_INPUT
    if isinstance(problem, BrokenPipeError):  # the reader went away: nothing to report
        _quiet_broken_pipe()
        return 128 + 13  # as a shell reports SIGPIPE
    if isinstance(problem, OSError):
        common.error(_os_message(problem))
        return EXIT_BAD_INPUT
    raise problem
