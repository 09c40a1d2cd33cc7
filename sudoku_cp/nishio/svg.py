"""SVG pictures of Nishio instances: the grid with box lines, S, the closure S' and the eliminations."""

from __future__ import annotations

import numpy as np

from ..svg import GridPicture, Stroke
from .instance import NishioInstance

__all__ = ["closure_svg"]

_CELL = 28
_KEPT = "#2b6cb0"
_ELIMINATED = "#c53030"
_UNKNOWN = "#999"
_WITNESS = "#2f855a"


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
    picture = GridPicture(g.n, (g.p, g.q), cell=_CELL, title=title)
    picture.lines(thin=Stroke("black", 0.6), thick=Stroke("black", 2.5))
    picture.numbers()
    radius = _CELL * 0.3
    for r, c in instance.cells():
        name = g.cell_name(r * g.n + c)
        if closure is None:
            picture.disc(r, c, _UNKNOWN, radius=radius, title=name)
        elif closure[r, c]:
            picture.disc(r, c, _KEPT, radius=radius, title=f"{name} in S'")
        else:
            picture.cross(r, c, _ELIMINATED, half=radius, title=f"{name} eliminated")
    if witness is not None:
        for r, c in enumerate(witness):
            picture.outline(r, int(c), _WITNESS, inset=3, width=2)
    kept = None if closure is None else int(closure.sum())
    legend = (
        f"S: {instance.size} cells"
        + ("" if kept is None else f"   S': {kept} (blue)   eliminated: {instance.size - kept} (red)")
        + ("" if witness is None else "   one placement: green")
    )
    picture.legend([legend], size=11)
    return picture.svg()
