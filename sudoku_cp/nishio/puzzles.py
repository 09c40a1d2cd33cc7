"""Many puzzle states' digits answered as Nishio instances, in chunks on an executor.

``answer_puzzles`` takes the items of a batch (``formats.parse_puzzles``) and the digits to ask
(None: every digit of each puzzle) and gives one ``PuzzleAnswers`` per puzzle, in input order:
why the puzzle gives no instance (unreadable, equal givens in a unit, a digit out of range, a
worker that failed), or each digit's answer.  Instances are numbered in output order, puzzle by
puzzle and digit by digit (an invalid puzzle takes one number): JSON lines carry the number as
"index", and a resumed run skips the numbers it already has (``skip``).

The work goes out in chunks of puzzles (``sudoku_cp.executor``: here, local processes or a
Dask cluster), the puzzles as plain numbers:

* the DAG with ``json_lines`` writes each puzzle's JSON Lines in the worker, a whole chunk of
  one geometry in one batch (``NishioBatch.to_json_lines``): a fraction of a microsecond an
  instance, so a chunk holds thousands of puzzles;
* any other method (and the DAG without ``json_lines``) answers one instance at a time
  (``solve_nishio``; ``all`` cross-checks every applicable method) and sends the results back.

Which puzzles are invalid is decided here, for whole batches at once, so that every instance
has its number before any work goes out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Container, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..checker import given_conflict
from ..executor import Executor, Work, run_ordered
from ..formats import PuzzleItem
from ..geometry import Geometry, geometry_for_size
from ..grid import Grid
from .instance import NishioInstance, digit_instances
from .result import NishioDisagreement, NishioResult

__all__ = [
    "DigitAnswer",
    "NishioAsk",
    "PuzzleAnswers",
    "answer_instance",
    "answer_puzzles",
]

#: Puzzles per chunk of the DAG's JSON Lines: Python costs vanish beside them, and a chunk's
#: masks and text stay a few tens of MB.
_DAG_PUZZLES = 4096
_DAG_FEWEST = 512  # ... and at least this many, unless the batch is smaller
_INSTANCES = 64  # instances per chunk for the methods that answer one at a time
_CHUNK_SECONDS = 60.0  # time limits of one chunk's instances, at most
_SPREAD = 16  # chunks per batch at least, when the batch has that many puzzles

#: A puzzle as it travels: index, line, number of its first instance, why it is invalid (None:
#: valid), box shape and digits (int16 bytes; empty when invalid).
Entry = tuple[int, int, int, str | None, int, int, bytes]


@dataclass(frozen=True, slots=True)
class NishioAsk:
    """What to ask of every instance: the method ('all' cross-checks), counts, a time limit per
    method and instance, and for the DAG whether the worker writes the JSON Lines itself."""

    method: str = "dag"
    count: bool = False
    count_limit: int | None = None
    time_limit: float | None = None
    json_lines: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class DigitAnswer:
    """One instance answered: a result per method run, or the disagreement between two."""

    digit: int | None
    results: tuple[NishioResult, ...] = ()
    disagreement: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, eq=False)
class PuzzleAnswers:
    """One puzzle's answers.  ``first`` is the number of its first instance; ``error`` says why it
    gave none (one instance), or with ``crashed`` why a worker failed on each of its ``digits``;
    ``digits`` are the answers one by one, or ``lines`` the DAG's JSON Lines for every digit
    (each ending in a newline) with ``unsat`` when some digit has no placement."""

    index: int
    line: int
    first: int
    error: str | None = None
    crashed: bool = False
    digits: tuple[DigitAnswer, ...] = ()
    lines: tuple[str, ...] = ()
    unsat: bool = False


def answer_instance(instance: NishioInstance, ask: NishioAsk, digit: int | None = None) -> DigitAnswer:
    """One instance answered by ``ask.method`` (every applicable method for 'all')."""
    from .api import cross_check, solve_nishio

    start = time.perf_counter()
    if ask.method == "all":
        try:
            check = cross_check(instance, count=ask.count, time_limit=ask.time_limit)
        except NishioDisagreement as problem:
            return DigitAnswer(digit, (), str(problem), time.perf_counter() - start)
        return DigitAnswer(digit, tuple(check.results.values()), None, time.perf_counter() - start)
    try:
        result = solve_nishio(
            instance, ask.method, count=ask.count, count_limit=ask.count_limit, time_limit=ask.time_limit
        )
    except NishioDisagreement as problem:  # a refuted claim of one method: this instance's answer
        return DigitAnswer(digit, (), str(problem), time.perf_counter() - start)
    return DigitAnswer(digit, (result,), None, time.perf_counter() - start)


def _digits(digits: Sequence[int] | None, n: int) -> tuple[int, ...]:
    return tuple(range(1, n + 1)) if digits is None else tuple(digits)


def _clashing(geometry: Geometry, values: np.ndarray) -> np.ndarray:
    """(B,) bool: the rows of a (B, n*n) stack of puzzles with a digit twice in a unit."""
    units = np.sort(values[:, geometry.units], axis=2)  # (B, 3n, n)
    same = (units[:, :, 1:] == units[:, :, :-1]) & (units[:, :, 1:] > 0)
    return np.asarray(same.any(axis=(1, 2)))


class _Problems:
    """Why items give no instance, decided for each batch of rows at once."""

    def __init__(self, digits: Sequence[int] | None) -> None:
        self.digits = digits
        self.clashes: dict[int, tuple[object, np.ndarray]] = {}

    def __call__(self, item: PuzzleItem) -> tuple[str | None, Geometry | None, np.ndarray | None]:
        """(problem, geometry, values) of an item (problem None: it gives instances)."""
        source = item.source
        if source is not None:
            rows, row = source
            kept = self.clashes.get(id(rows))
            if kept is None or kept[0] is not rows:
                kept = self.clashes[id(rows)] = (rows, _clashing(rows.geometry, rows.values))
            geometry, values = rows.geometry, rows.values[row]
            clash = bool(kept[1][row])
        else:
            grid = item.grid
            if grid is None:
                return item.error or "unreadable puzzle", None, None
            geometry, values, clash = grid.geometry, grid.values.reshape(-1), True  # checked below
        if clash:
            conflict = given_conflict(Grid(geometry, values))
            if conflict is not None:
                return f"invalid puzzle: {conflict}", geometry, None
        bad = [d for d in _digits(self.digits, geometry.n) if not 1 <= d <= geometry.n]
        if bad:
            return f"digit {bad[0]} is out of range 1..{geometry.n}", geometry, None
        return None, geometry, values


@dataclass(frozen=True, slots=True)
class _Chunk:
    ask: NishioAsk
    digits: tuple[int, ...] | None
    entries: tuple[Entry, ...]


def _chunks(
    items: Iterable[PuzzleItem],
    total: int,
    digits: Sequence[int] | None,
    ask: NishioAsk,
    skip: Container[int],
) -> Iterator[_Chunk]:
    """The batch's chunks; puzzles whose every instance is in ``skip`` are left out."""
    spread = max(1, math.ceil(total / _SPREAD))
    if ask.json_lines and ask.method == "dag":
        most_puzzles, most_instances = min(_DAG_PUZZLES, max(_DAG_FEWEST, spread)), math.inf
    else:
        per = 1.0 if ask.time_limit is None else max(1.0, _CHUNK_SECONDS / ask.time_limit)
        most_puzzles, most_instances = spread, min(float(_INSTANCES), per)
    kept = tuple(digits) if digits is not None else None
    problems = _Problems(digits)
    entries: list[Entry] = []
    load = 0
    first = 0
    for item in items:
        problem, geometry, values = problems(item)
        count = 1 if problem is not None or geometry is None else len(_digits(digits, geometry.n))
        if any(first + k not in skip for k in range(count)):
            if entries and (len(entries) >= most_puzzles or load + count > most_instances):
                yield _Chunk(ask, kept, tuple(entries))
                entries, load = [], 0
            if values is None or geometry is None:
                entries.append((item.index, item.line, first, problem or "", 0, 0, b""))
            else:
                data = np.ascontiguousarray(values, dtype=np.int16).tobytes()
                entries.append((item.index, item.line, first, None, geometry.p, geometry.q, data))
            load += count
        first += count
    if entries:
        yield _Chunk(ask, kept, tuple(entries))


