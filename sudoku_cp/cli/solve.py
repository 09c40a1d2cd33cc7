"""``sudoku-cp solve``: one puzzle or a batch, every answer checked before it is printed."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..formats import json_dumps
from ..outcome import Status
from . import common
from .common import STATUS_EXIT, CliError
from .results_file import BatchOutput, add_results_file_options, digest_items, run_identity

if TYPE_CHECKING:
    from ..api import PuzzleResult
    from ..formats import PuzzleItem

__all__ = ["add_parser", "run"]

SOLVE_HELP = (
    """\
Solve one puzzle or a batch.  One puzzle: the solution as a boxed grid and a status line.
A batch (a file with one puzzle per line): one line per puzzle,
  #<number> line <line>: <status> <solution or error>
then a summary (counts per status, seconds, ms per puzzle, puzzles per second).  Every puzzle
line gives exactly one output line (blank lines and '#' comments are skipped and give none); bad
lines are reported as 'invalid' and the batch goes on.
Statuses: solved, unsat (no solution), multiple (not unique, with --unique), unknown (time
limit reached or solver program failed), invalid (unreadable puzzle or equal givens in a unit).

With --json: JSON Lines, one object per puzzle with index (0-based position among the
puzzles), line (1-based line number), status, solution (one-line form), error, seconds and
solver stats; then a last line {"summary": {...}}.

Grids of side 25 and more (default backend, or pysat:<solver>) are solved one at a time by a
portfolio: one child process per core (two at most), each the solver on the same CNF model with
its variables numbered differently (CaDiCaL in stable mode, deciding 'false' first); the first
answer wins and the others stop.  Their stats say which worker won ("winner").

A solver program (--solver-cmd) is checked before any puzzle is solved: a missing, empty,
unsplittable, directory or non-executable program is a usage error (exit 2).  Its models are
checked as grids, and its UNSAT claims (no solution; no second solution with --unique) are
confirmed by python-sat on the same CNF: a claim found false makes the answer unknown, naming
the program's wrong claim.  --trust-solver skips that confirmation for speed; an answer that
rests on an unconfirmed claim then says 'unverified' (JSON: "unverified": true).

examples:
  sudoku-cp solve "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
  sudoku-cp solve --backend cpsat --unique puzzles.txt
  sudoku-cp solve --backend pysat:glucose4 --jobs 2 --json big16x16.txt
  sudoku-cp solve --solver-cmd "cadical -q" puzzle.txt
  sudoku-cp solve big.txt --cluster local --json -o out.jsonl --resume
  sudoku-cp solve --unique --certify certs/ --json puzzles.txt   # then: sudoku-cp check-certificate certs/
  cat puzzles.txt | sudoku-cp solve -

"""
    + common.CERTIFY_HELP
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``solve``."""
    parser = common.add_command(commands, "solve", "solve one puzzle or a batch (one per line)", SOLVE_HELP)
    common.add_puzzle_argument(parser)
    common.add_input_options(parser)
    common.add_backend_arguments(parser, "pysat")
    common.add_encoding_options(parser, None)
    parser.add_argument("--unique", action="store_true", help="also decide whether the solution is unique")
    parser.add_argument(
        "--json", action="store_true", help="JSON Lines: one object per puzzle, then a summary"
    )
    add_results_file_options(parser)
    common.add_certify_options(parser)
    common.add_executor_options(parser, "a batch")
    common.add_output_option(parser, "a single puzzle's answer")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def _unverified(result: PuzzleResult, args: argparse.Namespace) -> bool:
    """Whether the answer rests on a solver program's UNSAT claim taken unconfirmed (--trust-solver)."""
    if not args.trust_solver:
        return False
    from ..backends.program_backend import UNVERIFIED

    return bool(result.stats.get(UNVERIFIED))


def _json(result: PuzzleResult, args: argparse.Namespace) -> dict[str, object]:
    obj = result.to_json()
    if _unverified(result, args):
        obj["unverified"] = True
    return obj


def _json_line(result: PuzzleResult, args: argparse.Namespace) -> str:
    """The JSON Lines object of a batch's result, written directly unless it carries a note."""
    return json_dumps(_json(result, args)) if _unverified(result, args) else result.json_line()


