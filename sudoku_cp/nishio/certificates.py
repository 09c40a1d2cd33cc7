"""Nishio answers with the certificates of their closures (``--certify``).

An answered closure is a claim: the cells of S in some valid placement are exactly these
(``closure`` in ``encodings/certificates.md``).  ``closure_claim`` says which closure an answer
claims: its exact method's, for ``all`` the one the exact methods agreed on; a stopped method,
a disagreement and the matching relaxation's S'' (not a claim about S') claim nothing.
``certify_answer`` certifies one answer here; ``certify_puzzle_answers`` pairs a stream of
puzzles' answers (``puzzles.answer_puzzles``) with the certificates of their claims, made on
any executor and written by this process, in input order and as they come.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Container, Generator, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ..certify.batch import Certified, ClaimItem, certify_claims
from ..executor import Executor
from .puzzles import DigitAnswer, PuzzleAnswers
from .result import NishioResult

__all__ = [
    "CertifiedPuzzle",
    "certify_answer",
    "certify_puzzle_answers",
    "claimed_result",
    "closure_claim",
    "claims_closure",
]


def claimed_result(answer: DigitAnswer) -> NishioResult | None:
    """The result whose closure ``answer`` claims (the first exact method that answered), or None."""
    if answer.disagreement is not None:
        return None
    for result in answer.results:
        if result.exact and result.closure is not None:
            return result
    return None


def claims_closure(result: NishioResult, claimed: NishioResult | None) -> bool:
    """True when ``result`` states the claimed closure (an exact method with the same closure)."""
    return (
        claimed is not None
        and result.exact
        and result.closure is not None
        and claimed.closure is not None
        and np.array_equal(result.closure, claimed.closure)
    )


def closure_claim(answer: DigitAnswer) -> ClaimItem | None:
    """The 'closure' claim of an answer, or None when it claims no closure."""
    result = claimed_result(answer)
    if result is None or result.closure is None:
        return None
    g = result.instance.geometry
    return ClaimItem(
        "closure",
        (g.p, g.q),
        mask=np.asarray(result.instance.mask, dtype=bool),
        closure=np.asarray(result.closure, dtype=bool),
        digit=answer.digit,
    )


def certify_answer(
    answer: DigitAnswer,
    directory: str | os.PathLike[str],
    *,
    checker: str = "sudoku_cp",
    time_limit: float | None = None,
    prover: str | None = None,
) -> Certified | None:
    """The certificate of one answer's closure, written into ``directory``, made here; None when
    the answer claims no closure."""
    claim = closure_claim(answer)
    if claim is None:
        return None
    return next(certify_claims([claim], directory, checker=checker, time_limit=time_limit, prover=prover))


@dataclass(frozen=True, slots=True, eq=False)
class CertifiedPuzzle:
    """One puzzle's answers and, digit by digit (aligned with ``answers.digits``), the certificate
    of each answer's closure: None where the answer claims none (or was skipped)."""

    answers: PuzzleAnswers
    certificates: tuple[Certified | None, ...]


@dataclass(slots=True)
class _Waiting:
    answers: PuzzleAnswers
    slots: list[Certified | None]
    todo: deque[int]

    def done(self) -> CertifiedPuzzle:
        return CertifiedPuzzle(self.answers, tuple(self.slots))


def certify_puzzle_answers(
    puzzles: Iterable[PuzzleAnswers],
    directory: str | os.PathLike[str],
    *,
    checker: str = "sudoku_cp",
    time_limit: float | None = None,
    executor: Executor | None = None,
    skip: Container[int] = frozenset(),
    prover: str | None = None,
) -> Generator[CertifiedPuzzle, None, None]:
    """Each puzzle's answers (in their order) with the certificates of their closures, made where
    ``executor`` says and written into ``directory``.  Instances numbered in ``skip`` (already in
    a resumed file) are not certified.  Closing the iterator closes ``puzzles``.  Answers given
    as the DAG's JSON Lines hold no closure to certify: ask without ``json_lines``."""
    waiting: deque[_Waiting] = deque()

    def claims() -> Iterator[ClaimItem]:
        for puzzle in puzzles:
            if puzzle.lines:
                raise ValueError("JSON Lines answers carry no closure to certify (ask without json_lines)")
            entry = _Waiting(puzzle, [None] * len(puzzle.digits), deque())
            found = []
            for k, answer in enumerate(puzzle.digits):
                claim = None if puzzle.first + k in skip else closure_claim(answer)
                if claim is not None:
                    entry.todo.append(k)
                    found.append(claim)
            waiting.append(entry)
            yield from found

    def ready() -> Generator[CertifiedPuzzle, None, None]:
        while waiting and not waiting[0].todo:
            yield waiting.popleft().done()

    made = certify_claims(
        claims(), directory, checker=checker, time_limit=time_limit, executor=executor, prover=prover
    )
    try:
        for certified in made:
            yield from ready()
            front = waiting[0]
            front.slots[front.todo.popleft()] = certified
            yield from ready()
        yield from ready()
    finally:  # closing this stops the certificates' workers and the answers' (Ctrl-C, an early stop)
        for source in (made, puzzles):
            close = getattr(source, "close", None)
            if close is not None:
                close()
