"""``sudoku-cp count``: the number of solutions of one puzzle, exact below a limit."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..formats import format_line, json_dumps
from . import common
from .common import EXIT_NO_SOLUTION, EXIT_OK, EXIT_UNKNOWN, CliError

if TYPE_CHECKING:
    from ..grid import Grid
    from ..limits import Deadline

__all__ = ["COUNT_BACKEND", "add_parser", "count_claim", "run"]

COUNT_BACKEND = "dlx"  # Algorithm X enumerates small grids fastest

COUNT_HELP = (
    """\
Count the solutions of one puzzle, exactly when there are fewer than --limit.  Prints
'count: N (exact)', 'count: at least N (limit reached)' or 'count: at least N (time limit
reached)'; with --json an object with count, exact, timed_out, seconds.  An exact count of 0
exits with 1, a time limit with 3.

With --certify DIR the answer is certified (see below): a count of 0 as 'unsat', an exact
count of 1 as 'unique' (with the solution), a count of 2 or more, exact or not, as 'multiple';
the certificate's path is printed ('certificate: PATH'; JSON: "certificate").  A count that
stopped at the time limit below 2 makes no claim and gets none.  A claim that cannot be
certified is an error naming the claim (exit 3); the time limit covers the certification too.

examples:
  sudoku-cp count ................
  sudoku-cp count --limit 100000 --box 2x3 grid6x6.txt
  sudoku-cp count --certify certs/ --box 2x2 1...........2..3

"""
    + common.CERTIFY_HELP
)


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
    common.add_certify_options(parser)
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
    folder = common.certify_directory(args)
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
    certificate = None
    if folder is not None:
        certificate = _certify(puzzle, result.count, result.exact, folder, args, clock)
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
        if certificate is not None:
            obj["certificate"] = certificate
        common.out(json_dumps(obj))
    else:
        common.out(text + (" unverified (--trust-solver)" if unverified else ""))
        if certificate is not None:
            common.out(f"certificate: {certificate}")
        common.out(f"({backend.name}, {result.seconds:.3f} s)")
    return code


def count_claim(count: int, exact: bool) -> str | None:
    """The claim a count makes: 'unsat' (exactly 0), 'unique' (exactly 1), 'multiple' (2 or
    more, exact or a lower bound), or None (a count stopped below 2 claims nothing)."""
    if count >= 2:
        return "multiple"
    if not exact:
        return None
    return "unique" if count == 1 else "unsat"


def _certify(
    puzzle: Grid, count: int, exact: bool, folder: str, args: argparse.Namespace, clock: Deadline
) -> str | None:
    """The manifest's path of the certificate of the count's claim (None: no claim); a claim
    that cannot be certified is an error naming it (exit 3)."""
    from ..certify.batch import ClaimItem, certify_claims

    claim = count_claim(count, exact)
    if claim is None:
        return None
    box = (puzzle.geometry.p, puzzle.geometry.q)
    # The solver that counted kept no solution: 'unique' lets the prover find it (and check it).
    item = ClaimItem(claim, box, format_line(puzzle))
    claims = certify_claims(
        [item], folder, checker=args.checker, time_limit=clock.remaining(), prover=args.prover
    )
    answer = next(claims)
    if answer.path is None:
        raise CliError(answer.error or f"claim '{claim}' not certified", EXIT_UNKNOWN)
    return answer.path
