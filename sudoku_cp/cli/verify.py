"""``sudoku-cp verify``: any solver's answers checked against SAT ground truth (``sudoku_cp.audit``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence

from ..audit import (
    AnswerFileSolver,
    AuditError,
    BackendSolver,
    GroundTruth,
    ProgramSolver,
    RunResult,
    Solver,
    SolverTally,
    Verdict,
    audit,
    audit_size,
    check_audit_size,
    read_answer_lines,
)
from ..audit.certified import TruthCertifier, pending_puzzles
from ..audit.steplog import StepLogError, read_step_logs
from ..audit.steps import StepsResult, StepVerdict, check_step_logs
from ..audit.truth import EXTENDED, choose_truth, truth_path
from ..backends.base import BackendError
from ..backends.registry import make_backend
from ..formats import PuzzleItem, json_dumps
from . import common
from .common import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNKNOWN, EXIT_WRONG, CliError
from .results_file import BatchOutput, add_results_file_options, digest_items, digest_texts, run_identity

__all__ = ["add_parser", "run"]

_VERDICT_EXIT = {
    Verdict.WRONG: EXIT_WRONG,
    Verdict.INVALID: EXIT_BAD_INPUT,
    Verdict.TIMEOUT: EXIT_UNKNOWN,
    Verdict.CRASH: EXIT_UNKNOWN,
    Verdict.UNKNOWN: EXIT_UNKNOWN,
    Verdict.CORRECT: EXIT_OK,
}
_STEPS_EXIT = {
    StepVerdict.SOUND: EXIT_OK,
    StepVerdict.UNSOUND: EXIT_WRONG,
    StepVerdict.INCONSISTENT: EXIT_WRONG,
    StepVerdict.UNKNOWN: EXIT_UNKNOWN,
    StepVerdict.INVALID: EXIT_BAD_INPUT,
}
#: Options of the solver runs that a step log has no use for.
_NOT_FOR_STEPS = {
    "runs": ("--runs", 1),
    "seed": ("--seed", 0),
    "unique": ("--unique", False),
    "in_process": ("--in-process", False),
    "truth": ("--truth", None),
    "workers": ("--workers", 1),
    "jobs": ("--jobs", 1),
    "cluster": ("--cluster", None),
    "certify": ("--certify", None),
}
_COLUMNS = ("runs", "solved", "success", "median s", "mean s", "max s", "timeouts", "crashes", "unknown")
_LISTED_WRONG = 20  # wrong runs named per solver under the table (all of them are in --json)

VERIFY_HELP = (
    """\
Run solvers over a corpus (one puzzle per line, or one puzzle) and check every answer against
SAT ground truth.  A solver is a backend (--backend, repeatable: pysat, cpsat, dlx, and the
native ones the registry knows), an external program (--solver-cmd, repeatable) or a file of
answers made elsewhere (--answers, repeatable).  Backends and programs run --runs times per
puzzle, each run with its own seed derived from --seed, the puzzle and the run.

Checks: a solution must be complete, valid and keep the givens (the independent checker, no
solver needed); a "no solution" claim is confirmed by SAT; a "unique" claim by a SAT search
for a second solution; a "multiple" claim by two different valid solutions shown or by SAT.
The SAT answer for a puzzle is computed once, when a claim first needs it, and reused.

The ground truth takes a path no audited backend takes, so that no backend is checked against
itself: python-sat (pysat), or CP-SAT (cpsat) when a pysat backend is audited, or, when both are,
CaDiCaL on the plain extended encoding of the certificates (extended).  --truth names another
complete backend (or extended) to decide claims; one that takes the path of an audited backend
(the same family: pysat and pysat:glucose4 are one path) is used as asked, with a warning on
standard error.  The summary names the truth used ("truth" in the JSON summary).
Verdicts: correct, wrong, timeout, crash (the solver failed or its output is unreadable),
unknown (the solver gave up), invalid (the corpus line is not a puzzle).

Output: a line for every run that is not correct, as it happens,
  <solver>: #<puzzle> line <line> [run <run>]: <verdict> (claimed <claim>): <detail>
