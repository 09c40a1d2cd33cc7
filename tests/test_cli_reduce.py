"""``sudoku-cp reduce``: building, decoding and verifying 3-SAT -> Nishio instances through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, SHARED
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from test_cli import assert_one_line_error, run

from sudoku_cp.nishio.api import make_method
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.text import instance_text, parse_instance
from sudoku_cp.reduction import check as cli_reduce  # verify_reduction is library code now
from sudoku_cp.reduction.construction import Reduction
from sudoku_cp.reduction.formula import Formula, parse_dimacs
from sudoku_cp.reduction.random3sat import random_3sat

SATLIB = DATA / "satlib"
SMALL_SAT = "c two clauses\np cnf 3 2\n1 -2 3 0\n-1 2 0\n"
SMALL_UNSAT = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


@pytest.fixture
def small_sat(tmp_path: Path) -> str:
    return write(tmp_path / "small.cnf", SMALL_SAT)


@pytest.fixture
def small_unsat(tmp_path: Path) -> str:
    return write(tmp_path / "unsat.cnf", SMALL_UNSAT)


def built(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, formula: str, *extra: str
) -> tuple[Reduction, Path]:
    """Build an instance and its metadata through the CLI; the reduction read back from the metadata."""
    inst, meta = tmp_path / "inst.nishio", tmp_path / "inst.json"
    code, out, err = run(capsys, "reduce", formula, "-o", str(inst), "--meta", str(meta), *extra)
    assert code == 0 and err == "", err
    reduction = Reduction.from_metadata(json.loads(meta.read_text()))
    assert parse_instance(inst.read_text(), box=(reduction.k, reduction.k)) == reduction.instance
    assert f"k={reduction.k}" in out and f"|S| = {reduction.instance.size}" in out
    return reduction, meta


def placement_file(tmp_path: Path, instance: NishioInstance, cols: np.ndarray, form: str = "mask") -> str:
    cells = [(r, int(c)) for r, c in enumerate(cols)]
    return write(
        tmp_path / f"placement.{form}",
        instance_text(NishioInstance.from_cells(instance.geometry, cells), form),
    )


def v_assignment(out: str) -> list[int]:
    literals = [int(tok) for line in out.splitlines() if line.startswith("v ") for tok in line.split()[1:]]
    assert literals[-1] == 0
    return literals[:-1]


# ------------------------------------------------------------------------------------------ build


def test_build_writes_instance_and_metadata_that_read_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reduction, _ = built(capsys, tmp_path, str(SATLIB / "uf20-01.cnf"))
    assert reduction.instance.n == reduction.k**2
    assert reduction.formula == parse_dimacs((SATLIB / "uf20-01.cnf").read_text())


def test_build_without_out_writes_only_the_instance_to_stdout(
    capsys: pytest.CaptureFixture[str], small_sat: str
) -> None:
    code, out, err = run(capsys, "reduce", small_sat)
    assert code == 0 and err == ""
    instance = parse_instance(out)
    assert instance.size > 0


@pytest.mark.parametrize("form", ["cells", "json"])
def test_build_writes_other_instance_forms(
    capsys: pytest.CaptureFixture[str], small_sat: str, form: str
) -> None:
    code, mask_out, _ = run(capsys, "reduce", small_sat)
    code, out, err = run(capsys, "reduce", small_sat, "--form", form)
    assert code == 0 and err == ""
    assert parse_instance(out) == parse_instance(mask_out)


def test_build_nonempty_names_witness_cells(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    reduction, meta = built(capsys, tmp_path, small_sat, "--nonempty")
    assert reduction.nonempty and reduction.witness_cells
    assert all(reduction.instance.mask[r, c] for r, c in reduction.witness_cells)


def test_random_formula_is_reproducible_and_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ("reduce", "--random-vars", "6", "--clauses", "12", "--seed", "7", "--planted")
    cnf = tmp_path / "random.cnf"
    code, first, _ = run(capsys, *args, "--write-formula", str(cnf))
    code2, second, _ = run(capsys, *args)
    assert code == code2 == 0 and first == second
    assert parse_dimacs(cnf.read_text()) == random_3sat(6, 12, 7, planted=True)


def test_build_json_summary_names_sizes_and_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    out_path, meta = str(tmp_path / "i.txt"), str(tmp_path / "m.json")
    code, out, err = run(capsys, "reduce", small_sat, "-o", out_path, "--meta", meta, "--nonempty", "--json")
    summary = json.loads(out)
    assert code == 0 and err == ""
    assert summary["written"] == [out_path, meta] and summary["nonempty"] is True
    assert summary["cells"] == parse_instance(Path(out_path).read_text()).size
    code, _, err = run(capsys, "reduce", small_sat, "--json")
    assert code == 2 and "give -o FILE" in assert_one_line_error(err)


def test_svg_draws_the_gadgets(capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str) -> None:
    svg = tmp_path / "layout.svg"
    code, _, err = run(capsys, "reduce", small_sat, "-o", str(tmp_path / "i.txt"), "--svg", str(svg))
    assert code == 0 and err == ""
    assert svg.read_text().lstrip().startswith(("<svg", "<?xml"))


def test_minimal_fill_keeps_fewer_cells(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(SATLIB / "uf20-01.cnf")
    full, _ = built(capsys, tmp_path, path)
    minimal, _ = built(capsys, tmp_path, path, "--fill", "minimal")
    assert minimal.k == full.k and minimal.instance.size < full.instance.size


# ----------------------------------------------------------------------------------------- decode


@pytest.mark.parametrize("form", ["mask", "cells", "json"])
def test_decode_turns_a_placement_into_a_satisfying_assignment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str
) -> None:
    reduction, meta = built(capsys, tmp_path, str(SATLIB / "uf20-01.cnf"))
    cols = make_method("sat").find_placement(reduction.instance)
    assert cols is not None
    code, out, err = run(
        capsys, "reduce", "--decode", str(meta), placement_file(tmp_path, reduction.instance, cols, form)
    )
    assert code == 0 and err == "", err
    assert "s SATISFIABLE" in out
    literals = v_assignment(out)
    assert [abs(lit) for lit in literals] == list(range(1, reduction.formula.num_vars + 1))
    assert reduction.formula.satisfied_by([lit > 0 for lit in literals])


@pytest.mark.parametrize("form", ["competition", "minisat"])
def test_decode_reads_a_sat_solver_model_of_the_nishio_cnf(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, form: str
) -> None:
    reduction, meta = built(capsys, tmp_path, str(SATLIB / "uf20-01.cnf"))
    instance_file = str(tmp_path / "inst.nishio")
    cnf_file = tmp_path / "inst.cnf"
    code, _, _ = run(capsys, "encode", "--nishio", "--to", "cnf", instance_file, "-o", str(cnf_file))
    assert code == 0
    with Solver(name="cadical195", bootstrap_with=parse_dimacs(cnf_file.read_text()).to_cnf()) as oracle:
        assert oracle.solve()
        model = oracle.get_model()
    literals = " ".join(map(str, model)) + " 0\n"
    text = "s SATISFIABLE\nv " + literals if form == "competition" else "SAT\n" + literals
    output = write(tmp_path / "model.txt", text)
    code, out, err = run(capsys, "reduce", "--decode", str(meta), output, "--json")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert obj["satisfies"] is True
    assert reduction.formula.satisfied_by([lit > 0 for lit in obj["assignment"]])


def test_decode_of_an_unsatisfiable_solver_answer_or_an_empty_file_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    _, meta = built(capsys, tmp_path, small_sat)
    for text, words in (
        ("UNSAT\n", "found no model"),
        ("s UNSATISFIABLE\n", "found no model"),
        ("\n", "empty"),
    ):
        answer = write(tmp_path / "answer.txt", text)
        code, _, err = run(capsys, "reduce", "--decode", str(meta), answer)
        assert code == 2 and words in assert_one_line_error(err)


def test_decode_rejects_a_placement_outside_s(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    reduction, meta = built(capsys, tmp_path, str(SATLIB / "uf20-01.cnf"), "--fill", "minimal")
    cols = make_method("sat").find_placement(reduction.instance)
    assert cols is not None
    outside = np.argwhere(~reduction.instance.mask)
    r, c = (int(v) for v in outside[0])
    moved = cols.copy()
    moved[r] = c  # one cell outside S (the rest may clash too; the first problem is named)
    code, out, err = run(
        capsys, "reduce", "--decode", str(meta), placement_file(tmp_path, reduction.instance, moved)
    )
    line = assert_one_line_error(err)
    assert code == 2 and out == ""
    assert "not a valid placement inside S" in line


def test_decode_rejects_a_row_with_two_cells(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    reduction, meta = built(capsys, tmp_path, small_sat)
    n = reduction.instance.n
    rows = ["x" * 2 + "." * (n - 2)] + ["." * n] * (n - 1)
    bad = write(tmp_path / "bad.txt", "\n".join(rows) + "\n")
    code, _, err = run(capsys, "reduce", "--decode", str(meta), bad)
    assert code == 2 and "row 1 holds 2 cells" in assert_one_line_error(err)


@pytest.mark.parametrize(
    ("meta_text", "words"),
    [("{not json", "not JSON"), ("[1, 2]", "JSON object"), ('{"k": 3}', "not reduction metadata")],
)
def test_decode_rejects_bad_metadata(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, meta_text: str, words: str
) -> None:
    meta = write(tmp_path / "meta.json", meta_text)
    placement = write(tmp_path / "p.txt", "x.\n.x\n")
    code, _, err = run(capsys, "reduce", "--decode", meta, placement)
    assert code == 2 and words in assert_one_line_error(err)


def test_decode_missing_placement_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    _, meta = built(capsys, tmp_path, small_sat)
    code, _, err = run(capsys, "reduce", "--decode", str(meta), str(tmp_path / "absent.txt"))
    assert code == 2 and "no such file" in assert_one_line_error(err)


@pytest.mark.parametrize("satisfiable", [True, False])
def test_decode_nonempty_placements_by_the_witness_variable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str, small_unsat: str, satisfiable: bool
) -> None:
    reduction, meta = built(capsys, tmp_path, small_sat if satisfiable else small_unsat, "--nonempty")
    instance = reduction.instance
    r, c = reduction.witness_cells[0]
    mask = instance.mask.copy()
    if satisfiable:  # a placement through a witness cell: z false, a model of the input formula
        mask[r] = False
        mask[r, c] = True
    cols = make_method("sat").find_placement(NishioInstance(instance.geometry, mask))
    assert cols is not None
    code, out, err = run(capsys, "reduce", "--decode", str(meta), placement_file(tmp_path, instance, cols))
    assert code == 0 and err == ""
    literals = v_assignment(out)
    if satisfiable:
        assert "s SATISFIABLE" in out and len(literals) == reduction.source_vars
        assert parse_dimacs(SMALL_SAT).satisfied_by([lit > 0 for lit in literals])
    else:  # every placement of an unsatisfiable formula's instance sets z true
        assert "s UNKNOWN" in out and len(literals) == reduction.formula.num_vars
        assert reduction.witness_variable in literals


def test_decode_rejects_an_unreadable_placement_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    _, meta = built(capsys, tmp_path, small_sat)
    bad = write(tmp_path / "bad.txt", "x . ?\n")
    code, _, err = run(capsys, "reduce", "--decode", str(meta), bad)
    line = assert_one_line_error(err)
    assert code == 2 and f"{bad}: line 1" in line


def test_decode_exits_3_when_the_decoded_assignment_falsifies_the_formula(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sudoku_cp.reduction import decode

    reduction, meta = built(capsys, tmp_path, str(SATLIB / "uf20-01.cnf"))
    cols = make_method("sat").find_placement(reduction.instance)
    assert cols is not None
    placement = placement_file(tmp_path, reduction.instance, cols)
    monkeypatch.setattr(decode, "assignment_from_placement", lambda r, c: (False,) * r.formula.num_vars)
    code, out, err = run(capsys, "reduce", "--decode", str(meta), placement)
    assert code == 3 and out == ""
    assert "falsifies clause" in assert_one_line_error(err)


# ----------------------------------------------------------------------------------------- verify

FIELDS = {"formula_satisfiable", "instance_satisfiable", "k", "n", "cells", "agree", "seconds"}


@pytest.mark.parametrize(("name", "satisfiable"), [("uf20-01.cnf", True), ("uuf50-01.cnf", False)])
def test_verify_json_on_satlib_files(
    capsys: pytest.CaptureFixture[str], name: str, satisfiable: bool
) -> None:
    code, out, err = run(capsys, "reduce", "--verify", str(SATLIB / name), "--json")
    assert code == 0 and err == "", err
    report = json.loads(out)
    assert report.keys() >= FIELDS
    assert report["agree"] is True and report["status"] == "agree"
    assert report["formula_satisfiable"] is satisfiable and report["instance_satisfiable"] is satisfiable
    assert (
        report["instance_methods"]["sat"] is satisfiable
        and report["instance_methods"]["cpsat"] is satisfiable
    )
    if satisfiable:
        assert report["decoded_assignment_satisfies"] is True and report["model_placement_valid"] is True
    assert {"build", "formula", "instance_sat", "instance_cpsat"} <= report["seconds"].keys()


@pytest.mark.parametrize("satisfiable", [True, False])
def test_verify_nonempty_puts_witnesses_in_closure_exactly_when_satisfiable(
    capsys: pytest.CaptureFixture[str], small_sat: str, small_unsat: str, satisfiable: bool
) -> None:
    path = small_sat if satisfiable else small_unsat
    code, out, err = run(capsys, "reduce", "--verify", "--nonempty", path, "--json")
    assert code == 0 and err == "", err
    report = json.loads(out)
    assert report["agree"] is True and report["instance_satisfiable"] is True
    assert report["formula_satisfiable"] is satisfiable
    for column in report["witness_in_closure"].values():
        assert column == [satisfiable] * len(report["witness_checked"])
    assert report["witness_checked"][0] == report["witness_cells"][0]
    if satisfiable:
        assert report["witness_assignment_satisfies"] is True


def test_verify_human_output_is_a_short_summary(capsys: pytest.CaptureFixture[str], small_sat: str) -> None:
    code, out, err = run(capsys, "reduce", "--verify", small_sat)
    assert code == 0 and err == ""
    assert (
        "formula: satisfiable" in out
        and "instance: has a placement" in out
        and out.rstrip().endswith("agree")
    )


def test_verify_batch_gives_one_result_per_file_and_never_stops(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str, small_unsat: str
) -> None:
    bad = write(tmp_path / "bad.cnf", "p cnf 3 1\n1 x 0\n")
    missing = str(tmp_path / "missing.cnf")
    code, out, err = run(capsys, "reduce", "--verify", small_sat, bad, missing, small_unsat, "--json")
    reports = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and err == ""
    assert [r["formula"] for r in reports] == [small_sat, bad, missing, small_unsat]
    assert [r["status"] for r in reports] == ["agree", "invalid", "invalid", "agree"]
    assert "line 2, column 3" in reports[1]["error"] and "no such file" in reports[2]["error"]


def test_verify_batch_human_reports_bad_files_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str
) -> None:
    bad = write(tmp_path / "bad.cnf", "p cnf 3 x\n")
    code, out, err = run(capsys, "reduce", "--verify", bad, small_sat)
    assert code == 2 and "agree" in out
    assert "line 1, column 9" in assert_one_line_error(err)


def test_verify_random_formula(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "reduce", "--verify", "--random-vars", "5", "--clauses", "8", "--seed", "3", "--json"
    )
    report = json.loads(out)
    assert code == 0 and report["agree"] is True
    assert report["formula"].startswith("random 3-SAT (5 variables, 8 clauses, seed 3)")


def test_verify_reports_a_broken_decoder_as_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.reduction import decode

    def wrong(reduction: Reduction, cols: np.ndarray) -> tuple[bool, ...]:
        return (False,) * reduction.formula.num_vars

    monkeypatch.setattr(decode, "assignment_from_placement", wrong)
    formula = Formula(3, ((1, 2, 3),))  # all-false falsifies it
    report = cli_reduce.verify_reduction(formula)
    assert report["agree"] is False and report["status"] == "disagree"
    assert report["decoded_assignment_satisfies"] is False


def test_verify_time_limit_gives_unknown_and_exit_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, small_sat: str
) -> None:
    from sudoku_cp.nishio.method import Decision
    from sudoku_cp.nishio.sat import SatNishio
    from sudoku_cp.outcome import REASON_TIME_LIMIT

    def out_of_time(self: SatNishio, instance: NishioInstance, time_limit: float | None = None) -> Decision:
        return Decision.unknown(REASON_TIME_LIMIT)  # a stopped method answers unknown, it does not raise

    monkeypatch.setattr(SatNishio, "decide", out_of_time)
    code, out, _ = run(capsys, "reduce", "--verify", small_sat, "--json", "--time-limit", "5")
    report = json.loads(out)
    assert code == 3 and report["status"] == "unknown" and report["instance_methods"]["sat"] is None
    assert report["agree"] is False and "no placement" not in out


def test_verify_small_formulas_dag_closure_equals_sat_closure(capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(3):
        formula = random_3sat(3, 2, seed)
        report = cli_reduce.verify_reduction(formula, closure=True)
        if report["n"] <= 25:
            assert report["dag_closure_equals_sat_closure"] is True
            assert report["instance_methods"]["dag"] == report["formula_satisfiable"]
        assert report["agree"] is True


def test_verify_random_formulas_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    outcomes = set()
    for seed in range(8):
        formula = random_3sat(4, 6 + 2 * seed, seed)
        report = cli_reduce.verify_reduction(formula)
        assert report["agree"] is True, report
        outcomes.add(report["formula_satisfiable"])
    assert outcomes == {True, False}


@pytest.mark.parametrize("nonempty", [False, True])
@pytest.mark.parametrize(
    "formula",
    [
        Formula(3, ()),  # no clauses, unused variables
        Formula(2, ((1,), ())),  # an empty clause: unsatisfiable
        Formula(4, ((1,), (-1, 2))),  # unit and binary clauses
        Formula(6, ((1, 2, 3, 4, 5, 6), (-1,), (-2,))),  # a long clause, split with fresh variables
        Formula(5, ((1, -2, 3, -4, 5), (-1, -3), (2,))),
    ],
    ids=["no-clauses", "empty-clause", "short-clauses", "long-clause", "mixed"],
)
def test_verify_agrees_on_edge_formulas(formula: Formula, nonempty: bool) -> None:
    report = cli_reduce.verify_reduction(formula, nonempty=nonempty)
    assert report["agree"] is True, report
    assert report["instance_satisfiable"] is (True if nonempty else report["formula_satisfiable"])


@settings(max_examples=25)
@given(
    st.lists(
        st.lists(st.integers(1, 4).flatmap(lambda v: st.sampled_from((v, -v))), min_size=1, max_size=4),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_verify_agrees_on_random_small_formulas(clauses: list[list[int]], nonempty: bool) -> None:
    kept = [tuple(dict.fromkeys(c)) for c in clauses if not any(-lit in c for lit in c)]
    report = cli_reduce.verify_reduction(Formula(4, tuple(kept)), nonempty=nonempty)
    assert report["agree"] is True, report


def test_verify_closure_flag_compares_dag_and_sat_closures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "tiny.cnf", "p cnf 3 2\n1 2 -3 0\n-1 3 0\n")
    code, out, err = run(capsys, "reduce", "--verify", "--closure", path, "--json")
    report = json.loads(out)
    assert code == 0 and report["n"] <= 25 and report["dag_closure_equals_sat_closure"] is True


# -------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["reduce"], "give a FORMULA file"),
        (["reduce", "--random-vars", "5"], "go together"),
        (["reduce", "--planted", "x.cnf"], "--planted needs"),
        (["reduce", "nowhere.cnf"], "no such file: nowhere.cnf"),
        (["reduce", "--verify", "-o", "x.txt", "nowhere.cnf"], "writes no files"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert words in assert_one_line_error(err)


def test_both_file_and_random_is_an_error(capsys: pytest.CaptureFixture[str], small_sat: str) -> None:
    code, _, err = run(capsys, "reduce", small_sat, "--random-vars", "5", "--clauses", "3")
    assert code == 2 and "not both" in assert_one_line_error(err)


def test_bad_header_names_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.cnf", "c comment\np cnf 3\n1 0\n")
    code, _, err = run(capsys, "reduce", bad)
    line = assert_one_line_error(err)
    assert code == 2 and f"{bad}: line 2" in line and "header" in line


def test_help_teaches_examples_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "reduce", "--help")
    assert code == 0
    assert "examples:" in out and "exit codes:" in out and "--decode" in out and "Theorem 6.2" in out


# ----------------------------------------------------------------------------------- SATLIB corpus


def _satlib_files() -> list[Path]:
    files = sorted((SHARED / "satlib").glob("*/*.cnf"))
    return files


@pytest.mark.slow
@pytest.mark.parametrize("nonempty", [False, True])
def test_every_shared_satlib_file_verifies(capsys: pytest.CaptureFixture[str], nonempty: bool) -> None:
    files = _satlib_files()
    if not files:
        pytest.skip(f"shared SATLIB corpus absent (expected at {SHARED / 'satlib'})")
    assert len(files) == 60
    extra = ["--nonempty"] if nonempty else []
    code, out, err = run(capsys, "reduce", "--verify", *map(str, files), "--json", *extra)
    reports = [json.loads(line) for line in out.splitlines()]
    assert len(reports) == 60 and err == ""
    for path, report in zip(files, reports, strict=True):
        assert report["agree"] is True, report
        assert report["formula_satisfiable"] is (not path.name.startswith("uuf")), path
    assert code == 0


# ---------------------------------------------------------------------------- on the executor


def _reports(text: str) -> list[dict[str, object]]:
    reports = [json.loads(line) for line in text.splitlines()]
    for report in reports:
        report.pop("seconds", None)
    return reports


def test_verify_on_worker_processes_gives_the_same_reports_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str, small_unsat: str
) -> None:
    bad = write(tmp_path / "bad.cnf", "p cnf 3 1\n1 x 0\n")
    files = [small_sat, bad, small_unsat, small_sat]
    code, out, err = run(capsys, "reduce", "--verify", *files, "--json")
    assert code == 2 and err == ""
    reports = _reports(out)
    assert [r["index"] for r in reports] == [0, 1, 2, 3] and [r["formula"] for r in reports] == files
    code2, out2, _ = run(capsys, "reduce", "--verify", *files, "--json", "--jobs", "2")
    assert code2 == 2 and _reports(out2) == reports


def test_verify_resumes_an_interrupted_results_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small_sat: str, small_unsat: str
) -> None:
    files = [small_sat, small_unsat, small_sat]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert run(capsys, "reduce", "--verify", *files, "--json", "--output-file", str(whole))[:2] == (0, "")
    text = whole.read_text()
    cut.write_text(text[: text.index("\n") + 20])  # the first report and a cut second one
    again = run(capsys, "reduce", "--verify", *files, "--json", "--output-file", str(cut), "--resume")
    assert again[:2] == (0, "") and _reports(cut.read_text()) == _reports(text)
    code, _, err = run(capsys, "reduce", "--verify", *files, "--output-file", str(cut), "--resume")
    assert code == 2 and "--resume needs --json" in assert_one_line_error(err)