# -------------------------------------------------------------------------------- in the worker


def _run_chunk(chunk: _Chunk) -> list[PuzzleAnswers]:
    """A chunk's puzzles answered, in order."""
    dag_lines = chunk.ask.json_lines and chunk.ask.method == "dag"
    if dag_lines:
        from .dag import MAX_DAG_SIDE  # numba loads only when the DAG is asked
    answers: list[PuzzleAnswers] = []
    block: list[Entry] = []  # consecutive valid puzzles of one geometry, for the DAG's batches

    def flush() -> None:
        if block:
            try:
                answers.extend(_dag_lines(block, chunk))
            except NishioDisagreement:
                # A refuted claim in the batch: answer its puzzles one instance at a time, so the
                # disagreement is that instance's line and the others are answered.
                answers.extend(_one_by_one(entry, chunk) for entry in block)
            block.clear()

    for entry in chunk.entries:
        index, line, first, error, p, q, data = entry
        if not p:
            flush()
            answers.append(PuzzleAnswers(index, line, first, error))
        elif dag_lines and p * q <= MAX_DAG_SIDE:
            if block and block[0][4:6] != (p, q):
                flush()
            block.append(entry)
        else:
            answers.append(_one_by_one(entry, chunk))
    flush()
    return answers


def _one_by_one(entry: Entry, chunk: _Chunk) -> PuzzleAnswers:
    """A valid puzzle's digits answered one instance at a time (``answer_instance``)."""
    index, line, first, _, p, q, data = entry
    grid = Grid(geometry_for_size(p * q, (p, q)), np.frombuffer(data, dtype=np.int16))
    digits = _digits(chunk.digits, grid.n)
    found = tuple(
        answer_instance(instance, chunk.ask, digit)
        for digit, instance in zip(digits, digit_instances(grid, digits), strict=True)
    )
    return PuzzleAnswers(index, line, first, digits=found)


