"""deduction/proof.py branch by branch: the tests its mutants must fail (``benchmarks/mutation.py``).

The same three 9x9 puzzles as ``test_deduction_proof.py`` (unique, several solutions, none).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from test_deduction_proof import NO_SOLUTION, NONE, UNIQUE, _open_cell, _solution

from sudoku_cp.deduction import proof as proof_module
from sudoku_cp.deduction.proof import Candidate, ProofStatus, StepNotProved, StepProof, StepProver
from sudoku_cp.deduction.step import Step
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.outcome import REASON_TIME_LIMIT


def _wrong_elimination() -> tuple[Step, str]:
    """A step removing the solution's digit from an open cell, and how a proof names it."""
    cell = _open_cell()
    digit = int(_solution()[cell])
    return Step(
        "bogus", NONE, np.array([[cell, digit - 1]])
    ), f"removes {digit} from {UNIQUE.geometry.cell_name(cell)}"


def test_an_unknown_proof_says_why() -> None:
    step, claim = _wrong_elimination()
    with StepProver(UNIQUE, deadline=Deadline(60)) as prover:
        prover.deadline = Deadline(0)
        proof = prover.prove(step)
    assert proof.status is ProofStatus.UNKNOWN
    assert proof.describe(UNIQUE.geometry) == f"bogus {claim}: not proved ({REASON_TIME_LIMIT})"


def test_close_frees_the_native_solver_even_while_it_is_referenced() -> None:
    """Freed by ``close``, not left to garbage collection (a traceback may hold the wrapper)."""
    with StepProver(UNIQUE) as prover:
        wrapper = prover._solver
        assert wrapper.solver is not None  # pysat's wrapper holds the native solver until deleted
    assert wrapper.solver is None
    prover.close()  # idempotent


def test_a_known_uniqueness_answer_is_remembered_past_the_deadline() -> None:
    with StepProver(UNIQUE, deadline=Deadline(60)) as prover:
        assert prover.unique() is True
        prover.deadline = Deadline(0)
        assert prover.unique() is True  # known once: no new search, which the clock would stop


def test_a_closed_prover_refuses_uniqueness_questions_and_forgets_quietly() -> None:
    solution = _solution()
    with StepProver(UNIQUE) as prover:
        prover.forget_solution(solution)  # never asked about: nothing to retire
        assert prover.other_solution(UNIQUE.values, solution) is False
    prover.forget_solution(solution)  # closed: nothing to retire either
    with pytest.raises(ValueError, match="^the step prover is closed$"):
        prover.other_solution(UNIQUE.values, solution)


def test_candidates_and_proofs_are_frozen_slotted_and_compared_by_identity() -> None:
    step, _ = _wrong_elimination()
    with StepProver(UNIQUE) as prover:
        proof = prover.prove(step)
    assert proof.status is ProofStatus.FAILED and proof.solution is not None and proof.candidate is not None
    candidate = proof.candidate
    with pytest.raises(dataclasses.FrozenInstanceError):
        candidate.cell = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        proof.proved = 0  # type: ignore[misc]
    assert not hasattr(candidate, "__dict__") and not hasattr(proof, "__dict__")
    assert candidate == Candidate(candidate.placement, candidate.cell, candidate.digit)
    # A proof holds a grid: two proofs are equal only when they are the same object (and hashable).
    twin = StepProof(proof.rule, proof.status, proof.proved, proof.total, candidate, proof.solution.copy())
    assert proof == proof and proof != twin
    assert len({proof, twin}) == 2


class _SpentOnRequest(Deadline):
    """No limit until ``spent`` is set, then every check raises."""

    spent = False

    def check(self, phase: str) -> None:
        if self.spent:
            raise TimeLimitReached(phase)


def test_a_deadline_passing_after_the_encoding_stops_the_solver_load(monkeypatch: pytest.MonkeyPatch) -> None:
    deadline = _SpentOnRequest()
    encode = proof_module.encode_cnf

    def encode_then_spend(*args: Any, **kwargs: Any) -> Any:
        cnf = encode(*args, **kwargs)
        deadline.spent = True
        return cnf

    monkeypatch.setattr(proof_module, "encode_cnf", encode_then_spend)
    with pytest.raises(TimeLimitReached, match="during loading the proof solver$"):
        StepProver(UNIQUE, deadline=deadline)


def test_an_unsat_confirmation_counts_one_claim() -> None:
    """One claim, the whole puzzle's: 1 of 1 when confirmed, 0 of 1 when stopped or refuted."""
    with StepProver(NO_SOLUTION) as prover:
        confirmed = prover.confirm_unsat("R6C4 has no candidate left")
        assert confirmed.status is ProofStatus.PROVED and (confirmed.proved, confirmed.total) == (1, 1)
        prover.deadline = Deadline(0)
        stopped = prover.confirm_unsat("R6C4 has no candidate left")
    assert stopped.status is ProofStatus.UNKNOWN and (stopped.proved, stopped.total) == (0, 1)
    assert stopped.reason == REASON_TIME_LIMIT and stopped.candidate is None
    with StepProver(UNIQUE) as prover, pytest.raises(StepNotProved) as caught:
        prover.confirm_unsat("a made-up contradiction")
    refuted = caught.value.proof
    assert refuted.status is ProofStatus.FAILED and (refuted.proved, refuted.total) == (0, 1)
    assert refuted.solution is not None and np.array_equal(
        refuted.solution.reshape(-1), _solution().reshape(-1)
    )


def test_every_given_counts_in_the_other_solution_question() -> None:
    """Random givens of a 4x4 grid, R1C1 (variable 1: digit 1 in the first cell) always among them,
    against a brute-force count: dropping any given from the question changes some answer."""
    from sudoku_cp.geometry import Geometry
    from sudoku_cp.grid import Grid
    from sudoku_cp.native.backtrack import backtrack_search

    geometry = Geometry(2, 2)
    solution = np.array([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]], dtype=np.int16)
    rng = np.random.default_rng(11)
    answers = set()
    with StepProver(Grid.empty(geometry)) as prover:
        for _ in range(150):
            givens = np.where(rng.random(solution.shape) < 0.3, solution, 0).astype(np.int16)
            givens[0, 0] = 1
            several = backtrack_search(Grid(geometry, givens), limit=2, keep=False).count == 2
            assert prover.other_solution(givens, solution) is several
            answers.add(several)
    assert answers == {True, False}
