"""The benchmark-set maker (``reduction.benchset``, ``sudoku-cp benchset``): what the manifest says is
on disk, a second run resumes, a failing entry gives its record and the others go on."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from sudoku_cp.cli import main
from sudoku_cp.nishio.text import parse_instance
from sudoku_cp.reduction import benchset
from sudoku_cp.reduction.benchset import SetOptions, make_set, parse_sizes, plan, write_manifest
from sudoku_cp.reduction.formula import parse_dimacs

SMALL = ["--family", "tseitin:6", "--family", "planted:5", "--family", "pigeonhole:2"]


def _manifest(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((folder / "manifest.json").read_text())
    return rows


def _header(path: Path) -> tuple[int, int]:
    for line in path.read_text().splitlines():
        if line.startswith("p cnf"):
            _, _, variables, clauses = line.split()
            return int(variables), int(clauses)
    raise AssertionError(f"{path} has no header")


def test_set_writes_what_the_manifest_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "set"
    assert main(["benchset", str(folder), *SMALL, "--seeds", "0,1"]) == 0
    rows = _manifest(folder)
    assert [row["id"] for row in rows] == [
        "tseitin-6-s0",
        "tseitin-6-s1",
        "planted-5-s0",
        "planted-5-s1",
        "pigeonhole-2-s0",
        "pigeonhole-2-s1",
    ]
    with (folder / "manifest.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert [row["id"] for row in table] == [row["id"] for row in rows]
    assert table[0]["expected"] == "unsat" and json.loads(table[0]["params"]) == {"degree": 3}
    for row in rows:
        entry = folder / row["id"]
        assert row["status"] == "ok" and row["expected"] == ("sat" if row["family"] == "planted" else "unsat")
        for name, size in row["files"].items():
            assert (entry / name).stat().st_size == size
        assert row["bytes_cnf_pairwise"] == row["files"]["pairwise.cnf"]
        instance = parse_instance((entry / "instance.nishio").read_text())
        assert (instance.n, instance.size) == (row["side"], row["cells"])
        assert _header(entry / "pairwise.cnf") == (row["cnf_pairwise_variables"], row["cnf_pairwise_clauses"])
        assert _header(entry / "seqcounter.cnf") == (row["cnf_compact_variables"], row["cnf_compact_clauses"])
        formula = parse_dimacs((entry / "formula.cnf").read_text())
        assert (formula.num_vars, formula.num_clauses) == (row["variables"], row["clauses"])
        meta = json.loads((entry / "meta.json").read_text())
        assert meta["expected"] == row["expected"] and meta["reason"] == row["reason"]
        assert (entry / "instance.dlx").exists() and (entry / "cpsat.pb.txt").exists()
        assert row["witness"] == (entry / "witness.txt").exists() == (row["family"] == "planted")
        assert all(row[key] >= 0 for key in ("seconds_formula", "seconds_reduce", "seconds_total"))
    capsys.readouterr()
    planted = folder / "planted-5-s0"
    assert main(["reduce", "--decode", str(planted / "meta.json"), str(planted / "witness.txt")]) == 0
    assert "s SATISFIABLE" in capsys.readouterr().out


def test_second_run_resumes_and_rebuilds_a_damaged_entry(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    entries = plan([("tseitin", (6,)), ("xor", (5,))], [0])
    first = list(make_set(folder, entries))
    assert [record["resumed"] for record in first] == [False, False]
    stamp = (folder / "tseitin-6-s0" / "pairwise.cnf").stat().st_mtime_ns
    (folder / "xor-5-s0" / "instance.dlx").write_text("damaged")
    second = list(make_set(folder, entries))
    assert [record["resumed"] for record in second] == [True, False]
    assert (folder / "tseitin-6-s0" / "pairwise.cnf").stat().st_mtime_ns == stamp
    assert second[1]["files"] == first[1]["files"]
    other = list(make_set(folder, entries, SetOptions(compact="ladder")))  # another request: rebuilt
    assert [record["resumed"] for record in other] == [False, False]
    assert (folder / "tseitin-6-s0" / "ladder.cnf").exists()


def test_a_failing_entry_gives_its_record_and_the_others_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sudoku_cp.reduction import families

    real = families.reduce_family

    def failing(made: Any, **options: Any) -> Any:
        if made.family == "pigeonhole":
            raise families.ReductionError("made to fail")
        return real(made, **options)

    monkeypatch.setattr(families, "reduce_family", failing)
    folder = tmp_path / "set"
    assert main(["benchset", str(folder), *SMALL]) == 3
    rows = _manifest(folder)
    assert [row["status"] for row in rows] == ["ok", "ok", "error"]
    assert "made to fail" in rows[2]["error"]
    assert not (folder / "pigeonhole-2-s0" / "entry.json").exists()
    assert "pigeonhole-2-s0: ERROR: ReductionError: made to fail" in capsys.readouterr().out
    monkeypatch.setattr(families, "reduce_family", real)
    assert main(["benchset", str(folder), *SMALL]) == 0  # the failed entry is built, the others kept
    assert [row["resumed"] for row in _manifest(folder)] == [True, True, False]


def test_crash_records_come_from_the_executor() -> None:
    chunk = benchset._Chunk("/nonexistent", plan([("tseitin", (6,))], [0])[0], SetOptions())
    (record,) = benchset._crashed(chunk, "killed")
    assert record["status"] == "crash" and record["id"] == "tseitin-6-s0"


def test_two_jobs_give_the_same_set(tmp_path: Path) -> None:
    from sudoku_cp.executor import Executor

    entries = plan([("parity", (4, 5))], [0])
    here = list(make_set(tmp_path / "a", entries))
    there = list(make_set(tmp_path / "b", entries, executor=Executor(jobs=2)))
    keys = ("id", "side", "cells", "expected", "files")
    assert [{k: r[k] for k in keys} for r in here] == [{k: r[k] for k in keys} for r in there]
    write_manifest(tmp_path / "b", there)
    assert (tmp_path / "b" / "manifest.csv").read_text().count("\n") == 3


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--family", "nosuch:3"], "unknown family 'nosuch'"),
        (["--family", "tseitin:3"], "size 3 is out of range"),
        (["--family", "tseitin"], "expected NAME:SIZES"),
        (["--family", "tseitin:a,b"], "sizes must be whole numbers"),
        (["--preset", "huge"], "--preset 'huge'"),
        (["--family", "tseitin:6", "--ratio", "2"], "no family of the set takes the parameter ratio"),
        (["--family", "tseitin:6", "--seeds", "x"], "--seeds 'x'"),
        (["--family", "tseitin:6", "--amo", "nosuch"], "--amo 'nosuch'"),
        ([], "give --family NAME:SIZES or --preset NAME"),
    ],
)
def test_bad_requests_exit_2_with_one_line_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    folder = tmp_path / "set"
    assert main(["benchset", str(folder), *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert not folder.exists()


def test_parse_sizes() -> None:
    assert parse_sizes("tseitin:6,8") == ("tseitin", (6, 8))
    assert parse_sizes("tseitin:6-12:2") == ("tseitin", (6, 8, 10, 12))
    assert parse_sizes("xor:5-7") == ("xor", (5, 6, 7))
    with pytest.raises(ValueError):
        parse_sizes("xor:7-5")
