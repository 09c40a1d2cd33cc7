"""What every subcommand of ``sudoku-cp`` shares: exit codes, errors, input, converters, output.

Subcommand modules import this module and the library, never each other.  Library errors
(``SudokuCpError`` and ``OSError``) become one line on standard error and exit 2 in ``main``;
``CliError`` carries its own exit code.  Nothing here solves or models anything.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from ..backends.registry import backend_names, backends_help
from ..checker import given_conflict
from ..errors import SudokuCpError, naming_file
from ..formats import (
    SYMBOLS,
    GridFormat,
    ParseError,
    PuzzleItem,
    format_line,
    format_pretty,
    parse_puzzles,
    read_text,
)
from ..geometry import parse_box
from ..grid import Grid
from ..limits import Sigint
from ..outcome import Status

if TYPE_CHECKING:
    from tqdm import tqdm

    from ..api import BackendOptions, PuzzleResult
    from ..deduction.rules import Rule
    from ..executor import Executor

__all__ = [
    "BACKENDS_HELP",
    "CLUSTER_HELP",
    "JOBS_PER_CORE",
    "add_executor_options",
    "executor",
    "jobs",
    "notice",
    "add_encoding_options",
    "add_output_option",
    "add_puzzle_argument",
    "backend_options",
    "grid_output",
    "status_text",
    "EXIT_BAD_INPUT",
    "EXIT_CODES_HELP",
    "EXIT_NO_SOLUTION",
    "EXIT_OK",
    "EXIT_UNKNOWN",
    "EXIT_WRONG",
    "MAX_ERROR_LINE",
    "MAX_WORKERS",
    "PROG",
    "STATUS_EXIT",
    "CliError",
    "Formatter",
    "add_backend_arguments",
    "add_command",
    "add_input_options",
    "add_rule_options",
    "chosen_rules",
    "box",
    "error",
    "grid_format",
    "integer",
    "item_grid",
    "load_puzzles",
    "one_puzzle",
    "output_directory",
    "out",
    "print_line",
    "progress",
    "read_argument",
    "seconds",
    "short_error",
    "where",
    "worst_exit",
    "write_text",
]

PROG = "sudoku-cp"

EXIT_OK = 0
EXIT_NO_SOLUTION = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_WRONG = 4
#: Least to most severe: a batch, or a verify run, exits with the most severe code of its items.
SEVERITY = (EXIT_OK, EXIT_NO_SOLUTION, EXIT_UNKNOWN, EXIT_BAD_INPUT, EXIT_WRONG)
STATUS_EXIT = {
    Status.SOLVED: EXIT_OK,
    Status.UNSAT: EXIT_NO_SOLUTION,
    Status.MULTIPLE: EXIT_NO_SOLUTION,
    Status.UNKNOWN: EXIT_UNKNOWN,
    Status.INVALID: EXIT_BAD_INPUT,
    Status.STUCK: EXIT_UNKNOWN,
    Status.CRASH: EXIT_UNKNOWN,
}

EXIT_CODES_HELP = """\
exit codes:
  0  every puzzle solved (or counted, encoded, decoded)
  1  some puzzle has no solution, or more than one under --unique
     (count: the puzzle has no solution)
  2  usage error or bad input: unreadable file, invalid puzzle, malformed solver output, a bad
     option value, a solver command that cannot run, a model too big for memory, count with an
     incomplete backend, an input that is not text or is over the input cap (SUDOKU_CP_MAX_INPUT,
     default 256M), a --resume FILE of another input or options (one line naming the problem and
     its place)
  3  unknown: a time limit was reached (the phase is named) or a solver program failed
     (nishio --method all: two methods disagree); crash: an item killed its worker repeatedly
  4  verify: some solver's answer is wrong, or a --steps log holds an unsound or inconsistent
     step (see 'sudoku-cp verify --help'); fuzz: a wrong answer was found
  130 interrupted (Ctrl-C); what was written so far stays intact
  A batch exits with the most severe code over its puzzles, in the order 4 > 2 > 3 > 1 > 0."""

BACKENDS_HELP = backends_help()  # from the backends' table (backends.registry.TABLE)

#: The longest error line ``error`` writes, its 'sudoku-cp: error: ' included (README: at most 500).
MAX_ERROR_LINE = 500
_PUZZLE_CHARS = frozenset(".0" + SYMBOLS)
_SMALLEST_LOWERCASE_GRID = 36 * 36  # 'a' stands for 36: shorter text with lowercase is no puzzle


class CliError(SudokuCpError):
    """A problem to report in one line, with the exit code it gives."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def worst_exit(codes: Iterable[int]) -> int:
    """The most severe exit code, in the order 4 > 2 > 3 > 1 > 0."""
    return max(codes, key=SEVERITY.index, default=EXIT_OK)


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Help laid out as written (examples stay on their lines), a little wider than argparse's default."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=100)


