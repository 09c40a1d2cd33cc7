"""The golden files of encodings/golden: every output format for a 4x4 and a 9x9 puzzle, and every
model export for a 4x4 and a 9x9 Nishio (single-digit) instance.

Regenerate after an intended change of output, then review the diff:

    .venv/bin/python tests/golden.py --write

``tests/test_golden.py`` renders the same files and compares them byte for byte.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sudoku_cp.grid import Grid
    from sudoku_cp.nishio.instance import NishioInstance

GOLDEN = Path(__file__).resolve().parents[1] / "encodings" / "golden"

PUZZLES = {
    "4x4": "....12....13....",
    "9x9": "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
}


# 4x4: a hand-made instance with eliminations; 9x9: digit 7 of AI Escargot after singles.
NISHIO_4X4 = "x...\nxxxx\nxxxx\nxxxx\n"
NISHIO_9X9 = ("aiescargot.txt", 7)


def nishio_renderers() -> dict[str, Callable[[], str]]:
    """File name -> text for the Nishio model exports (CNF pairwise, DLX, CP-SAT bool and alldiff)."""
    from sudoku_cp.formats import parse_grid
    from sudoku_cp.nishio.cnf import encode_nishio_cnf, nishio_dimacs_text
    from sudoku_cp.nishio.cpsat import build_nishio_cpsat, export_nishio_cpsat
    from sudoku_cp.nishio.exact_cover import build_nishio_exact_cover, export_nishio_dlx
    from sudoku_cp.nishio.instance import digit_instances
    from sudoku_cp.nishio.text import parse_instance

    data = Path(__file__).resolve().parent / "data"
    file, digit = NISHIO_9X9
    instances = {
        "4x4": parse_instance(NISHIO_4X4),
        "9x9": digit_instances(parse_grid((data / file).read_text()), [digit])[0],
    }

    def cnf(instance: NishioInstance) -> str:
        return nishio_dimacs_text(encode_nishio_cnf(instance, "pairwise"))

    def dlx(instance: NishioInstance) -> str:
        return export_nishio_dlx(build_nishio_exact_cover(instance))

    def cpsat(instance: NishioInstance, kind: str) -> str:
        return export_nishio_cpsat(build_nishio_cpsat(instance, kind))

    table: dict[str, Callable[[], str]] = {}
    for name, instance in instances.items():
        stem = f"nishio-{name}"
        table[f"{stem}.pairwise.cnf"] = partial(cnf, instance)
        table[f"{stem}.dlx"] = partial(dlx, instance)
        for kind in ("bool", "alldiff"):
            table[f"{stem}.cpsat-{kind}.pb.txt"] = partial(cpsat, instance, kind)
    return table


def renderers() -> dict[str, Callable[[], str]]:
    """File name -> a function producing that file's text."""
    from sudoku_cp.backends.registry import make_backend
    from sudoku_cp.cnf.dimacs import dimacs_text
    from sudoku_cp.cnf.sudoku import encode_cnf
    from sudoku_cp.cpsat import build_cpsat_model, export_cpsat_model
    from sudoku_cp.exact_cover import build_exact_cover, export_dlx
    from sudoku_cp.formats import format_ints, format_line, format_pretty, grid_to_json, parse_grid

    def solution(grid: Grid) -> str:
        found = make_backend("pysat").search(grid, limit=2)
        assert found.count == 1 and found.complete
        return format_pretty(grid.with_values(found.solutions[0])) + "\n"

    def as_json(grid: Grid) -> str:
        return json.dumps(grid_to_json(grid), indent=1) + "\n"

    def cnf(grid: Grid, encoding: str, amo: str = "pairwise") -> str:
        model = encode_cnf(grid, encoding, amo)
        blocks = [block for family in model.families for block in family.blocks]
        return dimacs_text(blocks, model.n_vars, model.comments())

    def dlx(grid: Grid) -> str:
        return export_dlx(build_exact_cover(grid))

    def cpsat(grid: Grid, kind: str) -> str:
        return export_cpsat_model(build_cpsat_model(grid, kind))

    def line(render: Callable[[Grid], str], grid: Grid) -> str:
        return render(grid) + "\n"

    table: dict[str, Callable[[], str]] = {}
    for name, text in PUZZLES.items():
        grid = parse_grid(text)
        table[f"{name}.line.txt"] = partial(line, format_line, grid)
        table[f"{name}.pretty.txt"] = partial(line, format_pretty, grid)
        table[f"{name}.ints.txt"] = partial(line, format_ints, grid)
        table[f"{name}.json"] = partial(as_json, grid)
        table[f"{name}.solution.txt"] = partial(solution, grid)
        for encoding in ("minimal", "efficient", "extended", "optimized"):
            table[f"{name}.{encoding}.cnf"] = partial(cnf, grid, encoding)
        table[f"{name}.extended-seqcounter.cnf"] = partial(cnf, grid, "extended", "seqcounter")
        table[f"{name}.dlx"] = partial(dlx, grid)
        for kind in ("bool", "alldiff"):
            table[f"{name}.cpsat-{kind}.pb.txt"] = partial(cpsat, grid, kind)
    table.update(nishio_renderers())
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
