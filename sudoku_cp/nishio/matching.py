"""The bipartite-matching relaxation of Nishio: the cells of S in some row-column perfect matching.

Reference: D. Eppstein, "Solving single-digit Sudoku subproblems", FUN 2012 (arXiv 1202.5074),
section 2, recalling the polynomial approximation of his earlier solver (D. Eppstein,
"Nonrepetitive paths and cycles in graphs with application to Sudoku", arXiv cs/0507053, 2005):
take the bipartite graph with the rows on one side, the columns on the other and an edge (r, c)
for every cell of S.  Its perfect matchings are the sets of n cells of S covering every row and
column once, boxes ignored; S'' is the set of edges lying in at least one of them.  Every valid
placement is such a matching, so S' (the exact closure) is a subset of S'' and S'' of S: the
eliminations S - S'' are sound, but S'' may keep cells that no valid placement uses.

Computation: one maximum matching (``scipy.sparse.csgraph.maximum_bipartite_matching``,
Hopcroft-Karp, O(|S| sqrt(n))); if it is not perfect, S'' is empty.  Otherwise orient the matched
edges row -> column and the other edges column -> row; an unmatched edge lies in some perfect
matching iff it closes an alternating cycle, that is iff its two ends are in the same strongly
connected component (``connected_components(connection='strong')``, linear time).

The method answers the closure only.  A perfect matching need not respect the boxes, so it is
not a placement, and the number of perfect matchings is not the number of placements:
``decide`` (so ``find_placement``) and ``count_placements`` raise NotImplementedError instead of answering
wrongly (use an exact method for those questions).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from ..geometry import Geometry
from ..limits import Deadline
from .instance import NishioInstance
from .method import Decision, NishioCount, NishioMethod

__all__ = ["MatchingNishio", "matching_closure", "perfect_matching", "unit_pair_prune"]


def perfect_matching(mask: np.ndarray) -> np.ndarray | None:
    """A row -> column perfect matching inside an (n, n) bool mask (column per row), or None."""
    mask = np.asarray(mask, dtype=bool)
    n = mask.shape[0]
    if not mask.any(axis=1).all() or not mask.any(axis=0).all():
        return None
    graph = csr_matrix(mask.astype(np.int8))
    match = maximum_bipartite_matching(graph, perm_type="column")
    if n == 0 or (match < 0).any():
        return None
    return np.asarray(match, dtype=np.int64)


def matching_closure(mask: np.ndarray) -> np.ndarray:
    """S'': the cells of an (n, n) bool mask lying in at least one row-column perfect matching."""
    mask = np.asarray(mask, dtype=bool)
    n = mask.shape[0]
    match = perfect_matching(mask)
    if match is None:
        return np.zeros((n, n), dtype=bool)
    rows, cols = np.nonzero(mask)
    matched = match[rows] == cols
    # Vertices 0..n-1 are rows, n..2n-1 columns: matched edges row -> column, others column -> row.
    tail = np.where(matched, rows, n + cols)
    head = np.where(matched, n + cols, rows)
    graph = csr_matrix((np.ones(rows.size, dtype=np.int8), (tail, head)), shape=(2 * n, 2 * n))
    _, label = connected_components(graph, directed=True, connection="strong")
    keep = matched | (label[rows] == label[n + cols])
    out = np.zeros((n, n), dtype=bool)
    out[rows[keep], cols[keep]] = True
    return out


def unit_pair_prune(geometry: Geometry, mask: np.ndarray) -> np.ndarray:
    """S pruned by three matching relaxations to a fixed point: rows x columns, rows x boxes, columns x boxes.

    A valid placement matches rows to columns, rows to boxes and columns to boxes perfectly, so a
    cell whose (row, column), (row, box) or (column, box) pair lies in no perfect matching of the
    pairs S still offers is in no placement.  The result holds every placement of S, so the exact
    closure of the pruned set equals that of S; it is empty when a Hall condition fails.
    """
    n = geometry.n
    box = geometry.box_of_cell.reshape(n, n)
    rows = np.arange(n)[:, None]
    cols = np.arange(n)[None, :]
    mask = np.asarray(mask, dtype=bool)
    while True:
        before = int(mask.sum())
        mask = mask & matching_closure(mask)
        pairs = np.zeros((n, n), dtype=bool)
        pairs[np.broadcast_to(rows, (n, n))[mask], box[mask]] = True
        mask = mask & matching_closure(pairs)[rows, box]
        pairs = np.zeros((n, n), dtype=bool)
        pairs[np.broadcast_to(cols, (n, n))[mask], box[mask]] = True
        mask = mask & matching_closure(pairs)[cols, box]
        if int(mask.sum()) == before:
            return mask


class MatchingNishio(NishioMethod):
    """The matching relaxation S'' (boxes ignored): sound but inexact, and answering closure only."""

    name = "matching"
    exact = False

    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """Not answered: a row-column perfect matching is not necessarily a valid placement."""
        raise NotImplementedError(
            "the matching relaxation ignores boxes, so it cannot find a valid placement; "
            "use an exact Nishio method (dag, overlay, sat, ...) for the decision question"
        )

    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray:
        """S'' (a superset of the exact closure S'); polynomial, so the time limit is not needed."""
        return matching_closure(instance.mask)

    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount:
        """Not answered: perfect matchings are not placements, so their number is no count of them."""
        raise NotImplementedError(
            "the matching relaxation ignores boxes, so it cannot count valid placements; "
            "use an exact Nishio method (dag, overlay, sat, ...) to count"
        )
