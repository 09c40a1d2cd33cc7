"""``sudoku-cp count``: the number of solutions of one puzzle, exact below a limit."""

from __future__ import annotations

import argparse

from ..formats import json_dumps
from . import common
from .common import EXIT_NO_SOLUTION, EXIT_OK, EXIT_UNKNOWN, CliError

__all__ = ["COUNT_BACKEND", "add_parser", "run"]

COUNT_BACKEND = "dlx"  # Algorithm X enumerates small grids fastest

COUNT_HELP = """\
Count the solutions of one puzzle, exactly when there are fewer than --limit.  Prints
'count: N (exact)', 'count: at least N (limit reached)' or 'count: at least N (time limit
reached)'; with --json an object with count, exact, timed_out, seconds.  An exact count of 0
exits with 1, a time limit with 3.

examples:
  sudoku-cp count ................
  sudoku-cp count --limit 100000 --box 2x3 grid6x6.txt"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``count``."""
    parser = common.add_command(commands, "count", "count the solutions of a puzzle", COUNT_HELP)
    common.add_puzzle_argument(parser)
    common.add_input_options(parser)
    common.add_backend_arguments(parser, COUNT_BACKEND)
    common.add_encoding_options(parser, None)
    parser.add_argument(
        "--limit",
        type=common.integer(1),
        default=100_000,
        metavar="N",
        help="stop after N solutions (default: 100000)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp count``; return the exit code."""
    from ..api import count_solutions
    from ..backends.base import BackendError
    from ..limits import Deadline

    # The time limit covers the whole command, from the process start (reading included).
    clock = Deadline(args.time_limit, began=getattr(args, "started", None))
    puzzle, _ = common.one_puzzle(args, "count")
    backend = common.backend_options(args, COUNT_BACKEND).make()
    try:
        result = count_solutions(puzzle, backend, limit=args.limit, time_limit=clock)
    except BackendError as problem:  # a solver that failed gave no count: unknown, not bad input
        raise CliError(str(problem), EXIT_UNKNOWN) from None
    if result.exact:
        text, code = f"count: {result.count} (exact)", EXIT_OK if result.count else EXIT_NO_SOLUTION
    elif result.timed_out:
        text, code = f"count: at least {result.count} (time limit reached)", EXIT_UNKNOWN
    else:
        text, code = f"count: at least {result.count} (limit reached)", EXIT_OK
    # An exact count from a program ends on its UNSAT claim, left unconfirmed by --trust-solver.
    unverified = result.exact and args.trust_solver
    if args.json:
        obj = {
            "count": result.count,
            "exact": result.exact,
            "timed_out": result.timed_out,
            "limit": args.limit,
            "backend": backend.name,
            "seconds": round(result.seconds, 6),
        }
        if unverified:
            obj["unverified"] = True
        common.out(json_dumps(obj))
    else:
        common.out(text + (" unverified (--trust-solver)" if unverified else ""))
        common.out(f"({backend.name}, {result.seconds:.3f} s)")
    return code
