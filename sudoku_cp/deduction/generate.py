"""Puzzles with one solution, minimal, at every size: optionally symmetric, of a level, or needing rules.

Making (``sudoku_cp.native.carve``, compiled): a random complete grid; givens added in a random order
until singles fix every cell; then each given taken out when a search finds no solution with
that cell changed.  "Minimal" means what users read it as: no single given can be removed (each
kept given has a witness, a second solution of the puzzle without it).  ``symmetric=True``
keeps the givens symmetric under a half turn and works on those pairs instead (minimal among
symmetric pairs, Eppstein 2005's kind).  A test the compiled search has not settled within
``carve``'s node cap goes to SAT (CaDiCaL, ``_SatOracle``): the search's heavy tail on big grids.
From 16x16 on the carving goes by count (``carve``'s ``by_count``): the givens singles and locked
candidates can spare first, then the rest tested together (up to 21x21 each by a search for a
second solution with the given's digit forbidden, ``carve.witness_batch``; above, each counted to
two by the backtrack search).  From 25x25 on each test first looks for a witness in the given's
band and stack (``carve.region_rows``), and the rest go to SAT 16 at a time, one formula per
block (``sat_oracle.block_tests``, ``carve``'s ``block_oracle``); a grid whose witnesses cost
SAT more conflicts than ``GRID_CONFLICTS`` plus ``WITNESS_CONFLICTS`` a test is given up for the
seed's next attempt (a count of conflicts, the same on every machine, so a seed still makes one
puzzle).  From 36x36 on (``SPECULATE_SIDE``, single givens) every grid's tests are that hard, so
none is given up: a test that spends ``SPECULATE_CONFLICTS`` takes its given out on speculation,
and ``sat_oracle.repair`` then puts givens back until no other solution exists, each given with
a witness (a given it takes out again is proved to go), so the puzzle is minimal and unique.

Proof, by other paths than the ones that made the puzzle (fail closed: a puzzle not proved is
never returned):

- uniqueness: the native ``backtrack`` search (``native.backtrack.search_batch``, its own
  kernels and rules, a whole batch in one call) counts each puzzle's solutions to two, to the
  end, and must find exactly the known one; a puzzle it has not finished within
  ``PROOF_SECONDS`` (under a deadline: the time left) goes to SAT
  (``proof.StepProver.other_solution``: the known solution blocked, the givens assumed;
  unsatisfiable means unique);
- minimality: every witness is checked with numpy (``carve.check_witnesses``): a valid grid that
  keeps every other given and changes this one.

Targets by rejection: ``level`` keeps the puzzles the rating puts at that level; ``require``
keeps those whose deduction (the engine's steps, as ``explain`` shows them) uses each named rule
(a rule or a family, looked up in ``rules.RULES`` when asked: the table grows).

Every puzzle comes from attempt ``k`` of a seed (its own random stream), so a seed reproduces the
same puzzles whatever else runs and however attempts are batched.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numba
import numpy as np

from ..errors import SudokuCpError
from ..executor import Executor, Work, run_ordered, usable_cores
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached, solve_limited, watch_compilation
from ..native.carve import REGION_SIDE, BlockAnswers, Carved, carve, check_witnesses, rng_states
from ..native.propagation import (
    MAX_SIDE,
    PropagationTables,
    Scratch,
    fix,
    masks_to_values,
    new_scratch,
    propagation_tables,
)
from ..outcome import Status
from ..propagation.bitset import popcount
from .proof import StepProver
from .rate import LEVELS, Rating, rate
from .rules import FAMILIES, RULES, Rule, select_rules

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "FRESH_SAT_SIDE",
    "GIVE_UP_CALLS",
    "GIVE_UP_MAX",
    "GRID_CONFLICTS",
    "SPECULATE_CONFLICTS",
    "SPECULATE_SIDE",
    "WITNESS_CONFLICTS",
    "LEVEL_NAMES",
    "PROOF_SECONDS",
    "GenerateError",
    "Generated",
    "fill_givens",
    "generate_puzzle",
    "generate_puzzles",
    "required_rules",
]

#: The level names a target may name (``rate.LEVELS``).
LEVEL_NAMES: tuple[str, ...] = tuple(name for name, _ in LEVELS)
#: Seconds the backtrack search spends on one puzzle's uniqueness before SAT takes it.
PROOF_SECONDS = 2.0
#: The same from ``FRESH_SAT_SIDE`` on, where the backtrack search proves a few puzzles within
#: 0.1 s and the rest not within 2 s, while SAT on the puzzle's own formula takes 0.4-1.2 CPU s
#: (25x25 seeds 2, 3, 6, 8: 2 s here was a fifth of a whole run).
PROOF_SECONDS_SAT_SIDE = 0.25
#: From this side on each carving test SAT takes gets a formula of its own (the givens'
#: propagation encoded away) instead of assumptions on the empty grid's: on eight 25x25 tests
#: 9.0 s against 26-29 s for one incremental CaDiCaL, the same answers.
FRESH_SAT_SIDE = 25
#: From ``carve.REGION_SIDE`` on the SAT tests go in blocks (``sat_oracle.block_tests``); a grid
#: whose tests spend more conflicts than ``GRID_CONFLICTS`` plus ``WITNESS_CONFLICTS`` a test, within
#: its first ``GIVE_UP_CALLS`` tests, is given up for the seed's next attempt: conflicts, not
#: seconds, so a seed makes the same puzzle on any machine.  A grid's first 32 tests foretell its
#: whole cost (25x25, 44 grids: the whole carving spends 4-8x their conflicts; grids at 2,600-7,400
#: for their first 32 carve in 19,000-42,000 in all, those at 12,000-150,000 in 100,000-270,000
#: or more), a grid given up there costs about 1 CPU s (0.2 s of seeding and region searches,
#: ~8,000 conflicts), and a fifth of the grids pass: the cheap ones are worth waiting for
#: (research/gen25.md, session 11).
WITNESS_CONFLICTS = 200
#: The head start of a grid's conflicts (``WITNESS_CONFLICTS``): a few hard tests early on do not
#: give a grid up.
GRID_CONFLICTS = 2000
#: After this many grids given up in one call, the next grids are carved to the end whatever
#: their SAT tests cost: the generator always ends (36x36 symmetric: every grid is over budget).
#: With a fifth of the 25x25 grids passing, 16 given up in a row happens to 2-3 seeds in 100.
GIVE_UP_MAX = 16
#: From this side on (single givens, not symmetric pairs) no grid is given up: every grid's tests
#: are hard there (36x36: 8,000-600,000 conflicts and more for a given that can go, once the
#: puzzle holds under about 52 % of its cells), so a test that spends ``SPECULATE_CONFLICTS``
#: takes its given out on speculation, and ``sat_oracle.repair`` then makes the puzzle unique
#: again, keeping a witness for every given (research/gen25.md, session 12).
SPECULATE_SIDE = 36
#: The conflicts of one speculative test (36x36: about 0.3-0.7 s).
SPECULATE_CONFLICTS = 5000
#: A grid is judged on its first this many SAT tests only (``GRID_CONFLICTS``): later tests of a
#: grid that passed them are rarely much harder (25x25: 5-8x the first 32 tests' conflicts in all).
GIVE_UP_CALLS = 32
# The longest list of known names an unknown --require name's error holds (its line: 500 at most).
_KNOWN_CHARS = 400
# Cells carved in one compiled call, at most (a batch of attempts): 64 9x9 puzzles, one 64x64.
_BATCH_CELLS = 64 * 81


class GenerateError(SudokuCpError, ValueError):
    """A request the generator cannot meet: an unknown level or rule, a bad count."""


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated puzzle, its solution, and how it was made and proved.

    ``attempt``: the attempt number of the seed it came from; ``restarts``: fills started again;
    ``filled``: givens before carving; ``rating``: its rating when asked for (a level, JSON);
    ``rules``: the rules its deduction used (with ``require``), by name; ``proof``: the path
    that proved it unique ("backtrack" or "sat"); ``hard``: carving tests SAT answered.
    """

    puzzle: Grid
    solution: Grid
    attempt: int
    restarts: int
    filled: int
    rating: Rating | None = None
    rules: tuple[str, ...] | None = None
    proof: str = "backtrack"
    hard: int = 0


