"""Aligned exclusion: the aligned pair (Sudoku Explainer's 6.2) and triplet (7.5) exclusions.

Take two (or three) open cells, the base.  In every solution they hold one combination of their
candidates, one digit each, and that combination is "allowed": two base cells sharing a unit hold
different digits, and no excluding cell is left empty.  An excluding cell is an open cell of two
(or up to three) candidates, outside the base, that sees every base cell: it can hold no digit the
base holds, so a combination whose digits cover all its candidates would empty it.  A candidate of
a base cell that no allowed combination uses is in no solution: it goes.

The search (compiled) tries, in cell order, every base of open cells with an excluding cell in
common that holds only digits of the base (any other is never emptied), and returns the first that
removes something; what repeated digits alone rule out, the lighter subset rules take first.
Candidates are bit masks of one machine word, and the triplets grow with the cube of the open
cells: the rules run on grids up to ``chain_search.SEARCH_MAX_SIDE`` and report nothing above.
"""

from __future__ import annotations

import numba
import numpy as np

from ..board import Board
from ..step import Step
from .base import Rule
from .chain_search import SEARCH_MAX_SIDE, _lowest, sees_table

__all__ = ["RULES", "aligned_exclusion"]

_NONE = np.zeros((0, 2), dtype=np.int64)
_NAMES = {2: "aligned-pair-exclusion", 3: "aligned-triplet-exclusion"}
#: Sudoku Explainer's weights (aligned pair 6.2, aligned triplet 7.5).
_WEIGHTS = {2: 6.2, 3: 7.5}
#: Per box shape and degree, the candidate masks of the last state searched where no base removed
#: anything: the engine searches successive states of one puzzle, and a base that none of the
#: changes touches is not searched again.  Any such state will do (a fact about that state), so
#: the entry is only ever replaced whole.
_barren: dict[tuple[int, int, int], np.ndarray] = {}
_UNKNOWN = np.zeros(0, np.int64)


@numba.njit(cache=True, inline="always")
def _has(bits: np.ndarray, i: int) -> bool:
    return bool((bits[i >> 6] >> np.uint64(i & 63)) & np.uint64(1))


@numba.njit(cache=True)
def _allowed_triplet(
    base: np.ndarray, masks: np.ndarray, n_digits: int, sees: np.ndarray, excl: np.ndarray, nexcl: int,
    keep: np.ndarray,
) -> None:  # fmt: skip  # pragma: no cover - compiled
    """``keep[i]``: the digits of base cell i that some allowed combination of the three uses.
    For x in the first cell and y in the second the third cell's digit z is forbidden when it
    repeats x or y in a unit, or when an excluding cell holds z and nothing else beyond x and y
    (one holding only x and y forbids every z); each allowed (x, y, z) keeps all three digits, and
    the search stops once every digit of the three cells is kept (nothing can go)."""
    a, b, c = base[0], base[1], base[2]
    sab = _has(sees[a], b)
    sac = _has(sees[a], c)
    sbc = _has(sees[b], c)
    first, second, third = masks[a], masks[b], masks[c]
    keep[0] = 0
    keep[1] = 0
    keep[2] = 0
    for x in range(n_digits):
        bx = np.int64(1) << x
        if not first & bx:
            continue
        for y in range(n_digits):
            by = np.int64(1) << y
            if not second & by or (y == x and sab):
                continue
            blocked = (bx if sac else np.int64(0)) | (by if sbc else np.int64(0))
            every = False
            for e in range(nexcl):
                rest = masks[excl[e]] & ~(bx | by)
                if rest == 0:
                    every = True
                    break
                if rest & (rest - 1) == 0:
                    blocked |= rest
            free = third & ~blocked
            if every or not free:
                continue
            keep[0] |= bx
            keep[1] |= by
            keep[2] |= free
            if keep[0] == first and keep[1] == second and keep[2] == third:
                return


@numba.njit(cache=True)
def _allowed_pair(
    base: np.ndarray, masks: np.ndarray, n_digits: int, sees: np.ndarray, excl: np.ndarray, nexcl: int,
    keep: np.ndarray,
) -> None:  # fmt: skip  # pragma: no cover - compiled
    """``_allowed_triplet`` for two cells: the excluding cells of a pair have two
    digits, so (x, y) is forbidden exactly when x = y in cells that see each other or some
    excluding cell holds {x, y}; a digit of one cell stays when the other has a digit left."""
    see = _has(sees[base[0]], base[1])
    for i in range(2):
        mine = masks[base[i]]
        other = masks[base[1 - i]]
        keep[i] = 0
        for x in range(n_digits):
            bit = np.int64(1) << x
            if not mine & bit:
                continue
            blocked = bit if see else np.int64(0)
            for e in range(nexcl):
                if masks[excl[e]] & bit:
                    blocked |= masks[excl[e]] & ~bit
            if other & ~blocked:
                keep[i] |= bit


