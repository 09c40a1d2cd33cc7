"""``sudoku-cp nishio --certify DIR``: every answered closure becomes a checked 'closure' certificate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sudoku_cp.certify.check import check_certificate
from sudoku_cp.certify.manifest import read_manifest
from sudoku_cp.cli import main

ESCARGOT = "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3.."
PLATINUM = ".......12........3..23..4....18....5.6..7.8.......9.....85.....9...4.5..47...6..."
GOLDEN = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"

#: Digit 9 of AI Escargot: 26 cells of S, 4 of them eliminated.
ESCARGOT_9_SIZE, ESCARGOT_9_KEPT = 26, 22

#: A 9x9 instance without a placement: row 9 has no cell of S.
EMPTY_ROW = """\
x..x.....
.x..x....
..x..x...
x.....x..
.x.....x.
..x.....x
x..x.....
.x..x....
.........
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def holds(path: str) -> dict[str, Any]:
    """The manifest at ``path``, after checking that its certificate holds."""
    verdict = check_certificate(path)
    assert verdict.holds, verdict.reason
    return read_manifest(path)


def json_lines(out: str) -> list[dict[str, Any]]:
    """The JSON objects of an output (a results file's header line left out)."""
    objects = [json.loads(line) for line in out.splitlines() if line]
    return [obj for obj in objects if "sudoku_cp_results" not in obj]


def cells(obj: list[list[int]] | None) -> list[list[int]]:
    return [list(cell) for cell in obj or []]


def test_instance_file_prints_its_certificate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    instance = tmp_path / "instance.txt"
    code, out, _ = run(capsys, "nishio", "--puzzle", ESCARGOT, "--digit", "9", "--json")
    assert code == 0
    kept = json_lines(out)[0]["closure"]
    extra = [cell for cell in ([1, 2], [9, 9], [5, 5]) if cell not in kept]
    instance.write_text("n=9 box=3x3\n" + " ".join(f"R{r}C{c}" for r, c in kept + extra) + "\n")
    code, out, _ = run(capsys, "nishio", str(instance), "--certify", str(tmp_path / "certs"))
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("certificate: ")]
    assert len(lines) == 1
    manifest = holds(lines[0].removeprefix("certificate: "))
    assert manifest["claim"] == "closure" and "digit" not in manifest
    assert extra and len(manifest["instance"]) == len(kept) + len(extra)


