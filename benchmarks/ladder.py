"""The ladder of hard instances (issue 22, item 6): each rung made, exported and decided by the
commands the README gives, measured.

    cd benchmarks && ../.venv/bin/python ladder.py [--rung tseitin:50:0 --rung ...] [--cpu-cap 900]
        [--method sat --method sat:cadical195 ...] [--skip-nishio] [--append] [--work DIR]
        [--out results/ladder]

Per rung (family, size, seed), each step a subprocess, as a user would run it:

1. ``sudoku-cp reduce --family F --size N --seed S -o rung.nishio --meta rung.json``: wall
   seconds and peak RSS (``/usr/bin/time``); side, |S|, the 3-CNF's clauses, the instance file's
   size; the known answer from the metadata (``expected``);
2. ``sudoku-cp encode --nishio --to cnf --amo seqcounter rung.nishio -o rung.cnf``: wall seconds,
   the DIMACS file's size;
3. ``cadical rung.cnf`` (the Debian program): CPU and wall seconds, conflicts, stopped at
   ``--cpu-cap`` CPU seconds (``prlimit --cpu``; a stopped run is ``>cap``, never an answer);
4. ``sudoku-cp nishio rung.nishio --method M --json`` for each ``--method`` (default ``sat``:
   CaDiCaL 1.5.3 through python-sat on the same seqcounter CNF, built in process;
   ``sat:cadical195`` names CaDiCaL 1.9.5): CPU and wall seconds of the whole process, and its
   ratio to the cadical program's CPU seconds.

Both answers are checked against ``expected`` (a disagreement stops the script, exit 1).  CPU
seconds are the measure: the machine is shared and wall seconds depend on its load (recorded
with each rung).  Writes ``--out``.md and .json; the instance files stay in ``--work`` (default
a temporary directory, removed at exit), never in the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from common import ROOT, load_average, machine
from hardness import run_program

RESULTS = Path(__file__).resolve().parent / "results"
SUDOKU_CP = str(ROOT / ".venv" / "bin" / "sudoku-cp")
#: The rungs found by measuring (README, "The ladder"): about 1 s, 10 s, 60 s and at least 600 s.
RUNGS = ("tseitin:64:1", "tseitin:78:0", "tseitin:80:2", "tseitin:128:1")


@dataclass(slots=True)
class Rung:
    """One rung, measured."""

    family: str
    size: int
    seed: int
    expected: str = ""
    side: int = 0
    cells: int = 0
    clauses: int = 0
    instance_mb: float = 0.0
    make_seconds: float = 0.0
    make_rss_mb: float = 0.0
    cnf_mb: float = 0.0
    encode_seconds: float = 0.0
    cadical: str = ""
    cadical_cpu: float = 0.0
    cadical_wall: float = 0.0
    conflicts: int | None = None
    #: per ``nishio --method``: its answer ("sat", "unsat", "stopped"), CPU and wall seconds
    nishio: dict[str, dict[str, object]] = field(default_factory=dict)
    load: str = ""

    @classmethod
    def load_record(cls, record: dict[str, object]) -> Rung:
        """A rung from the JSON, the old form (one ``nishio --method sat`` with CaDiCaL 1.9.5) included."""
        record = dict(record)
        if isinstance(record.get("nishio"), str):
            answer, cpu, wall = (record.pop(k) for k in ("nishio", "nishio_cpu", "nishio_wall"))
            record["nishio"] = (
                {"sat:cadical195": {"answer": answer, "cpu": cpu, "wall": wall}} if answer else {}
            )
        return cls(**record)  # type: ignore[arg-type]

    @property
    def command(self) -> str:
        return f"sudoku-cp reduce --family {self.family} --size {self.size} --seed {self.seed}"


def measure(family: str, size: int, seed: int, args: argparse.Namespace, work: Path) -> Rung:
    """Make, export and decide one rung (see the module docstring)."""
    rung = Rung(family, size, seed)
    base = work / f"{family}-{size}-s{seed}"
    inst, meta, cnf, out = (base.with_suffix(x) for x in (".nishio", ".json", ".cnf", ".out"))
    code, wall, _, rss = run_program(
        [SUDOKU_CP, "reduce", "--family", family, "--size", str(size), "--seed", str(seed)]
        + ["-o", str(inst), "--meta", str(meta), "--json"],
        3600,
        out,
    )
    if code != 0:
        raise SystemExit(f"reduce failed: {out.read_text()[-300:]}")
    summary = json.loads(out.read_text().strip().splitlines()[-1])
    rung.expected, rung.side, rung.cells, rung.clauses = (
        json.loads(meta.read_text())["expected"],
        summary["n"],
        summary["cells"],
        summary["clauses"],
    )
    rung.make_seconds, rung.make_rss_mb, rung.instance_mb = wall, rss, inst.stat().st_size / 1e6
    code, wall, _, _ = run_program(
        [SUDOKU_CP, "encode", "--nishio", "--to", "cnf", "--amo", "seqcounter", str(inst), "-o", str(cnf)],
        3600,
        out,
    )
    if code != 0:
        raise SystemExit(f"encode failed: {out.read_text()[-300:]}")
    rung.encode_seconds, rung.cnf_mb = wall, cnf.stat().st_size / 1e6
    rung.load = load_average()
    cap = args.cpu_cap
    program = shutil.which("cadical") or "/usr/bin/cadical"
    code, wall, cpu, _ = run_program(["prlimit", f"--cpu={cap}", program, str(cnf)], 50 * cap, out)
    text = out.read_text(errors="replace")
    found = re.search(r"^c\s+conflicts:\s+(\d+)", text, re.MULTILINE)
    rung.conflicts = int(found.group(1)) if found else None
    rung.cadical = {10: "sat", 20: "unsat"}.get(code or 0, "stopped")
    rung.cadical_cpu, rung.cadical_wall = cpu, wall
    if rung.cadical == "stopped":
        rung.cadical_cpu = max(cpu, float(cap))
    for method in [] if args.skip_nishio or rung.cadical == "stopped" else args.method:
        code, wall, cpu, _ = run_program(
            [SUDOKU_CP, "nishio", str(inst), "--method", method, "--json"], 50 * cap, out
        )
        answer = json.loads(out.read_text().strip().splitlines()[0]) if code in (0, 1) else {}
        satisfiable = answer.get("satisfiable")
        verdict = "stopped" if satisfiable is None else "sat" if satisfiable else "unsat"
        rung.nishio[method] = {"answer": verdict, "cpu": cpu, "wall": wall}
    rung.load += f"-{load_average()}"
    answers = [("cadical", rung.cadical)] + [
        (f"nishio --method {m}", r["answer"]) for m, r in rung.nishio.items()
    ]
    for name, answer in answers:
        if answer in ("sat", "unsat") and answer != rung.expected:
            raise SystemExit(f"!!! {rung.command}: {name} says {answer}, expected {rung.expected}")
    for path in (inst, meta, cnf, out):
        path.unlink(missing_ok=True)
    return rung


def table(rungs: list[Rung], cap: float) -> str:
    """The Markdown table: one column of CPU seconds and one of the ratio to the program per method."""
    methods = list(dict.fromkeys(m for r in rungs for m in r.nishio))
    lines = [
        "| family | size | seed | expected | side | \\|S\\| | clauses | instance MB | CNF MB | make s "
        "| make MB | cadical CPU s | conflicts | wall s (load) | "
        + " | ".join(f"`{m}` CPU s | ratio" for m in methods)
        + " |",
        "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|" + "--:|--:|" * len(methods),
    ]
    for r in rungs:
        stopped = r.cadical == "stopped"
        cadical = f">{cap:g} (stopped)" if stopped else f"{r.cadical_cpu:.1f}"
        cells = []
        for m in methods:
            run = r.nishio.get(m, {})
            if run.get("answer") in ("sat", "unsat"):
                cpu = float(run["cpu"])  # type: ignore[arg-type]
                cells += [f"{cpu:.1f}", f"{cpu / r.cadical_cpu:.2f}"]
            else:
                cells += ["-", "-"]
        conflicts = "-" if r.conflicts is None else f"{r.conflicts:,}"
        lines.append(
            f"| {r.family} | {r.size} | {r.seed} | {r.expected} | {r.side:,} | {r.cells:,} | {r.clauses:,} "
            f"| {r.instance_mb:.2f} | {r.cnf_mb:.1f} | {r.make_seconds:.1f} | {r.make_rss_mb:.0f} "
            f"| {cadical} | {conflicts} | {r.cadical_wall:.0f} ({r.load}) | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rung", action="append", help=f"FAMILY:SIZE:SEED (repeatable; default {' '.join(RUNGS)})"
    )
    parser.add_argument(
        "--cpu-cap", type=float, default=900.0, help="CPU seconds of a cadical run (default 900)"
    )
    parser.add_argument(
        "--method",
        action="append",
        help="a nishio --method to time against the program (repeatable; default sat)",
    )
    parser.add_argument("--skip-nishio", action="store_true", help="do not run nishio")
    parser.add_argument("--append", action="store_true", help="add to the rungs of an earlier --out JSON")
    parser.add_argument(
        "--work", type=Path, help="where the instances are written (default: a temporary directory)"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS / "ladder", help="output stem (default results/ladder)"
    )
    args = parser.parse_args()
    args.method = args.method or ["sat"]
    scratch = tempfile.TemporaryDirectory(prefix="ladder-") if args.work is None else None
    work = Path(scratch.name) if scratch is not None else args.work
    work.mkdir(parents=True, exist_ok=True)
    header = f"{machine()}; load average at start {load_average()}; cadical CPU cap {args.cpu_cap:g} s\n\n"
    rungs: list[Rung] = []
    if args.append and args.out.with_suffix(".json").exists():
        rungs = [Rung.load_record(r) for r in json.loads(args.out.with_suffix(".json").read_text())["rungs"]]
    try:
        for spec in args.rung or RUNGS:
            family, size, seed = spec.split(":")
            print(f"{spec} (load {load_average()})", file=sys.stderr)
            rungs.append(measure(family, int(size), int(seed), args, work))
            args.out.with_suffix(".md").write_text(header + table(rungs, args.cpu_cap))
            records = {"machine": machine(), "cpu_cap": args.cpu_cap, "rungs": [asdict(r) for r in rungs]}
            args.out.with_suffix(".json").write_text(json.dumps(records, indent=1) + "\n")
    finally:
        if scratch is not None:
            scratch.cleanup()
    print(header + table(rungs, args.cpu_cap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
