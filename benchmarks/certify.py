"""Certificates (``--certify DIR``): their cost in time and size, and the two proof checkers.

    .venv/bin/python benchmarks/certify.py [--limit N] [--per-corpus 200] [--check 100]
        [--repeat 1] [--big FILE] [--seed 0] [--skip-big] [--skip-dratify] [--skip-profile]

1. **Throughput, whole process.** ``sudoku-cp solve --unique [--certify DIR] --json --jobs J FILE``
   in a fresh process (output to a scratch file, read back only to confirm every answer) on the
   first ``--limit`` puzzles (default 1,000) of the forum-hardest corpus, J = 2 and 1, with and
   without ``--certify``: puzzles/s, and the ratio against the plain ``--jobs 2`` command of the
   same run; the CPU seconds of all its processes (workers included) say how much of two cores
   it got.  The commands take turns ``--repeat`` times (median).  Every certificate is checked by
   the maker before it is written (default checker).
2. **The cost of ``--certify`` per corpus**, in this process on one core: ``solve_items(...,
   unique=True)`` (the batch path of ``sudoku-cp solve``) against the same plus
   ``certify_results`` (what ``--certify`` adds: the prover, the checker, writing the files).
   Corpora: forum-hardest and 17-clue (unique); several solutions (17-clue puzzles with givens
   removed at random until they have two or more); no solution (a unique puzzle with one given
   changed to a digit no peer holds until ``solve`` answers unsat); random puzzles
   (``generate.random_puzzle``, 40 % blanks; unique or several) for six box shapes.  Seconds per
   puzzle without and with, the ratio, the size of the certificates (manifest + CNF + proof, as
   written, gzip) mean and max, and the mean of the CNF and the proof alone.
3. **25x25**: one certificate of ``--big`` (default ``tests/data/sudoku-25-1.txt``): the
   certificate's own ``seconds`` (make and check, as the manifest records), the whole
   ``sudoku-cp solve --unique --certify`` process, and the check in a fresh process
   (``check_certificate``, its own time and the whole process).
4. **Checkers**: ``sudoku-cp check-certificate --json DIR`` with ours and with ``--checker
   dratify`` (pure Python) on the same ``--check`` certificates of part 1: ms per certificate (the
   command's own per-certificate seconds, and the whole process divided by the count), ratio.
5. **Where the time goes**: ``certify_results`` on ``--per-corpus`` forum-hardest puzzles under
   cProfile, the functions with the most own time, in ms per puzzle.

The corpora are read from ``../shared/data``; the script stops with a message when they are
missing.  Times are whole-process or in-process wall seconds on a machine shared with other
work: the load average is printed with each part, and only ratios within one run compare.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
from common import ROOT, SHARED, load_average, machine

from sudoku_cp.api import certify_results, solve, solve_items
from sudoku_cp.certify.check import warm_checker
from sudoku_cp.certify.cnf import sudoku_cnf
from sudoku_cp.checker import given_conflict
from sudoku_cp.formats import PuzzleItem, format_line, parse_grid, parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.outcome import Status
from sudoku_cp.random_grids import random_puzzle

FOREST = SHARED / "sudoku9" / "tdoku_forum_hardest_1905_11plus_every5th.txt"
CLUE17 = SHARED / "sudoku9" / "tdoku_17_clue.txt"
BIG = ROOT / "tests" / "data" / "sudoku-25-1.txt"
SHAPES = ((2, 2), (2, 3), (3, 3), (2, 4), (3, 4), (4, 4))
BLANKS = 0.4
KB = 1000


def _program() -> str:
    return shutil.which("sudoku-cp") or str(Path(sys.executable).with_name("sudoku-cp"))


def _row(cells: Sequence[object]) -> None:
    print("| " + " | ".join(str(cell) for cell in cells) + " |", flush=True)


def _code_state() -> str:
    """The commit measured, and the files of the package changed since (others edit the tree)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.rstrip()

    changed = git("status", "--short", "--", "sudoku_cp").splitlines()
    dirty = ", ".join(line[3:] for line in changed if line.strip()) or "none"
    return f"commit {git('rev-parse', '--short', 'HEAD') or '?'}; uncommitted changes in sudoku_cp: {dirty}"


