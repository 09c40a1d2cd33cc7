"""The ``sudoku-cp`` command line: solve, count, encode and decode puzzles.

This is the only module that prints.  Library errors (ParseError, GeometryError, BackendError,
DecodeError, VerificationError, OSError, ValueError) become one line on standard error,
``sudoku-cp: error: <message>``, and an exit code (see ``EXIT_CODES_HELP``); anything else is a
bug and propagates with its traceback.  Solvers, OR-tools and numba are imported inside the
subcommands, so ``sudoku-cp --help`` starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import TYPE_CHECKING

from .backends.base import BackendError, Status
from .cnf.sudoku import AmoEncoding, CnfEncoding
from .cnf.varmap import DecodeError
from .formats import (
    SYMBOLS,
    GridFormat,
    ParseError,
    PuzzleItem,
    format_line,
    format_pretty,
    json_dumps,
    parse_puzzles,
    read_text,
)
from .geometry import GeometryError, parse_box
from .grid import Grid
from .progress import Progress
from .verify import VerificationError, check_solution, given_conflict

if TYPE_CHECKING:
    import numpy as np

    from .api import BackendOptions, PuzzleResult

__all__ = ["EXIT_BAD_INPUT", "EXIT_NO_SOLUTION", "EXIT_OK", "EXIT_UNKNOWN", "build_parser", "main"]

PROG = "sudoku-cp"

EXIT_OK = 0
EXIT_NO_SOLUTION = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
_SEVERITY = (EXIT_OK, EXIT_NO_SOLUTION, EXIT_UNKNOWN, EXIT_BAD_INPUT)  # least to most severe
_STATUS_EXIT = {
    Status.SOLVED: EXIT_OK,
    Status.UNSAT: EXIT_NO_SOLUTION,
    Status.MULTIPLE: EXIT_NO_SOLUTION,
    Status.UNKNOWN: EXIT_UNKNOWN,
    Status.INVALID: EXIT_BAD_INPUT,
}
_PUZZLE_CHARS = frozenset(".0" + SYMBOLS)
_SMALLEST_LOWERCASE_GRID = 36 * 36  # 'a' stands for 36: shorter text with lowercase is no puzzle
_EXAMPLE = "example.txt"
COUNT_BACKEND = "dlx"  # Algorithm X enumerates small grids fastest

EXIT_CODES_HELP = """\
exit codes:
  0  every puzzle solved (or counted, encoded, decoded)
  1  some puzzle has no solution, or more than one under --unique
     (count: the puzzle has no solution)
  2  usage error or bad input: unreadable file, invalid puzzle, malformed solver output
  3  unknown: a time limit was reached or a solver program failed
     (nishio --method all: two methods disagree)
  4  verify: some solver's answer is wrong (see 'sudoku-cp verify --help')
  A batch exits with the most severe code over its puzzles, in the order 2 > 3 > 1 > 0."""

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

BACKENDS_HELP = """\
backends (--backend):
  pysat            python-sat (default for solve): singles propagation over the whole batch,
                   then Minicard on each open puzzle's compact exactly-one model; with
                   --encoding, and for count, CaDiCaL 1.9.5 on that CNF
  pysat:<solver>   any python-sat solver, e.g. pysat:glucose4, pysat:minisat22, pysat:cadical195
  cpsat            OR-tools CP-SAT on the Boolean model (--workers, --seed)
  cpsat:alldiff    CP-SAT with one integer per cell and AllDifferent per unit
  dlx              native Algorithm X on the exact-cover model (default for count)
  backtrack        native propagation + minimum-remaining-values backtracking (complete)
  acs              ant colony system with best value evaporation (Lloyd & Amos; incomplete:
                   finds one solution or says unknown; --seed; 10 s unless --time-limit);
                   acs:<key=value,...> sets ants, q0, rho, bve (0: off), xi, tau0,
                   rule (paper: greedy when q < q0, default; code: as the authors' program),
                   iterations (a cap), e.g. --backend acs:bve=0,rule=code
  hill             hill climbing (Jones, Roach & Perkins): box permutations, steepest ascent,
                   greedy start, random restarts on plateaus (incomplete: finds one solution
                   or says unknown; --seed); hill:<key=value,...> sets w1, w2, plateau_size,
                   stall_limit, post_swap, shuffle_digits (0: ascending greedy order),
                   max_restarts, max_iterations (none: no cap; without --time-limit
                   restarts stop at 100000 unless set), e.g. hill:shuffle_digits=0
  --solver-cmd CMD any DIMACS SAT program, e.g. "cadical -q", "kissat -q", "minisat";
                   {cnf} and {out} in CMD stand for the CNF file and a result file"""


class CliError(Exception):
    """A problem to report in one line, with the exit code it gives."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def worst_exit(codes: Iterable[int]) -> int:
    """The most severe exit code, in the order 2 > 3 > 1 > 0."""
    return max(codes, key=_SEVERITY.index, default=EXIT_OK)


# ------------------------------------------------------------------------------------------- input


def _is_literal_puzzle(text: str) -> bool:
    """True for a word of grid symbols that can be a puzzle (so not 'puzzles.txt')."""
    if not text or not set(text) <= _PUZZLE_CHARS:
        return False
    return not (any(char.islower() for char in text) and len(text) < _SMALLEST_LOWERCASE_GRID)


def _read_argument(argument: str, *, literal: bool = True) -> tuple[str, str | None]:
    """(text, name for messages) of a file, '-' (stdin) or, with ``literal``, a puzzle string (no name)."""
    if argument == "-":
        return sys.stdin.read(), "<stdin>"
    if os.path.exists(argument):
        return read_text(argument), argument
    if literal and _is_literal_puzzle(argument):
        return argument, None
    raise CliError(f"no such file: {argument}")


def _where(name: str | None, message: object) -> str:
    return f"{name}: {message}" if name else str(message)


def _load(args: argparse.Namespace) -> tuple[list[PuzzleItem], str | None]:
    """The puzzle items of the PUZZLE argument, and its name for messages."""
    text, name = _read_argument(args.puzzle)
    try:
        return parse_puzzles(text, box=args.box, fmt=args.format), name
    except ParseError as error:
        raise CliError(_where(name, error)) from None


def _item_grid(item: PuzzleItem, name: str | None, literal: str) -> Grid:
    if item.grid is not None:
        return item.grid
    message = _where(name, item.error or "unreadable puzzle")
    if name is None and len(literal) < 16:
        message += f" (no file {literal!r} exists, so it was read as a puzzle)"
    raise CliError(message)


def _one_puzzle(args: argparse.Namespace, command: str) -> tuple[Grid, str | None]:
    """The single puzzle a command works on; an error for a batch or an invalid puzzle."""
    items, name = _load(args)
    if len(items) != 1:
        raise CliError(f"{name or 'the input'} holds {len(items)} puzzles; {command} takes one")
    grid = _item_grid(items[0], name, args.puzzle)
    conflict = given_conflict(grid)
    if conflict is not None:
        raise CliError(_where(name, f"invalid puzzle: {conflict}"))
    return grid, name


# ------------------------------------------------------------------------------------------ output


def _out(line: str = "") -> None:
    sys.stdout.write(line + "\n")


def _error(message: str) -> None:
    sys.stderr.write(f"{PROG}: error: {message}\n")


def _side_by_side(left: str, right: str, gap: int = 4) -> str:
    lefts, rights = left.splitlines(), right.splitlines()
    width = max(len(line) for line in lefts)
    return "\n".join(f"{a:<{width}}{' ' * gap}{b}".rstrip() for a, b in zip(lefts, rights, strict=True))


def _grid_output(grid: Grid, style: str) -> str:
    return format_line(grid) if style == "line" else format_pretty(grid)


def _status_text(result: PuzzleResult, unique: bool) -> str:
    """'solved', 'solved, unique', 'unsat: no solution', ... for one result."""
    status = result.status
    if status is Status.SOLVED:
        return "solved, unique" if unique else "solved"
    if status is Status.UNSAT:
        return "unsat: no solution"
    if status is Status.MULTIPLE:
        return "multiple: more than one solution (one of them shown)"
    return f"{status.value}: {result.error or 'no answer'}"


def _short_error(error: str | None, line: int | None) -> str:
    """An item's error without the 'line N' the batch line already names."""
    text = error or ""
    for prefix in (f"line {line}, ", f"line {line}: "):
        if line is not None and text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _batch_line(result: PuzzleResult) -> str:
    """'#<index+1> line <line>: <status> <solution or error>'."""
    detail = (
        format_line(result.solution)
        if result.solution is not None
        else _short_error(result.error, result.line)
    )
    if result.status is Status.UNSAT:
        detail = "no solution"
    where = f" line {result.line}" if result.line is not None else ""
    return f"#{result.index + 1}{where}: {result.status.value} {detail}".rstrip()


# ----------------------------------------------------------------------------------------- backends


def _backend_options(args: argparse.Namespace, default: str = "pysat") -> BackendOptions:
    from .api import BackendOptions

    return BackendOptions(
        backend=args.backend or default,
        encoding=args.encoding,
        amo=args.amo,
        workers=args.workers,
        seed=args.seed,
        solver_cmd=args.solver_cmd,
    )


# ------------------------------------------------------------------------------------------- solve


def _cmd_solve(args: argparse.Namespace) -> int:
    from .api import solve_items

    items, name = _load(args)
    options = _backend_options(args)
    options.make()  # fails early on an unknown backend
    backend_name = options.name
    results = solve_items(
        items, options, unique=args.unique, time_limit=args.time_limit, jobs=args.jobs or os.cpu_count() or 1
    )
    if len(items) == 1 and not args.json:
        _item_grid(items[0], name, args.puzzle)  # an unreadable puzzle is an error, not a status
        result = next(iter(results))
        if result.status is Status.INVALID:
            raise CliError(_where(name, f"invalid puzzle: {result.error}"))
        return _show_single(result, backend_name, args)
    return _show_batch(results, len(items), backend_name, args)


def _show_single(result: PuzzleResult, backend_name: str, args: argparse.Namespace) -> int:
    if args.output == "json":
        obj = result.to_json()
        obj["backend"] = backend_name
        if result.solution is not None:
            obj["rows"] = result.solution.values.tolist()
        _out(json_dumps(obj))
    else:
        if result.solution is not None:
            _out(_grid_output(result.solution, args.output))
        _out(f"{_status_text(result, args.unique)} ({backend_name}, {result.seconds:.3f} s)")
    return _STATUS_EXIT[result.status]


def _show_batch(
    results: Iterable[PuzzleResult], total: int, backend_name: str, args: argparse.Namespace
) -> int:
    counts: Counter[Status] = Counter()
    start = time.perf_counter()
    stdout_tty = sys.stdout.isatty()
    with Progress(total, label="solving", enabled=False if args.no_progress else None) as bar:
        for result in results:
            counts[result.status] += 1
            if bar.enabled and stdout_tty:
                bar.clear()
            _out(json_dumps(result.to_json()) if args.json else _batch_line(result))
            bar.update()
    seconds = time.perf_counter() - start
    code = worst_exit(_STATUS_EXIT[status] for status in counts)
    done = sum(counts.values())
    ms = 1000 * seconds / done if done else 0.0
    rate = done / seconds if seconds > 0 else 0.0
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
        _out(json_dumps({"summary": summary}))
    else:
        tally = ", ".join(f"{counts[status]} {status.value}" for status in Status if counts[status])
        _out(
            f"summary: {done} puzzles: {tally}; {backend_name}, {seconds:.3f} s, "
            f"{ms:.2f} ms/puzzle, {rate:,.1f} puzzles/s"
        )
    return code


# ------------------------------------------------------------------------------------------- count


def _cmd_count(args: argparse.Namespace) -> int:
    from .api import count_solutions

    puzzle, _ = _one_puzzle(args, "count")
    backend = _backend_options(args, COUNT_BACKEND).make()
    try:
        result = count_solutions(puzzle, backend, limit=args.limit, time_limit=args.time_limit)
    except BackendError as error:
        raise CliError(str(error), EXIT_UNKNOWN) from None
    if result.exact:
        text, code = f"count: {result.count} (exact)", EXIT_OK if result.count else EXIT_NO_SOLUTION
    elif result.timed_out:
        text, code = f"count: at least {result.count} (time limit reached)", EXIT_UNKNOWN
    else:
        text, code = f"count: at least {result.count} (limit reached)", EXIT_OK
    if args.json:
        obj = {
            "count": result.count,
            "exact": result.exact,
            "timed_out": result.timed_out,
            "limit": args.limit,
            "backend": backend.name,
            "seconds": round(result.seconds, 6),
        }
        _out(json_dumps(obj))
    else:
        _out(text)
        _out(f"({backend.name}, {result.seconds:.3f} s)")
    return code


# ------------------------------------------------------------------------------------------ encode


def _cmd_encode(args: argparse.Namespace) -> int:
    if args.nishio:
        from .cli_nishio import encode_nishio

        what = encode_nishio(args)
        if args.out:
            _out(f"wrote {args.out}: {what}")
        return EXIT_OK
    puzzle, _ = _one_puzzle(args, "encode")
    if args.to == "cnf":
        from .backends.program import write_dimacs
        from .cnf.sudoku import encode_cnf

        cnf = encode_cnf(puzzle, args.encoding, args.amo)
        blocks = [block for family in cnf.families for block in family.blocks]
        write_dimacs(args.out or sys.stdout, blocks, cnf.n_vars, cnf.comments())
        what = (
            f"DIMACS CNF, {cnf.n_vars} variables, {cnf.n_clauses} clauses "
            f"({cnf.encoding.value}, {cnf.amo.value})"
        )
    elif args.to == "xc":
        from .exact_cover import build_exact_cover, export_dlx

        model = build_exact_cover(puzzle)
        _write_text(args.out, export_dlx(model))
        what = f"exact cover (DLX format), {model.n_items} items, {model.n_options} options"
    else:
        from .cpsat import build_cpsat_model, export_cpsat_model

        cp = build_cpsat_model(puzzle, args.model)
        _write_text(args.out, export_cpsat_model(cp))
        sizes = cp.sizes()
        what = (
            f"CP-SAT model ({args.model}), {sizes['variables']} variables, {sizes['constraints']} constraints"
        )
    if args.out:
        _out(f"wrote {args.out}: {what}")
    return EXIT_OK


def _write_text(path: str | None, text: str) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


# ------------------------------------------------------------------------------------------ decode


def _solver_model(text: str, n_vars: int | None) -> tuple[bool | None, np.ndarray | None]:
    """(satisfiable, literals) from SAT competition output, a minisat result file or a bare literal list."""
    from .backends.program import parse_solver_output

    lines = [(number, raw.strip()) for number, raw in enumerate(text.splitlines(), start=1)]
    content = [(number, line) for number, line in lines if line and line.split()[0] != "c"]
    if not content:
        raise CliError("empty solver output: no 's' line, result or literals")
    if any(line.split()[0] in ("s", "v") for _, line in content):
        return parse_solver_output(text, n_vars=n_vars)
    first_number, first = content[0]
    if first.isalpha():
        return parse_solver_output("", text, n_vars=n_vars)
    if not first.split()[0].lstrip("+-").isdigit():
        raise CliError(
            f"line {first_number}: unrecognized solver output {first[:40]!r}: expected SAT competition "
            "'s'/'v' lines, a minisat result file (SAT, then literals ending in 0) or a list of literals"
        )
    # A bare literal list: read it as the 'v' lines of a satisfiable answer, keeping line numbers.
    as_values = [f"v {line}" if line and line.split()[0] != "c" else "" for _, line in lines]
    ends = content[-1][1].split()[-1] == "0"
    as_values += ["s SATISFIABLE"] + ([] if ends else ["v 0"])
    return parse_solver_output("\n".join(as_values), n_vars=n_vars)


def _cmd_decode(args: argparse.Namespace) -> int:
    from .backends.program import SolverProgramError
    from .cnf.sudoku import encode_cnf

    if args.puzzle == "-" and args.solver_output == "-":
        raise CliError("only one of PUZZLE and OUTPUT can be '-' (standard input)")
    puzzle, _ = _one_puzzle(args, "decode")
    text, name = _read_argument(args.solver_output, literal=False)
    cnf = encode_cnf(puzzle, args.encoding, args.amo or AmoEncoding.PAIRWISE)
    # The grid variables do not depend on --amo: without it, auxiliary variables are accepted and ignored.
    try:
        satisfiable, model = _solver_model(text, cnf.n_vars if args.amo else None)
    except SolverProgramError as error:
        mismatch = "out of range" in str(error)
        hint = " (was the CNF written with another --encoding or --amo?)" if mismatch else ""
        raise CliError(_where(name, f"{error}{hint}")) from None
    except CliError as error:
        raise CliError(_where(name, error.message)) from None
    if satisfiable is None or model is None:
        verdict, code = ("unknown", EXIT_UNKNOWN) if satisfiable is None else ("unsat", EXIT_NO_SOLUTION)
        _out(json_dumps({"status": verdict}) if args.output == "json" else verdict)
        return code
    try:
        values = cnf.varmap.decode(model)
        solution = check_solution(puzzle, puzzle.with_values(values))
    except (DecodeError, VerificationError) as error:
        hint = " (was the CNF written with another --encoding?)"
        raise CliError(_where(name, f"the model is not a solution of the puzzle: {error}{hint}")) from None
    if args.output == "json":
        _out(
            json_dumps(
                {"status": "solved", "solution": format_line(solution), "rows": solution.values.tolist()}
            )
        )
    else:
        _out(_grid_output(solution, args.output))
        _out(f"solved (decoded with the {cnf.encoding.value} encoding, checked against the puzzle)")
    return EXIT_OK


# ----------------------------------------------------------------------------------------- example


def _run_example() -> int:
    """No arguments: solve the built-in hard puzzle, show it and a hint."""
    from .api import solve

    text = resources.files("sudoku_cp").joinpath("data", _EXAMPLE).read_text(encoding="utf-8")
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")), "example")
    puzzle = parse_puzzles(text)[0].grid
    assert puzzle is not None, "the built-in example is a valid puzzle"
    result = solve(puzzle, "pysat", unique=True)
    if result.solution is None:
        raise CliError(f"the built-in example was not solved: {_status_text(result, True)}", EXIT_UNKNOWN)
    solution = check_solution(puzzle, result.solution)
    _out(title)
    _out()
    width = len(format_pretty(puzzle).splitlines()[0])
    _out(f"{'puzzle':<{width}}    solution")
    _out(_side_by_side(format_pretty(puzzle), format_pretty(solution)))
    _out()
    _out(f"{_status_text(result, True)}, checked (pysat, {result.seconds:.3f} s)")
    _out(f"try: {PROG} --help")
    return _STATUS_EXIT[result.status]


# ------------------------------------------------------------------------------------------ parser


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=100)