# -- the paper's fill (Eppstein 2005, section 3.6): random grids for tests ----------------------------


@numba.njit(cache=True)
def _fill_once(
    masks: np.ndarray, work: Scratch, tables: PropagationTables, draws: np.ndarray, pairs: np.ndarray
) -> tuple[int, int]:  # pragma: no cover - compiled
    """One fill from the empty grid's ``masks``: (1 solved or -1 contradiction, pairs added).

    ``draws`` holds uniform numbers in [0, 1) (three per pair at most: the cell and two digits);
    ``pairs[i]`` receives the i-th pair's cell and partner (-1 for the centre of an odd grid).
    """
    cells = masks.shape[0]
    open_cells = np.empty(cells, dtype=np.int64)
    k = 0
    added = 0
    while True:
        count = 0
        for c in range(cells):
            if popcount(masks[c]) > 1:
                open_cells[count] = c
                count += 1
        if count == 0:
            return 1, added
        cell = open_cells[int(draws[k] * count)]
        k += 1
        partner = cells - 1 - cell
        pairs[added, 0] = cell
        pairs[added, 1] = -1 if partner == cell else partner
        added += 1
        for one in (cell, partner):
            m = masks[one]
            options = popcount(m)
            if options == 1:
                continue  # the partner was already forced: it is a given as it stands
            chosen = int(draws[k] * options)
            k += 1
            bit = m & ~(m - np.uint64(1))  # the lowest candidate, then step up to the chosen one
            for _ in range(chosen):
                m &= ~bit
                bit = m & ~(m - np.uint64(1))
            if not fix(masks, one, bit, work, tables, True):
                return -1, added


