"""Golden files of the 3-SAT -> Nishio reduction for the 2-clause example of encodings/reduction.md.

The picture ``encodings/reduction-2-clauses.svg`` and the files of ``encodings/reduction-golden/``
(S as mask rows for both fills, the metadata of Theorems 6.1 and 6.2) are rendered again and
compared byte for byte.  (They are not in ``encodings/golden``, whose test requires every file
there to have a renderer in ``tests/golden.py``.)  Regenerate after an intended change, then
review the diff:

    .venv/bin/python tests/test_reduction_golden.py --write
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sudoku_cp.nishio.text import format_mask
from sudoku_cp.reduction.construction import reduce_formula
from sudoku_cp.reduction.formula import Formula
from sudoku_cp.reduction.svg import reduction_svg

ENCODINGS = Path(__file__).resolve().parents[1] / "encodings"
GOLDEN = ENCODINGS / "reduction-golden"
#: (x1 or not x2 or x3) and (not x1 or x2 or not x4)
EXAMPLE = Formula(4, ((1, -2, 3), (-1, 2, -4)))


def reduction_renderers() -> dict[Path, Callable[[], str]]:
    """Golden path -> a function producing that file's text."""

    def mask(fill: str) -> str:
        return format_mask(reduce_formula(EXAMPLE, fill=fill).instance, boxes=True)

    def metadata(nonempty: bool) -> str:
        text = reduce_formula(EXAMPLE, nonempty=nonempty).metadata_json()
        assert json.loads(text) == reduce_formula(EXAMPLE, nonempty=nonempty).metadata()
        return text

    return {
        ENCODINGS / "reduction-2-clauses.svg": lambda: reduction_svg(reduce_formula(EXAMPLE)),
        GOLDEN / "reduction-2-clauses.cnf": lambda: EXAMPLE.to_dimacs(
            ["the 2-clause example of reduction.md"]
        ),
        GOLDEN / "reduction-2-clauses.full.mask.txt": lambda: mask("full"),
        GOLDEN / "reduction-2-clauses.minimal.mask.txt": lambda: mask("minimal"),
        GOLDEN / "reduction-2-clauses.json": lambda: metadata(False),
        GOLDEN / "reduction-2-clauses.nonempty.json": lambda: metadata(True),
    }


RENDERERS = reduction_renderers()


def test_every_reduction_golden_file_has_a_renderer() -> None:
    assert sorted(GOLDEN.iterdir()) == sorted(path for path in RENDERERS if path.parent == GOLDEN)


@pytest.mark.parametrize("path", sorted(RENDERERS), ids=lambda path: path.name)
def test_reduction_output_matches_golden_file(path: Path) -> None:
    assert RENDERERS[path]() == path.read_text(), (
        f"{path.name} changed: run tests/test_reduction_golden.py --write and review the diff"
    )


def main(argv: list[str]) -> int:
    """With --write, rewrite every reduction golden file; otherwise list the files that differ."""
    write = "--write" in argv
    GOLDEN.mkdir(parents=True, exist_ok=True)
    stale = []
    for path, render in sorted(RENDERERS.items()):
        text = render()
        if not path.exists() or path.read_text() != text:
            stale.append(path.name)
            if write:
                path.write_text(text)
    print(("rewrote " if write else "differ: ") + (", ".join(stale) or "nothing"))
    return 0 if write or not stale else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
