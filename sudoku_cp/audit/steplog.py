"""Step logs: what a deduction engine claims, puzzle by puzzle and step by step, read from JSON Lines.

A log file holds one JSON object per line (blank lines are skipped); every row, column and digit
is 1-based.  Three kinds of line:

* a **puzzle line** starts a puzzle's log: ``{"puzzle": "4.....8.5...", "box": "3x3"}`` (any
  one-puzzle text the house reads, or rows of integers, 0 blank, as ``grid_to_json`` writes
  them; ``box`` "PxQ" where the side alone is ambiguous, else the reader's default box).  It
  may carry the puzzle's ``steps`` inline (a list of step objects) and ``candidates``: the
  candidates after those steps;
* a **step line** adds one step to the puzzle above it: ``{"rule": "x-wing", "placements":
  [[r, c, d], ...], "eliminations": [[r, c, d], ...], "candidates": [[[d, ...], ...], ...]}``
  (every key optional; ``candidates``: the candidates before the step, per row, per cell, the
  digits left; a filled cell lists its digit or nothing);
* an **explain line**, what ``sudoku-cp explain --json`` writes: ``steps`` and ``index`` (0-based)
  but no ``puzzle``: the puzzle is item ``index`` of the corpus explain read, which the caller
  passes in (its ``line`` must match); ``candidates`` (a stuck puzzle's) are those after the last
  step.  Other keys (``cells``, ``units``, ``links``, ``rating`` ...) are ignored.

A results file's header line (``{"sudoku_cp_results": 1, ...}``, what ``-o FILE`` writes first)
is returned apart, so that the caller can compare its input digest with the corpus.

Inside everything is 0-based: cell = r * n + c, digit 0..n-1.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import SudokuCpError, excerpt
from ..formats import ParseError, PuzzleItem, parse_grid
from ..geometry import GeometryError, geometry_for_size, parse_box
from ..grid import Grid

__all__ = ["CandidateCheck", "StepLog", "StepLogError", "read_step_logs"]

#: The key of a results file's header line (``cli.results_file.HEADER_KEY``; the CLI sits above).
RESULTS_HEADER = "sudoku_cp_results"
_STEP_KEYS = ("placements", "eliminations", "candidates")


class StepLogError(SudokuCpError, ValueError):
    """A log line that is not JSON, not a puzzle or a step, or claims a cell or digit off the grid."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True, slots=True, eq=False)
class CandidateCheck:
    """Candidates the engine says are left after ``position`` steps (0: before the first one)."""

    position: int
    line: int
    candidates: np.ndarray  # (n*n, n) bool


_NO_CLAIMS = np.zeros((0, 3), dtype=np.int64)
_NO_CLAIMS.setflags(write=False)


