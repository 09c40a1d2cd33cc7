"""Big grids with the default command, whole process: every file of ../shared/data/big solved and checked.

    .venv/bin/python benchmarks/big_grids.py [--time-limit 120] [--only 64-1 225-1]
    .venv/bin/python benchmarks/big_grids.py --research [--only 64-1] [--cpu 60] [--configs NAME ...]

Default mode, for each file (smallest first), one process at a time:

1. ``python -m sudoku_cp solve FILE --json --time-limit T`` under ``/usr/bin/time``: wall and CPU
   seconds (user + system, the portfolio's workers included) and peak memory (the largest
   process); the solution is read back from the JSON line and checked here, independently, against
   the puzzle (``sudoku_cp.verify``);
2. ``python -m sudoku_cp encode --to cnf --encoding optimized FILE -o TMP`` the same way: the
   streamed DIMACS writer's time, memory and the model's size.

Results: a Markdown table (the one in benchmarks/README.md, section "Big grids") and
``benchmarks/results/big_grids.json``, with the machine and its load average.

``--research``: the model and solver configurations of ``big_grids_research.CONFIGS`` on the hard
grids, one child process each under a CPU-time limit (``--cpu``), appended to
``benchmarks/results/big_grids_research.json``; every answer decoded and checked.
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

from big_grids_research import Config, run_config
from common import ROOT, SHARED, load_average, machine

from sudoku_cp.formats import parse_grid
from sudoku_cp.verify import valid_solutions_mask

BIG = SHARED / "big"
RESULTS = ROOT / "benchmarks" / "results"

#: The configurations of the research table (benchmarks/README.md, "Big grids"): one model change
#: or solver change at a time against the library's model (singles, extended over open candidates,
#: pairwise, cell-major numbering) on CaDiCaL; random numberings (seed > 0) sample each one's spread.
STABLE_PHASE0 = 'pysat:cadical195 {"stabilizeonly": 1, "phase": 0}'
CONFIGS = [
    Config("cadical program", solver="cadical -q"),
    Config("cadical program, random numbering", solver="cadical -q", order="random", seed=1),
    Config("cadical program, triads", solver="cadical -q", triads=True),
    Config("cadical program, locked", solver="cadical -q", locked=True),
    Config("cadical program, locked, triads", solver="cadical -q", locked=True, triads=True),
    Config("cadical program, phase false", solver="cadical -q --phase=0"),
    Config("cadical program --sat", solver="cadical -q --sat"),
    Config("cadical program --unsat", solver="cadical -q --unsat"),
    Config("cadical program, sequential amo", solver="cadical -q", amo="seq"),
    Config("cadical program, product amo", solver="cadical -q", amo="product"),
    Config("cadical program, bimander amo", solver="cadical -q", amo="bimander"),
    Config(
        "cadical program, triads + minirow cardinality", solver="cadical -q", triads=True, card="seqcounter"
    ),
    Config("cryptominisat5", solver="cryptominisat5 --verb 0"),
    Config("pysat:glucose4", solver="pysat:glucose4"),
    Config("pysat:maplechrono", solver="pysat:maplechrono"),
    Config("pysat:minisat22", solver="pysat:minisat22"),
    Config("pysat:cadical195", solver="pysat:cadical195"),
    Config("pysat:cadical195, phase false", solver='pysat:cadical195 {"phase": 0}'),
    Config(
        "pysat:cadical195 sat config",
        solver='pysat:cadical195 {"elimreleff": 10, "stabilizeonly": 1, "subsumereleff": 60}',
    ),
    Config("pysat:cadical195, stable only, phase false (default)", solver=STABLE_PHASE0),
    Config("same, triads", solver=STABLE_PHASE0, triads=True),
    Config("same, locked", solver=STABLE_PHASE0, locked=True),
    Config("same, digit-major numbering", solver=STABLE_PHASE0, order="digit"),
    Config("same, fewest candidates numbered first", solver=STABLE_PHASE0, order="mrv"),
    Config("same, fewest candidates numbered last", solver=STABLE_PHASE0, order="mrv_rev"),
]


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


def research_mode(args: argparse.Namespace) -> None:
    chosen = [c for c in CONFIGS if not args.configs or c.name in args.configs]
    out = RESULTS / "big_grids_research.json"
    done: dict[str, Any] = {"machine": machine(), "runs": []}
    if out.exists():
        done = json.loads(out.read_text())
    for path in _files(args.only or ["64-1"]):
        for config in chosen:
            record = run_config(path, config, args.cpu)
            print(json.dumps(record), flush=True)
            done.setdefault("runs", []).append(record)
            out.write_text(json.dumps(done, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=120.0, help="solve's --time-limit (seconds)")
    parser.add_argument("--only", nargs="*", help="file name endings, e.g. 64-1 225-1")
    parser.add_argument("--research", action="store_true", help="the configuration table instead")
    parser.add_argument("--cpu", type=float, default=60.0, help="CPU seconds per research run")
    parser.add_argument("--configs", nargs="*", help="research configurations by name (default: all)")
    args = parser.parse_args()
    print(f"machine: {machine()}; load {load_average()}; cores available {len(os.sched_getaffinity(0))}")
    research_mode(args) if args.research else default_mode(args)


if __name__ == "__main__":
    main()
