"""Formula families for the reduction, made by ``cnfgen``, each with its known answer and the reason.

One ``size`` grows each family; the other parameters have defaults (``FAMILIES`` lists them):

* ``random``: random k-CNF (``width`` k, default 3) with round(``ratio`` * size) clauses over
  size variables (cnfgen ``RandomKCNF``; default ratio: the satisfiability threshold of k).
  No theorem decides it: the answer is "unknown" until ``decide`` asks a solver.
* ``planted``: the same, but every clause satisfies a hidden assignment (cnfgen's
  ``planted_assignments``): satisfiable, the hidden assignment is the witness.
* ``tseitin``: the Tseitin formula of a random ``degree``-regular graph on size vertices
  (networkx ``random_regular_graph``) with random vertex charges of odd total (cnfgen
  ``TseitinFormula``).  Unsatisfiable by parity: every edge variable lies in exactly two vertex
  constraints, so the sum of all constraints is 0 over GF(2), while the charges sum to 1.
* ``pigeonhole``: size + 1 pigeons into size holes (cnfgen ``PigeonholePrinciple``):
  unsatisfiable by counting.
* ``parity``: size elements split into pairs (cnfgen ``CountingPrinciple(size, 2)``):
  unsatisfiable when size is odd (each pair covers two), satisfiable when even (the pairs
  (1,2), (3,4), ... are the witness).
* ``xor``: random k-XOR (``width`` k, default 3) with round(``ratio`` * size) parity constraints
  over size variables (cnfgen ``RandomKXOR``).  The clauses are read back as linear equations
  over GF(2) and decided by Gaussian elimination: a solution is the witness, an inconsistent
  system proves unsatisfiability.

Every formula is then made 3-CNF by ``to_3sat`` (wider clauses split with fresh variables);
a witness of the generated formula is extended through the split (``split_assignment``) and
checked against the 3-CNF, so a "sat" answer always comes with a checked model.  Nothing here
turns "unknown" into an answer: a solver's time limit leaves it unknown.

Reproducible: cnfgen draws from Python's global ``random`` module after ``random.seed(seed)``;
that state is saved and restored around each call, so one (family, size, seed, parameters)
gives the same clauses byte for byte in every process.  The hidden assignment and the charges
come from ``random.Random`` seeded with the same seed, the graph from networkx with it.
cnfgen, networkx and pysat are imported inside the functions (the command line starts fast).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ReductionError
from .formula import Formula, solve_formula, to_3sat

if TYPE_CHECKING:
    from ..limits import Deadline
    from .construction import Reduction

__all__ = [
    "ANSWERS",
    "FAMILIES",
    "FamilyError",
    "FamilyFormula",
    "FamilyReduction",
    "FamilySpec",
    "KnownAnswer",
    "certify_answer",
    "decide",
    "family_instance",
    "make_family_formula",
    "reduce_family",
    "split_assignment",
    "validate_request",
    "witness_placement",
    "xor_system",
]

#: The answers a family formula may carry: "unknown" is never read as either of the others.
ANSWERS = ("sat", "unsat", "unknown")

#: Clauses per variable at the satisfiability threshold of random k-CNF (k = 3..7), the default ratio.
THRESHOLD_RATIO = {3: 4.26, 4: 9.93, 5: 21.12, 6: 43.37, 7: 87.79}

#: The pysat solver that decides the families without a theorem, and how a reason names it.
DECIDING_SOLVER = "cadical195"
DECIDING_SOLVER_NAME = "CaDiCaL 1.9.5 (python-sat)"

#: The most clauses a generated formula may have before splitting: far beyond any reduction that
#: fits in memory, small enough that generating it stays seconds.
MAX_GENERATED_CLAUSES = 2_000_000


class FamilyError(ReductionError):
    """A family request that cannot be made: unknown family, size or parameter out of range."""


@dataclass(frozen=True, slots=True)
class KnownAnswer:
    """What a family formula's answer is and why: ``expected`` is one of ``ANSWERS``.

    ``witness``: an assignment of the 3-CNF (``FamilyFormula.formula``) that satisfies it, checked,
    when the answer is "sat" and the reason gives one; ``certificate``: the path of a certificate
    of an "unsat" answer (``certify_answer``), when one was made, or ``certificate_error``: why
    none could be (the answer stays, its reason unchanged: a certificate only adds evidence).
    """

    expected: str
    reason: str
    witness: tuple[bool, ...] | None = field(default=None, repr=False)
    certificate: str | None = None
    certificate_error: str | None = None

    def __post_init__(self) -> None:
        if self.expected not in ANSWERS:
            raise ValueError(f"expected must be one of {', '.join(ANSWERS)}, not {self.expected!r}")
        if self.witness is not None and self.expected != "sat":
            raise ValueError("only a 'sat' answer carries a witness")


@dataclass(frozen=True, slots=True, eq=False)
class FamilyFormula:
    """One generated formula: where it came from, the formula as generated, its 3-CNF, its answer."""

    family: str
    size: int
    seed: int
    params: Mapping[str, Any]
    generated: Formula
    formula: Formula
    answer: KnownAnswer
    description: str

    @property
    def expected(self) -> str:
        """'sat', 'unsat' or 'unknown'."""
        return self.answer.expected

    @property
    def reason(self) -> str:
        """Why the answer is known (or why not)."""
        return self.answer.reason

    @property
    def name(self) -> str:
        """A short name: 'tseitin size 20 seed 1 (degree 3)'."""
        extra = ", ".join(f"{key} {value}" for key, value in self.params.items())
        return f"{self.family} size {self.size} seed {self.seed}" + (f" ({extra})" if extra else "")

    def record(self) -> dict[str, Any]:
        """JSON-ready: family, size, seed, parameters, sizes before and after splitting, the answer."""
        out: dict[str, Any] = {
            "family": self.family,
            "size": self.size,
            "seed": self.seed,
            "params": dict(self.params),
            "description": self.description,
            "generated_variables": self.generated.num_vars,
            "generated_clauses": self.generated.num_clauses,
            "variables": self.formula.num_vars,
            "clauses": self.formula.num_clauses,
            "expected": self.expected,
            "reason": self.reason,
        }
        if self.answer.certificate is not None:
            out["certificate"] = self.answer.certificate
        if self.answer.certificate_error is not None:
            out["certificate_error"] = self.answer.certificate_error
        return out

    def dimacs_comments(self) -> list[str]:
        """DIMACS comment lines naming the family, the parameters and the known answer."""
        lines = [f"sudoku-cp family {self.name}: {self.description}"]
        lines.append(f"expected {self.expected}: {self.reason}")
        if self.formula is not self.generated:
            lines.append(
                f"split to 3-CNF: variables 1..{self.generated.num_vars} are the generated formula's"
            )
        return lines


# ------------------------------------------------------------------------------------ the families


@dataclass(frozen=True, slots=True)
class FamilySpec:
    """A family: what its size counts, the sizes it takes, its parameters with their defaults."""

    name: str
    size_counts: str
    min_size: int
    max_size: int
    params: Mapping[str, Any]
    summary: str
    make: Callable[[int, int, dict[str, Any]], tuple[Formula, KnownAnswer, str]] = field(repr=False)


#: Allowed ranges of the parameters (inclusive).
_PARAM_RANGES: dict[str, tuple[float, float]] = {
    "width": (2, 8),
    "ratio": (0.01, 1000.0),
    "degree": (3, 8),
}


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """cnfgen draws from the global ``random`` module: seed it for the call, then put it back."""
    state = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(state)


def _formula_of(cnf: Any) -> Formula:
    """A cnfgen CNF as a ``Formula`` (its clauses in cnfgen's order)."""
    return Formula(int(cnf.number_of_variables()), tuple(tuple(clause) for clause in cnf.clauses()))


def _clause_count(size: int, params: Mapping[str, Any]) -> int:
    return max(1, round(float(params["ratio"]) * size))


def _random(size: int, seed: int, params: dict[str, Any]) -> tuple[Formula, KnownAnswer, str]:
    from cnfgen import RandomKCNF

    k, m = int(params["width"]), _clause_count(size, params)
    with _seeded(seed):
        formula = _formula_of(RandomKCNF(k, size, m, seed=seed))
    answer = KnownAnswer("unknown", "random k-CNF: no theorem decides it (decide it with a solver)")
    return formula, answer, f"random {k}-CNF, {size} variables, {m} clauses"


def hidden_assignment(size: int, seed: int) -> tuple[bool, ...]:
    """The hidden assignment of a planted formula of ``size`` variables (``random.Random(seed)``)."""
    rng = random.Random(seed)
    return tuple(rng.random() < 0.5 for _ in range(size))


def _planted(size: int, seed: int, params: dict[str, Any]) -> tuple[Formula, KnownAnswer, str]:
    from cnfgen import RandomKCNF

    k, m = int(params["width"]), _clause_count(size, params)
    hidden = hidden_assignment(size, seed)
    literals = [v if value else -v for v, value in enumerate(hidden, start=1)]
    with _seeded(seed):
        formula = _formula_of(RandomKCNF(k, size, m, seed=seed, planted_assignments=[literals]))
    answer = KnownAnswer("sat", "planted assignment", hidden)
    return formula, answer, f"planted random {k}-CNF, {size} variables, {m} clauses"


def _tseitin(size: int, seed: int, params: dict[str, Any]) -> tuple[Formula, KnownAnswer, str]:
    import networkx as nx
    from cnfgen import TseitinFormula

    d = int(params["degree"])
    graph = nx.random_regular_graph(d, size, seed=seed)
    rng = random.Random(seed)
    charges = [rng.random() < 0.5 for _ in range(size - 1)]
    charges.append(sum(charges) % 2 == 0)  # makes the total odd
    with _seeded(seed):
        formula = _formula_of(TseitinFormula(graph, charges))
    answer = KnownAnswer("unsat", "Tseitin odd charge (parity): the charges sum to 1, the edges to 0 mod 2")
    edges = graph.number_of_edges()
    return formula, answer, f"Tseitin formula of a random {d}-regular graph, {size} vertices, {edges} edges"


def _pigeonhole(size: int, seed: int, params: dict[str, Any]) -> tuple[Formula, KnownAnswer, str]:
    from cnfgen import PigeonholePrinciple

    with _seeded(seed):
        formula = _formula_of(PigeonholePrinciple(size + 1, size))
    answer = KnownAnswer("unsat", f"pigeonhole counting: {size + 1} pigeons do not fit into {size} holes")
    return formula, answer, f"pigeonhole principle, {size + 1} pigeons, {size} holes"


def _parity(size: int, seed: int, params: dict[str, Any]) -> tuple[Formula, KnownAnswer, str]:
    from cnfgen import CountingPrinciple

    with _seeded(seed):
        cnf = CountingPrinciple(size, 2)
        formula = _formula_of(cnf)
        labels = list(cnf.all_variable_labels())
    if size % 2:
        answer = KnownAnswer("unsat", f"parity counting: {size} elements (odd) cannot be split into pairs")
    else:
        # The pairs (1,2), (3,4), ...: found by cnfgen's variable names, then checked like any witness.
        pairs = {f"p_{{{i},{i + 1}}}" for i in range(1, size, 2)}
        witness = tuple(label in pairs for label in labels)
        answer = KnownAnswer(
            "sat", f"parity: {size} elements (even) split into the pairs (1,2), (3,4), ...", witness
        )
    return formula, answer, f"parity principle, {size} elements into pairs"


def xor_system(formula: Formula) -> list[tuple[tuple[int, ...], int]] | None:
    """The parity equations x_a + x_b + ... = c (mod 2) a formula's clauses are, or None when they are not.

    A clause over variables X forbids one assignment of X (every literal false), so it belongs to
    the equation over X whose constant differs from that assignment's parity.  The formula is the
    conjunction of its equations exactly when every equation has all 2^(|X|-1) of its clauses.
    """
    groups: dict[tuple[tuple[int, ...], int], set[tuple[int, ...]]] = {}
    for clause in formula.clauses:
        variables = tuple(sorted(abs(lit) for lit in clause))
        if not variables or len(set(variables)) != len(variables):
            return None
        negatives = sum(lit < 0 for lit in clause)
        groups.setdefault((variables, 1 - negatives % 2), set()).add(tuple(sorted(clause, key=abs)))
    if any(len(found) != 2 ** (len(key[0]) - 1) for key, found in groups.items()):
        return None
    return sorted(groups)


def solve_xor(num_vars: int, equations: Sequence[tuple[tuple[int, ...], int]]) -> tuple[bool, ...] | None:
    """A solution of parity equations over GF(2) (Gaussian elimination), None if they are inconsistent."""
    rhs_bit = 1 << num_vars
    pivots: dict[int, int] = {}  # pivot variable index (0-based) -> row whose highest variable it is
    for variables, constant in equations:
        row = sum(1 << (v - 1) for v in variables) | (rhs_bit if constant else 0)
        while True:
            lhs = row & (rhs_bit - 1)
            if not lhs:
                if row:  # 0 = 1
                    return None
                break
            top = lhs.bit_length() - 1
            if top not in pivots:
                pivots[top] = row
                break
            row ^= pivots[top]
    values = 0  # bit v-1 set: variable v true; free variables false
    for top in sorted(pivots):  # each pivot row mentions only lower variables besides its own
        row = pivots[top]
        lower = row & ((1 << top) - 1)
        if (bool(row & rhs_bit) ^ (int.bit_count(lower & values) % 2 == 1)) is True:
            values |= 1 << top
    return tuple(bool(values >> i & 1) for i in range(num_vars))


def _xor(size: int, seed: int, params: dict[str, Any]) -> tuple[Formula, KnownAnswer, str]:
    from cnfgen import RandomKXOR

    k, m = int(params["width"]), _clause_count(size, params)
    with _seeded(seed):
        formula = _formula_of(RandomKXOR(k, size, m, seed=seed))
    system = xor_system(formula)
    if system is None:  # never expected: cnfgen writes each parity as all its clauses
        answer = KnownAnswer("unknown", "the clauses are not a parity system (decide with a solver)")
    else:
        solution = solve_xor(formula.num_vars, system)
        if solution is None:
            answer = KnownAnswer("unsat", "XOR system inconsistent over GF(2) (Gaussian elimination)")
        else:
            answer = KnownAnswer("sat", "XOR system solved over GF(2) (Gaussian elimination)", solution)
    return formula, answer, f"random {k}-XOR, {size} variables, {m} parity constraints"


def _spec(
    name: str,
    size_counts: str,
    sizes: tuple[int, int],
    params: dict[str, Any],
    summary: str,
    make: Callable[[int, int, dict[str, Any]], tuple[Formula, KnownAnswer, str]],
) -> FamilySpec:
    return FamilySpec(name, size_counts, sizes[0], sizes[1], params, summary, make)


#: The families by name.  ``ratio`` None means the threshold ratio of the width.
FAMILIES: dict[str, FamilySpec] = {
    spec.name: spec
    for spec in (
        _spec(
            "random",
            "variables",
            (3, 100_000),
            {"width": 3, "ratio": None},
            "random k-CNF at a ratio (default: the threshold); answer by a solver",
            _random,
        ),
        _spec(
            "planted",
            "variables",
            (3, 100_000),
            {"width": 3, "ratio": None},
            "random k-CNF satisfied by a hidden assignment; sat, the witness known",
            _planted,
        ),
        _spec(
            "tseitin",
            "vertices",
            (4, 100_000),
            {"degree": 3},
            "Tseitin formula of a random d-regular graph, odd total charge; unsat by parity",
            _tseitin,
        ),
        _spec(
            "pigeonhole",
            "holes",
            (1, 60),
            {},
            "size+1 pigeons into size holes; unsat by counting",
            _pigeonhole,
        ),
        _spec(
            "parity",
            "elements",
            (2, 80),
            {},
            "size elements into pairs; unsat when size is odd, sat when even",
            _parity,
        ),
        _spec(
            "xor",
            "variables",
            (3, 20_000),
            {"width": 3, "ratio": 1.0},
            "random k-XOR (default 3-XOR); decided by Gaussian elimination over GF(2)",
            _xor,
        ),
    )
}


def _params(spec: FamilySpec, given: Mapping[str, Any]) -> dict[str, Any]:
    """The family's parameters: the given ones (None: not given) checked, defaults for the rest."""
    unknown = sorted(key for key, value in given.items() if value is not None and key not in spec.params)
    if unknown:
        accepted = ", ".join(spec.params) or "none"
        raise FamilyError(f"family {spec.name} takes no parameter {unknown[0]} (its parameters: {accepted})")
    params: dict[str, Any] = {
        key: default if given.get(key) is None else given[key] for key, default in spec.params.items()
    }
    for key, value in params.items():
        if value is None:
            continue
        low, high = _PARAM_RANGES[key]
        if key in ("width", "degree") and (not isinstance(value, int) or isinstance(value, bool)):
            raise FamilyError(f"family {spec.name}: {key} must be a whole number, not {value!r}")
        if not low <= float(value) <= high:
            raise FamilyError(f"family {spec.name}: {key} {value} is out of range {low:g}..{high:g}")
    if "ratio" in params and params["ratio"] is None:
        width = int(params["width"])
        if width not in THRESHOLD_RATIO:
            raise FamilyError(f"family {spec.name}: width {width} has no default ratio; give one")
        params["ratio"] = THRESHOLD_RATIO[width]
    if "ratio" in params:
        params["ratio"] = float(params["ratio"])
    return params


def _check_size(spec: FamilySpec, size: int, params: Mapping[str, Any]) -> None:
    if isinstance(size, bool) or not isinstance(size, int):
        raise FamilyError(f"family {spec.name}: size must be a whole number, not {size!r}")
    if not spec.min_size <= size <= spec.max_size:
        raise FamilyError(
            f"family {spec.name}: size {size} is out of range {spec.min_size}..{spec.max_size} "
            f"({spec.size_counts})"
        )
    degree = params.get("degree")
    if degree is not None and (size <= degree or (size * degree) % 2):
        raise FamilyError(
            f"family {spec.name}: no {degree}-regular graph on {size} vertices "
            "(size must exceed the degree, and size * degree must be even)"
        )
    width = params.get("width")
    if width is not None and width > size:
        raise FamilyError(f"family {spec.name}: width {width} needs at least {width} variables, not {size}")
    if "ratio" in params:
        m = _clause_count(size, params)
        clauses = m * (2 ** (int(width) - 1) if spec.name == "xor" else 1)  # type: ignore[arg-type]
        if clauses > MAX_GENERATED_CLAUSES:
            raise FamilyError(
                f"family {spec.name}: size {size} at ratio {params['ratio']:g} gives {clauses} clauses, "
                f"more than {MAX_GENERATED_CLAUSES}"
            )


def split_assignment(generated: Formula, formula: Formula, assignment: Sequence[bool]) -> tuple[bool, ...]:
    """An assignment of ``generated`` extended to its ``to_3sat`` split ``formula`` (checked).

    ``to_3sat`` numbers the chain variables y1, y2, ... of each long clause after the generated
    formula's variables, in clause order; yj is true while the clause's first true literal lies
    beyond position j + 1, which satisfies every link of the chain.
    """
    values = [bool(v) for v in assignment[: generated.num_vars]]
    if len(values) < generated.num_vars:
        raise ReductionError(f"the assignment has {len(values)} values for {generated.num_vars} variables")
    if formula is not generated:
        for clause in generated.clauses:
            if len(clause) <= 3:
                if not clause:  # (y) (-y): no assignment satisfies it
                    values.append(False)
                continue
            true_at = [values[abs(lit) - 1] == (lit > 0) for lit in clause]
            first = true_at.index(True) if any(true_at) else len(clause)
            values.extend(first > j for j in range(1, len(clause) - 2))  # first is 0-based, j 1-based
    result = tuple(values)
    falsified = formula.unsatisfied_clauses(result)
    if falsified:
        raise ReductionError(f"the assignment falsifies clause {falsified[0]} of the 3-CNF")
    return result


def validate_request(family: str, size: int, **params: Any) -> dict[str, Any]:
    """The parameters of a family request, with defaults, checked without making the formula;
    ``FamilyError`` (one line) for an unknown family, a size or parameter out of range."""
    spec = FAMILIES.get(family)
    if spec is None:
        raise FamilyError(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    chosen = _params(spec, params)
    _check_size(spec, size, chosen)
    return chosen


def make_family_formula(family: str, size: int, seed: int = 0, **params: Any) -> FamilyFormula:
    """The formula of ``family`` at ``size`` and ``seed`` (parameters: ``FAMILIES[family].params``),
    its 3-CNF and its known answer (a witness, when "sat", checked against the 3-CNF).

    ``FamilyError`` (one line) for an unknown family, a size or parameter out of range.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise FamilyError(f"family {family}: seed must be a whole number at least 0, not {seed!r}")
    chosen = validate_request(family, size, **params)
    spec = FAMILIES[family]
    try:
        generated, answer, description = spec.make(size, seed, chosen)
    except ValueError as problem:  # cnfgen's own refusals (too many clauses for the variables)
        if isinstance(problem, FamilyError):
            raise
        raise FamilyError(f"family {family} size {size}: {problem}") from None
    formula = to_3sat(generated)
    if answer.witness is not None:
        answer = replace(answer, witness=split_assignment(generated, formula, answer.witness))
    return FamilyFormula(family, size, seed, chosen, generated, formula, answer, description)


def decide(family_formula: FamilyFormula, time_limit: float | None = None) -> FamilyFormula:
    """The formula with an "unknown" answer decided by CaDiCaL (its model the witness, checked);
    known answers are kept, and a time limit that stops the solver keeps "unknown"."""
    if family_formula.expected != "unknown":
        return family_formula
    satisfiable, model = solve_formula(family_formula.formula, time_limit, DECIDING_SOLVER)
    if satisfiable is None:
        answer = KnownAnswer("unknown", f"{DECIDING_SOLVER_NAME} stopped by the time limit of {time_limit} s")
    elif satisfiable:
        answer = KnownAnswer("sat", f"decided by {DECIDING_SOLVER_NAME} (its model checked)", model)
    else:
        answer = KnownAnswer("unsat", f"decided by {DECIDING_SOLVER_NAME}")
    return replace(family_formula, answer=answer)


def certify_answer(
    family_formula: FamilyFormula,
    directory: str,
    *,
    checker: str = "sudoku_cp",
    deadline: Deadline | None = None,
    prover: str | None = None,
) -> FamilyFormula:
    """For an "unsat" answer, a 'formula' certificate (a checked DRAT refutation of the 3-CNF) written
    into ``directory``; the answer then names it.  Other answers are returned as they are (a "sat"
    answer's witness is checked already).  ``CertificateError`` or ``TimeLimitReached`` when it fails."""
    from ..certify.make import certify_formula
    from ..certify.manifest import write_certificate

    if family_formula.expected != "unsat":
        return family_formula
    formula = family_formula.formula
    certificate = certify_formula(
        formula.num_vars,
        formula.clauses,
        source=family_formula.name,
        checker=checker,
        deadline=deadline,
        prover=prover,
    )
    path = str(write_certificate(directory, certificate))
    return replace(family_formula, answer=replace(family_formula.answer, certificate=path))


# ------------------------------------------------------------------------------------ the instance


#: What "expected" says of the instance, by theorem.
EXPECTED_FOR = {
    False: "Theorem 6.1: S holds a placement iff the formula is satisfiable",
    True: "Theorem 6.2: S always holds a placement; the witness cells lie in S' "
    "iff the formula is satisfiable",
}


class _Inside:
    """The cells of S as the independent checker reads a mask (``inside[r, c]``), without a dense grid."""

    def __init__(self, cells: Sequence[tuple[int, int]]) -> None:
        self.cells = frozenset((int(r), int(c)) for r, c in cells)

    def __getitem__(self, cell: tuple[int, int]) -> bool:
        return cell in self.cells


@dataclass(frozen=True, eq=False)
class FamilyReduction:
    """A family formula, its reduction, and the witness placement when the answer has a witness.

    ``placement``: the witness assignment mapped forward through the construction (column per
    row, 0-based), checked by the reduction's validator and by the certificate checker; with
    Theorem 6.2 it passes through the witness cells.
    """

    source: FamilyFormula
    reduction: Reduction
    placement: np.ndarray | None = field(default=None, repr=False)

    def known_answer(self) -> dict[str, Any]:
        """``expected``, ``reason`` and what the answer says of the instance (``expected_for``)."""
        out = {
            "expected": self.source.expected,
            "reason": self.source.reason,
            "expected_for": EXPECTED_FOR[self.reduction.nonempty],
        }
        for key in ("certificate", "certificate_error"):
            value = getattr(self.source.answer, key)
            if value is not None:
                out[key] = value
        return out

    def placement_text(self) -> str | None:
        """The witness placement as a Nishio cell list (what ``reduce --decode`` and ``nishio`` read)."""
        from ..nishio.instance import NishioInstance
        from ..nishio.placement import placement_cells
        from ..nishio.text import instance_text

        if self.placement is None:
            return None
        geometry = self.reduction.instance.geometry
        return instance_text(NishioInstance.from_cells(geometry, placement_cells(self.placement)), "cells")

    def metadata(self) -> dict[str, Any]:
        """The reduction's metadata (what ``reduce --decode`` reads) with the family and the known answer."""
        return {**self.reduction.metadata(), "family": self.source.record(), **self.known_answer()}

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary: the family record, the grid, |S| and the known answer."""
        instance = self.reduction.instance
        return {
            **self.source.record(),
            "nonempty": self.reduction.nonempty,
            "fill": self.reduction.fill,
            "k": self.reduction.k,
            "n": instance.n,
            "cells": instance.size,
            "encoded_variables": self.reduction.formula.num_vars,
            "encoded_clauses": self.reduction.formula.num_clauses,
            **self.known_answer(),
            "witness_placement": self.placement is not None,
        }


def witness_placement(reduction: Reduction, witness: Sequence[bool]) -> np.ndarray:
    """The placement inside S of a satisfying assignment of the formula given to the reduction
    (Theorem 6.2: through the witness cells), checked by two independent validators."""
    from ..certify.check import placement_problem
    from ..nishio.placement import placement_cells
    from .decode import ReductionDecodeError, placement_from_assignment
    from .decode import witness_assignment as extend

    assignment = extend(reduction, witness, z=False) if reduction.nonempty else witness
    cols = placement_from_assignment(reduction, assignment)  # checked there by the Nishio validator
    instance = reduction.instance
    problem = placement_problem(instance.geometry, _Inside(instance.cells()), placement_cells(cols))  # type: ignore[arg-type]
    if problem is not None:
        raise ReductionDecodeError(f"the witness placement fails the certificate checker: {problem}")
    if reduction.nonempty:
        on_witness = {(int(r), int(c)) for r, c in placement_cells(cols)} & set(reduction.witness_cells)
        if not on_witness:
            raise ReductionDecodeError("the witness placement misses the witness cells")
    return cols


def reduce_family(
    family_formula: FamilyFormula, *, nonempty: bool = False, fill: str = "full"
) -> FamilyReduction:
    """The Nishio instance of a family formula (Theorem 6.1, or 6.2 with ``nonempty``) and, when its
    answer has a witness, the witness placement."""
    from .construction import reduce_formula

    reduction = reduce_formula(family_formula.formula, nonempty=nonempty, fill=fill)
    witness = family_formula.answer.witness
    placement = None if witness is None else witness_placement(reduction, witness)
    return FamilyReduction(family_formula, reduction, placement)


def family_instance(
    family: str,
    size: int,
    seed: int = 0,
    *,
    params: Mapping[str, Any] | None = None,
    nonempty: bool = False,
    fill: str = "full",
    time_limit: float | None = None,
    certify: str | None = None,
    checker: str = "sudoku_cp",
    prover: str | None = None,
) -> FamilyReduction:
    """A family's formula and instance in one go: made, decided when no theorem knows the answer
    (CaDiCaL within ``time_limit``; stopped: "unknown"), an "unsat" answer certified into the
    directory ``certify`` when given (a failure is recorded in the answer), then reduced."""
    from ..certify.manifest import CertificateError
    from ..limits import Deadline, TimeLimitReached

    made = decide(make_family_formula(family, size, seed, **dict(params or {})), time_limit)
    if certify is not None and made.expected == "unsat":
        try:
            made = certify_answer(
                made, certify, checker=checker, deadline=Deadline(time_limit), prover=prover
            )
        except (CertificateError, TimeLimitReached) as error:
            made = replace(made, answer=replace(made.answer, certificate_error=str(error)))
    return reduce_family(made, nonempty=nonempty, fill=fill)
