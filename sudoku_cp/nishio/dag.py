"""Nishio by the DAG of almost-balanced row sets (Eppstein 2012, "Solving single-digit Sudoku
subproblems", FUN 2012, arXiv:1202.5074, section 3, Lemma 1 and Theorem 4.1).

Rows are grouped into *bands*: the p rows that cross the same boxes (a p x q geometry has q
bands).  A vertex is a set of rows whose per-band counts differ by at most one (an
"almost-balanced" 0-1 matrix, one matrix row per band); its *layer* is the number of rows it
holds.  An arc adds one row r whose band has the smallest count and is labelled with the cell
(r, t), t the layer of its tail.  Source-to-sink paths (empty set to all rows) are exactly the
valid placements, the t-th arc being the placement's cell in column t.  For a set S, the closure
S' is the set of labels in S on arcs that lie on a source-to-sink path using only labels in S.

The graph of a geometry is built once (numba) and cached in memory, and for 20x20 and larger on
disk too (``cache_directory``; 25x25 takes seconds to build): vertices sorted by layer
(a topological order), arcs in CSR form by tail.  Three query kernels read it:

* ``closure_batch``: 64 queries per pass, one bit per query in a uint64 per vertex
  (bit-parallel reachability, as the paper's conclusion suggests); forward reachability from
  the source, then backward from the sink, marking each arc that lies on a path;
* ``_scan_forward``/``_scan_backward``: one query, reading only the arcs of vertices the query
  reaches (fast for sparse S on big grids, where most of the graph is unreachable), in chunks of
  vertices so that a time limit is checked between them;
* ``_count``/``_count_forward``: the number of source-to-sink paths inside S, exact in 128-bit arithmetic
  (placement counts pass 2**63 at 25 x 25).

Sizes (vertices / arcs): 9x9 290 / 936, 16x16 19,442 / 100,000, 25x25 4,528,052 / 34,189,800.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import os
import re
import secrets
import shutil
import tempfile
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numba
import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, TimeLimitReached, watch_compilation
from ..outcome import REASON_TIME_LIMIT
from .instance import NishioInstance
from .method import NO_PLACEMENT, Decision, NishioCount, NishioMethod

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "DISK_CACHE_MIN_SIDE",
    "MAX_DAG_SIDE",
    "DagNishio",
    "cache_directory",
    "NishioDag",
    "build_dag",
    "closure_batch",
    "count_batch",
]

#: Largest grid side the DAG is built for (36 x 36 would need 3.8e9 vertices).
MAX_DAG_SIDE = 25

_LANES = 64
#: Single queries on grids this large first prune S by matchings (see ``DagNishio._allowed``).
_PRUNE_MIN_SIDE = 16
#: Vertices per chunk of a single query's pass, between two checks of the time limit: at 25x25
#: (4.5 million vertices, about 0.15 s a pass) a check every few milliseconds.
_CHUNK_VERTICES = 1 << 18
_warm_kernels: dict[int, bool] = {}


@numba.njit(cache=True)
def _band_counts_ok(mask: int, p: int, bands: int) -> bool:  # pragma: no cover - compiled
    low = 1 << 30
    high = -1
    band_mask = (1 << p) - 1
    for b in range(bands):
        m = (mask >> (b * p)) & band_mask
        c = 0
        while m:
            m &= m - 1
            c += 1
        low = min(low, c)
        high = max(high, c)
    return high - low <= 1


@numba.njit(cache=True)
def _enumerate_vertices(n: int, p: int) -> np.ndarray:  # pragma: no cover - compiled
    bands = n // p
    keep = np.zeros(1 << n, dtype=np.bool_)
    total = 0
    for mask in range(1 << n):
        if _band_counts_ok(mask, p, bands):
            keep[mask] = True
            total += 1
    out = np.empty(total, dtype=np.int64)
    k = 0
    for mask in range(1 << n):
        if keep[mask]:
            out[k] = mask
            k += 1
    return out


@numba.njit(cache=True)
def _fill_band_counts(mask: int, p: int, counts: np.ndarray) -> int:  # pragma: no cover - compiled
    """Rows of ``mask`` in each band, written to ``counts``; returns the smallest count."""
    low = p
    for b in range(len(counts)):
        c = 0
        for j in range(p):
            c += (mask >> (b * p + j)) & 1
        counts[b] = c
        low = min(low, c)
    return low


@numba.njit(cache=True)
def _build_arcs(
    masks: np.ndarray, index_of: np.ndarray, n: int, p: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    bands = n // p
    v_count = len(masks)
    start = np.zeros(v_count + 1, dtype=np.int64)
    counts = np.zeros(bands, dtype=np.int64)
    # First pass: out-degrees.
    for v in range(v_count):
        m = masks[v]
        low = _fill_band_counts(m, p, counts)
        deg = 0
        for b in range(bands):
            if counts[b] == low:
                deg += p - low
        start[v + 1] = start[v] + deg
    head = np.empty(start[v_count], dtype=np.int32)
    row = np.empty(start[v_count], dtype=np.int8)
    for v in range(v_count):
        m = masks[v]
        low = _fill_band_counts(m, p, counts)
        k = start[v]
        for r in range(n):
            if (m >> r) & 1 == 0 and counts[r // p] == low:
                head[k] = index_of[m | (1 << r)]
                row[k] = r
                k += 1
    return start, head, row


@dataclass(frozen=True, slots=True, eq=False)
class NishioDag:
    """The DAG of almost-balanced row sets of one geometry (all cells allowed).

    ``masks``: (V,) row set of each vertex, sorted by layer (source first, sink last);
    ``layer``: (V,) number of rows in each vertex; ``start``: (V+1,) CSR offsets of the arcs by
    tail; ``head``: (E,) arc heads; ``label``: (E,) flat cell ``row * n + column`` of each arc.
    """

    n: int
    p: int
    q: int
    masks: np.ndarray
    layer: np.ndarray
    start: np.ndarray
    head: np.ndarray
    label: np.ndarray

    @property
    def vertices(self) -> int:
        """Number of vertices (almost-balanced row sets)."""
        return len(self.masks)

    @property
    def arcs(self) -> int:
        """Number of arcs."""
        return len(self.head)

    def layer_sizes(self) -> list[int]:
        """Number of vertices in each layer 0..n."""
        return np.bincount(self.layer, minlength=self.n + 1).tolist()

    @property
    def nbytes(self) -> int:
        """Memory held by the graph's arrays."""
        return sum(a.nbytes for a in (self.masks, self.layer, self.start, self.head, self.label))