def _box(text: str) -> tuple[int, int]:
    try:
        return parse_box(text)
    except GeometryError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _grid_format(text: str) -> GridFormat:
    try:
        return GridFormat(text)
    except ValueError:
        choices = ", ".join(form.value for form in GridFormat)
        raise argparse.ArgumentTypeError(f"unknown format {text!r} (choose from {choices})") from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return value


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value

    parse.__name__ = "integer"
    return parse


def _input_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("input")
    group.add_argument("--box", type=_box, metavar="PxQ", help="box shape, P rows by Q columns (e.g. 2x3)")
    group.add_argument(
        "--format",
        type=_grid_format,
        metavar="{" + ",".join(form.value for form in GridFormat) + "}",
        help="input form (default: detected; see 'sudoku-cp --help')",
    )


def _encoding_options(parser: argparse.ArgumentParser, default: str | None) -> None:
    encodings = [encoding.value for encoding in CnfEncoding]
    amos = [amo.value for amo in AmoEncoding]
    note = f"(default: {default})" if default else "(default: the backend's, optimized for pysat)"
    group = parser.add_argument_group("CNF encoding")
    group.add_argument(
        "--encoding", choices=encodings, default=default, help=f"CNF constraint families {note}"
    )
    group.add_argument(
        "--amo",
        choices=amos,
        default="pairwise" if default else None,
        metavar="AMO",
        help=f"at-most-one encoding: {', '.join(amos)} (default: pairwise)",
    )


