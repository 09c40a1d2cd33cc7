"""Sparse Nishio instances (issue 22, item 1) and bad reduction input (item 7).

The reduction builds S from cells (``Layout.cells``); ``Layout.mask`` is the old dense path and
must give the same set, cell for cell.  The models and the streamed DIMACS are compared with a
per-unit reference encoder written here (the pre-sparse algorithm: one pysat call per unit over
the geometry's unit table).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from test_cli import assert_one_line_error, run

from sudoku_cp.cnf.dimacs import dimacs_text
from sudoku_cp.cnf.sudoku import AmoEncoding
from sudoku_cp.geometry import MAX_SIDE, geometry_for_size
from sudoku_cp.nishio.cnf import encode_nishio_cnf, nishio_dimacs_text, stream_nishio_dimacs
from sudoku_cp.nishio.cpsat import build_nishio_cpsat
from sudoku_cp.nishio.exact_cover import build_nishio_exact_cover
from sudoku_cp.nishio.instance import InstanceTooLargeError, NishioInstance
from sudoku_cp.nishio.placement import has_empty_unit, placement_problem
from sudoku_cp.nishio.text import SPARSE_FROM, ParseError, format_sparse, instance_text, parse_instance
from sudoku_cp.reduction.construction import Reduction, reduce_formula
from sudoku_cp.reduction.decode import assignment_from_placement, placement_from_assignment
from sudoku_cp.reduction.formula import Formula, FormulaInputError, read_formula, solve_formula
from sudoku_cp.reduction.random3sat import planted_3sat, random_3sat

FILLS = ("full", "minimal")


@st.composite
def formulas(draw: st.DrawFn) -> Formula:
    """Small formulas with clauses of 1 to 5 literals (long ones are split), no empty clause."""
    num_vars = draw(st.integers(1, 7))
    literal = st.integers(1, num_vars).flatmap(lambda v: st.sampled_from((v, -v)))
    clause = st.lists(literal, min_size=1, max_size=5, unique_by=abs).map(tuple)
    return Formula(num_vars, tuple(draw(st.lists(clause, max_size=12))))


def _dense_equals_sparse(reduction: Reduction) -> None:
    dense = reduction.layout.mask(reduction.fill)
    rows, cols = np.nonzero(dense)
    instance = reduction.instance
    assert np.array_equal(instance.rows, rows) and np.array_equal(instance.cols, cols)
    assert np.array_equal(instance.mask, dense)
    assert instance == NishioInstance(instance.geometry, dense)


@settings(max_examples=40, deadline=None)
@given(formulas(), st.sampled_from(FILLS), st.booleans())
def test_sparse_and_dense_paths_give_the_same_instance(formula: Formula, fill: str, nonempty: bool) -> None:
    _dense_equals_sparse(reduce_formula(formula, nonempty=nonempty, fill=fill))


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("seed", range(3))
def test_sparse_and_dense_agree_on_random_3sat(seed: int, fill: str) -> None:
    _dense_equals_sparse(reduce_formula(random_3sat(12, 50, seed), fill=fill))
    _dense_equals_sparse(reduce_formula(random_3sat(8, 34, seed), nonempty=True, fill=fill))


@pytest.mark.parametrize("nonempty", [False, True])
def test_decoded_witnesses_pass_the_checker(nonempty: bool) -> None:
    for seed in range(3):
        formula, _ = planted_3sat(10, 42, seed)
        reduction = reduce_formula(formula, nonempty=nonempty)
        answer, model = solve_formula(reduction.formula)
        assert answer is True and model is not None
        cols = placement_from_assignment(reduction, model)
        assert placement_problem(reduction.instance, cols) is None
        assert reduction.formula.satisfied_by(assignment_from_placement(reduction, cols))


def test_a_reduction_beyond_the_old_cap_is_built_sparse_and_decodes() -> None:
    formula, _ = planted_3sat(150, 640, 3)  # side 5,041 > 4,096: refused before this issue
    reduction = reduce_formula(formula)
    instance = reduction.instance
    assert instance.n > MAX_SIDE and instance.size < 40 * instance.n
    with pytest.raises(InstanceTooLargeError, match="too large for a dense mask"):
        _ = instance.mask
    answer, model = solve_formula(reduction.formula)
    assert answer is True and model is not None
    cols = placement_from_assignment(reduction, model)
    assert placement_problem(instance, cols) is None
    assert not has_empty_unit(instance)
    assert formula.satisfied_by(assignment_from_placement(reduction, cols)[: formula.num_vars])
    assert parse_instance(instance_text(instance, "auto")) == instance
    again = Reduction.from_metadata_text(reduction.metadata_json())
    assert again.instance == instance


def test_placement_problem_names_the_first_problem() -> None:
    g = geometry_for_size(4)
    instance = NishioInstance.full(g)
    assert placement_problem(instance, np.array([0, 2, 1, 3])) is None
    assert placement_problem(instance, np.array([0, 0, 1, 3])) == "R1C1 and R2C1 share column 1"
    assert placement_problem(instance, np.array([0, 1, 2, 3])) == "R1C1 and R2C2 share box 1"
    part = NishioInstance.from_cells(g, [(0, 0), (1, 2), (2, 1), (3, 3)])
    assert placement_problem(part, np.array([0, 2, 1, 2])) == "R4C3 is not in S"


# ------------------------------------------------------------------------------------ text


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.data())
def test_sparse_text_round_trips(k: int, data: st.DataObject) -> None:
    g = geometry_for_size(k * k)
    cells = data.draw(st.lists(st.tuples(st.integers(0, g.n - 1), st.integers(0, g.n - 1)), max_size=40))
    instance = NishioInstance.from_cells(g, cells)
    text = format_sparse(instance)
    assert text.splitlines()[0] == f"nishio-sparse n={g.n} box={g.box_label} cells={instance.size}"
    assert parse_instance(text) == instance
    assert parse_instance("# a comment\n" + text.replace("\n", "\n\n")) == instance
    assert instance_text(instance, "auto") == instance_text(instance, "mask")


def test_auto_form_is_sparse_from_the_threshold() -> None:
    big = geometry_for_size(SPARSE_FROM - 1 + 1, (1, SPARSE_FROM))
    instance = NishioInstance.from_cells(big, [(0, 0), (5, 7)])
    assert instance_text(instance, "auto").startswith("nishio-sparse n=257 box=1x257 cells=2\n1 1\n6 8\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nishio-sparse n=4 cells=2\n1 1\n", "line 1: the header says cells=2 but 1 cell lines follow"),
        ("nishio-sparse n=4 cells=2\n1 1\n1 1\n", "line 3: cell 1 1 is listed twice"),
        ("nishio-sparse n=4 cells=1\n5 1\n", "line 2: cell 5 1 lies outside the 4x4 grid"),
        ("nishio-sparse n=4 cells=1\n1 x\n", "line 2: a cell line reads 'R C'"),
        ("nishio-sparse n=4 cells=1\n1 -1\n", "line 2: a cell line reads 'R C'"),
        ("nishio-sparse n=4\n1 1\n", "line 1: the nishio-sparse header needs cells="),
        ("nishio-sparse n=4 cells=1 size=3\n1 1\n", "line 1, column 27: the nishio-sparse header reads"),
        ("nishio-sparse n=99999999999 cells=1\n1 1\n", "above the largest grid side"),
        ("nishio-sparse n=6 cells=1\n1 1\n", "several box shapes"),
    ],
)
def test_bad_sparse_text_names_its_line(text: str, message: str) -> None:
    with pytest.raises(ParseError) as raised:
        parse_instance(text)
    assert message in str(raised.value)


# ------------------------------------------------------------------------------------ models


def _reference_dimacs(instance: NishioInstance, encoding: AmoEncoding) -> str:
    """The pre-sparse encoder: one pysat call per unit over the dense unit table."""
    g = instance.geometry
    var = np.zeros(g.n * g.n, dtype=np.int64)
    var[instance.keys] = np.arange(1, instance.size + 1)
    pool = IDPool(start_from=instance.size + 1)
    clauses: list[list[int]] = []
    for unit in range(3 * g.n):
        lits = [int(v) for v in var[g.units[unit]] if v]
        if not lits:
            clauses.append([])
            continue
        made = CardEnc.equals(lits=lits, bound=1, vpool=pool, encoding=getattr(EncType, encoding.value))
        clauses.extend(made.clauses)
    n_vars = max(pool.top, instance.size)
    return dimacs_text(clauses, n_vars, encode_nishio_cnf(instance, encoding).comments())


@pytest.mark.parametrize("encoding", [AmoEncoding.PAIRWISE, AmoEncoding.SEQCOUNTER, AmoEncoding.LADDER])
def test_streamed_dimacs_equals_the_per_unit_encoder(encoding: AmoEncoding) -> None:
    rng = np.random.default_rng(5)
    instances = [reduce_formula(random_3sat(4, 12, 1)).instance]
    g = geometry_for_size(9)
    instances += [NishioInstance(g, rng.random((9, 9)) < p) for p in (0.2, 0.5, 1.0)]
    for instance in instances:
        expected = _reference_dimacs(instance, encoding)
        cnf = encode_nishio_cnf(instance, encoding)
        assert nishio_dimacs_text(cnf) == expected
        out = io.BytesIO()
        stream_nishio_dimacs(instance, encoding, out)
        assert out.getvalue().decode("ascii") == expected


@pytest.mark.parametrize("chunk", [1, 10, 300])
def test_wide_pairwise_units_stream_the_same_bytes(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    # A chunk smaller than a unit makes every unit "wide": its pairs are written a piece at a time.
    from sudoku_cp.nishio import cnf

    monkeypatch.setattr(cnf, "_CHUNK_LITERALS", chunk)
    rng = np.random.default_rng(chunk)
    g = geometry_for_size(9)
    instances = [NishioInstance(g, np.ones((9, 9), bool))]
    instances += [NishioInstance(g, rng.random((9, 9)) < p) for p in (0.3, 0.7)]
    if chunk >= 300:  # a side-121 instance of the reduction: boxes of up to 121 cells (slow in tiny pieces)
        instances.append(reduce_formula(random_3sat(4, 12, 2)).instance)
    for instance in instances:
        expected = _reference_dimacs(instance, AmoEncoding.PAIRWISE)
        out = io.BytesIO()
        stream_nishio_dimacs(instance, AmoEncoding.PAIRWISE, out)
        assert out.getvalue().decode("ascii") == expected


class _Counted(io.RawIOBase):
    """A binary sink that only counts what is written (so the output takes no memory)."""

    def __init__(self) -> None:
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.size += len(data)
        return len(data)


def test_a_wide_pairwise_unit_is_written_in_bounded_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    import tracemalloc

    from sudoku_cp.geometry import Geometry
    from sudoku_cp.nishio import cnf

    # One full 40x40 box of a 1600x1600 grid: 1,279,200 pairs, about 17 MB of DIMACS.
    monkeypatch.setattr(cnf, "_CHUNK_LITERALS", 1 << 16)
    rows, cols = np.divmod(np.arange(1600), 40)
    instance = NishioInstance.from_coordinates(Geometry(40, 40), rows, cols)
    out = _Counted()
    tracemalloc.start()
    try:
        _, clauses = stream_nishio_dimacs(instance, AmoEncoding.PAIRWISE, out)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_line = 1 + 40 * 39 // 2  # 40 rows and 40 columns of 40 cells; the other units are empty clauses
    assert clauses == (1 + 1600 * 1599 // 2) + 2 * 40 * per_line + 2 * 1560 + 1599
    assert out.size > 15_000_000
    assert peak < out.size // 4, (peak, out.size)  # the whole unit's pairs alone would take 30 MB


def test_models_from_cells_decide_like_the_formula() -> None:
    from sudoku_cp.nishio.api import make_method

    for seed in range(4):
        formula = random_3sat(5, 24, seed)
        instance = reduce_formula(formula).instance
        expected, _ = solve_formula(formula)
        for method in ("sat", "cpsat", "dlx"):
            decision = make_method(method).decide(instance, None)
            assert (decision.placement is not None) == expected, (method, seed)
    model = build_nishio_exact_cover(instance)
    assert model.n_options == instance.size
    assert build_nishio_cpsat(instance).sizes()["variables"] == instance.size


# ------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p cnf 3 2\n1 2 0\n0\n", "f.cnf: line 3: clause 2 is empty"),
        ("p cnf 3 2\n1 2 0\n1 4 0\n", "f.cnf: line 3, column 3: literal 4 is beyond the 3 variables"),
        ("p cnf 3 10000000\n1 2 3 0\n", "f.cnf: line 1, column 9: header: 10000000 clauses is more than"),
        ("p cnf 100000000 1\n1 0\n", "variables is more than 10000000"),
        ("1 2 0\n", "clause before the 'p cnf' header"),
    ],
)
def test_bad_formulas_are_one_line_naming_the_place(text: str, message: str) -> None:
    with pytest.raises(FormulaInputError) as raised:
        read_formula(text, "f.cnf")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_header_too_large_for_memory_is_refused_before_the_clauses(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp import limits

    monkeypatch.setattr(limits, "memory_budget", lambda: 1 << 28)
    monkeypatch.setattr("sudoku_cp.reduction.formula.read_dimacs", None)  # never reached
    text = "c big\np cnf 1000 100000\n" + "1 2 3 0\n" * 100_000
    with pytest.raises(FormulaInputError, match=r"f.cnf: line 2: reducing 1000 variables and 100000 clauses"):
        read_formula(text, "f.cnf")


def test_repeats_and_tautologies_are_normalised_with_warnings() -> None:
    read = read_formula("p cnf 3 3\n1 2 1 0\n1 -1 3 0\n-3\n 2 0\n", "f.cnf")
    assert read.formula.clauses == ((1, 2), (-3, 2))
    assert read.warnings == (
        "f.cnf: line 2: clause 1 repeats a literal; kept once",
        "f.cnf: line 3: clause 2 holds a variable and its negation; dropped",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p cnf 3 2\n1 2 0\n0\n", "clause 2 is empty"),
        ("p cnf 3 2\n1 2 0\n1 4 0\n", "literal 4 is beyond the 3 variables of the header"),
        ("p cnf 3 3\n1 2 0\n", "header declares 3 clauses but 1 were read"),
    ],
)
def test_reduce_refuses_bad_formulas_with_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.cnf"
    path.write_text(text)
    code, out, err = run(capsys, "reduce", str(path), "-o", str(tmp_path / "x.nishio"))
    assert code == 2 and out == ""
    line = assert_one_line_error(err)
    assert f"{path}: line" in line and message in line
    assert not (tmp_path / "x.nishio").exists()


def test_reduce_warns_and_goes_on_after_normalising(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "dup.cnf"
    path.write_text("p cnf 3 2\n1 2 1 0\n1 -1 3 0\n")
    code, _, err = run(capsys, "reduce", str(path), "-o", str(tmp_path / "x.nishio"))
    assert code == 0
    assert err.count("warning:") == 2 and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ("--random-vars", "100", "--clauses", "10000000"),
        ("--random-vars", "100000000", "--clauses", "10"),
    ],
)
def test_reduce_refuses_random_sizes_out_of_range(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, "reduce", *argv, "-o", "never-written.nishio")
    assert code == 2 and out == ""
    assert "--random-vars" in assert_one_line_error(err)


def test_reduce_writes_sparse_text_that_encode_reads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    inst, cnf = tmp_path / "big.nishio", tmp_path / "big.cnf"
    code, _, _ = run(capsys, "reduce", "--random-vars", "30", "--clauses", "128", "-o", str(inst))
    assert code == 0 and inst.read_text().startswith("nishio-sparse n=")
    code, out, _ = run(
        capsys, "encode", "--nishio", "--to", "cnf", "--amo", "seqcounter", str(inst), "-o", str(cnf)
    )
    assert code == 0 and "Nishio DIMACS CNF" in out
    instance = parse_instance(inst.read_text())
    expected = nishio_dimacs_text(encode_nishio_cnf(instance, "seqcounter"))
    assert cnf.read_text() == expected


def test_a_cpsat_model_too_large_for_memory_is_refused_before_it_is_built(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sudoku_cp import limits
    from sudoku_cp.nishio import cpsat

    instance = NishioInstance(geometry_for_size(9), np.ones((9, 9), dtype=bool))
    path = tmp_path / "full.txt"
    path.write_text(instance_text(instance))
    monkeypatch.setattr(limits, "memory_budget", lambda: 1 << 28)
    monkeypatch.setattr(cpsat, "_CPSAT_BYTES_PER_CELL", 1 << 30)  # as if each cell took 1 GiB
    monkeypatch.setattr(cpsat.cp_model, "CpModel", None)  # never reached
    with pytest.raises(limits.ModelTooLarge, match=r"CP-SAT model of a 9x9 Nishio instance with \|S\| = 81"):
        build_nishio_cpsat(instance)
    code, _, err = run(
        capsys, "encode", "--nishio", "--to", "cpsat", str(path), "-o", str(tmp_path / "m.pb.txt")
    )
    assert code == 2 and "try --to cnf" in assert_one_line_error(err)
    assert not (tmp_path / "m.pb.txt").exists()
