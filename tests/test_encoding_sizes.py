"""The sizes written in encodings/*.md are the sizes the encoders produce."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import ROOT

from sudoku_cp.cnf.sudoku import AmoEncoding, CnfEncoding, encode_cnf
from sudoku_cp.exact_cover import build_exact_cover
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.random_grids import random_puzzle

SPEC = ROOT / "encodings"


def _table_rows(document: str, first_cell: str) -> list[list[str]]:
    rows = []
    for line in (SPEC / document).read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(first_cell):
            rows.append(cells)
    return rows


def test_cnf_spec_lists_measured_sizes_for_9x9_and_16x16() -> None:
    rows = _table_rows("cnf.md", "empty ")
    assert {row[0] for row in rows} == {"empty 9x9", "empty 16x16"}
    assert len(rows) >= 2 * (3 + len(AmoEncoding))


@pytest.mark.parametrize("row", _table_rows("cnf.md", "empty "), ids=lambda row: "-".join(row[:3]))
def test_cnf_measured_sizes_match_the_encoder(row: list[str]) -> None:
    n = int(re.fullmatch(r"empty (\d+)x\d+", row[0]).group(1))  # type: ignore[union-attr]
    cnf = encode_cnf(Grid.empty(geometry_for_size(n)), row[1], row[2])
    sizes = cnf.sizes()
    assert [sizes["variables"], sizes["clauses"], sizes["literals"]] == [int(v) for v in row[3:6]]


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 4), (5, 5)])
def test_cnf_size_formulas_hold_for_every_box_shape_with_givens(shape: tuple[int, int]) -> None:
    g = Geometry(*shape)
    n = g.n
    puzzle = random_puzzle(g, 0.6, np.random.default_rng(n))
    givens = puzzle.givens
    pairs = n * (n - 1) // 2
    expected = {
        "minimal": n * n + 3 * n * n * pairs + givens,
        "efficient": n * n + 4 * n * n * pairs + givens,
        "extended": 4 * n * n + 4 * n * n * pairs + givens,
    }
    for encoding, clauses in expected.items():
        cnf = encode_cnf(puzzle, encoding)
        assert (cnf.n_vars, cnf.n_clauses) == (n**3, clauses)
    seq = encode_cnf(puzzle, "extended", "seqcounter")
    assert seq.n_vars == n**3 + 4 * n * n * (n - 1)
    assert seq.n_clauses == 4 * n * n + 4 * n * n * (3 * n - 4) + givens


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 3), (4, 4)])
def test_optimized_size_formula_counts_open_groups(shape: tuple[int, int]) -> None:
    from sudoku_cp.propagation import propagate

    g = Geometry(*shape)
    puzzle = random_puzzle(g, 0.75, np.random.default_rng(7))
    cnf = encode_cnf(puzzle, CnfEncoding.OPTIMIZED)
    state = propagate(puzzle)
    values, cand = state.values[0], state.candidates[0]
    open_cand = cand & (values == 0)[:, None]
    assert cnf.n_vars == int(open_cand.sum())
    expected = 0
    for k in open_cand.sum(axis=1)[values == 0]:
        expected += 1 + k * (k - 1) // 2
    for unit in g.units:
        placed = set(values[unit].tolist())
        for d in range(g.n):
            if d + 1 not in placed:
                k = int(open_cand[unit, d].sum())
                expected += (1 + k * (k - 1) // 2) if k else 0
    assert cnf.n_clauses == expected


def test_exact_cover_measured_sizes_match_the_model() -> None:
    rows = _table_rows("exact-cover.md", "empty ")
    assert len(rows) == 2
    for row in rows:
        n = int(re.fullmatch(r"empty (\d+)x\d+", row[0]).group(1))  # type: ignore[union-attr]
        model = build_exact_cover(Grid.empty(geometry_for_size(n)))
        assert [model.n_items, model.n_options] == [int(row[1]), int(row[2])]


def test_exact_cover_applies_givens() -> None:
    g = Geometry(3, 3)
    puzzle = random_puzzle(g, 0.5, np.random.default_rng(3))
    model = build_exact_cover(puzzle)
    assert model.n_items == 4 * (81 - puzzle.givens)
    assert model.n_options <= 9 * (81 - puzzle.givens)
    assert model.option_items.max() < model.n_items


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 3), (3, 4), (4, 4)])
def test_sizes_are_known_before_the_model_is_built(shape: tuple[int, int]) -> None:
    from sudoku_cp.cnf.sudoku import cnf_size

    g = Geometry(*shape)
    puzzle = random_puzzle(g, 0.5, np.random.default_rng(sum(shape)))
    amos = list(AmoEncoding) if g.n <= 12 else [AmoEncoding.PAIRWISE, AmoEncoding.SEQCOUNTER]
    for encoding in CnfEncoding:
        for amo in amos:
            size = cnf_size(puzzle, encoding, amo)
            sizes = encode_cnf(puzzle, encoding, amo).sizes()
            assert (size.variables, size.clauses, size.literals) == (
                sizes["variables"],
                sizes["clauses"],
                sizes["literals"],
            ), (encoding, amo)


def test_size_formulas_of_a_400x400_grid_without_building_it() -> None:
    from sudoku_cp.cnf.sudoku import cnf_size

    n = 400
    empty = Grid.empty(geometry_for_size(n))
    extended = cnf_size(empty, "extended")
    assert (extended.variables, extended.clauses) == (n**3, 4 * n * n + 4 * n * n * n * (n - 1) // 2)
    seq = cnf_size(empty, "extended", "seqcounter")
    assert (seq.variables, seq.clauses) == (n**3 + 4 * n * n * (n - 1), 4 * n * n + 4 * n * n * (3 * n - 4))
