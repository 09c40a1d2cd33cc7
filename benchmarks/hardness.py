"""Hardness of the reduction's instances: each family's formula against its Nishio instance, per solver.

    cd benchmarks && ../.venv/bin/python hardness.py [--plan "tseitin:40,60,80 pigeonhole:6,7,8 ..."]
        [--seeds 0] [--time-limit 60] [--solvers pysat,cadical,minisat,kissat,cpsat,dlx]
        [--amo seqcounter] [--growth "random:100,250,500,1000 tseitin:40,80,120"] [--skip-growth]
        [--work DIR] [--out results/hardness] [--from-json results/hardness.json]

For every (family, size, seed) of ``--plan`` (``sudoku_cp.reduction.families``; the known answer
and its reason come with the formula) the script:

1. makes the family's 3-CNF and its Theorem 6.1 instance in this process (``family_instance``),
   and once more with ``sudoku-cp reduce --family ... -o FILE --meta FILE`` in a subprocess: its
   wall time and peak RSS (``wait4``), and the instance file's size;
2. writes the formula (DIMACS) and the instance's CNF (``encode_nishio_cnf`` with ``--amo``,
   default seqcounter, the model ``nishio --method sat`` solves; streamed by
   ``write_nishio_dimacs``) into ``--work`` (default: a temporary directory, removed at exit);
3. decides the **formula** and the **instance** with each solver, one run each, single-threaded,
   stopped at ``--time-limit`` seconds (a stopped run is a timeout, never an answer):

   * ``pysat``: CaDiCaL 1.9.5 through python-sat in this process (``solve_limited``), the
     formula's CNF or the instance's CNF; conflicts from ``accum_stats``;
   * ``cadical``, ``minisat``: the Debian programs on the DIMACS files, whole process (parsing
     included), killed at the limit; conflicts from their statistics, peak RSS from ``wait4``;
   * ``kissat``: the ``passagemath-kissat`` wheel's program (as ``certify.prove`` finds it;
     skipped when absent), like the other programs;
   * ``cpsat``: OR-tools CP-SAT, one worker: the formula as Boolean clauses, the instance as the
     repo's Nishio Boolean model (``build_nishio_cpsat``); conflicts from the solver;
   * ``dlx``: the repo's native exact cover (``nishio --method dlx``), the instance only.

   In-process times are the solve alone (the model is built before the clock starts); program
   times are the whole process.  The tables and plots show CPU seconds (user + system), the JSON
   wall seconds too: on a shared machine the wall time of a run depends on the load (at load 7
   on 2 cores it was 3 to 6 times the CPU time); the time limit is wall-clock.  A solver that
   timed out on a family at one size is not run on the larger sizes of that family and seed
   (shown as ``>limit``, status ``skipped``).

Every answer is checked: against the family's known answer (the instance's is the formula's,
Theorem 6.1), and every "sat" answer's model against the formula or, decoded to a placement,
against S.  A disagreement is printed loudly on stderr, recorded in the JSON and makes the exit
status 1.  For ``random`` formulas the known answer is CaDiCaL's (python-sat, the family's own
decision); an "unknown" there is compared across solvers only.

``--growth``: ``sudoku-cp reduce`` alone (subprocess, wall time and peak RSS) on larger formulas,
random 3-SAT at 4.26 clauses per variable (``--random-vars N --clauses M``, no solving) and
Tseitin, to show how the reduction's time and memory grow with formula size.

``--from-json``: write the report and plots of a saved run again, without measuring.

Output (``--out``, default ``results/hardness``): ``.md`` (tables: sizes and reduction, times
formula / instance per solver, conflicts, instance/formula ratios per family, hardest instance
per cell of S, reduction growth), ``.json`` (every run) and PNG plots: ``_<family>.png`` time vs
size, formula dashed and instance solid, per solver; ``_cells.png`` instance time vs |S| for
every family (cadical program); ``_growth.png`` reduction time and RSS vs clauses.

The machine is shared: the load average is recorded with every run; compare ratios taken in
the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from common import ROOT, load_average, machine, peak_rss_mb

RESULTS = Path(__file__).resolve().parent / "results"
SUDOKU_CP = str(ROOT / ".venv" / "bin" / "sudoku-cp")
SOLVERS = ("pysat", "cadical", "minisat", "kissat", "cpsat", "dlx")
INSTANCE_ONLY = {"dlx"}
DEFAULT_PLAN = (
    "tseitin:40,50,60,70,80 pigeonhole:6,7,8,9 parity:9,11,13 xor:30,45,60 planted:100,200 random:50,100"
)
DEFAULT_GROWTH = "random:100,250,500,1000 tseitin:40,80,120"
SIDES = ("formula", "instance")


@dataclass(slots=True)
class Run:
    """One solver on one side: status 'sat', 'unsat', 'timeout', 'skipped', 'error' or 'absent'."""

    status: str
    seconds: float = 0.0
    cpu: float = 0.0
    conflicts: int | None = None
    rss_mb: float | None = None
    load: str = ""
    note: str = ""

    @property
    def answer(self) -> str | None:
        """'sat' or 'unsat'; None for every other status (a timeout is never an answer)."""
        return self.status if self.status in ("sat", "unsat") else None

    def cell(self, limit: float) -> str:
        """Seconds, '>limit' for a timeout or a skip, '-' when not run."""
        if self.answer is not None:
            return f"{self.cpu:.2f}"
        if self.status in ("timeout", "skipped"):
            return f">{limit:g}"
        return {"absent": "-", "error": "err"}.get(self.status, self.status)


@dataclass(slots=True)
class Entry:
    """One (family, size, seed): sizes, the reduction's cost and every run."""

    family: str
    size: int
    seed: int
    expected: str
    reason: str
    variables: int = 0
    clauses: int = 0
    side: int = 0
    cells: int = 0
    cnf_variables: int = 0
    cnf_clauses: int = 0
    cnf_mb: float = 0.0
    instance_mb: float = 0.0
    reduce_seconds: float = 0.0
    reduce_rss_mb: float = 0.0
    runs: dict[str, dict[str, Run]] = field(default_factory=lambda: {side: {} for side in SIDES})
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.family} {self.size} s{self.seed}"


