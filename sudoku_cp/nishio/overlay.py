"""The pattern overlay method for Nishio: test every valid placement of the geometry against S.

Reference: D. Eppstein, "Solving single-digit Sudoku subproblems", FUN 2012 (arXiv 1202.5074),
section 2, describing the pattern overlay method used by human-solver programs: precompute the
list of all valid placements (n cells, one per row, column and box), and for a query S loop over
the list, keep the placements that are subsets of S, and take their union; that union is the
closure S'.  The same loop counts the placements inside S and finds the first one.

A p x q geometry (boxes p rows by q columns, n = p * q) has ``(p!)^(n/p) * (q!)^(n/q)`` valid
placements: 16 for 4x4, 288 for 6x6, 9,216 for 8x8, 46,656 for 9x9, 17,915,904 for 12x12 and
110,075,314,176 for 16x16.  The table is built once per geometry (a numba depth-first
enumeration, cached in memory) as a ``(P, n)`` uint8 array of the column used in each row, in
lexicographic order; geometries with more than ``MAX_PLACEMENTS`` placements are refused with
``OverlayTooLarge``.  A query costs O(n * P) in the worst case (each test stops at the first row
whose cell is not in S) and reads the whole table: the table for 12x12 is 215 MB.

Batches: ``overlay_batch`` (bool masks) and ``overlay_batch_bits`` (row bitmasks) answer many
masks of one geometry in one compiled pass over the table, placements outer and masks inner, so
the table is streamed from memory once per batch instead of once per mask.

Time limits: a single query scans the table in chunks of ``chunk`` placements and checks the
wall clock between chunks, raising ``SolveTimeout`` when the limit has passed (the table build,
done once per geometry, is not interrupted).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache

import numba
import numpy as np

from ..geometry import Geometry
from .instance import NishioInstance, SolveTimeout
from .method import NishioCount

__all__ = [
    "MAX_PLACEMENTS",
    "OverlayBatchResult",
    "OverlayNishio",
    "OverlayTooLarge",
    "overlay_batch",
    "overlay_batch_bits",
    "placement_count",
    "placement_table",
    "row_bitmasks",
]

MAX_PLACEMENTS = 20_000_000
"""The largest placement table built (12x12 has 17,915,904 placements; 15x15 has 1.3e10)."""

_DEFAULT_CHUNK = 1 << 20


class OverlayTooLarge(ValueError):
    """The geometry has too many valid placements to list them."""


def placement_count(geometry: Geometry) -> int:
    """The number of valid placements of a geometry, (p!)^(n/p) * (q!)^(n/q)."""
    p, q, n = geometry.p, geometry.q, geometry.n
    return math.factorial(p) ** (n // p) * math.factorial(q) ** (n // q)


@numba.njit(cache=True)
def _enumerate(p: int, q: int, total: int) -> tuple[np.ndarray, int]:  # pragma: no cover - compiled
    n = p * q
    out = np.empty((total, n), dtype=np.uint8)
    cols = np.full(n, -1, dtype=np.int64)
    col_used = 0
    box_used = 0
    k = 0
    r = 0
    while r >= 0:
        c = cols[r]
        if c >= 0:  # undo this row's current cell before moving it on
            col_used ^= 1 << c
            box_used ^= 1 << ((r // p) * p + c // q)
        c += 1
        band = (r // p) * p
        while c < n and ((col_used >> c) & 1 or (box_used >> (band + c // q)) & 1):
            c += 1
        if c == n:
            cols[r] = -1
            r -= 1
            continue
        cols[r] = c
        col_used ^= 1 << c
        box_used ^= 1 << (band + c // q)
        if r == n - 1:
            if k < total:
                for j in range(n):
                    out[k, j] = cols[j]
            k += 1
        else:
            r += 1
    return out, k


@cache
def _table(p: int, q: int) -> np.ndarray:
    geometry = Geometry(p, q)
    total = placement_count(geometry)
    table, found = _enumerate(p, q, total)
    if found != total:  # pragma: no cover - the formula and the enumeration must agree
        raise AssertionError(f"enumerated {found} placements of {geometry.box_label}, expected {total}")
    table.setflags(write=False)
    return table


def placement_table(geometry: Geometry, max_placements: int = MAX_PLACEMENTS) -> np.ndarray:
    """Every valid placement of the geometry as a read-only (P, n) uint8 array of columns per row.

    Built once per geometry and kept in memory; raises OverlayTooLarge above ``max_placements``.
    """
    total = placement_count(geometry)
    if total > max_placements:
        raise OverlayTooLarge(
            f"the pattern overlay method needs all {total:,} valid placements of a {geometry.n}x{geometry.n}"
            f" grid with {geometry.box_label} boxes; it lists at most {max_placements:,}"
        )
    return _table(geometry.p, geometry.q)


def row_bitmasks(masks: np.ndarray) -> np.ndarray:
    """Bool masks (n, n) or (B, n, n) as int64 row bitmasks (n,) or (B, n): bit c of row r is (r, c)."""
    masks = np.asarray(masks, dtype=bool)
    n = masks.shape[-1]
    weights = np.left_shift(np.int64(1), np.arange(n, dtype=np.int64))
    return (masks.astype(np.int64) * weights).sum(axis=-1)


def _bits_to_masks(bits: np.ndarray, n: int) -> np.ndarray:
    return ((bits[..., None] >> np.arange(n, dtype=np.int64)) & 1).astype(bool)


@numba.njit(cache=True)
def _scan(
    table: np.ndarray, rows: np.ndarray, start: int, stop: int, limit: int, union: np.ndarray, saturate: bool
) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """Test placements start..stop-1; OR hits into ``union``; stop after ``limit`` hits (0: none).

    With ``saturate`` the scan also stops once ``union`` equals S (the closure cannot grow).
    Returns (hits, index of the first hit or -1, index where the scan stopped).
    """
    n = table.shape[1]
    hits = 0
    first = -1
    for k in range(start, stop):
        ok = True
        for r in range(n):
            if not (rows[r] >> table[k, r]) & 1:
                ok = False
                break
        if ok:
            if first < 0:
                first = k
            hits += 1
            grew = False
            for r in range(n):
                bit = 1 << table[k, r]
                if not union[r] & bit:
                    union[r] |= bit
                    grew = True
            if limit > 0 and hits >= limit:
                return hits, first, k + 1
            if saturate and grew:
                full = True
                for r in range(n):
                    if union[r] != rows[r]:
                        full = False
                        break
                if full:
                    return hits, first, k + 1
    return hits, first, stop


@numba.njit(cache=True)
def _scan_batch(
    table: np.ndarray,
    rows: np.ndarray,
    start: int,
    stop: int,
    union: np.ndarray,
    counts: np.ndarray,
    first: np.ndarray,
) -> None:  # pragma: no cover - compiled
    n = table.shape[1]
    batch = rows.shape[0]
    for k in range(start, stop):
        for b in range(batch):
            ok = True
            for r in range(n):
                if not (rows[b, r] >> table[k, r]) & 1:
                    ok = False
                    break
            if ok:
                if first[b] < 0:
                    first[b] = k
                counts[b] += 1
                for r in range(n):
                    union[b, r] |= 1 << table[k, r]


@dataclass(frozen=True, slots=True)
class OverlayBatchResult:
    """Answers for a batch of B masks.

    ``closure``: (B, n, n) bool (or (B, n) int64 row bitmasks from ``overlay_batch_bits``);
    ``counts``: (B,) int64 placements inside each S; ``first``: (B,) int64 index into the
    placement table of the first placement inside S, -1 when there is none.
    """

    closure: np.ndarray
    counts: np.ndarray
    first: np.ndarray


def overlay_batch_bits(
    geometry: Geometry,
    rows: np.ndarray,
    *,
    time_limit: float | None = None,
    max_placements: int = MAX_PLACEMENTS,
    chunk: int = _DEFAULT_CHUNK,
) -> OverlayBatchResult:
    """Closure, count and first placement of B sets S given as (B, n) int64 row bitmasks.

    ``closure`` comes back as (B, n) int64 row bitmasks; SolveTimeout when ``time_limit`` passes.
    """
    table = placement_table(geometry, max_placements)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if rows.ndim != 2 or rows.shape[1] != geometry.n:
        raise ValueError(f"row bitmasks of a {geometry.n}x{geometry.n} grid need shape (B, {geometry.n})")
    batch = rows.shape[0]
    union = np.zeros((batch, geometry.n), dtype=np.int64)
    counts = np.zeros(batch, dtype=np.int64)
    first = np.full(batch, -1, dtype=np.int64)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    step = max(1, chunk // max(1, batch))
    for start in range(0, table.shape[0], step):
        if deadline is not None and time.perf_counter() > deadline:
            raise SolveTimeout(f"pattern overlay batch stopped at its {time_limit} s time limit")
        _scan_batch(table, rows, start, min(start + step, table.shape[0]), union, counts, first)
    return OverlayBatchResult(union, counts, first)


def overlay_batch(
    geometry: Geometry,
    masks: np.ndarray,
    *,
    time_limit: float | None = None,
    max_placements: int = MAX_PLACEMENTS,
) -> OverlayBatchResult:
    """Closure, count and first placement of B sets S given as (B, n, n) bool masks."""
    masks = np.asarray(masks, dtype=bool)
    n = geometry.n
    if masks.ndim != 3 or masks.shape[1:] != (n, n):
        raise ValueError(f"masks of a {n}x{n} grid need shape (B, {n}, {n}), got {masks.shape}")
    result = overlay_batch_bits(
        geometry, row_bitmasks(masks), time_limit=time_limit, max_placements=max_placements
    )
    return OverlayBatchResult(_bits_to_masks(result.closure, n), result.counts, result.first)


class OverlayNishio:
    """The pattern overlay method: exact, by testing every valid placement of the geometry.

    ``max_placements`` bounds the table size (OverlayTooLarge above it); ``chunk`` is the number of
    placements tested between two checks of the time limit.
    """

    name = "overlay"
    exact = True

    def __init__(self, max_placements: int = MAX_PLACEMENTS, chunk: int = _DEFAULT_CHUNK) -> None:
        self.max_placements = max_placements
        self.chunk = chunk

    def _run(
        self, instance: NishioInstance, limit: int, time_limit: float | None, saturate: bool = False
    ) -> tuple[int, int, np.ndarray, bool]:
        """(hits, first hit, union row bitmasks, scanned to the end) for a scan stopping at ``limit``.

        ``saturate``: also stop once the union is all of S (then the hit count is partial).
        """
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        table = placement_table(instance.geometry, self.max_placements)
        rows = row_bitmasks(instance.mask)
        union = np.zeros(instance.n, dtype=np.int64)
        hits, first = 0, -1
        total = table.shape[0]
        start = 0
        while start < total:
            if deadline is not None and time.perf_counter() > deadline:
                raise SolveTimeout(f"pattern overlay stopped at its {time_limit} s time limit")
            stop = min(start + self.chunk, total)
            got, at, end = _scan(
                table, rows, start, stop, max(0, limit - hits) if limit > 0 else 0, union, saturate
            )
            if first < 0:
                first = at
            hits += got
            if end < stop or (limit > 0 and hits >= limit):  # at the limit, or the union saturated
                return hits, first, union, end >= total
            start = end
        return hits, first, union, True

    def find_placement(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray | None:
        """The lexicographically first placement inside S (column per row), or None."""
        _, first, _, _ = self._run(instance, 1, time_limit)
        if first < 0:
            return None
        return placement_table(instance.geometry, self.max_placements)[first].astype(np.int64)

    def closure(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray:
        """S': the union of the placements inside S, as an (n, n) bool mask."""
        _, _, union, _ = self._run(instance, 0, time_limit, saturate=True)
        return _bits_to_masks(union, instance.n)

    def count_placements(
        self, instance: NishioInstance, limit: int | None = None, time_limit: float | None = None
    ) -> NishioCount:
        """The number of placements inside S; ``complete`` is False when stopped at ``limit``."""
        if limit is not None and limit <= 0:
            return NishioCount(0, False)
        hits, _, _, finished = self._run(instance, limit or 0, time_limit)
        return NishioCount(hits, finished)