_build_lock = threading.Lock()


#: Graphs this large (20x20 and 25x25, seconds to build) are also kept on disk between processes.
DISK_CACHE_MIN_SIDE = 20
_ARRAYS = ("masks", "layer", "start", "head", "label")
_MANIFEST = "manifest.json"
#: Folder names of graphs written by other builder code (or by the old hand-numbered versions):
#: each 25x25 one holds about 300 MB, so a save removes those of its own shape.
_FOLDER = re.compile(r"nishio-dag-(?:v\d+-(\d+)x(\d+)|(\d+)x(\d+)-[0-9a-f]{16})")


def _dtypes(n: int) -> dict[str, np.dtype]:
    """The dtype of each array of an n x n graph (part of the disk cache's key, checked on load)."""
    return {
        "masks": np.dtype(np.int64),
        "layer": np.dtype(np.int8),
        "start": np.dtype(np.int64),
        "head": np.dtype(np.int32),
        "label": np.dtype(np.int16 if n * n < 2**15 else np.int32),
    }


def cache_directory() -> Path | None:
    """Where built graphs are kept: $SUDOKU_CP_CACHE, else $XDG_CACHE_HOME/sudoku_cp or ~/.cache/sudoku_cp.

    ``SUDOKU_CP_CACHE=off`` turns the disk cache off.
    """
    chosen = os.environ.get("SUDOKU_CP_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "none") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sudoku_cp"


@cache
def _code_hash() -> str | None:
    """SHA-256 of the source of every function that builds the graph, or None without source.

    A graph on disk is only as right as the code that wrote it: keyed by this, an edit to the
    builder is never answered with a graph the old code built (no version number to forget).
    """
    digest = hashlib.sha256()
    try:
        for function in _BUILDER_CODE:
            digest.update(inspect.getsource(getattr(function, "py_func", function)).encode())
    except (OSError, TypeError):
        return None  # installed without source: nothing to key the cache by, so it is not used
    return digest.hexdigest()


def _cache_key(p: int, q: int) -> str | None:
    """The disk cache's key of a p x q graph: the builder's code, the shape and the array dtypes."""
    code = _code_hash()
    if code is None:
        return None
    dtypes = {name: dtype.str for name, dtype in _dtypes(p * q).items()}
    described = json.dumps({"code": code, "p": p, "q": q, "dtypes": dtypes}, sort_keys=True)
    return hashlib.sha256(described.encode()).hexdigest()


def _cache_path(p: int, q: int) -> Path | None:
    folder = cache_directory()
    key = _cache_key(p, q)
    return None if folder is None or key is None else folder / f"nishio-dag-{p}x{q}-{key[:16]}"


def _checksum(array: np.ndarray) -> str:
    """SHA-256 of an array's bytes (C order)."""
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8).data).hexdigest()


