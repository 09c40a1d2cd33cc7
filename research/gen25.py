"""Prototype: a minimal 25x25 puzzle by witnesses in bulk (issue 26 item 3), not one SAT test per given.

    .venv/bin/python research/gen25.py [--box 5x5] [--seed 1] [--attempt 0] [--cpu 600] [--no-regions]

The product (``deduction.generate``) seeds givens until singles solve the grid, spares the givens
singles and locked candidates can, then tests every given left: "does the puzzle without it have
another solution?", one backtrack count each and, for a fifth to two thirds of them on 25x25, one
CaDiCaL call on a formula of its own (1.5-2 s each, ~185 calls, 453 CPU s for seed 1).

Here the same starting point (the product's own seeded and pruned puzzle, via ``carve`` with an
oracle that records each test) is carved by ONE incremental CaDiCaL holding the empty grid's
formula and every given as a soft literal, with "at most one given changes" (pairwise, over
selector literals so a removed given drops out) and, per call, "at least one of the givens still
without a witness changes" (an activation literal retired after the call).  Every answer is a
complete grid that keeps all givens but one, g, and changes g: g's witness.  The solver picks
whichever given is easiest and keeps its learnt clauses across calls.  When the call is
unsatisfiable, every given left without a witness is removable on its own; the first of them in
the product's order goes, the others are asked again on the smaller puzzle (givens only go, so
every witness found stays valid).  That is removal one at a time in the product's order (a given
with a witness on the current puzzle keeps it on every smaller one), so the puzzle is the one the
product's carving makes, compared cell by cell when the product's puzzle is at hand.

Cheap witnesses first (``--no-regions`` skips them): the product's own region searches
(``carve.region_rows``: the given's band and stack, other cells held at the known solution).

Every puzzle made is checked here, apart from the solver that carved it: uniqueness by a fresh
CaDiCaL on the givens as unit clauses with the known solution blocked (unsatisfiable), and
minimality by one witness per given checked cell by cell with numpy (a valid grid, every other
given kept, this one changed).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pysat.solvers import Solver

from sudoku_cp.cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from sudoku_cp.geometry import Geometry, geometry_for_size, parse_box
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline, solve_limited
from sudoku_cp.native.backtrack import search_batch
from sudoku_cp.native.carve import carve, region_rows, rng_states


class Stopped(Exception):
    """The time cap (``Stats.deadline``) stopped a SAT call."""


@dataclass
class Start:
    """The product's carving state before its tests: the seeded and pruned puzzle (n*n,) int8,
    the known solution (n*n,) int8, and the givens left to test, in the product's order."""

    puzzle: np.ndarray
    solution: np.ndarray
    order: list[int]


def product_start(geometry: Geometry, seed: int, attempt: int) -> Start:
    """The product's starting point for attempt ``attempt`` of ``seed``: its own fill, seeding and
    pruning (``carve``, by count, with no time for counts so every test goes to the oracle); the
    oracle answers "no other solution" to each test, so it is asked about every given left in
    order, on a puzzle one given smaller each time; the first question gives the puzzle."""
    asked: list[int] = []
    first: list[np.ndarray] = []

    def recorder(givens: np.ndarray, cell: int, digit: int) -> bool:
        if not first:
            puzzle = givens.copy()
            puzzle[cell] = digit
            first.append(puzzle)
        asked.append(cell)
        return False

    carved = carve(geometry, rng_states(seed, np.array([attempt])), oracle=recorder, test_seconds=0)
    return Start(first[0].astype(np.int8), carved.solutions[0].copy(), asked)


def base_clauses(geometry: Geometry) -> list[list[int]]:
    """The empty grid's CNF (variable ``cell * n + digit + 1``, digit 0-based): exactly one digit
    per cell, each digit exactly once per row, column and box, "at most one" pairwise."""
    n = geometry.n
    var = np.arange(geometry.cells * n, dtype=np.int64).reshape(geometry.cells, n) + 1
    groups = [var]  # per cell: its n digits
    units = np.asarray(geometry.units)  # (3n, n) cells
    groups.append(var[units].transpose(0, 2, 1).reshape(-1, n))  # per unit and digit: its n cells
    i, j = np.triu_indices(n, 1)
    clauses: list[list[int]] = []
    for group in groups:
        clauses.extend(group.tolist())
        pairs = np.stack([-group[:, i], -group[:, j]], axis=2).reshape(-1, 2)
        clauses.extend(pairs.tolist())
    return clauses


