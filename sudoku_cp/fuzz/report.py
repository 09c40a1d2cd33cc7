"""What a fuzzing run found: failures (original and shrunk), their JSON Lines and text, the summary.

A failure's JSON object has ``index`` (the case number, what ``--resume`` keys on), ``kind``,
``verdict``, ``box`` ("PxQ"), ``status``, ``symbols``, ``puzzle`` (the one-line form; integers past
61), ``claimed`` and ``truth`` (answer lines of the program protocol: ``solved SOLUTION``,
``unique SOLUTION``, ``multiple SOLUTION``, ``unsat``, ``unknown``; ``none`` for no claim),
``detail``, ``seed`` (the run's seed: what ``{seed}`` was), ``count`` (failures of its kind so
far: a line is written when its failure is found; the summary's ``failures`` has the totals),
``spent`` (seconds of the budget used when it was reported, earlier runs resumed included), and
``shrunk`` = {``box``, ``puzzle``, ``claimed``, ``truth``, ``detail``, ``givens``, ``calls``,
``seconds``, ``minimal``, ``steps``}; ``reproduce``, the command that runs the solver on the shrunk puzzle;
``certificate`` / ``shrunk.certificate`` with ``--certify``.  The summary's ``spent`` is the
seconds of the budget used by the run and those it resumes: a resumed run has what remains
(``spent_seconds``; a run cut before its summary counts up to its last failure).
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..audit.answers import Claim, Verdict
from ..audit.truth import Truth
from ..formats import format_line, format_pretty
from ..grid import Grid
from .calls import Outcome, SolverSpec
from .cases import CaseKey
from .shrink import Shrunk

__all__ = [
    "Failure",
    "FuzzReport",
    "claim_text",
    "read_resumed",
    "reproduce_command",
    "spent_seconds",
    "truth_text",
]


def claim_text(claimed: Claim, shown: tuple[Grid, ...]) -> str:
    """A claim as an answer line: 'solved SOLUTION', 'multiple SOLUTION', 'unsat', 'none', ..."""
    if shown and claimed in (Claim.SOLVED, Claim.UNIQUE, Claim.MULTIPLE):
        return f"{claimed.value} {format_line(shown[0])}"
    return claimed.value


def truth_text(truth: Truth | None) -> str:
    """The ground truth as an answer line: 'unsat', 'unique SOLUTION', 'multiple SOLUTION';
    'unknown' when it could not be decided."""
    if truth is None:
        return "unknown"
    if truth.count == 0:
        return "unsat"
    return f"{'unique' if truth.count == 1 else 'multiple'} {format_line(truth.solutions[0])}"


def reproduce_command(solver: SolverSpec, puzzle: Grid, seed: int) -> str:
    """The one command that runs ``solver`` on ``puzzle`` as the fuzzer did: a program with its
    placeholders filled (the puzzle on standard input unless ``{}`` takes it), or ``verify``."""
    line = format_line(puzzle)
    box = puzzle.geometry.box_label
    if solver.kind == "program":
        words = shlex.split(solver.name)
        fill = {"{}": line, "{seed}": str(seed), "{box}": box}
        argv = []
        for word in words:
            for key, value in fill.items():
                word = word.replace(key, value)
            argv.append(word)
        command = shlex.join(argv)
        return command if "{}" in solver.name else f"printf '%s\\n' {shlex.quote(line)} | {command}"
    name = solver.name if solver.kind == "backend" else "<your function>"
    if solver.kind != "backend":
        return f"{name}(parse_line({line!r}, box=({puzzle.geometry.p}, {puzzle.geometry.q})))"
    return f"sudoku-cp verify --backend {shlex.quote(name)} --box {box} --format line {shlex.quote(line)}"


@dataclass
class Failure:
    """One kind of failure: the first case that showed it (``index``, ``key``, ``puzzle``, its
    ``outcome`` and ``truth``), how often the kind came (``count``), and its shrunk form."""

    index: int
    key: CaseKey
    puzzle: Grid
    outcome: Outcome
    kind: str
    seed: int
    truth: str = "unknown"
    shrunk: Shrunk | None = None
    shrunk_truth: str = "unknown"
    reproduce: str = ""
    count: int = 1
    certificate: str | None = None
    shrunk_certificate: str | None = None
    spent: float = 0.0
    verdict: Verdict = field(init=False)

    def __post_init__(self) -> None:
        assert self.outcome.verdict is not None
        self.verdict = self.outcome.verdict

    @property
    def claimed(self) -> str:
        """The claim of the failing answer, as an answer line."""
        return claim_text(self.outcome.claimed, self.outcome.solutions)

    def to_json(self) -> dict[str, object]:
        """The failure's JSON Lines object (see the module docstring)."""
        obj: dict[str, object] = {
            "index": self.index,
            "kind": self.kind,
            "verdict": self.verdict.value,
            "box": self.puzzle.geometry.box_label,
            "status": self.key.status,
            "symbols": self.key.symbols,
            "puzzle": format_line(self.puzzle),
            "claimed": self.claimed,
            "truth": self.truth,
            "detail": self.outcome.detail,
            "seed": self.seed,
            "count": self.count,
            "spent": round(self.spent, 3),
        }
        if self.shrunk is not None:
            small = self.shrunk
            shrunk: dict[str, object] = {
                "box": small.puzzle.geometry.box_label,
                "puzzle": format_line(small.puzzle),
                "claimed": claim_text(small.outcome.claimed, small.outcome.solutions),
                "truth": self.shrunk_truth,
                "detail": small.outcome.detail,
                "givens": small.puzzle.givens,
                "calls": small.calls,
                "seconds": round(small.seconds, 3),
                "minimal": small.minimal,
                "steps": list(small.steps),
            }
            if self.shrunk_certificate is not None:
                shrunk["certificate"] = self.shrunk_certificate
            obj["shrunk"] = shrunk
        if self.reproduce:
            obj["reproduce"] = self.reproduce
        if self.certificate is not None:
            obj["certificate"] = self.certificate
        return obj

    def text(self) -> str:
        """The human report: what failed, the original and the shrunk puzzle as grids, the command."""
        g = self.puzzle.geometry
        head = (
            f"{self.verdict.value} on case #{self.index} (box {g.box_label}, {self.key.status}, "
            f"symbols {self.key.symbols}, seed {self.seed}; {self.count} case{'s' * (self.count != 1)} "
            f"of this kind): claimed {self.claimed.split(' ')[0]}: {self.outcome.detail}"
        )
        lines = [head, f"original puzzle ({g.box_label}, {self.puzzle.givens} givens):"]
        lines += ["  " + row for row in format_pretty(self.puzzle).splitlines()]
        small = self.shrunk
        if small is not None:
            shape = small.puzzle.geometry.box_label
            minimal = "1-minimal" if small.minimal else "not minimal: the shrink budget ran out"
            givens = small.puzzle.givens
            lines.append(f"shrunk in {small.calls} solver calls to box {shape}, {givens} givens ({minimal}):")
            lines += ["  " + row for row in format_pretty(small.puzzle).splitlines()]
            lines.append(f"  puzzle: {format_line(small.puzzle)}")
            lines.append(f"  claimed: {claim_text(small.outcome.claimed, small.outcome.solutions)}")
            lines.append(f"  truth:   {self.shrunk_truth}")
            lines.append(f"  why:     {small.outcome.detail}")
        if self.reproduce:
            lines.append(f"reproduce: {self.reproduce}")
        return "\n".join(lines)


