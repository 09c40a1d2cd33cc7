"""Propagation of 9x9 batches on 9-bit candidate sets in numpy: the first step of the SAT batch path.

The general ``propagation`` keeps one boolean per (cell, digit) and, for big batches, loads a
compiled kernel; ``sudoku-cp solve`` of a 9x9 file must stay free of numba, and at 9x9 a cell's
candidates fit in one uint16.  So here a batch is a (9, 9, B) uint16 array, the puzzles on the
last axis: every step below is an elementwise operation over contiguous runs of B numbers, and
the row, column and box reductions are a few such operations each (no gather, no table lookup).

A cell with one candidate left is placed; a round applies, to every puzzle still changing:

* elimination: a placed digit leaves its row, column and box;
* hidden singles: a digit with one place left in a unit goes there (its cell keeps only it);
* locked candidates (``locked=True``): a digit of a box confined to one row (column) of it
  leaves the rest of that line (pointing); a digit of a line confined to one box leaves the
  rest of that box (claiming).

Rounds repeat to the fixpoint; a puzzle leaves the work arrays when a round changes nothing.
With ``pairs=True``, the puzzles still open at that fixpoint then take naked and hidden pairs
(``_pair_losses``: on the few cells and digits that can form one, not on every cell), and those
that lose a candidate run to the fixpoint again, until pairs find nothing more.
The fixpoint is that of ``propagation.propagate_batch`` with the same rules (the rules only
remove candidates, so the order of work does not matter), and so is the contradiction flag: a
cell without candidates, a unit without a place for a digit, two placed cells of a unit with
one digit, or a cell that is the last place of two digits; with pairs also three cells of a unit
with the same two candidates, or three digits (or two pairs) held to the same cell pair.
"""

from __future__ import annotations

import numpy as np

from ..limits import Deadline
from ..propagation import Propagation

__all__ = ["FULL", "UNITS", "candidate_table", "placed_digits", "propagate9", "propagate_masks"]