def fill_givens(
    geometry: Geometry, rng: np.random.Generator, time_limit: float | Deadline | None = None
) -> tuple[list[tuple[int, ...]], Grid, int] | None:
    """The paper's fill: symmetric pairs of givens until singles solve the grid.

    Returns (pairs in the order they were added, the solution, restarts), or None when the
    time limit (seconds, or a ``Deadline``) passed first.  A random complete grid for tests; the
    generator carves its own.
    """
    deadline = None if time_limit is None else Deadline.of(time_limit)
    n = geometry.n
    cells = n * n
    tables = propagation_tables(geometry)
    work = new_scratch(n)
    pairs = np.empty((cells, 2), dtype=np.int64)
    restarts = 0
    while True:
        if deadline is not None and deadline.expired():
            return None
        masks = np.full(cells, tables.full, dtype=np.uint64)
        status, added = _fill_once(masks, work, tables, rng.random(3 * cells), pairs)
        if status == 1:
            chosen = [tuple(int(c) for c in pair if c >= 0) for pair in pairs[:added]]
            return chosen, Grid(geometry, masks_to_values(masks, n)), restarts
        restarts += 1  # a contradiction: the paper starts the fill again


# -- SAT: the carving's heavy tail ---------------------------------------------------------------


def _speculates(geometry: Geometry, symmetric: bool) -> bool:
    """Whether the carving's SAT tests take givens out on speculation (``SPECULATE_SIDE``)."""
    return geometry.n >= SPECULATE_SIDE and not symmetric


