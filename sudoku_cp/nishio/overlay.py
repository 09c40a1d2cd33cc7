"""The pattern overlay method for Nishio: test every valid placement of the geometry against S.

Reference: D. Eppstein, "Solving single-digit Sudoku subproblems", FUN 2012 (arXiv 1202.5074),
section 2, describing the pattern overlay method used by human-solver programs: precompute the
list of all valid placements (n cells, one per row, column and box), and for a query S loop over
the list, keep the placements that are subsets of S, and take their union; that union is the
closure S'.  The same loop counts the placements inside S and finds the first one.

A p x q geometry (boxes p rows by q columns, n = p * q) has ``(p!)^(n/p) * (q!)^(n/q)`` valid
placements: 16 for 4x4, 288 for 6x6, 9,216 for 8x8, 46,656 for 9x9, 17,915,904 for 12x12 with
3x4 or 4x3 boxes, 33,177,600 with 2x6 or 6x2 boxes, and 110,075,314,176 for 16x16.  Geometries
with more than ``MAX_PLACEMENTS`` placements are refused with ``OverlayTooLarge``.

Storage.  The grid has q bands of p rows; inside a band a placement puts one cell in each of the
band's p boxes, so its restriction to a band is one of K = p! * q^p *band patterns* (the same
list for every band).  The table stores each placement as its q pattern indices, a (P, q) uint8
or uint16 array (``PlacementTable``), built once per geometry by a numba depth-first enumeration
and cached in memory.  Placements are in lexicographic order of their columns row by row, so
``placement_table`` (the (P, n) uint8 columns) lists them in the same order.  For 12x12 the
band table takes 143 MB (3x4 boxes) or 107 MB (4x3) instead of 215 MB of columns.

Query.  For S, first mark which band patterns fit S in each band (q * K * p tests), then loop
over all P placements testing q looked-up flags each (stopping at the first band that fails);
the closure is the union of the patterns of the placements that pass.  That is still the
overlay method, every placement tested, in O(P * q + K * n) time.  ``closure`` also stops early
once the union is all of S, since it cannot grow further.

Batches: ``overlay_batch`` (bool masks) and ``overlay_batch_bits`` (row bitmasks) answer many
masks of one geometry in one compiled pass, placements outer and masks inner, so the table is
streamed from memory once per batch instead of once per mask.

Time limits: queries scan the table in chunks and check the wall clock between chunks; a query
stopped by its limit answers None, or an unknown decision (the table build, done once per
geometry, is not interrupted).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache
from typing import overload

import numba
import numpy as np

from ..errors import SudokuCpError
from ..geometry import Geometry
from ..limits import Deadline, watch_compilation
from ..outcome import REASON_TIME_LIMIT
from .instance import NishioInstance
from .method import NO_PLACEMENT, Decision, NishioCount, NishioMethod

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "MAX_PLACEMENTS",
    "OverlayBatchResult",
    "OverlayNishio",
    "OverlayTooLarge",
    "PlacementEnumerationError",
    "PlacementTable",
    "band_table",
    "overlay_batch",
    "overlay_batch_bits",
    "placement_count",
    "placement_table",
    "row_bitmasks",
]

MAX_PLACEMENTS = 40_000_000
"""The largest placement table built (12x12 has at most 33,177,600 placements; 15x15 has 1.3e10)."""

_DEFAULT_CHUNK = 1 << 20


class OverlayTooLarge(SudokuCpError, ValueError):
    """The geometry has too many valid placements to list them."""


class PlacementEnumerationError(SudokuCpError, RuntimeError):
    """The enumeration of valid placements disagrees with their closed-form count: a bug, never bad input."""


def placement_count(geometry: Geometry) -> int:
    """The number of valid placements of a geometry, (p!)^(n/p) * (q!)^(n/q)."""
    p, q, n = geometry.p, geometry.q, geometry.n
    return math.factorial(p) ** (n // p) * math.factorial(q) ** (n // q)


@dataclass(frozen=True, slots=True, eq=False)
class PlacementTable:
    """All valid placements of a geometry, band by band.

    ``patterns``: (K, p) int64, the columns of a band's p rows for each band pattern, sorted;
    ``bands``: (P, q) uint8/uint16, placement k uses pattern ``bands[k, b]`` in band b (rows
    b*p .. b*p+p-1).  Both arrays are read-only.
    """

    geometry: Geometry
    patterns: np.ndarray
    bands: np.ndarray

    def __len__(self) -> int:
        return int(self.bands.shape[0])

    @property
    def nbytes(self) -> int:
        """Memory held by the two arrays."""
        return int(self.patterns.nbytes + self.bands.nbytes)

    def columns(self, k: int) -> np.ndarray:
        """Placement k as its column per row (int64, length n)."""
        return self.patterns[self.bands[k].astype(np.int64)].reshape(self.geometry.n)


def _band_patterns(p: int, q: int) -> np.ndarray:
    """The (p! * q^p, p) sorted column lists of a band meeting each of its p boxes once."""
    rows = [
        tuple(stack * q + offset for stack, offset in zip(stacks, offsets, strict=True))
        for stacks in itertools.permutations(range(p))
        for offsets in itertools.product(range(q), repeat=p)
    ]
    return np.array(sorted(rows), dtype=np.int64).reshape(-1, p)


@numba.njit(cache=True)
def _enumerate_bands(
    pattern_masks: np.ndarray,
    by_mask: np.ndarray,
    sorted_masks: np.ndarray,
    q: int,
    full: int,
    out: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Fill ``out`` with the pattern indices of every placement, lexicographically; return the count.

    ``by_mask`` lists the pattern indices sorted by (column mask, index), ``sorted_masks`` their
    masks: the last band's patterns are exactly those whose mask is the set of columns left.
    """
    n_patterns = pattern_masks.shape[0]
    index = np.full(q, -1, dtype=np.int64)
    used = np.zeros(q, dtype=np.int64)  # columns taken before band b
    total = out.shape[0]
    k = 0
    b = 0
    while b >= 0:
        if b == q - 1:
            rest = full ^ used[b]
            j = np.searchsorted(sorted_masks, rest)
            while j < n_patterns and sorted_masks[j] == rest:
                if k < total:
                    for t in range(q - 1):
                        out[k, t] = index[t]
                    out[k, q - 1] = by_mask[j]
                k += 1
                j += 1
            b -= 1
            continue
        i = index[b] + 1
        while i < n_patterns and pattern_masks[i] & used[b]:
            i += 1
        if i == n_patterns:
            index[b] = -1
            b -= 1
            continue
        index[b] = i
        used[b + 1] = used[b] | pattern_masks[i]
        b += 1
    return k


