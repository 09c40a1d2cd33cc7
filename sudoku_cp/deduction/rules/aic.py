"""Alternating chains: strong-link fishes, X-, Y- and XY-chains and loops, measured by their links.

A chain alternates weak links (two candidates that cannot both be true: the same digit twice in
a unit, two digits of one cell) and strong links (two that cannot both be false: a digit's only
two places in a unit, a cell's only two digits).  Read from a candidate v: v true makes the next
false (weak), which makes the next true (strong) ... so a chain from v back to a candidate that
sees v proves v false (an elimination), and a chain from "not q" to q proves q (a placement).  A
loop (a cycle of alternating links) makes every weak link of it strong, so a candidate that sees
both ends of one of its weak links goes.  Each step is one such deduction, found by the compiled
shortest-chain searches of ``chain_search`` and weighed by ``scale``:

- the strong-link fishes (``xchains`` family): one-digit chains with 2 strong links (the turbot
  fish: skyscraper, kite, ...), 3, 4, 5 or 6, the shortest one on the board; a ``grouped-`` one
  when only chains through a group (the cells of a box and a line holding the digit) are that
  short.  Weight 4.1 ... 6.7 plain, 0.2 more grouped;
- ``x-chain``, ``x-cycle`` (one digit), ``y-cycle`` (two-digit cells), ``xy-chain`` and
  ``xy-cycle`` (everything): the shortest of each, 6.5 / 6.6 / 7.0 plus its length.

Every link's implication holds wherever it sits in the chain, so each step is sound (and proved
by SAT like every other, ``deduction.proof``).  Grids over ``chain_search.SEARCH_MAX_SIDE`` get no
steps from these rules (the searches grow with the square of the candidates).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ...geometry import Geometry
from ..board import Board, tables
from ..step import Link, Step
from .base import Rule
from .chain_search import (
    ELIMINATION,
    LOOP,
    PLACEMENT,
    SEARCH_MAX_SIDE,
    XY,
    ChainFound,
    X,
    Y,
    chain_search,
    grouped_search,
)
from .scale import FISH_BASE, chain_weight, fish_weight

__all__ = ["RULES", "fish_strong_links"]

_NONE = np.zeros((0, 2), dtype=np.int64)


def _pairs(found: set[tuple[int, int]]) -> np.ndarray:
    """(k, 2) rows of (cell, digit), sorted."""
    return np.array(sorted(found), dtype=np.int64).reshape(-1, 2)


#: Link kinds as the pictures draw them (``svg.LINK_STYLES``).
STRONG, WEAK, BIVALUE_WEAK = "bilocation", "weak", "bivalue"


def fish_strong_links(found: ChainFound) -> tuple[int, int]:
    """The strong links of the one-digit search's shortest find (0 when none) and its kind:
    an elimination of 2 L + 1 links has L, a placement of 2 L + 1 links or a loop of 2 L links L + 1."""
    if found.links[ELIMINATION] >= 0:
        return (found.links[ELIMINATION] - 1) // 2, ELIMINATION
    if found.links[PLACEMENT] >= 0:
        return (found.links[PLACEMENT] + 1) // 2, PLACEMENT
    if found.links[LOOP] >= 0:
        return found.links[LOOP] // 2, LOOP
    return 0, -1


@cache
def _peer_sets(geometry: Geometry) -> tuple[frozenset[int], ...]:
    """Each cell's peers as a set (one table per box shape)."""
    return tuple(frozenset(row) for row in tables(geometry).peers.tolist())


