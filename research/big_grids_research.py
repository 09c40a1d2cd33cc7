"""The CNF variants tried on the hard big grids, and how each is run.

    .venv/bin/python research/big_grids_research.py [--only 64-1] [--cpu 60] [--configs NAME ...]

Appends to ``research/results/big_grids_research.json``; the findings are in ``research/README.md``.

A configuration is a model and a solver:

* propagation before encoding: singles (what the library does), with locked candidates, with
  naked and hidden pairs (``sudoku_cp.propagation.propagate_batch``);
* the groups of the extended encoding over the open candidates (exactly one per cell and per
  row, column and box digit), "at most one" pairwise, sequential, bimander or product;
* optional triads (tdoku-style minirow and minicolumn variables: "digit d is in the part of row
  r inside box stack s", tied to its cells, exactly one per line digit and per box digit, so
  locked candidates follow by unit propagation), optionally with "a minirow holds as many digits
  as it has open cells" as a cardinality constraint;
* the variable numbering: cell-major (the library's), digit-major, random (seeded), by
  candidate count or by how open the cell's lines are, either way round;
* the solver: a DIMACS program (``cadical``, ``minisat``, ``cryptominisat5`` with options) or a
  python-sat solver with CaDiCaL options (``pysat:cadical195 {"phase": 0}``).

Each run is a child process with a CPU-time limit (the machine is shared: CPU time is the
figure), and every model it answers is decoded and checked as a grid.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sudoku_cp.checker import valid_solutions_mask
from sudoku_cp.cnf.dimacs import write_dimacs
from sudoku_cp.formats import parse_grid
from sudoku_cp.grid import Grid
from sudoku_cp.propagation import propagate_batch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from common import SHARED, machine  # noqa: E402  (the benchmarks' helpers)

__all__ = ["CONFIGS", "Config", "Model", "run_config"]

RESULTS = Path(__file__).resolve().parent / "results"

PYSAT_RUNNER = """
import json, sys
from pysat.formula import CNF
from pysat.solvers import Solver
name, path, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with Solver(name=name) as solver:
    if options:
        solver.solver.configure(options)
    solver.append_formula(CNF(from_file=path).clauses)
    ok = solver.solve()
    print('s SATISFIABLE' if ok else 's UNSATISFIABLE')
    if ok:
        print('v', ' '.join(map(str, solver.get_model())), '0')
    print('c stats', json.dumps(solver.accum_stats()))