@dataclass
class Stats:
    """What a carving spent: SAT calls by answer and their CPU seconds, region witnesses."""

    sat_calls: int = 0
    sat_unsat: int = 0
    sat_seconds: list[float] = field(default_factory=list)
    region_witnesses: int = 0
    region_seconds: float = 0.0
    load_seconds: float = 0.0
    verbose: bool = False
    deadline: Deadline | None = None
    witnesses: int = 0

    def solve(self, solver: Any, assumptions: list[int], pending: int) -> bool:
        """One SAT call under the deadline (``Stopped`` when it passes), counted, timed and logged."""
        start = time.process_time()
        found = solve_limited(solver, assumptions, self.deadline)
        if found is None:
            raise Stopped
        self.sat_seconds.append(time.process_time() - start)
        self.sat_calls += 1
        self.log(pending, bool(found))
        return bool(found)

    def log(self, pending: int, found: bool) -> None:
        """One SAT call's line on stderr (``verbose``)."""
        if self.verbose:
            seconds = self.sat_seconds[-1]
            print(
                f"sat {self.sat_calls} pending {pending} {found} {seconds:.2f}s", file=sys.stderr, flush=True
            )


class BulkWitness:
    """One incremental CaDiCaL: "a solution keeping every active given but one, that one among
    ``pending``" (``ask``); givens leave with ``remove``."""

    def __init__(self, geometry: Geometry, puzzle: np.ndarray, solution: np.ndarray, stats: Stats) -> None:
        start = time.process_time()
        self.n = n = geometry.n
        self.solution = solution
        self.givens = [int(c) for c in np.flatnonzero(puzzle)]
        top = geometry.cells * n
        self.keep = {g: g * n + int(solution[g]) - 1 + 1 for g in self.givens}
        # Per given: r_g (assumed true once the given is removed) and y_g ("it changed and counts").
        self.removed = {g: top + 1 + 2 * k for k, g in enumerate(self.givens)}
        counted = {g: top + 2 + 2 * k for k, g in enumerate(self.givens)}
        self.next_var = top + 2 * len(self.givens) + 1
        self.solver: Any = Solver(name="cadical195")
        clauses = base_clauses(geometry)
        for g in self.givens:  # changed and not removed -> counted
            clauses.append([self.keep[g], self.removed[g], counted[g]])
        ys = [counted[g] for g in self.givens]
        clauses.extend([-a, -b] for a, b in itertools.combinations(ys, 2))  # at most one counted
        self.solver.append_formula(clauses)
        # The known solution as saved phases: a witness mostly agrees with it.
        phases = [
            (c * n + d + 1) * (1 if d == int(solution[c]) - 1 else -1)
            for c in range(geometry.cells)
            for d in range(n)
        ]
        self.solver.set_phases(phases)
        self.gone: set[int] = set()
        self.stats = stats
        stats.load_seconds += time.process_time() - start

    def remove(self, given: int) -> None:
        """The given leaves the puzzle: it may change freely in later answers."""
        self.gone.add(given)

    def ask(self, pending: list[int]) -> tuple[int, np.ndarray] | None:
        """(g, witness) for some g of ``pending``, or None: no given of ``pending`` has one."""
        act = self.next_var
        self.next_var += 1
        self.solver.add_clause([-act] + [-self.keep[g] for g in pending])
        assumptions = [act] + [(1 if g in self.gone else -1) * self.removed[g] for g in self.givens]
        start = time.process_time()
        found = self.solver.solve(assumptions=assumptions)
        self.stats.sat_seconds.append(time.process_time() - start)
        self.stats.sat_calls += 1
        self.stats.log(len(pending), bool(found))
        model = np.asarray(self.solver.get_model()[: self.n * self.n * self.n]) > 0 if found else None
        self.solver.add_clause([-act])  # retired (after reading the model: a new clause drops it)
        if model is None:
            self.stats.sat_unsat += 1
            return None
        grid = (model.reshape(-1, self.n).argmax(axis=1) + 1).astype(np.int8)
        changed = [g for g in self.givens if g not in self.gone and grid[g] != self.solution[g]]
        assert len(changed) == 1 and changed[0] in pending, changed
        return changed[0], grid

    def close(self) -> None:
        """Free the native solver."""
        self.solver.delete()


