"""Checking the reduction end to end on one formula: both sides decided, decoded both ways, compared.

``verify_reduction`` builds the reduction of a formula, decides the formula (pysat) and the
instance (the Nishio SAT and CP-SAT methods, and the DAG up to 25x25), decodes the placement
found into an assignment and the formula's model into a placement, and with Theorem 6.2
(``nonempty``) asks whether the witness cells lie in some placement.  The answer is a
``ReductionCheck``: a typed record that also reads as its JSON object (a ``Mapping``), so
``check["agree"]`` and ``check.agree`` say the same.  A method stopped by its time limit makes
its answer unknown (``status`` "unknown"), never "no placement"; a method that returns a
placement that is not valid raises ``NishioDisagreement``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..limits import Deadline
from ..nishio.api import NishioDisagreement, make_method, solve_nishio
from ..nishio.instance import NishioInstance
from ..nishio.placement import placement_problem
from ..outcome import Status
from . import decode  # called through the module: tests replace a decoder to see a failure reported
from .construction import Reduction, reduce_formula
from .formula import Formula, solve_formula

__all__ = ["MAX_CERTIFIED_CELLS", "ReductionCheck", "WitnessCheck", "certify_reduction", "verify_reduction"]

#: The Nishio methods that decide the instance, and (n <= MAX_DAG_SIDE) the DAG as well.
_DECIDERS = ("sat", "cpsat")

_Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class WitnessCheck:
    """Theorem 6.2: do the witness cells (0-based) lie in some placement inside S?

    ``in_closure`` holds, per method, the answer for each cell of ``checked`` (None: unknown);
    ``assignment_satisfies`` says whether a placement through a witness cell decoded to a model
    of the formula given (None when no such placement was found).
    """

    cells: tuple[_Cell, ...]
    checked: tuple[_Cell, ...]
    in_closure: Mapping[str, tuple[bool | None, ...]]
    assignment_satisfies: bool | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ReductionCheck(Mapping[str, Any]):
    """What ``verify_reduction`` found; as a Mapping it is its JSON object (``to_json()``).

    Sizes: the formula given (``variables``, ``clauses``), the encoded 3-SAT formula
    (``encoded_variables``) and the instance (``k``, ``n``, ``cells`` = |S|).  Answers are
    True, False or None (unknown).  ``model_placement_valid`` is None when the encoded formula
    has no model to map, ``decoded_assignment_satisfies`` None when no placement was found.
    ``problems`` are disagreements, ``unknown`` what a time limit left undecided.
    """

    variables: int
    clauses: int
    nonempty: bool
    k: int
    n: int
    cells: int
    encoded_variables: int
    formula_satisfiable: bool | None
    instance_methods: Mapping[str, bool | None]
    instance_satisfiable: bool | None
    model_placement_valid: bool | None = None
    decoded_assignment_satisfies: bool | None = None
    witness: WitnessCheck | None = None
    closure_compared: bool = False
    dag_closure_equals_sat_closure: bool | None = None
    problems: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def agree(self) -> bool:
        """True when every answer is known and they are all consistent."""
        return not self.problems and not self.unknown

    @property
    def status(self) -> Literal["agree", "disagree", "unknown"]:
        """'disagree' when two answers differ, else 'unknown' when one is missing, else 'agree'."""
        return "disagree" if self.problems else ("unknown" if self.unknown else "agree")

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready report (1-based cells); optional keys appear only when they were checked."""
        obj: dict[str, Any] = {
            "variables": self.variables,
            "clauses": self.clauses,
            "nonempty": self.nonempty,
            "k": self.k,
            "n": self.n,
            "cells": self.cells,
            "encoded_variables": self.encoded_variables,
            "formula_satisfiable": self.formula_satisfiable,
            "instance_methods": dict(self.instance_methods),
            "instance_satisfiable": self.instance_satisfiable,
        }
        if self.model_placement_valid is not None:
            obj["model_placement_valid"] = self.model_placement_valid
        if self.decoded_assignment_satisfies is not None:
            obj["decoded_assignment_satisfies"] = self.decoded_assignment_satisfies
        if self.witness is not None:
            obj["witness_cells"] = [[r + 1, c + 1] for r, c in self.witness.cells]
            obj["witness_checked"] = [[r + 1, c + 1] for r, c in self.witness.checked]
            obj["witness_in_closure"] = {name: list(col) for name, col in self.witness.in_closure.items()}
            if self.witness.assignment_satisfies is not None:
                obj["witness_assignment_satisfies"] = self.witness.assignment_satisfies
        if self.closure_compared:
            obj["dag_closure_equals_sat_closure"] = self.dag_closure_equals_sat_closure
        obj["agree"] = self.agree
        obj["status"] = self.status
        if self.problems:
            obj["problems"] = list(self.problems)
        if self.unknown:
            obj["unknown"] = list(self.unknown)
        obj["seconds"] = {key: round(value, 6) for key, value in self.seconds.items()}
        return obj

    # Read as the JSON object, so callers that index the report or spread it into another keep working.
    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())