@numba.njit(cache=True)
def _aligned(
    cand: np.ndarray, values: np.ndarray, sees: np.ndarray, degree: int, out: np.ndarray, used: np.ndarray,
    before: np.ndarray, masks: np.ndarray,
) -> int:  # fmt: skip  # pragma: no cover - compiled
    """The first base of ``degree`` cells (cell order) whose allowed combinations leave out some of
    its candidates: ``out[:3]`` the base cells, ``out[3:6]`` the digit mask each loses, ``used`` the
    excluding cells (returned: how many); 0 when there is none.  ``masks`` receives each cell's
    candidates as a bit mask (0: placed).

    ``before``: the masks of a state where no base removed anything (empty: none known).  What a
    base removes depends only on the masks of its cells and of the cells that see all of them (its
    excluding cells), so a base whose cells and common peers all kept their masks still removes
    nothing and is not tried: the first base that removes something is the same."""
    ncell, n = cand.shape
    words = sees.shape[1]
    masks[:] = 0
    nbase = 0
    exbits = np.zeros(words, np.uint64)
    basebits = np.zeros(words, np.uint64)  # the open cells of two digits or more
    digitbits = np.zeros((n, words), np.uint64)  # the base cells holding each digit
    for c in range(ncell):
        if values[c] != 0:
            continue
        size = 0
        for d in range(n):
            if cand[c, d]:
                masks[c] |= np.int64(1) << d
                size += 1
        if size >= 2:
            nbase += 1
            basebits[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
            for d in range(n):
                if cand[c, d]:
                    digitbits[d, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
            if size <= degree:
                exbits[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    if nbase < degree:
        return 0
    # the cells whose masks changed since ``before`` (all of them when nothing is known)
    known = before.shape[0] == ncell
    changed = np.zeros(words, np.uint64)
    for c in range(ncell):
        if not known or before[c] != masks[c]:
            changed[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    if known:
        unchanged = True
        for t in range(words):
            unchanged = unchanged and changed[t] == 0
        if unchanged:
            return 0
    near = np.zeros((ncell, words), np.uint64)  # the excluding cells each cell sees
    for c in range(ncell):
        for t in range(words):
            near[c, t] = sees[c, t] & exbits[t]
    # pairs: partner[c, x], the digits the excluding cells c sees pair with x (all that can block x)
    partner = np.zeros((ncell if degree == 2 else 0, n), np.int64)
    if degree == 2:
        _partners(exbits, masks, sees, partner)
    base = np.empty(3, np.int64)
    common = np.empty(words, np.uint64)
    common3 = np.empty(words, np.uint64)
    first = np.empty(words, np.uint64)  # the excluding cells the first base cell sees
    nexts = np.empty(words, np.uint64)  # the cells that can be the second base cell
    thirds = np.empty(words, np.uint64)  # the cells that can be the third
    nearby = np.empty(words, np.uint64)  # the changed cells that see both of a pair
    excl = np.empty(ncell, np.int64)
    keep = np.empty(3, np.int64)
    for a in range(ncell):
        if not (basebits[a >> 6] >> np.uint64(a & 63)) & np.uint64(1):
            continue
        base[0] = a
        for t in range(words):
            first[t] = near[a, t]
        if degree == 2:
            # a base removes nothing without an excluding cell that sees both cells and holds only
            # their digits: the second cell sees such a cell e of a's and holds e's digits a has not
            _reachable(first, masks[a], masks, sees, basebits, digitbits, a, nexts)
        else:
            for t in range(words):
                nexts[t] = basebits[t]
            _after(nexts, a)
        for t in range(words):
            bits_b = nexts[t]
            while bits_b:
                b = t * 64 + _lowest(bits_b)
                bits_b &= bits_b - np.uint64(1)
                base[1] = b
                shared = False
                for u in range(words):
                    common[u] = first[u] & near[b, u]
                    shared = shared or common[u] != 0
                if not shared:
                    continue
                # changed cells among the pair's common peers; whether a pair cell changed
                moved = _has(changed, a) or _has(changed, b)
                peers_moved = False
                for u in range(words):
                    nearby[u] = changed[u] & sees[a, u] & sees[b, u]
                    peers_moved = peers_moved or nearby[u] != 0
                if degree == 2:
                    if not (moved or peers_moved):
                        continue  # as in ``before``: it removes nothing
                    see = _has(sees[a], b)
                    if not (
                        _may_lose(masks[a], masks[b], partner[a], see)
                        or _may_lose(masks[b], masks[a], partner[b], see)
                    ):
                        continue  # no digit of either cell is blocked in every combination
                    found = _try_base(base, degree, masks, n, sees, common, excl, keep, out, used)
                    if found:
                        return found
                    continue
                # the third cell likewise: it sees an excluding cell the pair sees and holds what
                # that cell holds beyond the pair's digits (else _try_base finds no excluding cell)
                _reachable(common, masks[a] | masks[b], masks, sees, basebits, digitbits, b, thirds)
                if not (moved or peers_moved):
                    for v in range(words):
                        thirds[v] &= changed[v]  # only a changed third cell makes a new base
                for v in range(words):
                    bits_c = thirds[v]
                    while bits_c:
                        c = v * 64 + _lowest(bits_c)
                        bits_c &= bits_c - np.uint64(1)
                        base[2] = c
                        if not (moved or _has(changed, c)):
                            fresh = False
                            for w in range(words):
                                fresh = fresh or (nearby[w] & sees[c, w]) != 0
                            if not fresh:
                                continue  # as in ``before``: it removes nothing
                        for w in range(words):
                            common3[w] = common[w] & near[c, w]
                        found = _try_base(base, degree, masks, n, sees, common3, excl, keep, out, used)
                        if found:
                            return found
    return 0


@numba.njit(cache=True)
def _partners(
    exbits: np.ndarray, masks: np.ndarray, sees: np.ndarray, partner: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``partner[c, x]`` |= the other digit of every excluding cell of a pair (two digits) that c
    sees and that holds x: the only digits that such a cell can forbid beside x."""
    words = exbits.shape[0]
    one = np.uint64(1)
    for t in range(words):
        bits = exbits[t]
        while bits:
            e = t * 64 + _lowest(bits)
            bits &= bits - one
            held = masks[e]
            x = _lowest(np.uint64(held))
            y = _lowest(np.uint64(held & (held - np.int64(1))))
            for u in range(words):
                cells = sees[e, u]
                while cells:
                    c = u * 64 + _lowest(cells)
                    cells &= cells - one
                    partner[c, x] |= np.int64(1) << y
                    partner[c, y] |= np.int64(1) << x


@numba.njit(cache=True, inline="always")
def _may_lose(
    mine: np.int64, other: np.int64, partner: np.ndarray, see: bool
) -> bool:  # pragma: no cover - compiled
    """Whether a digit x of a pair cell (``mine``) can be blocked with every digit of the other
    cell (``other``): ``_allowed_pair`` blocks at most x (the cells seeing each other) and
    ``partner[x]`` (the excluding cells both see are among those the first sees), so unless
    ``other`` lies within those for some x, the pair removes nothing from this cell."""
    rest = mine
    while rest:
        x = _lowest(np.uint64(rest))
        rest &= rest - np.int64(1)
        bit = np.int64(1) << x
        if other & ~((bit if see else np.int64(0)) | partner[x]) == 0:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _after(bits: np.ndarray, cell: int) -> None:  # pragma: no cover - compiled
    """Clear the cells up to ``cell`` (included) from a bitset: bases go in cell order."""
    for t in range(bits.shape[0]):
        low = t * 64
        if low + 63 <= cell:
            bits[t] = np.uint64(0)
        elif low <= cell:
            bits[t] &= ~((np.uint64(2) << np.uint64(cell - low)) - np.uint64(1))


@numba.njit(cache=True)
def _reachable(
    excluders: np.ndarray, held: np.int64, masks: np.ndarray, sees: np.ndarray, basebits: np.ndarray,
    digitbits: np.ndarray, last: int, into: np.ndarray,
) -> None:  # fmt: skip  # pragma: no cover - compiled
    """``into``: the base cells after ``last`` that see one of the ``excluders`` (a bitset) and hold
    every digit of it that ``held`` lacks: the cells that can complete a base whose cells hold
    ``held`` so that some excluding cell sees every base cell and holds only the base's digits."""
    words = into.shape[0]
    for t in range(words):
        into[t] = np.uint64(0)
    for t in range(words):
        bits = excluders[t]
        while bits:
            e = t * 64 + _lowest(bits)
            bits &= bits - np.uint64(1)
            lack = masks[e] & ~held
            for u in range(words):
                cells = sees[e, u] & basebits[u]
                rest = lack
                while rest and cells:
                    d = _lowest(np.uint64(rest))
                    rest &= rest - np.int64(1)
                    cells &= digitbits[d, u]
                into[u] |= cells
    _after(into, last)


@numba.njit(cache=True)
def _try_base(
    base: np.ndarray, degree: int, masks: np.ndarray, n: int, sees: np.ndarray, common: np.ndarray,
    excl: np.ndarray, keep: np.ndarray, out: np.ndarray, used: np.ndarray,
) -> int:  # fmt: skip  # pragma: no cover - compiled
    """The number of excluding cells (of ``common``, a bitset) with which the base removes
    something, its cells and losses in ``out`` and those cells in ``used``; 0 when it removes
    nothing."""
    union = np.int64(0)
    for i in range(degree):
        union |= masks[base[i]]
    nexcl = int(np.int64(0))  # not a literal 0: numba would compile the callees twice
    for t in range(common.shape[0]):
        bits = common[t]
        while bits:
            e = t * 64 + _lowest(bits)
            bits &= bits - np.uint64(1)
            # a cell holding a digit no base cell has is never emptied: it excludes nothing
            if masks[e] & ~union == 0:
                excl[nexcl] = e
                nexcl += 1
    if nexcl == 0:
        return 0  # what repeats alone rules out, the lighter subset rules took first
    if degree == 2:
        _allowed_pair(base, masks, n, sees, excl, nexcl, keep)
    else:
        _allowed_triplet(base, masks, n, sees, excl, nexcl, keep)
    gone = False
    for i in range(degree):
        if masks[base[i]] & ~keep[i]:
            gone = True
    if not gone:
        return 0
    for i in range(degree):
        out[i] = base[i]
        out[3 + i] = masks[base[i]] & ~keep[i]
    used[:nexcl] = excl[:nexcl]
    return nexcl


def aligned_exclusion(board: Board, degree: int) -> Step | None:
    """The first aligned exclusion of ``degree`` base cells (2: pair, 3: triplet), or None."""
    if board.n > SEARCH_MAX_SIDE:
        return None
    out = np.zeros(6, np.int64)
    used = np.empty(board.n * board.n, np.int64)
    masks = np.empty(board.n * board.n, np.int64)
    key = (board.geometry.p, board.geometry.q, degree)
    before = _barren.get(key, _UNKNOWN)
    count = _aligned(board.cand, board.values, sees_table(board.geometry), degree, out, used, before, masks)
    if not count:
        _barren[key] = masks  # a state where no base removes anything: the next search starts from it
        return None
    base = [int(c) for c in out[:degree]]
    excluding = [int(c) for c in used[:count]]
    gone = [(c, d) for i, c in enumerate(base) for d in range(board.n) if (int(out[3 + i]) >> d) & 1]
    name = board.geometry.cell_name

    def held(c: int) -> str:
        return "".join(str(d + 1) for d in np.flatnonzero(board.cand[c]))

    removed = ", ".join(f"{d + 1} from {name(c)}" for c, d in gone)
    at = ", ".join(f"{d + 1} at {name(c)}" for c, d in gone)
    note = (
        f"{' '.join(f'{name(c)}{{{held(c)}}}' for c in base)}: every combination of their digits that uses "
        f"{at} repeats a digit in a unit or leaves one of "
        f"{' '.join(f'{name(c)}{{{held(c)}}}' for c in excluding)} (each seeing all of them) without a "
        f"digit, so {removed} goes"
    )
    digits = tuple(sorted({d for c in (*base, *excluding) for d in np.flatnonzero(board.cand[c]).tolist()}))
    return Step(
        _NAMES[degree], _NONE, np.array(gone, dtype=np.int64).reshape(-1, 2), (*base, *excluding), (), digits,
        note=note,
    )  # fmt: skip


def _rule(degree: int) -> Rule:
    def find(board: Board) -> Step | None:
        return aligned_exclusion(board, degree)

    find.__doc__ = f"The first {_NAMES[degree]} on the board."
    what = "two" if degree == 2 else "three"
    return Rule(
        _NAMES[degree],
        "aligned",
        f"{what} cells take one digit each: a digit of one that every such combination with it repeats in a "
        "unit or leaves a cell seeing them all without a digit goes",
        _WEIGHTS[degree],
        find,
    )


RULES: tuple[Rule, ...] = (_rule(2), _rule(3))