class BlockOracle:
    """One incremental CaDiCaL on the formula of the puzzle without a block of givens (the rest's
    propagation encoded away, ``encode_cnf``'s optimized encoding): "a solution changing exactly
    one given of the block, one of ``pending``" (``ask``); a given that leaves the puzzle (``remove``)
    is no longer counted.  With a block of one given this is the product's test per given."""

    def __init__(
        self, geometry: Geometry, puzzle: np.ndarray, solution: np.ndarray, block: list[int], stats: Stats
    ) -> None:
        start = time.process_time()
        n = geometry.n
        self.solution = solution
        self.stats = stats
        givens = puzzle.copy()
        givens[block] = 0
        cnf = encode_cnf(
            Grid(geometry, givens.reshape(n, n)), CnfEncoding.OPTIMIZED, AmoEncoding.SEQCOUNTER, use="solve"
        )
        assert not cnf.contradiction  # the known solution solves it
        self.cnf = cnf
        # A given the others' propagation fixes cannot change: it has no witness here.
        self.keep = {
            g: int(cnf.varmap.index[g, int(solution[g]) - 1]) for g in block if cnf.varmap.fixed[g] == 0
        }
        assert all(v > 0 for v in self.keep.values())  # the known digit is a candidate
        self.block = list(self.keep)
        top = cnf.n_vars
        self.removed = {g: top + 1 + 2 * k for k, g in enumerate(self.block)}
        counted = {g: top + 2 + 2 * k for k, g in enumerate(self.block)}
        self.next_var = top + 2 * len(self.block) + 1
        self.solver: Any = Solver(name="cadical195")
        clauses = cnf.clauses()
        while chunk := list(itertools.islice(clauses, 1 << 15)):
            self.solver.append_formula(chunk)
        for g in self.block:  # changed and still a given -> counted; at most one counted
            self.solver.add_clause([self.keep[g], self.removed[g], counted[g]])
        for a, b in itertools.combinations(self.block, 2):
            self.solver.add_clause([-counted[a], -counted[b]])
        self.gone: set[int] = set()
        stats.load_seconds += time.process_time() - start

    def remove(self, given: int) -> None:
        """The given leaves the puzzle: it may change freely in later answers."""
        self.gone.add(given)

    def ask(self, pending: list[int]) -> tuple[int, np.ndarray] | None:
        """(g, witness) for some g of ``pending``, or None: no given of ``pending`` has one."""
        pending = [g for g in pending if g in self.keep]
        if not pending:
            return None
        act = self.next_var
        self.next_var += 1
        self.solver.add_clause([-act] + [-self.keep[g] for g in pending])
        assumptions = [act] + [(1 if g in self.gone else -1) * self.removed[g] for g in self.block]
        found = self.stats.solve(self.solver, assumptions, len(pending))
        grid = (
            np.asarray(self.cnf.varmap.decode(self.solver.get_model()), np.int8).reshape(-1)
            if found
            else None
        )
        self.solver.add_clause([-act])  # retired (after reading the model: a new clause drops it)
        if grid is None:
            self.stats.sat_unsat += 1
            return None
        changed = [g for g in self.block if g not in self.gone and grid[g] != self.solution[g]]
        assert len(changed) == 1 and changed[0] in pending, changed
        return changed[0], grid

    def ask_one(self, given: int) -> np.ndarray | None:
        """A witness of ``given`` alone (the block's other givens still in the puzzle held by
        assumptions), or None: it can go.  Many tests on one formula, loaded once per block."""
        if given not in self.keep:
            return None  # the others' propagation fixes it
        assumptions = [self.removed[h] for h in self.block]  # "exactly one" switched off
        assumptions += [self.keep[h] for h in self.block if h != given and h not in self.gone]
        assumptions.append(-self.keep[given])
        found = self.stats.solve(self.solver, assumptions, 1)
        if not found:
            self.stats.sat_unsat += 1
            return None
        return np.asarray(self.cnf.varmap.decode(self.solver.get_model()), np.int8).reshape(-1)

    def close(self) -> None:
        """Free the native solver."""
        self.solver.delete()