#: The candidate set of an empty cell: digits 1-9 as bits 0-8.
FULL = np.uint16(0x1FF)
_ONE = np.uint16(1)
_LOW, _NINE = np.uint16(511), np.uint16(9)
_BIT = np.array([0] + [1 << d for d in range(9)], dtype=np.uint16)  # value -> its bit, 0 -> none
_DIGIT = np.zeros(512, dtype=np.int16)  # a set of one candidate -> its digit, any other set -> 0
_DIGIT[_BIT[1:]] = np.arange(1, 10)
_POP = np.array([bin(x).count("1") for x in range(512)], dtype=np.int8)  # a 9-bit set -> its size
#: The cells of each unit (rows, columns, boxes), in order, and the three units of each cell.
UNITS = np.array(
    [[9 * r + c for c in range(9)] for r in range(9)]
    + [[9 * r + c for r in range(9)] for c in range(9)]
    + [[9 * (3 * (b // 3) + i // 3) + 3 * (b % 3) + i % 3 for i in range(9)] for b in range(9)],
    dtype=np.intp,
)


def _exactly_once(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(union, bits set in exactly one of ``parts``), elementwise over equal-shaped uint16 arrays."""
    ones = parts[0].copy()
    twos = np.zeros_like(ones)
    for part in parts[1:]:
        twos |= ones & part
        ones |= part
    return ones, ones & ~twos


def _units(m: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The nine cells of every row, column and box: nine arrays per kind of unit (views, no copy).

    Part k of rows is column k of every row, (9, A); of columns, row k of every column, (9, A);
    of boxes, cell k of every box, (3, 3, A) [band, stack].
    """
    boxes = m.reshape(3, 3, 3, 3, m.shape[-1])  # [band, row in band, stack, column in stack]
    return (
        [m[:, k] for k in range(9)],
        [m[k] for k in range(9)],
        [boxes[:, i, :, j] for i in range(3) for j in range(3)],
    )


def _spread(rows: np.ndarray, cols: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(9, 9, A): for each cell, the union of its row's and column's (9, A) and its box's (3, 3, A) sets."""
    batch = rows.shape[-1]
    out = (rows[:, None, :] | cols[None, :, :]).reshape(3, 3, 3, 3, batch)
    out |= boxes[:, None, :, None, :]
    return out.reshape(9, 9, batch)


def _only_one(parts: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[np.ndarray]:
    """For three sets: the bits of each that neither other one holds."""
    a, b, c = parts
    return [a & ~(b | c), b & ~(a | c), c & ~(a | b)]


def _others(parts: list[np.ndarray]) -> list[np.ndarray]:
    """For three sets: the union of the other two, for each."""
    a, b, c = parts
    return [b | c, a | c, a | b]


def _locked_lines(segments: np.ndarray) -> np.ndarray:
    """Pointing and claiming along one direction: (3, 3, 3, A) segments -> the digits each loses.

    ``segments[g, l, s]``: the candidates of line ``l`` of group ``g`` (band or stack) in its box
    ``s`` of the group, three cells.  A digit of box (g, s) only on line l leaves line l's other
    boxes (pointing); a digit of line (g, l) only in box s leaves box s's other lines (claiming).
    """
    by_line = [segments[:, :, s] for s in range(3)]  # the line's three segments
    by_box = [segments[:, k] for k in range(3)]  # the box's three segments
    pointing = np.stack(_only_one((by_box[0], by_box[1], by_box[2])), axis=1)  # [g, l, s]
    claiming = np.stack(_only_one((by_line[0], by_line[1], by_line[2])), axis=2)  # [g, l, s]
    # The line's other boxes lose its pointing digits; the box's other lines its claimed digits.
    lose = np.stack(_others([pointing[:, :, s] for s in range(3)]), axis=2)
    lose |= np.stack(_others([claiming[:, k] for k in range(3)]), axis=1)
    return lose


def _locked(m: np.ndarray) -> np.ndarray:
    """(9, 9, A): the candidates each cell loses to locked candidates."""
    batch = m.shape[-1]
    cells = m.reshape(3, 3, 3, 3, batch)  # [band, row in band, stack, column in stack]
    rows = cells[:, :, :, 0] | cells[:, :, :, 1] | cells[:, :, :, 2]  # [band, row, stack]
    cols = cells[:, 0] | cells[:, 1] | cells[:, 2]  # [band, stack, column]
    row_lose = _locked_lines(rows)  # [band, row in band, stack]
    col_lose = _locked_lines(cols.transpose(1, 2, 0, 3))  # [stack, column in stack, band]
    lose = np.broadcast_to(row_lose[:, :, :, None], (3, 3, 3, 3, batch)).copy()
    lose |= col_lose.transpose(2, 0, 1, 3)[:, None]  # [band, 1, stack, column in stack]
    return lose.reshape(9, 9, batch)


def _union(m: np.ndarray) -> list[np.ndarray]:
    """The union of each row's (9, A), column's (9, A) and box's (3, 3, A) sets.

    Eight elementwise ORs per kind of unit: numpy's ``bitwise_or.reduce`` over these axes turned
    out several times slower once the batch shrinks.
    """
    unions = []
    for parts in _units(m):
        union = parts[0].copy()
        for part in parts[1:]:
            union |= part
        unions.append(union)
    return unions


def _zero_mask(x: np.ndarray) -> np.ndarray:
    """0xFFFF where ``x`` (values below 512) is 0, else 0: uint16 arithmetic only (a mixed-type
    operation, e.g. with a boolean array, goes through numpy's slower casting loops)."""
    return ((x + _LOW) >> _NINE) - _ONE


def _placed(m: np.ndarray) -> np.ndarray:
    """The sets of the cells holding one candidate (placed), 0 for the others."""
    return m & _zero_mask(m & (m - _ONE))


def _round(m: np.ndarray, locked: bool) -> np.ndarray:
    """One round of elimination, hidden singles and (if ``locked``) locked candidates."""
    placed = _placed(m)
    new = m & ~_spread(*_union(placed))
    new |= placed
    hidden = new & _spread(*(_exactly_once(parts)[1] for parts in _units(new)))
    new &= hidden | (_zero_mask(hidden) & FULL)  # a hidden single keeps only its digit
    if locked:
        placed = _placed(new)
        new &= ~_locked(new)
        new |= placed
    return new


def _bad(m: np.ndarray) -> np.ndarray:
    """(A,) True where the sets say there is no solution: a cell without candidates, a unit without a
    place for a digit, two placed cells of a unit with one digit, or a cell that is the last place
    of two digits.  Each of these stays once it happens, so the fixpoint shows it."""
    bad = (m == 0).any(axis=(0, 1))
    placed = _placed(m)
    for union, singles in zip(_union(m), _units(placed), strict=True):
        total = singles[0].astype(np.int32)
        seen = singles[0].copy()
        for part in singles[1:]:
            total += part
            seen |= part
        wrong = (union != FULL) | (total != seen)
        bad |= wrong.any(axis=tuple(range(wrong.ndim - 1)))
    hidden = m & _spread(*(_exactly_once(parts)[1] for parts in _units(m)))
    bad |= ((hidden & (hidden - _ONE)) != 0).any(axis=(0, 1))
    return np.asarray(bad)


def _fixpoint(out: np.ndarray, active: np.ndarray, locked: bool, deadline: Deadline | None) -> None:
    """Run rounds on the puzzles ``active`` of ``out`` (9, 9, B) until each stops changing, in place.

    With ``locked``, locked candidates run every other round only (they cost more than the
    singles of a round and find less): a puzzle stops after a round with them that changed
    nothing, so the fixpoint is the same.
    """
    m = out[:, :, active]
    turn = 0
    while active.size:
        if deadline is not None:
            deadline.check("propagation")
        full = not locked or turn % 2 == 1
        turn += 1
        new = _round(m, locked and full)
        moving = (new != m).any(axis=(0, 1))
        if moving.all() or not full:
            m = new
            continue
        done = ~moving
        out[:, :, active[done]] = new[:, :, done]
        active = active[moving]
        m = new[:, :, moving]


def _naked_losses(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Naked pairs in (A, 27, 9) unit-ordered sets: ((puzzle, unit), (K, 9) losses of its cells, bad puzzles).

    Two cells of a unit holding the same two candidates take them from the unit's other cells;
    a third cell with those two makes the puzzle contradictory.  Only the two-candidate cells are
    looked at (a few per unit), each against its unit's nine cells.
    """
    rest = cells & (cells - _ONE)
    p, u, k = np.nonzero((rest != 0) & ((rest & (rest - _ONE)) == 0))
    pair = cells[p, u, k]
    same = cells[p, u] == pair[:, None]  # (K, 9), the cell itself included
    partners = np.asarray(np.count_nonzero(same, axis=1)) - 1
    bad = p[partners > 1]
    found = partners == 1
    lose = np.where(same[found], np.uint16(0), pair[found, None])
    return np.stack([p[found], u[found]]), lose, bad


def _hidden_losses(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hidden pairs in (A, 27, 9) unit-ordered sets: ((puzzle, unit, cell), (K,) losses, bad puzzles).

    Two digits whose only places in a unit are the same two cells leave those cells no other
    candidate.  Only the digits with two places count; a cell holding two or more of them is
    compared with its unit's other cells.  Three such digits on one cell pair, or a cell in two
    such pairs, make the puzzle contradictory.
    """
    ones = cells[:, :, 0].copy()
    twos = np.zeros_like(ones)
    more = np.zeros_like(ones)
    for part in np.moveaxis(cells[:, :, 1:], 2, 0):
        more |= twos & part
        twos |= ones & part
        ones |= part
    twice = cells & (twos & ~more)[:, :, None]  # each cell's digits with exactly two places in the unit
    p, u, k = np.nonzero(_POP[twice] >= 2)
    shared = twice[p, u] & twice[p, u, k][:, None]  # (K, 9): digits held only by this cell and that one
    size = _POP[shared]
    size[np.arange(k.size), k] = 0
    paired = size >= 2
    count = np.asarray(np.count_nonzero(paired, axis=1))
    bad = p[(count > 1) | (size > 2).any(axis=1)]
    found = count == 1
    keep = shared[found, np.argmax(paired[found], axis=1)]
    where = np.stack([p[found], u[found], k[found]])
    return where, cells[p[found], u[found], k[found]] & ~keep, bad


def _pair_losses(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A, 81) candidate sets -> ((A, 81) candidates lost to naked and hidden pairs, (A,) contradictory)."""
    batch = m.shape[0]
    cells = m[:, UNITS]  # (A, 27, 9)
    by_unit = np.zeros_like(cells)
    (p, u), lose, bad_naked = _naked_losses(cells)
    np.bitwise_or.at(by_unit, (p, u), lose)
    (p, u, k), lose_h, bad_hidden = _hidden_losses(cells)
    np.bitwise_or.at(by_unit, (p, u, k), lose_h)
    out = np.zeros_like(m)
    for kind in range(3):  # each kind of unit covers every cell once
        part = slice(9 * kind, 9 * kind + 9)
        out[:, UNITS[part].ravel()] |= by_unit[:, part].reshape(batch, 81)
    bad = np.zeros(batch, dtype=bool)
    bad[bad_naked] = True
    bad[bad_hidden] = True
    return out & m, bad


def _pairs_fixpoint(out: np.ndarray, locked: bool, deadline: Deadline | None) -> np.ndarray:
    """Naked and hidden pairs on the open puzzles of ``out`` (9, 9, B), each change run to the
    fixpoint of the other rules, until pairs find nothing, in place: (B,) contradictions found."""
    batch = out.shape[-1]
    flat = out.reshape(81, batch)
    bad = np.zeros(batch, dtype=bool)
    active = np.flatnonzero((flat & (flat - _ONE)).any(axis=0))
    while active.size:
        if deadline is not None:
            deadline.check("propagation")
        m = np.ascontiguousarray(flat[:, active].T)
        lose, wrong = _pair_losses(m)
        bad[active[wrong]] = True
        moving = lose.any(axis=1) & ~wrong
        active = active[moving]
        flat[:, active] = (m[moving] & ~lose[moving]).T
        _fixpoint(out, active, locked, deadline)
        active = active[(flat[:, active] & (flat[:, active] - _ONE)).any(axis=0)]
    return bad


def propagate_masks(
    values: np.ndarray, *, locked: bool = True, pairs: bool = False, deadline: Deadline | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Propagate a (B, 81) stack of 9x9 puzzles: ((B, 81) uint16 candidate sets, (B,) contradiction).

    A cell holding one candidate is placed.  Contradictions are looked for once, at the end (a
    contradictory puzzle only runs on until it stops changing), and by pairs as they go.
    ``deadline`` is checked between rounds (``limits.TimeLimitReached``, "propagation").
    """
    values = np.asarray(values).reshape(-1, 81)
    batch = values.shape[0]
    start = _BIT[np.clip(values, 0, 9)].T  # (81, B); givens hold their bit, blanks nothing yet
    start[start == 0] = FULL
    out = np.ascontiguousarray(start).reshape(9, 9, batch)
    _fixpoint(out, np.arange(batch), locked, deadline)
    bad = _pairs_fixpoint(out, locked, deadline) if pairs else np.zeros(batch, dtype=bool)
    return np.ascontiguousarray(out.reshape(81, batch).T), _bad(out) | bad


def candidate_table(masks: np.ndarray) -> np.ndarray:
    """(B, 81, 9) bool candidates of (B, 81) candidate sets, digit d-1 in column d-1."""
    return np.asarray((masks[:, :, None] >> np.arange(9, dtype=np.uint16)) & _ONE, dtype=bool)


def placed_digits(masks: np.ndarray) -> np.ndarray:
    """(B, 81) int16: the digit of each cell with one candidate, 0 elsewhere."""
    return _DIGIT[masks]


def propagate9(
    values: np.ndarray, *, locked: bool = True, pairs: bool = False, deadline: Deadline | None = None
) -> Propagation:
    """``propagation.propagate_batch`` for 9x9 (3x3 boxes): singles, locked candidates and pairs as asked."""
    masks, bad = propagate_masks(values, locked=locked, pairs=pairs, deadline=deadline)
    return Propagation(placed_digits(masks), candidate_table(masks), bad)
