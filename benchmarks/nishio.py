"""Nishio closure speed: the DAG against pattern overlay, SAT, CP-SAT, exact cover and matching.

    .venv/bin/python benchmarks/nishio.py [--quick] [--sizes 9,16,25] [--time-limit S]
    .venv/bin/python benchmarks/nishio.py --all-digits [FILE]

All methods run in one process on the same instances, and each answer is checked against the DAG
closure (the matching relaxation must contain it), so a ratio never compares a wrong answer.
Instances: the digit subproblems of real puzzle states (9x9 forum-hardest puzzles, ant-colony
16x16 and 25x25 instances, after singles propagation) and random sets of the families of
``sudoku_cp.nishio.random_instances``.  Per-query times are medians over instances (batch rows: the
batch time divided by the batch size, median of 3 repeats).  A pure-Python version of the same
DAG, written plainly in this file, is the interpreted baseline.

``--all-digits`` instead times the library side of ``sudoku-cp nishio --puzzle FILE --all-digits
--json`` (default FILE: the 9,754 forum-hardest puzzles) in a fresh process, phase by phase:
imports, parsing, the sets S of every digit (``digit_masks``), the DAG set-up (numba, graph,
compiled kernels from their cache), the closures (``solve_dag_batch``) and the JSON Lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from common import ROOT, SHARED, load_average, machine, peak_rss_mb

from sudoku_cp.formats import parse_puzzles
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.cpsat import CpsatNishio
from sudoku_cp.nishio.dag import DagNishio, build_dag, closure_batch
from sudoku_cp.nishio.instance import NishioInstance, digit_instances
from sudoku_cp.nishio.method import NishioMethod
from sudoku_cp.nishio.overlay import OverlayNishio, overlay_batch, placement_count
from sudoku_cp.nishio.random_instances import FAMILIES, digit_union, pigeonhole, random_masks
from sudoku_cp.nishio.sat import SatNishio

# ------------------------------------------------------------------ the pure-Python baseline


class PythonDag:
    """The DAG of almost-balanced row sets in plain Python: dicts of vertex bitmasks, lists of arcs."""

    def __init__(self, p: int, q: int) -> None:
        self.n = n = p * q
        self.p = p
        band_of = [r // p for r in range(n)]
        arcs: dict[int, list[tuple[int, int]]] = {}
        layer = [0]
        for t in range(n):
            following: set[int] = set()
            for v in layer:
                counts = [0] * q
                for r in range(n):
                    if v >> r & 1:
                        counts[band_of[r]] += 1
                low = min(counts)
                out = [(r, v | 1 << r) for r in range(n) if not v >> r & 1 and counts[band_of[r]] == low]
                arcs[v] = out
                following.update(w for _, w in out)
            layer = sorted(following)
            del t
        self.arcs = arcs
        self.order = sorted(arcs, key=lambda v: bin(v).count("1"))
        self.sink = (1 << n) - 1

    def closure(self, rows: Sequence[int]) -> list[tuple[int, int]]:
        """Cells (row, column) of S' for S given as one column bitmask per row."""
        reach = {0}
        for v in self.order:
            if v in reach:
                t = bin(v).count("1")
                for r, w in self.arcs[v]:
                    if rows[r] >> t & 1:
                        reach.add(w)
        if self.sink not in reach:
            return []
        alive = {self.sink}
        cells = set()
        for v in reversed(self.order):
            if v not in reach:
                continue
            t = bin(v).count("1")
            for r, w in self.arcs[v]:
                if w in alive and rows[r] >> t & 1:
                    alive.add(v)
                    cells.add((r, t))
        return sorted(cells)


def row_bits(mask: np.ndarray) -> list[int]:
    weights = 1 << np.arange(mask.shape[1], dtype=np.int64)
    return [int(x) for x in (mask.astype(np.int64) * weights).sum(axis=1)]


# ------------------------------------------------------------------ instances


@dataclass
class Workload:
    """Named sets S of one geometry."""

    geometry: Geometry
    name: str
    masks: np.ndarray


def real_workload(
    path_name: str, geometry: Geometry, limit: int, fallback: str | None = None
) -> Workload | None:
    """The digit subproblems of the first ``limit`` puzzles of one or more corpus files."""
    paths = sorted(SHARED.glob(path_name))
    if not paths and fallback is not None:
        paths = [ROOT / "tests" / "data" / fallback]
    masks: list[np.ndarray] = []
    for path in paths:
        for item in parse_puzzles(path.read_text(), box=(geometry.p, geometry.q)):
            if item.grid is None or len(masks) >= limit * geometry.n:
                continue
            masks.extend(i.mask for i in digit_instances(item.grid))
    if not masks:
        return None
    source = paths[0].name if len(paths) == 1 else f"{len(paths)} files {path_name}"
    return Workload(geometry, f"real: digits of {source}", np.stack(masks))


