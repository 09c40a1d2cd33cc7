"""Pictures of deduction steps: candidates, pattern cells, placements, eliminations and chain links."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rules import select_rules
from sudoku_cp.deduction.step import Step
from sudoku_cp.deduction.svg import board_svg, is_single, step_pictures, step_svg, write_pictures
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid

SVG = "{http://www.w3.org/2000/svg}"
# Needs locked candidates, pairs and an XY-wing with the local rules (sudoku exchange, diabolical).
HARD = "083020090000800100029300008000098700070000060006740000300006980002005000010030540"
SIX = "6..5..1...3.....4121.....6...3..1..5"  # a generated 2x3 puzzle


def parse(text: str) -> ET.Element:
    assert text.startswith("<svg") and text.endswith("</svg>\n")
    return ET.fromstring(text)


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def titles(root: ET.Element, tag: str) -> list[str]:
    return [el.findtext(f"{SVG}title") or "" for el in root.iter(f"{SVG}{tag}")]


@pytest.mark.parametrize(("puzzle", "box"), [(HARD, (3, 3)), (SIX, (2, 3))])
def test_the_board_shows_every_digit_and_every_candidate(puzzle: str, box: tuple[int, int]) -> None:
    board = Board.from_grid(parse_grid(puzzle.replace("0", "."), box=box))
    root = parse(board_svg(board, title="start"))
    n = board.n
    shown = texts(root)
    placed = int(np.count_nonzero(board.values))
    # title + 2n row/column numbers + one text per placed digit + one per candidate of an open cell
    assert len(shown) == 1 + 2 * n + placed + board.candidate_count()


def test_a_twelve_by_twelve_board_writes_digits_past_nine_as_letters() -> None:
    board = Board.from_grid(Grid.empty(Geometry(3, 4)))
    shown = texts(parse(board_svg(board)))
    assert shown.count("C") == 144 and "12" in shown  # candidates by symbol; '12' only as a column number


def test_a_step_marks_its_pattern_placements_and_eliminations() -> None:
    grid = parse_grid(HARD.replace("0", "."))
    board = Board.from_grid(grid)
    open_cell = int(np.flatnonzero(board.values == 0)[0])
    digit = int(np.flatnonzero(board.cand[open_cell])[0])
    other = int(np.flatnonzero(board.values == 0)[1])
    gone = int(np.flatnonzero(board.cand[other])[0])
    step = Step(
        "made-up",
        np.array([[open_cell, digit]]),
        np.array([[other, gone]]),
        cells=(open_cell, other),
        units=(0,),
        digits=(digit,),
    )
    root = parse(step_svg(board, step, number=3, givens=grid.values.reshape(-1) != 0))
    marks = titles(root, "circle")
    name = grid.geometry.cell_name
    assert marks == [f"place {digit + 1} at {name(open_cell)}", f"remove {gone + 1} from {name(other)}"]
    fills = [r.get("fill") for r in root.iter(f"{SVG}rect")]
    assert fills.count("#fef3c7") == 2  # the pattern's cells
    assert fills.count("#eef2ff") == 9  # the cells of its unit (row 1)
    assert any(t.startswith("3. made-up") for t in texts(root))


def test_links_are_lines_between_candidates_styled_by_graph_and_labelled() -> None:
    board = Board.from_grid(Grid.empty(Geometry(3, 3)))
    links = (
        (0, 1, 4, "bilocation"),
        (1, 10, 6, "bilocation"),
        (10, 0, 2, "bivalue"),
        (0, 9, 7, "implication"),
    )
    step = Step("made-up-cycle", np.empty((0, 2), int), np.array([[0, 8]]), cells=(0, 1, 10), links=links)
    root = parse(step_svg(board, step, number=1))
    lines = [el for el in root.iter(f"{SVG}path") if el.findtext(f"{SVG}title")]
    assert [el.findtext(f"{SVG}title") for el in lines] == [
        "bilocation: 5 links R1C1 and R1C2",
        "bilocation: 7 links R1C2 and R2C2",
        "bivalue: 3 links R2C2 and R1C1",
        "implication: 8 links R1C1 and R2C1",
    ]
    dashes = [el.get("stroke-dasharray") for el in lines]
    assert dashes[0] is None and dashes[1] is None and dashes[2] == "6,3" and dashes[3] == "2,3"
    assert lines[0].get("stroke") != lines[2].get("stroke")
    # each link is labelled with its digit (with a white halo)
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("stroke") == "white"]
    assert labels == ["5", "7", "3", "8"]
    # joins inside the cells the chain passes through on two digits (R1C1: 5, 3, 8; R1C2: 5, 7; R2C2: 7, 3)
    joins = [el for el in root.iter(f"{SVG}path") if el.get("stroke") == "#9ca3af"]
    assert len(joins) == 4
    # a link starts at its digit's pencil mark in its first cell
    first = lines[0]
    x0, y0 = (float(v) for v in first.get("d", "").split()[0][1:].split(","))
    marks = [t for t in root.iter(f"{SVG}text") if t.text == "5" and t.get("fill") == "#4b5563"]
    nearest = min(marks, key=lambda t: abs(float(t.get("x", "")) - x0) + abs(float(t.get("y", "")) - y0))
    assert abs(float(nearest.get("x", "")) - x0) < 0.2 and 0 < float(nearest.get("y", "")) - y0 < 6


def test_step_pictures_replay_the_deduction_and_skip_singles() -> None:
    grid = parse_grid(HARD.replace("0", "."))
    deduction = deduce(grid)
    pictures = list(step_pictures(grid, deduction.steps))
    others = [k for k, step in enumerate(deduction.steps, 1) if not is_single(step)]
    assert others and [number for number, _, _ in pictures] == others
    for number, step, text in pictures:
        root = parse(text)
        assert texts(root)[0] == f"step {number}: {step.rule}"
        assert len(titles(root, "circle")) == step.progress


def test_written_pictures_are_named_by_puzzle_and_step_and_a_stuck_board_gets_one(tmp_path: Path) -> None:
    grid = parse_grid(HARD.replace("0", "."))
    solved = deduce(grid)
    written = write_pictures(tmp_path / "a", 4, grid, solved)
    assert written and all(path.name.startswith("puzzle5-step") for path in written)
    assert all(path.suffix == ".svg" for path in written)
    stuck = deduce(grid, select_rules(["singles"]))
    assert stuck.status.value == "stuck"
    written = write_pictures(tmp_path / "b", 0, grid, stuck)
    assert [path.name for path in written] == ["puzzle1-stuck.svg"]
    root = parse(written[0].read_text())
    assert len(texts(root)) > 81


def test_a_chain_step_of_the_rating_is_drawn_with_its_strong_and_weak_links() -> None:
    # HARD's hardest step is an xy-chain (7.2): its picture draws every link between cells
    grid = parse_grid(HARD)
    deduction = deduce(grid)
    assert deduction.hardest == "xy-chain" and deduction.hardest_index is not None
    pictures = {number: (step, text) for number, step, text in step_pictures(grid, deduction.steps)}
    step, text = pictures[deduction.hardest_index + 1]
    assert step.rule == "xy-chain" and step.links and step.weight == 7.2
    drawn = titles(parse(text), "path")
    kinds = {graph for *_, graph in step.links}
    assert kinds <= {"bilocation", "weak"}
    for kind in kinds:
        assert sum(title.startswith(f"{kind}: ") for title in drawn) == sum(
            graph == kind for *_, graph in step.links
        )
    if "weak" in kinds:
        assert "dashed grey: weak" in " ".join(texts(parse(text)))
