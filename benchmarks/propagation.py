"""Propagation speed and memory: the numpy rounds against the compiled work-queue kernel, in one run.

    .venv/bin/python benchmarks/propagation.py [--cap 60] [--only NAME,...] [--skip-big] [--skip-9x9]

Every measurement runs in a fresh process of its own (``--child``), so that its peak memory is its
own: the process reads its resident memory, resets the kernel's high-water mark
(``/proc/self/clear_refs``), times the call (CPU and wall) and reads the mark again.  The compiled
kernel is loaded (and run once on a 4x4 grid) before the clock starts; its start-up is measured
apart.

1. Big grids, every file of ``../shared/data/big``: the singles fixpoint, then singles and
   locked candidates, by
   - ``numpy``: ``propagation.vectorized`` (the rounds of before), stopped at ``--cap`` seconds;
   - ``compiled``: ``propagation.bitset``;
   - ``default``: ``sudoku_cp.propagation.propagate_batch``, the dispatch callers get.
   A digest of the answer (digits, candidates, contradiction) shows that they agree.
2. 9x9 batch: the 9,754 forum-hardest puzzles
   (``sudoku9/tdoku_forum_hardest_1905_11plus_every5th.txt``) as one batch, the same three ways.
3. The dispatch's two prices: the cost of one numpy round per candidate (a 9x9 batch, 400-1), and
   what loading the compiled kernel costs a fresh process (import, first call).

Prints the machine, the load average and Markdown tables (the ones in benchmarks/README.md), and
after a full run (no ``--only``, no ``--skip-*``) writes ``benchmarks/results/propagation.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import ROOT, SHARED, load_average, machine

BIG = SHARED / "big"
FORUM = SHARED / "sudoku9" / "tdoku_forum_hardest_1905_11plus_every5th.txt"
RESULTS = ROOT / "benchmarks" / "results" / "propagation.json"
WAYS = ("numpy", "compiled", "default")


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _forum_batch() -> np.ndarray:
    lines = [line.strip()[:81] for line in FORUM.read_text().splitlines() if line.strip()]
    table = np.frombuffer("".join(lines).encode(), dtype=np.uint8).reshape(-1, 81)
    return np.where((table >= ord("1")) & (table <= ord("9")), table - ord("0"), 0).astype(np.int16)


def _child(job: dict[str, Any]) -> dict[str, Any]:
    """One measurement, in this (fresh) process."""
    from sudoku_cp.formats import parse_grid
    from sudoku_cp.geometry import Geometry, geometry_for_size
    from sudoku_cp.limits import Deadline, TimeLimitReached
    from sudoku_cp.propagation import propagate_batch, vectorized

    if job["source"] == "forum":
        geometry, values = geometry_for_size(9), _forum_batch()
    else:
        grid = parse_grid((BIG / job["source"]).read_text())
        geometry, values = grid.geometry, grid.values.reshape(1, -1)
    locked = job["locked"]
    way = job["way"]
    if way == "compiled":
        from sudoku_cp.propagation import bitset

        bitset.propagate_batch(Geometry(2, 2), np.zeros((1, 16), np.int16), locked=locked)
    rss = _status_kb("VmRSS")
    try:
        Path("/proc/self/clear_refs").write_text("5")  # the high-water mark starts again here
        reset = True
    except OSError:
        reset = False
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        if way == "numpy":
            deadline = Deadline(job["cap"])
            state = vectorized.propagate_rounds(geometry, values, locked=locked, deadline=deadline)[0]
        elif way == "compiled":
            state = bitset.propagate_batch(geometry, values, locked=locked)
        else:
            state = propagate_batch(geometry, values, locked=locked)
    except TimeLimitReached:
        return {"capped": True, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = _status_kb("VmHWM")
    digest = hashlib.sha256()
    for part in (state.values, np.packbits(state.candidates), state.contradiction):
        digest.update(np.ascontiguousarray(part).tobytes())
    return {
        "capped": False,
        "cpu": cpu,
        "wall": wall,
        "rss_mb": rss / 1024,
        "peak_mb": peak / 1024,
        "growth_mb": (peak - rss) / 1024 if reset else None,
        "placed": int((state.values > 0).sum()),
        "open_before": int((values == 0).sum()),
        "placed_by_rules": int((state.values > 0).sum() - (values > 0).sum()),
        "contradictions": int(state.contradiction.sum()),
        "digest": digest.hexdigest()[:16],
    }


def _prices() -> dict[str, Any]:
    """The numpy round's cost per candidate (9x9 batch, 400-1) and the compiled kernel's start-up."""
    from sudoku_cp.formats import parse_grid
    from sudoku_cp.geometry import geometry_for_size
    from sudoku_cp.propagation import vectorized

    out: dict[str, Any] = {}
    cases = [("9x9 batch (forum-hardest)", geometry_for_size(9), _forum_batch())]
    if (BIG / "sudoku-400-1.txt").exists():
        grid = parse_grid((BIG / "sudoku-400-1.txt").read_text())
        cases.append(("400-1", grid.geometry, grid.values.reshape(1, -1)))
    for name, geometry, values in cases:
        n = geometry.n
        one_round = values.shape[0] * vectorized.round_cost(n)
        for rounds in (1, 2):
            spent = []
            for _ in range(3):  # the first run pays for fresh pages; the best of three
                cpu = time.process_time()
                vectorized.propagate_rounds(geometry, values, max_work=rounds * one_round)
                spent.append(time.process_time() - cpu)
            out[f"numpy, {name}, {rounds} round(s): ns per candidate"] = (
                min(spent) / (rounds * values.shape[0] * n**3) * 1e9
            )
            out[f"numpy, {name}, {rounds} round(s): ns per round_cost unit"] = (
                min(spent) / (rounds * one_round) * 1e9
            )
    code = (
        "import time\nfrom sudoku_cp.propagation import propagate\nfrom sudoku_cp.formats import parse_grid\n"
        "g = parse_grid('.' * 81)\nt = time.perf_counter()\nfrom sudoku_cp.propagation import bitset\n"
        "t1 = time.perf_counter()\nbitset.propagate_batch(g.geometry, g.values.reshape(1, -1))\n"
        "t2 = time.perf_counter()\nprint(t1 - t, t2 - t1)\n"
    )
    runs = []
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        runs.append([float(x) for x in done.stdout.split()])
    best = min(runs, key=sum)
    out["compiled start-up: import numba and bitset, s"] = best[0]
    out["compiled start-up: first call (cached machine code), s"] = best[1]
    return out


def _measure(source: str, locked: bool, way: str, cap: float) -> dict[str, Any]:
    job = {"source": source, "locked": locked, "way": way, "cap": cap}
    done = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=cap * 4 + 600,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _cell(result: dict[str, Any], cap: float) -> str:
    if "error" in result:
        return "error"
    if result["capped"]:
        return f">{cap:g} s"
    growth = result["growth_mb"]
    memory = f"{growth:,.0f} MB" if growth is not None else f"peak {result['peak_mb']:,.0f} MB"
    return f"{result['cpu']:.3f} s, {memory}"


def main() -> None:
    """Run every measurement, print the tables and write the results file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=60.0, help="seconds the numpy rounds may take")
    parser.add_argument("--only", default="", help="comma-separated big-grid files (default: all)")
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--skip-9x9", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return
    print(f"machine: {machine()}")
    print(f"load average at the start: {load_average()}")
    report: dict[str, Any] = {"machine": machine(), "load_start": load_average(), "cap": args.cap}
    sources: list[str] = []
    if not args.skip_big:
        if not BIG.is_dir():
            sys.exit(f"the big grids are absent (expected in {BIG})")
        wanted = set(filter(None, args.only.split(",")))
        names = sorted(path.name for path in BIG.glob("sudoku-*.txt"))
        sources += [name for name in names if not wanted or name in wanted]
        sources.sort(key=lambda name: int(name.split("-")[1]))
    if not FORUM.exists():
        sys.exit(f"the forum-hardest corpus is absent (expected at {FORUM})")
    if not args.skip_9x9:
        sources.append("forum")
    rows: list[dict[str, Any]] = []
    for source in sources:
        for locked in (False, True):
            results = {way: _measure(source, locked, way, args.cap) for way in WAYS}
            digests = {r["digest"] for r in results.values() if "digest" in r}
            row: dict[str, Any] = {"source": source, "locked": locked, **results, "agree": len(digests) == 1}
            rows.append(row)
            print(json.dumps(row), flush=True)
    report["rows"] = rows
    report["prices"] = _prices()
    report["load_end"] = load_average()
    print()
    header = ("grid", "rules", "open cells", "placed by rules", "numpy rounds", "compiled", "default", "same")
    print("| " + " | ".join(header) + " |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for row in rows:
        ref = row["compiled"]
        name = "9x9 forum-hardest, 9,754 puzzles" if row["source"] == "forum" else row["source"]
        rules = "singles + locked" if row["locked"] else "singles"
        counts = f"{ref.get('open_before', 0):,} | {ref.get('placed_by_rules', 0):,}"
        times = " | ".join(_cell(row[way], args.cap) for way in WAYS)
        print(f"| {name} | {rules} | {counts} | {times} | {'yes' if row['agree'] else 'NO'} |")
    forum = [row for row in rows if row["source"] == "forum"]
    if forum:
        print()
        print("| 9x9 batch, 9,754 puzzles | numpy puzzles/s (CPU) | compiled | default |")
        print("|---|---:|---:|---:|")
        for row in forum:
            rates = [9754 / row[way]["cpu"] if "cpu" in row[way] else 0.0 for way in WAYS]
            rules = "singles + locked" if row["locked"] else "singles"
            print(f"| {rules} | {rates[0]:,.0f} | {rates[1]:,.0f} | {rates[2]:,.0f} |")
    print()
    for key, value in report["prices"].items():
        print(f"* {key}: {value:.3g}")
    print(f"\nload average at the end: {report['load_end']}")
    if not (args.only or args.skip_big or args.skip_9x9):  # the results file holds full runs only
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