# ------------------------------------------------------------------------------------ converters
# Every numeric option goes through these, so a bad value is refused the same way everywhere.


def integer(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in [minimum, maximum]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{value} is more than {maximum}")
        return value

    parse.__name__ = "integer"
    return parse


def seconds(text: str) -> float | None:
    """An argparse type: a positive number of seconds; 'inf' (or 'none') means no limit (None)."""
    if text.strip().lower() in ("inf", "infinity", "none"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if math.isnan(value) or not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return None if math.isinf(value) else value


def box(text: str) -> tuple[int, int]:
    """An argparse type: a box shape PxQ."""
    try:
        return parse_box(text)
    except SudokuCpError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def grid_format(text: str) -> GridFormat:
    """An argparse type: a puzzle text form."""
    try:
        return GridFormat(text)
    except ValueError:
        choices = ", ".join(form.value for form in GridFormat)
        raise argparse.ArgumentTypeError(f"unknown format {text!r} (choose from {choices})") from None


# ----------------------------------------------------------------------------------------- input


def _is_literal_puzzle(text: str) -> bool:
    """True for a word of grid symbols that can be a puzzle (so not 'puzzles.txt')."""
    if not text or not set(text) <= _PUZZLE_CHARS:
        return False
    return not (any(char.islower() for char in text) and len(text) < _SMALLEST_LOWERCASE_GRID)


def read_argument(argument: str, *, literal: bool = True) -> tuple[str, str | None]:
    """(text, name for messages) of a file, '-' (stdin) or, with ``literal``, a puzzle string (no name)."""
    if argument == "-":
        return read_text("-"), "<stdin>"
    if os.path.exists(argument):
        return read_text(argument), argument
    if literal and _is_literal_puzzle(argument):
        return argument, None
    raise CliError(f"no such file: {argument}")


def where(name: str | None, message: object) -> str:
    """A message prefixed with the input's name, when it has one."""
    return f"{name}: {message}" if name else str(message)


def load_puzzles(args: argparse.Namespace) -> tuple[list[PuzzleItem], str | None]:
    """The puzzle items of the PUZZLE argument, and its name for messages."""
    text, name = read_argument(args.puzzle)
    try:
        return parse_puzzles(text, box=args.box, fmt=args.format), name
    except ParseError as problem:
        raise CliError(where(name, problem)) from None


def item_grid(item: PuzzleItem, name: str | None, literal: str) -> Grid:
    """The grid of an item; an error naming the input when it was unreadable."""
    if item.grid is not None:
        return item.grid
    message = where(name, item.error or "unreadable puzzle")
    if name is None and len(literal) < 16:
        message += f" (no file {literal!r} exists, so it was read as a puzzle)"
    raise CliError(message)


def one_puzzle(args: argparse.Namespace, command: str) -> tuple[Grid, str | None]:
    """The single puzzle a command works on; an error for a batch or an invalid puzzle."""
    items, name = load_puzzles(args)
    if len(items) != 1:
        raise CliError(f"{name or 'the input'} holds {len(items)} puzzles; {command} takes one")
    grid = item_grid(items[0], name, args.puzzle)
    conflict = given_conflict(grid)
    if conflict is not None:
        raise CliError(where(name, f"invalid puzzle: {conflict}"))
    return grid, name


def add_command(
    commands: argparse._SubParsersAction, name: str, summary: str, text: str, *, exit_codes: bool = True
) -> argparse.ArgumentParser:
    """A subcommand's parser: summary, help text, and the exit codes unless the text has its own."""
    return commands.add_parser(
        name,
        help=summary,
        description=text,
        epilog=EXIT_CODES_HELP if exit_codes else None,
        formatter_class=Formatter,
    )


def add_puzzle_argument(parser: argparse.ArgumentParser, metavar: str = "PUZZLE") -> None:
    """The PUZZLE argument: a file, '-' for standard input, or the puzzle itself."""
    parser.add_argument("puzzle", metavar=metavar, help="a puzzle file, '-' for stdin, or the puzzle itself")


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """--box and --format."""
    group = parser.add_argument_group("input")
    group.add_argument("--box", type=box, metavar="PxQ", help="box shape, P rows by Q columns (e.g. 2x3)")
    group.add_argument(
        "--format",
        type=grid_format,
        metavar="{" + ",".join(form.value for form in GridFormat) + "}",
        help="input form (default: detected; see 'sudoku-cp --help')",
    )


def add_backend_arguments(parser: argparse.ArgumentParser, default: str) -> None:
    """--backend, --solver-cmd, --trust-solver, --time-limit, --workers, --seed."""
    group = parser.add_argument_group("backend")
    group.add_argument(
        "--backend",
        metavar="NAME",
        help=f"solver backend: {', '.join(backend_names())}; see below (default: {default})",
    )
    # The backends' help, from their table, after the command's own text.
    parser.epilog = "\n\n".join(filter(None, [BACKENDS_HELP, parser.epilog]))
    group.add_argument(
        "--solver-cmd",
        metavar="CMD",
        help='a DIMACS SAT solver program, e.g. "cadical -q" (replaces --backend)',
    )
    group.add_argument(
        "--trust-solver",
        action="store_true",
        help="take --solver-cmd's UNSAT claims without confirming them (faster; marked 'unverified')",
    )
    group.add_argument(
        "--time-limit",
        type=seconds,
        metavar="SECONDS",
        help="time limit per puzzle (default: none; 'inf': none)",
    )
    group.add_argument(
        "--workers",
        type=integer(1, MAX_WORKERS),
        default=1,
        metavar="N",
        help=f"CP-SAT search workers, 1-{MAX_WORKERS} (default: 1)",
    )
    group.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        help="random seed of CP-SAT and the stochastic backends (default: 0)",
    )


def add_encoding_options(parser: argparse.ArgumentParser, default: str | None) -> None:
    """--encoding and --amo (CNF constraint families and the at-most-one encoding)."""
    from ..cnf.sudoku import AmoEncoding, CnfEncoding

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


def add_output_option(parser: argparse.ArgumentParser, what: str) -> None:
    """--output pretty|line|json."""
    parser.add_argument(
        "--output",
        choices=("pretty", "line", "json"),
        default="pretty",
        help=f"how to show {what}: boxed grid, one line, or a JSON object (default: pretty)",
    )


def backend_options(args: argparse.Namespace, default: str = "pysat") -> BackendOptions:
    """The backend the options name; a --solver-cmd program that cannot run is an error here, at once."""
    from ..api import BackendOptions

    if args.solver_cmd is not None:
        from ..process import check_command

        check_command(args.solver_cmd, "solver command")
    elif args.trust_solver:
        raise CliError("--trust-solver applies to --solver-cmd only")
    return BackendOptions(
        backend=args.backend or default,
        encoding=args.encoding,
        amo=args.amo,
        workers=args.workers,
        seed=args.seed,
        solver_cmd=args.solver_cmd,
        trust_solver=args.trust_solver,
    )


def grid_output(grid: Grid, style: str) -> str:
    """A grid as one line or boxed."""
    return format_line(grid) if style == "line" else format_pretty(grid)


def status_text(result: PuzzleResult, unique: bool) -> str:
    """'solved', 'solved, unique', 'unsat: no solution', ... for one result."""
    status = result.status
    if status is Status.SOLVED:
        return "solved, unique" if unique else "solved"
    if status is Status.UNSAT:
        return "unsat: no solution"
    if status is Status.MULTIPLE:
        return "multiple: more than one solution (one of them shown)"
    return f"{status.value}: {result.error or 'no answer'}"


# ---------------------------------------------------------------------------------------- output


def out(line: str = "") -> None:
    """One line on standard output."""
    sys.stdout.write(line + "\n")


def error(message: str) -> None:
    """One error line on standard error, cut to ``MAX_ERROR_LINE`` characters (values can be megabytes)."""
    prefix = f"{PROG}: error: "
    line = " ".join(message.splitlines())
    room = MAX_ERROR_LINE - len(prefix)
    if len(line) > room:
        line = line[: room - 3] + "..."
    sys.stderr.write(f"{prefix}{line}\n")


def write_text(path: str | None, text: str) -> None:
    """Text to a file, or to standard output when no path is given."""
    if path is None:
        sys.stdout.write(text)
        return
    with naming_file(path), open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def short_error(message: str | None, line: int | None) -> str:
    """An item's error without the 'line N' the batch line already names."""
    text = message or ""
    for prefix in (f"line {line}, ", f"line {line}: "):
        if line is not None and text.startswith(prefix):
            return text[len(prefix) :]
    return text


@contextmanager
def progress(
    total: int, label: str, *, enabled: bool | None = None, stream: TextIO | None = None, delay: float = 0.5
) -> Iterator[Any]:
    """A tqdm bar for a batch on ``stream`` (standard error), or None when there is nothing to draw on.

    ``enabled=None`` draws only on a terminal, and only once the batch has run ``delay`` seconds
    (fast batches show no bar); the bar is erased at the end.  Print lines meanwhile with
    ``print_line`` so the bar never garbles them on a shared terminal.
    """
    stream = stream if stream is not None else sys.stderr
    if enabled is None:
        isatty = getattr(stream, "isatty", None)
        enabled = bool(isatty and isatty())
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    bar: tqdm[Any] = tqdm(
        total=total, desc=label, file=stream, delay=delay, mininterval=0.1, leave=False, dynamic_ncols=True
    )
    try:
        yield bar
    finally:
        bar.close()


def print_line(bar: Any, line: str) -> None:
    """A line on standard output that does not collide with a progress bar on the same terminal."""
    Sigint.check()
    if bar is not None and sys.stdout.isatty():
        bar.write(line, file=sys.stdout)
    else:
        out(line)


def add_rule_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """``--rules`` and ``--uniqueness`` for the deduction commands; returns their group."""
    group = parser.add_argument_group("rules")
    group.add_argument(
        "--rules",
        metavar="NAMES",
        help="rule families or rule names, comma-separated (default: all; see below)",
    )
    group.add_argument(
        "--uniqueness", action="store_true", help="also use the rules that assume one solution"
    )
    return group


def chosen_rules(args: argparse.Namespace) -> tuple[Rule, ...]:
    """The rules ``--rules`` and ``--uniqueness`` name, in the engine's order (unknown names: exit 2)."""
    from ..deduction.rules import select_rules

    names = args.rules.split(",") if args.rules else None
    return select_rules(names, uniqueness=getattr(args, "uniqueness", False))


#: CP-SAT search workers at most: CP-SAT itself rejects some ten thousand, with an empty reason.
MAX_WORKERS = 1024

#: Worker processes per CPU core at most: more only compete for the cores (1,000 once started 300 processes).
JOBS_PER_CORE = 4

CLUSTER_HELP = """\
where batches run:
  --jobs N                  N worker processes on this machine (0: one per CPU)
  --cluster local           a Dask LocalCluster on this machine (one worker per core;
                              local:N for N workers)
  --cluster tcp://HOST:PORT a running Dask scheduler, e.g. started with
                              dask scheduler                       (on one machine)
                              dask worker tcp://HOST:8786 --nthreads 1   (on each worker machine)
  Dask is optional: pip install 'sudoku_cp[dask]'.  Results come in input order whatever runs them."""


#: ``--jobs`` left out where a command chooses (``add_executor_options(auto=True)``): one process per
#: CPU for a batch of this many puzzles or more, else this process alone.  Below it the workers'
#: start (a fork and a warm-up, about half a second) costs more than the second core gives back.
AUTO_JOBS_FROM = 500


def add_executor_options(
    parser: argparse.ArgumentParser, what: str = "a batch", *, auto: bool = False
) -> None:
    """``--jobs N`` and ``--cluster local|ADDRESS``: where the chunks of ``what`` run (``auto``: without
    ``--jobs``, one process per CPU from ``AUTO_JOBS_FROM`` puzzles on, see ``executor``)."""
    group = parser.add_argument_group("where the work runs")
    default = f"; default: one per CPU from {AUTO_JOBS_FROM:,} puzzles on, else 1" if auto else ""
    group.add_argument(
        "--jobs",
        type=integer(0),
        default=None if auto else 1,
        metavar="N",
        help=f"worker processes for {what} (0: one per CPU; at most {JOBS_PER_CORE} per CPU{default})",
    )
    group.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on Dask: 'local' starts a LocalCluster on this machine, tcp://HOST:PORT joins a "
        "running scheduler (needs sudoku_cp[dask])",
    )


