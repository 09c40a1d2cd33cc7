"""``sudoku-cp explain``: a puzzle solved step by step by rules that never guess."""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..checker import given_conflict
from ..outcome import Status
from . import common
from .common import EXIT_WRONG, STATUS_EXIT, CliError
from .results_file import BatchOutput, add_results_file_options, digest_items, run_identity

if TYPE_CHECKING:
    from ..deduction.batch import Explained
    from ..deduction.engine import Deduction
    from ..grid import Grid

__all__ = ["add_parser", "run"]

#: Where the rule table goes in the help (filled in only when help is shown: it loads the rules).
RULES_TABLE = "{rule table}"

EXPLAIN_HELP = f"""\
Solve puzzles the way a player does: the easiest step that applies (the least weight on Sudoku
Explainer's scale, as 'sudoku-cp rate' measures), one step at a time, never a guess (local
rules, fish and wings, alternating chains and loops, Eppstein 2005's matching rules and
nonrepetitive cycles and paths on the bilocation and bivalue graphs; 2-SAT; Nishio; cell and
region forcing chains). Each step is printed with its rule, what it saw (cells, units, digits,
the chain or cycle) and what it places or removes; then the solved grid, or, for a puzzle the
rules cannot finish ('stuck'), the candidates left (pencil marks). A batch (one puzzle per line)
gives every line a result, bad lines 'invalid', and a summary.

Statuses: solved, stuck (no rule applies: reported, never guessed), unsat (a contradiction: no
solution), invalid (unreadable, or equal givens in a unit), unknown (--time-limit reached).

With --json: one JSON object per puzzle: index (0-based), line, status, rating, level, hardest
(the rule of the heaviest step, which set the rating), hardest_step (its number), steps (each
with rule, weight, placements and eliminations as [row, column, digit], cells [row, column],
units, digits, and links {{from, to, digit, graph}} for a chain or cycle; all 1-based), grid
(the final one-line grid), candidates (stuck: per row, per cell, the digits left), error,
seconds. -o FILE writes the output to FILE, each line flushed as it comes; with --json, --resume
continues an interrupted FILE (the puzzles it holds are skipped, the rest appended). Batches run
in chunks of puzzles, here, on --jobs N local processes or on a Dask cluster (--cluster); the
output keeps its order.  Without --jobs a --json batch of 500 puzzles or more (no --svg, no
--html) runs on one process per CPU, any other here.

--svg DIR writes a picture of every step that is not a single ('puzzle<k>-step<s>-<rule>.svg':
the candidates, the pattern shaded, placements green, eliminations red, chains drawn between
candidates: bilocation solid, bivalue dashed) and of the candidates of a stuck puzzle
('puzzle<k>-stuck.svg').  --check proves every step by SAT as it is taken (the puzzle with the
eliminated candidate, or without the placed digit, has no solution).

--html FILE writes one page that steps through the explanation (buttons, or the left and
right arrows, Home and End): the picture of each step, its rule, weight and what it did.  The
page is self-contained (inline SVG, style and script; it fetches nothing) and needs a browser
from 2023 or later.  It takes one puzzle: a batch of several is refused (pick one line).

{RULES_TABLE}

examples:
  sudoku-cp explain puzzle.txt
  sudoku-cp explain puzzle.txt --json --svg steps/
  sudoku-cp explain puzzle.txt --rules singles,locked,matching,nishio
  sudoku-cp explain puzzle.txt --html steps.html
  sudoku-cp explain big16.txt --box 4x4 --check

exit codes:
  0  every puzzle solved
  1  some puzzle has no solution (a contradiction)
  2  usage error or bad input (an invalid puzzle, an unknown rule name)
  3  some puzzle is stuck (no rule applies), or --time-limit was reached
  4  --check: a step failed its proof (a bug in the rule it names)
  130 interrupted (Ctrl-C)
  A batch exits with the most severe code over its puzzles, in the order 4 > 2 > 3 > 1 > 0."""