def region_pass(
    geometry: Geometry, puzzle: np.ndarray, solution: np.ndarray, todo: list[int], stats: Stats
) -> dict[int, np.ndarray]:
    """Witnesses the product's region searches find (each given's band and stack, then one more
    band and stack per pass, every other cell held at the known solution)."""
    start = time.process_time()
    found: dict[int, np.ndarray] = {}
    for shift in range(max(geometry.n // geometry.p, geometry.n // geometry.q)):
        left = np.array([g for g in todo if g not in found], np.int64)
        if left.size == 0:
            break
        rows = region_rows(geometry, puzzle, solution, left, shift, False)
        run = search_batch(geometry, rows, limit=2, keep=True, time_limit=0.05)
        other = (run.solutions != solution).any(axis=1)
        for owner, grid in zip(run.owner[other], run.solutions[other], strict=True):
            found.setdefault(int(left[owner]), np.asarray(grid, np.int8))
    stats.region_witnesses += len(found)
    stats.region_seconds += time.process_time() - start
    return found


def carve_bulk(
    geometry: Geometry, start: Start, regions: bool, stats: Stats, block: int = 0, one: bool = False
) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """The minimal puzzle removal one at a time in ``start.order`` gives, with a witness per given.

    ``block`` 0: one solver, every given soft (``BulkWitness``); else blocks of that many givens
    in order, each on a formula of its own (``BlockOracle``; 1: the product's test per given);
    ``one``: the block's givens tested one by one in order on its formula (assumptions)."""
    puzzle = start.puzzle.copy()
    witness: dict[int, np.ndarray] = {}
    if regions:
        witness.update(region_pass(geometry, puzzle, start.solution, start.order, stats))
    if stats.verbose:
        print(
            f"regions: {len(witness)} of {len(start.order)} in {stats.region_seconds:.2f}s",
            file=sys.stderr,
            flush=True,
        )
    todo = [g for g in start.order if g not in witness]
    size = block or len(todo)
    for at in range(0, len(todo), size):
        pending = todo[at : at + size]
        oracle = (
            BulkWitness(geometry, puzzle, start.solution, stats)
            if block == 0
            else BlockOracle(geometry, puzzle, start.solution, pending, stats)
        )
        try:
            while pending and one and isinstance(oracle, BlockOracle):
                grid = oracle.ask_one(pending[0])
                if grid is not None:
                    witness[pending[0]] = grid
                    stats.witnesses += 1
                else:
                    puzzle[pending[0]] = 0
                    oracle.remove(pending[0])
                pending.pop(0)
            while pending:
                answer = oracle.ask(pending)
                if answer is not None:
                    g, grid = answer
                    witness[g] = grid
                    stats.witnesses += 1
                    pending.remove(g)
                    continue
                # No given of pending has a witness: each can go on its own; the first in order goes.
                gone = pending.pop(0)
                puzzle[gone] = 0
                oracle.remove(gone)
        finally:
            oracle.close()
    return puzzle, witness


def two_digit_sets(geometry: Geometry, solution: np.ndarray) -> list[np.ndarray]:
    """The smallest unavoidable sets of two digits: for digits a < b, the cells of a and b that
    must swap together (a unit holding one of them in the set holds the other too), by union-find
    over each unit's a-cell and b-cell; each component swapped is another valid grid."""
    n = geometry.n
    units = np.asarray(geometry.units)
    sets: list[np.ndarray] = []
    for a, b in itertools.combinations(range(1, n + 1), 2):
        parent = {int(c): int(c) for c in np.flatnonzero((solution == a) | (solution == b))}

        def root(c: int, parent: dict[int, int] = parent) -> int:
            while parent[c] != c:
                parent[c] = parent[parent[c]]
                c = parent[c]
            return c

        for unit in units:
            ca, cb = int(unit[solution[unit] == a][0]), int(unit[solution[unit] == b][0])
            parent[root(ca)] = root(cb)
        groups: dict[int, list[int]] = {}
        for c in parent:
            groups.setdefault(root(c), []).append(c)
        sets.extend(np.array(sorted(g), np.int64) for g in groups.values() if len(g) < 2 * n)
    return sets


def region_sets(
    geometry: Geometry, solution: np.ndarray, per_region: int, seconds: float
) -> list[np.ndarray]:
    """Unavoidable sets inside one band or one stack: that region emptied, every other cell held
    at ``solution``, up to ``per_region`` solutions each (the backtrack search); each other
    solution's changed cells."""
    n = geometry.n
    cell = np.arange(geometry.cells)
    regions = [cell // n // geometry.p == k for k in range(n // geometry.p)]
    regions += [cell % n // geometry.q == k for k in range(n // geometry.q)]
    rows = np.array([np.where(free, 0, solution) for free in regions], np.int8)
    run = search_batch(geometry, rows, limit=per_region, keep=True, time_limit=seconds)
    sets = []
    for grid in run.solutions:
        changed = np.flatnonzero(grid != solution)
        if changed.size:
            sets.append(changed)
    return sets


def bottom_up(
    geometry: Geometry, solution: np.ndarray, cpu: float, stats: Stats, seed: int
) -> dict[str, Any]:
    """Probe: givens chosen to hit cheap small unavoidable sets (two digits, one band or stack),
    then SAT asks for another solution and a given from its changed cells joins (one not inside
    any given's certificate set when there is one), until unique or ``cpu`` seconds pass.  Each
    given keeps the set it was chosen for as its certificate while no other given falls inside."""
    rng = np.random.default_rng(seed)
    start = time.process_time()
    small = two_digit_sets(geometry, solution)
    n_two = len(small)
    small += region_sets(geometry, solution, 200, 1.0)
    collected = time.process_time() - start
    if stats.verbose:
        print(f"{len(small)} small sets in {collected:.2f}s", file=sys.stderr, flush=True)
    small.sort(key=len)
    givens: dict[int, np.ndarray] = {}  # given -> its certificate (changed cells of a solution)
    for u in small:
        if any(int(c) in givens for c in u):
            continue
        inside = np.zeros(geometry.cells, np.int64)  # cells inside the fewest certificates first
        for cert in givens.values():
            inside[cert] += 1
        best = u[inside[u] == inside[u].min()]
        givens[int(rng.choice(best))] = u
    hit = len(givens)
    n = geometry.n
    calls = 0
    with Solver(name="cadical195", bootstrap_with=base_clauses(geometry)) as solver:
        solver.add_clause([-(c * n + int(solution[c])) for c in range(geometry.cells)])
        solver.set_phases([c * n + int(solution[c]) for c in range(geometry.cells)])
        unique = False
        while time.process_time() - start < cpu:
            t = time.process_time()
            found = solver.solve(assumptions=[c * n + int(solution[c]) for c in givens])
            stats.sat_seconds.append(time.process_time() - t)
            calls += 1
            stats.sat_calls = calls
            stats.log(len(givens), bool(found))
            if not found:
                unique = True
                break
            model = np.asarray(solver.get_model()[: geometry.cells * n]) > 0
            grid = model.reshape(-1, n).argmax(axis=1) + 1
            changed = np.flatnonzero(grid != solution)
            inside = np.zeros(geometry.cells, np.int64)
            for cert in givens.values():
                inside[cert] += 1
            best = changed[inside[changed] == inside[changed].min()]
            givens[int(rng.choice(best))] = changed
    cells = np.array(sorted(givens))
    valid = sum(1 for g, cert in givens.items() if np.intersect1d(cert, cells).size == 1 and g in cert)
    return {
        "two_digit_sets": n_two,
        "small_sets": len(small),
        "collect_cpu": round(collected, 2),
        "givens_after_small_sets": hit,
        "sat_calls": calls,
        "sat_cpu": round(sum(stats.sat_seconds), 2),
        "sat_max": round(max(stats.sat_seconds, default=0.0), 2),
        "givens": len(givens),
        "unique": unique,
        "certificates_still_valid": valid,
        "cpu": round(time.process_time() - start, 2),
        "set_sizes": [int(np.percentile([len(u) for u in small], q)) for q in (0, 50, 100)],
    }


def check_unique(geometry: Geometry, puzzle: np.ndarray, solution: np.ndarray) -> bool:
    """True when a fresh CaDiCaL finds no solution of ``puzzle`` other than ``solution``."""
    n = geometry.n
    with Solver(name="cadical195", bootstrap_with=base_clauses(geometry)) as solver:
        for c in np.flatnonzero(puzzle):
            solver.add_clause([int(c) * n + int(puzzle[c])])
        solver.add_clause([-(c * n + int(solution[c])) for c in range(geometry.cells)])
        return not solver.solve()


def check_minimal(
    geometry: Geometry, puzzle: np.ndarray, solution: np.ndarray, witness: dict[int, np.ndarray]
) -> str | None:
    """Why ``witness`` does not show ``puzzle`` minimal (None when it does): every given needs a
    valid grid keeping every other given and changing it, checked cell by cell."""
    n = geometry.n
    units = np.asarray(geometry.units)
    if not np.array_equal(solution[np.flatnonzero(puzzle)], puzzle[np.flatnonzero(puzzle)]):
        return "the solution breaks a given"
    for g in np.flatnonzero(puzzle):
        grid = witness.get(int(g))
        if grid is None:
            return f"given {g} has no witness"
        if not (np.sort(grid[units], axis=1) == np.arange(1, n + 1)).all():
            return f"the witness of {g} is not a valid grid"
        for c in np.flatnonzero(puzzle):
            if c != g and grid[c] != puzzle[c]:
                return f"the witness of {g} changes given {c}"
        if grid[g] == puzzle[g]:
            return f"the witness of {g} keeps it"
    return None


def main(argv: list[str] | None = None) -> int:
    """Carve one puzzle, check it, print figures as JSON (and compare with a product's puzzle)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--box", default="5x5")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--attempt", type=int, default=0)
    parser.add_argument("--no-regions", action="store_true")
    parser.add_argument("--block", type=int, default=1, help="givens per SAT formula (0: one for all)")
    parser.add_argument(
        "--bottom-up", type=float, default=0.0, help="run the bottom-up probe for this many CPU s"
    )
    parser.add_argument("--one", action="store_true", help="with --block k: one given at a time per formula")
    parser.add_argument("--cap", type=float, default=None, help="wall seconds for the SAT calls (block > 0)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--product", type=Path, help="an .npz of the product's puzzle and solution")
    args = parser.parse_args(argv)
    p, q = parse_box(args.box)
    geometry = geometry_for_size(p * q, (p, q))
    carve(geometry_for_size(9), rng_states(0, np.array([0])))  # compiled kernels load outside the timing
    stats = Stats(verbose=args.verbose)
    if args.bottom_up:
        solution = product_start(geometry, args.seed, args.attempt).solution
        print(json.dumps(bottom_up(geometry, solution, args.bottom_up, stats, args.seed)), flush=True)
        return 0
    t0 = time.process_time()
    start = product_start(geometry, args.seed, args.attempt)
    t1 = time.process_time()
    stats.deadline = None if args.cap is None else Deadline(args.cap)
    try:
        puzzle, witness = carve_bulk(geometry, start, not args.no_regions, stats, args.block, args.one)
    except Stopped:
        stopped = {
            "box": args.box,
            "seed": args.seed,
            "stopped_after_cpu": round(time.process_time() - t1, 2),
        }
        stopped.update(seeded_pruned=int(np.count_nonzero(start.puzzle)), sat_calls=stats.sat_calls)
        stopped.update(sat_unsat=stats.sat_unsat, sat_witnesses=stats.witnesses)
        stopped.update(region_witnesses=stats.region_witnesses, sat_cpu=round(sum(stats.sat_seconds), 2))
        stopped.update(load_cpu=round(stats.load_seconds, 2))
        print(json.dumps(stopped), flush=True)
        return 2
    t2 = time.process_time()
    unique = check_unique(geometry, puzzle, start.solution)
    t3 = time.process_time()
    problem = check_minimal(geometry, puzzle, start.solution, witness)
    report: dict[str, Any] = {
        "box": args.box,
        "block": args.block,
        "one": args.one,
        "seed": args.seed,
        "seeded_pruned": int(np.count_nonzero(start.puzzle)),
        "givens": int(np.count_nonzero(puzzle)),
        "start_cpu": round(t1 - t0, 2),
        "carve_cpu": round(t2 - t1, 2),
        "unique_check_cpu": round(t3 - t2, 2),
        "unique": unique,
        "minimal": problem or "yes",
        "sat_calls": stats.sat_calls,
        "sat_unsat": stats.sat_unsat,
        "sat_cpu": round(sum(stats.sat_seconds), 2),
        "sat_max": round(max(stats.sat_seconds, default=0.0), 2),
        "load_cpu": round(stats.load_seconds, 2),
        "region_witnesses": stats.region_witnesses,
        "region_cpu": round(stats.region_seconds, 2),
    }
    if args.product is not None and args.product.exists():
        made = np.load(args.product)
        report["same_as_product"] = bool(
            np.array_equal(made["puzzle"], puzzle) and np.array_equal(made["solution"], start.solution)
        )
    print(json.dumps(report), flush=True)
    return 0 if unique and problem is None else 1


if __name__ == "__main__":
    sys.exit(main())