class _SatOracle:
    """The empty grid's CNF in one incremental CaDiCaL: "a solution keeping these givens, with
    this cell holding another digit?" (``carve.Oracle``).  Made on the first question."""

    def __init__(self, geometry: Geometry, deadline: Deadline | None) -> None:
        self.geometry = geometry
        self.deadline = deadline
        self.give_up = True  # block tests: grids over ``GRID_CONFLICTS`` are given up
        self._solver: Any = None
        self._cnf: Any = None

    def _open(self) -> None:
        from pysat.solvers import Solver

        from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf

        amo = AmoEncoding.PAIRWISE if self.geometry.n <= 16 else AmoEncoding.SEQCOUNTER
        cnf = encode_cnf(
            Grid.empty(self.geometry), CnfEncoding.EXTENDED, amo, deadline=self.deadline, use="solve"
        )
        solver = Solver(name="cadical195")
        try:
            clauses = cnf.clauses()
            while chunk := list(itertools.islice(clauses, 1 << 15)):  # the deadline between chunks
                if self.deadline is not None:
                    self.deadline.check("loading the carving's SAT solver")
                solver.append_formula(chunk)
        except BaseException:
            solver.delete()
            raise
        self._cnf, self._solver = cnf, solver

    def __call__(self, givens: np.ndarray, cell: int, digit: int) -> np.ndarray | bool | None:
        if self.geometry.n >= FRESH_SAT_SIDE:
            return self._fresh(givens, cell, digit)
        if self._solver is None:
            try:
                self._open()
            except TimeLimitReached:
                return None
        index = self._cnf.varmap.index
        cells = np.flatnonzero(givens)
        assumptions = [int(v) for v in index[cells, givens[cells].astype(np.int64) - 1]]
        assumptions.append(-int(index[cell, digit - 1]))
        answer = solve_limited(self._solver, assumptions, self.deadline)
        if answer is None:
            return None
        if not answer:
            return False
        return np.asarray(self._cnf.varmap.decode(self._solver.get_model())).reshape(-1)

    def _fresh(self, givens: np.ndarray, cell: int, digit: int) -> np.ndarray | bool | None:
        """The question on a formula of its own: the givens' propagation encoded away (the
        optimized encoding), the cell's digit forbidden by a unit clause."""
        from pysat.solvers import Solver

        from ..cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf

        n = self.geometry.n
        try:
            cnf = encode_cnf(
                Grid(self.geometry, givens.reshape(n, n)),
                CnfEncoding.OPTIMIZED,
                AmoEncoding.SEQCOUNTER,
                deadline=self.deadline,
                use="solve",
            )
        except TimeLimitReached:
            return None
        if cnf.contradiction or cnf.varmap.fixed[cell] == digit:
            return False  # the givens' propagation fixes the cell's digit (or no solution at all)
        variable = int(cnf.varmap.index[cell, digit - 1])
        solver = Solver(name="cadical195")
        try:
            clauses = cnf.clauses()
            while chunk := list(itertools.islice(clauses, 1 << 15)):  # the deadline between chunks
                if self.deadline is not None and self.deadline.expired():
                    return None
                solver.append_formula(chunk)
            if variable > 0:  # else the digit is no candidate there: any solution changes it
                solver.add_clause([-variable])
            answer = solve_limited(solver, [], self.deadline)
            if answer is None:
                return None
            if not answer:
                return False
            return np.asarray(cnf.varmap.decode(solver.get_model())).reshape(-1)
        finally:
            solver.delete()

    def tests(
        self,
        puzzle: np.ndarray,
        solution: np.ndarray,
        firsts: Sequence[int],
        symmetric: bool,
        spent: int,
        asked: int,
    ) -> BlockAnswers:
        """A block of tests on one formula (``carve.BlockOracle``, ``sat_oracle.block_tests``),
        the grid within ``GRID_CONFLICTS`` plus ``WITNESS_CONFLICTS`` a call."""
        from .sat_oracle import block_tests

        speculate = _speculates(self.geometry, symmetric)
        return block_tests(
            self.geometry,
            puzzle,
            solution,
            firsts,
            symmetric,
            deadline=self.deadline,
            spent=spent,
            asked=asked,
            head_start=GRID_CONFLICTS if self.give_up and not speculate else None,
            per_call=WITNESS_CONFLICTS,
            window=GIVE_UP_CALLS,
            call_cap=SPECULATE_CONFLICTS if speculate else None,
        )

    def close(self) -> None:
        """Free the native solver (idempotent)."""
        solver, self._solver = self._solver, None
        if solver is not None:
            solver.delete()


# -- proof -----------------------------------------------------------------------------------------


def _prove_unique(
    geometry: Geometry,
    puzzles: np.ndarray,
    solutions: np.ndarray,
    deadline: Deadline | None,
    prover: StepProver | None,
) -> list[str | None]:
    """The path that proved each puzzle (B, n*n) unique with solution ``solutions`` (B, n*n):
    "backtrack" or "sat"; None when neither did before the deadline (or, never expected, a
    second solution turned up: the puzzle is then dropped, not returned)."""
    from ..native.backtrack import search_batch

    # Each puzzle gets PROOF_SECONDS; under a deadline the whole batch stops at it (never later).
    # From FRESH_SAT_SIDE on the backtrack search gets a short while only, deadline or not: SAT
    # proves what it leaves, and a search that ran to the deadline would leave SAT no time.
    limited = deadline is not None and deadline.remaining() is not None
    limit: float | Deadline = deadline if limited and deadline is not None else PROOF_SECONDS
    if geometry.n >= FRESH_SAT_SIDE:
        remaining = None if deadline is None else deadline.remaining()
        short = PROOF_SECONDS_SAT_SIDE * puzzles.shape[0]
        limit = PROOF_SECONDS_SAT_SIDE if remaining is None else Deadline(min(short, remaining))
    run = search_batch(geometry, puzzles, limit=2, keep=True, time_limit=limit)
    found: dict[int, list[np.ndarray]] = {}
    for owner, grid in zip(run.owner, run.solutions, strict=True):
        found.setdefault(int(owner), []).append(grid)
    proofs: list[str | None] = []
    own = None
    try:
        for b in range(puzzles.shape[0]):
            grids = found.get(b, [])
            if run.complete[b]:
                one = int(run.counts[b]) == 1 and np.array_equal(grids[0], solutions[b])
                proofs.append("backtrack" if one else None)
                continue
            if int(run.counts[b]) >= 2 or (deadline is not None and deadline.expired()):
                proofs.append(None)
                continue
            n = geometry.n
            givens = puzzles[b].reshape(n, n).astype(np.int16)
            solution = solutions[b].reshape(n, n).astype(np.int16)
            if prover is None and n >= FRESH_SAT_SIDE:
                # The puzzle's own formula: on 25x25 2.8 CPU s against 9.8 s for the empty grid's
                # with the givens assumed (seed 0); still the extended encoding, not the carving's.
                with StepProver(Grid(geometry, givens), deadline=deadline) as alone:
                    other = alone.other_solution(givens, solution)
                proofs.append("sat" if other is False else None)
                continue
            if prover is None and own is None:
                own = StepProver(Grid.empty(geometry), deadline=deadline)
            sat = prover if prover is not None else own
            assert sat is not None
            other = sat.other_solution(givens, solution)
            sat.forget_solution(solution)
            proofs.append("sat" if other is False else None)
    except TimeLimitReached:
        proofs.extend([None] * (puzzles.shape[0] - len(proofs)))
    finally:
        if own is not None:
            own.close()
    return proofs


