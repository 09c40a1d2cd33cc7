"""The ``sudoku-cp reduce`` subcommand: 3-SAT formulas to Nishio instances, decoding, verification.

Part of the command line (``cli.py`` registers it); like ``cli.py`` it prints, library code does not.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import cli
from .cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNKNOWN
from .formats import ParseError, json_dumps, read_text
from .nishio.instance import NishioInstance, SolveTimeout, parse_instance, placement_problem
from .reduction.formula import Formula, parse_dimacs, solve_formula
from .reduction.gadgets import FILLS
from .reduction.random3sat import random_3sat

if TYPE_CHECKING:
    from .reduction.construction import Reduction

__all__ = ["REDUCE_HELP", "add_reduce_command", "verify_reduction"]

REDUCE_HELP = """\
Turn a CNF formula into a Nishio instance (Eppstein 2012, Section 6): a set S of cells of an
n x n grid with k x k boxes (n = k*k) that holds a valid placement (one cell per row, column
and box) exactly when the formula is satisfiable (Theorem 6.1).  With --nonempty S always
holds a placement, and the witness cells named in the metadata lie in some placement (in the
closure S') exactly when the formula is satisfiable (Theorem 6.2).

Formulas: DIMACS CNF files (SATLIB files with their '%' tail are fine; clauses longer than 3
are split into 3-literal clauses with fresh variables), or a random 3-SAT formula with
--random-vars N --clauses M --seed S (--planted: satisfiable by a hidden assignment).

Modes:
  build (default)  write the instance (-o, mask rows with 'x' for cells of S; --form cells|json),
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
                   (JSON Lines with --json); a bad file is reported and the others go on.

examples:
  sudoku-cp reduce formula.cnf -o inst.nishio --meta inst.json
  sudoku-cp reduce formula.cnf --nonempty -o inst.nishio --meta inst.json
  sudoku-cp reduce --random-vars 20 --clauses 91 --seed 7 --planted -o inst.nishio --meta inst.json
  sudoku-cp encode --nishio --to cnf inst.nishio -o inst.cnf && minisat inst.cnf model.txt
  sudoku-cp reduce --decode inst.json model.txt          # the solver's placement, decoded and checked
  sudoku-cp reduce --verify formula.cnf --json
  sudoku-cp reduce --verify satlib/uf20-91/*.cnf --time-limit 60 --json
  sudoku-cp reduce formula.cnf --svg layout.svg --fill minimal

exit codes:
  0  done; with --verify every side answered and everything agreed
  2  usage error or bad input (one line on stderr naming the file, line and column)
  3  --verify: two answers disagree, or a time limit left an answer unknown;
     --decode: the placement decodes to an assignment that falsifies the formula"""

_INSTANCE_FORMS = ("mask", "cells", "json")


def add_reduce_command(commands: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    """Register ``reduce`` on the subcommand parser of ``sudoku-cp``."""
    parser = commands.add_parser(
        "reduce",
        help="3-SAT to a Nishio instance (hard by construction); decode and verify",
        description=REDUCE_HELP,
        formatter_class=formatter,
    )
    parser.add_argument("formulas", metavar="FORMULA", nargs="*", help="DIMACS CNF files ('-': stdin)")
    random = parser.add_argument_group("random 3-SAT (instead of FORMULA)")
    random.add_argument("--random-vars", type=cli._count(3), metavar="N", help="number of variables")
    random.add_argument("--clauses", type=cli._count(0), metavar="M", help="number of clauses")
    random.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default: 0)")
    random.add_argument(
        "--planted", action="store_true", help="keep only clauses a hidden assignment satisfies"
    )
    parser.add_argument("--nonempty", action="store_true", help="Theorem 6.2: S always has a placement")
    parser.add_argument(
        "--fill",
        choices=FILLS,
        default="full",
        help="cells outside the gadgets: every free cell, or one fixed completion (default: full)",
    )
    parser.add_argument("-o", "--out", metavar="FILE", help="write the instance to FILE (default: stdout)")
    parser.add_argument(
        "--form", choices=_INSTANCE_FORMS, default="mask", help="instance text form (default: mask)"
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
        "--time-limit", type=cli._positive_float, metavar="SECONDS", help="time limit for each solve"
    )
    parser.add_argument("--json", action="store_true", help="JSON output (JSON Lines for several formulas)")
    parser.set_defaults(run=run_reduce)


# ------------------------------------------------------------------------------------------ input


@dataclass(frozen=True, slots=True)
class _Source:
    """One formula to work on, or the one-line reason it could not be read."""

    name: str
    formula: Formula | None
    error: str | None = None


def _read_formula(path: str) -> _Source:
    name = "<stdin>" if path == "-" else path
    try:
        return _Source(name, parse_dimacs(read_text(path)))
    except ParseError as error:  # reading errors (no line) name the file already
        return _Source(
            name, None, str(error) if error.line is None and name in str(error) else f"{name}: {error}"
        )
    except OSError as error:
        return _Source(name, None, f"{name}: {error.strerror or error}")


def _sources(args: argparse.Namespace) -> list[_Source]:
    random_given = args.random_vars is not None or args.clauses is not None
    if random_given:
        if args.formulas:
            raise cli.CliError("give FORMULA files or --random-vars/--clauses, not both")
        if args.random_vars is None or args.clauses is None:
            raise cli.CliError("--random-vars and --clauses go together")
        kind = "planted " if args.planted else ""
        name = f"random {kind}3-SAT ({args.random_vars} variables, {args.clauses} clauses, seed {args.seed})"
        formula = random_3sat(args.random_vars, args.clauses, args.seed, planted=args.planted)
        return [_Source(name, formula)]
    if args.planted:
        raise cli.CliError("--planted needs --random-vars and --clauses")
    if not args.formulas:
        raise cli.CliError("give a FORMULA file, --random-vars N --clauses M, or --decode META PLACEMENT")
    return [_read_formula(path) for path in args.formulas]


def _reduce(formula: Formula, args: argparse.Namespace) -> Reduction:
    from .reduction.construction import reduce_formula

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
    from .nishio.instance import instance_text

    sources = _sources(args)
    if len(sources) != 1:
        raise cli.CliError(
            f"building writes one instance, but {len(sources)} formulas were given (or use --verify)"
        )
    source = sources[0]
    if source.formula is None:
        raise cli.CliError(source.error or "unreadable formula")
    if args.json and args.out is None:
        raise cli.CliError("--json prints a summary of the build: give -o FILE for the instance")
    reduction = _reduce(source.formula, args)
    cli._write_text(args.out, instance_text(reduction.instance, args.form))
    if args.meta:
        cli._write_text(args.meta, json_dumps(reduction.metadata()) + "\n")
    if args.write_formula:
        comments = [f"3-SAT formula encoded by sudoku-cp reduce from {source.name}"]
        cli._write_text(args.write_formula, reduction.formula.to_dimacs(comments))
    if args.svg:
        from .reduction.svg import reduction_svg

        cli._write_text(args.svg, reduction_svg(reduction))
    written = [path for path in (args.out, args.meta, args.svg, args.write_formula) if path]
    if args.json:
        cli._out(
            json_dumps({"formula": source.name, **_sizes(reduction, source.formula), "written": written})
        )
    elif args.out is not None:  # with the instance on stdout the summary would spoil it
        cli._out(f"{source.name}: {_summary(reduction, source.formula)}; wrote {', '.join(written)}")
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
    from .reduction.construction import Reduction

    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise cli.CliError(
            f"{path}: line {error.lineno}, column {error.colno}: not JSON: {error.msg}"
        ) from None
    if not isinstance(data, dict):
        raise cli.CliError(f"{path}: the metadata must be a JSON object")
    try:
        return Reduction.from_metadata(data)
    except (KeyError, TypeError, ValueError) as error:
        what = f"missing key {error}" if isinstance(error, KeyError) else str(error)
        raise cli.CliError(f"{path}: not reduction metadata: {what}") from None


_RESULT_FILE_WORDS = frozenset(
    {"SAT", "SATISFIABLE", "UNSAT", "UNSATISFIABLE", "INDET", "INDETERMINATE", "UNKNOWN"}
)


def _solver_output_kind(text: str) -> str | None:
    """'competition' (s/v lines), 'result' (a minisat result file) or None (a placement file)."""
    words = text.split(None, 1)
    if words and words[0].upper() in _RESULT_FILE_WORDS:
        return "result"
    if any(line.startswith(("s ", "v ")) for line in text.splitlines()):
        return "competition"
    return None


def _placement_from_text(text: str, name: str, instance: NishioInstance) -> np.ndarray:
    """Column per row of the placement a file gives, read as an instance or a solver's model."""
    n = instance.n
    if not text.strip():
        raise cli.CliError(f"{name}: the placement file is empty")
    kind = _solver_output_kind(text)
    if kind is not None:
        from .backends.program import SolverProgramError, parse_solver_output
        from .cnf.nishio import encode_nishio_cnf

        # Cell variables are 1..|S| in reading order whatever the exactly-one encoding.
        cnf = encode_nishio_cnf(instance, "seqcounter")
        try:
            satisfiable, model = (
                parse_solver_output(text) if kind == "competition" else parse_solver_output("", text)
            )
        except SolverProgramError as error:
            raise cli.CliError(f"{name}: {error}") from None
        if satisfiable is not True or model is None:
            raise cli.CliError(f"{name}: the solver found no model (status {satisfiable}), nothing to decode")
        cols = cnf.decode(model)
        if (cols == -2).any():
            raise cli.CliError(f"{name}: row {int(np.argmax(cols == -2)) + 1} has two true cell variables")
        if (cols == -1).any():
            raise cli.CliError(f"{name}: row {int(np.argmax(cols == -1)) + 1} has no true cell variable")
        return np.asarray(cols, dtype=np.int64)
    g = instance.geometry
    try:
        placed = parse_instance(text, box=(g.p, g.q))
    except ParseError as error:
        raise cli.CliError(f"{name}: {error}") from None
    if placed.n != n:
        raise cli.CliError(f"{name}: the placement is {placed.n}x{placed.n} but the instance is {n}x{n}")
    per_row = placed.mask.sum(axis=1)
    bad = np.flatnonzero(per_row != 1)
    if bad.size:
        row = int(bad[0])
        raise cli.CliError(
            f"{name}: row {row + 1} holds {int(per_row[row])} cells; a placement has one cell in each row"
        )
    return np.asarray(placed.mask.argmax(axis=1), dtype=np.int64)


def _v_lines(assignment: tuple[bool, ...] | list[bool]) -> str:
    literals = [str(v if value else -v) for v, value in enumerate(assignment, start=1)] + ["0"]
    lines, line = [], "v"
    for literal in literals:
        if len(line) + len(literal) + 1 > 78:
            lines.append(line)
            line = "v"
        line += " " + literal
    return "\n".join([*lines, line])


def _decode(args: argparse.Namespace) -> int:
    from .reduction.decode import ReductionDecodeError, assignment_from_placement

    if args.formulas or args.random_vars is not None or args.clauses is not None or args.verify:
        raise cli.CliError("--decode takes only META and PLACEMENT")
    meta_path, placement_path = args.decode
    reduction = _load_reduction(meta_path)
    text, name = cli._read_argument(placement_path, literal=False)
    name = name or placement_path
    cols = _placement_from_text(text, name, reduction.instance)
    problem = placement_problem(reduction.instance, cols)
    if problem is not None:
        raise cli.CliError(f"{name}: not a valid placement inside S: {problem}")
    try:
        assignment = tuple(bool(v) for v in assignment_from_placement(reduction, cols))
    except ReductionDecodeError as error:
        raise cli.CliError(
            f"{name}: decoding failed: {error} (a bug in the reduction)", EXIT_UNKNOWN
        ) from None
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
            cli._out(json_dumps(obj))
        cli._error(
            f"{name}: the decoded assignment falsifies clause {falsified[0]} of the encoded formula "
            "(a bug in the reduction)"
        )
        return EXIT_UNKNOWN
    if args.json:
        cli._out(json_dumps(obj))
        return EXIT_OK
    if witness_true:
        cli._out(
            f"c {name}: a valid placement with the witness variable z = x{z} true: it satisfies the "
            "encoded formula (printed whole) but tells nothing about the input formula"
        )
        cli._out("s UNKNOWN")
    else:
        cli._out(
            f"c {name}: a valid placement; its assignment satisfies all {encoded.num_clauses} clauses "
            f"of the encoded 3-SAT formula, so its first {len(shown)} values satisfy the input formula"
        )
        cli._out("s SATISFIABLE")
    cli._out(_v_lines(shown))
    return EXIT_OK


# ----------------------------------------------------------------------------------------- verify


def _timed(
    find: Callable[[NishioInstance, float | None], np.ndarray | None],
    instance: NishioInstance,
    time_limit: float | None,
) -> tuple[np.ndarray | None, float, bool]:
    """(placement or None, seconds, timed out) of a Nishio method's find_placement."""
    start = time.perf_counter()
    try:
        cols = find(instance, time_limit)
    except SolveTimeout:
        return None, time.perf_counter() - start, True
    return cols, time.perf_counter() - start, False


def _decide_instance(
    instance: NishioInstance, methods: list[str], time_limit: float | None, seconds: dict[str, float]
) -> tuple[dict[str, bool | None], np.ndarray | None]:
    """Each method's decision (None: unknown), and a placement one of them found (checked)."""
    from .nishio.api import NishioDisagreement, make_method

    answers: dict[str, bool | None] = {}
    found = None
    for name in methods:
        method = make_method(name)
        prepare = getattr(method, "prepare", None)
        if prepare is not None:  # tables and compiled kernels are set-up, not decision time
            prepare(instance.geometry)
        cols, spent, timed_out = _timed(method.find_placement, instance, time_limit)
        seconds[f"instance_{name}"] = spent
        if timed_out:
            answers[name] = None
            continue
        if cols is not None:
            problem = placement_problem(instance, cols)
            if problem is not None:
                raise NishioDisagreement(f"{name} returned a placement that is not valid: {problem}")
            found = found if found is not None else np.asarray(cols)
        answers[name] = cols is not None
    return answers, found


def _through_witnesses(
    reduction: Reduction, cells: list[tuple[int, int]], time_limit: float | None, seconds: dict[str, float]
) -> tuple[dict[str, list[bool | None]], np.ndarray | None]:
    """Per method (sat, cpsat), for each of the cells: does some placement inside S use it?

    Also returns a checked placement through one of the cells when one was found.
    """
    from .nishio.api import NishioDisagreement, make_method

    instance = reduction.instance
    answers: dict[str, list[bool | None]] = {}
    found = None
    for name in ("sat", "cpsat"):
        method = make_method(name)
        column: list[bool | None] = []
        start = time.perf_counter()
        for r, c in cells:
            # a placement through (r, c) is a placement of S with row r cut down to that one cell
            mask = instance.mask.copy()
            mask[r] = False
            mask[r, c] = True
            through = NishioInstance(instance.geometry, mask)
            cols, _, timed_out = _timed(method.find_placement, through, time_limit)
            if cols is not None:
                problem = placement_problem(instance, cols)
                if problem is not None or cols[r] != c:
                    raise NishioDisagreement(
                        f"{name} returned a bad placement through R{r + 1}C{c + 1}: {problem}"
                    )
                found = found if found is not None else np.asarray(cols)
            column.append(None if timed_out else cols is not None)
        seconds[f"witness_{name}"] = time.perf_counter() - start
        answers[name] = column
    return answers, found


def _dag_closure_agrees(instance: NishioInstance, time_limit: float | None) -> bool | None:
    """DAG closure == SAT closure (None when the SAT closure ran out of time)."""
    from .nishio.api import solve_nishio

    dag = solve_nishio(instance, "dag")
    sat = solve_nishio(instance, "sat", time_limit=time_limit)
    if sat.closure is None or dag.closure is None:
        return None
    return bool(np.array_equal(dag.closure, sat.closure))


@dataclass
class _Findings:
    """What verification found wrong, and what it could not decide in time."""

    problems: list[str]
    unknown: list[str]

    def compare(self, what: str, answers: dict[str, bool | None]) -> bool | None:
        """The common answer of several deciders (None if unknown); a problem when two differ."""
        known = {a for a in answers.values() if a is not None}
        if len(known) > 1:
            self.problems.append(f"{what}: the answers differ: {answers}")
            return None
        if None in answers.values():
            self.unknown.append(f"{what} ({', '.join(k for k, a in answers.items() if a is None)})")
        return known.pop() if known else None


def verify_reduction(
    formula: Formula,
    *,
    nonempty: bool = False,
    fill: str = "full",
    time_limit: float | None = None,
    closure: bool = False,
) -> dict[str, Any]:
    """Build the reduction of a formula, decide both sides, decode both ways; a JSON-ready report.

    ``agree`` is True when every answer is known and consistent: the formula's satisfiability
    (pysat) equals the instance's (Nishio SAT, CP-SAT and, up to 25x25, DAG methods); a
    placement found decodes to an assignment that satisfies the encoded 3-SAT formula and,
    truncated, the input formula; the encoded formula's model maps to a valid placement inside S.
    With ``nonempty`` (Theorem 6.2) the instance must always have a placement, every witness
    cell must lie in some placement exactly when the formula is satisfiable, and a placement
    through a witness cell must decode to a model of the input formula.  ``closure`` (n <= 25)
    also compares the whole DAG closure with the SAT closure.
    """
    from .nishio.dag import MAX_DAG_SIDE
    from .reduction.construction import reduce_formula
    from .reduction.decode import ReductionDecodeError, assignment_from_placement, placement_from_assignment

    seconds: dict[str, float] = {}
    start = time.perf_counter()
    reduction = reduce_formula(formula, nonempty=nonempty, fill=fill)
    seconds["build"] = time.perf_counter() - start
    instance = reduction.instance
    encoded = reduction.formula
    report: dict[str, Any] = {**_sizes(reduction, formula), "encoded_variables": encoded.num_vars}
    findings = _Findings([], [])

    start = time.perf_counter()
    formula_sat, _ = solve_formula(formula, time_limit)
    encoded_sat, encoded_model = solve_formula(encoded, time_limit)
    seconds["formula"] = time.perf_counter() - start
    report["formula_satisfiable"] = formula_sat
    if nonempty and encoded_sat is False:
        findings.problems.append("with --nonempty the encoded formula must be satisfiable (z true)")
    elif not nonempty:
        findings.compare("formula and its 3-SAT form", {"formula": formula_sat, "3-SAT form": encoded_sat})

    methods = ["sat", "cpsat"] + (["dag"] if instance.n <= MAX_DAG_SIDE else [])
    answers, cols = _decide_instance(instance, methods, time_limit, seconds)
    report["instance_methods"] = answers
    instance_sat = findings.compare("instance", answers)
    report["instance_satisfiable"] = instance_sat
    if nonempty and instance_sat is False:
        findings.problems.append("with --nonempty the instance must have a placement, but it has none")
    if not nonempty and None not in (instance_sat, formula_sat) and instance_sat != formula_sat:
        findings.problems.append(
            f"formula satisfiable: {formula_sat}, but instance satisfiable: {instance_sat}"
        )

    if encoded_model is not None:
        start = time.perf_counter()
        try:
            problem = placement_problem(instance, placement_from_assignment(reduction, encoded_model))
        except (ReductionDecodeError, ValueError) as error:
            problem = str(error)
        seconds["model_to_placement"] = time.perf_counter() - start
        report["model_placement_valid"] = problem is None
        if problem is not None:
            findings.problems.append(f"the encoded formula's model maps to an invalid placement: {problem}")

    def decoded_satisfies(placement: np.ndarray, what: str, original: bool) -> bool:
        try:
            values = tuple(bool(v) for v in assignment_from_placement(reduction, placement))
        except (ReductionDecodeError, ValueError) as error:
            findings.problems.append(f"{what} does not decode: {error}")
            return False
        ok = encoded.satisfied_by(values)
        if original:  # the input formula's variables come first (Reduction.source_vars)
            z = reduction.witness_variable
            ok = ok and formula.satisfied_by(values[: formula.num_vars]) and (z is None or not values[z - 1])
        if not ok:
            findings.problems.append(f"{what} decodes to an assignment that falsifies the formula")
        return ok

    if cols is not None:
        start = time.perf_counter()
        report["decoded_assignment_satisfies"] = decoded_satisfies(cols, "a placement inside S", not nonempty)
        seconds["decode"] = time.perf_counter() - start
    if nonempty:
        # The witness cells are z's false cells: a placement uses all of them or none, so the
        # first and the last are decided (by both methods) and a placement through one must hold all.
        witness_cells = list(reduction.witness_cells)
        checked = list(dict.fromkeys([witness_cells[0], witness_cells[-1]]))
        witness, through = _through_witnesses(reduction, checked, time_limit, seconds)
        report["witness_cells"] = [[r + 1, c + 1] for r, c in witness_cells]
        report["witness_checked"] = [[r + 1, c + 1] for r, c in checked]
        report["witness_in_closure"] = witness
        per_cell = {
            f"{name} R{r + 1}C{c + 1}": answer
            for name, column in witness.items()
            for (r, c), answer in zip(checked, column, strict=True)
        }
        inside = findings.compare("witness cells in S'", per_cell)
        if inside is not None and formula_sat is not None and inside != formula_sat:
            findings.problems.append(f"witness cells in S': {inside}, but formula satisfiable: {formula_sat}")
        if through is not None:
            missed = [f"R{r + 1}C{c + 1}" for r, c in witness_cells if through[r] != c]
            if missed:
                findings.problems.append(
                    f"a placement through a witness cell misses witness cells {missed[:5]}"
                )
            report["witness_assignment_satisfies"] = decoded_satisfies(
                through, "a placement through a witness", True
            )
    if closure and instance.n <= MAX_DAG_SIDE:
        start = time.perf_counter()
        same = _dag_closure_agrees(instance, time_limit)
        seconds["closure"] = time.perf_counter() - start
        report["dag_closure_equals_sat_closure"] = same
        if same is None:
            findings.unknown.append("SAT closure")
        elif not same:
            findings.problems.append("the DAG closure differs from the SAT closure")

    report["agree"] = not findings.problems and not findings.unknown
    report["status"] = "disagree" if findings.problems else ("unknown" if findings.unknown else "agree")
    if findings.problems:
        report["problems"] = findings.problems
    if findings.unknown:
        report["unknown"] = findings.unknown
    report["seconds"] = {key: round(value, 6) for key, value in seconds.items()}
    return report


def _verify_items(
    sources: list[_Source], args: argparse.Namespace
) -> Iterator[tuple[dict[str, object], int]]:
    from .nishio.api import NishioDisagreement

    for source in sources:
        head: dict[str, Any] = {"formula": source.name}
        if source.formula is None:
            yield {**head, "status": "invalid", "agree": False, "error": source.error}, EXIT_BAD_INPUT
            continue
        try:
            report = verify_reduction(
                source.formula,
                nonempty=args.nonempty,
                fill=args.fill,
                time_limit=args.time_limit,
                closure=args.closure,
            )
        except NishioDisagreement as error:
            yield {**head, "status": "disagree", "agree": False, "problems": [str(error)]}, EXIT_UNKNOWN
            continue
        yield {**head, **report}, EXIT_OK if report["agree"] else EXIT_UNKNOWN


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
    return "\n".join(lines)


def _verify(args: argparse.Namespace) -> int:
    if args.out or args.meta or args.svg or args.write_formula:
        raise cli.CliError("--verify writes no files; build the instance without --verify")
    sources = _sources(args)
    codes = []
    for report, code in _verify_items(sources, args):
        if args.json:
            cli._out(json_dumps(report))
        elif code == EXIT_BAD_INPUT:
            cli._error(str(report["error"]))
        else:
            cli._out(_human(report))
        sys.stdout.flush()
        codes.append(code)
    return cli.worst_exit(codes)


def run_reduce(args: argparse.Namespace) -> int:
    """Run the reduce subcommand; returns the exit code."""
    if args.decode is not None:
        return _decode(args)
    if args.verify:
        return _verify(args)
    return _build(args)
