"""``sudoku-cp rate``: how hard each puzzle is for rules that never guess, and a histogram of levels."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable

from ..formats import json_dumps
from ..outcome import Status
from . import common
from .common import STATUS_EXIT
from .results_file import BatchOutput, add_results_file_options, digest_items, run_identity

__all__ = ["add_parser", "run"]

#: Where the rule table and the levels go in the help (filled in only when help is shown).
TABLES = "{rule table}"

RATE_HELP = f"""\
Rate puzzles by the rules a player needs, on Sudoku Explainer's scale: the engine of 'sudoku-cp
explain' solves each puzzle easiest step first (at every state the step of least weight any
chosen rule offers, as Sudoku Explainer rates), and the rating is the weight of the heaviest step
it took, the very step 'explain --json' shows with that weight ("hardest").  Steps weigh their
rule (hidden single 1.5 ... hidden quad 5.4) or what their instance needs (one-digit chains by
their strong links, wings by their cells, X/Y/XY chains and loops by length); a puzzle the rules
cannot finish ('stuck') rates 10.0; a puzzle with no solution has no rating.  Sudoku Explainer
assumes one solution: with --uniqueness (unique rectangle, BUG + 1) the rating ranks puzzles as
it does (Spearman 0.97 on 10,000 Sudoku Exchange puzzles; 0.91 without).
Levels name bands of the scale.  One line per puzzle:
  #<number> line <line>: <status> <rating> <level> (<hardest rule>; <steps> steps)
then, for a batch, a histogram of levels and a summary.  Every puzzle line gets one result; bad
lines (a lone puzzle too) are 'invalid' and the batch goes on.

With --json: JSON Lines, one object per puzzle with index (0-based), line, status (solved,
stuck, unsat, invalid, unknown), rating, level, hardest, counts (steps per rule, every rule of
the chosen set) and error; then a last line {{"summary": {{...}}}} with the counts per status and
per level, seconds and puzzles per second.  -o FILE writes the output to FILE, each line flushed
as it comes; with --json, --resume continues an interrupted FILE: the puzzles it holds are
skipped, the rest appended, and the summary counts the whole file (its rate: this run's).

Batches run in chunks of puzzles, here, on --jobs N local processes or on a Dask cluster
(--cluster); the output keeps its order.  Without --jobs a batch of 500 puzzles or more runs on
one process per CPU (10,000 minimal 9x9 puzzles: about 1,000-1,350 a second on two cores, against
about 700 on one), a smaller one here (the workers' start would cost more than they give).

{TABLES}

examples:
  sudoku-cp rate corpus.txt
  sudoku-cp rate corpus.txt --json
  sudoku-cp rate corpus.txt --uniqueness          # as Sudoku Explainer rates
  sudoku-cp rate corpus.txt --rules singles,locked --jobs 2
  sudoku-cp rate corpus.txt --json --cluster tcp://scheduler:8786 -o rated.jsonl --resume
  sudoku-cp rate puzzles16.txt --box 4x4

exit codes:
  0  every puzzle solved by the rules
  1  some puzzle has no solution
  2  usage error or bad input (an invalid puzzle, an unknown rule name)
  3  some puzzle is stuck (no rule applies), or --time-limit was reached
  130 interrupted (Ctrl-C)
  A batch exits with the most severe code over its puzzles, in the order 2 > 3 > 1 > 0."""


class _Help(common.Formatter):
    def add_text(self, text: str | None) -> None:
        """Rule table and levels go in only when help is shown (reading them loads the rules)."""
        from ..deduction.batch import levels_help, rules_help

        tables = f"{rules_help()}\n\n{levels_help()}"
        super().add_text(text.replace(TABLES, tables) if text and TABLES in text else text)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``rate``."""
    parser = common.add_command(
        commands,
        "rate",
        "rate puzzles by the rules they need; a histogram of levels",
        RATE_HELP,
        exit_codes=False,
    )
    parser.formatter_class = _Help
    common.add_puzzle_argument(parser)
    common.add_input_options(parser)
    common.add_rule_options(parser)
    parser.add_argument(
        "--time-limit", type=common.seconds, metavar="SECONDS", help="time limit for the whole command"
    )
    common.add_executor_options(parser, "rating", auto=True)
    parser.add_argument(
        "--json", action="store_true", help="JSON Lines: one object per puzzle, then a summary"
    )
    add_results_file_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp rate``; return the exit code."""
    from ..deduction.batch import rate_items
    from ..limits import Deadline

    BatchOutput.check(args.output_file, args.resume, args.json)
    clock = Deadline(args.time_limit, began=getattr(args, "started", None))
    items = common.load_puzzles(args)[0]  # an invalid puzzle is a result line, even alone
    identity = run_identity(args, digest_items(items), leave_out={"puzzle"})
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    chosen = common.chosen_rules(args)
    statuses: Counter[Status] = Counter()
    levels: Counter[str] = Counter()
    for obj in output.answered():  # what a resumed file holds counts in the summary
        statuses[Status(obj["status"])] += 1
        levels[str(obj["level"])] += 1
    start = time.perf_counter()
    results = rate_items(
        items,
        chosen,
        time_limit=clock,
        executor=common.executor(args, len(items) - len(output.done)),
        skip=output.done,
        notice=common.notice,
        json_only=args.json,
    )
    total = len(items) - len(output.done)
    with output.writing(results, total, "rating", enabled=False if args.no_progress else None) as (
        write,
        bar,
    ):
        for result in results:
            statuses[result.status] += 1
            levels[result.level] += 1
            write(result.json_line() if args.json else result.text())
            if bar is not None:
                bar.update()
        seconds = time.perf_counter() - start
        batch = len(items) > 1 or args.json  # one puzzle: its line says it all
        return _summary(args, statuses, levels, seconds, total, write if batch else None)


def _summary(
    args: argparse.Namespace,
    statuses: Counter[Status],
    levels: Counter[str],
    seconds: float,
    rated: int,
    write: Callable[[str], None] | None,
) -> int:
    """The histogram and summary of a batch (JSON: the summary line), written by ``write`` (None:
    not written); return the exit code."""
    from ..deduction.batch import histogram_lines

    code = common.worst_exit(STATUS_EXIT[status] for status in statuses)
    done = sum(statuses.values())
    if write is None:
        return code
    rate = rated / seconds if seconds > 0 else 0.0
    if args.json:
        summary: dict[str, object] = {"puzzles": done}
        summary.update({status.value: statuses[status] for status in Status if status is not Status.MULTIPLE})
        summary.update(
            {
                "levels": dict(levels),
                "seconds": round(seconds, 6),
                "puzzles_per_second": round(rate, 1),
                "exit_code": code,
            }
        )
        write(json_dumps({"summary": summary}))
        return code
    write("levels:")
    for line in histogram_lines(levels):
        write(line)
    tally = ", ".join(f"{statuses[status]} {status.value}" for status in Status if statuses[status])
    write(f"summary: {done} puzzles: {tally}; {seconds:.3f} s, {rate:,.1f} puzzles/s")
    return code
