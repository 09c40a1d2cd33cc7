"""Wings of an almost locked set: the XYZ-, WXYZ- and VWXYZ-wing.

An almost locked set is m cells of one unit holding m + 1 digits together.  A pivot is a
two-digit cell {x, z} outside it that sees every cell of the set holding x.  If the pivot is x,
the set loses x and its m cells lock m digits, z among them; else the pivot is z.  So z is in the
pivot or in the set's cells holding z, and a cell that sees the pivot and all of those loses z.
m = 2 is the XYZ-wing (4.4; the XY-wing 4.2 when the set's cells have two digits each, which the
local ``xy-wing`` finds first), 3 the WXYZ-wing (5.5-5.6), 4 the VWXYZ-wing (6.2-6.4); the search
(``chain_search.wing_search``) takes the lightest of a size (``scale.wing_weight``).
"""

from __future__ import annotations

import numpy as np

from ..board import Board
from ..step import Step
from .base import Rule
from .chain_search import SEARCH_MAX_SIDE, wing_search
from .scale import WING_WEIGHT, wing_weight

__all__ = ["RULES"]

_NONE = np.zeros((0, 2), dtype=np.int64)
_NAMES = {2: "xyz-wing", 3: "wxyz-wing", 4: "vwxyz-wing"}


def _wing_rule(size: int) -> Rule:
    name = _NAMES[size]
    lightest = min(wing_weight(size, widest) for widest in range(3 if size == 2 else 2, size + 2))

    def find(board: Board) -> Step | None:
        if board.n > SEARCH_MAX_SIDE:
            return None
        found = wing_search(board, size)
        if found is None:
            return None
        z, x = found.digit, found.x
        # every cell seeing the pivot and the set's z's loses z (the search names the first)
        zs = [c for c in found.cells if board.cand[c, z]]
        peers = board.tables.peers
        gone = {found.cell}
        seen_by = [set(peers[a].tolist()) for a in zs]
        for c in peers[found.pivot].tolist():
            if (
                board.values[c] == 0
                and board.cand[c, z]
                and c not in found.cells
                and all(c in s for s in seen_by)
            ):
                gone.add(c)
        eliminations = np.array([[c, z] for c in sorted(gone)], dtype=np.int64)
        weight = max(lightest, wing_weight(size, found.widest))
        if board.terse:  # what the step changes alone: the engine only counts it
            return Step(name, _NONE, eliminations, weight=weight)
        cell_name = board.geometry.cell_name
        held = sorted({int(d) for c in found.cells for d in np.flatnonzero(board.cand[c])})
        note = (
            f"{' '.join(cell_name(c) for c in found.cells)} hold {{{','.join(str(d + 1) for d in held)}}}"
            f" and pivot {cell_name(found.pivot)} {{{x + 1},{z + 1}}} sees each of their {x + 1}s:"
            f" if the pivot"
            f" is {x + 1}, the set locks {z + 1}; so {z + 1} is in the pivot or the set, and"
            f" {cell_name(found.cell)}, seeing all of them, loses it"
        )
        return Step(
            name, _NONE, eliminations, (found.pivot, *found.cells), (), tuple(held), note=note, weight=weight
        )

    find.__doc__ = f"The lightest {name} on the board."
    description = (
        f"{size} cells of a unit holding {size + 1} digits and a two-digit pivot {{x,z}} seeing their x's: "
        "what sees the pivot and their z's loses z"
    )
    return Rule(name, "als", description, lightest, find)


RULES: tuple[Rule, ...] = tuple(_wing_rule(size) for size in sorted(WING_WEIGHT))
