"""``sudoku-cp generate``: minimal, symmetric puzzles with one solution, optionally of one level."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..formats import format_line, json_dumps
from . import common
from .common import EXIT_OK, EXIT_UNKNOWN

if TYPE_CHECKING:
    from ..deduction.generate import Generated
    from ..limits import Deadline

__all__ = ["add_parser", "run"]

#: Attempts per requested puzzle before a target level is given up (rejection sampling).
ATTEMPTS_PER_PUZZLE = 1000

GENERATE_HELP = (
    f"""\
Make puzzles as Eppstein 2005 (section 3.6) did: pairs of cells symmetric under a half turn are
filled with digits still open to them, singles propagating each choice (a contradiction starts
again), until singles solve the grid; then, in the order they were added, each pair is emptied
when a brute-force search still finds exactly one solution.  Every puzzle has one solution,
symmetric givens, and is minimal: emptying any remaining pair would allow a second solution.

Output: one puzzle per line (the one-line form), ready for 'sudoku-cp solve', 'explain' or
'rate'.  With --json: one object per puzzle with index, puzzle, solution, givens, attempt (the
attempt number of the seed), rating, level and hardest.  The same --seed gives the same puzzles.

--level keeps only puzzles of that level ('sudoku-cp rate' levels: easy, medium, hard,
fiendish, diabolical, extreme, unsolved), rejecting the others; it gives up after
--max-attempts attempts (default: {ATTEMPTS_PER_PUZZLE} per puzzle asked for).  Small grids
(4x4, 6x6) are almost all easy: about 1 in 7,000 6x6 puzzles is 'hard' (a pair, an X-wing or a
triple is its hardest step), 1 in 70 'fiendish'.  Fewer puzzles than asked (attempts spent,
--time-limit reached) give a note on standard error and exit 3.

With --certify DIR each puzzle's uniqueness is certified (a 'unique' certificate of the puzzle
and its solution, see below) before the puzzle is written; with --json its line names the
certificate ("certificate").  A puzzle whose uniqueness cannot be certified is left out with a
note on standard error naming the claim, and the command exits with 3.

Speed (one core, unrated): 6x6 about 2,600 puzzles/s, 9x9 630/s, 12x12 120/s, 16x16 5/s;
20x20 takes seconds to a minute a puzzle, 25x25 does not finish (the
random fill meets contradictions ever more often).  A target level also rates every attempt.

examples:
  sudoku-cp generate --box 3x3 --count 100 --seed 1 > puzzles.txt
  sudoku-cp generate --box 2x3 --count 20 --level fiendish
  sudoku-cp generate --box 2x3 --count 2 --level hard --max-attempts 50000
  sudoku-cp generate --box 4x4 --count 3 --json --time-limit 60
  sudoku-cp generate --box 2x3 --count 5 --json --certify certs/

"""
    + common.CERTIFY_HELP
    + """

exit codes:
  0  every puzzle asked for was made
  2  usage error (a bad box shape, level or count)
  3  fewer puzzles than asked: the attempts were spent or the time limit was reached, or
     (--certify) a puzzle's uniqueness could not be certified
  130 interrupted (Ctrl-C); the puzzles written so far stay whole"""
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``generate``."""
    parser = common.add_command(
        commands,
        "generate",
        "make minimal symmetric puzzles with one solution",
        GENERATE_HELP,
        exit_codes=False,
    )
    parser.add_argument(
        "--box", type=common.box, default=(3, 3), metavar="PxQ", help="box shape (default: 3x3)"
    )
    parser.add_argument(
        "--count", type=common.integer(0), default=1, metavar="N", help="puzzles (default: 1)"
    )
    parser.add_argument("--seed", type=common.integer(0), default=0, help="random seed (default: 0)")
    parser.add_argument("--level", metavar="LEVEL", help="only puzzles of this level, by rejection")
    parser.add_argument(
        "--rules", metavar="NAMES", help="the rule set that rates puzzles for --level (default: all)"
    )
    parser.add_argument(
        "--max-attempts",
        type=common.integer(1),
        metavar="N",
        help=f"attempts before --level gives up (default: {ATTEMPTS_PER_PUZZLE} per puzzle)",
    )
    parser.add_argument(
        "--time-limit", type=common.seconds, metavar="SECONDS", help="time limit for the whole command"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per puzzle, with its rating")
    common.add_certify_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp generate``; return the exit code."""
    from ..deduction.generate import generate_puzzles
    from ..geometry import Geometry
    from ..limits import Deadline

    clock = Deadline(args.time_limit, began=getattr(args, "started", None))
    geometry = Geometry(*args.box)
    folder = common.certify_directory(args)
    uncertified = 0
    rules = common.chosen_rules(args)
    attempts = args.max_attempts
    if attempts is None and args.level is not None:
        attempts = ATTEMPTS_PER_PUZZLE * max(args.count, 1)
    made = 0
    puzzles = generate_puzzles(
        geometry,
        args.count,
        args.seed,
        args.level,
        rules=rules,
        rated=args.json,
        max_attempts=attempts,
        deadline=clock,
    )
    with common.progress(args.count, "generating", enabled=False if args.no_progress else None) as bar:
        for generated in puzzles:
            certificate = None
            if folder is not None:
                certificate, error = _certify(generated, folder, args, clock)
                if certificate is None:
                    uncertified += 1
                    note = f"puzzle {format_line(generated.puzzle)} (attempt {generated.attempt}) left out"
                    sys.stderr.write(f"{common.PROG}: {note}: {error}\n")
                    continue
            if args.json:
                obj: dict[str, object] = {
                    "index": made,
                    "puzzle": format_line(generated.puzzle),
                    "solution": format_line(generated.solution),
                    "givens": generated.puzzle.givens,
                    "attempt": generated.attempt,
                }
                if generated.rating is not None:
                    rating = generated.rating
                    obj.update({"rating": rating.rating, "level": rating.level, "hardest": rating.hardest})
                if certificate is not None:
                    obj["certificate"] = certificate
                common.print_line(bar, json_dumps(obj))
            else:
                common.print_line(bar, format_line(generated.puzzle))
            made += 1
            if bar is not None:
                bar.update()
    if made == args.count:
        return EXIT_OK
    if uncertified:
        why = f"the uniqueness of {uncertified} could not be certified"
    elif clock.expired():
        why = "the time limit was reached"
    else:
        why = f"{attempts} attempts were spent"
    target = f" of level {args.level}" if args.level else ""
    sys.stderr.write(f"{common.PROG}: note: {made} of {args.count} puzzles{target} made: {why}\n")
    return EXIT_UNKNOWN


def _certify(
    generated: Generated, folder: str, args: argparse.Namespace, clock: Deadline
) -> tuple[str | None, str]:
    """(the manifest's path, "") of the 'unique' certificate of a generated puzzle and its
    solution, or (None, why) when it cannot be certified (the time limit counts)."""
    from ..certify.batch import ClaimItem, certify_claims

    puzzle = generated.puzzle
    box = (puzzle.geometry.p, puzzle.geometry.q)
    item = ClaimItem("unique", box, format_line(puzzle), format_line(generated.solution))
    claims = certify_claims(
        [item], folder, checker=args.checker, time_limit=clock.remaining(), prover=args.prover
    )
    answer = next(claims)
    return answer.path, answer.error or ""
