"""``sudoku-cp nishio``: single-digit closures, counts and cross-checks."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..formats import ParseError, PuzzleItem, json_dumps, parse_puzzles
from ..grid import Grid
from ..verify import given_conflict
from . import common
from .common import EXIT_BAD_INPUT, EXIT_NO_SOLUTION, EXIT_OK, EXIT_UNKNOWN, CliError

if TYPE_CHECKING:
    from ..nishio.instance import NishioInstance
    from ..nishio.result import NishioResult

__all__ = ["add_parser", "run"]


NISHIO_HELP = """\
Nishio: which cells of S (the cells still open to one digit) lie in at least one valid
placement (n cells, one per row, column and box)?  Those form the closure S'; the other
cells of S are eliminated.  The input is an instance file, or a puzzle state with --puzzle
(S = the digit's candidates after singles propagation, placed copies of the digit included).

Instance files: n rows of 'x' (in S) and '.' (not in S), '1'/'0' also accepted, box lines
ignored; or a cell list 'n=9 box=3x3' then R1C2 ... (or 1,2 ...); or JSON
{"n": 9, "box": "3x3", "cells": [[1, 2], ...]}.  Cells are 1-based: R9C5 is row 9, column 5.

Methods (--method):
  dag       the DAG of almost-balanced row sets (Eppstein 2012), up to 25x25 (default)
  overlay   pattern overlay: test every valid placement (up to 12x12)
  matching  rows x columns perfect-matching relaxation S'' (ignores boxes; S' <= S'' <= S)
  sat       python-sat (CaDiCaL) on the CNF of the subproblem, covering loop
  cpsat     OR-tools CP-SAT, covering loop
  dlx       native Algorithm X on the 3n-item exact cover (the dlx backend's solver; 'xc' is
            accepted as its old name)
  all       every applicable method; exit 3 with both answers if two exact methods differ
            or the matching closure misses a cell of the exact one

Output: the grid with 'o' for cells of S', 'x' for eliminated cells, '.' outside S, then the
eliminations.  --json writes one JSON object per instance (JSON Lines) with n, box, method,
satisfiable, closure and eliminated (lists of [row, column], 1-based), count (with --count) and
seconds; puzzle instances also carry puzzle (0-based index) and digit.

examples:
  sudoku-cp nishio instance.txt
  sudoku-cp nishio instance.txt --method all
  sudoku-cp nishio --puzzle puzzle.txt --digit 7
  sudoku-cp nishio --puzzle puzzles.txt --all-digits --json
  sudoku-cp nishio instance.txt --count --svg closure.svg

exit codes:
  0  every instance answered, each has at least one placement
  1  some instance has no placement inside S
  2  usage error or bad input
  3  unknown (time limit reached), or --method all found two methods that disagree"""


#: Puzzles answered per DAG batch: large enough that Python costs vanish, small enough that the
#: masks and JSON text of one batch stay a few tens of MB whatever the input holds.
_BATCH_PUZZLES = 4096


@dataclass(frozen=True, slots=True)
class _Job:
    """One instance to answer, with where it came from (or why there is none)."""

    instance: NishioInstance | None
    label: str
    puzzle: int | None = None
    digit: int | None = None
    error: str | None = None


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``nishio``."""
    parser = common.add_command(
        commands,
        "nishio",
        "single-digit deduction: closure S', eliminations, placement counts",
        NISHIO_HELP,
        exit_codes=False,
    )
    parser.add_argument("instance", metavar="INSTANCE", nargs="?", help="an instance file or '-' (stdin)")
    source = parser.add_argument_group("puzzle states (instead of INSTANCE)")
    source.add_argument("--puzzle", metavar="PUZZLE", help="a puzzle string, a puzzle file or a batch file")
    source.add_argument(
        "--digit",
        type=common.integer(1),
        action="append",
        metavar="D",
        help="the digit (1-based; repeatable)",
    )
    source.add_argument("--all-digits", action="store_true", help="every digit of every puzzle")
    parser.add_argument(
        "--box", type=common.box, metavar="PxQ", help="box shape, P rows by Q columns (e.g. 2x3)"
    )
    parser.add_argument(
        "--method",
        choices=("dag", "overlay", "matching", "sat", "cpsat", "dlx", "xc", "all"),
        default="dag",
        help="how to compute the closure (default: dag)",
    )
    parser.add_argument("--count", action="store_true", help="also count the placements inside S")
    parser.add_argument(
        "--count-limit", type=common.integer(1), metavar="N", help="stop counting at N (solver methods)"
    )
    parser.add_argument(
        "--time-limit",
        type=common.seconds,
        metavar="SECONDS",
        help="time limit per method and instance (default: none)",
    )
    parser.add_argument("--svg", metavar="FILE", help="draw S, S' and the eliminations (one instance only)")
    parser.add_argument("--json", action="store_true", help="JSON Lines, one object per instance")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp nishio``; return the exit code."""
    if args.puzzle is None:
        return _answer_all([_instance_job(args)], args)
    if args.instance is not None:
        raise CliError("give either INSTANCE or --puzzle, not both")
    if not args.digit and not args.all_digits:
        raise CliError("--puzzle needs --digit D or --all-digits")
    text, name = common.read_argument(args.puzzle)
    try:
        items = parse_puzzles(text, box=args.box)
    except ParseError as problem:
        raise CliError(f"{name or 'puzzle'}: {problem}") from None
    if _batch_applies(args, items):
        return _answer_batches(items, name, args)
    return _answer_all(list(_puzzle_jobs(items, name, args)), args)


def _instance_job(args: argparse.Namespace) -> _Job:
    from ..nishio.text import parse_instance

    if args.instance is None:
        raise CliError("give an INSTANCE file, or --puzzle with --digit or --all-digits")
    if args.digit or args.all_digits:
        raise CliError("--digit and --all-digits need --puzzle")
    text, name = common.read_argument(args.instance, literal=False)
    try:
        return _Job(parse_instance(text, box=args.box), name or args.instance)
    except ParseError as problem:
        raise CliError(f"{name}: {problem}") from None


def _digits(args: argparse.Namespace, n: int) -> list[int]:
    return list(range(1, n + 1)) if args.all_digits else list(args.digit)


def _label(item: PuzzleItem, name: str | None) -> str:
    return f"puzzle {item.index + 1}" + (f" (line {item.line})" if name else "")


def _item_problem(item: PuzzleItem, args: argparse.Namespace) -> str | None:
    """Why a puzzle gives no instances: unreadable, clashing givens, a digit out of range."""
    grid = item.grid
    if grid is None:
        return item.error or "unreadable puzzle"
    conflict = given_conflict(grid)
    if conflict is not None:
        return f"invalid puzzle: {conflict}"
    bad = [d for d in _digits(args, grid.n) if not 1 <= d <= grid.n]
    return f"digit {bad[0]} is out of range 1..{grid.n}" if bad else None


def _puzzle_jobs(items: Sequence[PuzzleItem], name: str | None, args: argparse.Namespace) -> Iterator[_Job]:
    from ..nishio.instance import digit_instances

    for item in items:
        label = _label(item, name)
        problem = _item_problem(item, args)
        if problem is not None or item.grid is None:
            yield _Job(None, label, item.index, None, problem)
            continue
        digits = _digits(args, item.grid.n)
        for digit, instance in zip(digits, digit_instances(item.grid, digits), strict=True):
            yield _Job(instance, f"{label}, digit {digit}", item.index, digit)


# --------------------------------------------------------------------- many puzzles, the DAG in batches


def _batch_applies(args: argparse.Namespace, items: Sequence[PuzzleItem]) -> bool:
    """JSON answers of the DAG without pictures go through the batch API (a microsecond an instance)."""
    from ..nishio.dag import MAX_DAG_SIDE

    if args.method != "dag" or args.svg or not args.json:
        return False
    return all(item.grid is None or item.grid.n <= MAX_DAG_SIDE for item in items)


def _answer_batches(items: Sequence[PuzzleItem], name: str | None, args: argparse.Namespace) -> int:
    """Every digit of every puzzle answered in DAG batches, JSON Lines written in input order."""
    from ..nishio.batch import solve_puzzle_digits

    codes: set[int] = set()
    with common.progress(len(items), "nishio", enabled=False if args.no_progress else None) as bar:
        pending: list[Grid] = []
        pending_items: list[PuzzleItem] = []

        def flush() -> None:
            if not pending:
                return
            digits = _digits(args, pending[0].n)
            batch = solve_puzzle_digits(pending, digits, count=args.count, count_limit=args.count_limit)
            puzzles = np.repeat([item.index for item in pending_items], len(digits))
            sys.stdout.write(batch.to_json_lines({"puzzle": puzzles, "digit": np.tile(digits, len(pending))}))
            codes.add(EXIT_OK if batch.satisfiable.all() else EXIT_NO_SOLUTION)
            if bar is not None:
                bar.update(len(pending))
            pending.clear()
            pending_items.clear()

        for item in items:
            problem = _item_problem(item, args)
            if problem is not None or item.grid is None:
                flush()
                obj = {"puzzle": item.index, "status": "invalid", "error": problem}
                sys.stdout.write(json_dumps(obj) + "\n")
                codes.add(EXIT_BAD_INPUT)
                if bar is not None:
                    bar.update()
                continue
            if pending and (item.grid.geometry != pending[0].geometry or len(pending) >= _BATCH_PUZZLES):
                flush()
            pending.append(item.grid)
            pending_items.append(item)
        flush()
    return common.worst_exit(codes)


# ------------------------------------------------------------------------------- one instance at a time


def _answer_all(jobs: list[_Job], args: argparse.Namespace) -> int:
    if args.svg and len(jobs) != 1:
        raise CliError(f"--svg draws one instance, but the input gives {len(jobs)}")
    codes = []
    with common.progress(len(jobs), "nishio", enabled=False if args.no_progress else None) as bar:
        for job in jobs:
            for obj, text, code, result in _answer(job, args):
                if args.json:
                    if obj:
                        common.print_line(bar, json_dumps(obj))
                elif code == EXIT_BAD_INPUT:
                    common.error(text)
                elif text:
                    common.print_line(bar, text + "\n")
                codes.append(code)
                if args.svg and result is not None and result.closure is not None:
                    _write_svg(args.svg, job, result)
            if bar is not None:
                bar.update()
    return common.worst_exit(codes)


def _cells_text(instance: NishioInstance, mask: np.ndarray, most: int = 40) -> str:
    g = instance.geometry
    names = [g.cell_name(int(r) * g.n + int(c)) for r, c in zip(*np.nonzero(mask), strict=True)]
    if len(names) > most:
        return " ".join(names[:most]) + f" ... ({len(names)} in all)"
    return " ".join(names) if names else "none"


Answer = tuple[dict[str, object], str, int, "NishioResult | None"]


def _answer(job: _Job, args: argparse.Namespace) -> Iterator[Answer]:
    """(JSON object, human text, exit code, result) for each method run on one job."""
    from ..nishio.api import NishioDisagreement, cross_check, solve_nishio
    from ..nishio.text import format_mask

    head: dict[str, object] = {}
    if job.puzzle is not None:
        head["puzzle"] = job.puzzle
        if job.digit is not None:
            head["digit"] = job.digit
    if job.instance is None:
        obj = {**head, "status": "invalid", "error": job.error}
        yield obj, f"{job.label}: invalid: {job.error}", EXIT_BAD_INPUT, None
        return
    instance = job.instance
    if args.method == "all":
        start = time.perf_counter()
        try:
            check = cross_check(instance, count=args.count, time_limit=args.time_limit)
        except NishioDisagreement as problem:
            obj = {
                **head,
                "status": "disagree",
                "error": str(problem),
                "seconds": time.perf_counter() - start,
            }
            yield obj, f"{job.label}: DISAGREEMENT: {problem}", EXIT_UNKNOWN, None
            return
        results = list(check.results.values())
    else:
        options = {"count": args.count, "count_limit": args.count_limit, "time_limit": args.time_limit}
        results = [solve_nishio(instance, args.method, **options)]
    for result in results:
        obj = {**head, **result.to_json()}
        closure = result.closure
        if closure is None:
            yield obj, f"{job.label}: {result.method}: unknown ({result.reason})", EXIT_UNKNOWN, result
            continue
        eliminated = instance.mask & ~closure
        kept = int(closure.sum())
        lines = [
            f"{job.label} ({instance.n}x{instance.n}, {instance.geometry.box_label} boxes), {result.method}:"
        ]
        if args.method != "all" or result is results[0]:
            lines.append(format_mask(instance, boxes=True, closure=closure).rstrip("\n"))
        verdict = (
            "no placement inside S"
            if result.satisfiable is False
            else ("S'' (relaxation)" if not result.exact else "S'")
            + f" keeps {kept} of {instance.size} cells, eliminates {int(eliminated.sum())}"
        )
        lines.append(
            f"{verdict}: {_cells_text(instance, eliminated)}" if result.satisfiable is not False else verdict
        )
        if result.count is not None:
            lines.append(f"placements: {'' if result.count.complete else 'at least '}{result.count.count}")
        lines.append(f"({result.method}, {result.seconds * 1000:.3f} ms)")
        code = EXIT_NO_SOLUTION if result.satisfiable is False else EXIT_OK
        yield obj, "\n".join(lines), code, result
    if args.method == "all":
        names = ", ".join(r.method for r in results if r.closure is not None)
        yield {}, f"agree: {names}", EXIT_OK, None


def _write_svg(path: str, job: _Job, result: NishioResult) -> None:
    from ..nishio.svg import closure_svg

    if job.instance is None or result.closure is None:
        return
    title = f"{job.label}: S' by {result.method}"
    common.write_text(path, closure_svg(job.instance, result.closure, title=title))
