"""``sudoku-cp fuzz``: any solver run on generated cases of every shape and status; failures shrunk
to small puzzles (``sudoku_cp.fuzz``)."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Iterator
from typing import Any

from ..limits import Sigint
from . import common
from .common import CliError
from .results_file import BatchOutput, add_results_file_options, digest_texts, run_identity

__all__ = ["add_parser", "run"]

FUZZ_HELP = """\
Run one solver on puzzles made from a seed, every box shape and every status, cheap and small
ones first, and check every answer as 'verify' does (the independent checker for solutions,
SAT ground truth for "no solution", "unique" and "more than one").  The solver is a backend
(--backend NAME) or an external program (--solver-cmd CMD, the protocol of 'verify': the
puzzle line on standard input or in place of {}, {seed} the run's seed, {box} the box shape
such as 2x3; one answer line on standard output).

Cases: every box shape PxQ with P*Q up to --max-side (default 16; 1x2 and 2x1 up, rectangular
both ways), each made as: a full grid, a full grid with one cell removed, the empty grid, two
equal givens in a unit (no solution), three quarters of a solution removed (many solutions),
exactly two solutions, a minimal unique puzzle, one with a given too many, one with givens
removed until it has several solutions, and one with no solution although no unit repeats a
digit.  Every other case relabels its digits so that the givens show the alphabet's edges (the
largest digit; 9 and A; Z and a; integers past 61).  A case is judged once, with --timeout per
call (default 5 s; a program is killed then, a backend runs in a worker process that is).

Verdicts: correct, wrong, timeout, crash (a failed run or unreadable output), unknown (the
solver gave up, or no ground truth).  The first case of each kind of failure (a wrong answer
making one claim, a crash, a timeout) is shrunk: to the smallest box shape where a case of the
same status fails the same way, then givens removed (halves, quarters, ..., single ones), then
digits renamed toward small ones; the result is 1-minimal (no given can go).  Later cases of a
kind are counted.  --jobs N runs the calls in N worker processes started once for the run:
cases in parallel while searching, each shrinking step's candidates in parallel while shrinking
(the same failures and shrunk puzzles as one job).  The run stops at the first wrong answer,
unless --keep-going; else when --budget seconds (default 60 with neither option) or --cases
cases are spent.

Output: per failure the original and the shrunk puzzle as grids, the shrunk puzzle's line, the
claim, the truth, and the command that reproduces it; then one line of figures.  With --json,
JSON Lines: one object per failure (index: the case number; kind, verdict, box, status, symbols,
puzzle, claimed, truth, detail, seed: the run's seed, count, spent, shrunk: {box, puzzle,
claimed, truth, detail, givens, calls, seconds, minimal, steps}, reproduce), then
{"summary": {...}}.  -o FILE writes them to FILE, each line flushed; --resume goes on after
the last case FILE covers (same --seed), with the kinds it found not looked for again, for
what remains of --budget: the summary's "spent" records the seconds used so far (a run cut
before its summary: up to its last failure).

examples:
  sudoku-cp fuzz --backend dlx --budget 30
  sudoku-cp fuzz --solver-cmd "./mysolver {box}" --seed 7 --budget 120 --json -o fuzz.jsonl
  sudoku-cp fuzz --solver-cmd "./mysolver {box}" --seed 7 --budget 120 --json -o fuzz.jsonl --resume
  sudoku-cp fuzz --solver-cmd "python3 solver.py" --max-side 9 --keep-going --jobs 2

