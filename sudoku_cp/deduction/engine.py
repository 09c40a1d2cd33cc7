"""The deduction engine: easiest step first, one step at a time, until solved or stuck.

At every state the engine applies the step of least weight that any chosen rule offers, as
Sudoku Explainer rates a puzzle: the rules are tried in the table's order (by weight, lightest
first) and a rule whose lightest possible step weighs no less than the best step found so far is
not tried (a rule's steps never weigh less than its table weight; a rule of fixed weight is
simply the first that applies, Eppstein 2005, section 3).  A stuck puzzle is reported with its
candidates, never guessed; a contradiction (an empty cell, a digit with no place, a rule's own
inconsistency) shows the puzzle has no solution.  The heaviest step taken is the rating of the
solve (``Deduction.weight``, ``Deduction.hardest``): ``rate`` and ``explain`` read it from the
same steps.

Two modes take the same steps: ``record=True`` keeps every ``Step`` with its weight (explain);
``record=False`` only counts steps per rule (rate).  Both run the compiled local rules lighter
than every other chosen rule to a fixed point inside one call, dropping to Python for the rest;
recording, that call also logs each step it takes, and the steps are built from the log.  Every
step is checked before it is applied (it changes something, and names only open candidates:
``RuleBug`` otherwise), the compiled ones inside that call.  With ``check`` every step is found,
checked and proved one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import SudokuCpError
from ..grid import Grid
from ..limits import Deadline, ModelTooLarge, TimeLimitReached
from ..outcome import REASON_TIME_LIMIT, Status
from .board import Board, Contradiction
from .proof import StepProof, StepProver
from .rules import Rule, select_rules
from .rules.base import local_step
from .rules.local import BAD_RECORD, LOCAL_RULES, MARK_COLUMNS, run_local_ahead
from .step import Step, step_from_record, steps_from_log

__all__ = ["Deduction", "RuleBug", "deduce"]


class RuleBug(SudokuCpError, RuntimeError):
    """A rule returned a step that changes nothing or removes what is not a candidate."""


#: Steps of the compiled local rules between two looks at the clock.
_SLICE = 64
#: Recording: steps and log rows one compiled call may record (a 9x9 step takes 3-20 rows).
_LOGGED = _SLICE
_LOG_ROWS = 4096


@dataclass(frozen=True, slots=True)
class Deduction:
    """What the rules did to one puzzle.

    ``status``: solved, stuck (no rule applies), unsat (a contradiction: ``reason`` says where) or
    unknown (the time limit; ``reason``).  ``counts``: steps per rule name, in rule order.
    ``steps``: every step, with its weight, when recorded (else none).  ``board``: the final
    placements and candidates.  ``weight`` and ``hardest``: the weight and rule of the heaviest
    step taken (0.0 and None before any step); with ``steps`` recorded, the first step of that
    weight is ``steps[hardest_index]``.
    """

    status: Status
    board: Board
    counts: dict[str, int]
    steps: tuple[Step, ...] = ()
    reason: str | None = None
    rules: tuple[Rule, ...] = field(default=(), repr=False)
    weight: float = 0.0
    hardest: str | None = None
    hardest_index: int | None = None

    @property
    def step_count(self) -> int:
        """Number of steps taken."""
        return sum(self.counts.values())


def _check_step(board: Board, rule: Rule, step: Step) -> None:
    """Refuse a step that makes no progress or touches what is not a candidate of an open cell."""
    if step.progress == 0:
        raise RuleBug(f"rule {rule.name} returned a step that changes nothing")
    for cells in (step.placements, step.eliminations):
        # ndarray methods, not np.all: this runs once a step and the wrappers cost twice as much
        if len(cells) and (board.values[cells[:, 0]].any() or not board.cand[cells[:, 0], cells[:, 1]].all()):
            raise RuleBug(
                f"rule {rule.name} named a candidate that is not open: {step.describe(board.geometry)}"
            )


def _unproved(rule: Rule, proof: StepProof) -> str:
    """Why a step whose proof came back unknown ends the deduction (it is not applied)."""
    if proof.reason == REASON_TIME_LIMIT:
        return f"{REASON_TIME_LIMIT} while proving a step of {rule.name}"
    if rule.uniqueness:
        return (
            f"the uniqueness rule {rule.name} assumes a unique solution, which was not proved"
            f" ({proof.reason or 'uniqueness undecided'})"
        )
    return f"a step of {rule.name} was not proved ({proof.reason or proof.status.value})"


def _easiest(
    board: Board,
    rules: Sequence[Rule],
    covered: frozenset[str] = frozenset(),
    ahead: tuple[dict[str, int], np.ndarray, np.ndarray] | None = None,
) -> tuple[Rule, Step, float] | None:
    """The step of least weight the rules offer (the first rule's on a tie), or None.

    ``rules`` are in weight order, and no step weighs less than its rule's table weight, so the
    rules past the best step found so far need not be tried; nor need the ``covered`` rules (whose
    ``subsumed_by`` rules are all chosen) once a step is in hand.  ``ahead``: the records the
    compiled fixed point left of local rules on this very state (``run_local_ahead``: rule name
    -> row, records, row counts), read instead of running their finders again."""
    best: tuple[Rule, Step, float] | None = None
    for rule in rules:
        if best is not None and (rule.weight >= best[2] or rule.name in covered):
            if rule.weight >= best[2]:
                break
            continue
        row = -1 if ahead is None else ahead[0].get(rule.name, -1)
        if ahead is not None and row >= 0 and ahead[2][row] >= 0:
            step = local_step(rule.name, ahead[1][row], int(ahead[2][row]), board.terse)
        else:
            step = rule.find(board)
        if step is None:
            continue
        weight = rule.weight if step.weight is None else max(step.weight, rule.weight)
        if best is None or weight < best[2]:
            best = (rule, step, weight)
    return best


def _start_contradiction(grid: Grid, reason: str, deadline: Deadline) -> tuple[Status, str]:
    """The status of a puzzle ``Board`` found contradictory before any step (``reason``: where).

    With or without ``check``, the board's own word is no unsat verdict (explain and rate print
    it as "no solution"): the prover confirms it on the extended CNF, quick on a contradictory
    puzzle.  Stopped, or a model too large, it is unknown; a solution found raises
    ``proof.StepNotProved`` naming the contradiction."""
    try:
        with StepProver(grid, deadline=deadline) as prover:
            proof = prover.confirm_unsat(reason)
    except (TimeLimitReached, ModelTooLarge) as stop:
        return Status.UNKNOWN, f"{stop} while confirming the contradiction ({reason})"
    if not proof.ok:
        return Status.UNKNOWN, f"{REASON_TIME_LIMIT} while confirming the contradiction ({reason})"
    return Status.UNSAT, reason


def _confirm_contradiction(grid: Grid, reason: str, suspect: str, deadline: Deadline) -> tuple[Status, str]:
    """The status of a contradiction the rules reached after steps, unchecked (``reason``: where;
    ``suspect``: the rules whose steps led there).

    The rules' word alone is no unsat verdict: one SAT call of CaDiCaL on the plain extended CNF
    (``confirm.confirm_cnf_counts`` with a claim of no solution: the CNF without givens is built
    once per geometry and the givens are assumptions, 1.7x cheaper than ``confirm_no_more``'s CNF
    built per puzzle; no rule of ours in it) confirms it.  Stopped, or a model too large, it is
    unknown with the reason; a solution found means some step was unsound: ``RuleBug`` naming
    ``suspect``."""
    from ..backends.confirm import confirm_cnf_counts  # imported on use: the backends import python-sat

    n = grid.n
    verdict = confirm_cnf_counts(
        grid.geometry,
        grid.values.reshape(1, n * n),
        [np.zeros((0, n * n), dtype=np.int16)],
        deadline,
        name="deduction",
        finder="the deduction",
    )
    if verdict.refuted:
        raise RuleBug(
            f"an unsound step of {suspect}: the rules reached a contradiction ({reason}) on a puzzle"
            f" with a solution ({verdict.refuted[0]})"
        )
    if verdict.unknown:
        return Status.UNKNOWN, f"{verdict.unknown[0]} ({reason})"
    return Status.UNSAT, reason


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the engine makes of a rule set before any puzzle: ``chosen`` (by weight), the step
    counts to start from, the compiled ``local`` rules lighter than every other chosen rule (the
    fast mode runs them to a fixed point in one call, which takes the steps the one-at-a-time
    loop would) with their kernel switches (``enabled``: the kernel only reads them), ids and
    names, the ``rest``, the rules ``covered`` by others chosen (``_easiest``), and the local
    rules among the rest (``ahead``: kernel ids; ``ahead_rows``: name -> row), which that call
    runs on its last state for ``_easiest`` to read."""

    chosen: tuple[Rule, ...]
    counts: dict[str, int]
    local: tuple[Rule, ...]
    rest: tuple[Rule, ...]
    enabled: np.ndarray
    by_id: dict[int, Rule]
    local_names: dict[int, tuple[str, float]]
    covered: frozenset[str]
    ahead: np.ndarray
    ahead_rows: dict[str, int]


