"""Exact-cover model of a Nishio instance (specified in ``encodings/nishio.md``), solved by DLX.

Items (3n, all primary): ``rR`` row R holds the digit, ``cC`` column C holds it, ``bB`` box B holds
it (1-based, boxes row-major).  One option per cell of S, in reading order, covering its row,
column and box items.  An exact cover is a placement.

``DlxNishio`` (method ``dlx``; ``xc`` is its old name) answers the Nishio questions with the numba
Algorithm X of ``sudoku_cp.native.dlx``, the solver of the ``dlx`` backend.
Its closure enumerates placements up to ``enumerate_cap``; past the cap it keeps what it found and
then, for every cell of S still uncovered, searches for a placement through that cell (the other
options of the cell's row, column and box removed), adding each placement found to the cover.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import IO

import numpy as np

from ..limits import Deadline
from ..native.dlx import ExactCoverResult, solve_exact_cover
from ..outcome import REASON_TIME_LIMIT
from .instance import NishioInstance
from .method import NO_PLACEMENT, Decision, NishioCount, NishioMethod
from .placement import checked_placement

__all__ = [
    "DlxNishio",
    "NishioExactCover",
    "build_nishio_exact_cover",
    "export_nishio_dlx",
    "write_nishio_dlx",
]


@dataclass(frozen=True, slots=True, eq=False)
class NishioExactCover:
    """Items 0..3n-1 (rows, columns, boxes) and one option per cell of S in reading order.

    ``option_rows``/``option_cols``: the 0-based cell of each option; ``option_items``: (|S|, 3)
    item indices (row r, n + column c, 2n + box b).
    """

    instance: NishioInstance
    option_rows: np.ndarray
    option_cols: np.ndarray
    option_items: np.ndarray

    @property
    def n_items(self) -> int:
        """Number of items, 3n."""
        return 3 * self.instance.n

    @property
    def n_options(self) -> int:
        """Number of options, |S|."""
        return len(self.option_rows)

    def item_names(self) -> list[str]:
        """The DLX names of the items: 'r1'..'rn', 'c1'..'cn', 'b1'..'bn'."""
        n = self.instance.n
        return [f"{kind}{k + 1}" for kind in "rcb" for k in range(n)]

    def decode(self, chosen: np.ndarray) -> np.ndarray:
        """The column per row of the chosen options (-1 for a row without one)."""
        cols = np.full(self.instance.n, -1, dtype=np.int64)
        chosen = np.asarray(chosen, dtype=np.int64)
        cols[self.option_rows[chosen]] = self.option_cols[chosen]
        return cols


def build_nishio_exact_cover(instance: NishioInstance) -> NishioExactCover:
    """The exact-cover model of a Nishio instance."""
    g = instance.geometry
    n = g.n
    rows, cols, boxes = instance.rows, instance.cols, instance.boxes
    items = np.stack([rows, n + cols, 2 * n + boxes], axis=1).reshape(-1, 3)
    items.setflags(write=False)
    return NishioExactCover(instance, rows, cols, items)


def export_nishio_dlx(model: NishioExactCover) -> str:
    """The model in Knuth's DLX input format, with '|' comment lines naming the instance."""
    out = io.StringIO()
    write_nishio_dlx(model, out)
    return out.getvalue()


def write_nishio_dlx(model: NishioExactCover, out: IO[str], chunk: int = 65536) -> None:
    """Write ``export_nishio_dlx``'s text to a text stream, a chunk of options at a time."""
    g = model.instance.geometry
    names = np.array(model.item_names(), dtype=object)
    out.write(
        f"| sudoku_cp Nishio exact cover: n {g.n} box {g.box_label}, {model.n_items} items, "
        f"{model.n_options} options\n"
        "| items: rR row R, cC column C, bB box B holds the digit (1-based); one option per cell of S\n"
    )
    out.write(" ".join(model.item_names()) + "\n")
    for start in range(0, model.n_options, chunk):
        rows = names[model.option_items[start : start + chunk]].tolist()
        out.write("".join(" ".join(row) + "\n" for row in rows))


class DlxNishio(NishioMethod):
    """Nishio by exact cover (numba DLX); ``enumerate_cap`` bounds the closure's first enumeration."""

    name = "dlx"
    exact = True

    def __init__(self, enumerate_cap: int = 2000) -> None:
        if enumerate_cap < 1:
            raise ValueError("enumerate_cap must be at least 1")
        self.enumerate_cap = enumerate_cap

    def __repr__(self) -> str:
        return f"DlxNishio(enumerate_cap={self.enumerate_cap})"

    @staticmethod
    def _run(
        options: np.ndarray, n_items: int, deadline: Deadline, *, limit: int, keep: bool
    ) -> ExactCoverResult | None:
        """The search's result, or None when the deadline stops it (or has passed before it starts)."""
        if deadline.expired():
            return None
        result = solve_exact_cover(options, n_items, limit=limit, time_limit=deadline.remaining(), keep=keep)
        return None if result.timed_out else result

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """A placement inside S as its column per row, or none."""
        model = build_nishio_exact_cover(instance)
        result = self._run(model.option_items, model.n_items, deadline, limit=1, keep=True)
        if result is None:
            return Decision.unknown(REASON_TIME_LIMIT)
        if not result.solutions:
            return NO_PLACEMENT
        return Decision.found(checked_placement(instance, model.decode(result.solutions[0]), self.name))

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        """The (n, n) bool mask of cells of S that lie in at least one placement inside S."""
        model = build_nishio_exact_cover(instance)
        n = instance.n
        covered = np.zeros((n, n), dtype=bool)
        result = self._run(model.option_items, model.n_items, deadline, limit=self.enumerate_cap, keep=True)
        if result is None:
            return None
        for chosen in result.solutions:
            covered[np.arange(n), checked_placement(instance, model.decode(chosen), self.name)] = True
        if result.complete:
            return covered
        items = model.option_items
        for option in range(model.n_options):
            r, c = int(model.option_rows[option]), int(model.option_cols[option])
            if covered[r, c]:
                continue
            # Force the option: drop every other option sharing one of its items.
            clash = (items[:, :, None] == items[option][None, None, :]).any(axis=(1, 2))
            clash[option] = False
            keep_options = np.flatnonzero(~clash)
            forced = self._run(items[keep_options], model.n_items, deadline, limit=1, keep=True)
            if forced is None:
                return None
            if forced.solutions:
                cols = model.decode(keep_options[forced.solutions[0]])
                covered[np.arange(n), checked_placement(instance, cols, self.name)] = True
        return covered

    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount | None:
        """The number of placements inside S, stopping at ``limit`` when one is given."""
        model = build_nishio_exact_cover(instance)
        cap = int(np.iinfo(np.int64).max) if limit is None else limit
        result = self._run(model.option_items, model.n_items, deadline, limit=cap, keep=False)
        return None if result is None else NishioCount(result.count, complete=result.complete)