# ---------------------------------------------------------------------------------------- running


def run_program(command: list[str], limit: float, stdout: Path) -> tuple[int | None, float, float, float]:
    """Run a program (stdout to a file) stopped at ``limit`` seconds: (exit code or None when it was
    killed by the limit, wall seconds, CPU seconds, peak RSS MB).

    The program runs under ``/usr/bin/time``, which reports its peak RSS and CPU time: the rusage
    of a child forked from this process would count this process's own RSS (Linux copies the
    high-water mark at fork).  The limit kills the whole process group.
    """
    killed = threading.Event()
    usage = stdout.with_suffix(".time")
    with stdout.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            ["/usr/bin/time", "-q", "-o", str(usage), "-f", "%x %M %U %S", *command],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

        def kill() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(limit, kill)
        timer.start()
        try:
            proc.wait()
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
    fields = usage.read_text().split() if usage.exists() else []
    usage.unlink(missing_ok=True)
    if killed.is_set() or len(fields) < 4:
        return None, wall, wall, 0.0
    code, rss_kb, user, system = int(fields[0]), int(fields[1]), float(fields[2]), float(fields[3])
    return code, wall, user + system, rss_kb / 1024


def _dimacs_model(text: str) -> list[int]:
    """The literals of the 'v' lines of a solver's output."""
    return [int(x) for line in text.splitlines() if line.startswith("v ") for x in line[2:].split()]


def _conflicts(pattern: str, text: str) -> int | None:
    found = re.search(pattern, text, re.MULTILINE)
    return int(found.group(1)) if found else None


class Programs:
    """The solver programs: how each is called, answers and conflicts read back."""

    def __init__(self) -> None:
        from sudoku_cp.certify.prove import wheel_kissat

        self.paths = {
            "cadical": shutil.which("cadical") or "/usr/bin/cadical",
            "minisat": shutil.which("minisat") or "/usr/bin/minisat",
            "kissat": shutil.which("kissat") or wheel_kissat(),
        }

    def available(self, name: str) -> bool:
        path = self.paths.get(name)
        return path is not None and os.access(path, os.X_OK)

    def run(self, name: str, cnf: Path, limit: float, work: Path) -> tuple[Run, list[int] | None]:
        """(the run, the model's literals when 'sat')."""
        path = self.paths[name]
        assert path is not None
        log = work / f"{cnf.stem}.{name}.log"
        result = work / f"{cnf.stem}.{name}.result"
        command = [path, "-verb=1", str(cnf), str(result)] if name == "minisat" else [path, str(cnf)]
        code, wall, cpu, rss = run_program(command, limit, log)
        text = log.read_text(errors="replace")
        pattern = r"^conflicts\s*:\s*(\d+)" if name == "minisat" else r"^c\s+conflicts:\s+(\d+)"
        run = Run("timeout", wall, cpu, _conflicts(pattern, text), rss, load_average())
        model = None
        if code == 10:
            run.status = "sat"
            if name == "minisat":
                lines = result.read_text().split("\n", 1)
                model = [int(x) for x in lines[1].split()] if len(lines) > 1 else []
            else:
                model = _dimacs_model(text)
        elif code == 20:
            run.status = "unsat"
        elif code is not None:
            run.status, run.note = "error", f"exit {code}: {text[-200:]!r}"
        for path_ in (log, result):
            path_.unlink(missing_ok=True)
        return run, model