then a table per solver (runs, solved = runs judged correct, success rate, median / mean / max
seconds over all runs, timeouts, crashes, unknown, wrong) and the wrong runs by puzzle and line.
With --json: JSON Lines, one object per run (index: the run's place in the output, from 0;
solver, puzzle and run counted from 1, line, seed, claimed, verdict, seconds, detail, solution),
then {"summary": {...}}.  -o FILE writes the output to FILE, each line flushed as it comes;
with --json, --resume continues an interrupted FILE: the runs it holds are skipped, the rest
appended, and the summary counts the whole file (its ground-truth figures: this run's calls).

External programs (--solver-cmd CMD; not a DIMACS solver as in 'solve --solver-cmd'):
  CMD is split like a shell command and run without a shell, once per puzzle and run.  The
  puzzle line (the one-line form: '.' blank, 1-9, A-Z, a-z) comes on standard input, or in
  place of {} in CMD.  {seed} in CMD stands for the run's seed, {box} for the box shape (2x3).
  The program prints one answer line on standard output ('#' lines are ignored):
    SOLUTION                 a solution in the same one-line form (integers for n > 61)
    unique SOLUTION          ... and it is the only one
    multiple [SOLUTION]      more than one solution (a second SOLUTION may follow on a line)
    unsat | no solution      no solution exists ('unsatisfiable' and 'none' also do)
    unknown                  gave up (an empty output counts the same)
  Exit status nonzero is a crash; at --timeout the program and everything it started (its
  process group, and on Linux what left it) is killed and the run counts as a timeout.  A
  command that cannot run at all (empty, an unclosed quote, a program missing, a directory or
  not executable) is a usage error (exit 2) before any run; a crash, a hang or unreadable
  output gives one line per puzzle, and the batch goes on.

Answer files (--answers FILE): one line per puzzle of the corpus, in order, in the same answer
forms; an empty line is 'unknown'.  A different number of lines is an error.  An answer file
is judged once, whatever --runs says.

Backends run in a worker process each and get --timeout as their time limit.  An answer that
comes well past it (20% and half a second) counts as a timeout; a backend still busy at 1.5
times the limit plus 2 s is killed (a timeout), and a worker that dies (say, a segfault in
native code) is a crash; the next run gets a fresh worker.  --in-process runs backends inside
verify instead.  Each backend first solves an easy puzzle of each box shape, untimed, so that
compilation is not timed.

--jobs N or --cluster spread the backends' runs over worker processes or a Dask cluster, in
chunks of (backend, puzzles, runs); each worker makes a backend once and judges with its own
ground truth, and the output keeps its order.  Programs and answer files run in this process
(a program must be found on this machine and stopped from here at Ctrl-C).  With several
runs at once, seconds are measured while other runs share the machine.

Step logs (--steps FILE, instead of solvers): a deduction engine's steps, each claim checked
by SAT against the puzzle's solutions.  FILE holds JSON Lines (rows, columns, digits 1-based):
  {"puzzle": "4.....8.5.3...", "box": "3x3"}      a puzzle's log starts (box where the side
                                                  alone is ambiguous; else --box)
  {"rule": "x-wing", "placements": [[r, c, d]], "eliminations": [[r, c, d], ...],
   "candidates": [[[d, ...], ...], ...]}          one step; every key optional; candidates:
                                                  per row, per cell, the digits left before it
