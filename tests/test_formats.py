"""Grid text forms: reading, writing, autodetection, and one clear error per bad input."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, SHARED
from hypothesis import given
from hypothesis import strategies as st

from sudoku_cp.formats import (
    MAX_MESSAGE,
    GridFormat,
    ParseError,
    excerpt,
    format_ints,
    format_line,
    format_lines,
    format_pretty,
    grid_to_json,
    parse_grid,
    parse_puzzles,
    read_text,
)
from sudoku_cp.geometry import MAX_SIDE, Geometry, GeometryError, geometry_for_size, parse_box
from sudoku_cp.grid import Grid
from sudoku_cp.random_grids import random_puzzle

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 4), (5, 5), (8, 8)]


@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_every_written_form_reads_back_to_the_same_grid(
    shape: tuple[int, int], seed: int, blank: float
) -> None:
    g = Geometry(*shape)
    grid = random_puzzle(g, blank, np.random.default_rng(seed))
    box = shape if shape[0] != shape[1] else None
    for text in (format_line(grid), format_pretty(grid), format_ints(grid)):
        assert parse_grid(text, box=box) == grid


def test_one_line_form_uses_dots_and_letters_past_nine() -> None:
    grid = parse_grid("123456789ABCDEFG" + "." * 240)
    assert grid.n == 16
    assert grid.values[0].tolist() == list(range(1, 17))
    assert format_line(grid).startswith("123456789ABCDEFG...")
    assert parse_grid(HARD.replace(".", "0")) == parse_grid(HARD)


def test_json_form_names_size_box_and_rows() -> None:
    obj = grid_to_json(parse_grid(HARD))
    assert obj["n"] == 9 and obj["box"] == "3x3" and obj["line"] == HARD
    assert obj["rows"][0][0] == 4  # type: ignore[index]


def test_multi_line_grid_with_separators_is_read() -> None:
    text = format_pretty(parse_grid(HARD))
    assert "|" in text and "+" in text
    assert parse_grid(text) == parse_grid(HARD)


def test_ant_colony_instances_are_read_with_minus_one_blanks() -> None:
    for name, n in (("inst16x16_45_0.txt", 16), ("inst25x25_45_0.txt", 25), ("aiescargot.txt", 9)):
        grid = parse_grid((DATA / name).read_text())
        assert grid.n == n
        raw = [int(t) for t in (DATA / name).read_text().split()][2:]
        assert grid.values.reshape(-1).tolist() == [max(v, 0) for v in raw]


def test_integer_grid_of_any_size_is_read() -> None:
    grid = parse_grid((DATA / "sudoku-25-1.txt").read_text())
    assert grid.n == 25 and grid.geometry == Geometry(5, 5)
    big = SHARED / "big" / "sudoku-100-1.txt"
    if big.exists():
        assert parse_grid(big.read_text()).n == 100


def test_batch_file_gives_one_item_per_line_and_keeps_going_after_bad_lines() -> None:
    text = "\n".join([HARD, HARD[:-1], HARD[:-1] + "x", "", "# a comment", HARD.replace("4", "5", 1)]) + "\n"
    items = parse_puzzles(text)
    assert [item.line for item in items] == [1, 2, 3, 6]
    assert items[0].grid is not None and items[3].grid is not None
    assert items[1].grid is None and "80 symbols" in (items[1].error or "")
    assert (
        items[2].grid is None and "column 81" in (items[2].error or "") and "R9C9" in (items[2].error or "")
    )


def test_corpus_batch_reads_every_line() -> None:
    items = parse_puzzles((DATA / "norvig_top95.txt").read_text())
    assert len(items) == 95 and all(item.grid is not None for item in items)


@pytest.mark.parametrize(
    ("text", "box", "message"),
    [
        ("", None, "empty input"),
        ("   \n\n", None, "empty input"),
        (HARD[:-2], None, "79 symbols is not a square"),
        (HARD[:40] + "?" + HARD[41:], None, "line 1, column 41: unknown symbol '?' (R5C5)"),
        (HARD[:-1] + "A", None, "out of range 1-9 (R9C9)"),
        ("1" * 49, None, "7x7 grid has no box shape"),
        ("123456" + "." * 30, None, "several box shapes (2x3, 3x2)"),
        ("123456" + "." * 30, (2, 2), "does not fit"),
        ("1 2 3 4\n" * 3 + "1 2 3 17\n", None, "digit 17 out of range 1-4"),
        ("3 1\n" + "-1 " * 80, None, "needs 81 cell values, found 80"),
    ],
)
def test_bad_input_gets_one_clear_line_naming_the_place(
    text: str, box: tuple[int, int] | None, message: str
) -> None:
    with pytest.raises(ParseError) as raised:
        parse_grid(text, box=box)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_sixteen_lines_of_sixteen_symbols_are_ambiguous_unless_a_form_is_named() -> None:
    rows = [format_line(random_puzzle(Geometry(2, 2), 0.0, np.random.default_rng(k))) for k in range(16)]
    text = "\n".join(rows) + "\n"
    with pytest.raises(ParseError, match="ambiguous"):
        parse_puzzles(text)
    assert len(parse_puzzles(text, fmt=GridFormat.LINES)) == 16
    grid_items = parse_puzzles(text, fmt=GridFormat.GRID)
    assert len(grid_items) == 1 and grid_items[0].grid is not None and grid_items[0].grid.n == 16


def test_named_format_is_enforced() -> None:
    with pytest.raises(ParseError, match="not an ant-colony instance"):
        parse_grid(HARD, fmt=GridFormat.ACS)
    assert parse_grid(HARD, fmt=GridFormat.LINE) == parse_grid(HARD)


# ------------------------------------------------------------------------------ hostile input (issue 11)

INTS = format_ints(parse_grid(HARD))  # '4 0 0 ...'


@pytest.mark.parametrize(
    ("text", "fmt", "where"),
    [
        ("-5" + INTS[1:], None, "line 1, column 1"),  # was read as a given 5, the '-' a box rule
        ("-7 7" + INTS[3:], None, "line 1, column 1"),  # was read as two 7s
        ("-5" + INTS[1:], GridFormat.INTS, "line 1, column 1"),
        ("-5" + INTS[1:], GridFormat.GRID, "line 1, column 1"),
        ("-5" + HARD[2:], GridFormat.LINE, "line 1, column 1"),
        ("-5" + HARD[2:], None, "line 1, column 1"),
        (format_pretty(parse_grid(HARD)).replace("\n. 3", "\n-5 3", 1), None, "line 2, column 1"),
        (INTS.replace("\n0 3", "\n0 -3", 1), None, "line 2, column 3"),
    ],
)
def test_a_negative_number_is_an_error_in_every_form_naming_line_and_column(
    text: str, fmt: GridFormat | None, where: str
) -> None:
    with pytest.raises(ParseError, match="negative number -[0-9]") as raised:
        parse_grid(text, fmt=fmt)
    assert str(raised.value).startswith(where)


def test_a_negative_number_in_a_batch_line_makes_that_line_invalid() -> None:
    items = parse_puzzles(f"{HARD}\n-5{HARD[2:]}\n{HARD}\n")
    assert [item.grid is not None for item in items] == [True, False, True]
    assert "line 2, column 1: negative number -5" in (items[1].error or "")


def test_ant_colony_files_keep_minus_one_blanks_and_refuse_other_negatives() -> None:
    text = "3\n1\n" + " ".join(["-1"] * 81)
    assert parse_grid(text).values.sum() == 0
    with pytest.raises(ParseError, match="value -5 out of range"):
        parse_grid(text.replace("-1", "-5", 1))


@pytest.mark.parametrize("digits", [10, 5000])
def test_huge_integers_are_a_parse_error_not_a_value_error_of_int(digits: int) -> None:
    with pytest.raises(ParseError, match="too large") as raised:
        parse_grid("9" * digits + INTS[1:])
    assert len(str(raised.value)) < 120


def test_a_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    assert parse_grid("\ufeff" + HARD) == parse_grid(HARD)
    assert [item.grid for item in parse_puzzles(f"\ufeff{HARD}\n{HARD}\n")] == [parse_grid(HARD)] * 2
    path = tmp_path / "bom.txt"
    path.write_text("\ufeff" + HARD, encoding="utf-8")
    assert read_text(str(path)) == HARD


def test_messages_cut_long_values_and_stay_on_one_line() -> None:
    with pytest.raises(ParseError) as raised:
        parse_grid(" ".join(["x" * 10_000] * 81), fmt=GridFormat.INTS)
    assert len(str(raised.value)) < 100 and "xxx..." in str(raised.value)
    error = ParseError("a\nb" + "c" * 10_000, 3, 4)
    assert "\n" not in str(error) and len(str(error)) <= MAX_MESSAGE
    assert excerpt("y" * 100) == repr("y" * 37 + "...")
    assert excerpt(10**100) == "an integer of 101 digits" and excerpt(-12) == "-12"
    assert excerpt(10**20000) == "an integer of thousands of digits"
    assert excerpt([1] * 100).endswith("...") and len(excerpt([1] * 100)) == 40


def test_a_grid_side_beyond_the_largest_is_refused_at_once() -> None:
    start = time.perf_counter()
    for n in (MAX_SIDE + 1, 10**9, 10**30, -5, 0, 1):
        with pytest.raises(GeometryError, match=f"2..{MAX_SIDE}"):
            geometry_for_size(n)
    assert time.perf_counter() - start < 5.0  # refused at once: 10**9 took 21 s when it listed 98 box shapes
    with pytest.raises(
        GeometryError, match=r"\(2x1680, 3x1120, 4x840, 5x672, 6x560, 7x480, \.\.\. 46 in all\)"
    ):
        geometry_for_size(3360)
    with pytest.raises(GeometryError, match="above the largest"):
        Geometry(65, 64)
    for text in ("99999x99999", "9" * 5000 + "x2", "²x3"):
        with pytest.raises(GeometryError):
            parse_box(text)


def _general_path(monkeypatch: pytest.MonkeyPatch, text: str, **options: object) -> object:
    """What ``parse_puzzles`` gives without its numpy batch reader: the items, or the error text."""
    from sudoku_cp import formats

    with monkeypatch.context() as patched:
        patched.setattr(formats, "_scan_batch", lambda *args, **kwargs: None)
        try:
            return formats.parse_puzzles(text, **options)  # type: ignore[arg-type]
        except ParseError as error:
            return str(error)


def _parsed(text: str, **options: object) -> object:
    try:
        return parse_puzzles(text, **options)  # type: ignore[arg-type]
    except ParseError as error:
        return str(error)


_PIECES = [HARD, HARD, HARD, HARD[:-1], HARD[:-1] + "x", HARD.replace(".", "0"), "1" * 16, "12.4" * 4]
_PIECES += ["", "  ", "# note", "  # indented note", "\t" + HARD + " ", HARD[:40] + "|" + HARD[40:]]
_PIECES += [HARD[:9] + " " + HARD[9:], "-" * 81, HARD[:-1] + "é", "x", "ab", HARD[:-1] + "A"]


@given(
    st.lists(st.sampled_from(_PIECES), min_size=0, max_size=12),
    st.sampled_from(["\n", "\r\n", "\r", "\x0c"]),
    st.booleans(),
    st.sampled_from([None, GridFormat.LINES]),
)
def test_the_numpy_batch_reader_gives_what_the_line_by_line_reader_gives(
    pieces: list[str], newline: str, final_break: bool, fmt: GridFormat | None
) -> None:
    text = newline.join(pieces) + (newline if final_break else "")
    with pytest.MonkeyPatch.context() as monkeypatch:
        expected = _general_path(monkeypatch, text, fmt=fmt)
    assert _parsed(text, fmt=fmt) == expected


def test_a_batch_read_in_one_pass_makes_grids_only_when_asked() -> None:
    items = parse_puzzles("\n".join([HARD] * 5 + [HARD[:-1]]) + "\n")
    assert [item.line for item in items] == [1, 2, 3, 4, 5, 6]
    first = items[0].source
    assert first is not None and first[0].values.shape == (5, 81) and items[5].source is None
    assert items[0].grid == parse_grid(HARD) and items[0].grid is items[0].grid
    assert items[5].grid is None and "80 symbols" in (items[5].error or "")


def test_format_lines_writes_each_row_as_format_line() -> None:
    grids = [parse_grid(HARD), parse_grid("123456789ABCDEFG" + "." * 240)]
    for grid in grids:
        stack = np.stack([grid.values.reshape(-1)] * 3)
        assert format_lines(grid.geometry, stack) == [format_line(grid)] * 3
    big = Geometry(8, 8)
    empty = np.zeros((2, 64 * 64), dtype=np.int16)
    assert format_lines(big, empty) == [format_line(Grid.empty(big))] * 2