@cache
def _band_table(p: int, q: int) -> PlacementTable:
    geometry = Geometry(p, q)
    total = placement_count(geometry)
    patterns = _band_patterns(p, q)
    masks = (np.int64(1) << patterns).sum(axis=1)
    by_mask = np.lexsort((np.arange(masks.size), masks)).astype(np.int64)
    dtype = np.uint8 if patterns.shape[0] <= 256 else np.uint16
    bands = np.empty((total, q), dtype=dtype)
    if q == 1:  # a single band (1 x n boxes are not Sudoku boxes, but keep the kernel honest)
        bands[:, 0] = np.arange(total)
        found = total
    else:
        found = _enumerate_bands(masks, by_mask, masks[by_mask], q, (1 << geometry.n) - 1, bands)
    if found != total:  # the formula and the enumeration must agree, or every overlay answer is wrong
        raise PlacementEnumerationError(
            f"enumerated {found:,} placements of {geometry.box_label} boxes, expected {total:,}"
        )
    patterns.setflags(write=False)
    bands.setflags(write=False)
    return PlacementTable(geometry, patterns, bands)


def _check_size(geometry: Geometry, max_placements: int) -> None:
    total = placement_count(geometry)
    if total > max_placements:
        raise OverlayTooLarge(
            f"the pattern overlay method needs all {total:,} valid placements of a {geometry.n}x{geometry.n}"
            f" grid with {geometry.box_label} boxes; it lists at most {max_placements:,}"
        )


def band_table(geometry: Geometry, max_placements: int = MAX_PLACEMENTS) -> PlacementTable:
    """Every valid placement of the geometry as band-pattern indices (built once, kept in memory).

    Raises OverlayTooLarge when the geometry has more than ``max_placements`` placements.
    """
    _check_size(geometry, max_placements)
    return _band_table(geometry.p, geometry.q)