# ------------------------------------------------------------------------------ findings


@dataclass(slots=True)
class _Findings:
    """What verification found wrong, what it could not decide in time, and how long each step took."""

    problems: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def compare(self, what: str, answers: Mapping[str, bool | None]) -> bool | None:
        """The common answer of several deciders (None if unknown); a problem when two differ."""
        known = {a for a in answers.values() if a is not None}
        if len(known) > 1:
            self.problems.append(f"{what}: the answers differ: {dict(answers)}")
            return None
        if None in answers.values():
            self.unknown.append(f"{what} ({', '.join(k for k, a in answers.items() if a is None)})")
        return known.pop() if known else None


# ------------------------------------------------------------------------------ the instance side


@dataclass(frozen=True, slots=True)
class _Search:
    """One method's decision: a placement (None: none, or unknown), whether it stopped, its time."""

    placement: np.ndarray | None
    stopped: bool
    seconds: float

    @property
    def answer(self) -> bool | None:
        """Has a placement (None when the time limit stopped the method)."""
        return None if self.stopped else self.placement is not None


def _search(method: str, instance: NishioInstance, time_limit: float | None) -> _Search:
    """A placement inside S by one Nishio method within its own time limit (set-up time excluded)."""
    solver = make_method(method)
    prepare = getattr(solver, "prepare", None)
    if prepare is not None:  # tables and compiled kernels are set-up, not decision time
        prepare(instance.geometry)
    clock = Deadline()
    decision = solver.decide(instance, time_limit)
    if decision.status is Status.UNKNOWN:
        return _Search(None, True, clock.elapsed())
    placement = None if decision.placement is None else np.asarray(decision.placement)
    return _Search(placement, False, clock.elapsed())


def _decide_instance(
    instance: NishioInstance, methods: list[str], time_limit: float | None, findings: _Findings
) -> tuple[dict[str, bool | None], np.ndarray | None]:
    """Each method's decision (None: unknown), and a placement one of them found (checked)."""
    answers: dict[str, bool | None] = {}
    found = None
    for name in methods:
        search = _search(name, instance, time_limit)
        findings.seconds[f"instance_{name}"] = search.seconds
        if search.placement is not None:
            problem = placement_problem(instance, search.placement)
            if problem is not None:
                raise NishioDisagreement(f"{name} returned a placement that is not valid: {problem}")
            found = found if found is not None else search.placement
        answers[name] = search.answer
    return answers, found


