"""The nonlocal chain rules on the bilocation and bivalue graphs (Eppstein 2005, sections 3.2 to 3.5).

Six rules, in the paper's order; each finds its first instance through the nonrepetitive walks of
``sudoku_cp.graphs`` on the graphs of ``graphs_of_board`` (read that module first: vertices, ports
and what reaching a port means).

Why each rule is sound, walks need not be simple.  Every argument below is a chain of one-link
implications, and a link's implication holds wherever the link sits in the walk, so a walk that
passes a cell or a link twice proves exactly what a simple one does:

- a bilocation link ``a -d- b`` (a and b are d's only places in a unit): ``a != d`` implies
  ``b = d``, and ``b = d`` implies ``b != e`` for any other digit e.  Along a nonrepetitive walk
  ``c0 -x1- c1 -x2- ... -xk- ck``: ``c0 != x1`` implies ``c1 = x1``, hence ``c1 != x2``, hence
  ``c2 = x2``, ..., ``ck = xk`` ("push");
- a bivalue link ``a -d- b`` (two-digit cells sharing a unit and the digit d): ``a = d`` implies
  ``b != d``, hence b holds its other digit, the next link's label.  Along a nonrepetitive walk:
  ``c0 = x1`` implies ``c1 = x2``, ..., ``c(k-1) = xk``, ``ck != xk`` ("pull").

Rules:

1. bilocation cycle (Lemma 6, Theorem 2.1).  A nonrepetitive closed walk passing cell c arriving
   by x and leaving by y gives c in {x, y}: if c != y, push around the walk to c = x.  A pair (x, y)
   is realizable at c exactly when in-port x and out-port y of c lie in one strong component of
   nr(G).  c keeps the digits common to all its realizable pairs.  The paper says three cyclic
   labels at a cell are a contradiction; that needs the three pairs among them all realizable.
   Pairs {x, y} and {x, z} alone (two closed walks meeting at c, no walk passing c between y and
   z) only force c = x, so we intersect the realizable pairs: empty is the contradiction (random
   positions around a known solution meet the two-loop case often; the tests keep one).  A step
   shows one closed walk and removes, at every cell it passes, the digits outside the pairs it
   passes that cell with; where a cell on it keeps less than that, a second loop is spliced in
   there, so the step never cuts a loop whose information it has not used.
2. bilocation repetitive cycle (Lemma 7, Theorem 2.2).  A nonrepetitive walk from c leaving by d
   and coming back into c by d: if c != d, push along the walk to c = d.  So c = d.  Lemma 7's own
   proof counts cells of a simple cycle; the push argument needs no simplicity, so every walk
   Theorem 2.2 finds is accepted.
3. bilocation conflicting paths (Lemma 8).  Two nonrepetitive walks from c leaving by d, ending by
   the same digit e at two distinct cells of one unit: if c != d, both ends hold e.  So c = d.
4. bivalue cycle (section 3.5, the bipartite graph).  Around a nonrepetitive closed walk of
   bivalue links ``c1 -d1- c2 -d2- ... ck -dk- c1`` each cell's two digits are its two link labels,
   and pulling shows either every ``ci = di`` or every ``c(i+1) = di``: each link's digit lies in one
   of its two cells, and leaves the rest of their unit.  At a (unit, digit) vertex the realizable
   pairs of cells are intersected as in rule 1 (empty: contradiction; one cell: the digit goes
   there).
5. bivalue repetitive cycle.  A nonrepetitive walk from c leaving by d and coming back into c by d:
   if c = d, pull along it to c != d.  So c takes its other digit.
6. bivalue conflicting paths.  Two nonrepetitive walks from c leaving by d whose end cells u1, u2,
   two distinct cells of one unit, are both left with the same digit f: if c = d, both hold f.  So
   c takes its other digit.  (Ends at the start cell itself only restate rule 5.)  After rule 5 this
   rule never fires: u1 and u2 are two-digit cells of one unit holding f, so they are linked, and
   the first walk, that link and the second walk backwards leave c by d and come back by d.  It
   stays for rule sets that choose it alone, and for the paper's list.

The mixed bilocation/bivalue conflicting paths rule of section 3.5 is not implemented.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from ...graphs import is_nonrepetitive_walk
from ..board import Board, Contradiction
from ..step import Link, Step
from .base import Rule
from .chain_search import LOOP, Y, no_xy_chain, searched
from .graphs_of_board import BILOCATION, BIVALUE, ChainGraph, ChainWitnessError, GraphKind, chain_graph
from .scale import chain_weight

__all__ = [
    "RULES",
    "find_bilocation_conflicting_paths",
    "find_bilocation_cycle",
    "find_bilocation_repetitive_cycle",
    "find_bivalue_conflicting_paths",
    "find_bivalue_cycle",
    "find_bivalue_repetitive_cycle",
]


# -- shared pieces ---------------------------------------------------------------------------------


def _pairs(cells_digits: Iterable[tuple[int, int]]) -> np.ndarray:
    """(k, 2) int64 array of (cell, digit) pairs."""
    rows = sorted(set(cells_digits))
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


_NONE = np.zeros((0, 2), dtype=np.int64)


def _walk_cells(links: Iterable[Link], first: int | None = None) -> tuple[int, ...]:
    """The cells of a chain in walk order, each once."""
    cells: list[int] = [] if first is None else [first]
    for a, b, _, _ in links:
        cells += [a, b]
    return tuple(dict.fromkeys(cells))


def _chain_text(board: Board, links: list[Link], *, closed: bool = False) -> str:
    """A chain in a player's notation: ``R1C1 =5= R1C9 =7= R4C9`` (bilocation),
    ``R1C1 -5- R1C9`` (bivalue)."""
    name = board.geometry.cell_name
    if not links:
        return ""
    parts = [name(links[0][0])]
    for _, b, d, graph in links:
        mark = "=" if graph == BILOCATION else "-"
        parts.append(f"{mark}{d + 1}{mark} {name(b)}")
    text = " ".join(parts)
    return f"{text} (closed)" if closed and links[-1][1] != links[0][0] else text


def _other_digit(board: Board, cell: int, digit: int) -> int:
    """The other candidate of a two-digit cell."""
    two = np.flatnonzero(board.cand[cell])
    return int(two[0] if two[1] == digit else two[1])


# -- the nonrepetitive cycle rules (Theorem 2.1) ----------------------------------------------------


def _vertex_name(graph: ChainGraph, board: Board, vertex: int) -> str:
    if vertex < graph.n_cells:
        return board.geometry.cell_name(vertex)
    unit, digit = graph.unit_digit(vertex)
    return f"digit {digit + 1} in {board.geometry.unit_name(unit)}"


def _label_name(graph: ChainGraph, board: Board, vertex: int, label: int) -> str:
    return str(label + 1) if vertex < graph.n_cells else board.geometry.cell_name(label)


def _kept(graph: ChainGraph, board: Board, vertex: int) -> set[int]:
    """The labels common to every realizable pair at ``vertex``; Contradiction when there are none."""
    pairs = graph.loop_pairs[vertex]
    kept = set(pairs[0]).intersection(*pairs[1:])
    if not kept:
        shown = ", ".join("/".join(_label_name(graph, board, vertex, x) for x in pair) for pair in pairs)
        where = _vertex_name(graph, board, vertex)
        raise Contradiction(f"{graph.kind} loops pass {where} with {shown}: no choice fits them all")
    return kept


def _cycle_witness(board: Board, kind: GraphKind) -> tuple[ChainGraph, list[int]] | None:
    """The graph and a closed walk showing the first instance of its cycle rule.

    The walk passes every vertex on it with pairs whose common labels are all that vertex keeps.
    Raises Contradiction when a vertex on it keeps nothing.

    The walk starts as a closed walk through the focus vertex with one of its pairs.  Where a vertex
    on the walk keeps fewer labels than the walk's passes show (two loops meeting there, {x, y} and
    {x, z}), a closed walk with the missing pair is spliced in at that vertex, in the direction
    that keeps the join nonrepetitive.  Removing y at such a vertex on the strength of one loop only
    would cut the other loop and lose "x"."""
    graph = chain_graph(board, kind)
    focus = graph.cycle_focus()
    if focus is None:
        return None
    _kept(graph, board, focus)
    x, y = graph.loop_pairs[focus][0]
    walk = graph.closed_walk(focus, x, y)
    spliced: set[int] = set()
    while True:
        shown = _kept_by_passes(graph, walk)
        short = next(
            (v for v in shown if v not in spliced and len(_kept(graph, board, v)) < len(shown[v])), None
        )
        if short is None:
            break
        spliced.add(short)
        keep = _kept(graph, board, short)  # one label x, in every pair; the walk passes with {x, y}
        (x,) = keep
        z = next(b if a == x else a for a, b in graph.loop_pairs[short] if not set((a, b)) <= shown[short])
        loop = graph.closed_walk(short, x, z)  # leaves by z, comes back by x
        i = next(i for i, (v, _, _) in enumerate(graph.passes(walk)) if v == short)
        if graph.traversals.in_label[walk[i - 1]] != x:  # arrives by y, leaves by x: take the loop backwards
            loop = graph.reverse(loop)
        walk = walk[:i] + loop + walk[i:]
        # splicing keeps the walk nonrepetitive only if the loop was taken the right way round
        if not is_nonrepetitive_walk(graph.graph, walk, closed=True):
            raise ChainWitnessError(f"splicing a loop at vertex {short} gave a repetitive closed walk")
    return graph, walk


def _kept_by_passes(graph: ChainGraph, walk: list[int]) -> dict[int, set[int]]:
    """Per vertex of a closed walk, the labels common to all the pairs it is passed with."""
    kept: dict[int, set[int]] = {}
    for vertex, arrive, leave in graph.passes(walk):
        pair = {arrive, leave}
        kept[vertex] = kept[vertex] & pair if vertex in kept else pair
    return kept


def _loop_step(
    rule: str,
    board: Board,
    graph: ChainGraph,
    walk: list[int],
    removed: list[tuple[int, int]],
    units: list[int],
    why: str,
) -> Step:
    """A cycle rule's step: what it removes, shown by one closed walk."""
    links = graph.links(walk)
    return Step(
        rule,
        _NONE,
        _pairs(removed),
        cells=_walk_cells(links),
        units=tuple(dict.fromkeys(units)),
        digits=tuple(dict.fromkeys(d for _, _, d, _ in links)),
        links=tuple(links),
        note=f"loop {_chain_text(board, links, closed=True)}{why}",
    )