def timed(solve: Callable[[], tuple[str, int | None]]) -> Run:
    """An in-process solve: its status and conflicts, wall and CPU seconds."""
    start, cpu = time.perf_counter(), time.process_time()
    status, conflicts = solve()
    return Run(
        status, time.perf_counter() - start, time.process_time() - cpu, conflicts, None, load_average()
    )


def pysat_solve(
    clauses: Sequence[Sequence[int]], limit: float, check: Callable[[list[int]], str | None]
) -> Run:
    """CaDiCaL 1.9.5 through python-sat, the repo's ``solve_limited`` (stopped at the limit)."""
    from pysat.solvers import Solver

    from sudoku_cp.limits import Deadline, solve_limited

    solver = Solver(name="cadical195", bootstrap_with=clauses)
    problem: list[str] = []

    def solve() -> tuple[str, int | None]:
        answer = solve_limited(solver, [], Deadline(limit))
        stats = solver.accum_stats() or {}
        conflicts = stats.get("conflicts")
        if answer:
            why = check(solver.get_model() or [])
            if why:
                problem.append(why)
        return ("timeout" if answer is None else "sat" if answer else "unsat"), conflicts

    try:
        run = timed(solve)
    finally:
        solver.delete()
    run.note = "; ".join(problem)
    return run


def cpsat_solve(model: Any, limit: float, check: Callable[[Any], str | None]) -> Run:
    """CP-SAT, one worker, stopped at the limit; ``check`` reads the solver's solution."""
    from sudoku_cp.cpsat import new_solver, run_solver, solve_verdict

    solver = new_solver(workers=1, time_limit=limit)
    problem: list[str] = []

    def solve() -> tuple[str, int | None]:
        verdict = solve_verdict(run_solver(solver, model), model)
        if verdict:
            why = check(solver)
            if why:
                problem.append(why)
        return ("timeout" if verdict is None else "sat" if verdict else "unsat"), int(solver.num_conflicts)

    run = timed(solve)
    run.note = "; ".join(problem)
    return run


# ---------------------------------------------------------------------------------------- one entry


def reduce_subprocess(args: list[str], work: Path) -> tuple[float, float, Path, str]:
    """``sudoku-cp reduce ARGS -o FILE --meta FILE --json`` in a subprocess: (wall s, peak RSS MB,
    instance path, JSON line)."""
    instance, meta, log = work / "reduced.nishio", work / "reduced.json", work / "reduce.out"
    code, wall, _, rss = run_program(
        [SUDOKU_CP, "reduce", *args, "-o", str(instance), "--meta", str(meta), "--json"], 3600, log
    )
    text = log.read_text()
    if code != 0:
        raise RuntimeError(f"sudoku-cp reduce {' '.join(args)} failed (exit {code}): {text[-300:]}")
    return wall, rss, instance, text.strip().splitlines()[-1]


