"""What a rule is: a name, a player's one-line description, a family, a weight, and a finder."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..board import Board
from ..step import Step, step_from_record
from .local import LOCAL_RULES, find_local

__all__ = ["Finder", "Rule", "local_finder", "local_step"]

#: A finder reads the board and returns the first instance of its pattern, or None.  It may
#: raise ``board.Contradiction`` when the pattern shows the puzzle has no solution.
Finder = Callable[[Board], Step | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """One deduction rule.

    ``family`` is the name ``--rules`` selects it by (several rules share one, e.g. "subsets");
    ``weight`` is its difficulty on the rating scale (``rate``: the rating of a solve is the
    weight of its hardest step); ``local_id`` is its compiled kernel id, or -1 for a rule written
    in Python; ``uniqueness`` marks rules that assume the puzzle has one solution (off unless asked);
    ``subsumed_by`` names rules that find every step of this one, or one no heavier, on the grids
    they search (the engine does not try a subsumed rule once a lighter step is in hand and all
    of those rules were chosen: the step it would offer cannot win).
    """

    name: str
    family: str
    description: str
    weight: float
    find: Finder
    local_id: int = -1
    uniqueness: bool = False
    subsumed_by: tuple[str, ...] = ()


def local_step(name: str, rec: np.ndarray, count: int, terse: bool) -> Step | None:
    """The step of a local rule's kernel record (``count`` rows, 0: none): on a ``terse`` board
    what it changes alone (the engine only counts it), else with its pattern."""
    if not count:
        return None
    if terse:
        rows = rec[:count]
        kind = rows[:, 0]
        return Step(
            name, np.ascontiguousarray(rows[kind == 0, 1:]), np.ascontiguousarray(rows[kind == 1, 1:])
        )
    return step_from_record(name, rec, count)


#: Per thread: the record buffer of the local finders (the step copies what it keeps out of it;
#: a kernel call with an array made for it costs more than one with an array it saw before).
_here = threading.local()


def local_finder(name: str) -> Finder:
    """The finder of a compiled local rule, by name (one record buffer per thread)."""
    rule_id = LOCAL_RULES.index(name)

    def find(board: Board) -> Step | None:
        t = board.tables
        rows = board.cand.size + board.cand.shape[0] + 4 * board.geometry.n
        rec: np.ndarray | None = getattr(_here, "rec", None)
        if rec is None or len(rec) != rows:
            rec = _here.rec = np.empty((rows, 3), dtype=np.int64)
        count = find_local(rule_id, board.cand, board.values, t.units, t.cell_units, t.peers, rec)
        return local_step(name, rec, count, board.terse)

    find.__doc__ = f"The first {name} on the board."
    return find
