"""The weights of the measured techniques: Sudoku Explainer's published difficulty scale.

A rule of fixed difficulty carries its weight in the rule table; the techniques below weigh what
their instance needs (strong links, cells, length), so their steps carry their own weight:

- strong-link fishes (one-digit chains and loops; 2 strong links: the turbot fish, skyscraper,
  kite): base 4.0 / 5.4 / 5.8 / 6.2 / 6.6 for 2 to 6 strong links, plus 0.1 for a plain one (the
  middle of Sudoku Explainer's three link-kind variants, 0 to 0.2) or 0.3 through a group (the
  cells of a box and a line holding the digit);
- wings (an almost locked set of ``size`` cells and a two-digit pivot): XY-wing 4.2, XYZ-wing
  4.4, WXYZ-wing 5.5-5.6, VWXYZ-wing 6.2-6.4, 0.1 more when the widest cell of the set is of
  middling size;
- chains and loops: base loop 6.5 (one digit, or two-digit cells), one-digit chain 6.6, mixed
  (XY) chain or loop 7.0, each plus 0.1 per length bracket passed: a chain of L links has length
  L - 1, a loop of L links L - 2, and every bracket passed (4, 6, 8, 12, 16, 24 ...: alternately
  x 3/2 and x 4/3) adds 0.1.
"""

from __future__ import annotations

from functools import cache

__all__ = [
    "FISH_BASE",
    "GROUPED_EXTRA",
    "LOOP_BASE",
    "PLAIN_EXTRA",
    "WING_WEIGHT",
    "XY_BASE",
    "X_CHAIN_BASE",
    "bracket_end",
    "chain_weight",
    "fish_weight",
    "length_bonus",
    "wing_weight",
]

#: Strong-link fishes: base weight by number of strong links.
FISH_BASE = {2: 4.0, 3: 5.4, 4: 5.8, 5: 6.2, 6: 6.6}
PLAIN_EXTRA, GROUPED_EXTRA = 0.1, 0.3
#: Wings by number of cells in the almost locked set (2: XYZ-wing, 3: WXYZ, 4: VWXYZ).
WING_WEIGHT = {2: 4.4, 3: 5.5, 4: 6.2}
#: Chain bases: loop on one digit or on two-digit cells, one-digit chain, anything mixed.
LOOP_BASE, X_CHAIN_BASE, XY_BASE = 6.5, 6.6, 7.0


def length_bonus(length: int) -> float:
    """0.1 per length bracket passed (4, 6, 8, 12, 16, 24, 32, ...)."""
    bonus, ceiling, odd = 0.0, 4, False
    while length > ceiling:
        bonus += 0.1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return round(bonus, 1)


def bracket_end(length: int) -> int:
    """The longest length whose ``length_bonus`` is that of ``length`` (the end of its bracket)."""
    ceiling, odd = 4, False
    while length > ceiling:
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return ceiling


@cache  # the rules weigh every find; the same few arguments come again and again
def fish_weight(strong: int, grouped: bool) -> float:
    """A strong-link fish of ``strong`` strong links (2 to 6), plain or through a group."""
    return round(FISH_BASE[strong] + (GROUPED_EXTRA if grouped else PLAIN_EXTRA), 1)


@cache  # the rules weigh every find; the same few arguments come again and again
def wing_weight(size: int, widest: int) -> float:
    """A wing's weight from its set's size and its widest cell: with three cells in all, the
    XY-wing (two-digit cells only) 4.2 and the XYZ-wing 4.4; larger wings weigh 0.1 more when the
    widest cell of the set is of middling size (Sudoku Explainer's rule)."""
    if size == 2:
        return 4.2 if widest == 2 else WING_WEIGHT[2]
    cells = size + 1
    middle = (cells + 2) // 2
    return round(WING_WEIGHT[size] + 0.1 * ((cells - middle) - abs(middle - widest)), 1)


@cache  # the rules weigh every find; the same few arguments come again and again
def chain_weight(one_digit: bool, loop: bool, links: int, *, bivalue: bool = False) -> float:
    """The weight of a chain or loop of ``links`` links: one digit (X), two-digit cells only (Y,
    ``bivalue``: loops) or mixed (XY)."""
    if loop:
        return round((LOOP_BASE if one_digit or bivalue else XY_BASE) + length_bonus(links - 2), 1)
    return round((X_CHAIN_BASE if one_digit else XY_BASE) + length_bonus(links - 1), 1)