def _through_witnesses(
    instance: NishioInstance, cells: list[_Cell], time_limit: float | None, findings: _Findings
) -> tuple[dict[str, tuple[bool | None, ...]], np.ndarray | None]:
    """Per deciding method, for each of the cells: does some placement inside S use it?

    Also returns a checked placement through one of the cells when one was found.
    """
    answers: dict[str, tuple[bool | None, ...]] = {}
    found = None
    for name in _DECIDERS:
        column: list[bool | None] = []
        clock = Deadline()
        for r, c in cells:
            # a placement through (r, c) is a placement of S with row r cut down to that one cell
            search = _search(name, instance.restricted(r, c), time_limit)
            if search.placement is not None:
                problem = placement_problem(instance, search.placement)
                if problem is not None or search.placement[r] != c:
                    raise NishioDisagreement(
                        f"{name} returned a bad placement through R{r + 1}C{c + 1}: {problem}"
                    )
                found = found if found is not None else search.placement
            column.append(search.answer)
        findings.seconds[f"witness_{name}"] = clock.elapsed()
        answers[name] = tuple(column)
    return answers, found


def _dag_closure_agrees(instance: NishioInstance, time_limit: float | None) -> bool | None:
    """DAG closure == SAT closure (None when the SAT closure ran out of time)."""
    dag = solve_nishio(instance, "dag")
    sat = solve_nishio(instance, "sat", time_limit=time_limit)
    if sat.closure is None or dag.closure is None:
        return None
    return bool(np.array_equal(dag.closure, sat.closure))


# ------------------------------------------------------------------------------ decoding


def _model_placement_valid(reduction: Reduction, model: tuple[bool, ...], findings: _Findings) -> bool:
    """Does the encoded formula's model map to a valid placement inside S?"""
    clock = Deadline()
    try:
        problem = placement_problem(reduction.instance, decode.placement_from_assignment(reduction, model))
    except (decode.ReductionDecodeError, ValueError) as error:
        problem = str(error)
    findings.seconds["model_to_placement"] = clock.elapsed()
    if problem is not None:
        findings.problems.append(f"the encoded formula's model maps to an invalid placement: {problem}")
    return problem is None


def _decoded_satisfies(
    reduction: Reduction,
    formula: Formula,
    placement: np.ndarray,
    what: str,
    original: bool,
    findings: _Findings,
) -> bool:
    """Does the placement decode to a model of the encoded formula (with ``original``: of ``formula`` too)?"""
    try:
        values = tuple(bool(v) for v in decode.assignment_from_placement(reduction, placement))
    except (decode.ReductionDecodeError, ValueError) as error:
        findings.problems.append(f"{what} does not decode: {error}")
        return False
    ok = reduction.formula.satisfied_by(values)
    if original:  # the input formula's variables come first (Reduction.source_vars)
        z = reduction.witness_variable
        ok = ok and formula.satisfied_by(values[: formula.num_vars]) and (z is None or not values[z - 1])
    if not ok:
        findings.problems.append(f"{what} decodes to an assignment that falsifies the formula")
    return ok


def _check_witnesses(
    reduction: Reduction,
    formula: Formula,
    formula_sat: bool | None,
    time_limit: float | None,
    findings: _Findings,
) -> WitnessCheck:
    """Theorem 6.2: the witness cells lie in S' exactly when the formula is satisfiable."""
    # The witness cells are z's false cells: a placement uses all of them or none, so the
    # first and the last are decided (by both methods) and a placement through one must hold all.
    cells = list(reduction.witness_cells)
    checked = list(dict.fromkeys([cells[0], cells[-1]]))
    in_closure, through = _through_witnesses(reduction.instance, checked, time_limit, findings)
    per_cell = {
        f"{name} R{r + 1}C{c + 1}": answer
        for name, column in in_closure.items()
        for (r, c), answer in zip(checked, column, strict=True)
    }
    inside = findings.compare("witness cells in S'", per_cell)
    if inside is not None and formula_sat is not None and inside != formula_sat:
        findings.problems.append(f"witness cells in S': {inside}, but formula satisfiable: {formula_sat}")
    satisfies = None
    if through is not None:
        missed = [f"R{r + 1}C{c + 1}" for r, c in cells if through[r] != c]
        if missed:
            findings.problems.append(f"a placement through a witness cell misses witness cells {missed[:5]}")
        satisfies = _decoded_satisfies(
            reduction, formula, through, "a placement through a witness", True, findings
        )
    return WitnessCheck(tuple(cells), tuple(checked), in_closure, satisfies)


