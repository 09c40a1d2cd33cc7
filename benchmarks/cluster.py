"""The Dask path against local worker processes: overhead and scaling on one machine.

    .venv/bin/python benchmarks/cluster.py [--puzzles 100000] [--backend pysat] [--out FILE]

Whole-process runs of ``sudoku-cp solve --json`` on one batch of 9x9 puzzles (the tdoku 17-clue
corpus, cycled to ``--puzzles`` lines, read in place from ``../shared/data/sudoku9``): ``--jobs 1``,
``--jobs 2``, ``--cluster local:1`` and ``--cluster local:2`` (a Dask LocalCluster started by the
command itself, so its start-up is part of the price), in one run, one after the other.  Every
run must give the same statuses and solutions; the table gives wall seconds, puzzles/s, the Dask
overhead against the same number of local processes and the scaling from 1 to 2 workers.
A sweep row does the same for ``sudoku-cp verify --backend acs --runs R`` on ant-colony instances
(instances x runs per second).  Needs ``pip install 'sudoku_cp[dask]'``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from common import machine

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
CORPUS = SHARED / "sudoku9" / "tdoku_17_clue.txt"
ACS = SHARED / "acs" / "general"
PLACES = (["--jobs", "1"], ["--jobs", "2"], ["--cluster", "local:1"], ["--cluster", "local:2"])


def _batch(puzzles: int, path: Path) -> Path:
    lines = [line for line in CORPUS.read_text().splitlines() if line.strip()]
    path.write_text("\n".join(lines[k % len(lines)] for k in range(puzzles)) + "\n")
    return path


def _answers(text: str) -> list[tuple[object, object]]:
    rows = [json.loads(line) for line in text.splitlines()]
    return [
        (row.get("status"), row.get("solution") or row.get("verdict")) for row in rows if "summary" not in row
    ]


def _timed(command: list[str]) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - began
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return seconds, done.stdout


def _table(title: str, unit: str, count: int, command: list[str]) -> list[str]:
    rows, seconds, reference = [], {}, None
    for place in PLACES:
        wall, out = _timed([*command, *place])
        answers = _answers(out)
        if reference is None:
            reference = answers
        elif answers != reference:
            raise SystemExit(f"{' '.join(place)} gave other answers than --jobs 1")
        seconds[" ".join(place)] = wall
    lines = [
        f"### {title}",
        "",
        f"| where | wall s | {unit}/s | vs same workers local |",
        "|---|---:|---:|---:|",
    ]
    for place in PLACES:
        key = " ".join(place)
        local = f"--jobs {place[1].split(':')[-1]}" if place[0] == "--cluster" else key
        ratio = seconds[key] / seconds[local]
        rows.append(f"| `{key}` | {seconds[key]:.2f} | {count / seconds[key]:,.0f} | {ratio:.3f} |")
    lines += rows
    for kind in ("--jobs", "--cluster local:"):
        one = seconds[f"{kind} 1" if kind == "--jobs" else f"{kind}1"]
        two = seconds[f"{kind} 2" if kind == "--jobs" else f"{kind}2"]
        lines.append(f"\nscaling 1 -> 2 workers, `{kind.strip(':')}`: {one / two:.2f}x")
    return [*lines, ""]


def main() -> None:
    """Run the table(s) and print them (and write ``--out``)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--puzzles", type=int, default=100_000)
    parser.add_argument("--backend", default="pysat")
    parser.add_argument("--sweep-instances", type=int, default=40, help="ant-colony instances (0: no sweep)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not CORPUS.exists():
        raise SystemExit(f"the corpus {CORPUS} is absent (../shared/data is not beside the clone)")
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise SystemExit("this benchmark needs Dask: pip install 'sudoku_cp[dask]'") from None
    lines = [f"machine: {machine()}", ""]
    work = Path("/tmp") / f"cluster_bench_{args.puzzles}.txt"
    solve = [sys.executable, "-m", "sudoku_cp", "solve", "--json", "--no-progress", "--backend", args.backend]
    lines += _table(
        f"solve, {args.puzzles:,} 9x9 puzzles ({args.backend})",
        "puzzles",
        args.puzzles,
        [*solve, str(_batch(args.puzzles, work))],
    )
    if args.sweep_instances and ACS.exists():
        files = (
            sorted(ACS.glob("*9x9*"))[: args.sweep_instances] or sorted(ACS.iterdir())[: args.sweep_instances]
        )
        corpus = Path("/tmp") / "cluster_bench_acs.txt"
        from sudoku_cp.formats import format_line, parse_grid

        corpus.write_text("\n".join(format_line(parse_grid(f.read_text())) for f in files) + "\n")
        runs = 5
        verify = [sys.executable, "-m", "sudoku_cp", "verify", "--json", "--no-progress", "--backend", "acs"]
        lines += _table(
            f"verify sweep: {len(files)} ant-colony 9x9 instances x {runs} ACS runs",
            "runs",
            len(files) * runs,
            [*verify, "--runs", str(runs), "--timeout", "5", str(corpus)],
        )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
