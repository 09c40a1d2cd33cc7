"""How reduction time and peak memory grow with the formula (issue 22, item 1): the sparse targets.

    .venv/bin/python benchmarks/reduction_scale.py [--sizes 250:1065,1000:4260] [--seed 1] [--nonempty]
                                                    [--encode] [--out benchmarks/results/reduction_scale.json]

Each size runs ``sudoku-cp reduce --random-vars V --clauses M --seed S -o FILE --meta FILE`` in a
fresh process under ``/usr/bin/time -v`` (wall time and peak RSS of the whole command: start-up,
random formula, packing, the instance's sparse text and the metadata written) and reads k, n and
|S| from its --json summary.  With ``--encode`` it also times ``encode --nishio --to cnf --amo
seqcounter`` on the instance written (the streamed DIMACS export).  Targets of the issue:
250 variables in <= 60 s and <= 2 GB, 1,000 variables in <= 180 s and <= 4 GB.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from common import machine

ROOT = Path(__file__).resolve().parents[1]
CLI = [str(ROOT / ".venv" / "bin" / "sudoku-cp")]


def timed(argv: list[str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in bytes, stdout) of one command under /usr/bin/time -v."""
    done = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    assert wall is not None and rss is not None
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return seconds, int(rss.group(1)) * 1024, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250:1065,1000:4260", help="V:M pairs, comma-separated")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nonempty", action="store_true", help="Theorem 6.2 as well")
    parser.add_argument("--encode", action="store_true", help="also time encode --nishio --to cnf")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "reduction_scale.json"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for pair in args.sizes.split(","):
            variables, clauses = (int(x) for x in pair.split(":"))
            for nonempty in (False, True) if args.nonempty else (False,):
                inst, meta = Path(work) / "i.nishio", Path(work) / "m.json"
                argv = [*CLI, "reduce", "--random-vars", str(variables), "--clauses", str(clauses)]
                argv += ["--seed", str(args.seed), "-o", str(inst), "--meta", str(meta), "--json"]
                argv += ["--nonempty"] if nonempty else []
                seconds, rss, out = timed(argv)
                summary = json.loads(out)
                row = {
                    "variables": variables,
                    "clauses": clauses,
                    "seed": args.seed,
                    "nonempty": nonempty,
                    "k": summary["k"],
                    "n": summary["n"],
                    "cells": summary["cells"],
                    "seconds": round(seconds, 2),
                    "peak_rss_mb": round(rss / 2**20, 1),
                    "instance_bytes": inst.stat().st_size,
                    "metadata_bytes": meta.stat().st_size,
                }
                if args.encode:
                    cnf = Path(work) / "i.cnf"
                    enc = [*CLI, "encode", "--nishio", "--to", "cnf", "--amo", "seqcounter", str(inst)]
                    seconds, rss, _ = timed([*enc, "-o", str(cnf)])
                    row.update(
                        encode_seconds=round(seconds, 2),
                        encode_peak_rss_mb=round(rss / 2**20, 1),
                        cnf_bytes=cnf.stat().st_size,
                    )
                    cnf.unlink()
                print(json.dumps(row), flush=True)
                rows.append(row)
    Path(args.out).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