@cache
def _column_table(p: int, q: int) -> np.ndarray:
    table = _band_table(p, q)
    n = p * q
    columns = np.empty((len(table), n), dtype=np.uint8)
    step = 1 << 20
    small = table.patterns.astype(np.uint8)
    for start in range(0, len(table), step):
        block = table.bands[start : start + step].astype(np.int64)
        columns[start : start + step] = small[block].reshape(-1, n)
    columns.setflags(write=False)
    return columns


def placement_table(geometry: Geometry, max_placements: int = MAX_PLACEMENTS) -> np.ndarray:
    """Every valid placement as a read-only (P, n) uint8 array of columns per row (cached).

    Same order as ``band_table``; the queries use the smaller band table, this one is for callers
    who want the columns.  Raises OverlayTooLarge above ``max_placements``.
    """
    _check_size(geometry, max_placements)
    return _column_table(geometry.p, geometry.q)


def row_bitmasks(masks: np.ndarray) -> np.ndarray:
    """Bool masks (n, n) or (B, n, n) as int64 row bitmasks (n,) or (B, n): bit c of row r is (r, c)."""
    masks = np.asarray(masks, dtype=bool)
    n = masks.shape[-1]
    weights = np.left_shift(np.int64(1), np.arange(n, dtype=np.int64))
    return (masks.astype(np.int64) * weights).sum(axis=-1)


def _bits_to_masks(bits: np.ndarray, n: int) -> np.ndarray:
    return ((np.asarray(bits, dtype=np.int64)[..., None] >> np.arange(n, dtype=np.int64)) & 1).astype(bool)


def _fits(table: PlacementTable, masks: np.ndarray) -> np.ndarray:
    """(B, q, K) bool: band pattern k lies inside S in band b, for each of the B masks."""
    p, q = table.geometry.p, table.geometry.q
    rows = np.arange(q)[:, None, None] * p + np.arange(p)[None, None, :]
    return np.ascontiguousarray(masks[:, rows, table.patterns[None]].all(axis=-1))


def _union(table: PlacementTable, used: np.ndarray) -> np.ndarray:
    """(B, n, n) bool union of the band patterns marked in ``used`` (B, q, K)."""
    p, n = table.geometry.p, table.geometry.n
    out = np.zeros((used.shape[0], n, n), dtype=bool)
    b, band, k = np.nonzero(used)
    out[b[:, None], band[:, None] * p + np.arange(p), table.patterns[k]] = True
    return out


@numba.njit(cache=True)
def _scan(
    bands: np.ndarray,
    patterns: np.ndarray,
    fits: np.ndarray,
    rows: np.ndarray,
    start: int,
    stop: int,
    limit: int,
    saturate: bool,
    used: np.ndarray,
    union: np.ndarray,
) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """Test placements start..stop-1 of one mask; mark the patterns of hits in ``used``.

    Stops after ``limit`` hits (0: no limit) and, with ``saturate``, once the union is all of S.
    Returns (hits, index of the first hit or -1, index where the scan stopped).
    """
    q = bands.shape[1]
    p = patterns.shape[1]
    n = rows.shape[0]
    hits = 0
    first = -1
    for k in range(start, stop):
        ok = True
        for b in range(q):
            if not fits[b, bands[k, b]]:
                ok = False
                break
        if not ok:
            continue
        if first < 0:
            first = k
        hits += 1
        grew = False
        for b in range(q):
            t = bands[k, b]
            if not used[b, t]:
                used[b, t] = True
                grew = True
                for j in range(p):
                    union[b * p + j] |= 1 << patterns[t, j]
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
    bands: np.ndarray,
    fits: np.ndarray,
    start: int,
    stop: int,
    used: np.ndarray,
    counts: np.ndarray,
    first: np.ndarray,
) -> None:  # pragma: no cover - compiled
    q = bands.shape[1]
    batch = fits.shape[0]
    for k in range(start, stop):
        for m in range(batch):
            ok = True
            for b in range(q):
                if not fits[m, b, bands[k, b]]:
                    ok = False
                    break
            if ok:
                if first[m] < 0:
                    first[m] = k
                counts[m] += 1
                for b in range(q):
                    used[m, b, bands[k, b]] = True


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


@overload
def overlay_batch(
    geometry: Geometry,
    masks: np.ndarray,
    *,
    time_limit: None = None,
    max_placements: int = ...,
    chunk: int = ...,
) -> OverlayBatchResult: ...


