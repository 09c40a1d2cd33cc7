"""Generation speed at every size: the generator against the old one, in one run, on one machine.

Measured (CPU seconds of this process and wall seconds, the machine's load noted; the machine
is shared, so the ratios of one run are what compare):

1. ``generate_puzzles`` (minimal given by given, each puzzle proved unique by the backtrack
   search or SAT and its witnesses checked) and ``symmetric=True``, puzzles per CPU second, on
   6x6, 9x9, 12x12, 16x16; 25x25 and 36x36: one puzzle each under ``--limit`` seconds (from
   25x25 on a grid whose SAT tests are too hard is given up for the next attempt: counted);
2. the baselines: the generator as it was before (Eppstein 2005's fill of symmetric pairs with
   singles, then each pair emptied when CaDiCaL finds no other solution: ``old_generator``
   here), on 9x9 and 16x16, and the ratio; on 16x16 also the carving given by given (one
   search per given, the previous default there) against carving by count (``carve``'s
   ``by_count``, the default from ``BY_COUNT_SIDE`` on), both kinds, and the ratio.

3. whole process, as a user runs it: ``sudoku-cp generate --box 3x3 --count 4*COUNT9`` and
   ``--box 4x4 --count 4*COUNT16``, one process (``--jobs 1``) against the default (from 500 9x9
   puzzles' worth of work, one process per core), alternated ``--repeat`` times, best wall
   seconds, puzzles per wall second, and the outputs compared (the same lines).

Run: ``.venv/bin/python benchmarks/generate.py [--count9 500] [--count16 20] [--limit 120] [--repeat 3]``;
results go to the table of ``benchmarks/README.md`` by hand (with the machine line printed).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from common import load_average, machine

from sudoku_cp.deduction.generate import fill_givens, generate_puzzles
from sudoku_cp.deduction.proof import StepProver
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.native import carve as carve_module


def old_generator(geometry: Geometry, count: int, seed: int) -> list[Grid]:
    """The generator before this one: the paper's symmetric fill, then pairs emptied while SAT
    finds no other solution (one incremental CaDiCaL of the empty grid for the batch)."""
    n = geometry.n
    made = []
    with StepProver(Grid.empty(geometry)) as sat:
        for attempt in range(count):
            filled = fill_givens(geometry, np.random.default_rng((seed, attempt)))
            assert filled is not None
            pairs, solution, _ = filled
            flat = solution.values.reshape(-1)
            values = np.zeros(n * n, np.int16)
            for pair in pairs:
                values[list(pair)] = flat[list(pair)]
            for pair in pairs:
                values[list(pair)] = 0
                if sat.other_solution(values.reshape(n, n), solution.values):
                    values[list(pair)] = flat[list(pair)]
            sat.forget_solution(solution.values)
            made.append(Grid(geometry, values.reshape(n, n)))
    return made


def _timed(make: Callable[[], list[object]]) -> tuple[int, float, float]:
    """(items made, CPU seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    items = make()
    return len(items), time.process_time() - cpu, time.perf_counter() - wall


def _whole_process(box: str, count: int, seed: int, repeat: int) -> None:
    """``sudoku-cp generate`` with ``--jobs 1`` and without, alternated: best walls, same output."""
    program = shutil.which("sudoku-cp") or str(Path(sys.executable).with_name("sudoku-cp"))
    argv = [program, "generate", "--box", box, "--count", str(count), "--seed", str(seed), "--no-progress"]
    runs = {"--jobs 1": [*argv, "--jobs", "1"], "every core (default)": argv}
    walls: dict[str, list[float]] = {name: [] for name in runs}
    outputs: dict[str, str] = {}
    load = load_average()
    for _ in range(repeat):
        for name, command in runs.items():
            wall = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            walls[name].append(time.perf_counter() - wall)
            outputs[name] = done.stdout
    same = len(set(outputs.values())) == 1
    for name, times in walls.items():
        best = min(times)
        print(
            f"| {box}, whole process, {name} | {count} | | {best:.2f} | {count / best:.1f} per wall s "
            f"| | {'same lines' if same else 'LINES DIFFER'} | {load} |"
        )


def main() -> None:
    """Print the generation table (markdown) and the machine it was measured on."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count9", type=int, default=500)
    parser.add_argument("--count16", type=int, default=20)
    parser.add_argument("--limit", type=float, default=120.0, help="seconds for one 25x25 / 36x36 puzzle")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="alternated runs of each whole process")
    args = parser.parse_args()
    print(f"machine: {machine()}; load before: {load_average()}")
    for box in ((2, 3), (3, 3), (3, 4), (4, 4)):  # compile every kernel before timing
        list(generate_puzzles(Geometry(*box), 1, seed=999))
        list(generate_puzzles(Geometry(*box), 1, seed=999, symmetric=True))
    print("| grid | generator | puzzles | CPU s | wall s | puzzles / CPU s | mean givens | proofs | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    rates: dict[tuple[str, str], float] = {}
    counts = {(2, 3): args.count9, (3, 3): args.count9, (3, 4): max(args.count16, 20), (4, 4): args.count16}
    for box, count in counts.items():
        geometry = Geometry(*box)
        grid = f"{geometry.n}x{geometry.n}"
        for name, symmetric in (("minimal", False), ("symmetric", True)):
            out: list[object] = []

            def make(g: Geometry = geometry, c: int = count, s: bool = symmetric, keep: list = out) -> list:
                keep.extend(generate_puzzles(g, c, seed=args.seed, symmetric=s))
                return keep

            made, cpu, wall = _timed(make)
            givens = np.mean([g.puzzle.givens for g in out])  # type: ignore[attr-defined]
            proofs = sorted({g.proof for g in out})  # type: ignore[attr-defined]
            rates[(grid, name)] = made / cpu
            print(
                f"| {grid} | {name} | {made} | {cpu:.2f} | {wall:.2f} | {made / cpu:.1f} | {givens:.1f} "
                f"| {', '.join(proofs)} | {load_average()} |"
            )
            if geometry.n >= carve_module.BY_COUNT_SIDE:
                # The previous default here, in the same run: given by given, a search each.
                side = carve_module.BY_COUNT_SIDE
                carve_module.BY_COUNT_SIDE = geometry.n + 1
                try:
                    before: list[object] = []
                    made, cpu, wall = _timed(lambda m=make, k=before: m(keep=k))  # type: ignore[misc]
                finally:
                    carve_module.BY_COUNT_SIDE = side
                givens = np.mean([g.puzzle.givens for g in before])  # type: ignore[attr-defined]
                ratio = rates[(grid, name)] / (made / cpu)
                print(
                    f"| {grid} | {name}, given by given (before) | {made} | {cpu:.2f} | {wall:.2f} "
                    f"| {made / cpu:.1f} | {givens:.1f} | by count / given by given: {ratio:.1f}x "
                    f"| {load_average()} |"
                )
        if box in ((3, 3), (4, 4)):
            old_count = count if box == (3, 3) else min(count, 5)
            made, cpu, wall = _timed(lambda g=geometry, c=old_count: old_generator(g, c, args.seed))  # type: ignore[misc, arg-type]
            rates[(grid, "old")] = made / cpu
            ratio = rates[(grid, "symmetric")] / rates[(grid, "old")]
            row = f"| {grid} | old (symmetric, SAT per pair) | {made} | {cpu:.2f} | {wall:.2f} "
            print(f"{row}| {made / cpu:.1f} | | symmetric / old: {ratio:.1f}x | {load_average()} |")
    _whole_process("3x3", 4 * args.count9, args.seed, args.repeat)
    _whole_process("4x4", 4 * args.count16, args.seed, args.repeat)
    for box in ((5, 5), (6, 6)):
        geometry = Geometry(*box)
        grid = f"{geometry.n}x{geometry.n}"
        cpu, wall = time.process_time(), time.perf_counter()
        made_big = list(generate_puzzles(geometry, 1, seed=args.seed, time_limit=Deadline(args.limit)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if made_big:
            one = made_big[0]
            print(
                f"| {grid} | minimal | 1 | {cpu:.2f} | {wall:.2f} | {1 / cpu:.3f} | {one.puzzle.givens} "
                f"| {one.proof} (SAT tests: {one.hard}; attempt {one.attempt}, "
                f"{one.attempt} grid(s) given up) | {load_average()} |"
            )
        else:
            row = f"| {grid} | minimal | 0 of 1 in {args.limit:g} s wall | {cpu:.2f} | {wall:.2f} "
            print(f"{row}| | | | {load_average()} |")


if __name__ == "__main__":
    main()
