"""The local rules, compiled: singles, locked candidates, naked and hidden subsets, fish, XY-wing.

Each finder scans the board in a fixed order and writes the first instance it finds into a
step record (rows ``(kind, a, b)``: 0 placement (cell, digit), 1 elimination (cell, digit),
2 pattern cell, 3 unit, 4 digit), returning the number of rows (0 = the rule does not apply).
``run_local`` applies the enabled finders, simplest first, to a fixed point inside one compiled
call, for ``rate`` and ``explain`` alike (``explain`` has it log each step it takes); ``find_local``
runs one finder once (a rule's ``find``: ``explain --check`` and the tests), and both take the
same steps.

The subset, fish and wing finders use 64-bit masks over the digits or positions of a unit, so
they apply to grids up to 64 x 64; on larger grids they report nothing (singles and locked
candidates work at any size).  Paper: Eppstein 2005, section 3.1 (local rules); the fish and the
XY-wing are the named patterns players know, special cases of the matching and bivalue rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ...limits import watch_compilation

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = [
    "BAD_RECORD",
    "LOCAL_RULES",
    "LOCAL_TABLE",
    "MARK_COLUMNS",
    "MASK_SIDE",
    "LocalRule",
    "find_local",
    "masks",
    "run_local",
    "run_local_ahead",
]

#: The finders the compiled dispatch knows (``find_local``); a rule is one of them at a size.
HIDDEN_SINGLE, NAKED_SINGLE, POINTING, CLAIMING, NAKED_SUBSET, FISH, HIDDEN_SUBSET, XY_WING = range(8)


@dataclass(frozen=True, slots=True)
class LocalRule:
    """One compiled rule: its name and family (what ``--rules`` takes), its weight on the rating
    scale, the finder (``kernel``) and its ``size`` (cells of a subset, lines of a fish), and a
    player's one-line description.  Its steps are proved by SAT like every other (``proof``)."""

    name: str
    family: str
    weight: float
    kernel: int
    size: int
    description: str


#: The compiled rules, one row each, in the engine's order (lightest first, as Sudoku Explainer
#: ranks them); a row's index is its kernel id.  A new compiled rule of a known finder is a row.
LOCAL_TABLE: tuple[LocalRule, ...] = (
    LocalRule(
        "hidden-single", "singles", 1.5, HIDDEN_SINGLE, 1,
        "a digit has only one place left in a row, column or box",
    ),
    LocalRule("naked-single", "singles", 2.3, NAKED_SINGLE, 1, "a cell has only one digit left"),
    LocalRule(
        "pointing", "locked", 2.6, POINTING, 1,
        "a digit's places in a box all lie on one line: the rest of the line loses it",
    ),
    LocalRule(
        "claiming", "locked", 2.8, CLAIMING, 1,
        "a digit's places on a line all lie in one box: the rest of the box loses it",
    ),
    LocalRule(
        "naked-pair", "subsets", 3.0, NAKED_SUBSET, 2,
        "two cells of a unit share the same two digits: the unit's other cells lose them",
    ),
    LocalRule(
        "x-wing", "fish", 3.2, FISH, 2,
        "a digit's places in two rows lie in two columns: those columns lose it elsewhere",
    ),
    LocalRule(
        "hidden-pair", "subsets", 3.4, HIDDEN_SUBSET, 2,
        "two digits of a unit fit only the same two cells: those cells lose other digits",
    ),
    LocalRule(
        "naked-triple", "subsets", 3.6, NAKED_SUBSET, 3,
        "three cells of a unit hold only three digits: the unit's other cells lose them",
    ),
    LocalRule(
        "swordfish", "fish", 3.8, FISH, 3,
        "a digit's places in three rows lie in three columns: those columns lose it elsewhere",
    ),
    LocalRule(
        "hidden-triple", "subsets", 4.0, HIDDEN_SUBSET, 3,
        "three digits of a unit fit only three cells: those cells lose other digits",
    ),
    LocalRule(
        "xy-wing", "wings", 4.2, XY_WING, 3,
        "a cell {x,y} sees {x,z} and {y,z}: cells seeing both wings lose z",
    ),
    LocalRule(
        "naked-quad", "subsets", 5.0, NAKED_SUBSET, 4,
        "four cells of a unit hold only four digits: the unit's other cells lose them",
    ),
    LocalRule(
        "jellyfish", "fish", 5.2, FISH, 4,
        "a digit's places in four rows lie in four columns: those columns lose it elsewhere",
    ),
    LocalRule(
        "hidden-quad", "subsets", 5.4, HIDDEN_SUBSET, 4,
        "four digits of a unit fit only four cells: those cells lose other digits",
    ),
)  # fmt: skip
#: Kernel ids, in the engine's order.
LOCAL_RULES = tuple(row.name for row in LOCAL_TABLE)
#: The table as the compiled dispatch reads it (a constant array per column).
_KERNEL = np.array([row.kernel for row in LOCAL_TABLE], dtype=np.int64)
_SIZE = np.array([row.size for row in LOCAL_TABLE], dtype=np.int64)
MASK_SIDE = 64  # subsets, fish and wings keep a unit's digits or positions in one uint64