class _Help(common.Formatter):
    def add_text(self, text: str | None) -> None:
        """The rule table goes in only when help is shown (reading it loads the compiled rules)."""
        from ..deduction.batch import rules_help

        super().add_text(text.replace(RULES_TABLE, rules_help()) if text and RULES_TABLE in text else text)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``explain``."""
    parser = common.add_command(
        commands, "explain", "solve step by step with rules, never guessing", EXPLAIN_HELP, exit_codes=False
    )
    parser.formatter_class = _Help
    common.add_puzzle_argument(parser)
    common.add_input_options(parser)
    group = common.add_rule_options(parser)
    group.add_argument("--check", action="store_true", help="prove every step by SAT as it is taken")
    parser.add_argument(
        "--time-limit", type=common.seconds, metavar="SECONDS", help="time limit for the whole command"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per puzzle (JSON Lines)")
    add_results_file_options(parser)
    common.add_executor_options(parser, "explaining", auto=True)
    parser.add_argument("--svg", metavar="DIR", help="write a picture of every step that is not a single")
    parser.add_argument("--html", metavar="FILE", help="write a page that steps through the explanation")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp explain``; return the exit code."""
    from ..deduction.batch import explain_items
    from ..limits import Deadline

    BatchOutput.check(args.output_file, args.resume, args.json)
    if args.svg:  # refused before any puzzle is explained, not after
        common.output_directory(args.svg, "--svg")
    clock = Deadline(args.time_limit, began=getattr(args, "started", None))
    if args.html:  # refused before any puzzle is explained, not after
        if args.resume:  # a resumed run skips the puzzle its file holds: there would be no page
            raise CliError("--html does not go with --resume (run the one puzzle again)")
        _html_file(args.html)
    items, name = common.load_puzzles(args)
    if args.html and len(items) != 1:
        raise CliError(f"--html shows one puzzle; the input holds {len(items)} (pick one line of it)")
    identity = run_identity(args, digest_items(items), leave_out={"puzzle"})
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    rules = common.chosen_rules(args)
    single = len(items) == 1 and not args.json
    if single:  # one unreadable or invalid puzzle is an error, not a status
        conflict = given_conflict(common.item_grid(items[0], name, args.puzzle))
        if conflict is not None:
            raise CliError(common.where(name, f"invalid puzzle: {conflict}"))
    counts: Counter[Status] = Counter(Status(obj["status"]) for obj in output.answered())
    start = time.perf_counter()
    lines_only = args.json and not args.svg and not args.html
    # Workers pay off without --jobs only where they send lines: whole deductions cost as much to
    # pickle as to make (session 9: explain --jobs 2 gained nothing before lines).
    batch = len(items) - len(output.done) if lines_only else None
    results = explain_items(
        items,
        rules,
        check=args.check,
        time_limit=clock,
        executor=common.executor(args, batch),
        skip=output.done,
        notice=common.notice,
        json_only=lines_only,
    )
    total = len(items) - len(output.done)
    enabled = False if args.no_progress else None
    with output.writing(results, total, "explaining", enabled=enabled) as (write, bar):
        _write_all(args, results, single, counts, write, bar)
        if not args.json and not single:
            seconds = time.perf_counter() - start
            tally = ", ".join(f"{counts[status]} {status.value}" for status in Status if counts[status])
            write(f"summary: {sum(counts.values())} puzzles: {tally}; {seconds:.3f} s")
    return common.worst_exit(STATUS_EXIT[status] for status in counts)


def _write_all(
    args: argparse.Namespace,
    results: Iterable[Explained],
    single: bool,
    counts: Counter[Status],
    write: Callable[[str], None],
    bar: Any,
) -> None:
    """Each result's lines (and pictures) as it comes; a refuted step stops with exit 4."""
    pictures: Callable[[str, int, Grid, Deduction], object] | None = None
    if args.svg:  # imported only then: the picture modules cost 0.05-0.1 s of every run's start
        from ..deduction.svg import write_pictures

        pictures = write_pictures

    for result in results:
        if result.refuted is not None:
            raise CliError(result.refuted, EXIT_WRONG)
        counts[result.status] += 1
        if args.json:
            write(result.json_line())
        elif single:
            body = result.text()
            write((body + "\n" if body else "") + f"{result.headline()}")
        else:
            where = f"#{result.index + 1}" + (f" line {result.line}" if result.line is not None else "")
            body = result.text()
            write(f"{where}: {result.headline()}" + (f"\n{body}" if body else "") + "\n")
        if pictures is not None and result.deduction is not None and result.puzzle is not None:
            pictures(args.svg, result.index, result.puzzle, result.deduction)
        if args.html:
            _write_page(args.html, result)
        if bar is not None:
            bar.update()


def _html_file(path: str) -> None:
    """Refuse a --html FILE that cannot be written (no folder, a folder, no permission)."""
    existed = os.path.lexists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise CliError(f"--html: cannot write {path!r}: {error.strerror or error}") from None
    if not existed:  # made only to try: the page comes once the puzzle is explained
        os.remove(path)


def _write_page(path: str, result: Explained) -> None:
    """The --html page of one explained puzzle (a note instead when it has no steps to show)."""
    from ..deduction.html import write_explanation_html

    if result.deduction is None or result.puzzle is None:
        common.notice(f"--html: no page written: {result.headline()}")
        return
    write_explanation_html(path, result.puzzle, result.deduction, headline=result.headline())