def test_empty_closure_is_certified(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    instance = tmp_path / "empty.txt"
    instance.write_text(EMPTY_ROW)
    code, out, _ = run(capsys, "nishio", str(instance), "--json", "--certify", str(tmp_path / "certs"))
    assert code == 1  # no placement inside S
    (obj,) = json_lines(out)
    assert obj["satisfiable"] is False and obj["closure"] == []
    manifest = holds(obj["certificate"])
    assert manifest["closure"] == [] and manifest["witnesses"] == []
    assert [entry["cell"] for entry in manifest["eliminated"]] == manifest["instance"]
    assert len(manifest["instance"]) == EMPTY_ROW.count("x")


def test_all_digits_json_each_line_names_a_certificate_that_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(
        capsys, "nishio", "--puzzle", ESCARGOT, "--all-digits", "--json", "--certify", str(tmp_path)
    )
    assert code == 0
    objs = json_lines(out)
    assert [obj["digit"] for obj in objs] == list(range(1, 10))
    for obj in objs:
        manifest = holds(obj["certificate"])
        assert manifest["digit"] == obj["digit"]
        assert cells(manifest["closure"]) == cells(obj["closure"])
        assert cells(manifest["instance"]) == sorted(cells(obj["closure"]) + cells(obj["eliminated"]))
    assert sum(len(obj["eliminated"]) for obj in objs) > 0  # some refutations were checked


def test_without_certify_the_dag_batch_keeps_its_fast_path(capsys: pytest.CaptureFixture[str]) -> None:
    from sudoku_cp.cli import nishio as nishio_cli

    def ask(*argv: str) -> Any:
        import argparse

        parser = argparse.ArgumentParser()
        commands = parser.add_subparsers()
        nishio_cli.add_parser(commands)
        return nishio_cli._ask(parser.parse_args(["nishio", *argv]))

    assert ask("--puzzle", ESCARGOT, "--all-digits", "--json").json_lines
    assert not ask("--puzzle", ESCARGOT, "--all-digits", "--json", "--certify", "d").json_lines
    code, out, _ = run(capsys, "nishio", "--puzzle", ESCARGOT, "--all-digits", "--json")
    assert code == 0 and all("certificate" not in obj for obj in json_lines(out))


@pytest.mark.parametrize("method", ["dag", "overlay", "sat", "cpsat", "dlx", "all"])
def test_every_exact_method_is_certified(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, method: str
) -> None:
    code, out, _ = run(
        capsys, "nishio", "--puzzle", ESCARGOT, "--digit", "9", "--json", "--method", method,
        "--certify", str(tmp_path),
    )  # fmt: skip
    assert code == 0
    objs = json_lines(out)
    exact = [obj for obj in objs if obj["exact"]]
    assert exact and all(obj["method"] != "matching" for obj in exact)
    paths = {obj["certificate"] for obj in exact}
    assert len(paths) == 1  # for 'all': the agreed closure, one certificate
    manifest = holds(paths.pop())
    assert len(manifest["closure"]) == ESCARGOT_9_KEPT
    assert len(manifest["instance"]) == ESCARGOT_9_SIZE
    assert all("certificate" not in obj for obj in objs if not obj["exact"])
    if method == "all":
        assert {obj["method"] for obj in objs} >= {"dag", "matching", "sat", "dlx"}
        code, out, _ = run(
            capsys, "nishio", "--puzzle", ESCARGOT, "--digit", "9", "--method", "all",
            "--certify", str(tmp_path),
        )  # fmt: skip
        assert code == 0
        assert out.rstrip().splitlines()[-1] == f"certificate: {exact[0]['certificate']}"


def test_matching_cannot_be_certified(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    certs = tmp_path / "certs"
    code, _, err = run(
        capsys,
        "nishio",
        "--puzzle",
        ESCARGOT,
        "--digit",
        "9",
        "--method",
        "matching",
        "--certify",
        str(certs),
    )
    assert code == 2
    assert "exact method" in err and "matching" in err
    assert not certs.exists()


def test_batch_on_two_jobs_pairs_each_line_with_its_certificate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.txt"
    batch.write_text("\n".join([ESCARGOT, PLATINUM, "11" + "." * 79, GOLDEN]) + "\n")
    out_file = tmp_path / "out.jsonl"
    code, _, _ = run(
        capsys, "nishio", "--puzzle", str(batch), "--digit", "1", "--digit", "8", "--json",
        "--method", "sat", "--jobs", "2", "--no-progress", "--certify", str(tmp_path / "certs"),
        "-o", str(out_file),
    )  # fmt: skip
    assert code == 2  # the third puzzle is invalid
    objs = json_lines(out_file.read_text())
    assert [obj["index"] for obj in objs] == [0, 1, 2, 3, 4, 5, 6]
    assert [obj.get("digit") for obj in objs] == [1, 8, 1, 8, None, 1, 8]
    assert objs[4]["status"] == "invalid" and "certificate" not in objs[4]
    for obj in objs[:4] + objs[5:]:
        manifest = holds(obj["certificate"])
        assert manifest["digit"] == obj["digit"]
        assert cells(manifest["closure"]) == cells(obj["closure"])
    assert len({obj["certificate"] for obj in objs if "certificate" in obj}) == 6


def _wrong_closures(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Make every method's answer drop a kept cell outside its witness, or keep an eliminated one."""
    from sudoku_cp.nishio import api

    solve = api.solve_nishio

    def wrong(*args: Any, **kwargs: Any) -> Any:
        result = solve(*args, **kwargs)
        closure = np.array(result.closure)
        if how == "drop":
            spare = closure.copy()
            spare[np.arange(len(closure)), result.witness] = False
            r, c = np.argwhere(spare)[0]
            closure[r, c] = False
        else:
            r, c = np.argwhere(result.instance.mask & ~closure)[0]
            closure[r, c] = True
        return dataclasses.replace(result, closure=closure)

    monkeypatch.setattr(api, "solve_nishio", wrong)


@pytest.mark.parametrize("how", ["drop", "add"])
def test_a_wrong_closure_is_an_error_naming_the_claim(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    _wrong_closures(monkeypatch, how)
    certs = tmp_path / "certs"
    code, out, _ = run(
        capsys, "nishio", "--puzzle", ESCARGOT, "--digit", "9", "--json", "--certify", str(certs)
    )
    assert code == 3
    (obj,) = json_lines(out)
    assert obj["status"] == "unknown" and obj["closure"] is None and "certificate" not in obj
    assert "claim 'closure' not certified" in obj["error"]
    assert not list(certs.glob("*.json"))
    code, out, _ = run(capsys, "nishio", "--puzzle", ESCARGOT, "--digit", "9", "--certify", str(certs))
    assert code == 3
    assert "dag: unknown (claim 'closure' not certified" in out and "certificate:" not in out


# ------------------------------------------------------------------------ reduce --verify --certify


def _formula_holds(path: str) -> dict[str, Any]:
    from sudoku_cp.certify.check import check_certificate

    check = check_certificate(path)
    assert check.holds and check.claim == "formula", check.reason
    manifest: dict[str, Any] = json.loads(Path(path).read_text())
    return manifest


def test_reduce_certifies_an_unsatisfiable_formula_and_its_empty_instance(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    formula = tmp_path / "x.cnf"
    formula.write_text("p cnf 1 2\n1 0\n-1 0\n")
    certs = tmp_path / "certs"
    code, out, _ = run(capsys, "reduce", "--verify", str(formula), "--json", "--certify", str(certs))
    assert code == 0
    (report,) = json_lines(out)
    assert report["formula_satisfiable"] is False and report["instance_satisfiable"] is False
    manifest = _formula_holds(report["formula_certificate"])
    assert (manifest["claim"], manifest["variables"], manifest["clauses"]) == ("formula", 1, 2)
    closure = holds(report["instance_certificate"])
    assert closure["closure"] == [] and len(closure["eliminated"]) == report["cells"]
    assert "certificate_errors" not in report


def test_reduce_refuses_an_instance_too_large_to_certify(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    formula = Path(__file__).parent / "data" / "satlib" / "uuf50-01.cnf"
    code, out, _ = run(capsys, "reduce", "--verify", str(formula), "--json", "--certify", str(tmp_path))
    assert code == 2
    (report,) = json_lines(out)
    assert report["certificate_refused"] is True and "instance_certificate" not in report
    assert f"|S| = {report['cells']} cells" in report["certificate_errors"][0]
    _formula_holds(report["formula_certificate"])


def test_a_formula_certificate_with_a_changed_cnf_fails(tmp_path: Path) -> None:
    from sudoku_cp.certify.check import check_certificate
    from sudoku_cp.certify.cnf import compress
    from sudoku_cp.certify.make import certify_formula
    from sudoku_cp.certify.manifest import CertificateError, write_certificate

    path = write_certificate(tmp_path, certify_formula(2, [[1, 2], [-1, 2], [1, -2], [-1, -2]]))
    assert _formula_holds(str(path))["clauses"] == 4
    manifest = json.loads(path.read_text())
    (tmp_path / manifest["cnf"]).write_bytes(compress(b"p cnf 2 3\n1 2 0\n-1 2 0\n1 -2 0\n"))
    check = check_certificate(path)
    assert check.verdict == "fails" and "clauses" in check.reason, check.reason
    (tmp_path / manifest["cnf"]).write_bytes(compress(b"p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1  -2 0\n"))
    assert "canonical" in check_certificate(path).reason or "line" in check_certificate(path).reason
    with pytest.raises(CertificateError, match="claim 'formula' not certified: the formula has a model"):
        certify_formula(2, [[1, 2], [-1, 2], [1, -2]])
