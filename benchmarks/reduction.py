"""3-SAT -> Nishio reduction on SATLIB formulas: sizes, build time, and deciding each side.

    .venv/bin/python benchmarks/reduction.py [--limit N] [--time-limit S] [--sets uf20-91,uf50-218,uuf50-218]

For the first N files of each SATLIB set in ``../shared/data/satlib`` (read in place; the script
says so and stops when they are absent), per file:

* k, n and |S| of the Theorem 6.1 instance with the full fill and with ``--fill minimal``;
* build time (``reduce_formula``, full fill; the faster of two builds, so that the geometry
  tables a grid size needs once are not counted);
* the time to decide the formula itself with pysat (CaDiCaL 1.9.5), the baseline;
* the time to decide the instance with the Nishio SAT method (CaDiCaL on the Nishio CNF) and
  with CP-SAT, as ratios against the formula's time in the same run;
* Theorem 6.2 (``--nonempty``): the time to decide whether one witness cell lies in S' (a SAT
  call on S with the witness row cut down to that cell).

Every answer is checked against the formula's: a disagreement stops the run.  A time limit per
solve (``--time-limit``) keeps the run short; a solve stopped by it is shown as ``>S`` and
counted as unknown.  Rows print as they finish; medians per set at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import machine

from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.outcome import Status
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.formula import Formula, parse_dimacs, solve_formula

SATLIB = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "satlib"
SETS = ("uf20-91", "uf50-218", "uuf50-218")


@dataclass(frozen=True, slots=True)
class Solve:
    """One decision: the answer (None: stopped by the time limit) and its seconds."""

    answer: bool | None
    seconds: float

    def cell(self) -> str:
        """Seconds, or '>limit' for an unknown answer."""
        return f">{self.seconds:.1f}" if self.answer is None else f"{self.seconds:.3f}"

    def ratio(self, base: float) -> str:
        """Seconds over the baseline's, '-' when unknown."""
        return "-" if self.answer is None else f"{self.seconds / base:,.0f}"


@dataclass(frozen=True, slots=True)
class Measured:
    """Everything measured on one formula file."""

    file: str
    satisfiable: bool
    k: int
    n: int
    cells: int
    cells_minimal: int
    k_nonempty: int
    cells_nonempty: int
    build: float
    build_nonempty: float
    formula: float
    sat: Solve
    cpsat: Solve
    witness: Solve

    def row(self) -> str:
        """One Markdown table row."""
        base = max(self.formula, 1e-6)
        return (
            f"| {self.file} | {'yes' if self.satisfiable else 'no'} | {self.k} | {self.n} | {self.cells:,} "
            f"| {self.cells_minimal:,} | {self.build:.2f} | {self.formula:.4f} "
            f"| {self.sat.cell()} | {self.sat.ratio(base)} | {self.cpsat.cell()} | {self.cpsat.ratio(base)} "
            f"| {self.k_nonempty} | {self.cells_nonempty:,} | {self.build_nonempty:.2f} "
            f"| {self.witness.cell()} | {self.witness.ratio(base)} |"
        )


def _decide(method: str, instance: NishioInstance, time_limit: float) -> Solve:
    """Whether S has a placement by one Nishio method, timed; unknown when the time limit stopped it."""
    solver = make_method(method)
    start = time.perf_counter()
    decision = solver.decide(instance, time_limit)
    seconds = time.perf_counter() - start
    if decision.status is Status.UNKNOWN:
        return Solve(None, seconds)
    cols = decision.placement
    if cols is not None and placement_problem(instance, cols) is not None:
        raise AssertionError(f"{method} returned an invalid placement")
    return Solve(cols is not None, seconds)


def _through(instance: NishioInstance, cell: tuple[int, int]) -> NishioInstance:
    """S with the cell's row cut down to that cell: its placements are S's placements through it."""
    r, c = cell
    mask = instance.mask.copy()
    mask[r] = False
    mask[r, c] = True
    return NishioInstance(instance.geometry, mask)


def _build(formula: Formula, *, nonempty: bool) -> tuple[Reduction, float]:
    """The reduction and its build time, the faster of two builds.

    The first build of a grid size also makes that size's geometry tables (cached per size; up
    to a minute for n in the thousands), which is set-up, not the reduction's own work.
    """
    from sudoku_cp.reduction.construction import reduce_formula

    times = []
    for _ in range(2):
        start = time.perf_counter()
        reduction = reduce_formula(formula, nonempty=nonempty)
        times.append(time.perf_counter() - start)
    return reduction, min(times)


