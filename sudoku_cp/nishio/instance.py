"""Nishio instances: one digit's open cells S in an n x n grid with p x q boxes.

A *valid placement* is a set of n cells, one in each row, column and box; inside the code it is
an int array ``cols`` of length n, ``cols[r]`` the column used in row r.  The Nishio questions
about S are: is there a placement inside S (decision), which cells of S lie in at least one
(the closure S'), and how many are there (count).  Cells of S outside S' are the eliminations.

Text forms (all 1-based for users):

* mask rows: n lines of n symbols, ``x``/``X``/``1`` for a cell in S and ``.``/``0`` for a cell
  outside; blanks and the box separators ``|`` and ``+`` are ignored, lines made of ``-``, ``+``,
  ``=`` and blanks only are box rules, and ``#`` starts a comment;
* a cell list: ``n=9 box=3x3`` (box optional where n alone decides it) then cells as ``R1C2`` or
  ``1,2`` (row, column), separated by blanks, commas or new lines;
* JSON: ``{"n": 9, "box": "3x3", "cells": [[1, 2], ...]}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..formats import ParseError, json_dumps
from ..geometry import Geometry, GeometryError, geometry_for_size, parse_box
from ..grid import Grid
from ..propagation import propagate_batch

__all__ = [
    "NishioInstance",
    "SolveTimeout",
    "digit_instances",
    "format_cells",
    "format_mask",
    "instance_text",
    "instance_to_json",
    "parse_instance",
    "placement_cells",
    "placement_problem",
]


class SolveTimeout(RuntimeError):
    """A Nishio method stopped at its time limit: the answer is unknown."""


@dataclass(frozen=True, slots=True, eq=False)
class NishioInstance:
    """One digit's open cells: ``mask[r, c]`` is True when cell (r, c) is in S (read-only bool)."""

    geometry: Geometry
    mask: np.ndarray

    def __post_init__(self) -> None:
        n = self.geometry.n
        mask = np.array(self.mask, dtype=bool)
        if mask.shape != (n, n):
            raise ValueError(f"a {n}x{n} instance needs an ({n}, {n}) mask, got {mask.shape}")
        mask.setflags(write=False)
        object.__setattr__(self, "mask", mask)

    @classmethod
    def from_cells(cls, geometry: Geometry, cells: Iterable[tuple[int, int]]) -> NishioInstance:
        """The instance whose S holds the given 0-based (row, column) cells."""
        mask = np.zeros((geometry.n, geometry.n), dtype=bool)
        for r, c in cells:
            mask[r, c] = True
        return cls(geometry, mask)

    @classmethod
    def full(cls, geometry: Geometry) -> NishioInstance:
        """The instance with every cell open (the empty grid)."""
        return cls(geometry, np.ones((geometry.n, geometry.n), dtype=bool))

    @property
    def n(self) -> int:
        """Side length of the grid."""
        return self.geometry.n

    @property
    def size(self) -> int:
        """Number of cells in S."""
        return int(self.mask.sum())

    def cells(self) -> list[tuple[int, int]]:
        """The 0-based (row, column) cells of S in reading order."""
        return [(int(r), int(c)) for r, c in zip(*np.nonzero(self.mask), strict=True)]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NishioInstance)
            and self.geometry == other.geometry
            and bool(np.array_equal(self.mask, other.mask))
        )

    def __hash__(self) -> int:
        return hash((self.geometry.p, self.geometry.q, np.packbits(self.mask).tobytes()))


def placement_cells(cols: Sequence[int] | np.ndarray) -> list[tuple[int, int]]:
    """The 0-based (row, column) cells of a placement given as its column per row."""
    return [(r, int(c)) for r, c in enumerate(cols)]