def _backend_arguments(parser: argparse.ArgumentParser, default: str) -> None:
    group = parser.add_argument_group("backend")
    group.add_argument(
        "--backend", metavar="NAME", help=f"solver backend, see 'sudoku-cp --help' (default: {default})"
    )
    group.add_argument(
        "--solver-cmd",
        metavar="CMD",
        help='a DIMACS SAT solver program, e.g. "cadical -q" (replaces --backend)',
    )
    group.add_argument(
        "--time-limit", type=_positive_float, metavar="SECONDS", help="time limit per puzzle (default: none)"
    )
    group.add_argument(
        "--workers", type=_count(1), default=1, metavar="N", help="CP-SAT search workers (default: 1)"
    )
    group.add_argument(
        "--seed", type=int, default=0, help="random seed of CP-SAT and the stochastic backends (default: 0)"
    )


def _output_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--output",
        choices=("pretty", "line", "json"),
        default="pretty",
        help=f"how to show {what}: boxed grid, one line, or a JSON object (default: pretty)",
    )


SOLVE_HELP = """\
Solve one puzzle or a batch.  One puzzle: the solution as a boxed grid and a status line.
A batch (a file with one puzzle per line): one line per puzzle,
  #<number> line <line>: <status> <solution or error>
then a summary (counts per status, seconds, ms per puzzle, puzzles per second).  Every input
line gives exactly one output line; bad lines are reported as 'invalid' and the batch goes on.
Statuses: solved, unsat (no solution), multiple (not unique, with --unique), unknown (time
limit reached or solver program failed), invalid (unreadable puzzle or equal givens in a unit).

With --json: JSON Lines, one object per puzzle with index (0-based position among the
puzzles), line (1-based line number), status, solution (one-line form), error, seconds and
solver stats; then a last line {"summary": {...}}.

examples:
  sudoku-cp solve "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
  sudoku-cp solve --backend cpsat --unique puzzles.txt
  sudoku-cp solve --backend pysat:glucose4 --jobs 2 --json big16x16.txt
  sudoku-cp solve --solver-cmd "cadical -q" puzzle.txt
  cat puzzles.txt | sudoku-cp solve -"""

