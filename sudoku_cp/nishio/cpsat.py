"""CP-SAT models of a Nishio instance (specified in ``encodings/nishio.md``) and the CP-SAT method.

=======  ==========================================  ================================================
kind     variables                                   constraints
=======  ==========================================  ================================================
bool     ``x_rRcC`` in {0, 1} per cell of S           exactly one per row, per column, per box (over
         (reading order)                             the cells of S in the unit)
alldiff  ``v_rR``: the column used in row R, domain  all different over the ``v``; ``y_rRsS`` in {0, 1}
         the columns of S in row R; ``y_rRsS``: row  per row R and column stack S where row R has a
         R uses column stack S                       cell of S: ``y -> v in stack S`` (enforced
                                                     linear), exactly one ``y`` per row, exactly one
                                                     ``y`` per box (rows of its band, its stack)
=======  ==========================================  ================================================

The kinds are those of the grid models (``sudoku_cp.cpsat.CpsatModelKind``); ``int`` is accepted
as the alldiff kind's old name, which the exported model's name still carries (golden files).
Names are 1-based.  A row of S with no cell gets ``v_rR`` with the single value 0 and the
constraint ``empty_rR`` (an empty ``bool_or``, false), since CP-SAT rejects an empty domain.

OR-tools builds a model, and writes its text, in memory: ``build_nishio_cpsat`` estimates the
bytes from |S| and the side first and refuses (``limits.ModelTooLarge``) a model that would not fit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from ..cpsat import (
    CpsatModelKind,
    enumeration_complete,
    model_text,
    new_solver,
    run_solver,
    solution_vector,
    solve_verdict,
)
from ..limits import Deadline, check_memory
from ..outcome import REASON_TIME_LIMIT
from .instance import NishioInstance
from .method import NO_PLACEMENT, Decision, NishioCount, NishioMethod
from .placement import checked_placement

__all__ = [
    "CpsatNishio",
    "NishioCpModel",
    "build_nishio_cpsat",
    "cpsat_memory_estimate",
    "export_nishio_cpsat",
]


@dataclass(frozen=True, slots=True, eq=False)
class NishioCpModel:
    """A CP-SAT model of a Nishio instance.

    ``cell_literals[i]``: a literal true exactly when the placement uses cell i of S (reading order;
    None until made): for the bool kind these are the ``x`` variables, for the alldiff kind fresh
    booleans are created on demand by ``cell_literal``.  ``row_vars``: the ``v_rR`` IntVars
    (alldiff only).
    """

    model: cp_model.CpModel
    kind: CpsatModelKind
    instance: NishioInstance
    cell_literals: list[cp_model.IntVar | None]
    row_vars: list[cp_model.IntVar]

    def cell_literal(self, r: int, c: int) -> cp_model.IntVar:
        """A literal equivalent to "row r uses column c" (made on demand for the alldiff kind)."""
        index = int(self.instance.index_of(np.array([r]), np.array([c]))[0])
        if index < 0:
            raise ValueError(f"cell ({r}, {c}) is not in S")
        literal = self.cell_literals[index]
        if literal is None:
            v = self.row_vars[r]
            literal = self.model.new_bool_var(f"is_r{r + 1}c{c + 1}")
            self.model.add(v == c + 1).only_enforce_if(literal)
            self.model.add(v != c + 1).only_enforce_if(~literal)
            self.cell_literals[index] = literal
        return literal

    def decode_vector(self, values: np.ndarray) -> np.ndarray:
        """The column per row in a solution vector indexed by variable index (-1/-2 when undefined)."""
        n = self.instance.n
        cols = np.full(n, -1, dtype=np.int64)
        if self.kind is CpsatModelKind.ALLDIFF:
            indices = np.array([v.index for v in self.row_vars], dtype=np.int64)
            return np.asarray(values, dtype=np.int64)[indices] - 1
        indices = np.array([lit.index for lit in self.cell_literals if lit is not None], dtype=np.int64)
        chosen = np.flatnonzero(np.asarray(values)[indices])
        rows = self.instance.rows[chosen]
        cols[rows] = self.instance.cols[chosen]
        cols[np.bincount(rows, minlength=n) > 1] = -2
        return cols

    def decode(self, source: cp_model.CpSolver | cp_model.CpSolverSolutionCallback) -> np.ndarray:
        """The column per row of the current solution of a solver or solution callback."""
        return self.decode_vector(solution_vector(source))

    def sizes(self) -> dict[str, int]:
        """Variables and constraints of the proto, and constraints per family (the name before '_')."""
        proto = self.model.proto
        families = Counter(c.name.split("_")[0].rstrip("0123456789") for c in proto.constraints)
        return {"variables": len(proto.variables), "constraints": len(proto.constraints), **families}


def _groups(keys: np.ndarray, count: int) -> list[list[int]]:
    """For each key 0..count-1, the positions holding it, in position order."""
    order = np.argsort(keys, kind="stable")
    bounds = np.searchsorted(keys[order], np.arange(count + 1))
    flat = order.tolist()
    return [flat[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)]


def _build_bool(model: cp_model.CpModel, instance: NishioInstance) -> list[cp_model.IntVar | None]:
    n = instance.n
    x: list[cp_model.IntVar] = [
        model.new_bool_var(f"x_r{r}c{c}")
        for r, c in zip((instance.rows + 1).tolist(), (instance.cols + 1).tolist(), strict=True)
    ]
    # Reading order sorted stably by unit: a row left to right, a column top to bottom, a box in
    # reading order, as the units list their cells.
    families = (
        ("row", _groups(instance.rows, n)),
        ("column", _groups(instance.cols, n)),
        ("box", _groups(instance.boxes, n)),
    )
    for name, members in families:
        for index, cells in enumerate(members):
            model.add_exactly_one([x[i] for i in cells]).with_name(f"{name}{index + 1}")
    return list[cp_model.IntVar | None](x)


def _build_alldiff(model: cp_model.CpModel, instance: NishioInstance) -> list[cp_model.IntVar]:
    g = instance.geometry
    n, p, q = g.n, g.p, g.q
    by_row = _groups(instance.rows, n)
    cols = instance.cols.tolist()
    v: list[cp_model.IntVar] = []
    for r in range(n):
        columns = [cols[i] + 1 for i in by_row[r]]
        domain = cp_model.Domain.from_values(columns or [0])
        v.append(model.new_int_var_from_domain(domain, f"v_r{r + 1}"))
    for r in range(n):
        if not by_row[r]:
            model.add_bool_or([]).with_name(f"empty_r{r + 1}")
    model.add_all_different(v).with_name("columns")
    # y[r][s]: row r uses column stack s (columns s*q .. s*q + q - 1); only where row r has a cell there.
    stacks_of_row = [sorted({cols[i] // q for i in cells}) for cells in by_row]
    y: list[dict[int, cp_model.IntVar]] = []
    for r in range(n):
        y.append({s: model.new_bool_var(f"y_r{r + 1}s{s + 1}") for s in stacks_of_row[r]})
    for r in range(n):
        for s, literal in y[r].items():
            model.add_linear_constraint(v[r], s * q + 1, (s + 1) * q).only_enforce_if(literal).with_name(
                f"instack_r{r + 1}s{s + 1}"
            )
        if y[r]:
            model.add_exactly_one(list(y[r].values())).with_name(f"stack_r{r + 1}")
    for b in range(n):
        band, s = divmod(b, p)
        literals = [y[r][s] for r in range(band * p, (band + 1) * p) if s in y[r]]
        model.add_exactly_one(literals).with_name(f"box{b + 1}")
    return v


#: Bytes per cell of S and per row while a model is built and its text written.  Measured on the
#: reduction of random 3-SAT with 1,000 variables (|S| = 184,033, side 30,276): building and
#: exporting took about 50 MB of resident memory with either kind, 20-28 MB of it the text;
#: the constants are about twice that.
_CPSAT_BYTES_PER_CELL = 600
_CPSAT_BYTES_PER_ROW = 600


def cpsat_memory_estimate(instance: NishioInstance) -> int:
    """Bytes the CP-SAT model of the instance is estimated to take, built and exported (either kind)."""
    return _CPSAT_BYTES_PER_CELL * instance.size + _CPSAT_BYTES_PER_ROW * instance.n + (16 << 20)


def build_nishio_cpsat(
    instance: NishioInstance, kind: CpsatModelKind | str = CpsatModelKind.BOOL
) -> NishioCpModel:
    """The CP-SAT model of a Nishio instance of the given kind (see the module table), from its cells;
    ``limits.ModelTooLarge`` first when the estimate does not fit in memory."""
    kind = CpsatModelKind(kind)
    g = instance.geometry
    check_memory(
        f"the CP-SAT model of a {g.n}x{g.n} Nishio instance with |S| = {instance.size}",
        cpsat_memory_estimate(instance),
        "try --to cnf (written a chunk at a time)",
    )
    model = cp_model.CpModel()
    model.name = f"nishio {g.n}x{g.n} box {g.box_label} {kind.value}"
    if kind is CpsatModelKind.BOOL:
        literals = _build_bool(model, instance)
        return NishioCpModel(model, kind, instance, literals, [])
    row_vars = _build_alldiff(model, instance)
    return NishioCpModel(model, kind, instance, [None] * instance.size, row_vars)


def export_nishio_cpsat(model: NishioCpModel) -> str:
    """The model as protobuf text, exactly what ``CpModel.export_to_file`` writes for a '.pb.txt' name."""
    return model_text(model.model)


class _Counter(cp_model.CpSolverSolutionCallback):
    """Counts solutions, checks each, and stops the search at a limit."""

    def __init__(self, model: NishioCpModel, limit: int | None, method: str) -> None:
        super().__init__()
        self.nishio = model
        self.limit = limit
        self.method = method
        self.count = 0
        self.stopped = False

    def on_solution_callback(self) -> None:
        checked_placement(self.nishio.instance, self.nishio.decode(self), self.method)
        self.count += 1
        if self.limit is not None and self.count >= self.limit:
            self.stopped = True
            self.stop_search()


class CpsatNishio(NishioMethod):
    """Nishio by CP-SAT: ``model`` is 'bool' or 'alldiff', ``workers`` the number of search workers."""

    name = "cpsat"
    exact = True

    def __init__(self, model: CpsatModelKind | str = CpsatModelKind.BOOL, workers: int = 1) -> None:
        self.kind = CpsatModelKind(model)
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers

    def __repr__(self) -> str:
        return f"CpsatNishio(model={self.kind.value!r}, workers={self.workers})"

    def _solver(self, deadline: Deadline) -> cp_model.CpSolver:
        """A solver with this method's workers and the time left."""
        return new_solver(workers=self.workers, time_limit=deadline.remaining())

    def _solve(self, model: NishioCpModel, deadline: Deadline) -> tuple[bool | None, cp_model.CpSolver]:
        """(verdict, solver holding the solution): True with a solution, False infeasible, None stopped."""
        solver = self._solver(deadline)
        if deadline.expired():
            return None, solver
        return solve_verdict(run_solver(solver, model.model), model.model), solver

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """A placement inside S as its column per row, or none."""
        model = build_nishio_cpsat(instance, self.kind)
        verdict, solver = self._solve(model, deadline)
        if verdict is None:
            return Decision.unknown(REASON_TIME_LIMIT)
        if not verdict:
            return NO_PLACEMENT
        return Decision.found(checked_placement(instance, model.decode(solver), self.name))

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        """The (n, n) bool mask of cells of S that lie in at least one placement inside S."""
        model = build_nishio_cpsat(instance, self.kind)
        n = instance.n
        covered = np.zeros((n, n), dtype=bool)
        while True:
            verdict, solver = self._solve(model, deadline)
            if verdict is None:
                return None
            if not verdict:
                return covered
            covered[np.arange(n), checked_placement(instance, model.decode(solver), self.name)] = True
            uncovered = np.flatnonzero(~covered[instance.rows, instance.cols]).tolist()
            if not uncovered:
                return covered
            # The uncovered set only shrinks, so each new clause implies the previous ones.
            rows, cols = instance.rows.tolist(), instance.cols.tolist()
            model.model.add_bool_or([model.cell_literal(rows[i], cols[i]) for i in uncovered])

    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount | None:
        """The number of placements inside S, stopping at ``limit`` when one is given."""
        model = build_nishio_cpsat(instance, self.kind)
        if deadline.expired():
            return None
        solver = self._solver(deadline)
        solver.parameters.enumerate_all_solutions = True
        counter = _Counter(model, limit, self.name)
        status = run_solver(solver, model.model, counter)
        if counter.stopped:  # at the limit: a lower bound, even when it was the last placement
            return NishioCount(counter.count, complete=False)
        if enumeration_complete(status, model.model):
            return NishioCount(counter.count, complete=True)
        return None
