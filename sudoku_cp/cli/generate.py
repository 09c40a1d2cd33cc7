"""``sudoku-cp generate``: minimal puzzles with one solution (or symmetric), of a level or needing rules."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..formats import format_line, json_dumps
from . import common
from .common import EXIT_OK, EXIT_UNKNOWN

PROOF_SECONDS = 2.0  # deduction.generate.PROOF_SECONDS (not imported: the help stays light)
PROOF_SECONDS_SAT_SIDE = 0.25  # deduction.generate.PROOF_SECONDS_SAT_SIDE, from 25x25 on
REGION_SIDE = 25  # native.carve.REGION_SIDE: from this side on a puzzle is carved by block SAT tests

if TYPE_CHECKING:
    from ..deduction.generate import Generated
    from ..geometry import Geometry
    from ..limits import Deadline

__all__ = ["add_parser", "run"]

#: Attempts per requested puzzle before a target level is given up (rejection sampling).
ATTEMPTS_PER_PUZZLE = 1000

#: Where the rule table goes in the help (filled in only when help is shown: it loads the rules).
RULES_TABLE = "{RULES_TABLE}"

GENERATE_HELP = (
    f"""\
Make puzzles with one solution that are minimal: no single given can be removed without a
second solution.  A random complete grid is filled by a compiled search; givens are added in a
random order until singles fix every cell; then each given is taken out when a search finds no
solution with that cell changed (a test that search cannot settle quickly goes to SAT).  From
16x16 on, the givens that singles and locked candidates can spare go first, and the rest are
tested together: a witness search on the puzzle without each (its digit forbidden there; from
25x25 on, a count to two by the native backtrack search).
Each given kept has a witness (a second solution without it), checked before the puzzle is
written.

--symmetric: givens symmetric under a half turn (180 degrees); pairs of cells are added and
taken out together, so the puzzle is minimal among symmetric pairs (emptying any remaining pair
allows a second solution), not given by given.

Proof: every puzzle's uniqueness is proved before it is written, by paths other than the one
that carved it: the native backtrack search counts its solutions to two (complete; its own
kernels), and a puzzle it has not finished in {PROOF_SECONDS:g} s ({PROOF_SECONDS_SAT_SIDE:g} s from 25x25 on)
goes to SAT (CaDiCaL, the known solution blocked).  With --json each line names the path
("proof").  A puzzle not proved before --time-limit is not written.

Output: one puzzle per line (the one-line form), ready for 'sudoku-cp solve', 'explain' or
'rate'.  With --json: one object per puzzle with index, puzzle, solution, givens, attempt (the
attempt number of the seed), proof, rating, level and hardest (and rules with --require).  The
same --seed gives the same puzzles.

--level keeps only puzzles of that level ('sudoku-cp rate' levels: easy, medium, hard,
fiendish, diabolical, extreme, unsolved), rejecting the others.  --require RULE (repeatable)
keeps only puzzles whose explanation ('sudoku-cp explain', with --rules and the required rules)
uses that rule, or a rule of that family; the names are those of the table below.  Both give up
after --max-attempts attempts (default: {ATTEMPTS_PER_PUZZLE} per puzzle asked for) or at
--time-limit, with the puzzles found so far.  Small grids (4x4, 6x6) are almost all easy.
Fewer puzzles than asked (attempts spent, --time-limit reached) give a note on standard error
and exit 3.

With --certify DIR each puzzle's uniqueness is certified (a 'unique' certificate of the puzzle
and its solution, see below) before the puzzle is written; with --json its line names the
certificate ("certificate").  A puzzle whose uniqueness cannot be certified is left out with a
note on standard error naming the claim, and the command exits with 3.

Batches run in runs of attempts, here, on --jobs N local processes or on a Dask cluster
(--cluster): the same puzzles in the same order (each attempt of a seed has its own random
stream).  Without --jobs a batch worth 500 9x9 puzzles or more (a 12x12 weighs 6, a 16x16
32; with --level or --require, every attempt allowed counts) runs on one process per usable
core, a smaller one here.  From 25x25 on, one puzzle without a target is looked for on every
core: the grids whose SAT tests would be given up are tried side by side, and the first attempt
in order that makes a puzzle wins (the one a single process makes); with --count above 1,
--level or --require the attempts run here, one after the other.

From 36x36 on (single givens) every grid's SAT tests are hard, so none is given up: a test that
spends 5,000 conflicts takes its given out on speculation, and givens are then put back until no
other solution exists, each kept given with a witness (minimal and unique as ever).  With
--symmetric 36x36 is not possible yet.

Speed (2 cores, whole process, unrated; benchmarks/README.md): 2,000 9x9 puzzles in about 1.2 s,
200 16x16 in 2.7 s; one 25x25 puzzle in 3-10 s (median 7 on seeds 0-9; most of it SAT tests);
one 36x36 puzzle in about 20 minutes (one core; seed 1: 615 givens).  A target also rates or
explains every attempt.

