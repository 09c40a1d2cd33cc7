"""The deduction engine: simplest rule first, one step at a time, until solved or stuck.

Each round tries the rules in the table's order and applies the first step found, then starts
again from the simplest rule (Eppstein 2005, section 3: a rule-based solver that never guesses).
A stuck puzzle is reported with its candidates, never guessed; a contradiction (an empty cell,
a digit with no place, a rule's own inconsistency) shows the puzzle has no solution.

Two modes take the same steps: ``record=True`` keeps every ``Step`` (explain); ``record=False``
only counts steps per rule and runs the compiled local rules to a fixed point inside one call
(rate), dropping to Python only for the matching, chain, 2-SAT and Nishio rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import SudokuCpError
from ..grid import Grid
from ..limits import Deadline, TimeLimitReached
from ..outcome import REASON_TIME_LIMIT, Status
from .board import Board, Contradiction
from .proof import StepProof, StepProver
from .rules import Rule, select_rules
from .rules.local import LOCAL_RULES, run_local
from .step import Step

__all__ = ["Deduction", "RuleBug", "deduce"]


class RuleBug(SudokuCpError, RuntimeError):
    """A rule returned a step that changes nothing or removes what is not a candidate."""


@dataclass(frozen=True, slots=True)
class Deduction:
    """What the rules did to one puzzle.

    ``status``: solved, stuck (no rule applies), unsat (a contradiction: ``reason`` says where) or
    unknown (the time limit; ``reason``).  ``counts``: steps per rule name, in rule order.
    ``steps``: every step when recorded, else only the steps of rules written in Python (the
    matching, chain, 2-SAT and Nishio steps, whose chains the rating measures).  ``board``: the
    final placements and candidates.
    """

    status: Status
    board: Board
    counts: dict[str, int]
    steps: tuple[Step, ...] = ()
    reason: str | None = None
    rules: tuple[Rule, ...] = field(default=(), repr=False)

    @property
    def step_count(self) -> int:
        """Number of steps taken."""
        return sum(self.counts.values())


def _check_step(board: Board, rule: Rule, step: Step) -> None:
    """Refuse a step that makes no progress or touches what is not a candidate of an open cell."""
    if step.progress == 0:
        raise RuleBug(f"rule {rule.name} returned a step that changes nothing")
    for cells in (step.placements, step.eliminations):
        if len(cells) and not (
            np.all(board.values[cells[:, 0]] == 0) and np.all(board.cand[cells[:, 0], cells[:, 1]] == 1)
        ):
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


def deduce(
    grid: Grid,
    rules: Sequence[Rule] | None = None,
    *,
    record: bool = True,
    deadline: Deadline | None = None,
    max_steps: int | None = None,
    check: bool = False,
) -> Deduction:
    """Solve ``grid`` by the rules (all non-uniqueness rules by default), never guessing.

    ``check``: prove each step by SAT as soon as it is found (``proof.StepProver``, one step at a
    time even when not recording); a step the solver refutes raises ``proof.StepNotProved``.  A
    step whose proof is unknown (the time limit, or a uniqueness rule on a puzzle not proved
    unique) is not applied: the deduction stops there, unknown, its reason naming the rule; and
    a contradiction is unsat only once the solver confirms the puzzle has no solution.
    """
    chosen = tuple(rules) if rules is not None else select_rules()
    counts = {rule.name: 0 for rule in chosen}
    steps: list[Step] = []
    try:
        board = Board.from_grid(grid)
        board.check()
    except Contradiction as exc:
        empty = Board(
            grid.geometry, np.zeros(grid.n * grid.n, np.int16), np.zeros((grid.n * grid.n, grid.n), np.uint8)
        )
        return Deduction(Status.UNSAT, empty, counts, (), str(exc), chosen)
    try:
        board.prepare(deadline)  # the peer table: seconds and 1.5 GB on 400x400
    except TimeLimitReached:
        return Deduction(Status.UNKNOWN, board, counts, (), f"{REASON_TIME_LIMIT} while setting up", chosen)
    limit = max_steps if max_steps is not None else 4 * grid.n**3
    local = [rule for rule in chosen if rule.local_id >= 0]
    slow = [rule for rule in chosen if rule.local_id < 0]
    enabled = np.zeros(len(LOCAL_RULES), dtype=np.uint8)
    enabled[[rule.local_id for rule in local]] = 1
    by_id = {rule.local_id: rule for rule in local}
    t = board.tables
    rec = np.empty((board.cand.size + board.cand.shape[0] + 4 * grid.n, 3), dtype=np.int64)
    local_counts = np.zeros(len(LOCAL_RULES), dtype=np.int64)
    fast = not record and bool(local) and not check
    prover: StepProver | None = None

    def finish(status: Status, reason: str | None = None) -> Deduction:
        for rule_id, rule in by_id.items():
            counts[rule.name] += int(local_counts[rule_id])
        return Deduction(status, board, counts, tuple(steps), reason, chosen)

    try:
        if check:
            prover = StepProver(grid, deadline=deadline)
        while True:
            if deadline is not None:
                deadline.check("deduction")
            if board.solved:
                return finish(Status.SOLVED)
            if sum(counts.values()) + int(local_counts.sum()) >= limit:
                return finish(Status.UNKNOWN, f"the step limit ({limit}) was reached")
            if fast:
                done = run_local(
                    board.cand, board.values, t.units, t.cell_units, t.peers, enabled, local_counts, rec, 64
                )
                if done == 1:
                    return finish(Status.SOLVED)
                if done == -1:
                    board.check()
                if done == 2:
                    continue  # a budget slice spent: look at the clock, then go on
            candidates = slow if fast else chosen
            for rule in candidates:
                step = rule.find(board)
                if step is None:
                    continue
                _check_step(board, rule, step)
                if prover is not None:
                    proof = prover.prove(step, uniqueness=rule.uniqueness, strict=True)
                    if not proof.ok:  # nothing may rest on an unproved step: stop before applying it
                        return finish(Status.UNKNOWN, _unproved(rule, proof))
                board.apply(step.placements, step.eliminations)
                counts[rule.name] += 1
                if record or rule.local_id < 0:  # the rating reads the chain steps even when not recording
                    steps.append(step)
                board.check()
                break
            else:
                return finish(Status.STUCK)
    except Contradiction as exc:
        if prover is not None and not prover.confirm_unsat(str(exc)).ok:
            # The solver was stopped before it agreed: the rules' word alone is no unsat verdict.
            return finish(Status.UNKNOWN, f"{REASON_TIME_LIMIT} while confirming the contradiction ({exc})")
        return finish(Status.UNSAT, str(exc))
    except TimeLimitReached:
        return finish(Status.UNKNOWN, REASON_TIME_LIMIT)
    finally:
        if prover is not None:
            prover.close()