def _dag_lines(block: Sequence[Entry], chunk: _Chunk) -> list[PuzzleAnswers]:
    """The DAG's JSON Lines of consecutive puzzles of one geometry, written in one batch."""
    from .batch import solve_puzzle_digits

    p, q = block[0][4], block[0][5]
    geometry = geometry_for_size(p * q, (p, q))
    digits = np.asarray(_digits(chunk.digits, geometry.n), dtype=np.int64)
    values = np.stack([np.frombuffer(entry[6], dtype=np.int16) for entry in block])
    ask = chunk.ask
    batch = solve_puzzle_digits(geometry, values, digits, count=ask.count, count_limit=ask.count_limit)
    firsts = np.array([entry[2] for entry in block], dtype=np.int64)
    fields = {
        "index": (firsts[:, None] + np.arange(len(digits))).reshape(-1),
        "puzzle": np.repeat([entry[0] for entry in block], len(digits)),
        "digit": np.tile(digits, len(block)),
    }
    lines = batch.to_json_lines(fields).splitlines(keepends=True)
    unsat = np.asarray(~batch.satisfiable.reshape(len(block), len(digits)).all(axis=1))
    width = len(digits)
    return [
        PuzzleAnswers(
            entry[0],
            entry[1],
            entry[2],
            lines=tuple(lines[k * width : (k + 1) * width]),
            unsat=bool(unsat[k]),
        )
        for k, entry in enumerate(block)
    ]


def _crashed_chunk(chunk: _Chunk, why: str) -> list[PuzzleAnswers]:
    """Each puzzle of a chunk that could not be run: a crash for each of its digits (an invalid
    puzzle stays invalid)."""
    answers = []
    for index, line, first, error, p, q, _ in chunk.entries:
        if not p:
            answers.append(PuzzleAnswers(index, line, first, error))
            continue
        digits = tuple(DigitAnswer(digit) for digit in _digits(chunk.digits, p * q))
        answers.append(PuzzleAnswers(index, line, first, f"the worker failed: {why}", True, digits))
    return answers


_WORK: Work[_Chunk, PuzzleAnswers] = Work(_run_chunk, _crashed_chunk)


def answer_puzzles(
    items: Sequence[PuzzleItem],
    digits: Sequence[int] | None,
    ask: NishioAsk,
    *,
    executor: Executor | None = None,
    skip: Container[int] = frozenset(),
    notice: Callable[[str], None] | None = None,
) -> Generator[PuzzleAnswers, None, None]:
    """Each puzzle's answers for ``digits`` (None: all of its digits), in input order, run where
    ``executor`` says (``notice`` gets a cluster's dashboard line).  Puzzles whose instances
    are all in ``skip`` are left out.  A cluster is reached in this call, before any work (an
    unreachable one raises ``executor.ClusterError`` here)."""
    if ask.method != "all":
        from .api import method_name

        ask = NishioAsk(method_name(ask.method), ask.count, ask.count_limit, ask.time_limit, ask.json_lines)
    chunks = _chunks(items, len(items), digits, ask, skip)
    return run_ordered(_WORK, chunks, executor, notice=notice)