@dataclass
class FuzzReport:
    """A fuzzing run: the cases judged (``cases``; the next case number ``next_case``), verdicts,
    solver calls (cases and shrinking), seconds, and the failures, one per kind, in order found."""

    solver: str
    seed: int
    cases: int = 0
    next_case: int = 0
    calls: int = 0
    seconds: float = 0.0
    verdicts: Counter[str] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    resumed: list[Mapping[str, Any]] = field(default_factory=list)
    spent_before: float = 0.0

    @property
    def spent(self) -> float:
        """Seconds of the budget used: this run's and those of the runs it resumes."""
        return self.spent_before + self.seconds

    @property
    def kinds(self) -> set[str]:
        """The failure kinds found, resumed ones included."""
        return {f.kind for f in self.failures} | {str(obj.get("kind")) for obj in self.resumed}

    @property
    def exit_code(self) -> int:
        """4 when an answer was wrong, 3 for timeouts, crashes or unknown verdicts, else 0."""
        verdicts = {f.verdict.value for f in self.failures} | {str(o.get("verdict")) for o in self.resumed}
        if Verdict.WRONG.value in verdicts:
            return 4
        if verdicts or self.verdicts[Verdict.UNKNOWN.value]:
            return 3
        return 0

    def summary(self) -> dict[str, object]:
        """The summary object of the JSON Lines (``{"summary": ...}``)."""
        return {
            "solver": self.solver,
            "seed": self.seed,
            "cases": self.cases,
            "next_case": self.next_case,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
            "spent": round(self.spent, 3),
            "verdicts": dict(sorted(self.verdicts.items())),
            "failures": {kind: self._count(kind) for kind in sorted(self.kinds)},
            "exit_code": self.exit_code,
        }

    def _count(self, kind: str) -> int:
        mine = sum(f.count for f in self.failures if f.kind == kind)
        return mine + sum(int(o.get("count", 1)) for o in self.resumed if o.get("kind") == kind)

    def text(self) -> str:
        """The last line of the human report."""
        rate = self.cases / self.seconds if self.seconds > 0 else 0.0
        found = ", ".join(f"{kind} x{self._count(kind)}" for kind in sorted(self.kinds)) or "no failure"
        return (
            f"fuzz: {self.cases} cases in {self.seconds:.1f} s ({rate:.0f} cases/s), "
            f"{self.calls} solver calls, seed {self.seed}: {found}"
        )


