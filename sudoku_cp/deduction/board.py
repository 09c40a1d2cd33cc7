"""The solving state of human-style deduction: placed digits and the candidates still open.

A ``Board`` holds, for a grid of any box shape, ``values`` (n*n int16, 0 = open, else the digit
1..n) and ``cand`` (n*n by n uint8, ``cand[cell, d]`` = 1 when digit d + 1 may still go in the
cell).  A placed cell keeps exactly its own digit as candidate.  Rules read the board and
return a ``Step``; only the engine changes the board, through ``apply``.

The arrays are plain numpy so the compiled rule kernels (``rules.local``) work on them in place.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numba
import numpy as np

from ..errors import SudokuCpError
from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline, watch_compilation

watch_compilation()  # a kernel compiled on a first run is not counted against time limits

__all__ = ["Board", "Contradiction", "Tables", "tables"]


class Contradiction(SudokuCpError):
    """The candidates show the puzzle has no solution (a cell or a unit left with no option)."""


@dataclass(frozen=True, slots=True)
class Tables:
    """Geometry as int64 arrays for the kernels: units (3n, n), cell_units (n*n, 3), peers (n*n, k)."""

    units: np.ndarray
    cell_units: np.ndarray
    peers: np.ndarray


@cache
def tables(geometry: Geometry, deadline: Deadline | None = None) -> Tables:
    """The kernel tables of a geometry (computed once per shape; ``deadline`` looked at meanwhile)."""
    made = _TABLES.get(geometry)
    if made is None:
        made = Tables(
            np.ascontiguousarray(geometry.units, dtype=np.int64),
            np.ascontiguousarray(geometry.cell_units, dtype=np.int64),
            np.ascontiguousarray(geometry.peers(deadline), dtype=np.int64),
        )
        _TABLES[geometry] = made
    return made


_TABLES: dict[Geometry, Tables] = {}

#: The stamps of board states (``Board.stamp``): never one twice in a process, so that a stamp
#: names one state of one board.
_STAMPS = itertools.count()


@numba.njit(cache=True)
def apply_record(
    cand: np.ndarray, values: np.ndarray, peers: np.ndarray, rec: np.ndarray, count: int
) -> None:
    """Apply the placements (kind 0) and eliminations (kind 1) of a step record in place."""
    for i in range(count):
        kind, cell, digit = rec[i, 0], rec[i, 1], rec[i, 2]
        if kind == 0:
            values[cell] = digit + 1
            cand[cell, :] = 0
            cand[cell, digit] = 1
            for k in range(peers.shape[1]):
                cand[peers[cell, k], digit] = 0
        elif kind == 1:
            cand[cell, digit] = 0


@numba.njit(cache=True)
def contradiction(cand: np.ndarray, values: np.ndarray, units: np.ndarray) -> tuple[int, int, int]:
    """The first contradiction as (kind, place, digit): kind 0 none, 1 an open cell with no
    candidate (place = cell), 2 a digit with no cell left in a unit (place = unit), 3 a digit
    placed twice in a unit (place = unit)."""
    n = cand.shape[1]
    for cell in range(cand.shape[0]):
        if values[cell] == 0:
            empty = True
            for d in range(n):
                if cand[cell, d]:
                    empty = False
                    break
            if empty:
                return 1, cell, -1
    if n <= 64:
        # each open cell's candidates as a bit mask once, then per unit: placed once, twice, room
        one = np.uint64(1)
        masks = np.zeros(cand.shape[0], np.uint64)
        for cell in range(cand.shape[0]):
            if values[cell] == 0:
                for d in range(n):
                    if cand[cell, d]:
                        masks[cell] |= one << np.uint64(d)
        for u in range(units.shape[0]):
            once = twice = room = np.uint64(0)
            for i in range(n):
                cell = units[u, i]
                if values[cell] != 0:
                    bit = one << np.uint64(values[cell] - 1)
                    twice |= once & bit
                    once |= bit
                else:
                    room |= masks[cell]
            for d in range(n):
                bit = one << np.uint64(d)
                if twice & bit:
                    return 3, u, d
                if not (once & bit) and not (room & bit):
                    return 2, u, d
        return 0, -1, -1
    for u in range(units.shape[0]):
        for d in range(n):
            placed = 0
            room_count = 0
            for i in range(n):
                cell = units[u, i]
                if values[cell] == d + 1:
                    placed += 1
                elif values[cell] == 0 and cand[cell, d]:
                    room_count += 1
            if placed > 1:
                return 3, u, d
            if placed == 0 and room_count == 0:
                return 2, u, d
    return 0, -1, -1


@numba.njit(cache=True)
def apply_checked(
    cand: np.ndarray,
    values: np.ndarray,
    peers: np.ndarray,
    units: np.ndarray,
    placements: np.ndarray,
    eliminations: np.ndarray,
) -> tuple[int, int, int]:
    """Apply a step's placements, then its eliminations, as ``apply_record`` would, and return
    the first contradiction after it as ``contradiction`` does (kind, place, digit) -- unless the
    step changes nothing or names a cell or digit out of range, a placed cell or a candidate not
    open: then kind -1, and nothing is applied.  One compiled call for
    what the engine does with every step of a rule not compiled into its fixed point."""
    ncell, n = cand.shape
    if placements.shape[0] + eliminations.shape[0] == 0:
        return -1, -1, -1
    for rows in (placements, eliminations):
        for i in range(rows.shape[0]):
            cell, digit = rows[i, 0], rows[i, 1]
            if cell < 0 or cell >= ncell or digit < 0 or digit >= n:
                return -1, -1, -1
            if values[cell] != 0 or not cand[cell, digit]:
                return -1, -1, -1
    for i in range(placements.shape[0]):
        cell, digit = placements[i, 0], placements[i, 1]
        values[cell] = digit + 1
        cand[cell, :] = 0
        cand[cell, digit] = 1
        for k in range(peers.shape[1]):
            cand[peers[cell, k], digit] = 0
    for i in range(eliminations.shape[0]):
        cand[eliminations[i, 0], eliminations[i, 1]] = 0
    return contradiction(cand, values, units)


@numba.njit(cache=True)
def _place_givens(cand: np.ndarray, values: np.ndarray, peers: np.ndarray, givens: np.ndarray) -> int:
    """Place every given (``givens[cell]`` a digit 1..n or 0) as ``apply_record`` would, in cell
    order; returns the first given cell whose own digit a clashing peer removed, or -1."""
    for cell in range(givens.shape[0]):
        digit = givens[cell] - 1
        if digit < 0:
            continue
        values[cell] = digit + 1
        cand[cell, :] = 0
        cand[cell, digit] = 1
        for k in range(peers.shape[1]):
            cand[peers[cell, k], digit] = 0
    for cell in range(givens.shape[0]):
        if givens[cell] and not cand[cell, givens[cell] - 1]:
            return cell
    return -1


#: Above this side the board is set up and checked with numpy, a unit and a digit at a time for
#: every cell at once: the kernels walk every peer of every given (185 million on 400x400, in
#: cache-missing order: 3.2 s) and every unit, digit and cell (1.2 s), with no look at the clock.
_WIDE = 64


def _placed_wide(geometry: Geometry, givens: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """What ``_place_givens`` makes of ``givens`` (values, candidates, first clashing given or -1),
    from the digits each unit holds: a digit leaves a cell when one of its units holds it."""
    n = geometry.n
    flat = np.asarray(givens, dtype=np.int64).reshape(-1)
    cells = np.flatnonzero(flat > 0)
    digit = flat[cells] - 1
    units_of = geometry.cell_units[cells]  # (givens, 3): row, n + column, 2n + box
    count = np.zeros(3 * n * n, dtype=np.int64)
    for k in range(3):
        count += np.bincount(units_of[:, k] * n + digit, minlength=3 * n * n)
    held = (count > 0).reshape(3 * n, n)
    cell_units = geometry.cell_units
    gone = held[cell_units[:, 0]]
    gone |= held[cell_units[:, 1]]
    gone |= held[cell_units[:, 2]]
    np.logical_not(gone, out=gone)
    cand = gone.view(np.uint8)
    cand[cells] = 0
    clashing = (count.reshape(3 * n, n)[units_of, digit[:, None]] > 1).any(axis=1)
    cand[cells[~clashing], digit[~clashing]] = 1  # a clashing given lost its own digit to its peer
    values = np.zeros(n * n, dtype=np.int16)
    values[cells] = digit + 1
    first = int(cells[np.argmax(clashing)]) if clashing.any() else -1
    return values, cand, first


def _contradiction_wide(cand: np.ndarray, values: np.ndarray, geometry: Geometry) -> tuple[int, int, int]:
    """``contradiction`` with numpy (the same answer): every cell, then every unit and digit at once."""
    n = geometry.n
    open_ = values == 0
    empty = open_ & ~cand.any(axis=1)
    if empty.any():
        return 1, int(np.argmax(empty)), -1
    units = geometry.units
    placed_digit = values.astype(np.int64)[units]  # (3n, n)
    unit_of = np.repeat(np.arange(3 * n, dtype=np.int64), n).reshape(3 * n, n)
    placed = np.bincount((unit_of * n + placed_digit - 1)[placed_digit > 0], minlength=3 * n * n).reshape(
        3 * n, n
    )
    room = np.empty((3 * n, n), dtype=bool)
    open_cand = (cand != 0) & open_[:, None]
    grid = open_cand.reshape(n, n, n)  # row, column, digit
    room[:n] = grid.any(axis=1)
    room[n : 2 * n] = grid.any(axis=0)
    room[2 * n :] = open_cand[units[2 * n :]].any(axis=1)
    twice = placed > 1
    bad = (twice | ((placed == 0) & ~room)).reshape(-1)
    if not bad.any():
        return 0, -1, -1
    where = int(np.argmax(bad))
    unit, digit = divmod(where, n)
    return (3 if twice[unit, digit] else 2), unit, digit


class Board:
    """Placed digits and open candidates of one puzzle under deduction (mutable, engine-owned)."""

    __slots__ = ("_tables", "cand", "geometry", "stamp", "terse", "values")

    def __init__(self, geometry: Geometry, values: np.ndarray, cand: np.ndarray) -> None:
        self.geometry = geometry
        self._tables: Tables | None = None  # made when first needed: on 400x400, 1.5 GB and seconds
        self.values = values
        self.cand = cand
        # Set by the engine while it only counts steps (rate): a rule's step then needs nothing
        # but its placements, eliminations and weight, and the rules may leave out its note,
        # links and pattern (building them cost a tenth of rating the generated puzzles).
        self.terse = False
        # Set by the engine while it owns the board (only it changes the board then): a number
        # that names this state (``state_key``), renewed at each change; None when not known.
        self.stamp: int | None = None

    @property
    def tables(self) -> Tables:
        """The kernel tables of the board's geometry (made on first use)."""
        if self._tables is None:
            self._tables = tables(self.geometry)
        return self._tables

    def prepare(self, deadline: Deadline | None) -> None:
        """Make the kernel tables now, looking at ``deadline`` meanwhile (TimeLimitReached)."""
        if self._tables is None:
            self._tables = tables(self.geometry, deadline)

    @classmethod
    def from_grid(cls, grid: Grid) -> Board:
        """The board of a puzzle: each given placed, its digit removed from its peers.

        Raises ``Contradiction`` when two givens clash (the same digit twice in a unit).
        """
        g = grid.geometry
        n = g.n
        flat = grid.values.reshape(-1)
        if n > _WIDE:
            values, cand, cell = _placed_wide(g, flat)
            board = cls(g, values, cand)
        else:
            board = cls(g, np.zeros(n * n, dtype=np.int16), np.ones((n * n, n), dtype=np.uint8))
            # A given whose own digit was removed by a clashing peer shows the clash.
            cell = _place_givens(board.cand, board.values, board.tables.peers, np.ascontiguousarray(flat))
        if cell >= 0:
            raise Contradiction(
                f"given {flat[cell]} at {g.cell_name(cell)} repeats in its row, column or box"
            )
        return board

    def stamp_anew(self) -> None:
        """The engine's note that it changed the board it owns: the state gets a new ``stamp``."""
        self.stamp = next(_STAMPS)

    def state_key(self) -> object:
        """A key of this board state, for answers kept per state: the ``stamp`` while the engine
        owns the board (no bytes to compare: rules look up their state's answers 50,000 times
        in rating 2,000 puzzles), else the geometry and the bytes of the values and candidates."""
        if self.stamp is not None:
            return self.stamp
        return (self.geometry, self.values.tobytes(), self.cand.tobytes())

    def copy(self) -> Board:
        """An independent copy."""
        return Board(self.geometry, self.values.copy(), self.cand.copy())

    @property
    def n(self) -> int:
        """Side length."""
        return self.geometry.n

    @property
    def solved(self) -> bool:
        """True when every cell holds a digit."""
        return bool(np.all(self.values))

    def open_cells(self) -> np.ndarray:
        """Flat indices of the cells without a digit."""
        return np.flatnonzero(self.values == 0)

    def apply(self, placements: np.ndarray, eliminations: np.ndarray) -> None:
        """Place (cell, digit) pairs (removing the digit from their peers) and remove candidates."""
        placements = np.asarray(placements, dtype=np.int64).reshape(-1, 2)
        eliminations = np.asarray(eliminations, dtype=np.int64).reshape(-1, 2)
        rec = np.zeros((len(placements) + len(eliminations), 3), dtype=np.int64)
        rec[len(placements) :, 0] = 1
        rec[: len(placements), 1:] = placements
        rec[len(placements) :, 1:] = eliminations
        apply_record(self.cand, self.values, self.tables.peers, rec, len(rec))
        if self.stamp is not None:
            self.stamp = next(_STAMPS)

    def check(self) -> None:
        """Raise ``Contradiction`` naming the place where the candidates show no solution."""
        g = self.geometry
        if g.n > _WIDE:
            kind, place, digit = _contradiction_wide(self.cand, self.values, g)
        else:
            kind, place, digit = contradiction(self.cand, self.values, self.tables.units)
        self.raise_found(kind, place, digit)

    def apply_checked(self, placements: np.ndarray, eliminations: np.ndarray) -> tuple[int, int, int] | None:
        """``apply``, then what ``check`` finds, in one compiled call for (k, 2) int64 rows (the
        engine's steps): the contradiction (kind, place, digit; kind 0: none) for
        ``raise_found``; None, with nothing applied, when the step changes nothing or names what
        is not an open candidate (the caller says what is wrong), or on a side above 64."""
        if self.geometry.n > _WIDE:
            return None
        t = self.tables
        found = apply_checked(self.cand, self.values, t.peers, t.units, placements, eliminations)
        if found[0] < 0:
            return None
        if self.stamp is not None:
            self.stamp = next(_STAMPS)
        return found

    def raise_found(self, kind: int, place: int, digit: int) -> None:
        """Raise ``Contradiction`` for a ``contradiction`` answer (kind 0: none, no raise)."""
        g = self.geometry
        if kind == 1:
            raise Contradiction(f"{g.cell_name(place)} has no candidate left")
        if kind == 2:
            raise Contradiction(f"digit {digit + 1} has no cell left in {g.unit_name(place)}")
        if kind == 3:
            raise Contradiction(f"digit {digit + 1} is placed twice in {g.unit_name(place)}")

    def grid(self) -> Grid:
        """The placed digits as a grid (open cells empty)."""
        return Grid(self.geometry, self.values.reshape(self.n, self.n))

    def candidate_count(self) -> int:
        """Number of candidates left in open cells."""
        return int(self.cand[self.values == 0].sum())
