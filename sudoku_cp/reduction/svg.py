"""SVG picture of a 3-SAT -> Nishio reduction: the grid with box lines, each gadget's boxes tinted and
labelled, its cells of S coloured by role, the fill in grey and the Theorem 6.2 witness cells outlined."""

from __future__ import annotations

from xml.sax.saxutils import escape

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


def reduction_svg(reduction: Reduction, *, title: str | None = None) -> str:
    """An SVG document of the reduction's grid: gadget boxes tinted and labelled, cells of S by role.

    Variable gadgets are blue (true cells filled, false cells as rings), clause gadgets orange
    (truth-row cells filled, conflict cells as rings, terminal cells red), equality gadgets
    green, fill cells grey; witness cells (Theorem 6.2) get a black outline.
    """
    layout = reduction.layout
    k, n = reduction.k, reduction.n
    cell = max(4, min(36, 900 // n))
    side = n * cell
    top = _MARGIN + 20
    width = max(side + 2 * _MARGIN, 640)
    height = top + side + 56
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    heading = title or (
        f"{'Theorem 6.2' if reduction.nonempty else 'Theorem 6.1'}: "
        f"{reduction.formula.num_clauses} clauses, {reduction.formula.num_vars} variables -> "
        f"{n}x{n} grid, {k}x{k} boxes, |S| = {reduction.instance.size}"
    )
    out.append(f'<text x="{_MARGIN}" y="{_MARGIN}" font-size="13">{escape(heading)}</text>')

    def box_rect(band: int, stack: int, colour: str, label: str) -> None:
        x, y = _MARGIN + stack * k * cell, top + band * k * cell
        out.append(f'<rect x="{x}" y="{y}" width="{k * cell}" height="{k * cell}" fill="{colour}"/>')
        if label and cell >= 8:
            size = max(7, min(11, k * cell // 4))
            out.append(
                f'<text x="{x + 2}" y="{y + size}" font-size="{size}" fill="#374151" stroke="white" '
                f'stroke-width="3" paint-order="stroke">{escape(label)}</text>'
            )

    for v in layout.variables:
        for i, (band, stack) in enumerate(v.blocks(k)):
            box_rect(band, stack, _TINT["variable"], f"x{v.variable}" + (f".{i + 1}" if v.size > 1 else ""))
    for gadget in layout.clauses:
        blocks = gadget.blocks(k)
        for j, (band, stack) in enumerate(blocks[:-1]):
            box_rect(band, stack, _TINT["clause"], f"C{gadget.clause + 1}:{_literal(gadget.literals[j])}")
        box_rect(*blocks[-1], _TINT["clause"], f"C{gadget.clause + 1} end")
    for e in layout.equalities:
        for band, stack in e.blocks(k):
            box_rect(band, stack, _TINT["equality"], f"x{e.variable}=")

    if cell >= 8:
        for line in range(n + 1):
            if line % k:
                x, y = _MARGIN + line * cell, top + line * cell
                out.append(f'<line x1="{_MARGIN}" y1="{y}" x2="{_MARGIN + side}" y2="{y}" stroke="#d1d5db"/>')
                out.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{top + side}" stroke="#d1d5db"/>')
    for line in range(0, n + 1, k):
        x, y = _MARGIN + line * cell, top + line * cell
        out.append(
            f'<line x1="{_MARGIN}" y1="{y}" x2="{_MARGIN + side}" y2="{y}" stroke="black" stroke-width="2"/>'
        )
        out.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{top + side}" stroke="black" stroke-width="2"/>')

    radius = cell * 0.32

    def dot(r: int, c: int, ink: str, filled: bool, note: str) -> None:
        cx, cy = _MARGIN + c * cell + cell / 2, top + r * cell + cell / 2
        paint = (
            f'fill="{ink}"' if filled else f'fill="white" stroke="{ink}" stroke-width="{max(1.0, cell / 10)}"'
        )
        out.append(
            f'<circle cx="{cx}" cy="{cy}" r="{radius:.2f}" {paint}>'
            f"<title>R{r + 1}C{c + 1} {escape(note)}</title></circle>"
        )

    drawn = set()
    for v in layout.variables:
        for cells, value in ((v.true_cells(), True), (v.false_cells(), False)):
            for r, c in cells.tolist():
                if (r, c) not in drawn:
                    dot(r, c, _INK["variable"], value, f"x{v.variable} {'true' if value else 'false'}")
                    drawn.add((r, c))
    for g in layout.clauses:
        for j, lit in enumerate(g.literals):
            dot(
                g.truth_row,
                g.truth_column(j),
                _INK["clause"],
                True,
                f"C{g.clause + 1} truth row, {_literal(lit)}",
            )
            for col in g.term_columns[j]:
                dot(g.conflict_rows[j], col, _INK["clause"], False, f"C{g.clause + 1} conflict row {j + 1}")
            dot(g.conflict_rows[j], g.terminal_column, _INK["terminal"], True, f"C{g.clause + 1} terminal")
            drawn.update(
                {(g.truth_row, g.truth_column(j)), (g.conflict_rows[j], g.terminal_column)}
                | {(g.conflict_rows[j], col) for col in g.term_columns[j]}
            )
    for e in layout.equalities:
        for r, c in e.cells().tolist():
            dot(r, c, _INK["equality"], True, f"x{e.variable} equality")
            drawn.add((r, c))
    for r, c in reduction.instance.cells():
        if (r, c) not in drawn:
            dot(r, c, _INK["fill"], True, "fill")
    for r, c in reduction.witness_cells:
        x, y = _MARGIN + c * cell + 1, top + r * cell + 1
        out.append(
            f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="none" stroke="black" '
            f'stroke-width="{max(1.0, cell / 8)}"><title>witness R{r + 1}C{c + 1}</title></rect>'
        )
    legend = [
        "blue: variable gadget (filled = true cell, ring = false cell); green: equality gadget",
        "orange: clause gadget (filled = truth row, ring = conflict row); red: terminal; grey: fill"
        + ("; outlined: witness cells" if reduction.witness_cells else ""),
    ]
    for i, text in enumerate(legend):
        out.append(f'<text x="{_MARGIN}" y="{top + side + 18 + 14 * i}" font-size="10">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