def jobs(requested: int) -> int:
    """The worker processes to start: one per usable core for 0, capped at JOBS_PER_CORE per core,
    with a note."""
    from ..executor import usable_cores

    cores = usable_cores()
    most = JOBS_PER_CORE * cores
    if requested > most:
        sys.stderr.write(
            f"{PROG}: note: --jobs {requested} is capped at {most} ({JOBS_PER_CORE} per CPU core, "
            f"{cores} cores): more processes only compete for the cores\n"
        )
        return most
    return requested or cores


def executor(args: argparse.Namespace, batch: int | None = None) -> Executor:
    """The executor that ``--jobs`` and ``--cluster`` ask for (``--cluster`` wins); ``--jobs`` left
    out (None): one process per CPU for a ``batch`` of ``AUTO_JOBS_FROM`` items or more, else one."""
    from ..executor import Executor, local_workers

    cluster = getattr(args, "cluster", None)
    if cluster is not None:
        cluster = cluster.strip()
        try:
            local_workers(cluster)
        except ValueError as problem:
            raise CliError(f"--cluster: {problem}") from None
        if not cluster.startswith("local") and "://" not in cluster and ":" not in cluster:
            raise CliError(
                f"--cluster: {cluster!r} is neither 'local' nor a scheduler address like tcp://HOST:8786"
            )
        return Executor(cluster=cluster)
    requested = getattr(args, "jobs", 1)
    if requested is None:
        requested = 0 if batch is not None and batch >= AUTO_JOBS_FROM else 1
    return Executor(jobs=jobs(requested))


