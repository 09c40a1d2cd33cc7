"""``sudoku-cp nishio``: single-digit closures, counts and cross-checks."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..formats import ParseError, json_dumps, parse_puzzles
from ..geometry import Geometry
from ..nishio.instance import NishioInstance, digit_instances, parse_instance
from ..verify import given_conflict
from . import common
from .common import EXIT_BAD_INPUT, EXIT_NO_SOLUTION, EXIT_OK, EXIT_UNKNOWN, CliError

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
  xc        native Algorithm X on the 3n-item exact cover
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


@dataclass(frozen=True, slots=True)
class _Job:
    """One instance to answer, with where it came from."""

    instance: NishioInstance | None
    label: str
    puzzle: int | None = None
    digit: int | None = None
    error: str | None = None


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``nishio``."""
    parser = commands.add_parser(
        "nishio",
        help="single-digit deduction: closure S', eliminations, placement counts",
        description=NISHIO_HELP,
        formatter_class=common.Formatter,
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
        choices=("dag", "overlay", "matching", "sat", "cpsat", "xc", "all"),
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


def _jobs(args: argparse.Namespace) -> list[_Job]:
    if args.puzzle is None:
        if args.instance is None:
            raise CliError("give an INSTANCE file, or --puzzle with --digit or --all-digits")
        if args.digit or args.all_digits:
            raise CliError("--digit and --all-digits need --puzzle")
        text, name = common.read_argument(args.instance, literal=False)
        try:
            return [_Job(parse_instance(text, box=args.box), name or args.instance)]
        except ParseError as error:
            raise CliError(f"{name}: {error}") from None
    if args.instance is not None:
        raise CliError("give either INSTANCE or --puzzle, not both")
    if not args.digit and not args.all_digits:
        raise CliError("--puzzle needs --digit D or --all-digits")
    text, name = common.read_argument(args.puzzle)
    try:
        items = parse_puzzles(text, box=args.box)
    except ParseError as error:
        raise CliError(f"{name or 'puzzle'}: {error}") from None
    jobs: list[_Job] = []
    for item in items:
        where = f"puzzle {item.index + 1}" + (f" (line {item.line})" if name else "")
        grid = item.grid
        if grid is None:
            jobs.append(_Job(None, where, item.index, None, item.error or "unreadable puzzle"))
            continue
        conflict = given_conflict(grid)
        if conflict is not None:
            jobs.append(_Job(None, where, item.index, None, f"invalid puzzle: {conflict}"))
            continue
        digits = list(range(1, grid.n + 1)) if args.all_digits else list(args.digit)
        bad = [d for d in digits if not 1 <= d <= grid.n]
        if bad:
            jobs.append(_Job(None, where, item.index, None, f"digit {bad[0]} is out of range 1..{grid.n}"))
            continue
        for digit, instance in zip(digits, digit_instances(grid, digits), strict=True):
            jobs.append(_Job(instance, f"{where}, digit {digit}", item.index, digit))
    return jobs


def _picture(instance: NishioInstance, closure: np.ndarray | None) -> str:
    g: Geometry = instance.geometry
    lines = []
    for r in range(g.n):
        symbols = []
        for c in range(g.n):
            if not instance.mask[r, c]:
                symbols.append(".")
            elif closure is None:
                symbols.append("?")
            else:
                symbols.append("o" if closure[r, c] else "x")
        groups = [" ".join(symbols[c : c + g.q]) for c in range(0, g.n, g.q)]
        lines.append(" | ".join(groups))
        if r % g.p == g.p - 1 and r != g.n - 1:
            lines.append("-+-".join("-" * (2 * g.q - 1) for _ in range(g.p)))
    return "\n".join(lines)


def _cells_text(instance: NishioInstance, mask: np.ndarray, most: int = 40) -> str:
    g = instance.geometry
    names = [g.cell_name(int(r) * g.n + int(c)) for r, c in zip(*np.nonzero(mask), strict=True)]
    if len(names) > most:
        return " ".join(names[:most]) + f" ... ({len(names)} in all)"
    return " ".join(names) if names else "none"


def _answer(job: _Job, args: argparse.Namespace) -> Iterator[tuple[dict[str, object], str, int]]:
    """(JSON object, human text, exit code) for each method run on one job."""
    from ..nishio.api import NishioDisagreement, cross_check, solve_nishio

    head: dict[str, object] = {}
    if job.puzzle is not None:
        head["puzzle"] = job.puzzle
        if job.digit is not None:
            head["digit"] = job.digit
    if job.instance is None:
        yield (
            {**head, "status": "invalid", "error": job.error},
            f"{job.label}: invalid: {job.error}",
            EXIT_BAD_INPUT,
        )
        return
    instance = job.instance
    if args.method == "all":
        start = time.perf_counter()
        try:
            check = cross_check(instance, count=args.count, time_limit=args.time_limit)
        except NishioDisagreement as error:
            obj = {**head, "status": "disagree", "error": str(error), "seconds": time.perf_counter() - start}
            yield obj, f"{job.label}: DISAGREEMENT: {error}", EXIT_UNKNOWN
            return
        results = list(check.results.values())
    else:
        results = [
            solve_nishio(
                instance,
                args.method,
                count=args.count,
                count_limit=args.count_limit,
                time_limit=args.time_limit,
            )
        ]
    for result in results:
        obj = {**head, **result.to_json()}
        if result.unknown:
            yield obj, f"{job.label}: {result.method}: unknown ({result.error or 'time limit'})", EXIT_UNKNOWN
            continue
        closure = result.closure
        assert closure is not None
        eliminated = instance.mask & ~closure
        kept = int(closure.sum())
        lines = [
            f"{job.label} ({instance.n}x{instance.n}, {instance.geometry.box_label} boxes), {result.method}:"
        ]
        if args.method != "all" or result is results[0]:
            lines.append(_picture(instance, closure))
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
        yield obj, "\n".join(lines), code
    if args.method == "all":
        names = ", ".join(r.method for r in results if not r.unknown)
        yield {}, f"agree: {names}", EXIT_OK


def _batch_dag(jobs: list[_Job], args: argparse.Namespace) -> list[tuple[dict[str, object], str, int]] | None:
    """All closures (and counts) of a big job list in a few compiled calls; None when not applicable."""
    from ..nishio.dag import MAX_DAG_SIDE, DagNishio, build_dag, closure_batch, count_batch

    if args.method != "dag" or args.svg or not args.json or len(jobs) < 32:
        return None
    instances = [job.instance for job in jobs if job.instance is not None]
    if (
        any(i.n > MAX_DAG_SIDE for i in instances)
        or len({i.geometry for i in instances}) > 1
        or not instances
    ):
        return None
    g = instances[0].geometry
    dag = build_dag(g.p, g.q)
    DagNishio().prepare(g)
    start = time.perf_counter()
    masks = np.stack([i.mask for i in instances])
    closures = closure_batch(dag, masks)
    counts = count_batch(dag, masks) if args.count else None
    each = (time.perf_counter() - start) / len(instances)
    out: list[tuple[dict[str, object], str, int]] = []
    k = 0
    for job in jobs:
        head: dict[str, object] = {} if job.puzzle is None else {"puzzle": job.puzzle, "digit": job.digit}
        if job.instance is None:
            out.append(({**head, "status": "invalid", "error": job.error}, "", EXIT_BAD_INPUT))
            continue
        instance, closure = job.instance, closures[k]
        sat = bool(closure.any())
        obj: dict[str, object] = {
            **head,
            "n": g.n,
            "box": g.box_label,
            "method": "dag",
            "exact": True,
            "status": "ok",
            "satisfiable": sat,
            "cells": instance.size,
            "closure": [[int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(closure), strict=True)],
            "eliminated": [
                [int(r) + 1, int(c) + 1] for r, c in zip(*np.nonzero(instance.mask & ~closure), strict=True)
            ],
        }
        if counts is not None:
            obj["count"] = counts[k]
            obj["count_exact"] = True
            if (counts[k] > 0) != sat:
                raise AssertionError("dag count and closure disagree")
        obj["seconds"] = round(each, 9)
        out.append((obj, "", EXIT_OK if sat else EXIT_NO_SOLUTION))
        k += 1
    return out


def run(args: argparse.Namespace) -> int:
    """Run the nishio subcommand; returns the exit code."""
    jobs = _jobs(args)  # a CliError becomes one line and exit 2 in cli.main
    if args.svg and len(jobs) != 1:
        raise CliError(f"--svg draws one instance, but the input gives {len(jobs)}")
    codes = []
    batch = _batch_dag(jobs, args)
    if batch is not None:
        for obj, _, code in batch:
            sys.stdout.write(json_dumps(obj) + "\n")
            codes.append(code)
        return common.worst_exit(codes)
    with common.progress(len(jobs), "nishio", enabled=False if args.no_progress else None) as bar:
        for job in jobs:
            for obj, text, code in _answer(job, args):
                if args.json:
                    if obj:
                        common.print_line(bar, json_dumps(obj))
                elif code == EXIT_BAD_INPUT:
                    common.error(text)
                elif text:
                    common.print_line(bar, text + "\n")
                codes.append(code)
                if args.svg and job.instance is not None and obj.get("closure") is not None:
                    _write_svg(args.svg, job, obj)
            if bar is not None:
                bar.update()
    return common.worst_exit(codes)


def _write_svg(path: str, job: _Job, obj: dict[str, object]) -> None:
    from ..nishio.svg import closure_svg

    assert job.instance is not None
    n = job.instance.n
    closure = np.zeros((n, n), dtype=bool)
    for r, c in obj["closure"]:  # type: ignore[attr-defined]
        closure[r - 1, c - 1] = True
    title = f"{job.label}: S' by {obj['method']}"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(closure_svg(job.instance, closure, title=title))
