"""--resume checks that a results file belongs to this input and these options (issue 25.2).

A JSON Lines results file starts with a header recording the command, the input's digest and the
options that change results.  Before the header existed, `solve corpus5.txt --json -o other.jsonl
--resume` with other.jsonl holding the results of another corpus solved nothing, exited 0 and
counted the other corpus's puzzles; now such a file is refused in one line, exit 2, unchanged.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import DATA

from sudoku_cp.cli import main

CORPUS = (DATA / "forum_hardest_200.txt").read_text().splitlines()


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err: str, fragment: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudoku-cp: error: ") and fragment in lines[0], err
    assert "Traceback" not in err


def _results(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_solve_refuses_the_results_of_another_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _write(tmp_path / "other.txt", CORPUS[:40])
    mine = _write(tmp_path / "corpus5.txt", CORPUS[100:105])
    results = tmp_path / "other.jsonl"
    assert _run(capsys, "solve", str(other), "--json", "-o", str(results))[0] == 0
    before = results.read_bytes()
    code, out, err = _run(capsys, "solve", str(mine), "--json", "-o", str(results), "--resume")
    assert code == 2 and out == ""
    _one_error_line(err, "another input")
    assert results.read_bytes() == before  # nothing already written changes


def test_solve_refuses_results_made_with_other_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _write(tmp_path / "corpus.txt", CORPUS[:5])
    results = tmp_path / "out.jsonl"
    assert _run(capsys, "solve", str(corpus), "--json", "-o", str(results))[0] == 0
    before = results.read_bytes()
    code, _, err = _run(capsys, "solve", str(corpus), "--json", "-o", str(results), "--resume", "--unique")
    assert code == 2
    _one_error_line(err, "--unique false then, true now")
    assert results.read_bytes() == before


def test_a_results_file_without_a_header_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older sudoku-cp's file, or results pasted from elsewhere: nothing says whose they are."""
    corpus = _write(tmp_path / "corpus.txt", CORPUS[:5])
    results = tmp_path / "old.jsonl"
    results.write_text('{"index":0,"status":"solved","line":1,"solution":"1"}\n')
    before = results.read_bytes()
    code, _, err = _run(capsys, "solve", str(corpus), "--json", "-o", str(results), "--resume")
    assert code == 2
    _one_error_line(err, "without a 'sudoku_cp_results' header")
    assert results.read_bytes() == before


def test_a_results_file_of_another_command_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _write(tmp_path / "corpus.txt", CORPUS[:3])
    results = tmp_path / "rated.jsonl"
    assert _run(capsys, "rate", str(corpus), "--json", "-o", str(results))[0] in (0, 3)  # stuck: 3
    before = results.read_bytes()
    code, _, err = _run(capsys, "solve", str(corpus), "--json", "-o", str(results), "--resume")
    assert code == 2
    _one_error_line(err, "holds results of 'rate', not of 'solve'")
    assert results.read_bytes() == before


def test_an_interrupted_run_of_the_same_input_resumes_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _write(tmp_path / "corpus.txt", CORPUS[:6])
    whole = tmp_path / "whole.jsonl"
    assert _run(capsys, "solve", str(corpus), "--json", "-o", str(whole))[0] == 0
    lines = whole.read_text().splitlines(keepends=True)
    assert (
        json.loads(lines[0])["sudoku_cp_results"] == 1 and len(lines) == 1 + 6 + 1
    )  # header, results, summary
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:4]) + lines[4][:20])  # the header, 3 results, a line cut short
    code, _, err = _run(capsys, "solve", str(corpus), "--json", "-o", str(cut), "--resume")
    assert code == 0, err

    def timeless(path: Path) -> list[str]:
        return [re.sub(r'"seconds":[0-9.e-]+', "", line) for line in path.read_text().splitlines()]

    assert timeless(cut)[:-1] == timeless(whole)[:-1]
    assert _results(cut)[-1]["summary"]["puzzles"] == 6  # type: ignore[index]


def test_verify_refuses_the_runs_of_another_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _write(tmp_path / "other.txt", CORPUS[:10])
    mine = _write(tmp_path / "corpus5.txt", CORPUS[100:105])
    results = tmp_path / "runs.jsonl"
    argv = ["--backend", "dlx", "--json", "-o", str(results)]
    assert _run(capsys, "verify", str(other), *argv)[0] == 0
    before = results.read_bytes()
    code, out, err = _run(capsys, "verify", str(mine), *argv, "--resume")
    assert code == 2 and out == ""
    _one_error_line(err, "another input")
    assert results.read_bytes() == before


def test_a_fresh_run_writes_the_header_that_readers_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _write(tmp_path / "corpus.txt", CORPUS[:3])
    results = tmp_path / "out.jsonl"
    assert _run(capsys, "rate", str(corpus), "--json", "-o", str(results))[0] in (0, 3)  # stuck: 3
    header = _results(results)[0]
    assert header["command"] == "rate" and len(str(header["input"])) == 64
    assert "jobs" not in header["options"] and "output_file" not in header["options"]  # type: ignore[operator]
    code, _, err = _run(capsys, "rate", str(corpus), "--json", "-o", str(results), "--resume", "--jobs", "2")
    assert code in (0, 3) and "error" not in err, err  # --jobs changes no result: resumed


def test_verify_refuses_runs_made_on_another_answers_file_at_the_same_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The answers file was recorded by its path only: edited in place, its old runs were resumed."""
    corpus = _write(tmp_path / "corpus.txt", CORPUS[:3])
    answers = _write(tmp_path / "answers.txt", ["unknown"] * 3)
    results = tmp_path / "runs.jsonl"
    argv = ["verify", str(corpus), "--answers", str(answers), "--json", "-o", str(results)]
    assert _run(capsys, *argv)[0] == 3  # unknown answers
    before = results.read_bytes()
    assert _run(capsys, *argv, "--resume")[0] == 3  # the same file: resumed, nothing left to run
    assert results.read_bytes()[: len(before)] == before
    resumed = results.read_bytes()
    _write(answers, ["unsat"] * 3)  # other claims, same path
    code, out, err = _run(capsys, *argv, "--resume")
    assert code == 2 and out == ""
    _one_error_line(err, "made with other options (--answers")
    assert results.read_bytes() == resumed