def find_bilocation_cycle(board: Board) -> Step | None:
    """The first nonrepetitive cycle of the bilocation graph that removes a candidate (Lemma 6)."""
    found = _cycle_witness(board, BILOCATION)
    if found is None:
        return None
    graph, walk = found
    passes = _kept_by_passes(graph, walk).items()  # never empty: _cycle_witness checked
    removed = [
        (cell, int(d)) for cell, kept in passes for d in np.flatnonzero(board.cand[cell]) if d not in kept
    ]
    why = (
        ": each link is a digit's only two places in a unit, so every cell on the loop holds one of its "
        "two loop digits"
    )
    return _loop_step("bilocation-cycle", board, graph, walk, removed, [], why)


def find_bivalue_cycle(board: Board) -> Step | None:
    """The first nonrepetitive cycle of the bivalue graph that removes a candidate (section 3.5)."""
    found = _cycle_witness(board, BIVALUE)
    if found is None:
        return None
    graph, walk = found
    removed: list[tuple[int, int]] = []
    units = []
    for vertex, kept in _kept_by_passes(graph, walk).items():  # never empty: _cycle_witness checked
        if vertex < graph.n_cells:
            continue  # a two-digit cell keeps its two digits
        unit, digit = graph.unit_digit(vertex)
        cells = board.tables.units[unit]
        units.append(unit)
        open_ = cells[(board.values[cells] == 0) & (board.cand[cells, digit] == 1)]
        removed += [(int(c), digit) for c in open_ if int(c) not in kept]
    why = (
        " of two-digit cells: each link's digit goes in one of its two cells, so it leaves the rest of "
        "their unit"
    )
    return _loop_step("bivalue-cycle", board, graph, walk, removed, units, why)