def bench_file(path: Path, time_limit: float) -> Measured:
    """Measure one formula file; AssertionError on any disagreement with the formula's answer."""
    formula = parse_dimacs(path.read_text())
    times = []
    for _ in range(5):  # the baseline is sub-millisecond: a median of five keeps its noise down
        start = time.perf_counter()
        answer, _ = solve_formula(formula)
        times.append(time.perf_counter() - start)
    formula_s = statistics.median(times)
    assert answer is not None
    reduction, build_s = _build(formula, nonempty=False)
    minimal = reduce_formula(formula, fill="minimal")
    sat = _decide("sat", reduction.instance, time_limit)
    cpsat = _decide("cpsat", reduction.instance, time_limit)
    for name, got in (("sat", sat), ("cpsat", cpsat)):
        if got.answer is not None and got.answer != answer:
            raise AssertionError(f"{path.name}: formula {answer} but Nishio {name} says {got.answer}")
    nonempty, build_nonempty = _build(formula, nonempty=True)
    witness = _decide("sat", _through(nonempty.instance, nonempty.witness_cells[0]), time_limit)
    if witness.answer is not None and witness.answer != answer:
        raise AssertionError(f"{path.name}: formula {answer} but witness in S' is {witness.answer}")
    return Measured(
        path.name,
        answer,
        reduction.k,
        reduction.instance.n,
        reduction.instance.size,
        minimal.instance.size,
        nonempty.k,
        nonempty.instance.size,
        build_s,
        build_nonempty,
        formula_s,
        sat,
        cpsat,
        witness,
    )


HEADER = (
    "| file | sat? | k | n | \\|S\\| full | \\|S\\| minimal | build s | formula s | Nishio SAT s | ratio "
    "| CP-SAT s | ratio | k (6.2) | \\|S\\| (6.2) | build (6.2) s | witness SAT s | ratio |"
)


def summary(name: str, rows: list[Measured]) -> str:
    """Medians of one set; unknowns counted."""

    def med(solves: list[Solve]) -> str:
        known = [s.seconds for s in solves if s.answer is not None]
        unknown = len(solves) - len(known)
        text = f"{statistics.median(known):.3f}" if known else "-"
        return text + (f" ({unknown} unknown)" if unknown else "")

    def ratio(solves: list[Solve]) -> str:
        known = [s.seconds / r.formula for s, r in zip(solves, rows, strict=True) if s.answer is not None]
        return f"{statistics.median(known):,.0f}" if known else "-"

    formula = statistics.median(r.formula for r in rows)
    sat, cpsat, witness = [r.sat for r in rows], [r.cpsat for r in rows], [r.witness for r in rows]
    return (
        f"| {name} | {len(rows)} | {statistics.median(r.k for r in rows):g} "
        f"| {statistics.median(r.cells for r in rows):,.0f} | {statistics.median(r.build for r in rows):.2f} "
        f"| {formula:.4f} | {med(sat)} | {ratio(sat)} | {med(cpsat)} | {ratio(cpsat)} "
        f"| {med(witness)} | {ratio(witness)} |"
    )


def _warm_up() -> None:
    """Load the solvers' native code once, so the first measured file pays no start-up."""
    from sudoku_cp.geometry import Geometry

    for method in ("sat", "cpsat"):
        make_method(method).find_placement(NishioInstance.full(Geometry(3, 3)))
    solve_formula(Formula(1, ((1,),)))


def main() -> int:
    """Run the benchmark and print Markdown tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=5, help="files per set (default 5; 20 = all)")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per solve (default 30)")
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated SATLIB sets")
    args = parser.parse_args()
    if not SATLIB.exists():
        print(f"SATLIB corpus absent (expected at {SATLIB}); nothing to measure", file=sys.stderr)
        return 1
    print(f"Machine: {machine()}\n")
    _warm_up()
    sets: dict[str, list[Measured]] = {}
    for name in args.sets.split(","):
        files = sorted((SATLIB / name).glob("*.cnf"), key=lambda p: int(p.stem.split("-0")[-1]))[: args.limit]
        print(f"### {name}: {len(files)} files, time limit {args.time_limit:g} s per solve\n")
        print(HEADER)
        print("|" + "---|" * 2 + "---:|" * 15)
        sets[name] = []
        for path in files:
            measured = bench_file(path, args.time_limit)
            sets[name].append(measured)
            print(measured.row(), flush=True)
        print()
    print("### Medians per set (seconds; ratio: median per-file ratio; unknown: stopped by the time limit)\n")
    print(
        "| set | files | k | \\|S\\| | build | formula (pysat) | Nishio SAT | ratio | CP-SAT | ratio "
        "| witness SAT (6.2) | ratio |"
    )
    print("|---|" + "---:|" * 11)
    for name, rows in sets.items():
        if rows:
            print(summary(name, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