def victims(
    board: Board, a: tuple[int, int], b: tuple[int, int], keep: set[tuple[int, int]]
) -> set[tuple[int, int]]:
    """The open candidates weak-linked to both a and b (one of which is true), outside ``keep``:
    they are false.  Only candidates of a's cell or of a's digit in a's units can see a."""
    cell, digit = a
    other, other_digit = b
    peers = _peer_sets(board.geometry)
    cand, values = board.cand, board.values
    found: set[tuple[int, int]] = set()
    # By cases of the definition (x weak to a and to b, x != b), each a few set operations: a
    # Python loop over every peer cost a twentieth of rating a puzzle of the chain band.
    # x = (cell, d), d != digit (weak to a in its cell): weak to b in b's cell, or as b's digit seeing b
    if values[cell] == 0:
        if cell == other:
            for d in np.flatnonzero(cand[cell]).tolist():
                if d != digit and d != other_digit:
                    found.add((cell, d))
        elif other_digit != digit and cand[cell, other_digit] and other in peers[cell]:
            found.add((cell, other_digit))
    # x = (p, digit), p a peer of a's cell: b itself aside, weak to b as b's digit in a cell seeing
    # b, or as another digit of b's cell
    if digit == other_digit:
        for p in peers[cell] & peers[other]:
            if cand[p, digit] and values[p] == 0:
                found.add((p, digit))
    elif other in peers[cell] and cand[other, digit] and values[other] == 0:
        found.add((other, digit))
    return found - keep if keep else found


def _name(board: Board, cell: int, digit: int) -> str:
    return f"{board.geometry.cell_name(cell)}({digit + 1})"


def _chain_links(nodes: list[tuple[int, int]], strong_first: bool, weak_kind: str) -> list[Link]:
    """The links between consecutive literals (alternating, ``strong_first`` or weak first); a
    link inside one cell (two digits of it) is no line between cells and is left out."""
    links: list[Link] = []
    for i in range(len(nodes) - 1):
        (a, _), (b, db) = nodes[i], nodes[i + 1]
        if a == b:
            continue
        strong = (i % 2 == 0) == strong_first
        links.append((a, b, db, STRONG if strong else weak_kind))
    return links


def _text(board: Board, nodes: list[tuple[int, int]], strong_first: bool) -> str:
    """The chain in a player's notation: R1C1(5) - R1C7(5) = R3C7(5) ..., '=' strong, '-' weak."""
    parts = [_name(board, *nodes[0])]
    for i in range(1, len(nodes)):
        strong = ((i - 1) % 2 == 0) == strong_first
        parts.append(("= " if strong else "- ") + _name(board, *nodes[i]))
    return " ".join(parts)


def chain_step(rule: str, board: Board, found: ChainFound, kind: int, weight: float, mode: int = X) -> Step:
    """The step of one find of a chain search: what it removes or places, the chain it rests on
    (what it changes alone on a ``terse`` board)."""
    cell, digit = found.target[kind]
    walk = [(c, d) for c, d in found.walk[kind].tolist()]
    if kind == ELIMINATION:
        # v - w1 = y1 - ... = yL - v: v true would make v false.  Read as w1 = ... = yL (one of
        # the two ends is true), it removes every candidate that sees both ends, v among them.
        gone = victims(board, walk[1], walk[-1], set(walk[1:])) | {(cell, digit)}
        placements, eliminations = _NONE, _pairs(gone)
    elif kind == PLACEMENT:
        # not q => v (strong) - w1 = ... = q: q false would make q true
        placements, eliminations = np.array([[cell, digit]], dtype=np.int64), _NONE
    else:
        # v - w1 = ... = y - w = v: a loop; every weak link holds exactly one true candidate, so
        # what sees both ends of one goes
        loop = set(walk)
        gone = {(cell, digit)}
        for i in range(0, len(walk), 2):
            gone |= victims(board, walk[i], walk[i + 1], loop)
        placements, eliminations = _NONE, _pairs(gone)
    if board.terse:
        return Step(rule, placements, eliminations, weight=weight)
    weak_kind = BIVALUE_WEAK if mode == Y else WEAK
    if kind == ELIMINATION:
        nodes = [*walk, walk[0]]
        text = _text(board, nodes, strong_first=False)
        others = len(gone) - 1
        more = (
            f" (and {others} more candidate{'s' if others != 1 else ''} seeing both ends)" if others else ""
        )
        note = f"{text}: if {_name(board, cell, digit)} were true it would be false, so it goes{more}"
        links = _chain_links(nodes, False, weak_kind)
    elif kind == PLACEMENT:
        nodes = [(cell, digit), *walk]
        text = _text(board, nodes, strong_first=True)
        note = f"{text}: if {_name(board, cell, digit)} were false it would be true, so it holds"
        links = _chain_links(nodes, True, weak_kind)
    else:
        nodes = [*walk, walk[0]]
        text = _text(board, nodes, strong_first=False)
        note = (
            f"loop {text}: each weak link of it holds one true candidate, so what sees both its ends goes "
            f"({_name(board, cell, digit)} and {len(gone) - 1} more)"
            if len(gone) > 1
            else f"loop {text}: each weak link of it holds one true candidate, so "
            f"{_name(board, cell, digit)}, seeing both ends of one, goes"
        )
        links = _chain_links(nodes, False, weak_kind)
    cells = tuple(dict.fromkeys(c for c, _ in nodes))
    digits = tuple(dict.fromkeys(d for _, d in nodes))
    return Step(rule, placements, eliminations, cells, (), digits, tuple(links), note, weight)