# -- the repetitive cycle and conflicting paths rules (Theorem 2.2) ---------------------------------


def _placement(
    rule: str,
    cell: int,
    digit: int,
    links: list[Link],
    digits: tuple[int, ...],
    note: str,
    units: tuple[int, ...] = (),
) -> Step:
    """A step placing ``digit`` at ``cell``, shown by chains from that cell."""
    return Step(
        rule,
        np.array([[cell, digit]], dtype=np.int64),
        _NONE,
        cells=_walk_cells(links, cell),
        units=units,
        digits=digits,
        links=tuple(links),
        note=note,
    )


def _repetitive(board: Board, kind: GraphKind) -> tuple[ChainGraph, int, int, list[Link]] | None:
    """The first start (cell, digit) with a walk back into the cell by the digit: (graph, cell, digit,
    links)."""
    graph = chain_graph(board, kind)
    i = graph.first_fact(0)
    if i is None:
        return None
    port = int(graph.cell_ports[i])
    cell, digit = int(graph.nr.port_vertex[port]), int(graph.nr.port_label[port])
    return graph, cell, digit, graph.links(graph.walk_into(port, port))


def find_bilocation_repetitive_cycle(board: Board) -> Step | None:
    """The first cell that a bilocation chain leaving it by d brings back to d (Lemma 7): place d there."""
    found = _repetitive(board, BILOCATION)
    if found is None:
        return None
    _, cell, digit, links = found
    name = board.geometry.cell_name(cell)
    note = (
        f"chain {_chain_text(board, links)}: if {name} were not {digit + 1}, "
        f"the chain would put {digit + 1} back in {name}"
    )
    return _placement("bilocation-repetitive-cycle", cell, digit, links, (digit,), note)


