"""Propagation in numpy passes over a whole batch: every candidate recomputed each round.

Rules, applied to a fixpoint:

* elimination: a digit placed in a cell is no longer a candidate of any peer;
* naked single: a cell with one candidate left takes it;
* hidden single: a digit with one candidate cell left in a unit goes there;
* locked candidates (``locked=True``): when a digit's candidates in a box all lie on one row
  (or column), the rest of that line loses the digit (pointing); when a digit's candidates on a
  line all lie in one box, the rest of that box loses it (claiming);
* pairs (``pairs=True``): two cells of a unit with the same two candidates take those two
  digits from the unit's other cells (naked pair); two digits whose only cells in a unit are the
  same two cells leave those cells no other candidate (hidden pair).

A contradiction is an open cell without candidates, a unit where a missing digit has no cell
left, or two cells of one unit taking the same digit.  Every rule follows from the rules of
Sudoku without guessing, so a puzzle found contradictory has no solution, and every solution
of a puzzle keeps all its digits among the candidates.

Each round costs a pass over all B * n**3 candidates, whatever changed: cheap for batches of
small grids (no compiled code, no numba import), slow on big grids that need thousands of
rounds.  ``bitset`` reaches the same fixpoint with a work queue; the package's
``propagate_batch`` chooses between the two, and may hand the puzzles left after a capped number
of rounds (``max_work``) over to it.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..geometry import Geometry
from ..limits import Deadline, check_memory
from .result import Propagation

__all__ = ["propagate_rounds", "round_cost"]


def _unit_digit_counts(geometry: Geometry, onehot: np.ndarray) -> np.ndarray:
    """(B, 3n, n) number of cells of each unit holding (or allowing) each digit.

    Rows, columns and boxes are sums over reshaped views of the grid, in the order of
    ``geometry.units`` (no gather of every unit's cells: that copy is 3n**3 entries per puzzle).
    """
    p, q, n = geometry.p, geometry.q, geometry.n
    batch = onehot.shape[0]
    grid = onehot.reshape(batch, n, n, n)  # (B, row, column, digit)
    out = np.empty((batch, 3 * n, n), dtype=np.int16)
    np.sum(grid, axis=2, dtype=np.int16, out=out[:, :n])
    np.sum(grid, axis=1, dtype=np.int16, out=out[:, n : 2 * n])
    # [band, row in band, stack, column in stack]: box band*p + stack, as geometry numbers boxes
    boxes = grid.reshape(batch, q, p, p, q, n).sum(axis=(2, 4), dtype=np.int16)
    out[:, 2 * n :] = boxes.reshape(batch, n, n)
    return out


def _seen(geometry: Geometry, present: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` (B, n*n, n) bool set to the digits present in the row, column or box of each cell.

    ``present``: (B, 3n, n) bool, units numbered as in ``geometry.units``.
    """
    p, q, n = geometry.p, geometry.q, geometry.n
    batch = present.shape[0]
    rows, cols, boxes = present[:, :n], present[:, n : 2 * n], present[:, 2 * n :]
    by_box = out.reshape(batch, q, p, p, q, n)  # [band, row in band, stack, column in stack]
    by_box[...] = boxes.reshape(batch, q, 1, p, 1, n)
    grid = out.reshape(batch, n, n, n)
    grid |= rows[:, :, None, :]
    grid |= cols[:, None, :, :]
    return out


def _locked_lines(view: np.ndarray, lines_per_box: int) -> np.ndarray:
    """Pointing and claiming eliminations along one line direction.

    ``view``: (B, L, S, W, n) open candidates, line l cut into S segments of W cells, one per box
    it crosses; lines ``g*lines_per_box ... (g+1)*lines_per_box - 1`` cross the same boxes.
    Returns the (B, L, S, n) digits each segment loses.
    """
    batch, lines, segments, _, n = view.shape
    seg = view.any(axis=3)  # (B, L, S, n): the digit has a candidate in the segment
    per_line = seg.sum(axis=2, keepdims=True, dtype=np.int16)
    by_box = seg.reshape(batch, lines // lines_per_box, lines_per_box, segments, n)
    per_box = by_box.sum(axis=2, keepdims=True, dtype=np.int16)
    # pointing: the box's only segment holding the digit; the line's other segments lose it
    pointing = (by_box & (per_box == 1)).reshape(batch, lines, segments, n)
    lose = (pointing.sum(axis=2, keepdims=True, dtype=np.int16) - pointing) > 0
    # claiming: the line's only segment holding the digit; the box's other segments lose it
    claiming = (seg & (per_line == 1)).reshape(batch, lines // lines_per_box, lines_per_box, segments, n)
    taken = (claiming.sum(axis=2, keepdims=True, dtype=np.int16) - claiming) > 0
    return np.asarray(lose | taken.reshape(batch, lines, segments, n))


def _locked(geometry: Geometry, open_cand: np.ndarray) -> np.ndarray:
    """(B, n*n, n) candidates removed by locked candidates (rows and columns against boxes)."""
    p, q, n = geometry.p, geometry.q, geometry.n
    batch = open_cand.shape[0]
    grid = open_cand.reshape(batch, n, n, n)  # (B, row, column, digit)
    rows = _locked_lines(grid.reshape(batch, n, p, q, n), p)  # a row crosses p boxes of q cells
    cols = _locked_lines(grid.transpose(0, 2, 1, 3).reshape(batch, n, q, p, n), q)
    lose = np.repeat(rows, q, axis=2).reshape(batch, n, n, n)
    lose |= np.repeat(cols, p, axis=2).reshape(batch, n, n, n).transpose(0, 2, 1, 3)
    return lose.reshape(batch, n * n, n)


@cache
def _pair_indices(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i < j) of ``size`` items."""
    first, second = np.triu_indices(size, 1)
    return first, second


def _naked_pairs(table: np.ndarray) -> np.ndarray:
    """(B, U, R, C) bool tables: columns removed from rows outside a pair of equal two-column rows."""
    batch, units, size, width = table.shape
    lose = np.zeros_like(table)
    two = table.sum(axis=3) == 2
    if not two.any():
        return lose
    first, second = _pair_indices(size)
    if width <= 62:  # each row as a bit mask
        key = table.astype(np.int64) @ (np.int64(1) << np.arange(width, dtype=np.int64))
        same = key[..., first] == key[..., second]
    else:
        same = (table[:, :, first, :] == table[:, :, second, :]).all(axis=3)
    b, u, pair = np.nonzero(two[..., first] & same)
    if b.size:
        others = np.ones((b.size, size), dtype=bool)  # the unit's rows outside the pair lose its columns
        others[np.arange(b.size), first[pair]] = False
        others[np.arange(b.size), second[pair]] = False
        columns = table[b, u, first[pair]]  # (T, C)
        np.logical_or.at(lose, (b, u), others[:, :, None] & columns[:, None, :])
    return np.asarray(lose & table)


def _pairs(geometry: Geometry, open_cand: np.ndarray) -> np.ndarray:
    """(B, n*n, n) candidates removed by naked and hidden pairs in every unit."""
    n = geometry.n
    batch = open_cand.shape[0]
    by_unit = open_cand[:, geometry.units, :]  # (B, 3n, cells, digits)
    lose = _naked_pairs(by_unit)
    lose |= _naked_pairs(by_unit.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    out = np.zeros_like(open_cand)
    for kind in range(3):  # each kind of unit covers every cell once
        part = geometry.units[kind * n : (kind + 1) * n].reshape(-1)
        out[:, part, :] |= lose[:, kind * n : (kind + 1) * n].reshape(batch, n * n, n)
    return out


def round_cost(n: int, extra: bool = False) -> int:
    """The work of one round on one n x n puzzle, in units of about 2.5 ns here (n**3 candidates
    plus per-cell passes worth 64 n**2; twice that with locked candidates or pairs), measured in
    benchmarks/propagation.py."""
    return (n**3 + 64 * n**2) * (2 if extra else 1)


def propagate_rounds(
    geometry: Geometry,
    values: np.ndarray,
    *,
    singles: bool = True,
    locked: bool = False,
    pairs: bool = False,
    deadline: Deadline | None = None,
    max_work: int | None = None,
) -> tuple[Propagation, np.ndarray]:
    """Propagate a (B, n*n) stack of puzzles by rounds, to a fixpoint of the chosen rules or ``max_work``.

    With ``singles=False`` only the givens eliminate (no other rule runs).  ``locked`` and
    ``pairs`` add locked candidates and naked/hidden pairs to the singles.  ``deadline`` is
    checked between rounds and between the steps of a round (a step takes well under a tenth of a
    second even on 400x400 grids): once spent, ``limits.TimeLimitReached`` ("propagation").  Tables
    that cannot fit in memory (about 4 bytes per puzzle, cell and digit) are refused first
    (``limits.ModelTooLarge``).

    ``max_work`` caps the work, in units of ``round_cost`` per active puzzle and round, summed
    over the rounds: a round that would pass it is not started.  Returns the propagation and the indices
    of the puzzles left unfinished (empty without a cap); the values of those are sound (placed
    digits follow from the givens) but not yet a fixpoint, and their candidates are unset.
    """
    n = geometry.n
    values = np.array(values, dtype=np.int16).reshape(-1, n * n)
    batch = values.shape[0]
    digits = np.arange(1, n + 1, dtype=np.int16)
    extra = singles and (locked or pairs)
    per_candidate = 8 if extra else 4  # the candidates, two scratch tables, a copy for the extra rules
    check_memory(f"propagating {batch} puzzle(s) of {n}x{n}", per_candidate * batch * n**3)
    cand = np.ones((batch, n * n, n), dtype=bool)
    contradiction = np.zeros(batch, dtype=bool)
    active = np.arange(batch)
    # The candidates of the active puzzles, and two scratch tables of the same shape, updated in
    # place: a fresh table of a 400x400 grid costs more (page faults) than the pass that fills it.
    work = cand
    scratch = np.empty_like(cand), np.empty_like(cand)

    def check() -> None:
        if deadline is not None:
            deadline.check("propagation")

    spent = 0
    cost = round_cost(n, extra)
    while active.size:
        check()
        if max_work is not None and spent + active.size * cost > max_work:
            return Propagation(values, cand, contradiction), active
        spent += active.size * cost
        size = active.size
        vals = values[active]
        c = work[:size]
        placed = np.equal(vals[:, :, None], digits, out=scratch[0][:size])  # (A, N, n)
        unit_has = _unit_digit_counts(geometry, placed)  # (A, 3n, n)
        bad = (unit_has > 1).any(axis=(1, 2))
        check()
        seen = _seen(geometry, unit_has > 0, scratch[1][:size])  # (A, N, n)
        before = c.copy() if extra else c
        np.greater(c, seen, out=c)  # c and not seen
        open_cells = vals == 0
        c &= open_cells[:, :, None]
        c |= placed  # a placed cell keeps exactly its digit
        check()
        if extra:
            open_c = c & open_cells[:, :, None]
            if locked:
                c &= ~_locked(geometry, open_c)
                open_c = c & open_cells[:, :, None]
            if pairs:
                c &= ~_pairs(geometry, open_c)
            check()
        counts = c.sum(axis=2, dtype=np.int16)
        bad |= (open_cells & (counts == 0)).any(axis=1)
        new_vals = vals.copy()
        naked = open_cells & (counts == 1)
        if singles and naked.any():
            a_idx, cell_idx = np.nonzero(naked)
            new_vals[a_idx, cell_idx] = (np.argmax(c[a_idx, cell_idx], axis=1) + 1).astype(np.int16)
        if singles:
            check()
            open_c = np.logical_and(c, open_cells[:, :, None], out=scratch[0][:size])
            unit_cand = _unit_digit_counts(geometry, open_c)  # (A, 3n, n)
            missing = unit_has == 0
            bad |= (missing & (unit_cand == 0)).any(axis=(1, 2))
            hidden_units = missing & (unit_cand == 1)  # (A, 3n, n)
            if hidden_units.any():
                a_idx, u_idx, d_idx = np.nonzero(hidden_units)
                cells_of_unit = geometry.units[u_idx]  # (H, n)
                holder = open_c[a_idx[:, None], cells_of_unit, d_idx[:, None]]  # (H, n)
                cell = cells_of_unit[np.arange(len(u_idx)), np.argmax(holder, axis=1)]
                new_vals[a_idx, cell] = (d_idx + 1).astype(np.int16)
        contradiction[active[bad]] = True
        if not singles:
            cand[active] = c
            break
        changed = (new_vals != vals).any(axis=1) & ~bad
        if extra:
            changed |= (c != before).any(axis=(1, 2)) & ~bad
        values[active] = np.where(bad[:, None], vals, new_vals)
        if changed.all():
            continue
        # Some puzzles are done: their candidates go home, the others move up in the work tables.
        if work is not cand:
            cand[active] = c
        if changed.any():
            if work is cand:
                work = cand[active[changed]]
            else:
                work[: int(changed.sum())] = c[changed]
        active = active[changed]
    return Propagation(values, cand, contradiction), active