"""


@dataclass(frozen=True)
class Config:
    """One model and solver to try (see the module docstring)."""

    name: str
    solver: str = "pysat:cadical195"
    locked: bool = False
    pairs: bool = False
    amo: str = "pairwise"
    triads: bool = False
    card: str = ""
    order: str = "cell"
    seed: int = 0


class Model:
    """A CNF over the open candidates of a propagated puzzle, built family by family."""

    def __init__(self, puzzle: Grid, config: Config) -> None:
        g = puzzle.geometry
        state = propagate_batch(g, puzzle.values.reshape(1, -1), locked=config.locked, pairs=config.pairs)
        if state.contradiction[0]:
            raise ValueError("propagation found a contradiction")
        self.puzzle = puzzle
        self.values = state.values[0]
        self.open = state.candidates[0] & (self.values == 0)[:, None]
        self.n = g.n
        self.index = _numbering(self.open, self.values, g.n, config.order, config.seed)
        self.top = int(self.open.sum())
        self.blocks: list[np.ndarray] = []
        for _kind, table in self._groups():
            self._alo(table)
            self._amo(table, config.amo)
        if config.triads:
            self._triads(config.card)

    @property
    def n_clauses(self) -> int:
        """Number of clauses so far."""
        return sum(block.shape[0] for block in self.blocks)

    def _new(self, count: int) -> np.ndarray:
        first = self.top + 1
        self.top += count
        return np.arange(first, first + count, dtype=np.int64)

    def _add(self, block: np.ndarray) -> None:
        if block.size and block.shape[0]:
            self.blocks.append(block.astype(np.int64))

    def _groups(self) -> list[tuple[str, np.ndarray]]:
        n, index = self.n, self.index
        grid = index.reshape(n, n, n)
        boxes = index[self.puzzle.geometry.units[2 * n :]]
        return [
            ("cell", index[self.values == 0]),
            ("row", grid.transpose(0, 2, 1).reshape(n * n, n)),
            ("column", grid.transpose(1, 2, 0).reshape(n * n, n)),
            ("box", boxes.transpose(0, 2, 1).reshape(n * n, n)),
        ]

    def _alo(self, table: np.ndarray) -> None:
        rows = table[(table != 0).any(axis=1)]
        for width in np.unique((rows != 0).sum(axis=1)):
            part = rows[(rows != 0).sum(axis=1) == width]
            self._add(part[part != 0].reshape(-1, int(width)))

    def _amo(self, table: np.ndarray, kind: str) -> None:
        rows = table[(table != 0).sum(axis=1) >= 2]
        for width in np.unique((rows != 0).sum(axis=1)):
            part = rows[(rows != 0).sum(axis=1) == width]
            self._amo_block(part[part != 0].reshape(-1, int(width)), kind)

    def _amo_block(self, rows: np.ndarray, kind: str) -> None:
        m, w = rows.shape
        if kind == "pairwise" or w <= 4:
            a, b = np.triu_indices(w, 1)
            self._add(np.stack([-rows[:, a], -rows[:, b]], axis=2).reshape(-1, 2))
        elif kind == "seq":  # Sinz's sequential counter
            s = self._new(m * (w - 1)).reshape(m, w - 1)
            self._add(np.stack([-rows[:, :-1], s], axis=2).reshape(-1, 2))
            self._add(np.stack([-s[:, :-1], s[:, 1:]], axis=2).reshape(-1, 2))
            self._add(np.stack([-rows[:, 1:], -s], axis=2).reshape(-1, 2))
        elif kind == "bimander":  # pairs pairwise, then the binary code of the pair
            groups = -(-w // 2)
            bits = max(1, int(np.ceil(np.log2(groups))))
            aux = self._new(m * bits).reshape(m, bits)
            for i in range(0, w - 1, 2):
                self._add(np.stack([-rows[:, i], -rows[:, i + 1]], axis=1))
            for i in range(w):
                for bit in range(bits):
                    lit = aux[:, bit] if ((i // 2) >> bit) & 1 else -aux[:, bit]
                    self._add(np.stack([-rows[:, i], lit], axis=1))
        elif kind == "product":  # Chen's product encoding, recursively
            p = int(np.ceil(np.sqrt(w)))
            q = -(-w // p)
            u = self._new(m * p).reshape(m, p)
            v = self._new(m * q).reshape(m, q)
            for i in range(w):
                self._add(np.stack([-rows[:, i], u[:, i // q]], axis=1))
                self._add(np.stack([-rows[:, i], v[:, i % q]], axis=1))
            self._amo_block(u, "pairwise" if p < 8 else "product")
            self._amo_block(v, "pairwise" if q < 8 else "product")
        else:
            raise ValueError(f"unknown at-most-one encoding {kind!r}")

    def _triads(self, card: str) -> None:
        """Minirow and minicolumn variables, each line digit's and box digit's exactly one over them."""
        g = self.puzzle.geometry
        n, p, q = self.n, g.p, g.q
        grid = self.index.reshape(n, n, n)  # row, column, digit
        open_cells = (self.values == 0).reshape(n, n)
        for kind in ("row", "column"):
            if kind == "row":  # [row, stack, digit, cell of the minirow]
                seg = grid.reshape(n, p, q, n).transpose(0, 1, 3, 2)
                openings = open_cells.reshape(n, p, q).sum(axis=2)
            else:  # [column, band, digit, cell of the minicolumn]
                seg = grid.transpose(1, 0, 2).reshape(n, q, p, n).transpose(0, 1, 3, 2)
                openings = open_cells.T.reshape(n, q, p).sum(axis=2)
            width = (seg != 0).sum(axis=-1)
            var = np.zeros(width.shape, dtype=np.int64)
            one = width == 1
            var[one] = seg[one].max(axis=-1)  # one candidate: the triad is that candidate
            many = width > 1
            var[many] = self._new(int(many.sum()))
            cells, triad = seg[many], var[many]
            self._add(np.concatenate([-triad[:, None], cells], axis=1))  # triad -> one of its cells
            present = cells != 0
            spread = np.broadcast_to(triad[:, None], cells.shape)
            self._add(np.stack([-cells[present], spread[present]], axis=1))  # a cell -> its triad
            line = var.transpose(0, 2, 1).reshape(-1, var.shape[1])  # (line, digit) over the segments
            if kind == "row":  # (band, stack, digit) over the band's rows
                box = var.reshape(q, p, p, n).transpose(0, 2, 3, 1).reshape(-1, p)
            else:
                box = var.reshape(p, q, q, n).transpose(0, 2, 3, 1).reshape(-1, q)
            for table in (line, box):
                self._alo(table)
                self._amo(table, "pairwise")
            if card:
                self._card(var, openings, card)

    def _card(self, var: np.ndarray, openings: np.ndarray, encoding: str) -> None:
        """Each minirow (minicolumn) holds exactly as many digits as it has open cells."""
        from pysat.card import CardEnc, EncType
        from pysat.formula import IDPool

        clauses: list[list[int]] = []
        for line in range(var.shape[0]):
            for segment in range(var.shape[1]):
                need = int(openings[line, segment])
                lits = [int(x) for x in var[line, segment] if x]
                if need == 0 or len(lits) <= need:
                    continue
                pool = IDPool(start_from=self.top + 1)
                kind = getattr(EncType, encoding)
                clauses.extend(CardEnc.equals(lits=lits, bound=need, vpool=pool, encoding=kind).clauses)
                self.top = max(self.top, pool.top)
        for width in sorted({len(clause) for clause in clauses}):
            self._add(np.array([c for c in clauses if len(c) == width], dtype=np.int64))

    def decode(self, literals: list[int]) -> np.ndarray:
        """The grid a model describes (propagated digits plus the true candidates)."""
        values = self.values.astype(np.int16).copy()
        true = np.zeros(self.top + 1, dtype=bool)
        lits = np.asarray(literals, dtype=np.int64)
        lits = lits[(lits > 0) & (lits <= self.top)]
        true[lits] = True
        cells, digits = np.nonzero(self.index)
        chosen = true[self.index[cells, digits]]
        values[cells[chosen]] = digits[chosen] + 1
        return values.reshape(self.n, self.n)


def _numbering(open_cand: np.ndarray, values: np.ndarray, n: int, order: str, seed: int) -> np.ndarray:
    """(n*n, n) variable of each open candidate (0: none), numbered in ``order``."""
    count = int(open_cand.sum())
    index = np.zeros(open_cand.shape, dtype=np.int64)
    if order == "cell":
        index[open_cand] = np.arange(1, count + 1)
    elif order == "reverse":
        index[open_cand] = np.arange(count, 0, -1)
    elif order == "digit":
        transposed = np.zeros(open_cand.T.shape, dtype=np.int64)
        transposed[open_cand.T] = np.arange(1, count + 1)
        index = transposed.T.copy()
    elif order == "random":
        index[open_cand] = np.random.default_rng(seed).permutation(count) + 1
    elif order in ("mrv", "mrv_rev", "lines", "lines_rev"):
        if order.startswith("mrv"):
            key = open_cand.sum(axis=1).astype(np.int64)
        else:
            opened = (values == 0).reshape(n, n)
            key = (opened.sum(axis=1)[:, None] + opened.sum(axis=0)[None, :]).ravel().astype(np.int64)
        key = np.where(values == 0, key, 10**9)
        cells = np.argsort(key, kind="stable")
        if order.endswith("_rev"):
            cells = cells[::-1]
        ordered = open_cand[cells]
        ids = np.zeros(ordered.shape, dtype=np.int64)
        ids[ordered] = np.arange(1, count + 1)
        index[cells] = ids
    else:
        raise ValueError(f"unknown order {order!r}")
    return index


def _cpu_limit(seconds: float) -> Any:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(seconds), int(seconds) + 1))

    return limit


def run_config(path: Path, config: Config, cpu_seconds: float) -> dict[str, Any]:
    """Build, write and solve one configuration; its sizes, times, status and the check of its grid."""
    began = time.process_time()
    puzzle = parse_grid(path.read_text())
    model = Model(puzzle, config)
    built = time.process_time() - began
    record: dict[str, Any] = {"file": path.name, **asdict(config)}
    record.update(variables=model.top, clauses=model.n_clauses, encode_cpu=round(built, 2))
    with tempfile.TemporaryDirectory(prefix="big_grids_") as folder:
        cnf = Path(folder) / "model.cnf"
        write_dimacs(cnf, model.blocks, model.top, n_clauses=model.n_clauses)
        if config.solver.startswith("pysat:"):
            name, _, options = config.solver[len("pysat:") :].partition(" ")
            argv = [sys.executable, "-c", PYSAT_RUNNER, name, str(cnf), options or "{}"]
        else:
            argv = [*config.solver.split(), str(cnf)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            run = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=20 * cpu_seconds,
                preexec_fn=_cpu_limit(cpu_seconds),
            )
            out, code = run.stdout, run.returncode
        except subprocess.TimeoutExpired:
            out, code = "", None
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if "s SATISFIABLE" in out:
        status = "SAT"
    elif "s UNSATISFIABLE" in out:
        status = "UNSAT"
    else:
        status = "cpu-limit" if code is None or code < 0 else "unknown"
    record.update(status=status, solve_cpu=round(cpu, 2), solve_wall=round(wall, 2))
    record["load"] = round(os.getloadavg()[0], 1)
    if status == "SAT":
        literals = [int(x) for line in out.splitlines() if line.startswith("v") for x in line.split()[1:]]
        grid = model.decode(literals)
        record["checked"] = bool(valid_solutions_mask(puzzle, grid[None])[0])
        for line in out.splitlines():
            if line.startswith("c stats"):
                record["conflicts"] = json.loads(line[len("c stats") :]).get("conflicts")
    return record


#: The configurations of the research table (benchmarks/README.md, "Big grids"): one model change
#: or solver change at a time against the library's model (singles, extended over open candidates,
#: pairwise, cell-major numbering) on CaDiCaL; random numberings (seed > 0) sample each one's spread.
STABLE_PHASE0 = 'pysat:cadical195 {"stabilizeonly": 1, "phase": 0}'
CONFIGS = [
    Config("cadical program", solver="cadical -q"),
    Config("cadical program, random numbering", solver="cadical -q", order="random", seed=1),
    Config("cadical program, triads", solver="cadical -q", triads=True),
    Config("cadical program, locked", solver="cadical -q", locked=True),
    Config("cadical program, locked, triads", solver="cadical -q", locked=True, triads=True),
    Config("cadical program, phase false", solver="cadical -q --phase=0"),
    Config("cadical program --sat", solver="cadical -q --sat"),
    Config("cadical program --unsat", solver="cadical -q --unsat"),
    Config("cadical program, sequential amo", solver="cadical -q", amo="seq"),
    Config("cadical program, product amo", solver="cadical -q", amo="product"),
    Config("cadical program, bimander amo", solver="cadical -q", amo="bimander"),
    Config(
        "cadical program, triads + minirow cardinality", solver="cadical -q", triads=True, card="seqcounter"
    ),
    Config("cryptominisat5", solver="cryptominisat5 --verb 0"),
    Config("pysat:glucose4", solver="pysat:glucose4"),
    Config("pysat:maplechrono", solver="pysat:maplechrono"),
    Config("pysat:minisat22", solver="pysat:minisat22"),
    Config("pysat:cadical195", solver="pysat:cadical195"),
    Config("pysat:cadical195, phase false", solver='pysat:cadical195 {"phase": 0}'),
    Config(
        "pysat:cadical195 sat config",
        solver='pysat:cadical195 {"elimreleff": 10, "stabilizeonly": 1, "subsumereleff": 60}',
    ),
    Config("pysat:cadical195, stable only, phase false (default)", solver=STABLE_PHASE0),
    Config("same, triads", solver=STABLE_PHASE0, triads=True),
    Config("same, locked", solver=STABLE_PHASE0, locked=True),
    Config("same, digit-major numbering", solver=STABLE_PHASE0, order="digit"),
    Config("same, fewest candidates numbered first", solver=STABLE_PHASE0, order="mrv"),
    Config("same, fewest candidates numbered last", solver=STABLE_PHASE0, order="mrv_rev"),
]


def _files(only: list[str]) -> list[Path]:
    return [SHARED / "big" / f"sudoku-{name}.txt" for name in only]


def research_mode(args: argparse.Namespace) -> None:
    chosen = [c for c in CONFIGS if not args.configs or c.name in args.configs]
    out = RESULTS / "big_grids_research.json"
    done: dict[str, Any] = {"machine": machine(), "runs": []}
    if out.exists():
        done = json.loads(out.read_text())
    for path in _files(args.only or ["64-1"]):
        for config in chosen:
            record = run_config(path, config, args.cpu)
            print(json.dumps(record), flush=True)
            done.setdefault("runs", []).append(record)
            out.write_text(json.dumps(done, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="file name endings, e.g. 64-1 225-1 (default 64-1)")
    parser.add_argument("--cpu", type=float, default=60.0, help="CPU seconds per run")
    parser.add_argument("--configs", nargs="*", help="configurations by name (default: all)")
    research_mode(parser.parse_args())


if __name__ == "__main__":
    main()
