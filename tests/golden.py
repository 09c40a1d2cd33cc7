"""The golden files of encodings/golden: every output format for a 4x4 and a 9x9 puzzle.

Regenerate after an intended change of output, then review the diff:

    .venv/bin/python tests/golden.py --write

``tests/test_golden.py`` renders the same files and compares them byte for byte.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "encodings" / "golden"

PUZZLES = {
    "4x4": "....12....13....",
    "9x9": "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
}


def renderers() -> dict[str, Callable[[], str]]:
    """File name -> a function producing that file's text."""
    from sudoku_cp.backends.registry import make_backend
    from sudoku_cp.cnf.dimacs import dimacs_text
    from sudoku_cp.cnf.sudoku import encode_cnf
    from sudoku_cp.cpsat import build_cpsat_model, export_cpsat_model
    from sudoku_cp.exact_cover import build_exact_cover, export_dlx
    from sudoku_cp.formats import format_ints, format_line, format_pretty, grid_to_json, parse_grid

    table: dict[str, Callable[[], str]] = {}
    for name, text in PUZZLES.items():
        grid = parse_grid(text)

        def solution(grid=grid) -> str:  # type: ignore[no-untyped-def]
            found = make_backend("pysat").search(grid, limit=2)
            assert found.count == 1 and found.complete
            return format_pretty(grid.with_values(found.solutions[0])) + "\n"

        table[f"{name}.line.txt"] = lambda grid=grid: format_line(grid) + "\n"
        table[f"{name}.pretty.txt"] = lambda grid=grid: format_pretty(grid) + "\n"
        table[f"{name}.ints.txt"] = lambda grid=grid: format_ints(grid) + "\n"
        table[f"{name}.json"] = lambda grid=grid: json.dumps(grid_to_json(grid), indent=1) + "\n"
        table[f"{name}.solution.txt"] = solution
        for encoding in ("minimal", "efficient", "extended", "optimized"):
            table[f"{name}.{encoding}.cnf"] = lambda grid=grid, e=encoding: dimacs_text(encode_cnf(grid, e))
        table[f"{name}.extended-seqcounter.cnf"] = lambda grid=grid: dimacs_text(
            encode_cnf(grid, "extended", "seqcounter")
        )
        table[f"{name}.dlx"] = lambda grid=grid: export_dlx(build_exact_cover(grid))
        for kind in ("bool", "alldiff"):
            table[f"{name}.cpsat-{kind}.pb.txt"] = lambda grid=grid, k=kind: export_cpsat_model(
                build_cpsat_model(grid, k)
            )
    return table


def main(argv: list[str]) -> int:
    """With --write, rewrite every golden file; otherwise list the files that differ."""
    write = "--write" in argv
    GOLDEN.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, render in sorted(renderers().items()):
        text = render()
        path = GOLDEN / name
        if not path.exists() or path.read_text() != text:
            stale.append(name)
            if write:
                path.write_text(text)
    print(("rewrote " if write else "differ: ") + (", ".join(stale) or "nothing"))
    return 0 if write or not stale else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