# ------------------------------------------------------------------------------ the whole check


def verify_reduction(
    formula: Formula,
    *,
    nonempty: bool = False,
    fill: str = "full",
    time_limit: float | None = None,
    closure: bool = False,
) -> ReductionCheck:
    """Build the reduction of a formula, decide both sides, decode both ways; ``time_limit`` is per solve.

    ``agree`` is True when every answer is known and consistent: the formula's satisfiability
    (pysat) equals the instance's (Nishio SAT, CP-SAT and, up to 25x25, DAG methods); a
    placement found decodes to an assignment that satisfies the encoded 3-SAT formula and,
    truncated, the input formula; the encoded formula's model maps to a valid placement inside S.
    With ``nonempty`` (Theorem 6.2) the instance must always have a placement, every witness
    cell must lie in some placement exactly when the formula is satisfiable, and a placement
    through a witness cell must decode to a model of the input formula.  ``closure`` (n <= 25)
    also compares the whole DAG closure with the SAT closure.
    """
    from ..nishio.dag import MAX_DAG_SIDE  # the DAG module loads numba: only when verifying

    Deadline(time_limit)  # refuses a negative or NaN limit before any work
    findings = _Findings()
    clock = Deadline()
    reduction = reduce_formula(formula, nonempty=nonempty, fill=fill)
    findings.seconds["build"] = clock.elapsed()
    instance = reduction.instance
    encoded = reduction.formula

    clock = Deadline()
    formula_sat, _ = solve_formula(formula, time_limit)
    encoded_sat, encoded_model = solve_formula(encoded, time_limit)
    findings.seconds["formula"] = clock.elapsed()
    if nonempty and encoded_sat is False:
        findings.problems.append("with --nonempty the encoded formula must be satisfiable (z true)")
    elif not nonempty:
        findings.compare("formula and its 3-SAT form", {"formula": formula_sat, "3-SAT form": encoded_sat})

    methods = [*_DECIDERS] + (["dag"] if instance.n <= MAX_DAG_SIDE else [])
    answers, cols = _decide_instance(instance, methods, time_limit, findings)
    instance_sat = findings.compare("instance", answers)
    if nonempty and instance_sat is False:
        findings.problems.append("with --nonempty the instance must have a placement, but it has none")
    if not nonempty and None not in (instance_sat, formula_sat) and instance_sat != formula_sat:
        findings.problems.append(
            f"formula satisfiable: {formula_sat}, but instance satisfiable: {instance_sat}"
        )

    model_valid = None
    if encoded_model is not None:
        model_valid = _model_placement_valid(reduction, encoded_model, findings)
    decoded = None
    if cols is not None:
        clock = Deadline()
        decoded = _decoded_satisfies(reduction, formula, cols, "a placement inside S", not nonempty, findings)
        findings.seconds["decode"] = clock.elapsed()
    witness = _check_witnesses(reduction, formula, formula_sat, time_limit, findings) if nonempty else None
    compared = closure and instance.n <= MAX_DAG_SIDE
    same = None
    if compared:
        clock = Deadline()
        same = _dag_closure_agrees(instance, time_limit)
        findings.seconds["closure"] = clock.elapsed()
        if same is None:
            findings.unknown.append("SAT closure")
        elif not same:
            findings.problems.append("the DAG closure differs from the SAT closure")

    return ReductionCheck(
        variables=formula.num_vars,
        clauses=formula.num_clauses,
        nonempty=reduction.nonempty,
        k=reduction.k,
        n=instance.n,
        cells=instance.size,
        encoded_variables=encoded.num_vars,
        formula_satisfiable=formula_sat,
        instance_methods=answers,
        instance_satisfiable=instance_sat,
        model_placement_valid=model_valid,
        decoded_assignment_satisfies=decoded,
        witness=witness,
        closure_compared=compared,
        dag_closure_equals_sat_closure=same,
        problems=tuple(findings.problems),
        unknown=tuple(findings.unknown),
        seconds=dict(findings.seconds),
    )