def placement_problem(instance: NishioInstance, cols: Sequence[int] | np.ndarray) -> str | None:
    """Why ``cols`` (column per row) is not a valid placement inside S, or None when it is one."""
    g = instance.geometry
    n = g.n
    cols = np.asarray(cols)
    if cols.shape != (n,):
        return f"a placement needs one column for each of the {n} rows, got {cols.size}"
    if (cols < 0).any() or (cols >= n).any():
        return "a placement column lies outside the grid"
    seen_col: dict[int, int] = {}
    seen_box: dict[int, int] = {}
    for r in range(n):
        c = int(cols[r])
        name = g.cell_name(r * n + c)
        if not instance.mask[r, c]:
            return f"{name} is not in S"
        if c in seen_col:
            return f"{g.cell_name(seen_col[c])} and {name} share column {c + 1}"
        b = g.box_index(r, c)
        if b in seen_box:
            return f"{g.cell_name(seen_box[b])} and {name} share box {b + 1}"
        seen_col[c] = r * n + c
        seen_box[b] = r * n + c
    return None


def digit_instances(grid: Grid, digits: Iterable[int] | None = None) -> list[NishioInstance]:
    """The Nishio instances of a puzzle state, one per digit (1-based; all digits by default).

    S for digit d holds the cells that still allow d after singles propagation (the givens
    eliminate from their peers; naked and hidden singles are placed, to a fixpoint), cells
    already holding d included.  A contradictory puzzle still yields its (possibly empty) sets.
    """
    n = grid.n
    wanted = list(range(1, n + 1)) if digits is None else list(digits)
    for d in wanted:
        if not 1 <= d <= n:
            raise ValueError(f"digit {d} is out of range 1..{n}")
    state = propagate_batch(grid.geometry, grid.values.reshape(1, -1))
    cand = state.candidates[0]  # (n*n, n)
    return [NishioInstance(grid.geometry, cand[:, d - 1].reshape(n, n)) for d in wanted]


# ---------------------------------------------------------------- text forms

_CELL_RC = re.compile(r"[Rr](\d+)[Cc](\d+)")
_IN = frozenset("xX1")
_OUT = frozenset(".0")


def format_mask(instance: NishioInstance, *, boxes: bool = False) -> str:
    """Rows of 'x' (in S) and '.' (outside), one line per row; ``boxes`` adds box separators."""
    g = instance.geometry
    lines = []
    for r in range(g.n):
        row = ["x" if v else "." for v in instance.mask[r]]
        if boxes:
            groups = [" ".join(row[c : c + g.q]) for c in range(0, g.n, g.q)]
            lines.append(" | ".join(groups))
            if r % g.p == g.p - 1 and r != g.n - 1:
                lines.append("-+-".join("-" * (2 * g.q - 1) for _ in range(g.p)))
        else:
            lines.append("".join(row))
    return "\n".join(lines) + "\n"


def format_cells(instance: NishioInstance) -> str:
    """The cell-list form: a header naming n and the box, then one R<r>C<c> per cell."""
    g = instance.geometry
    names = [g.cell_name(r * g.n + c) for r, c in instance.cells()]
    return f"n={g.n} box={g.box_label}\n" + " ".join(names) + "\n"


def instance_to_json(instance: NishioInstance) -> dict[str, object]:
    """A JSON-ready object: n, box and the 1-based cells of S."""
    g = instance.geometry
    return {"n": g.n, "box": g.box_label, "cells": [[r + 1, c + 1] for r, c in instance.cells()]}


def _geometry(n: int, box: tuple[int, int] | None, line: int | None) -> Geometry:
    try:
        return geometry_for_size(n, box)
    except GeometryError as error:
        raise ParseError(str(error), line) from None


def _from_json(text: str, box: tuple[int, int] | None) -> NishioInstance:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"bad JSON: {error.msg}", error.lineno, error.colno) from None
    if not isinstance(obj, dict) or "n" not in obj or "cells" not in obj:
        raise ParseError('a JSON instance is an object with "n" and "cells"')
    n = obj["n"]
    if not isinstance(n, int) or n < 2:
        raise ParseError(f'"n" must be an integer >= 2, got {n!r}')
    if "box" in obj:
        try:
            box = parse_box(str(obj["box"]))
        except GeometryError as error:
            raise ParseError(str(error)) from None
    g = _geometry(n, box, None)
    cells = []
    for k, cell in enumerate(obj["cells"]):
        ok = isinstance(cell, list) and len(cell) == 2 and all(isinstance(v, int) for v in cell)
        if not ok or not (1 <= cell[0] <= n and 1 <= cell[1] <= n):
            raise ParseError(
                f"cell {k + 1} of the JSON list is not a [row, column] pair within 1..{n}: {cell!r}"
            )
        cells.append((cell[0] - 1, cell[1] - 1))
    return NishioInstance.from_cells(g, cells)