def read_resumed(path: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The failure objects and the summary (None if the run was cut before it) of a JSON Lines
    file an earlier fuzzing run wrote; a missing file holds neither.  A cut last line is skipped."""
    import json

    failures: list[dict[str, Any]] = []
    summary: dict[str, Any] | None = None
    try:
        with open(path, "rb") as old:
            for number, line in enumerate(old, start=1):
                if not line.endswith(b"\n"):
                    break  # cut by the interruption
                try:
                    obj = json.loads(line)
                except ValueError:
                    raise ValueError(f"{path}:{number}: not a JSON line; cannot resume from it") from None
                if isinstance(obj, dict) and "sudoku_cp_results" in obj:
                    continue  # the header line (cli.results_file checks it)
                if isinstance(obj, dict) and isinstance(obj.get("summary"), dict):
                    summary = obj["summary"]
                elif isinstance(obj, dict) and "kind" in obj and isinstance(obj.get("index"), int):
                    failures.append(obj)
                else:
                    raise ValueError(f"{path}:{number}: not a fuzzing result; cannot resume from it")
    except FileNotFoundError:
        pass
    return failures, summary


def spent_seconds(failures: list[dict[str, Any]], summary: Mapping[str, Any] | None) -> float:
    """Seconds of the budget the runs of a results file used: its summary's ``spent`` (a file
    written before it was recorded: ``seconds``); without a summary (the run was cut), the
    ``spent`` of its last failure, the time up to there (0 without one)."""
    if summary is not None:
        value = summary.get("spent", summary.get("seconds", 0.0))
    else:
        value = max((obj.get("spent", 0.0) for obj in failures), key=_seconds, default=0.0)
    return _seconds(value)


def _seconds(value: object) -> float:
    """A recorded number of seconds; anything else (a hand-edited file) counts as none."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if value >= 0 and value != float("inf") else 0.0