COUNT_HELP = """\
Count the solutions of one puzzle, exactly when there are fewer than --limit.  Prints
'count: N (exact)', 'count: at least N (limit reached)' or 'count: at least N (time limit
reached)'; with --json an object with count, exact, timed_out, seconds.  An exact count of 0
exits with 1, a time limit with 3.

examples:
  sudoku-cp count ................
  sudoku-cp count --limit 100000 --box 2x3 grid6x6.txt"""

ENCODE_HELP = """\
Write the model of one puzzle for another solver:
  cnf    DIMACS CNF; 'c' comments give the geometry, the encoding, the variable rule
         x(R,C,D) = (R-1)*n*n + (C-1)*n + D (or the map of the optimized encoding) and the
         size of each constraint family
  xc     exact cover in Knuth's DLX format (items line, then one option per line)
  cpsat  a CP-SAT model as protobuf text (--model bool or alldiff)

examples:
  sudoku-cp encode --to cnf --encoding extended --amo seqcounter puzzle.txt -o puzzle.cnf
  sudoku-cp encode --to xc puzzle.txt -o puzzle.dlx
  sudoku-cp encode --to cpsat --model alldiff puzzle.txt -o puzzle.pb.txt
  sudoku-cp encode --nishio --to cnf instance.txt -o instance.cnf   # a single-digit subproblem"""