def random_workload(geometry: Geometry, per_family: int, seed: int) -> Workload:
    rng = np.random.default_rng(seed)
    masks = np.concatenate([random_masks(geometry, f, per_family, rng) for f in FAMILIES])
    return Workload(geometry, f"random: {per_family} of each of {', '.join(FAMILIES)}", masks)


def union_workload(geometry: Geometry, count: int, seed: int) -> Workload:
    rng = np.random.default_rng(seed)
    digits = max(2, geometry.n // 3)
    masks = np.stack([digit_union(geometry, digits, rng) for _ in range(count)])
    return Workload(geometry, f"hard: cells of {digits} digits of a random grid", masks)


# ------------------------------------------------------------------ timing


@dataclass
class Row:
    method: str
    instances: int
    per_query_us: float
    note: str = ""


def time_batch(run: Callable[[], np.ndarray], size: int, repeats: int = 3) -> tuple[float, np.ndarray]:
    """(median seconds per query over repeats, the answer)."""
    answer = run()  # warm-up (compilation, tables)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) / size, answer


def time_each(
    method: NishioMethod,
    workload: Workload,
    reference: np.ndarray,
    picks: np.ndarray,
    time_limit: float,
    relaxation: bool = False,
) -> Row | None:
    """Median seconds per closure query over the picked instances, each answer checked."""
    g = workload.geometry
    method.closure(NishioInstance(g, workload.masks[picks[0]]))  # warm-up
    times = []
    unknown = 0
    for k in picks:
        instance = NishioInstance(g, workload.masks[k])
        start = time.perf_counter()
        closure = method.closure(instance, time_limit=time_limit)
        if closure is None:
            unknown += 1
            times.append(time_limit)
            continue
        times.append(time.perf_counter() - start)
        if relaxation:
            if (reference[k] & ~closure).any():
                raise AssertionError(f"{method!r} misses a cell of S' on instance {k}")
        elif not np.array_equal(closure, reference[k]):
            raise AssertionError(f"{method!r} disagrees with the DAG on instance {k}")
    note = f"{unknown} timed out at {time_limit} s" if unknown else ""
    return Row(_label(method), len(picks), statistics.median(times) * 1e6, note)


def _label(method: NishioMethod) -> str:
    if isinstance(method, SatNishio):
        return f"sat {method.solver} {method.closure_strategy}"
    if isinstance(method, CpsatNishio):
        return f"cpsat {method.kind.value}"
    return getattr(method, "name", type(method).__name__)


def picks(size: int, count: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(size, size=min(size, count), replace=False))


SAT_CONFIGS = [
    SatNishio("cadical195", "seqcounter", "cover"),
    SatNishio("minisat22", "seqcounter", "cover"),
    SatNishio("glucose4", "seqcounter", "cover"),
    SatNishio("cadical195", "seqcounter", "enumerate"),
]


def table_line(row: Row, base: float) -> str:
    note = f" ({row.note})" if row.note else ""
    ratio = row.per_query_us / base
    return f"| {row.method}{note} | {row.instances} | {row.per_query_us:,.2f} | {ratio:,.1f}x |"


def measure(workload: Workload, quick: bool, time_limit: float, overlay: bool, python: bool) -> Iterator[str]:
    """Markdown lines: one table row per method as it finishes, then the best SAT ratio."""
    g = workload.geometry
    masks = workload.masks
    dag = build_dag(g.p, g.q)
    DagNishio().prepare(g)
    size = len(masks)
    yield f"#### {g.n}x{g.n} ({g.box_label} boxes), {workload.name}: {size} instances"
    yield ""
    batch_s, reference = time_batch(lambda: closure_batch(dag, masks), size)
    base = batch_s * 1e6
    yield f"{int(reference.any(axis=(1, 2)).sum())} of {size} sets have a placement."
    yield ""
    yield "| method | instances | us per query | ratio to the dag batch query |"
    yield "|---|---:|---:|---:|"
    rows = [Row("dag batch (closure_batch, 64 lanes)", size, base)]
    yield table_line(rows[-1], base)
    small = 40 if quick else 200
    single = time_each(DagNishio(), workload, reference, picks(size, 4 * small), time_limit)
    assert single is not None
    single.method = "dag single query (reachable part only)"
    rows.append(single)
    yield table_line(single, base)
    if python:
        pdag = PythonDag(g.p, g.q)
        chosen = picks(size, 4 * small)
        times = []
        for k in chosen:
            bits = row_bits(masks[k])
            began = time.perf_counter()
            cells = pdag.closure(bits)
            times.append(time.perf_counter() - began)
            expect = [(int(r), int(c)) for r, c in zip(*np.nonzero(reference[k]), strict=True)]
            if cells != expect:
                raise AssertionError(f"the pure-Python DAG disagrees on instance {k}")
        rows.append(Row("pure-Python DAG (this file)", len(chosen), statistics.median(times) * 1e6))
        yield table_line(rows[-1], base)
    if overlay:
        over_s, over = time_batch(lambda: overlay_batch(g, masks).closure, size, repeats=1)
        if not np.array_equal(over, reference):
            raise AssertionError("pattern overlay disagrees with the DAG")
        rows.append(Row("overlay batch (overlay_batch)", size, over_s * 1e6))
        yield table_line(rows[-1], base)
        row = time_each(OverlayNishio(), workload, reference, picks(size, small // 4), time_limit)
        if row:
            row.method = "overlay single query"
            rows.append(row)
            yield table_line(row, base)
    matching = time_each(make_method("matching"), workload, reference, picks(size, small), time_limit, True)
    if matching:
        matching.method = "matching relaxation S'' (not exact)"
        yield table_line(matching, base)
    # Enumerating every placement only pays on 9x9; larger sets hold millions of them.
    sat = [c for c in SAT_CONFIGS if c.closure_strategy == "cover" or g.n <= 9]
    solvers: list[NishioMethod] = [*sat, CpsatNishio("bool"), CpsatNishio("alldiff"), make_method("dlx")]
    for method in solvers:
        share = small if isinstance(method, SatNishio) else small // 4
        row = time_each(method, workload, reference, picks(size, share), time_limit)
        if row:
            rows.append(row)
            yield table_line(row, base)
    yield ""
    if not overlay:
        yield f"Pattern overlay not run: {placement_count(g):,} placements would have to be enumerated."
        yield ""
    best = min((r for r in rows if r.method.startswith(("sat", "cpsat"))), key=lambda r: r.per_query_us)
    yield (
        f"Best SAT/CP-SAT closure: {best.method}, {best.per_query_us / base:,.3g}x the DAG batch query "
        f"and {best.per_query_us / single.per_query_us:,.3g}x the DAG single query."
    )
    yield ""


def build_25() -> Iterator[str]:
    """Build time (cache off) and disk-cache load time and memory of the 25x25 DAG."""
    import os

    from sudoku_cp.nishio import dag as dag_module

    build_dag(4, 4)  # compile the build kernels first
    before = peak_rss_mb()
    saved = os.environ.get("SUDOKU_CP_CACHE")
    os.environ["SUDOKU_CP_CACHE"] = "off"
    began = time.perf_counter()
    fresh = dag_module._build.__wrapped__(5, 5)  # type: ignore[attr-defined]
    build_s = time.perf_counter() - began
    del fresh
    if saved is None:
        del os.environ["SUDOKU_CP_CACHE"]
    else:
        os.environ["SUDOKU_CP_CACHE"] = saved
    began = time.perf_counter()
    dag = build_dag(5, 5)  # from the disk cache (written now if absent)
    load_s = time.perf_counter() - began
    yield "#### 25x25 graph"
    yield ""
    yield (
        f"{dag.vertices:,} vertices, {dag.arcs:,} arcs; built in {build_s:.1f} s, read back from the disk "
        f"cache in {load_s:.1f} s; arrays {dag.nbytes / 1e6:,.0f} MB; peak RSS {before:,.0f} MB before "
        f"the builds, {peak_rss_mb():,.0f} MB after."
    )
    yield ""


def pigeonhole_workload(geometry: Geometry) -> Workload:
    half = (geometry.n + 1) // 2
    masks = np.stack([pigeonhole(geometry, k) for k in (half - 1, half)])
    return Workload(geometry, f"hard: pigeonhole, k = {half - 1} and {half} rows in k - 1 columns", masks)


# ------------------------------------------------------------------ every digit of a puzzle file

FORUM_HARDEST = "sudoku9/tdoku_forum_hardest_1905_11plus_every5th.txt"

# Runs in a fresh interpreter, so that imports and numba's start-up count as they do in a command.
_ALL_DIGITS = """
import json, os, sys, time
clock = [("start", time.perf_counter())]
def mark(name): clock.append((name, time.perf_counter()))
import numpy as np
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.nishio.instance import digit_masks
from sudoku_cp.nishio.batch import solve_dag_batch
mark("imports")
items = parse_puzzles(open(sys.argv[1]).read())
grids = [item.grid for item in items if item.grid is not None]
g = grids[0].geometry
values = np.stack([grid.values.reshape(-1) for grid in grids])
mark("parse")
masks = digit_masks(g, values).reshape(-1, g.n, g.n)
mark("sets S (digit_masks)")
from sudoku_cp.nishio import dag
mark("numba and the DAG module")
graph = dag.build_dag(g.p, g.q)
mark("DAG build (numba loads its first compiled kernels)")
dag.closure_batch(graph, masks[:1])
mark("closure kernel (from numba's cache)")
batch = solve_dag_batch(g, masks)
mark("closures (solve_dag_batch)")
text = batch.to_json_lines({"puzzle": np.repeat(np.arange(len(grids)), g.n),
                            "digit": np.tile(np.arange(1, g.n + 1), len(grids))})
mark("JSON Lines (to_json_lines)")
with open(os.devnull, "w") as sink:
    sink.write(text)
mark("write")
print(json.dumps({"puzzles": len(grids), "instances": len(batch), "bytes": len(text),
                  "phases": [[b[0], b[1] - a[1]] for a, b in zip(clock, clock[1:])]}))
"""


def all_digits(path: Path) -> Iterator[str]:
    """Markdown: the phases of answering every digit of every puzzle of a file, in a fresh process."""
    began = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _ALL_DIGITS, str(path)], capture_output=True, text=True)
    whole = time.perf_counter() - began
    if run.returncode != 0:
        raise RuntimeError(run.stderr)
    report = json.loads(run.stdout)
    instances = report["instances"]
    yield f"#### Every digit of {path.name}: {report['puzzles']:,} puzzles, {instances:,} instances"
    yield ""
    yield "| phase | seconds | us per instance |"
    yield "|---|---:|---:|"
    for name, seconds in report["phases"]:
        yield f"| {name} | {seconds:.3f} | {seconds / instances * 1e6:.2f} |"
    yield f"| whole process (interpreter start included) | {whole:.3f} | {whole / instances * 1e6:.2f} |"
    yield ""
    yield f"{report['bytes'] / 1e6:,.1f} MB of JSON Lines."
    yield ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer instances (about 3 minutes in all)")
    parser.add_argument("--sizes", default="9,16,25", help="grid sides to run (default: 9,16,25)")
    parser.add_argument("--time-limit", type=float, default=30.0, help="per solver query (default: 30 s)")
    parser.add_argument(
        "--all-digits",
        nargs="?",
        const=str(SHARED / FORUM_HARDEST),
        metavar="FILE",
        help="only time every digit of every puzzle of FILE (default: the forum-hardest file)",
    )
    args = parser.parse_args(argv)
    if args.all_digits:
        print(f"Machine: {machine()}; load average at start {load_average()}\n")
        for line in all_digits(Path(args.all_digits)):
            print(line, flush=True)
        return 0
    sizes = {int(s) for s in args.sizes.split(",")}
    quick = args.quick
    print(f"Machine: {machine()}; load average at start {load_average()}\n")
    g9, g16, g25 = Geometry(3, 3), Geometry(4, 4), Geometry(5, 5)

    def nine() -> Iterator[str]:
        real = real_workload(
            FORUM_HARDEST,
            g9,
            300 if quick else 2000,
            "forum_hardest_200.txt",
        )
        for work in (real, random_workload(g9, 50 if quick else 250, 9)):
            if work is not None:
                yield from measure(work, quick, args.time_limit, overlay=True, python=True)

    def sixteen() -> Iterator[str]:
        real = real_workload("acs/general/inst16x16_*_*.txt", g16, 60, "inst16x16_45_0.txt")
        random = random_workload(g16, 25 if quick else 100, 16)
        for work in (real, random, union_workload(g16, 40, 16), pigeonhole_workload(g16)):
            if work is not None:
                yield from measure(work, quick, args.time_limit, overlay=False, python=False)

    def twenty_five() -> Iterator[str]:
        yield from build_25()
        real = real_workload("acs/general/inst25x25_*_*.txt", g25, 10 if quick else 40, "inst25x25_45_0.txt")
        easy = random_workload(g25, 4 if quick else 16, 25)
        hard = union_workload(g25, 8 if quick else 24, 25)
        for work in (real, easy, hard, pigeonhole_workload(g25)):
            if work is not None:
                yield from measure(work, True, args.time_limit, overlay=False, python=False)

    sections: list[tuple[int, Callable[[], Iterator[str]]]] = [(9, nine), (16, sixteen), (25, twenty_five)]
    for side, run in sections:
        if side in sizes:
            for line in run():
                print(line, flush=True)
    print(f"load average at end {load_average()}; peak RSS {peak_rss_mb():,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
