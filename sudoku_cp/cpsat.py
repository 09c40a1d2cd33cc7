"""CP-SAT models of whole puzzles (specified in ``encodings/cpsat.md``).

Two models of the same puzzle, both over all cells of the grid:

=========  ===========================================  ===============================================
kind       variables                                    constraints
=========  ===========================================  ===============================================
bool       ``x_rRcCdD`` in {0, 1}: R C holds digit D    exactly one per cell, per (row, digit),
           (all n**3 of them, givens included)          per (column, digit), per (box, digit);
                                                        ``x == 1`` (a one-literal bool_and) per given
alldiff    ``v_rRcC`` in 1..n: the digit of cell R C    all different per row, column and box
           (a given's domain is its single value)
=========  ===========================================  ===============================================

Names are 1-based (``x_r1c2d5``, ``v_r9c5``), and so are constraint names (``cell_r1c2``,
``row3_d5``, ``column2_d5``, ``box4_d5``, ``given_r1c1``; ``row3``, ``column2``, ``box4``), so
an exported model reads like its specification.  The bool model keeps every candidate even where a
given rules it out: the model is the same for every puzzle of a geometry except for the given
constraints, and presolve removes what the givens decide.

What a CP-SAT status means is decided here once, for every model (puzzles and Nishio instances):

=============  =====================================  ========================================
status         ``solve_verdict`` (a plain solve)      ``enumeration_complete`` (enumerating)
=============  =====================================  ========================================
OPTIMAL        True: a solution                       True: every solution was seen
FEASIBLE       True: a solution                       False: stopped early (callback or limit)
INFEASIBLE     False: no solution                     True: there is none
UNKNOWN        None: stopped before an answer         False: stopped early (time limit)
MODEL_INVALID  ``CpsatModelError``                    ``CpsatModelError``
=============  =====================================  ========================================

Building checks its size first: a model that cannot fit in memory for its use (built, solved, or
written as text) is refused with ``limits.ModelTooLarge`` (the bool model takes about 500 bytes a
variable to build and 1.7 KB to solve; the alldiff model about 2 KB per candidate left by the
givens to solve), and a deadline is checked cell by cell (``limits.TimeLimitReached``).

Every solve goes through ``run_solver``: CP-SAT's own SIGINT catching is off (it leaves SIGINT at
the system default after a solve, so a later Ctrl-C killed the process outright), the search runs
in a helper thread while the calling thread waits in Python, and Ctrl-C stops the search with
``stop_search`` before ``KeyboardInterrupt`` goes on up: a stopped search is never taken for an answer.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from .errors import SudokuCpError
from .geometry import Geometry
from .grid import Grid
from .limits import Deadline, Sigint, TimeLimitReached, check_memory
from .propagation import candidates

__all__ = [
    "CpsatModelError",
    "CpsatModelKind",
    "SudokuCpModel",
    "build_cpsat_model",
    "check_cpsat_size",
    "enumeration_complete",
    "export_cpsat_model",
    "model_text",
    "new_solver",
    "run_solver",
    "solution_vector",
    "solve_verdict",
]


class CpsatModelError(SudokuCpError, RuntimeError):
    """CP-SAT rejected a model (MODEL_INVALID) or answered a status it should not."""


def _checked_status(status: object, model: cp_model.CpModel | None) -> object:
    if status == cp_model.MODEL_INVALID:
        detail = f": {model.validate()}" if model is not None else ""
        raise CpsatModelError(f"CP-SAT rejected the model{detail}")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE, cp_model.UNKNOWN):
        raise CpsatModelError(f"unexpected CP-SAT status {status}")
    return status


def solve_verdict(status: object, model: cp_model.CpModel | None = None) -> bool | None:
    """A plain solve's status as True (a solution), False (none) or None (unknown: stopped first).

    MODEL_INVALID raises ``CpsatModelError`` (with ``model``'s validation message when given).
    """
    status = _checked_status(status, model)
    if status == cp_model.UNKNOWN:
        return None
    return status != cp_model.INFEASIBLE


def enumeration_complete(status: object, model: cp_model.CpModel | None = None) -> bool:
    """True when an enumeration saw every solution (OPTIMAL, or INFEASIBLE: none), False when stopped.

    A completed enumeration reports OPTIMAL even when the callback asked to stop on the very
    last solution, so completeness follows the status, not whether a limit was reached.
    """
    status = _checked_status(status, model)
    return status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)


class CpsatModelKind(Enum):
    """Which CP-SAT model: Boolean candidates with exactly-one, or one integer per cell with all-different."""

    BOOL = "bool"
    ALLDIFF = "alldiff"


def solution_vector(source: cp_model.CpSolver | cp_model.CpSolverSolutionCallback) -> np.ndarray:
    """The values of all model variables in the current solution, indexed by variable index (int64)."""
    solution = source.response_proto.solution
    return np.fromiter(solution, dtype=np.int64, count=len(solution))


@dataclass(frozen=True, slots=True, eq=False)
class SudokuCpModel:
    """A CP-SAT model of a puzzle and its variables.

    ``variables`` is an (n*n, n) object array of BoolVars ``x[cell, digit]`` (digit 0-based) for the
    bool kind, an (n*n,) object array of IntVars ``v[cell]`` for the alldiff kind.  ``indices`` holds
    their proto indices in the same shape, so decoding is one gather over the solution vector.
    """

    model: cp_model.CpModel
    kind: CpsatModelKind
    geometry: Geometry
    variables: np.ndarray
    indices: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        indices = np.vectorize(lambda var: var.index, otypes=[np.int64])(self.variables)
        indices.setflags(write=False)
        object.__setattr__(self, "indices", indices)

    def decode(self, source: cp_model.CpSolver | cp_model.CpSolverSolutionCallback) -> np.ndarray:
        """The (n, n) int16 grid of the current solution of a solver or solution callback."""
        return self.decode_vector(solution_vector(source))

    def decode_vector(self, values: np.ndarray) -> np.ndarray:
        """The (n, n) int16 grid for a solution vector indexed by variable index.

        A bool-model cell that does not hold exactly one digit decodes to 0, which the checker rejects.
        """
        n = self.geometry.n
        chosen = values[self.indices]
        if self.kind is CpsatModelKind.ALLDIFF:
            return chosen.reshape(n, n).astype(np.int16)
        digits = chosen.argmax(axis=1) + 1
        digits[chosen.sum(axis=1) != 1] = 0
        return digits.reshape(n, n).astype(np.int16)

    def sizes(self) -> dict[str, int]:
        """Variables and constraints of the proto, and constraints per family (named as in the spec)."""
        proto = self.model.proto
        families = Counter(_family(constraint.name) for constraint in proto.constraints)
        return {"variables": len(proto.variables), "constraints": len(proto.constraints), **families}


def _family(name: str) -> str:
    return name.split("_")[0].rstrip("0123456789")


def _cell_label(geometry: Geometry, cell: int) -> str:
    r, c = divmod(cell, geometry.n)
    return f"r{r + 1}c{c + 1}"


def _unit_label(geometry: Geometry, unit: int) -> str:
    kind, index = divmod(unit, geometry.n)
    return f"{('row', 'column', 'box')[kind]}{index + 1}"


_ENCODING = "encoding"  # the phase named when the time limit stops a build
_CHECK_EVERY = 1 << 12  # model entries (variables, constraint literals) made between deadline checks
_FREE_SECONDS = 1e-6  # seconds to free one entry of a model whose building was stopped


class _Budget:
    """Deadline checks every few thousand model entries, stopping while there is still time to
    free what was built (a stopped 100x100 bool model takes a tenth of a second to free)."""

    def __init__(self, deadline: Deadline | None) -> None:
        self.deadline = deadline
        self.made = 0
        self.next = _CHECK_EVERY

    def add(self, entries: int) -> None:
        """Count ``entries`` more; raise ``TimeLimitReached`` when the time left is too short."""
        self.made += entries
        if self.deadline is None or self.made < self.next:
            return
        self.next = self.made + _CHECK_EVERY
        left = self.deadline.remaining()
        if left is not None and left <= self.made * _FREE_SECONDS:
            raise TimeLimitReached(_ENCODING)


def _build_bool(model: cp_model.CpModel, puzzle: Grid, deadline: Deadline | None) -> np.ndarray:
    g = puzzle.geometry
    n = g.n
    budget = _Budget(deadline)
    x = np.empty((n * n, n), dtype=object)
    for cell in range(n * n):
        budget.add(n)
        label = _cell_label(g, cell)
        for d in range(n):
            x[cell, d] = model.new_bool_var(f"x_{label}d{d + 1}")
    for cell in range(n * n):
        budget.add(n)
        model.add_exactly_one(x[cell].tolist()).with_name(f"cell_{_cell_label(g, cell)}")
    for unit in range(3 * n):
        cells = g.units[unit]
        label = _unit_label(g, unit)
        for d in range(n):
            budget.add(n)
            model.add_exactly_one(x[cells, d].tolist()).with_name(f"{label}_d{d + 1}")
    flat = puzzle.values.reshape(-1)
    for cell in np.flatnonzero(flat).tolist():
        model.add_bool_and([x[cell, int(flat[cell]) - 1]]).with_name(f"given_{_cell_label(g, cell)}")
    return x


def _build_alldiff(model: cp_model.CpModel, puzzle: Grid, deadline: Deadline | None) -> np.ndarray:
    g = puzzle.geometry
    n = g.n
    budget = _Budget(deadline)
    flat = puzzle.values.reshape(-1).tolist()
    v = np.empty(n * n, dtype=object)
    for cell, given in enumerate(flat):
        budget.add(1)
        low, high = (given, given) if given else (1, n)
        v[cell] = model.new_int_var(low, high, f"v_{_cell_label(g, cell)}")
    for unit in range(3 * n):
        budget.add(n)
        model.add_all_different(v[g.units[unit]].tolist()).with_name(_unit_label(g, unit))
    return v


#: Bytes per Boolean variable (bool model) or per cell (alldiff model) to build and to write the
#: model; solving takes ``_SOLVE_BOOL`` per Boolean variable, or ``_SOLVE_CANDIDATE`` per
#: candidate the givens leave (alldiff: CP-SAT expands each domain), measured on OR-tools 9.
_BUILD = {CpsatModelKind.BOOL: 500, CpsatModelKind.ALLDIFF: 800}
_WRITE = {CpsatModelKind.BOOL: 700, CpsatModelKind.ALLDIFF: 1200}
_SOLVE_BOOL = 1700
_SOLVE_CANDIDATE = 2048
_DOING = {"build": "building", "solve": "solving", "write": "writing"}


def check_cpsat_size(
    puzzle: Grid, kind: CpsatModelKind | str, use: str = "build", deadline: Deadline | None = None
) -> int:
    """Refuse (``limits.ModelTooLarge``) a model that cannot fit in memory for ``use`` ('build',
    'solve' or 'write'); else return how many (cell, digit) candidates its variables stand for.

    Those are all n**3 for the bool model; for the alldiff model, the open cells' candidates the
    givens leave (found, within ``deadline``, only to size a solve; else every open cell's n).
    """
    kind = CpsatModelKind(kind)
    if use not in _DOING:
        raise ValueError(f"use must be one of {', '.join(_DOING)}, not {use!r}")
    n = puzzle.n
    open_cells = puzzle.values.reshape(-1) == 0
    if kind is CpsatModelKind.BOOL:
        units = left = n**3
    else:
        units, left = n * n, int(np.count_nonzero(open_cells)) * n
        if use == "solve":
            left = int(np.count_nonzero(candidates(puzzle, deadline) & open_cells[:, None]))
    need = (_WRITE if use == "write" else _BUILD)[kind] * units
    if use == "solve":
        need = _SOLVE_BOOL * units if kind is CpsatModelKind.BOOL else need + _SOLVE_CANDIDATE * left
    if kind is CpsatModelKind.BOOL:
        other = "try --backend cpsat:alldiff" if use == "solve" else "try --model alldiff"
    else:
        other = "try --backend dlx" if use == "solve" else ""
    check_memory(f"{_DOING[use]} the CP-SAT {kind.value} model of this {n}x{n} grid", need, other)
    return left


def build_cpsat_model(
    puzzle: Grid,
    kind: CpsatModelKind | str = CpsatModelKind.BOOL,
    *,
    deadline: Deadline | None = None,
    use: str = "build",
) -> SudokuCpModel:
    """The CP-SAT model of a puzzle of the given kind (see the module table).

    ``use`` ('build', 'solve' or 'write') says what the model is for: one that cannot fit in
    memory for it is refused (``limits.ModelTooLarge``) before it is built.  ``deadline`` is
    checked while it is built (``limits.TimeLimitReached``).
    """
    kind = CpsatModelKind(kind)
    check_cpsat_size(puzzle, kind, use, deadline)
    model = cp_model.CpModel()
    model.name = f"sudoku {puzzle.n}x{puzzle.n} box {puzzle.geometry.box_label} {kind.value}"
    build = _build_bool if kind is CpsatModelKind.BOOL else _build_alldiff
    variables = build(model, puzzle, deadline)
    return SudokuCpModel(model, kind, puzzle.geometry, variables)


def model_text(model: cp_model.CpModel) -> str:
    """Any CP-SAT model as protobuf text, exactly what ``CpModel.export_to_file`` writes for '.pb.txt'."""
    with tempfile.TemporaryDirectory(prefix="sudoku_cp_") as directory:
        path = os.path.join(directory, "model.pb.txt")
        if not model.export_to_file(path):
            raise OSError(f"CP-SAT could not write its model to {path}")
        with open(path, encoding="utf-8") as handle:
            return handle.read()


def export_cpsat_model(model: SudokuCpModel) -> str:
    """The puzzle's model as protobuf text."""
    return model_text(model.model)


def new_solver(
    *, workers: int = 1, seed: int | None = None, time_limit: float | None = None
) -> cp_model.CpSolver:
    """A CP-SAT solver with these workers, seed and time limit (seconds), and Ctrl-C left to Python."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.catch_sigint_signal = False
    if seed is not None:
        solver.parameters.random_seed = seed
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(float(time_limit), 1e-3)
    return solver


#: Seconds a Ctrl-C waits for CP-SAT to stop before going on up without it.
_STOP_GRACE = 0.3


def run_solver(
    solver: cp_model.CpSolver,
    model: cp_model.CpModel,
    callback: cp_model.CpSolverSolutionCallback | None = None,
) -> int:
    """``solver.solve(model, callback)``, stopped by Ctrl-C within a fraction of a second.

    The search runs in a helper thread; this thread waits in short joins, so a KeyboardInterrupt
    reaches it at once, stops the search (``stop_search``), waits for the helper at most
    ``_STOP_GRACE`` seconds and goes on up (the helper, a daemon thread, ends with its search).
    """
    solver.parameters.catch_sigint_signal = False
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def search() -> None:
        try:
            outcome["status"] = solver.solve(model, callback)
        except BaseException as problem:  # handed to the waiting thread, which raises it
            outcome["error"] = problem
        finally:
            done.set()

    helper = threading.Thread(target=search, name="cp-sat search", daemon=True)
    # Ctrl-C is held while the helper starts (and stays blocked in it): a KeyboardInterrupt between
    # its start and the wait below would leave a search running under an exiting process.
    main = threading.current_thread() is threading.main_thread()
    if main:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # Wait on an Event, not Thread.join: a KeyboardInterrupt inside join can mark a running
    # thread as finished (Python 3.11), and the process would then exit under a live search.
    try:
        helper.start()
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        while not done.wait(0.05):
            Sigint.check()  # a Ctrl-C whose exception OR-tools swallowed while it loaded
    except KeyboardInterrupt:
        # CP-SAT may take seconds to notice stop_search on a big model (1.8-3.4 s on 225x225):
        # wait a little, then go on up with the search still winding down in its daemon thread.
        # The program (``sudoku_cp.__main__``) then ends with os._exit once its outputs are
        # closed, so no search runs under an exiting interpreter.  A second Ctrl-C meanwhile is
        # the same Ctrl-C.
        began = time.monotonic()
        while time.monotonic() - began < _STOP_GRACE:
            solver.stop_search()
            try:
                if done.wait(0.05):
                    break
            except KeyboardInterrupt:
                continue
        raise
    finally:
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if done.is_set():
            helper.join()
    if "error" in outcome:
        raise outcome["error"]
    return int(outcome["status"])
