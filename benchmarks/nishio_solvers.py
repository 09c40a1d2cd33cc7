"""Which python-sat solver ``nishio --method sat`` should use: the same Nishio CNF decided by each,
and by the Debian ``cadical`` program, over a sample of family instances (issue 22, item 6).

    cd benchmarks && ../.venv/bin/python nishio_solvers.py [--plan "tseitin:50,60,70 pigeonhole:8,9"]
        [--seeds 0,1,2] [--solvers cadical153,cadical195,glucose4] [--cap 60] [--out results/nishio_solvers]

Per (family, size, seed): the instance is made in this process (``family_instance``), its
seqcounter CNF (the model ``nishio --method sat`` solves) written as DIMACS by
``stream_nishio_dimacs``; then each python-sat solver reads that file in a child process and
solves it without assumptions or limits (as ``nishio --method sat`` without ``--time-limit``
does), reporting its answer, the CPU seconds of the solve alone and its conflicts; the
``cadical`` program decides the same file (CPU seconds of the whole process, conflicts from its
statistics).  Every run is killed at ``--cap`` wall seconds (a timeout, never an answer).  Every
answer is checked against the family's known answer (a disagreement: exit 1).

The machine is shared: CPU seconds are the measure, the load average is recorded per instance,
and the summary compares solvers by the geometric mean of their CPU seconds over the instances
every solver decided, with each solver's ratio to the program.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from common import ROOT, load_average, machine
from hardness import run_program

RESULTS = Path(__file__).resolve().parent / "results"
PYTHON = str(ROOT / ".venv" / "bin" / "python")
PLAN = "tseitin:50,60,64,70 pigeonhole:8,9 parity:13 planted:100 random:100"

#: The child: read a DIMACS file, solve it once with a python-sat solver, print one JSON line.
CHILD = """
import json, sys, time
from pysat.formula import CNF
from pysat.solvers import Solver
cnf = CNF(from_file=sys.argv[1])
solver = Solver(name=sys.argv[2], bootstrap_with=cnf.clauses)
cpu = time.process_time()
answer = solver.solve()
cpu = time.process_time() - cpu
stats = solver.accum_stats() or {}
print(json.dumps({"answer": "sat" if answer else "unsat", "cpu": cpu, "conflicts": stats.get("conflicts")}))
"""


@dataclass(slots=True)
class Instance:
    """One instance: its size and each solver's run (answer, CPU seconds, conflicts)."""

    family: str
    size: int
    seed: int
    expected: str
    cells: int = 0
    clauses: int = 0
    load: str = ""
    runs: dict[str, dict[str, object]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.family} {self.size} s{self.seed}"


def measure(family: str, size: int, seed: int, args: argparse.Namespace, work: Path) -> Instance:
    """Make the instance and decide its CNF with every solver and the program."""
    from sudoku_cp.nishio.cnf import stream_nishio_dimacs
    from sudoku_cp.reduction.families import family_instance

    made = family_instance(family, size, seed)
    instance = made.reduction.instance
    cnf = work / "instance.cnf"
    _, clauses = stream_nishio_dimacs(instance, "seqcounter", cnf)
    entry = Instance(family, size, seed, made.source.expected, instance.size, clauses, load_average())
    for solver in args.solvers:
        try:
            done = subprocess.run(
                [PYTHON, "-c", CHILD, str(cnf), solver], capture_output=True, text=True, timeout=args.cap
            )
            entry.runs[solver] = json.loads(done.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            entry.runs[solver] = {"answer": "timeout", "cpu": None, "conflicts": None}
    program = shutil.which("cadical") or "/usr/bin/cadical"
    out = work / "cadical.out"
    code, _, cpu, _ = run_program([program, str(cnf)], args.cap, out)
    found = re.search(r"^c\s+conflicts:\s+(\d+)", out.read_text(errors="replace"), re.MULTILINE)
    answer = {10: "sat", 20: "unsat"}.get(code or 0, "timeout")
    entry.runs["program"] = {
        "answer": answer,
        "cpu": cpu if answer != "timeout" else None,
        "conflicts": int(found.group(1)) if found else None,
    }
    entry.load += f"-{load_average()}"
    for name, run in entry.runs.items():
        if run["answer"] in ("sat", "unsat") and run["answer"] != entry.expected:
            raise SystemExit(f"!!! {entry.name}: {name} says {run['answer']}, expected {entry.expected}")
    return entry


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-3)) for v in values) / len(values))


def report(entries: list[Instance], args: argparse.Namespace, header: str) -> str:
    """The Markdown tables: CPU seconds (conflicts) per instance and solver; the geometric means."""
    names = [*args.solvers, "program"]
    lines = [
        header,
        "",
        "| instance | expected | \\|S\\| | clauses | load | "
        + " | ".join(f"{n} CPU s (conflicts)" for n in names)
        + " |",
        "|---|---|--:|--:|---|" + "--:|" * len(names),
    ]
    for e in entries:
        cells = []
        for n in names:
            run = e.runs[n]
            if run["cpu"] is None:
                cells.append(f">{args.cap:g}")
            else:
                conflicts = "?" if run["conflicts"] is None else f"{run['conflicts']:,}"
                cells.append(f"{run['cpu']:.2f} ({conflicts})")
        lines.append(
            f"| {e.name} | {e.expected} | {e.cells:,} | {e.clauses:,} | {e.load} | "
            + " | ".join(cells)
            + " |"
        )
    decided = [e for e in entries if all(e.runs[n]["cpu"] is not None for n in names)]
    lines += [
        "",
        f"Geometric mean of CPU seconds over the {len(decided)} instances every solver decided:",
        "",
    ]
    lines += ["| solver | geometric mean CPU s | ratio to the program |", "|---|--:|--:|"]
    if decided:
        base = _geomean([float(e.runs["program"]["cpu"]) for e in decided])  # type: ignore[arg-type]
        for n in names:
            mean = _geomean([float(e.runs[n]["cpu"]) for e in decided])  # type: ignore[arg-type]
            lines.append(f"| {n} | {mean:.2f} | {mean / base:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--plan", default=PLAN, help=f"FAMILY:SIZE,SIZE ... (default {PLAN!r})")
    parser.add_argument("--seeds", default="0", help="comma-separated seeds (default 0)")
    parser.add_argument(
        "--solvers", default="cadical153,cadical195,glucose4", help="python-sat solver names, comma-separated"
    )
    parser.add_argument("--cap", type=float, default=60.0, help="wall seconds per run (default 60)")
    parser.add_argument("--out", type=Path, default=RESULTS / "nishio_solvers", help="output stem")
    args = parser.parse_args()
    args.solvers = args.solvers.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    plan = [
        (f, int(s)) for part in args.plan.split() for f, sizes in [part.split(":")] for s in sizes.split(",")
    ]
    header = (
        f"{machine()}; load average at start {load_average()}; cap {args.cap:g} s wall per run; "
        "CPU seconds of the solve alone (python-sat, child process) or of the whole program (cadical)"
    )
    entries: list[Instance] = []
    with tempfile.TemporaryDirectory(prefix="nishio-solvers-") as scratch:
        for family, size in plan:
            for seed in seeds:
                print(f"{family} {size} s{seed} (load {load_average()})", file=sys.stderr, flush=True)
                entries.append(measure(family, size, seed, args, Path(scratch)))
                text = report(entries, args, header)
                args.out.with_suffix(".md").write_text(text)
                records = {"machine": machine(), "cap": args.cap, "instances": [asdict(e) for e in entries]}
                args.out.with_suffix(".json").write_text(json.dumps(records, indent=1) + "\n")
    print(report(entries, args, header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