def find_bivalue_repetitive_cycle(board: Board) -> Step | None:
    """The first two-digit cell that a bivalue chain from its digit d brings back without d: it takes its
    other digit."""
    found = _repetitive(board, BIVALUE)
    if found is None:
        return None
    _, cell, digit, links = found
    other = _other_digit(board, cell, digit)
    name = board.geometry.cell_name(cell)
    note = (
        f"chain {_chain_text(board, links)} of two-digit cells: if {name} were {digit + 1}, "
        f"the chain would take {digit + 1} out of {name} again, so it is {other + 1}"
    )
    return _placement("bivalue-repetitive-cycle", cell, other, links, (digit, other), note)


def _conflicting(
    board: Board, kind: GraphKind
) -> tuple[int, int, int, int, tuple[int, int], list[Link], list[Link]] | None:
    """The first start (cell, digit) with two conflicting walks: (cell, digit, unit, end digit, end cells,
    links of each walk)."""
    graph = chain_graph(board, kind)
    i = graph.first_fact(1)
    if i is None:
        return None
    conflict = graph.walk_fact(i)[1]
    if conflict is None:  # first_fact(1) picked this start for its conflict
        raise ChainWitnessError(f"start port {i} was found conflicting but walk_fact gives no conflict")
    port = conflict.start
    cell, digit = int(graph.nr.port_vertex[port]), int(graph.nr.port_label[port])
    first, second = (graph.links(graph.walk_into(port, end)) for end in conflict.ends)
    return cell, digit, conflict.unit, conflict.digit, conflict.cells, first, second


def _conflict_step(
    rule: str,
    board: Board,
    found: tuple[int, int, int, int, tuple[int, int], list[Link], list[Link]],
    place: int,
    hypothesis: Callable[[str, int], str],
) -> Step:
    cell, digit, unit, end_digit, ends, first, second = found
    g = board.geometry
    name = g.cell_name(cell)
    where = f"would be {end_digit + 1} in {g.unit_name(unit)}"
    both = f"both {g.cell_name(ends[0])} and {g.cell_name(ends[1])} {where}"
    chains = f"{_chain_text(board, first)} and {_chain_text(board, second)}"
    note = f"chains {chains}: {hypothesis(name, digit)}, {both}"
    digits = tuple(dict.fromkeys((digit, end_digit)))
    return _placement(rule, cell, place, first + second, digits, note, (unit,))


def find_bilocation_conflicting_paths(board: Board) -> Step | None:
    """The first cell whose bilocation chains without digit d would put one digit twice in a unit (Lemma 8):
    place d."""
    found = _conflicting(board, BILOCATION)
    if found is None:
        return None
    return _conflict_step(
        "bilocation-conflicting-paths", board, found, found[1], lambda name, d: f"if {name} were not {d + 1}"
    )


def find_bivalue_conflicting_paths(board: Board) -> Step | None:
    """The first two-digit cell whose bivalue chains from its digit d would put one digit twice in a unit:
    it takes its other digit."""
    found = _conflicting(board, BIVALUE)
    if found is None:
        return None
    other = _other_digit(board, found[0], found[1])
    return _conflict_step(
        "bivalue-conflicting-paths", board, found, other, lambda name, d: f"if {name} were {d + 1}"
    )


def _measured(
    find: Callable[[Board], Step | None], loop: bool, bivalue: bool
) -> Callable[[Board], Step | None]:
    """``find`` with each step weighed as the alternating chain it is (``scale.chain_weight``): a
    bilocation link is a strong link between cells, and a cell the walk passes from one digit to
    another a weak one (a bivalue link: weak between cells, strong inside its cell), so a cycle
    of k links has 2 k chain links and a path (or two joined at their conflict) 2 k - 1."""

    def measured(board: Board) -> Step | None:
        step = find(board)
        if step is None:
            return None
        links = 2 * len(step.links) - (0 if loop else 1)
        return replace(step, weight=chain_weight(False, loop, links, bivalue=bivalue and loop))

    measured.__doc__ = find.__doc__
    return measured


