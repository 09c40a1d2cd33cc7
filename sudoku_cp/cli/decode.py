"""``sudoku-cp decode``: a SAT solver's answer for a puzzle's CNF, back to a checked grid."""

from __future__ import annotations

import argparse

from ..formats import format_line, json_dumps
from ..grid import Grid
from . import common
from .common import EXIT_NO_SOLUTION, EXIT_OK, EXIT_UNKNOWN, CliError

__all__ = ["add_parser", "run"]

DECODE_HELP = """\
Read a SAT solver's answer for the CNF of a puzzle (as written by 'encode --to cnf' with the
same --encoding), turn the model back into a grid, check it against the puzzle and print it.
Auxiliary variables of an at-most-one encoding are ignored; with --amo, every literal must be
a variable of that CNF.  OUTPUT is a file or '-': SAT competition output ('s SATISFIABLE' and 'v' lines),
a minisat result file ('SAT' then the literals ending in 0) or a bare list of literals.
An UNSAT answer is confirmed by python-sat, then prints 'unsat' (exit 1); a wrong UNSAT claim is an
error (exit 2); an unknown answer prints 'unknown' (exit 3).

examples:
  sudoku-cp encode --to cnf puzzle.txt -o puzzle.cnf
  cadical -q puzzle.cnf > solver-output.txt
  sudoku-cp decode puzzle.txt solver-output.txt"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``decode``."""
    from ..cnf.sudoku import CnfEncoding

    parser = common.add_command(
        commands, "decode", "turn a SAT solver's answer back into a checked grid", DECODE_HELP
    )
    parser.add_argument("puzzle", metavar="PUZZLE", help="the puzzle the CNF was made from")
    parser.add_argument("solver_output", metavar="OUTPUT", help="the solver's answer: a file or '-'")
    common.add_input_options(parser)
    common.add_encoding_options(parser, CnfEncoding.EXTENDED.value)
    parser.set_defaults(amo=None)  # see DECODE_HELP: without --amo, auxiliary variables are ignored
    common.add_output_option(parser, "the solution")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp decode``; return the exit code."""
    from ..checker import VerificationError, check_solution
    from ..cnf.dimacs import SolverProgramError, read_solver_answer
    from ..cnf.sudoku import AmoEncoding, encode_cnf
    from ..cnf.varmap import DecodeError

    if args.puzzle == "-" and args.solver_output == "-":
        raise CliError("only one of PUZZLE and OUTPUT can be '-' (standard input)")
    puzzle, _ = common.one_puzzle(args, "decode")
    text, name = common.read_argument(args.solver_output, literal=False)
    cnf = encode_cnf(puzzle, args.encoding, args.amo or AmoEncoding.PAIRWISE)
    # The grid variables do not depend on --amo: without it, auxiliary variables are accepted and ignored.
    try:
        answer = read_solver_answer(text, cnf.n_vars if args.amo else None)
    except SolverProgramError as problem:
        mismatch = "out of range" in str(problem)
        hint = " (was the CNF written with another --encoding or --amo?)" if mismatch else ""
        raise CliError(common.where(name, f"{problem}{hint}")) from None
    satisfiable, model = answer.satisfiable, answer.literals
    if satisfiable is False:
        return _confirmed_unsat(puzzle, name, args)
    if satisfiable is None or model is None:
        common.out(json_dumps({"status": "unknown"}) if args.output == "json" else "unknown")
        return EXIT_UNKNOWN
    try:
        values = cnf.varmap.decode(model)
        solution = check_solution(puzzle, puzzle.with_values(values))
    except (DecodeError, VerificationError) as problem:
        hint = " (was the CNF written with another --encoding?)"
        raise CliError(
            common.where(name, f"the model is not a solution of the puzzle: {problem}{hint}")
        ) from None
    if args.output == "json":
        common.out(
            json_dumps(
                {"status": "solved", "solution": format_line(solution), "rows": solution.values.tolist()}
            )
        )
    else:
        common.out(common.grid_output(solution, args.output))
        common.out(f"solved (decoded with the {cnf.encoding.value} encoding, checked against the puzzle)")
    return EXIT_OK


def _confirmed_unsat(puzzle: Grid, name: str | None, args: argparse.Namespace) -> int:
    """An UNSAT answer is a claim: python-sat confirms it before 'unsat' is printed."""
    from ..api import solve
    from ..outcome import Status

    check = solve(puzzle, "pysat")
    if check.status is Status.SOLVED:
        raise CliError(
            common.where(
                name, "the answer claims UNSAT, but the puzzle has a solution (python-sat found one)"
            )
        )
    if check.status is not Status.UNSAT:
        common.out(json_dumps({"status": "unknown"}) if args.output == "json" else "unknown")
        return EXIT_UNKNOWN
    if args.output == "json":
        common.out(json_dumps({"status": "unsat", "confirmed_by": "pysat"}))
    else:
        common.out("unsat (confirmed by python-sat)")
    return EXIT_NO_SOLUTION
