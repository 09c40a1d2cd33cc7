"""The SAT proof of deduction steps (sudoku_cp.deduction.proof) and the engine's check mode."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.engine import RuleBug, deduce
from sudoku_cp.deduction.proof import Candidate, ProofStatus, StepNotProved, StepProof, StepProver
from sudoku_cp.deduction.rules import Rule, select_rules
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status
from sudoku_cp.random_grids import random_puzzle

# Royle's first 17-clue puzzle (tests/data/clue17_100.txt, line 1): unique, solved by the local rules.
UNIQUE = parse_grid(read_lines(DATA / "clue17_100.txt", 1)[0])
# tdoku's serg benchmark, line 1: several solutions.
SEVERAL = parse_grid(read_lines(DATA / "serg_100.txt", 1)[0])
# Consistent givens, no solution; the local rules find it after 20 steps (R6C4 loses every digit).
NO_SOLUTION = parse_grid(".7.....9...34.9578..1857.3....27..41.......8.1...9.7..72.3....9..6...8...5.78.6.3")
NONE = np.zeros((0, 2), dtype=np.int64)


def _solution() -> np.ndarray:
    result = deduce(UNIQUE, record=False)
    assert result.status is Status.SOLVED
    return result.board.values.copy()


def _open_cell() -> int:
    return int(np.flatnonzero(UNIQUE.values.reshape(-1) == 0)[0])


def test_every_step_of_a_solve_is_proved() -> None:
    result = deduce(UNIQUE)
    assert result.status is Status.SOLVED
    with StepProver(UNIQUE) as prover:
        proofs = [prover.prove(step) for step in result.steps]
    assert all(proof.ok for proof in proofs)
    assert sum(proof.total for proof in proofs) == sum(step.progress for step in result.steps)
    assert all(proof.proved == proof.total and proof.candidate is None for proof in proofs)


def test_an_elimination_of_the_solution_digit_fails_and_names_the_candidate() -> None:
    solution = _solution()
    cell = _open_cell()
    digit = int(solution[cell]) - 1
    other = (digit + 1) % 9
    # A true elimination first, then the false one: the proof names the second candidate.
    step = Step("bogus", NONE, np.array([[cell, other], [cell, digit]]))
    assert UNIQUE.values.reshape(-1)[cell] == 0
    with StepProver(UNIQUE) as prover:
        proof = prover.prove(step)
        assert proof.status is ProofStatus.FAILED and not proof.ok
        assert proof.candidate == Candidate(False, cell, digit)
        assert (proof.proved, proof.total) == (1, 2)
        assert proof.solution is not None and proof.solution.reshape(-1)[cell] == digit + 1
        name = UNIQUE.geometry.cell_name(cell)
        assert proof.describe(UNIQUE.geometry) == (
            f"bogus removes {digit + 1} from {name}, but a solution of the puzzle has {digit + 1} at {name}"
        )
        with pytest.raises(StepNotProved, match=f"step not proved: bogus removes {digit + 1}") as caught:
            prover.prove(step, strict=True)
    assert caught.value.rule == "bogus"
    assert caught.value.proof.candidate == Candidate(False, cell, digit)


def test_a_wrong_placement_fails_and_a_right_one_is_proved() -> None:
    solution = _solution()
    cell = _open_cell()
    digit = int(solution[cell]) - 1
    wrong = (digit + 4) % 9
    with StepProver(UNIQUE) as prover:
        assert prover.prove(Step("right", np.array([[cell, digit]]), NONE)).ok
        proof = prover.prove(Step("wrong", np.array([[cell, wrong]]), NONE))
    assert proof.status is ProofStatus.FAILED
    assert proof.candidate == Candidate(True, cell, wrong)
    name = UNIQUE.geometry.cell_name(cell)
    assert proof.describe(UNIQUE.geometry).startswith(f"wrong places {wrong + 1} at {name}, but a solution")


def test_a_uniqueness_rule_is_proved_only_on_a_unique_puzzle() -> None:
    # On a puzzle with several solutions, removing a digit that one solution uses is no proof,
    # and for a uniqueness rule that is unknown (its premise is false), not a failure.
    with StepProver(SEVERAL) as prover:
        assert prover.unique() is False
        first = prover.prove(Step("probe", np.array([[0, 7]]), NONE))  # R1C1 is a given 8: proved
        assert first.ok
        cell = int(np.flatnonzero(SEVERAL.values.reshape(-1) == 0)[0])
        counted = []
        for digit in range(9):
            step = Step("ur", NONE, np.array([[cell, digit]]))
            plain, assumed = prover.prove(step), prover.prove(step, uniqueness=True, strict=True)
            counted.append((plain.status, assumed.status))
            if plain.status is ProofStatus.FAILED:
                assert assumed.status is ProofStatus.UNKNOWN
                assert assumed.reason == "a uniqueness rule, and the puzzle has more than one solution"
                assert assumed.candidate == Candidate(False, cell, digit)
        assert (ProofStatus.FAILED, ProofStatus.UNKNOWN) in counted
    # On a unique puzzle the uniqueness rule fails like any other.
    solution = _solution()
    cell = _open_cell()
    wrong = Step("ur", NONE, np.array([[cell, int(solution[cell]) - 1]]))
    with StepProver(UNIQUE) as prover:
        assert prover.unique() is True
        assert prover.prove(wrong, uniqueness=True).status is ProofStatus.FAILED
        with pytest.raises(StepNotProved):
            prover.prove(wrong, uniqueness=True, strict=True)


def test_unique_and_confirm_unsat() -> None:
    with StepProver(NO_SOLUTION) as prover:
        assert prover.unique() is False
        prover.confirm_unsat("R6C4 has no candidate left")  # true: nothing raised
        # Anything follows from a puzzle with no solution.
        assert prover.prove(Step("anything", np.array([[0, 0]]), np.array([[1, 6]]))).ok
    with StepProver(UNIQUE) as prover, pytest.raises(StepNotProved, match="but the puzzle has a solution"):
        prover.confirm_unsat("a made-up contradiction")


def test_a_deadline_makes_a_proof_unknown_never_failed() -> None:
    with pytest.raises(TimeLimitReached):
        StepProver(UNIQUE, deadline=Deadline(0))
    solution = _solution()
    cell = _open_cell()
    wrong = Step("bogus", NONE, np.array([[cell, int(solution[cell]) - 1]]))
    with StepProver(UNIQUE, deadline=Deadline(60)) as prover:
        assert prover.prove(wrong).status is ProofStatus.FAILED
        prover.deadline = Deadline(0)
        proof = prover.prove(wrong, strict=True)
    assert proof.status is ProofStatus.UNKNOWN and proof.reason == REASON_TIME_LIMIT
    assert proof.candidate == Candidate(False, cell, int(solution[cell]) - 1)


def test_the_prover_frees_its_solver() -> None:
    with StepProver(UNIQUE) as prover:
        pass
    prover.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        prover.unique()


def test_a_proof_describes_itself() -> None:
    proof = StepProof("naked-pair", ProofStatus.PROVED, 3, 3)
    assert proof.describe(UNIQUE.geometry) == "naked-pair: proved (3 of 3 candidates)"


def _bogus_rule(eliminate: tuple[int, int]) -> Rule:
    """A rule that removes one given candidate once (a deliberate bug)."""

    def find(board: Board) -> Step | None:
        cell, digit = eliminate
        if board.cand[cell, digit] == 0:
            return None
        return Step("bogus-rule", NONE, np.array([eliminate]))

    return Rule("bogus-rule", "test", "removes a digit the solution needs", 0.5, find)


def test_check_mode_names_the_rule_of_a_wrong_step() -> None:
    solution = _solution()
    cell = _open_cell()
    bogus = _bogus_rule((cell, int(solution[cell]) - 1))
    rules = (bogus, *select_rules())
    # Without the check the bug goes unnoticed, or ends in a contradiction that SAT refutes (the
    # puzzle has a solution): an error naming the rules whose steps led there, never unsat.
    try:
        unchecked = deduce(UNIQUE, rules)
    except RuleBug as bug:
        assert "bogus-rule" in str(bug)
    else:
        assert unchecked.counts["bogus-rule"] == 1 and unchecked.status is not Status.UNSAT
    for record in (True, False):
        with pytest.raises(StepNotProved, match="bogus-rule removes") as caught:
            deduce(UNIQUE, rules, record=record, check=True)
        assert caught.value.rule == "bogus-rule"


def test_check_mode_confirms_a_contradiction() -> None:
    result = deduce(NO_SOLUTION, check=True)
    assert result.status is Status.UNSAT and result.step_count > 0
    assert result.reason == "R6C4 has no candidate left"

    def liar(board: Board) -> Step | None:
        raise Contradiction("a rule that always sees a contradiction")

    rules = (Rule("liar", "test", "sees contradictions", 0.5, liar),)
    with pytest.raises(RuleBug, match="on a puzzle with a solution"):  # unchecked, SAT refutes the lie
        deduce(UNIQUE, rules)
    with pytest.raises(StepNotProved, match="contradiction: the rules found a contradiction"):
        deduce(UNIQUE, rules, check=True)


def test_check_mode_takes_the_same_steps() -> None:
    for record in (True, False):
        plain = deduce(UNIQUE, record=record)
        checked = deduce(UNIQUE, record=record, check=True)
        assert checked.status is plain.status is Status.SOLVED
        assert checked.counts == plain.counts
        assert np.array_equal(checked.board.values, plain.board.values)
        assert len(checked.steps) == len(plain.steps)


@pytest.mark.parametrize(
    ("n", "box", "seed"), [(4, (2, 2), 1), (6, (2, 3), 2), (8, (2, 4), 3), (16, (4, 4), 4)]
)
def test_random_puzzles_of_other_shapes_pass_the_check(n: int, box: tuple[int, int], seed: int) -> None:
    geometry = geometry_for_size(n, box)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(6):
        result = deduce(random_puzzle(geometry, 0.6, rng), check=True)
        assert result.status in (Status.SOLVED, Status.STUCK)
        checked += result.step_count
    assert checked > 0


def test_one_prover_proves_every_step_of_a_9x9_explanation() -> None:
    """One solver for the whole explanation (``benchmarks/engine_costs.py`` times it; tests never do)."""
    result = deduce(UNIQUE)
    with StepProver(UNIQUE) as prover:
        proofs = [prover.prove(step) for step in result.steps]
    assert sum(proof.total for proof in proofs) > 40
    assert all(proof.status is ProofStatus.PROVED for proof in proofs)
