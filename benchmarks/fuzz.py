"""The speed of ``sudoku-cp fuzz`` (issue 23, item 8), with ``--jobs 1`` against ``--jobs 2``.

    cd benchmarks && ../.venv/bin/python fuzz.py [--part catch,shrink,quiet] [--seeds 1,2,3]
        [--jobs 1,2] [--minutes 10] [--out results/fuzz]

Three parts, each against a target of the issue; the solver programs are ``fuzz_program.py``:

* **catch**: ``fuzz_program.py one-in-100`` (wrong on the 1 % of puzzles whose line hashes to 0
  modulo 100) fuzzed by the command a user types, ``sudoku-cp fuzz --solver-cmd "... {box}"
  --seed S --budget 120 --json -o F``, once per seed and ``--jobs``: wall seconds of the whole
  process (start-up, cases, shrinking; target 30 s on 2 cores), the seconds until the wrong
  answer was found (``spent`` minus the shrink's ``seconds``), cases, shrink calls, and a
  re-judge: the program run again on the shrunk puzzle by the reported command must be wrong.
* **shrink**: ``fuzz_program.py fives --sleep 0.05`` (50 ms a call, wrong on 9x9 grids with two
  given 5s) on 9x9 failures of several statuses (80 givens down to about 20), shrunk by
  ``fuzz.shrink`` on one warm ``CallPool`` per ``--jobs``, as a run shrinks: wall seconds
  (target 10 s), calls, and the check that the result is the 1-minimal form this bug has (two
  givens, both 5; no smaller shape fails, since the bug is on side 9 only).
* **quiet**: ``--minutes`` (default 10) shared by our complete backends and a correct external
  program (``fuzz_program.py correct``), each fuzzed with ``--jobs 2 --keep-going``: cases and
  verdicts per solver, and each failure kind found checked apart from the fuzzer
  (``confirmed``): a wrong claim of no solution by the truth's solution passing the independent
  checker, a wrong solution by the checker refusing it.  A wrong verdict that this does not
  confirm is a false alarm (the script then exits 1); a confirmed one is a bug of the solver.

Wall seconds depend on the machine's load (other processes share it): the load average is
recorded at each row; compare ``--jobs`` within one run.  Writes ``--out``.md and .json.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from common import ROOT, load_average, machine

RESULTS = Path(__file__).resolve().parent / "results"
SUDOKU_CP = str(ROOT / ".venv" / "bin" / "sudoku-cp")
_SCRIPT = Path(__file__).resolve().parent / "fuzz_program.py"
PROGRAM = f"{shlex.quote(sys.executable)} {shlex.quote(str(_SCRIPT))}"
#: The statuses of the 9x9 failures shrunk (those with open cells and, made from a seed, two 5s).
SHRINK_STATUSES = ("full_minus_one", "many", "unique", "unique_minimal", "removed", "two")
#: Our complete backends (the local-search ones answer unknown on no-solution puzzles by design).
QUIET_BACKENDS = ("dlx", "pysat", "cpsat", "backtrack")


@dataclass(slots=True)
class Catch:
    """One fuzzing run of the one-in-100 program."""

    seed: int
    jobs: int
    wall: float = 0.0
    found: float | None = None
    cases: int = 0
    shrink_seconds: float = 0.0
    shrink_calls: int = 0
    givens: int = 0
    box: str = ""
    minimal: bool = False
    rejudged: bool = False
    load: str = ""


@dataclass(slots=True)
class Shrink:
    """One 9x9 failure shrunk."""

    status: str
    jobs: int
    givens: int = 0
    seconds: float = 0.0
    calls: int = 0
    result: str = ""
    minimal: bool = False
    load: str = ""


@dataclass(slots=True)
class Quiet:
    """One correct solver fuzzed for its share of the minutes."""

    solver: str
    seconds: float = 0.0
    cases: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    exit_code: int = 0
    failures: list[dict[str, object]] = field(default_factory=list)
    load: str = ""

    @property
    def false_alarms(self) -> int:
        """Wrong verdicts not confirmed apart from the fuzzer."""
        return sum(int(f["count"]) for f in self.failures if f["verdict"] == "wrong" and not f["confirmed"])  # type: ignore[call-overload]


def confirmed(failure: dict[str, object]) -> bool:
    """Whether a wrong verdict holds apart from the fuzzer's judge: the truth's solution passes
    the independent checker where the solver claimed none, or the checker refuses the solver's
    grid, or the solver claimed one solution where the truth shows another valid one."""
    from sudoku_cp.checker import solution_problem
    from sudoku_cp.formats import parse_line

    p, q = (int(part) for part in str(failure["box"]).split("x"))
    puzzle = parse_line(str(failure["puzzle"]), (p, q))

    def grid(answer: object) -> object:
        words = str(answer).split()
        return parse_line(words[1], (p, q)) if len(words) == 2 else None

    claimed, truth = grid(failure["claimed"]), grid(failure["truth"])
    if claimed is not None and solution_problem(puzzle, claimed) is not None:  # type: ignore[arg-type]
        return True  # the claimed grid breaks a rule or a given
    if truth is None or solution_problem(puzzle, truth) is not None:  # type: ignore[arg-type]
        return False  # no checked solution to show against the claim
    claim = str(failure["claimed"]).split()[0]
    if claim in ("unsat", "none"):
        return True  # a solution exists
    return claim == "unique" and claimed is not None and truth != claimed


def catch(seed: int, jobs: int, work: Path) -> Catch:
    """Run the one-in-100 program as a user would; see the module docstring."""
    row = Catch(seed, jobs, load=load_average())
    out = work / f"catch-{seed}-{jobs}.jsonl"
    command = f"{PROGRAM} one-in-100 --box {{box}}"
    argv = [SUDOKU_CP, "fuzz", "--solver-cmd", command, "--seed", str(seed), "--budget", "120"]
    argv += ["--json", "-o", str(out), "--jobs", str(jobs)]
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False)
    row.wall = time.perf_counter() - start
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    failures = [obj for obj in lines if "kind" in obj]
    summary = lines[-1]["summary"]
    row.cases = summary["cases"]
    row.load += f"-{load_average()}"
    if not failures:
        return row
    failure = failures[0]
    shrunk = failure["shrunk"]
    row.found = failure["spent"] - shrunk["seconds"]
    row.shrink_seconds, row.shrink_calls = shrunk["seconds"], shrunk["calls"]
    row.givens, row.box, row.minimal = shrunk["givens"], shrunk["box"], shrunk["minimal"]
    row.rejudged = _rejudged(failure["reproduce"], shrunk["box"], shrunk["puzzle"])
    return row


def _rejudged(reproduce: str, box: str, line: str) -> bool:
    """Whether the program, run again on the shrunk puzzle by the reported command, is wrong."""
    from sudoku_cp.audit import GroundTruth, judge, parse_answer
    from sudoku_cp.formats import parse_line

    p, q = (int(part) for part in box.split("x"))
    puzzle = parse_line(line, (p, q))
    answer = subprocess.run(reproduce, shell=True, capture_output=True, text=True, check=False)
    verdict, _ = judge(puzzle, parse_answer(answer.stdout, puzzle), lambda: GroundTruth()(puzzle))
    return verdict.value == "wrong"


def shrinks(jobs: int, seed: int) -> list[Shrink]:
    """Shrink one 9x9 failure of each status in ``SHRINK_STATUSES`` on one warm pool."""
    from sudoku_cp.audit.judge import pack_grid
    from sudoku_cp.executor import Executor
    from sudoku_cp.fuzz import CaseKey, make_case, solver_spec
    from sudoku_cp.fuzz.calls import Call, run_call
    from sudoku_cp.fuzz.pool import CallPool
    from sudoku_cp.fuzz.shrink import failure_kind, shrink
    from sudoku_cp.limits import Deadline

    spec = solver_spec(f"program:{PROGRAM} fives --sleep 0.05 --box {{box}}")
    template = Call(spec, "pysat", seed, 5.0, False)
    rows = []
    with CallPool(Executor(jobs=jobs)) as pool:
        for number, status in enumerate(("warm-up", *SHRINK_STATUSES)):
            for k in range(50):  # the first case of this status that fails (two 5s given)
                key = CaseKey((3, 3), status if number else "many", "random", (seed, number, k))
                puzzle = make_case(key)
                if puzzle is None or int((puzzle.values == 5).sum()) < 2:
                    continue
                call = replace(template, puzzle=pack_grid(puzzle))
                outcome = run_call(call)
                if failure_kind(outcome) == "wrong:solved":
                    break
            else:
                raise SystemExit(f"no failing 9x9 case of status {status}")
            row = Shrink(status, jobs, puzzle.givens, load=load_average())
            start = time.perf_counter()
            found = shrink(puzzle, key, outcome, call, executor=pool, deadline=Deadline(120))
            row.seconds = time.perf_counter() - start
            row.calls = found.calls
            values = found.puzzle.values
            row.result = f"{found.puzzle.geometry.box_label}, {found.puzzle.givens} givens"
            # The bug's 1-minimal form: exactly two givens, both 5 (one more given would be
            # removable; one 5 fewer and the program is right).
            row.minimal = bool(found.minimal and found.puzzle.givens == 2 and int((values == 5).sum()) == 2)
            row.load += f"-{load_average()}"
            if number:
                rows.append(row)
                print(f"shrink {status} jobs {jobs}: {row.seconds:.1f} s, {row.calls} calls", file=sys.stderr)
    return rows


def quiet(minutes: float, jobs: int, work: Path) -> list[Quiet]:
    """Fuzz every correct solver for its share of ``minutes``; see the module docstring."""
    solvers = [("--backend", name) for name in QUIET_BACKENDS]
    solvers.append(("--solver-cmd", f"{PROGRAM} correct --box {{box}}"))
    share = minutes * 60 / len(solvers)
    rows = []
    for seed, (option, value) in enumerate(solvers, start=100):
        name = value if option == "--backend" else "fuzz_program.py correct"
        row = Quiet(name, load=load_average())
        out = work / f"quiet-{seed}.jsonl"
        argv = [SUDOKU_CP, "fuzz", option, value, "--seed", str(seed), "--budget", f"{share:g}"]
        argv += ["--keep-going", "--json", "-o", str(out), "--jobs", str(jobs)]
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        row.seconds = time.perf_counter() - start
        row.exit_code = done.returncode
        objects = [json.loads(line) for line in out.read_text().splitlines()]
        summary = objects[-1]["summary"]
        row.cases, row.verdicts = summary["cases"], summary["verdicts"]
        for obj in objects:
            if "kind" in obj:
                keep = ("kind", "verdict", "count", "box", "status", "puzzle", "claimed", "truth")
                found = {key: obj[key] for key in keep}
                found["confirmed"] = obj["verdict"] == "wrong" and confirmed(found)
                found["shrunk"] = f"{obj['shrunk']['box']} {obj['shrunk']['puzzle']}"
                row.failures.append(found)
        row.load += f"-{load_average()}"
        rows.append(row)
        print(f"quiet {name}: {row.cases} cases, {row.verdicts}", file=sys.stderr)
    return rows


def _ratio(rows: list[float], base: list[float]) -> str:
    return f"{sum(base) / sum(rows):.2f}" if rows and base and sum(rows) > 0 else "-"


def tables(catches: list[Catch], shrunk: list[Shrink], quiets: list[Quiet]) -> str:
    """The Markdown tables."""
    parts = []
    if catches:
        lines = [
            "| seed | jobs | whole run s | found after s | cases | shrink s | shrink calls | shrunk "
            "| 1-minimal | re-judged wrong | load |",
            "|--:|--:|--:|--:|--:|--:|--:|---|---|---|---|",
        ]
        for c in catches:
            found = "not found" if c.found is None else f"{c.found:.1f}"
            lines.append(
                f"| {c.seed} | {c.jobs} | {c.wall:.1f} | {found} | {c.cases} | {c.shrink_seconds:.1f} "
                f"| {c.shrink_calls} | {c.box}, {c.givens} givens | {c.minimal} | {c.rejudged} | {c.load} |"
            )
        one = [c.wall for c in catches if c.jobs == 1]
        two = [c.wall for c in catches if c.jobs == 2]
        lines.append(f"\nspeed-up of the whole runs, --jobs 2 over --jobs 1: {_ratio(two, one)}")
        parts.append("\n".join(lines))
    if shrunk:
        lines = [
            "| 9x9 status | jobs | givens | shrink s | calls | result | 1-minimal form | load |",
            "|---|--:|--:|--:|--:|---|---|---|",
        ]
        for s in shrunk:
            lines.append(
                f"| {s.status} | {s.jobs} | {s.givens} | {s.seconds:.1f} | {s.calls} | {s.result} "
                f"| {s.minimal} | {s.load} |"
            )
        one = [s.seconds for s in shrunk if s.jobs == 1]
        two = [s.seconds for s in shrunk if s.jobs == 2]
        lines.append(f"\nspeed-up of the shrinks, --jobs 2 over --jobs 1: {_ratio(two, one)}")
        parts.append("\n".join(lines))
    if quiets:
        lines = [
            "| solver | seconds | cases | verdicts | exit code | false alarms | load |",
            "|---|--:|--:|---|--:|--:|---|",
        ]
        for q in quiets:
            verdicts = ", ".join(f"{k} {v}" for k, v in sorted(q.verdicts.items()))
            lines.append(
                f"| {q.solver} | {q.seconds:.0f} | {q.cases} | {verdicts} | {q.exit_code} "
                f"| {q.false_alarms} | {q.load} |"
            )
        for q in quiets:
            for f in q.failures:
                confirmation = (
                    f", confirmed apart from the fuzzer: {f['confirmed']}" if f["verdict"] == "wrong" else ""
                )
                lines.append(
                    f"\n{q.solver}: {f['kind']} (first on case {f['box']} {f['status']}{confirmation}); "
                    f"shrunk to {f['shrunk']}, truth {str(f['truth'])[:40]}..."
                )
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--part", default="catch,shrink,quiet", help="parts to run (default: all three; none with --append)"
    )
    parser.add_argument("--seeds", default="1,2,3", help="seeds of the catch part (default 1,2,3)")
    parser.add_argument("--jobs", default="1,2", help="--jobs values compared (default 1,2)")
    parser.add_argument("--minutes", type=float, default=10.0, help="minutes of the quiet part (default 10)")
    parser.add_argument(
        "--append", action="store_true", help="keep the rows of the parts not run from an earlier --out JSON"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS / "fuzz", help="output stem (default results/fuzz)"
    )
    args = parser.parse_args()
    parts = set(args.part.split(","))
    seeds = [int(s) for s in args.seeds.split(",")]
    jobs = [int(j) for j in args.jobs.split(",")]
    runs = [f"{machine()}; load average at start {load_average()}; parts {', '.join(sorted(parts))}"]
    catches: list[Catch] = []
    shrunk: list[Shrink] = []
    quiets: list[Quiet] = []
    minutes = args.minutes if "quiet" in parts else 0
    if args.append and args.out.with_suffix(".json").exists():
        old = json.loads(args.out.with_suffix(".json").read_text())
        catches = [] if "catch" in parts else [Catch(**c) for c in old["catch"]]
        shrunk = [] if "shrink" in parts else [Shrink(**s) for s in old["shrink"]]
        quiets = [] if "quiet" in parts else [Quiet(**q) for q in old["quiet"]]
        minutes = minutes or old.get("minutes", 0)
        runs = [*old.get("runs", []), *runs] if parts & {"catch", "shrink", "quiet"} else old.get("runs", [])

    def header() -> str:
        return "".join(f"* run: {run}\n" for run in runs) + "\n"

    def save() -> None:
        args.out.with_suffix(".md").write_text(header() + tables(catches, shrunk, quiets))
        records = {
            "machine": machine(),
            "catch": [asdict(c) for c in catches],
            "shrink": [asdict(s) for s in shrunk],
            "quiet": [asdict(q) for q in quiets],
            "minutes": minutes,
            "runs": runs,
        }
        args.out.with_suffix(".json").write_text(json.dumps(records, indent=1) + "\n")

    with tempfile.TemporaryDirectory(prefix="fuzz-bench-") as scratch:
        work = Path(scratch)
        if "catch" in parts:
            for seed in seeds:
                for j in jobs:
                    catches.append(catch(seed, j, work))
                    c = catches[-1]
                    print(f"catch seed {seed} jobs {j}: {c.wall:.1f} s (found {c.found})", file=sys.stderr)
                    save()
        if "shrink" in parts:
            for j in jobs:
                shrunk += shrinks(j, seeds[0])
                save()
        if "quiet" in parts:
            quiets += quiet(args.minutes, max(jobs), work)
            save()
    save()
    print(header() + tables(catches, shrunk, quiets))
    alarms = [q.solver for q in quiets if q.false_alarms]
    if alarms:
        print(f"!!! false alarm: a wrong verdict on {', '.join(alarms)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