# -- targets ---------------------------------------------------------------------------------------


def required_rules(names: Sequence[str]) -> tuple[tuple[str, tuple[Rule, ...]], ...]:
    """Each name of ``names`` (a rule or a family, as ``explain --rules`` takes them) with the
    rules that meet it; GenerateError naming the known ones for an unknown name."""
    wanted = []
    for raw in names:
        name = raw.strip()
        hits = tuple(rule for rule in RULES if name in (rule.name, rule.family))
        if not hits:
            known = f"rules: {', '.join(rule.name for rule in RULES)}; families: {', '.join(FAMILIES)}"
            if len(known) > _KNOWN_CHARS:  # an error is one line of at most 500 characters
                known = f"families: {', '.join(FAMILIES)}; every rule: 'sudoku-cp generate --help'"
            raise GenerateError(f"unknown rule {name!r} for --require ({known})")
        wanted.append((name, hits))
    return tuple(wanted)


def _check_request(geometry: Geometry, count: int, seed: int, level: str | None) -> None:
    if geometry.n > MAX_SIDE:
        raise GenerateError(
            f"the generator's uniqueness search takes grids up to {MAX_SIDE}x{MAX_SIDE}, "
            f"not {geometry.n}x{geometry.n}"
        )
    if count < 0:
        raise GenerateError(f"the count must be at least 0, not {count}")
    if seed < 0:
        raise GenerateError(f"the seed must be at least 0, not {seed}")
    if level is not None and level not in LEVEL_NAMES:
        raise GenerateError(f"unknown level {level!r} (levels: {', '.join(LEVEL_NAMES)})")


def _made(
    geometry: Geometry,
    seed: int,
    attempts: np.ndarray,
    symmetric: bool,
    deadline: Deadline | None,
    prover: StepProver | None,
    oracle: _SatOracle | None = None,
) -> Iterator[Generated | None]:
    """The proved puzzles of ``attempts`` of ``seed``, in attempt order, None for an attempt given
    up (its witnesses too hard for SAT: ``GRID_CONFLICTS``); fewer when the deadline passes:
    those finished and proved before it.  ``oracle``: a batch's SAT solver to share."""
    if deadline is not None and deadline.expired():
        return  # the carving's first chunk would run before it looks at the clock
    own = oracle is None
    sat = _SatOracle(geometry, deadline) if oracle is None else oracle
    try:
        carved: Carved = carve(
            geometry,
            rng_states(seed, attempts),
            symmetric=symmetric,
            deadline=deadline,
            oracle=sat,
            block_oracle=sat,
        )
    finally:
        if own:
            sat.close()
    done = np.flatnonzero(carved.done)
    finished = carved.done | carved.abandoned
    ended = int(np.argmin(finished)) if not finished.all() else finished.size  # attempts settled, in order
    if done.size and _speculates(geometry, symmetric):
        from .sat_oracle import repair

        for at, k in enumerate(done.tolist()):
            if not repair(
                geometry,
                carved.puzzles[k],
                carved.solutions[k],
                carved.witness[k],
                deadline=deadline,
                call_cap=SPECULATE_CONFLICTS,
            ):
                done, ended = done[:at], min(ended, k)  # the deadline: the attempts before it stand
                break
    for b in done:
        problem = check_witnesses(geometry, carved.puzzles[b], carved.witness[b], symmetric=symmetric)
        if problem is not None:  # a bug of the carving search: never hand out such a puzzle
            raise SudokuCpError(f"generator: attempt {int(attempts[b])} is not shown minimal: {problem}")
    proofs = (
        dict(
            zip(
                done.tolist(),
                _prove_unique(geometry, carved.puzzles[done], carved.solutions[done], deadline, prover),
                strict=True,
            )
        )
        if done.size
        else {}
    )
    n = geometry.n
    for k in range(ended):
        if carved.abandoned[k]:
            yield None
            continue
        proof = proofs[k]
        if proof is None:
            return  # the deadline stopped the proof (fail closed: an unproved puzzle is not given)
        yield Generated(
            Grid(geometry, carved.puzzles[k].reshape(n, n)),
            Grid(geometry, carved.solutions[k].reshape(n, n)),
            int(attempts[k]),
            int(carved.restarts[k]),
            _filled(carved, k, symmetric),
            proof=proof,
            hard=int(carved.hard[k]),
        )


