"""Explain and rate many puzzles: one result per input item, an ``invalid`` result for a bad one.

``explain_items`` records every step of each puzzle (what ``sudoku-cp explain`` prints);
``rate_items`` runs the fast path of ``rate`` on each (what ``sudoku-cp rate`` prints).  Both
take the parsed items of a batch (``formats.parse_puzzles``) and go on past bad lines: an
unreadable line or clashing givens give ``Status.INVALID`` with the reason.  ``time_limit``, as
in ``sudoku_cp.api``: a number of seconds for each puzzle, or a ``Deadline`` that covers the
whole batch (puzzles it stops, and every puzzle after it, are ``unknown``, "time limit
reached").  The text forms (a puzzle's steps, pencil marks, the histogram of levels, the rule
table of ``--help``) live here too, so the command line only prints.

Both run in chunks on an executor (``sudoku_cp.executor``: this process, local worker
processes or a Dask cluster).  A chunk carries its puzzles as plain numbers, the rules by name
(a worker selects them once) and the batch's deadline as a wall-clock end (or the seconds of
each puzzle); the results come back in
input order.  ``skip`` leaves out the items whose indices a resumed run already has.
"""

from __future__ import annotations

import math
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Container, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..checker import given_conflict
from ..executor import Executor, Work, run_ordered
from ..formats import SYMBOLS, PuzzleItem, format_line, format_pretty, json_dumps
from ..geometry import geometry_for_size
from ..grid import Grid
from ..limits import Deadline
from ..outcome import REASON_TIME_LIMIT, Status
from .board import Board
from .engine import Deduction, deduce
from .rate import LEVELS, Rating, level_of, rate, rating_of
from .rules import FAMILIES, RULES, Rule, select_rules
from .step import steps_json

__all__ = [
    "Explained",
    "Rated",
    "explain_items",
    "histogram_lines",
    "levels_help",
    "pencil_marks",
    "rate_items",
    "rules_help",
]


# ------------------------------------------------------------------------------------------ explain


def _head(
    index: int, line: int | None, status: Status, rating: float | None, level: str, hardest: str | None
) -> dict[str, object]:
    """The fields every JSON result starts with: index, line, status, rating, level, hardest."""
    obj: dict[str, object] = {"index": index}
    if line is not None:
        obj["line"] = line
    obj.update({"status": status.value, "rating": rating, "level": level})
    if hardest is not None:
        obj["hardest"] = hardest
    return obj


