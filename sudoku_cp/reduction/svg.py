"""SVG picture of a 3-SAT -> Nishio reduction: the grid with box lines, each gadget's boxes tinted and
labelled, its cells of S coloured by role, the fill in grey and the Theorem 6.2 witness cells outlined."""

from __future__ import annotations

from ..svg import THICK, THIN, GridPicture
from .construction import Reduction

__all__ = ["reduction_svg"]

_MARGIN = 28
_TINT = {"variable": "#dbeafe", "clause": "#fde7d2", "equality": "#dcfce7"}
_INK = {
    "variable": "#1d4ed8",
    "clause": "#c2410c",
    "terminal": "#b91c1c",
    "equality": "#15803d",
    "fill": "#9ca3af",
}


def _literal(lit: int) -> str:
    return f"x{lit}" if lit > 0 else f"\u00acx{-lit}"


class _Layout:
    """The reduction's picture: a grid picture with gadget boxes and cells drawn by role."""

    def __init__(self, reduction: Reduction, title: str | None) -> None:
        k, n = reduction.k, reduction.n
        self.cell = max(4, min(36, 900 // n))
        heading = title or (
            f"{'Theorem 6.2' if reduction.nonempty else 'Theorem 6.1'}: "
            f"{reduction.formula.num_clauses} clauses, {reduction.formula.num_vars} variables -> "
            f"{n}x{n} grid, {k}x{k} boxes, |S| = {reduction.instance.size}"
        )
        self.picture = GridPicture(
            n,
            (k, k),
            cell=self.cell,
            margin=_MARGIN,
            title=heading,
            title_size=13,
            header=20,
            footer=56,
            min_width=640,
        )
        self.k = k
        self.drawn: set[tuple[int, int]] = set()

    def box(self, band: int, stack: int, tint: str, label: str) -> None:
        """A gadget's box, tinted, with a label in its corner when cells are large enough to read it."""
        self.picture.fill_box(band, stack, tint)
        if label and self.cell >= 8:
            x, y = self.picture.box_corner(band, stack)
            size = max(7, min(11, self.k * self.cell // 4))
            self.picture.text(x + 2, y + size, label, size=size, colour="#374151", halo=True)

    def dot(self, r: int, c: int, ink: str, filled: bool, note: str) -> None:
        """A cell of S: a disc (filled) or a ring, with its role as tooltip."""
        radius, title = self.cell * 0.32, f"R{r + 1}C{c + 1} {note}"
        if filled:
            self.picture.disc(r, c, ink, radius=radius, title=title)
        else:
            self.picture.ring(r, c, ink, radius=radius, width=max(1.0, self.cell / 10), title=title)
        self.drawn.add((r, c))


def reduction_svg(reduction: Reduction, *, title: str | None = None) -> str:
    """An SVG document of the reduction's grid: gadget boxes tinted and labelled, cells of S by role.

    Variable gadgets are blue (true cells filled, false cells as rings), clause gadgets orange
    (truth-row cells filled, conflict cells as rings, terminal cells red), equality gadgets
    green, fill cells grey; witness cells (Theorem 6.2) get a black outline.
    """
    layout = reduction.layout
    k = reduction.k
    drawing = _Layout(reduction, title)
    for v in layout.variables:
        for i, (band, stack) in enumerate(v.blocks(k)):
            drawing.box(
                band, stack, _TINT["variable"], f"x{v.variable}" + (f".{i + 1}" if v.size > 1 else "")
            )
    for gadget in layout.clauses:
        blocks = gadget.blocks(k)
        for j, (band, stack) in enumerate(blocks[:-1]):
            drawing.box(band, stack, _TINT["clause"], f"C{gadget.clause + 1}:{_literal(gadget.literals[j])}")
        drawing.box(*blocks[-1], _TINT["clause"], f"C{gadget.clause + 1} end")
    for e in layout.equalities:
        for band, stack in e.blocks(k):
            drawing.box(band, stack, _TINT["equality"], f"x{e.variable}=")
    drawing.picture.lines(thin=THIN if drawing.cell >= 8 else None, thick=THICK)

    for v in layout.variables:
        for cells, value in ((v.true_cells(), True), (v.false_cells(), False)):
            for r, c in cells.tolist():
                if (r, c) not in drawing.drawn:
                    drawing.dot(
                        r, c, _INK["variable"], value, f"x{v.variable} {'true' if value else 'false'}"
                    )
    for g in layout.clauses:
        for j, lit in enumerate(g.literals):
            note = f"C{g.clause + 1} truth row, {_literal(lit)}"
            drawing.dot(g.truth_row, g.truth_column(j), _INK["clause"], True, note)
            for col in g.term_columns[j]:
                drawing.dot(
                    g.conflict_rows[j], col, _INK["clause"], False, f"C{g.clause + 1} conflict row {j + 1}"
                )
            drawing.dot(
                g.conflict_rows[j], g.terminal_column, _INK["terminal"], True, f"C{g.clause + 1} terminal"
            )
    for e in layout.equalities:
        for r, c in e.cells().tolist():
            drawing.dot(r, c, _INK["equality"], True, f"x{e.variable} equality")
    for r, c in reduction.instance.cells():
        if (r, c) not in drawing.drawn:
            drawing.dot(r, c, _INK["fill"], True, "fill")
    width = max(1.0, drawing.cell / 8)
    for r, c in reduction.witness_cells:
        drawing.picture.outline(r, c, "black", inset=1, width=width, title=f"witness R{r + 1}C{c + 1}")
    drawing.picture.legend(
        [
            "blue: variable gadget (filled = true cell, ring = false cell); green: equality gadget",
            "orange: clause gadget (filled = truth row, ring = conflict row); red: terminal; grey: fill"
            + ("; outlined: witness cells" if reduction.witness_cells else ""),
        ]
    )
    return drawing.picture.svg()