def notice(message: str) -> None:
    """A one-line note on standard error (the Dask dashboard address)."""
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


CERTIFY_HELP = """\
certificates (--certify DIR):
  Every claim an answer makes (no solution; unique; several solutions; a Nishio closure) is
  decided again by CaDiCaL 1.9.5 on the plain CNF of encodings/certificates.md, its DRAT proof
  checked, and written into DIR as a JSON manifest plus the CNF and the proof (gzip); the JSON
  result line names the manifest ("certificate").  A claim that cannot be certified (false, or
  a proof that does not check) makes the answer unknown, naming the claim (exit 3).  Re-check
  certificates anywhere with: sudoku-cp check-certificate DIR
  --prover CMD proves with a solver program instead (its proof checked all the same), e.g.
  --prover 'cadical -q --no-binary {cnf} {proof}'"""


def add_checker_option(group: argparse._ActionsContainer, what: str) -> None:
    """``--checker sudoku_cp|dratify``: the DRAT checker ``what`` says it is for."""
    group.add_argument(
        "--checker",
        choices=("sudoku_cp", "dratify"),
        default="sudoku_cp",
        help=f"the DRAT checker {what}: sudoku_cp (compiled, the default) or dratify (the pure-Python "
        "reference)",
    )


def add_certify_options(parser: argparse.ArgumentParser) -> None:
    """``--certify DIR`` and ``--checker sudoku_cp|dratify``."""
    group = parser.add_argument_group("certificates")
    group.add_argument(
        "--certify",
        metavar="DIR",
        help="write a checkable certificate of every claim into DIR (see 'certificates' below)",
    )
    add_checker_option(group, "that accepts each proof before it is written")
    group.add_argument(
        "--prover",
        metavar="CMD",
        type=_prover_command,
        help="prove with a solver program writing text DRAT to {proof} instead of python-sat's "
        'CaDiCaL, e.g. "cadical -q --no-binary {cnf} {proof}" or "kissat -q --no-binary {cnf} {proof}"',
    )


def _prover_command(text: str) -> str:
    """An argparse type: a prover command whose program can run and that names {proof}."""
    from ..certify.prove import resolve_prover
    from ..process import CommandError, check_command

    try:
        text = resolve_prover(text)
        check_command(text, "prover command")
    except CommandError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if "{proof}" not in text:
        where = "{proof}"
        raise argparse.ArgumentTypeError(
            f"the prover command {text!r} must say where the proof goes: {where}"
        )
    return text


def certify_directory(args: argparse.Namespace) -> str | None:
    """The folder of ``--certify``, made if missing (a usage error when it cannot be), or None."""
    folder = getattr(args, "certify", None)
    if folder is None:
        return None
    from ..certify.checkers import require_checker

    require_checker(getattr(args, "checker", "sudoku_cp"))
    return output_directory(folder, "--certify")


def output_directory(folder: str, option: str) -> str:
    """The folder an option writes into, made if missing; a usage error, before any work, when it
    cannot be made or written (a file of that name, say)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise CliError(f"{option}: cannot make the folder {folder!r}: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK):
        raise CliError(f"{option}: the folder {folder!r} is not writable")
    return folder