def _load() -> str:
    return f"load average {load_average()}"


def _run(argv: list[str], out: Path) -> float:
    """Wall seconds of one whole process, its stdout written to ``out``."""
    with open(out, "wb") as sink:
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=sink, stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {done.returncode}: {done.stderr.decode()[-500:]}")
    return wall


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes so far (their workers included)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _json_lines(path: Path) -> tuple[list[dict], dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return lines[:-1], lines[-1]["summary"]


def _certificate_bytes(manifest: Path) -> tuple[int, int, int]:
    """Bytes of a certificate as written: all its files, the CNF alone, the proof alone."""
    data = json.loads(manifest.read_text())
    cnf = (manifest.parent / data["cnf"]).stat().st_size if data.get("cnf") else 0
    proof = (manifest.parent / data["proof"]).stat().st_size if data.get("proof") else 0
    return manifest.stat().st_size + cnf + proof, cnf, proof


# ---------------------------------------------------------------------------- part 1: throughput


def throughput(puzzles: list[str], repeat: int, tmp: Path) -> Path:
    """Part 1; returns the folder of certificates of the ``--jobs 2`` run (for part 4)."""
    source = tmp / "forest.txt"
    source.write_text("\n".join(puzzles) + "\n")
    count = len(puzzles)
    # Warm-up, not measured: numba's cache of the checker is filled (compiled when the code changed).
    warm = tmp / "warm.txt"
    warm.write_text("\n".join(puzzles[:4]) + "\n")
    _run(
        [_program(), "solve", "--unique", "--certify", str(tmp / "warm"), "--json", str(warm)],
        tmp / "warm.out",
    )
    kept = tmp / "certs-jobs2"
    print(f"\n## 1. Certified uniqueness, whole process ({count:,} forum-hardest puzzles; {_load()})\n")
    configs = [(certify, jobs) for certify in (False, True) for jobs in (2, 1)]
    measured: dict[tuple[bool, int], list[tuple[float, float, str]]] = {config: [] for config in configs}
    for attempt in range(repeat):  # the commands take turns, so a change of load hits them alike
        for certify, jobs in configs:
            folder = tmp / f"certs-{jobs}-{attempt}"
            shutil.rmtree(folder, ignore_errors=True)
            argv = [_program(), "solve", "--unique", "--json", "--jobs", str(jobs), "--no-progress"]
            if certify:
                argv[2:2] = ["--certify", str(folder)]
            out = tmp / "out.jsonl"
            cpu = _children_cpu()
            wall = _run([*argv, str(source)], out)
            measured[certify, jobs].append((wall, _children_cpu() - cpu, load_average()))
            results, summary = _json_lines(out)
            if summary["solved"] != count:
                raise SystemExit(f"{' '.join(argv)}: {summary}")
            if certify:
                named = sum(1 for result in results if result.get("certificate"))
                written = len(list(folder.glob("*.json")))
                if named != count or written != count:
                    raise SystemExit(f"{count} puzzles, {named} certificates named, {written} written")
                if jobs == 2 and not kept.exists():
                    folder.rename(kept)
                else:
                    shutil.rmtree(folder)
    rows = []
    for certify, jobs in configs:
        runs = sorted(measured[certify, jobs])
        wall, cpu, load = runs[len(runs) // 2]  # the median run
        rows.append((("--certify DIR " if certify else "") + f"--jobs {jobs}", wall, cpu, load))
    base = rows[0][1]
    _row(
        ["`sudoku-cp solve --unique --json ...`", "whole process s", "puzzles/s", "ms per puzzle"]
        + ["time vs plain `--jobs 2`", "CPU s (all processes)", "CPU / wall", "load"]
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for flags, wall, cpu, load in rows:
        _row(
            [f"`{flags}`", f"{wall:.2f}", f"{count / wall:,.1f}", f"{1000 * wall / count:.2f}"]
            + [f"{wall / base:.2f}", f"{cpu:.2f}", f"{cpu / wall:.2f}", load]
        )
    certified = rows[2][1]
    verdict = "met" if count / certified >= 50 else "NOT met"
    print(f"\nGoal >= 50 puzzles/s certified with `--jobs 2`: {count / certified:.1f} puzzles/s, {verdict}.")
    return kept


# ---------------------------------------------------------------------- part 2: cost per corpus


@dataclass
class Corpus:
    name: str
    box: tuple[int, int]
    lines: list[str]


def _read(path: Path, count: int, skip: int = 0) -> list[str]:
    with open(path) as text:
        lines = [line.strip() for line in text if line.strip()]
    return lines[skip : skip + count]


def _several(puzzle: str, rng: np.random.Generator) -> str | None:
    """``puzzle`` with givens removed at random until it has two solutions or more."""
    cells = list(puzzle)
    givens = [i for i, ch in enumerate(cells) if ch != "."]
    rng.shuffle(givens)
    for cell in givens:
        cells[cell] = "."
        if solve(parse_grid("".join(cells)), "pysat", unique=True).status is Status.MULTIPLE:
            return "".join(cells)
    return None


def _without_solution(puzzle: str, rng: np.random.Generator) -> str | None:
    """``puzzle`` with one given changed to a digit none of its peers holds, with no solution."""
    grid = parse_grid(puzzle)
    n = grid.geometry.n
    values = grid.values.reshape(-1)
    givens = np.flatnonzero(values)
    for cell in rng.permutation(givens):
        for digit in rng.permutation(np.arange(1, n + 1)):
            if digit == values[cell]:
                continue
            changed = values.copy()
            changed[cell] = digit
            other = grid.with_values(changed)
            if given_conflict(other) is not None:
                continue
            if solve(other, "pysat").status is Status.UNSAT:
                return format_line(other)
    return None


def _made(make: object, source: list[str], count: int, rng: np.random.Generator) -> list[str]:
    made: list[str] = []
    for puzzle in source:
        found = make(puzzle, rng)  # type: ignore[operator]
        if found is not None:
            made.append(found)
        if len(made) == count:
            break
    return made


def corpora(count: int, seed: int) -> list[Corpus]:
    """The corpora of part 2 (``count`` puzzles each); made ones are made here, seeded."""
    rng = np.random.default_rng(seed)
    forest = _read(FOREST, count)
    clue17 = _read(CLUE17, count)
    found = [
        Corpus("forum-hardest (unique)", (3, 3), forest),
        Corpus("17-clue (unique)", (3, 3), clue17),
        Corpus(
            "17-clue less givens (several)",
            (3, 3),
            _made(_several, _read(CLUE17, 3 * count, count), count, rng),
        ),
        Corpus(
            "forum-hardest, one given changed (none)",
            (3, 3),
            _made(_without_solution, _read(FOREST, 10 * count, count), count, rng),
        ),
    ]
    for p, q in SHAPES:
        geometry = geometry_for_size(p * q, (p, q))
        lines = [format_line(random_puzzle(geometry, BLANKS, rng)) for _ in range(count)]
        found.append(Corpus(f"random {p * q}x{p * q}, {p}x{q} boxes", (p, q), lines))
    return found


def _items(corpus: Corpus) -> list[PuzzleItem]:
    return parse_puzzles("\n".join(corpus.lines) + "\n", box=corpus.box)


def cost(corpus: Corpus, tmp: Path) -> list[str]:
    """One row of part 2: solve alone, then solve and certify, on one core in this process."""
    items = _items(corpus)
    list(solve_items(items[:2], unique=True))  # the backend's first call out of the timing
    start = time.perf_counter()
    plain = list(solve_items(items, unique=True))
    plain_s = time.perf_counter() - start
    folder = tmp / f"part2-{corpus.box[0]}x{corpus.box[1]}-{len(list(tmp.iterdir()))}"
    items = _items(corpus)
    start = time.perf_counter()
    results = list(solve_items(items, unique=True))
    answered = list(certify_results(items, results, str(folder), unique=True))
    certified_s = time.perf_counter() - start
    statuses = [result.status.value for result in answered]
    if any(result.certificate is None for result in answered):
        bad = next(result for result in answered if result.certificate is None)
        raise SystemExit(f"{corpus.name}: a claim was not certified: {bad}")
    claims: dict[str, int] = {}
    for result in plain:
        claims[result.status.value] = claims.get(result.status.value, 0) + 1
    if sorted(statuses) != sorted(result.status.value for result in plain):
        raise SystemExit(f"{corpus.name}: certified answers differ from the plain ones")
    sizes = [_certificate_bytes(Path(str(result.certificate))) for result in answered]
    proved = [size for size in sizes if size[1]]
    total = [size[0] for size in sizes]
    count = len(items)
    mix = ", ".join(f"{v} {k}" for k, v in sorted(claims.items()))
    cnf = f"{statistics.mean(s[1] for s in proved) / KB:.1f}" if proved else "-"
    proof = f"{statistics.mean(s[2] for s in proved) / KB:.1f}" if proved else "-"
    with_proof = f"{statistics.mean(s[0] for s in proved) / KB:.1f}" if proved else "-"
    return [
        corpus.name,
        f"{count:,}",
        mix,
        f"{1000 * plain_s / count:.2f}",
        f"{1000 * certified_s / count:.2f}",
        f"{certified_s / plain_s:.1f}",
        f"{statistics.mean(total) / KB:.1f}",
        with_proof,
        f"{max(total) / KB:.1f}",
        cnf,
        proof,
        load_average(),
    ]


def per_corpus(count: int, seed: int, tmp: Path) -> None:
    """Part 2."""
    print(f"\n## 2. What `--certify` costs, per corpus (in this process, one core; {_load()})\n")
    start = time.perf_counter()
    found = corpora(count, seed)
    print(
        f"corpora made in {time.perf_counter() - start:.1f} s; random puzzles: {BLANKS:.0%} of cells blank\n"
    )
    warm_checker("sudoku_cp")
    head = [
        "corpus",
        "puzzles",
        "answers",
        "ms/puzzle plain",
        "ms/puzzle certified",
        "ratio",
        "mean kB",
        "mean kB with proof",
        "max kB",
        "CNF kB",
        "proof kB",
        "load",
    ]
    print("| " + " | ".join(head) + " |")
    print("|---|---:|---|" + "---:|" * (len(head) - 3))
    for corpus in found:
        if len(corpus.lines) < count:
            print(f"<!-- {corpus.name}: only {len(corpus.lines)} made -->")
        print("| " + " | ".join(cost(corpus, tmp)) + " |", flush=True)
    print(
        "\nkB: 1,000 bytes of the files as written (manifest + CNF.gz + proof.gz); 'with proof': the "
        "certificates of 'unique' and 'unsat' claims ('multiple' has a manifest only); CNF and "
        "proof kB: their means over those."
    )


# ---------------------------------------------------------------------------------- part 3: 25x25

_CHECK = """
import json, sys, time
began = time.perf_counter()
from sudoku_cp.certify.check import check_certificate
imported = time.perf_counter()
verdict = check_certificate(sys.argv[1])
done = time.perf_counter()
print(json.dumps({"verdict": verdict.verdict, "import": imported - began, "check": done - imported}))
"""


def big(path: Path, tmp: Path) -> None:
    """Part 3."""
    print(f"\n## 3. 25x25: one certificate made and checked ({path.name}; {_load()})\n")
    folder = tmp / "big"
    out = tmp / "big.jsonl"
    # Best of two whole processes each: the first may fill numba's cache of the checker.
    plain = min(
        _run([_program(), "solve", "--unique", "--json", "--no-progress", str(path)], out) for _ in "ab"
    )
    runs = []
    for attempt in range(2):
        argv = [_program(), "solve", "--unique", "--certify", str(folder / str(attempt)), "--json"]
        wall = _run([*argv, "--no-progress", str(path)], out)
        results, summary = _json_lines(out)
        if not results or not results[0].get("certificate"):
            raise SystemExit(f"no certificate: {results} {summary}")
        runs.append((wall, Path(results[0]["certificate"])))
    whole, manifest = min(runs)
    data = json.loads(manifest.read_text())
    made = float(data["seconds"])
    size, cnf, proof = _certificate_bytes(manifest)
    checks = []
    for _ in range(2):  # the first may fill numba's cache of the checker; the second is measured
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _CHECK, str(manifest)], capture_output=True, text=True, check=True
        )
        checks.append((time.perf_counter() - start, json.loads(done.stdout)))
        if checks[-1][1]["verdict"] != "holds":
            raise SystemExit(f"the 25x25 certificate does not hold: {done.stdout}")
    fresh, check = checks[-1]
    print("| measure | seconds |")
    print("|---|---:|")
    print(f"| claim | {data['claim']} |")
    print(f"| `sudoku-cp solve --unique` whole process (no certificate; best of 2) | {plain:.2f} |")
    print(f"| `sudoku-cp solve --unique --certify DIR` whole process (best of 2) | {whole:.2f} |")
    print(f"| make: the certificate's own `seconds` (prove + check in the maker) | {made:.2f} |")
    print(f"| check: `check_certificate` in a fresh process (its call) | {check['check']:.2f} |")
    print(f"| check: that whole fresh process | {fresh:.2f} |")
    first = f"{checks[0][1]['check']:.2f} / {checks[0][0]:.2f}"
    print(f"| check: the first fresh process (its call / whole) | {first} |")
    print(f"| size kB (all / CNF / proof) | {size / KB:.0f} / {cnf / KB:.0f} / {proof / KB:.0f} |")
    text = sudoku_cnf(parse_grid(path.read_text())).text()
    for level in (9, 6, 1):
        start = time.perf_counter()
        packed = gzip.compress(text, compresslevel=level, mtime=0)
        seconds = time.perf_counter() - start
        sizes = f"{len(text) / 1e6:.1f} MB -> {len(packed) / KB:,.0f} kB"
        print(f"| gzip level {level} of the CNF text alone ({sizes}) | {seconds:.2f} |")
    total = made + check["check"]
    verdict = "met" if total <= 10 else "NOT met"
    print(
        f"\nGoal <= 10 s to make and check: {made:.2f} + {check['check']:.2f} = {total:.2f} s, {verdict} "
        f"(whole processes: {whole:.2f} + {fresh:.2f} = {whole + fresh:.2f} s)."
    )


# ------------------------------------------------------------------------------- part 4: checkers


def checkers(source: Path, count: int, tmp: Path) -> None:
    """Part 4: both checkers on the same ``count`` certificates."""
    folder = tmp / "check"
    folder.mkdir()
    for manifest in sorted(source.glob("*.json"))[:count]:
        data = json.loads(manifest.read_text())
        for name in (manifest.name, data["cnf"], data["proof"]):
            shutil.copy(source / name, folder / name)
    count = len(list(folder.glob("*.json")))
    command = "`sudoku-cp check-certificate --json DIR`"
    print(f"\n## 4. Checkers: {command}, {count} 9x9 'unique' certificates ({_load()})\n")
    rows = []
    for checker in ("sudoku_cp", "dratify"):
        out = tmp / f"check-{checker}.jsonl"
        wall = _run(
            [_program(), "check-certificate", "--checker", checker, "--json", "--no-progress", str(folder)],
            out,
        )
        results, _ = _json_lines(out)
        if len(results) != count or any(result["verdict"] != "holds" for result in results):
            raise SystemExit(f"{checker}: not every certificate holds")
        each = [float(result["seconds"]) for result in results]
        rows.append((checker, statistics.mean(each), statistics.median(each), max(each), wall))
    _row(
        ["checker", "mean ms per certificate", "median ms", "max ms", "whole process s"]
        + ["whole process ms per certificate"]
    )
    print("|---|---:|---:|---:|---:|---:|")
    for checker, mean, median, most, wall in rows:
        _row(
            [checker, f"{1000 * mean:.1f}", f"{1000 * median:.1f}", f"{1000 * most:.1f}", f"{wall:.2f}"]
            + [f"{1000 * wall / count:.1f}"]
        )
    ours, theirs = rows
    print(
        f"\ndratify / ours: {theirs[1] / ours[1]:.1f}x per certificate (the command's own seconds), "
        f"{theirs[4] / ours[4]:.1f}x whole process."
    )


def profile(lines: list[str], tmp: Path, top: int = 14) -> None:
    """Part 5: where the time of ``certify_results`` goes on 9x9 puzzles (cProfile, one core)."""
    import cProfile
    import pstats

    items = parse_puzzles("\n".join(lines) + "\n")
    results = list(solve_items(items, unique=True))
    list(certify_results(items[:4], results[:4], str(tmp / "profile-warm"), unique=True))
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    list(certify_results(items, results, str(tmp / "profile"), unique=True))
    profiler.disable()
    wall = time.perf_counter() - start
    count = len(items)
    print(
        f"\n## 5. Where a 9x9 certificate's time goes ({count} forum-hardest puzzles, cProfile; {_load()})\n"
    )
    each = 1000 * wall / count
    print(f"`certify_results` alone (solved before): {each:.1f} ms per puzzle under the profiler\n")
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    ranked = sorted(stats.items(), key=lambda entry: entry[1][2], reverse=True)[:top]
    _row(["function (own time)", "calls", "ms per puzzle", "share"])
    print("|---|---:|---:|---:|")
    for (file_name, line, name), (_, calls, own, _, _) in ranked:
        where = f"{Path(file_name).name}:{line}({name})" if line else name
        _row([f"`{where}`", f"{calls:,}", f"{1000 * own / count:.2f}", f"{own / wall:.0%}"])


def main(argv: Sequence[str] | None = None) -> None:
    """Measure and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=1000, help="puzzles of part 1 (default 1000)")
    parser.add_argument(
        "--per-corpus", type=int, default=200, help="puzzles per corpus of part 2 (at most --limit)"
    )
    parser.add_argument("--check", type=int, default=100, help="certificates of part 4 (at most --limit)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each part-1 command (median)")
    parser.add_argument("--big", type=Path, default=BIG, help="the 25x25 puzzle of part 3")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--skip-dratify", action="store_true", help="no part 4")
    parser.add_argument("--skip-profile", action="store_true", help="no part 5")
    args = parser.parse_args(argv)
    for needed in (FOREST, CLUE17):
        if not needed.exists():
            raise SystemExit(
                f"{needed} is missing: this benchmark reads the corpora of ../shared/data (see its README)"
            )
    big_file = args.big if args.big.exists() else SHARED / "big" / "sudoku-25-1.txt"
    print(f"# Certificates: time and size ({date.today().isoformat()})\n")
    print(f"machine: {machine()}; {_load()} at the start")
    print(f"code: {_code_state()}")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="certify-bench-") as scratch:
        tmp = Path(scratch)
        kept = throughput(_read(FOREST, args.limit), args.repeat, tmp)
        per_corpus(min(args.per_corpus, args.limit), args.seed, tmp)
        if not args.skip_big:
            if not big_file.exists():
                raise SystemExit(f"{big_file} is missing (tests/data or ../shared/data/big)")
            big(big_file, tmp)
        if not args.skip_dratify:
            checkers(kept, min(args.check, args.limit), tmp)
        if not args.skip_profile:
            profile(_read(FOREST, min(args.per_corpus, args.limit)), tmp)
    print(f"\nwhole run {time.perf_counter() - began:.0f} s; {_load()} at the end")


if __name__ == "__main__":
    main()
