"""Exact-cover model of a whole puzzle (specified in ``encodings/exact-cover.md``).

Items (4n**2 for the empty grid): ``p<r>_<c>`` cell (r, c) is filled, ``r<r>_<d>`` row r holds d,
``c<c>_<d>`` column c holds d, ``b<b>_<d>`` box b holds d (all 1-based).  An option places digit
d in an open cell and covers its four items.  Givens are applied before the model is built: the
four items of each given are covered already, and options that would clash with a given are left
out.  Knuth's DLX input format lists the items on the first line and one option per line.

The number of options is known from the candidates before the model is built: a model that
cannot fit in memory for its use (built, solved by the native Algorithm X, or written as text)
is refused with ``limits.ModelTooLarge``; a deadline is checked while the candidates are found.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .grid import Grid
from .limits import Deadline, check_memory
from .propagation import candidates

__all__ = ["ExactCoverModel", "build_exact_cover", "export_dlx"]

#: Bytes per option to build the model (its arrays), to solve it with the native Algorithm X
#: (dancing links of four nodes per option and their checks), and to write it as DLX text.
_OPTION_BYTES = {"build": 160, "solve": 640, "write": 480}
_DOING = {"build": "building", "solve": "solving", "write": "writing"}


@dataclass(frozen=True, slots=True, eq=False)
class ExactCoverModel:
    """Items still to cover and one option per open candidate (cell-major, then digit order).

    ``item_ids``: the kept items' ids in the full numbering (cell, row-digit, column-digit,
    box-digit blocks of n*n each); ``option_cell``/``option_digit``: the placement of each option
    (0-based); ``option_items``: (options, 4) indices into the kept items.
    """

    puzzle: Grid
    item_ids: np.ndarray
    option_cell: np.ndarray
    option_digit: np.ndarray
    option_items: np.ndarray

    @property
    def n_items(self) -> int:
        """Number of items left to cover."""
        return len(self.item_ids)

    @property
    def n_options(self) -> int:
        """Number of options."""
        return len(self.option_cell)

    def item_names(self) -> list[str]:
        """The DLX names of the kept items, e.g. 'p1_2', 'r1_5', 'c2_5', 'b1_5' (1-based)."""
        n = self.puzzle.n
        kinds = ("p", "r", "c", "b")
        names = []
        for item in self.item_ids.tolist():
            kind, rest = divmod(item, n * n)
            a, b = divmod(rest, n)
            names.append(f"{kinds[kind]}{a + 1}_{b + 1}")
        return names

    def decode(self, chosen: np.ndarray) -> np.ndarray:
        """The (n, n) grid of the givens plus the placements of the chosen options."""
        values = self.puzzle.values.reshape(-1).copy()
        chosen = np.asarray(chosen, dtype=np.int64)
        values[self.option_cell[chosen]] = (self.option_digit[chosen] + 1).astype(np.int16)
        return values.reshape(self.puzzle.n, self.puzzle.n)


def build_exact_cover(
    puzzle: Grid, *, deadline: Deadline | None = None, use: str = "build"
) -> ExactCoverModel:
    """The exact-cover model of a puzzle with its givens applied.

    ``use`` ('build', 'solve' or 'write') says what the model is for: one that cannot fit in
    memory for it is refused (``limits.ModelTooLarge``) before it is built.  ``deadline`` is
    checked while the candidates are found (``limits.TimeLimitReached``, "propagation").
    """
    if use not in _OPTION_BYTES:
        raise ValueError(f"use must be one of {', '.join(_OPTION_BYTES)}, not {use!r}")
    g = puzzle.geometry
    n = g.n
    flat = puzzle.values.reshape(-1).astype(np.int64)
    allowed = candidates(puzzle, deadline) & (flat == 0)[:, None]
    options = int(np.count_nonzero(allowed))
    check_memory(
        f"{_DOING[use]} the exact cover model of this {n}x{n} grid ({options:,} options)",
        options * _OPTION_BYTES[use],
        "fewer open cells (more givens) make fewer options",
    )
    cell, digit = np.nonzero(allowed)
    row, col = cell // n, cell % n
    box = g.box_of_cell[cell]
    full_items = np.stack(
        [cell, n * n + row * n + digit, 2 * n * n + col * n + digit, 3 * n * n + box * n + digit], axis=1
    )
    covered = np.zeros(4 * n * n, dtype=bool)
    given = np.flatnonzero(flat)
    if given.size:
        d = flat[given] - 1
        covered[given] = True
        covered[n * n + (given // n) * n + d] = True
        covered[2 * n * n + (given % n) * n + d] = True
        covered[3 * n * n + g.box_of_cell[given] * n + d] = True
    item_ids = np.flatnonzero(~covered)
    renumber = np.full(4 * n * n, -1, dtype=np.int64)
    renumber[item_ids] = np.arange(len(item_ids))
    option_items = renumber[full_items]
    for array in (item_ids, cell, digit, option_items):
        array.setflags(write=False)
    return ExactCoverModel(puzzle, item_ids, cell, digit, option_items)


def export_dlx(model: ExactCoverModel) -> str:
    """The model in Knuth's DLX input format, with '|' comment lines naming the puzzle."""
    g = model.puzzle.geometry
    names = np.array(model.item_names() or [""], dtype=object)
    lines = [
        f"| sudoku_cp exact cover: n {g.n} box {g.box_label}, "
        f"{model.n_items} items, {model.n_options} options",
        "| items: pR_C cell filled, rR_D row R holds D, cC_D column C holds D, bB_D box B holds D (1-based)",
        " ".join(model.item_names()),
    ]
    lines.extend(" ".join(row) for row in names[model.option_items].tolist())
    return "\n".join(lines) + "\n"
