"""``sudoku-cp reduce``: 3-SAT formulas to Nishio instances, decoding, verification."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..errors import SudokuCpError
from ..formats import ParseError, json_dumps, read_text
from ..reduction.gadgets import FILLS
from . import common
from .common import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNKNOWN, CliError
from .results_file import BatchOutput, add_results_file_options, digest_texts, run_identity

if TYPE_CHECKING:
    from ..reduction.batch import FormulaSource
    from ..reduction.construction import Reduction
    from ..reduction.formula import Formula

__all__ = ["add_parser", "run"]

REDUCE_HELP = (
    """\
Turn a CNF formula into a Nishio instance (Eppstein 2012, Section 6): a set S of cells of an
n x n grid with k x k boxes (n = k*k) that holds a valid placement (one cell per row, column
and box) exactly when the formula is satisfiable (Theorem 6.1).  With --nonempty S always
holds a placement, and the witness cells named in the metadata lie in some placement (in the
closure S') exactly when the formula is satisfiable (Theorem 6.2).

Formulas: DIMACS CNF files (SATLIB files with their '%' tail are fine; clauses longer than 3
are split into 3-literal clauses with fresh variables), or a random 3-SAT formula with
--random-vars N --clauses M --seed S (--planted: satisfiable by a hidden assignment), or a
formula of a family with --family NAME --size N --seed S (see 'formula families' below).
A FORMULA file is read strictly: an empty clause, a literal past the header's variables, or a
header whose reduction would not fit in memory (estimated before any clause is read, e.g. 10^7
clauses) is refused (one line naming the file and line, exit 2); a repeated literal is kept once
and a clause with v and -v dropped, each with a warning.  There is no side cap: the instance is
held as its cells, and memory (estimated first, refused with the estimate) is the only limit.

Modes:
  build (default)  write the instance (-o; --form auto: mask rows with 'x' for cells of S up to
                   side 256, above it the sparse form, a 'nishio-sparse n=N box=KxK cells=C'
                   header and one 'R C' line per cell; --form mask|sparse|cells|json),
                   its metadata (--meta, JSON: everything --decode needs), --svg a picture of the
                   gadgets, --write-formula the 3-SAT formula that was encoded (DIMACS)
  --decode META PLACEMENT
                   a placement inside S (mask rows, cell list or JSON, as 'nishio' reads them, or
                   a SAT solver's answer, 's'/'v' lines or a minisat result file, for the CNF of
                   'encode --nishio --to cnf' of the instance) back to a
                   satisfying assignment, checked against the encoded formula and printed as
                   DIMACS 's' and 'v' lines: the values of the input formula's variables (with
                   --nonempty and the witness variable z true, the whole encoded assignment and
                   's UNKNOWN': such a placement says nothing about the input formula)
  --verify         build, then decide both sides: the formula with pysat, the instance with the
                   Nishio SAT and CP-SAT methods (and the DAG when n <= 25); decode the placement
                   found, map the formula's model to a placement; with --nonempty also decide
                   whether witness cells lie in S' (both methods) and decode a placement through
                   one.  Exit 0 only if all agree.  Several FORMULA files give one result each
                   (JSON Lines with --json, each with index, the file's place from 0); a bad
                   file is reported and the others go on.  Each formula is a chunk of work,
                   here, on --jobs N local processes or on a Dask cluster (--cluster);
                   --output-file FILE writes the results to FILE, and with --json --resume
                   continues an interrupted FILE (the formulas it holds are skipped)

examples:
  sudoku-cp reduce formula.cnf -o inst.nishio --meta inst.json
  sudoku-cp reduce formula.cnf --nonempty -o inst.nishio --meta inst.json
  sudoku-cp reduce --random-vars 20 --clauses 91 --seed 7 --planted -o inst.nishio --meta inst.json
  sudoku-cp encode --nishio --to cnf inst.nishio -o inst.cnf && minisat inst.cnf model.txt
  sudoku-cp reduce --decode inst.json model.txt          # the solver's placement, decoded and checked
  sudoku-cp reduce --verify formula.cnf --json
  sudoku-cp reduce --verify satlib/uf20-91/*.cnf --time-limit 60 --json
  sudoku-cp reduce --verify satlib/*/*.cnf --json --jobs 2 --output-file runs.jsonl --resume
  sudoku-cp reduce formula.cnf --svg layout.svg --fill minimal
  sudoku-cp reduce --family tseitin --size 40 --seed 1 -o inst.nishio --meta inst.json
  sudoku-cp reduce --family planted --size 30 --seed 2 -o inst.nishio --witness inst.placement
  sudoku-cp reduce --family random --size 50 --time-limit 60 -o inst.nishio --json

formula families (--family NAME --size N [--seed S]; encodings/families.md):
  random      random k-CNF (--width k, default 3) with round(--ratio * N) clauses over N
              variables (default ratio: the threshold, 4.26 for k = 3); decided by CaDiCaL
              within --time-limit (stopped: expected 'unknown')
  planted     the same, every clause satisfied by a hidden assignment: sat, its placement known
  tseitin     Tseitin formula of a random --degree-regular graph (default 3) on N vertices, odd
              total charge: unsat by parity
  pigeonhole  N+1 pigeons into N holes: unsat by counting
  parity      N elements into pairs: unsat when N is odd, sat when even
  xor         random k-XOR (--width, default 3), round(--ratio * N) parities over N variables
              (default ratio 1.0): decided by Gaussian elimination over GF(2)
  Each formula is split to 3-CNF and reduced; -o, --meta, --svg, --form as for a FORMULA.  The
  metadata and --json record the family, its parameters, 'expected' (sat, unsat or unknown) and
  'reason'; --write-formula keeps the family's 3-CNF (with them as 'c' lines), --witness FILE the
  placement of a known model (a cell per row; checked), --certify DIR a certificate of 'unsat'.

exit codes:
  0  done; with --verify every side answered and everything agreed
  2  usage error or bad input (one line on stderr naming the file, line and column)
  3  --verify: two answers disagree, or a time limit left an answer unknown;
     --decode: the placement decodes to an assignment that falsifies the formula;
     --verify --certify: a claim could not be certified

--verify --certify DIR: certificates of both sides' answers (see 'certificates' below):
  an unsatisfiable formula gets a 'formula' certificate (a DRAT refutation of its own CNF); an
  instance without a placement gets an empty-closure 'closure' certificate (a refutation per
  cell of S: refused, exit 2, above 600 cells, as a 5-variable formula's 1,099 cells take about
  100 s); a satisfiable formula's model and an instance's placement are checked and need none.
  The JSON report adds formula_certificate, instance_certificate, certified (what needs no
  certificate) and certificate_errors.

"""
    + common.CERTIFY_HELP
)

_INSTANCE_FORMS = ("auto", "mask", "sparse", "cells", "json")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``reduce``."""
    parser = common.add_command(
        commands,
        "reduce",
        "3-SAT to a Nishio instance (hard by construction); decode and verify",
        REDUCE_HELP,
        exit_codes=False,
    )
    parser.add_argument("formulas", metavar="FORMULA", nargs="*", help="DIMACS CNF files ('-': stdin)")
    random = parser.add_argument_group("random 3-SAT (instead of FORMULA)")
    random.add_argument("--random-vars", type=common.integer(3), metavar="N", help="number of variables")
    random.add_argument("--clauses", type=common.integer(0), metavar="M", help="number of clauses")
    random.add_argument(
        "--seed", type=common.integer(0), default=0, metavar="S", help="random seed (default: 0)"
    )
    random.add_argument(
        "--planted", action="store_true", help="keep only clauses a hidden assignment satisfies"
    )
    _add_family_options(parser)
    parser.add_argument("--nonempty", action="store_true", help="Theorem 6.2: S always has a placement")
    parser.add_argument(
        "--fill",
        choices=FILLS,
        default="full",
        help="cells outside the gadgets: every free cell, or one fixed completion (default: full)",
    )
    parser.add_argument("-o", "--out", metavar="FILE", help="write the instance to FILE (default: stdout)")
    parser.add_argument(
        "--form",
        choices=_INSTANCE_FORMS,
        default="auto",
        help="instance text form (default: auto, mask rows up to side 256, the sparse form above)",
    )
    parser.add_argument("--meta", metavar="FILE", help="write the metadata (JSON) that --decode reads")
    parser.add_argument("--svg", metavar="FILE", help="draw the gadgets on the grid")
    parser.add_argument("--write-formula", metavar="FILE", help="write the encoded 3-SAT formula (DIMACS)")
    parser.add_argument(
        "--decode", nargs=2, metavar=("META", "PLACEMENT"), help="a placement back to a checked assignment"
    )
    parser.add_argument("--verify", action="store_true", help="build, solve both sides, decode, compare")
    parser.add_argument(
        "--closure", action="store_true", help="--verify, n <= 25: also compare the DAG and SAT closures S'"
    )
    parser.add_argument(
        "--time-limit", type=common.seconds, metavar="SECONDS", help="time limit for each solve"
    )
    parser.add_argument("--json", action="store_true", help="JSON output (JSON Lines for several formulas)")
    add_results_file_options(parser, short=False)
    common.add_executor_options(parser, "--verify over many formulas")
    common.add_certify_options(parser)
    parser.set_defaults(run=run)


# ------------------------------------------------------------------------------------------ input


def _read_formula(path: str) -> FormulaSource:
    from ..reduction.batch import FormulaSource
    from ..reduction.formula import FormulaInputError, read_formula

    name = "<stdin>" if path == "-" else path
    try:
        text = read_text(path)
    except ParseError as error:  # reading errors (no line) name the file already
        return FormulaSource(name, None, str(error) if name in str(error) else f"{name}: {error}")
    except OSError as error:
        return FormulaSource(name, None, f"{name}: {error.strerror or error}")
    try:
        read = read_formula(text, name)  # strict: one line naming the file and line, exit 2
    except FormulaInputError as error:
        return FormulaSource(name, None, str(error))
    for warning in read.warnings:
        common.notice(f"warning: {warning}")
    return FormulaSource(name, read.formula)


def _digest(sources: list[FormulaSource]) -> str:
    """The digest of the formulas a batch verifies (their names and clauses, or why one is unreadable)."""
    return digest_texts(
        f"{source.name}\n{source.error}\n"
        + ("" if source.formula is None else f"{source.formula.num_vars} {source.formula.clauses}")
        for source in sources
    )


def _sources(args: argparse.Namespace) -> list[FormulaSource]:
    from ..reduction.batch import FormulaSource
    from ..reduction.random3sat import random_3sat

    random_given = args.random_vars is not None or args.clauses is not None
    if random_given:
        if args.formulas:
            raise CliError("give FORMULA files or --random-vars/--clauses, not both")
        if args.random_vars is None or args.clauses is None:
            raise CliError("--random-vars and --clauses go together")
        kind = "planted " if args.planted else ""
        name = f"random {kind}3-SAT ({args.random_vars} variables, {args.clauses} clauses, seed {args.seed})"
        _check_random_size(args.random_vars, args.clauses)
        formula = random_3sat(args.random_vars, args.clauses, args.seed, planted=args.planted)
        return [FormulaSource(name, formula)]
    if args.planted:
        raise CliError("--planted needs --random-vars and --clauses")
    if not args.formulas:
        raise CliError("give a FORMULA file, --random-vars N --clauses M, or --decode META PLACEMENT")
    return [_read_formula(path) for path in args.formulas]


def _check_random_size(variables: int, clauses: int) -> None:
    """Refuse a random formula whose reduction cannot fit before it is generated (one line, exit 2)."""
    from ..reduction.formula import MAX_FORMULA_VARIABLES
    from ..reduction.memory import ReductionTooLarge, check_reduction_memory

    if variables > MAX_FORMULA_VARIABLES:
        raise CliError(f"--random-vars {variables}: at most {MAX_FORMULA_VARIABLES} variables")
    try:
        check_reduction_memory(variables, clauses, 3 * clauses)
    except ReductionTooLarge as error:
        raise CliError(f"--random-vars {variables} --clauses {clauses}: {error}") from None


def _reduce(formula: Formula, args: argparse.Namespace) -> Reduction:
    from ..reduction.construction import reduce_formula

    return reduce_formula(formula, nonempty=args.nonempty, fill=args.fill)


# ------------------------------------------------------------------------------------------ build


def _summary(reduction: Reduction, source: Formula) -> str:
    encoded = reduction.formula
    split = "" if encoded.num_vars == source.num_vars else f" (3-SAT: {encoded.num_vars} variables)"
    kind = "Theorem 6.2 (--nonempty)" if reduction.nonempty else "Theorem 6.1"
    n = reduction.instance.n
    return (
        f"{source.num_vars} variables, {source.num_clauses} clauses{split} -> {kind}: k={reduction.k}, "
        f"{n}x{n} grid, |S| = {reduction.instance.size} cells"
    )


def _build(args: argparse.Namespace) -> int:
    from ..nishio.text import instance_text

    sources = _sources(args)
    if len(sources) != 1:
        raise CliError(
            f"building writes one instance, but {len(sources)} formulas were given (or use --verify)"
        )
    source = sources[0]
    if source.formula is None:
        raise CliError(source.error or "unreadable formula")
    if args.json and args.out is None:
        raise CliError("--json prints a summary of the build: give -o FILE for the instance")
    reduction = _reduce(source.formula, args)
    common.write_text(args.out, instance_text(reduction.instance, args.form))
    if args.meta:
        common.write_text(args.meta, json_dumps(reduction.metadata()) + "\n")
    if args.write_formula:
        comments = [f"3-SAT formula encoded by sudoku-cp reduce from {source.name}"]
        common.write_text(args.write_formula, reduction.formula.to_dimacs(comments))
    if args.svg:
        from ..reduction.svg import reduction_svg

        common.write_text(args.svg, reduction_svg(reduction))
    written = [path for path in (args.out, args.meta, args.svg, args.write_formula) if path]
    if args.json:
        common.out(
            json_dumps({"formula": source.name, **_sizes(reduction, source.formula), "written": written})
        )
    elif args.out is not None:  # with the instance on stdout the summary would spoil it
        common.out(f"{source.name}: {_summary(reduction, source.formula)}; wrote {', '.join(written)}")
    return EXIT_OK


def _sizes(reduction: Reduction, source: Formula) -> dict[str, object]:
    return {
        "variables": source.num_vars,
        "clauses": source.num_clauses,
        "nonempty": reduction.nonempty,
        "k": reduction.k,
        "n": reduction.instance.n,
        "cells": reduction.instance.size,
    }


# ----------------------------------------------------------------------------------------- decode


def _load_reduction(path: str) -> Reduction:
    from ..reduction.construction import Reduction

    try:
        return Reduction.from_metadata_text(read_text(path))
    except SudokuCpError as problem:
        raise CliError(f"{path}: not reduction metadata: {problem}") from None


def _decode(args: argparse.Namespace) -> int:
    from ..cnf.dimacs import value_lines
    from ..nishio.placement import placement_problem
    from ..nishio.text import read_placement
    from ..reduction.decode import ReductionDecodeError, assignment_from_placement

    if args.formulas or args.random_vars is not None or args.clauses is not None or args.verify:
        raise CliError("--decode takes only META and PLACEMENT")
    meta_path, placement_path = args.decode
    reduction = _load_reduction(meta_path)
    text, name = common.read_argument(placement_path, literal=False)
    name = name or placement_path
    try:
        cols = read_placement(text, reduction.instance)
    except ParseError as unreadable:
        raise CliError(f"{name}: {unreadable}") from None
    problem = placement_problem(reduction.instance, cols)
    if problem is not None:
        raise CliError(f"{name}: not a valid placement inside S: {problem}")
    try:
        assignment = tuple(bool(v) for v in assignment_from_placement(reduction, cols))
    except ReductionDecodeError as error:
        raise CliError(f"{name}: decoding failed: {error} (a bug in the reduction)", EXIT_UNKNOWN) from None
    encoded = reduction.formula
    falsified = encoded.unsatisfied_clauses(assignment)
    z = reduction.witness_variable
    witness_true = z is not None and assignment[z - 1]
    # The input formula's variables come first; with z true (Theorem 6.2) they need not satisfy it.
    shown = assignment if witness_true else assignment[: reduction.source_vars]
    obj: dict[str, object] = {
        "satisfies": not falsified,
        "variables": len(shown),
        "assignment": [v if value else -v for v, value in enumerate(shown, start=1)],
    }
    if z is not None:
        obj["witness_variable_true"] = witness_true
    if falsified:
        obj["falsified_clauses"] = falsified
        if args.json:
            common.out(json_dumps(obj))
        common.error(
            f"{name}: the decoded assignment falsifies clause {falsified[0]} of the encoded formula "
            "(a bug in the reduction)"
        )
        return EXIT_UNKNOWN
    if args.json:
        common.out(json_dumps(obj))
        return EXIT_OK
    if witness_true:
        common.out(
            f"c {name}: a valid placement with the witness variable z = x{z} true: it satisfies the "
            "encoded formula (printed whole) but tells nothing about the input formula"
        )
        common.out("s UNKNOWN")
    else:
        common.out(
            f"c {name}: a valid placement; its assignment satisfies all {encoded.num_clauses} clauses "
            f"of the encoded 3-SAT formula, so its first {len(shown)} values satisfy the input formula"
        )
        common.out("s SATISFIABLE")
    common.out(value_lines(shown))
    return EXIT_OK


# ----------------------------------------------------------------------------------------- verify


def _human(report: dict[str, Any]) -> str:
    """A few readable lines for one verification report."""
    name = report["formula"]
    if report["status"] == "invalid":
        return f"{report['error']}"
    if "k" not in report:
        return f"{name}: DISAGREEMENT: {'; '.join(map(str, report.get('problems', [])))}"
    seconds: dict[str, float] = report["seconds"]
    words = {True: "satisfiable", False: "unsatisfiable", None: "unknown"}
    answers: dict[str, bool | None] = report["instance_methods"]
    methods = ", ".join(
        f"{m} {'unknown after ' if a is None else ''}{seconds.get('instance_' + m, 0):.3f} s"
        for m, a in answers.items()
    )
    instance = {True: "has a placement", False: "has no placement", None: "unknown"}
    theorem = "Theorem 6.2" if report["nonempty"] else "Theorem 6.1"
    lines = [
        f"{name}: {report['variables']} variables, {report['clauses']} clauses -> {theorem}: "
        f"k={report['k']}, {report['n']}x{report['n']} grid, |S| = {report['cells']} cells, "
        f"built in {seconds['build']:.2f} s",
        f"  formula: {words[report['formula_satisfiable']]} (pysat, {seconds['formula']:.3f} s)",
        f"  instance: {instance[report['instance_satisfiable']]} ({methods})",
    ]
    if "decoded_assignment_satisfies" in report:
        ok = "satisfies" if report["decoded_assignment_satisfies"] else "FALSIFIES"
        lines.append(f"  the placement found decodes to an assignment that {ok} the encoded formula")
    if "model_placement_valid" in report:
        ok = "a valid placement" if report["model_placement_valid"] else "an INVALID placement"
        lines.append(f"  the encoded formula's model maps to {ok} inside S")
    if "witness_in_closure" in report:
        cells = [f"R{r}C{c}" for r, c in report["witness_cells"]]
        shown = " ".join(cells[:6]) + (f" ... ({len(cells)} cells)" if len(cells) > 6 else "")
        found = {a for column in report["witness_in_closure"].values() for a in column}
        verdict = {frozenset({True}): "in S'", frozenset({False}): "not in S'"}.get(
            frozenset(found), "mixed or unknown"
        )
        checked = " and ".join(f"R{r}C{c}" for r, c in report["witness_checked"])
        lines.append(f"  witness cells {shown}; {checked}: {verdict} (sat, cpsat)")
        if "witness_assignment_satisfies" in report:
            ok = "satisfies" if report["witness_assignment_satisfies"] else "FALSIFIES"
            lines.append(f"  a placement through a witness cell decodes to a model that {ok} the formula")
    status = {"agree": "agree", "unknown": "UNKNOWN (time limit)", "disagree": "DISAGREEMENT"}
    lines.append(f"  {status[report['status']]}")
    lines.extend(f"    {problem}" for problem in report.get("problems", []))
    lines.extend(f"    unknown: {what}" for what in report.get("unknown", []))
    for key, what in (("formula_certificate", "formula"), ("instance_certificate", "instance")):
        if key in report:
            lines.append(f"  certificate ({what}): {report[key]}")
    lines.extend(f"  certified: {note}" for note in report.get("certified", []))
    lines.extend(f"  NOT CERTIFIED: {error}" for error in report.get("certificate_errors", []))
    return "\n".join(lines)


def _verify(args: argparse.Namespace) -> int:
    from ..reduction.batch import VerifyOptions, verify_formulas

    if args.out or args.meta or args.svg or args.write_formula:
        raise CliError("--verify writes no files; build the instance without --verify")
    certify = common.certify_directory(args)
    BatchOutput.check(args.output_file, args.resume, args.json)
    sources = _sources(args)
    identity = run_identity(args, _digest(sources), leave_out={"formulas"})
    output = BatchOutput(args.output_file, args.resume, args.json, identity)
    codes = [_code(obj) for obj in output.answered()]
    options = VerifyOptions(args.nonempty, args.fill, args.time_limit, args.closure)
    reports = verify_formulas(
        sources, options, executor=common.executor(args), skip=output.done, notice=common.notice
    )
    with output.writing(reports, len(sources) - len(output.done), "verifying", enabled=False) as (write, _):
        for report in reports:
            if certify is not None:
                report = _certified(report, sources, certify, args)
            code = _code(report)
            if args.json:
                write(json_dumps(report))
            elif report["status"] == "invalid":
                common.error(str(report["error"]))
            else:
                write(_human(report))
            sys.stdout.flush()  # each formula takes a while: show its report at once
            codes.append(code)
    return common.worst_exit(codes)


def _certified(
    report: dict[str, Any], sources: list[FormulaSource], directory: str, args: argparse.Namespace
) -> dict[str, Any]:
    """The report with the certificates of its answers (--certify)."""
    from ..reduction.check import certify_reduction

    source = sources[report["index"]]
    if source.formula is None or "k" not in report:  # invalid, disagreement, crash: nothing claimed
        return report
    found = certify_reduction(
        source.formula,
        report,
        directory,
        source=source.name,
        nonempty=args.nonempty,
        fill=args.fill,
        checker=args.checker,
        time_limit=args.time_limit,
        prover=args.prover,
    )
    return {**report, **found}


def _code(report: dict[str, Any]) -> int:
    """The exit code of one formula's report."""
    if report["status"] == "invalid" or report.get("certificate_refused"):
        return EXIT_BAD_INPUT
    if report.get("certificate_errors"):
        return EXIT_UNKNOWN
    return EXIT_OK if report.get("agree") else EXIT_UNKNOWN


# ----------------------------------------------------------------------------------------- family


def _add_family_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("formula families (instead of FORMULA; --seed as above)")
    group.add_argument(
        "--family", metavar="NAME", help="random, planted, tseitin, pigeonhole, parity or xor (see below)"
    )
    group.add_argument(
        "--size", type=common.integer(1), metavar="N", help="variables, vertices, holes or elements"
    )
    group.add_argument("--ratio", type=float, metavar="R", help="random, planted, xor: clauses per variable")
    group.add_argument(
        "--width", type=common.integer(2), metavar="K", help="random, planted, xor: clause width"
    )
    group.add_argument("--degree", type=common.integer(3), metavar="D", help="tseitin: the graph's degree")
    group.add_argument("--witness", metavar="FILE", help="write the witness placement, when one is known")


def _build_family(args: argparse.Namespace) -> int:
    """--family: make the formula and its instance, write them, print the known answer."""
    from ..nishio.text import instance_text
    from ..reduction.families import family_instance

    if args.formulas or args.random_vars is not None or args.clauses is not None or args.planted:
        raise CliError(
            "--family makes its own formula: give no FORMULA, --random-vars, --clauses or --planted"
        )
    if args.verify or args.decode is not None:
        raise CliError("--family builds an instance; --verify and --decode take FORMULA files or metadata")
    if args.size is None:
        raise CliError(f"--family {args.family} needs --size N")
    if args.json and args.out is None:
        raise CliError("--json prints a summary of the build: give -o FILE for the instance")
    made = family_instance(
        args.family,
        args.size,
        args.seed,
        params={"ratio": args.ratio, "width": args.width, "degree": args.degree},
        nonempty=args.nonempty,
        fill=args.fill,
        time_limit=args.time_limit,
        certify=common.certify_directory(args),
        checker=args.checker,
        prover=args.prover,
    )
    witness = made.placement_text()
    if args.witness and witness is None:  # before any file is written
        raise CliError(f"--witness: no model is known ({made.source.expected}: {made.source.reason})")
    common.write_text(args.out, instance_text(made.reduction.instance, args.form))
    if args.meta:
        common.write_text(args.meta, json_dumps(made.metadata()) + "\n")
    if args.write_formula:
        common.write_text(args.write_formula, made.source.formula.to_dimacs(made.source.dimacs_comments()))
    if args.witness and witness is not None:
        common.write_text(args.witness, witness)
    if args.svg:
        from ..reduction.svg import reduction_svg

        common.write_text(args.svg, reduction_svg(made.reduction))
    written = [path for path in (args.out, args.meta, args.svg, args.write_formula, args.witness) if path]
    summary = made.summary()
    if args.json:
        common.out(json_dumps({"formula": made.source.name, **summary, "written": written}))
    elif args.out is not None:
        common.out(
            f"{made.source.name}: {summary['variables']} variables, {summary['clauses']} clauses -> "
            f"k={summary['k']}, {summary['n']}x{summary['n']} grid, |S| = {summary['cells']} cells; "
            f"expected {summary['expected']} ({summary['reason']}); wrote {', '.join(written)}"
        )
    if "certificate_error" in summary:
        common.error(f"not certified: {summary['certificate_error']}")
        return EXIT_UNKNOWN
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run the reduce subcommand; returns the exit code."""
    if args.family is not None:
        return _build_family(args)
    family_only = ("size", "ratio", "width", "degree", "witness")
    given = [f"--{name}" for name in family_only if getattr(args, name) is not None]
    if given:
        raise CliError(f"{given[0]} goes with --family NAME")
    if args.decode is not None:
        return _decode(args)
    if args.verify:
        return _verify(args)
    return _build(args)