@overload
def overlay_batch(
    geometry: Geometry,
    masks: np.ndarray,
    *,
    time_limit: float | None,
    max_placements: int = ...,
    chunk: int = ...,
) -> OverlayBatchResult | None: ...


def overlay_batch(
    geometry: Geometry,
    masks: np.ndarray,
    *,
    time_limit: float | None = None,
    max_placements: int = MAX_PLACEMENTS,
    chunk: int = _DEFAULT_CHUNK,
) -> OverlayBatchResult | None:
    """Closure, count and first placement of B sets S given as (B, n, n) bool masks.

    One pass over the table for the whole batch; None when ``time_limit`` stops it.
    """
    masks = np.asarray(masks, dtype=bool)
    n = geometry.n
    if masks.ndim != 3 or masks.shape[1:] != (n, n):
        raise ValueError(f"masks of a {n}x{n} grid need shape (B, {n}, {n}), got {masks.shape}")
    deadline = Deadline(time_limit)
    table = band_table(geometry, max_placements)
    fits = _fits(table, masks)
    batch = masks.shape[0]
    used = np.zeros(fits.shape, dtype=np.bool_)
    counts = np.zeros(batch, dtype=np.int64)
    first = np.full(batch, -1, dtype=np.int64)
    step = max(1, chunk // max(1, batch))
    for start in range(0, len(table), step):
        if deadline.expired():
            return None
        _scan_batch(table.bands, fits, start, min(start + step, len(table)), used, counts, first)
    return OverlayBatchResult(_union(table, used), counts, first)


def overlay_batch_bits(
    geometry: Geometry,
    rows: np.ndarray,
    *,
    max_placements: int = MAX_PLACEMENTS,
    chunk: int = _DEFAULT_CHUNK,
) -> OverlayBatchResult:
    """Like ``overlay_batch`` (without a time limit) for S given as (B, n) int64 row bitmasks; the
    closure is row bitmasks too."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.ndim != 2 or rows.shape[1] != geometry.n:
        raise ValueError(f"row bitmasks of a {geometry.n}x{geometry.n} grid need shape (B, {geometry.n})")
    masks = _bits_to_masks(rows, geometry.n)
    result = overlay_batch(geometry, masks, max_placements=max_placements, chunk=chunk)
    return OverlayBatchResult(row_bitmasks(result.closure), result.counts, result.first)


class OverlayNishio(NishioMethod):
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
        self, instance: NishioInstance, limit: int, deadline: Deadline, saturate: bool = False
    ) -> tuple[int, int, np.ndarray, bool] | None:
        """(hits, first hit, union row bitmasks, scanned to the end) for a scan stopping at ``limit``.

        ``saturate``: also stop once the union is all of S (then the hit count is partial).  None
        when the deadline stops the scan.
        """
        table = band_table(instance.geometry, self.max_placements)
        fits = _fits(table, instance.mask[None])[0]
        rows = row_bitmasks(instance.mask)
        used = np.zeros(fits.shape, dtype=np.bool_)
        union = np.zeros(instance.n, dtype=np.int64)
        hits, first = 0, -1
        total = len(table)
        start = 0
        while start < total:
            if deadline.expired():
                return None
            stop = min(start + self.chunk, total)
            left = max(0, limit - hits) if limit > 0 else 0
            got, at, end = _scan(
                table.bands, table.patterns, fits, rows, start, stop, left, saturate, used, union
            )
            if first < 0:
                first = at
            hits += got
            if end < stop or (limit > 0 and hits >= limit):  # at the limit, or the union saturated
                return hits, first, union, end >= total
            start = end
        return hits, first, union, True

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """The lexicographically first placement inside S (column per row), or none."""
        scan = self._run(instance, 1, deadline)
        if scan is None:
            return Decision.unknown(REASON_TIME_LIMIT)
        first = scan[1]
        if first < 0:
            return NO_PLACEMENT
        return Decision.found(band_table(instance.geometry, self.max_placements).columns(first))

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        """S': the union of the placements inside S, as an (n, n) bool mask (None when stopped)."""
        scan = self._run(instance, 0, deadline, saturate=True)
        return None if scan is None else _bits_to_masks(scan[2], instance.n)

    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount | None:
        """The number of placements inside S; ``complete`` is False when stopped at ``limit``."""
        scan = self._run(instance, limit or 0, deadline)
        return None if scan is None else NishioCount(scan[0], scan[3])