def _filled(carved: Carved, b: int, symmetric: bool) -> int:
    """Givens of attempt ``b`` before carving (a pair's two cells count two)."""
    first = carved.order[b, : carved.seeded[b]]
    cells = carved.puzzles.shape[1]
    return int(first.size + (np.count_nonzero(cells - 1 - first != first) if symmetric else 0))


def generate_puzzle(
    geometry: Geometry,
    seed: int,
    attempt: int = 0,
    *,
    symmetric: bool = False,
    time_limit: float | Deadline | None = None,
    prover: StepProver | None = None,
) -> Generated | None:
    """Attempt ``attempt`` of ``seed``: one minimal puzzle with a proved unique solution.

    From ``carve.REGION_SIDE`` on, an attempt whose witnesses are too hard for SAT
    (``GRID_CONFLICTS``) is given up for the next one (``Generated.attempt`` says which made
    it; after ``GIVE_UP_MAX`` of them, the next is carved to its end).
    ``prover``: a SAT solver of the empty grid for the proofs the backtrack search leaves (made
    when needed if None).  None when the time limit (seconds, or a ``Deadline``) passed first.
    """
    _check_request(geometry, 1, seed, None)
    deadline = None if time_limit is None else Deadline.of(time_limit)
    oracle = _SatOracle(geometry, deadline)
    try:
        for given_up in itertools.count():
            oracle.give_up = given_up < GIVE_UP_MAX
            made = list(
                itertools.islice(
                    _made(geometry, seed, np.array([attempt]), symmetric, deadline, prover, oracle), 1
                )
            )
            if not made:
                return None  # the deadline stopped it
            if made[0] is not None:
                return made[0]
            attempt += 1
        raise AssertionError("unreachable: the attempts never run out")
    finally:
        oracle.close()