def _read_verified(path: Path, p: int, q: int) -> NishioDag | None:
    """The graph in ``path`` when its manifest names this code's key and every array matches its
    recorded dtype, shape and checksum; None for anything else (truncated, damaged, foreign)."""
    key = _cache_key(p, q)
    expected = _dtypes(p * q)
    try:
        manifest = json.loads((path / _MANIFEST).read_text(encoding="utf-8"))
        if not isinstance(manifest, dict) or manifest.get("key") != key:
            return None
        recorded = manifest.get("arrays")
        if not isinstance(recorded, dict) or set(recorded) != set(_ARRAYS):
            return None
        arrays: dict[str, np.ndarray] = {}
        for name in _ARRAYS:
            entry = recorded[name]
            array = np.load(path / f"{name}.npy", allow_pickle=False)
            if (
                not isinstance(entry, dict)
                or array.dtype != expected[name]
                or array.ndim != 1
                or [len(array)] != entry.get("shape")
                or _checksum(array) != entry.get("sha256")
            ):
                return None
            arrays[name] = array
    except (OSError, ValueError, EOFError, SyntaxError, UnicodeError):
        return None  # unreadable: np.load and json report damage as these
    n = p * q
    masks, layer, start, head, label = (arrays[name] for name in _ARRAYS)
    # The checksums prove the bytes are the ones written; the shape checks keep the kernels,
    # which index without bounds checks, safe even from a writer that was itself wrong.
    if not (
        len(masks) == len(layer) == len(start) - 1
        and len(masks) >= 2
        and len(head) == len(label) == int(start[-1])
        and int(masks[0]) == 0
        and int(masks[-1]) == (1 << n) - 1
        and int(layer[-1]) == n
    ):
        return None
    for array in arrays.values():
        array.setflags(write=False)
    return NishioDag(n, p, q, masks, layer, start, head, label)