# ------------------------------------------------------------------------------ certificates


#: The most cells of S whose empty closure ``certify_reduction`` certifies: the certificate is one
#: refutation per cell, and cost grows fast (measured: 208 cells of a 64x64 instance 2.5 s; 1,099
#: cells of a 324x324 instance 97 s and 49 MB, from a 5-variable, 40-clause formula).
MAX_CERTIFIED_CELLS = 600


def certify_reduction(
    formula: Formula,
    report: Mapping[str, Any],
    directory: str,
    *,
    source: str | None = None,
    nonempty: bool = False,
    fill: str = "full",
    checker: str = "sudoku_cp",
    time_limit: float | None = None,
    prover: str | None = None,
) -> dict[str, Any]:
    """Certificates of what ``verify_reduction``'s ``report`` claims, written into ``directory``.

    The fields to add to the report: ``formula_certificate`` (the manifest of a 'formula' claim
    when the formula is unsatisfiable), ``instance_certificate`` (an empty-closure 'closure'
    claim when the instance has no placement: one refutation per cell of S, refused above
    ``MAX_CERTIFIED_CELLS`` cells), ``certified`` (what needs none, and why) and
    ``certificate_errors`` (claims that could not be certified, naming the claim) with
    ``certificate_refused`` True when the instance was too large to certify.
    """
    from ..certify.make import certify_closure, certify_formula
    from ..certify.manifest import Certificate, CertificateError, write_certificate
    from ..limits import TimeLimitReached

    out: dict[str, Any] = {}
    notes: list[str] = []
    errors: list[str] = []

    def attempt(claim: str, key: str, make: Callable[[Deadline], Certificate]) -> None:
        """Write the certificate ``make`` gives under ``key``, or note why there is none."""
        try:
            out[key] = str(write_certificate(directory, make(Deadline(time_limit))))
        except CertificateError as error:
            errors.append(str(error))
        except TimeLimitReached as error:
            errors.append(f"claim '{claim}' not certified: {error}")

    formula_sat = report.get("formula_satisfiable")
    if formula_sat is False:
        attempt(
            "formula",
            "formula_certificate",
            lambda deadline: certify_formula(
                formula.num_vars,
                formula.clauses,
                source=source,
                checker=checker,
                deadline=deadline,
                prover=prover,
            ),
        )
    elif formula_sat is True:
        notes.append("formula: satisfiable, its model checked against it (no certificate needed)")
    placed = report.get("instance_satisfiable")
    if placed is True:
        notes.append("instance: the placement found is checked and decoded (no certificate needed)")
    elif placed is False:
        cells, n = int(report.get("cells", 0)), int(report.get("n", 0))
        if cells > MAX_CERTIFIED_CELLS:
            out["certificate_refused"] = True
            errors.append(
                f"claim 'closure' refused: the instance has |S| = {cells} cells ({n}x{n} grid); "
                f"certifying that it has no placement takes a refutation per cell, at most "
                f"{MAX_CERTIFIED_CELLS} cells (1,099 cells take about 100 s)"
            )
        else:
            instance = reduce_formula(formula, nonempty=nonempty, fill=fill).instance
            empty = np.zeros_like(instance.mask, dtype=bool)
            attempt(
                "closure",
                "instance_certificate",
                lambda deadline: certify_closure(
                    instance.geometry, instance.mask, empty, checker=checker, deadline=deadline, prover=prover
                ),
            )
    if notes:
        out["certified"] = notes
    if errors:
        out["certificate_errors"] = errors
    return out
