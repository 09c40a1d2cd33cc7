"""SVG pictures of Nishio instances: the grid with box lines, S, the closure S' and the eliminations."""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

from .instance import NishioInstance

__all__ = ["closure_svg"]

_CELL = 28
_MARGIN = 24
_KEPT = "#2b6cb0"
_ELIMINATED = "#c53030"


def closure_svg(
    instance: NishioInstance,
    closure: np.ndarray | None,
    *,
    title: str = "",
    witness: np.ndarray | None = None,
) -> str:
    """An SVG document: cells of S' as blue discs, eliminated cells of S as red crosses.

    With ``closure`` None every cell of S is drawn as a grey disc (the closure is unknown).
    ``witness`` (column per row) outlines the cells of one placement.
    """
    g = instance.geometry
    n = g.n
    side = n * _CELL
    top = _MARGIN + (18 if title else 0)
    width = side + 2 * _MARGIN
    height = side + top + _MARGIN + 22
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    if title:
        out.append(f'<text x="{_MARGIN}" y="{_MARGIN}" font-size="14">{escape(title)}</text>')
    for k in range(n + 1):
        heavy_row = k % g.p == 0
        heavy_col = k % g.q == 0
        y = top + k * _CELL
        x = _MARGIN + k * _CELL
        out.append(
            f'<line x1="{_MARGIN}" y1="{y}" x2="{_MARGIN + side}" y2="{y}" '
            f'stroke="black" stroke-width="{2.5 if heavy_row else 0.6}"/>'
        )
        out.append(
            f'<line x1="{x}" y1="{top}" x2="{x}" y2="{top + side}" '
            f'stroke="black" stroke-width="{2.5 if heavy_col else 0.6}"/>'
        )
    for k in range(n):
        out.append(
            f'<text x="{_MARGIN + k * _CELL + _CELL / 2}" y="{top - 5}" font-size="9" '
            f'text-anchor="middle" fill="#555">{k + 1}</text>'
        )
        out.append(
            f'<text x="{_MARGIN - 5}" y="{top + k * _CELL + _CELL / 2 + 3}" font-size="9" '
            f'text-anchor="end" fill="#555">{k + 1}</text>'
        )
    radius = _CELL * 0.3
    for r, c in instance.cells():
        cx = _MARGIN + c * _CELL + _CELL / 2
        cy = top + r * _CELL + _CELL / 2
        name = g.cell_name(r * n + c)
        if closure is None:
            out.append(f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="#999"><title>{name}</title></circle>')
        elif closure[r, c]:
            out.append(
                f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="{_KEPT}">'
                f"<title>{name} in S'</title></circle>"
            )
        else:
            d = radius
            out.append(
                f'<path d="M{cx - d},{cy - d}L{cx + d},{cy + d}M{cx - d},{cy + d}L{cx + d},{cy - d}" '
                f'stroke="{_ELIMINATED}" stroke-width="3"><title>{name} eliminated</title></path>'
            )
    if witness is not None:
        for r, c in enumerate(witness):
            x = _MARGIN + int(c) * _CELL + 3
            y = top + r * _CELL + 3
            out.append(
                f'<rect x="{x}" y="{y}" width="{_CELL - 6}" height="{_CELL - 6}" fill="none" '
                f'stroke="#2f855a" stroke-width="2"/>'
            )
    kept = None if closure is None else int(closure.sum())
    legend = (
        f"S: {instance.size} cells"
        + ("" if kept is None else f"   S': {kept} (blue)   eliminated: {instance.size - kept} (red)")
        + ("" if witness is None else "   one placement: green")
    )
    out.append(f'<text x="{_MARGIN}" y="{top + side + 18}" font-size="11">{escape(legend)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
