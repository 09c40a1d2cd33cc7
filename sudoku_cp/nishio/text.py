"""Text forms of a Nishio instance: read any of four, write each (all 1-based for users).

* mask rows: n lines of n symbols, ``x``/``X``/``1`` for a cell in S and ``.``/``0`` for a cell
  outside; blanks and the box separators ``|`` and ``+`` are ignored, lines made of ``-``, ``+``,
  ``=`` and blanks only are box rules, and ``#`` starts a comment;
* a cell list: ``n=9 box=3x3`` (box optional where n alone decides it) then cells as ``R1C2`` or
  ``1,2`` (row, column), separated by blanks, commas or new lines;
* JSON: ``{"n": 9, "box": "3x3", "cells": [[1, 2], ...]}``;
* sparse, for any side (specified in ``encodings/nishio.md``): the header line
  ``nishio-sparse n=N box=PxQ cells=K`` (the first line that is not a ``#`` comment), then one
  cell per line as ``R C`` (row, column, 1-based, separated by blanks), K of them, each once.
  The header's cell count catches a truncated file.

Every problem is a ``ParseError`` naming the line (and column) where it is known; a minus sign
(``R-1C2``, ``n=-9``, ``[-1, 2]``) is one.  The side n is at most ``geometry.MAX_SIDE`` in the
first three forms (they are dense grids, or read into one), ``geometry.MAX_SPARSE_SIDE`` in the
sparse form, checked before anything of that size is built.  A UTF-8 byte-order mark at the
start is ignored.  ``instance_text(..., "auto")`` writes mask rows up to side
``SPARSE_FROM - 1`` and the sparse form from ``SPARSE_FROM`` on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from ..errors import excerpt
from ..formats import ParseError, json_dumps, strip_bom
from ..geometry import MAX_SIDE, MAX_SPARSE_SIDE, Geometry, GeometryError, geometry_for_size, parse_box
from .instance import NishioInstance

__all__ = [
    "INSTANCE_FORMS",
    "SPARSE_FROM",
    "SPARSE_HEADER",
    "ParseError",
    "SideLimit",
    "format_cells",
    "format_mask",
    "format_sparse",
    "instance_text",
    "instance_to_json",
    "parse_instance",
    "read_placement",
]

#: The names ``instance_text`` writes ('auto': mask rows below side ``SPARSE_FROM``, else sparse).
INSTANCE_FORMS = ("mask", "cells", "json", "sparse", "auto")
#: The first word of the sparse form's header line.
SPARSE_HEADER = "nishio-sparse"
#: The side from which 'auto' writes the sparse form: a 257 x 257 mask is 66 kB of mostly dots,
#: while S of a reduction grows like the side, not its square.
SPARSE_FROM = 257

_CELL_RC = re.compile(r"[Rr]([0-9]+)[Cc]([0-9]+)")
_CELL_PAIR = re.compile(r"([0-9]+),([0-9]+)")
_NEGATIVE = re.compile(r"-[0-9]")
_MAX_DIGITS = 9  # a longer row, column or size lies beyond MAX_SIDE anyway
_IN = frozenset("xX1")
_OUT = frozenset(".0")


@dataclass(frozen=True, slots=True)
class SideLimit:
    """The largest side a caller can answer, and why (a clause ending the refusal's sentence).

    ``parse_instance`` refuses a larger instance as soon as its side is known (a header, the
    first row), before the rest is read or anything of that size is built.
    """

    largest: int
    why: str


def _check_side(n: int, limit: SideLimit | None, line: int | None, column: int | None = None) -> None:
    if limit is not None and n > limit.largest:
        raise ParseError(
            f"a {n}x{n} instance is larger than {limit.largest}x{limit.largest}, {limit.why}", line, column
        )


def format_mask(instance: NishioInstance, *, boxes: bool = False, closure: np.ndarray | None = None) -> str:
    """Rows of 'x' (in S) and '.' (outside), one line per row; ``boxes`` adds box separators.

    With a ``closure`` (an (n, n) bool mask inside S) the cells of S read 'o' when they are in
    S' and 'x' when they are eliminated.
    """
    g = instance.geometry
    symbols = np.where(instance.mask, "x", ".")
    if closure is not None:
        symbols[instance.mask & np.asarray(closure, dtype=bool)] = "o"
    lines = []
    for r in range(g.n):
        row = symbols[r].tolist()
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


def format_sparse(instance: NishioInstance) -> str:
    """The sparse form: the header line, then one ``R C`` line per cell of S in reading order."""
    g = instance.geometry
    head = f"{SPARSE_HEADER} n={g.n} box={g.box_label} cells={instance.size}\n"
    rows, cols = (instance.rows + 1).tolist(), (instance.cols + 1).tolist()
    return head + "".join(f"{r} {c}\n" for r, c in zip(rows, cols, strict=True))


def _from_sparse(
    lines: list[tuple[int, str]], box: tuple[int, int] | None, limit: SideLimit | None
) -> NishioInstance:
    """The sparse form (``lines`` without comments; the first non-blank one is the header)."""
    body = [(k, line) for k, line in lines if line.strip()]
    number, header = body[0]
    settings: dict[str, str] = {}
    for match in re.finditer(r"\S+", header):
        word = match.group(0)
        if word == SPARSE_HEADER:
            continue
        key, sep, value = word.partition("=")
        if not sep or key not in ("n", "box", "cells") or key in settings:
            raise ParseError(
                f"the {SPARSE_HEADER} header reads '{SPARSE_HEADER} n=N box=PxQ cells=K', "
                f"not {excerpt(word)}",
                number,
                match.start() + 1,
            )
        settings[key] = value
    missing = [key for key in ("n", "cells") if key not in settings]
    if missing:
        raise ParseError(f"the {SPARSE_HEADER} header needs {' and '.join(missing)}=", number)
    n = _number(settings["n"], "n", number, 1, MAX_SPARSE_SIDE)
    _check_side(n, limit, number)
    if "box" in settings:
        try:
            box = parse_box(settings["box"], largest=MAX_SPARSE_SIDE)
        except GeometryError as error:
            raise ParseError(str(error), number) from None
    try:
        g = geometry_for_size(n, box, sparse=True)
    except GeometryError as error:
        raise ParseError(str(error), number) from None
    cells_text = settings["cells"]
    if not (cells_text.isascii() and cells_text.isdigit()) or len(cells_text) > 13:
        raise ParseError(f"cells= must be a whole number, not {excerpt(cells_text)}", number)
    expected = int(cells_text)
    if expected > n * n:
        raise ParseError(f"cells={expected} is more than the {n * n} cells of the grid", number)
    numbers = np.fromiter((k for k, _ in body[1:]), dtype=np.int64, count=len(body) - 1)
    rows_text: list[str] = []
    cols_text: list[str] = []
    for k, line in body[1:]:
        parts = line.split()
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) <= _MAX_DIGITS for p in parts):
            raise ParseError(f"a cell line reads 'R C' (two whole numbers), not {excerpt(line.strip())}", k)
        rows_text.append(parts[0])
        cols_text.append(parts[1])
    rows = np.array(rows_text or ["0"], dtype=np.int64)[: len(rows_text)]
    cols = np.array(cols_text or ["0"], dtype=np.int64)[: len(cols_text)]
    outside = (rows < 1) | (rows > n) | (cols < 1) | (cols > n)
    if outside.any():
        at = int(np.argmax(outside))
        raise ParseError(f"cell {rows[at]} {cols[at]} lies outside the {n}x{n} grid", int(numbers[at]))
    keys = (rows - 1) * n + (cols - 1)
    unique, first = np.unique(keys, return_index=True)
    if unique.size != keys.size:
        repeated = np.ones(keys.size, dtype=bool)
        repeated[first] = False
        at = int(np.argmax(repeated))
        raise ParseError(f"cell {rows[at]} {cols[at]} is listed twice", int(numbers[at]))
    if keys.size != expected:
        raise ParseError(
            f"the header says cells={expected} but {keys.size} cell lines follow (a truncated file?)", number
        )
    return NishioInstance.from_coordinates(g, unique // n, unique % n)


def instance_to_json(instance: NishioInstance) -> dict[str, object]:
    """A JSON-ready object: n, box and the 1-based cells of S."""
    g = instance.geometry
    return {"n": g.n, "box": g.box_label, "cells": [[r + 1, c + 1] for r, c in instance.cells()]}


def _geometry(n: int, box: tuple[int, int] | None, line: int | None) -> Geometry:
    try:
        return geometry_for_size(n, box)
    except GeometryError as error:
        raise ParseError(str(error), line) from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _from_json(text: str, box: tuple[int, int] | None, limit: SideLimit | None) -> NishioInstance:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"bad JSON: {error.msg}", error.lineno, error.colno) from None
    except (ValueError, RecursionError):  # an integer of thousands of digits, or nesting too deep
        raise ParseError("bad JSON: a number too long or lists nested too deep") from None
    if not isinstance(obj, dict) or "n" not in obj or "cells" not in obj:
        raise ParseError('a JSON instance is an object with "n" and "cells"')
    n = obj["n"]
    if not _is_int(n) or not 2 <= n <= MAX_SIDE:
        raise ParseError(f'"n" must be an integer in 2..{MAX_SIDE} (the largest side), got {excerpt(n)}')
    if "box" in obj:
        try:
            box = parse_box(str(obj["box"]) if isinstance(obj["box"], str) else excerpt(obj["box"]))
        except GeometryError as error:
            raise ParseError(str(error)) from None
    g = _geometry(n, box, None)
    _check_side(n, limit, None)  # before the cells: the text is read whole already, its list not
    if not isinstance(obj["cells"], list):
        raise ParseError(f'"cells" must be a list of [row, column] pairs, got {excerpt(obj["cells"])}')
    cells = []
    for k, cell in enumerate(obj["cells"]):
        ok = isinstance(cell, list) and len(cell) == 2 and all(_is_int(v) for v in cell)
        if not ok or not (1 <= cell[0] <= n and 1 <= cell[1] <= n):
            raise ParseError(
                f"cell {k + 1} of the JSON list is not a [row, column] pair within 1..{n}: {excerpt(cell)}"
            )
        cells.append((cell[0] - 1, cell[1] - 1))
    return NishioInstance.from_cells(g, cells)


def _number(digits: str, what: str, line: int, column: int, largest: int = MAX_SIDE) -> int:
    """A whole number of ASCII digits, at most ``_MAX_DIGITS`` of them (int() of thousands raises)."""
    if not digits.isascii() or not digits.isdigit():
        raise ParseError(f"{what} must be a whole number, not {excerpt(digits)}", line, column)
    if len(digits) > _MAX_DIGITS or int(digits) > largest:
        shown = excerpt(digits, quote=False)
        raise ParseError(f"{what} {shown} is above the largest grid side, {largest}", line, column)
    return int(digits)


def _from_cell_list(
    lines: list[tuple[int, str]], box: tuple[int, int] | None, limit: SideLimit | None
) -> NishioInstance:
    n: int | None = None
    cells: list[tuple[int, int, int, int]] = []
    for number, text in lines:
        negative = _NEGATIVE.search(text)
        if negative is not None:
            raise ParseError(
                "negative number: rows, columns and n are 1 or more", number, negative.start() + 1
            )
        for match in re.finditer(r"[^\s,;]+(?:,[0-9]+)?", text):
            word, col = match.group(0), match.start() + 1
            key, _, value = word.partition("=")
            if value:
                if key.lower() == "n":
                    n = _number(value, "n", number, col)
                    _check_side(n, limit, number, col)  # before the cells that follow are read
                elif key.lower() == "box":
                    try:
                        box = parse_box(value)
                    except GeometryError as error:
                        raise ParseError(str(error), number, col) from None
                    _check_side(box[0] * box[1], limit, number, col)
                else:
                    raise ParseError(
                        f"unknown setting {excerpt(word)} (expected n=N or box=PxQ)", number, col
                    )
                continue
            rc = _CELL_RC.fullmatch(word) or _CELL_PAIR.fullmatch(word)
            if rc is None:
                raise ParseError(f"{excerpt(word)} is not a cell (write R3C5 or 3,5)", number, col)
            row, column = (_number(rc.group(k), "row or column", number, col) for k in (1, 2))
            cells.append((row, column, number, col))
    if n is None:
        if box is None:
            raise ParseError("a cell list needs its size: start it with n=N (and box=PxQ where needed)")
        n = box[0] * box[1]
    g = _geometry(n, box, None)
    for r, c, number, col in cells:
        if not (1 <= r <= n and 1 <= c <= n):
            raise ParseError(f"cell R{r}C{c} lies outside the {n}x{n} grid", number, col)
    return NishioInstance.from_cells(g, [(r - 1, c - 1) for r, c, _, _ in cells])


def _from_mask_rows(
    lines: list[tuple[int, str]], box: tuple[int, int] | None, limit: SideLimit | None
) -> NishioInstance:
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
                what = "a minus sign" if ch == "-" else f"unexpected symbol {ch!r}"
                raise ParseError(f"{what} in an instance row (use x or . )", number, col)
        if len(row) > MAX_SIDE or len(rows) == MAX_SIDE:  # refused before more is read
            raise ParseError(f"an instance has at most {MAX_SIDE} rows of {MAX_SIDE} cells", number)
        if not rows:
            _check_side(len(row), limit, number)  # the first row's length is the side
        rows.append((number, row))
    if not rows:
        raise ParseError("the instance is empty")
    n = len(rows)
    for number, row in rows:
        if len(row) != n:
            raise ParseError(f"row has {len(row)} cells but the instance has {n} rows", number)
    g = _geometry(n, box, rows[0][0])
    return NishioInstance(g, np.array([row for _, row in rows], dtype=bool))


def parse_instance(
    text: str, *, box: tuple[int, int] | None = None, limit: SideLimit | None = None
) -> NishioInstance:
    """Read an instance in any of the module's text forms (detected from the text).

    With a ``limit``, a larger side is refused from the line that tells it (see ``SideLimit``).
    """
    text = strip_bom(text)
    stripped = text.strip()
    if not stripped:
        raise ParseError("the instance is empty")
    if stripped.startswith("{"):
        return _from_json(stripped, box, limit)
    lines = [(k, line.rstrip("\r\n")) for k, line in enumerate(text.splitlines(), start=1)]
    lines = [(k, line) for k, line in lines if not line.lstrip().startswith("#")]
    first = next((line for _, line in lines if line.strip()), "")
    if first.split(maxsplit=1)[:1] == [SPARSE_HEADER]:
        return _from_sparse(lines, box, limit)
    if re.search(r"[Rr]-?[0-9]+[Cc]-?[0-9]+|-?[0-9]+,-?[0-9]+|\bn=", stripped):  # minus: an error there
        return _from_cell_list(lines, box, limit)
    return _from_mask_rows(lines, box, limit)


def instance_text(instance: NishioInstance, form: str = "mask") -> str:
    """The instance written as 'mask' rows, a 'cells' list, 'json', 'sparse', or 'auto' (mask rows
    below side ``SPARSE_FROM``, sparse from there on): one of ``INSTANCE_FORMS``."""
    if form == "auto":
        form = "mask" if instance.n < SPARSE_FROM else "sparse"
    if form == "sparse":
        return format_sparse(instance)
    if form == "mask":
        return format_mask(instance)
    if form == "cells":
        return format_cells(instance)
    if form == "json":
        return json_dumps(instance_to_json(instance)) + "\n"
    raise ValueError(f"unknown instance form {form!r}")


def read_placement(text: str, instance: NishioInstance) -> np.ndarray:
    """The placement a text gives, as its column per row (not yet checked against S).

    The text is an instance in any form above with one cell per row, or a SAT solver's answer
    (competition 's'/'v' lines or a minisat result file) for the CNF that ``encode --nishio --to
    cnf`` writes of ``instance``, whatever its exactly-one encoding: cell variables come first,
    1..|S| in reading order.  ``ParseError`` says what is wrong.
    """
    from ..cnf.dimacs import SolverProgramError, read_solver_answer, solver_answer_form
    from .cnf import encode_nishio_cnf

    n = instance.n
    text = strip_bom(text)
    if not text.strip():
        raise ParseError("the placement file is empty")
    if solver_answer_form(text, literals=False) is not None:
        try:
            answer = read_solver_answer(text, literals=False)
        except SolverProgramError as problem:
            raise ParseError(str(problem)) from None  # its message names the line already
        if answer.satisfiable is not True or answer.literals is None:
            raise ParseError(f"the solver found no model (status {answer.satisfiable}), nothing to decode")
        cols = encode_nishio_cnf(instance).decode(answer.literals)
        if (cols == -2).any():
            raise ParseError(f"row {int(np.argmax(cols == -2)) + 1} has two true cell variables")
        if (cols == -1).any():
            raise ParseError(f"row {int(np.argmax(cols == -1)) + 1} has no true cell variable")
        return np.asarray(cols, dtype=np.int64)
    g = instance.geometry
    placed = parse_instance(text, box=(g.p, g.q))
    if placed.n != n:
        raise ParseError(f"the placement is {placed.n}x{placed.n} but the instance is {n}x{n}")
    per_row = np.bincount(placed.rows, minlength=n)
    bad = np.flatnonzero(per_row != 1)
    if bad.size:
        row = int(bad[0])
        raise ParseError(
            f"row {row + 1} holds {int(per_row[row])} cells; a placement has one cell in each row"
        )
    cols = np.zeros(n, dtype=np.int64)
    cols[placed.rows] = placed.cols
    return cols