def _unless_no_y_loop(find: Callable[[Board], Step | None]) -> Callable[[Board], Step | None]:
    """``find`` (the bivalue cycle), answering None at once when the Y search (``aic``'s y-cycle,
    6.5, tried just before it) already ran on this board state and found no loop.

    Why that is the same answer: a bivalue cycle is a loop of two-digit cells whose links' digits
    leave the rest of their units, and such a candidate sees both cells of its link: the Y search
    (weak links in units and cells, strong links in two-digit cells) has that loop with that
    victim, and it only stops empty once no loop of any length is left.  Where the cycle rule
    would raise Contradiction (two loops putting one digit in two disjoint pairs of a unit's
    cells), each loop has the other's cells as victims, so the search found a loop too.  In the
    engine the y-cycle comes first and finds nothing whenever this rule is tried: this spared the
    bivalue graph's walks at 1,733 states of the 2,000-puzzle corpus, 0.35 s of its 5.2 s."""

    def skipping(board: Board) -> Step | None:
        done = searched(board, Y)
        if done is not None and done.links[LOOP] < 0:
            return None
        return find(board)

    skipping.__doc__ = find.__doc__
    return skipping


def _unless_no_xy_chain(find: Callable[[Board], Step | None]) -> Callable[[Board], Step | None]:
    """``find``, answering None at once when the XY search (``aic``'s xy-chain and xy-cycle, 7.0,
    tried just before these rules) already ran on this board state and found no chain or loop.

    Why that is the same answer: every step of these rules is an alternating chain or loop that
    the XY search finds (``subsumed_by``), and it stops empty only once none of any length is
    left.  Where the bilocation cycle would raise Contradiction (a cell whose realizable pairs
    share no digit), the cell holds three digits or more, so a closed walk through it removes one
    of them: a loop with a victim, which the search would have found.  In the engine the XY
    search comes first and finds nothing whenever these rules are tried (with a step in hand they
    are not tried at all): this spares their graph walks at the states that reach the heavier
    rules (198 states of the 2,000 generated puzzles, 5 % of rating them)."""

    def skipping(board: Board) -> Step | None:
        if no_xy_chain(board):
            return None
        return find(board)

    skipping.__doc__ = find.__doc__
    return skipping


# Every step of these rules is an alternating chain or loop (see ``_measured``), which the
# shortest-chain searches of ``aic`` find no longer on the grids they search.
RULES: tuple[Rule, ...] = (
    Rule(
        "bilocation-cycle",
        "bilocation",
        "a loop of cells, each linked to the next by a digit with only two places in a unit, never the same "
        "digit twice in a row: each cell on it keeps only its two loop digits",
        7.0,
        _unless_no_xy_chain(_measured(find_bilocation_cycle, True, False)),
        subsumed_by=("xy-cycle",),
    ),
    Rule(
        "bilocation-repetitive-cycle",
        "bilocation",
        "a chain of digits with two places each leaves a cell without digit d and comes back with d: "
        "the cell is d",
        7.0,
        _unless_no_xy_chain(_measured(find_bilocation_repetitive_cycle, False, False)),
        subsumed_by=("xy-chain",),
    ),
    Rule(
        "bilocation-conflicting-paths",
        "bilocation",
        "two chains of digits with two places each, from a cell without digit d, put one digit twice in a "
        "unit: the cell is d",
        7.0,
        _unless_no_xy_chain(_measured(find_bilocation_conflicting_paths, False, False)),
        subsumed_by=("xy-chain",),
    ),
    Rule(
        "bivalue-cycle",
        "bivalue",
        "a loop of two-digit cells, each sharing a digit with the next in a unit: each shared digit goes "
        "in one of its two cells and leaves the rest of their unit",
        6.5,
        _unless_no_y_loop(_measured(find_bivalue_cycle, True, True)),
        subsumed_by=("y-cycle",),
    ),
    Rule(
        "bivalue-repetitive-cycle",
        "bivalue",
        "a chain of two-digit cells from a cell holding d comes back to it without d: the cell takes its "
        "other digit",
        7.0,
        _unless_no_xy_chain(_measured(find_bivalue_repetitive_cycle, False, True)),
        subsumed_by=("xy-chain",),
    ),
    Rule(
        "bivalue-conflicting-paths",
        "bivalue",
        "two chains of two-digit cells from a cell holding d put one digit twice in a unit: the cell "
        "takes its other digit",
        7.0,
        _unless_no_xy_chain(_measured(find_bivalue_conflicting_paths, False, True)),
        subsumed_by=("xy-chain",),
    ),
)
