"""Judging one run: the verdict on an answer's claim, and the claim a backend's search result makes.

A claimed grid is checked by the independent checker (complete, valid, keeps the givens), which
needs no solver; claims about the number of solutions are checked against the ground truth, which
``judge`` asks for only when a claim needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends.base import BackendError, SearchResult
from ..checker import solution_problem
from ..formats import format_line
from ..geometry import geometry_for_size
from ..grid import Grid
from .answers import Answer, Claim, Verdict
from .truth import Truth

__all__ = ["RunResult", "answer_from_search", "judge", "pack_grid", "unpack_grid"]


@dataclass(frozen=True, slots=True)
class RunResult:
    """One run of one solver on one puzzle, judged.  ``index`` and ``run`` are 0-based.

    ``position`` is the run's 0-based place in the audit's output (what ``--resume`` keys on);
    ``truth_seconds`` the time of the SAT call judging this run made, None when it made none;
    ``certificate`` the manifest of the certificate of the puzzle's ground truth (``--certify``).
    """

    solver: str
    index: int
    line: int
    run: int
    seed: int | None
    claimed: Claim
    verdict: Verdict
    seconds: float
    detail: str = ""
    solution: Grid | None = None
    position: int = 0
    truth_seconds: float | None = None
    certificate: str | None = None

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # A pickled Grid would carry its geometry's tables: the solution travels as plain numbers.
        solution = self.solution
        packed = None if solution is None else pack_grid(solution)
        fields = (self.solver, self.index, self.line, self.run, self.seed, self.claimed, self.verdict)
        rest = (self.seconds, self.detail, packed, self.position, self.truth_seconds, self.certificate)
        return _unpickle_run, (*fields, *rest)

    def to_json(self) -> dict[str, object]:
        """The JSON Lines object: index (the run's place in the output), then puzzle and run
        1-based as users count them."""
        obj: dict[str, object] = {
            "index": self.position,
            "solver": self.solver,
            "puzzle": self.index + 1,
            "line": self.line,
            "run": self.run + 1,
            "seed": self.seed,
            "claimed": self.claimed.value,
            "verdict": self.verdict.value,
            "seconds": round(self.seconds, 6),
            "detail": self.detail,
        }
        if self.solution is not None:
            obj["solution"] = format_line(self.solution)
        if self.certificate is not None:
            obj["certificate"] = self.certificate
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> RunResult:
        """The result a JSON line stands for (the solution left out): what a resumed run counts."""
        seed = obj.get("seed")
        certificate = obj.get("certificate")
        return cls(
            str(obj["solver"]),
            int(obj["puzzle"]) - 1,
            int(obj["line"]),
            int(obj["run"]) - 1,
            None if seed is None else int(seed),
            Claim(obj["claimed"]),
            Verdict(obj["verdict"]),
            float(obj["seconds"]),
            str(obj.get("detail", "")),
            position=int(obj["index"]),
            certificate=None if certificate is None else str(certificate),
        )


def _unpickle_run(*fields: Any) -> RunResult:
    solver, index, line, run, seed, claimed, verdict, seconds, detail, packed, *rest = fields
    solution = None if packed is None else unpack_grid(*packed)
    return RunResult(solver, index, line, run, seed, claimed, verdict, seconds, detail, solution, *rest)


def pack_grid(grid: Grid) -> tuple[int, int, bytes]:
    """A grid as plain numbers (box shape, digits), to send to another process."""
    return grid.geometry.p, grid.geometry.q, grid.values.tobytes()


def unpack_grid(p: int, q: int, values: bytes) -> Grid:
    """The grid ``pack_grid`` sent, built as here: checked, read-only, its geometry shared."""
    return Grid(geometry_for_size(p * q, (p, q)), np.frombuffer(values, dtype=np.int16))


def judge(puzzle: Grid, answer: Answer, truth: Callable[[], Truth]) -> tuple[Verdict, str]:
    """The verdict on an answer and why; ``truth`` is called only when a claim needs SAT.

    Raises BackendError when the ground truth finds no solution where the checker passed one.
    """
    if answer.failure is not None:
        return answer.failure, answer.detail
    claim = answer.claim
    if claim in (Claim.UNKNOWN, Claim.NONE):
        return Verdict.UNKNOWN, answer.detail or "no claim"
    if claim is Claim.UNSAT:
        known = truth()
        if known.count:
            return Verdict.WRONG, f"claimed no solution, but SAT finds {format_line(known.solutions[0])}"
        return Verdict.CORRECT, known.reason or "no solution, confirmed by SAT"
    for number, solution in enumerate(answer.solutions, start=1):
        problem = solution_problem(puzzle, solution)
        if problem is not None:
            which = f"solution {number}" if len(answer.solutions) > 1 else "the solution"
            return Verdict.WRONG, f"{which} is not valid: {problem}"
    if len(answer.solutions) > 1 and answer.solutions[0] == answer.solutions[1]:
        return Verdict.WRONG, "the same solution shown twice"
    if claim is Claim.MULTIPLE:
        if len(answer.solutions) > 1:
            return Verdict.CORRECT, "two different valid solutions shown"
        known = truth()
        if len(set(known.solutions) | set(answer.solutions)) > 1:
            return Verdict.CORRECT, "more than one solution, confirmed by SAT"
        if known.count == 1:
            return Verdict.WRONG, "claimed more than one solution, but SAT proves the solution unique"
        if not answer.solutions:
            return Verdict.WRONG, "claimed more than one solution, but SAT proves there is none"
        raise _contradiction(answer)
    if not answer.solutions:
        return Verdict.WRONG, f"claimed {claim.value} but showed no solution"
    if claim is Claim.UNIQUE:
        known = truth()
        other = next((grid for grid in known.solutions if grid != answer.solutions[0]), None)
        if other is not None:
            return Verdict.WRONG, f"claimed unique, but SAT finds another solution {format_line(other)}"
        if known.count == 1:
            return Verdict.CORRECT, "unique, confirmed by SAT"
        raise _contradiction(answer)
    return Verdict.CORRECT, ""


def _contradiction(answer: Answer) -> BackendError:
    """Ground truth that finds no solution where the checker passed one: never trust either."""
    shown = format_line(answer.solutions[0])
    return BackendError(f"the ground truth finds no solution, but the checker passed {shown}")


def _stats_text(stats: dict[str, float | int]) -> str:
    """' (iterations 5000, restarts 12)': a backend's counters, to show how far it got."""
    shown = [f"{key} {value}" for key, value in stats.items() if isinstance(value, int)]
    return f" ({', '.join(shown)})" if shown else ""


def answer_from_search(puzzle: Grid, found: SearchResult, limit: int, seconds: float) -> Answer:
    """The claim a backend's search result makes (``limit`` is the limit it was asked for)."""
    if found.count == 0:
        if found.complete:
            return Answer(Claim.UNSAT, seconds=seconds)
        if found.timed_out:
            detail = "time limit reached" + _stats_text(found.stats)
            return Answer(Claim.NONE, failure=Verdict.TIMEOUT, detail=detail, seconds=seconds)
        return Answer(Claim.UNKNOWN, detail="the solver gave up" + _stats_text(found.stats), seconds=seconds)
    try:
        solutions = tuple(puzzle.with_values(values) for values in np.asarray(found.solutions)[:2])
    except ValueError as error:
        return Answer(Claim.SOLVED, failure=Verdict.WRONG, detail=f"bad solution: {error}", seconds=seconds)
    if found.count >= 2:
        claim = Claim.MULTIPLE
    elif limit >= 2 and found.complete:
        claim = Claim.UNIQUE
    else:
        claim = Claim.SOLVED
    return Answer(claim, solutions, seconds=seconds)