def _discard(path: Path) -> None:
    """Take a bad cache entry out of the way: renamed first (one atomic step, so no other process
    reads it half-deleted), then deleted."""
    trash = path.with_name(f"{path.name}.bad-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.rename(path, trash)
    except OSError:
        return  # gone already (another process discarded it), or not ours to move
    if trash.is_dir() and not trash.is_symlink():
        shutil.rmtree(trash, ignore_errors=True)
    else:
        trash.unlink(missing_ok=True)


def _load_cached(p: int, q: int) -> NishioDag | None:
    """The graph saved by an earlier process of the same builder code, or None when absent, damaged
    or foreign (a damaged or foreign entry is discarded, so the next save replaces it)."""
    path = _cache_path(p, q)
    if path is None or not os.path.lexists(path):
        return None
    dag = _read_verified(path, p, q)
    if dag is None:
        _discard(path)
    return dag


def _prune_other_versions(path: Path, p: int, q: int) -> None:
    """Delete graphs of this shape written by other builder code (never read again)."""
    for other in path.parent.iterdir():
        found = _FOLDER.fullmatch(other.name)
        if found is None or other.name == path.name:
            continue
        shape = found.group(1, 2) if found.group(1) else found.group(3, 4)
        if shape == (str(p), str(q)):
            _discard(other)


def _save_cached(dag: NishioDag) -> None:
    """Write the graph for later processes: arrays and their manifest into a private folder, then
    renamed into place, so a reader sees a whole entry or none."""
    path = _cache_path(dag.p, dag.q)
    key = _cache_key(dag.p, dag.q)
    if path is None or key is None or os.path.lexists(path):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=path.name + ".", dir=path.parent))
    except OSError:
        return  # a read-only disk only costs the next process a rebuild
    try:
        recorded = {}
        for name in _ARRAYS:
            array = getattr(dag, name)
            np.save(scratch / f"{name}.npy", array, allow_pickle=False)
            recorded[name] = {"dtype": array.dtype.str, "shape": [len(array)], "sha256": _checksum(array)}
        manifest = {"key": key, "code": _code_hash(), "p": dag.p, "q": dag.q, "arrays": recorded}
        (scratch / _MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.rename(scratch, path)  # fails when another process got there first
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
        return
    with contextlib.suppress(OSError):  # a stale entry left behind only costs disk space
        _prune_other_versions(path, dag.p, dag.q)


def _construct(p: int, q: int) -> NishioDag:
    """Build the graph (no cache)."""
    n = p * q
    dtypes = _dtypes(n)
    masks = _enumerate_vertices(n, p)
    layer = np.bitwise_count(masks.astype(np.uint64)).astype(dtypes["layer"])
    order = np.argsort(layer, kind="stable")
    masks = masks[order]
    layer = layer[order]
    index_of = np.full(1 << n, -1, dtype=np.int32)
    index_of[masks] = np.arange(len(masks), dtype=np.int32)
    start, head, row = _build_arcs(masks, index_of, n, p)
    del index_of
    tails = np.repeat(np.arange(len(masks)), np.diff(start))
    label = (row.astype(np.int32) * n + layer[tails].astype(np.int32)).astype(dtypes["label"])
    for array in (masks, layer, start, head, label):
        array.setflags(write=False)
    return NishioDag(n, p, q, masks, layer, start, head, label)


#: The code whose source keys the disk cache: everything that decides the arrays' contents.
_BUILDER_CODE = (_band_counts_ok, _enumerate_vertices, _fill_band_counts, _build_arcs, _dtypes, _construct)


@cache
def _build(p: int, q: int) -> NishioDag:
    n = p * q
    if n >= DISK_CACHE_MIN_SIDE:
        cached = _load_cached(p, q)
        if cached is not None:
            return cached
    dag = _construct(p, q)
    if n >= DISK_CACHE_MIN_SIDE:
        _save_cached(dag)
    return dag


def build_dag(p: int, q: int) -> NishioDag:
    """The DAG of the geometry with p x q boxes, built once per process and cached."""
    if p * q > MAX_DAG_SIDE:
        raise ValueError(
            f"the Nishio DAG is built for grids up to {MAX_DAG_SIDE}x{MAX_DAG_SIDE}; "
            f"{p * q}x{p * q} is too large (its vertex count grows like 2^n)"
        )
    with _build_lock:
        return _build(p, q)


# ---------------------------------------------------------------- query kernels


@numba.njit(cache=True)
def _closure_lanes(
    start: np.ndarray,
    head: np.ndarray,
    label: np.ndarray,
    lanes: np.ndarray,
    reach: np.ndarray,
    comp: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled
    """Up to 64 queries at once: ``lanes[cell]`` has bit i set when query i allows the cell."""
    v_count = len(start) - 1
    reach[:] = 0
    comp[:] = 0
    reach[0] = ~np.uint64(0)
    for v in range(v_count):
        rv = reach[v]
        if rv == 0:
            continue
        for a in range(start[v], start[v + 1]):
            reach[head[a]] |= rv & lanes[label[a]]
    closure = np.zeros(len(lanes), dtype=np.uint64)
    comp[v_count - 1] = reach[v_count - 1]
    for v in range(v_count - 2, -1, -1):
        rv = reach[v]
        if rv == 0:
            continue
        acc = np.uint64(0)
        for a in range(start[v], start[v + 1]):
            hit = rv & comp[head[a]] & lanes[label[a]]
            if hit:
                acc |= hit
                closure[label[a]] |= hit
        comp[v] = acc
    return closure


@numba.njit(cache=True)
def _pack_lanes(masks: np.ndarray, first: int, lanes: np.ndarray) -> int:  # pragma: no cover - compiled
    """Bit i of ``lanes[cell]`` = masks[first + i, cell]; returns the number of lanes used."""
    used = min(64, masks.shape[0] - first)
    lanes[:] = 0
    for i in range(used):
        bit = np.uint64(1) << np.uint64(i)
        row = masks[first + i]
        for cell in range(masks.shape[1]):
            if row[cell]:
                lanes[cell] |= bit
    return used


@numba.njit(cache=True)
def _closure_many(
    start: np.ndarray, head: np.ndarray, label: np.ndarray, masks: np.ndarray
) -> np.ndarray:  # pragma: no cover - compiled
    batch, cells = masks.shape
    out = np.zeros((batch, cells), dtype=np.bool_)
    v_count = len(start) - 1
    reach = np.empty(v_count, dtype=np.uint64)
    comp = np.empty(v_count, dtype=np.uint64)
    lanes = np.empty(cells, dtype=np.uint64)
    for first in range(0, batch, 64):
        used = _pack_lanes(masks, first, lanes)
        closure = _closure_lanes(start, head, label, lanes, reach, comp)
        for i in range(used):
            bit = np.uint64(1) << np.uint64(i)
            for cell in range(cells):
                if closure[cell] & bit:
                    out[first + i, cell] = True
    return out


@numba.njit(cache=True)
def _scan_forward(
    start: np.ndarray,
    head: np.ndarray,
    label: np.ndarray,
    allowed: np.ndarray,
    reach: np.ndarray,
    first: int,
    last: int,
) -> None:  # pragma: no cover - compiled
    """Forward part of one query over vertices ``first..last-1``: marks 1 the heads reached inside S."""
    for v in range(first, last):
        if reach[v] == 0:
            continue
        for a in range(start[v], start[v + 1]):
            if allowed[label[a]]:
                reach[head[a]] = 1


@numba.njit(cache=True)
def _scan_backward(
    start: np.ndarray,
    head: np.ndarray,
    label: np.ndarray,
    allowed: np.ndarray,
    reach: np.ndarray,
    closure: np.ndarray,
    first: int,
    last: int,
) -> None:  # pragma: no cover - compiled
    """Backward part over vertices ``last-1`` down to ``first``: marks 2 the reached vertices with an
    arc inside S into a vertex marked 2, and puts those arcs' labels in ``closure``."""
    for v in range(last - 1, first - 1, -1):
        if reach[v] == 0:
            continue
        for a in range(start[v], start[v + 1]):
            lab = label[a]
            if allowed[lab] and reach[head[a]] == 2:
                reach[v] = 2
                closure[lab] = True


@numba.njit(cache=True)
def _count_forward(
    start: np.ndarray,
    head: np.ndarray,
    label: np.ndarray,
    allowed: np.ndarray,
    hi: np.ndarray,
    lo: np.ndarray,
    first: int,
    last: int,
) -> None:  # pragma: no cover - compiled
    """Pushes the 128-bit (hi, lo) path counts of vertices ``first..last-1`` along their arcs inside S."""
    for v in range(first, last):
        vh = hi[v]
        vl = lo[v]
        if vh == 0 and vl == 0:
            continue
        for a in range(start[v], start[v + 1]):
            if allowed[label[a]]:
                w = head[a]
                s = lo[w] + vl
                carry = np.uint64(1) if s < vl else np.uint64(0)
                lo[w] = s
                hi[w] += vh + carry


@numba.njit(cache=True)
def _count(
    start: np.ndarray,
    head: np.ndarray,
    label: np.ndarray,
    allowed: np.ndarray,
    hi: np.ndarray,
    lo: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover - compiled
    """Source-to-sink paths inside ``allowed`` as a 128-bit (hi, lo) pair."""
    v_count = len(start) - 1
    hi[:] = 0
    lo[:] = 0
    lo[0] = 1
    _count_forward(start, head, label, allowed, hi, lo, 0, v_count - 1)
    return hi[v_count - 1], lo[v_count - 1]


@numba.njit(cache=True)
def _count_many(
    start: np.ndarray, head: np.ndarray, label: np.ndarray, masks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    v_count = len(start) - 1
    hi = np.empty(v_count, dtype=np.uint64)
    lo = np.empty(v_count, dtype=np.uint64)
    out_hi = np.empty(masks.shape[0], dtype=np.uint64)
    out_lo = np.empty(masks.shape[0], dtype=np.uint64)
    for b in range(masks.shape[0]):
        h, low = _count(start, head, label, masks[b], hi, lo)
        out_hi[b] = h
        out_lo[b] = low
    return out_hi, out_lo


@numba.njit(cache=True)
def _walk(
    start: np.ndarray, head: np.ndarray, label: np.ndarray, allowed: np.ndarray, reach: np.ndarray, n: int
) -> np.ndarray:  # pragma: no cover - compiled
    """A source-to-sink path inside ``allowed`` through vertices marked 2, as column -> row."""
    rows = np.empty(n, dtype=np.int64)
    v = 0
    for t in range(n):
        for a in range(start[v], start[v + 1]):
            if allowed[label[a]] and reach[head[a]] == 2:
                rows[t] = label[a] // n
                v = head[a]
                break
    return rows


# ---------------------------------------------------------------- batch API


def _as_masks(dag: NishioDag, masks: np.ndarray) -> np.ndarray:
    n = dag.n
    arr = np.ascontiguousarray(np.asarray(masks, dtype=bool).reshape(-1, n * n))
    return arr


#: Instances per kernel call of ``closure_batch``/``count_batch`` between two looks at the clock
#: (64 passes of 64 queries: a few milliseconds on 9x9, under a second on 25x25).
_BATCH_STEP = 4096


def _chunks(size: int) -> list[slice]:
    """The slices of a batch of ``size`` instances, one kernel call each (one, empty, for none)."""
    return [slice(lo, lo + _BATCH_STEP) for lo in range(0, max(size, 1), _BATCH_STEP)]


def closure_batch(dag: NishioDag, masks: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """Closures S' of a stack of sets S of one geometry: (B, n, n) bool in, (B, n, n) bool out.

    ``deadline`` is looked at before each chunk of instances: once spent, ``TimeLimitReached``
    ("closure"), never a batch of which some closures were not computed.
    """
    flat = _as_masks(dag, masks)
    parts = []
    for part in _chunks(len(flat)):
        if deadline is not None:
            deadline.check("closure")
        parts.append(_closure_many(dag.start, dag.head, dag.label, flat[part]))
    return np.concatenate(parts).reshape(-1, dag.n, dag.n)


def count_batch(dag: NishioDag, masks: np.ndarray, deadline: Deadline | None = None) -> list[int]:
    """Exact placement counts of a stack of sets S of one geometry ((B, n, n) bool).

    ``deadline`` as in ``closure_batch`` ("counting"): an interrupted count is no number.
    """
    flat = _as_masks(dag, masks)
    counts: list[int] = []
    for part in _chunks(len(flat)):
        if deadline is not None:
            deadline.check("counting")
        hi, lo = _count_many(dag.start, dag.head, dag.label, flat[part])
        counts.extend((int(h) << 64) | int(low) for h, low in zip(hi, lo, strict=True))
    return counts


# ---------------------------------------------------------------- the method


class DagNishio(NishioMethod):
    """The native DAG method: exact closure, decision and count for grids up to 25 x 25.

    A query is one or two passes over the graph (up to 34 million arcs at 25 x 25, and the graph
    itself takes seconds to build or read).  The time limit is checked before the graph is built,
    after it, and between chunks of ``_CHUNK_VERTICES`` vertices of every pass; a limit that
    passes gives the unknown answer, never a closure or count of a pass cut short.
    """

    name = "dag"
    exact = True

    def prepare(self, geometry: Geometry) -> None:
        """Build the geometry's DAG and load the compiled kernels, so queries time only themselves."""
        dag = build_dag(geometry.p, geometry.q)
        if not _warm_kernels.get(dag.n):
            full = NishioInstance.full(geometry)
            self.find_placement(full)
            self.count_placements(full)
            closure_batch(dag, full.mask[None])
            _warm_kernels[dag.n] = True

    def dag(self, instance: NishioInstance) -> NishioDag:
        """The (cached) DAG of the instance's geometry."""
        return build_dag(instance.geometry.p, instance.geometry.q)

    def _graph(self, instance: NishioInstance, deadline: Deadline) -> NishioDag:
        """The DAG, with the deadline checked before and after the build (which cannot be stopped)."""
        deadline.check("the Nishio DAG's build")
        dag = self.dag(instance)
        deadline.check("the Nishio DAG's build")
        return dag

    def _allowed(self, instance: NishioInstance) -> np.ndarray:
        """The cells a query may use: S itself, or on big grids S after the matching prune.

        The prune keeps every placement (``unit_pair_prune``) and costs about a millisecond, while a
        25x25 query reads up to 34 million arcs: it settles Hall-violating sets at once.
        """
        mask = instance.mask
        if instance.n >= _PRUNE_MIN_SIDE:
            from .matching import unit_pair_prune

            mask = unit_pair_prune(instance.geometry, mask)
        return np.ascontiguousarray(mask.reshape(-1))

    def _scan(
        self, instance: NishioInstance, deadline: Deadline
    ) -> tuple[NishioDag, np.ndarray, np.ndarray, np.ndarray]:
        """(graph, flat closure, reach marks, allowed cells) of one query, reading only the arcs of
        vertices the query reaches.  Raises ``TimeLimitReached`` between chunks.

        ``reach[v]`` ends as 2 for a vertex on a source-to-sink path inside S, 1 for one that is
        only reachable, 0 otherwise.
        """
        dag = self._graph(instance, deadline)
        allowed = self._allowed(instance)
        start, head, label = dag.start, dag.head, dag.label
        sink = dag.vertices - 1
        reach = np.zeros(dag.vertices, dtype=np.uint8)
        reach[0] = 1
        closure = np.zeros(len(allowed), dtype=np.bool_)
        for first in range(0, sink, _CHUNK_VERTICES):
            deadline.check("the Nishio DAG's forward pass")
            _scan_forward(start, head, label, allowed, reach, first, min(first + _CHUNK_VERTICES, sink))
        if reach[sink]:
            reach[sink] = 2
            for last in range(sink, 0, -_CHUNK_VERTICES):
                deadline.check("the Nishio DAG's backward pass")
                _scan_backward(
                    start, head, label, allowed, reach, closure, max(last - _CHUNK_VERTICES, 0), last
                )
        return dag, closure, reach, allowed

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        """The closure S' (one pass over the reachable graph each way); None when the deadline passes."""
        try:
            dag, closure, _, _ = self._scan(instance, deadline)
        except TimeLimitReached:
            return None
        return closure.reshape(dag.n, dag.n)

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """A placement inside S (column per row), none, or unknown when the deadline passes."""
        try:
            dag, closure, reach, allowed = self._scan(instance, deadline)
        except TimeLimitReached:
            return Decision.unknown(REASON_TIME_LIMIT)
        if not closure.any():
            return NO_PLACEMENT
        rows_by_column = _walk(dag.start, dag.head, dag.label, allowed, reach, dag.n)
        cols = np.empty(dag.n, dtype=np.int64)
        cols[rows_by_column] = np.arange(dag.n)
        return Decision.found(cols)

    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount | None:
        """The exact number of placements (``limit`` caps the reported number); None when the
        deadline passes."""
        try:
            dag = self._graph(instance, deadline)
            allowed = np.ascontiguousarray(instance.mask.reshape(-1))
            hi = np.zeros(dag.vertices, dtype=np.uint64)
            lo = np.zeros(dag.vertices, dtype=np.uint64)
            lo[0] = 1
            sink = dag.vertices - 1
            for first in range(0, sink, _CHUNK_VERTICES):
                deadline.check("the Nishio DAG's count")
                last = min(first + _CHUNK_VERTICES, sink)
                _count_forward(dag.start, dag.head, dag.label, allowed, hi, lo, first, last)
        except TimeLimitReached:
            return None
        total = (int(hi[sink]) << 64) | int(lo[sink])
        if limit is not None and total > limit:
            return NishioCount(limit, False)
        return NishioCount(total, True)
