"""Geometry of p x q boxes: units, peers, box index, and size resolution."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.geometry import Geometry, GeometryError, geometry_for_size, parse_box

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (3, 4), (4, 3), (4, 4), (5, 5), (6, 6)]


@pytest.mark.parametrize(("p", "q"), SHAPES)
def test_every_unit_holds_n_distinct_cells_and_every_cell_is_in_three_units(p: int, q: int) -> None:
    g = Geometry(p, q)
    n = g.n
    assert g.units.shape == (3 * n, n)
    counts = np.bincount(g.units.ravel(), minlength=n * n)
    assert (counts == 3).all()
    for unit in g.units:
        assert len(set(unit.tolist())) == n


@pytest.mark.parametrize(("p", "q"), SHAPES)
def test_boxes_are_p_rows_by_q_columns(p: int, q: int) -> None:
    g = Geometry(p, q)
    for box in g.units[2 * g.n :]:
        rows, cols = np.divmod(box, g.n)
        assert len(set(rows.tolist())) == p
        assert len(set(cols.tolist())) == q
        assert (g.box_of_cell[box] == g.box_index(int(rows[0]), int(cols[0]))).all()


@pytest.mark.parametrize(("p", "q"), SHAPES)
def test_peers_are_cells_sharing_a_unit(p: int, q: int) -> None:
    g = Geometry(p, q)
    n = g.n
    peers = g.peers()
    assert peers.shape == (n * n, 3 * n - p - q - 1)
    rng = np.random.default_rng(0)
    for cell in rng.choice(n * n, size=5, replace=False):
        expected = set(np.concatenate([g.units[u] for u in g.cell_units[cell]]).tolist()) - {int(cell)}
        assert set(peers[cell].tolist()) == expected


def test_square_sizes_get_square_boxes_and_other_sizes_need_a_box() -> None:
    assert geometry_for_size(9) == Geometry(3, 3)
    assert geometry_for_size(16) == Geometry(4, 4)
    assert geometry_for_size(6, (2, 3)) == Geometry(2, 3)
    assert geometry_for_size(6, (3, 2)) == Geometry(3, 2)
    with pytest.raises(GeometryError, match="several box shapes"):
        geometry_for_size(6)
    with pytest.raises(GeometryError, match="no box shape"):
        geometry_for_size(7)
    with pytest.raises(GeometryError, match="does not fit"):
        geometry_for_size(9, (2, 3))


def test_box_shapes_parse_as_rows_by_columns() -> None:
    assert parse_box("2x3") == (2, 3)
    assert parse_box("3X4") == (3, 4)
    for bad in ("2-3", "x3", "2x", "axb", "0x5"):
        with pytest.raises(GeometryError):
            parse_box(bad)


def test_cell_and_unit_names_are_one_based() -> None:
    g = geometry_for_size(9)
    assert g.cell_name(8 * 9 + 4) == "R9C5"
    assert g.unit_name(0) == "row 1"
    assert g.unit_name(9 + 2) == "column 3"
    assert g.unit_name(18 + 8) == "box 9"
