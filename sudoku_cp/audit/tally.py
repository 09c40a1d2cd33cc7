"""Tallies: counts, success rate and times of each solver's runs, and the wrong runs to list."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .answers import Verdict
from .judge import RunResult

__all__ = ["SolverTally", "tally"]


@dataclass(slots=True)
class SolverTally:
    """Counts and times of one solver's runs; the wrong ones kept to be listed."""

    solver: str
    verdicts: Counter[Verdict] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    wrong: list[RunResult] = field(default_factory=list)

    def add(self, result: RunResult) -> None:
        """Count one result (invalid corpus items are counted but not timed)."""
        self.verdicts[result.verdict] += 1
        if result.verdict is not Verdict.INVALID:
            self.seconds.append(result.seconds)
        if result.verdict is Verdict.WRONG:
            self.wrong.append(result)

    @property
    def runs(self) -> int:
        """Runs made (invalid corpus items excluded)."""
        return len(self.seconds)

    @property
    def success_rate(self) -> float:
        """The fraction of runs judged correct (0 without runs)."""
        return self.verdicts[Verdict.CORRECT] / self.runs if self.runs else 0.0

    def time_stats(self) -> tuple[float, float, float]:
        """(median, mean, max) seconds over all runs, whatever their verdict."""
        if not self.seconds:
            return 0.0, 0.0, 0.0
        return statistics.median(self.seconds), statistics.fmean(self.seconds), max(self.seconds)

    def to_json(self) -> dict[str, object]:
        """The summary object of this solver."""
        median, mean, most = self.time_stats()
        obj: dict[str, object] = {"solver": self.solver, "runs": self.runs}
        obj.update({verdict.value: self.verdicts[verdict] for verdict in Verdict})
        obj.update(
            {
                "success_rate": round(self.success_rate, 6),
                "median_seconds": round(median, 6),
                "mean_seconds": round(mean, 6),
                "max_seconds": round(most, 6),
                "wrong_answers": [
                    {"puzzle": r.index + 1, "line": r.line, "run": r.run + 1} for r in self.wrong
                ],
            }
        )
        return obj


def tally(results: Iterable[RunResult]) -> list[SolverTally]:
    """One tally per solver, in the order solvers first appear."""
    tallies: dict[str, SolverTally] = {}
    for result in results:
        tallies.setdefault(result.solver, SolverTally(result.solver)).add(result)
    return list(tallies.values())