PLACE, ELIM, CELL, UNIT, DIGIT = 0, 1, 2, 3, 4


@numba.njit(cache=True, inline="always")
def _emit(rec: np.ndarray, k: int, kind: int, a: int, b: int) -> int:
    rec[k, 0] = kind
    rec[k, 1] = a
    rec[k, 2] = b
    return k + 1


@numba.njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:
    count = 0
    while x:
        x &= x - np.uint64(1)
        count += 1
    return count


@numba.njit(cache=True)
def _next_combination(idx: np.ndarray, k: int, m: int) -> bool:
    """Advance idx[:k] to the next k-subset of range(m) in lexicographic order."""
    i = k - 1
    while i >= 0 and idx[i] == m - k + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, k):
        idx[j] = idx[j - 1] + 1
    return True


@numba.njit(cache=True)
def masks(
    cand: np.ndarray, values: np.ndarray, units: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bit masks the subset, fish and wing finders read (n <= 64): per open cell its digits
    (``cell_mask``, 0 for a placed cell), per unit and digit the positions in the unit of the open
    cells holding it (``places``), per unit the digits placed in it (``placed``)."""
    cell_mask = np.empty(cand.shape[0], np.uint64)
    places = np.empty((units.shape[0], cand.shape[1]), np.uint64)
    placed = np.empty(units.shape[0], np.uint64)
    _fill_masks(cand, values, units, cell_mask, places, placed)
    return cell_mask, places, placed


@numba.njit(cache=True)
def _fill_masks(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_mask: np.ndarray,
    places: np.ndarray,
    placed: np.ndarray,
) -> None:
    """``masks`` written into the given arrays."""
    n = cand.shape[1]
    one = np.uint64(1)
    for c in range(cand.shape[0]):
        mask = np.uint64(0)
        if values[c] == 0:
            for d in range(n):
                if cand[c, d]:
                    mask |= one << np.uint64(d)
        cell_mask[c] = mask
    places[:] = 0
    placed[:] = 0
    for u in range(units.shape[0]):
        for i in range(n):
            c = units[u, i]
            if values[c] != 0:
                placed[u] |= one << np.uint64(values[c] - 1)
                continue
            mask = cell_mask[c]
            while mask:
                d = _popcount((mask & (~mask + one)) - one)
                places[u, d] |= one << np.uint64(i)
                mask &= mask - one


@numba.njit(cache=True)
def hidden_single(cand: np.ndarray, values: np.ndarray, units: np.ndarray, rec: np.ndarray) -> int:
    """A digit with one cell left in a unit (boxes first, then rows, then columns)."""
    n = cand.shape[1]
    for j in range(3 * n):
        u = (j + 2 * n) % (3 * n)
        for d in range(n):
            count = 0
            last = -1
            placed = False
            for i in range(n):
                c = units[u, i]
                if values[c] == d + 1:
                    placed = True
                    break
                if values[c] == 0 and cand[c, d]:
                    count += 1
                    last = c
            if not placed and count == 1:
                k = _emit(rec, 0, PLACE, last, d)
                k = _emit(rec, k, UNIT, u, 0)
                return _emit(rec, k, DIGIT, d, 0)
    return 0


@numba.njit(cache=True)
def naked_single(cand: np.ndarray, values: np.ndarray, rec: np.ndarray) -> int:
    """An open cell with one candidate left."""
    n = cand.shape[1]
    for c in range(cand.shape[0]):
        if values[c] != 0:
            continue
        count = 0
        last = -1
        for d in range(n):
            if cand[c, d]:
                count += 1
                last = d
        if count == 1:
            k = _emit(rec, 0, PLACE, c, last)
            return _emit(rec, k, CELL, c, 0)
    return 0


@numba.njit(cache=True)
def _locked(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    rec: np.ndarray,
    pointing: bool,
) -> int:
    """Pointing (a box's cells for a digit on one line) or claiming (a line's cells in one box)."""
    n = cand.shape[1]
    first = 2 * n if pointing else 0
    last = 3 * n if pointing else 2 * n
    for u in range(first, last):
        for d in range(n):
            count = 0
            shared0 = shared1 = -2  # the unit of the other kind all cells share so far (-1: none)
            for i in range(n):
                c = units[u, i]
                if values[c] == 0 and cand[c, d]:
                    shared0, shared1 = _share(cell_units, c, pointing, shared0, shared1)
                    count += 1
            if count < 2:
                continue
            for target in (shared0, shared1):
                if target < 0:
                    continue
                k = 0
                for i in range(n):
                    c = units[target, i]
                    if values[c] == 0 and cand[c, d] and cell_units[c, u // n] != u:
                        k = _emit(rec, k, ELIM, c, d)
                if k:
                    for i in range(n):
                        c = units[u, i]
                        if values[c] == 0 and cand[c, d]:
                            k = _emit(rec, k, CELL, c, 0)
                    return _locked_found(rec, k, u, target, d)
                if not pointing:
                    break  # claiming: both shared slots hold the same box
    return 0


@numba.njit(cache=True, inline="always")
def _share(cell_units: np.ndarray, c: int, pointing: bool, shared0: int, shared1: int) -> tuple[int, int]:
    """The units of the other kind (pointing: row and column; claiming: box, twice) that cell c
    shares with the cells seen before it: -2 before the first cell, -1 once two differ."""
    row = cell_units[c, 0] if pointing else cell_units[c, 2]
    col = cell_units[c, 1] if pointing else cell_units[c, 2]
    return (
        row if shared0 == -2 or shared0 == row else -1,
        col if shared1 == -2 or shared1 == col else -1,
    )


@numba.njit(cache=True, inline="always")
def _locked_found(rec: np.ndarray, k: int, u: int, target: int, d: int) -> int:
    """The end of a locked-candidates record: the two units and the digit."""
    k = _emit(rec, k, UNIT, u, 0)
    k = _emit(rec, k, UNIT, target, 0)
    return _emit(rec, k, DIGIT, d, 0)


@numba.njit(cache=True)
def _inside(units: np.ndarray, cell_units: np.ndarray) -> np.ndarray:
    """``inside[t, u]``: the positions of unit t whose cells lie in unit u (n <= 64)."""
    inside = np.zeros((units.shape[0], units.shape[0]), np.uint64)
    for t in range(units.shape[0]):
        for i in range(units.shape[1]):
            for k in range(3):
                inside[t, cell_units[units[t, i], k]] |= np.uint64(1) << np.uint64(i)
    return inside


@numba.njit(cache=True)
def _locked_masked(
    units: np.ndarray,
    cell_units: np.ndarray,
    places: np.ndarray,
    inside: np.ndarray,
    rec: np.ndarray,
    pointing: bool,
) -> int:
    """``_locked`` on the board's ``masks`` (n <= 64): the same first instance, the same record."""
    n = units.shape[1]
    one = np.uint64(1)
    first = 2 * n if pointing else 0
    last = 3 * n if pointing else 2 * n
    for u in range(first, last):
        for d in range(n):
            here = places[u, d]
            if not here or not (here & (here - one)):
                continue  # fewer than two places
            shared0 = shared1 = -2  # the unit of the other kind all places share so far
            rest = here
            while rest:
                c = units[u, _popcount((rest & (~rest + one)) - one)]
                rest &= rest - one
                shared0, shared1 = _share(cell_units, c, pointing, shared0, shared1)
            for target in (shared0, shared1):
                if target < 0:
                    continue
                gone = places[target, d] & ~inside[target, u]
                if gone:
                    k = 0
                    while gone:
                        i = _popcount((gone & (~gone + one)) - one)
                        k = _emit(rec, k, ELIM, units[target, i], d)
                        gone &= gone - one
                    rest = here
                    while rest:
                        i = _popcount((rest & (~rest + one)) - one)
                        k = _emit(rec, k, CELL, units[u, i], 0)
                        rest &= rest - one
                    return _locked_found(rec, k, u, target, d)
                if not pointing:
                    break  # claiming: both shared slots hold the same box
    return 0


@numba.njit(cache=True)
def _closed_set_from(masks: np.ndarray, m: int, size: int, idx: np.ndarray) -> np.uint64:
    """Move idx[:size] to the first size-subset of masks[:m], from the one it holds, whose masks
    together have exactly ``size`` bits, and return that union; 0 when none is left.  The
    subsets, fish and quads all look for such a closed set."""
    while True:
        union = np.uint64(0)
        for j in range(size):
            union |= masks[idx[j]]
        if _popcount(union) == size:
            return union
        if not _next_combination(idx, size, m):
            return np.uint64(0)


# Two entry points rather than one with a "first" flag: a literal flag made numba compile one
# specialisation per call site's constant.
@numba.njit(cache=True)
def _first_closed_set(masks: np.ndarray, m: int, size: int, idx: np.ndarray) -> np.uint64:
    """The first closed set of masks[:m] (``_closed_set_from`` the first subset)."""
    for j in range(size):
        idx[j] = j
    return _closed_set_from(masks, m, size, idx)


@numba.njit(cache=True)
def _next_closed_set(masks: np.ndarray, m: int, size: int, idx: np.ndarray) -> np.uint64:
    """The closed set after the one idx[:size] holds; 0 when none is left."""
    if not _next_combination(idx, size, m):
        return np.uint64(0)
    return _closed_set_from(masks, m, size, idx)


@numba.njit(cache=True)
def naked_subset(
    cand: np.ndarray, values: np.ndarray, units: np.ndarray, size: int, rec: np.ndarray, cell_mask: np.ndarray
) -> int:
    """``size`` open cells of a unit whose candidates together are ``size`` digits."""
    n = cand.shape[1]
    if n > MASK_SIDE:
        return 0
    members = np.empty(n, dtype=np.int64)
    masks = np.empty(n, dtype=np.uint64)
    idx = np.empty(size, dtype=np.int64)
    for u in range(3 * n):
        m = int(np.int64(0))  # not a literal 0: numba would compile the callees again for Literal[int](0)
        opened = 0
        for i in range(n):
            c = units[u, i]
            if values[c] == 0:
                opened += 1
                mask = cell_mask[c]
                if 2 <= _popcount(mask) <= size:
                    members[m] = c
                    masks[m] = mask
                    m += 1
        if m < size or opened <= size:
            continue
        union = _first_closed_set(masks, m, size, idx)
        while union:
            k = 0
            for i in range(n):
                c = units[u, i]
                if values[c] != 0:
                    continue
                inside = False
                for j in range(size):
                    if members[idx[j]] == c:
                        inside = True
                if inside:
                    continue
                for d in range(n):
                    if cand[c, d] and (union >> np.uint64(d)) & np.uint64(1):
                        k = _emit(rec, k, ELIM, c, d)
            if k:
                for j in range(size):
                    k = _emit(rec, k, CELL, members[idx[j]], 0)
                k = _emit(rec, k, UNIT, u, 0)
                for d in range(n):
                    if (union >> np.uint64(d)) & np.uint64(1):
                        k = _emit(rec, k, DIGIT, d, 0)
                return k
            union = _next_closed_set(masks, m, size, idx)
    return 0


@numba.njit(cache=True)
def hidden_subset(
    cand: np.ndarray, units: np.ndarray, size: int, rec: np.ndarray, places: np.ndarray, placed: np.ndarray
) -> int:
    """``size`` digits whose only cells in a unit are the same ``size`` cells."""
    n = cand.shape[1]
    if n > MASK_SIDE:
        return 0
    members = np.empty(n, dtype=np.int64)
    masks = np.empty(n, dtype=np.uint64)
    idx = np.empty(size, dtype=np.int64)
    for u in range(3 * n):
        m = int(np.int64(0))
        missing = 0
        for d in range(n):
            if (placed[u] >> np.uint64(d)) & np.uint64(1):
                continue
            missing += 1
            mask = places[u, d]
            if 2 <= _popcount(mask) <= size:
                members[m] = d
                masks[m] = mask
                m += 1
        if m < size or missing <= size:
            continue
        union = _first_closed_set(masks, m, size, idx)
        while union:
            k = 0
            for i in range(n):
                if not (union >> np.uint64(i)) & np.uint64(1):
                    continue
                c = units[u, i]
                for d in range(n):
                    if not cand[c, d]:
                        continue
                    inside = False
                    for j in range(size):
                        if members[idx[j]] == d:
                            inside = True
                    if not inside:
                        k = _emit(rec, k, ELIM, c, d)
            if k:
                for i in range(n):
                    if (union >> np.uint64(i)) & np.uint64(1):
                        k = _emit(rec, k, CELL, units[u, i], 0)
                k = _emit(rec, k, UNIT, u, 0)
                for j in range(size):
                    k = _emit(rec, k, DIGIT, members[idx[j]], 0)
                return k
            union = _next_closed_set(masks, m, size, idx)
    return 0


@numba.njit(cache=True)
def fish(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    size: int,
    rec: np.ndarray,
    places: np.ndarray,
    placed: np.ndarray,
) -> int:
    """``size`` rows (or columns) whose cells for a digit lie in ``size`` columns (rows): the digit
    leaves those columns (rows) elsewhere.  Size 2 is the X-wing, 3 the swordfish, 4 the jellyfish."""
    n = cand.shape[1]
    if n > MASK_SIDE:
        return 0
    members = np.empty(n, dtype=np.int64)
    masks = np.empty(n, dtype=np.uint64)
    idx = np.empty(size, dtype=np.int64)
    for d in range(n):
        for orient in range(2):
            base0 = orient * n  # rows as base lines, then columns
            cover0 = (1 - orient) * n
            m = int(np.int64(0))
            free = 0
            for line in range(n):
                u = base0 + line
                if (placed[u] >> np.uint64(d)) & np.uint64(1):
                    continue
                free += 1
                mask = places[u, d]
                if 2 <= _popcount(mask) <= size:
                    members[m] = line
                    masks[m] = mask
                    m += 1
            if m < size or free <= size:
                continue
            union = _first_closed_set(masks, m, size, idx)
            while union:
                k = 0
                for i in range(n):
                    if not (union >> np.uint64(i)) & np.uint64(1):
                        continue
                    cover = cover0 + i
                    for t in range(n):
                        c = units[cover, t]
                        if not (values[c] == 0 and cand[c, d]):
                            continue
                        inside = False
                        for j in range(size):
                            if members[idx[j]] == t:
                                inside = True
                        if not inside:
                            k = _emit(rec, k, ELIM, c, d)
                if k:
                    for j in range(size):
                        u = base0 + members[idx[j]]
                        for i in range(n):
                            c = units[u, i]
                            if values[c] == 0 and cand[c, d]:
                                k = _emit(rec, k, CELL, c, 0)
                        k = _emit(rec, k, UNIT, u, 0)
                    for i in range(n):
                        if (union >> np.uint64(i)) & np.uint64(1):
                            k = _emit(rec, k, UNIT, cover0 + i, 0)
                    return _emit(rec, k, DIGIT, d, 0)
                union = _next_closed_set(masks, m, size, idx)
    return 0


@numba.njit(cache=True, inline="always")
def _sees(cell_units: np.ndarray, a: int, b: int) -> bool:
    return a != b and (
        cell_units[a, 0] == cell_units[b, 0]
        or cell_units[a, 1] == cell_units[b, 1]
        or cell_units[a, 2] == cell_units[b, 2]
    )


@numba.njit(cache=True)
def xy_wing(
    cand: np.ndarray,
    values: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    rec: np.ndarray,
    cell_mask: np.ndarray,
) -> int:
    """A pivot {x,y} seeing pincers {x,z} and {y,z}: z leaves every cell that sees both pincers."""
    n = cand.shape[1]
    if n > MASK_SIDE:
        return 0
    one = np.uint64(1)
    for pivot in range(cand.shape[0]):
        if values[pivot] != 0:
            continue
        pm = cell_mask[pivot]
        if _popcount(pm) != 2:
            continue
        for ia in range(peers.shape[1]):
            a = peers[pivot, ia]
            if values[a] != 0:
                continue
            am = cell_mask[a]
            if _popcount(am) != 2 or _popcount(am & pm) != 1:
                continue
            z = am & ~pm
            for ib in range(peers.shape[1]):
                b = peers[pivot, ib]
                if b == a or values[b] != 0:
                    continue
                bm = cell_mask[b]
                # b holds the pivot's other digit and z
                if bm != ((pm & ~am) | z):
                    continue
                zd = 0
                while not (z >> np.uint64(zd)) & one:
                    zd += 1
                k = 0
                for it in range(peers.shape[1]):
                    t = peers[a, it]
                    if t != b and t != pivot and values[t] == 0 and cand[t, zd] and _sees(cell_units, t, b):
                        k = _emit(rec, k, ELIM, t, zd)
                if k:
                    k = _emit(rec, k, CELL, pivot, 0)
                    k = _emit(rec, k, CELL, a, 0)
                    k = _emit(rec, k, CELL, b, 0)
                    for d in range(n):
                        if (pm | z) >> np.uint64(d) & one:
                            k = _emit(rec, k, DIGIT, d, 0)
                    return k
    return 0


@numba.njit(cache=True)
def find_local(
    rule: int,
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    rec: np.ndarray,
) -> int:
    """Run the finder of table row ``rule`` (an index into LOCAL_RULES); rows written, 0 = none."""
    kernel = _KERNEL[rule]
    if kernel == HIDDEN_SINGLE:
        return hidden_single(cand, values, units, rec)
    if kernel == NAKED_SINGLE:
        return naked_single(cand, values, rec)
    if kernel == POINTING or kernel == CLAIMING:  # noqa: SIM109 - plain comparisons compile in numba
        return _locked(cand, values, units, cell_units, rec, kernel == POINTING)
    if cand.shape[1] > MASK_SIDE:
        return 0
    cell_mask, places, placed = masks(cand, values, units)
    return _find_masked(rule, cand, values, units, cell_units, peers, rec, cell_mask, places, placed)


@numba.njit(cache=True)
def _find_masked(
    rule: int,
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    rec: np.ndarray,
    cell_mask: np.ndarray,
    places: np.ndarray,
    placed: np.ndarray,
) -> int:
    """The subset, fish and wing finders (n <= 64) on the board's ``masks``, by table row."""
    kernel = _KERNEL[rule]
    size = _SIZE[rule]
    if kernel == NAKED_SUBSET:
        return naked_subset(cand, values, units, size, rec, cell_mask)
    if kernel == HIDDEN_SUBSET:
        return hidden_subset(cand, units, size, rec, places, placed)
    if kernel == FISH:
        return fish(cand, values, units, size, rec, places, placed)
    if kernel == XY_WING:
        return xy_wing(cand, values, cell_units, peers, rec, cell_mask)
    return 0


@numba.njit(cache=True)
def _tally(
    cand: np.ndarray,
    values: np.ndarray,
    cell_units: np.ndarray,
    room: np.ndarray,
    placed: np.ndarray,
    left: np.ndarray,
) -> int:
    """Fill the tallies ``run_local`` keeps: ``room[u, d]`` open cells of unit u open to digit d,
    ``placed[u, d]`` cells of u holding d, ``left[c]`` candidates of open cell c; returns the number
    of open cells."""
    n = cand.shape[1]
    room[:] = 0
    placed[:] = 0
    opened = 0
    for c in range(cand.shape[0]):
        if values[c] == 0:
            opened += 1
            count = 0
            for d in range(n):
                if cand[c, d]:
                    count += 1
                    for t in range(3):
                        room[cell_units[c, t], d] += 1
            left[c] = count
        else:
            left[c] = 0
            for t in range(3):
                placed[cell_units[c, t], values[c] - 1] += 1
    return opened


@numba.njit(cache=True)
def _apply_tallied(
    cand: np.ndarray,
    values: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    rec: np.ndarray,
    count: int,
    room: np.ndarray,
    placed: np.ndarray,
    left: np.ndarray,
    opened: int,
    alarm: np.ndarray,
) -> int:
    """``apply_record`` keeping the tallies of ``_tally`` up to date; returns the open cells left.

    ``alarm[0]`` is set when the record leaves a contradiction that ``_contradicted`` would see
    (a tally entry turns bad), ``alarm[1]`` when it places a digit on a placed cell (then only a
    full check tells).  A finder's record holds at most one placement, and a placement counts its
    digit as placed in its units before its cell stops counting as room: so the tallies only move
    towards a contradiction while a record is applied, and an entry that turns bad stays bad."""
    n = cand.shape[1]
    for i in range(count):
        kind, cell, digit = rec[i, 0], rec[i, 1], rec[i, 2]
        if kind == 0:
            was = values[cell]
            if was != 0:
                alarm[1] = 1
                for t in range(3):
                    placed[cell_units[cell, t], was - 1] -= 1
            for t in range(3):
                u = cell_units[cell, t]
                placed[u, digit] += 1
                if placed[u, digit] > 1:
                    alarm[0] = 1
            values[cell] = digit + 1
            if was == 0:
                opened -= 1
                for d in range(n):
                    if cand[cell, d]:
                        for t in range(3):
                            u = cell_units[cell, t]
                            room[u, d] -= 1
                            if room[u, d] == 0 and placed[u, d] == 0:
                                alarm[0] = 1
            left[cell] = 0
            cand[cell, :] = 0
            cand[cell, digit] = 1
            lost = peers.shape[1]  # the placed digit leaves the peers
        elif kind == 1:
            lost = 1  # the candidate leaves the cell
        else:
            continue
        for k in range(lost):
            p = peers[cell, k] if kind == 0 else cell
            if not cand[p, digit]:
                continue
            cand[p, digit] = 0
            if values[p] == 0:
                left[p] -= 1
                if left[p] == 0:
                    alarm[0] = 1
                for t in range(3):
                    u = cell_units[p, t]
                    room[u, digit] -= 1
                    if room[u, digit] == 0 and placed[u, digit] == 0:
                        alarm[0] = 1
    return opened


@numba.njit(cache=True)
def _contradicted(room: np.ndarray, placed: np.ndarray, left: np.ndarray, values: np.ndarray) -> bool:
    """``contradiction`` read off the tallies: an open cell without candidates, a digit with no place
    left in a unit that lacks it, or a digit placed twice in a unit."""
    for c in range(values.shape[0]):
        if values[c] == 0 and left[c] == 0:
            return True
    for u in range(room.shape[0]):
        for d in range(room.shape[1]):
            if placed[u, d] > 1 or (placed[u, d] == 0 and room[u, d] == 0):
                return True
    return False


@numba.njit(cache=True)
def _single_tallied(
    kernel: int,
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    room: np.ndarray,
    placed: np.ndarray,
    left: np.ndarray,
    rec: np.ndarray,
) -> int:
    """``hidden_single`` or ``naked_single`` (by ``kernel``) read off the tallies: the same first
    instance, the same record."""
    n = cand.shape[1]
    if kernel == HIDDEN_SINGLE:
        for j in range(3 * n):
            u = (j + 2 * n) % (3 * n)
            for d in range(n):
                if placed[u, d] == 0 and room[u, d] == 1:
                    last = -1
                    for i in range(n):
                        c = units[u, i]
                        if values[c] == 0 and cand[c, d]:
                            last = c
                    k = _emit(rec, 0, PLACE, last, d)
                    k = _emit(rec, k, UNIT, u, 0)
                    return _emit(rec, k, DIGIT, d, 0)
        return 0
    for c in range(cand.shape[0]):
        if values[c] == 0 and left[c] == 1:
            last = -1
            for d in range(n):
                if cand[c, d]:
                    last = d
            k = _emit(rec, 0, PLACE, c, last)
            return _emit(rec, k, CELL, c, 0)
    return 0


#: ``run_local``'s answers besides 1 solved, 0 stuck, -1 contradiction, 2 budget spent: a finder's
#: record that names no open candidate (``info[2]`` its rule, ``rec[:info[3]]`` the record).
BAD_RECORD = -2
#: Columns of a ``run_local`` mark (one recorded step): its rule, then where its rows of each kind
#: begin in the log (placements, eliminations, cells, units, digits) and where the step ends.
MARK_COLUMNS = 7


@numba.njit(cache=True)
def _bad_record(cand: np.ndarray, values: np.ndarray, rec: np.ndarray, k: int) -> bool:
    """True when a finder's record changes nothing or names a placement or elimination outside
    the open candidates (a cell or digit out of range, a placed cell, a removed candidate): the
    engine's step check (``RuleBug``), before the record is applied."""
    n = cand.shape[1]
    progress = 0
    for i in range(k):
        kind = rec[i, 0]
        if kind == PLACE or kind == ELIM:  # noqa: SIM109 - plain comparisons compile in numba
            c, d = rec[i, 1], rec[i, 2]
            if c < 0 or c >= cand.shape[0] or d < 0 or d >= n or values[c] != 0 or not cand[c, d]:
                return True
            progress += 1
    return progress == 0


@numba.njit(cache=True)
def _log_record(rec: np.ndarray, k: int, log: np.ndarray, used: int, mark: np.ndarray, rule: int) -> int:
    """Copy a record into the log from row ``used``, its rows grouped by kind (each kind's rows in
    the record's order), and fill its ``mark``; returns the rows used after it."""
    mark[0] = rule
    for kind in range(5):
        mark[1 + kind] = used
        for i in range(k):
            if rec[i, 0] == kind:
                log[used, 0] = kind
                log[used, 1] = rec[i, 1]
                log[used, 2] = rec[i, 2]
                used += 1
    mark[6] = used
    return used


@numba.njit(cache=True)
def run_local(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    enabled: np.ndarray,
    counts: np.ndarray,
    rec: np.ndarray,
    max_steps: int,
    log: np.ndarray,
    marks: np.ndarray,
    info: np.ndarray,
) -> int:
    """``run_local_ahead`` with no rule looked at ahead (see there)."""
    return run_local_ahead(
        cand,
        values,
        units,
        cell_units,
        peers,
        enabled,
        counts,
        rec,
        max_steps,
        log,
        marks,
        info,
        np.zeros(0, np.int64),
        np.empty((0, 0, 3), np.int64),
        np.zeros(0, np.int64),
    )


@numba.njit(cache=True)
def run_local_ahead(
    cand: np.ndarray,
    values: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    peers: np.ndarray,
    enabled: np.ndarray,
    counts: np.ndarray,
    rec: np.ndarray,
    max_steps: int,
    log: np.ndarray,
    marks: np.ndarray,
    info: np.ndarray,
    ahead: np.ndarray,
    ahead_recs: np.ndarray,
    ahead_counts: np.ndarray,
) -> int:
    """Apply the enabled local rules, simplest first, until none applies: 1 solved, 0 stuck,
    -1 contradiction, 2 step budget spent, ``BAD_RECORD`` a finder's record that changes nothing
    or names what is not an open candidate (not applied).  ``counts[r]`` gains one per step of
    rule r.

    With a ``log`` of rows (a ``log`` of 0 rows records nothing), every step applied is recorded
    there as explain shows it: its rows grouped by kind, and a row of ``marks`` (``MARK_COLUMNS``)
    saying where; the budget also ends when ``marks`` is full or a record does not fit in the log
    (that step is found again on the next call).  ``info[0]``: steps recorded, ``info[1]``: log
    rows used, ``info[2]`` and ``info[3]``: the rule and rows of a bad record.

    The singles and the contradiction check read tallies kept up to date step by step (room per
    unit and digit, candidates per cell) instead of scanning the board each time: the same steps
    as ``find_local`` one at a time, in a fraction of the time.

    ``ahead``: table rows of rules the engine tries later, one at a time among the others (the
    local rules heavier than some rule not compiled here: xy-wing, the quads, jellyfish).  When
    the fixed point is reached (0, stuck), each is run on that state as ``find_local`` would run
    it, on the masks this call already made: its record in ``ahead_recs[i]``, its rows in
    ``ahead_counts[i]`` (0: none); -1 when the call ends otherwise (nothing run)."""
    ahead_counts[:] = -1
    n = cand.shape[1]
    room = np.empty((3 * n, n), np.int64)
    placed = np.empty((3 * n, n), np.int64)
    left = np.empty(cand.shape[0], np.int64)
    opened = _tally(cand, values, cell_units, room, placed, left)
    side = n if n <= MASK_SIDE else 0  # no masks above 64: those finders report nothing there
    cell_mask = np.empty(cand.shape[0] if side else 0, np.uint64)
    places = np.empty((units.shape[0] if side else 0, side), np.uint64)
    placed_digits = np.empty(units.shape[0] if side else 0, np.uint64)
    inside = np.zeros((0, 0), np.uint64)  # made when pointing or claiming first runs
    alarm = np.zeros(2, np.int64)
    dirty = _contradicted(room, placed, left, values)  # then every step gets the full check
    recording = log.shape[0] > 0
    info[:] = 0
    used = 0
    steps = 0
    while True:
        if opened == 0:
            return 1
        if steps >= max_steps or (recording and steps >= marks.shape[0]):
            return 2
        fired = False
        masked = False  # the masks of this board state, made when a finder first needs them
        for r in range(enabled.shape[0]):
            if not enabled[r]:
                continue
            kernel = _KERNEL[r]
            if kernel == HIDDEN_SINGLE or kernel == NAKED_SINGLE:  # noqa: SIM109 - as above
                k = _single_tallied(kernel, cand, values, units, room, placed, left, rec)
            elif n > MASK_SIDE:
                k = find_local(r, cand, values, units, cell_units, peers, rec)
            else:
                if not masked:
                    _fill_masks(cand, values, units, cell_mask, places, placed_digits)
                    masked = True
                locked = kernel == POINTING or kernel == CLAIMING  # noqa: SIM109
                if locked and not inside.shape[0]:
                    inside = _inside(units, cell_units)
                if locked:
                    k = _locked_masked(units, cell_units, places, inside, rec, kernel == POINTING)
                else:
                    k = _find_masked(
                        r, cand, values, units, cell_units, peers, rec, cell_mask, places, placed_digits
                    )
            if k:
                if _bad_record(cand, values, rec, k):
                    info[2] = r
                    info[3] = k
                    return BAD_RECORD
                if recording:
                    if used + k > log.shape[0]:
                        return 2  # the log is full: this step is found again on the next call
                    used = _log_record(rec, k, log, used, marks[steps], r)
                    info[0] = steps + 1
                    info[1] = used
                alarm[:] = 0
                opened = _apply_tallied(
                    cand, values, cell_units, peers, rec, k, room, placed, left, opened, alarm
                )
                counts[r] += 1
                steps += 1
                # a board that came in clean can only turn bad where the record moved a tally
                if alarm[0] or ((alarm[1] or dirty) and _contradicted(room, placed, left, values)):
                    return -1
                fired = True
                break
        if not fired:
            for i in range(ahead.shape[0]):
                r = ahead[i]
                kernel = _KERNEL[r]
                singles = kernel == HIDDEN_SINGLE or kernel == NAKED_SINGLE  # noqa: SIM109 - as above
                if singles or kernel == POINTING or kernel == CLAIMING or n > MASK_SIDE:  # noqa: SIM109
                    ahead_counts[i] = find_local(r, cand, values, units, cell_units, peers, ahead_recs[i])
                    continue
                if not masked:
                    _fill_masks(cand, values, units, cell_mask, places, placed_digits)
                    masked = True
                ahead_counts[i] = _find_masked(
                    r, cand, values, units, cell_units, peers, ahead_recs[i], cell_mask, places, placed_digits
                )
            return 0