DECODE_HELP = """\
Read a SAT solver's answer for the CNF of a puzzle (as written by 'encode --to cnf' with the
same --encoding), turn the model back into a grid, check it against the puzzle and print it.
Auxiliary variables of an at-most-one encoding are ignored; with --amo, every literal must be
a variable of that CNF.  OUTPUT is a file or '-': SAT competition output ('s SATISFIABLE' and 'v' lines),
a minisat result file ('SAT' then the literals ending in 0) or a bare list of literals.
An UNSAT answer prints 'unsat' (exit 1), an unknown one 'unknown' (exit 3).

examples:
  sudoku-cp encode --to cnf puzzle.txt -o puzzle.cnf
  cadical -q puzzle.cnf > solver-output.txt
  sudoku-cp decode puzzle.txt solver-output.txt"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``sudoku-cp`` and its subcommands."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog=PROG,
        formatter_class=_Formatter,
        description=(
            "Sudoku puzzles of any box shape (4x4, 6x6, 9x9, 16x16, 25x25, ...) as CNF, exact-cover and\n"
            "CP-SAT models, solved by real solvers; every answer is checked before it is printed.\n"
            "Without arguments: solve a hard example.  'sudoku-cp COMMAND --help' explains a command."
        ),
        epilog="\n\n".join([PUZZLES_HELP, BACKENDS_HELP, EXIT_CODES_HELP]),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")

    def command(name: str, summary: str, text: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name, help=summary, description=text, epilog=EXIT_CODES_HELP, formatter_class=_Formatter
        )

    solve = command("solve", "solve one puzzle or a batch (one per line)", SOLVE_HELP)
    solve.add_argument("puzzle", metavar="PUZZLE", help="a puzzle file, '-' for stdin, or the puzzle itself")
    _input_options(solve)
    _backend_arguments(solve, "pysat")
    _encoding_options(solve, None)
    solve.add_argument("--unique", action="store_true", help="also decide whether the solution is unique")
    solve.add_argument(
        "--jobs", type=_count(0), default=1, metavar="N", help="worker processes for a batch (0: one per CPU)"
    )
    solve.add_argument(
        "--json", action="store_true", help="JSON Lines: one object per puzzle, then a summary"
    )
    _output_option(solve, "a single puzzle's answer")
    solve.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    solve.set_defaults(run=_cmd_solve)

    count = command("count", "count the solutions of a puzzle", COUNT_HELP)
    count.add_argument("puzzle", metavar="PUZZLE", help="a puzzle file, '-' for stdin, or the puzzle itself")
    _input_options(count)
    _backend_arguments(count, COUNT_BACKEND)
    _encoding_options(count, None)
    count.add_argument(
        "--limit",
        type=_count(1),
        default=100_000,
        metavar="N",
        help="stop after N solutions (default: 100000)",
    )
    count.add_argument("--json", action="store_true", help="print a JSON object")
    count.set_defaults(run=_cmd_count)

    encode = command("encode", "write a puzzle as CNF, exact cover or CP-SAT model", ENCODE_HELP)
    encode.add_argument("puzzle", metavar="PUZZLE", help="a puzzle file, '-' for stdin, or the puzzle itself")
    _input_options(encode)
    encode.add_argument(
        "--to", choices=("cnf", "xc", "cpsat"), default="cnf", help="model kind (default: cnf)"
    )
    _encoding_options(encode, CnfEncoding.EXTENDED.value)
    encode.add_argument(
        "--model",
        choices=("bool", "alldiff"),
        default="bool",
        help="CP-SAT model for --to cpsat (default: bool)",
    )
    encode.add_argument(
        "--nishio",
        action="store_true",
        help="PUZZLE is a Nishio instance (see 'sudoku-cp nishio --help'): write its single-digit model; "
        "--amo picks the exactly-one encoding, --model alldiff the integer model (one column per row)",
    )
    encode.add_argument("-o", "--out", metavar="FILE", help="write to FILE (default: standard output)")
    encode.set_defaults(run=_cmd_encode)

    decode = command("decode", "turn a SAT solver's answer back into a checked grid", DECODE_HELP)
    decode.add_argument("puzzle", metavar="PUZZLE", help="the puzzle the CNF was made from")
    decode.add_argument("solver_output", metavar="OUTPUT", help="the solver's answer: a file or '-'")
    _input_options(decode)
    _encoding_options(decode, CnfEncoding.EXTENDED.value)
    decode.set_defaults(amo=None)  # see DECODE_HELP: without --amo, auxiliary variables are ignored
    _output_option(decode, "the solution")
    decode.set_defaults(run=_cmd_decode)

    from .cli_nishio import add_nishio_command

    add_nishio_command(commands, _Formatter)
    from .cli_reduce import add_reduce_command

    add_reduce_command(commands, _Formatter)
    from .cli_verify import add_verify_command

    add_verify_command(commands, _Formatter)
    return parser


# -------------------------------------------------------------------------------------------- main


def _os_message(error: OSError) -> str:
    if error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error.strerror or error)


def _quiet_broken_pipe() -> None:
    """After a closed pipe (e.g. '| head'), keep Python from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sudoku-cp`` with ``argv`` (default: the process arguments) and return the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        if not arguments:
            return _run_example()
        parser = build_parser()
        try:
            args = parser.parse_args(arguments)
        except SystemExit as stop:  # --help, --version and usage errors
            return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
        if args.command is None:
            parser.print_usage(sys.stderr)
            _error("choose a command: solve, count, encode, decode, nishio, reduce or verify")
            return EXIT_BAD_INPUT
        code: int = args.run(args)
        sys.stdout.flush()
        return code
    except CliError as error:
        _error(error.message)
        return error.code
    except (ParseError, GeometryError, BackendError, DecodeError, VerificationError) as error:
        _error(str(error))
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # the reader went away: nothing to report
        _quiet_broken_pipe()
        return 128 + 13  # as a shell reports SIGPIPE
    except OSError as error:
        _error(_os_message(error))
        return EXIT_BAD_INPUT
    except ValueError as error:
        _error(str(error))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