def _from_cell_list(lines: list[tuple[int, str]], box: tuple[int, int] | None) -> NishioInstance:
    n: int | None = None
    cells: list[tuple[int, int, int, int]] = []
    for number, text in lines:
        for match in re.finditer(r"[^\s,;]+(?:,\d+)?", text):
            word, col = match.group(0), match.start() + 1
            key, _, value = word.partition("=")
            if value:
                if key.lower() == "n" and value.isdigit():
                    n = int(value)
                elif key.lower() == "box":
                    try:
                        box = parse_box(value)
                    except GeometryError as error:
                        raise ParseError(str(error), number, col) from None
                else:
                    raise ParseError(f"unknown setting {word!r} (expected n=N or box=PxQ)", number, col)
                continue
            rc = _CELL_RC.fullmatch(word) or re.fullmatch(r"(\d+),(\d+)", word)
            if rc is None:
                raise ParseError(f"{word!r} is not a cell (write R3C5 or 3,5)", number, col)
            cells.append((int(rc.group(1)), int(rc.group(2)), number, col))
    if n is None:
        if box is None:
            raise ParseError("a cell list needs its size: start it with n=N (and box=PxQ where needed)")
        n = box[0] * box[1]
    g = _geometry(n, box, None)
    for r, c, number, col in cells:
        if not (1 <= r <= n and 1 <= c <= n):
            raise ParseError(f"cell R{r}C{c} lies outside the {n}x{n} grid", number, col)
    return NishioInstance.from_cells(g, [(r - 1, c - 1) for r, c, _, _ in cells])


def _from_mask_rows(lines: list[tuple[int, str]], box: tuple[int, int] | None) -> NishioInstance:
    rows: list[tuple[int, list[bool]]] = []
    for number, text in lines:
        body = text.split("#", 1)[0]
        if not body.strip() or set(body) <= set("-+= "):
            continue
        row = []
        for col, ch in enumerate(body, start=1):
            if ch in " \t|+":
                continue
            if ch in _IN:
                row.append(True)
            elif ch in _OUT:
                row.append(False)
            else:
                raise ParseError(f"unexpected symbol {ch!r} in an instance row (use x or . )", number, col)
        rows.append((number, row))
    if not rows:
        raise ParseError("the instance is empty")
    n = len(rows)
    for number, row in rows:
        if len(row) != n:
            raise ParseError(f"row has {len(row)} cells but the instance has {n} rows", number)
    g = _geometry(n, box, rows[0][0])
    return NishioInstance(g, np.array([row for _, row in rows], dtype=bool))


def parse_instance(text: str, *, box: tuple[int, int] | None = None) -> NishioInstance:
    """Read an instance in any of the module's text forms (detected from the text)."""
    stripped = text.strip()
    if not stripped:
        raise ParseError("the instance is empty")
    if stripped.startswith("{"):
        return _from_json(stripped, box)
    lines = [(k, line.rstrip("\r\n")) for k, line in enumerate(text.splitlines(), start=1)]
    lines = [(k, line) for k, line in lines if not line.lstrip().startswith("#")]
    if re.search(r"[Rr]\d+[Cc]\d+|\d+,\d+|\bn=", stripped):
        return _from_cell_list(lines, box)
    return _from_mask_rows(lines, box)


def instance_text(instance: NishioInstance, form: str = "mask") -> str:
    """The instance written as 'mask' rows, a 'cells' list, or 'json'."""
    if form == "mask":
        return format_mask(instance)
    if form == "cells":
        return format_cells(instance)
    if form == "json":
        return json_dumps(instance_to_json(instance)) + "\n"
    raise ValueError(f"unknown instance form {form!r}")