@dataclass(frozen=True, slots=True, eq=False)
class StepLog:
    """One puzzle's log: the puzzle (None when its corpus line is unreadable, ``error`` says why),
    its steps' claims as (k, 3) int64 arrays of (step, cell, digit) in log order (steps
    0-based), each step's rule and line, and the candidate lists it states between steps.

    Claims are kept as two arrays per puzzle, not as an object per step: a log file holds
    millions of steps."""

    index: int
    line: int
    puzzle: Grid | None
    steps: int = 0
    rules: tuple[str, ...] = ()
    step_lines: tuple[int, ...] = ()
    placements: np.ndarray = field(default_factory=lambda: _NO_CLAIMS)
    eliminations: np.ndarray = field(default_factory=lambda: _NO_CLAIMS)
    checks: tuple[CandidateCheck, ...] = ()
    error: str | None = None

    @property
    def claims(self) -> int:
        """Placements plus eliminations claimed."""
        return len(self.placements) + len(self.eliminations)

    def step_claims(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per step, its placements and its eliminations as (k, 2) arrays of (cell, digit)."""
        edges = np.arange(self.steps + 1)
        cut_p = np.searchsorted(self.placements[:, 0], edges)
        cut_e = np.searchsorted(self.eliminations[:, 0], edges)
        return [
            (self.placements[cut_p[k] : cut_p[k + 1], 1:], self.eliminations[cut_e[k] : cut_e[k + 1], 1:])
            for k in range(self.steps)
        ]


@dataclass(slots=True)
class _Building:
    index: int
    line: int
    puzzle: Grid | None
    error: str | None = None
    rules: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    placed: list[int] = field(default_factory=list)  # step, cell, digit, flat
    removed: list[int] = field(default_factory=list)
    checks: list[CandidateCheck] = field(default_factory=list)

    def done(self) -> StepLog:
        def table(flat: list[int]) -> np.ndarray:
            return np.array(flat, dtype=np.int64).reshape(-1, 3) if flat else _NO_CLAIMS

        return StepLog(
            self.index,
            self.line,
            self.puzzle,
            len(self.rules),
            tuple(self.rules),
            tuple(self.lines),
            table(self.placed),
            table(self.removed),
            tuple(self.checks),
            self.error,
        )


def read_step_logs(
    text: str,
    *,
    corpus: Sequence[PuzzleItem] | None = None,
    box: tuple[int, int] | None = None,
) -> tuple[list[StepLog], list[tuple[int, dict[str, Any]]]]:
    """The puzzles' logs of a JSON Lines text, in order, and the results-file header lines
    (line, object) it holds.  ``corpus``: the puzzles explain lines point at; ``box``: the
    box shape of puzzle lines that name none.  The first bad line raises ``StepLogError``."""
    logs: list[StepLog] = []
    headers: list[tuple[int, dict[str, Any]]] = []
    current: _Building | None = None
    names: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as problem:  # also a number too long, nesting too deep
            raise StepLogError(number, f"not JSON: {excerpt(str(problem), 120, quote=False)}") from None
        if not isinstance(obj, dict):
            raise StepLogError(number, f"a JSON object is expected, not {excerpt(obj, 40)}")
        if RESULTS_HEADER in obj:
            headers.append((number, obj))
            continue
        if "puzzle" in obj or "steps" in obj:
            if current is not None:
                logs.append(current.done())
            current = _start(obj, number, len(logs), corpus, box)
            if current.puzzle is None:
                continue  # an unreadable corpus line: nothing in its log can be read against it
            steps = obj.get("steps", [])
            if not isinstance(steps, list):
                raise StepLogError(number, "'steps' must be a list of step objects")
            for k, step in enumerate(steps, 1):
                if not isinstance(step, dict):
                    raise StepLogError(
                        number, f"step {k}: a JSON object is expected, not {excerpt(step, 40)}"
                    )
                _add_step(current, step, number, f"step {k}: ", names)
            if obj.get("candidates") is not None:
                _add_check(current, obj["candidates"], number, "candidates: ")
        elif any(key in obj for key in _STEP_KEYS):
            if current is None:
                raise StepLogError(number, 'a step before any puzzle line (give {"puzzle": ...} first)')
            if current.puzzle is not None:
                _add_step(current, obj, number, "", names)
        else:
            raise StepLogError(
                number, "neither a puzzle ('puzzle' or 'steps') nor a step ('placements', 'eliminations')"
            )
    if current is not None:
        logs.append(current.done())
    return logs, headers


def _start(
    obj: dict[str, Any],
    number: int,
    index: int,
    corpus: Sequence[PuzzleItem] | None,
    box: tuple[int, int] | None,
) -> _Building:
    """A new log from a puzzle line or an explain line."""
    if "puzzle" in obj:
        text = obj["puzzle"]
        if not isinstance(text, (str, list)):
            raise StepLogError(number, f"'puzzle' must be a puzzle text or rows, not {excerpt(text, 40)}")
        if obj.get("box") is not None:
            if not isinstance(obj["box"], str):
                raise StepLogError(number, f"'box' must be a text PxQ, not {excerpt(obj['box'], 40)}")
            try:
                box = parse_box(obj["box"])
            except GeometryError as problem:
                raise StepLogError(number, f"box: {problem}") from None
        try:
            grid = parse_grid(text, box=box) if isinstance(text, str) else _rows_grid(text, box)
        except (ParseError, GeometryError) as problem:
            raise StepLogError(number, f"puzzle: {problem}") from None
        return _Building(index, number, grid)
    place = obj.get("index")
    if corpus is None:
        raise StepLogError(
            number,
            "an explain line names no puzzle: pass the corpus it was made from, or give a 'puzzle'",
        )
    if not isinstance(place, int) or isinstance(place, bool) or not 0 <= place < len(corpus):
        raise StepLogError(
            number, f"'index' {excerpt(place, 20)} is not a puzzle of the corpus (0 to {len(corpus) - 1})"
        )
    item = corpus[place]
    said = obj.get("line")
    if said is not None and said != item.line:
        raise StepLogError(
            number,
            f"puzzle #{place + 1} was read from line {excerpt(said, 20)}, but the corpus has it on "
            f"line {item.line}: the log was made from another input",
        )
    return _Building(index, number, item.grid, item.error)


def _rows_grid(rows: list[Any], box: tuple[int, int] | None) -> Grid:
    """A puzzle given as rows of integers (0 blank), as ``formats.grid_to_json`` writes "rows"."""
    n = len(rows)
    if not all(
        isinstance(row, list)
        and len(row) == n
        and all(type(x) is int and 0 <= x <= n for x in row)  # a bool is no digit
        for row in rows
    ):
        raise ParseError(f"rows must be {n} lists of {n} integers 0..{n} (0: blank)")
    return Grid(geometry_for_size(n, box), np.array(rows, dtype=np.int64).reshape(n, n))


def _add_step(log: _Building, obj: dict[str, Any], number: int, where: str, names: dict[str, str]) -> None:
    """A step object's claims (and its candidates before it) appended to ``log``."""
    assert log.puzzle is not None
    if obj.get("candidates") is not None:
        _add_check(log, obj["candidates"], number, f"{where}candidates: ")
    rule = obj.get("rule", "")
    if not isinstance(rule, str):
        raise StepLogError(number, f"{where}'rule' must be a text, not {excerpt(rule, 40)}")
    n, step = log.puzzle.n, len(log.rules)
    _triples(log.placed, step, obj.get("placements"), n, number, f"{where}placements")
    _triples(log.removed, step, obj.get("eliminations"), n, number, f"{where}eliminations")
    log.rules.append(names.setdefault(rule, rule))  # one text per rule name, not one per step
    log.lines.append(number)


def _triples(out: list[int], step: int, value: object, n: int, number: int, what: str) -> None:
    """[[row, column, digit], ...] (1-based) appended to ``out`` as step, cell, digit (0-based)."""
    if value is None or (isinstance(value, list) and not value):
        return  # most steps place nothing or remove nothing
    if not isinstance(value, list):
        raise StepLogError(number, f"{what} must be a list of [row, column, digit], not {excerpt(value, 40)}")
    # One pass for the usual case; the slow one below only to name what is wrong.
    if all(type(t) is list and len(t) == 3 and all(type(x) is int and 1 <= x <= n for x in t) for t in value):
        for r, c, d in value:
            out += (step, (r - 1) * n + c - 1, d - 1)
        return
    for k, triple in enumerate(value):
        if (
            not isinstance(triple, list)
            or len(triple) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in triple)
        ):
            raise StepLogError(number, f"{what}[{k}] = {excerpt(triple, 40)} is not [row, column, digit]")
        for name, x in zip(("row", "column", "digit"), triple, strict=True):
            if not 1 <= x <= n:
                raise StepLogError(
                    number, f"{what}[{k}] = {excerpt(triple, 40)}: {name} {x} is outside 1..{n}"
                )
    raise AssertionError("a bad triple not named")  # pragma: no cover


def _add_check(log: _Building, value: object, number: int, what: str) -> None:
    """Candidates per row, per cell (digits 1..n) as an (n*n, n) bool array, after the steps so far."""
    assert log.puzzle is not None
    n = log.puzzle.n
    if not isinstance(value, list) or len(value) != n:
        raise StepLogError(number, f"{what}{n} rows of cells, each a list of digits, are expected")
    table = np.zeros((n * n, n), dtype=bool)
    for r, row in enumerate(value):
        if not isinstance(row, list) or len(row) != n:
            raise StepLogError(number, f"{what}row {r + 1} must be a list of {n} cells")
        for c, digits in enumerate(row):
            if not isinstance(digits, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= n for d in digits
            ):
                raise StepLogError(number, f"{what}R{r + 1}C{c + 1}: a list of digits 1..{n} is expected")
            table[r * n + c, np.asarray(digits, dtype=np.int64) - 1] = True
    log.checks.append(CandidateCheck(len(log.rules), number, table))