"puzzle" is any puzzle text the corpus may hold, or rows of integers (0 blank).  A puzzle line
may hold its steps inline ("steps": [...]) and "candidates" left after them;
several puzzles follow one another.  What 'sudoku-cp explain --json' writes is such a log as
it is: its lines name the corpus item ("index", "line") instead of the puzzle, so give that
corpus as CORPUS (with -o, its header's input digest must match).  A placement is sound when
no solution of the puzzle has another digit there, an elimination when no solution has that
digit there: with several solutions a claim true in only some is unsound; with none, every
claim holds.  A candidate list that leaves out a digit claims its elimination.  By Sudoku's
rules alone, a claim that contradicts the givens or an earlier claim (placing a removed digit,
removing a placed one, a candidate list keeping a removed digit) is inconsistent.  The first
failing step is reported with its claim and, when unsound, a solution it contradicts (one
line, checked).  One SAT solver per box shape up to 16x16, the givens as assumptions; --timeout
is per puzzle, and a claim it leaves undecided makes the puzzle unknown, never unsound.
Verdicts: sound, unsound, inconsistent, unknown, invalid (an unreadable corpus line).  Output:
a line for every puzzle that is not sound, then a summary; with --json one object per puzzle
(index from 0, line of the log, verdict, box, steps, claims, solutions: 0, 1 or 2 for more,
step from 1, step_line, rule, kind: placement|elimination|omitted, claim [row, column, digit],
solution, detail, sat_calls, seconds), then {"summary": {...}}.  A line that is not JSON, not
a puzzle or a step, or names a cell off the grid is an error naming its line (exit 2).

examples:
  sudoku-cp verify --backend acs --runs 10 --timeout 5 corpus.txt
  sudoku-cp verify --backend acs --runs 10 corpus.txt --cluster tcp://scheduler:8786 --json -o acs.jsonl
  sudoku-cp verify --backend dlx --backend cpsat --unique puzzles.txt
  sudoku-cp verify --solver-cmd "./mysolver" corpus.txt
  sudoku-cp verify --solver-cmd "./mysolver --seed {seed} {}" --runs 5 corpus.txt
  sudoku-cp verify --answers their_output.txt corpus.txt
  sudoku-cp verify --backend dlx --certify certs/ --json corpus.txt  # then: check-certificate certs/
  sudoku-cp explain corpus.txt --json -o steps.jsonl  # then: verify --steps steps.jsonl corpus.txt
  sudoku-cp verify --steps their_steps.jsonl --json

Certified ground truth (--certify DIR): the truth of every puzzle (no solution, unique, more
than one solution) is decided by --truth once per puzzle, whatever the solvers claim and
however many runs and solvers there are, and certified once (see below); every JSON line
about the puzzle names the certificate ("certificate"), and the summary counts them.  A truth
that cannot be certified makes the puzzle's correct and wrong verdicts unknown, naming the
claim (exit 3).  Certificates are made on --jobs / --cluster too, and written by this process,
with no time limit (as the ground truth, whatever --timeout gives the runs); with --resume
only the puzzles with runs left are certified (the files already written stay).

"""
    + common.CERTIFY_HELP
    + """

exit codes:
  0  every answer correct
  2  usage error or bad input: unreadable corpus, answer file, solver name or solver
     command; a corpus line that is not a puzzle; a malformed step log line
  3  some runs timed out, crashed or gave up, none was wrong (--steps: a claim undecided)
  4  some answer is wrong (--steps: some step unsound or inconsistent)
  The most severe code wins, in the order 4 > 2 > 3 > 0."""
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``verify``."""
    parser = common.add_command(
        commands,
        "verify",
        "check a solver's answers (backend, program or file) against SAT ground truth",
        VERIFY_HELP,
        exit_codes=False,
    )
    parser.add_argument(  # optional only for --steps, whose log may name its own puzzles
        "puzzle", metavar="CORPUS", nargs="?", help="a puzzle file, '-' for stdin, or the puzzle itself"
    )
    solvers = parser.add_argument_group("solvers (at least one; each option repeatable)")
    solvers.add_argument("--backend", action="append", default=[], metavar="NAME", help="a backend by name")
    solvers.add_argument(
        "--solver-cmd", action="append", default=[], metavar="CMD", help="an external program (see above)"
    )
    solvers.add_argument(
        "--answers", action="append", default=[], metavar="FILE", help="a file of answers, one per puzzle"
    )
    solvers.add_argument(
        "--steps",
        metavar="FILE",
        help="instead of solvers: check a deduction engine's step log (see 'Step logs' above)",
    )
    runs = parser.add_argument_group("runs")
    runs.add_argument(
        "--runs", type=common.integer(1), default=1, metavar="N", help="runs per puzzle (default: 1)"
    )
    runs.add_argument("--seed", type=common.integer(0), default=0, metavar="S", help="base seed (default: 0)")
    runs.add_argument(
        "--timeout",
        "--time-limit",
        dest="timeout",
        type=common.seconds,
        metavar="SECONDS",
        help="time limit per run (default: none)",
    )
    runs.add_argument(
        "--unique", action="store_true", help="ask backends to decide uniqueness too (search limit 2)"
    )
    runs.add_argument(
        "--workers",
        type=common.integer(1, common.MAX_WORKERS),
        default=1,
        metavar="N",
        help=f"CP-SAT workers, 1-{common.MAX_WORKERS}",
    )
    runs.add_argument(
        "--in-process", action="store_true", help="run backends in this process, not in a worker each"
    )
    runs.add_argument(
        "--truth",
        metavar="NAME",
        help=(
            "the complete backend (or 'extended') that decides claims (default: pysat, cpsat when "
            "a pysat backend is audited, extended when cpsat is too)"
        ),
    )
    common.add_input_options(parser)
    common.add_executor_options(parser, "the backends' runs")
    parser.add_argument("--json", action="store_true", help="JSON Lines: one object per run, then a summary")
    add_results_file_options(parser)
    common.add_certify_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on a terminal's stderr")
    parser.set_defaults(run=run)


def _solvers(args: argparse.Namespace, items: Sequence[PuzzleItem]) -> list[Solver]:
    """The solvers the options name, in order: backends, programs, answer files."""
    if not (args.backend or args.solver_cmd or args.answers):
        raise CliError("name a solver: --backend NAME, --solver-cmd CMD or --answers FILE")
    solvers: list[Solver] = []
    for spec in args.backend:
        try:
            solvers.append(BackendSolver(spec, isolate=not args.in_process, workers=args.workers))
        except BackendError as error:
            raise CliError(str(error)) from None
    for command in args.solver_cmd:
        try:
            solvers.append(ProgramSolver(command))
        except AuditError as error:
            raise CliError(str(error)) from None
    for path in args.answers:
        text, name = common.read_argument(path, literal=False)
        try:
            lines = read_answer_lines(text, len(items))
        except AuditError as error:
            raise CliError(f"{name}: {error}") from None
        solvers.append(AnswerFileSolver(f"answers:{name}", lines))
    names = [solver.name for solver in solvers]
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        raise CliError(f"solver {repeated!r} is named twice")
    return solvers


def _truth_name(args: argparse.Namespace) -> str:
    """The ground truth's name: ``--truth`` (checked, with a warning when an audited backend takes
    its path), else a path no audited backend takes."""
    if args.truth is None:
        return choose_truth(args.backend)
    if args.truth != EXTENDED:
        try:
            make_backend(args.truth)
        except BackendError as error:
            raise CliError(f"--truth: {error}") from None
    same = next((spec for spec in args.backend if truth_path(spec) == truth_path(args.truth)), None)
    if same is not None:
        common.notice(
            f"warning: the ground truth {args.truth!r} takes the path of the audited backend {same!r}: "
            "that backend is checked by its own kind of search"
        )
    return str(args.truth)


def _run_line(result: RunResult, runs: int) -> str:
    """The line for a run that is not correct (the run number only where runs repeat)."""
    where = f"#{result.index + 1} line {result.line}"
    if result.verdict is Verdict.INVALID:
        return f"{result.solver}: {where}: invalid puzzle: {common.short_error(result.detail, result.line)}"
    where += f" run {result.run + 1}" if runs > 1 else ""
    return (
        f"{result.solver}: {where}: {result.verdict.value} (claimed {result.claimed.value}): {result.detail}"
    )


def _table(tallies: Sequence[SolverTally], runs: int, repeatable: set[str]) -> list[str]:
    """The summary table, one row per solver, and the wrong runs by puzzle."""
    show_invalid = any(t.verdicts[Verdict.INVALID] for t in tallies)
    header = ["solver", *_COLUMNS, "wrong", *(["invalid"] if show_invalid else [])]
    rows = [header]
    for t in tallies:
        median, mean, most = t.time_stats()
        v = t.verdicts
        row = [t.solver, str(t.runs), str(v[Verdict.CORRECT]), f"{100 * t.success_rate:.1f}%"]
        row += [f"{median:.4f}", f"{mean:.4f}", f"{most:.4f}"]
        row += [
            str(v[Verdict.TIMEOUT]),
            str(v[Verdict.CRASH]),
            str(v[Verdict.UNKNOWN]),
            str(v[Verdict.WRONG]),
        ]
        if show_invalid:
            row.append(str(v[Verdict.INVALID]))
        rows.append(row)
    widths = [max(len(row[k]) for row in rows) for k in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if k == 0 else cell.rjust(w)
            for k, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    for t in tallies:
        if t.wrong:
            named = [
                f"#{r.index + 1} (line {r.line}"
                + (f", run {r.run + 1})" if runs > 1 and t.solver in repeatable else ")")
                for r in t.wrong
            ]
            more = f" and {len(named) - _LISTED_WRONG} more" if len(named) > _LISTED_WRONG else ""
            lines.append(f"wrong answers of {t.solver}: {', '.join(named[:_LISTED_WRONG])}{more}")
    return lines


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _exit_code(tallies: Iterable[SolverTally]) -> int:
    return common.worst_exit(
        _VERDICT_EXIT[verdict] for t in tallies for verdict, count in t.verdicts.items() if count
    )


def run(args: argparse.Namespace) -> int:
    """Run ``sudoku-cp verify``; return the exit code."""
    BatchOutput.check(args.output_file, args.resume, args.json)
    if args.steps is not None:
        return run_steps(args)
    if args.puzzle is None:
        raise CliError("name the CORPUS to verify on (or a step log with --steps FILE)")
    if args.puzzle == "-" and "-" in args.answers:
        raise CliError("the corpus and --answers cannot both be standard input")
    items, _ = common.load_puzzles(args)
    solvers = _solvers(args, items)  # first: an answer file is recorded by what it holds, not its path
    answers = [
        "\n".join(f"{n} {text}" for n, text in s.lines) for s in solvers if isinstance(s, AnswerFileSolver)
    ]
    identity = run_identity(args, digest_items(items), leave_out={"puzzle"}, contents={"answers": answers})
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    truth = GroundTruth(_truth_name(args))
    tallies = {solver.name: SolverTally(solver.name) for solver in solvers}
    repeatable = {solver.name for solver in solvers if solver.repeatable}
    for obj in output.answered():  # what a resumed file holds counts in the summary
        old = RunResult.from_json(obj)
        if old.solver not in tallies:
            raise CliError(f"{args.output_file}: holds runs of {old.solver!r}, not a solver of this run")
        tallies[old.solver].add(old)
    check_audit_size(items, solvers, args.runs)  # before anything is planned
    executor = common.executor(args)
    folder = common.certify_directory(args)
    results = audit(
        items,
        solvers,
        runs=args.runs,
        seed=args.seed,
        time_limit=args.timeout,
        unique=args.unique,
        truth=truth,
        executor=executor,
        skip=output.done,
        notice=common.notice,
    )
    certifier = None
    if folder is not None:
        needed = pending_puzzles(items, solvers, args.runs, output.done)
        certifier = TruthCertifier(
            items, truth, folder, checker=args.checker, executor=executor, needed=needed, prover=args.prover
        )
        results = certifier.apply(results)
    total = audit_size(items, solvers, args.runs) - len(output.done)
    enabled = False if args.no_progress else None
    with output.writing(results, total, "verifying", enabled=enabled) as (write, bar):
        calls, truth_seconds = 0, 0.0
        for result in results:
            tallies[result.solver].add(result)
            if result.truth_seconds is not None:
                calls += 1
                truth_seconds += result.truth_seconds
            if args.json or result.verdict is not Verdict.CORRECT:
                runs = args.runs if result.solver in repeatable else 1
                write(json_dumps(result.to_json()) if args.json else _run_line(result, runs))
            if bar is not None:
                bar.update()
        if certifier is not None:  # the SAT calls that decided claims to certify, not runs
            calls += certifier.calls
            truth_seconds += certifier.seconds
        figures = (truth.backend, calls, truth_seconds)
        return _report(args, tallies, repeatable, len(items), figures, certifier, write)


def _report(
    args: argparse.Namespace,
    tallies: dict[str, SolverTally],
    repeatable: set[str],
    puzzles: int,
    truth: tuple[str, int, float],
    certifier: TruthCertifier | None,
    write: Callable[[str], None],
) -> int:
    """The summary (JSON) or the table and last line; return the exit code."""
    backend, calls, seconds = truth
    code = _exit_code(tallies.values())
    if args.json:
        summary: dict[str, object] = {
            "solvers": [t.to_json() for t in tallies.values()],
            "puzzles": puzzles,
            "runs_per_puzzle": args.runs,
            "seed": args.seed,
            "timeout": args.timeout,
            "truth": backend,
            "ground_truth": {"backend": backend, "sat_calls": calls, "seconds": round(seconds, 6)},
            "exit_code": code,
        }
        if certifier is not None:
            summary["certificates"] = {
                "folder": args.certify,
                "written": certifier.written,
                "not_certified": certifier.failed,
                "seconds": round(certifier.certificate_seconds, 6),
            }
        write(json_dumps({"summary": summary}))
        return code
    for line in _table(list(tallies.values()), args.runs, repeatable):
        write(line)
    wrong = sum(t.verdicts[Verdict.WRONG] for t in tallies.values())
    runs = sum(t.runs for t in tallies.values())
    verdict = _plural(wrong, "wrong answer") if wrong else "no wrong answer"
    write(
        f"verify: {_plural(puzzles, 'puzzle')}, {_plural(runs, 'run')}, {verdict}; "
        f"ground truth: {_plural(calls, 'SAT call')} (truth: {backend}, {seconds:.3f} s)"
    )
    if certifier is not None:
        failed = f", {certifier.failed} not certified" if certifier.failed else ""
        write(
            f"certificates: {_plural(certifier.written, 'ground truth')} certified in {args.certify}"
            f"{failed} ({certifier.certificate_seconds:.3f} s)"
        )
    return code


def run_steps(args: argparse.Namespace) -> int:
    """``verify --steps FILE``: a deduction engine's step log checked claim by claim against the
    puzzles' solutions (``audit.steps``); return the exit code."""
    if args.backend or args.solver_cmd or args.answers:
        raise CliError("--steps checks a step log: it takes no --backend, --solver-cmd or --answers")
    for key, (option, default) in _NOT_FOR_STEPS.items():
        if getattr(args, key, default) != default:
            raise CliError(f"--steps checks a step log, with no solver runs: {option} does not apply")
    if args.steps == "-" and args.puzzle == "-":
        raise CliError("the corpus and --steps cannot both be standard input")
    text, name = common.read_argument(args.steps, literal=False)
    items = common.load_puzzles(args)[0] if args.puzzle is not None else None
    try:
        logs, headers = read_step_logs(text, corpus=items, box=args.box)
    except StepLogError as error:
        raise CliError(f"{name}: {error}") from None
    digest = digest_items(items) if items is not None else None
    for line, header in headers:  # a log written with -o names the input it was made from
        if digest is not None and header.get("input") not in (None, digest):
            raise CliError(
                f"{name}: line {line}: the log was made from another input than {args.puzzle} "
                "(or read with another --box or --format)"
            )
    identity = run_identity(args, digest_texts([text, digest or ""]), leave_out={"puzzle", "steps"})
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    counts = {verdict: 0 for verdict in StepVerdict}
    calls, seconds = 0, 0.0
    for obj in output.answered():
        if "verdict" in obj:
            counts[StepVerdict(obj["verdict"])] += 1
    results = check_step_logs((log for log in logs if log.index not in output.done), time_limit=args.timeout)
    enabled = False if args.no_progress else None
    with output.writing(results, len(logs) - len(output.done), "checking steps", enabled=enabled) as (
        write,
        bar,
    ):
        for result in results:
            counts[result.verdict] += 1
            calls += result.sat_calls
            seconds += result.seconds
            if args.json or result.verdict is not StepVerdict.SOUND:
                write(json_dumps(result.to_json()) if args.json else _steps_line(result, name))
            if bar is not None:
                bar.update()
        code = common.worst_exit(_STEPS_EXIT[verdict] for verdict, count in counts.items() if count)
        tally = ", ".join(f"{count} {verdict.value}" for verdict, count in counts.items() if count)
        if args.json:
            summary: dict[str, object] = {"puzzles": sum(counts.values())}
            summary.update({verdict.value: count for verdict, count in counts.items()})
            summary.update(sat_calls=calls, seconds=round(seconds, 6), exit_code=code)
            write(json_dumps({"summary": summary}))
        else:
            write(
                f"verify --steps: {_plural(sum(counts.values()), 'puzzle')}: {tally or 'none'}; "
                f"{_plural(calls, 'SAT call')}, {seconds:.3f} s"
            )
    return code


def _steps_line(result: StepsResult, name: str | None) -> str:
    """The line for a log that is not sound, naming the log file."""
    return common.where(name, result.text())