def _make_plan(rules: Sequence[Rule] | None) -> _Plan:
    chosen = tuple(sorted(rules, key=lambda rule: rule.weight)) if rules is not None else select_rules()
    first_other = next((i for i, rule in enumerate(chosen) if rule.local_id < 0), len(chosen))
    local = chosen[:first_other]
    # the local rules heavier than some other: the fixed point runs them ahead, on its last state
    ahead = [rule for rule in chosen[first_other:] if rule.local_id >= 0]
    enabled = np.zeros(len(LOCAL_RULES), dtype=np.uint8)
    enabled[[rule.local_id for rule in local]] = 1
    names = {rule.name for rule in chosen}
    return _Plan(
        chosen,
        {rule.name: 0 for rule in chosen},
        local,
        chosen[first_other:],
        enabled,
        {rule.local_id: rule for rule in local},
        {rule.local_id: (rule.name, rule.weight) for rule in local},
        frozenset(rule.name for rule in chosen if rule.subsumed_by and set(rule.subsumed_by) <= names),
        np.array([rule.local_id for rule in ahead], dtype=np.int64),
        {rule.name: row for row, rule in enumerate(ahead)},
    )


#: Plans of the rule sets seen, by the identity of the tuple given (a tuple of frozen rules never
#: changes; it is kept here, so its id names it), and the default set's under None.  Making a plan
#: costs a tenth of rating an easy puzzle, and a batch rates every puzzle with one rule set.
_plans: dict[int | None, tuple[object, _Plan]] = {}
_PLANS = 16


