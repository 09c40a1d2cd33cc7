"""Many instances of one geometry answered at once by the DAG, and their JSON Lines written at once.

``solve_dag_batch`` answers a (B, n, n) stack of sets S with ``dag.closure_batch`` (and
``count_batch``): a fraction of a microsecond per 9x9 instance.  At that speed the cost of an
answer is the Python around it, so ``NishioBatch`` keeps the answers stacked and writes their
JSON Lines with numpy (``to_json_lines``), never building a Python object per instance; each line
is byte for byte what ``json_dumps`` writes for the ``NishioResult`` of that instance
(``NishioBatch.result``).

The JSON writer lays every line out in fixed-width byte slots (one per field, one per cell of
the grid for the closure and eliminated lists) padded with zero bytes, then drops every zero
byte of the whole block at once: what is left is the lines, joined.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..geometry import Geometry
from ..limits import Deadline
from ..outcome import Status
from .instance import NishioInstance
from .method import NishioCount
from .result import NishioDisagreement, NishioResult, json_seconds

__all__ = ["NishioBatch", "solve_dag_batch", "solve_puzzle_digits"]

#: Instances laid out per block by the JSON writer (bounds its memory: about 1 kB per 9x9 line).
_JSON_BLOCK = 8192


@dataclass(frozen=True, slots=True, eq=False)
class NishioBatch:
    """The DAG's answers for a stack of sets S of one geometry.

    ``masks``: (B, n, n) bool, the sets S; ``closures``: (B, n, n) bool, S' of each; ``counts``:
    the placement counts when asked (capped at the count limit, then ``count_complete`` is False);
    ``seconds``: the time of the whole query (the JSON gives each instance an equal share).
    """

    geometry: Geometry
    masks: np.ndarray
    closures: np.ndarray
    counts: Sequence[int] | None = None
    count_complete: np.ndarray | None = None
    seconds: float = 0.0
    method: str = "dag"

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    @property
    def satisfiable(self) -> np.ndarray:
        """(B,) bool: S holds a placement (its closure is not empty)."""
        return np.asarray(self.closures.any(axis=(1, 2)))

    @property
    def eliminated(self) -> np.ndarray:
        """(B, n, n) bool: cells of S outside the closure."""
        return self.masks & ~self.closures

    def result(self, k: int, instance: NishioInstance | None = None) -> NishioResult:
        """The answer for instance ``k`` as a ``NishioResult`` (``instance``: its S, if already made)."""
        if instance is None:
            instance = NishioInstance(self.geometry, self.masks[k])
        counted = None
        if self.counts is not None and self.count_complete is not None:
            counted = NishioCount(int(self.counts[k]), bool(self.count_complete[k]))
        status = Status.SOLVED if self.closures[k].any() else Status.UNSAT
        seconds = self.seconds / max(len(self), 1)
        return NishioResult(instance, self.method, True, status, self.closures[k], counted, None, seconds)

    def results(self, instances: Sequence[NishioInstance] | None = None) -> list[NishioResult]:
        """Every answer as a ``NishioResult`` (``instances``: the B instances, if already made)."""
        return [self.result(k, None if instances is None else instances[k]) for k in range(len(self))]

    def to_json_lines(self, fields: Mapping[str, Sequence[int] | np.ndarray] | None = None) -> str:
        """One JSON object per instance, one per line ('\\n' after each), as ``NishioResult.to_json``.

        ``fields``: integer columns (B values each) written first in every object, in order, e.g.
        ``{"puzzle": ..., "digit": ...}`` as the command line labels puzzle instances.
        """
        columns = {name: np.asarray(values, dtype=np.int64) for name, values in (fields or {}).items()}
        parts = []
        for first in range(0, len(self), _JSON_BLOCK):
            block = slice(first, min(first + _JSON_BLOCK, len(self)))
            parts.append(self._json_block(block, {name: col[block] for name, col in columns.items()}))
        return b"".join(parts).decode("ascii")

    def _json_block(self, block: slice, fields: Mapping[str, np.ndarray]) -> bytes:
        g = self.geometry
        masks = self.masks[block].reshape(-1, g.n * g.n)
        closures = self.closures[block].reshape(-1, g.n * g.n)
        size = masks.shape[0]
        slots: list[np.ndarray] = []
        lead = "{"
        for name, column in fields.items():
            slots += [_constant(f'{lead}"{name}":', size), _integers(column)]
            lead = ","
        slots += [
            _constant(
                f'{lead}"n":{g.n},"box":"{g.box_label}","method":"{self.method}","exact":true,'
                '"status":"ok","satisfiable":',
                size,
            ),
            _booleans(np.asarray(closures.any(axis=1))),
            _constant(',"cells":', size),
            _integers(masks.sum(axis=1)),
            _constant(',"closure":[', size),
            _cell_lists(g.n, closures),
            _constant('],"eliminated":[', size),
            _cell_lists(g.n, masks & ~closures),
            _constant("]", size),
        ]
        if self.counts is not None and self.count_complete is not None:
            counts = np.array([str(c) for c in self.counts[block]], dtype="S")
            slots += [
                _constant(',"count":', size),
                counts.view(np.uint8).reshape(size, -1),
                _constant(',"count_exact":', size),
                _booleans(self.count_complete[block]),
            ]
        each = json_seconds(self.seconds / max(len(self), 1))
        slots.append(_constant(f',"seconds":{each!r}}}\n', size))
        return np.concatenate(slots, axis=1).tobytes().translate(None, b"\0")


def _constant(text: str, size: int) -> np.ndarray:
    """The same ASCII text in every line: a (size, len) uint8 block."""
    row = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return np.broadcast_to(row, (size, len(row)))


def _integers(values: np.ndarray) -> np.ndarray:
    """Decimal integers (at least 0), left-aligned and zero-padded: a (size, width) uint8 block."""
    values = np.asarray(values, dtype=np.int64)
    width = len(str(int(values.max(initial=0))))
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (values[:, None] // powers % 10 + ord("0")).astype(np.uint8)
    # Leading zeros become padding: keep the last digit, and every digit from the first non-zero one.
    significant = np.maximum.accumulate(digits != ord("0"), axis=1)
    significant[:, -1] = True
    return np.where(significant, digits, np.uint8(0))


_TRUE_FALSE = np.frombuffer(b"false" + b"true\0", dtype=np.uint8).reshape(2, 5)


def _booleans(values: np.ndarray) -> np.ndarray:
    """JSON true or false: a (size, 5) uint8 block."""
    return _TRUE_FALSE[np.asarray(values, dtype=np.intp)]


@cache
def _cell_tokens(n: int) -> np.ndarray:
    """',[r,c]' (1-based) for every cell in reading order, zero-padded: (n*n,) items of one void type."""
    words = np.array([f",[{r + 1},{c + 1}]" for r in range(n) for c in range(n)], dtype="S")
    return words.view(f"V{words.itemsize}")


def _cell_lists(n: int, masks: np.ndarray) -> np.ndarray:
    """The cells of each (size, n*n) mask as JSON pairs, without the list's brackets: (size, width) uint8.

    Each line's cells are packed to the left, so the block is only as wide as its longest list.
    """
    size = masks.shape[0]
    counts = masks.sum(axis=1)
    tokens = _cell_tokens(n)
    lines, cells = np.divmod(np.flatnonzero(masks), n * n)  # line by line, cells in reading order
    place = np.arange(len(lines)) - (np.cumsum(counts) - counts)[lines]
    out = np.zeros((size, int(counts.max(initial=0))), dtype=tokens.dtype)
    out[lines, place] = tokens[cells]
    text = out.view(np.uint8).reshape(size, -1)
    text[:, :1] = 0  # the first cell of a list takes no comma before it
    return text


def solve_dag_batch(
    geometry: Geometry,
    masks: np.ndarray,
    *,
    count: bool = False,
    count_limit: int | None = None,
    deadline: Deadline | None = None,
    confirm: bool = True,
) -> NishioBatch:
    """Closures (and, with ``count``, placement counts up to ``count_limit``) of a stack of sets S.

    ``masks``: (B, n, n) bool of one geometry.  The answers are checked as ``solve_nishio`` checks
    one: a closure inside S, a count that agrees with the closure, else ``NishioDisagreement``.
    The graph is built (or loaded) before the clock starts, as set-up rather than query time; a
    ``deadline`` is looked at before the build, after it and between chunks of instances, and
    ``TimeLimitReached`` stops the whole batch (no answer is partly made).  Every instance whose
    closure drops a cell ("no placement" drops all of S) has its drops confirmed by one call of
    plain SAT with another solver (``confirm.confirm_batch``) within the same deadline; a refuted
    drop is ``NishioDisagreement``.  ``confirm=False`` skips that, for benchmarks only.
    """
    from .dag import build_dag, closure_batch, count_batch  # numba loads only when the DAG is asked

    if count_limit is not None and count_limit < 1:
        raise ValueError("count_limit must be at least 1")
    n = geometry.n
    masks = np.ascontiguousarray(np.asarray(masks, dtype=bool).reshape(-1, n, n))
    if deadline is not None:
        deadline.check("building the DAG")
    dag = build_dag(geometry.p, geometry.q)
    began = time.perf_counter()
    closures = closure_batch(dag, masks, deadline)
    totals = count_batch(dag, masks, deadline) if count else None
    outside = np.flatnonzero((closures & ~masks).any(axis=(1, 2)))
    if outside.size:
        raise NishioDisagreement(f"dag: the closure of instance {int(outside[0])} holds a cell outside S")
    if confirm:
        from .confirm import confirm_batch

        confirm_batch(geometry, masks, closures, "dag", deadline)
    seconds = time.perf_counter() - began
    if totals is None:
        return NishioBatch(geometry, masks, closures, seconds=seconds)
    satisfiable = np.asarray(closures.any(axis=(1, 2)))
    wrong = [k for k, total in enumerate(totals) if (total > 0) != satisfiable[k]]
    if wrong:
        k = wrong[0]
        raise NishioDisagreement(f"dag: instance {k} counts {totals[k]} placements but its closure differs")
    counts = totals if count_limit is None else [min(total, count_limit) for total in totals]
    complete = np.array([count_limit is None or total <= count_limit for total in totals], dtype=bool)
    return NishioBatch(geometry, masks, closures, counts, complete, seconds)


def solve_puzzle_digits(
    geometry: Geometry,
    values: np.ndarray,
    digits: Sequence[int] | np.ndarray,
    *,
    count: bool = False,
    count_limit: int | None = None,
) -> NishioBatch:
    """The DAG's answers for the given digits of many puzzle states of one geometry, puzzle by puzzle.

    ``values``: (B, n*n) digits of the B puzzles (0 for an empty cell).  Instance
    ``k * len(digits) + j`` is digit ``digits[j]`` (1-based) of puzzle ``k``: S is the digit's
    candidates after singles propagation, all puzzles propagated together.
    """
    from .instance import digit_masks

    values = np.asarray(values).reshape(-1, geometry.n * geometry.n)
    if not len(values):
        raise ValueError("no puzzles")
    wanted = np.asarray(digits, dtype=np.int64)
    if wanted.size == 0 or wanted.min() < 1 or wanted.max() > geometry.n:
        raise ValueError(f"digits must be in 1..{geometry.n}")
    masks = digit_masks(geometry, values)[:, wanted - 1].reshape(-1, geometry.n, geometry.n)
    return solve_dag_batch(geometry, masks, count=count, count_limit=count_limit)
