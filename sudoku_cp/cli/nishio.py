"""``sudoku-cp nishio``: single-digit closures, counts and cross-checks."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checker import given_conflict
from ..formats import ParseError, PuzzleItem, json_dumps, parse_puzzles
from . import common
from .common import EXIT_BAD_INPUT, EXIT_NO_SOLUTION, EXIT_OK, EXIT_UNKNOWN, CliError
from .results_file import BatchOutput, add_results_file_options, digest_items, run_identity

if TYPE_CHECKING:
    from ..certify.batch import Certified
    from ..nishio.instance import NishioInstance
    from ..nishio.puzzles import DigitAnswer, NishioAsk, PuzzleAnswers
    from ..nishio.result import NishioResult

__all__ = ["add_parser", "run"]


NISHIO_HELP = (
    """\
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
  sat       python-sat on the CNF of the subproblem, covering loop: CaDiCaL 1.5.3 (the
            version of Debian's cadical program); sat:SOLVER names another python-sat
            solver, e.g. sat:cadical195 (CaDiCaL 1.9.5), sat:glucose4
  cpsat     OR-tools CP-SAT, covering loop
  dlx       native Algorithm X on the 3n-item exact cover (the dlx backend's solver; 'xc' is
            accepted as its old name)
  all       every applicable method; exit 3 with both answers if two exact methods differ
            or the matching closure misses a cell of the exact one

Every method's eliminations ("no placement inside S" eliminates all of S) are confirmed, before
they are printed, by one call of another SAT solver on a plain pairwise CNF; each cell an exact
method keeps gets a checked witness placement the same way (one instance at a time; the DAG's
--json batches confirm eliminations only).

Output: the grid with 'o' for cells of S', 'x' for eliminated cells, '.' outside S, then the
eliminations.  --json writes one JSON object per instance (JSON Lines) with n, box, method,
satisfiable, closure and eliminated (lists of [row, column], 1-based), count (with --count) and
seconds; puzzle instances also carry index (the instance's number in the output, from 0: puzzle
by puzzle, digit by digit, an invalid puzzle one), puzzle (0-based) and digit.

Puzzle batches run in chunks of puzzles, here, on --jobs N local processes or on a Dask
cluster (--cluster); the output keeps its order.  -o FILE writes the output to FILE, each line
flushed as it comes; with --json, --resume continues an interrupted FILE (the instances it holds
are skipped, the rest appended; not with --method all, which writes a line per method).

examples:
  sudoku-cp nishio instance.txt
  sudoku-cp nishio instance.txt --method all
  sudoku-cp nishio instance.txt --method sat:cadical195
  sudoku-cp nishio --puzzle puzzle.txt --digit 7
  sudoku-cp nishio --puzzle puzzles.txt --all-digits --json
  sudoku-cp nishio --puzzle corpus.txt --all-digits --json --cluster tcp://scheduler:8786 -o out.jsonl
  sudoku-cp nishio instance.txt --count --svg closure.svg

exit codes:
  0  every instance answered, each has at least one placement
  1  some instance has no placement inside S
  2  usage error or bad input
  3  unknown (time limit reached, or a method's eliminations not confirmed within it), or a
     method's claim refuted (a checked placement through a cell it eliminated) or --method all
     found two methods that disagree; crash: a puzzle killed its worker repeatedly
  130 interrupted (Ctrl-C); what was written so far stays intact

"""
    + common.CERTIFY_HELP
    + """
  Each answered closure (S' of an exact method; for --method all the agreed one) is a
  'closure' claim: witness placements covering S' and a refutation for every eliminated cell.
  --method matching claims no S' (its S'' is a relaxation) and cannot be certified."""
)


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
        type=_method,
        default="dag",
        metavar="METHOD",
        help="dag, overlay, matching, sat, sat:SOLVER, cpsat, dlx or all (default: dag)",
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
    add_results_file_options(parser)
    common.add_executor_options(parser, "puzzle batches")
    common.add_certify_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def _method(text: str) -> str:
    """An argparse type: 'all' or a method's one name (``nishio.api.method_name``)."""
    if text == "all":
        return text
    from ..nishio.api import method_name

    try:
        return method_name(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp nishio``; return the exit code."""
    BatchOutput.check(args.output_file, args.resume, args.json)
    if args.resume and args.method == "all":  # before the results file is touched
        raise CliError("--resume takes one method: --method all writes a line per method")
    if args.output_file is not None and (args.puzzle is None or args.svg):
        raise CliError("-o FILE writes the results of --puzzle batches (without --svg)")
    if args.certify is not None and args.method == "matching":
        raise CliError(
            "--certify needs an exact method: matching's S'' is a relaxation, not a claim about S' "
            "(use dag, overlay, sat, cpsat, dlx or all)"
        )
    args.certify = common.certify_directory(args)
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
    if args.svg:
        return _answer_all(list(_puzzle_jobs(items, name, args)), args)
    identity = run_identity(args, digest_items(items), leave_out={"puzzle"})
    return _answer_puzzles(items, name, args, BatchOutput(args.output_file, args.resume, args.json, identity))


def _instance_job(args: argparse.Namespace) -> _Job:
    from ..nishio.text import SideLimit, parse_instance

    limit = None
    if args.method == "dag":  # refused from the header, before a huge instance is read and built
        from ..nishio.dag import MAX_DAG_SIDE

        why = "the largest the Nishio DAG is built for (its vertex count grows like 2^n); try --method sat"
        limit = SideLimit(MAX_DAG_SIDE, why)

    if args.instance is None:
        raise CliError("give an INSTANCE file, or --puzzle with --digit or --all-digits")
    if args.digit or args.all_digits:
        raise CliError("--digit and --all-digits need --puzzle")
    text, name = common.read_argument(args.instance, literal=False)
    try:
        return _Job(parse_instance(text, box=args.box, limit=limit), name or args.instance)
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


# ----------------------------------------------------------------------------------- puzzle batches


def _ask(args: argparse.Namespace) -> NishioAsk:
    from ..nishio.puzzles import NishioAsk

    method = args.method
    # The worker writes the DAG's JSON Lines in batches (no closures come back: none to certify).
    json_lines = args.json and method == "dag" and args.certify is None
    return NishioAsk(method, args.count, args.count_limit, args.time_limit, json_lines)


def _answer_puzzles(
    items: Sequence[PuzzleItem], name: str | None, args: argparse.Namespace, output: BatchOutput
) -> int:
    """Every asked digit of every puzzle, in chunks where --jobs/--cluster say, in input order."""
    from ..nishio.puzzles import answer_puzzles

    codes = {_old_code(obj) for obj in output.answered()}
    digits = None if args.all_digits else list(args.digit)
    executor = common.executor(args)
    answers = answer_puzzles(
        items, digits, _ask(args), executor=executor, skip=output.done, notice=common.notice
    )
    stream: Generator[Any, None, None] = answers
    if args.certify is not None:  # each puzzle's answers with their closures' certificates
        from ..nishio.certificates import certify_puzzle_answers

        stream = certify_puzzle_answers(
            answers,
            args.certify,
            checker=args.checker,
            time_limit=args.time_limit,
            executor=executor,
            skip=output.done,
            prover=args.prover,
        )
    enabled = False if args.no_progress else None
    with output.writing(stream, len(items), "nishio", enabled=enabled) as (write, bar):
        for one in stream:
            puzzle, certificates = (one, ()) if args.certify is None else (one.answers, one.certificates)
            codes.update(_write_puzzle(puzzle, certificates, name, output.done, write, args))
            if bar is not None:
                bar.update()
    return common.worst_exit(codes)


def _old_code(obj: dict[str, Any]) -> int:
    """The exit code a line of a resumed file stands for."""
    status = obj.get("status")
    if status == "invalid":
        return EXIT_BAD_INPUT
    if status != "ok":  # unknown, disagree, crash
        return EXIT_UNKNOWN
    return EXIT_NO_SOLUTION if obj.get("satisfiable") is False else EXIT_OK


def _write_puzzle(
    puzzle: PuzzleAnswers,
    certificates: Sequence[Certified | None],
    name: str | None,
    skipped: set[int],
    write: Callable[[str], None],
    args: argparse.Namespace,
) -> list[int]:
    """Write a puzzle's lines (those not already in a resumed file); their exit codes."""
    label = f"puzzle {puzzle.index + 1}" + (f" (line {puzzle.line})" if name else "")
    if puzzle.lines:  # the DAG's JSON Lines, written by the worker
        lines = [line for k, line in enumerate(puzzle.lines) if puzzle.first + k not in skipped]
        if lines:
            write("".join(lines)[:-1])
        return [EXIT_NO_SOLUTION if puzzle.unsat else EXIT_OK]
    if puzzle.error is not None and not puzzle.crashed:
        if puzzle.first not in skipped:
            if args.json:
                write(json_dumps(_head(puzzle, puzzle.first) | {"status": "invalid", "error": puzzle.error}))
            else:
                common.error(f"{label}: invalid: {puzzle.error}")
        return [EXIT_BAD_INPUT]
    codes = []
    for k, answer in enumerate(puzzle.digits):
        if puzzle.first + k in skipped:
            continue
        head = _head(puzzle, puzzle.first + k, answer.digit)
        where = f"{label}, digit {answer.digit}"
        if puzzle.crashed:
            obj = head | {"status": "crash", "error": puzzle.error}
            write(json_dumps(obj) if args.json else f"{where}: crash: {puzzle.error}\n")
            codes.append(EXIT_UNKNOWN)
            continue
        certified = certificates[k] if k < len(certificates) else None
        for obj, text, code, _ in _answer(where, head, answer, args, certified):
            if args.json:
                if obj:
                    write(json_dumps(obj))
            elif text:
                write(text + "\n")
            codes.append(code)
    return codes


def _head(puzzle: PuzzleAnswers, index: int, digit: int | None = None) -> dict[str, object]:
    head: dict[str, object] = {"index": index, "puzzle": puzzle.index}
    if digit is not None:
        head["digit"] = digit
    return head


# ------------------------------------------------------------------------------- one instance at a time


def _answer_all(jobs: list[_Job], args: argparse.Namespace) -> int:
    from ..nishio.certificates import certify_answer
    from ..nishio.puzzles import answer_instance

    if args.svg and len(jobs) != 1:
        raise CliError(f"--svg draws one instance, but the input gives {len(jobs)}")
    codes = []
    ask = _ask(args)
    with common.progress(len(jobs), "nishio", enabled=False if args.no_progress else None) as bar:
        for job in jobs:
            head: dict[str, object] = {}
            if job.puzzle is not None:
                head["puzzle"] = job.puzzle
                if job.digit is not None:
                    head["digit"] = job.digit
            if job.instance is None:
                if args.json:
                    common.print_line(bar, json_dumps({**head, "status": "invalid", "error": job.error}))
                else:
                    common.error(f"{job.label}: invalid: {job.error}")
                codes.append(EXIT_BAD_INPUT)
                continue
            answer = answer_instance(job.instance, ask, job.digit)
            certified = None
            if args.certify is not None:
                certified = certify_answer(
                    answer, args.certify, checker=args.checker, time_limit=args.time_limit, prover=args.prover
                )
            for obj, text, code, result in _answer(job.label, head, answer, args, certified):
                if args.json:
                    if obj:
                        common.print_line(bar, json_dumps(obj))
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


def _answer(
    label: str,
    head: dict[str, object],
    answer: DigitAnswer,
    args: argparse.Namespace,
    certified: Certified | None = None,
) -> Iterator[Answer]:
    """(JSON object, human text, exit code, result) for each method's result on one instance;
    ``certified``: the certificate of the answer's closure (--certify), or why there is none."""
    from ..nishio.certificates import claimed_result, claims_closure
    from ..nishio.text import format_mask

    if answer.disagreement is not None:
        obj = {**head, "status": "disagree", "error": answer.disagreement, "seconds": answer.seconds}
        yield obj, f"{label}: DISAGREEMENT: {answer.disagreement}", EXIT_UNKNOWN, None
        return
    results = answer.results
    claimed = claimed_result(answer) if certified is not None else None
    for result in results:
        obj = {**head, **result.to_json()}
        closure = result.closure
        if closure is None:
            yield obj, f"{label}: {result.method}: unknown ({result.reason})", EXIT_UNKNOWN, result
            continue
        certificate = None
        if certified is not None and claims_closure(result, claimed):
            if certified.path is None:  # the closure could not be certified: no answer, an error
                why = certified.error or "claim 'closure' not certified"
                for key in ("count", "count_exact"):
                    obj.pop(key, None)
                obj.update(status="unknown", satisfiable=None, closure=None, eliminated=None, error=why)
                obj["seconds"] = obj.pop("seconds")
                yield obj, f"{label}: {result.method}: unknown ({why})", EXIT_UNKNOWN, result
                continue
            certificate = obj["certificate"] = certified.path
        instance = result.instance
        eliminated = instance.mask & ~closure
        kept = int(closure.sum())
        lines = [
            f"{label} ({instance.n}x{instance.n}, {instance.geometry.box_label} boxes), {result.method}:"
        ]
        # The grid only for text output: JSON drops the text, and a big grid's takes a while to draw.
        if not args.json and (args.method != "all" or result is results[0]):
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
        if certificate is not None and args.method != "all":
            lines.append(f"certificate: {certificate}")
        code = EXIT_NO_SOLUTION if result.satisfiable is False else EXIT_OK
        yield obj, "\n".join(lines), code, result
    if args.method == "all":
        names = ", ".join(r.method for r in results if r.closure is not None)
        text = f"agree: {names}"
        if certified is not None and certified.path is not None:
            text += f"\ncertificate: {certified.path}"
        yield {}, text, EXIT_OK, None


def _write_svg(path: str, job: _Job, result: NishioResult) -> None:
    from ..nishio.svg import closure_svg

    if job.instance is None or result.closure is None:
        return
    title = f"{job.label}: S' by {result.method}"
    common.write_text(path, closure_svg(job.instance, result.closure, title=title))