def _grouped_gone(board: Board, walk: list[tuple[int, ...]], cell: int, digit: int) -> set[tuple[int, int]]:
    """What a grouped one-digit elimination removes: one of the two end nodes of ``walk`` holds
    the digit, so a cell seeing every cell of both loses it (``cell`` among them)."""
    inside = {c for node in walk for c in node}
    peers = _peer_sets(board.geometry)
    seeing = frozenset.intersection(*(peers[e] for e in (*walk[1], *walk[-1])))  # every end cell
    cand, values = board.cand, board.values
    return {(c, digit) for c in seeing if c not in inside and values[c] == 0 and cand[c, digit]} | {
        (cell, digit)
    }


def _grouped_step(rule: str, board: Board, kind: int, weight: float) -> Step:
    """The step of a grouped one-digit chain (nodes may be several cells of a box and a line)."""
    found = grouped_search(board)
    cell, digit = found.target[kind]
    walk = [tuple(node) for node in found.walk[kind]]
    if board.terse:  # what the step changes, as below, without the chain's picture and text
        if kind == ELIMINATION:
            return Step(rule, _NONE, _pairs(_grouped_gone(board, walk, cell, digit)), weight=weight)
        return Step(rule, np.array([[cell, digit]], dtype=np.int64), _NONE, weight=weight)
    name = board.geometry.cell_name
    if kind == ELIMINATION:
        nodes = [*walk, walk[0]]
        strong_first = False
    else:
        nodes = [((cell,)), *walk]
        strong_first = True
    parts = ["|".join(name(c) for c in nodes[0])]
    for i in range(1, len(nodes)):
        strong = ((i - 1) % 2 == 0) == strong_first
        parts.append(("= " if strong else "- ") + "|".join(name(c) for c in nodes[i]))
    text = f"digit {digit + 1}: " + " ".join(parts)
    links: list[Link] = []
    for i in range(len(nodes) - 1):
        strong = (i % 2 == 0) == strong_first
        links.append((nodes[i][0], nodes[i + 1][0], digit, STRONG if strong else WEAK))
    pair = np.array([[cell, digit]], dtype=np.int64)
    if kind == ELIMINATION:
        gone = _grouped_gone(board, walk, cell, digit)
        note = f"{text} (a group holds the digit in one of its cells): {name(cell)} would lose it, so it goes"
        placements, eliminations = _NONE, _pairs(gone)
    else:
        note = f"{text} (a group holds the digit in one of its cells): {name(cell)} must hold it"
        placements, eliminations = pair, _NONE
    cells = tuple(dict.fromkeys(c for node in nodes for c in node))
    return Step(rule, placements, eliminations, cells, (), (digit,), tuple(links), note, weight)


def _fish_rule(strong: int) -> Rule:
    """The plain strong-link fish with ``strong`` strong links: the shortest one-digit find."""
    name = "turbot-fish" if strong == 2 else f"{strong}-link-fish"

    def find(board: Board) -> Step | None:
        if board.n > SEARCH_MAX_SIDE:
            return None
        found = chain_search(board, X)
        count, kind = fish_strong_links(found)
        if count != strong:
            return None
        return chain_step(name, board, found, kind, fish_weight(strong, False))

    find.__doc__ = f"The shortest one-digit chain, when it has {strong} strong links."
    what = "skyscraper, kite, ..." if strong == 2 else "a one-digit chain"
    description = (
        f"{what}: {strong} strong links of one digit (its only two places in a unit), joined by weak "
        "ones, remove the digit from what sees both ends"
    )
    return Rule(name, "xchains", description, fish_weight(strong, False), find)


