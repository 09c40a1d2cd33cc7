"""Certified ground truth (``verify --certify``): each puzzle's truth certified once, and every
run judged on that puzzle naming the certificate, or made unknown when it cannot be certified.

The claim certified is the truth ``verify`` decides: "no solution" (``unsat``), "unique" (of the
truth's own solution) or "more than one" (``multiple``).  The prover decides it again, on the
trusted CNF of ``encodings/certificates.md``, and its proof is checked before the certificate is
written; a truth it cannot certify (the prover disagrees, a proof that does not check, a time
limit) turns every "correct" and "wrong" verdict on the puzzle into "unknown", naming the claim:
no verdict stands on a truth nobody can check.

Where the certificates are made: by ``certify_claims`` on the command's executor, from this
process, not inside the workers that judge the backends' runs.  Those workers are given chunks
of one backend each and each keeps its own ground truth, so a puzzle audited with two backends
is decided in two workers (or more, across runs of the command's window): certifying there
would certify it once per backend and worker, and a worker on a cluster could not write into
the folder anyway.  Here each puzzle gets one claim, decided by this process's ``GroundTruth``
(the one that judges the solvers that run in this process, so those decide nothing twice), and
one certificate; the workers' truths use the same backend with search limit 2, whose answer (0,
1 or 2 solutions) does not depend on the process.
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Container, Generator, Iterable, Iterator, Sequence
from dataclasses import replace

from ..backends.base import BackendError
from ..certify.batch import CHUNK, Certified, ClaimItem, certify_claims
from ..executor import Executor
from ..formats import PuzzleItem, format_line
from .answers import Verdict
from .judge import RunResult
from .runs import run_count
from .solvers import Solver
from .truth import GroundTruth, Truth

__all__ = ["TruthCertifier", "pending_puzzles", "truth_claim"]

_CLAIMS = ("unsat", "unique", "multiple")  # by the number of solutions the truth found


def truth_claim(truth: Truth) -> str:
    """The claim a ground truth makes: 'unsat', 'unique' or 'multiple'."""
    return _CLAIMS[min(truth.count, 2)]


def pending_puzzles(
    items: Sequence[PuzzleItem], solvers: Sequence[Solver], runs: int, skip: Container[int]
) -> set[int]:
    """The indexes of the readable puzzles with a result still to make (its place not in ``skip``),
    for any solver: the puzzles whose truth a resumed audit certifies."""
    pending: set[int] = set()
    position = 0
    for solver in solvers:
        for item in items:
            count = run_count(solver.repeatable, item, runs)
            if item.grid is not None and any(position + run not in skip for run in range(count)):
                pending.add(item.index)
            position += count
    return pending


class TruthCertifier:
    """The certificates of the ground truth of ``items`` (those whose index is in ``needed``; all
    readable ones when None), made on ``executor`` and written into ``directory`` as they are
    needed, each puzzle's once.  ``written``, ``failed``: certificates made and truths that could
    not be certified; ``calls``, ``seconds``: SAT calls of ``truth`` made to decide the claims."""

    def __init__(
        self,
        items: Sequence[PuzzleItem],
        truth: GroundTruth,
        directory: str | os.PathLike[str],
        *,
        checker: str = "sudoku_cp",
        time_limit: float | None = None,
        executor: Executor | None = None,
        needed: Container[int] | None = None,
        prover: str | None = None,
    ) -> None:
        self.truth = truth
        self.todo = [
            item for item in items if item.grid is not None and (needed is None or item.index in needed)
        ]
        self.wanted = {item.index for item in self.todo}
        self.written = 0
        self.calls = 0
        self.seconds = 0.0
        self.certificate_seconds = 0.0
        self._answers: dict[int, Certified] = {}
        self._sent: deque[int] = deque()  # indexes of the claims out, in order
        # Small corpora still spread over the workers: a chunk holds an eighth of the claims at most.
        chunk = max(1, min(CHUNK, math.ceil(len(self.todo) / 8)))
        self._stream = certify_claims(
            self._claims(),
            directory,
            checker=checker,
            time_limit=time_limit,
            executor=executor,
            chunk=chunk,
            prover=prover,
        )

    def _claims(self) -> Iterator[ClaimItem]:
        for item in self.todo:
            grid = item.grid
            assert grid is not None
            calls, spent = self.truth.calls, self.truth.seconds
            try:
                known = self.truth(grid)
            except BackendError as error:  # no truth, nothing to certify: the puzzle's verdicts are unknown
                self._answers[item.index] = Certified(None, f"no ground truth to certify: {error}")
                continue
            finally:
                self.calls += self.truth.calls - calls
                self.seconds += self.truth.seconds - spent
            claim = truth_claim(known)
            solution = format_line(known.solutions[0]) if claim == "unique" else None
            self._sent.append(item.index)
            yield ClaimItem(claim, (grid.geometry.p, grid.geometry.q), format_line(grid), solution)

    def answer(self, index: int) -> Certified | None:
        """The certificate of puzzle ``index`` (made now if it is not yet), or None when its truth
        is not certified here (an unreadable puzzle, or one the audit does not run)."""
        if index not in self.wanted:
            return None
        while index not in self._answers:
            answer = next(self._stream, None)
            if answer is None:  # every claim answered (a puzzle without a truth got its answer)
                break
            done = self._sent.popleft()
            self._answers[done] = answer
            if answer.path is not None:
                self.written += 1
                self.certificate_seconds += answer.seconds
        return self._answers.setdefault(index, Certified(None, "the ground truth was not certified"))

    def apply(self, results: Iterable[RunResult]) -> Generator[RunResult, None, None]:
        """Each result naming its puzzle's certificate; a puzzle whose truth could not be
        certified gets 'unknown' in place of 'correct' and 'wrong', with why."""
        try:
            for result in results:
                answer = self.answer(result.index)
                if answer is None:
                    yield result
                elif answer.path is not None:
                    yield replace(result, certificate=answer.path)
                elif result.verdict in (Verdict.CORRECT, Verdict.WRONG):
                    why = answer.error or "the ground truth is not certified"
                    detail = f"{why} (judged {result.verdict.value} on it: {result.detail})"
                    yield replace(result, verdict=Verdict.UNKNOWN, detail=detail)
                else:
                    yield result
        finally:  # an audit that ends early stops its runs and the certificates still being made
            close = getattr(results, "close", None)
            if close is not None:
                close()
            self.close()

    @property
    def failed(self) -> int:
        """Puzzles so far whose truth could not be certified."""
        return sum(1 for answer in self._answers.values() if answer.path is None)

    def close(self) -> None:
        """Stop the certificates still being made (an audit that ends early)."""
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()
