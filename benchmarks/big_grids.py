"""Big grids with the default command, whole process: every file of ../shared/data/big solved and checked.

    .venv/bin/python benchmarks/big_grids.py [--time-limit 120] [--only 64-1 225-1]

Default mode, for each file (smallest first), one process at a time:

1. ``python -m sudoku_cp solve FILE --json --time-limit T`` under ``/usr/bin/time``: wall and CPU
   seconds (user + system, the portfolio's workers included) and peak memory (the largest
   process); the solution is read back from the JSON line and checked here, independently, against
   the puzzle (``sudoku_cp.checker``);
2. ``python -m sudoku_cp encode --to cnf --encoding optimized FILE -o TMP`` the same way: the
   streamed DIMACS writer's time, memory and the model's size.

Results: a Markdown table (the one in benchmarks/README.md, section "Big grids") and
``benchmarks/results/big_grids.json``, with the machine and its load average.

The research on the hard grids (model and solver configurations, a matching propagator inside
CaDiCaL) is in ``research/`` with its findings.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import ROOT, SHARED, load_average, machine

from sudoku_cp.checker import valid_solutions_mask
from sudoku_cp.formats import parse_grid

BIG = SHARED / "big"
RESULTS = ROOT / "benchmarks" / "results"


def _timed(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], dict[str, float]]:
    """Run a whole process under /usr/bin/time: its result and wall, CPU seconds, peak MB."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        timer = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", report.name] if shutil.which("time") else []
        began = time.perf_counter()
        run = subprocess.run([*timer, *argv], capture_output=True, text=True)
        wall = time.perf_counter() - began
        figures = report.read().split()[-4:] if timer else []
    if len(figures) == 4:
        return run, {
            "wall": float(figures[0]),
            "cpu": round(float(figures[1]) + float(figures[2]), 2),
            "peak_mb": round(int(figures[3]) / 1024, 1),
        }
    return run, {"wall": round(wall, 2)}


def _solve(path: Path, time_limit: float) -> dict[str, Any]:
    """The default command on one file, its answer checked here."""
    argv = [sys.executable, "-m", "sudoku_cp", "solve", str(path), "--json", "--time-limit", str(time_limit)]
    run, figures = _timed(argv)
    record: dict[str, Any] = {f"solve_{key}": value for key, value in figures.items()}
    lines = run.stdout.splitlines()
    answer = json.loads(lines[0]) if lines else {}
    record["status"] = answer.get("status", f"exit {run.returncode}")
    stats = answer.get("stats", {})
    record.update(
        {key: stats[key] for key in ("variables", "clauses", "conflicts", "winner") if key in stats}
    )
    record["reported_seconds"] = answer.get("seconds")
    if answer.get("solution"):
        puzzle = parse_grid(path.read_text())
        solution = parse_grid(answer["solution"])
        record["checked"] = bool(
            solution.n == puzzle.n and valid_solutions_mask(puzzle, solution.values[None])[0]
        )
    return record


def _encode(path: Path) -> dict[str, Any]:
    """``encode --to cnf --encoding optimized``: the streamed writer's time, memory and output size."""
    with tempfile.TemporaryDirectory(prefix="big_grids_") as folder:
        out = Path(folder) / "model.cnf"
        argv = [sys.executable, "-m", "sudoku_cp", "encode", "--to", "cnf", "--encoding", "optimized"]
        run, figures = _timed([*argv, str(path), "-o", str(out)])
        record: dict[str, Any] = {f"encode_{key}": value for key, value in figures.items()}
        record["cnf_mb"] = round(out.stat().st_size / 1e6, 1) if out.exists() else None
        if run.returncode:
            record["encode_error"] = run.stderr.strip()[-300:]
    return record


def _files(only: list[str] | None) -> list[Path]:
    files = sorted(BIG.glob("sudoku-*.txt"), key=lambda p: (int(p.stem.split("-")[1]), p.stem))
    if only:
        files = [p for p in files if p.stem.removeprefix("sudoku-") in only]
    return files


def _table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| file | status | checked | solve wall s | solve CPU s | peak MB | variables | clauses "
        "| encode wall s | encode peak MB | CNF MB |"
    )
    lines = [head, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['file']} | {r['status']} | {r.get('checked', '')} | {r.get('solve_wall', '')} "
            f"| {r.get('solve_cpu', '')} | {r.get('solve_peak_mb', '')} | {r.get('variables', '')} "
            f"| {r.get('clauses', '')} | {r.get('encode_wall', '')} | {r.get('encode_peak_mb', '')} "
            f"| {r.get('cnf_mb', '')} |"
        )
    return "\n".join(lines)


def default_mode(args: argparse.Namespace) -> None:
    rows = []
    for path in _files(args.only):
        record: dict[str, Any] = {"file": path.stem, "load_before": load_average()}
        record.update(_solve(path, args.time_limit))
        record.update(_encode(path))
        rows.append(record)
        print(json.dumps(record), flush=True)
    print(_table(rows))
    result = {"machine": machine(), "load": load_average(), "time_limit": args.time_limit, "files": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "big_grids.json").write_text(json.dumps(result, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=120.0, help="solve's --time-limit (seconds)")
    parser.add_argument("--only", nargs="*", help="file name endings, e.g. 64-1 225-1")
    args = parser.parse_args()
    print(f"machine: {machine()}; load {load_average()}; cores available {len(os.sched_getaffinity(0))}")
    default_mode(args)


if __name__ == "__main__":
    main()