exit codes:
  0  every answer correct within the budget
  2  usage error: no solver or a bad one, bad options
  3  timeouts, crashes or unknown verdicts, no wrong answer
  4  a wrong answer was found
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``fuzz``."""
    parser = common.add_command(
        commands,
        "fuzz",
        "run a solver on generated cases and shrink its failures",
        FUZZ_HELP,
        exit_codes=False,
    )
    solver = parser.add_argument_group("solver (one)")
    solver.add_argument("--backend", metavar="NAME", help="a backend by name")
    solver.add_argument("--solver-cmd", metavar="CMD", help="an external program (the protocol of verify)")
    cases = parser.add_argument_group("cases")
    cases.add_argument("--seed", type=common.integer(0), default=0, metavar="S", help="seed (default: 0)")
    cases.add_argument(
        "--budget", type=common.seconds, metavar="SECONDS", help="seconds of cases (default: 60)"
    )
    cases.add_argument("--cases", type=common.integer(1), metavar="N", help="cases to run at most")
    cases.add_argument(
        "--max-side",
        type=common.integer(2, 4096),
        default=16,
        metavar="N",
        help="largest grid side (default: 16)",
    )
    runs = parser.add_argument_group("runs")
    runs.add_argument(
        "--timeout",
        "--time-limit",
        dest="timeout",
        type=common.seconds,
        default=5.0,
        metavar="SECONDS",
        help="time limit per call (default: 5; 'inf': none)",
    )
    runs.add_argument("--unique", action="store_true", help="ask backends to decide uniqueness too")
    runs.add_argument("--in-process", action="store_true", help="run a backend in this process")
    runs.add_argument("--truth", metavar="NAME", help="the complete backend that decides claims")
    runs.add_argument("--keep-going", action="store_true", help="go on after a wrong answer")
    runs.add_argument("--no-shrink", action="store_true", help="report failures as found")
    runs.add_argument(
        "--shrink-budget",
        type=common.seconds,
        default=60.0,
        metavar="SECONDS",
        help="seconds to shrink one failure (default: 60)",
    )
    common.add_executor_options(parser, "the calls")
    parser.add_argument(
        "--json", action="store_true", help="JSON Lines: one object per failure, then a summary"
    )
    add_results_file_options(parser)
    common.add_certify_options(parser)
    parser.set_defaults(run=run)


def _nothing() -> Iterator[None]:
    """No results to stream: failures are written by the callback as they are found."""
    yield from ()


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp fuzz``; return the exit code."""
    from ..audit.answers import AuditError
    from ..audit.solvers import BackendSolver, ProgramSolver
    from ..backends.base import BackendError
    from ..formats import json_dumps
    from ..fuzz import check_shapes, fuzz, solver_spec, square_only
    from ..fuzz.certified import certify_failure
    from ..fuzz.report import Failure, read_resumed, spent_seconds

    if (args.backend is None) == (args.solver_cmd is None):
        raise CliError("name one solver: --backend NAME or --solver-cmd CMD")
    try:
        if args.backend is not None:
            spec = solver_spec(BackendSolver(args.backend, isolate=not args.in_process))
        else:
            spec = solver_spec(ProgramSolver(args.solver_cmd))
    except (AuditError, BackendError) as error:
        raise CliError(str(error)) from None
    check_shapes(spec, args.max_side)
    if square_only(spec):
        common.notice(
            "note: the solver command has no {box}: only square boxes are fuzzed "
            "(a side such as 6 does not say the shape)"
        )
    start, resumed, spent = 0, list[dict[str, Any]](), 0.0
    if args.resume and args.output_file is not None:
        try:
            resumed, summary = read_resumed(args.output_file)
        except ValueError as error:
            raise CliError(str(error)) from None
        if summary is not None and summary.get("seed") != args.seed:
            raise CliError(f"{args.output_file}: was made with --seed {summary.get('seed')}, not {args.seed}")
        start = (
            int(summary["next_case"]) if summary else max((int(o["index"]) + 1 for o in resumed), default=0)
        )
        spent = spent_seconds(resumed, summary)
    identity = run_identity(args, digest_texts([]))  # no input: its cases come from the options
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    executor = common.executor(args)
    folder = common.certify_directory(args)
    truth = args.truth
    certify = None
    if folder is not None:
        from ..audit.truth import DEFAULT_TRUTH, choose_truth

        chosen = truth or (choose_truth([args.backend]) if args.backend else DEFAULT_TRUTH)
        certify = functools.partial(
            certify_failure, directory=folder, truth=chosen, checker=args.checker, prover=args.prover
        )
    with output.writing(_nothing(), 0, "fuzzing", enabled=False) as (write, _):

        def found(failure: Failure) -> None:
            write(json_dumps(failure.to_json()) if args.json else failure.text() + "\n")

        report = fuzz(
            spec,
            seed=args.seed,
            budget=args.budget,
            cases=args.cases,
            max_side=args.max_side,
            time_limit=args.timeout,
            unique=args.unique,
            keep_going=args.keep_going,
            shrink_failures=not args.no_shrink,
            shrink_budget=args.shrink_budget,
            truth=truth,
            executor=executor,
            start=start,
            resumed=resumed,
            spent=spent,
            certify=certify,
            on_failure=found,
            on_case=lambda _: Sigint.check(),
        )
        write(json_dumps({"summary": report.summary()}) if args.json else report.text())
    return report.exit_code