def _grouped_fish_rule(strong: int) -> Rule:
    """The grouped strong-link fish: only a chain through a group is that short."""
    name = "grouped-turbot-fish" if strong == 2 else f"grouped-{strong}-link-fish"

    def find(board: Board) -> Step | None:
        if board.n > SEARCH_MAX_SIDE:
            return None
        count, _ = fish_strong_links(chain_search(board, X))
        if count == strong:
            return None  # the plain fish of this size is the step
        found = grouped_search(board)
        if found.links[0] >= 0:
            count, kind = (found.links[0] - 1) // 2, ELIMINATION
        elif found.links[1] >= 0:
            count, kind = (found.links[1] + 1) // 2, PLACEMENT
        else:
            return None
        if count != strong:
            return None
        return _grouped_step(name, board, kind, fish_weight(strong, True))

    find.__doc__ = f"The shortest grouped one-digit chain, when it has {strong} strong links."
    description = (
        f"a one-digit chain of {strong} strong links, some through a group (the cells of a box and a line "
        "holding the digit): empty rectangles, grouped kites"
    )
    return Rule(name, "xchains", description, fish_weight(strong, True), find)


def _lightest(board: Board, found: ChainFound, kinds: tuple[int, ...], mode: int) -> tuple[int, float] | None:
    """The lightest of a search's finds of the given kinds: (kind, weight)."""
    best: tuple[int, float] | None = None
    for kind in kinds:
        links = found.links[kind]
        if links < 0:
            continue
        weight = chain_weight(mode == X, kind == LOOP, links, bivalue=mode == Y)
        if best is None or weight < best[1]:
            best = (kind, weight)
    return best


def _chain_rule(name: str, mode: int, kinds: tuple[int, ...], base: float, description: str) -> Rule:
    def find(board: Board) -> Step | None:
        if board.n > SEARCH_MAX_SIDE:
            return None
        found = chain_search(board, mode)
        best = _lightest(board, found, kinds, mode)
        if best is None:
            return None
        return chain_step(name, board, found, best[0], max(best[1], base), mode)

    find.__doc__ = f"The shortest {name} on the board."
    return Rule(name, "chains", description, base, find)


# The order breaks ties of weight (the engine takes the first rule's step): a chain before a loop,
# as Sudoku Explainer's order of trial.
RULES: tuple[Rule, ...] = (
    *(_fish_rule(strong) for strong in sorted(FISH_BASE)),
    *(_grouped_fish_rule(strong) for strong in sorted(FISH_BASE)),
    _chain_rule(
        "x-cycle",
        X,
        (LOOP,),
        chain_weight(True, True, 4),
        "a loop of one digit's strong and weak links: every weak link turns strong, what sees both its ends "
        "loses the digit",
    ),
    _chain_rule(
        "y-cycle",
        Y,
        (LOOP,),
        chain_weight(False, True, 4, bivalue=True),
        "a loop of two-digit cells: each link's digit goes in one of its two cells and leaves what sees both",
    ),
    _chain_rule(
        "x-chain",
        X,
        (ELIMINATION, PLACEMENT),
        chain_weight(True, False, 3),
        "a chain of one digit's strong and weak links from a candidate back to it: it refutes itself",
    ),
    _chain_rule(
        "xy-chain",
        XY,
        (ELIMINATION, PLACEMENT),
        chain_weight(False, False, 3),
        "a chain of strong and weak links over cells and digits from a candidate back to it: it refutes "
        "itself",
    ),
    _chain_rule(
        "xy-cycle",
        XY,
        (LOOP,),
        chain_weight(False, True, 4),
        "a loop of strong and weak links over cells and digits: what sees both ends of a weak link goes",
    ),
)