def _batch_line(result: PuzzleResult, args: argparse.Namespace) -> str:
    """'#<index+1> line <line>: <status> <solution or error>'."""
    detail = result.solution_line
    if detail is None:
        detail = common.short_error(result.error, result.line)
    if result.status is Status.UNSAT:
        detail = "no solution"
    line = f" line {result.line}" if result.line is not None else ""
    note = " (unverified)" if _unverified(result, args) else ""
    return f"#{result.index + 1}{line}: {result.status.value} {detail}".rstrip() + note


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp solve``; return the exit code."""
    from ..api import certify_results, solve_items
    from ..limits import Deadline

    # One puzzle: its time limit covers the whole command, from the process start (reading included).
    clock = Deadline(args.time_limit, began=getattr(args, "started", None))
    BatchOutput.check(args.output_file, args.resume, args.json)
    executor = common.executor(args)
    items, name = common.load_puzzles(args)
    identity = run_identity(args, digest_items(items), leave_out={"puzzle"})
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    options = common.backend_options(args)  # checks --solver-cmd's program before any solving
    backend_name = options.name_for(items)
    time_limit = clock if len(items) == 1 and args.time_limit is not None else args.time_limit
    certify = common.certify_directory(args)

    def certified(todo: list[PuzzleItem], results: Iterator[PuzzleResult]) -> Iterator[PuzzleResult]:
        """The results with their claims' certificates (--certify), or as they are."""
        if certify is None:
            return results
        return certify_results(
            todo,
            results,
            certify,
            unique=args.unique,
            checker=args.checker,
            time_limit=args.time_limit,
            executor=executor,
            prover=args.prover,
        )

    if len(items) == 1 and not args.json and args.output_file is None:
        results = certified(items, solve_items(items, options, unique=args.unique, time_limit=time_limit))
        common.item_grid(items[0], name, args.puzzle)  # an unreadable puzzle is an error, not a status
        result = next(iter(results))
        if result.status is Status.INVALID:
            raise CliError(common.where(name, f"invalid puzzle: {result.error}"))
        return _show_single(result, backend_name, args)
    todo = [item for item in items if item.index not in output.done]  # --resume: what is left
    results = solve_items(
        todo,
        options,
        unique=args.unique,
        time_limit=time_limit,
        executor=executor,
        notice=common.notice,
    )
    results = certified(todo, results)
    before: Counter[Status] = Counter({Status(status): count for status, count in output.statuses().items()})
    return _show_batch(output, results, len(todo), before, backend_name, args)


def _show_single(result: PuzzleResult, backend_name: str, args: argparse.Namespace) -> int:
    if args.output == "json":
        obj = _json(result, args)
        obj["backend"] = backend_name
        if result.solution is not None:
            obj["rows"] = result.solution.values.tolist()
        common.out(json_dumps(obj))
    else:
        if result.solution is not None:
            common.out(common.grid_output(result.solution, args.output))
        if result.certificate is not None:
            common.out(f"certificate: {result.certificate}")
        note = "; unverified (--trust-solver)" if _unverified(result, args) else ""
        common.out(
            f"{common.status_text(result, args.unique)}{note} ({backend_name}, {result.seconds:.3f} s)"
        )
    return STATUS_EXIT[result.status]


def _show_batch(
    output: BatchOutput,
    results: Iterator[PuzzleResult],
    total: int,
    before: Counter[Status],
    backend_name: str,
    args: argparse.Namespace,
) -> int:
    """Write a batch's lines and summary; ``before``: the statuses a resumed file already holds."""
    counts: Counter[Status] = Counter()
    start = time.perf_counter()
    enabled = False if args.no_progress else None
    with output.writing(results, total, "solving", enabled=enabled) as (write, bar):
        for result in results:
            counts[result.status] += 1
            write(_json_line(result, args) if args.json else _batch_line(result, args))
            if bar is not None:
                bar.update()
        seconds = time.perf_counter() - start
        new = sum(counts.values())
        counts.update(before)
        code = common.worst_exit(STATUS_EXIT[status] for status in counts)
        done = sum(counts.values())
        ms = 1000 * seconds / new if new else 0.0
        rate = new / seconds if seconds > 0 else 0.0
        if args.json:
            summary: dict[str, object] = {"puzzles": done}
            summary.update({status.value: counts[status] for status in Status})
            summary.update(
                {
                    "backend": backend_name,
                    "seconds": round(seconds, 6),
                    "ms_per_puzzle": round(ms, 3),
                    "puzzles_per_second": round(rate, 1),
                    "exit_code": code,
                }
            )
            write(json_dumps({"summary": summary}))
        else:
            tally = ", ".join(f"{counts[status]} {status.value}" for status in Status if counts[status])
            write(
                f"summary: {done} puzzles: {tally}; {backend_name}, {seconds:.3f} s, "
                f"{ms:.2f} ms/puzzle, {rate:,.1f} puzzles/s"
            )
    return code