def generate_puzzles(
    geometry: Geometry,
    count: int,
    seed: int = 0,
    level: str | None = None,
    *,
    rules: Sequence[Rule] | None = None,
    require: Sequence[str] = (),
    symmetric: bool = False,
    rated: bool = False,
    max_attempts: int | None = None,
    time_limit: float | Deadline | None = None,
    executor: Executor | None = None,
) -> Iterator[Generated]:
    """Up to ``count`` minimal puzzles from ``seed``, attempt after attempt, with targets.

    ``level``: only the attempts the rating (with ``rules``: all non-uniqueness rules by default)
    puts at that level; ``require``: only those whose deduction uses each named rule or family
    (the required rules join ``rules``); ``rated``: rate every puzzle without filtering;
    ``symmetric``: half-turn symmetric givens, minimal among pairs.  The iterator stops early,
    with fewer puzzles, when ``max_attempts`` attempts are spent or the time limit (seconds for
    the whole batch, or a ``Deadline``) passes.  ``executor``: where runs of attempts are carved
    (and rated) below ``carve.REGION_SIDE``, the same puzzles in the same order as here (each
    attempt has its own random stream); from 25x25 on the attempts run here, one after the other
    (whether a grid is given up depends on the grids given up before it).
    """
    _check_request(geometry, count, seed, level)
    deadline = None if time_limit is None else Deadline.of(time_limit)
    wanted = required_rules(require)
    if wanted:
        chosen = {rule.name for rule in (rules if rules is not None else select_rules())}
        chosen |= {rule.name for _, hits in wanted for rule in hits}
        rules = tuple(rule for rule in RULES if rule.name in chosen)
    if count == 0:
        return
    filtered = level is not None or bool(wanted)
    # From 25x25 on, whether a grid is given up depends on the grids given up before it: one
    # puzzle without a target (attempt k allowed to give up while k < GIVE_UP_MAX) still can go.
    # On speculation no grid is given up: a second attempt beside the first would never be used.
    alone = count == 1 and not filtered and not _speculates(geometry, symmetric)
    side_by_side = geometry.n < REGION_SIDE or alone
    if executor is not None and executor.parallel and side_by_side:
        yield from _generate_on(executor, geometry, count, seed, level, rules, require, symmetric, rated,
                                max_attempts, deadline)  # fmt: skip
        return
    per_batch = max(1, _BATCH_CELLS // geometry.cells)
    made = 0
    attempt = 0
    given_up = 0
    oracle = _SatOracle(geometry, deadline)  # one SAT solver for every batch (its formula costs 1 s on 16x16)
    try:
        while made < count and (max_attempts is None or attempt < max_attempts):
            size = per_batch if filtered else min(per_batch, count - made)
            if max_attempts is not None:
                size = min(size, max_attempts - attempt)
            attempts = np.arange(attempt, attempt + size)
            oracle.give_up = given_up < GIVE_UP_MAX
            finished = 0
            for generated in _made(geometry, seed, attempts, symmetric, deadline, None, oracle):
                finished += 1
                if generated is None:
                    given_up += 1  # its witnesses were too hard for SAT
                    continue
                kept = _target(generated, rules, level, wanted, rated, deadline)
                if kept is None:
                    if deadline is not None and deadline.expired():
                        return
                    continue
                made += 1
                yield kept
                if made == count:
                    return
            if finished < size:
                return  # the deadline stopped the batch
            attempt += size
    finally:
        oracle.close()


# -- the same on an executor: runs of attempts carved in worker processes ------------------------

#: What became of one attempt in a worker: made (the puzzle), rejected by a target, given up,
#: stopped by the deadline, or crashed (the worker's error).
_MADE, _REJECTED, _GIVEN_UP, _STOPPED, _CRASHED = "made", "rejected", "given up", "stopped", "crashed"
_Outcome = tuple[str, Generated | str | None]


@dataclass(frozen=True, slots=True)
class _Attempts:
    """A chunk of a batch on an executor: attempts ``start`` .. ``start + size - 1`` of ``seed``, the
    targets (rules by name, None: the default rules), the deadline's wall-clock end, and whether
    a grid whose SAT tests are too hard may be given up (from 25x25 on)."""

    p: int
    q: int
    seed: int
    start: int
    size: int
    symmetric: bool
    rules: tuple[str, ...] | None
    level: str | None
    require: tuple[str, ...]
    rated: bool
    end: float | None
    give_up: bool = True


#: A worker's SAT solver for the carving's heavy tail, per box shape (its formula costs 1 s on
#: 16x16: made on the first question, kept for the worker's next chunks as a batch here keeps one).
_worker_oracles: dict[tuple[int, int], _SatOracle] = {}


def _run_attempts(chunk: _Attempts) -> list[_Outcome]:
    """One outcome per attempt of the chunk, in attempt order (``_Outcome``)."""
    geometry = Geometry(chunk.p, chunk.q)
    deadline = Deadline.until(chunk.end)
    oracle = _worker_oracles.get((chunk.p, chunk.q))
    if oracle is None:
        oracle = _worker_oracles[chunk.p, chunk.q] = _SatOracle(geometry, deadline)
    oracle.deadline, oracle.give_up = deadline, chunk.give_up
    rules = None if chunk.rules is None else select_rules(chunk.rules)
    wanted = required_rules(chunk.require)
    attempts = np.arange(chunk.start, chunk.start + chunk.size)
    outcomes: list[_Outcome] = []
    for generated in _made(geometry, chunk.seed, attempts, chunk.symmetric, deadline, None, oracle):
        if generated is None:
            outcomes.append((_GIVEN_UP, None))
            continue
        kept = _target(generated, rules, chunk.level, wanted, chunk.rated, deadline)
        if kept is None and deadline is not None and deadline.expired():
            break
        outcomes.append((_REJECTED, None) if kept is None else (_MADE, kept))
    return outcomes + [(_STOPPED, None)] * (chunk.size - len(outcomes))


def _crashed_attempts(chunk: _Attempts, why: str) -> list[_Outcome]:
    return [(_CRASHED, why)] * chunk.size


_ATTEMPTS_WORK: Work[_Attempts, _Outcome] = Work(_run_attempts, _crashed_attempts)


def _generate_on(
    executor: Executor,
    geometry: Geometry,
    count: int,
    seed: int,
    level: str | None,
    rules: Sequence[Rule] | None,
    require: Sequence[str],
    symmetric: bool,
    rated: bool,
    max_attempts: int | None,
    deadline: Deadline | None,
) -> Iterator[Generated]:
    """``generate_puzzles`` with runs of attempts carved where ``executor`` says, read in order.

    From 25x25 on (one puzzle, no target) each attempt is a run of its own, as many out as there
    are workers: most grids are given up within their first SAT tests (``GIVE_UP_CALLS``), and
    the next ones are tried meanwhile; the first attempt in order that makes a puzzle wins, the
    one a single process makes (attempt k may give up while k < ``GIVE_UP_MAX``)."""
    names = None if rules is None else tuple(rule.name for rule in rules)
    filtered = level is not None or bool(require)
    big = geometry.n >= REGION_SIDE
    per_batch = 1 if big else max(1, _BATCH_CELLS // geometry.cells)
    # Without a target every attempt below 25x25 makes a puzzle: cut the first ``count`` attempts
    # so that every worker gets several runs; with one, runs as long as here.
    workers = executor.jobs if executor.cluster is None else 2 * usable_cores()
    first = per_batch if filtered else max(1, min(per_batch, -(-count // (4 * max(workers, 1)))))

    local = executor.jobs > 1 and executor.cluster is None
    # Local workers are forked: a first run of one attempt is carved here, so that they inherit
    # the kernels it loaded (0.2 s of CPU a process on 16x16); the workers start when the rest is
    # read.  Not from 25x25 on: there the first run is the puzzle itself as often as not.
    warm = local and not big

    def chunks() -> Iterator[_Attempts]:
        start = 0
        while max_attempts is None or start < max_attempts:
            size = first if start < count or filtered else per_batch
            if warm and start == 0:
                size = 1
            if max_attempts is not None:
                size = min(size, max_attempts - start)
            end = None if deadline is None else deadline.wall_end()
            yield _Attempts(geometry.p, geometry.q, seed, start, size, symmetric, names, level,
                            tuple(require), rated, end, start < GIVE_UP_MAX)  # fmt: skip
            start += size

    runs = chunks()
    first_run = next(runs, None) if warm else None
    here = [] if first_run is None else _run_attempts(first_run)
    if big and local:
        executor = replace(executor, window=executor.jobs)  # no attempts waiting in line
    results = run_ordered(_ATTEMPTS_WORK, runs, executor)
    made = attempt = 0
    try:
        for kind, value in itertools.chain(here, results):
            if kind == _CRASHED:
                why = f"attempt {attempt} of seed {seed} failed in a worker: {value}"
                raise SudokuCpError(f"generator: {why}")
            if kind == _STOPPED:
                return
            if kind == _MADE:
                assert isinstance(value, Generated)
                made += 1
                yield value
                if made == count:
                    return
            attempt += 1
    finally:
        results.close()  # stops what is still out on the workers


def _target(
    generated: Generated,
    rules: Sequence[Rule] | None,
    level: str | None,
    wanted: tuple[tuple[str, tuple[Rule, ...]], ...],
    rated: bool,
    deadline: Deadline | None,
) -> Generated | None:
    """The puzzle with its rating and the rules it used, or None when it misses a target."""
    if level is None and not wanted and not rated:
        return generated
    from .engine import deduce

    rating = None
    if level is not None or rated:
        rating = rate(generated.puzzle, rules, time_limit=deadline)
        if level is not None and rating.level != level:
            return None
        counts = rating.counts
        status = rating.status
    else:
        deduction = deduce(generated.puzzle, rules, record=False, time_limit=deadline)
        counts, status = deduction.counts, deduction.status
    used = tuple(name for name, steps in counts.items() if steps)
    if wanted and (
        status is Status.UNKNOWN or not all(any(counts.get(r.name, 0) for r in hits) for _, hits in wanted)
    ):
        return None
    return Generated(
        generated.puzzle,
        generated.solution,
        generated.attempt,
        generated.restarts,
        generated.filled,
        rating,
        used if wanted else None,
        generated.proof,
        generated.hard,
    )
