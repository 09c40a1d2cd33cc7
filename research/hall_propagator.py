"""Research: a matching (Hall) propagator for CaDiCaL 1.9.5 through python-sat's IPASIR-UP interface.

    .venv/bin/python benchmarks/hall_propagator.py FILE [--units all|K|none] [--digits]
        [--decide K] [--no-prune] [--options JSON] [--cpu SECONDS]

Measured on the hard 64x64 grid (benchmarks/README.md, "Big grids"): it does not make the grid
easy, so the library does not use it; kept to reproduce the figures.

Each unit (row, column, box) of a Sudoku is an alldifferent over its open cells and missing
digits: a perfect matching in the bipartite graph of its candidates.  CDCL finds that k cells
have fewer than k digits left (a pigeonhole) only with great effort; this propagator keeps one
perfect matching per watched unit over the candidates still possible, reports a Hall violation
as a conflict clause and removes every candidate that lies in no perfect matching (Régin's
filtering), each with its reason clause.  The work is done by the compiled kernels of
``native.matching``; the solver writes each assignment of a watched variable straight into a
numpy array (the callback is that array's item assignment), so Python runs once per decision
level, backtrack and propagation round, not once per literal.

The solver must run without chronological backtracking (``chrono=0``): the propagator takes an
assignment's level to be the level open when it first sees it.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hall_kernels as matching
import numpy as np
from pysat.engines import Propagator

from sudoku_cp.cnf.varmap import GridVarMap

__all__ = ["HallPropagator", "main", "open_units", "run"]

Edges = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A line's edges: local cell, local digit and variable of each."""


def open_units(varmap: GridVarMap, count: int | None = None) -> list[int]:
    """Units with two open cells or more, the most open first (``count`` of them, None: all)."""
    g = varmap.geometry
    sizes = (varmap.fixed == 0).astype(np.int64)[g.units].sum(axis=1)
    order = [int(u) for u in np.argsort(-sizes, kind="stable") if sizes[u] > 1]
    return order if count is None else order[:count]


def _lines(varmap: GridVarMap, units: Sequence[int]) -> tuple[list[int], list[Edges]]:
    """Each unit as a bipartite graph: its size and its (local cell, local digit, variable) edges."""
    g = varmap.geometry
    sizes: list[int] = []
    edges: list[Edges] = []
    for unit in units:
        cells = g.units[unit]
        open_cells = cells[varmap.fixed[cells] == 0]
        missing = np.ones(g.n, dtype=bool)
        placed = varmap.fixed[cells]
        missing[placed[placed > 0] - 1] = False
        local_digit = np.cumsum(missing) - 1
        table = varmap.index[open_cells] * missing[None, :]
        cell, digit = np.nonzero(table)
        if len(open_cells) != int(missing.sum()):
            continue  # cannot happen for a propagated puzzle; the model itself says no
        sizes.append(len(open_cells))
        edges.append((cell.astype(np.int64), local_digit[digit].astype(np.int64), table[cell, digit]))
    return sizes, edges


def _digit_lines(varmap: GridVarMap, digits: Sequence[int]) -> tuple[list[int], list[Edges]]:
    """Each digit as a bipartite graph of the rows and the columns that miss it: its size and its
    (local row, local column, variable) edges."""
    n = varmap.geometry.n
    fixed = varmap.fixed.reshape(n, n)
    sizes: list[int] = []
    edges: list[Edges] = []
    for d in digits:
        rows_missing = ~(fixed == d + 1).any(axis=1)
        cols_missing = ~(fixed == d + 1).any(axis=0)
        if rows_missing.sum() != cols_missing.sum() or rows_missing.sum() < 2:
            continue
        table = varmap.index[:, d].reshape(n, n)[rows_missing][:, cols_missing]
        row, col = np.nonzero(table)
        sizes.append(int(rows_missing.sum()))
        edges.append((row.astype(np.int64), col.astype(np.int64), table[row, col]))
    return sizes, edges


