"""The naive incremental SAT loop over a 9x9 batch file: the baseline of ``nine_by_nine.py``.

    .venv/bin/python benchmarks/naive_sat_loop.py FILE [--limit N]

One process, one CaDiCaL 1.9.5 (python-sat) holding the extended encoding of the empty 9x9 grid
(``encode_geometry_cnf``); each puzzle line's givens are the assumptions of one ``solve`` call,
the model is decoded into digits and the solution printed as one line ('unsat' when there is
none).  No propagation, no checking, no batching: what a user writes first with python-sat.
Timed as a whole process (start-up included), as ``sudoku-cp solve`` is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pysat.solvers import Solver

from sudoku_cp.cnf.sudoku import encode_geometry_cnf
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.grid import Grid

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Solve every puzzle line of FILE with one incremental solver; print one line per puzzle."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--limit", type=int, default=0, help="first N puzzles only (0: all)")
    args = parser.parse_args(argv)
    cnf = encode_geometry_cnf(Grid.empty(geometry_for_size(9)))
    index = cnf.varmap.index.tolist()  # index[cell][digit - 1]: the variable of that candidate
    digit_of = {var: (cell, digit) for cell, row in enumerate(index) for digit, var in enumerate(row, 1)}
    solver = Solver(name="cadical195", bootstrap_with=cnf.clauses())
    out = []
    done = 0
    with open(args.file, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            assumptions = [index[cell][int(ch) - 1] for cell, ch in enumerate(line) if ch not in ".0"]
            if solver.solve(assumptions=assumptions):
                cells = ["."] * 81
                for lit in solver.get_model() or []:
                    if lit > 0 and lit in digit_of:
                        cell, digit = digit_of[lit]
                        cells[cell] = str(digit)
                out.append("".join(cells))
            else:
                out.append("unsat")
            done += 1
            if done == args.limit:
                break
    solver.delete()
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