@dataclass(frozen=True, slots=True)
class Explained:
    """One puzzle explained: its status, rating and level, and the deduction (steps, final board).

    ``deduction`` is None for an invalid item (``error`` says why) and for one the deadline
    stopped before it began; ``error`` also carries the reason of unsat and unknown results.
    ``refuted``: with ``check``, the failed proof of a step (``proof.StepNotProved``'s message),
    which ended the puzzle's explanation.  ``hardest_step``: the number (1-based) of the first
    step of the rating's weight, the step that set it.  ``json_text``: the result's JSON line,
    made where it was explained, when the batch was asked for lines only (``explain_items``'s
    ``json_only``: then ``deduction`` is None and ``json_line`` returns this text).
    """

    index: int
    line: int | None
    status: Status
    puzzle: Grid | None = None
    deduction: Deduction | None = None
    rating: float | None = None
    level: str = "none"
    hardest: str | None = None
    error: str | None = None
    seconds: float = 0.0
    refuted: str | None = None
    hardest_step: int | None = None
    json_text: str | None = None

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Sent from a worker without what cannot or need not travel: the rule objects (their
        # finders are closures), the geometry's tables of the grid and the board.
        puzzle, deduction = self.puzzle, self.deduction
        packed = None if puzzle is None else (puzzle.geometry.p, puzzle.geometry.q, puzzle.values.tobytes())
        found = None
        if deduction is not None:
            board = deduction.board
            found = (
                deduction.status,
                board.values,
                board.cand,
                deduction.counts,
                deduction.steps,
                deduction.reason,
            )
        head = (self.index, self.line, self.status, packed, found)
        return _unpickle_explained, (
            *head,
            self.rating,
            self.level,
            self.hardest,
            self.error,
            self.seconds,
            self.refuted,
            self.hardest_step,
            self.json_text,
        )

    def to_json(self) -> dict[str, object]:
        """index (0-based), line, status, rating, level, hardest, hardest_step (1-based: the step
        that set the rating), steps (1-based cells), grid, and for a stuck puzzle its candidates
        (per row, per cell, the digits left)."""
        obj = _head(self.index, self.line, self.status, self.rating, self.level, self.hardest)
        if self.hardest_step is not None:
            obj["hardest_step"] = self.hardest_step
        if self.error is not None:
            obj["error"] = self.error
        deduction = self.deduction
        if deduction is not None and self.puzzle is not None:
            geometry = self.puzzle.geometry
            obj["steps"] = [step.to_json(geometry) for step in deduction.steps]
            if self.status is not Status.UNSAT:
                obj["grid"] = format_line(deduction.board.grid())
            if self.status is Status.STUCK:
                n = geometry.n
                cand = deduction.board.cand.reshape(n, n, n)
                obj["candidates"] = [[(np.flatnonzero(cell) + 1).tolist() for cell in row] for row in cand]
        else:
            obj["steps"] = []
        obj["seconds"] = round(self.seconds, 6)
        return obj

    def json_line(self) -> str:
        """``formats.json_dumps(self.to_json())`` written directly, the steps by ``step.steps_json``
        (explain prints one a puzzle: the dicts of its steps cost more than finding them)."""
        if self.json_text is not None:
            return self.json_text
        obj = _head(self.index, self.line, self.status, self.rating, self.level, self.hardest)
        if self.hardest_step is not None:
            obj["hardest_step"] = self.hardest_step
        if self.error is not None:
            obj["error"] = self.error
        text = json_dumps(obj)[:-1]  # the head's fields, then the steps and the rest
        deduction = self.deduction
        if deduction is not None and self.puzzle is not None:
            geometry = self.puzzle.geometry
            text += ',"steps":' + steps_json(deduction.steps, geometry)
            if self.status is not Status.UNSAT:
                text += ',"grid":' + json_dumps(format_line(deduction.board.grid()))
            if self.status is Status.STUCK:
                n = geometry.n
                cand = deduction.board.cand.reshape(n, n, n)
                rows = [[(np.flatnonzero(cell) + 1).tolist() for cell in row] for row in cand]
                text += ',"candidates":' + json_dumps(rows)
        else:
            text += ',"steps":[]'
        return text + f',"seconds":{round(self.seconds, 6)!r}}}'

    def headline(self) -> str:
        """'solved in 52 steps, rating 4.2 (fiendish), hardest xy-wing (step 31)' and the like."""
        steps = self.deduction.step_count if self.deduction is not None else 0
        if self.status is Status.SOLVED:
            text = f"solved in {steps} steps, rating {self.rating:.1f} ({self.level})"
            where = f" (step {self.hardest_step})" if self.hardest_step is not None else ""
            return text + (f", hardest {self.hardest}{where}" if self.hardest else "")
        if self.status is Status.STUCK:
            return f"stuck after {steps} steps: no rule applies (rating {self.rating:.1f}, {self.level})"
        if self.status is Status.UNSAT:
            return (
                f"unsat: no solution ({self.error})"
                if steps == 0
                else (f"unsat after {steps} steps: no solution ({self.error})")
            )
        return f"{self.status.value}: {_short(self.error, self.line)}"

    def text(self) -> str:
        """The numbered steps, then the final grid (solved), its pencil marks (stuck) or nothing."""
        lines: list[str] = []
        deduction = self.deduction
        if deduction is not None and self.puzzle is not None:
            geometry = self.puzzle.geometry
            width = len(str(len(deduction.steps)))
            lines += [f"{k:>{width}}. {step.describe(geometry)}" for k, step in enumerate(deduction.steps, 1)]
            if self.status is Status.SOLVED:
                lines.append(format_pretty(deduction.board.grid()))
            elif self.status in (Status.STUCK, Status.UNKNOWN):
                lines.append(pencil_marks(deduction.board))
        return "\n".join(lines)


def _unpickle_explained(
    index: int, line: int | None, status: Status, packed: Any, found: Any, *rest: Any
) -> Explained:
    puzzle = deduction = None
    if packed is not None:
        p, q, values = packed
        puzzle = _grid(p, q, values)
        if found is not None:
            done, board_values, cand, counts, steps, reason = found
            deduction = Deduction(done, Board(puzzle.geometry, board_values, cand), counts, steps, reason)
    return Explained(index, line, status, puzzle, deduction, *rest)


def _short(error: str | None, line: int | None) -> str:
    """An error without the 'line N' that the result's own heading already names."""
    text = error or ""
    for prefix in (f"line {line}: ", f"line {line}, "):
        text = text.removeprefix(prefix)
    return text


def _invalid(item: PuzzleItem) -> tuple[Grid | None, str | None]:
    """The item's grid, or the reason it is invalid (unreadable, clashing givens)."""
    if item.grid is None:
        return None, item.error or "unreadable puzzle"
    return item.grid, None


def _unsat_or_invalid(grid: Grid, status: Status) -> tuple[Status, str | None]:
    """An unsat answer may be clashing givens: invalid input, not a puzzle without solution."""
    if status is not Status.UNSAT:
        return status, None
    conflict = given_conflict(grid)
    return (Status.INVALID, conflict) if conflict is not None else (status, None)


def _not_started(grid: Grid) -> tuple[Status, str]:
    """The answer for a puzzle the deadline stopped before it began: unknown, unless its givens clash."""
    conflict = given_conflict(grid)
    return (Status.INVALID, conflict) if conflict is not None else (Status.UNKNOWN, REASON_TIME_LIMIT)


def explain_items(
    items: Sequence[PuzzleItem],
    rules: Sequence[Rule] | None = None,
    *,
    check: bool = False,
    time_limit: float | Deadline | None = None,
    executor: Executor | None = None,
    skip: Container[int] = frozenset(),
    notice: Callable[[str], None] | None = None,
    json_only: bool = False,
) -> Generator[Explained, None, None]:
    """Each item explained step by step, in order, run where ``executor`` says; ``check`` proves
    every step by SAT as it is found (``deduce(check=True)``): a step the check refutes ends
    that puzzle, whose result names the failure (``Explained.refuted``).  ``time_limit``: seconds
    for each puzzle, or a ``Deadline`` for the whole batch.  ``json_only``: each result carries
    its JSON line (``json_text``) instead of its deduction, made where the puzzle was explained:
    a worker then sends a line, not every step's arrays (what ``explain --json`` prints)."""
    kind = "explain-lines" if json_only else "explain"
    return _batch(kind, items, rules, check, time_limit, executor, skip, notice)


def _explained(
    item: PuzzleItem, rules: Sequence[Rule] | None, check: bool, deadline: Deadline | None
) -> Explained:
    from .proof import StepNotProved

    grid, problem = _invalid(item)
    if grid is None:
        return Explained(item.index, item.line, Status.INVALID, error=problem)
    if deadline is not None and deadline.expired():
        status, error = _not_started(grid)
        return Explained(item.index, item.line, status, grid, error=error)
    start = time.perf_counter()
    try:
        deduction = deduce(grid, rules, record=True, time_limit=deadline, check=check)
    except StepNotProved as refuted:
        seconds = time.perf_counter() - start
        return Explained(item.index, item.line, Status.UNKNOWN, grid, seconds=seconds, refuted=str(refuted))
    seconds = time.perf_counter() - start
    status, conflict = _unsat_or_invalid(grid, deduction.status)
    if conflict is not None:
        return Explained(item.index, item.line, status, grid, error=conflict, seconds=seconds)
    value, hardest = rating_of(deduction)
    index = deduction.hardest_index
    return Explained(
        item.index,
        item.line,
        status,
        grid,
        deduction,
        value,
        level_of(value),
        hardest,
        deduction.reason,
        seconds,
        hardest_step=None if index is None or hardest is None else index + 1,
    )


def pencil_marks(board: Board) -> str:
    """The board as text: placed digits, and for each open cell its candidates, boxes separated."""
    g = board.geometry
    n = g.n
    if n <= len(SYMBOLS):
        symbols = list(SYMBOLS[:n])
        join = ""
    else:
        symbols = [str(d) for d in range(1, n + 1)]
        join = ","
    cells = []
    for cell in range(n * n):
        if board.values[cell]:
            cells.append(symbols[board.values[cell] - 1])
        else:
            digits = np.flatnonzero(board.cand[cell])
            cells.append(join.join(symbols[d] for d in digits) if len(digits) else "-")
    width = max(len(text) for text in cells)
    rows = [[text.ljust(width) for text in cells[r * n : (r + 1) * n]] for r in range(n)]
    group = (width + 1) * g.q - 1
    separator = "-+-".join(["-" * group] * g.p)
    lines = []
    for r, row in enumerate(rows):
        if r and r % g.p == 0:
            lines.append(separator)
        lines.append(" | ".join(" ".join(row[b * g.q : (b + 1) * g.q]) for b in range(g.p)).rstrip())
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- rate


@dataclass(frozen=True, slots=True)
class Rated:
    """One puzzle rated: status, ``rating`` (None for unsat, invalid, unknown), level, steps per rule.

    ``json_text``: the result's JSON line, made where it was rated, when the batch was asked for
    lines only (``rate_items``'s ``json_only``: then ``counts`` is empty and ``json_line``
    returns this text)."""

    index: int
    line: int | None
    status: Status
    rating: float | None = None
    level: str = "none"
    counts: Mapping[str, int] = field(default_factory=dict)
    hardest: str | None = None
    error: str | None = None
    json_text: str | None = None

    def to_json(self) -> dict[str, object]:
        """index (0-based), line, status, rating, level, hardest, counts (every chosen rule), error."""
        obj = _head(self.index, self.line, self.status, self.rating, self.level, self.hardest)
        obj["counts"] = dict(self.counts)
        if self.error is not None:
            obj["error"] = self.error
        return obj

    def json_line(self) -> str:
        """``formats.json_dumps(self.to_json())``, or the line made where the puzzle was rated."""
        return self.json_text if self.json_text is not None else json_dumps(self.to_json())

    def text(self) -> str:
        """'#1 line 1: solved 4.2 fiendish (xy-wing; 52 steps)' and the like."""
        where = f"#{self.index + 1}" + (f" line {self.line}" if self.line is not None else "")
        steps = sum(self.counts.values())
        if self.status is Status.SOLVED:
            hardest = f"{self.hardest}; " if self.hardest else ""
            return f"{where}: solved {self.rating:.1f} {self.level} ({hardest}{steps} steps)"
        if self.status is Status.STUCK:
            return f"{where}: stuck {self.rating:.1f} {self.level} (no rule applies after {steps} steps)"
        if self.status is Status.UNSAT:
            return f"{where}: unsat no solution ({self.error})"
        return f"{where}: {self.status.value} {_short(self.error, self.line)}".rstrip()


def _rated(item: PuzzleItem, rules: Sequence[Rule] | None, deadline: Deadline | None) -> Rated:
    """One item rated (invalid, not started past the deadline, or by the rules)."""
    grid, problem = _invalid(item)
    if grid is None:
        return Rated(item.index, item.line, Status.INVALID, error=problem)
    if deadline is not None and deadline.expired():
        status, error = _not_started(grid)
        return Rated(item.index, item.line, status, error=error)
    rating: Rating = rate(grid, rules, time_limit=deadline)
    status, conflict = _unsat_or_invalid(grid, rating.status)
    if conflict is not None:
        return Rated(item.index, item.line, status, error=conflict)
    return Rated(
        item.index,
        item.line,
        status,
        rating.rating,
        rating.level,
        rating.counts,
        rating.hardest,
        rating.reason,
    )


def rate_items(
    items: Sequence[PuzzleItem],
    rules: Sequence[Rule] | None = None,
    *,
    time_limit: float | Deadline | None = None,
    executor: Executor | None = None,
    skip: Container[int] = frozenset(),
    notice: Callable[[str], None] | None = None,
    json_only: bool = False,
) -> Generator[Rated, None, None]:
    """Each item rated (the fast path: no steps kept), in order, run where ``executor`` says;
    ``time_limit``: seconds for each puzzle, or a ``Deadline`` for the whole batch.
    ``json_only``: each result carries its JSON line (``json_text``) instead of its counts, made
    where the puzzle was rated (what ``rate --json`` prints: a worker sends a line)."""
    kind = "rate-lines" if json_only else "rate"
    return _batch(kind, items, rules, False, time_limit, executor, skip, notice)


# ----------------------------------------------------------------------------- chunks of a batch

#: Items per chunk: rating takes about a millisecond an item, explaining (steps kept, pictures,
#: proofs) more; at most a ``_SPREAD``-th of the batch, so a small batch still spreads.
_CHUNK = {"rate": 64, "rate-lines": 64, "explain": 16, "explain-lines": 16}
#: The kinds whose results are ``Rated`` (the others are ``Explained``).
_RATING = ("rate", "rate-lines")
_SPREAD = 16

#: Puzzles a parallel batch does here at most before its workers start, and the rating that
#: ends that warm-up early (Nishio's: every lighter rule was tried on the way; 2.5 % of minimal
#: 9x9 puzzles rate so high).
_WARM_UP = 32
_WARM_RATING = 7.6
#: CPU seconds after which the warm-up starts no more puzzles (the workers wait for it).  CPU,
#: not wall clock: on a busy machine (load 6-12 on 2 cores here) this process gets a fraction of
#: each wall-clock second, which could end the warm-up before the kernels were loaded, and then
#: every worker would load them itself (0.3-0.5 s of CPU each).
_WARM_SECONDS = 1.0

#: One puzzle as a chunk carries it: index, line, error, box shape, digits (int16 bytes).
_Packed = tuple[int, int, str | None, int, int, bytes]


@dataclass(frozen=True, slots=True)
class _Chunk:
    """Items to rate or explain, the rules by name, the batch deadline's wall-clock end, and the
    seconds each puzzle has (None: no limit of its own)."""

    kind: str
    rules: tuple[str, ...]
    end: float | None
    check: bool
    items: tuple[PuzzleItem | _Packed, ...]
    seconds: float | None = None


#: Rule sets by their names, selected once per process (the caller's own, in this process).
_rule_sets: dict[tuple[str, ...], tuple[Rule, ...]] = {}


def _rules(names: tuple[str, ...]) -> tuple[Rule, ...]:
    chosen = _rule_sets.get(names)
    if chosen is None:
        chosen = _rule_sets[names] = select_rules(names)  # named uniqueness rules come with their names
    return chosen


def _pack(item: PuzzleItem) -> _Packed:
    """An item in a few bytes: a pickled Grid would carry its geometry's tables (kilobytes each)."""
    source = item.source
    if source is not None:  # the row of a batch, without making its Grid
        rows, row = source
        g = rows.geometry
        return item.index, item.line, None, g.p, g.q, rows.values[row].tobytes()
    grid = item.grid
    if grid is None:
        return item.index, item.line, item.error, 0, 0, b""
    g = grid.geometry
    return item.index, item.line, None, g.p, g.q, grid.values.tobytes()


def _unpack(packed: PuzzleItem | _Packed) -> PuzzleItem:
    if isinstance(packed, PuzzleItem):
        return packed
    index, line, error, p, q, values = packed
    return PuzzleItem(index, line, _grid(p, q, values) if p else None, error)


def _grid(p: int, q: int, values: bytes) -> Grid:
    """A grid sent as plain numbers, built as here: checked, read-only, its geometry shared."""
    return Grid(geometry_for_size(p * q, (p, q)), np.frombuffer(values, np.int16))


def _run_chunk(chunk: _Chunk) -> list[Rated | Explained]:
    rules = _rules(chunk.rules)
    shared = Deadline.until(chunk.end)
    results: list[Rated | Explained] = []
    for item in chunk.items:
        # A limit per puzzle starts as the puzzle does (a batch's deadline is the same for all).
        deadline = shared if chunk.seconds is None else Deadline.of(chunk.seconds)
        if chunk.kind in _RATING:
            rated = _rated(_unpack(item), rules, deadline)
            if chunk.kind == "rate-lines":
                rated = replace(rated, counts={}, json_text=rated.json_line())
            results.append(rated)
        else:
            explained = _explained(_unpack(item), rules, chunk.check, deadline)
            if chunk.kind == "explain-lines":
                explained = replace(explained, deduction=None, json_text=explained.json_line())
            results.append(explained)
    return results


def _crashed_chunk(chunk: _Chunk, why: str) -> list[Rated | Explained]:
    made: type[Rated] | type[Explained] = Rated if chunk.kind in _RATING else Explained
    crashed = []
    for packed in chunk.items:
        item = _unpack(packed)
        status = Status.INVALID if item.grid is None else Status.CRASH
        crashed.append(made(item.index, item.line, status, error=item.error or f"the worker failed: {why}"))
    return crashed


_WORK: Work[_Chunk, Rated | Explained] = Work(_run_chunk, _crashed_chunk)


def _batch(
    kind: str,
    items: Sequence[PuzzleItem],
    rules: Sequence[Rule] | None,
    check: bool,
    time_limit: float | Deadline | None,
    executor: Executor | None,
    skip: Container[int],
    notice: Callable[[str], None] | None,
) -> Generator[Any, None, None]:
    """The results of a batch, in input order; the executor (and a cluster) is reached here."""
    deadline = time_limit if isinstance(time_limit, Deadline) else None
    # Seconds for each puzzle, checked here (a negative or NaN limit is refused before any
    # puzzle); 'inf' is no limit.
    seconds = None
    if time_limit is not None and not isinstance(time_limit, Deadline):
        seconds = Deadline(time_limit).seconds
    chosen = tuple(rules) if rules is not None else select_rules()
    names = tuple(rule.name for rule in chosen)
    _rule_sets[names] = chosen  # this process (and forked workers) use the caller's own rules
    executor = executor or Executor()
    todo = [item for item in items if item.index not in skip]
    # Local workers are forked: the first puzzles are done here first, so that the workers
    # inherit the kernels loaded from numba's cache (0.5 s of CPU a process on 9x9, else paid by
    # every worker), up to the first one that needed Nishio or more (or stuck), whose search
    # tried, and loaded, every lighter rule on the way (for a CPU second at most).  They run as the
    # results are read.
    warm = executor.jobs > 1 and executor.cluster is None

    def wall_end() -> float | None:
        return None if deadline is None else deadline.wall_end()

    def warm_up() -> Iterator[Rated | Explained]:
        began = time.process_time()
        for done in range(_WARM_UP):
            # The first puzzle always; more while they are quick (big grids take seconds each).
            if not todo or (done and time.process_time() - began > _WARM_SECONDS):
                return
            one = _Chunk(kind, names, wall_end(), check, (todo.pop(0),), seconds)
            try:
                (result,) = _run_chunk(one)
            except Exception as problem:  # as a worker would: a crash result, the batch goes on
                (result,) = _crashed_chunk(one, f"{type(problem).__name__}: {problem}")
            yield result
            if result.status is Status.STUCK or (result.rating or 0.0) >= _WARM_RATING:
                return

    def chunks() -> Iterator[_Chunk]:
        size = max(1, min(_CHUNK[kind], math.ceil(len(todo) / _SPREAD)))  # what the warm-up left
        for start in range(0, len(todo), size):
            part = todo[start : start + size]
            packed = tuple(_pack(item) for item in part) if executor.parallel else tuple(part)
            yield _Chunk(kind, names, wall_end(), check, packed, seconds)  # the end as it is sent

    # Made now (a cluster is reached here, before any work); local workers start when read.
    results = run_ordered(_WORK, chunks(), executor, notice=notice)

    def ordered() -> Generator[Any, None, None]:
        try:
            if warm:
                yield from warm_up()
            yield from results
        finally:
            results.close()  # stops what is still out on the workers

    return ordered()


def histogram_lines(levels: Counter[str], width: int = 40) -> list[str]:
    """One line per level (in the scale's order, then 'none'): name, count, share and a bar."""
    total = sum(levels.values())
    names = [name for name, _ in LEVELS] + ["none"]
    most = max(levels.values(), default=0)
    lines = []
    for name in names:
        count = levels.get(name, 0)
        if name == "none" and not count:
            continue
        share = 100 * count / total if total else 0.0
        bar = "#" * (round(width * count / most) if most else 0)
        lines.append(f"  {name:<11} {count:>8}  {share:5.1f} %  {bar}".rstrip())
    return lines


def rules_help() -> str:
    """The families and rule names ``--rules`` takes, with each rule's weight (for --help)."""
    lines = [
        "rules (--rules takes family or rule names, comma-separated; 'all' for every rule;",
        "uniqueness rules only when named or with --uniqueness):",
    ]
    for family in FAMILIES:
        members = ", ".join(f"{rule.name} ({rule.weight:g})" for rule in RULES if rule.family == family)
        lines += textwrap.wrap(
            members, 88, initial_indent=f"  {family:<12}", subsequent_indent=" " * 14, break_on_hyphens=False
        )
    return "\n".join(lines)


def levels_help() -> str:
    """The named levels and the rating each starts at (for --help)."""
    bands = ", ".join(f"{name} {low:g}" for name, low in LEVELS)
    return f"levels (the rating each starts at): {bands}; 'none' without a rating (unsat, invalid)"