{RULES_TABLE}

examples:
  sudoku-cp generate --box 3x3 --count 100 --seed 1 > puzzles.txt
  sudoku-cp generate --box 3x3 --count 10 --symmetric
  sudoku-cp generate --box 3x3 --count 2 --require x-wing --max-attempts 2000
  sudoku-cp generate --box 2x3 --count 20 --level fiendish
  sudoku-cp generate --box 4x4 --count 3 --json --time-limit 60
  sudoku-cp generate --box 2x3 --count 5 --json --certify certs/

"""
    + common.CERTIFY_HELP
    + """

exit codes:
  0  every puzzle asked for was made
  2  usage error (a bad box shape, level, rule name or count)
  3  fewer puzzles than asked: the attempts were spent or the time limit was reached, or
     (--certify) a puzzle's uniqueness could not be certified
  130 interrupted (Ctrl-C); the puzzles written so far stay whole"""
)


class _Help(common.Formatter):
    def add_text(self, text: str | None) -> None:
        """The rule table goes in only when help is shown (reading it loads the compiled rules)."""
        from ..deduction.batch import rules_help

        super().add_text(text.replace(RULES_TABLE, rules_help()) if text and RULES_TABLE in text else text)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``generate``."""
    parser = common.add_command(
        commands,
        "generate",
        "make minimal puzzles with one solution",
        GENERATE_HELP,
        exit_codes=False,
    )
    parser.formatter_class = _Help
    parser.add_argument(
        "--box", type=common.box, default=(3, 3), metavar="PxQ", help="box shape (default: 3x3)"
    )
    parser.add_argument(
        "--count", type=common.integer(0), default=1, metavar="N", help="puzzles (default: 1)"
    )
    parser.add_argument("--seed", type=common.integer(0), default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--symmetric",
        action="store_true",
        help="givens symmetric under a half turn, minimal among symmetric pairs",
    )
    parser.add_argument("--level", metavar="LEVEL", help="only puzzles of this level, by rejection")
    parser.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="RULE",
        help="only puzzles whose explanation uses this rule or family (repeatable), by rejection",
    )
    parser.add_argument(
        "--rules", metavar="NAMES", help="the rule set that rates puzzles for --level (default: all)"
    )
    parser.add_argument(
        "--max-attempts",
        type=common.integer(1),
        metavar="N",
        help=f"attempts before --level/--require give up (default: {ATTEMPTS_PER_PUZZLE} per puzzle)",
    )
    parser.add_argument(
        "--time-limit", type=common.seconds, metavar="SECONDS", help="time limit for the whole command"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per puzzle, with its rating")
    common.add_executor_options(parser, "carving runs of attempts", auto=True)
    common.add_certify_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp generate``; return the exit code."""
    from ..deduction.generate import generate_puzzles, required_rules
    from ..geometry import Geometry
    from ..limits import Deadline

    clock = Deadline(args.time_limit, began=getattr(args, "started", None))
    geometry = Geometry(*args.box)
    folder = common.certify_directory(args)
    uncertified = 0
    rules = common.chosen_rules(args)
    required_rules(args.require)  # an unknown name: one line naming the known ones, exit 2, before any work
    attempts = args.max_attempts
    if attempts is None and (args.level is not None or args.require):
        attempts = ATTEMPTS_PER_PUZZLE * max(args.count, 1)
    made = 0
    puzzles = generate_puzzles(
        geometry,
        args.count,
        args.seed,
        args.level,
        rules=rules,
        require=args.require,
        symmetric=args.symmetric,
        rated=args.json,
        max_attempts=attempts,
        time_limit=clock,
        executor=common.executor(args, _work(geometry, attempts if attempts is not None else args.count)),
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
                    "proof": generated.proof,
                }
                if generated.rating is not None:
                    rating = generated.rating
                    obj.update({"rating": rating.rating, "level": rating.level, "hardest": rating.hardest})
                if generated.rules is not None:
                    obj["rules"] = list(generated.rules)
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
    targets = ([f"of level {args.level}"] if args.level else []) + [f"using {name}" for name in args.require]
    target = "".join(f" {text}" for text in targets)
    sys.stderr.write(f"{common.PROG}: note: {made} of {args.count} puzzles{target} made: {why}\n")
    return EXIT_UNKNOWN


def _work(geometry: Geometry, attempts: int) -> int:
    """A batch's work in 9x9 puzzles, for ``--jobs`` left out (``common.AUTO_JOBS_FROM``): an
    attempt costs about the cube of its cells' ratio to 9x9 (12x12 about 4x, 16x16 about 40x
    here); from 25x25 on one puzzle takes seconds, worth every core."""
    if geometry.n >= REGION_SIDE:
        return max(attempts, common.AUTO_JOBS_FROM)
    return attempts * max(1, round((geometry.cells / 81) ** 3))


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
