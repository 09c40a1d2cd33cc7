"""The grid drawer (sudoku_cp/svg.py): well-formed documents, box borders where boxes are, text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from sudoku_cp.svg import THICK, GridPicture, Stroke

SVG = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    assert text.startswith("<svg") and text.endswith("</svg>\n")
    return ET.fromstring(text)


@pytest.mark.parametrize(("n", "box"), [(4, (2, 2)), (6, (2, 3)), (6, (3, 2)), (9, (3, 3)), (12, (3, 4))])
def test_thick_lines_are_the_box_borders_and_the_frame(n: int, box: tuple[int, int]) -> None:
    picture = GridPicture(n, box, cell=10, margin=5)
    picture.lines(thin=Stroke("grey"), thick=THICK)
    lines = parse(picture.svg()).findall(f"{SVG}line")
    thick = [line for line in lines if line.get("stroke-width") == "2"]
    p, q = box
    rows = sorted({float(line.get("y1", "")) for line in thick if line.get("y1") == line.get("y2")})
    cols = sorted({float(line.get("x1", "")) for line in thick if line.get("x1") == line.get("x2")})
    assert rows == [5 + i * 10 for i in range(0, n + 1, p)]
    assert cols == [5 + j * 10 for j in range(0, n + 1, q)]
    assert len(lines) == 2 * (n + 1)  # every line once, thin or thick


def test_without_thin_lines_only_box_borders_are_drawn() -> None:
    picture = GridPicture(9, (3, 3))
    picture.lines(thin=None)
    assert len(parse(picture.svg()).findall(f"{SVG}line")) == 8


def test_marks_sit_in_their_cells_and_text_is_escaped() -> None:
    picture = GridPicture(4, (2, 2), cell=20, margin=10, title="a <b> & c")
    picture.fill_cell(1, 2, "#eee")
    picture.disc(1, 2, "blue", radius=5, title="R2C3 <kept>")
    picture.cross(3, 0, "red", half=4, title="R4C1")
    picture.cell_text(0, 3, "7")
    picture.legend(["one", "two"])
    root = parse(picture.svg())
    x, y = picture.corner(1, 2)
    cell = [r for r in root.findall(f"{SVG}rect") if r.get("fill") == "#eee"][0]
    assert (float(cell.get("x", "")), float(cell.get("y", ""))) == (x, y)
    circle = root.find(f"{SVG}circle")
    assert circle is not None
    assert (float(circle.get("cx", "")), float(circle.get("cy", ""))) == picture.centre(1, 2)
    assert circle.findtext(f"{SVG}title") == "R2C3 <kept>"
    texts = [t.text for t in root.findall(f"{SVG}text")]
    assert texts == ["a <b> & c", "7", "one", "two"]
    legend_y = [float(t.get("y", "")) for t in root.findall(f"{SVG}text")][-2:]
    assert all(y > picture.top + picture.side for y in legend_y)


def test_size_follows_the_grid_and_the_minimum_width() -> None:
    picture = GridPicture(9, (3, 3), cell=10, margin=20, header=5, footer=30, min_width=400)
    root = parse(picture.svg())
    assert (root.get("width"), root.get("height")) == ("400", str(20 + 5 + 90 + 30))