def measure_entry(
    family: str,
    size: int,
    seed: int,
    args: argparse.Namespace,
    programs: Programs,
    work: Path,
    skip: set[tuple[str, str, str, int]],
) -> Entry:
    """Make, reduce and decide one (family, size, seed) on both sides with every solver."""
    from sudoku_cp.nishio.api import make_method
    from sudoku_cp.nishio.cnf import encode_nishio_cnf, write_nishio_dimacs
    from sudoku_cp.nishio.cpsat import build_nishio_cpsat
    from sudoku_cp.nishio.placement import placement_problem
    from sudoku_cp.outcome import Status
    from sudoku_cp.reduction.families import family_instance

    made = family_instance(family, size, seed, time_limit=args.time_limit)
    source, reduction = made.source, made.reduction
    formula, instance = source.formula, reduction.instance
    entry = Entry(family, size, seed, source.expected, source.reason)
    entry.variables, entry.clauses = formula.num_vars, formula.num_clauses
    entry.side, entry.cells = instance.n, instance.size
    wall, rss, instance_file, _ = reduce_subprocess(
        ["--family", family, "--size", str(size), "--seed", str(seed), "--time-limit", str(args.time_limit)],
        work,
    )
    entry.reduce_seconds, entry.reduce_rss_mb = wall, rss
    entry.instance_mb = instance_file.stat().st_size / 1e6
    instance_file.unlink()

    formula_path = work / "formula.cnf"
    formula_path.write_text(formula.to_dimacs(source.dimacs_comments()))
    cnf = encode_nishio_cnf(instance, args.amo)
    cnf_path = work / "instance.cnf"
    write_nishio_dimacs(cnf, cnf_path)
    entry.cnf_variables, entry.cnf_clauses = cnf.n_vars, cnf.n_clauses
    entry.cnf_mb = cnf_path.stat().st_size / 1e6

    def formula_check(literals: list[int]) -> str | None:
        values = [False] * formula.num_vars
        for lit in literals:
            if 0 < abs(lit) <= formula.num_vars:
                values[abs(lit) - 1] = lit > 0
        return None if formula.satisfied_by(values) else "the model falsifies the formula"

    def instance_check(literals: list[int]) -> str | None:
        return placement_problem(instance, cnf.decode(literals))

    checks = {"formula": formula_check, "instance": instance_check}
    paths = {"formula": formula_path, "instance": cnf_path}
    limit = args.time_limit
    for solver in args.solvers:
        for side in SIDES:
            if side == "formula" and solver in INSTANCE_ONLY:
                continue
            key = (family, side, solver, seed)
            if key in skip:
                entry.runs[side][solver] = Run("skipped", limit, note="timed out at a smaller size")
                continue
            if solver in programs.paths:
                if not programs.available(solver):
                    entry.runs[side][solver] = Run("absent", note="program not found")
                    continue
                run, model = programs.run(solver, paths[side], limit, work)
                if model is not None and (why := checks[side](model)):
                    run.note = why
            elif solver == "pysat":
                clauses = formula.to_cnf().clauses if side == "formula" else cnf.clauses
                run = pysat_solve(clauses, limit, checks[side])
            elif solver == "cpsat":
                if side == "formula":
                    cp, check = _formula_cpsat(formula)
                else:
                    nishio = build_nishio_cpsat(instance)
                    cp = nishio.model

                    def check(s: Any, nishio: Any = nishio) -> str | None:
                        return placement_problem(instance, nishio.decode(s))

                run = cpsat_solve(cp, limit, check)
            else:  # dlx
                method = make_method("dlx")

                def decide(method: Any = method) -> tuple[str, int | None]:
                    decision = method.decide(instance, limit)
                    if decision.status is Status.UNKNOWN:
                        return "timeout", None
                    if decision.placement is None:
                        return "unsat", None
                    why = placement_problem(instance, decision.placement)
                    return ("sat" if why is None else "error"), None

                run = timed(decide)
            if run.status == "timeout":
                skip.add(key)
            entry.runs[side][solver] = run
            print(
                f"  {entry.name} {side:8} {solver:8} {run.status:8} {run.seconds:8.2f} s load {run.load}",
                file=sys.stderr,
            )
    formula_path.unlink()
    cnf_path.unlink()
    entry.problems = judge(entry)
    return entry


