"""SATLIB uniform random 3-SAT (uf20-91, uf50-218, uuf50-218) through the reduction: the instance's answer
(SAT and CP-SAT Nishio methods) equals pysat's on the formula, and decoding works both ways.

The default run uses the copy of uf20-01 in tests/data; the whole sets in ../shared/data/satlib
run with ``-m slow`` (uf50's Theorem 6.2 grid is 3136 x 3136).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, SHARED, shared_file

from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.placement import placement_problem
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.decode import (
    assignment_from_placement,
    placement_from_assignment,
    witness_assignment,
)
from sudoku_cp.reduction.formula import parse_dimacs, solve_formula

SETS = ("uf20-91", "uf50-218", "uuf50-218")


def _shared_files() -> list[str]:
    files = [f"satlib/{s}/{p.name}" for s in SETS for p in sorted((SHARED / "satlib" / s).glob("*.cnf"))]
    return files or [f"satlib/{s}/absent.cnf" for s in SETS]  # one skipped test per set when absent


def check_theorem_61(path: Path, fill: str, methods: tuple[str, ...]) -> Reduction:
    """Build, decide with each method, compare with pysat, decode both ways."""
    formula = parse_dimacs(path.read_text())
    reduction = reduce_formula(formula, fill=fill)
    satisfiable, model = solve_formula(formula)
    for method in methods:
        found = make_method(method).find_placement(reduction.instance)
        assert (found is not None) == satisfiable, f"{path.name}: {method} and pysat disagree"
        if found is not None:
            assert formula.satisfied_by(assignment_from_placement(reduction, found))
    if satisfiable:
        assert model is not None
        cols = placement_from_assignment(reduction, model)
        assert placement_problem(reduction.instance, cols) is None
    return reduction


def check_theorem_62(path: Path, fill: str) -> None:
    """S always has a placement; the first witness cell is usable iff the formula is satisfiable."""
    formula = parse_dimacs(path.read_text())
    reduction = reduce_formula(formula, nonempty=True, fill=fill)
    satisfiable, model = solve_formula(formula)
    z_true = witness_assignment(reduction, [False] * formula.num_vars, z=True)
    assert placement_problem(reduction.instance, placement_from_assignment(reduction, z_true)) is None
    assert make_method("sat").find_placement(reduction.instance) is not None
    r, c = reduction.witness_cells[0]
    mask = reduction.instance.mask.copy()
    mask[r, :] = False
    mask[r, c] = True
    found = make_method("sat").find_placement(NishioInstance(reduction.instance.geometry, mask))
    assert (found is not None) == satisfiable
    if found is not None:
        assert formula.satisfied_by(assignment_from_placement(reduction, found)[: formula.num_vars])
    if satisfiable:
        assert model is not None
        cols = placement_from_assignment(reduction, witness_assignment(reduction, model))
        assert all(cols[row] == col for row, col in reduction.witness_cells)


@pytest.mark.parametrize("fill", ["full", "minimal"])
def test_uf20_instance_is_satisfiable_and_decodes(fill: str) -> None:
    reduction = check_theorem_61(DATA / "satlib" / "uf20-01.cnf", fill, ("sat", "cpsat"))
    assert reduction.k <= 27  # lower bound 26: 91 * 4 + 273 = 637 boxes


def test_uf20_sizes_are_reported_by_metadata() -> None:
    reduction = reduce_formula(parse_dimacs((DATA / "satlib" / "uf20-01.cnf").read_text()), fill="minimal")
    data = reduction.metadata()
    assert (data["k"], data["n"], data["cells"]) == (reduction.k, reduction.k**2, reduction.instance.size)
    assert len(data["clauses"]) == 91
    # One variable block per occurrence, plus two per cut (each end of its equality gadget).
    assert sum(len(v["rows"]) for v in data["variables"]) == 273 + 2 * len(data["equalities"])
    assert int(np.count_nonzero(reduction.instance.mask.any(axis=1))) == reduction.n


@pytest.mark.slow
@pytest.mark.parametrize("relative", _shared_files())
def test_satlib_file_theorem_61(relative: str) -> None:
    check_theorem_61(shared_file(relative), "full", ("sat", "cpsat"))


@pytest.mark.slow
@pytest.mark.parametrize("relative", _shared_files())
def test_satlib_file_theorem_62(relative: str) -> None:
    check_theorem_62(shared_file(relative), "minimal")
