"""SVG pictures of deduction: the grid with its candidates and, for a step, what it saw and does.

A picture shows placed digits (givens black, deduced blue) and, in open cells, the candidates
(pencil marks) on a small k x k layout inside the cell.  For a step: the cells of its pattern
shaded, the cells of its units tinted, each placement on a green disc, each elimination on a
red disc, and, for a chain or cycle step (``Step.links``), every link drawn as a gently bowed
line between the positions of its digit in its two cells, labelled with the digit, as in the
figures of Eppstein 2005: solid blue for the bilocation graph (the only two places of the digit
in a unit: an alternating chain's strong links), dashed orange for the bivalue graph (two cells of
two candidates each sharing the digit), dotted purple for 2-SAT implications, dashed grey for an
alternating chain's weak links (the same digit twice in a unit).  Inside a cell where a chain
enters on one digit and leaves on another, a thin grey line joins the two, so a cycle reads as
one closed path.

``step_pictures`` replays a deduction from its puzzle and draws every step that is not a single.
Drawing goes through ``sudoku_cp.svg.GridPicture``, the one grid drawer.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from ..formats import SYMBOLS
from ..grid import Grid
from ..outcome import Status
from ..svg import THIN, GridPicture, Stroke
from .board import Board
from .engine import Deduction
from .rules import RULES
from .step import Step

__all__ = ["LINK_STYLES", "board_svg", "is_single", "step_pictures", "step_svg", "write_pictures"]

#: How each graph's links are drawn: (colour, dash pattern or "" for solid).
LINK_STYLES: dict[str, tuple[str, str]] = {
    "bilocation": ("#1d4ed8", ""),
    "bivalue": ("#ea580c", "6,3"),
    "implication": ("#7c3aed", "2,3"),
    "weak": ("#6b7280", "4,3"),
}
_GIVEN = "black"
_DEDUCED = "#1d4ed8"
_PENCIL = "#4b5563"
_PATTERN = "#fef3c7"
_PATTERN_INK = "#b45309"
_UNIT = "#eef2ff"
_PLACE = "#86efac"
_REMOVE = "#fca5a5"
_JOIN = "#9ca3af"
_FAMILY = {rule.name: rule.family for rule in RULES}
_LEGEND_SIZE = 10
_LEGEND_SPACING = 14


def is_single(step: Step) -> bool:
    """True for a hidden or naked single (no picture: the text says it all)."""
    return _FAMILY.get(step.rule) == "singles"


class _Picture(GridPicture):
    """The grid drawer with the marks deduction pictures add: arcs and small discs anywhere."""

    def arc(
        self,
        start: tuple[float, float],
        end: tuple[float, float],
        bow: float,
        colour: str,
        *,
        width: float,
        dash: str = "",
        title: str | None = None,
    ) -> tuple[float, float]:
        """A quadratic curve from start to end, bowed ``bow`` pixels to the left of its direction (links
        along one line then part instead of lying on each other; 0: straight); returns its middle point."""
        (x1, y1), (x2, y2) = start, end
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        cx = (x1 + x2) / 2 + bow * (y2 - y1) / length
        cy = (y1 + y2) / 2 - bow * (x2 - x1) / length
        attributes = (
            f'd="M{x1:.1f},{y1:.1f} Q{cx:.1f},{cy:.1f} {x2:.1f},{y2:.1f}" fill="none" stroke="{colour}" '
            f'stroke-width="{width}" stroke-opacity="0.85" stroke-linecap="round"'
        )
        if dash:
            attributes += f' stroke-dasharray="{dash}"'
        self.shape("path", attributes, title)
        return (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4

    def spot(self, centre: tuple[float, float], radius: float, colour: str, title: str | None = None) -> None:
        """A filled disc anywhere (behind a candidate digit)."""
        x, y = centre
        self.shape("circle", f'cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}" fill="{colour}"', title)


class _Layout:
    """Where things go: cell size, the k x k candidate layout, and candidate positions."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.k = math.isqrt(n - 1) + 1  # candidates per row of the small layout inside a cell
        self.cell = max(36, 11 * self.k)
        self.pencil = max(6, round(self.cell / self.k * 0.72))

    def candidate(self, picture: GridPicture, cell: int, digit: int) -> tuple[float, float]:
        """The centre of digit's (0-based) pencil mark in a cell."""
        x, y = picture.corner(cell // self.n, cell % self.n)
        sub = self.cell / self.k
        return x + (digit % self.k + 0.5) * sub, y + (digit // self.k + 0.5) * sub


def _legend_lines(lines: Sequence[str], width: int) -> list[str]:
    """Legend lines wrapped to the picture's width."""
    chars = max(30, int(width / (_LEGEND_SIZE * 0.62)))
    out: list[str] = []
    for line in lines:
        out.extend(textwrap.wrap(line, chars) or [""])
    return out


def board_svg(
    board: Board,
    step: Step | None = None,
    *,
    givens: np.ndarray | None = None,
    title: str = "",
    legend: Sequence[str] = (),
) -> str:
    """An SVG document of the board's digits and candidates, with ``step`` marked when given.

    ``givens`` (a flat bool mask) draws those digits black and the others blue; ``legend`` lines
    go under the grid (wrapped).
    """
    g = board.geometry
    n = g.n
    layout = _Layout(n)
    width = n * layout.cell + 48
    lines = _legend_lines(legend, max(width, 480) - 48)
    picture = _Picture(
        n,
        (g.p, g.q),
        cell=layout.cell,
        title=title,
        footer=24 + _LEGEND_SPACING * len(lines) + 8,
        min_width=480,
    )
    if step is not None:
        for unit in step.units:
            for cell in g.units[unit]:
                picture.fill_cell(int(cell) // n, int(cell) % n, _UNIT)
        for cell in step.cells:
            picture.fill_cell(cell // n, cell % n, _PATTERN)
    picture.lines(thin=Stroke(THIN.colour, 1), thick=Stroke("black", 2.5))
    picture.numbers()
    if step is not None:
        _marks(picture, layout, board, step)
    _digits(picture, layout, board, givens, step)
    if step is not None and step.links:
        _links(picture, layout, board, step)
    picture.legend(lines, size=_LEGEND_SIZE, spacing=_LEGEND_SPACING)
    return picture.svg()


def _marks(picture: _Picture, layout: _Layout, board: Board, step: Step) -> None:
    """Green discs under placements, red discs under eliminations."""
    radius = layout.cell / layout.k * 0.46
    name = board.geometry.cell_name
    for pairs, colour, words in (
        (step.placements, _PLACE, "place {} at {}"),
        (step.eliminations, _REMOVE, "remove {} from {}"),
    ):
        for cell, digit in pairs:
            centre = layout.candidate(picture, int(cell), int(digit))
            picture.spot(centre, radius, colour, words.format(digit + 1, name(int(cell))))


def _symbol(n: int, digit: int) -> str:
    """A 0-based digit as the grid texts write it: 1-9, then A-Z, a-z; numbers past 61."""
    return SYMBOLS[digit] if n <= len(SYMBOLS) else str(digit + 1)


def _digits(
    picture: _Picture, layout: _Layout, board: Board, givens: np.ndarray | None, step: Step | None
) -> None:
    """Placed digits large; candidates of open cells small, on the k x k layout (the step's digits
    in its pattern cells in the pattern's ink)."""
    n = board.n
    pattern = set(step.cells) if step is not None else set()
    marked = set(step.digits) if step is not None else set()
    for cell in range(n * n):
        r, c = divmod(cell, n)
        value = int(board.values[cell])
        if value:
            given = givens is None or bool(givens[cell])
            picture.cell_text(r, c, _symbol(n, value - 1), colour=_GIVEN if given else _DEDUCED)
            continue
        for digit in np.flatnonzero(board.cand[cell]):
            x, y = layout.candidate(picture, cell, int(digit))
            ink = _PATTERN_INK if cell in pattern and int(digit) in marked else _PENCIL
            picture.text(
                x,
                y + layout.pencil * 0.35,
                _symbol(n, int(digit)),
                size=layout.pencil,
                anchor="middle",
                colour=ink,
            )


def _links(picture: _Picture, layout: _Layout, board: Board, step: Step) -> None:
    """Each link as a line between its digit's marks, labelled; joins inside cells the chain passes."""
    g = board.geometry
    through: dict[int, list[int]] = {}
    for a, b, digit, _ in step.links:
        for cell in (a, b):
            if digit not in through.setdefault(cell, []):
                through[cell].append(digit)
    for cell, digits in through.items():
        for first, second in zip(digits, digits[1:], strict=False):
            picture.arc(
                layout.candidate(picture, cell, first),
                layout.candidate(picture, cell, second),
                0,
                _JOIN,
                width=1.5,
            )
    label = max(8, layout.pencil)
    for a, b, digit, graph in step.links:
        colour, dash = LINK_STYLES.get(graph, ("black", ""))
        start, end = layout.candidate(picture, a, digit), layout.candidate(picture, b, digit)
        bow = min(0.12 * math.dist(start, end), 0.6 * layout.cell)
        mid_x, mid_y = picture.arc(
            start,
            end,
            bow,
            colour,
            width=2.5,
            dash=dash,
            title=f"{graph}: {digit + 1} links {g.cell_name(a)} and {g.cell_name(b)}",
        )
        picture.text(
            mid_x,
            mid_y + label * 0.35,
            _symbol(g.n, digit),
            size=label,
            anchor="middle",
            colour=colour,
            halo=True,
        )


def step_svg(board: Board, step: Step, *, number: int, givens: np.ndarray | None = None) -> str:
    """The picture of one step on the board it was found on (before it is applied)."""
    g = board.geometry
    legend = [f"{number}. {step.describe(g)}"]
    key = "yellow: the pattern; green: placed; red: removed"
    graphs = sorted({graph for *_, graph in step.links})
    if graphs:
        styles = {
            "bilocation": "solid blue",
            "bivalue": "dashed orange",
            "implication": "dotted purple",
            "weak": "dashed grey",
        }
        key += "; " + ", ".join(f"{styles.get(graph, graph)}: {graph}" for graph in graphs)
    legend.append(key)
    return board_svg(board, step, givens=givens, title=f"step {number}: {step.rule}", legend=legend)


def step_pictures(puzzle: Grid, steps: Sequence[Step]) -> Iterator[tuple[int, Step, str]]:
    """(step number from 1, step, SVG) for every step that is not a single, replayed from ``puzzle``."""
    board = Board.from_grid(puzzle)
    givens = puzzle.values.reshape(-1) != 0
    for number, step in enumerate(steps, start=1):
        if not is_single(step):
            yield number, step, step_svg(board, step, number=number, givens=givens)
        board.apply(step.placements, step.eliminations)


def write_pictures(directory: str | Path, index: int, puzzle: Grid, deduction: Deduction) -> list[Path]:
    """Write the pictures of one explained puzzle into ``directory`` (made if missing); their paths.

    'puzzle<index + 1>-step<k>-<rule>.svg' for every step that is not a single, and
    'puzzle<index + 1>-stuck.svg' (the candidates where the rules stopped) for a stuck puzzle.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    width = len(str(len(deduction.steps)))
    written = []
    for number, step, text in step_pictures(puzzle, deduction.steps):
        path = folder / f"puzzle{index + 1}-step{number:0{width}d}-{step.rule}.svg"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if deduction.status is Status.STUCK:
        path = folder / f"puzzle{index + 1}-stuck.svg"
        legend = [f"stuck after {deduction.step_count} steps: no rule applies; the candidates left"]
        givens = puzzle.values.reshape(-1) != 0
        path.write_text(
            board_svg(deduction.board, givens=givens, title="stuck", legend=legend), encoding="utf-8"
        )
        written.append(path)
    return written