class HallPropagator(Propagator):  # type: ignore[misc]
    """Matching reasoning on the chosen units of a compact-numbered Sudoku model."""

    def __init__(
        self,
        varmap: GridVarMap,
        units: Sequence[int] | None = None,
        prune: bool = True,
        digits: Sequence[int] = (),
        decide_units: Sequence[int] = (),
    ) -> None:
        super().__init__()
        sizes, edges = _lines(varmap, open_units(varmap) if units is None else units)
        more_sizes, more_edges = _digit_lines(varmap, digits)
        sizes += more_sizes
        edges += more_edges
        self.static, self.state, self.stamp, self.out = matching.build(
            sizes, edges, varmap.n_grid_vars, prune
        )
        g = varmap.geometry
        cells = [int(c) for u in decide_units for c in g.units[u] if varmap.fixed[c] == 0]
        cells = list(dict.fromkeys(cells))
        table = varmap.index[cells] if cells else np.zeros((0, g.n), dtype=np.int64)
        self.cell_ptr = np.zeros(len(cells) + 1, dtype=np.int64)
        np.cumsum((table != 0).sum(axis=1), out=self.cell_ptr[1:])
        self.cell_vars = table[table != 0].astype(np.int64)
        self.watched = sorted({int(v) for _, _, var in edges for v in var} | set(self.cell_vars.tolist()))
        self.on_assignment = self.stamp.__setitem__  # the solver calls it with (literal, fixed)
        self.clause: list[int] | None = None

    def setup_observe(self, solver: Any) -> None:
        """Tell ``solver`` (a python-sat Cadical195) which variables this propagator watches."""
        for var in self.watched:
            solver.observe(var)

    @property
    def conflicts(self) -> int:
        """Hall violations reported so far."""
        return int(self.state[matching.CONFLICTS])

    @property
    def prunings(self) -> int:
        """Candidates removed so far."""
        return int(self.state[matching.PRUNED])

    def on_new_level(self) -> None:
        matching.new_level(self.static, self.state, self.stamp)

    def on_backtrack(self, to: int) -> None:
        self.clause = None
        matching.backtrack(self.static, self.state, self.stamp, to)

    def check_model(self, model: list[int]) -> bool:
        return True  # the model's own clauses already say every unit is all different

    def decide(self) -> int:
        if not len(self.cell_vars):
            return 0
        return int(matching.choose(self.static, self.state, self.stamp, self.cell_ptr, self.cell_vars))

    def propagate(self) -> list[int]:
        if self.clause is not None:
            return []
        count = matching.propagate(self.static, self.state, self.stamp, self.out)
        if count < 0:
            self.clause = self.out[:-count].tolist()
            return []
        return self.out[:count].tolist() if count else []

    def provide_reason(self, lit: int) -> list[int]:
        length = matching.reason(self.static, self.state, -lit, self.out)
        return self.out[:length].tolist()

    def has_clause(self) -> bool:
        return self.clause is not None

    def add_clause(self) -> list[int]:
        clause = self.clause or []
        self.clause = None
        return clause


class _Reporting(HallPropagator):
    """The propagator, printing its counts every few CPU seconds (the CPU limit ends the process
    without a word: the last line is the state at the limit)."""

    backtracks = 0
    shown = 0.0

    def on_backtrack(self, to: int) -> None:
        super().on_backtrack(to)
        self.backtracks += 1
        if self.backtracks % 256 == 0 and time.process_time() - self.shown > 5:
            self.shown = time.process_time()
            line = {"cpu": round(self.shown, 1), "backtracks": self.backtracks}
            line.update(hall_conflicts=self.conflicts, removed=self.prunings)
            print(json.dumps(line), flush=True)


def run(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Solve one grid with the propagator as ``args`` says: status, CPU seconds, solver counts."""
    from pysat.solvers import Solver

    from sudoku_cp.backends.pysat_backend import _numbering, _renumber
    from sudoku_cp.checker import valid_solutions_mask
    from sudoku_cp.cnf.sudoku import encode_cnf
    from sudoku_cp.formats import parse_grid

    began = time.process_time()
    grid = parse_grid(path.read_text())
    cnf = encode_cnf(grid, "optimized", use="solve")
    mapping = _numbering(cnf, args.seed)  # the portfolio's numbering of worker ``seed``
    varmap = cnf.varmap
    if mapping is not None:
        index = np.where(varmap.index > 0, mapping[varmap.index], 0)
        varmap = GridVarMap.from_index(varmap.geometry, index, varmap.fixed)
    units = (
        [] if args.units == "none" else open_units(varmap, None if args.units == "all" else int(args.units))
    )
    ordered = open_units(varmap)
    resource.setrlimit(resource.RLIMIT_CPU, (int(args.cpu), int(args.cpu) + 1))
    propagator = _Reporting(
        varmap,
        units,
        prune=not args.no_prune,
        digits=range(grid.n) if args.digits else (),
        decide_units=ordered[: args.decide],
    )
    record: dict[str, Any] = {"file": path.name, "seed": args.seed, "units": len(units)}
    record.update(digits=args.digits)
    record.update(decide=args.decide, prune=not args.no_prune, options=args.options)
    with Solver(name="cadical195") as solver:
        solver.solver.configure({"chrono": 0, **json.loads(args.options)})
        for block in cnf.blocks():
            solver.append_formula(_renumber(block, mapping).tolist())
        solver.connect_propagator(propagator)
        propagator.setup_observe(solver)
        answer = solver.solve()
        record.update(status="SAT" if answer else "UNSAT")
        record.update(cpu=round(time.process_time() - began, 2), **(solver.accum_stats() or {}))
        record.update(hall_conflicts=propagator.conflicts, removed=propagator.prunings)
        if answer:
            values = varmap.decode(solver.get_model()).reshape(1, grid.n, grid.n)
            record["checked"] = bool(valid_solutions_mask(grid, values)[0])
    return record


def main() -> None:
    """Command line: one run, one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--units", default="all", help="all, none or the K most open units")
    parser.add_argument("--digits", action="store_true", help="also each digit's row x column matching")
    parser.add_argument(
        "--decide", type=int, default=0, help="decide first on the cells of the K most open units"
    )
    parser.add_argument("--no-prune", action="store_true", help="Hall conflicts only, no Régin filtering")
    parser.add_argument("--options", default="{}", help="CaDiCaL options as JSON")
    parser.add_argument("--seed", type=int, default=0, help="numbering as the portfolio's worker SEED")
    parser.add_argument("--cpu", type=float, default=60.0, help="CPU-time limit of the process")
    print(json.dumps(run(parser.parse_args().file, parser.parse_args())), flush=True)


if __name__ == "__main__":
    main()