def _formula_cpsat(formula: Any) -> tuple[Any, Callable[[Any], str | None]]:
    """The formula as a CP-SAT model (one Boolean per variable, one ``add_bool_or`` per clause)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    xs = [model.new_bool_var(f"x{v + 1}") for v in range(formula.num_vars)]
    for clause in formula.to_cnf().clauses:
        model.add_bool_or([xs[lit - 1] if lit > 0 else ~xs[-lit - 1] for lit in clause])

    def check(solver: Any) -> str | None:
        values = [bool(solver.boolean_value(x)) for x in xs]
        return None if formula.satisfied_by(values) else "the CP-SAT model falsifies the formula"

    return model, check


def judge(entry: Entry) -> list[str]:
    """Every disagreement: an answer against the known one, two answers against each other, a model
    that fails its check, an error."""
    problems = []
    answers = {}
    for side in SIDES:
        for solver, run in entry.runs[side].items():
            if run.note and run.status in ("sat", "unsat", "error"):
                problems.append(f"{entry.name}: {solver} on the {side}: {run.status}: {run.note}")
            if run.answer is not None:
                answers[f"{solver} on the {side}"] = run.answer
                if entry.expected in ("sat", "unsat") and run.answer != entry.expected:
                    problems.append(
                        f"{entry.name}: {solver} on the {side} says {run.answer}, known answer "
                        f"{entry.expected} ({entry.reason})"
                    )
    if len(set(answers.values())) > 1:
        problems.append(f"{entry.name}: solvers disagree: {answers}")
    for problem in problems:
        print(f"\n!!! DISAGREEMENT !!! {problem}\n", file=sys.stderr)
    return problems


# ---------------------------------------------------------------------------------------- growth


@dataclass(slots=True)
class Growth:
    """``sudoku-cp reduce`` alone on one formula: sizes, wall time, peak RSS, instance file size."""

    family: str
    size: int
    variables: int
    clauses: int
    side: int
    cells: int
    seconds: float
    rss_mb: float
    instance_mb: float
    load: str
    error: str = ""


def measure_growth(family: str, size: int, seed: int, work: Path) -> Growth:
    """Reduce one formula in a subprocess (random: ``--random-vars``, never solved; else ``--family``)."""
    if family == "random":
        args = ["--random-vars", str(size), "--clauses", str(round(4.26 * size)), "--seed", str(seed)]
    else:
        args = ["--family", family, "--size", str(size), "--seed", str(seed)]
    try:
        wall, rss, instance, line = reduce_subprocess(args, work)
    except RuntimeError as error:
        return Growth(family, size, 0, 0, 0, 0, 0.0, 0.0, 0.0, load_average(), str(error)[:300])
    record = json.loads(line)
    mb = instance.stat().st_size / 1e6
    instance.unlink()
    variables = record.get("variables", record.get("encoded_variables", 0))
    clauses = record.get("clauses", record.get("encoded_clauses", 0))
    return Growth(
        family, size, variables, clauses, record["n"], record["cells"], wall, rss, mb, load_average()
    )


# ---------------------------------------------------------------------------------------- report


def _ratio(entry: Entry, solver: str) -> float | None:
    """Instance seconds over formula seconds, when both sides answered."""
    f, i = entry.runs["formula"].get(solver), entry.runs["instance"].get(solver)
    if f is None or i is None or f.answer is None or i.answer is None:
        return None
    return i.cpu / max(f.cpu, 1e-3)


def _fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def report(entries: list[Entry], growth: list[Growth], args: argparse.Namespace, header: str) -> str:
    """The Markdown report."""
    limit = args.time_limit
    solvers = [s for s in args.solvers]
    lines = [header, ""]
    lines += [
        "### Sizes and the reduction (`sudoku-cp reduce`, subprocess)",
        "",
        "| family | size | seed | expected | vars | clauses | side | \\|S\\| | CNF vars | CNF clauses "
        "| CNF MB | instance MB | reduce s | reduce MB |",
        "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for e in entries:
        lines.append(
            f"| {e.family} | {e.size} | {e.seed} | {e.expected} | {e.variables:,} | {e.clauses:,} "
            f"| {e.side:,} | {e.cells:,} | {e.cnf_variables:,} | {e.cnf_clauses:,} | {e.cnf_mb:.1f} "
            f"| {e.instance_mb:.2f} "
            f"| {e.reduce_seconds:.2f} | {e.reduce_rss_mb:.0f} |"
        )
    lines += [
        "",
        f"### CPU seconds, formula / instance (`>{limit:g}`: stopped at {limit:g} s wall-clock, or skipped "
        "after such a stop at a smaller size)",
        "",
        "| family | size | seed | " + " | ".join(solvers) + " |",
        "|---|--:|--:|" + "--:|" * len(solvers),
    ]
    for e in entries:
        cells = []
        for solver in solvers:
            f = e.runs["formula"].get(solver)
            i = e.runs["instance"].get(solver)
            left = "n/a" if solver in INSTANCE_ONLY else (f.cell(limit) if f else "-")
            cells.append(f"{left} / {i.cell(limit) if i else '-'}")
        lines.append(f"| {e.family} | {e.size} | {e.seed} | " + " | ".join(cells) + " |")
    counted = [s for s in solvers if s != "dlx"]
    lines += [
        "",
        "### Conflicts, formula / instance",
        "",
        "| family | size | seed | " + " | ".join(counted) + " |",
        "|---|--:|--:|" + "--:|" * len(counted),
    ]
    for e in entries:
        cells = []
        for solver in counted:
            pair = []
            for side in SIDES:
                run = e.runs[side].get(solver)
                pair.append("-" if run is None or run.conflicts is None else f"{run.conflicts:,}")
            cells.append(" / ".join(pair))
        lines.append(f"| {e.family} | {e.size} | {e.seed} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "### Does the instance keep the formula's hardness? Instance / formula time, per family",
        "",
        "CPU seconds; median over the sizes where both sides answered and the formula took at least 0.1 s "
        "(in brackets: at the largest such size; `-`: no such size).",
        "",
        "| family | " + " | ".join(counted) + " |",
        "|---|" + "--:|" * len(counted),
    ]
    families = list(dict.fromkeys(e.family for e in entries))
    for family in families:
        cells = []
        for solver in counted:
            pairs = []
            for e in entries:
                f = e.runs["formula"].get(solver)
                ratio = _ratio(e, solver) if e.family == family else None
                if ratio is not None and f is not None and f.cpu >= 0.1:
                    pairs.append((e.size, ratio))
            if pairs:
                cells.append(
                    f"{_fmt_ratio(statistics.median(r for _, r in pairs))} ({_fmt_ratio(pairs[-1][1])})"
                )
            else:
                cells.append("-")
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "### Hardest instance per cell of S (cadical program; µs per cell of S, timeouts at the limit)",
        "",
        "| family | size | \\|S\\| | cadical s | µs per cell | other solvers on this instance |",
        "|---|--:|--:|--:|--:|---|",
    ]
    best: list[tuple[float, Entry, Run]] = []
    for family in families:
        runs = [(e, e.runs["instance"].get("cadical")) for e in entries if e.family == family]
        scored = [
            ((r.cpu if r.answer is not None else limit) / e.cells * 1e6, e, r)
            for e, r in runs
            if r is not None and r.status != "absent"
        ]
        if scored:
            best.append(max(scored, key=lambda x: x[0]))
    for score, e, run in sorted(best, key=lambda x: -x[0]):
        stopped = [s for s, r in e.runs["instance"].items() if r.status in ("timeout", "skipped")]
        answered = {s: r.cpu for s, r in e.runs["instance"].items() if r.answer is not None}
        slowest = ", ".join(stopped) + " (stopped)" if stopped else ""
        if answered:
            worst = max(answered, key=lambda s: answered[s])
            slowest += ("; " if slowest else "") + f"slowest answer {worst} {answered[worst]:.2f} s"
        lines.append(
            f"| {e.family} | {e.size} | {e.cells:,} | {run.cell(limit)} | {score:,.0f} | {slowest} |"
        )
    if growth:
        lines += [
            "",
            "### Reduction growth (`sudoku-cp reduce`, subprocess, no solving)",
            "",
            "| formula | size | vars | clauses | side | \\|S\\| | seconds | peak RSS MB | instance MB "
            "| load |",
            "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for g in growth:
            if g.error:
                lines.append(f"| {g.family} | {g.size} | failed: {g.error} |||||||")
                continue
            lines.append(
                f"| {g.family} | {g.size} | {g.variables:,} | {g.clauses:,} | {g.side:,} | {g.cells:,} "
                f"| {g.seconds:.2f} | {g.rss_mb:.0f} | {g.instance_mb:.1f} | {g.load} |"
            )
    problems = [p for e in entries for p in e.problems]
    lines += ["", f"Disagreements: {len(problems)}" + ("" if not problems else ":")]
    lines += [f"- {p}" for p in problems]
    return "\n".join(lines) + "\n"


def plots(entries: list[Entry], growth: list[Growth], args: argparse.Namespace, out: Path) -> list[Path]:
    """The PNG plots: per family time vs size; instance time vs |S|; reduction growth."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    limit = args.time_limit
    written = []
    colors = dict(zip(SOLVERS, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
    families = list(dict.fromkeys(e.family for e in entries))

    def series(
        rows: list[Entry], side: str, solver: str, x: Callable[[Entry], float]
    ) -> tuple[list, list, list, list]:
        xs, ys, tx, ty = [], [], [], []
        for e in rows:
            run = e.runs[side].get(solver)
            if run is None or run.status in ("absent", "error"):
                continue
            if run.answer is not None:
                xs.append(x(e))
                ys.append(max(run.cpu, 1e-3))
            else:
                tx.append(x(e))
                ty.append(limit)
        return xs, ys, tx, ty

    for family in families:
        rows = sorted((e for e in entries if e.family == family), key=lambda e: (e.size, e.seed))
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for solver in args.solvers:
            for side, style in (("formula", "--"), ("instance", "-")):
                xs, ys, tx, ty = series(rows, side, solver, lambda e: e.size)
                if xs:
                    ax.plot(xs, ys, style, marker="o", color=colors[solver], label=f"{solver} {side}")
                if tx:
                    ax.plot(tx, ty, "x", color=colors[solver], markersize=9)
        ax.axhline(limit, color="grey", linewidth=0.6)
        ax.set_yscale("log")
        ax.set_xlabel(f"{family} size")
        ax.set_ylabel("CPU seconds (x: stopped at the limit)")
        ax.set_title(f"{family}: formula (dashed) vs instance (solid)")
        ax.legend(fontsize=7, ncol=2)
        path = out.with_name(f"{out.name}_{family}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for family in families:
        rows = sorted((e for e in entries if e.family == family), key=lambda e: e.cells)
        xs, ys, tx, ty = series(rows, "instance", "cadical", lambda e: e.cells)
        line = ax.plot(xs, ys, "o", label=family)
        if tx:
            ax.plot(tx, ty, "x", color=line[0].get_color(), markersize=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("|S| (cells of the instance)")
    ax.set_ylabel("cadical program CPU seconds (x: stopped)")
    ax.set_title("instance hardness per cell of S")
    ax.legend(fontsize=8)
    path = out.with_name(f"{out.name}_cells.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    ok = [g for g in growth if not g.error]
    if ok:
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        for family in dict.fromkeys(g.family for g in ok):
            made = [g for g in ok if g.family == family]
            left.plot([g.clauses for g in made], [g.seconds for g in made], "-o", label=family)
            right.plot([g.clauses for g in made], [g.rss_mb for g in made], "-o", label=family)
        for ax, what in ((left, "seconds"), (right, "peak RSS MB")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("clauses of the 3-CNF")
            ax.set_ylabel(what)
            ax.legend(fontsize=8)
        fig.suptitle("sudoku-cp reduce: time and memory vs formula size")
        path = out.with_name(f"{out.name}_growth.png")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


# ---------------------------------------------------------------------------------------- main


def parse_plan(text: str) -> list[tuple[str, list[int]]]:
    """'tseitin:40,60 pigeonhole:6' as [(family, sizes)]."""
    plan = []
    for part in text.split():
        family, _, sizes = part.partition(":")
        if not sizes:
            raise SystemExit(f"bad plan item {part!r}: FAMILY:SIZE,SIZE,...")
        plan.append((family, [int(s) for s in sizes.split(",")]))
    return plan


def parse_seeds(text: str) -> list[int]:
    """'0-2' or '0,3'."""
    seeds: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        seeds.extend(range(int(a), int(b or a) + 1))
    return seeds


def _warm_up() -> None:
    """Load the native code (numba DLX, CP-SAT, pysat) once, so no measured run pays it."""
    from sudoku_cp.nishio.api import make_method
    from sudoku_cp.reduction.families import family_instance

    instance = family_instance("planted", 5, 0).reduction.instance
    for method in ("dlx", "cpsat", "sat"):
        make_method(method).decide(instance, 60)


def _json(
    entries: list[Entry], growth: list[Growth], args: argparse.Namespace, header: dict[str, Any]
) -> dict[str, Any]:
    return {
        **header,
        "time_limit": args.time_limit,
        "amo": args.amo,
        "solvers": list(args.solvers),
        "entries": [asdict(e) for e in entries],
        "growth": [asdict(g) for g in growth],
        "disagreements": [p for e in entries for p in e.problems],
    }


def rewrite(args: argparse.Namespace) -> int:
    """The report and plots of a saved run (``--from-json``), with that run's options."""
    data = json.loads(args.from_json.read_text())
    args.time_limit, args.amo, args.solvers = data["time_limit"], data["amo"], data["solvers"]
    entries = []
    for record in data["entries"]:
        saved = record.pop("runs")
        runs = {side: {k: Run(**v) for k, v in saved[side].items()} for side in SIDES}
        entries.append(Entry(**record, runs=runs))
    growth = [Growth(**g) for g in data["growth"]]
    header = (
        f"## Hardness: formula vs instance ({data['started']}; time limit {args.time_limit:g} s per run, "
        f"instance CNF --amo {args.amo})\n\n{data['machine']}; "
        f"load average at start {data['load_at_start']}.  "
        "Programs: " + ", ".join(f"{k} {v or 'absent'}" for k, v in data["programs"].items())
    )
    args.out.with_suffix(".md").write_text(report(entries, growth, args, header))
    for path in plots(entries, growth, args, args.out):
        print(f"wrote {path}", file=sys.stderr)
    return 1 if data["disagreements"] else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--plan", default=DEFAULT_PLAN, help=f"FAMILY:SIZES ... (default {DEFAULT_PLAN!r})")
    parser.add_argument("--seeds", default="0", help="seeds, e.g. 0-2 (default 0)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per run (default 60)")
    parser.add_argument("--solvers", default=",".join(SOLVERS), help=f"subset of {','.join(SOLVERS)}")
    parser.add_argument(
        "--amo", default="seqcounter", help="exactly-one encoding of the instance CNF (default seqcounter)"
    )
    parser.add_argument(
        "--growth", default=DEFAULT_GROWTH, help=f"reduce-only sizes (default {DEFAULT_GROWTH!r})"
    )
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument(
        "--work", type=Path, help="scratch directory for formulas and CNF (default: a temporary one)"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS / "hardness", help="output stem (default results/hardness)"
    )
    parser.add_argument("--from-json", type=Path, help="only write the report and plots of a saved JSON")
    args = parser.parse_args(argv)
    if args.from_json is not None:
        return rewrite(args)
    args.solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    unknown = set(args.solvers) - set(SOLVERS)
    if unknown:
        parser.error(f"unknown solvers: {', '.join(sorted(unknown))}")
    plan = parse_plan(args.plan)
    seeds = parse_seeds(args.seeds)

    scratch = None
    if args.work is None:
        scratch = tempfile.TemporaryDirectory(prefix="hardness-")
        work = Path(scratch.name)
    else:
        work = args.work
        work.mkdir(parents=True, exist_ok=True)
    programs = Programs()
    started = time.strftime("%Y-%m-%d %H:%M")
    programs_found = {
        name: programs.paths[name] if programs.available(name) else None for name in programs.paths
    }
    head: dict[str, Any] = {
        "machine": machine(),
        "started": started,
        "load_at_start": load_average(),
        "programs": programs_found,
    }
    print(f"{head['machine']}; load {head['load_at_start']}", file=sys.stderr)
    _warm_up()
    entries: list[Entry] = []
    growth: list[Growth] = []
    skip: set[tuple[str, str, str, int]] = set()

    def save() -> None:
        header = (
            f"## Hardness: formula vs instance ({started}; time limit {args.time_limit:g} s per run, "
            f"instance CNF --amo {args.amo})\n\n{head['machine']}; "
            f"load average at start {head['load_at_start']}, "
            f"at the end {load_average()}; peak RSS of the script {peak_rss_mb():.0f} MB.  Programs: "
            + ", ".join(f"{k} {v or 'absent'}" for k, v in programs_found.items())
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".md").write_text(report(entries, growth, args, header))
        args.out.with_suffix(".json").write_text(
            json.dumps(_json(entries, growth, args, head), indent=1) + "\n"
        )

    try:
        for seed in seeds:
            for family, sizes in plan:
                for size in sorted(sizes):
                    print(f"{family} {size} seed {seed} (load {load_average()})", file=sys.stderr)
                    entries.append(measure_entry(family, size, seed, args, programs, work, skip))
                    save()
        if not args.skip_growth:
            for family, sizes in parse_plan(args.growth):
                for size in sorted(sizes):
                    print(f"growth: {family} {size} (load {load_average()})", file=sys.stderr)
                    growth.append(measure_growth(family, size, seeds[0], work))
                    save()
        save()
        for path in plots(entries, growth, args, args.out):
            print(f"wrote {path}", file=sys.stderr)
    finally:
        if scratch is not None:
            scratch.cleanup()
    print(args.out.with_suffix(".md").read_text())
    problems = [p for e in entries for p in e.problems]
    if problems:
        print(
            f"\n!!! {len(problems)} DISAGREEMENTS: see above and {args.out.with_suffix('.json')}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
