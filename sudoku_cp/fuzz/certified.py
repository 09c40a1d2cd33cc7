"""Certified ground truth for fuzzing failures (``fuzz --certify DIR``), as ``verify --certify``.

A wrong verdict on a claim about the number of solutions rests on the ground truth; the truth of
the failing puzzle and of its shrunk form is certified (``audit.certified.TruthCertifier``: the
prover decides it again on the trusted CNF, its proof checked before the certificate is written).
A truth that cannot be certified turns the failure unknown, naming why: no wrong verdict stands
on a truth nobody can check.  Crashes and timeouts need no truth and are left as they are.
"""

from __future__ import annotations

import os
from dataclasses import replace

from ..audit.answers import Verdict
from ..audit.certified import TruthCertifier
from ..audit.truth import GroundTruth
from ..executor import Executor
from ..formats import PuzzleItem
from .report import Failure

__all__ = ["certify_failure"]


def certify_failure(
    failure: Failure,
    directory: str | os.PathLike[str],
    truth: str,
    *,
    checker: str = "sudoku_cp",
    prover: str | None = None,
    executor: Executor | None = None,
) -> Failure:
    """The failure with the certificates of its puzzles' truths, or unknown when one fails."""
    if failure.verdict is not Verdict.WRONG:
        return failure
    puzzles = [failure.puzzle] + ([failure.shrunk.puzzle] if failure.shrunk is not None else [])
    items = [PuzzleItem(k, k + 1, grid) for k, grid in enumerate(puzzles)]
    certifier = TruthCertifier(
        items, GroundTruth(truth), directory, checker=checker, executor=executor, prover=prover
    )
    try:
        answers = [certifier.answer(item.index) for item in items]
    finally:
        certifier.close()
    failure.certificate = answers[0].path if answers[0] is not None else None
    if len(answers) > 1 and answers[1] is not None:
        failure.shrunk_certificate = answers[1].path
    missing = next((a for a in answers if a is None or a.path is None), None)
    if missing is None and all(a is not None for a in answers):
        return failure
    why = (missing.error if missing is not None else None) or "the ground truth is not certified"
    outcome = replace(
        failure.outcome,
        verdict=Verdict.UNKNOWN,
        detail=f"{why} (judged wrong on it: {failure.outcome.detail})",
    )
    failure.outcome = outcome
    failure.verdict = Verdict.UNKNOWN
    return failure
