"""-o FILE --resume: indices already answered are skipped, a cut line and an old summary dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from sudoku_cp.cli.results_file import ResultsFileError, open_results_file


def test_a_fresh_file_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")
    results = open_results_file(str(path), resume=False)
    results.write('{"index":0,"status":"solved"}')
    results.close()
    assert path.read_text() == '{"index":0,"status":"solved"}\n'


def test_resume_keeps_whole_result_lines_and_drops_a_cut_line_and_the_summary(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text('{"index":0,"status":"solved"}\n{"index":1,"status":"unsat"}\n{"index":2,"sta')
    results = open_results_file(str(path), resume=True)
    assert results.done == {0, 1} and results.statuses == {"solved": 1, "unsat": 1}
    results.write('{"index":2,"status":"solved"}')
    results.close()
    assert path.read_text().splitlines()[-1] == '{"index":2,"status":"solved"}'
    with_summary = path.read_text() + '{"summary":{"puzzles":3}}\n'
    path.write_text(with_summary)
    again = open_results_file(str(path), resume=True)
    again.close()
    assert again.done == {0, 1, 2} and "summary" not in path.read_text()


def test_resume_of_a_missing_file_starts_it(tmp_path: Path) -> None:
    results = open_results_file(str(tmp_path / "new.jsonl"), resume=True)
    results.close()
    assert results.done == set() and (tmp_path / "new.jsonl").exists()


@pytest.mark.parametrize(
    "text,problem",
    [
        ("not json\n", "not a JSON line"),
        ('{"status":"solved"}\n', "without an index"),
        ('{"summary":{}}\n{"index":0,"status":"solved"}\n', "results after a summary"),
    ],
)
def test_a_file_that_is_not_ours_is_refused_with_its_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(text)
    with pytest.raises(ResultsFileError, match=problem):
        open_results_file(str(path), resume=True)
    assert path.read_text() == text  # nothing lost


def test_an_unwritable_place_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ResultsFileError, match="cannot write"):
        open_results_file(str(tmp_path / "no" / "such" / "dir.jsonl"), resume=False)