def _plan_of(rules: Sequence[Rule] | None) -> _Plan:
    """The plan of a rule set: made once per tuple (and for the default set), else each time."""
    if rules is not None and type(rules) is not tuple:
        return _make_plan(rules)  # a list may change between calls
    key = None if rules is None else id(rules)
    entry = _plans.get(key)
    if entry is not None and entry[0] is rules:
        return entry[1]
    plan = _make_plan(rules)
    if len(_plans) >= _PLANS:
        _plans.clear()
    _plans[key] = (rules, plan)
    return plan


def deduce(
    grid: Grid,
    rules: Sequence[Rule] | None = None,
    *,
    record: bool = True,
    time_limit: float | Deadline | None = None,
    max_steps: int | None = None,
    check: bool = False,
) -> Deduction:
    """Solve ``grid`` by the rules (all non-uniqueness rules by default), easiest step first,
    never guessing.

    ``time_limit``: seconds from the call, or a ``Deadline`` the caller shares (None: no limit);
    when it passes, the deduction stops unknown ("time limit reached") with what it found.
    ``check``: prove each step by SAT as soon as it is found (``proof.StepProver``, one step at a
    time even when not recording); a step the solver refutes raises ``proof.StepNotProved``.  A
    step whose proof is unknown (the time limit, or a uniqueness rule on a puzzle not proved
    unique) is not applied: the deduction stops there, unknown, its reason naming the rule; and
    a contradiction is unsat only once the solver confirms the puzzle has no solution.
    """
    deadline = Deadline.of(time_limit)  # no limit: a Deadline that never expires
    plan = _plan_of(rules)
    chosen = plan.chosen
    counts = dict(plan.counts)
    steps: list[Step] = []
    try:
        board = Board.from_grid(grid)
        board.check()
    except Contradiction as exc:
        empty = Board(
            grid.geometry, np.zeros(grid.n * grid.n, np.int16), np.zeros((grid.n * grid.n, grid.n), np.uint8)
        )
        status, reason = _start_contradiction(grid, str(exc), deadline)
        return Deduction(status, empty, counts, (), reason, chosen)
    try:
        board.prepare(deadline)  # the peer table: seconds and 1.5 GB on 400x400
    except TimeLimitReached:
        return Deduction(Status.UNKNOWN, board, counts, (), f"{REASON_TIME_LIMIT} while setting up", chosen)
    limit = max_steps if max_steps is not None else 4 * grid.n**3
    # Counting only, the steps need no notes, links or patterns (the board tells the rules).
    board.terse = not record and not check
    board.stamp_anew()  # the engine's board now: a stamp names each state (Board.apply renews it)
    local, rest, enabled, by_id = plan.local, plan.rest, plan.enabled, plan.by_id
    t = board.tables
    rec = np.empty((board.cand.size + board.cand.shape[0] + 4 * grid.n, 3), dtype=np.int64)
    local_counts = np.zeros(len(LOCAL_RULES), dtype=np.int64)
    fast = bool(local) and not check
    # Recording, the compiled call logs its steps (at most _LOGGED a call, their rows in ``log``);
    # the step counts are then kept per step in ``counts``, and ``local_counts`` is scratch.
    log = np.empty((max(_LOG_ROWS, len(rec)) if fast and record else 0, 3), dtype=np.int64)
    marks = np.empty((_LOGGED if fast and record else 0, MARK_COLUMNS), dtype=np.int64)
    info = np.zeros(4, dtype=np.int64)
    ahead_ids = plan.ahead if fast else plan.ahead[:0]
    ahead_recs = np.empty((len(ahead_ids), len(rec), 3), dtype=np.int64)
    ahead_counts = np.full(len(ahead_ids), -1, dtype=np.int64)
    ahead = (plan.ahead_rows, ahead_recs, ahead_counts) if len(ahead_ids) else None
    local_names, covered = plan.local_names, plan.covered
    prover: StepProver | None = None
    # the heaviest step so far: its weight, rule and index in ``steps`` (when recorded)
    heaviest, hardest, hardest_index = 0.0, None, None
    taken = 0  # the steps in ``counts`` (the local ones of rate's fast mode are in ``local_counts``)
    # The rules whose steps were applied: one of them is unsound if the puzzle has a solution.
    suspects: set[str] = set()

    def finish(status: Status, reason: str | None = None) -> Deduction:
        board.terse = False  # the caller's board: full steps again, its states known by their bytes
        board.stamp = None
        weight, name, index = heaviest, hardest, hardest_index
        tally = local_counts.tolist()
        for rule_id, rule in by_id.items():
            counts[rule.name] += tally[rule_id]
            if tally[rule_id] and rule.weight > weight:  # the fast mode's local steps
                weight, name, index = rule.weight, rule.name, None
        return Deduction(status, board, counts, tuple(steps), reason, chosen, weight, name, index)

    try:
        if check:
            prover = StepProver(grid, deadline=deadline)
        while True:
            deadline.check("deduction")
            if board.values.all():  # solved (Board.solved, without its np.all wrapper: once a step)
                return finish(Status.SOLVED)
            left = limit - taken - int(local_counts.sum())
            if left <= 0:
                return finish(Status.UNKNOWN, f"the step limit ({limit}) was reached")
            if fast:
                done = run_local_ahead(
                    board.cand,
                    board.values,
                    t.units,
                    t.cell_units,
                    t.peers,
                    enabled,
                    local_counts,
                    rec,
                    min(_SLICE, left),
                    log,
                    marks,
                    info,
                    ahead_ids,
                    ahead_recs,
                    ahead_counts,
                )
                board.stamp_anew()
                if record:
                    local_counts[:] = 0  # counted per step below
                    for step in steps_from_log(log, marks, int(info[0]), int(info[1]), local_names):
                        suspects.add(step.rule)
                        counts[step.rule] += 1
                        taken += 1
                        if step.weight is not None and step.weight > heaviest:
                            heaviest, hardest, hardest_index = step.weight, step.rule, len(steps)
                        steps.append(step)
                if done == BAD_RECORD:  # not applied: the same check in Python names what is wrong
                    rule = by_id[int(info[2])]
                    bad = step_from_record(rule.name, rec, int(info[3]))
                    with suppress(IndexError):  # a cell or digit out of range: the message below
                        _check_step(board, rule, bad)
                    pairs = f"placements {bad.placements.tolist()}, eliminations {bad.eliminations.tolist()}"
                    raise RuleBug(f"rule {rule.name} named a candidate out of range: {pairs}")
                if done == 1:
                    return finish(Status.SOLVED)
                if done == -1:
                    if not record:  # recording, the rules of the steps taken are named already
                        suspects.update(rule.name for rule in local)
                    board.check()
                if done == 2:
                    continue  # a budget slice spent: look at the clock, then go on
            # the records run ahead belong to this state only when the fixed point ended stuck
            # (done 0) and nothing changed the board since (a contradiction check changes nothing)
            found = _easiest(board, rest if fast else chosen, covered, ahead if fast and done == 0 else None)
            if found is None:
                return finish(Status.STUCK)
            rule, step, weight = found
            # Unchecked by SAT, one compiled call checks the step, applies it and looks for a
            # contradiction, as the lines below do (a step it refuses takes them, to say why).
            applied = None
            if prover is None:
                applied = board.apply_checked(
                    np.ascontiguousarray(step.placements, dtype=np.int64),
                    np.ascontiguousarray(step.eliminations, dtype=np.int64),
                )
            if applied is None:
                _check_step(board, rule, step)
                if prover is not None:
                    proof = prover.prove(step, uniqueness=rule.uniqueness, strict=True)
                    if not proof.ok:  # nothing may rest on an unproved step: stop before applying it
                        return finish(Status.UNKNOWN, _unproved(rule, proof))
                board.apply(step.placements, step.eliminations)
            suspects.add(rule.name)
            counts[rule.name] += 1
            taken += 1
            if weight > heaviest:
                heaviest, hardest, hardest_index = weight, rule.name, len(steps) if record else None
            if record:
                steps.append(step if step.weight == weight else replace(step, weight=weight))
            if applied is None:
                board.check()
            elif applied[0]:
                board.raise_found(*applied)
    except Contradiction as exc:
        if prover is not None:  # every step proved: the prover confirms the contradiction too
            if not prover.confirm_unsat(str(exc)).ok:
                # The solver was stopped before it agreed: the rules' word alone is no unsat verdict.
                why = f"{REASON_TIME_LIMIT} while confirming the contradiction ({exc})"
                return finish(Status.UNKNOWN, why)
            return finish(Status.UNSAT, str(exc))
        # Unchecked steps: a different path than the rules must agree before unsat is reported.
        suspect = ", ".join(rule.name for rule in chosen if rule.name in suspects) or "no step"
        status, reason = _confirm_contradiction(grid, str(exc), suspect, deadline)
        return finish(status, reason)
    except TimeLimitReached:
        return finish(Status.UNKNOWN, REASON_TIME_LIMIT)
    finally:
        if prover is not None:
            prover.close()
