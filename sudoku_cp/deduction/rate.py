"""Rating: how hard a puzzle is for a solver that never guesses, as a number and a named level.

The scale (``rating``, higher is harder) is Sudoku Explainer's: a solve is rated by its hardest
step.  ``rate`` runs the engine of ``explain`` (``engine.deduce``) in its one mode, easiest
step first: at every state the step of least weight any chosen rule offers, as Sudoku Explainer
rates.  The rating is the weight of the heaviest step taken, and ``explain --json`` shows that
very step with that weight (``Deduction.hardest_index``).  The weights:

- fixed per rule: hidden single 1.5, naked single 2.3, pointing 2.6, claiming 2.8, naked pair
  3.0, X-wing 3.2, hidden pair 3.4, naked triple 3.6, swordfish 3.8, hidden triple 4.0, XY-wing
  4.2, naked quad 5.0, jellyfish 5.2, hidden quad 5.4, the matching rules 5.6 and 5.8, Nishio
  7.6, region and cell forcing chains 8.2 and 8.3 (tried only where nothing lighter applies);
- measured per step (``rules.scale``): one-digit chains and loops by their number of strong
  links k (turbot fish k = 2: 4.1, then 5.5, 5.9, 6.3, 6.7; 0.2 more through a group of cells of
  a box and a line), XYZ-wing 4.4, WXYZ-wing 5.5-5.6, VWXYZ-wing 6.2-6.4, loops (X, Y) 6.5,
  one-digit chains 6.6, mixed chains and loops 7.0, each chain plus 0.1 per length bracket
  passed (4, 6, 8, 12, 16, 24 ... links); with the uniqueness rules chosen, unique rectangle 4.5
  and BUG + 1 5.6; Eppstein's bilocation and bivalue rules and 2-SAT as the chains they are.
  The chain, fish and wing searches run on grids up to 16 x 16;
- a puzzle the chosen rules cannot finish is rated ``STUCK_RATING`` (above every step), one with
  no solution or an invalid one has no rating.

Levels cut the scale into named bands (``LEVELS``), each named by the rules that typically reach it:

==========  =====  ===================================================================
level       from   typical hardest step
==========  =====  ===================================================================
easy        0.0    singles
medium      2.5    locked candidates (pointing, claiming)
hard        3.0    naked and hidden pairs and triples, X-wing, swordfish
fiendish    4.1    turbot fish, XY- and XYZ-wings, quads, jellyfish
diabolical  5.5    WXYZ- and VWXYZ-wings, longer and grouped one-digit chains, X- and Y-loops
extreme     7.0    mixed (XY) chains and loops, Nishio, forcing chains
unsolved    10.0   beyond the chosen rules
==========  =====  ===================================================================

Calibration: Spearman rank correlation with Sukaku Explainer's ratings on the 10,000 Sudoku
Exchange "diabolical" puzzles (``benchmarks/rating.py``; figures in ``benchmarks/README.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..grid import Grid
from ..limits import Deadline
from ..outcome import Status
from .engine import Deduction, deduce
from .rules import Rule

__all__ = ["LEVELS", "STUCK_RATING", "Rating", "level_of", "rate", "rating_of"]

#: (level, lowest rating in it), easiest first.
LEVELS: tuple[tuple[str, float], ...] = (
    ("easy", 0.0),
    ("medium", 2.5),
    ("hard", 3.0),
    ("fiendish", 4.1),
    ("diabolical", 5.5),
    ("extreme", 7.0),
    ("unsolved", 10.0),
)
#: The rating of a puzzle the chosen rules cannot finish.
STUCK_RATING = 10.0


@dataclass(frozen=True, slots=True)
class Rating:
    """The rating of one puzzle: status, ``rating`` (None when unsat), ``level``, steps per rule,
    and the rule of the hardest step."""

    status: Status
    rating: float | None
    level: str
    counts: dict[str, int]
    hardest: str | None = None
    reason: str | None = None


def rating_of(
    deduction: Deduction, grid: Grid | None = None, *, time_limit: float | Deadline | None = None
) -> tuple[float | None, str | None]:
    """The rating of a deduction and the rule of its hardest step (the heaviest step it took;
    ``STUCK_RATING`` when stuck, None when unsolved otherwise).  ``grid`` and ``time_limit`` are
    not needed: the engine measured every step as it took it."""
    del grid, time_limit
    if deduction.status is Status.STUCK:
        return STUCK_RATING, None
    if deduction.status is not Status.SOLVED:
        return None, None
    return round(deduction.weight, 1), deduction.hardest


def level_of(rating: float | None) -> str:
    """The named level of a rating ("none" when there is no rating)."""
    if rating is None:
        return "none"
    name = LEVELS[0][0]
    for level, low in LEVELS:
        if rating >= low:
            name = level
    return name


def rate(
    grid: Grid, rules: Sequence[Rule] | None = None, *, time_limit: float | Deadline | None = None
) -> Rating:
    """Rate one puzzle with the rules (all non-uniqueness rules by default), easiest step first.

    ``time_limit``: seconds from the call, or a ``Deadline`` the caller shares (None: no limit);
    a puzzle it stops is unknown, without a rating."""
    # a tuple as given (``tuple`` of a tuple is itself), so the engine knows the rule set again
    chosen = tuple(rules) if rules is not None else None
    deduction = deduce(grid, chosen, record=False, time_limit=time_limit)
    value, hardest = rating_of(deduction)
    return Rating(deduction.status, value, level_of(value), deduction.counts, hardest, deduction.reason)
